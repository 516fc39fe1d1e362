/**
 * A live analysis: the engine of `analyze()` fed as records arrive (`auditstorm watch` from a pipe
 * or a followed file, `auditstorm serve` from the audit webhook), with a stream clock moved on a
 * timer so episodes open and close while input is quiet, live alerts, recent rates for
 * `/metrics`, and at any moment a snapshot `Report` built by the same `buildReport` as `analyze()`.
 *
 * **Stream clock.** Detectors judge windows in stream time (`stageTimestamp`s), not wall time, so
 * a replayed log works like a live one. The clock is the newest `ts` seen plus the wall time
 * since it was seen: while records flow it is their time; when they stop, it runs on with the
 * wall clock, so an episode closes one window after its last write even with no input at all.
 * A stream whose times are more than {@link REAL_TIME_SKEW_MS} from the wall clock is a replay (a
 * log piped in after the fact, or a source clock far off): its clock waits
 * {@link REPLAY_IDLE_MS} of silence before running on, so a pause in the pipe does not make the
 * records after it late. It never goes back. {@link LiveSession.tick} hands it to `Engine.advance`, which releases the
 * reorder queue up to `clock − reorderWindowMs` and moves detectors there.
 *
 * **Latency bound.** A window is judged at its step boundary `T` once the clock passes
 * `T + reorderWindowMs`. Live mode therefore defaults the reorder window to
 * {@link LIVE_REORDER_WINDOW_MS} (1 s, not `analyze`'s 5 s): with ticks every 250 ms an alert is
 * raised at most about 1.25 s (plus the input's own delay) after the window that triggers it
 * ends. Records arriving more than 1 s out of order are counted as late and placed at the clock.
 */
import { buildReport, createEngine, type SourceCounts } from '../build-report.js';
import type { Detector, EpisodePhase } from '../detectors/types.js';
import type { Allowlist } from '../engine/allowlist.js';
import type { Engine, EngineCounters } from '../engine/engine.js';
import { tryParseDuration } from '../duration.js';
import { UsageError } from '../errors.js';
import { resolveOptions } from '../analyze.js';
import { resourceLabel } from '../labels.js';
import { distinguishTitle, noteActors } from '../report/actor-names.js';
import { LIVE_REORDER_WINDOW_MS, type AnalyzeOptions, type AnalyzeOptionsInput } from '../options.js';
import { Normalizer } from '../decoding/normalize.js';
import { BadLineLog } from '../ingest/read.js';
import { isConflict, type RequestRecord } from '../decoding/record.js';
import type { Finding, Report } from '../report/schema.js';
import type { LiveAlert } from './alerts.js';
import { RecentRates } from './rates.js';

export { LIVE_REORDER_WINDOW_MS };

/** Injected outside world of a live session. */
export interface LiveSessionIO {
  /** Wall clock, UTC epoch ms. Default `Date.now`. */
  now?: () => number;
  /** Called for every phase change of an episode, in order. Must not throw. */
  onAlert?: (alert: LiveAlert) => void;
}

/** What a live session is doing, for the status line and `/metrics`. */
export interface LiveStatus {
  /** Wall time since the session started (ms). */
  uptimeMs: number;
  /** Audit events decoded so far (any stage). */
  events: number;
  /** Final-stage events read (before de-duplication and filters). */
  requestsRead: number;
  /** Requests counted, as the report counts them: de-duplicated by auditID, after the filters. */
  requests: number;
  /** Requests dropped as copies of one already counted (a webhook batch sent again, overlapping logs). */
  duplicates: number;
  /** Bad lines / items so far. */
  badLines: number;
  /** Episodes open now, by finding kind (every detector listed, 0 included). */
  openByKind: Record<string, number>;
  /** Episodes opened / closed so far, by kind. */
  openedByKind: Record<string, number>;
  closedByKind: Record<string, number>;
  /** Stream clock (UTC epoch ms), or null before the first record. */
  streamTimeMs: number | null;
}

/**
 * Live modes reject an input none of whose first this-many units is an audit event (`analyze`:
 * 1,000): a wrong pipe fails at once instead of after hours of waiting.
 */
export const LIVE_SNIFF_LINES = 20;

/** A stream whose newest time is within this of the wall clock (ms) is live, not a replay. */
export const REAL_TIME_SKEW_MS = 60_000;
/** Silence (wall ms) after which a replay's clock runs on with the wall clock. */
export const REPLAY_IDLE_MS = 10_000;

/**
 * A status reader that adds the events/s since its previous call (wall clock `now`, ms), for the
 * periodic status line of `watch` and `serve`.
 */
export function statusWithRate(session: LiveSession, now: () => number): () => LiveStatus & { eventsPerSec: number } {
  let lastEvents = 0;
  let lastAt = now();
  return () => {
    const s = session.status();
    const t = now();
    const eventsPerSec = t > lastAt ? ((s.events - lastEvents) * 1000) / (t - lastAt) : 0;
    lastEvents = s.events;
    lastAt = t;
    return { ...s, eventsPerSec };
  };
}

