import { describe, expect, it } from 'vitest';
import { createStorm, generatedOwner, namePrefix, revisionOf } from '../../src/detectors/create-storm.js';
import type { Detector } from '../../src/detectors/types.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { actor, object, rec, runDetector } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const detector = createStorm as unknown as Detector;
const CM_SA = 'system:serviceaccount:cert-manager:cert-manager';
const ua = (controller: string): string => `cert-manager-${controller}/v1.14.4 (linux/amd64) cert-manager/4a1a1b4`;
const certificates = actor(CM_SA, ua('certificates-issuing'));
const requestManager = actor(CM_SA, ua('certificates-request-manager'));
const readiness = actor(CM_SA, ua('certificates-readiness'));
const kyverno = actor('system:serviceaccount:kyverno:kyverno-background-controller', 'kyverno/v1.11.4 (linux/amd64) kyverno/f4ad6b9');
const cronJobs = actor(
  'system:serviceaccount:kube-system:cronjob-controller',
  'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/system:serviceaccount:kube-system:cronjob-controller',
);
const rsController = actor(
  'system:serviceaccount:kube-system:replicaset-controller',
  'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/system:serviceaccount:kube-system:replicaset-controller',
);
const restorer = actor('system:serviceaccount:velero:velero', 'velero-server/v1.13.0 (linux/amd64) 76670e9');
const pvcController = actor(
  'system:serviceaccount:kube-system:statefulset-controller',
  'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/system:serviceaccount:kube-system:statefulset-controller',
);
const sliceController = actor(
  'system:serviceaccount:kube-system:endpointslice-controller',
  'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/system:serviceaccount:kube-system:endpointslice-controller',
);
const proxy = actor('system:serviceaccount:monitoring:kube-rbac-proxy', 'kube-rbac-proxy/v0.16.0');

/** `generateName`'s alphabet (k8s.io/apimachinery/pkg/util/rand), to make suffixes as the API server does. */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
function suffix(i: number): string {
  let s = '';
  let v = i * 7919 + 104_729;
  for (let k = 0; k < 5; k++) {
    s += ALPHABET[v % ALPHABET.length];
    v = Math.floor(v / ALPHABET.length);
  }
  return s;
}

const CREATE = { verb: 'create', code: 201 } as const;
const certRequest = (name: string) => object('certificaterequests', 'shop', name, '', 'cert-manager.io');

/**
 * cert-manager#6714: the issuing, request-manager and readiness controllers (one service account,
 * three userAgents) each create a new CertificateRequest for Certificate `web-tls` every 625 ms
 * (1.6/s each, 4.8/s together) for 4 minutes: 384 each, 1,152 in all.
 */
function certManagerLoop(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let k = 0; k < 384; k++) {
    [certificates, requestManager, readiness].forEach((a, j) => {
      const i = k * 3 + j;
      out.push(rec(T0 + k * 625 + j * 208, a, certRequest(`web-tls-${suffix(i)}`), CREATE));
    });
  }
  return out;
}

