import { describe, expect, it } from 'vitest';
import { noOpWrites } from '../../src/detectors/no-op-writes.js';
import { hotLoop } from '../../src/detectors/hot-loop.js';
import type { Detector } from '../../src/detectors/types.js';
import { digestBody } from '../../src/decoding/body.js';
import type { BodyDigest, RequestRecord } from '../../src/decoding/record.js';
import { actor, object, rec, runDetector } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const detector = noOpWrites as unknown as Detector;
const operator = actor('system:serviceaccount:shop-system:shop-operator');
const other = actor('system:serviceaccount:shop-system:shop-autoscaler');
const widget = object('widgets', 'shop', 'w1', 'status', 'example.com', 'v1alpha1');
const widgetMain = object('widgets', 'shop', 'w1', '', 'example.com', 'v1alpha1');
const kcm = 'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f';
const deployCtl = actor('system:serviceaccount:kube-system:deployment-controller', `${kcm}/system:serviceaccount:kube-system:deployment-controller`);
const rsCtl = actor('system:serviceaccount:kube-system:replicaset-controller', `${kcm}/system:serviceaccount:kube-system:replicaset-controller`);

/** Digest of a widget status body with a Ready condition. */
function body(rv: number, ready: number, transition: string): BodyDigest {
  return digestBody({
    apiVersion: 'example.com/v1alpha1',
    kind: 'Widget',
    metadata: { name: 'w1', namespace: 'shop', resourceVersion: String(rv) },
    status: { readyReplicas: ready, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: transition }] },
  }) as BodyDigest;
}

const stamp = (ms: number) => new Date(ms).toISOString();

