import { describe, expect, it } from 'vitest';
import { writeFight } from '../../src/detectors/write-fight.js';
import type { Detector } from '../../src/detectors/types.js';
import type { Actor, ObjectRef, RequestRecord } from '../../src/decoding/record.js';
import { iso } from '../../src/detectors/common.js';
import { actor, object, rec, runDetector } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const detector = writeFight as unknown as Detector;
const KCM = 'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/system:serviceaccount:kube-system:horizontal-pod-autoscaler';
const hpa = actor('system:serviceaccount:kube-system:horizontal-pod-autoscaler', KCM);
const argo = actor('system:serviceaccount:argocd:argocd-application-controller', 'argocd-application-controller/v2.10.0 (linux/amd64) kubernetes/$Format');
const web = object('deployments', 'shop', 'web', '', 'apps');
const webScale = object('deployments', 'shop', 'web', 'scale', 'apps');
const operator = actor('system:serviceaccount:shop-system:shop-operator');
const labeler = actor('system:serviceaccount:shop-system:labeler', 'labeler/v1.0.0 (linux/amd64) kubernetes/$Format');
const widget = object('widgets', 'shop', 'w1', '', 'example.com', 'v1alpha1');
const widgetStatus = object('widgets', 'shop', 'w1', 'status', 'example.com', 'v1alpha1');
const kubelet = actor('system:node:node-1', 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
const lease = object('leases', 'kube-node-lease', 'node-1', '', 'coordination.k8s.io');
const busy = actor(
  'system:serviceaccount:kube-system:replicaset-controller',
  'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/system:serviceaccount:kube-system:replicaset-controller',
);

/** HPA writes /scale every 2 s; Argo CD re-applies the manifest 1 s after each: 60 writes each. */
function hpaVsArgo(startMs: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let k = 0; k < 60; k++) {
    out.push(rec(startMs + k * 2000, hpa, webScale, { verb: 'update' }));
    out.push(rec(startMs + k * 2000 + 1000, argo, web, { verb: 'patch', fieldManager: 'argocd-controller' }));
  }
  return out;
}

/** 20 writes a second by one controller, each on a different ReplicaSet: background writes. */
function background(seconds: number): RequestRecord[] {
  return Array.from({ length: seconds * 20 }, (_, i) => rec(T0 + i * 50, busy, object('replicasets', 'shop', `rs-${i % 400}`, '', 'apps')));
}

