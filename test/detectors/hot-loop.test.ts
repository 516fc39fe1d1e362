import { describe, expect, it } from 'vitest';
import { hotLoop } from '../../src/detectors/hot-loop.js';
import type { Detector } from '../../src/detectors/types.js';
import type { RequestRecord } from '../../src/parser/record.js';
import { actor, object, rec, runDetector } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const detector = hotLoop as unknown as Detector;
const operator = actor('system:serviceaccount:shop-system:shop-operator');
const widget = object('widgets', 'shop', 'w1', 'status', 'example.com', 'v1alpha1');
const widgetMain = object('widgets', 'shop', 'w1', '', 'example.com', 'v1alpha1');
const kubelet = actor('system:node:node-1', 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
const lease = object('leases', 'kube-node-lease', 'node-1', '', 'coordination.k8s.io');
const kcm = 'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f';
const deployCtl = actor('system:serviceaccount:kube-system:deployment-controller', `${kcm}/system:serviceaccount:kube-system:deployment-controller`);
const rsCtl = actor('system:serviceaccount:kube-system:replicaset-controller', `${kcm}/system:serviceaccount:kube-system:replicaset-controller`);
const epsCtl = actor('system:serviceaccount:kube-system:endpointslice-controller', `${kcm}/system:serviceaccount:kube-system:endpointslice-controller`);

/**
 * A 300-replica rollout over 10 min: each second (jittered by up to 0.9 s) deployment-controller
 * updates the Deployment's status, replicaset-controller both ReplicaSets' status and
 * endpointslice-controller the EndpointSlice, every write a change (resourceVersion moves);
 * every 7th Deployment status update and every 5th EndpointSlice update also gets a 409.
 */
function bigRollout(): RequestRecord[] {
  const out: RequestRecord[] = [];
  let rv = 1000;
  for (let i = 0; i < 600; i++) {
    const t = T0 + i * 1000 + ((i * 337) % 900);
    out.push(rec(t, deployCtl, object('deployments', 'shop', 'web', 'status', 'apps'), { resourceVersion: String(rv++) }));
    if (i % 7 === 0) out.push(rec(t + 2, deployCtl, object('deployments', 'shop', 'web', 'status', 'apps'), { resourceVersion: String(rv - 2), code: 409 }));
    for (const rs of ['web-new', 'web-old']) out.push(rec(t + 10, rsCtl, object('replicasets', 'shop', rs, 'status', 'apps'), { resourceVersion: String(rv++) }));
    out.push(rec(t + 30, epsCtl, object('endpointslices', 'shop', 'web-abc', '', 'discovery.k8s.io'), { resourceVersion: String(rv++) }));
    if (i % 5 === 0) out.push(rec(t + 31, epsCtl, object('endpointslices', 'shop', 'web-abc', '', 'discovery.k8s.io'), { resourceVersion: String(rv - 2), code: 409 }));
  }
  return out.sort((a, b) => a.ts - b.ts);
}

/** `count` writes of `a` to `o` every `periodMs` from `startMs`. */
function loop(startMs: number, count: number, periodMs: number, a = operator, o = widget, over: Partial<RequestRecord> = {}): RequestRecord[] {
  return Array.from({ length: count }, (_, k) => rec(startMs + k * periodMs, a, o, over));
}

/** Node lease renewals every 10 s for `seconds`: background writes by another actor. */
function leases(seconds: number): RequestRecord[] {
  return loop(T0, seconds / 10, 10_000, kubelet, lease);
}

/** A busy controller: one update each to `count` different ReplicaSets, 100 ms apart. */
function busy(startMs: number, count: number, periodMs = 100): RequestRecord[] {
  return Array.from({ length: count }, (_, k) => rec(startMs + k * periodMs, rsCtl, object('replicasets', 'shop', `rs-${k}`, 'status', 'apps')));
}

describe('hot-loop: loops', () => {
  it('an operator rewriting its status every 100 ms for 2 min: one finding with exact metrics', () => {
    const records = loop(T0, 1200, 100);
    const { findings, notes, alerts } = runDetector(detector, {}, [...leases(180), ...records]);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.kind).toBe('hot-loop');
    expect(f.id).toMatch(/^hot-loop:[0-9a-f]{8}$/);
    expect(f.severity).toBe('critical');
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:01:59.903Z' });
    expect(f.metrics).toEqual({
      writes: 1200,
      successes: 1200,
      conflicts: 0,
      otherErrors: 0,
      successRatio: 1,
      durationMs: 119_900,
      writePeriodP50Ms: 100,
      writePeriodP90Ms: 100,
      meanWritesPerSec: 10,
      peakWritesPerSec: 10,
      sourceIPCount: 1,
      // One write per 10 s over 119.9 s is 12 writes.
      excessRequests: 1188,
      // The 12 lease renewals in steps 0..11 are the only other writes.
      shareOfWrites: 0.9901,
      shareOfRequests: 0.9901,
    });
    expect(f.signals).toEqual(['self-triggering', 'immediate-requeue']);
    expect(f.advice.map((a) => a.id)).toEqual(['compare-before-write', 'ignore-own-status-updates', 'confirm-with-request-level', 'requeue-after']);
    expect(f.advice[2]!.text).toMatch(/^This log is at Metadata level, so it does not show what each write changed\./);
    expect(f.evidence).toEqual({
      auditIDs: [records[0]!.auditID, records[1]!.auditID, records[2]!.auditID, records[1199]!.auditID],
      firstAuditID: records[0]!.auditID,
      lastAuditID: records[1199]!.auditID,
      auditLevel: 'Metadata',
      level: 'proven',
    });
    expect(f.title).toBe('shop-operator wrote widgets.example.com/status shop/w1 1,200 times in 2m 00s, every 100 ms (median), 100% succeeded');
    expect(alerts).toEqual(['open hot-loop w1', 'close hot-loop w1']);
  });

  it('a slow status loop (every 2 s for 20 min) opens on minWritesInRun once it has lasted minRunMs; severity from its small share', () => {
    const records = loop(T0, 600, 2000);
    const { findings } = runDetector(detector, {}, [...records, ...busy(T0, 24_000, 50)]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.metrics).toMatchObject({
      writes: 600,
      durationMs: 1_198_000,
      writePeriodP50Ms: 2000,
      writePeriodP90Ms: 2000,
      meanWritesPerSec: 0.5,
      peakWritesPerSec: 1,
      // 120 writes in 1,198 s would have been one per 10 s.
      excessRequests: 480,
      // 600 of 600 + 24,000 writes.
      shareOfWrites: 0.0244,
    });
    expect(f.severity).toBe('low');
    expect(f.signals).toEqual(['self-triggering', 'timer-driven']);
    expect(f.advice.map((a) => a.id)).toContain('lengthen-requeue-after');
    expect(f.evidence.firstAuditID).toBe(records[0]!.auditID);
  });

  it('a status loop every 200 ms for 3 min: found, from its first write to its last', () => {
    const records = loop(T0 + 60_000, 900, 200);
    const { findings, alerts } = runDetector(detector, {}, [...leases(300), ...records]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.window).toEqual({ from: '2026-08-08T18:01:00.003Z', to: '2026-08-08T18:03:59.803Z' });
    expect(f.metrics).toMatchObject({ writes: 900, durationMs: 179_800, writePeriodP50Ms: 200, meanWritesPerSec: 5, peakWritesPerSec: 5, excessRequests: 882 });
    expect(f.severity).toBe('critical');
    expect(f.title).toBe('shop-operator wrote widgets.example.com/status shop/w1 900 times in 3m 00s, every 200 ms (median), 100% succeeded');
    expect(alerts).toEqual(['open hot-loop w1', 'close hot-loop w1']);
  });

  it('two replicas (two IPs) of one service account add duplicate-replicas', () => {
    const records = [...loop(T0, 1200, 100, operator, widget, { sourceIP: '10.1.0.1' }), ...loop(T0 + 50, 1200, 100, operator, widget, { sourceIP: '10.1.0.2' })];
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.metrics).toMatchObject({ writes: 2400, sourceIPCount: 2, writePeriodP50Ms: 50, peakWritesPerSec: 20 });
    expect(findings[0]!.signals).toEqual(['self-triggering', 'immediate-requeue', 'duplicate-replicas']);
    expect(findings[0]!.actors[0]!.sourceIPs).toEqual(['10.1.0.1', '10.1.0.2']);
    expect(findings[0]!.advice.map((a) => a.id)).toContain('leader-election');
  });

  it('a loop that stops and starts again 5 minutes later is two episodes', () => {
    const { findings, alerts } = runDetector(detector, {}, [...loop(T0, 1200, 100), ...loop(T0 + 300_000, 1200, 100)]);
    expect(findings.map((f) => [f.window.from, f.metrics.writes])).toEqual([
      ['2026-08-08T18:00:00.003Z', 1200],
      ['2026-08-08T18:05:00.003Z', 1200],
    ]);
    expect(alerts).toEqual(['open hot-loop w1', 'close hot-loop w1', 'open hot-loop w1', 'close hot-loop w1']);
  });

  it('counts patches and failed writes, keeps the loop while ≥ minSuccessRatio succeed', () => {
    const records = Array.from({ length: 1200 }, (_, k) => rec(T0 + k * 100, operator, widget, { verb: k % 2 ? 'patch' : 'update', code: k % 10 === 9 ? 409 : k % 10 === 8 ? 500 : 200 }));
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.metrics).toMatchObject({ writes: 1200, successes: 960, conflicts: 120, otherErrors: 120, successRatio: 0.8 });
  });

  it('thresholds come from options', () => {
    // 1,500 writes in 150 s: a fast loop by default, below 20/s when told.
    expect(runDetector(detector, {}, loop(T0, 1500, 100)).findings).toHaveLength(1);
    expect(runDetector(detector, { minWritesPerSec: 20 }, loop(T0, 1500, 100)).findings).toEqual([]);
    // 150 writes in 15 s: too short by default (minLoopMs), a loop when told.
    expect(runDetector(detector, {}, loop(T0, 150, 100)).findings).toEqual([]);
    expect(runDetector(detector, { minLoopMs: 10_000 }, loop(T0, 150, 100)).findings).toHaveLength(1);
    // 1 write/s for 5 min: below minWritesPerSec by default.
    expect(runDetector(detector, { minWritesPerSec: 1 }, loop(T0, 300, 1000)).findings).toHaveLength(1);
    expect(runDetector(detector, { minWritesInRun: 100, minRunMs: 60_000 }, loop(T0, 150, 2000)).findings).toHaveLength(1);
    expect(runDetector(detector, { minWritesInRun: 100 }, loop(T0, 150, 2000)).findings).toEqual([]);
    // The run rule is for /status writers unless told otherwise.
    expect(runDetector(detector, {}, loop(T0, 600, 2000, operator, widgetMain)).findings).toEqual([]);
    expect(runDetector(detector, { runRuleStatusOnly: false }, loop(T0, 600, 2000, operator, widgetMain)).findings).toHaveLength(1);
    expect(runDetector(detector, { severity: { medium: { share: 1, writesPerSec: 0.1 } } }, [...loop(T0, 600, 2000), ...busy(T0, 24_000, 50)]).findings[0]!.severity).toBe('medium');
    expect(() => hotLoop.meta.optionsSchema.parse({ windowMs: 60_000, stepMs: 7_000 })).toThrow(/multiple of stepMs/);
  });
});