describe('no-op-writes: proven', () => {
  it('RequestResponse updates answered with the resourceVersion they sent', () => {
    const records = Array.from({ length: 120 }, (_, k) =>
      rec(T0 + k * 1000, operator, widget, { level: 'RequestResponse', resourceVersion: '500', responseResourceVersion: '500' }),
    );
    const { findings, alerts } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.kind).toBe('no-op-writes');
    expect(f.id).toMatch(/^no-op-writes:[0-9a-f]{8}$/);
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:01:59.003Z' });
    expect(f.metrics).toEqual({
      writes: 120,
      noOpWrites: 120,
      noOpShare: 1,
      unchangedRVWrites: 120,
      identicalWrites: 0,
      timestampOnlyWrites: 0,
      steadyWrites: 0,
      churnFields: '',
      durationMs: 119_000,
      writePeriodP50Ms: 1000,
      noOpWritesPerSec: 1.01,
      excessRequests: 120,
      shareOfWrites: 1,
      shareOfRequests: 1,
    });
    expect(f.severity).toBe('critical');
    expect(f.signals).toEqual(['unchanged-resource-version']);
    expect(f.evidence).toEqual({
      auditIDs: [records[0]!.auditID, records[1]!.auditID, records[2]!.auditID, records[119]!.auditID],
      firstAuditID: records[0]!.auditID,
      lastAuditID: records[119]!.auditID,
      auditLevel: 'RequestResponse',
      level: 'proven',
    });
    expect(f.advice.map((a) => a.id)).toEqual(['compare-before-write', 'skip-identical-write']);
    expect(f.title).toBe('shop-operator wrote widgets.example.com/status shop/w1 120 times in 1m 59s and 120 changed nothing: 120 left resourceVersion unchanged');
    // The finding's timeline: its buckets add up to its own counts.
    expect([
      f.series?.points.reduce((n, p) => n + p.writes, 0),
      f.series?.points.reduce((n, p) => n + p.conflicts, 0),
      f.series?.labels?.writes,
      f.series?.labels?.conflicts,
    ]).toEqual([120, 120, 'writes/s', 'no-op writes/s']);
    expect(alerts).toEqual(['open no-op-writes w1', 'close no-op-writes w1']);
  });

  it('Request-level bodies that differ only in lastTransitionTime: timestamp churn, churnFields named', () => {
    // Every 5 s for 10 min; the resourceVersion advances (the timestamp is a real change to etcd).
    const records = Array.from({ length: 120 }, (_, k) =>
      rec(T0 + k * 5000, operator, widget, { level: 'Request', resourceVersion: String(1000 + k), body: body(1000 + k, 3, stamp(T0 + k * 5000)) }),
    );
    const { findings } = runDetector(detector, {}, [
      ...records,
      ...Array.from({ length: 600 }, (_, k) => rec(T0 + k * 1000, rsCtl, object('replicasets', 'shop', `rs-${k}`, '', 'apps'))),
    ]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    // The first write has nothing to compare with: 119 of the 119 writes after it.
    expect(f.metrics).toMatchObject({
      writes: 119,
      noOpWrites: 119,
      noOpShare: 1,
      timestampOnlyWrites: 119,
      identicalWrites: 0,
      unchangedRVWrites: 0,
      churnFields: 'lastTransitionTime',
      durationMs: 590_000,
      writePeriodP50Ms: 5000,
      excessRequests: 119,
      // 119 of 120 + 600 writes in the steps of 18:00:05–18:09:55.
      shareOfWrites: 0.1653,
    });
    expect(f.severity).toBe('medium');
    expect(f.signals).toEqual(['timestamp-churn']);
    expect(f.evidence.level).toBe('proven');
    expect(f.evidence.firstAuditID).toBe(records[1]!.auditID);
    expect(f.advice.map((a) => a.id)).toEqual(['compare-before-write', 'stable-transition-time']);
    expect(f.title).toBe('shop-operator wrote widgets.example.com/status shop/w1 119 times in 9m 50s and 119 changed nothing: 119 changed only lastTransitionTime');
  });

  it('identical bodies (JSON patches) count as identical', () => {
    const patch = digestBody([{ op: 'replace', path: '/status/readyReplicas', value: 3 }]) as BodyDigest;
    const records = Array.from({ length: 30 }, (_, k) => rec(T0 + k * 2000, operator, widget, { verb: 'patch', level: 'Request', body: patch }));
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.metrics.identicalWrites, f.metrics.noOpWrites, f.signals])).toEqual([[29, 29, ['identical-body']]]);
  });

  it('Metadata level: successive successful updates sending the same resourceVersion prove the earlier one stored nothing', () => {
    const records = Array.from({ length: 50 }, (_, k) => rec(T0 + k * 2000, operator, widget, { resourceVersion: '777' }));
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    // All 50 writes are the episode's (the first is credited at the second), 49 of them no-ops.
    expect(f.metrics).toMatchObject({ writes: 50, noOpWrites: 49, unchangedRVWrites: 49 });
    expect([f.series?.points.reduce((n, p) => n + p.writes, 0), f.series?.points.reduce((n, p) => n + p.conflicts, 0), f.series?.labels?.conflicts]).toEqual([
      50,
      49,
      'no-op writes/s',
    ]);
    // The no-ops are the first 49 writes; the last one is not judged (nothing came after it).
    expect(f.evidence).toEqual({
      auditIDs: [records[0]!.auditID, records[1]!.auditID, records[2]!.auditID, records[48]!.auditID],
      firstAuditID: records[0]!.auditID,
      lastAuditID: records[48]!.auditID,
      auditLevel: 'Metadata',
      level: 'proven',
    });
    expect(f.window.from).toBe('2026-08-08T18:00:00.003Z');
  });

  it('a patch answered with the resourceVersion the object last answered with', () => {
    const records = Array.from({ length: 20 }, (_, k) => rec(T0 + k * 3000, operator, widget, { verb: 'patch', level: 'RequestResponse', responseResourceVersion: '900' }));
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.metrics.unchangedRVWrites, f.metrics.writes])).toEqual([[19, 19]]);
  });

  it('an identical status rewritten every 100 ms is both a hot loop and no-op writes', () => {
    const records = Array.from({ length: 1200 }, (_, k) =>
      rec(T0 + k * 100, operator, widget, { level: 'RequestResponse', resourceVersion: '42', responseResourceVersion: '42', body: body(42, 3, stamp(T0)) }),
    );
    expect(runDetector(detector, {}, records).findings.map((f) => [f.kind, f.metrics.noOpWrites])).toEqual([['no-op-writes', 1200]]);
    expect(runDetector(hotLoop as unknown as Detector, {}, records).findings.map((f) => [f.kind, f.metrics.writes])).toEqual([['hot-loop', 1200]]);
  });
});

