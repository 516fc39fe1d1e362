/**
 * Every finding's metrics are self-consistent (issue 25, class 9): no share or ratio above 1, no
 * part above its whole, no mean above its peak — on the shapes that broke them.
 */
import { describe, expect, it } from 'vitest';
import { DETECTORS } from '../../src/detectors/registry.js';
import { Engine } from '../../src/engine/engine.js';
import { inconsistencies } from '../../src/eval/consistency.js';
import { digestBody } from '../../src/decoding/body.js';
import type { BodyDigest, RequestRecord } from '../../src/decoding/record.js';
import type { Finding } from '../../src/report/schema.js';
import { actor, object, rec } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const operator = actor('system:serviceaccount:shop-system:shop-operator', 'shop-operator/v0.3.1');
const widget = object('widgets', 'shop', 'w1', 'status', 'example.com', 'v1alpha1');
const body = digestBody({ apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'w1', namespace: 'shop' }, status: { phase: 'Ready' } }) as BodyDigest;

function findingsOf(records: RequestRecord[]): Finding[] {
  const engine = new Engine({
    detectors: DETECTORS.map((detector) => ({ detector, options: detector.meta.optionsSchema.parse({}) })),
    filter: null,
    reorderWindowMs: 2000,
    seriesStepMs: 10_000,
  });
  engine.pushAll(records);
  engine.finish();
  return engine.findings;
}

/**
 * Status updates 4, 5, 6 ms apart for `seconds`: 9 in 10 answered 409 (sent with a stale
 * resourceVersion), every 10th a 200 with the same body and the current resourceVersion, which
 * the server leaves as it is (the object did not change).
 */
function retryWithoutBackoff(seconds: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  let t = T0;
  for (let k = 0; t < T0 + seconds * 1000; k++) {
    const ok = k % 10 === 9;
    out.push(rec(t, operator, widget, { auditID: `u${k}`, level: 'Request', body, resourceVersion: ok ? '500' : '499', code: ok ? 200 : 409, reason: ok ? '' : 'Conflict' }));
    t += 4 + (k % 3);
  }
  return out;
}

/** Updates every `gapMs` exactly, all answered 200, each with the resourceVersion the previous sent. */
function steadyNoOps(n: number, gapMs: number): RequestRecord[] {
  return Array.from({ length: n }, (_, k) => rec(T0 + k * gapMs, operator, widget, { auditID: `s${k}`, resourceVersion: '777' }));
}

/**
 * try62 b12: each of 30 VolumeSnapshots' status is written once; then the controller's watch
 * stalls for 70 s and every object's next status update is sent from the stale copy, 409s, and is
 * retried with per-item backoff (5 ms doubling) until the cache catches up, when it succeeds.
 */
function backoffAfterStaleWatch(): RequestRecord[] {
  const snapshotter = actor('system:serviceaccount:storage:volume-snapshotter', 'snapshot-controller/v6.3.0');
  const out: RequestRecord[] = [];
  for (let n = 0; n < 30; n++) {
    const o = object('volumesnapshots', `db-${n % 3}`, `nightly-${n}`, 'status', 'snapshot.storage.k8s.io');
    out.push(rec(T0 + n * 40, snapshotter, o, { auditID: `w${n}`, resourceVersion: `${100 + n}` }));
    let t = T0 + 20_000 + n * 7;
    for (let gap = 5, k = 0; t < T0 + 90_000; k++, gap *= 2) {
      out.push(rec(t, snapshotter, o, { auditID: `c${n}-${k}`, resourceVersion: `${100 + n}`, code: 409, reason: 'Conflict' }));
      t += gap;
    }
    out.push(rec(t, snapshotter, o, { auditID: `ok${n}`, resourceVersion: `${200 + n}` }));
  }
  return out.sort((a, b) => a.ts - b.ts);
}

describe('finding metrics are self-consistent', () => {
  const cases: Array<[string, () => RequestRecord[], string[]]> = [
    ['retries 4–6 ms apart, 9 in 10 answered 409, the 10th an unchanged 200', () => retryWithoutBackoff(120), ['conflict-storm', 'no-op-writes']],
    ['successive updates sending one resourceVersion, 2 s apart', () => steadyNoOps(50, 2000), ['no-op-writes']],
    [
      'conflicts exactly 5 ms apart for a minute',
      () => retryWithoutBackoff(60).map((r, k) => ({ ...r, ts: T0 + k * 5, receivedTs: T0 + k * 5 })),
      ['conflict-storm', 'no-op-writes'],
    ],
  ];
  // HELD-OUT seed 118 (keda-two-writers-status): 39 writes to 3 objects within 0.8 s made a
  // roll-up whose mean over its span (48.8/s) was above its busiest second (39).
  cases.push([
    '3 objects, 13 writes each within 0.8 s, 11 answered 409',
    () => {
      const out: RequestRecord[] = [];
      for (let n = 0; n < 3; n++) {
        const o = object('scaledobjects', 'apps', `so-${n}`, 'status', 'keda.sh', 'v1alpha1');
        for (let k = 0; k < 13; k++)
          out.push(rec(T0 + 200 + n * 20 + k * 60, operator, o, { auditID: `b${n}-${k}`, code: k % 6 === 5 ? 200 : 409, reason: k % 6 === 5 ? '' : 'Conflict' }));
      }
      return out.sort((a, b) => a.ts - b.ts);
    },
    ['conflict-storm'],
  ]);
  it.each(cases)('%s', (_name, make, kinds) => {
    const findings = findingsOf(make());
    expect([...new Set(findings.map((f) => f.kind))].sort()).toEqual(kinds);
    expect(findings.map((f) => [f.kind, inconsistencies(f)])).toEqual(findings.map((f) => [f.kind, []]));
  });

  // Held first writes given back late reset the roll-up's count of the current second, so its
  // peak writes per second came out below its peak 409s (237 against 240); and the 409 peak of
  // backoff's first retries rated a backoff that works critical.
  it('30 objects backing off together after a stale watch: a low roll-up, its 409 peak within its write peak', () => {
    const findings = findingsOf(backoffAfterStaleWatch());
    expect(
      findings.map((f) => [f.kind, f.severity, f.object, f.metrics.backoff, f.metrics.objects, f.metrics.conflicts, f.metrics.peak409PerSec, f.metrics.peakWritesPerSec]),
    ).toEqual([['conflict-storm', 'low', null, 'exponential', 30, 30 * 14, 240, 240]]);
    expect(inconsistencies(findings[0]!)).toEqual([]);
  });

  it('the no-op count of the retry loop is the unchanged 200s but the last', () => {
    const records = retryWithoutBackoff(120);
    const f = findingsOf(records).find((x) => x.kind === 'no-op-writes')!;
    const oks = records.filter((r) => r.code === 200).length;
    expect([f.metrics.writes, f.metrics.noOpWrites]).toEqual([oks, oks - 1]);
  });

  it('inconsistencies names each problem', () => {
    const f = { metrics: { noOpWrites: 120, writes: 119, noOpShare: 1.0084, meanWritesPerSec: 200.1, peakWritesPerSec: 200, conflictRatio: -0.1 } } as unknown as Finding;
    expect(inconsistencies(f)).toEqual([
      'noOpShare 1.0084 is above 1',
      'conflictRatio -0.1 is negative',
      'noOpWrites 120 is above writes 119',
      'meanWritesPerSec 200.1 is above peakWritesPerSec 200',
    ]);
  });
});