/** Resolves options for a live mode: the live reorder window unless one was given; `--since`/`--until` must be times. */
function liveOptions(input: AnalyzeOptionsInput): { options: AnalyzeOptions; detectors: Array<{ detector: Detector; options: unknown }> } {
  const withDefaults: AnalyzeOptionsInput = { ...input };
  if (withDefaults.reorderWindowMs === undefined) withDefaults.reorderWindowMs = LIVE_REORDER_WINDOW_MS;
  // A pipe of something else must fail now, not after 1,000 lines that may take hours to come.
  if (withDefaults.sniffLines === undefined) withDefaults.sniffLines = LIVE_SNIFF_LINES;
  for (const [flag, v] of [
    ['--since', input.since],
    ['--until', input.until],
  ] as const) {
    if (v !== undefined && tryParseDuration(v) !== undefined) {
      throw new UsageError(`${flag} ${v}: a live stream has no end to count back from; give an RFC 3339 time (2026-08-08T18:00:00Z)`);
    }
  }
  return resolveOptions(withDefaults);
}

function timeBound(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(v)) {
    throw new UsageError(`${flag}: "${v}" is not an RFC 3339 time (2026-08-08T18:00:00Z)`);
  }
  return t;
}

/** See the module comment. Single-threaded; all methods are synchronous. */
export class LiveSession {
  readonly options: AnalyzeOptions;
  readonly detectors: ReadonlyArray<{ detector: Detector; options: unknown }>;
  readonly engine: Engine;
  readonly allowlist: Allowlist;
  /** Shared by every source of the session, so actors and objects are interned once. */
  readonly normalizer = new Normalizer();
  readonly bad: BadLineLog;
  /** Writes and 409s per username over the last minute of stream time (bounded). */
  readonly actorRates = new RecentRates();
  /** Writes and 409s per object over the last minute of stream time (bounded). */
  readonly objectRates = new RecentRates();
  private readonly sinceMs: number | undefined;
  private readonly untilMs: number | undefined;
  private readonly now: () => number;
  private readonly onAlert: (alert: LiveAlert) => void;
  private readonly startedAt: number;
  private readonly sources: SourceCounts[] = [];
  private readonly sourceErrors: Array<{ source: string; message: string }> = [];
  /** Open episodes by `kind \0 id`, as of their last alert. */
  private readonly open = new Map<string, Finding>();
  private readonly opened: Record<string, number> = {};
  private readonly closed: Record<string, number> = {};
  /** Alerts raised inside the current engine call; sent after it returns (see {@link flushAlerts}). */
  private pending: Array<{ phase: EpisodePhase; finding: Finding }> = [];
  /** Service accounts of the alerts so far, by short name: alert titles tell same-named ones apart. */
  private readonly alertActors = new Map<string, Set<string>>();
  private notesSeen = 0;
  private maxTs = -Infinity;
  private wallAtMaxTs = 0;
  private clock = -Infinity;
  private final: Report | null = null;

  /**
   * @param input the options of `analyze()` (inputs are ignored; the caller reads them)
   * @throws ConfigError for invalid options; UsageError for a `--since`/`--until` that is a duration
   */
  constructor(input: AnalyzeOptionsInput, io: LiveSessionIO = {}) {
    const { options, detectors } = liveOptions(input);
    this.options = options;
    this.detectors = detectors;
    this.sinceMs = timeBound(options.since, '--since');
    this.untilMs = timeBound(options.until, '--until');
    this.now = io.now ?? Date.now;
    this.onAlert = io.onAlert ?? (() => {});
    this.startedAt = this.now();
    this.bad = new BadLineLog(options.badLineSamples);
    for (const { detector } of detectors) {
      this.opened[detector.meta.id] = 0;
      this.closed[detector.meta.id] = 0;
    }
    const { engine, allowlist } = createEngine(options, detectors, this.sinceMs, this.untilMs, {
      alert: (phase, finding) => this.pending.push({ phase, finding }),
    });
    this.engine = engine;
    this.allowlist = allowlist;
  }

  /** Registers a source's counters (updated by its reader in place); they appear in reports. */
  addSource(stats: SourceCounts): void {
    this.sources.push(stats);
  }

  /** Registers a source that could not be read (listed in `input.sourceErrors`). */
  addSourceError(source: string, message: string): void {
    this.sourceErrors.push({ source, message });
  }

