import { describe, expect, it } from 'vitest';
import { createConflictStorm } from '../../src/detectors/create-conflict-storm.js';
import type { Detector } from '../../src/detectors/types.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { actor, object, rec, runDetector } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const detector = createConflictStorm as unknown as Detector;
const operator = actor('system:serviceaccount:shop-system:shop-operator');
const rsController = actor(
  'system:serviceaccount:kube-system:replicaset-controller',
  'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/system:serviceaccount:kube-system:replicaset-controller',
);
const kubelet = actor('system:node:node-1', 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
const lease = object('leases', 'kube-node-lease', 'node-1', '', 'coordination.k8s.io');

const AE = { verb: 'create', code: 409, reason: 'AlreadyExists' } as const;

/** The operator creates 5 ConfigMaps every 500 ms for 60 s, each answered AlreadyExists. */
function probeLoop(startMs: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let k = 0; k < 120; k++) {
    for (let i = 0; i < 5; i++) out.push(rec(startMs + k * 500 + i * 10, operator, object('configmaps', 'shop', `cm-${i}`), AE));
  }
  return out;
}

describe('create-conflict-storm: storms', () => {
  it('create used as an existence probe: one finding with exact counts', () => {
    const probes = probeLoop(T0);
    const { findings, notes, alerts } = runDetector(detector, {}, probes);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.kind).toBe('create-conflict-storm');
    expect(f.severity).toBe('critical');
    expect(f.actors.map((a) => a.username)).toEqual(['system:serviceaccount:shop-system:shop-operator']);
    // The most-hit name (ties broken by key).
    expect(f.object).toEqual({ apiGroup: '', apiVersion: 'v1', resource: 'configmaps', namespace: 'shop', name: 'cm-0', subresource: '' });
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:00:59.543Z' });
    expect(f.metrics).toEqual({
      creates: 600,
      alreadyExists: 600,
      created: 0,
      otherErrors: 0,
      distinctNames: 5,
      namesTruncated: false,
      topNames: 'shop/cm-0(120), shop/cm-1(120), shop/cm-2(120), shop/cm-3(120), shop/cm-4(120)',
      resources: 'configmaps',
      repeatsPerNameP50: 120,
      repeatsPerNameMax: 120,
      durationMs: 59_540,
      peakAlreadyExistsPerSec: 10,
      // One AlreadyExists per name would have told the operator enough.
      excessRequests: 595,
      shareOfWrites: 1,
      shareOfRequests: 1,
    });
    expect(f.signals).toEqual(['create-as-probe', 'never-created', 'hot-requeue']);
    expect(f.advice.map((a) => a.id)).toEqual(['get-before-create', 'already-exists-is-success', 'server-side-apply', 'check-ownership']);
    expect(f.evidence).toEqual({
      auditIDs: [probes[0]!.auditID, probes[1]!.auditID, probes[2]!.auditID, probes[3]!.auditID, probes[599]!.auditID],
      firstAuditID: probes[0]!.auditID,
      lastAuditID: probes[599]!.auditID,
      auditLevel: 'Metadata',
      level: 'proven',
    });
    expect(f.title).toBe('shop-operator creates objects that already exist: 600 × 409 AlreadyExists on 5 names (median 120 each), peak 10/s');
    // The finding's timeline: its buckets add up to its own counts.
    expect([
      f.series?.points.reduce((n, p) => n + p.writes, 0),
      f.series?.points.reduce((n, p) => n + p.conflicts, 0),
      f.series?.labels?.writes,
      f.series?.labels?.conflicts,
    ]).toEqual([600, 600, 'creates/s', 'AlreadyExists/s']);
    expect(alerts).toEqual(['open create-conflict-storm cm-0', 'close create-conflict-storm cm-0']);
  });

  it('successful creates of other names in the episode count as creates, not as AlreadyExists', () => {
    const records = [
      ...probeLoop(T0),
      ...Array.from({ length: 30 }, (_, i) => rec(T0 + 5 + i * 1000, operator, object('configmaps', 'shop', `new-${i}`), { verb: 'create', code: 201 })),
    ];
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.metrics).toMatchObject({ creates: 630, alreadyExists: 600, created: 30, distinctNames: 5, excessRequests: 595 });
    expect(findings[0]!.signals).toEqual(['create-as-probe', 'hot-requeue']);
    expect(findings[0]!.advice.map((a) => a.id)).toEqual(['get-before-create', 'already-exists-is-success', 'server-side-apply']);
  });

  it('one name probed: the title says "1 name"', () => {
    const probes = Array.from({ length: 300 }, (_, k) => rec(T0 + k * 1000, operator, object('configmaps', 'ops', 'probe-config'), AE));
    const { findings } = runDetector(detector, {}, probes);
    expect(findings.map((f) => f.title)).toEqual(['shop-operator creates objects that already exist: 300 × 409 AlreadyExists on 1 name (median 300 each), peak 1/s']);
  });

  it('a storm that stops and starts again is two episodes', () => {
    const { findings } = runDetector(detector, {}, [...probeLoop(T0), ...probeLoop(T0 + 300_000)]);
    expect(findings.map((f) => [f.window.from, f.metrics.alreadyExists])).toEqual([
      ['2026-08-08T18:00:00.003Z', 600],
      ['2026-08-08T18:05:00.003Z', 600],
    ]);
  });
});