describe('create-storm: storms', () => {
  it('cert-manager#6714: three controllers of one service account creating CertificateRequests for one Certificate', () => {
    const creates = certManagerLoop();
    const { findings, notes, alerts } = runDetector(detector, {}, creates);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.kind).toBe('create-storm');
    // Excess 912 (< severityExcess.high 1,000): capped at medium although it is all of the log's writes.
    expect(f.severity).toBe('medium');
    expect(f.actors.map((a) => [a.username, a.userAgent])).toEqual([[CM_SA, ua('certificates-issuing')]]);
    expect(f.object).toBeNull();
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:03:59.794Z' });
    expect(f.metrics).toEqual({
      creates: 1152,
      namedCreates: 1152,
      recoveredNames: 0,
      namePrefixes: 'web-tls(1152)',
      deletes: 0,
      resource: 'certificaterequests.cert-manager.io',
      namespace: 'shop',
      durationMs: 239_791,
      meanCreatesPerSec: 4.8,
      // Creates are 208–209 ms apart: at most 5 in any 1 s bucket.
      peakCreatesPerSec: 5,
      // 1,152 − (⌊239.791⌋ + 1).
      excessRequests: 912,
      // 1 + 1,151 creates less the 239.791 s of budget between them.
      excessCreates: 912,
      shareOfWrites: 1,
      shareOfRequests: 1,
      userAgents: `${ua('certificates-issuing')}(384), ${ua('certificates-readiness')}(384), ${ua('certificates-request-manager')}(384)`,
    });
    expect(f.signals).toEqual(['new-object-per-pass', 'piling-up', 'one-owner']);
    expect(f.advice.map((a) => a.id)).toEqual(['find-existing-first', 'deterministic-name', 'check-owner', 'clean-up']);
    expect(f.advice[2]!.text).toContain('named web-tls-…');
    expect(f.evidence).toEqual({
      auditIDs: [creates[0]!.auditID, creates[1]!.auditID, creates[2]!.auditID, creates[3]!.auditID, creates[1151]!.auditID],
      firstAuditID: creates[0]!.auditID,
      lastAuditID: creates[1151]!.auditID,
      auditLevel: 'Metadata',
      level: 'proven',
    });
    expect(f.title).toBe('cert-manager created 1,152 new certificaterequests.cert-manager.io in namespace shop in 4m 00s (4.8/s, peak 5/s)');
    expect(f.series?.points.reduce((n, p) => n + p.writes, 0)).toBe(1152);
    // The owner web-tls opens first (100 excess creates), and ends without a finding when the
    // namespace group opens (500).
    expect(alerts).toEqual(['open create-storm ', 'close create-storm ', 'open create-storm ', 'close create-storm ']);
  });

  it('kyverno#10049: UpdateRequests created with generateName and deleted again (churn)', () => {
    const ur = object('updaterequests', 'kyverno', '', '', 'kyverno.io', 'v1beta1');
    const records: RequestRecord[] = [];
    for (let i = 0; i < 1800; i++) {
      records.push(rec(T0 + i * 100, kyverno, ur, CREATE));
      records.push(rec(T0 + i * 100 + 50, kyverno, object('updaterequests', 'kyverno', `ur-${suffix(i)}`, '', 'kyverno.io', 'v1beta1'), { verb: 'delete', code: 200 }));
    }
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    // 10/s for 3 min: 1 + 1,799 × 0.9 = 1,620 excess creates.
    expect([f.severity, f.metrics.creates, f.metrics.namedCreates, f.metrics.namePrefixes, f.metrics.excessCreates, f.metrics.meanCreatesPerSec]).toEqual([
      'high',
      1800,
      0,
      '',
      1620,
      10,
    ]);
    // Deletes of updaterequests in the namespace from the episode's first create to its close: all 1,800.
    expect(f.metrics.deletes).toBe(1800);
    expect(f.signals).toEqual(['new-object-per-pass', 'churn']);
    expect(f.advice.map((a) => a.id)).toEqual(['find-existing-first', 'deterministic-name']);
  });

  it('a storm that stops and starts again (3 minutes at 10/s, twice, 10 minutes apart) is two episodes', () => {
    const burst = (from: number): RequestRecord[] =>
      Array.from({ length: 1800 }, (_, i) => rec(from + i * 100, kyverno, object('updaterequests', 'kyverno', '', '', 'kyverno.io'), CREATE));
    const { findings } = runDetector(detector, {}, [...burst(T0), ...burst(T0 + 600_000)]);
    expect(findings.map((f) => [f.window.from, f.metrics.creates])).toEqual([
      ['2026-08-08T18:00:00.003Z', 1800],
      ['2026-08-08T18:10:00.003Z', 1800],
    ]);
  });

  it.each([
    ['numbered copies of one name (app-config-0000, -0001, …)', (i: number) => `app-config-${String(i).padStart(4, '0')}`, [], null],
    ['generateName copies for one owner (app-config-x2k4p, …)', (i: number) => `app-config-${suffix(i)}`, ['one-owner'], 'check-owner'],
  ])('a loop of %s at 10/s for 4 minutes: one-owner only for generateName', (_name, nameOf, owner, ownerAdvice) => {
    const records = Array.from({ length: 2400 }, (_, i) => rec(T0 + i * 100, restorer, object('configmaps', 'shop', nameOf(i)), CREATE));
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.metrics.namePrefixes, f.signals, f.advice.map((a) => a.id)])).toEqual([
      [
        'app-config(2400)',
        ['new-object-per-pass', 'piling-up', ...owner],
        ['find-existing-first', 'deterministic-name', ...(ownerAdvice === null ? [] : [ownerAdvice]), 'clean-up'],
      ],
    ]);
  });

  // Severity and opening weigh how long the loop ran, not only how many it made (issue 25,
  // classes 4 and 5): a loop opens once its excess, weighted by busy time / sustainMs, reaches
  // minExcessCreates (about 129 s at 10/s, 194 s at 5/s).
  it.each([
    ['2,000 at 10/s (200 s)', 2000, 100, ['high', 2000, 1800]],
    ['1,500 at 5/s (300 s)', 1500, 200, ['high', 1500, 1200]],
    ['1,200 at 10/s (120 s: not yet open)', 1200, 100, null],
  ])('a steady loop of %s', (_name, count, gapMs, expected) => {
    const records = Array.from({ length: count }, (_, i) => rec(T0 + i * gapMs, kyverno, object('updaterequests', 'kyverno', '', '', 'kyverno.io'), CREATE));
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.severity, f.metrics.creates, f.metrics.excessRequests])).toEqual(expected === null ? [] : [expected]);
  });

  /** `bursts` bursts of `count` ConfigMaps `gapMs` apart, one every `everyMs`: a loop that pauses between passes. */
  function pausingLoop(bursts: number, count: number, gapMs: number, everyMs: number): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let b = 0; b < bursts; b++) for (let i = 0; i < count; i++) out.push(rec(T0 + b * everyMs + i * gapMs, kyverno, object('configmaps', 'shop', `cfg-${b}-${i}`), CREATE));
    return out;
  }

  // 2 minutes at 10/s every 4 minutes: the first burst (120 s) ends before its weighted score
  // opens; the pause keeps the score, so the second opens at once; each later burst starts with the
  // busy time of the episode before it. 1,000 at 20/s every 5 minutes: every second pass opens at
  // first, then every pass.
  it.each([
    [
      '2 minutes at 10/s every 4 minutes for 20 minutes',
      [5, 1200, 100, 240_000],
      [
        ['2026-08-08T18:00:00.003Z', 2400, 2040],
        ['2026-08-08T18:08:00.003Z', 1200, 1080],
        ['2026-08-08T18:12:00.003Z', 1200, 1080],
        ['2026-08-08T18:16:00.003Z', 1200, 1080],
      ],
    ],
    [
      '1,000 at 20/s every 5 minutes for 30 minutes',
      [6, 1000, 50, 300_000],
      [
        ['2026-08-08T18:00:00.003Z', 2000, 1650],
        ['2026-08-08T18:10:00.003Z', 2000, 1650],
        ['2026-08-08T18:20:00.003Z', 1000, 950],
        ['2026-08-08T18:25:00.003Z', 1000, 950],
      ],
    ],
  ] as const)('a loop that pauses keeps its score: %s', (_name, [bursts, count, gapMs, everyMs], expected) => {
    const { findings } = runDetector(detector, {}, pausingLoop(bursts, count, gapMs, everyMs));
    expect(findings.map((f) => [f.window.from, f.metrics.creates, f.metrics.excessRequests])).toEqual(expected);
  });

  it('sustainMs 0: the excess alone opens, and an 800-object burst in 20 s is reported', () => {
    const { findings } = runDetector(detector, { sustainMs: 0 }, pausingLoop(1, 800, 25, 0));
    expect(findings.map((f) => [f.metrics.creates, f.metrics.excessRequests])).toEqual([[800, 780]]);
  });

  it('options: a higher budget (createsPerSec 5, perOwner 5/s) leaves the 4.8/s cert-manager loop alone', () => {
    expect(runDetector(detector, { createsPerSec: 5, perOwner: { ownerCreatesPerSec: 5 } }, certManagerLoop()).findings).toEqual([]);
  });

  /**
   * cert-manager#6714 at the rate one signing round trip allows: the request-manager creates a new
   * CertificateRequest for Certificate `api-tls` every 1.1 s for 4 minutes (0.9/s, under the
   * namespace budget of 1/s), while the namespace's other 20 Certificates get one each.
   */
  function slowOwnerLoop(): RequestRecord[] {
    const out = Array.from({ length: 218 }, (_, i) => rec(T0 + i * 1100, requestManager, certRequest(`api-tls-${suffix(i)}`), CREATE));
    for (let c = 0; c < 20; c++) out.push(rec(T0 + 5_000 + c * 10_000 + 550, requestManager, certRequest(`svc${c}-tls-${suffix(1000 + c)}`), CREATE));
    return out;
  }

  it('cert-manager#6714 at 0.9/s on one Certificate: under the namespace budget, an owner loop', () => {
    const records = slowOwnerLoop();
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    const loop = records.filter((r) => r.object!.name.startsWith('api-tls-'));
    expect(f.title).toBe('cert-manager created 218 new certificaterequests.cert-manager.io for one owner (api-tls-…) in namespace shop in 3m 59s (0.91/s, peak 1/s)');
    // All the log's writes (share 1: critical), capped at medium by its 194 excess creates.
    expect([f.severity, f.object, f.window]).toEqual(['medium', null, { from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:03:58.703Z' }]);
    expect(f.metrics).toMatchObject({
      creates: 218,
      namedCreates: 218,
      namePrefixes: 'api-tls(218)',
      owner: 'api-tls',
      meanCreatesPerSec: 0.91,
      // 218 − (⌊238.7 × 0.1⌋ + 1) and 1 + 217 × (1 − 0.11).
      excessRequests: 194,
      excessCreates: 194,
    });
    expect(f.signals).toEqual(['new-object-per-pass', 'piling-up', 'one-owner']);
    expect(f.evidence.auditIDs).toEqual([...loop.slice(0, 4).map((r) => r.auditID), loop.at(-1)!.auditID]);
  });

  it('the per-owner look comes from options', () => {
    expect(runDetector(detector, { perOwner: { ownerMinExcessCreates: 200 } }, slowOwnerLoop()).findings).toEqual([]);
    expect(runDetector(detector, { perOwner: { ownerCreatesPerSec: 1 } }, slowOwnerLoop()).findings).toEqual([]);
  });

  const issuer = actor('system:serviceaccount:cert-manager:aws-privateca-issuer', 'aws-privateca-issuer/v1.2.7');
  const PATCH = { verb: 'patch', code: 200 } as const;

  /**
   * {@link slowOwnerLoop} at Metadata level: a `generateName` create has no `objectRef.name`
   * (`audit-formats.md`), and the issuer's status patch 300 ms later is the first request that names
   * each new CertificateRequest.
   */
  function namelessOwnerLoop(): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (const r of slowOwnerLoop()) {
      const name = r.object!.name;
      out.push({ ...r, object: certRequest('') });
      out.push(rec(r.receivedTs + 300, issuer, object('certificaterequests', 'shop', name, 'status', 'cert-manager.io'), PATCH));
    }
    return out.sort((a, b) => a.ts - b.ts);
  }

  it('cert-manager#6714 at Metadata level: the names of nameless creates come from the requests that name the new objects', () => {
    const records = namelessOwnerLoop();
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    const loop = records.filter((r) => r.verb === 'create' && r.receivedTs < T0 + 5_000 + 550);
    expect(f.title).toBe('cert-manager created 218 new certificaterequests.cert-manager.io for one owner (api-tls-…) in namespace shop in 3m 59s (0.91/s, peak 1/s)');
    expect([f.severity, f.object, f.window]).toEqual(['medium', null, { from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:03:58.703Z' }]);
    expect(f.metrics).toMatchObject({
      creates: 218,
      namedCreates: 0,
      recoveredNames: 218,
      namePrefixes: 'api-tls(218)',
      owner: 'api-tls',
      excessRequests: 194,
      excessCreates: 194,
    });
    expect(f.evidence.auditIDs.slice(0, 2)).toEqual(loop.slice(0, 2).map((r) => r.auditID));
  });

  it('name recovery comes from options: nameRecoveryMs 0 turns it off, 200 ms is too short for the 300 ms patch', () => {
    expect(runDetector(detector, { nameRecoveryMs: 0 }, namelessOwnerLoop()).findings).toEqual([]);
    expect(runDetector(detector, { nameRecoveryMs: 200 }, namelessOwnerLoop()).findings).toEqual([]);
  });

  it('a name seen before, or a delete, names no nameless create', () => {
    const creates = slowOwnerLoop().map((r) => ({ ...r, object: certRequest('') }));
    // Each create is followed by a status patch of an old request (seen in the minute before, after
    // a first nameless create made the resource's names worth remembering) and a pruner's delete of
    // one never seen: neither is a new object made by the create.
    const old = Array.from({ length: 20 }, (_, i) => `api-tls-${suffix(5000 + i)}`);
    const out: RequestRecord[] = [rec(T0 - 70_000, requestManager, certRequest(''), CREATE)];
    old.forEach((n, i) => out.push(rec(T0 - 60_000 + i * 1000, issuer, object('certificaterequests', 'shop', n, 'status', 'cert-manager.io'), PATCH)));
    creates.forEach((r, i) => {
      out.push(r);
      out.push(rec(r.receivedTs + 300, issuer, object('certificaterequests', 'shop', old[i % 20]!, 'status', 'cert-manager.io'), PATCH));
      out.push(rec(r.receivedTs + 400, issuer, certRequest(`api-tls-${suffix(9000 + i)}`), { verb: 'delete', code: 200 }));
    });
    expect(
      runDetector(
        detector,
        {},
        out.sort((a, b) => a.ts - b.ts),
      ).findings,
    ).toEqual([]);
  });

  it('the namespace group reports a fast loop once: its owner group does not open beside it', () => {
    expect(runDetector(detector, {}, certManagerLoop()).findings.map((f) => f.metrics.owner)).toEqual([undefined]);
  });

  it('one owner at 5/s for 10 minutes, then other traffic: the namespace finding alone, not the owner again after it closed', () => {
    const loop = Array.from({ length: 3000 }, (_, i) => rec(T0 + i * 200, restorer, object('configmaps', 'shop', `web-tls-${suffix(i)}`), CREATE));
    const after = Array.from({ length: 300 }, (_, i) => rec(T0 + 600_000 + i * 1000, proxy, object('configmaps', 'monitoring', 'proxy-config'), { verb: 'get' }));
    const { findings } = runDetector(detector, {}, [...loop, ...after]);
    expect(findings.map((f) => [f.metrics.owner, f.metrics.creates, f.window.from, f.signals])).toEqual([
      [undefined, 3000, '2026-08-08T18:00:00.003Z', ['new-object-per-pass', 'piling-up', 'one-owner']],
    ]);
  });
});

/** 40 every-minute CronJobs in one namespace for an hour: each minute's 40 Jobs `report-<k>-<minutes since the epoch>`, 25 ms apart. */
function everyMinuteCronJobs(): RequestRecord[] {
  return Array.from({ length: 2400 }, (_, i) =>
    rec(T0 + Math.floor(i / 40) * 60_000 + (i % 40) * 25, cronJobs, object('jobs', 'batch', `report-${i % 40}-${29_000_000 + Math.floor(i / 40)}`, '', 'batch'), CREATE),
  );
}

const kasOperator = actor(
  'system:serviceaccount:openshift-kube-apiserver-operator:kube-apiserver-operator',
  'cluster-kube-apiserver-operator/v0.0.0 (linux/amd64) kubernetes/$Format',
);
const KAS_NS = 'openshift-kube-apiserver';
/** What a kube-apiserver revision copies: revision-status and 9 ConfigMaps, then 3 Secrets. */
const REVISION_INPUTS: Array<[string, string]> = [
  ...[
    'revision-status',
    'kube-apiserver-pod',
    'config',
    'kube-apiserver-cert-syncer-kubeconfig',
    'oauth-metadata',
    'bound-sa-token-signing-certs',
    'etcd-serving-ca',
    'kubelet-serving-ca',
    'sa-token-signing-certs',
    'kube-apiserver-audit-policies',
  ].map((b): [string, string] => ['configmaps', b]),
  ...['etcd-client', 'localhost-recovery-serving-certkey', 'localhost-recovery-client-token'].map((b): [string, string] => ['secrets', b]),
];

/**
 * openshift/cluster-kube-apiserver-operator#441 and #1504: the revision controller starts revision
 * `first`, `first + 1`, … (`count` of them) every `gapMs`, each a copy `<input>-N` of the 13
 * inputs, 5 ms apart, never pruned.
 */
function revisionLoop(first: number, count: number, gapMs: number, num: (n: number) => string = String): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let k = 0; k < count; k++) {
    REVISION_INPUTS.forEach(([res, base], j) => out.push(rec(T0 + k * gapMs + j * 5, kasOperator, object(res, KAS_NS, `${base}-${num(first + k)}`), CREATE)));
  }
  return out;
}

/**
 * The revision loop of `revisionLoop(first, count, gapMs)` with every pass interrupted after the
 * first 6 inputs (a failed create) and retried from the 7th `retryMs` later.
 */
function interruptedRevisionLoop(first: number, count: number, gapMs: number, retryMs: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let k = 0; k < count; k++) {
    REVISION_INPUTS.forEach(([res, base], j) => out.push(rec(T0 + k * gapMs + j * 5 + (j >= 6 ? retryMs : 0), kasOperator, object(res, KAS_NS, `${base}-${first + k}`), CREATE)));
  }
  return out;
}

