import { describe, expect, it } from 'vitest';
import { hotLoop } from '../../src/detectors/hot-loop.js';
import type { Detector } from '../../src/detectors/types.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { actor, object, rec, runDetector } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
/** The steady rule out of reach (no log lasts 100 days): what the score alone opens. */
const NO_STEADY = { steadyMinSpanMs: 8_640_000_000 };
const detector = hotLoop as unknown as Detector;
const operator = actor('system:serviceaccount:shop-system:shop-operator');
const widget = object('widgets', 'shop', 'w1', 'status', 'example.com', 'v1alpha1');
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
    // 99 % of the writes would be critical; 1,080 excess writes (under severityExcess.critical) cap it at high.
    expect(f.severity).toBe('high');
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
      // 1 + 1,199 × (1 − 0.1 s × 1/s): writes beyond what one change a second could explain.
      excessWrites: 1080,
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
    // Opened at 500 excess writes (medium), raised to high at 1,000.
    expect(alerts).toEqual(['open hot-loop w1', 'update hot-loop w1', 'close hot-loop w1']);
  });

  it('a slow status loop (every 2 s for 25 min) proven no-op at RequestResponse level: found on its excess over the timer budget; severity from its small share', () => {
    // The response's resourceVersion equals the precondition's: nothing changed, so each write
    // earns only one per healthyPeriodMs (0.2 per 2 s gap) of budget, 0.8 excess each.
    const noop = { level: 'RequestResponse', resourceVersion: '5', responseResourceVersion: '5' };
    const records = loop(T0, 750, 2000, operator, widget, noop);
    // The same writes at Metadata level may all be changes: 0.5/s is within the change budget.
    expect(runDetector(detector, {}, loop(T0, 750, 2000)).findings).toEqual([]);
    const { findings } = runDetector(detector, {}, [...records, ...busy(T0, 24_000, 62.5)]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.metrics).toMatchObject({
      writes: 750,
      durationMs: 1_498_000,
      writePeriodP50Ms: 2000,
      writePeriodP90Ms: 2000,
      meanWritesPerSec: 0.5,
      peakWritesPerSec: 1,
      // 150 writes in 1,498 s would have been one per 10 s.
      excessRequests: 600,
      // 1 + 749 × 0.8.
      excessWrites: 600,
      // 750 of 750 + 24,000 writes.
      shareOfWrites: 0.0303,
    });
    expect(f.severity).toBe('low');
    expect(f.signals).toEqual(['self-triggering', 'timer-driven', 'steady-rewrites']);
    expect(f.advice.map((a) => a.id)).toContain('lengthen-requeue-after');
    expect(f.evidence.firstAuditID).toBe(records[0]!.auditID);
  });

  it('a status loop every 200 ms for 3 min: found, from its first write to its last', () => {
    const records = loop(T0 + 60_000, 900, 200);
    const { findings, alerts } = runDetector(detector, {}, [...leases(300), ...records]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.window).toEqual({ from: '2026-08-08T18:01:00.003Z', to: '2026-08-08T18:03:59.803Z' });
    expect(f.metrics).toMatchObject({ writes: 900, durationMs: 179_800, writePeriodP50Ms: 200, meanWritesPerSec: 5, peakWritesPerSec: 5, excessRequests: 882, excessWrites: 720 });
    // 5 writes/s would be high and its share critical; 720 excess writes cap it at medium.
    expect(f.severity).toBe('medium');
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
    expect(alerts).toEqual(['open hot-loop w1', 'update hot-loop w1', 'close hot-loop w1', 'open hot-loop w1', 'update hot-loop w1', 'close hot-loop w1']);
  });

  it('counts patches and failed writes, keeps the loop while ≥ minSuccessRatio succeed', () => {
    const records = Array.from({ length: 1200 }, (_, k) =>
      rec(T0 + k * 100, operator, widget, { verb: k % 2 ? 'patch' : 'update', code: k % 10 === 9 ? 409 : k % 10 === 8 ? 500 : 200 }),
    );
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.metrics).toMatchObject({ writes: 1200, successes: 960, conflicts: 120, otherErrors: 120, successRatio: 0.8 });
  });

  it('thresholds come from options', () => {
    // 1,500 writes in 150 s at 10/s: 1,351 excess writes by default; none when 10/s is the change budget.
    expect(runDetector(detector, {}, loop(T0, 1500, 100)).findings).toHaveLength(1);
    expect(runDetector(detector, { changeWritesPerSec: 10 }, loop(T0, 1500, 100)).findings).toEqual([]);
    // 150 writes in 15 s: 136 excess writes, under minExcessWrites by default, a loop when told.
    expect(runDetector(detector, {}, loop(T0, 150, 100)).findings).toEqual([]);
    expect(runDetector(detector, { minExcessWrites: 100 }, loop(T0, 150, 100)).findings).toHaveLength(1);
    // 1 write/s for 10 min: within the change budget by default, 540 excess writes at 0.1/s.
    expect(runDetector(detector, {}, loop(T0, 600, 1000)).findings).toEqual([]);
    expect(runDetector(detector, { changeWritesPerSec: 0.1 }, loop(T0, 600, 1000)).findings).toHaveLength(1);
    // Proven no-op writes earn one per healthyPeriodMs: every 2 s is 0.8 excess each at a 10 s period, none at 2 s.
    const noop = { level: 'RequestResponse', resourceVersion: '5', responseResourceVersion: '5' };
    expect(runDetector(detector, {}, loop(T0, 750, 2000, operator, widget, noop)).findings).toHaveLength(1);
    expect(runDetector(detector, { healthyPeriodMs: 2_000 }, loop(T0, 750, 2000, operator, widget, noop)).findings).toEqual([]);
    // 150 proven no-ops every 2 s: 1 + 149 × 0.8 = 120 excess, under minProvenExcessWrites (200) by default, a loop at 100.
    expect(runDetector(detector, {}, loop(T0, 150, 2000, operator, widget, noop)).findings).toEqual([]);
    expect(runDetector(detector, { minProvenExcessWrites: 100 }, loop(T0, 150, 2000, operator, widget, noop)).findings).toHaveLength(1);
    // A /status re-stamped every 4 s for 30 min (450 writes, only lastTransitionTime moves): 1 + 449 × (1 − 4/300) = 444 by default, 0 at a 4 s period.
    const stamp = (k: number) => ({ level: 'Request', body: { content: 'same', timestamps: `t${k}`, timestampFields: ['lastTransitionTime'] } });
    const restamps = Array.from({ length: 450 }, (_, k) => rec(T0 + k * 4_000, operator, widget, stamp(k)));
    expect(runDetector(detector, {}, restamps).findings.map((f) => f.metrics.excessWrites)).toEqual([444]);
    expect(runDetector(detector, { timestampPeriodMs: 4_000 }, restamps).findings).toEqual([]);
    // Severity caps by excess writes: the 100 ms loop for 2 min (1,080) is critical when 1,000 is enough.
    expect(runDetector(detector, { severityExcess: { critical: 1_000 } }, loop(T0, 1200, 100)).findings[0]!.severity).toBe('critical');
    expect(runDetector(detector, { severityExcess: { high: 2_000 } }, loop(T0, 1200, 100)).findings[0]!.severity).toBe('medium');
    expect(
      runDetector(detector, { severity: { medium: { share: 1, writesPerSec: 0.1 } } }, [...loop(T0, 750, 2000, operator, widget, noop), ...busy(T0, 24_000, 62.5)]).findings[0]!
        .severity,
    ).toBe('medium');
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
      () =>
        [0, 400, 900, 2100, 2500, 5200, 6000, 9800, 12_500, 14_000, 18_200, 21_000, 26_500, 30_100, 35_000, 41_200, 44_800, 50_300, 55_000, 59_900].map((t) =>
          rec(T0 + t, deployCtl, object('deployments', 'shop', 'web', 'status', 'apps')),
        ),
    ],
    ['a 300-replica Deployment rollout: status and EndpointSlice writers at ~1 write/s for 10 min, every write a change', bigRollout],
    ['a busy half-minute: 10 writes/s for 30 s, then quiet (270 writes beyond 1/s, under minExcessWrites)', () => loop(T0, 300, 100)],
    ['a conflict storm: 50 writes/s, 90 % answered 409', () => Array.from({ length: 6000 }, (_, k) => rec(T0 + k * 20, operator, widget, { code: k % 10 === 0 ? 200 : 409 }))],
    ['a status writer every 2 s for an hour (0.5/s, within the change budget at Metadata level)', () => loop(T0, 1800, 2000)],
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

  it('one of them alone, at 1.6 writes/s for 10 minutes: about 360 writes beyond 1/s, a loop only by its even cadence (the steady rule), at most steadyMaxSeverity', () => {
    const alone = records(controllers.slice(0, 1));
    expect(runDetector(detector, {}, alone).findings.map((f) => [f.severity, f.metrics.excessWrites, f.signals])).toEqual([
      ['low', 361, ['self-triggering', 'immediate-requeue', 'steady-rewrites']],
    ]);
    // Under minExcessWrites without it.
    expect(runDetector(detector, NO_STEADY, alone).findings).toEqual([]);
  });
});

