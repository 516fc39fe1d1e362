import { describe, expect, it } from 'vitest';
import { Aggregates, cmp, firstRows } from '../../src/engine/aggregates.js';
import { Allowlist, DEFAULT_ALLOWLIST } from '../../src/engine/allowlist.js';
import { conflictStormOptions } from '../../src/detectors/conflict-storm.js';
import type { Detector } from '../../src/detectors/types.js';
import { DETECTORS } from '../../src/detectors/registry.js';
import { AuditIdDedupe, hash53 } from '../../src/engine/dedupe.js';
import { idLanes, LANES } from '../../src/decoding/hash.js';
import { Engine } from '../../src/engine/engine.js';
import { parseTimestamp } from '../../src/decoding/time.js';
import { compileFilter } from '../../src/engine/filters.js';
import { mergeByTime } from '../../src/engine/merge.js';
import { ReorderQueue } from '../../src/engine/reorder.js';
import { BoundedSample } from '../../src/engine/sample.js';
import { TimeSeries } from '../../src/engine/series.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { groupFindings } from '../../src/report/group.js';
import { actor, object, rec } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const alice = actor('alice', 'kubectl/v1.31.0 (linux/amd64) kubernetes/9edcffc');
const sa = actor('system:serviceaccount:shop:op');
const pod = object('pods', 'shop', 'web-0');
const podStatus = object('pods', 'shop', 'web-0', 'status');
const deploy = object('deployments', 'prod', 'api', '', 'apps');

describe('ReorderQueue', () => {
  it('releases in time order within the window and clamps records that come too late', () => {
    const out: Array<[string, number]> = [];
    const q = new ReorderQueue(2000, (r) => out.push([r.auditID, r.ts - T0]));
    for (const [id, t] of [
      ['a', 5000],
      ['b', 3500],
      ['c', 4000],
      ['d', 10_000],
      ['e', 1000],
      ['f', 9000],
    ] as const) {
      q.push(rec(T0 + t, alice, pod, { auditID: id, latencyMs: 0 }));
    }
    q.flush();
    // d at 10 s releases everything ≤ 8 s (b, c, a); e (1 s) is then too late and is fed at the
    // clock (5 s); f (9 s) is still within the window and is placed before d.
    expect(out).toEqual([
      ['b', 3500],
      ['c', 4000],
      ['a', 5000],
      ['e', 5000],
      ['f', 9000],
      ['d', 10_000],
    ]);
    expect(q.late).toBe(1);
  });

  it('a newest-first log: placed exactly while it fits in maxHeld, then the oldest held goes and older ones are late', () => {
    const out: string[] = [];
    const q = new ReorderQueue(2000, (r) => out.push(`${r.auditID}@${r.ts - T0}`), 4);
    // 6 records 10 s apart, newest first: stream time never advances, so nothing leaves by the window.
    for (let k = 5; k >= 0; k--) q.push(rec(T0 + k * 10_000, alice, pod, { auditID: `r${k}`, latencyMs: 0 }));
    q.flush();
    // r5..r2 fill the queue (r2 at its head); r1 releases r2 and is then late, as is r0: both are
    // fed at the clock (20 s), so time never goes back.
    expect(out).toEqual(['r2@20000', 'r1@20000', 'r0@20000', 'r3@30000', 'r4@40000', 'r5@50000']);
    expect(q.late).toBe(2);
    const exact: string[] = [];
    const big = new ReorderQueue(2000, (r) => exact.push(r.auditID));
    for (let k = 2999; k >= 0; k--) big.push(rec(T0 + k * 10, alice, pod, { auditID: `r${k}`, latencyMs: 0 }));
    big.flush();
    expect([exact.length, exact[0], exact[2999], exact.every((id, k) => id === `r${k}`), big.late]).toEqual([3000, 'r0', 'r2999', true, 0]);
  });

  it('keeps (ts, arrival) order through its ring wrapping around and growing, as a sorted list does', () => {
    // 20,000 records 1 ms apart, each up to 3 s late (seeded), in a 2 s window: about 2,000 are
    // held at once (the ring starts at 1,024), releases wrap it round many times, and some records
    // come too late. The model: a plain array kept sorted by insertion, drained from the front.
    let seed = 7;
    const jitter = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % 3000;
    };
    const input = Array.from({ length: 20_000 }, (_, k) => [`r${k}`, k - (k % 7 === 0 ? jitter() : jitter() % 40)] as const);
    const out: Array<[string, number]> = [];
    const q = new ReorderQueue(2000, (r) => out.push([r.auditID, r.ts - T0]));
    const want: Array<[string, number]> = [];
    const held: Array<[string, number]> = [];
    let clock = -Infinity;
    let newest = -Infinity;
    let late = 0;
    for (const [id, t] of input) {
      q.push(rec(T0 + t, alice, pod, { auditID: id, latencyMs: 0 }));
      if (t < clock) {
        late++;
        want.push([id, clock]);
        continue;
      }
      let i = held.length;
      while (i > 0 && held[i - 1]![1] > t) i--;
      held.splice(i, 0, [id, t]);
      if (t > newest) {
        newest = t;
        while (held.length > 0 && held[0]![1] <= newest - 2000) {
          const x = held.shift()!;
          clock = x[1];
          want.push(x);
        }
      }
    }
    q.flush();
    want.push(...held);
    expect(late).toBeGreaterThan(100);
    expect(q.late).toBe(late);
    expect(out.length).toBe(20_000);
    expect(out).toEqual(want);
  });
});

