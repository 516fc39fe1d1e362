/**
 * Evaluation: generate every case's log for every seed (in a temporary directory), run
 * `analyze()` on it, and match the findings to the generator's expected findings per kind.
 *
 * Matching rule: a finding matches an expected finding of the same kind when one of its actors'
 * usernames is among the expected actors, and the expected object is null (fleet-wide or
 * actor-level) or equals the finding's object (group, resource, namespace, name, subresource;
 * for `write-fight` the subresource is ignored: `/scale` against the main resource is one
 * fight). A grouped finding (`members`: findings folded into one, see `src/report/group.ts`)
 * also matches an expected finding one of its members matches by kind, actor and object. An expected
 * finding is found when at least one finding matches it, missed otherwise.
 * A finding that matches no expected finding of its kind is a false positive; when it lands on
 * a `benign` entry (same actor and object) that entry is named, to help the diagnosis.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeLog, type ExpectedFinding, type LogSpec } from '../generator/generate.js';
import { FINDING_KINDS, type ScenarioSpec, type TruthObject } from '../generator/scenarios.js';
import { analyze, type Finding } from '../index.js';
import { inconsistencies } from './consistency.js';

/** One evaluation case: a log spec without its seed. */
export interface EvalCase {
  name: string;
  /** What the case checks, for the report. */
  description: string;
  spec: Omit<LogSpec, 'seed'>;
}

/** Counts of one finding kind over all cases and seeds. */
export interface KindScore {
  kind: string;
  expected: number;
  found: number;
  missed: number;
  falsePositives: number;
  /** found / (found + falsePositives); 1 when nothing was reported. */
  precision: number;
  /** found / expected; 1 when nothing was expected. */
  recall: number;
}

/** What one case with one seed produced. */
export interface CaseResult {
  case: string;
  seed: number;
  expected: ExpectedFinding[];
  findings: Finding[];
  missed: ExpectedFinding[];
  falsePositives: Array<{ finding: Finding; benign: ExpectedFinding | null }>;
  /** Expected findings of each kind that were found. */
  found: ExpectedFinding[];
  /** Findings whose metrics are not self-consistent, with what is wrong ({@link inconsistencies}). */
  inconsistent: Array<{ finding: Finding; problems: string[] }>;
  ms: number;
}

/** The whole evaluation. */
export interface Evaluation {
  seeds: number[];
  kinds: KindScore[];
  /** Benign entries planted, and false positives landing on them. */
  benign: { entries: number; falsePositives: number };
  /** Findings (of every case and seed) whose metrics are not self-consistent. */
  inconsistent: number;
  cases: CaseResult[];
  ms: number;
}

const MINUTE = 60_000;
const START = '2026-07-01T08:00:00Z';

/** A case with background traffic (`nodes` kubelets) plus the given scenarios, over `minutes`. */
function withBackground(name: string, description: string, scenarios: ScenarioSpec[], opts: { minutes?: number; nodes?: number } = {}): EvalCase {
  return {
    name,
    description,
    spec: { start: START, durationMs: (opts.minutes ?? 6) * MINUTE, scenarios: [{ type: 'background', nodes: opts.nodes ?? 10 }, ...scenarios] },
  };
}

/** The pattern's window inside a 6-minute log: from minute 1 for 4 minutes. */
const W = { startOffsetMs: MINUTE, durationMs: 4 * MINUTE } as const;

/**
 * The standard cases: every scenario alone with background, a few mixed logs, and the
 * benign-only set.
 */