describe('hot-loop: not loops', () => {
  const quiet: Array<[string, () => RequestRecord[]]> = [
    ['a lease-like writer every 10 s for an hour (not allowlisted here)', () => loop(T0, 360, 10_000, operator, object('leases', 'shop', 'shop-lock', '', 'coordination.k8s.io'))],
    ['a lease-like /status writer every 10 s for an hour', () => loop(T0, 360, 10_000)],
    ['a busy controller writing 1,000 different objects once each', () => busy(T0, 1000)],
    [
      'a Deployment rollout: deployment-controller updates its status 20 times in 60 s',
      () => [0, 400, 900, 2100, 2500, 5200, 6000, 9800, 12_500, 14_000, 18_200, 21_000, 26_500, 30_100, 35_000, 41_200, 44_800, 50_300, 55_000, 59_900].map((t) =>
        rec(T0 + t, deployCtl, object('deployments', 'shop', 'web', 'status', 'apps')),
      ),
    ],
    ['a 300-replica Deployment rollout: status and EndpointSlice writers at ~1 write/s for 10 min, every write a change', bigRollout],
    ['one busy minute: 10 writes/s for 60 s, then quiet (shorter than minLoopMs)', () => loop(T0, 600, 100)],
    ['a conflict storm: 50 writes/s, 90 % answered 409', () => Array.from({ length: 6000 }, (_, k) => rec(T0 + k * 20, operator, widget, { code: k % 10 === 0 ? 200 : 409 }))],
    ['a status writer every 2 s for 5 minutes (150 < minWritesInRun)', () => loop(T0, 150, 2000)],
    ['dry-run updates', () => loop(T0, 1200, 100, operator, widget, { dryRun: true })],
    ['gets and lists', () => loop(T0, 1200, 100, operator, widget, { verb: 'get' })],
  ];
  it.each(quiet)('%s', (_, make) => {
    const { findings, notes, alerts } = runDetector(detector, {}, make());
    expect([findings, notes, alerts]).toEqual([[], [], []]);
  });
});