describe('AuditIdDedupe', () => {
  it('remembers the last history … 2·history auditIDs, however far apart in time', () => {
    const d = new AuditIdDedupe(3);
    expect(['a', 'a', 'b', 'c'].map((id) => d.seen(id, 1))).toEqual([false, true, false, false]);
    // a, b, c fill a generation; d, e, f the next; then a is forgotten.
    expect(['d', 'a', 'e', 'f', 'b', 'g', 'a'].map((id) => d.seen(id, 1))).toEqual([false, true, false, false, false, false, false]);
  });

  it('keys on auditID and stage time: a reused Audit-ID header on another request is not a copy', () => {
    const d = new AuditIdDedupe(10);
    expect([d.seen('x', 1000.001), d.seen('x', 1000.002), d.seen('x', 1000.001)]).toEqual([false, false, true]);
  });

  it("matches a legacy line's nanoseconds with the JSON event's microseconds of the same request", () => {
    // kube-apiserver prints the legacy line's time as RFC3339Nano and cuts MicroTime to µs: a
    // remainder of 500 ns or more must not make the copy another request.
    const d = new AuditIdDedupe(10);
    for (const ns of ['000', '499', '500', '999']) {
      const id = `legacy-${ns}`;
      expect(d.seen(id, parseTimestamp('2026-07-01T10:00:00.250000Z'), parseTimestamp('2026-07-01T10:00:00.123456Z'))).toBe(false);
      const t = parseTimestamp(`2026-07-01T10:00:00.123456${ns}Z`);
      expect([ns, d.seen(id, t, t)]).toEqual([ns, true]);
    }
  });

  it('matches a copy that carries only one of the two times (legacy text, GKE)', () => {
    const d = new AuditIdDedupe(10);
    expect(d.seen('x', 2000.5, 1990.25)).toBe(false);
    expect(d.seen('x', 1990.25, 1990.25)).toBe(true); // legacy: received time only
    expect(d.seen('x', 2000.5, 2000.5)).toBe(true); // GKE: completion time only
    expect(d.seen('x', 3000, 2999)).toBe(false);
  });

  it('tells 100,000 distinct UUID-like ids apart (no hash collisions) and grows past its first table', () => {
    const d = new AuditIdDedupe(1_000_000);
    let dup = 0;
    for (let i = 0; i < 100_000; i++) if (d.seen(`6f1b0c8e-2f7d-4a43-9a55-${i.toString(16).padStart(12, '0')}`, T0)) dup++;
    expect(dup).toBe(0);
    expect(d.seen('6f1b0c8e-2f7d-4a43-9a55-000000000000', T0)).toBe(true);
    expect(hash53('x')).not.toBe(hash53('y'));
  });

  it('finds every copy of a burst in one millisecond, past what a page of the table takes', () => {
    // 100,000 requests in one millisecond: a page takes 48 keys, the others go to their hash homes.
    const d = new AuditIdDedupe(200_000);
    const id = (i: number): string => `burst-${i}`;
    let dup = 0;
    for (let i = 0; i < 100_000; i++) if (d.seen(id(i), T0 + 0.5, T0 + 0.25)) dup++;
    expect(dup).toBe(0);
    // Every tenth again, with both times, then with the received time only (a legacy copy).
    for (let i = 0; i < 100_000; i += 10) if (d.seen(id(i), T0 + 0.5, T0 + 0.25)) dup++;
    for (let i = 5; i < 100_000; i += 10) if (d.seen(id(i), T0 + 0.25, T0 + 0.25)) dup++;
    expect(dup).toBe(20_000);
    expect(d.seen(id(100_000), T0 + 0.5, T0 + 0.25)).toBe(false);
  });

  it('finds copies that come back in reverse time order after the table wrapped around its pages and turned a generation', () => {
    // 1,500 requests 1 ms apart in tables of 4,096 slots (64 pages of 64: they wrap every 64 ms),
    // then the first 1,000 again, latest first: the first generation (requests 0-999) is the
    // previous one, the second (1,000-1,499) the current one; each copy is found in the one that
    // spans its time, and a request never seen in between is not taken for one.
    const d = new AuditIdDedupe(1_000);
    const req = (i: number): [string, number, number] => [`wrap-${i}`, T0 + i, T0 + i - 0.3];
    let dup = 0;
    for (let i = 0; i < 1_500; i++) if (d.seen(...req(i))) dup++;
    expect(dup).toBe(0);
    const again: boolean[] = [];
    for (let i = 999; i >= 0; i--) again.push(d.seen(...req(i)));
    expect(again.filter((x) => !x)).toEqual([]);
    expect(d.seen('wrap-new', T0 + 500, T0 + 499.7)).toBe(false);
    expect(d.seen('wrap-1200', T0 + 1200, T0 + 1199.7)).toBe(true);
  });
});

