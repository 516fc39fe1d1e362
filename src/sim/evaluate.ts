/**
 * Evaluation on simulated logs: for each scenario and seed, draw the parameters (tuning: pool A,
 * middle of the ranges; held-out: pool B, outer parts, other seeds), run the simulator over
 * background traffic, stream the audit log into `analyze()` in-process (no file), and match
 * findings with src/eval/evaluate.ts's rule (`score`, `tally`) and check every finding with
 * src/eval/consistency.ts. Findings matching an `acceptable` entry are set aside first (neither
 * found nor false positives).
 */
import { Readable } from 'node:stream';
import type { ExpectedFinding } from '../generator/generate.js';
import { analyze, type Finding } from '../index.js';
import { inconsistencies } from '../eval/consistency.js';
import { matches, score, tally, type CaseResult, type Evaluation } from '../eval/evaluate.js';
import { background } from './background.js';
import { POOL_A, POOL_B, Sampler, type NamePool, type RangePart } from './names.js';
import { ALL_SCENARIOS } from './all.js';
import type { SimExpected, SimScenario } from './scenarios.js';
import { World } from './world.js';

/** One evaluation set: seeds, name pool, part of the parameter ranges. */
export interface SimSet {
  name: 'tuning' | 'held-out';
  seeds: number[];
  pool: NamePool;
  part: RangePart;
}

/** The tuning set: seeds 1–2, pool A, middle half of every range. */
export const TUNING: SimSet = { name: 'tuning', seeds: [1, 2], pool: POOL_A, part: 'middle' };
/** The held-out set: seeds 101–102, pool B, outer quarters of every range. */
export const HELD_OUT: SimSet = { name: 'held-out', seeds: [101, 102], pool: POOL_B, part: 'outer' };

/**
 * Simulated minutes per log, for every scenario, benign ones included. 10: every incident in
 * real-incidents.md lasted far longer (crossplane#2449 and kubewarden 24 h, flux2#3689 3–4 h,
 * console-operator a 46-minute CI run, the status loops until a restart), and a shorter window
 * cuts a slow loop off before it shows (crossplane's ~2 updates/s needs ~10 min for `hot-loop`'s
 * 500 excess writes); longer would multiply the eval's runtime.
 */
export const SIM_MINUTES = 10;
const START_MS = Date.parse('2026-07-01T08:00:00Z');

/** A simulated case's result: the shared {@link CaseResult} plus the parameters drawn and the acceptable findings set aside. */
export interface SimCaseResult extends CaseResult {
  params: Record<string, number | string>;
  acceptableFindings: Finding[];
  /** Expectations the log cannot support (`Planted.outOfReach`), with counts, and those a finding matched anyway. */
  outOfReach: Array<ExpectedFinding & { why: string }>;
  outOfReachFound: Array<ExpectedFinding & { why: string }>;
  lines: number;
  /** Scenario is a benign look-alike (every finding on it is a false positive). */
  benign: boolean;
}

function toExpected(scenario: string, e: SimExpected): ExpectedFinding {
  const users = new Map(e.actors.map((a) => [`${a.username}\u0000${a.userAgent}`, { username: a.username, userAgent: a.userAgent }]));
  const o = e.object;
  return {
    scenario,
    kind: e.kind,
    actors: [...users.values()].sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0)),
    object: o ? { apiGroup: o.ref.group, resource: o.ref.resource, namespace: o.ref.namespace, name: o.ref.name, subresource: o.subresource } : null,
    from: '',
    to: '',
    writes: 0,
    conflicts: 0,
    alreadyExists: 0,
    throttled: 0,
    noOps: 0,
    objects: 0,
  };
}

/** Fill an expected finding's counts from the world's per-actor, per-object statistics. */
function fillCounts(w: World, e: ExpectedFinding): void {
  const users = new Set(e.actors.map((a) => a.username));
  const objs = new Set<string>();
  for (const [k, st] of w.stats) {
    const [user, key] = k.split('\u0000') as [string, string];
    if (!users.has(user)) continue;
    if (e.object) {
      const o = e.object;
      const want = `${o.apiGroup}/${o.resource}/${o.namespace}/${o.name}/`;
      if (!key.startsWith(want) || (e.kind !== 'write-fight' && key !== `${want}${o.subresource}`)) continue;
    }
    objs.add(key);
    e.writes += st.writes;
    e.conflicts += st.conflicts;
    e.alreadyExists += st.alreadyExists;
    e.throttled += st.throttled;
    e.noOps += st.noOps;
  }
  e.objects = objs.size;
}

/** One simulated log: its text in chunks of whole lines, expected and acceptable findings, the parameters drawn. */
export interface SimulatedLog {
  chunks: string[];
  expected: ExpectedFinding[];
  acceptable: ExpectedFinding[];
  /** Expectations out of the log's reach (`Planted.outOfReach`), with counts. */
  outOfReach: Array<ExpectedFinding & { why: string }>;
  params: Record<string, number | string>;
  lines: number;
}

