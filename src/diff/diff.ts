/**
 * `auditstorm diff`: two reports in, one {@link DiffReport} out. Pure: no I/O, no clock (the
 * caller passes `generatedAt`), deterministic.
 *
 * Findings are matched by a key of kind, actor and object, never by auditIDs, ids or times, which
 * differ between any two runs:
 * - actor: the service account (`namespace/name`), else the username, else the userAgent
 *   product; write fights name every writer (sorted), fleet storms their family (`family` metric);
 * - object: API group, resource, namespace, name, subresource (not the version: an upgrade may
 *   change it); fleet storms the resources of their objects (`topObjects`); create-conflict
 *   storms, judged per identity, the resources they create (`resources`; their object is only
 *   the name hit most); other findings without an object what their `resource`/`resources`
 *   metric names, else nothing (the actor's whole traffic).
 * Findings of one run with the same key (several episodes) are added up.
 *
 * Verdicts compare rates normalised by each run's duration (its input time range): the
 * finding's bad answers per second (409/s, 429/s, AlreadyExists/s, no-op writes/s, flips/s)
 * and its excess requests per hour (`excessRequests`, see `src/detectors/impact.ts`); kinds
 * without bad answers (hot loops, create storms) are judged on writes/s or creates/s. A judged rate above
 * `before × (1 + tolerance)` makes the finding `worse`, below `before × (1 − tolerance)` `better`
 * (`worse` wins when both happen); within tolerance a change of severity decides, else `same`.
 */
import { severityRank, SEVERITIES, type Finding, type Report, type Severity } from '../report/schema.js';
import { formatDurationMs, formatFixed, formatInt, formatPercent } from '../report/format.js';
import { DIFF_SCHEMA_VERSION, VERDICTS, type ClusterFigure, type DiffFinding, type DiffReport, type DiffRun, type Measure, type Verdict } from './schema.js';

/** One input of a diff: its report and where it came from. */
export interface DiffInput {
  /** The path as given (shown in the diff). */
  name: string;
  /** `report`: a JSON report read back; `log`: logs analyzed for this diff. */
  from: 'report' | 'log';
  report: Report;
}

/** Options of {@link diffReports}. */
export interface DiffOptions {
  /** Relative change (0..1) within which a rate counts as unchanged. Default 0.2. */
  tolerance?: number;
  /** `generatedAt` of the diff (UTC ISO 8601), from the caller's clock. */
  generatedAt: string;
  /** Version written in `tool.version`. */
  version: string;
}

/** Default `--tolerance`: rates within 20 % count as `same`. */
export const DEFAULT_TOLERANCE = 0.2;

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Counted metrics per kind: the traffic (rate shown) and the bad answers (rates judged). */
interface KindRates {
  traffic: { key: string; label: string };
  bad: Array<{ key: string; label: string }>;
  peak?: { key: string; label: string };
}

const KIND_RATES: Readonly<Record<string, KindRates>> = {
  'conflict-storm': { traffic: { key: 'attempts', label: 'writes/s' }, bad: [{ key: 'conflicts', label: '409/s' }], peak: { key: 'peak409PerSec', label: 'peak 409/s' } },
  'hot-loop': { traffic: { key: 'writes', label: 'writes/s' }, bad: [], peak: { key: 'peakWritesPerSec', label: 'peak writes/s' } },
  'no-op-writes': { traffic: { key: 'writes', label: 'writes/s' }, bad: [{ key: 'noOpWrites', label: 'no-op writes/s' }] },
  'write-fight': { traffic: { key: 'writes', label: 'writes/s' }, bad: [{ key: 'alternations', label: 'flips/s' }] },
  'create-conflict-storm': {
    traffic: { key: 'creates', label: 'creates/s' },
    bad: [{ key: 'alreadyExists', label: 'AlreadyExists/s' }],
    peak: { key: 'peakAlreadyExistsPerSec', label: 'peak AlreadyExists/s' },
  },
  'create-storm': { traffic: { key: 'creates', label: 'creates/s' }, bad: [], peak: { key: 'peakCreatesPerSec', label: 'peak creates/s' } },
  throttling: { traffic: { key: 'requests', label: 'requests/s' }, bad: [{ key: 'throttled', label: '429/s' }], peak: { key: 'peak429PerSec', label: 'peak 429/s' } },
  'fleet-storm': {
    traffic: { key: 'requests', label: 'requests/s' },
    bad: [
      { key: 'conflicts', label: '409/s' },
      { key: 'throttled', label: '429/s' },
    ],
    peak: { key: 'peakPerSec', label: 'peak 409+429/s' },
  },
};
const GENERIC_RATES: KindRates = { traffic: { key: 'writes', label: 'writes/s' }, bad: [{ key: 'conflicts', label: '409/s' }] };

