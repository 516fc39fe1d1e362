import { describe, expect, it } from 'vitest';
import { familyOf, fleetStorm } from '../../src/detectors/fleet-storm.js';
import { backoffAttempts } from '../../src/detectors/impact.js';
import type { Detector } from '../../src/detectors/types.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { actor, object, rec, runDetector } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const detector = fleetStorm as unknown as Detector;
const KUBELET = 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f';
const agent = actor('system:serviceaccount:agents:node-agent', 'node-agent/v0.4.0 (linux/amd64) kubernetes/$Format');
const operator = actor('system:serviceaccount:shop-system:shop-operator');
const other = actor('system:serviceaccount:billing-system:billing-operator');

/** 20 kubelets, each GETting 3 secrets of its pods once a second for 60 s, every request answered 429. */
function kubelets429(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let s = 0; s < 60; s++) {
    for (let node = 0; node < 20; node++) {
      const who = actor(`system:node:node-${node}`, KUBELET);
      for (let i = 0; i < 3; i++) {
        out.push(rec(T0 + s * 1000 + node * 20 + i, who, object('secrets', 'shop', `web-${node}-${i}`), { verb: 'get', code: 429, sourceIP: `10.0.1.${node}` }));
      }
    }
  }
  return out;
}

/** A DaemonSet of 10 pods sharing one service account, each updating its node's NodeInfo 1×/s, 409 every time. */
function daemonSetConflicts(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let s = 0; s < 60; s++) {
    for (let pod = 0; pod < 10; pod++) {
      const obj = object('nodeinfos', '', `node-${pod}`, '', 'agents.example.com');
      out.push(rec(T0 + s * 1000 + pod * 10, agent, obj, { code: 409, sourceIP: `10.0.2.${pod}` }));
    }
  }
  return out;
}

const deploymentController = actor('system:serviceaccount:kube-system:deployment-controller', 'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f');

/**
 * One controller writing the status of 12 Deployments, each rolled out in turn (a 2 s stagger):
 * a status write every 2 s for `spanMs`, answered 409 every time (its cache a write behind).
 * With a 28 s span it is a rollout: every object settles; with 178 s the same objects keep conflicting.
 */
function rolloutConflicts(spanMs: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let d = 0; d < 12; d++) {
    for (let t = 0; t <= spanMs; t += 2000) {
      out.push(rec(T0 + d * 2000 + t, deploymentController, object('deployments', 'shop', `web-${d}`, 'status', 'apps'), { code: 409, sourceIP: '10.0.0.5' }));
    }
  }
  return out.sort((a, b) => a.receivedTs - b.receivedTs);
}

describe('fleet-storm: families', () => {
  it.each([
    ['system:node:ip-10-0-1-23.ec2.internal', KUBELET, 'system:node:*', 'node'],
    ['system:serviceaccount:agents:agent-7f9c4', 'agent/v1.0.0', 'system:serviceaccount:agents:agent-*', 'username-pattern'],
    ['system:serviceaccount:tenants:tenant-42', 'manager/v0.0.0', 'system:serviceaccount:tenants:tenant-*', 'username-pattern'],
    ['system:serviceaccount:kube-system:deployment-controller', 'kube-controller-manager/v1.29.0', 'system:serviceaccount:kube-system:deployment-controller', 'username'],
    ['system:serviceaccount:shop-system:shop-operator', 'manager/v0.0.0', 'system:serviceaccount:shop-system:shop-operator', 'username'],
    ['alice@example.com', 'kubectl/v1.31.0', 'alice@example.com', 'username'],
  ])('%s → %s', (username, ua, pattern, by) => {
    const f = familyOf(actor(username, ua));
    expect([f.pattern, f.by]).toEqual([pattern, by]);
    expect(f.key).toBe(`${pattern}\u0001${ua.split('/')[0]}`);
  });
});

