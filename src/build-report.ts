/**
 * Building the `Report` model from an engine and what was read. Shared by `analyze()` (after the
 * input ended), `auditstorm watch` and `auditstorm serve` (live snapshots and the final report),
 * so every mode renders one model with the same renderers.
 */
import { groupFindings } from './report/group.js';
import type { Detector } from './detectors/types.js';
import { cmp } from './engine/aggregates.js';
import { Allowlist, DEFAULT_ALLOWLIST } from './engine/allowlist.js';
import { Engine } from './engine/engine.js';
import type { EngineCounters, EngineSink } from './engine/engine.js';
import { compileFilter } from './engine/filters.js';
import { bucketedSeries } from './engine/series.js';
import { distinguishActors } from './report/actor-names.js';
import type { AnalyzeOptions } from './options.js';
import type { BadLineSample, Finding, Report } from './report/schema.js';
import { SCHEMA_VERSION, severityRank } from './report/schema.js';
import { VERSION } from './version.js';
import { DETECTORS } from './detectors/registry.js';
import { detectorDocsUrl } from './docs-link.js';
import type { SourceStats } from './ingest/read.js';

/**
 * Counters of one source, as `readChain` keeps them (`SourceStats` in `src/ingest/read.ts`);
 * live sources (the webhook) fill the same fields. `kind` is `file`, `gzip`, `stdin` or `webhook`.
 */
export type SourceCounts = Omit<SourceStats, 'kind' | 'bytesRead'> & {
  kind: string;
  /** Bytes read (compressed for gzip); the size shown for stdin, which has no size on disk. */
  bytesRead?: number;
};

/** Everything a report is built from. Times are UTC epoch ms. */
export interface ReportParts {
  options: AnalyzeOptions;
  detectors: ReadonlyArray<{ detector: Detector; options: unknown }>;
  sinceMs: number | undefined;
  untilMs: number | undefined;
  allowlist: Allowlist;
  engine: Engine;
  /** `engine.finish()` after the input ended, or `engine.snapshot()` for a live snapshot. */
  counters: EngineCounters;
  sources: readonly SourceCounts[];
  badLineSamples: BadLineSample[];
  sourceErrors: ReadonlyArray<{ source: string; message: string }>;
  /** The report's `generatedAt`. */
  generatedAt: Date;
  /**
   * Live snapshots only: episodes still open, as of their last alert. They are listed among the
   * findings with `ongoing: true`.
   */
  ongoing?: readonly Finding[];
  /** Whether the native line scanner read the lines (`nativeInUse()` of `src/decoding/fast.ts`); absent: not said. */
  nativeScanner?: boolean;
}

const BUILT_IN = new Set(DETECTORS.map((d) => d.meta.id));

/** `f` with `docs`, the URL of its kind's page, when the kind is a built-in detector's. */
function withDocs(f: Finding): Finding {
  return BUILT_IN.has(f.kind) ? { ...f, docs: detectorDocsUrl(f.kind) } : f;
}

/** Total order of findings: severity desc, start, kind, object, actor, id. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    severityRank(b.severity) - severityRank(a.severity) ||
    cmp(a.window.from, b.window.from) ||
    cmp(a.kind, b.kind) ||
    cmp(objectKey(a), objectKey(b)) ||
    cmp(a.actors[0]?.username ?? '', b.actors[0]?.username ?? '') ||
    cmp(a.id, b.id)
  );
}

function objectKey(f: Finding): string {
  const o = f.object;
  return o ? `${o.apiGroup}/${o.resource}/${o.namespace}/${o.name}/${o.subresource}` : '';
}

/** Findings and notes with titles that tell same-named service accounts apart ({@link distinguishActors}). */
function titled(findings: Finding[], notes: Finding[]): { findings: Finding[]; notes: Finding[] } {
  const all = distinguishActors([...findings, ...notes]);
  return { findings: all.slice(0, findings.length), notes: all.slice(findings.length) };
}

/**
 * The report model of a run (see `src/report/schema.ts`): findings and notes sorted by
 * {@link compareFindings}, summaries of the top `options.top`, the bucketed cluster series.
 * Pure over its inputs; does not change the engine.
 */