const knativeController = actor('system:serviceaccount:knative-serving:controller', 'controller/v0.0.0 (linux/amd64) kubernetes/$Format');
/** What Knative makes per deploy of one Service, all named `<service>-0000N`. */
const KNATIVE_OBJECTS: Array<[string, string]> = [
  ['revisions', 'serving.knative.dev'],
  ['podautoscalers', 'autoscaling.internal.knative.dev'],
  ['serverlessservices', 'networking.internal.knative.dev'],
  ['services', ''],
  ['endpoints', ''],
];

/** Knative Services `services` each redeployed `count` times every `gapMs` (revisions 2, 3, …): 5 objects per deploy named `<service>-0000N`. */
function knativeDeploys(services: string[], count: number, gapMs: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let k = 0; k < count; k++) {
    services.forEach((svc, i) =>
      KNATIVE_OBJECTS.forEach(([res, group], j) =>
        out.push(rec(T0 + k * gapMs + i * 200 + j * 20, knativeController, object(res, 'preview', `${svc}-${String(k + 2).padStart(5, '0')}`, '', group), CREATE)),
      ),
    );
  }
  return out;
}

describe('create-storm: revisions', () => {
  it('cluster-kube-apiserver-operator#1504: 13 inputs copied into revisions 8–27, one every 30 s (0.43 creates/s, names ending in a number)', () => {
    const creates = revisionLoop(8, 20, 30_000);
    const { findings, notes, alerts } = runDetector(detector, {}, creates);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    // Revision 8 is the first copy of each input in the log: no advance. 9–27 count.
    expect(f.title).toBe(
      'kube-apiserver-operator made 19 numbered revisions (9–27) of 13 objects in namespace openshift-kube-apiserver in 9m 00s, one every 30.0 s: 247 new configmaps and secrets',
    );
    expect([f.kind, f.object, f.window]).toEqual(['create-storm', null, { from: '2026-08-08T18:00:30.003Z', to: '2026-08-08T18:09:30.063Z' }]);
    // Share of writes 1 (critical), capped at medium by 16 × 13 = 208 excess copies.
    expect(f.severity).toBe('medium');
    expect(f.actors.map((a) => a.username)).toEqual([kasOperator.username]);
    expect(f.metrics).toEqual({
      creates: 247,
      revisions: 19,
      firstRevision: 9,
      lastRevision: 27,
      objectsPerRevision: 13,
      loneAdvances: 0,
      bases: 13,
      namePrefixes:
        'configmaps/bound-sa-token-signing-certs(19), configmaps/config(19), configmaps/etcd-serving-ca(19), configmaps/kube-apiserver-audit-policies(19), configmaps/kube-apiserver-cert-syncer-kubeconfig(19)',
      deletes: 0,
      resource: 'configmaps, secrets',
      namespace: KAS_NS,
      durationMs: 540_060,
      meanRevisionGapMs: 30_003,
      // 246 / 540.06 s.
      meanCreatesPerSec: 0.46,
      peakCreatesPerSec: 13,
      // 19 revisions beyond the budget's 4 (one per 3 min over 9 min, and the first) = 15, × 13 copies.
      excessRequests: 195,
      // 1 + 18 × (1 − 30 s / 180 s) = 16.
      excessRevisions: 16,
      shareOfWrites: 1,
      shareOfRequests: 1,
    });
    expect(f.signals).toEqual(['new-revision-per-pass', 'piling-up']);
    expect(f.advice.map((a) => a.id)).toEqual(['revision-trigger', 'clean-up']);
    expect(f.advice[0]!.text).toContain('(configmaps bound-sa-token-signing-certs-26 and bound-sa-token-signing-certs-27)');
    expect(f.evidence.auditIDs).toEqual([...creates.slice(13, 17).map((r) => r.auditID), creates.at(-1)!.auditID]);
    expect(alerts).toEqual(['open create-storm ', 'close create-storm ']);
  });

  it('pruned copies are counted as deletes, and the signal says so', () => {
    const loop = revisionLoop(8, 20, 30_000);
    const pruner = loop
      .filter((r) => r.object!.resource === 'configmaps')
      .map((r) => ({
        ...rec(
          r.receivedTs + 20_000,
          kasOperator,
          object(
            'configmaps',
            KAS_NS,
            r.object!.name.replace(/\d+$/, (n) => String(Number(n) - 5)),
          ),
          { verb: 'delete', code: 200 },
        ),
      }));
    const { findings } = runDetector(
      detector,
      {},
      [...loop, ...pruner].sort((a, b) => a.ts - b.ts),
    );
    // From the first counted revision (18:00:30) to the close: the deletes 20 s after each of revisions 9–27.
    expect(findings.map((f) => [f.metrics.deletes, f.signals])).toEqual([[190, ['new-revision-per-pass', 'pruned']]]);
  });

  it('a fast loop (a revision every 2 s) is reported once, by the namespace group of its ConfigMaps', () => {
    const { findings, alerts } = runDetector(detector, {}, revisionLoop(8, 300, 2_000));
    // All 3,000 ConfigMaps (300 revisions × 10); the revision episode that opened first ended without a finding.
    expect(findings.map((f) => [f.metrics.resource, f.metrics.revisions, f.metrics.creates])).toEqual([['configmaps', undefined, 3000]]);
    // The revision episode opens (10 excess revisions in about a minute) and closes unreported when
    // the ConfigMaps' namespace group opens (500 excess creates), which later rises in severity.
    expect(alerts).toEqual(['open create-storm ', 'close create-storm ', 'open create-storm ', 'update create-storm ', 'close create-storm ']);
  });

  it('options: more objects per revision, a shorter budget, or a higher opening leave the loop alone', () => {
    expect(runDetector(detector, { revisions: { minObjectsPerRevision: 14 } }, revisionLoop(8, 20, 30_000)).findings).toEqual([]);
    expect(runDetector(detector, { revisions: { revisionEveryMs: 30_000 } }, revisionLoop(8, 20, 30_000)).findings).toEqual([]);
    expect(runDetector(detector, { revisions: { minExcessRevisions: 19 } }, revisionLoop(8, 20, 30_000)).findings).toEqual([]);
  });

  it('options: with time-encoded numbers taken for counters (maxRevision 1e9), every-minute CronJobs would be one', () => {
    const { findings } = runDetector(detector, { revisions: { maxRevision: 1e9 } }, everyMinuteCronJobs());
    expect(findings.map((f) => [f.metrics.revisions, f.metrics.objectsPerRevision, f.metrics.excessRevisions])).toEqual([[59, 40, 40]]);
  });

  it('a loop at a revision every 5 s: the namespace episode of its ConfigMaps reports it, and the revision episode stays closed while it is open', () => {
    // The log goes on for 10 minutes after the loop's last revision (at 16m 35s).
    const tail = rec(T0 + 1_600_000, certificates, certRequest('web-tls'), { verb: 'get', code: 200 });
    const { findings, alerts } = runDetector(detector, {}, [...revisionLoop(8, 200, 5_000), tail]);
    // The revision episode that opened first ends without a finding when the namespace episode
    // opens, and none opens beside it, nor when it closes a minute after the loop stops.
    expect(findings.map((f) => [f.metrics.resource, f.metrics.revisions, f.metrics.creates])).toEqual([['configmaps', undefined, 2000]]);
    expect(alerts).toEqual(['open create-storm ', 'update create-storm ', 'close create-storm ', 'open create-storm ', 'update create-storm ', 'close create-storm ']);
  });

  it('the advice names two successive copies as they were created (zero-padded numbers)', () => {
    const { findings } = runDetector(
      detector,
      {},
      revisionLoop(8, 20, 30_000, (n) => String(n).padStart(5, '0')),
    );
    expect(findings.map((f) => [f.metrics.revisions, f.metrics.firstRevision, f.metrics.lastRevision])).toEqual([[19, 9, 27]]);
    expect(findings[0]!.advice[0]!.text).toContain('(configmaps bound-sa-token-signing-certs-00026 and bound-sa-token-signing-certs-00027)');
  });

  it('a pass interrupted and retried 8 s later (more than passMs) counts its revision once', () => {
    const { findings } = runDetector(detector, {}, interruptedRevisionLoop(8, 20, 30_000, 8_000));
    // Numbers 9–27: 19 revisions, all 13 copies of each.
    expect(findings.map((f) => [f.metrics.revisions, f.metrics.firstRevision, f.metrics.lastRevision, f.metrics.creates, f.metrics.objectsPerRevision])).toEqual([
      [19, 9, 27, 247, 6],
    ]);
  });

  it('one name across resources is one object: a Knative Service redeployed every 4 min for 2 h is not a revision loop (even on a 10-min budget)', () => {
    const opts = { revisions: { revisionEveryMs: 600_000 } };
    expect(runDetector(detector, opts, knativeDeploys(['docs-preview'], 30, 240_000)).findings).toEqual([]);
    // Four Services deployed together are four objects per revision.
    const { findings } = runDetector(detector, opts, knativeDeploys(['docs-preview', 'api', 'web', 'worker'], 30, 240_000));
    expect(findings.map((f) => [f.metrics.revisions, f.metrics.objectsPerRevision, f.metrics.bases, f.metrics.excessRevisions])).toEqual([[29, 20, 20, 18]]);
  });

  it('Helm release Secrets (`.vN`) are not revisions: an umbrella chart upgrading 12 releases together every 4 min for 3 h (even on a 10-min budget)', () => {
    const ci = actor('system:serviceaccount:ci:gitlab-deployer', 'Helm/v3.14.2 (linux/amd64) kubernetes/c309b6f');
    const creates = Array.from({ length: 12 * 45 }, (_, i) =>
      rec(T0 + Math.floor(i / 12) * 240_000 + (i % 12) * 50, ci, object('secrets', 'staging', `sh.helm.release.v1.rel-${i % 12}.v${2 + Math.floor(i / 12)}`), CREATE),
    );
    expect(runDetector(detector, { revisions: { revisionEveryMs: 600_000 } }, creates).findings).toEqual([]);
  });

  it('deploy pace is within the budget: 6 DeploymentConfigs on one ImageStream trigger rolled out every 4 min for 3 h', () => {
    const dcController = actor('system:serviceaccount:openshift-infra:deploymentconfig-controller', 'openshift-controller-manager/v0.0.0 (linux/amd64) kubernetes/$Format');
    const creates = Array.from({ length: 6 * 45 }, (_, i) =>
      rec(T0 + Math.floor(i / 6) * 240_000 + (i % 6) * 30, dcController, object('replicationcontrollers', 'myapp-dev', `dc-${i % 6}-${2 + Math.floor(i / 6)}`), CREATE),
    );
    expect(runDetector(detector, {}, creates).findings).toEqual([]);
    // On the former 10-min budget, 44 revisions 4 min apart leave 1 + 43 × 0.6 = 26.8 excess.
    expect(runDetector(detector, { revisions: { revisionEveryMs: 600_000 } }, creates).findings.map((f) => [f.metrics.revisions, f.metrics.excessRevisions])).toEqual([[44, 27]]);
  });
});