describe('create-conflict-storm: not a storm', () => {
  const quiet: Array<[string, () => RequestRecord[]]> = [
    [
      'a busy controller creating 1000 different objects once each',
      () => Array.from({ length: 1000 }, (_, i) => rec(T0 + i * 60, rsController, object('pods', 'shop', `web-${i}`), { verb: 'create', code: 201 })),
    ],
    [
      'a restarted controller finding 1000 different objects existing, once each',
      () => Array.from({ length: 1000 }, (_, i) => rec(T0 + i * 60, rsController, object('pods', 'shop', `web-${i}`), AE)),
    ],
    [
      'an ensure loop probing 10 names every 30 s (2 a minute each)',
      () => Array.from({ length: 200 }, (_, i) => rec(T0 + Math.floor(i / 10) * 30_000 + (i % 10) * 10, operator, object('configmaps', 'shop', `cm-${i % 10}`), AE)),
    ],
    ['409 Conflict on update', () => Array.from({ length: 600 }, (_, i) => rec(T0 + i * 100, operator, object('configmaps', 'shop', 'cm'), { code: 409 }))],
    ['generateName collisions (no name)', () => Array.from({ length: 600 }, (_, i) => rec(T0 + i * 100, operator, object('pods', 'shop', ''), AE))],
    ['node lease renewals', () => Array.from({ length: 60 }, (_, i) => rec(T0 + i * 10_000, kubelet, lease))],
  ];
  it.each(quiet)('%s: nothing', (_name, make) => {
    const { findings, notes } = runDetector(detector, {}, make());
    expect([...findings, ...notes]).toEqual([]);
  });

  it('thresholds come from options', () => {
    // 10 names, each probed 2 times a window (every 30 s): 20 AlreadyExists a window.
    const records = Array.from({ length: 200 }, (_, i) => rec(T0 + Math.floor(i / 10) * 30_000 + (i % 10) * 10, operator, object('configmaps', 'shop', `cm-${i % 10}`), AE));
    expect(runDetector(detector, { minRepeatsPerName: 2, minAlreadyExists: 21 }, records).findings).toHaveLength(0);
    const { findings } = runDetector(detector, { minRepeatsPerName: 2, minAlreadyExists: 20 }, records);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.metrics).toMatchObject({ alreadyExists: 200, distinctNames: 10, repeatsPerNameP50: 20, excessRequests: 190 });
  });

  it('rejects a window that is not a multiple of the step', () => {
    expect(detector.meta.optionsSchema.safeParse({ windowMs: 60_000, stepMs: 7000 }).success).toBe(false);
  });
});