describe('write-fight: fights', () => {
  it('HPA /scale vs Argo CD apply: one finding with both actors, the split and exact counts', () => {
    const fight = hpaVsArgo(T0);
    const { findings, notes, alerts } = runDetector(detector, {}, [...fight, ...background(120)]);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.kind).toBe('write-fight');
    expect(f.object).toEqual({ apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', namespace: 'shop', name: 'web', subresource: '' });
    // From the first write (the one the first flip overturned) to the last flip.
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:01:59.003Z' });
    expect(f.actors.map((a) => [a.username, a.fieldManagers])).toEqual([
      ['system:serviceaccount:argocd:argocd-application-controller', ['argocd-controller']],
      ['system:serviceaccount:kube-system:horizontal-pod-autoscaler', []],
    ]);
    expect(f.metrics).toMatchObject({
      alternations: 119,
      actorCount: 2,
      writes: 120,
      attempts: 120,
      conflicts: 0,
      durationMs: 119_000,
      flipPeriodP50Ms: 1000,
      flipPeriodP90Ms: 1000,
      // A full 60 s window holds 60 writes, every one a flip.
      peakFlipsPerMin: 60,
      writesPerActor: 'argocd-application-controller(60), horizontal-pod-autoscaler(60)',
      fieldManagersPerActor: 'argocd-application-controller: argocd-controller; horizontal-pod-autoscaler: -',
      subresourcesPerActor: 'argocd-application-controller: main; horizontal-pod-autoscaler: scale',
      subresourceSplit: true,
      splitSubresource: 'scale',
      domain: 'spec',
      reverts: 0,
      // Every write beyond each side's first.
      excessRequests: 118,
      // 120 of 120 + 2,400 background writes.
      shareOfWrites: 0.0476,
      shareOfRequests: 0.0476,
    });
    // Share below medium (0.05), 60 flips a minute above medium's 30.
    expect(f.severity).toBe('medium');
    expect(f.signals).toEqual(['alternating-writers', 'subresource-split', 'scale-vs-spec']);
    expect(f.advice.map((a) => a.id)).toEqual(['one-owner-for-replicas', 'one-owner-per-field', 'server-side-apply-without-force', 'gitops-ignore-differences']);
    expect(f.advice[0]!.text).toContain('horizontal-pod-autoscaler sets spec.replicas through /scale while argocd-application-controller');
    expect(f.evidence).toEqual({
      auditIDs: [fight[0]!.auditID, fight[1]!.auditID, fight[2]!.auditID, fight[3]!.auditID, fight[119]!.auditID],
      firstAuditID: fight[0]!.auditID,
      lastAuditID: fight[119]!.auditID,
      auditLevel: 'Metadata',
      level: 'suspected',
    });
    expect(f.title).toBe(
      'argocd-application-controller and horizontal-pod-autoscaler take turns overwriting deployments.apps shop/web (scale vs main): 119 flips in 119 s, flips a median 1 s apart',
    );
    expect(f.id).toMatch(/^write-fight:[0-9a-f]{8}$/);
    // Opens at 19 flips in the window (low), worsens to medium once a full window holds 60.
    // The finding's timeline: its buckets add up to its own counts.
    expect([
      f.series?.points.reduce((n, p) => n + p.writes, 0),
      f.series?.points.reduce((n, p) => n + p.conflicts, 0),
      f.series?.labels?.writes,
      f.series?.labels?.conflicts,
    ]).toEqual([120, 0, 'writes/s', '409/s']);
    expect(alerts).toEqual(['open write-fight web', 'update write-fight web', 'close write-fight web']);
  });

  it('two controllers taking turns on /status: a status fight, suspected when evidence is not required', () => {
    const records: RequestRecord[] = [];
    for (let k = 0; k < 30; k++) {
      records.push(rec(T0 + k * 2000, operator, widgetStatus));
      records.push(rec(T0 + k * 2000 + 1000, labeler, widgetStatus));
      // A 409 between them counts as a conflict but never flips.
      records.push(rec(T0 + k * 2000 + 1500, operator, widgetStatus, { code: 409 }));
    }
    // Metadata level, no split: by default not enough to call it a fight.
    expect(runDetector(detector, {}, records).findings).toEqual([]);
    const { findings } = runDetector(detector, { requireEvidence: false }, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.object?.subresource).toBe('');
    expect(f.evidence.level).toBe('suspected');
    expect(f.metrics).toMatchObject({
      alternations: 59,
      writes: 60,
      attempts: 90,
      conflicts: 30,
      domain: 'status',
      subresourceSplit: false,
      splitSubresource: null,
      excessRequests: 88,
    });
    expect(f.signals).toEqual(['alternating-writers', 'status-fight', 'conflicts']);
    expect(f.advice.map((a) => a.id)).toEqual(['one-status-writer', 'server-side-apply-without-force']);
  });

  it('bodies that each side re-sends after the other wrote prove the reverts', () => {
    const records: RequestRecord[] = [];
    for (let k = 0; k < 30; k++) {
      records.push(rec(T0 + k * 2000, operator, widget, { level: 'Request', body: { content: 'A', timestamps: '', timestampFields: [] } }));
      records.push(rec(T0 + k * 2000 + 1000, labeler, widget, { level: 'Request', body: { content: 'B', timestamps: '', timestampFields: [] } }));
    }
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    // The operator reverts 29 times (its first write had no predecessor), the labeler 29 times.
    expect(findings[0]!.metrics.reverts).toBe(58);
    expect(findings[0]!.signals).toContain('reverts');
    expect(findings[0]!.evidence.level).toBe('proven');
    expect(findings[0]!.evidence.auditLevel).toBe('Request');
  });

  it('a fight that stops and starts again is two episodes', () => {
    const { findings } = runDetector(detector, {}, [...hpaVsArgo(T0), ...hpaVsArgo(T0 + 600_000)]);
    expect(findings.map((f) => [f.window.from, f.metrics.alternations])).toEqual([
      ['2026-08-08T18:00:00.003Z', 119],
      // The object was forgotten while idle, so the second fight starts from scratch.
      ['2026-08-08T18:10:00.003Z', 119],
    ]);
  });
});

describe('write-fight: not a fight', () => {
  /** RetryOnConflict controller: status update every second (409 then success 11 ms later every 5th). */
  function statusVsSpec(): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let s = 0; s < 120; s++) {
      out.push(rec(T0 + s * 1000, labeler, widget, { verb: 'patch' }));
      if (s % 5 === 0) out.push(rec(T0 + s * 1000 + 100, operator, widgetStatus, { code: 409 }));
      out.push(rec(T0 + s * 1000 + 114, operator, widgetStatus));
    }
    return out;
  }

  /**
   * Co-owners of one object, both on the main resource (Metadata level): a reporter patches its
   * fields every 1.5 s; a controller reacts with GET + PUT under RetryOnConflict (one 409 in 3).
   */
  function coOwners(): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let k = 0; k < 120; k++) {
      out.push(rec(T0 + k * 1500, labeler, widget, { verb: 'patch', fieldManager: 'labeler' }));
      if (k % 3 === 0) out.push(rec(T0 + k * 1500 + 20, operator, widget, { code: 409 }));
      out.push(rec(T0 + k * 1500 + 40, operator, widget));
    }
    return out;
  }

  const quiet: Array<[string, () => RequestRecord[]]> = [
    ['a controller updating /status while a second client patches the main resource 1×/s', statusVsSpec],
    ['co-owners alternating on the main resource without evidence of reverts', coOwners],
    ['node lease renewals', () => Array.from({ length: 60 }, (_, i) => rec(T0 + i * 10_000, kubelet, lease))],
    ['one busy writer on many objects', () => background(120)],
    ['one writer, one object, 10 writes a second', () => Array.from({ length: 1200 }, (_, i) => rec(T0 + i * 100, operator, widget))],
    [
      'ten different actors writing once each (flips, but nobody writes 3 times)',
      () => Array.from({ length: 10 }, (_, i) => rec(T0 + i * 1000, actor(`user-${i}`, 'kubectl/v1.31.0 (linux/amd64) kubernetes/9edcffc'), widget, { verb: 'patch' })),
    ],
    [
      'alternating, but at most 5 flips a minute',
      () =>
        Array.from({ length: 60 }, (_, i) =>
          rec(T0 + i * 12_000, i % 2 === 0 ? operator : labeler, webScale, { level: 'Request', body: { content: String(i % 2), timestamps: '', timestampFields: [] } }),
        ),
    ],
    ['dry-run writes', () => hpaVsArgo(T0).map((r) => ({ ...r, dryRun: true, isWrite: false }))],
  ];
  it.each(quiet)('%s: nothing', (_name, make) => {
    const { findings, notes } = runDetector(detector, {}, make());
    expect([...findings, ...notes]).toEqual([]);
  });

  it('status vs main counts when includeStatusVsMain is set', () => {
    // The status vs main split is evidence once the user counts it.
    const { findings } = runDetector(detector, { includeStatusVsMain: true }, statusVsSpec());
    expect(findings).toHaveLength(1);
    // 24 status 409s, but the first comes before the first flip opened the episode's books.
    expect(findings[0]!.metrics).toMatchObject({ alternations: 239, subresourceSplit: true, splitSubresource: 'status', conflicts: 23 });
  });

  // try62 s08: the HPA on its default 15 s sync sets replicas through /scale, Argo CD's self-heal
  // reverts them 3 s later: 8 flips a minute, which the old default of 10 never reported.
  it('an HPA on its default 15 s sync against a GitOps revert is a fight (8 flips a minute)', () => {
    const records: RequestRecord[] = [];
    for (let k = 0; k < 40; k++) {
      records.push(rec(T0 + k * 15_000, hpa, webScale, { verb: 'update' }));
      records.push(rec(T0 + k * 15_000 + 3000, argo, web, { verb: 'patch', fieldManager: 'argocd-controller' }));
    }
    const { findings } = runDetector(detector, {}, [...records, ...background(600)]);
    expect(findings.map((f) => [f.severity, f.metrics.alternations, f.metrics.peakFlipsPerMin, f.metrics.writes, f.metrics.splitSubresource])).toEqual([
      ['low', 79, 8, 80, 'scale'],
    ]);
    expect(runDetector(detector, { minAlternations: 9 }, records).findings).toEqual([]);
  });

  // try63 w3/w6: at Request level the bodies show whether the main-resource writer puts replicas
  // back; when neither side ever re-sends its own body, the /scale split is no evidence.
  it('an HPA on /scale beside a writer whose logged bodies never put anything back: no fight; re-sent bodies: a proven one', () => {
    const body = (content: string) => ({ level: 'Request', body: { content, timestamps: '', timestampFields: [] } });
    const run = (argoBody: (k: number) => string, hpaReplicas: (k: number) => number = (k) => 3 + (k % 5)) => {
      const records: RequestRecord[] = [];
      for (let k = 0; k < 40; k++) {
        records.push(rec(T0 + k * 15_000, hpa, webScale, { verb: 'update', ...body(`replicas=${hpaReplicas(k)}`) }));
        records.push(rec(T0 + k * 15_000 + 3000, argo, web, { verb: 'patch', fieldManager: 'argocd-controller', ...body(argoBody(k)) }));
      }
      return runDetector(detector, {}, records).findings.map((f) => [f.evidence.level, f.metrics.evidenceBasis, f.metrics.reverts]);
    };
    expect(run((k) => `labels.sync=${k}`)).toEqual([]);
    // One side puts its body back after each of the other's writes: the split stands.
    expect(run(() => 'replicas=2')).toEqual([['suspected', 'subresource-split', 39]]);
    // Both do: proven from the bodies.
    expect(
      run(
        () => 'replicas=2',
        () => 6,
      ),
    ).toEqual([['proven', 'reverts', 78]]);
  });

  it('thresholds come from options', () => {
    // A write every 6 s, alternating: every full window holds 10 flips, 5 writes by each side.
    const records = Array.from({ length: 60 }, (_, i) => rec(T0 + i * 6000, i % 2 === 0 ? operator : labeler, widget));
    const opts = { requireEvidence: false };
    expect(runDetector(detector, { ...opts, minAlternations: 11 }, records).findings).toHaveLength(0);
    expect(runDetector(detector, { ...opts, minAlternations: 10 }, records).findings.map((f) => f.metrics.alternations)).toEqual([59]);
    expect(runDetector(detector, { ...opts, minAlternations: 10, minWritesPerActor: 6 }, records).findings).toHaveLength(0);
    expect(runDetector(detector, { minAlternations: 10 }, records).findings).toHaveLength(0);
    expect(runDetector(detector, { requireEvidence: false }, coOwners()).findings).toHaveLength(1);
  });

  it('rejects a window that is not a multiple of the step', () => {
    expect(detector.meta.optionsSchema.safeParse({ windowMs: 60_000, stepMs: 7000 }).success).toBe(false);
  });
});