export function defaultCases(): EvalCase[] {
  return [
    // conflict-storm
    withBackground('storm', 'operator replicas retrying 409 on a status without backoff', [{ type: 'storm', ...W }]),
    withBackground('incident', 'the payment-core incident', [{ type: 'incident', startOffsetMs: MINUTE, durationMs: 30_000, ratePerSec: 40 }]),
    withBackground('jobControllerReplay', 'replay: job controller updating jobs/status ~60/s, mostly 409', [
      { type: 'jobControllerReplay', startOffsetMs: MINUTE, durationMs: 2 * MINUTE },
    ]),
    withBackground('policyEngineReplay', 'replay: policy engine updates conflicting every 50-100 ms', [{ type: 'policyEngineReplay', ...W }]),
    // hot-loop, no-op-writes
    withBackground('hotLoop', 'one operator rewriting one status several times a second', [{ type: 'hotLoop', ...W }]),
    withBackground('transitionTimeReplay/Metadata', 'replay: lastTransitionTime set to now every reconcile, no bodies', [
      { type: 'transitionTimeReplay', level: 'Metadata', ...W },
    ]),
    withBackground('transitionTimeReplay/RequestResponse', 'replay: lastTransitionTime set to now every reconcile, with bodies', [
      { type: 'transitionTimeReplay', level: 'RequestResponse', ...W },
    ]),
    withBackground('noOpWrites/Metadata', 'status PUTs that change nothing (same RV sent again)', [{ type: 'noOpWrites', level: 'Metadata', ...W }]),
    withBackground('noOpWrites/RequestResponse', 'status PUTs whose bodies differ only in lastTransitionTime', [
      { type: 'noOpWrites', level: 'RequestResponse', change: 'timestamps', ...W },
    ]),
    // write-fight, create-conflict-storm, create-storm, fleet-storm, throttling
    withBackground('writeFight', 'HPA /scale against a GitOps applier on the Deployment', [{ type: 'writeFight', ...W }]),
    withBackground('createConflictStorm', 'creating an existing Secret again and again (409 AlreadyExists)', [{ type: 'createConflictStorm', ...W }]),
    withBackground('createStorm', 'a new object on every pass, each create a 201 (cert-manager#6714)', [{ type: 'createStorm', ...W }]),
    withBackground('fleetStorm/daemonset', 'a DaemonSet family meeting 409s across many per-node objects', [{ type: 'fleetStorm', family: 'daemonset', ...W }]),
    withBackground('fleetStorm/kubelet', 'kubelets (system:node:*) meeting 409s on pod status across the fleet', [{ type: 'fleetStorm', family: 'kubelet', ...W }]),
    withBackground('throttling', 'a controller throttled with 429 while a heavy writer floods', [{ type: 'throttling', startOffsetMs: MINUTE, durationMs: 3 * MINUTE }]),
    // benign, each alone
    withBackground('retryOnConflict', 'benign: client-go RetryOnConflict', [{ type: 'retryOnConflict' }]),
    withBackground('exponentialBackoff', 'benign: per-item exponential backoff', [{ type: 'exponentialBackoff' }]),
    withBackground('rollout', 'benign: a Deployment rolling update', [{ type: 'rollout', startOffsetMs: MINUTE }]),
    withBackground('busyController', 'benign: thousands of different objects written once each', [{ type: 'busyController', startOffsetMs: 30_000 }]),
    withBackground('kubeletStatus', 'benign: kubelets patching their pods\u2019 status', [{ type: 'kubeletStatus' }]),
    withBackground('background', 'benign: leases, leader election, node status, controllers, events', [], { nodes: 30 }),
    // mixed
    withBackground(
      'mixed/controllers',
      'storm, hot loop and write fight during a rollout, with a RetryOnConflict writer',
      [
        { type: 'storm', startOffsetMs: 2 * MINUTE, durationMs: 2 * MINUTE },
        { type: 'hotLoop', ...W },
        { type: 'writeFight', ...W },
        { type: 'rollout', startOffsetMs: 90_000 },
        { type: 'retryOnConflict' },
      ],
      { nodes: 20 },
    ),
    withBackground(
      'mixed/fleet',
      'fleet storm and throttling next to a busy controller, no-op writes and kubelet status',
      [
        { type: 'fleetStorm', ...W },
        { type: 'throttling', startOffsetMs: 2 * MINUTE, durationMs: 3 * MINUTE },
        { type: 'noOpWrites', level: 'RequestResponse', ...W },
        { type: 'busyController', startOffsetMs: MINUTE },
        { type: 'kubeletStatus' },
      ],
      { nodes: 20 },
    ),
    withBackground(
      'mixed/replays',
      'the three public replays, an AlreadyExists storm, a creation storm and a backoff writer',
      [
        { type: 'createConflictStorm', ...W },
        { type: 'createStorm', named: false, ...W },
        { type: 'policyEngineReplay', startOffsetMs: 2 * MINUTE, durationMs: 2 * MINUTE },
        { type: 'jobControllerReplay', startOffsetMs: 3 * MINUTE, durationMs: MINUTE },
        { type: 'transitionTimeReplay', ...W },
        { type: 'exponentialBackoff' },
      ],
      { nodes: 20 },
    ),
    withBackground(
      'benign-only',
      'every benign pattern at once',
      [
        { type: 'retryOnConflict' },
        { type: 'exponentialBackoff' },
        { type: 'rollout', startOffsetMs: MINUTE },
        { type: 'busyController', startOffsetMs: 2 * MINUTE },
        { type: 'kubeletStatus' },
      ],
      { nodes: 40 },
    ),
  ];
}

/** The log spec of a case for a seed: names, rates and noise randomized from seed 2 on. */
export function specFor(c: EvalCase, seed: number): LogSpec {
  const randomizeNames = seed >= 2;
  return { ...c.spec, seed, scenarios: c.spec.scenarios.map((s) => ({ randomizeNames, ...s })) };
}

