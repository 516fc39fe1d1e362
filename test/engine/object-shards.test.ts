/**
 * The engine sharded by object key (`EngineOptions.shards`, `src/engine/object-shards.ts`): how a
 * sharded detector's instances are fed, advanced and ordered, and that the report is the same
 * whatever the number of shards (0, 1, 2 and 4) on the bundled sample and on simulated scenarios
 * that exercise every detector.
 */
import { Readable } from 'node:stream';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import type { Detector } from '../../src/detectors/types.js';
import { defineDetector } from '../../src/detectors/types.js';
import { DETECTORS } from '../../src/detectors/registry.js';
import { StepClock } from '../../src/detectors/window.js';
import { Engine } from '../../src/engine/engine.js';
import { objectShardKey, shardOf } from '../../src/engine/shard.js';
import type { Finding, Report } from '../../src/report/schema.js';
import { ALL_SCENARIOS } from '../../src/sim/all.js';
import { simulate, TUNING } from '../../src/sim/evaluate.js';
import { actor, object, rec } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const alice = actor('alice');

/**
 * A detector that logs, per instance, what it was given: records (auditIDs), and the boundaries
 * its step clock (10 s) judged; at each boundary, and at the end, it emits one finding per object
 * it saw, in the order it first saw them, carrying the birth it gave that object; its state size is
 * the objects it saw.
 */
function probe(log: string[], byObject: 'objects' | 'objects+cross'): Detector {
  let instances = 0;
  return defineDetector({
    meta: {
      id: 'probe',
      description: 'test',
      optionsSchema: z.object({ stepMs: z.number().default(10_000), windowMs: z.number().default(10_000) }),
      judges: 'write-rate',
      byObject,
    },
    create(ctx) {
      const me = `${ctx.placement?.role ?? 'one'}${instances++}`;
      const seen = new Map<string, number>();
      const emitAll = (at: string): void => {
        for (const [key, birth] of seen) ctx.emit({ id: `${at}:${key}` } as Finding, birth);
      };
      const clock = new StepClock(ctx.options, (b) => {
        log.push(`${me} judge ${b - Math.floor(T0 / 10_000)}`);
        emitAll(`b${b - Math.floor(T0 / 10_000)}`);
      });
      return {
        onRecord(r: RequestRecord) {
          clock.advance(r.ts);
          log.push(`${me} ${r.auditID}`);
          const key = objectShardKey(r.object);
          if (!seen.has(key)) seen.set(key, ctx.placement?.birth() ?? 0);
        },
        advance: (now: number) => clock.advance(now),
        settle: () => clock.finish(),
        finish() {
          clock.finish();
          emitAll('end');
        },
        stateSize: () => seen.size,
      };
    },
  });
}

/** An engine running only the probe detector (`probe`), steps of 10 s, with `shards` object shards. */
function probeEngine(log: string[], by: 'objects' | 'objects+cross', shards: number): Engine {
  return new Engine({
    detectors: [{ detector: probe(log, by), options: { stepMs: 10_000, windowMs: 10_000 } }],
    filter: null,
    reorderWindowMs: 0,
    seriesStepMs: 10_000,
    shards,
  });
}