describe('hot-loop: a score over rate × duration, no cliffs (issue 25, class 5)', () => {
  const sev = (records: RequestRecord[], opts = {}): string => {
    const { findings } = runDetector(detector, opts, records);
    expect(findings.length).toBeLessThanOrEqual(1);
    return findings[0]?.severity ?? '-';
  };
  /** `count` writes at `perSec` writes/s: the operator rewriting the widget's status. */
  const at = (perSec: number, count: number, over: Partial<RequestRecord> = {}): RequestRecord[] => loop(T0, count, 1000 / perSec, operator, widget, over);

  it('the three replays of the issue: crossplane#2449 at 1.85/s for 16 min and a 20/s loop for 76 s are found, a 2.8/s rollout for 105 s is not', () => {
    // 1,771 CRD updates in 16 min: 1 + 1,770 × (1 − 1/1.85) = 814 writes beyond one per second.
    const crossplane = runDetector(detector, {}, at(1.85, 1771)).findings;
    expect(crossplane.map((f) => [f.severity, f.metrics.writes, f.metrics.excessWrites])).toEqual([['medium', 1771, 814]]);
    // The same CRD at 2.07/s: no jump from nothing to high, one rank up as its excess passes 1,000.
    expect(runDetector(detector, {}, at(2.07, 1987)).findings.map((f) => [f.severity, f.metrics.excessWrites])).toEqual([['high', 1028]]);
    // 1,520 status writes in 76 s, shorter than any hold time the old rule had.
    expect(runDetector(detector, {}, at(20, 1520)).findings.map((f) => [f.severity, f.metrics.writes, f.metrics.excessWrites])).toEqual([['high', 1520, 1444]]);
    // A Deployment rollout: kubectl changes the spec, then deployment-controller writes its status
    // 294 times in 105 s while replicaset-controller scales the ReplicaSets; every write moves the
    // resourceVersion. 189 writes beyond one a second.
    const deploy = object('deployments', 'shop', 'web', '', 'apps');
    const kubectl = actor('kubernetes-admin', 'kubectl/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
    const rollout: RequestRecord[] = [rec(T0 - 500, kubectl, deploy, { verb: 'patch' })];
    for (let k = 0; k < 294; k++) {
      const rv = String(2000 + 2 * k);
      rollout.push(
        rec(T0 + k * (1000 / 2.8), deployCtl, object('deployments', 'shop', 'web', 'status', 'apps'), {
          level: 'RequestResponse',
          resourceVersion: rv,
          responseResourceVersion: String(2000 + 2 * k + 1),
        }),
      );
      if (k % 3 === 0) rollout.push(rec(T0 + k * (1000 / 2.8) + 40, rsCtl, object('replicasets', 'shop', k % 2 ? 'web-new' : 'web-old', 'status', 'apps')));
    }
    expect(
      runDetector(
        detector,
        {},
        rollout.sort((a, b) => a.ts - b.ts),
      ).findings,
    ).toEqual([]);
    // At Metadata level the same rollout is judged on rate and duration alone, and stays out too.
    expect(runDetector(detector, {}, at(2.8, 294)).findings).toEqual([]);
  });

  // Rows: writes/s; columns: 30 s, 76 s, 5 min, 16 min. Severity ('-' for no finding).
  const rates = [0.5, 1, 1.5, 1.85, 2.07, 3, 5, 20, 60];
  const durationsSec = [30, 76, 300, 960];
  const expected: Record<number, string[]> = {
    0.5: ['-', '-', '-', '-'],
    1: ['-', '-', '-', '-'],
    1.5: ['-', '-', '-', '-'],
    1.85: ['-', '-', '-', 'medium'],
    2.07: ['-', '-', '-', 'high'],
    3: ['-', '-', 'medium', 'high'],
    5: ['-', '-', 'high', 'critical'],
    20: ['medium', 'high', 'critical', 'critical'],
    60: ['high', 'critical', 'critical', 'critical'],
  };
  it('rate × duration grid: exact severities, never lower for a faster or longer loop', () => {
    const got: Record<number, string[]> = {};
    for (const r of rates) got[r] = durationsSec.map((d) => sev(at(r, Math.round(r * d)), NO_STEADY));
    expect(got).toEqual(expected);
    const rank = (s: string) => ['-', 'low', 'medium', 'high', 'critical'].indexOf(s);
    for (let i = 0; i < rates.length; i++) {
      for (let j = 0; j < durationsSec.length; j++) {
        if (i > 0) expect(rank(got[rates[i]!]![j]!)).toBeGreaterThanOrEqual(rank(got[rates[i - 1]!]![j]!));
        if (j > 0) expect(rank(got[rates[i]!]![j]!)).toBeGreaterThanOrEqual(rank(got[rates[i]!]![j - 1]!));
      }
    }
  });

  it('either side of minExcessWrites (500): by duration at 2/s, by rate over 5 min', () => {
    // At 2/s the score is 1 + (n − 1) / 2: 490.5 after 490 s (980 writes), 510.5 after 510 s (1,020).
    expect(runDetector(detector, NO_STEADY, at(2, 980)).findings).toEqual([]);
    expect(runDetector(detector, NO_STEADY, at(2, 1020)).findings.map((f) => [f.severity, f.metrics.excessWrites])).toEqual([['medium', 511]]);
    // Over 5 min: 780 writes at 2.6/s leave 480, 825 at 2.75/s leave 525.
    expect(runDetector(detector, NO_STEADY, at(2.6, 780)).findings).toEqual([]);
    expect(runDetector(detector, NO_STEADY, at(2.75, 825)).findings.map((f) => [f.severity, f.metrics.excessWrites])).toEqual([['medium', 525]]);
  });

  it('periodic writers by design are never found, however long: kubelet node status (10 s), leases (2 s and 10 s), HPA (15 s)', () => {
    const hour = 3_600_000;
    const node = object('nodes', '', 'node-1', 'status', '');
    const hpaCtl = actor('system:serviceaccount:kube-system:horizontal-pod-autoscaler', `${kcm}/system:serviceaccount:kube-system:horizontal-pod-autoscaler`);
    const hpa = object('horizontalpodautoscalers', 'shop', 'web', 'status', 'autoscaling', 'v2');
    const records = [
      ...loop(T0, hour / 10_000, 10_000, kubelet, node, { verb: 'patch' }),
      ...loop(T0 + 1, hour / 10_000, 10_000, kubelet, lease),
      ...loop(T0 + 2, hour / 2_000, 2_000, operator, object('leases', 'shop', 'shop-lock', '', 'coordination.k8s.io')),
      ...loop(T0 + 3, hour / 15_000, 15_000, hpaCtl, hpa),
    ].sort((a, b) => a.ts - b.ts);
    expect(runDetector(detector, {}, records).findings).toEqual([]);
    // Even when the log proves each renewal changed only timestamps, one write per healthyPeriodMs
    // (10 s) is within the timer budget.
    const digest = (k: number) => ({ content: 'spec', timestamps: `t${k}`, timestampFields: ['renewTime'] });
    const renewals = Array.from({ length: 360 }, (_, k) => rec(T0 + k * 10_000, kubelet, lease, { level: 'Request', body: digest(k) }));
    expect(runDetector(detector, {}, renewals).findings).toEqual([]);
  });

  it('Metadata level: an update that succeeds with the resourceVersion the previous update sent proves that one changed nothing (crossplane#2449)', () => {
    // A CRD updated at 1.5/s for 10 min, the served versions in random order so every other update
    // changes nothing: updates 2j and 2j+1 both send resourceVersion 100+j, and both succeed.
    const crd = object('customresourcedefinitions', '', 'buckets.s3.aws.crossplane.io', '', 'apiextensions.k8s.io');
    const crossplane = actor('system:serviceaccount:crossplane-system:crossplane', 'crossplane/v1.3.0');
    const updates = (rv: (k: number) => number, verb = 'update') =>
      Array.from({ length: 900 }, (_, k) => rec(T0 + k * (2000 / 3), crossplane, crd, { verb, resourceVersion: String(rv(k)) }));
    // 1 + 449 × (2 − 1/15 − 2/3) + 1/3: each proven no-op earns one write per 10 s, each change one per second.
    const found = runDetector(
      detector,
      {},
      updates((k) => 100 + Math.floor(k / 2)),
    ).findings;
    expect(found.map((f) => [f.severity, f.metrics.writes, f.metrics.excessWrites, f.window])).toEqual([
      ['medium', 900, 570, { from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:09:59.336Z' }],
    ]);
    // Every update sending a new resourceVersion: each may be a change, 300 excess writes, under
    // minExcessWrites; only the even cadence (the steady rule) makes it a loop.
    expect(
      runDetector(
        detector,
        NO_STEADY,
        updates((k) => 100 + k),
      ).findings,
    ).toEqual([]);
    // Patches: objectRef.resourceVersion is not the precondition of a patch, so it proves nothing.
    expect(
      runDetector(
        detector,
        NO_STEADY,
        updates((k) => 100 + Math.floor(k / 2), 'patch'),
      ).findings,
    ).toEqual([]);
  });

  it('change signals: writes proven to change only timestamps lose the change budget', () => {
    // 1.5/s for 10 min: 300 excess writes if each may be a change (under 500)...
    const changes = Array.from({ length: 900 }, (_, k) =>
      rec(T0 + k * (2000 / 3), operator, widget, { level: 'Request', body: { content: `c${k}`, timestamps: `t${k}`, timestampFields: ['lastTransitionTime'] } }),
    );
    expect(runDetector(detector, NO_STEADY, changes).findings).toEqual([]);
    // ...but the same /status body each time with a fresh lastTransitionTime earns one per 5 min
    // (timestampPeriodMs): 1 + 899 × (1 − 0.667 s / 300 s) = 898.
    const stamps = Array.from({ length: 900 }, (_, k) =>
      rec(T0 + k * (2000 / 3), operator, widget, { level: 'Request', body: { content: 'same', timestamps: `t${k}`, timestampFields: ['lastTransitionTime'] } }),
    );
    expect(runDetector(detector, {}, stamps).findings.map((f) => [f.severity, f.metrics.excessWrites])).toEqual([['medium', 898]]);
    // The identical body each time (a no-op: no watch event, so no self-trigger) earns one per 10 s: 1 + 899 × (1 − 1/15) = 840.
    const same = Array.from({ length: 900 }, (_, k) =>
      rec(T0 + k * (2000 / 3), operator, widget, { level: 'Request', body: { content: 'same', timestamps: 't', timestampFields: ['lastTransitionTime'] } }),
    );
    expect(runDetector(detector, {}, same).findings.map((f) => [f.severity, f.metrics.excessWrites])).toEqual([['medium', 840]]);
  });
});

describe('hot-loop: a slow loop at an even cadence (the steady rule; issue 25, actions-runner-controller#1643)', () => {
  /** A deterministic uniform draw in [0, 1) (LCG), so every case is exact. */
  function draws(seed: number): () => number {
    let x = seed >>> 0;
    return () => {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      return x / 2 ** 32;
    };
  }
  /**
   * `count` successful writes from T0 with gaps of `meanMs` × (1 ± `jitter`), exponential gaps
   * (`poisson`), or two writes per pass (`pairs`: 30 ms apart, the passes `2 × meanMs` apart ± jitter).
   */
  function writes(count: number, meanMs: number, shape: { jitter?: number; poisson?: boolean; pairs?: boolean }, seed = 7): RequestRecord[] {
    const u = draws(seed);
    let t = T0;
    const out: RequestRecord[] = [];
    for (let k = 0; k < count; k++) {
      out.push(rec(Math.round(t), operator, widget));
      const pass = meanMs * (1 + (shape.jitter ?? 0) * (2 * u() - 1));
      t += shape.poisson ? -Math.log(1 - u()) * meanMs : shape.pairs ? (k % 2 === 0 ? 30 : 2 * pass - 30) : pass;
    }
    return out;
  }
  const cases: Array<[string, RequestRecord[], Array<[string, number]>]> = [
    // 1.5 writes/s ± 10 % (a reconcile re-triggered by its own write) for 10 min: about 300 beyond 1/s.
    ['1.5/s, gaps ± 10 %, 10 min: found, low', writes(900, 667, { jitter: 0.1 }), [['low', 301]]],
    // The same rate and length at irregular gaps (writes following independent changes): under minExcessWrites.
    ['1.5/s, exponential gaps, 10 min: quiet', writes(900, 667, { poisson: true }), []],
    // An even 2/s for 4.5 min: 270 beyond 1/s, but shorter than steadyMinSpanMs.
    ['2/s, gaps ± 10 %, 4.5 min: quiet', writes(540, 500, { jitter: 0.1 }), []],
    // An even 0.9/s for 30 min: within the change budget, however long and even.
    ['0.9/s, gaps ± 10 %, 30 min: quiet', writes(1620, 1111, { jitter: 0.1 }), []],
    // 1.2/s ± 20 % for 25 min: about 300 beyond 1/s.
    ['1.2/s, gaps ± 20 %, 25 min: found, low', writes(1800, 833, { jitter: 0.2 }), [['low', 309]]],
    // Two writes per pass (gaps 30 ms, then about 1.33 s: their coefficient of variation near 1),
    // 1.5/s for 14 min: as many writes in every step, so steady.
    ['1.5/s as two writes per pass, 14 min: found, low', writes(1260, 667, { jitter: 0.1, pairs: true }), [['low', 422]]],
    // At 1.5/s for 25 min the score alone reaches minExcessWrites: rated as any episode.
    ['1.5/s, gaps ± 10 %, 25 min: found, medium', writes(2250, 667, { jitter: 0.1 }), [['medium', 753]]],
  ];
  it.each(cases)('%s', (_name, records, expected) => {
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.severity, f.metrics.excessWrites])).toEqual(expected);
    for (const f of findings) expect(f.signals).toContain('steady-rewrites');
  });

  it('a steady loop that stops mid-log keeps its steady-rewrites signal (the quiet steps after its last write are its end, not a pause)', () => {
    const { findings } = runDetector(
      detector,
      {},
      [...writes(900, 667, { jitter: 0.1 }), ...leases(1200)].sort((a, b) => a.ts - b.ts),
    );
    expect(findings.map((f) => [f.severity, f.metrics.excessWrites, f.signals])).toEqual([['low', 301, ['self-triggering', 'immediate-requeue', 'steady-rewrites']]]);
  });

  it('the steady rule reads its options: a longer span or a tighter spread leaves the 1.5/s loop quiet; its severity cap', () => {
    const loopWrites = writes(900, 667, { jitter: 0.1 });
    expect(runDetector(detector, { steadyMinSpanMs: 700_000 }, loopWrites).findings).toEqual([]);
    expect(runDetector(detector, { steadyMaxDispersion: 0.001 }, loopWrites).findings).toEqual([]);
    expect(runDetector(detector, { steadyMaxSeverity: 'medium' }, loopWrites).findings.map((f) => f.severity)).toEqual(['medium']);
  });
});