describe('BoundedSample', () => {
  it('keeps an evenly spaced subsequence and exact percentiles while under capacity', () => {
    const s = new BoundedSample(4);
    for (const v of [5, 1, 3]) s.add(v);
    expect([s.percentile(50), s.percentile(90), s.size]).toEqual([3, 5, 3]);
    for (let v = 0; v < 100; v++) s.add(v);
    expect(s.count).toBe(103);
    expect(s.size).toBeLessThan(4);
  });
});

describe('mergeByTime', () => {
  it('merges several time-ordered sources into one ordered stream', async () => {
    async function* src(times: number[][]): AsyncIterable<RequestRecord[]> {
      for (const batch of times) yield batch.map((t) => rec(T0 + t, alice, pod, { auditID: `t${t}`, latencyMs: 0 }));
    }
    const out: string[] = [];
    for await (const b of mergeByTime([src([[1, 4], [], [9]]), src([[2, 3, 10]]), src([[0], [5, 6]])])) {
      for (const r of b) out.push(r.auditID);
    }
    expect(out).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't9', 't10']);
  });
});

describe('compileFilter', () => {
  const records = [
    rec(T0, alice, pod, { verb: 'get' }),
    rec(T0 + 1000, sa, podStatus, { verb: 'patch' }),
    rec(T0 + 2000, sa, deploy, { verb: 'update' }),
    rec(T0 + 3000, alice, null, { verb: 'get' }),
  ];
  const ids = (spec: Parameters<typeof compileFilter>[0]): string[] => {
    const f = compileFilter(spec);
    return records.filter((r) => f === null || f(r)).map((r) => `${r.verb}:${r.object?.resource ?? '-'}`);
  };
  const none = { namespaces: [], users: [], resources: [], verbs: [] };

  it.each([
    ['no filter', none, ['get:pods', 'patch:pods', 'update:deployments', 'get:-']],
    ['namespace', { ...none, namespaces: ['shop'] }, ['get:pods', 'patch:pods']],
    ['user glob', { ...none, users: ['system:serviceaccount:shop:*'] }, ['patch:pods', 'update:deployments']],
    ['resource', { ...none, resources: ['pods'] }, ['get:pods', 'patch:pods']],
    ['resource/subresource', { ...none, resources: ['pods/status'] }, ['patch:pods']],
    ['resource.group', { ...none, resources: ['deployments.apps'] }, ['update:deployments']],
    ['verb', { ...none, verbs: ['get'] }, ['get:pods', 'get:-']],
    ['since/until', { ...none, sinceMs: T0 + 500, untilMs: T0 + 2500 }, ['patch:pods', 'update:deployments']],
  ] as const)('%s', (_n, spec, expected) => {
    expect(ids(spec)).toEqual(expected);
  });
});