/**
 * Three StatefulSets scaled up together in one namespace (OrderedReady): each makes the PVCs of
 * its two claim templates for its next ordinal when the previous pod is Ready, every 19, 23 and 29
 * s, for 10 minutes.
 */
function statefulSetsScaleUp(): RequestRecord[] {
  const out: RequestRecord[] = [];
  [19_000, 23_000, 29_000].forEach((period, k) => {
    for (let i = 3; T0 + (i - 3) * period < T0 + 600_000; i++) {
      for (const claim of ['data', 'wal'])
        out.push(rec(T0 + (i - 3) * period + (claim === 'wal' ? 4 : 0), pvcController, object('persistentvolumeclaims', 'shop', `${claim}-db${k}-${i}`), CREATE));
    }
  });
  return out.sort((a, b) => a.ts - b.ts);
}

/** Velero restoring the 13 inputs' copies of revisions 1–20 in name order (`config-1`, `config-10`, …) at 50 creates/s. */
function restoreInNameOrder(): RequestRecord[] {
  const names = REVISION_INPUTS.flatMap(([res, base]) => Array.from({ length: 20 }, (_, i): [string, string] => [res, `${base}-${i + 1}`]));
  names.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] === 'secrets' ? -1 : 1));
  return names.map(([res, name], i) => rec(T0 + i * 20, restorer, object(res, 'shop', name), CREATE));
}