describe('Engine with object shards', () => {
  const objects = ['a', 'b', 'c', 'd', 'e'].map((n) => object('configmaps', 'ns', n));
  // Object shard of each name at 2 shards (FNV-1a of `/configmaps/ns/<name>`).
  const shardOfName = (n: string): number => shardOf(`/configmaps/ns/${n}`, 2);

  it('feeds each shard the records of its objects, advances every shard at each new step, and orders findings by birth', () => {
    const log: string[] = [];
    const e = probeEngine(log, 'objects+cross', 2);
    // Objects a..e written in that order in step 0, then e, a in step 1.
    objects.forEach((o, i) => e.push(rec(T0 + i, alice, o, { auditID: `r${o.name}` })));
    e.push(rec(T0 + 10_000, alice, objects[4] ?? null, { auditID: 're2' }));
    e.push(rec(T0 + 10_001, alice, objects[0] ?? null, { auditID: 'ra2' }));
    e.finish();
    const shards = ['a', 'b', 'c', 'd', 'e'].map(shardOfName);
    expect(new Set(shards).size).toBe(2);
    // Both shards and the cross instance judge boundary 0 at the first record and 1 at re2, in that order.
    const judged = log.filter((l) => l.includes('judge'));
    expect(judged).toEqual([
      'objects0 judge 0',
      'objects1 judge 0',
      'cross2 judge 0',
      'objects0 judge 1',
      'objects1 judge 1',
      'cross2 judge 1',
      'objects0 judge 2',
      'objects1 judge 2',
      'cross2 judge 2',
    ]);
    // Each record went to the shard of its object.
    for (const l of log.filter((x) => !x.includes('judge'))) {
      const [who, id] = l.split(' ') as [string, string];
      expect(who, l).toBe(`objects${shardOfName(id.slice(1, 2))}`);
    }
    // At boundary 1 and at the end, the objects' findings come in the order the objects were first seen, whatever their shard.
    expect(e.findings.map((f) => f.id)).toEqual([
      ...['a', 'b', 'c', 'd', 'e'].map((n) => `b1:/configmaps/ns/${n}`),
      ...['a', 'b', 'c', 'd', 'e'].map((n) => `b2:/configmaps/ns/${n}`),
      ...['a', 'b', 'c', 'd', 'e'].map((n) => `end:/configmaps/ns/${n}`),
    ]);
  });

  it('a tick (live mode) advances every shard and the cross instance; state sizes add up over them', () => {
    const log: string[] = [];
    const e = probeEngine(log, 'objects+cross', 2);
    e.push(rec(T0, alice, objects[0] ?? null, { auditID: 'ra' }));
    log.length = 0;
    e.advance(T0 + 25_000);
    expect(log).toEqual(['objects0 judge 1', 'objects0 judge 2', 'objects1 judge 1', 'objects1 judge 2', 'cross2 judge 1', 'cross2 judge 2']);
    expect(e.stateSizes()).toEqual({ probe: 1 });
  });

  it('without shards: one instance per detector, as before', () => {
    const log: string[] = [];
    const e = probeEngine(log, 'objects', 0);
    objects.forEach((o, i) => e.push(rec(T0 + i, alice, o, { auditID: `r${o.name}` })));
    e.finish();
    expect(log).toEqual(['one0 judge 0', 'one0 ra', 'one0 rb', 'one0 rc', 'one0 rd', 'one0 re', 'one0 judge 1']);
  });

  it('first writes held for room across objects: the same findings whatever the shards (the held writes are one table)', () => {
    // One writer loops on eight objects in turn, 409 on every other write, with room for four held
    // first writes: each object's first write pushes out the oldest held (that object's count is
    // then one write short), in the order of all objects' writes, not of one shard's.
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const run = (shards: number): string => {
      const e = new Engine({
        detectors: DETECTORS.filter((d) => d.meta.byObject !== undefined).map((detector) => ({ detector, options: detector.meta.optionsSchema.parse({}) })),
        filter: null,
        reorderWindowMs: 0,
        seriesStepMs: 10_000,
        firstWrites: 4,
        shards,
      });
      for (let k = 0; k < 1200; k++) {
        const name = names[k % names.length] as string;
        e.push(rec(T0 + k * 50, alice, object('configmaps', 'ns', name), { code: k % 2 === 0 ? 409 : 200, auditID: `w${k}` }));
      }
      e.finish();
      return JSON.stringify({ findings: e.findings, notes: e.notes });
    };
    const base = run(0);
    expect((JSON.parse(base) as { findings: Finding[] }).findings.map((f) => `${f.kind} ${f.object?.name ?? '*'} ${f.metrics.attempts ?? ''}`)).toEqual([
      'conflict-storm a 149',
      'conflict-storm c 149',
      'conflict-storm e 150',
      'conflict-storm g 150',
    ]);
    for (const shards of [1, 2, 4]) expect(run(shards), `${shards} shards`).toBe(base);
  });

  it('rejects a shard count that is not an integer ≥ 0', () => {
    expect(() => new Engine({ detectors: [], filter: null, reorderWindowMs: 0, seriesStepMs: 10_000, shards: 1.5 })).toThrow('shards must be an integer ≥ 0, got 1.5');
  });
});