describe('hot-loop: one controller looping over many objects (actor-level roll-up)', () => {
  const nbCtl = actor('system:serviceaccount:kubeflow:notebook-controller');
  const notebook = (k: number) => object('notebooks', 'ml', `nb-${k}`, 'status', 'kubeflow.org');
  const flux = actor('system:serviceaccount:flux-system:kustomize-controller');
  /** `objects` objects written `count` times each every `periodMs`, object k offset by k × `offsetMs`; RequestResponse answers proving nothing changed unless `metadata`. */
  function sweep(objects: number, count: number, periodMs: number, offsetMs: number, a = nbCtl, of = notebook, metadata = false): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let j = 0; j < count; j++)
      for (let k = 0; k < objects; k++)
        out.push(
          rec(
            T0 + j * periodMs + k * offsetMs,
            a,
            of(k),
            metadata ? { resourceVersion: String(1000 + j * objects + k) } : { level: 'RequestResponse', resourceVersion: String(k + 1), responseResourceVersion: String(k + 1) },
          ),
        );
    return out.sort((x, y) => x.ts - y.ts);
  }

  it('a loop over 40 notebooks, each rewritten unchanged every 4 s (no object alone a loop): one actor-level finding', () => {
    const records = sweep(40, 75, 4000, 100);
    const { findings, alerts } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.object).toBeNull();
    expect(f.actors.map((a) => a.username)).toEqual(['system:serviceaccount:kubeflow:notebook-controller']);
    // Each object after its first write (no gap to judge): 74 × (1 − 4 s / 10 s) = 44.4; 40 objects: 1,776.
    expect([f.metrics.resource, f.metrics.objects, f.metrics.writes, f.metrics.successes, f.metrics.excessWrites, f.metrics.excessRequests]).toEqual([
      'notebooks.kubeflow.org/status',
      40,
      3000,
      3000,
      1776,
      1776,
    ]);
    expect(f.metrics.topObjects).toBe(
      'notebooks.kubeflow.org/status ml/nb-0(44), notebooks.kubeflow.org/status ml/nb-1(44), notebooks.kubeflow.org/status ml/nb-10(44), notebooks.kubeflow.org/status ml/nb-11(44), notebooks.kubeflow.org/status ml/nb-12(44)',
    );
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:04:59.903Z' });
    // Evidence from three objects' first contributing (second) writes, and the last write.
    expect(f.evidence.auditIDs).toEqual([records[40]!.auditID, records[41]!.auditID, records[42]!.auditID, records[2999]!.auditID]);
    expect(f.signals).toEqual(['many-objects', 'self-triggering']);
    expect(f.severity).toBe('high');
    expect(alerts).toEqual(['open hot-loop ', 'update hot-loop ', 'close hot-loop ']);
  });

  // try65 b12: KEDA's ScaledObjects, some idle for minutes between polls, were counted again on
  // their return (160 objects of 129).
  it('an object whose state was dropped while idle and made again counts once in the roll-up', () => {
    // nb-0 is left alone from 60 s to 240 s (longer than idleMs), then rewritten as before.
    const records = sweep(40, 75, 4000, 100).filter((r) => !(r.object?.name === 'nb-0' && r.ts > T0 + 60_000 && r.ts < T0 + 240_000));
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.metrics.objects, f.metrics.writes])).toEqual([[40, records.length]]);
  });

  it('the same sweep at Metadata level, every write moving the resourceVersion: a busy controller, quiet', () => {
    expect(runDetector(detector, {}, sweep(40, 75, 4000, 100, nbCtl, notebook, true)).findings).toEqual([]);
  });

  it('look-alike: GitOps server-side apply of 300 objects every 3 min for 30 min, each a no-op: quiet', () => {
    const cm = (k: number) => object('configmaps', 'apps', `cm-${k}`);
    expect(runDetector(detector, {}, sweep(300, 10, 180_000, 50, flux, cm)).findings).toEqual([]);
  });

  /**
   * keycloak-operator#121 shape: one operator, a controller per kind, each writing its 8 objects'
   * status in turn every 2.2 s (so each object every 17.6 s) for 4 min at Request level; with
   * `stamped` each body differs from the object's previous one only in lastTransitionTime, else
   * it is identical (a no-op).
   */
  function kinds(stamped: boolean): RequestRecord[] {
    const kc = actor('system:serviceaccount:iam:keycloak-operator');
    const out: RequestRecord[] = [];
    ['keycloakrealms', 'keycloakclients', 'keycloakusers'].forEach((res, i) => {
      for (let j = 0; j * 2200 < 240_000; j++) {
        const body = { content: 'ready', timestamps: stamped ? `t${j}` : 't', timestampFields: ['lastTransitionTime'] };
        out.push(rec(T0 + i * 700 + j * 2200, kc, object(res, 'iam', `${res}-${j % 8}`, 'status', 'keycloak.example.com'), { level: 'Request', body }));
      }
    });
    return out.sort((x, y) => x.ts - y.ts);
  }

  it('keycloak shape: 24 objects of 3 kinds re-stamped every 17.6 s each (only lastTransitionTime): one actor-level finding over the kinds', () => {
    const records = kinds(true);
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.object).toBeNull();
    // 330 writes. Each other write earns its object one write per 5 min (1 − 17.6 s / 300 s = 0.94
    // excess); an object's own window (3–4 writes a minute) is never sustained, so its episode starts
    // afresh every minute with a first write that has no gap to judge: about 9.4 writes of each
    // object's 13–14 count, 220 excess writes in all, over minProvenExcessWrites (200).
    expect([f.severity, f.metrics.resource, f.metrics.objects, f.metrics.writes, f.metrics.excessWrites]).toEqual([
      'medium',
      'keycloakclients.keycloak.example.com/status, keycloakrealms.keycloak.example.com/status, keycloakusers.keycloak.example.com/status',
      24,
      330,
      220,
    ]);
  });

  it('the same writes with identical bodies (no-ops: no watch event, no self-trigger) every 17.6 s: quiet, as any object written slower than healthyPeriodMs', () => {
    expect(runDetector(detector, {}, kinds(false)).findings).toEqual([]);
  });

  it('rollupMinObjects 0 turns the roll-up off', () => {
    expect(runDetector(detector, { rollupMinObjects: 0 }, sweep(40, 75, 4000, 100)).findings).toEqual([]);
  });
});