/**
 * resourceVersion ping-pong at Metadata level (issue 25, class 7). Every writer below PUTs (update)
 * on the RV it read, as a store with one RV counter hands them out, so the RV chain holds in every
 * case: what separates the fight is that both sides write *because* the other just wrote.
 */
describe('write-fight: resourceVersion ping-pong at Metadata level', () => {
  const eso = actor('system:serviceaccount:external-secrets:external-secrets', 'external-secrets/v0.10.4 (linux/amd64) kubernetes/$Format');
  const pgop = actor('system:serviceaccount:postgres-operator:postgres-operator', 'postgres-operator/v1.13.0 (linux/amd64) kubernetes/$Format');
  const certs = actor('system:serviceaccount:cert-manager:cert-manager', 'cert-manager-certificates-issuing/v1.15.1 (linux/amd64) kubernetes/$Format');
  const reflector = actor('system:serviceaccount:reflector:reflector', 'reflector/v7.1.288 (linux/amd64) kubernetes/$Format');
  const rotator = actor('system:serviceaccount:vault:vault-secrets-operator', 'vault-secrets-operator/v0.8.1 (linux/amd64) kubernetes/$Format');
  const human = actor('alice@example.com', 'kubectl/v1.31.0 (linux/amd64) kubernetes/9edcffc');
  const kcmA = actor('system:kube-controller-manager', 'kube-controller-manager/v1.31.0 (linux/amd64) kubernetes/9edcffc/leader-election');
  const kcmB = actor('system:kube-controller-manager', 'kube-controller-manager/v1.31.1 (linux/amd64) kubernetes/9edcffc/leader-election');
  const dbSecret = object('secrets', 'shop', 'db-credentials');
  const tlsSecret = object('secrets', 'shop', 'web-tls');
  const appConfig = object('configmaps', 'shop', 'app-config');
  const kcmLease = object('leases', 'kube-system', 'kube-controller-manager', '', 'coordination.k8s.io');

  /** One object's resourceVersion, raised by every successful write (and by other objects' writes in between). */
  class Store {
    rv = 481_200;
    /** A successful PUT on what the writer read: carries the current RV, produces the next. */
    put(t: number, a: Actor, o: ObjectRef, bump = 1): RequestRecord {
      const r = rec(t, a, o, { resourceVersion: String(this.rv) });
      this.rv += bump;
      return r;
    }
  }

  /**
   * external-secrets#3817 shape: ESO and a postgres operator each rewrite the Secret as soon as the
   * other's write reaches them (150–449 ms), 400 writes in turn. Every 25th write is preceded by a
   * PUT of the same side from before the other's last write (its periodic refresh racing the
   * watch event): 409 Conflict, on both sides in turn.
   */
  function secretFight(): { records: RequestRecord[]; writes: RequestRecord[] } {
    const s = new Store();
    const records: RequestRecord[] = [];
    const writes: RequestRecord[] = [];
    let t = T0;
    let staleRv = '';
    for (let k = 0; k < 400; k++) {
      const who = k % 2 === 0 ? eso : pgop;
      if (k % 25 === 12) records.push(rec(t - 100, who, dbSecret, { code: 409, resourceVersion: staleRv }));
      staleRv = String(s.rv);
      const w = s.put(t, who, dbSecret, 1 + ((k * 7) % 13));
      records.push(w);
      writes.push(w);
      t = w.ts + 150 + ((k * 53) % 300);
    }
    return { records, writes };
  }

  /** Two co-owners of one Secret, each GET-then-PUT on its own timer (every 5 s and every 7 s) for 10 minutes. */
  function coOwnersOnTimers(): RequestRecord[] {
    const s = new Store();
    const times = [...Array.from({ length: 120 }, (_, i) => [T0 + i * 5000, 0] as const), ...Array.from({ length: 86 }, (_, i) => [T0 + 2300 + i * 7000, 1] as const)].sort(
      (x, y) => x[0] - y[0],
    );
    return times.map(([t, w]) => s.put(t, w === 0 ? rotator : eso, dbSecret));
  }

  /** A cert controller rewrites a Secret every `periodMs`; a reflector annotates it 150 ms after each write. */
  function renewalAndReflector(periodMs: number, renewals: number): RequestRecord[] {
    const s = new Store();
    return Array.from({ length: renewals }, (_, i) => [s.put(T0 + i * periodMs, certs, tlsSecret), s.put(T0 + i * periodMs + 153, reflector, tlsSecret)]).flat();
  }

  /** An operator reverts a human's `kubectl edit` of its ConfigMap 200 ms later; the human tries again 4 minutes on, 8 times. */
  function humanVsController(): RequestRecord[] {
    const s = new Store();
    return Array.from({ length: 8 }, (_, i) => [s.put(T0 + i * 240_000, human, appConfig), s.put(T0 + i * 240_000 + 203, operator, appConfig)]).flat();
  }

  /**
   * Leader election with two candidates: the leader renews every 2 s (leaseDuration 15 s); it
   * stops after 45 s (crash or rollout) and the other acquires once the lease expired, 5 times.
   */
  function leaseFailovers(): RequestRecord[] {
    const s = new Store();
    const out: RequestRecord[] = [];
    let t = T0;
    for (let term = 0; term < 5; term++) {
      const who = term % 2 === 0 ? kcmA : kcmB;
      for (let i = 0; i < 23; i++) out.push(s.put(t + i * 2000, who, kcmLease));
      t += 22 * 2000 + 15_000;
    }
    return out;
  }

  /** Argo CD applies the Deployment every 3 minutes (patch); the HPA updates /scale every 15 s. */
  function gitopsAndHpa(): RequestRecord[] {
    const s = new Store();
    const out: RequestRecord[] = [];
    for (let i = 0; i < 40; i++) out.push(s.put(T0 + 7000 + i * 15_000, hpa, webScale));
    for (let i = 0; i < 4; i++) out.push(rec(T0 + i * 180_000, argo, web, { verb: 'patch', fieldManager: 'argocd-controller' }));
    return out;
  }

  it('two writers each PUTting on the resourceVersion the other just produced: one finding resting on the ping-pong', () => {
    const { records, writes } = secretFight();
    const { findings, notes, alerts } = runDetector(detector, {}, [...records, ...background(140)]);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.object).toEqual({ apiGroup: '', apiVersion: 'v1', resource: 'secrets', namespace: 'shop', name: 'db-credentials', subresource: '' });
    expect(f.window).toEqual({ from: iso(writes[0]!.ts), to: iso(writes[399]!.ts) });
    expect(f.metrics).toMatchObject({
      alternations: 399,
      actorCount: 2,
      writes: 400,
      // 16 stale PUTs (k = 12, 37, …, 387), 8 by each side.
      attempts: 416,
      conflicts: 16,
      subresourceSplit: false,
      reverts: 0,
      // Every write but the first was a hand-off; ESO's first write opened the episode.
      rvHandoffs: 399,
      handoffsPerActor: 'external-secrets(199/200), postgres-operator(200/200)',
      // Received 150 + (k·53 mod 300) ms after the other's write completed; a flip period adds its 3 ms latency.
      handoffReactionP50Ms: 296,
      flipPeriodP50Ms: 299,
      durationMs: 120_000,
      peakFlipsPerMin: 200,
      evidenceBasis: 'rv-ping-pong',
      excessRequests: 414,
    });
    expect(f.signals).toEqual(['alternating-writers', 'rv-ping-pong', 'conflicts']);
    // Metadata level shows no bodies: suspected, and the advice says what would confirm it.
    expect(f.evidence).toEqual({
      auditIDs: [writes[0]!.auditID, writes[1]!.auditID, writes[2]!.auditID, writes[3]!.auditID, writes[399]!.auditID],
      firstAuditID: writes[0]!.auditID,
      lastAuditID: writes[399]!.auditID,
      auditLevel: 'Metadata',
      level: 'suspected',
    });
    expect(f.advice.map((a) => a.id)).toEqual(['confirm-rv-ping-pong', 'one-owner-per-field', 'server-side-apply-without-force']);
    expect(f.advice[0]!.text).toContain("199 of external-secrets's 200 writes and 200 of postgres-operator's 200 were PUTs sent");
    expect(f.advice[0]!.text).toContain('Metadata level does not show which fields each write set');
    expect(f.advice[0]!.text).toContain('kubectl get secret db-credentials -n shop -o yaml --show-managed-fields');
    expect(f.title).toBe(
      'external-secrets and postgres-operator take turns overwriting secrets shop/db-credentials (resourceVersion ping-pong): 399 flips in 120 s, flips a median 0.3 s apart',
    );
    // 416 of 3,016 writes in the window (share 0.138: medium), 200 flips a minute (high).
    expect([f.metrics.shareOfWrites, f.severity]).toEqual([0.1379, 'high']);
    expect(alerts).toEqual(['open write-fight db-credentials', 'update write-fight db-credentials', 'close write-fight db-credentials']);
    // Without the option the same log gives nothing: Metadata level has no other evidence.
    expect(runDetector(detector, { rvPingPong: false }, records).findings).toEqual([]);
  });

  it('at RequestResponse level a hand-off needs the exact RV the other write produced', () => {
    const { records } = secretFight();
    // Each write's response RV is what the next write carries: all 399 hand-offs stand.
    const exact = records.map((r) => ({ ...r, level: 'RequestResponse', responseResourceVersion: '' }));
    const next = new Map(records.filter((r) => r.code === 200).map((r, i, all) => [r.auditID, all[i + 1]?.resourceVersion ?? ''] as const));
    for (const r of exact) if (r.code === 200) r.responseResourceVersion = next.get(r.auditID) ?? '';
    expect(runDetector(detector, {}, exact).findings.map((f) => [f.metrics.rvHandoffs, f.evidence.auditLevel])).toEqual([[399, 'RequestResponse']]);
    // A response RV that no later write carries (someone else wrote in between): no hand-offs, no finding.
    const broken = exact.map((r) => (r.code === 200 ? { ...r, responseResourceVersion: `x${r.resourceVersion}` } : r));
    expect(runDetector(detector, {}, broken).findings).toEqual([]);
  });

  it('on a resource other than Secrets the advice names the Request-level audit rule that would prove it', () => {
    const { records } = secretFight();
    const f = runDetector(
      detector,
      {},
      records.map((r) => ({ ...r, object: appConfig })),
    ).findings;
    expect(f.map((x) => [x.object?.resource, x.metrics.evidenceBasis])).toEqual([['configmaps', 'rv-ping-pong']]);
    expect(f[0]!.advice[0]!.text).toContain(
      'To confirm, log writes to configmaps at Request level (an audit policy rule with level: Request for that resource, verbs update and patch)',
    );
  });

  const lookAlikes: Array<[string, () => RequestRecord[]]> = [
    ['two co-owners GET-then-PUT one Secret on their own timers (5 s and 7 s)', coOwnersOnTimers],
    ['a cert controller renewing a Secret daily and a reflector copying it', () => renewalAndReflector(86_400_000, 3)],
    ['short-lived certificates renewed every 20 s, the reflector annotating each 150 ms later', () => renewalAndReflector(20_000, 30)],
    ['a controller reverting a human edit, minutes apart', humanVsController],
    ['leader-election candidates taking over a Lease after it expired', leaseFailovers],
  ];
  it.each(lookAlikes)('%s: nothing, even with the rate gates lowered', (_name, make) => {
    const records = make();
    expect(runDetector(detector, {}, records).findings).toEqual([]);
    // With 1 flip and 1 write per actor enough, only the ping-pong test stands between them and a finding.
    const lowered = { minAlternations: 1, minWritesPerActor: 1 };
    expect(runDetector(detector, lowered, records).findings).toEqual([]);
    expect(runDetector(detector, { ...lowered, requireEvidence: false }, records).findings.length).toBeGreaterThan(0);
  });

  it('a Deployment applied by GitOps every 3 min and scaled by the HPA every 15 s: nothing', () => {
    const { findings, notes } = runDetector(detector, {}, gitopsAndHpa());
    expect([...findings, ...notes]).toEqual([]);
  });

  it('the ping-pong thresholds come from options', () => {
    const { records } = secretFight();
    // Reactions are 150–449 ms after the other's write completed.
    expect(runDetector(detector, { maxReactionMs: 449 }, records).findings.map((f) => f.metrics.rvHandoffs)).toEqual([399]);
    expect(runDetector(detector, { maxReactionMs: 148 }, records).findings).toEqual([]);
    // The co-owners' chance hand-offs pass only when nearly no share is asked for.
    expect(runDetector(detector, { minHandoffShare: 0.05 }, coOwnersOnTimers()).findings.map((f) => f.signals.includes('rv-ping-pong'))).toEqual([true]);
  });
});