/** Ten Helm releases installed together and upgraded together (helmfile, in parallel) every 10 minutes for 3 hours: Secrets `sh.helm.release.v1.<release>.v2` … `.v19`. */
function helmUpgrades(): RequestRecord[] {
  const ci = actor('system:serviceaccount:ci:helm-deployer', 'Helm/v3.14.2 (linux/amd64) kubernetes/c309b6f');
  return Array.from({ length: 180 }, (_, i) =>
    rec(T0 + Math.floor(i / 10) * 600_000 + (i % 10) * 150, ci, object('secrets', 'shop', `sh.helm.release.v1.rel-${i % 10}.v${2 + Math.floor(i / 10)}`), CREATE),
  );
}

/**
 * One StatefulSet with four claim templates (MinIO's drives) scaled from 4 to 34 replicas
 * (OrderedReady): the four PVCs of each next ordinal come together when the previous pod is Ready,
 * every 60 s for 30 minutes.
 */
function fourClaimStatefulSet(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let i = 4; i < 34; i++)
    ['data0', 'data1', 'data2', 'data3'].forEach((claim, k) =>
      out.push(rec(T0 + (i - 4) * 60_000 + k * 3, pvcController, object('persistentvolumeclaims', 'minio', `${claim}-minio-${i}`), CREATE)),
    );
  return out;
}