const now = (): Date => new Date('2026-01-01T00:00:00Z');

/** The JSON report of `chunks` (a simulated log) with `shards` object shards, and `detectors` options. */
async function reportOf(chunks: readonly string[], shards: number, detectors: Record<string, Record<string, unknown>> = {}): Promise<string> {
  return JSON.stringify(await analyze({ inputs: ['-'], detectors }, { stdin: Readable.from(chunks), now, engineShards: shards }));
}

describe('reports are the same whatever the number of object shards', () => {
  it('the bundled sample: 0, 1, 2 and 4 shards', async () => {
    const reports = [];
    for (const shards of [0, 1, 2, 4]) reports.push(JSON.stringify(await analyze({ inputs: ['fixtures/sample/audit.log.gz'] }, { now, engineShards: shards })));
    expect((JSON.parse(reports[0] as string) as Report).findings.map((f: Finding) => f.kind)).toEqual(['conflict-storm']);
    for (const r of reports.slice(1)) expect(r).toBe(reports[0]);
  });

  // Every kind of finding, object-level and actor-level (`*`: roll-ups of conflict-storm,
  // hot-loop and no-op-writes, fleet storms, throttling, create storms), and a group.
  const SCENARIOS: Array<[string, string[]]> = [
    // Each side's hot loop on the fought-over object folds into the fight (`members`): compared all the same.
    ['istio-two-revisions-fight', ['write-fight']],
    // Its conflict-storm episode is a note (each chain follows the other writer's change), its hot
    // loops members of the fight: compared all the same.
    ['keda-two-writers-status', ['write-fight']],
    ['knative-multi-kind-conflicts', ['fleet-storm*', 'conflict-storm*']],
    // Its per-object hot loops (five objects or more) are one grouped finding.
    ['kubewarden-create-probe', ['create-conflict-storm', 'hot-loop*', 'no-op-writes']],
    ['strimzi-kafka-status-ltt-loop', ['hot-loop*', 'no-op-writes*', 'no-op-writes']],
    ['certmanager-request-storm', ['hot-loop', 'create-storm*']],
    ['dra-daemons-one-object', ['conflict-storm', 'throttling*']],
  ];
  for (const [name, kinds] of SCENARIOS) {
    it(`simulated ${name} (tuning seed 1): 0, 1, 2 and 4 shards`, async () => {
      const sc = ALL_SCENARIOS.find((s) => s.name === name);
      if (sc === undefined) throw new Error(`no scenario ${name}`);
      const sim = simulate(sc, TUNING, 1);
      const base = await reportOf(sim.chunks, 0);
      expect([...new Set((JSON.parse(base) as Report).findings.map((f: Finding) => `${f.kind}${f.object === null ? '*' : ''}`))]).toEqual(kinds);
      for (const shards of [1, 2, 4]) expect(await reportOf(sim.chunks, shards), `${shards} shards`).toBe(base);
    });
  }

  it("simulated kubeflow-notebook-probe-time with hot-loop's sweep rule on (a roll-up that reads every shard's writes as they come): 0, 1, 2 and 4 shards", async () => {
    const sc = ALL_SCENARIOS.find((s) => s.name === 'kubeflow-notebook-probe-time');
    if (sc === undefined) throw new Error('no scenario');
    const sim = simulate(sc, TUNING, 1);
    const sweeps = { 'hot-loop': { suspectSteadySweeps: true } };
    const base = await reportOf(sim.chunks, 0, sweeps);
    expect((JSON.parse(base) as Report).findings.map((f) => `${f.kind} steadyObjects=${String(f.metrics.steadyObjects)}`)).toEqual(['hot-loop steadyObjects=580']);
    for (const shards of [1, 2, 4]) expect(await reportOf(sim.chunks, shards, sweeps), `${shards} shards`).toBe(base);
  });
});