describe('hot-loop: one identity, several userAgents (issue 25, class 3)', () => {
  // cert-manager#6714: three controllers of one binary share a service account, each with its own
  // userAgent, each writing one Certificate's status about 1.6 times a second: 4.8/s together.
  const sa = 'system:serviceaccount:cert-manager:cert-manager';
  const controllers = ['issuing', 'readiness', 'requestmanager'].map((c) => actor(sa, `cert-manager-certificates-${c}/v1.13.3 (linux/amd64) cert-manager/abc`));
  const cert = object('certificates', 'web', 'web-tls', 'status', 'cert-manager.io', 'v1');
  function records(writers: typeof controllers): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let k = 0; k < 960; k++) {
      // 1.6 writes/s each, interleaved, for 10 minutes.
      writers.forEach((w, i) => out.push(rec(T0 + Math.round(k * 625 + i * 208), w, cert, { verb: 'update' })));
    }
    return out.sort((a, b) => a.ts - b.ts);
  }

  it('is judged as one writer: one finding with the userAgent breakdown', () => {
    const { findings } = runDetector(detector, {}, records(controllers));
    expect(findings.map((f) => [f.actors[0]!.username, f.metrics.writes, f.metrics.userAgents])).toEqual([
      [
        sa,
        2_880,
        'cert-manager-certificates-issuing/v1.13.3 (linux/amd64) cert-manager/abc(960), cert-manager-certificates-readiness/v1.13.3 (linux/amd64) cert-manager/abc(960), cert-manager-certificates-requestmanager/v1.13.3 (linux/amd64) cert-manager/abc(960)',
      ],
    ]);
  });

  it('one of them alone, at 1.6 writes/s for 10 minutes, is no loop (below 2/s, and not the 15 minutes of the slow rule)', () => {
    const { findings } = runDetector(detector, {}, records(controllers.slice(0, 1)));
    expect(findings).toEqual([]);
  });
});
