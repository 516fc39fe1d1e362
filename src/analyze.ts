/**
 * The analysis: `analyze(options, io)` reads audit logs and returns the `Report` model. The
 * programmatic API (`src/index.ts`) re-exports it with the live server's; the CLI loads this
 * module alone, so an analysis does not load `node:http`, `node:https` and `node:tls`, which
 * would lengthen every run's start.
 */
import { Readable } from 'node:stream';
import { z } from 'zod';
import { DETECTORS } from './detectors/registry.js';
import type { Detector } from './detectors/types.js';
import type { EngineSink } from './engine/engine.js';
import { mergeByTime } from './engine/merge.js';
import { buildReport, createEngine } from './build-report.js';
import { ConfigError, InputError, UsageError } from './errors.js';
import type { AnalyzeOptions, AnalyzeOptionsInput } from './options.js';
import { AnalyzeOptionsSchema } from './options.js';
import { nativeInUse } from './decoding/fast.js';
import { findLogEnd } from './ingest/log-end.js';
import { Normalizer } from './decoding/normalize.js';
import type { ReadOptions } from './ingest/options.js';
import { BadLineLog, readChain } from './ingest/read.js';
import { PARALLEL_DEFAULTS } from './ingest/parallel.js';
import type { SourceStats } from './ingest/read.js';
import { resolveInputs } from './ingest/sources.js';
import type { Report } from './report/schema.js';
import { tryParseDuration } from './duration.js';

/** Progress of a run, for a progress line. Bytes are as read from disk (compressed for .gz). */
export interface Progress {
  bytesRead: number;
  /** Sum of the input files' sizes; 0 when unknown (stdin). */
  bytesTotal: number;
  events: number;
  requests: number;
  elapsedMs: number;
}

/** Injected I/O of a run. */
export interface AnalyzeIO {
  /** Read for `-` or when no input is given; required then. */
  stdin?: NodeJS.ReadableStream;
  /** Clock for `generatedAt`. Default: `() => new Date()`. */
  now?: () => Date;
  /** Called at most every `progressIntervalMs` while reading. */
  onProgress?: (p: Progress) => void;
  progressIntervalMs?: number;
  /** Live alerts as episodes open, worsen and close. */
  onAlert?: EngineSink['alert'];
  /** The engine's object shards (`EngineOptions.shards`; not a user option): tests compare reports across shard counts. Default 0. */
  engineShards?: number;
}

