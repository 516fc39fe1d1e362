/**
 * Live alerts: what `auditstorm watch` prints (and `serve` logs) when an episode opens, worsens
 * or closes. One line of text for people, one JSON object per line (`--format ndjson`) for
 * programs. Both are pure over the alert; strings from the log are stripped of control characters
 * so a hostile userAgent cannot forge or hide alert lines.
 */
import type { EpisodePhase } from '../detectors/types.js';
import { escapeJsonControls, stripControlChars } from '../report/escape.js';
import { formatObject } from '../report/format.js';
import type { Finding } from '../report/schema.js';

/** One phase change of one episode. */
export interface LiveAlert {
  phase: EpisodePhase;
  /** The episode's state at this phase (for `close`: its final finding). */
  finding: Finding;
  /** Wall-clock time the alert was raised (UTC ISO 8601, from the injected clock). */
  at: string;
  /**
   * For `close`: `finding` when the episode became a finding, `note` when it was handled well
   * (backoff, RetryOnConflict) and went to the report's notes. Absent for `open` and `update`.
   */
  outcome?: 'finding' | 'note';
}

const PHASE_WORD: Record<EpisodePhase, string> = { open: 'OPEN', update: 'WORSE', close: 'CLOSED' };

function num(v: unknown): string | null {
  return typeof v === 'number' && Number.isFinite(v) ? (Number.isInteger(v) ? String(v) : v.toFixed(1)) : null;
}

/**
 * One line of text, no newline, e.g.
 * `2026-02-27T14:11:20.250Z OPEN   critical conflict-storm appdeployment-operator retries 409 … | user=system:serviceaccount:… object=appdeployments.infra.company.io/status default/payment-core window=14:11:10.035→14:11:19.990 id=conflict-storm:09719b01`.
 */
export function formatAlertText(a: LiveAlert): string {
  const f = a.finding;
  const user = f.actors.map((x) => x.username).join(',');
  const parts = [`${a.at} ${PHASE_WORD[a.phase].padEnd(6)} ${f.severity.padEnd(8)} ${f.kind}`, stripControlChars(f.title)];
  const tail = [`user=${stripControlChars(user)}`];
  if (f.object !== null) tail.push(`object=${stripControlChars(formatObject(f.object))}`);
  tail.push(`window=${f.window.from}→${f.window.to}`);
  const conflicts = num(f.metrics['conflicts']);
  const peak = num(f.metrics['peak409PerSec']);
  if (conflicts !== null) tail.push(`conflicts=${conflicts}`);
  if (peak !== null) tail.push(`peak409PerSec=${peak}`);
  if (a.outcome === 'note') tail.push('outcome=note (handled well)');
  tail.push(`id=${f.id}`);
  return `${parts.join(' ')} | ${tail.join(' ')}`;
}

/**
 * One JSON object (no newline) for `--format ndjson`:
 * `{"type":"alert","phase":"open","at":…,"kind":…,"severity":…,"id":…,"title":…,"actors":[…],"object":…,"window":…,"metrics":…,"signals":[…],"outcome"?:…}`.
 * The actors, object, window, metrics and signals are the report's (`src/report/schema.ts`).
 */
export function formatAlertJson(a: LiveAlert): string {
  const f = a.finding;
  const out: Record<string, unknown> = {
    type: 'alert',
    phase: a.phase,
    at: a.at,
    kind: f.kind,
    severity: f.severity,
    id: f.id,
    title: f.title,
    actors: f.actors,
    object: f.object,
    window: f.window,
    metrics: f.metrics,
    signals: f.signals,
  };
  if (a.outcome !== undefined) out['outcome'] = a.outcome;
  return escapeJsonControls(JSON.stringify(out));
}