/** A finding's actor as the key names it: service account, else username, else userAgent product. */
export function actorKey(a: Finding['actors'][number]): string {
  if (a.serviceAccount) return `${a.serviceAccount.namespace}/${a.serviceAccount.name}`;
  if (a.username !== '') return a.username;
  return a.userAgentProduct;
}

/** `resource[.group][/subresource]`, as kubectl names it (no version). */
function resourceLabel(o: { apiGroup: string; resource: string; subresource: string }): string {
  return `${o.resource}${o.apiGroup ? `.${o.apiGroup}` : ''}${o.subresource ? `/${o.subresource}` : ''}`;
}

/** Names in a `topList` metric (`a(3), b(2)`), counts dropped. */
function listNames(v: unknown): string[] {
  if (typeof v !== 'string' || v === '') return [];
  return v
    .split(/,\s*/)
    .map((s) => s.replace(/\(\d+\)$/, '').trim())
    .filter((s) => s !== '');
}

/** Sorted distinct strings joined with `, `. */
function setText(items: readonly string[]): string {
  return [...new Set(items)].sort().join(', ');
}

/** The parts of a finding's match key. */
export function matchKey(f: Finding): { kind: string; actor: string; subject: string; key: string } {
  let actor: string;
  let subject: string;
  if (f.kind === 'fleet-storm') {
    const family = f.metrics['family'];
    actor = typeof family === 'string' && family !== '' ? family : f.actors[0] ? actorKey(f.actors[0]) : '';
    // topObjects items read `resource[/sub] [ns/]name(count)`: the resources are the first words.
    subject = setText(listNames(f.metrics['topObjects']).map((s) => s.split(' ')[0] ?? ''));
  } else {
    actor = f.kind === 'write-fight' ? setText(f.actors.map(actorKey)).replace(/, /g, ' and ') : f.actors[0] ? actorKey(f.actors[0]) : '';
    const resources = f.metrics['resources'] ?? f.metrics['resource'];
    if (f.object !== null && f.kind !== 'create-conflict-storm') {
      const o = f.object;
      subject = `${resourceLabel(o)} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`.trim();
    } else if (typeof resources === 'string') {
      // create-storm is per namespace: its `namespace` metric tells two namespaces' storms apart.
      const ns = f.metrics['namespace'];
      subject = setText(listNames(resources)) + (typeof ns === 'string' && ns !== '' ? ` in ${ns}` : '');
    } else if (f.object !== null) {
      subject = resourceLabel(f.object);
    } else {
      subject = '';
    }
  }
  return { kind: f.kind, actor, subject, key: [f.kind, actor, subject].join(' · ') };
}