/**
 * A job runner down for 25 minutes drains its backlog (1,425 creates in 29 s), then creates on
 * demand with gaps of `meanGapMs` on average, jittered ±60 % (steps of 10 s hold a create or
 * two more than the mean now and then), for 25 minutes.
 */
function backlogThenDemand(meanGapMs: number): RequestRecord[] {
  const out = Array.from({ length: 1425 }, (_, i) => rec(T0 + i * 20, restorer, object('jobs', 'batch', `backlog-${i}`, '', 'batch'), CREATE));
  let seed = 7;
  let t = T0 + 30_000;
  for (let i = 0; t < T0 + 30_000 + 25 * 60_000; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    t += Math.round(meanGapMs * (0.4 + 1.2 * (seed / 2_147_483_648)));
    out.push(rec(t, restorer, object('jobs', 'batch', `job-${i}`, '', 'batch'), CREATE));
  }
  return out;
}

describe('create-storm: not a storm', () => {
  const quiet: Array<[string, () => RequestRecord[]]> = [
    [
      'a Helm install of 300 objects in 10 s (one burst, 290 excess)',
      () => Array.from({ length: 300 }, (_, i) => rec(T0 + i * 33, restorer, object('configmaps', 'shop', `cfg-${i}`), CREATE)),
    ],
    ['40 CronJobs in one namespace, each creating a Job every minute for an hour (0.67/s; Job names are minutes since the epoch)', everyMinuteCronJobs],
    ['a steady creator at 0.9/s for an hour', () => Array.from({ length: 3240 }, (_, i) => rec(T0 + Math.round(i * 1111.2), certificates, certRequest(`c-${i}`), CREATE))],
    [
      'a ReplicaSet scale-up: 3,000 Pods in 2 min (Pods are the workload: ignoreResources)',
      () => Array.from({ length: 3000 }, (_, i) => rec(T0 + i * 40, rsController, object('pods', 'shop', ''), CREATE)),
    ],
    [
      'TokenReviews by an authenticating proxy at 50/s (never stored)',
      () => Array.from({ length: 15_000 }, (_, i) => rec(T0 + i * 20, proxy, object('tokenreviews', '', '', '', 'authentication.k8s.io'), CREATE)),
    ],
    [
      'a node drain: pods/eviction creates at 20/s for 5 min (a subresource: an action)',
      () => Array.from({ length: 6000 }, (_, i) => rec(T0 + i * 50, rsController, object('pods', 'shop', `web-${i}`, 'eviction'), CREATE)),
    ],
    ['dry-run creates at 10/s (nothing stored)', () => Array.from({ length: 3000 }, (_, i) => rec(T0 + i * 100, certificates, certRequest(`d-${i}`), { ...CREATE, dryRun: true }))],
    [
      'creates answered 409 AlreadyExists at 10/s (create-conflict-storm judges those)',
      () => Array.from({ length: 3000 }, (_, i) => rec(T0 + i * 100, certificates, certRequest('web-tls'), { verb: 'create', code: 409, reason: 'AlreadyExists' })),
    ],
    [
      'one identity at 0.5/s in each of 20 namespaces (10/s in all; judged per namespace)',
      () => Array.from({ length: 6000 }, (_, i) => rec(T0 + i * 100, certificates, object('certificaterequests', `team-${i % 20}`, `c-${i}`, '', 'cert-manager.io'), CREATE)),
    ],
    [
      'a StatefulSet scaled to 200: PVCs data-web-0 … data-web-199 in 40 s (one per ordinal, never repeated: not an owner loop)',
      () => Array.from({ length: 200 }, (_, i) => rec(T0 + i * 200, pvcController, object('persistentvolumeclaims', 'shop', `data-web-${i}`), CREATE)),
    ],
    [
      'cert-manager renewing 300 Certificates in 5 min: one CertificateRequest each (300 owners, 1/s in the namespace)',
      () => Array.from({ length: 300 }, (_, i) => rec(T0 + i * 1000, requestManager, certRequest(`svc-${suffix(i + 7)}-tls-${suffix(i)}`), CREATE)),
    ],
    [
      'an EndpointSlice rollout: 20 Services get 15 new slices each (generateName) within a minute',
      () =>
        Array.from({ length: 300 }, (_, i) => rec(T0 + i * 200, sliceController, object('endpointslices', 'shop', `svc-${i % 20}-${suffix(i)}`, '', 'discovery.k8s.io'), CREATE)),
    ],
    ['three StatefulSets scaled up together, each on its own clock (ordinals every 19, 23 and 29 s, two claim templates each)', statefulSetsScaleUp],
    ['a StatefulSet with four claim templates scaled up by 30 ordinals, one a minute (PVCs: revisions.ordinalResources)', fourClaimStatefulSet],
    ['a restore of 13 inputs × 20 revisions in name order at 50 creates/s', restoreInNameOrder],
    ['ten Helm releases upgraded together every 10 minutes for 3 hours (one release Secret each)', helmUpgrades],
    [
      'a restore of 800 ConfigMaps in 20 s (one burst: 780 excess over 20 s of busy time)',
      () => Array.from({ length: 800 }, (_, i) => rec(T0 + i * 25, restorer, object('configmaps', 'shop', `cfg-${i}`), CREATE)),
    ],
    ['a restore of 2,000 ConfigMaps in 50 s at 40/s', () => Array.from({ length: 2000 }, (_, i) => rec(T0 + i * 25, restorer, object('configmaps', 'shop', `cfg-${i}`), CREATE))],
    [
      'a burst of 800 after an hour of steady creates at 0.9/s',
      () => [
        ...Array.from({ length: 3240 }, (_, i) => rec(T0 + Math.round(i * 1111.2), restorer, object('configmaps', 'shop', `steady-${i}`), CREATE)),
        ...Array.from({ length: 800 }, (_, i) => rec(T0 + 3_600_500 + i * 25, restorer, object('configmaps', 'shop', `cfg-${i}`), CREATE)),
      ],
    ],
    ['a backlog of 1,425 Jobs drained in 29 s after an outage, then the usual demand at 0.95/s for 25 minutes', () => backlogThenDemand(1053)],
    ['the same backlog, then demand at 0.8/s', () => backlogThenDemand(1250)],
    [
      '600 CertificateRequests for one Certificate in 12 s (a backlog drained at once)',
      () => Array.from({ length: 600 }, (_, i) => rec(T0 + i * 20, requestManager, certRequest(`web-tls-${suffix(i)}`), CREATE)),
    ],
    [
      'one owner re-issued every 15 s for an hour (under the per-owner budget of one per 10 s)',
      () => Array.from({ length: 240 }, (_, i) => rec(T0 + i * 15_000, requestManager, certRequest(`web-tls-${suffix(i)}`), CREATE)),
    ],
  ];
  it.each(quiet)('%s', (_, make) => {
    const { findings, notes } = runDetector(detector, {}, make());
    expect([findings.map((f) => f.title), notes]).toEqual([[], []]);
  });

  it('the four-claim StatefulSet counts as revisions once its claims are not ignored (what revisions.ordinalResources keeps out)', () => {
    const { findings } = runDetector(detector, { revisions: { ordinalResources: [] } }, fourClaimStatefulSet());
    expect(findings.map((f) => [f.severity, f.metrics.revisions, f.metrics.creates])).toEqual([['medium', 29, 116]]);
  });
});