describe('fleet-storm: storms', () => {
  it('counts requests of the family answered well during its episode, and none before it', () => {
    const records: RequestRecord[] = [];
    // Before any 429: answered well, no family hot yet, so counted nowhere.
    for (let node = 0; node < 20; node++) {
      records.push(rec(T0 - 30_000 + node, actor(`system:node:node-${node}`, KUBELET), object('configmaps', 'shop', `cm-${node}`), { verb: 'get' }));
    }
    // The storm, each kubelet also reading a configmap once a second, answered well.
    for (const r of kubelets429()) {
      records.push(r);
      if (r.object!.name.endsWith('-2')) {
        records.push(rec(r.receivedTs + 1, r.actor, object('configmaps', 'shop', `cm-${r.actor.username}`), { verb: 'get' }));
      }
    }
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const m = findings[0]!.metrics;
    expect([m.events, m.throttled, m.requests, m.writes, m.badShareOfFamilyRequests]).toEqual([3600, 3600, 4800, 0, 0.75]);
  });

  it('every kubelet throttled on its secrets: one finding for the fleet', () => {
    const records = kubelets429();
    const { findings, notes, alerts } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.kind).toBe('fleet-storm');
    expect(f.object).toBeNull();
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:00:59.385Z' });
    expect(f.metrics).toEqual({
      family: 'system:node:*',
      familyBy: 'node',
      userAgentProduct: 'kubelet',
      events: 3600,
      conflicts: 0,
      throttled: 3600,
      objects: 60,
      actors: 20,
      clients: 20,
      topObjects: 'secrets shop/web-0-0(60), secrets shop/web-0-1(60), secrets shop/web-0-2(60), secrets shop/web-1-0(60), secrets shop/web-1-1(60)',
      topActors: 'system:node:node-0(180), system:node:node-1(180), system:node:node-10(180), system:node:node-11(180), system:node:node-12(180)',
      peakPerSec: 60,
      durationMs: 59_382,
      requests: 3600,
      writes: 0,
      badShareOfFamilyRequests: 1,
      // Every 429 is an attempt client-go repeats after Retry-After.
      excessRequests: 3600,
      shareOfWrites: null,
      shareOfRequests: 1,
    });
    expect(f.severity).toBe('critical');
    expect(f.actors.map((a) => a.username)).toEqual(['system:node:node-0', 'system:node:node-1', 'system:node:node-10', 'system:node:node-11', 'system:node:node-12']);
    expect(f.actors[0]!.sourceIPs).toEqual(['10.0.1.0']);
    expect(f.signals).toEqual(['many-objects', 'throttled']);
    expect(f.advice.map((a) => a.id)).toEqual(['spread-the-fleet', 'flowschema']);
    // Evidence comes from the listed actors only: the first 429 of each in turn (node-0, node-1,
    // node-10, node-11), then the last 429 of any of them (node-12's last, second 59).
    expect(f.evidence).toEqual({
      auditIDs: [records[0]!.auditID, records[3]!.auditID, records[30]!.auditID, records[33]!.auditID, records[3578]!.auditID],
      firstAuditID: records[0]!.auditID,
      lastAuditID: records[3578]!.auditID,
      auditLevel: 'Metadata',
      level: 'proven',
    });
    const listed = new Set(f.actors.map((a) => a.username));
    const byID = new Map(records.map((r) => [r.auditID, r.actor.username]));
    expect(f.evidence.auditIDs.filter((id) => !listed.has(byID.get(id) ?? ''))).toEqual([]);
    expect(f.title).toBe('kubelet (system:node:*): 429 TooManyRequests on 60 objects from 20 clients (20 actors): 3,600 in 59.4 s, peak 60/s');
    // The finding's timeline: its buckets add up to its own counts.
    expect([
      f.series?.points.reduce((n, p) => n + p.writes, 0),
      f.series?.points.reduce((n, p) => n + p.conflicts, 0),
      f.series?.labels?.writes,
      f.series?.labels?.conflicts,
    ]).toEqual([3600, 3600, 'requests/s', '409+429/s']);
    expect(alerts).toEqual(['open fleet-storm ', 'close fleet-storm ']);
  });

  it('one DaemonSet (one service account, 10 pods) conflicting on 10 objects', () => {
    const records = daemonSetConflicts();
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    // Per object 60 conflicts over 59 s, none stored: per-item backoff makes 14 attempts in that span, all 409s.
    expect(backoffAttempts(59_000)).toBe(14);
    expect(f.metrics).toMatchObject({
      family: 'system:serviceaccount:agents:node-agent',
      familyBy: 'username',
      userAgentProduct: 'node-agent',
      events: 600,
      conflicts: 600,
      throttled: 0,
      objects: 10,
      actors: 1,
      clients: 10,
      peakPerSec: 10,
      excessRequests: 10 * (60 - 14),
      shareOfWrites: 1,
    });
    expect(f.actors).toHaveLength(1);
    expect(f.actors[0]!.sourceIPs).toHaveLength(10);
    expect(f.signals).toEqual(['many-objects', 'conflicts', 'shared-identity']);
    expect(f.advice.map((a) => a.id)).toEqual(['patch-instead-of-update', 'requeue-with-backoff']);
  });
});

