/**
 * Compose scenarios into one deterministic audit log, in the order kube-apiserver's log backend
 * writes it, plus the ground truth of what was planted.
 *
 * Same {@link LogSpec} → byte-identical lines: all randomness comes from the seeded {@link Rng},
 * each scenario gets its own forked stream (`<type>#<n>`), and ties in time keep planning order.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { isLongRunning, microTime, renderEvent, stagesOf, type Micros, type Request, type Stage } from './events.js';
import { createRng } from './random.js';
import { runScenario, type PlannedRequest, type ScenarioSpec, type TruthActor, type TruthKind, type TruthObject } from './scenarios.js';

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete']);

/**
 * Which stages to write. `all`: RequestReceived and ResponseComplete for every request, plus
 * ResponseStarted for watches (the default audit policy). `final-only`: only ResponseComplete,
 * as with a policy that omits the other stages.
 */
export type StageMode = 'all' | 'final-only';

/** What to generate. */
export interface LogSpec {
  seed: number;
  /** Log start, RFC 3339 (e.g. `2026-03-14T09:00:00Z`). */
  start: string;
  /** Log length, ms. Stages emitted at or after `start + durationMs` are not written. */
  durationMs: number;
  scenarios: ScenarioSpec[];
  /** Default `all`. */
  stages?: StageMode;
}

/**
 * One planted (actor, object) pattern and what the log really contains for it. Counts are taken
 * from the written log, so they always match the lines.
 */
export interface GroundTruth {
  /** Scenario label (its `name`, default its type: `storm`, `incident`, `background`, …). */
  scenario: string;
  /** The finding kind this pair must be reported as, or `benign`: it must not be reported. */
  kind: TruthKind;
  actor: TruthActor;
  object: TruthObject;
  /** `requestReceivedTimestamp` of the first attempt (MicroTime, UTC). */
  from: string;
  /** `stageTimestamp` of the last attempt's ResponseComplete (MicroTime, UTC). */
  to: string;
  /** Write requests (update, patch, create) of this actor on this object. */
  attempts: number;
  /** Of those, 409s with reason `Conflict` (AlreadyExists is not counted). */
  conflicts: number;
  /** Distinct client IPs (one per operator pod), sorted. */
  sourceIPs: string[];
}

/**
 * One finding a detector must report (or, `benign`, one healthy pattern it must not), with
 * every actor involved. Built from the pairs of {@link GroundTruth} that form it (a write-fight's
 * two writers, a fleet's members); counts are taken from the written log. A finding matches when
 * it names one of `actors` and `object` (or any object when `object` is null: fleet-wide and
 * actor-level findings).
 */
export interface ExpectedFinding {
  scenario: string;
  kind: TruthKind;
  /** Every actor involved, sorted by username then userAgent. */
  actors: TruthActor[];
  /** The object the finding names; `null` for fleet-wide or actor-level findings. */
  object: TruthObject | null;
  /** First request received and last request completed (MicroTime, UTC). */
  from: string;
  to: string;
  /** Write requests (create, update, patch, delete). */
  writes: number;
  /** 409s with reason `Conflict`. */
  conflicts: number;
  /** 409s with reason `AlreadyExists`. */
  alreadyExists: number;
  /** 429s (any verb, reads included). */
  throttled: number;
  /** Successful writes that changed nothing, or nothing but timestamps. */
  noOps: number;
  /** Distinct objects written or throttled on. */
  objects: number;
}