describe('create-storm: generatedOwner', () => {
  it.each([
    ['web-tls-x2k4p', 'web-tls'],
    ['web-7d9f8c6b5-x2k4p', 'web-7d9f8c6b5'],
    ['data-web-12', null],
    ['report-29000001', null],
    ['cluster-admin', null],
    ['x2k4p', null],
    ['-x2k4p', null],
    ['build-44444', null],
    ['build-4444z', 'build'],
    ['build-z4444', 'build'],
  ])('%s → %s', (name, owner) => {
    expect(generatedOwner(name)).toBe(owner);
  });
});

describe('create-storm: revisionOf', () => {
  it.each([
    ['config-12', ['config', 12]],
    ['sh.helm.release.v1.web.v3', null],
    ['sh.helm.release.v1.web-2.v3', null],
    ['web-00001', ['web', 1]],
    ['report-29000001', ['report', 29_000_001]],
    ['web-tls-x2k4p', null],
    ['config', null],
    ['-12', null],
  ])('%s → %j', (name, rev) => {
    expect(revisionOf(name)).toEqual(rev);
  });
});

describe('create-storm: namePrefix', () => {
  it.each([
    ['web-tls-x2k4p', 'web-tls'],
    ['web-7d9f8c6b5-x2k4p', 'web-7d9f8c6b5'],
    ['report-29000001', 'report'],
    ['web-tls-1', 'web-tls'],
    ['web-tls', 'web-tls'],
    // Vowels are not in generateName's alphabet: a word stays.
    ['cluster-admin', 'cluster-admin'],
    ['x2k4p', 'x2k4p'],
  ])('%s → %s', (name, prefix) => {
    expect(namePrefix(name)).toBe(prefix);
  });
});