/** Format zod issues as `path: message` lines. */
export function formatZodIssues(err: z.ZodError, prefix = ''): string {
  return err.issues
    .map((i) => {
      const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join('; ');
}

/**
 * Validate core options and each detector's options.
 * @throws ConfigError naming the field path and the reason.
 */
export function resolveOptions(input: AnalyzeOptionsInput): {
  options: AnalyzeOptions;
  detectors: Array<{ detector: Detector; options: unknown }>;
} {
  const parsed = AnalyzeOptionsSchema.safeParse(input);
  if (!parsed.success) throw new ConfigError(`invalid options: ${formatZodIssues(parsed.error)}`);
  const options = parsed.data;
  const known = new Set(DETECTORS.map((d) => d.meta.id));
  for (const id of Object.keys(options.detectors)) {
    if (!known.has(id)) {
      throw new ConfigError(`detectors.${id}: unknown detector (known: ${[...known].join(', ')})`);
    }
  }
  const detectors = DETECTORS.map((detector) => {
    const r = detector.meta.optionsSchema.safeParse(options.detectors[detector.meta.id] ?? {});
    if (!r.success) throw new ConfigError(formatZodIssues(r.error, `detectors.${detector.meta.id}`));
    return { detector, options: r.data };
  });
  return { options, detectors };
}

/**
 * Resolve `--since` / `--until`: RFC 3339 → epoch ms; a duration → that long before `endMs`.
 * @throws UsageError for anything else.
 */
export function resolveTimeBound(value: string, flag: string, endMs: () => Promise<number | null>): Promise<number | undefined> {
  const d = tryParseDuration(value);
  if (d !== undefined) return endMs().then((end) => (end === null ? undefined : end - d));
  const t = Date.parse(value);
  if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(value)) {
    return Promise.reject(new UsageError(`${flag}: "${value}" is neither an RFC 3339 time (2026-08-08T18:00:00Z) nor a duration (15m, 2h)`));
  }
  return Promise.resolve(t);
}

/**
 * Analyze audit logs.
 *
 * @param input options (see `AnalyzeOptionsSchema`); `inputs` are files, directories or `-`.
 * @param io injected stdin, clock, progress and alert callbacks.
 * @returns the report model (findings sorted by {@link compareFindings}).
 * @throws ConfigError for invalid options, UsageError for bad `--since`/`--until`, InputError when
 *   no input could be read as an audit log. A source that cannot be read while others can is
 *   skipped and listed in `input.sourceErrors`.
 */
export async function analyze(input: AnalyzeOptionsInput, io: AnalyzeIO = {}): Promise<Report> {
  const { options, detectors } = resolveOptions(input);
  return await analyzeResolved(options, detectors, io);
}

/** {@link analyze} once its options are resolved. */
async function analyzeResolved(options: AnalyzeOptions, detectors: Array<{ detector: Detector; options: unknown }>, io: AnalyzeIO): Promise<Report> {
  const now = io.now ?? (() => new Date());
  const wantsStdin = options.inputs.length === 0 || options.inputs.includes('-');
  if (wantsStdin && io.stdin === undefined) {
    throw new UsageError('no input: give paths to audit logs, or pass io.stdin to read standard input');
  }
  const stdin = (io.stdin ?? Readable.from([])) as Readable;
  const chains = await resolveInputs(options.inputs, { stdin });

  const readOpts: ReadOptions = {
    maxLineLength: options.maxLineLength,
    sniffLines: options.sniffLines,
    inputFormat: options.inputFormat,
    parallel: options.threads === undefined ? PARALLEL_DEFAULTS : { ...PARALLEL_DEFAULTS, workers: options.threads },
  };
  let end: Promise<number | null> | undefined;
  const endMs = (): Promise<number | null> => {
    if (end === undefined) end = findLogEnd(chains, readOpts);
    return end;
  };
  const sinceMs = options.since === undefined ? undefined : await resolveTimeBound(options.since, '--since', endMs);
  const untilMs = options.until === undefined ? undefined : await resolveTimeBound(options.until, '--until', endMs);
  if (sinceMs !== undefined && untilMs !== undefined && sinceMs > untilMs) {
    throw new UsageError(`--since (${new Date(sinceMs).toISOString()}) is after --until (${new Date(untilMs).toISOString()})`);
  }

  const { engine, allowlist } = createEngine(options, detectors, sinceMs, untilMs, io.onAlert ? { alert: io.onAlert } : {}, io.engineShards ?? 0);

  const normalizer = new Normalizer();
  const bad = new BadLineLog(options.badLineSamples);
  const sourceErrors: Array<{ source: string; message: string; error: InputError }> = [];
  const reads = chains.map((c) => readChain(c, normalizer, readOpts, bad, (source, error) => sourceErrors.push({ source, message: error.message, error })));
  const stats = (): SourceStats[] => reads.flatMap((r) => r.stats);

  const started = performance.now();
  const interval = io.progressIntervalMs ?? 250;
  let lastProgress = started;
  const progress = (): Progress => {
    const s = stats();
    return {
      bytesRead: s.reduce((a, x) => a + x.bytesRead, 0),
      bytesTotal: s.reduce((a, x) => a + x.bytes, 0),
      events: s.reduce((a, x) => a + x.events, 0),
      requests: s.reduce((a, x) => a + x.requests, 0),
      elapsedMs: performance.now() - started,
    };
  };

  for await (const batch of mergeByTime(reads.map((r) => r.batches))) {
    engine.pushAll(batch);
    if (io.onProgress) {
      const t = performance.now();
      if (t - lastProgress >= interval) {
        lastProgress = t;
        io.onProgress(progress());
      }
    }
  }
  if (io.onProgress) io.onProgress(progress());
  const counters = engine.finish();
  const s = stats();
  // Unreadable sources are skipped and reported, unless nothing at all could be read.
  const first = sourceErrors[0];
  if (first !== undefined && s.every((x) => x.events === 0)) throw first.error;

  return buildReport({
    nativeScanner: nativeInUse() !== null,
    options,
    detectors,
    sinceMs,
    untilMs,
    allowlist,
    engine,
    counters,
    sources: s,
    badLineSamples: bad.samples(),
    sourceErrors,
    generatedAt: now(),
  });
}