  /** Records as read, in (nearly) time order. Ignored after {@link finish}. */
  push(records: readonly RequestRecord[]): void {
    if (this.final !== null) return;
    const engine = this.engine;
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      if (r.ts > this.maxTs) {
        this.maxTs = r.ts;
        this.wallAtMaxTs = this.now();
      }
      if (r.isWrite) {
        const conflict = isConflict(r);
        this.actorRates.add(r.actor.username, r.ts, conflict);
        if (r.object !== null) this.objectRates.add(objectRateKey(r.object), r.ts, conflict);
      }
      engine.push(r);
    }
    this.flushAlerts();
  }

  /**
   * The stream clock now (UTC epoch ms; see the module comment), or `null` before any record.
   * Never decreases.
   */
  streamNow(): number | null {
    if (this.maxTs === -Infinity) return null;
    const idle = this.now() - this.wallAtMaxTs;
    // A replay (times far from the wall clock) may pause (`(cat a; sleep 3; cat b) | watch`, a
    // stalled `kubectl logs -f`): its clock waits REPLAY_IDLE_MS before running on, so the next
    // records are not late.
    const realTime = Math.abs(this.wallAtMaxTs - this.maxTs) <= REAL_TIME_SKEW_MS;
    const c = this.maxTs + Math.max(0, realTime ? idle : idle - REPLAY_IDLE_MS);
    if (c > this.clock) this.clock = c;
    return this.clock;
  }

  /** Moves the engine to the stream clock (call every ~250 ms): due windows are judged, idle rates dropped. */
  tick(): void {
    if (this.final !== null) return;
    const t = this.streamNow();
    if (t === null) return;
    this.engine.advance(t);
    this.actorRates.sweep(t);
    this.objectRates.sweep(t);
    this.flushAlerts();
  }

  /** Episodes open now, as of their last alert, in report order of opening. */
  openEpisodes(): Finding[] {
    return [...this.open.values()];
  }

  /** Counters for the status line and `/metrics`. */
  status(): LiveStatus {
    const openByKind: Record<string, number> = {};
    for (const { detector } of this.detectors) openByKind[detector.meta.id] = 0;
    for (const f of this.open.values()) openByKind[f.kind] = (openByKind[f.kind] ?? 0) + 1;
    const sum = (f: (s: SourceCounts) => number): number => this.sources.reduce((a, s) => a + f(s), 0);
    const t = this.streamNow();
    const counters = this.engine.snapshot();
    return {
      uptimeMs: this.now() - this.startedAt,
      events: sum((s) => s.events),
      requestsRead: sum((s) => s.requests),
      requests: counters.requests,
      duplicates: counters.duplicates,
      badLines: sum((s) => s.badLines),
      openByKind,
      openedByKind: { ...this.opened },
      closedByKind: { ...this.closed },
      streamTimeMs: t,
    };
  }

  /**
   * The report so far, without ending anything: closed episodes are findings and notes, open ones
   * are findings with `ongoing: true` (numbers as of their last alert); records still in the
   * reorder queue are not counted yet. After {@link finish}, the final report.
   */
  snapshot(): Report {
    if (this.final !== null) return this.final;
    return this.report(this.engine.snapshot(), this.openEpisodes());
  }

  /** The report of the session with these counters (and these episodes still open). */
  private report(counters: EngineCounters, ongoing?: Finding[]): Report {
    return buildReport({
      options: this.options,
      detectors: this.detectors,
      sinceMs: this.sinceMs,
      untilMs: this.untilMs,
      allowlist: this.allowlist,
      engine: this.engine,
      counters,
      sources: this.sources,
      badLineSamples: this.bad.samples(),
      sourceErrors: this.sourceErrors,
      generatedAt: new Date(this.now()),
      ...(ongoing === undefined ? {} : { ongoing }),
    });
  }

  /**
   * Ends the session: releases queued records, closes every open episode (their `close` alerts
   * are sent) and returns the final report, as `analyze()` would have built it. Idempotent.
   */
  finish(): Report {
    if (this.final !== null) return this.final;
    const counters = this.engine.finish();
    this.flushAlerts();
    this.final = this.report(counters);
    return this.final;
  }

  /**
   * Sends the alerts raised by the last engine call. A `close` is raised just before the detector
   * files the episode as a finding or a note, so its outcome is known only once the call returned.
   */
  private flushAlerts(): void {
    if (this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    const notes = this.engine.notes;
    const noted = new Set<string>();
    for (; this.notesSeen < notes.length; this.notesSeen++) noted.add(notes[this.notesSeen]!.id);
    const at = new Date(this.now()).toISOString();
    for (const { finding } of pending) noteActors(this.alertActors, finding);
    for (const { phase, finding } of pending) {
      const key = `${finding.kind}\u0000${finding.id}`;
      const alert: LiveAlert = { phase, finding: distinguishTitle(finding, this.alertActors), at };
      if (phase === 'close') {
        this.open.delete(key);
        this.closed[finding.kind] = (this.closed[finding.kind] ?? 0) + 1;
        alert.outcome = noted.has(finding.id) ? 'note' : 'finding';
      } else {
        if (phase === 'open') this.opened[finding.kind] = (this.opened[finding.kind] ?? 0) + 1;
        this.open.set(key, finding);
      }
      try {
        this.onAlert(alert);
      } catch {
        // An alert consumer's failure (a closed pipe) must not break the analysis.
      }
    }
  }
}

/** Key of an object in {@link LiveSession.objectRates}: resource label, namespace, name, split by NUL. */
export function objectRateKey(o: { apiGroup: string; resource: string; subresource: string; namespace: string; name: string }): string {
  return `${resourceLabel(o)}\u0000${o.namespace}\u0000${o.name}`;
}