/** Length of a run's time range, ms; 0 when it counted no request. */
export function runDurationMs(r: Report): number {
  const t = r.input.timeRange;
  if (t === null) return 0;
  const ms = Date.parse(t.to) - Date.parse(t.from);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

function num(f: Finding, key: string): number | null {
  const v = f.metrics[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function sum(fs: readonly Finding[], key: string): number | null {
  let total: number | null = null;
  for (const f of fs) {
    const v = num(f, key);
    if (v !== null) total = (total ?? 0) + v;
  }
  return total;
}

function max(fs: readonly Finding[], key: string): number | null {
  let m: number | null = null;
  for (const f of fs) {
    const v = num(f, key);
    if (v !== null) m = m === null ? v : Math.max(m, v);
  }
  return m;
}

function maxSeverity(fs: readonly Finding[]): Severity {
  let best = 0;
  for (const f of fs) best = Math.max(best, severityRank(f.severity));
  return SEVERITIES[best]!;
}

/** A rate for display: `0`, `0.3`, `7.9`, `75`, `41,000`. */
export function formatAmount(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 10) return formatInt(v);
  if (a >= 1) return formatFixed(v, 1).replace(/\.0$/, '');
  const digits = Math.max(1, 1 - Math.floor(Math.log10(a)));
  return formatFixed(v, Math.min(digits, 6))
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

/** A measure's value with its unit: `0.3`, `120/h`, `82.1%`; `n/a` for null. */
export function formatMeasureValue(unit: Measure['unit'] | ClusterFigure['unit'], v: number | null): string {
  if (v === null) return 'n/a';
  if (unit === 'share') return formatPercent(v);
  if (unit === 'perHour') return `${formatAmount(v)}/h`;
  if (unit === 'ms') return formatDurationMs(v);
  return formatAmount(v);
}

/** `409/s 75 → 0.3`: a measure's label and both values (a missing side shows as 0). */
export function measureText(m: Measure): string {
  const zero = m.unit === 'share' ? null : 0;
  return `${m.label} ${formatMeasureValue(m.unit, m.before ?? zero)} → ${formatMeasureValue(m.unit, m.after ?? zero)}`;
}

function measuresOf(kind: string, before: readonly Finding[] | null, after: readonly Finding[] | null, durBefore: number, durAfter: number): Measure[] {
  const spec = KIND_RATES[kind] ?? GENERIC_RATES;
  const rate = (fs: readonly Finding[] | null, key: string, durMs: number, perMs: number): number | null => {
    if (fs === null || durMs <= 0) return null;
    const s = sum(fs, key);
    return s === null ? null : (s / durMs) * perMs;
  };
  const out: Measure[] = [];
  for (const b of spec.bad) {
    out.push({ key: `${b.key}PerSec`, label: b.label, unit: 'perSec', before: rate(before, b.key, durBefore, 1000), after: rate(after, b.key, durAfter, 1000), judged: true });
  }
  out.push({
    key: `${spec.traffic.key}PerSec`,
    label: spec.traffic.label,
    unit: 'perSec',
    before: rate(before, spec.traffic.key, durBefore, 1000),
    after: rate(after, spec.traffic.key, durAfter, 1000),
    judged: spec.bad.length === 0,
  });
  out.push({
    key: 'excessRequestsPerHour',
    label: 'excess requests',
    unit: 'perHour',
    before: rate(before, 'excessRequests', durBefore, 3_600_000),
    after: rate(after, 'excessRequests', durAfter, 3_600_000),
    judged: true,
  });
  if (spec.peak)
    out.push({
      key: spec.peak.key,
      label: spec.peak.label,
      unit: 'perSec',
      before: before === null ? null : max(before, spec.peak.key),
      after: after === null ? null : max(after, spec.peak.key),
      judged: false,
    });
  out.push({
    key: 'shareOfWrites',
    label: 'share of writes',
    unit: 'share',
    before: before === null ? null : max(before, 'shareOfWrites'),
    after: after === null ? null : max(after, 'shareOfWrites'),
    judged: false,
  });
  // A measure neither run has (e.g. a metric an older report lacks) says nothing.
  return out.filter((m) => m.before !== null || m.after !== null);
}

/** Verdict of a finding present in both runs (see the module doc). */
function judge(measures: readonly Measure[], sevBefore: Severity, sevAfter: Severity, tolerance: number): Verdict {
  let worse = false;
  let better = false;
  for (const m of measures) {
    if (!m.judged || m.before === null || m.after === null) continue;
    if (m.after > m.before * (1 + tolerance)) worse = true;
    else if (m.after < m.before * (1 - tolerance)) better = true;
  }
  if (worse) return 'worse';
  if (better) return 'better';
  const d = severityRank(sevAfter) - severityRank(sevBefore);
  return d > 0 ? 'worse' : d < 0 ? 'better' : 'same';
}

function evidenceLimits(before: readonly Finding[], after: readonly Finding[]): string[] {
  const levels = (fs: readonly Finding[]) => setText(fs.map((f) => f.evidence.level));
  const audit = (fs: readonly Finding[]) => setText(fs.map((f) => f.evidence.auditLevel));
  const out: string[] = [];
  const lb = levels(before);
  const la = levels(after);
  if (lb !== la) {
    out.push(`evidence ${lb} in BEFORE (audit level ${audit(before)}) but ${la} in AFTER (audit level ${audit(after)}): the two runs do not prove the same thing`);
  } else if (audit(before) !== audit(after)) {
    out.push(`audit level ${audit(before)} in BEFORE, ${audit(after)} in AFTER`);
  }
  // No-op writes that change only timestamps are visible in bodies alone (Request level and up).
  const bodyOnly = (fs: readonly Finding[]) => sum(fs, 'timestampOnlyWrites') ?? 0;
  for (const [side, fs, other, otherName] of [
    ['BEFORE', before, after, 'AFTER'],
    ['AFTER', after, before, 'BEFORE'],
  ] as const) {
    if (bodyOnly(fs) > 0 && other.every((f) => f.evidence.auditLevel === 'Metadata')) {
      out.push(
        `${side} counted ${formatInt(bodyOnly(fs))} no-op writes that change only timestamps, seen in bodies; ${otherName} was logged at Metadata level, where only writes that left the resourceVersion unchanged can be seen`,
      );
    }
  }
  return out;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function run(input: DiffInput): DiffRun {
  const r = input.report;
  const out: DiffRun = {
    name: input.name,
    from: input.from,
    timeRange: r.input.timeRange,
    durationMs: runDurationMs(r),
    requests: r.input.requests,
    findings: r.findings.length,
    auditLevels: [...new Set(r.findings.map((f) => f.evidence.auditLevel))].sort(),
  };
  if (r.series) out.series = r.series;
  return out;
}

/** Cluster-wide figures of both runs, side by side (see {@link ClusterFigure}). */
export function clusterFigures(before: Report, after: Report): ClusterFigure[] {
  const db = runDurationMs(before);
  const da = runDurationMs(after);
  const perSec = (n: number, d: number): number | null => (d > 0 ? (n / d) * 1000 : null);
  const share = (n: number, of: number): number | null => (of > 0 ? n / of : null);
  const byVerb = (r: Report): Map<string, number> => {
    const m = new Map<string, number>();
    for (const row of r.summaries.requestsByVerbResourceCode) m.set(row.verb, (m.get(row.verb) ?? 0) + row.count);
    return m;
  };
  const writeP99 = (r: Report): number | null => {
    let m: number | null = null;
    for (const row of r.summaries.latency) if (WRITE_VERBS.has(row.verb) && row.count > 0) m = m === null ? row.p99 : Math.max(m, row.p99);
    return m;
  };
  const tb = before.summaries.totals;
  const ta = after.summaries.totals;
  const figures: ClusterFigure[] = [
    { key: 'requestsPerSec', label: 'requests/s', unit: 'perSec', before: perSec(tb.requests, db), after: perSec(ta.requests, da) },
    { key: 'writesPerSec', label: 'writes/s', unit: 'perSec', before: perSec(tb.writes, db), after: perSec(ta.writes, da) },
  ];
  const vb = byVerb(before);
  const va = byVerb(after);
  const verbs = [...new Set([...vb.keys(), ...va.keys()])];
  const rateOf = (m: Map<string, number>, v: string, d: number) => perSec(m.get(v) ?? 0, d);
  verbs.sort((x, y) => Math.max(rateOf(vb, y, db) ?? 0, rateOf(va, y, da) ?? 0) - Math.max(rateOf(vb, x, db) ?? 0, rateOf(va, x, da) ?? 0) || compareKeys(x, y));
  for (const v of verbs) figures.push({ key: `requestsPerSec.${v}`, label: `${v}/s`, unit: 'perSec', before: rateOf(vb, v, db), after: rateOf(va, v, da) });
  figures.push(
    { key: 'conflictShareOfWrites', label: '409 Conflict share of writes', unit: 'share', before: share(tb.conflicts, tb.writes), after: share(ta.conflicts, ta.writes) },
    { key: 'throttledShareOfRequests', label: '429 share of requests', unit: 'share', before: share(tb.throttled, tb.requests), after: share(ta.throttled, ta.requests) },
    { key: 'writeLatencyP99Ms', label: 'write latency p99 (highest verb × resource)', unit: 'ms', before: writeP99(before), after: writeP99(after) },
  );
  return figures;
}

function stable(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => compareKeys(a, b))) : x,
  );
}

/** What about the two runs as wholes limits the comparison. */
function runLimits(before: DiffInput, after: DiffInput, tolerance: number): string[] {
  const out: string[] = [];
  const b = before.report;
  const a = after.report;
  const db = runDurationMs(b);
  const da = runDurationMs(a);
  for (const [side, r, d] of [
    ['BEFORE', b, db],
    ['AFTER', a, da],
  ] as const) {
    if (d === 0) out.push(`${side} counted no request with a time range: its rates cannot be computed, so its findings cannot be judged`);
    const i = r.input;
    if (i.sourceErrors.length > 0)
      out.push(`${side}: ${i.sourceErrors.length} source(s) could not be read (${i.sourceErrors.map((e) => e.source).join(', ')}): what they held is missing from it`);
    if (i.badLines > 0) out.push(`${side}: ${formatInt(i.badLines)} bad line(s) were skipped`);
    if (i.truncated > (i.truncatedRead ?? 0)) out.push(`${side}: ${formatInt(i.truncated - (i.truncatedRead ?? 0))} event(s) cut short by CloudWatch were not read`);
  }
  if (db > 0 && da > 0 && Math.max(db, da) > Math.min(db, da) * (1 + tolerance)) {
    out.push(
      `BEFORE covers ${formatDurationMs(db)}, AFTER ${formatDurationMs(da)}: rates are averaged over each run's whole length, so a storm shorter than its run looks weaker in the longer run`,
    );
  }
  const sb = b.settings;
  const sa = a.settings;
  if (stable(sb['filters']) !== stable(sa['filters']))
    out.push(
      `the runs were filtered differently (BEFORE ${stable(sb['filters'] ?? null)}, AFTER ${stable(sa['filters'] ?? null)}): a finding outside one run's filters shows as fixed or new`,
    );
  const detB = (sb['detectors'] ?? {}) as Record<string, unknown>;
  const detA = (sa['detectors'] ?? {}) as Record<string, unknown>;
  const ids = [...new Set([...Object.keys(detB), ...Object.keys(detA)])].sort();
  const changed = ids.filter((id) => stable(detB[id] ?? null) !== stable(detA[id] ?? null));
  if (changed.length > 0) out.push(`detection settings differ for ${changed.join(', ')}: a finding may appear or vanish because of the thresholds, not the cluster`);
  if (stable(sb['allowlist'] ?? null) !== stable(sa['allowlist'] ?? null)) out.push('the allowlists differ: traffic one run allowlisted is judged in the other');
  const lb = setText(b.findings.map((f) => f.evidence.auditLevel));
  const la = setText(a.findings.map((f) => f.evidence.auditLevel));
  if (lb !== '' && la !== '' && lb !== la) {
    out.push(
      `BEFORE's evidence was logged at ${lb}, AFTER's at ${la}: what only bodies show (no-op writes that change only timestamps, the fields a write fight flips) is seen at Request level and above, so a finding proven in one run may be only suspected, or missing, in the other`,
    );
  }
  return out;
}

/**
 * Compare two runs.
 *
 * @param before the run before the change (a report, and where it came from)
 * @param after the run after it
 * @param options tolerance (default {@link DEFAULT_TOLERANCE}), `generatedAt`, tool version
 * @returns the diff: every finding of either run with its verdict, cluster-wide figures side by
 *   side, and the limits of the comparison
 * @throws RangeError when `tolerance` is not in [0, 1)
 */
export function diffReports(before: DiffInput, after: DiffInput, options: DiffOptions): DiffReport {
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  if (!(tolerance >= 0 && tolerance < 1)) throw new RangeError(`tolerance must be in [0, 1), got ${tolerance}`);
  const groups = new Map<string, { k: ReturnType<typeof matchKey>; before: Finding[]; after: Finding[] }>();
  for (const [side, r] of [
    ['before', before.report],
    ['after', after.report],
  ] as const) {
    for (const f of r.findings) {
      const k = matchKey(f);
      let g = groups.get(k.key);
      if (!g) groups.set(k.key, (g = { k, before: [], after: [] }));
      g[side].push(f);
    }
  }
  const db = runDurationMs(before.report);
  const da = runDurationMs(after.report);
  const findings: DiffFinding[] = [];
  for (const g of groups.values()) {
    const hasB = g.before.length > 0;
    const hasA = g.after.length > 0;
    const measures = measuresOf(g.k.kind, hasB ? g.before : null, hasA ? g.after : null, db, da);
    const sevB = hasB ? maxSeverity(g.before) : null;
    const sevA = hasA ? maxSeverity(g.after) : null;
    const verdict: Verdict = !hasA ? 'fixed' : !hasB ? 'new' : judge(measures, sevB!, sevA!, tolerance);
    const shown = measures.filter((m) => m.judged || m.unit === 'share' || (hasB && hasA));
    const limits = hasB && hasA ? evidenceLimits(g.before, g.after) : [];
    if (hasB && hasA && (db === 0 || da === 0)) limits.push('a run without a time range: rates cannot be compared');
    findings.push({
      key: g.k.key,
      kind: g.k.kind,
      actor: g.k.actor,
      subject: g.k.subject,
      verdict,
      severity: (sevA ?? sevB)!,
      text: shown.map(measureText).join(', '),
      measures,
      before: hasB ? { severity: sevB!, findings: g.before } : null,
      after: hasA ? { severity: sevA!, findings: g.after } : null,
      limits,
    });
  }
  findings.sort((x, y) => VERDICTS.indexOf(x.verdict) - VERDICTS.indexOf(y.verdict) || severityRank(y.severity) - severityRank(x.severity) || compareKeys(x.key, y.key));
  const counts = { fixed: 0, new: 0, better: 0, same: 0, worse: 0 };
  for (const f of findings) counts[f.verdict]++;
  return {
    diffSchemaVersion: DIFF_SCHEMA_VERSION,
    tool: { name: 'auditstorm', version: options.version },
    generatedAt: options.generatedAt,
    tolerance,
    before: run(before),
    after: run(after),
    counts,
    findings,
    cluster: clusterFigures(before.report, after.report),
    limits: runLimits(before, after, tolerance),
  };
}

/**
 * Exit status of a diff for `--fail-on`: true when a `new` or `worse` finding has severity ≥
 * `failOn` (its AFTER severity).
 */
export function diffFails(diff: Pick<DiffReport, 'findings'>, failOn: Severity | undefined): boolean {
  if (failOn === undefined) return false;
  const min = severityRank(failOn);
  return diff.findings.some((f) => (f.verdict === 'new' || f.verdict === 'worse') && severityRank(f.severity) >= min);
}