describe('fleet-storm: clients', () => {
  it('counts one client per actor and source IP, past the 64 addresses whose keys are cached per actor', () => {
    // 100 pods of one DaemonSet behind one service account, each on its own object and address.
    const out: RequestRecord[] = [];
    for (let s = 0; s < 3; s++) {
      for (let pod = 0; pod < 100; pod++)
        out.push(rec(T0 + s * 1000 + pod * 5, agent, object('nodeinfos', '', `node-${pod}`, '', 'agents.example.com'), { code: 409, sourceIP: `10.0.3.${pod}` }));
    }
    const { findings } = runDetector(detector, {}, out);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.metrics).toMatchObject({ events: 300, objects: 100, actors: 1, clients: 100 });
  });
});

describe('fleet-storm: one controller storming wide', () => {
  // flux2#3689: one service account patching 400 Kustomizations' status, each every 23 s and
  // every 2nd patch answered 409 (about 1.3 409s per object per minute), for 12 minutes.
  it('is one finding for the whole of it', () => {
    const kustomize = actor('system:serviceaccount:flux-system:kustomize-controller', 'kustomize-controller/v1.2.0');
    const out: RequestRecord[] = [];
    let conflicts = 0;
    for (let t = 0; t < 12 * 60_000; t += 23_000) {
      for (let k = 0; k < 400; k++) {
        const conflict = (t / 23_000 + k) % 2 === 0;
        if (conflict) conflicts++;
        out.push(
          rec(T0 + t + k * 50, kustomize, object('kustomizations', `team-${k % 40}`, `app-${k}`, 'status', 'kustomize.toolkit.fluxcd.io'), {
            verb: 'patch',
            code: conflict ? 409 : 200,
            sourceIP: '10.2.0.7',
          }),
        );
      }
    }
    const { findings } = runDetector(detector, {}, out);
    expect(findings.map((f) => [f.metrics.family, f.metrics.events, f.metrics.objects, f.metrics.clients, f.metrics.actors])).toEqual([
      ['system:serviceaccount:flux-system:kustomize-controller', conflicts, 400, 1, 1],
    ]);
    // A 409 per object every 46 s is slower than per-item backoff: patch, but no advice to back off.
    expect([findings[0]!.metrics.excessRequests, findings[0]!.advice.map((a) => a.id)]).toEqual([0, ['patch-instead-of-update']]);
  });
});

describe('fleet-storm: excess requests per retry chain (per-item backoff starts over at a stored write)', () => {
  const kubelet = (k: number) => actor(`system:node:node-${k}`, KUBELET);
  const node = (k: number) => object('nodes', '', `node-${k}`, 'status');
  /** 20 kubelets patching their node's status every 10 s for 10 minutes: 409, then the retry 10 ms later stored. */
  function pacedFleet(): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let t = 0; t < 600_000; t += 10_000)
      for (let k = 0; k < 20; k++) {
        out.push(rec(T0 + t + k * 20, kubelet(k), node(k), { verb: 'patch', code: 409, sourceIP: `10.0.3.${k}` }));
        out.push(rec(T0 + t + k * 20 + 10, kubelet(k), node(k), { verb: 'patch', sourceIP: `10.0.3.${k}` }));
      }
    return out;
  }
  /** The same kubelets retrying one 409 with exact per-item backoff (5 ms doubling), never stored, for 3 minutes. */
  function backedOffFleet(): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let k = 0; k < 20; k++)
      for (let d = 0, delay = 5; d <= 180_000; d += delay, delay *= 2) out.push(rec(T0 + k * 20 + d, kubelet(k), node(k), { verb: 'patch', code: 409, sourceIP: `10.0.3.${k}` }));
    return out.sort((a, b) => a.ts - b.ts);
  }

  it.each([
    ['a 409 every 10 s, each retried at once and stored', pacedFleet, 20 * 60],
    // The 16th attempt, 82 s after the 15th, comes after the episode closed (a window with no 409).
    ['one 409 retried with exact per-item backoff, never stored', backedOffFleet, 20 * (backoffAttempts(180_000) - 1)],
  ])('%s: no excess, no advice to back off', (_name, make, conflicts) => {
    const { findings } = runDetector(detector, {}, make());
    expect(findings.map((f) => [f.metrics.conflicts, f.metrics.objects, f.metrics.excessRequests, f.advice.map((a) => a.id)])).toEqual([
      [conflicts, 20, 0, ['patch-instead-of-update']],
    ]);
  });
});

