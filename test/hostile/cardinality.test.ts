/**
 * Hostile cardinality: every write names a new object. Detector state must follow what is live
 * and worth judging (a key written once is not), and holding first writes back must not change
 * any finding on ordinary logs.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DETECTORS } from '../../src/detectors/registry.js';
import { catchUp } from '../../src/detectors/window.js';
import { FirstWrites } from '../../src/detectors/common.js';
import { Engine } from '../../src/engine/engine.js';
import { defaultCases, specFor } from '../../src/eval/evaluate.js';
import { generateLog } from '../../src/generator/generate.js';
import { resolveInputs } from '../../src/ingest/sources.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { actor, object, rec } from '../helpers/records.js';
import { readChains } from '../parser/helpers.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, removeTempDirs } from '../parser/helpers.js';
import { afterAll } from 'vitest';

afterAll(removeTempDirs);

const T0 = Date.parse('2026-03-14T09:00:00Z');

function engineOf(firstWrites?: number, options: Record<string, object> = {}): Engine {
  return new Engine({
    detectors: DETECTORS.map((detector) => ({ detector, options: detector.meta.optionsSchema.parse(options[detector.meta.id] ?? {}) })),
    filter: null,
    reorderWindowMs: 2000,
    seriesStepMs: 10_000,
    ...(firstWrites === undefined ? {} : { firstWrites }),
  });
}

/** `n` updates of `/status`, each to a new object, 2,500 a second, one actor per 10, every 4th answered 409. */
function distinctWrites(n: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let i = 0; i < n; i++) {
    const conflict = i % 4 === 0;
    out.push(
      rec(
        T0 + i * 0.4,
        actor(`system:serviceaccount:ns${Math.floor(i / 10) % 500}:ctl-${Math.floor(i / 10)}`, 'ctl/v1'),
        object('widgets', `ns${i % 100}`, `obj-${i}`, 'status', 'example.com'),
        {
          auditID: `d${i}`,
          code: conflict ? 409 : 200,
        },
      ),
    );
  }
  return out;
}