describe('no-op-writes: suspected', () => {
  it('Metadata-level status patches every 30 s for 30 min, nothing else touching the object', () => {
    // Patches send no resourceVersion: nothing proves or disproves a change, only the timing is left.
    const records = Array.from({ length: 60 }, (_, k) => rec(T0 + k * 30_000, operator, widget, { verb: 'patch' }));
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    // Steadiness needs two gaps: the third write is the first steady one.
    expect(f.metrics).toMatchObject({ writes: 58, noOpWrites: 58, steadyWrites: 58, unchangedRVWrites: 0, writePeriodP50Ms: 30_000, excessRequests: 58 });
    expect([f.series?.points.reduce((n, p) => n + p.writes, 0), f.series?.points.reduce((n, p) => n + p.conflicts, 0), f.series?.labels?.conflicts]).toEqual([
      58,
      58,
      'suspected no-op writes/s',
    ]);
    expect(f.window).toEqual({ from: '2026-08-08T18:01:00.003Z', to: '2026-08-08T18:29:30.003Z' });
    expect(f.evidence).toMatchObject({ level: 'suspected', auditLevel: 'Metadata', firstAuditID: records[2]!.auditID, lastAuditID: records[59]!.auditID });
    // Share of writes is 100 %, but timing alone is capped at suspectedMaxSeverity.
    expect(f.severity).toBe('low');
    expect(f.signals).toEqual(['steady-period', 'no-body-logged']);
    expect(f.advice.map((a) => a.id)).toEqual(['compare-before-write', 'log-request-bodies']);
    expect(f.title).toBe(
      'shop-operator writes widgets.example.com/status shop/w1 every 30.0 s with no sign of change (suspected: 58 of 58 writes evenly spaced, no request bodies logged)',
    );
    expect(runDetector(detector, { suspectedMaxSeverity: 'high' }, records).findings[0]!.severity).toBe('high');
    expect(runDetector(detector, { suspectSteadyStatusWrites: false }, records).findings).toEqual([]);
  });
});

describe('no-op-writes: not no-ops', () => {
  const quiet: Array<[string, () => RequestRecord[]]> = [
    [
      'a Deployment rollout: deployment-controller updates its status 20 times in 60 s',
      () =>
        [0, 400, 900, 2100, 2500, 5200, 6000, 9800, 12_500, 14_000, 18_200, 21_000, 26_500, 30_100, 35_000, 41_200, 44_800, 50_300, 55_000, 59_900].map((t, k) =>
          rec(T0 + t, deployCtl, object('deployments', 'shop', 'web', 'status', 'apps'), { resourceVersion: String(100 + k) }),
        ),
    ],
    [
      'status bodies that change every time (RequestResponse, resourceVersion advances)',
      () =>
        Array.from({ length: 120 }, (_, k) =>
          rec(T0 + k * 1000, operator, widget, { level: 'RequestResponse', resourceVersion: String(k), responseResourceVersion: String(k + 1), body: body(k, k, stamp(T0)) }),
        ),
    ],
    [
      'identical bodies, but another actor writes the object in between each time (a fight, not a no-op)',
      () =>
        Array.from({ length: 120 }, (_, k) => [
          rec(T0 + k * 1000, operator, widget, { level: 'Request', body: body(k, 3, stamp(T0)) }),
          rec(T0 + k * 1000 + 500, other, widgetMain, { level: 'Request', body: body(k, 1, stamp(T0)) }),
        ]).flat(),
    ],
    [
      'a Lease renewed every 10 s, only renewTime changing (ignoreResources)',
      () =>
        Array.from({ length: 360 }, (_, k) =>
          rec(T0 + k * 10_000, operator, object('leases', 'shop', 'shop-lock', '', 'coordination.k8s.io'), {
            level: 'Request',
            body: digestBody({ metadata: { name: 'shop-lock' }, spec: { holderIdentity: 'a', renewTime: stamp(T0 + k * 10_000) } }) as BodyDigest,
          }),
        ),
    ],
    [
      'Metadata-level status updates every 15 s for 10 min, each sending the resourceVersion the previous one produced (an HPA)',
      () => Array.from({ length: 40 }, (_, k) => rec(T0 + k * 15_000, other, widget, { resourceVersion: String(3000 + k) })),
    ],
    [
      "a steady writer every 10 s for 10 min, two updates then a patch: each update pair proves a change, clearing the patches' suspicion",
      () => Array.from({ length: 60 }, (_, k) => rec(T0 + k * 10_000, operator, widget, k % 3 === 2 ? { verb: 'patch' } : { resourceVersion: String(4000 + k) })),
    ],
    [
      'status updates every 200 ms for 3 min, resourceVersion moving (a hot loop: hot-loop reports it, with proof)',
      () => Array.from({ length: 900 }, (_, k) => rec(T0 + k * 200, operator, widget, { resourceVersion: String(5000 + k) })),
    ],
    [
      'status patches every 200 ms for 3 min without bodies (faster than suspectedMinPeriodMs: left to hot-loop)',
      () => Array.from({ length: 900 }, (_, k) => rec(T0 + k * 200, operator, widget, { verb: 'patch' })),
    ],
    [
      'a ConfigMap heartbeat every 10 s at Metadata level (not a /status writer)',
      () => Array.from({ length: 360 }, (_, k) => rec(T0 + k * 10_000, operator, object('configmaps', 'shop', 'hb'), { resourceVersion: String(k) })),
    ],
    [
      'a busy controller writing 1,000 different objects once each',
      () => Array.from({ length: 1000 }, (_, k) => rec(T0 + k * 100, rsCtl, object('replicasets', 'shop', `rs-${k}`, 'status', 'apps'), { resourceVersion: '1' })),
    ],
    [
      'a conflict storm: the same resourceVersion resent, but only 409s in between successes',
      () => Array.from({ length: 3000 }, (_, k) => rec(T0 + k * 20, operator, widget, { resourceVersion: String(Math.floor(k / 10)), code: k % 10 === 9 ? 200 : 409 })),
    ],
    [
      'fewer than minNoOpWrites in any window (one no-op a minute)',
      () => Array.from({ length: 30 }, (_, k) => rec(T0 + k * 60_000 + (k % 3) * 7000, operator, widget, { resourceVersion: String(Math.floor(k / 2)) })),
    ],
  ];
  it.each(quiet)('%s', (_, make) => {
    const { findings, notes, alerts } = runDetector(detector, {}, make());
    expect([findings, notes, alerts]).toEqual([[], [], []]);
  });
});