describe('fleet-storm: one controller conflicting on the same objects for minutes', () => {
  it('is a finding once its objects have kept conflicting for singleClientMinSpanMs', () => {
    const records = rolloutConflicts(178_000);
    const { findings, alerts } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.metrics.family, f.metrics.events, f.metrics.objects, f.metrics.clients, f.window])).toEqual([
      ['system:serviceaccount:kube-system:deployment-controller', 12 * 90, 12, 1, { from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:03:20.003Z' }],
    ]);
    expect(alerts).toEqual(['open fleet-storm ', 'close fleet-storm ']);
    // A shorter required span finds the 28 s rollout too: the span is what tells them apart.
    expect(runDetector(detector, { singleClientMinSpanMs: 20_000 }, rolloutConflicts(28_000)).findings.map((f) => [f.metrics.events, f.metrics.objects])).toEqual([[12 * 15, 12]]);
  });
});

/**
 * ray-project/kuberay#745: an autoscaler patches the spec of each of 20 RayClusters every 30 s;
 * 60 ms later the operator's status update of that cluster is answered 409 `retriesPer409 + 1`
 * times in a row (`gapMs` apart), then the requeued reconcile stores it; with `storedFirst`, the
 * reaction's first status update is stored and the 409s are of the next reconciles, writing from a
 * cache that has not seen that update yet. In between, a status update every 5 s succeeds. 10 minutes.
 */
function raceAfterForeignWrites(retriesPer409: number, autoscalerWrites = true, gapMs = 10, storedFirst = false): RequestRecord[] {
  const rayOperator = actor('system:serviceaccount:ray-system:kuberay-operator', 'kuberay-operator/v0.3.0');
  const autoscaler = actor('system:serviceaccount:ml:ray-autoscaler', 'ray-autoscaler/v2.1.0');
  const out: RequestRecord[] = [];
  for (let c = 0; c < 20; c++) {
    const cluster = object('rayclusters', 'ml', `raycluster-${c}`, '', 'ray.io');
    const status = object('rayclusters', 'ml', `raycluster-${c}`, 'status', 'ray.io');
    for (let t = c * 250; t < 600_000; t += 5000) {
      const raced = t >= 30_000 && t % 30_000 === c * 250;
      if (raced) {
        if (autoscalerWrites) out.push(rec(T0 + t - 60, autoscaler, cluster, { verb: 'patch', sourceIP: '10.244.95.7' }));
        if (storedFirst) out.push(rec(T0 + t - 2, rayOperator, status, { sourceIP: '10.244.94.2' }));
        for (let k = 0; k <= retriesPer409; k++) out.push(rec(T0 + t + k * gapMs, rayOperator, status, { code: 409, sourceIP: '10.244.94.2' }));
        out.push(rec(T0 + t + (retriesPer409 + 1) * gapMs + 5, rayOperator, status, { sourceIP: '10.244.94.2' }));
      } else out.push(rec(T0 + t, rayOperator, status, { sourceIP: '10.244.94.2' }));
    }
  }
  return out.sort((a, b) => a.receivedTs - b.receivedTs);
}