describe('FirstWrites', () => {
  const w = (t: number, name: string) => rec(t, actor('u'), object('pods', 'ns', name, 'status'));

  it("holds a key's first write and gives it back at the second, once", () => {
    const fw = new FirstWrites<string>(60_000, 10, (k) => k);
    const a1 = w(T0, 'a');
    expect(fw.take('a', a1)).toBeUndefined();
    expect(fw.take('b', w(T0 + 1, 'b'))).toBeUndefined();
    expect(fw.size).toBe(2);
    expect(fw.take('a', w(T0 + 2, 'a'))).toBe(a1);
    expect(fw.size).toBe(1);
    // Given back, the key is not held any more: its next write is held as a first one.
    expect(fw.take('a', w(T0 + 3, 'a'))).toBeUndefined();
    expect(fw.release('b')).not.toBeUndefined();
    expect(fw.release('b')).toBeUndefined();
  });

  it('drops writes past the horizon, and past capacity remembers the dropped key', () => {
    const fw = new FirstWrites<string>(1000, 3, (k) => k);
    // rec() answers 3 ms after receipt: these writes' ts is T0 + 3.
    for (const k of ['a', 'b', 'c']) fw.take(k, w(T0, k));
    fw.expire(T0 + 1003);
    expect(fw.size).toBe(3);
    fw.expire(T0 + 1004);
    expect(fw.size).toBe(0);
    // Out of the horizon: not remembered, the next write is a first one again.
    expect(fw.take('a', w(T0 + 2000, 'a'))).toBeUndefined();
    fw.take('b', w(T0 + 2001, 'b'));
    fw.take('c', w(T0 + 2002, 'c'));
    // Full: holding d drops a, the oldest, and a's next write gets its state at once (null).
    expect(fw.take('d', w(T0 + 2003, 'd'))).toBeUndefined();
    expect(fw.evicted).toBe(1);
    expect(fw.size).toBe(3);
    expect(fw.take('a', w(T0 + 2004, 'a'))).toBeNull();
    // Remembered once: a write after that is held again, and drops b, now the oldest.
    expect(fw.take('a', w(T0 + 2005, 'a'))).toBeUndefined();
    expect(fw.evicted).toBe(2);
    expect(fw.take('b', w(T0 + 2006, 'b'))).toBeNull();
    // A slot whose write was given back is reused without dropping anything held.
    const c = fw.release('c');
    expect(c?.ts).toBe(T0 + 2005);
    expect(fw.take('e', w(T0 + 2008, 'e'))).toBeUndefined();
    expect(fw.evicted).toBe(2);
    expect(fw.size).toBe(3);
  });

  it('catchUp judges the boundaries the step clock judged, skipping a gap as it does', () => {
    const seen: number[] = [];
    const o = { windowMs: 30_000, stepMs: 10_000 };
    expect(catchUp(o, 5_000, 9_999, (b) => (seen.push(b), true))).toBe(true);
    expect(seen).toEqual([]);
    expect(catchUp(o, 5_000, 35_000, (b) => (seen.push(b), true))).toBe(true);
    expect(seen).toEqual([1, 2, 3]);
    seen.length = 0;
    // A long gap: the first steps + 1 boundaries, then the one of the second write.
    expect(catchUp(o, 5_000, 1_000_000, (b) => (seen.push(b), true))).toBe(true);
    expect(seen).toEqual([1, 2, 3, 4, 100]);
    seen.length = 0;
    expect(catchUp(o, 5_000, 1_000_000, (b) => (seen.push(b), b < 3))).toBe(false);
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe('a write to a new object every 0.4 ms', () => {
  it('keeps detector state bounded by the held first writes, not by the objects', () => {
    const records = distinctWrites(100_000);
    const engine = engineOf();
    engine.pushAll(records);
    // 40 s of stream: 100,000 objects written once, each in every write detector's reach for
    // minutes. Each holds at most 5,000 first writes (and a state for the few objects whose hash
    // met a dropped one's, and in hot-loop and no-op-writes the actor-level roll-up of each of
    // their identities × resource); fleet-storm's 500 families hold at most 20,000 objects, 20,000 clients
    // in their windows and 20,000 clients and actors in their episodes (plus each episode's first
    // `topN` of each); throttling keeps the actors of its idle horizon (under its 10,000 cap).
    const sizes = engine.stateSizes();
    expect(sizes).toEqual({
      'conflict-storm': 5_002,
      'create-conflict-storm': 0,
      'create-storm': 0,
      'fleet-storm': 49_000,
      'hot-loop': 5_004,
      'no-op-writes': 5_008,
      throttling: 9_500,
      'write-fight': 5_002,
    });
    const counters = engine.finish();
    expect(counters.requests).toBe(100_000);
    expect(engine.findings.filter((f) => f.kind !== 'fleet-storm')).toEqual([]);
  });
});

describe('throttling with more actors than it holds', () => {
  /**
   * 60 s: a victim sending 20 requests/s, every 2nd answered 429, a heavy client sending 200/s,
   * and 2,500 requests/s from actors seen for 10 requests each (150,000 of them).
   */
  function records(): RequestRecord[] {
    const out: RequestRecord[] = [];
    const victim = actor('system:serviceaccount:shop:victim', 'victim/v1');
    const heavy = actor('system:serviceaccount:batch:lister', 'lister/v1');
    const pods = object('pods', 'shop', '');
    for (let ms = 0; ms < 60_000; ms++) {
      if (ms % 50 === 0) out.push(rec(T0 + ms, victim, pods, { auditID: `v${ms}`, verb: 'list', code: (ms / 50) % 2 === 0 ? 429 : 200 }));
      if (ms % 5 === 0) out.push(rec(T0 + ms, heavy, pods, { auditID: `h${ms}`, verb: 'list', code: 200 }));
      for (let k = 0; k < 2; k++) {
        const i = ms * 2.5 + k;
        if (k === 1 && ms % 2 === 1) continue;
        out.push(
          rec(T0 + ms, actor(`system:serviceaccount:ns${i % 100}:a-${Math.floor(i / 10)}`, 'a/v1'), object('configmaps', `ns${i % 100}`, `c-${i}`), {
            auditID: `n${i}`,
            verb: 'get',
            code: 200,
          }),
        );
      }
    }
    return out.sort((a, b) => a.ts - b.ts);
  }

  it('holds at most maxActors and still names the victim and its likely cause', () => {
    const all = records();
    const run = (maxActors?: number) => {
      const engine = engineOf(undefined, maxActors === undefined ? {} : { throttling: { maxActors } });
      engine.pushAll(all);
      const peak = engine.stateSizes().throttling;
      engine.finish();
      const found = engine.findings.filter((f) => f.kind === 'throttling');
      return { peak, found: found.map((f) => [f.actors.map((a) => a.username), f.metrics.throttled]) };
    };
    const wide = run(1_000_000);
    const capped = run(1_000);
    expect(wide.found).toEqual([[['system:serviceaccount:shop:victim', 'system:serviceaccount:batch:lister'], 600]]);
    expect(capped.found).toEqual(wide.found);
    expect(wide.peak).toBeGreaterThan(10_000);
    expect(capped.peak).toBeLessThanOrEqual(1_000);
  });
});

describe('holding first writes changes no finding', () => {
  async function recordsOf(lines: Iterable<string>): Promise<RequestRecord[]> {
    const file = join(tempDir(), 'log.jsonl');
    writeFileSync(file, [...lines].join('\n') + '\n');
    const chains = await resolveInputs([file], { stdin: Readable.from([]) });
    return (await readChains(chains)).records;
  }

  function run(records: RequestRecord[], firstWrites?: number): { findings: unknown[]; notes: unknown[] } {
    const engine = engineOf(firstWrites);
    engine.pushAll(records);
    engine.finish();
    return { findings: engine.findings, notes: engine.notes };
  }

  const sources: Array<[string, () => Promise<RequestRecord[]>]> = [
    ['fixtures/sample/audit.log.gz', async () => (await readChains(await resolveInputs(['fixtures/sample/audit.log.gz'], { stdin: Readable.from([]) }))).records],
    ['fixtures/incident/payment-core.log', async () => (await readChains(await resolveInputs(['fixtures/incident/payment-core.log'], { stdin: Readable.from([]) }))).records],
    ...defaultCases()
      .slice(0, 6)
      .map((c): [string, () => Promise<RequestRecord[]>] => [`eval case ${c.name}, seed 2`, () => recordsOf(generateLog(specFor(c, 2)).lines)]),
  ];

  it.each(sources)('%s: the same findings and notes as with state at every first write', async (_name, load) => {
    const records = await load();
    const held = run(records);
    expect(held.findings.length + held.notes.length).toBeGreaterThan(0);
    expect(held).toEqual(run(records, 0));
  });

  it('and with first writes dropped for room, the findings are still found', async () => {
    const records = await recordsOf(generateLog(specFor(defaultCases()[0]!, 1)).lines);
    const all = run(records, 0).findings as Array<{ kind: string; object: unknown }>;
    const tight = run(records, 50).findings as Array<{ kind: string; object: unknown }>;
    expect(tight.map((f) => [f.kind, f.object])).toEqual(all.map((f) => [f.kind, f.object]));
  });
});

describe('numbered creates by many identities in many namespaces', () => {
  it("keeps create-storm's revision look within maxGroups lineages", () => {
    // 50,000 creates of new numbered ConfigMaps (`cfg-<i>-1`), 300 identities × 70 namespaces: 2,100 pairs.
    const records = Array.from({ length: 50_000 }, (_, i) =>
      rec(T0 + i * 0.4, actor(`system:serviceaccount:ns${i % 300}:maker`, 'maker/v1'), object('configmaps', `team-${i % 70}`, `cfg-${i}-1`), {
        verb: 'create',
        code: 201,
        auditID: `n${i}`,
      }),
    );
    const unbounded = engineOf();
    unbounded.pushAll(records);
    // One namespace group and one lineage per pair.
    expect(unbounded.stateSizes()['create-storm']).toBe(4_200);
    const bounded = engineOf(undefined, { 'create-storm': { maxGroups: 1_000 } });
    bounded.pushAll(records);
    expect(bounded.stateSizes()['create-storm']).toBe(2_000);
  });
});