describe('hot-loop: a suspected sweep at Metadata level (issue 25, kubeflow/notebooks#1343)', () => {
  const nbCtl = actor('system:serviceaccount:kubeflow:notebook-controller');
  /** The rule is off by default (see `suspectSteadySweeps`). */
  const on = { suspectSteadySweeps: true };
  const notebook = (k: number) => object('notebooks', 'ml', `nb-${k}`, 'status', 'kubeflow.org');
  /**
   * `objects` notebooks' status updated `count` times each at Metadata level, every write moving
   * the resourceVersion (nothing proves a no-op); object k's j-th write at j × `periodMs` + k ×
   * `offsetMs`, plus `jitter(j, k)` ms.
   */
  function sweep(objects: number, count: number, periodMs: number, offsetMs: number, jitter: (j: number, k: number) => number = () => 0, of = notebook): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let j = 0; j < count; j++)
      for (let k = 0; k < objects; k++) out.push(rec(T0 + j * periodMs + k * offsetMs + jitter(j, k), nbCtl, of(k), { resourceVersion: String(1000 + j * objects + k) }));
    return out.sort((x, y) => x.ts - y.ts);
  }
  /** Irregular gaps of mean 4 s (CV about 0.6), as writes that follow independent events: a fixed pseudo-random draw per write. */
  const irregular = (j: number, k: number) => Math.round(((((j * 7919 + k * 104_729) % 1000) / 1000) * 2 - 1) * 3600 * (j % 2 === 0 ? 1 : -1));

  it('40 notebooks each rewritten every 4 s for 10 min at Metadata level: one suspected actor-level finding, severity capped at sweepMaxSeverity; not judged with response resourceVersions', () => {
    const records = sweep(40, 150, 4000, 100);
    const { findings, alerts } = runDetector(detector, on, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.object).toBeNull();
    expect(f.actors.map((a) => a.username)).toEqual(['system:serviceaccount:kubeflow:notebook-controller']);
    // Each object's run reaches 5 min at its 76th write (75 gaps of 4 s): 75 − 300 s / 10 s = 45
    // writes beyond one per 10 s, then 1 − 0.4 for each of its 74 later writes: 89.4; 40 objects: 3,576.
    expect([f.metrics.resource, f.metrics.objects, f.metrics.steadyObjects, f.metrics.steadyRewritePeriodMs, f.metrics.writes, f.metrics.excessWrites]).toEqual([
      'notebooks.kubeflow.org/status',
      40,
      40,
      4000,
      6000,
      3576,
    ]);
    expect(f.metrics.topObjects).toBe(
      'notebooks.kubeflow.org/status ml/nb-0(89), notebooks.kubeflow.org/status ml/nb-1(89), notebooks.kubeflow.org/status ml/nb-10(89), notebooks.kubeflow.org/status ml/nb-11(89), notebooks.kubeflow.org/status ml/nb-12(89)',
    );
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:09:59.903Z' });
    // The first three objects' writes that made their runs count, and the last write. Each run
    // reaches 5 min at its object's 76th write, but the writer's busy stretch starts at the second
    // pass (a first write is held until its object is written again, and is no new moment of the
    // stream when given back), so it reaches 5 min a pass later: the 77th writes.
    expect(f.evidence.auditIDs).toEqual([records[3040]!.auditID, records[3041]!.auditID, records[3042]!.auditID, records[5999]!.auditID]);
    expect(f.evidence.level).toBe('suspected');
    // Timing alone does not show that the writes trigger themselves: no `self-triggering`.
    expect(f.signals).toEqual(['many-objects', 'steady-rewrites', 'suspected']);
    expect(f.advice[0]!.text).toBe(
      'Write only when the desired status differs from the current one (equality.Semantic.DeepEqual on the computed value): each of 40 objects is rewritten faster than its changes explain.',
    );
    // Every write of the log is its (share 1: critical), capped at medium: nothing proves the writes pointless.
    expect(f.severity).toBe('medium');
    expect(f.title).toBe(
      'notebook-controller rewrote 40 notebooks.kubeflow.org/status objects each every 4.00 s on average, at even gaps for 5m 00s or more, never pausing 250 ms between writes (6,000 writes in 10m 00s, 100% succeeded): suspected self-re-queuing loop, as the log (no bodies) cannot show whether each write changed something',
    );
    expect(alerts).toEqual(['open hot-loop ', 'close hot-loop ']);
    // With a response resourceVersion (RequestResponse level) the log shows each write changed the object: not judged.
    const answered = records.map((r) => ({ ...r, responseResourceVersion: String(Number(r.resourceVersion) + 1) }));
    expect(runDetector(detector, on, answered).findings).toEqual([]);
    expect(runDetector(detector, { ...on, sweepMaxSeverity: 'high' }, records).findings.map((x) => x.severity)).toEqual(['high']);
  });

  it('a loop that stalls 12 s once and loops on: each object counts once', () => {
    // 80 passes, a 12 s stall (every run and the writer's busy stretch start over), 100 more passes.
    const records = sweep(40, 180, 4000, 100, (j) => (j >= 80 ? 12_000 : 0));
    const [f] = runDetector(detector, on, records).findings;
    // Both stretches count (5 min each): the objects are 40, not 80.
    expect([f!.metrics.objects, f!.metrics.steadyObjects, f!.metrics.writes]).toEqual([40, 40, 7200]);
    expect(f!.title).toMatch(/^notebook-controller rewrote 40 notebooks\.kubeflow\.org\/status objects each every 4\.00 s on average/);
  });

  it('objects whose runs stopped counting before the episode closed are still listed in topObjects', () => {
    // 60 s after the loop ends (an unrelated write moves time on), the runs no longer count when the episode closes.
    const loop = sweep(40, 150, 4000, 100);
    const later = rec(loop[loop.length - 1]!.ts + 60_000, actor('system:serviceaccount:ml:other'), object('configmaps', 'ml', 'cm'));
    const [g] = runDetector(detector, on, [...loop, later]).findings;
    expect(g!.metrics.steadyObjects).toBe(40);
    expect(String(g!.metrics.topObjects).split(', ')).toHaveLength(5);
    expect(g!.metrics.topObjects).toMatch(/^notebooks\.kubeflow\.org\/status ml\/nb-0\(89\), /);
  });

  it('a writer that pauses between passes, quiet: 40 objects written back to back every 4 s (a batching controller), or 4 objects 100 ms apart every 4 s', () => {
    // Per object the same even 4 s gaps as the loop above, but the writer is idle 3.8 s of every 4 s.
    const batched = sweep(40, 150, 4000, 5);
    expect(runDetector(detector, on, batched).findings).toEqual([]);
    // Without the idle rule (a pause of 4 s still counts as busy) it is reported as the loop is.
    expect(runDetector(detector, { ...on, sweepMaxIdleMs: 4000 }, batched).findings.map((f) => [f.metrics.steadyObjects, f.metrics.writes])).toEqual([[40, 6000]]);
    const few = sweep(4, 150, 4000, 100);
    expect(runDetector(detector, { ...on, minExcessWrites: 300 }, few).findings).toEqual([]);
    expect(runDetector(detector, { ...on, minExcessWrites: 300, sweepMaxIdleMs: 4000 }, few).findings.map((f) => f.metrics.steadyObjects)).toEqual([4]);
  });

  it('two controllers of one identity, each resting half of every 4 s pass while the other writes: quiet; one controller alone never resting: reported', () => {
    const job = (k: number) => object('jobs', 'ml', `job-${k}`, 'status', 'batch');
    const rs = (k: number) => object('replicasets', 'ml', `rs-${k}`, 'status', 'apps');
    // kube-controller-manager without per-controller service accounts: the job controller writes
    // 40 Jobs 50 ms apart in the first half of every 4 s, the ReplicaSet controller 40 ReplicaSets
    // in the second half. Together the identity never pauses 250 ms; each controller rests 2 s.
    const shared = [...sweep(40, 150, 4000, 50, () => 0, job), ...sweep(40, 150, 4000, 50, () => 2000, rs)].sort((x, y) => x.ts - y.ts);
    expect(runDetector(detector, on, shared).findings).toEqual([]);
    // The same writes of one resource (80 objects 50 ms apart every 4 s): one controller that never rests.
    const one = sweep(80, 150, 4000, 50, () => 0, job);
    expect(runDetector(detector, on, one).findings.map((f) => [f.metrics.resource, f.metrics.steadyObjects])).toEqual([['jobs.batch/status', 80]]);
  });

  it('look-alikes, quiet: the same writes for under 5 min, at irregular gaps, every 12 s, or on nodes', () => {
    // A burst of real changes ends: 74 gaps of 4 s are 296 s.
    expect(runDetector(detector, on, sweep(40, 75, 4000, 100)).findings).toEqual([]);
    // Pods finishing independently: gaps of 4 s ± 3.6 s for 10 min.
    const uneven = sweep(40, 150, 4000, 100, irregular);
    expect(runDetector(detector, on, uneven).findings).toEqual([]);
    // A timer slower than the kubelet's 10 s: 40 objects every 12 s for 30 min.
    expect(runDetector(detector, on, sweep(40, 150, 12_000, 100)).findings).toEqual([]);
    // Node conditions carry a heartbeat by design.
    expect(
      runDetector(
        detector,
        on,
        sweep(
          40,
          150,
          4000,
          100,
          () => 0,
          (k) => object('nodes', '', `node-${k}`, 'status'),
        ),
      ).findings,
    ).toEqual([]);
  });

  it('thresholds come from options', () => {
    const records = sweep(40, 150, 4000, 100);
    // Off by default.
    expect(runDetector(detector, {}, records).findings).toEqual([]);
    expect(runDetector(detector, { ...on, sweepMaxGapMs: 4000 }, records).findings).toEqual([]);
    expect(runDetector(detector, { ...on, sweepMinSpanMs: 600_000 }, records).findings).toEqual([]);
    // Writes exactly 100 ms apart are a pause of sweepMaxIdleMs 100: never busy.
    expect(runDetector(detector, { ...on, sweepMaxIdleMs: 100 }, records).findings).toEqual([]);
    expect(runDetector(detector, { ...on, sweepMaxIdleMs: 101 }, records).findings).toHaveLength(1);
    // 4 objects written back to back every 4 s for 10 min: 357.6 beyond one per 10 s, under
    // minExcessWrites (500) until it is lowered.
    const four = sweep(4, 150, 4000, 5);
    expect(runDetector(detector, on, four).findings).toEqual([]);
    expect(runDetector(detector, { ...on, minExcessWrites: 300, sweepMaxIdleMs: 4000 }, four).findings.map((f) => f.metrics.steadyObjects)).toEqual([4]);
    expect(runDetector(detector, { ...on, sweepMaxGapCv: 1, sweepMaxIdleMs: 10_000 }, sweep(40, 150, 4000, 100, irregular)).findings).toHaveLength(1);
  });
});