describe('fleet-storm: one controller racing other writers', () => {
  it('each 409 follows another family’s write to the object and the requeue stores it: not a storm (kuberay#745)', () => {
    const records = raceAfterForeignWrites(0);
    expect(records.filter((r) => r.code === 409)).toHaveLength(20 * 19);
    const { findings, notes } = runDetector(detector, {}, records);
    expect([...findings, ...notes]).toEqual([]);
    // The same 409s with no other writer are the controller's own: 20 objects conflicting for 9.5 minutes.
    const alone = raceAfterForeignWrites(0, false);
    expect(runDetector(detector, {}, alone).findings.map((f) => [f.metrics.events, f.metrics.objects, f.metrics.clients])).toEqual([[380, 20, 1]]);
  });

  /**
   * flux2#3689's double patch on 30 Kustomizations, each every 20 s (the second patch of each
   * reconcile conflicts with the first, milliseconds before), beside an annotator patching
   * Kustomization `k` from `startMs(k)` every `everyMs(k)`.
   */
  function fluxBesideAnnotator(startMs: (k: number) => number, everyMs: (k: number) => number): RequestRecord[] {
    const kustomize = actor('system:serviceaccount:flux-system:kustomize-controller', 'kustomize-controller/v1.2.0');
    const annotator = actor('system:serviceaccount:tools:annotator', 'annotator/v0.1.0');
    const out: RequestRecord[] = [];
    for (let k = 0; k < 30; k++) {
      const ks = object('kustomizations', 'apps', `app-${k}`, '', 'kustomize.toolkit.fluxcd.io');
      const status = object('kustomizations', 'apps', `app-${k}`, 'status', 'kustomize.toolkit.fluxcd.io');
      for (let t = k * 100; t < 600_000; t += 20_000) {
        out.push(rec(T0 + t, kustomize, status, { verb: 'patch', sourceIP: '10.2.0.7' }));
        out.push(rec(T0 + t + 4, kustomize, status, { verb: 'patch', code: 409, sourceIP: '10.2.0.7' }));
      }
      for (let t = startMs(k); t < 600_000; t += everyMs(k)) out.push(rec(T0 + t, annotator, ks, { verb: 'patch', sourceIP: '10.9.0.3' }));
    }
    return out.sort((a, b) => a.receivedTs - b.receivedTs);
  }

  // The controller's passes start on its own clock, so no race explains its 409s, however busy the
  // other writer: every 5 s (try57 f03), or about every 1.5 s out of step with it (try60
  // flux1_foreign: most passes start over 500 ms after the last outside patch, so they are no
  // reactions to it).
  it.each<[string, RequestRecord[]]>([
    [
      'every 5 s, 2.5 s before each pass',
      fluxBesideAnnotator(
        (k) => k * 100 + 2500,
        () => 5000,
      ),
    ],
    [
      'about every 1.5 s, out of step',
      fluxBesideAnnotator(
        (k) => k * 37 + 700,
        (k) => 1500 + k,
      ),
    ],
  ])('self-inflicted 409s beside another writer patching each object %s: one finding', (_name, records) => {
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.metrics.family, f.metrics.events, f.metrics.objects])).toEqual([['system:serviceaccount:flux-system:kustomize-controller', 30 * 30, 30]]);
  });

  it('singleClientReactionLagMs as long as the other writer’s period makes every pass a reaction: no finding', () => {
    expect(
      runDetector(
        detector,
        { singleClientReactionLagMs: 1_600 },
        fluxBesideAnnotator(
          (k) => k * 37 + 700,
          (k) => 1500 + k,
        ),
      ).findings,
    ).toEqual([]);
  });

  // A change sets off reconciles that write from a cache lagging their own last write: their 409s,
  // retried until the informer catches up, are explained by the change up to the attempts per-item
  // backoff makes in singleClientRaceReactionMs (9 in 2 s); beyond that the client loses to itself.
  it.each<[string, () => RequestRecord[], Array<[number, number, number]>]>([
    ['3 stale resends 10 ms apart after each change, then stored', () => raceAfterForeignWrites(3), []],
    ['the reaction stores one update, the next reconciles 409 4 times from the lagging cache (draw 102 of the eval)', () => raceAfterForeignWrites(3, true, 10, true), []],
    ['8 resends with the reaction’s per-item backoff budget to spare (9 409s in 90 ms)', () => raceAfterForeignWrites(8), []],
    ['the same 4 409s with no change before them: the client’s own', () => raceAfterForeignWrites(3, false), [[4 * 380, 20, 1]]],
    ['resent every 10 ms for 400 ms after each change (40 409s, no backoff): beyond the budget', () => raceAfterForeignWrites(39), [[40 * 380, 20, 1]]],
    ['resent every 100 ms for 3 s after each change: past the reaction window', () => raceAfterForeignWrites(29, true, 100), [[30 * 380, 20, 1]]],
  ])('%s', (_name, make, expected) => {
    const { findings, notes } = runDetector(detector, {}, make());
    expect(findings.map((f) => [f.metrics.events, f.metrics.objects, f.metrics.clients])).toEqual(expected);
    expect(notes).toEqual([]);
  });

  it('singleClientReactionLagMs 0: only a change since the client’s previous request explains a 409', () => {
    expect(runDetector(detector, { singleClientReactionLagMs: 0 }, raceAfterForeignWrites(3)).findings.map((f) => [f.metrics.events, f.metrics.objects])).toEqual([[4 * 380, 20]]);
  });
});