describe('Aggregates', () => {
  it('counts by verb × resource × code, actors, objects and latency', () => {
    const a = new Aggregates();
    a.add(rec(T0, alice, pod, { verb: 'get', latencyMs: 4 }));
    a.add(rec(T0, alice, pod, { verb: 'get', latencyMs: 12 }));
    a.add(rec(T0, sa, podStatus, { verb: 'patch', code: 409, latencyMs: 8 }));
    a.add(rec(T0, sa, podStatus, { verb: 'patch', code: 429, latencyMs: 1 }));
    a.add(rec(T0, sa, deploy, { verb: 'create', code: 409, reason: 'AlreadyExists', latencyMs: 2 }));
    a.add(rec(T0, alice, pod, { verb: 'watch', latencyMs: -1 }));
    const s = a.summarize(10);
    expect(s.totals).toEqual({ requests: 6, writes: 3, conflicts: 1, alreadyExists: 1, throttled: 1 });
    expect(s.requestsByVerbResourceCode).toEqual([
      { verb: 'get', resource: 'pods', code: 200, count: 2 },
      { verb: 'create', resource: 'deployments.apps', code: 409, count: 1 },
      { verb: 'patch', resource: 'pods/status', code: 409, count: 1 },
      { verb: 'patch', resource: 'pods/status', code: 429, count: 1 },
      { verb: 'watch', resource: 'pods', code: 200, count: 1 },
    ]);
    expect(s.topActors.byConflicts).toEqual([
      {
        username: 'system:serviceaccount:shop:op',
        userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
        requests: 3,
        writes: 3,
        conflicts: 1,
        alreadyExists: 1,
        throttled: 1,
      },
    ]);
    expect(s.topObjects.byWrites.map((o) => [o.object.resource, o.object.subresource, o.writes, o.conflicts])).toEqual([
      ['pods', 'status', 2, 1],
      ['deployments', '', 1, 0],
    ]);
    // The watch (long-running) is not in latency. Percentiles are hdr's highest equivalent
    // value (2 significant digits kept) shown to 3 digits, never above the exact max.
    expect(s.latency).toEqual([
      { verb: 'get', resource: 'pods', count: 2, p50: 4.01, p90: 12, p99: 12, max: 12 },
      { verb: 'patch', resource: 'pods/status', count: 2, p50: 1, p90: 8, p99: 8, max: 8 },
      { verb: 'create', resource: 'deployments.apps', count: 1, p50: 2, p90: 2, p99: 2, max: 2 },
    ]);
  });
});

describe('Engine', () => {
  it('counts each auditID once, applies filters, and feeds the series', () => {
    const e = new Engine({ detectors: [], filter: compileFilter({ namespaces: ['shop'], users: [], resources: [], verbs: [] }), reorderWindowMs: 2000, seriesStepMs: 10_000 });
    e.push(rec(T0, sa, podStatus, { auditID: 'a', code: 409 }));
    e.push(rec(T0, sa, podStatus, { auditID: 'a', code: 409 }));
    e.push(rec(T0 + 12_000, sa, podStatus, { auditID: 'b' }));
    e.push(rec(T0 + 1000, sa, deploy, { auditID: 'c' }));
    const c = e.finish();
    expect(c).toEqual({ requests: 2, filtered: 1, duplicates: 1, late: 0, nonResource: 0, firstTs: T0 + 3, lastTs: T0 + 12_003 });
    // The series is cluster-wide: the filtered request (c) counts there too.
    expect(e.series.entries()).toEqual([
      [T0, { requests: 2, writes: 2, conflicts: 1, throttled: 0 }],
      [T0 + 10_000, { requests: 1, writes: 1, conflicts: 0, throttled: 0 }],
    ]);
    expect(new TimeSeries(10_000).sum(0, 1)).toEqual({ requests: 0, writes: 0, conflicts: 0, throttled: 0 });
  });
});