export function buildReport(p: ReportParts): Report {
  const { options, counters, allowlist, engine } = p;
  const s = p.sources;
  const sum = (f: (x: SourceCounts) => number): number => s.reduce((a, x) => a + f(x), 0);
  // A source rejected whole (not an audit log) is listed, but its lines are not the run's bad lines.
  const failed = new Set(p.sourceErrors.map((e) => e.source));
  const read = s.filter((x) => !(failed.has(x.name) && x.events === 0));
  const findings = groupFindings([...engine.findings, ...(p.ongoing ?? []).map((f) => ({ ...f, ongoing: true }))], options.groupFindings).map(withDocs);
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'auditstorm', version: VERSION },
    generatedAt: p.generatedAt.toISOString(),
    input: {
      // A source rejected whole is listed as `skipped`, with no bad lines: none of it was read as audit events.
      sources: s.map((x) => ({
        name: x.name,
        kind: x.kind,
        format: read.includes(x) ? x.format : 'skipped',
        bytes: x.kind === 'stdin' && x.bytesRead !== undefined ? x.bytesRead : x.bytes,
        lines: x.lines,
        events: x.events,
        requests: x.requests,
        badLines: read.includes(x) ? x.badLines : 0,
        truncated: x.truncated,
      })),
      lines: sum((x) => x.lines),
      events: sum((x) => x.events),
      requests: counters.requests,
      badLines: read.reduce((a, x) => a + x.badLines, 0),
      badLineSamples: p.badLineSamples,
      skipped: {
        nonFinalStages: sum((x) => x.nonFinalStages),
        duplicates: counters.duplicates,
        filtered: counters.filtered,
        overlongLines: sum((x) => x.overlongLines),
        // Only when there are any: most logs are the audit backend's file alone.
        ...(sum((x) => x.logLines) > 0 ? { logLines: sum((x) => x.logLines) } : {}),
      },
      truncated: sum((x) => x.truncated),
      truncatedRead: sum((x) => x.truncatedRead),
      skippedRecords: sum((x) => x.skippedRecords),
      ...(p.nativeScanner !== undefined ? { nativeScanner: p.nativeScanner } : {}),
      sourceErrors: p.sourceErrors.map(({ source, message }) => ({ source, message })).sort((a, b) => cmp(a.source, b.source)),
      lateRequests: counters.late,
      nonResourceRequests: counters.nonResource,
      allowlisted: allowlist.excluded(),
      timeRange:
        counters.firstTs === null || counters.lastTs === null
          ? null
          : { from: new Date(Math.floor(counters.firstTs)).toISOString(), to: new Date(Math.floor(counters.lastTs)).toISOString() },
    },
    settings: {
      reorderWindowMs: options.reorderWindowMs,
      seriesStepMs: options.seriesStepMs,
      filters: {
        since: p.sinceMs === undefined ? null : new Date(p.sinceMs).toISOString(),
        until: p.untilMs === undefined ? null : new Date(p.untilMs).toISOString(),
        namespaces: options.namespaces,
        users: options.users,
        resources: options.resources,
        verbs: options.verbs,
      },
      allowlist: allowlist.rules.map((r) => r.name),
      detectors: Object.fromEntries(p.detectors.map((d) => [d.detector.meta.id, d.options])),
    },
    ...titled(findings.sort(compareFindings), engine.notes.map(withDocs).sort(compareFindings)),
    summaries: engine.aggregates.summarize(options.top),
    series: bucketedSeries(engine.series),
  };
}

/**
 * The engine of a run with its allowlist: the request filters of `options` (with `sinceMs` /
 * `untilMs` already resolved to UTC epoch ms), the built-in allowlist unless
 * `options.defaultAllowlist` is false, `sink` for live alerts, and `shards` object shards
 * (`EngineOptions.shards`, 0: none).
 */
export function createEngine(
  options: AnalyzeOptions,
  detectors: ReadonlyArray<{ detector: Detector; options: unknown }>,
  sinceMs: number | undefined,
  untilMs: number | undefined,
  sink: EngineSink = {},
  shards = 0,
): { engine: Engine; allowlist: Allowlist } {
  const allowlist = new Allowlist([...(options.defaultAllowlist ? DEFAULT_ALLOWLIST : []), ...options.allowlist]);
  const engine = new Engine(
    {
      detectors,
      filter: compileFilter({
        namespaces: options.namespaces,
        users: options.users,
        resources: options.resources,
        verbs: options.verbs,
        sinceMs,
        untilMs,
      }),
      allowlist,
      reorderWindowMs: options.reorderWindowMs,
      seriesStepMs: options.seriesStepMs,
      shards,
    },
    sink,
  );
  return { engine, allowlist };
}