describe('create-conflict-storm: one identity, several userAgents (issue 25, class 3)', () => {
  // Controllers of one binary share a service account, each with its own userAgent; each
  // "ensures" the same 5 Secrets every 30 s (2 AlreadyExists per name a minute: under the 3 that
  // make a repeated name), 6 per name a minute together.
  const sa = 'system:serviceaccount:cert-manager:cert-manager';
  const ua = (c: string): string => `cert-manager-certificates-${c}/v1.13.3 (linux/amd64) cert-manager/abc`;
  const controllers = ['issuing', 'readiness', 'requestmanager'].map((c) => actor(sa, ua(c)));

  /** Every 30 s for `seconds`, writer i creates `secret-0..4` at +100·i ms, each answered AlreadyExists. */
  function ensures(writers: ReadonlyArray<ReturnType<typeof actor>>, seconds: number): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let k = 0; k < seconds / 30; k++) {
      writers.forEach((w, i) => {
        for (let j = 0; j < 5; j++) out.push(rec(T0 + k * 30_000 + 100 * i + j, w, object('secrets', 'web', `secret-${j}`), AE));
      });
    }
    return out;
  }

  it('three controllers of one service account: one finding, creates broken down by userAgent', () => {
    const records = ensures(controllers, 300);
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings.map((f) => [f.actors[0]!.username, f.actors[0]!.userAgent, f.window])).toEqual([
      // Ties between userAgents name the first in code-unit order.
      [sa, ua('issuing'), { from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:04:30.207Z' }],
    ]);
    expect(findings[0]!.metrics).toMatchObject({
      creates: 150,
      alreadyExists: 150,
      created: 0,
      distinctNames: 5,
      topNames: 'web/secret-0(30), web/secret-1(30), web/secret-2(30), web/secret-3(30), web/secret-4(30)',
      repeatsPerNameP50: 30,
      excessRequests: 145,
      userAgents: `${ua('issuing')}(50), ${ua('readiness')}(50), ${ua('requestmanager')}(50)`,
    });
    // Evidence: the first AlreadyExists (issuing's first four) and the last (requestmanager's).
    expect(findings[0]!.evidence.auditIDs).toEqual([...records.slice(0, 4).map((r) => r.auditID), records.at(-1)!.auditID]);
  });

  it('one controller alone is no storm', () => {
    expect(runDetector(detector, {}, ensures(controllers.slice(0, 1), 300)).findings).toEqual([]);
  });

  it('look-alike: three kubebuilder operators with one userAgent (manager/v0.0.0) but their own service accounts stay apart', () => {
    const operators = ['a', 'b', 'c'].map((n) => actor(`system:serviceaccount:${n}-system:${n}-operator`));
    expect(new Set(operators.map((a) => a.userAgent)).size).toBe(1);
    expect(runDetector(detector, {}, ensures(operators, 300)).findings).toEqual([]);
  });

  it('look-alike: one username, two programs, only one probes: the finding names the prober and the breakdown tells them apart', () => {
    const script = actor('system:admin', 'python-requests/2.31.0');
    const kubectl = actor('system:admin', 'kubectl/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
    // The human creates a new ConfigMap every 20 s (201); the script probes 5 names every 500 ms.
    const human = Array.from({ length: 4 }, (_, i) => rec(T0 + i * 20_000 + 7, kubectl, object('configmaps', 'shop', `notes-${i}`), { verb: 'create', code: 201 }));
    const { findings } = runDetector(detector, {}, [...human, ...probeLoop(T0).map((r) => ({ ...r, actor: script }))]);
    expect(findings.map((f) => [f.actors[0]!.userAgent, f.metrics.creates, f.metrics.alreadyExists, f.metrics.created, f.metrics.userAgents])).toEqual([
      // kubectl's first create (at +7 ms, after the script's first AlreadyExists) and the three after it.
      ['python-requests/2.31.0', 604, 600, 4, 'python-requests/2.31.0(600), kubectl/v1.29.0 (linux/amd64) kubernetes/3f7a50f(4)'],
    ]);
  });
});