describe('Engine: overlapping input', () => {
  it('a copy that arrives minutes later is a duplicate, not a late request', () => {
    const e = new Engine({ detectors: [], filter: null, reorderWindowMs: 2000, seriesStepMs: 10_000 });
    const first = Array.from({ length: 5 }, (_, i) => rec(T0 + i * 1000, sa, podStatus, { auditID: `r${i}` }));
    for (const r of first) e.push(r);
    for (let i = 0; i < 300; i++) e.push(rec(T0 + 10_000 + i * 1000, sa, podStatus, { auditID: `later${i}` }));
    for (const r of first) e.push(r); // the overlap starts over
    expect(e.finish()).toMatchObject({ requests: 305, duplicates: 5, late: 0 });
  });

  it('pushAll counts and de-duplicates as push does, within a batch, across batches and past a generation', () => {
    // 1,300 requests in batches of 700 and 600 (more than one `prepare` each), with copies inside a
    // batch, across the two and after the history's generation turned (history 400).
    const reqs: RequestRecord[] = [];
    for (let i = 0; i < 1000; i++) reqs.push(rec(T0 + i * 10, sa, podStatus, { auditID: `q${i}`, receivedTs: T0 + i * 10 - (i % 3) }));
    for (let i = 0; i < 300; i++) reqs.push(reqs[(i * 7) % 1000]!);
    reqs.splice(500, 0, reqs[499]!, reqs[10]!);
    const opts = { detectors: [], filter: null, reorderWindowMs: 2000, seriesStepMs: 10_000, dedupeHistory: 400 };
    const one = new Engine(opts);
    for (const r of reqs) one.push(r);
    const all = new Engine(opts);
    all.pushAll(reqs.slice(0, 700));
    all.pushAll(reqs.slice(700));
    const want = one.finish();
    expect(all.finish()).toEqual(want);
    expect(all.aggregates.summarize(5)).toEqual(one.aggregates.summarize(5));
    expect([want.requests, want.duplicates]).toEqual([1129, 173]);
  });

  it('counts late requests in the summaries and duplicates in neither', () => {
    // Requests out of order (some later than the reorder window), copies, writes and 409s on 60
    // objects by 7 actors.
    const reqs: RequestRecord[] = [];
    for (let i = 0; i < 900; i++) {
      const late = i % 50 === 49 ? -9000 : 0;
      reqs.push(
        rec(T0 + i * 10 + late, actor(`u${i % 7}`, 'op/v1'), object('widgets', 'shop', `w${i % 60}`, i % 4 === 0 ? 'status' : ''), {
          auditID: `s${i}`,
          verb: i % 5 === 0 ? 'get' : 'update',
          code: i % 9 === 0 ? 409 : 200,
          reason: i % 9 === 0 ? 'Conflict' : '',
          latencyMs: (i % 13) * 1.5,
        }),
      );
    }
    for (let i = 0; i < 40; i++) reqs.push(reqs[i * 11]!);
    const opts = { detectors: [], filter: null, reorderWindowMs: 2000, seriesStepMs: 10_000 };
    const engine = new Engine(opts);
    engine.pushAll(reqs);
    const counters = engine.finish();
    // 18 requests 9 s behind; the first 4 of them come before anything was released, so are not late.
    expect([counters.requests, counters.duplicates, counters.late]).toEqual([900, 40, 14]);
    expect(engine.aggregates.summarize(1).totals).toEqual({ requests: 900, writes: 720, conflicts: 100, alreadyExists: 0, throttled: 0 });
  });
});