describe('fleet-storm: not a fleet', () => {
  const quiet: Array<[string, () => RequestRecord[]]> = [
    [
      'a single-object conflict storm by one actor from two replicas',
      () =>
        Array.from({ length: 6000 }, (_, i) =>
          rec(T0 + i * 10, operator, object('widgets', 'shop', 'w1', 'status', 'example.com'), { code: 409, sourceIP: i % 2 ? '10.1.0.1' : '10.1.0.2' }),
        ),
    ],
    [
      // Same `manager` product, different service accounts: two families of 6 objects each.
      'two unrelated kubebuilder operators, 6 objects each',
      () =>
        Array.from({ length: 1200 }, (_, i) =>
          rec(T0 + i * 50, i % 2 ? operator : other, object('widgets', 'shop', `w${i % 12}`, 'status', 'example.com'), { code: 409, sourceIP: `10.1.0.${i % 4}` }),
        ),
    ],
    [
      // One 429 per kubelet: 20 answers on 20 objects from 20 clients, below minEvents (30).
      'a few 429s across many kubelets',
      () =>
        kubelets429()
          .slice(0, 60)
          .filter((_, i) => i % 3 === 0),
    ],
    // 180 409s on 12 objects in one window from one client, but each object's 409s last 28 s and stop.
    ['one controller rolling out 12 Deployments, each conflicting for 28 s then settled', () => rolloutConflicts(28_000)],
    ['409 AlreadyExists on create across many objects', () => kubelets429().map((r) => ({ ...r, verb: 'create', isWrite: true, code: 409, reason: 'AlreadyExists' }))],
  ];
  it.each(quiet)('%s: nothing', (_name, make) => {
    const { findings, notes } = runDetector(detector, {}, make());
    expect([...findings, ...notes]).toEqual([]);
  });

  it('thresholds come from options', () => {
    const records = daemonSetConflicts();
    expect(runDetector(detector, { minObjects: 11 }, records).findings).toHaveLength(0);
    expect(runDetector(detector, { minClients: 11 }, records).findings).toHaveLength(0);
    const few = kubelets429()
      .slice(0, 60)
      .filter((_, i) => i % 3 === 0);
    expect(runDetector(detector, { minEvents: 20 }, few).findings.map((f) => [f.metrics.events, f.metrics.objects, f.metrics.clients])).toEqual([[20, 20, 20]]);
    // One client on 30 objects is a finding (minClients 1 by default), not with minClients 2.
    // It must keep conflicting on the same objects for singleClientMinSpanMs (60 s): 120 s here.
    const one = Array.from({ length: 1200 }, (_, i) => rec(T0 + i * 100, operator, object('widgets', 'shop', `w${i % 30}`), { code: 409 }));
    expect(runDetector(detector, {}, one).findings.map((f) => [f.metrics.objects, f.metrics.clients])).toEqual([[30, 1]]);
    expect(runDetector(detector, {}, one.slice(0, 600)).findings).toHaveLength(0);
    expect(runDetector(detector, { minClients: 2 }, one).findings).toHaveLength(0);
    // The same answered 429: one throttled client is throttling's finding, not a fleet's; two clients are a fleet.
    const throttled = one.map((r) => ({ ...r, code: 429 }));
    expect(runDetector(detector, {}, throttled).findings).toHaveLength(0);
    const two = throttled.map((r, i) => ({ ...r, sourceIP: i % 2 ? '10.9.0.1' : '10.9.0.2' }));
    expect(runDetector(detector, {}, two).findings.map((f) => [f.metrics.throttled, f.metrics.clients])).toEqual([[1200, 2]]);
  });
});