describe('no-op-writes: one identity, several userAgents (issue 25, class 3)', () => {
  // Controllers of one binary share a service account, each with its own userAgent; each updates
  // one Certificate's status every 40 s at Metadata level, always sending resourceVersion 4711 and
  // always succeeding: none stores anything. Alone, 7.5 no-ops in 5 min (under minNoOpWrites 10).
  const sa = 'system:serviceaccount:cert-manager:cert-manager';
  const ua = (c: string): string => `cert-manager-certificates-${c}/v1.13.3 (linux/amd64) cert-manager/abc`;
  const controllers = ['issuing', 'readiness', 'requestmanager'].map((c) => actor(sa, ua(c)));
  const cert = object('certificates', 'web', 'web-tls', 'status', 'cert-manager.io', 'v1');

  /** Writer i updates `cert` at +13 s·i every 40 s for 10 minutes, with resourceVersion 4711. */
  function updates(writers: ReadonlyArray<ReturnType<typeof actor>>): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let k = 0; k < 15; k++) writers.forEach((w, i) => out.push(rec(T0 + k * 40_000 + i * 13_000, w, cert, { resourceVersion: '4711' })));
    return out.sort((a, b) => a.ts - b.ts);
  }

  it('three controllers of one service account: one finding, proven across clients, writes broken down by userAgent', () => {
    const records = updates(controllers);
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.actors[0]!.username, f.actors[0]!.userAgent, f.evidence.level, f.window])).toEqual([
      // From the first write (credited when the second, readiness's, sent the same resourceVersion)
      // to the last credited one, the 44th (readiness's 15th, at 14 · 40 s + 13 s).
      [sa, ua('issuing'), 'proven', { from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:09:33.003Z' }],
    ]);
    expect(findings[0]!.metrics).toMatchObject({
      writes: 45,
      noOpWrites: 44,
      unchangedRVWrites: 44,
      // One client's period, not the 13 s between controllers.
      writePeriodP50Ms: 40_000,
      userAgents: `${ua('issuing')}(15), ${ua('readiness')}(15), ${ua('requestmanager')}(15)`,
    });
    expect(findings[0]!.evidence.lastAuditID).toBe(records[43]!.auditID);
    expect(findings[0]!.evidence.auditIDs.slice(0, 3)).toEqual(records.slice(0, 3).map((r) => r.auditID));
  });

  it('one controller alone is no finding', () => {
    expect(runDetector(detector, {}, updates(controllers.slice(0, 1))).findings).toEqual([]);
  });

  it('look-alike: three kubebuilder operators with one userAgent (manager/v0.0.0) but their own service accounts stay apart', () => {
    const operators = ['a', 'b', 'c'].map((n) => actor(`system:serviceaccount:${n}-system:${n}-operator`));
    expect(new Set(operators.map((a) => a.userAgent)).size).toBe(1);
    expect(runDetector(detector, {}, updates(operators)).findings).toEqual([]);
  });

  it('look-alike: one username, two programs, only one writes for nothing: the finding names it and the breakdown tells them apart', () => {
    const script = actor('system:admin', 'python-requests/2.31.0');
    const kubectl = actor('system:admin', 'kubectl/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
    const cm = object('configmaps', 'ops', 'settings');
    // The human patches the ConfigMap at 10 s, 130 s, … (moving its resourceVersion); the script
    // updates it every 20 s with the resourceVersion it last read, changing nothing.
    const records: RequestRecord[] = [];
    let patches = 0;
    for (let s = 0; s < 600; s += 10) {
      if (s % 120 === 10) {
        records.push(rec(T0 + s * 1000, kubectl, cm, { verb: 'patch' }));
        patches++;
      } else if (s % 20 === 0) records.push(rec(T0 + s * 1000, script, cm, { resourceVersion: String(900 + patches) }));
    }
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.actors[0]!.userAgent, f.metrics.writes, f.metrics.noOpWrites, f.metrics.userAgents])).toEqual([
      // 30 updates, 5 patches: 29 pairs of successive updates, 5 of them with a patch between.
      // From the script's second update (the first credited) on: 29 updates and 4 patches.
      ['python-requests/2.31.0', 33, 24, 'python-requests/2.31.0(29), kubectl/v1.29.0 (linux/amd64) kubernetes/3f7a50f(4)'],
    ]);
  });

  it('steadiness stays per client: a timer is judged by its own gaps, not by gaps to another userAgent of its identity', () => {
    const timer = actor(sa, ua('readiness'));
    const once = actor(sa, ua('issuing'));
    // readiness patches the status (no body logged) every 30 s for 10 minutes; issuing once, at 100 s.
    const records = [...Array.from({ length: 20 }, (_, k) => rec(T0 + k * 30_000, timer, cert, { verb: 'patch' })), rec(T0 + 100_000, once, cert, { verb: 'patch' })];
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.actors[0]!.userAgent, f.evidence.level, f.metrics.steadyWrites, f.metrics.writePeriodP50Ms, f.metrics.userAgents])).toEqual([
      // Writes 2..19 of the timer are steady but for the one right after issuing's (the object
      // changed under it): 17. Gaps measured from issuing's write (10 s, then 20 s) would make two
      // unsteady, not one.
      [ua('readiness'), 'suspected', 17, 30_000, `${ua('readiness')}(18), ${ua('issuing')}(1)`],
    ]);
  });
});

