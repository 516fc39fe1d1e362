import { describe, expect, it } from 'vitest';
import { idLanes, laneA, LANES } from '../../src/decoding/hash.js';
import { Aggregates } from '../../src/engine/aggregates.js';
import type { ObjectRef, RequestRecord } from '../../src/decoding/record.js';
import { actor, object, rec } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const sa = actor('system:serviceaccount:shop:op');

/** Deterministic pseudo-random integers in [0, n) (a 32-bit LCG). */
function lcg(seed: number): (n: number) => number {
  let x = seed >>> 0;
  return (n) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return Math.floor((x / 2 ** 32) * n);
  };
}

/**
 * The top-objects rule written out plainly: objects by key in a `Map` (insertion order is
 * tracking order), half of them dropped when a new one would pass `capacity` (those at or below
 * the median of writes + conflicts, earliest first), counts from zero when tracked again.
 */
function modelTopObjects(records: readonly RequestRecord[], capacity: number): Array<[string, number, number]> {
  const tracked = new Map<string, { writes: number; conflicts: number }>();
  for (const r of records) {
    const conflict = r.code === 409 && r.reason === 'Conflict';
    if (r.object === null || !(r.isWrite || conflict)) continue;
    let e = tracked.get(r.object.key);
    if (e === undefined) {
      if (tracked.size >= capacity) {
        const counts = [...tracked.values()].map((c) => c.writes + c.conflicts).sort((a, b) => a - b);
        const limit = counts[Math.floor(counts.length / 2)]!;
        let dropped = 0;
        for (const [key, c] of tracked) {
          if (dropped < counts.length / 2 && c.writes + c.conflicts <= limit) {
            tracked.delete(key);
            dropped++;
          }
        }
      }
      e = { writes: 0, conflicts: 0 };
      tracked.set(r.object.key, e);
    }
    if (r.isWrite) e.writes++;
    if (conflict) e.conflicts++;
  }
  return [...tracked].filter(([, c]) => c.writes > 0).map(([key, c]) => [key, c.writes, c.conflicts]);
}

/** `n` records over `keys` objects, skewed to the low keys, a mix of reads, writes and 409s; some objects come as a second instance of the same key. */
function records(seed: number, n: number, keys: number): RequestRecord[] {
  const rnd = lcg(seed);
  const out: RequestRecord[] = [];
  const verbs = ['get', 'list', 'update', 'patch', 'create'];
  for (let i = 0; i < n; i++) {
    const k = rnd(2) === 0 ? rnd(keys) : rnd(1 + rnd(keys));
    let o: ObjectRef = object('widgets', `ns${k % 7}`, `w-${k}`, k % 3 === 0 ? 'status' : '', 'example.com');
    // An object interned again (a new instance with the same key): it must share the entry.
    if (rnd(10) === 0) o = { ...o, summaryMemo: undefined };
    const code = rnd(6) === 0 ? 409 : 200;
    out.push(rec(T0 + i, sa, o, { verb: verbs[rnd(verbs.length)]!, code }));
  }
  return out;
}

describe('Aggregates: written objects tracked in slots', () => {
  it('tracks, drops and counts as the plain rule does, through many rounds of forgetting', () => {
    for (const [seed, capacity, keys] of [
      [1, 16, 300],
      [2, 64, 1000],
      [3, 2, 50],
      [4, 1000, 500],
    ] as const) {
      const rs = records(seed, 20_000, keys);
      const a = new Aggregates(capacity);
      for (const r of rs) a.add(r);
      const got = a
        .summarize(1_000_000)
        .topObjects.byWrites.map((o): [string, number, number] => [`example.com/widgets/${o.object.namespace}/${o.object.name}/${o.object.subresource}`, o.writes, o.conflicts]);
      const want = modelTopObjects(rs, capacity).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
      expect(got, `seed ${seed}`).toEqual(want);
      expect(got.length).toBeGreaterThan(0);
    }
  });

  it('two summaries fed the same objects in turns count as each alone (the key hash cached on an object serves both)', () => {
    const rs = records(5, 5000, 200);
    const alone = new Aggregates(32);
    for (const r of rs) alone.add(r);
    const want = alone.summarize(1000);
    for (const o of new Set(rs.map((r) => r.object))) if (o !== null) o.summaryMemo = undefined;
    const x = new Aggregates(32);
    const y = new Aggregates(32);
    for (const r of rs) {
      x.add(r);
      y.add(r);
    }
    expect(x.summarize(1000)).toEqual(want);
    expect(y.summarize(1000)).toEqual(want);
  });
});

describe('laneA', () => {
  it.each(['', 'a', 'ab', 'pods/shop/web-0/status', 'events/default/web.17d3c8a1b2c3d4e5', 'ünïcødé/名前/🙂'])('%j is lane A of idLanes', (s) => {
    idLanes(s);
    expect(laneA(s)).toBe(LANES[0]);
  });
});