function sameObject(x: Finding['object'], o: TruthObject, ignoreSubresource: boolean): boolean {
  return (
    x !== null &&
    x.apiGroup === o.apiGroup &&
    x.resource === o.resource &&
    x.namespace === o.namespace &&
    x.name === o.name &&
    (ignoreSubresource || x.subresource === o.subresource)
  );
}

/** True when finding `f` is the expected finding `e` (see the module comment). */
export function matches(f: Finding, e: ExpectedFinding, kind: string = e.kind): boolean {
  const names = new Set(e.actors.map((a) => a.username));
  const object = e.object;
  const sameTarget = (o: Finding['object']) => object === null || sameObject(o, object, kind === 'write-fight');
  if (f.kind === kind && f.actors.some((a) => names.has(a.username)) && sameTarget(f.object)) return true;
  return (f.members ?? []).some((m) => m.kind === kind && names.has(m.username) && sameTarget(m.object));
}

/** Match one log's findings to its expected findings. */
export function score(expected: ExpectedFinding[], findings: Finding[]): Pick<CaseResult, 'found' | 'missed' | 'falsePositives'> {
  const wanted = expected.filter((e) => e.kind !== 'benign');
  const benign = expected.filter((e) => e.kind === 'benign');
  const found = wanted.filter((e) => findings.some((f) => matches(f, e)));
  const missed = wanted.filter((e) => !found.includes(e));
  const falsePositives = findings
    .filter((f) => !wanted.some((e) => matches(f, e)))
    .map((finding) => ({ finding, benign: benign.find((e) => matches(finding, e, finding.kind)) ?? null }));
  return { found, missed, falsePositives };
}

/** Per-kind counts over case results; every known kind gets a row, unknown reported kinds too. */
export function tally(results: CaseResult[]): KindScore[] {
  const kinds = new Set<string>(FINDING_KINDS);
  for (const r of results) for (const f of r.findings) kinds.add(f.kind);
  return [...kinds].map((kind) => {
    const expected = results.reduce((n, r) => n + r.expected.filter((e) => e.kind === kind).length, 0);
    const found = results.reduce((n, r) => n + r.found.filter((e) => e.kind === kind).length, 0);
    const falsePositives = results.reduce((n, r) => n + r.falsePositives.filter((x) => x.finding.kind === kind).length, 0);
    return {
      kind,
      expected,
      found,
      missed: expected - found,
      falsePositives,
      precision: found + falsePositives === 0 ? 1 : found / (found + falsePositives),
      recall: expected === 0 ? 1 : found / expected,
    };
  });
}

/** Options of {@link evaluate}. */
export interface EvaluateOptions {
  /** Called after each case and seed (progress). */
  onResult?: (r: CaseResult) => void;
  /** Fixed clock for the reports. */
  now?: () => Date;
}

/**
 * Run every case for every seed: write the log to a temporary directory, analyze it, match.
 * The directory is removed afterwards.
 */
export async function evaluate(cases: EvalCase[], seeds: number[], opts: EvaluateOptions = {}): Promise<Evaluation> {
  const started = performance.now();
  const dir = await mkdtemp(path.join(tmpdir(), 'auditstorm-eval-'));
  const now = opts.now ?? (() => new Date('2026-01-01T00:00:00Z'));
  const results: CaseResult[] = [];
  try {
    for (const c of cases) {
      for (const seed of seeds) {
        const t0 = performance.now();
        const file = path.join(dir, `${c.name.replace(/[^\w-]+/g, '_')}-${seed}.log`);
        const log = await writeLog(file, specFor(c, seed));
        const report = await analyze({ inputs: [file] }, { now });
        await rm(file, { force: true });
        const inconsistent = report.findings.map((finding) => ({ finding, problems: inconsistencies(finding) })).filter((x) => x.problems.length > 0);
        const r: CaseResult = {
          case: c.name,
          seed,
          expected: log.expected,
          findings: report.findings,
          ...score(log.expected, report.findings),
          inconsistent,
          ms: performance.now() - t0,
        };
        results.push(r);
        opts.onResult?.(r);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return {
    seeds,
    kinds: tally(results),
    benign: {
      entries: results.reduce((n, r) => n + r.expected.filter((e) => e.kind === 'benign').length, 0),
      falsePositives: results.reduce((n, r) => n + r.falsePositives.filter((x) => x.benign !== null).length, 0),
    },
    inconsistent: results.reduce((n, r) => n + r.inconsistent.length, 0),
    cases: results,
    ms: performance.now() - started,
  };
}