/** Simulate one scenario for one seed of a set (deterministic for a scenario, set and seed). */
export function simulate(sc: SimScenario, set: SimSet, seed: number): SimulatedLog {
  const p = new Sampler(seed * 1009 + hash(sc.name), set.part, set.pool);
  const plan = sc.plan(p);
  const w = new World({
    seed: seed * 31 + hash(sc.name),
    startMs: START_MS,
    durationUs: (plan.minutes ?? SIM_MINUTES) * 60_000_000,
    requestResponse: plan.requestResponse,
    legacyApplyTimestamps: plan.legacyApplyTimestamps ?? false,
  });
  const nsCount = 4;
  const namespaces: string[] = [];
  while (namespaces.length < nsCount) {
    const n = p.rng.pick(set.pool.namespaces);
    if (!namespaces.includes(n)) namespaces.push(n);
  }
  const nodes = background(w, p, plan.nodes, namespaces);
  const planted = plan.run(w, { namespaces, nodes });
  w.run();
  const planned = planted.expected.map((e) => toExpected(sc.name, e));
  for (const e of planned) fillCounts(w, e);
  const acceptable = (planted.acceptable ?? []).map((e) => toExpected(sc.name, e));
  const outOfReach = (planted.outOfReach ?? []).map((e) => ({ ...toExpected(sc.name, e), why: e.why }));
  for (const e of outOfReach) fillCounts(w, e);
  const expected: ExpectedFinding[] = [];
  for (const e of planned) {
    const why = didNotHappen(e);
    if (why === null) expected.push(e);
    else outOfReach.push({ ...e, why });
  }
  return { chunks: w.auditChunks(), expected, acceptable, outOfReach, params: p.drawn, lines: w.lineCount };
}

/**
 * Why an expected finding's pattern did not occur in the draw, or null when it did: a storm of
 * answers (409 Conflict, AlreadyExists, 429) of which the expected actors got none (a race that
 * never started). Nothing in the log can show it then.
 */
function didNotHappen(e: ExpectedFinding): string | null {
  const none = (what: string) => `the pattern did not occur in this draw: no ${what} answered to the expected actors`;
  switch (e.kind) {
    case 'conflict-storm':
      return e.conflicts === 0 ? none('409 Conflict') : null;
    case 'fleet-storm':
      return e.conflicts + e.throttled === 0 ? none('409 Conflict or 429') : null;
    case 'create-conflict-storm':
      return e.alreadyExists === 0 ? none('409 AlreadyExists') : null;
    case 'throttling':
      return e.throttled === 0 ? none('429') : null;
    default:
      return null;
  }
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h % 100_000;
}

/**
 * Simulate one scenario for one seed, analyze the log in-process with default options and a fixed
 * clock, and score it: findings matching an `acceptable` or out-of-reach entry (and no expected
 * one) are set aside; every finding's metrics are checked for consistency.
 */
export async function runSimCase(sc: SimScenario, set: SimSet, seed: number): Promise<SimCaseResult> {
  const t0 = performance.now();
  const sim = simulate(sc, set, seed);
  const report = await analyze({ inputs: ['-'] }, { stdin: Readable.from(sim.chunks), now: () => new Date('2026-01-01T00:00:00Z') });
  const aside = [...sim.acceptable, ...sim.outOfReach];
  const acceptableFindings = report.findings.filter((f) => !sim.expected.some((e) => matches(f, e)) && aside.some((a) => matches(f, a)));
  const judged = report.findings.filter((f) => !acceptableFindings.includes(f));
  const inconsistent = report.findings.map((finding) => ({ finding, problems: inconsistencies(finding) })).filter((x) => x.problems.length > 0);
  return {
    case: sc.name,
    seed,
    expected: sim.expected,
    findings: report.findings,
    ...score(sim.expected, judged),
    inconsistent,
    ms: performance.now() - t0,
    params: sim.params,
    acceptableFindings,
    outOfReach: sim.outOfReach,
    outOfReachFound: sim.outOfReach.filter((e) => report.findings.some((f) => matches(f, e))),
    lines: sim.lines,
    benign: sc.benign,
  };
}

/** Options of {@link evaluateSim}. */
export interface SimEvaluateOptions {
  onResult?: (r: SimCaseResult) => void;
  /**
   * Run one case (scenario name, set, seed) elsewhere (a worker thread); default: in this thread
   * with {@link runSimCase}. Results are put back in scenario and seed order, so the evaluation
   * does not depend on which case finishes first.
   */
  run?: (scenario: string, set: SimSet['name'], seed: number) => Promise<SimCaseResult>;
  /** Cases run at once (with `run`). Default 1. */
  concurrency?: number;
}

/** A set by name. */
export function simSet(name: SimSet['name']): SimSet {
  return name === 'tuning' ? TUNING : HELD_OUT;
}

/**
 * The whole simulated evaluation of one set; `outOfReach` counts the expectations the logs could
 * not support (`Planted.outOfReach`) and how many a finding matched anyway.
 */
export type SimEvaluation = Evaluation & { cases: SimCaseResult[]; set: SimSet['name']; outOfReach: { entries: number; found: number } };

/** Run `scenarios` for every seed of `set`; matching as in src/eval/evaluate.ts. */
export async function evaluateSim(set: SimSet, scenarios: SimScenario[] = ALL_SCENARIOS, opts: SimEvaluateOptions = {}): Promise<SimEvaluation> {
  const started = performance.now();
  const jobs = scenarios.flatMap((sc) => set.seeds.map((seed) => ({ sc, seed })));
  const results: SimCaseResult[] = new Array<SimCaseResult>(jobs.length);
  const run = opts.run ?? ((name: string, _set: SimSet['name'], seed: number) => runSimCase(scenarios.find((x) => x.name === name) as SimScenario, set, seed));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      const j = jobs[i] as { sc: SimScenario; seed: number };
      const r = await run(j.sc.name, set.name, j.seed);
      results[i] = r;
      opts.onResult?.(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 1) }, worker));
  return {
    set: set.name,
    seeds: set.seeds,
    kinds: tally(results),
    benign: { entries: results.filter((r) => r.benign).length, falsePositives: results.filter((r) => r.benign).reduce((n, r) => n + r.falsePositives.length, 0) },
    inconsistent: results.reduce((n, r) => n + r.inconsistent.length, 0),
    cases: results,
    outOfReach: { entries: results.reduce((n, r) => n + r.outOfReach.length, 0), found: results.reduce((n, r) => n + r.outOfReachFound.length, 0) },
    ms: performance.now() - started,
  };
}