describe('Allowlist', () => {
  it('default rules exclude heartbeats, leader election, kubelet node status and events, and count them', () => {
    const allow = new Allowlist(DEFAULT_ALLOWLIST);
    const kubelet = actor('system:node:n1', 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
    const kcmLE = actor('system:kube-controller-manager', 'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/leader-election');
    const cases: Array<[string, RequestRecord, boolean]> = [
      ['node lease', rec(T0, kubelet, object('leases', 'kube-node-lease', 'n1', '', 'coordination.k8s.io')), true],
      ['leader election lease', rec(T0, kcmLE, object('leases', 'kube-system', 'kube-controller-manager', '', 'coordination.k8s.io')), true],
      ['kubelet node status', rec(T0, kubelet, object('nodes', '', 'n1', 'status'), { verb: 'patch' }), true],
      ['event', rec(T0, sa, object('events', 'shop', 'x.1'), { verb: 'create' }), true],
      ['events.k8s.io event', rec(T0, sa, object('events', 'shop', 'x.2', '', 'events.k8s.io')), true],
      // Scoped to hot-loop and no-op-writes: matched here, kept for the other detectors (below).
      ['kubelet pod status', rec(T0, kubelet, object('pods', 'shop', 'web-0', 'status'), { verb: 'patch' }), true],
      ['operator lease elsewhere', rec(T0, sa, object('leases', 'shop', 'lock', '', 'coordination.k8s.io')), false],
      ['node status by someone else', rec(T0, sa, object('nodes', '', 'n1', 'status')), false],
      ['non-resource', rec(T0, kubelet, null, { verb: 'get' }), false],
    ];
    expect(cases.map(([name, r]) => [name, allow.excludes(r)])).toEqual(cases.map(([name, , want]) => [name, want]));
    expect(allow.excluded()).toEqual([
      { name: 'node-leases', requests: 1, writes: 1 },
      { name: 'leader-election', requests: 1, writes: 1 },
      { name: 'kubelet-node-status', requests: 1, writes: 1 },
      { name: 'events', requests: 2, writes: 2 },
      { name: 'kubelet-pod-status', requests: 1, writes: 1 },
    ]);
  });

  it('matches the same after its caches were emptied (120,000 distinct objects, 60,000 actors)', () => {
    const allow = new Allowlist(DEFAULT_ALLOWLIST);
    let excluded = 0;
    for (let k = 0; k < 120_000; k++) {
      // Fresh instances each time: the caches fill past their limit and are emptied.
      const kubelet = { ...actor(`system:node:n${k % 60_000}`, 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f') };
      const lease = { ...object('leases', 'kube-node-lease', `n${k}`, '', 'coordination.k8s.io') };
      const other = { ...object('leases', `shop-${k}`, `n${k}`, '', 'coordination.k8s.io') }; // 120,000 namespaces
      if (allow.excludes(rec(T0, kubelet, lease))) excluded++;
      if (allow.excludes(rec(T0, kubelet, other))) excluded++;
    }
    expect(excluded).toBe(120_000);
    expect(allow.excluded().filter((x) => x.requests > 0)).toEqual([{ name: 'node-leases', requests: 120_000, writes: 120_000 }]);
  });

  it('two kinds with one label (resource "a.b" of the core group, resource "a" of group "b") never share a decision', () => {
    const allow = new Allowlist([{ name: 'a', description: '', users: [], userAgents: [], namespaces: ['x-*'], resources: ['a'], verbs: [], detectors: [] }]);
    const dotted = object('a.b', 'x-1', 'n');
    const grouped = object('a', 'x-1', 'n', '', 'b');
    expect([dotted.label, grouped.label]).toEqual(['a.b', 'a.b']);
    const got = [dotted, grouped, dotted, grouped, object('a', 'y-1', 'n', '', 'b')].map((o) => allow.excludes(rec(T0, sa, o)));
    expect(got).toEqual([false, true, false, true, false]);
    const f = compileFilter({ namespaces: [], users: [], resources: ['a'], verbs: [] })!;
    expect([dotted, grouped, dotted, grouped].map((o) => f(rec(T0, sa, o)))).toEqual([false, true, false, true]);
  });

  it('a rule scoped to some detectors keeps the record from those only', () => {
    const seen: string[] = [];
    const spy = (id: string) =>
      ({
        meta: { id, description: 'records what it sees', optionsSchema: conflictStormOptions },
        create: () => ({ onRecord: (r: RequestRecord) => seen.push(`${id}:${r.auditID}`), advance: () => {}, finish: () => {} }),
      }) as unknown as Detector;
    const e = new Engine({
      detectors: [
        { detector: spy('hot-loop'), options: {} },
        { detector: spy('fleet-storm'), options: {} },
      ],
      filter: null,
      allowlist: new Allowlist(DEFAULT_ALLOWLIST),
      reorderWindowMs: 0,
      seriesStepMs: 10_000,
    });
    const kubelet = actor('system:node:n1', 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
    e.push(rec(T0, kubelet, object('pods', 'shop', 'web-0', 'status'), { auditID: 'p', verb: 'patch', code: 409 }));
    e.push(rec(T0 + 1, kubelet, object('leases', 'kube-node-lease', 'n1', '', 'coordination.k8s.io'), { auditID: 'l' }));
    e.finish();
    expect(seen).toEqual(['fleet-storm:p']);
  });

  it('rules naming no detector exempt periodic writers from write-rate detectors only, never from 409/429 ones', () => {
    const allow = new Allowlist(DEFAULT_ALLOWLIST);
    const everyRule = (1 << DEFAULT_ALLOWLIST.length) - 1;
    const scoped = DEFAULT_ALLOWLIST.map((r, i) => (r.detectors.length > 0 ? 1 << i : 0)).reduce((a, b) => a | b, 0);
    const table = DETECTORS.map((d) => [d.meta.id, d.meta.judges, allow.scopeFor(d.meta.id, d.meta.judges) & ~scoped]);
    expect(table).toEqual([
      ['conflict-storm', 'errors', 0],
      ['create-conflict-storm', 'errors', 0],
      ['create-storm', 'write-rate', everyRule & ~scoped],
      ['fleet-storm', 'errors', 0],
      ['hot-loop', 'write-rate', everyRule & ~scoped],
      ['no-op-writes', 'write-rate', everyRule & ~scoped],
      ['throttling', 'errors', 0],
      ['write-fight', 'write-rate', everyRule & ~scoped],
    ]);
  });

  // kubernetes#46851: kubelets' node status PATCHes answered 409 across the fleet. 240 nodes, each
  // patching its own nodes/status every 10 s for 3 minutes (allowlisted: kubelet-node-status).
  // Every 2nd PATCH of the fleet is every PATCH of the 120 even nodes: each of them is stuck (18 of
  // 18 answered 409, kubernetes#58002), a conflict storm the report folds into the fleet storm.
  it.each([
    ['every 2nd PATCH answered 409', 2, ['fleet-storm'], 120],
    ['every PATCH answered 200', 0, [], 0],
  ])('allowlisted kubelet node status, %s', (_name, every, kinds, stuckNodes) => {
    const e = new Engine({
      detectors: DETECTORS.map((detector) => ({ detector, options: detector.meta.optionsSchema.parse({}) })),
      filter: null,
      allowlist: new Allowlist(DEFAULT_ALLOWLIST),
      reorderWindowMs: 0,
      seriesStepMs: 10_000,
    });
    let n = 0;
    let conflicts = 0;
    for (let t = 0; t < 180_000; t += 10_000) {
      for (let node = 0; node < 240; node++) {
        const conflict = every > 0 && n % every === 0;
        if (conflict) conflicts++;
        const kubelet = actor(`system:node:node-${node}`, 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
        e.push(
          rec(T0 + t + node * 20, kubelet, object('nodes', '', `node-${node}`, 'status'), {
            auditID: `k${n++}`,
            verb: 'patch',
            code: conflict ? 409 : 200,
            reason: conflict ? 'Conflict' : '',
          }),
        );
      }
    }
    e.finish();
    const stuck = e.findings.filter((f) => f.kind === 'conflict-storm');
    expect([stuck.length, new Set(stuck.map((f) => f.metrics.conflicts)).size, stuck[0]?.metrics.conflicts]).toEqual([
      stuckNodes,
      stuckNodes > 0 ? 1 : 0,
      stuckNodes > 0 ? 18 : undefined,
    ]);
    const reported = groupFindings(e.findings, 5);
    expect(reported.map((f) => f.kind)).toEqual(kinds);
    if (kinds.length > 0) {
      expect([reported[0]!.metrics.family, reported[0]!.metrics.conflicts, reported[0]!.metrics.memberFindings]).toEqual(['system:node:*', conflicts, stuckNodes]);
    }
  });

  it('an allowlisted writer: its 409 storm is a finding; its answers well alone give no detector state', () => {
    const make = () =>
      new Engine({
        detectors: DETECTORS.map((detector) => ({ detector, options: detector.meta.optionsSchema.parse({}) })),
        filter: null,
        allowlist: new Allowlist(DEFAULT_ALLOWLIST),
        reorderWindowMs: 0,
        seriesStepMs: 10_000,
      });
    const candidate = actor('system:serviceaccount:shop:shop-operator', 'shop-operator/v1.2.0 (linux/amd64) kubernetes/abc/leader-election');
    const lock = object('leases', 'shop', 'shop-operator-lock', '', 'coordination.k8s.io');
    // 2 minutes of renewals every 2 s, all answered well: periodic, exempt, no state anywhere.
    const quiet = make();
    for (let t = 0; t < 120_000; t += 2000) quiet.push(rec(T0 + t, candidate, lock, { auditID: `q${t}`, verb: 'update' }));
    const sizes = quiet.stateSizes();
    quiet.finish();
    expect([quiet.findings, Object.values(sizes).every((n) => n === 0)]).toEqual([[], true]);
    // The same lock updated every 20 ms, 9 in 10 answered 409: a conflict storm, allowlisted or not.
    const storm = make();
    for (let k = 0; k < 6000; k++)
      storm.push(rec(T0 + k * 20, candidate, lock, { auditID: `s${k}`, verb: 'update', code: k % 10 === 9 ? 200 : 409, reason: k % 10 === 9 ? '' : 'Conflict' }));
    storm.finish();
    expect(storm.findings.map((f) => [f.kind, f.metrics.conflicts])).toEqual([['conflict-storm', 5400]]);
  });

  it('allowlisted traffic is counted but never reaches detectors', () => {
    const seen: string[] = [];
    const spy = {
      meta: { id: 'spy', description: 'records what it sees', optionsSchema: conflictStormOptions },
      create: () => ({ onRecord: (r: RequestRecord) => seen.push(r.auditID), advance: () => {}, finish: () => {} }),
    } as unknown as Detector;
    const e = new Engine({
      detectors: [{ detector: spy, options: {} }],
      filter: null,
      allowlist: new Allowlist([
        { name: 'mine', description: '', users: ['system:serviceaccount:shop:*'], userAgents: [], namespaces: [], resources: [], verbs: ['update'], detectors: [] },
      ]),
      reorderWindowMs: 0,
      seriesStepMs: 10_000,
    });
    e.push(rec(T0, sa, deploy, { auditID: 'allowed', verb: 'update' }));
    e.push(rec(T0 + 1, sa, deploy, { auditID: 'judged', verb: 'patch' }));
    e.push(rec(T0 + 2, alice, deploy, { auditID: 'other', verb: 'update' }));
    expect(e.finish().requests).toBe(3);
    expect(seen).toEqual(['judged', 'other']);
    expect(e.aggregates.summarize(5).totals.writes).toBe(3);
  });
});

describe('firstRows', () => {
  it('gives the first k rows of the sorted order, ties broken by the comparator', () => {
    // Rows with many ties on the count (as the benchmark's 2,000 leases, each written as often).
    let seed = 7;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const order = (x: { n: number; key: string }, y: { n: number; key: string }): number => y.n - x.n || cmp(x.key, y.key);
    for (const size of [0, 1, 5, 10, 11, 200, 3000]) {
      const rows = Array.from({ length: size }, (_, i) => ({ n: rand(8), key: `k-${rand(1000)}-${i}` }));
      for (const k of [0, 1, 3, 10, 50]) {
        expect(firstRows(rows, k, order)).toEqual([...rows].sort(order).slice(0, k));
      }
    }
    // Rows in ascending order: every row displaces the worst kept one.
    const ascending = Array.from({ length: 100 }, (_, i) => ({ n: i, key: `k${i}` }));
    expect(firstRows(ascending, 3, order).map((r) => r.n)).toEqual([99, 98, 97]);
  });
});

describe('idLanes (the auditID hash de-duplication keys on)', () => {
  it('tells near strings apart, two code units a step with the odd one last, and keys a request alike with its lanes given or not', () => {
    const lanesOf = (s: string): [number, number] => {
      idLanes(s);
      return [LANES[0]!, LANES[1]!];
    };
    // (The native scanner's lanes are compared with these through whole answers and records:
    // native.test.ts decodes runs with and without the scanner, parallel.test.ts reads files both ways.)
    const seen = new Set<string>();
    for (const s of [
      '',
      'a',
      'b',
      'ab',
      'ba',
      'abc',
      'abd',
      'a\u0000',
      '\u0000a',
      'é',
      'e\u0301',
      '6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21',
      '6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e22',
    ]) {
      seen.add(lanesOf(s).join());
    }
    expect(seen.size).toBe(13);
    // A request whose record carries its lanes is keyed as one whose record does not.
    const d = new AuditIdDedupe(10);
    const [idLaneA, idLaneB] = lanesOf('x');
    expect(d.seen('x', 1000)).toBe(false);
    expect(d.seenRequest({ auditID: 'x', ts: 1000, receivedTs: 1000, idLaneA, idLaneB })).toBe(true);
  });
});