describe('no-op-writes: node heartbeats are not suspected (kubernetes#46851)', () => {
  // node-problem-detector patches each node's conditions (lastHeartbeatTime) every 5 s without
  // bodies logged: a heartbeat by API design. The same timer on a custom resource stays suspected.
  const npd = actor('system:serviceaccount:kube-system:node-problem-detector', 'node-problem-detector/v0.8.19');
  const node = object('nodes', '', 'worker-1', 'status', '');
  it.each([
    ['nodes/status (default suspectedIgnoreResources)', node, {}, 0],
    ['nodes/status with suspectedIgnoreResources []', node, { suspectedIgnoreResources: [] }, 1],
    ['widgets/status', widget, {}, 1],
  ])('%s', (_name, target, options, n) => {
    const records = Array.from({ length: 120 }, (_, k) => rec(T0 + k * 5_000, npd, target, { verb: 'patch' }));
    const { findings } = runDetector(detector, options, records);
    expect(findings.map((f) => [f.evidence.level, f.metrics.steadyWrites])).toEqual(n === 0 ? [] : [['suspected', 118]]);
  });
});

describe('no-op-writes: one controller rewriting many objects unchanged (actor-level roll-up)', () => {
  const knative = actor('system:serviceaccount:knative-serving:controller');
  const flux = actor('system:serviceaccount:flux-system:kustomize-controller');
  const deploy = (k: number) => object('deployments', 'serving', `rev-${k}`, '', 'apps');
  const cm = (k: number) => object('configmaps', 'apps', `cm-${k}`);
  /** `objects` objects updated `count` times each every `periodMs`, object k offset by k × `offsetMs`, each answered with the resourceVersion it sent. */
  function sweep(objects: number, count: number, periodMs: number, offsetMs: number, a = knative, of = deploy, verb = 'update'): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let j = 0; j < count; j++)
      for (let k = 0; k < objects; k++)
        out.push(rec(T0 + j * periodMs + k * offsetMs, a, of(k), { verb, level: 'RequestResponse', resourceVersion: String(k + 1), responseResourceVersion: String(k + 1) }));
    return out.sort((x, y) => x.ts - y.ts);
  }

  it('40 Deployments each updated unchanged every 40 s (8 no-ops per object per 5 min, under the 10 per object): one actor-level finding', () => {
    const records = sweep(40, 8, 40_000, 500);
    const { findings, alerts } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.object).toBeNull();
    expect(f.actors.map((a) => a.username)).toEqual(['system:serviceaccount:knative-serving:controller']);
    // Each object's first write has no period to judge: 7 of its 8 count, 280 in all.
    expect([f.metrics.resource, f.metrics.objects, f.metrics.writes, f.metrics.noOpWrites, f.metrics.noOpShare, f.metrics.unchangedRVWrites, f.metrics.excessRequests]).toEqual([
      'deployments.apps',
      40,
      280,
      280,
      1,
      280,
      280,
    ]);
    expect(f.metrics.topObjects).toBe(
      'deployments.apps serving/rev-0(7), deployments.apps serving/rev-1(7), deployments.apps serving/rev-10(7), deployments.apps serving/rev-11(7), deployments.apps serving/rev-12(7)',
    );
    expect(f.window).toEqual({ from: '2026-08-08T18:00:40.003Z', to: '2026-08-08T18:04:59.503Z' });
    expect(f.evidence.auditIDs).toEqual([records[40]!.auditID, records[41]!.auditID, records[42]!.auditID, records[319]!.auditID]);
    expect(f.signals).toEqual(['many-objects', 'unchanged-resource-version']);
    expect(alerts).toEqual(['open no-op-writes ', 'close no-op-writes ']);
  });

  it("every minute plus a reconcile's latency (VictoriaMetrics#1418, grafana-operator#808: Deployments updated unchanged every minute), 60 objects for 10 min: one actor-level finding, none with rollupMaxPeriodMs 60 s", () => {
    const records = sweep(60, 10, 62_000, 200);
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.object, f.metrics.objects, f.metrics.writes, f.metrics.noOpWrites])).toEqual([[null, 60, 540, 540]]);
    expect(runDetector(detector, { rollupMaxPeriodMs: 60_000 }, records).findings).toEqual([]);
  });

  it('look-alike: GitOps server-side apply of 300 objects every 3 min for 30 min, each a no-op: quiet, unless rollupMaxPeriodMs is raised above the period', () => {
    const records = sweep(300, 10, 180_000, 50, flux, cm, 'patch');
    expect(runDetector(detector, {}, records).findings).toEqual([]);
    expect(runDetector(detector, { rollupMaxPeriodMs: 200_000 }, records).findings.map((f) => [f.object, f.metrics.objects, f.metrics.noOpWrites])).toEqual([[null, 300, 2700]]);
  });

  it('rollupMinObjects 0 turns the roll-up off; one object alone never opens it', () => {
    expect(runDetector(detector, { rollupMinObjects: 0 }, sweep(40, 8, 40_000, 500)).findings).toEqual([]);
    expect(runDetector(detector, {}, sweep(1, 8, 40_000, 500)).findings).toEqual([]);
  });
});