/** A generated log. `lines` renders lazily and can be iterated any number of times. */
export interface GeneratedLog {
  /** JSON lines without newlines, in emission order (ResponseComplete lines in stageTimestamp order). */
  lines: Iterable<string>;
  lineCount: number;
  /** Requests (auditIDs) with at least one line in the log. */
  requestCount: number;
  /**
   * Requests with a `ResponseComplete` line: what auditstorm counts (watches still open at the
   * end of the log have only their first stages).
   */
  completedCount: number;
  /** Per (actor, object) pair: what the scenarios planted (`truth.json`). */
  truth: GroundTruth[];
  /** Per expected finding (or benign pattern): the pairs grouped as a detector should report them. */
  expected: ExpectedFinding[];
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function parseStart(start: string): Micros {
  const ms = Date.parse(start);
  if (!RFC3339.test(start) || Number.isNaN(ms)) throw new RangeError(`start must be an RFC 3339 time, got ${JSON.stringify(start)}`);
  return ms * 1000;
}

/** Count the subjects' requests that made it into the log. */
function groundTruth(requests: PlannedRequest[]): GroundTruth[] {
  const byKey = new Map<string, GroundTruth & { fromUs: Micros; toUs: Micros }>();
  for (const req of requests) {
    const s = req.subject;
    if (!s || !WRITE_VERBS.has(req.verb)) continue;
    const key = JSON.stringify([s.scenario, s.kind, s.actor, s.object]);
    let t = byKey.get(key);
    if (!t) {
      const { scenario, kind, actor, object } = s;
      t = { scenario, kind, actor, object, from: '', to: '', attempts: 0, conflicts: 0, sourceIPs: [], fromUs: req.receivedUs, toUs: req.completedUs };
      byKey.set(key, t);
    }
    t.attempts++;
    if (req.responseStatus.code === 409 && req.responseStatus.reason === 'Conflict') t.conflicts++;
    t.fromUs = Math.min(t.fromUs, req.receivedUs);
    t.toUs = Math.max(t.toUs, req.completedUs);
    if (!t.sourceIPs.includes(req.client.sourceIP)) t.sourceIPs.push(req.client.sourceIP);
  }
  return [...byKey.values()].map(({ fromUs, toUs, ...t }) => ({ ...t, from: microTime(fromUs), to: microTime(toUs), sourceIPs: [...t.sourceIPs].sort() }));
}

/** Group the subjects' requests into the findings they form, counting from the log. */
function expectedFindings(requests: PlannedRequest[]): ExpectedFinding[] {
  type Acc = ExpectedFinding & { fromUs: Micros; toUs: Micros; actorKeys: Map<string, TruthActor>; objectKeys: Set<string> };
  const byKey = new Map<string, Acc>();
  for (const req of requests) {
    const s = req.subject;
    if (!s) continue;
    const pair = JSON.stringify([s.actor, s.object]);
    for (const ref of s.findings ?? [{ kind: s.kind, id: pair }]) {
      const key = JSON.stringify([s.scenario, ref.kind, ref.id]);
      let e = byKey.get(key);
      if (!e) {
        e = {
          scenario: s.scenario,
          kind: ref.kind,
          actors: [],
          object: ref.object === undefined ? s.object : ref.object,
          from: '',
          to: '',
          writes: 0,
          conflicts: 0,
          alreadyExists: 0,
          throttled: 0,
          noOps: 0,
          objects: 0,
          fromUs: req.receivedUs,
          toUs: req.completedUs,
          actorKeys: new Map(),
          objectKeys: new Set(),
        };
        byKey.set(key, e);
      }
      e.actorKeys.set(JSON.stringify(s.actor), s.actor);
      e.objectKeys.add(JSON.stringify(s.object));
      const { code, reason } = req.responseStatus;
      if (WRITE_VERBS.has(req.verb)) e.writes++;
      if (code === 409 && reason === 'Conflict') e.conflicts++;
      if (code === 409 && reason === 'AlreadyExists') e.alreadyExists++;
      if (code === 429) e.throttled++;
      if (req.noOp) e.noOps++;
      e.fromUs = Math.min(e.fromUs, req.receivedUs);
      e.toUs = Math.max(e.toUs, req.completedUs);
    }
  }
  return [...byKey.values()].map(({ fromUs, toUs, actorKeys, objectKeys, ...e }) => ({
    ...e,
    actors: [...actorKeys.values()].sort((a, b) => (a.username === b.username ? cmpStr(a.userAgent, b.userAgent) : cmpStr(a.username, b.username))),
    from: microTime(fromUs),
    to: microTime(toUs),
    objects: objectKeys.size,
  }));
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Generate a log: run each scenario over its window (`startOffsetMs`, `durationMs`, clipped to
 * the log), keep normal requests that lie wholly inside the log and the in-log stages of
 * watches (so a log opens with completions of watches begun earlier and ends with open ones),
 * and order stage lines by emission time: RequestReceived at receive time, ResponseStarted when
 * headers were written, ResponseComplete at completion.
 */
export function generateLog(spec: LogSpec): GeneratedLog {
  const logStartUs = parseStart(spec.start);
  if (!(spec.durationMs > 0)) throw new RangeError(`durationMs must be positive, got ${spec.durationMs}`);
  const logEndUs = logStartUs + Math.round(spec.durationMs * 1000);
  const root = createRng(spec.seed);
  // etcd revisions: one counter for the cluster, ~20k writes/s, starting somewhere plausible.
  const revisionBase = 30_000_000 + root.fork('revision').int(0, 60_000_000);
  const revisionAt = (us: Micros): string => String(revisionBase + Math.floor((us - logStartUs) / 50));

  const planned: PlannedRequest[] = [];
  const seen = new Map<string, number>();
  for (const scenario of spec.scenarios) {
    const n = seen.get(scenario.type) ?? 0;
    seen.set(scenario.type, n + 1);
    const startUs = logStartUs + Math.round((scenario.startOffsetMs ?? 0) * 1000);
    const endUs = scenario.durationMs === undefined ? logEndUs : Math.min(logEndUs, startUs + Math.round(scenario.durationMs * 1000));
    if (startUs < logStartUs || startUs >= endUs) throw new RangeError(`scenario ${scenario.type}#${n} has an empty or out-of-log window`);
    for (const req of runScenario(root.fork(`${scenario.type}#${n}`), scenario, { startUs, endUs, logStartUs, logEndUs, revisionAt })) planned.push(req);
  }

  const inLog = (us: Micros): boolean => us >= logStartUs && us < logEndUs;
  const kept = planned.filter((r) => (isLongRunning(r) ? r.receivedUs < logEndUs && r.completedUs >= logStartUs : inLog(r.receivedUs) && inLog(r.completedUs)));
  const finalOnly = spec.stages === 'final-only';
  const entries: Array<{ atUs: Micros; req: Request; stage: Stage }> = [];
  for (const req of kept) {
    for (const { stage, atUs } of stagesOf(req)) {
      if (inLog(atUs) && (!finalOnly || stage === 'ResponseComplete')) entries.push({ atUs, req, stage });
    }
  }
  entries.sort((a, b) => a.atUs - b.atUs); // stable: ties keep planning order

  return {
    lines: {
      *[Symbol.iterator]() {
        for (const e of entries) yield renderEvent(e.req, e.stage);
      },
    },
    lineCount: entries.length,
    requestCount: new Set(entries.map((e) => e.req)).size,
    completedCount: entries.filter((e) => e.stage === 'ResponseComplete').length,
    truth: groundTruth(kept.filter((r) => !isLongRunning(r))),
    expected: expectedFindings(kept.filter((r) => !isLongRunning(r))),
  };
}

/** Newline-terminated text of the lines in chunks of about 1 MB, for streaming to a file. */
function* chunks(lines: Iterable<string>): Generator<string> {
  let buf = '';
  for (const line of lines) {
    buf += line + '\n';
    if (buf.length >= 1 << 20) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}

/** The whole log as text: one JSON event per line, newline-terminated. */
export function logText(log: GeneratedLog): string {
  return [...chunks(log.lines)].join('');
}

/**
 * Generate a log and write it to `path` (parent directories are created). A path ending in
 * `.gz` is gzip-compressed at level 9; Node's gzip header has mtime 0, so the bytes depend only
 * on the spec (and the bundled zlib). Returns the log and the file size in bytes.
 */
export async function writeLog(path: string, spec: LogSpec): Promise<GeneratedLog & { bytes: number }> {
  const log = generateLog(spec);
  await mkdir(dirname(path), { recursive: true });
  const source = Readable.from(chunks(log.lines));
  if (path.endsWith('.gz')) await pipeline(source, createGzip({ level: 9 }), createWriteStream(path));
  else await pipeline(source, createWriteStream(path));
  return { ...log, bytes: (await stat(path)).size };
}

/** Ground truth as written to `truth.json`: pretty JSON with a trailing newline. */
export function truthJSON(truth: GroundTruth[]): string {
  return JSON.stringify(truth, null, 2) + '\n';
}

/** Write {@link truthJSON} to `path`, creating parent directories. */
export async function writeTruth(path: string, truth: GroundTruth[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, truthJSON(truth));
}
