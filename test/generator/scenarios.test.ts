/**
 * The scenarios added for the evaluation: each is deterministic, plants what its ground truth
 * says (counted again here from the lines), and has the shape its kind is about.
 */
import { describe, expect, it } from 'vitest';
import { generateLog, logText, type ExpectedFinding, type GeneratedLog, type LogSpec } from '../../src/generator/generate.js';
import { SCENARIO_TYPES, type ScenarioSpec } from '../../src/generator/scenarios.js';

interface Ev {
  level: string;
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string };
  userAgent: string;
  sourceIPs: string[];
  objectRef?: { resource: string; namespace?: string; name?: string; apiGroup?: string; resourceVersion?: string; subresource?: string };
  responseStatus?: { code: number; reason?: string };
  requestObject?: { metadata: { resourceVersion: string }; status: { conditions: Array<{ lastTransitionTime: string }> } };
  responseObject?: { metadata: { resourceVersion: string } };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

const START = '2026-04-01T12:00:00Z';
const MINUTE = 60_000;
const WRITES = new Set(['create', 'update', 'patch', 'delete']);

function run(scenarios: ScenarioSpec[], durationMs = 2 * MINUTE, seed = 9): { log: GeneratedLog; finals: Ev[] } {
  const log = generateLog({ seed, start: START, durationMs, scenarios });
  const finals = [...log.lines].map((l) => JSON.parse(l) as Ev).filter((e) => e.stage === 'ResponseComplete');
  return { log, finals };
}

function us(t: string): number {
  return Date.parse(t.slice(0, 23) + 'Z') * 1000 + Number(t.slice(23, 26));
}

/** Final events of the expected finding's actors on its objects (any object when null). */
function eventsOf(finals: Ev[], e: ExpectedFinding): Ev[] {
  const actors = new Set(e.actors.map((a) => `${a.username}\u0000${a.userAgent}`));
  return finals.filter((x) => actors.has(`${x.user.username}\u0000${x.userAgent}`) && x.objectRef);
}

/** Recount an expected finding from the lines (single-kind scenarios: all of the actors' requests belong to it). */
function recount(finals: Ev[], e: ExpectedFinding) {
  const evs = eventsOf(finals, e);
  return {
    writes: evs.filter((x) => WRITES.has(x.verb)).length,
    conflicts: evs.filter((x) => x.responseStatus?.code === 409 && x.responseStatus.reason === 'Conflict').length,
    alreadyExists: evs.filter((x) => x.responseStatus?.reason === 'AlreadyExists').length,
    throttled: evs.filter((x) => x.responseStatus?.code === 429).length,
  };
}

function only(log: GeneratedLog, kind: string): ExpectedFinding {
  const found = log.expected.filter((e) => e.kind === kind);
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('every scenario type', () => {
  it.each(SCENARIO_TYPES.filter((t) => t !== 'background'))('%s is deterministic and its truth matches the lines', (type) => {
    const spec: LogSpec = { seed: 4, start: START, durationMs: 90_000, scenarios: [{ type }] };
    const a = generateLog(spec);
    expect(logText(generateLog(spec))).toBe(logText(a));
    expect(logText(generateLog({ ...spec, seed: 5 }))).not.toBe(logText(a));
    expect(a.expected.length).toBeGreaterThan(0);
    for (const rnd of [false, true]) {
      const { log, finals } = run([{ type, randomizeNames: rnd }], 90_000, 6);
      // Per pair: attempts and conflicts as in the lines.
      for (const t of log.truth) {
        const evs = finals.filter(
          (e) =>
            WRITES.has(e.verb) &&
            e.user.username === t.actor.username &&
            e.userAgent === t.actor.userAgent &&
            (e.objectRef?.apiGroup ?? '') === t.object.apiGroup &&
            e.objectRef?.resource === t.object.resource &&
            (e.objectRef.namespace ?? '') === t.object.namespace &&
            (e.objectRef.name ?? '') === t.object.name &&
            (e.objectRef.subresource ?? '') === t.object.subresource,
        );
        expect(evs.length, `${type} ${t.actor.username}`).toBe(t.attempts);
        expect(evs.filter((e) => e.responseStatus?.reason === 'Conflict').length).toBe(t.conflicts);
      }
      // Every 409 Conflict and every 429 belongs to an expected entry.
      const sum = (k: 'conflicts' | 'throttled') => log.expected.filter((e) => e.kind !== 'benign' || type !== 'fleetStorm').reduce((n, e) => n + e[k], 0);
      expect(finals.filter((e) => e.responseStatus?.reason === 'Conflict').length).toBeLessThanOrEqual(sum('conflicts'));
      expect(finals.filter((e) => e.responseStatus?.code === 429).length).toBe(sum('throttled'));
    }
  });
});

describe('finding scenarios', () => {
  it('hotLoop: one writer, one /status, all 200, at the configured rate', () => {
    const { log, finals } = run([{ type: 'hotLoop', ratePerSec: 5 }]);
    const e = only(log, 'hot-loop');
    expect(e.actors).toHaveLength(1);
    expect(e.object).toMatchObject({ resource: 'edgeroutes', subresource: 'status' });
    expect(recount(finals, e)).toEqual({ writes: e.writes, conflicts: 0, alreadyExists: 0, throttled: 0 });
    expect(e.writes).toBeGreaterThan(5 * 120 * 0.8);
    expect(e.writes).toBeLessThan(5 * 120 * 1.2);
    expect(e.noOps).toBe(0);
    // Each PUT sends the RV the previous one produced.
    const rvs = eventsOf(finals, e).map((x) => x.objectRef?.resourceVersion);
    expect(new Set(rvs).size).toBe(rvs.length);
  });

  it('noOpWrites at Metadata level: 200s that keep the RV, so every PUT resends the same one', () => {
    const { log, finals } = run([{ type: 'noOpWrites' }], 3 * MINUTE);
    const e = only(log, 'no-op-writes');
    const evs = eventsOf(finals, e);
    expect(evs.every((x) => x.level === 'Metadata' && x.verb === 'update' && x.responseStatus?.code === 200)).toBe(true);
    expect(new Set(evs.map((x) => x.objectRef?.resourceVersion)).size).toBe(1);
    expect(e.noOps).toBe(evs.length);
    expect(evs.length).toBeLessThan((3 * 60) / 3);
  });

  it('noOpWrites at RequestResponse level with identical bodies: the response RV is the request RV', () => {
    const { log, finals } = run([{ type: 'noOpWrites', level: 'RequestResponse' }]);
    const evs = eventsOf(finals, only(log, 'no-op-writes'));
    expect(evs.length).toBeGreaterThan(10);
    for (const x of evs) {
      expect(x.level).toBe('RequestResponse');
      expect(x.responseObject?.metadata.resourceVersion).toBe(x.objectRef?.resourceVersion);
      expect(x.requestObject?.metadata.resourceVersion).toBe(x.objectRef?.resourceVersion);
    }
  });

  it('noOpWrites with timestamps / transitionTimeReplay: successive bodies differ only in lastTransitionTime', () => {
    for (const spec of [{ type: 'noOpWrites', level: 'RequestResponse', change: 'timestamps' }, { type: 'transitionTimeReplay' }] as ScenarioSpec[]) {
      const { log, finals } = run([spec]);
      const e = only(log, 'no-op-writes');
      const evs = eventsOf(finals, e);
      const strip = (x: Ev) => JSON.stringify(x.requestObject, (k, v: unknown) => (k === 'lastTransitionTime' || k === 'resourceVersion' ? undefined : v));
      expect(new Set(evs.map(strip)).size).toBe(1);
      expect(new Set(evs.map((x) => x.requestObject?.status.conditions[0]?.lastTransitionTime)).size).toBeGreaterThan(10);
      expect(e.noOps).toBe(evs.length);
    }
    const { log } = run([{ type: 'transitionTimeReplay', level: 'Metadata' }]);
    expect(log.expected.map((e) => e.kind).sort()).toEqual(['hot-loop', 'no-op-writes']);
    expect(only(log, 'hot-loop').writes).toBeGreaterThan(2 * 120);
  });

  it('writeFight: HPA /scale and the applier alternate on one Deployment; the /status follower is not part of it', () => {
    const { log, finals } = run([{ type: 'writeFight', hpaPeriodMs: 5000 }]);
    const e = only(log, 'write-fight');
    expect(e.actors.map((a) => a.username)).toEqual(['system:serviceaccount:argocd:argocd-application-controller', 'system:serviceaccount:kube-system:horizontal-pod-autoscaler']);
    expect(e.object).toEqual({ apiGroup: 'apps', resource: 'deployments', namespace: 'shop', name: 'checkout-api', subresource: '' });
    const writers = finals.filter((x) => WRITES.has(x.verb) && x.objectRef?.subresource !== 'status').map((x) => x.user.username);
    const alternations = writers.filter((u, i) => i > 0 && u !== writers[i - 1]).length;
    expect(alternations).toBeGreaterThanOrEqual(2 * 20 - 2); // 2 per 5 s period over 2 min
    expect(finals.filter((x) => x.objectRef?.subresource === 'status').length).toBe(e.writes);
  });

  it('createConflictStorm: the same name created again and again, every answer 409 AlreadyExists', () => {
    const { log, finals } = run([{ type: 'createConflictStorm', ratePerSec: 10 }]);
    const e = only(log, 'create-conflict-storm');
    expect(recount(finals, e)).toEqual({ writes: e.writes, conflicts: 0, alreadyExists: e.writes, throttled: 0 });
    expect(e.objects).toBe(1);
    expect(e.object?.name).toBe('db-credentials');
    const several = only(run([{ type: 'createConflictStorm', names: 3 }]).log, 'create-conflict-storm');
    expect([several.objects, several.object]).toEqual([3, null]);
  });

  it('fleetStorm: every member meets a few 409s, no object has a storm', () => {
    for (const family of ['daemonset', 'kubelet'] as const) {
      const { log, finals } = run([{ type: 'fleetStorm', family, members: 15 }], 3 * MINUTE);
      const e = only(log, 'fleet-storm');
      expect([e.object, e.objects]).toEqual([null, 15]);
      expect(e.actors).toHaveLength(family === 'kubelet' ? 15 : 1);
      if (family === 'kubelet') expect(e.actors.every((a) => a.username.startsWith('system:node:'))).toBe(true);
      expect(recount(finals, e).conflicts).toBe(e.conflicts);
      expect(e.conflicts).toBeGreaterThan(50);
      const perObject = new Map<string, number>();
      for (const x of eventsOf(finals, e)) if (x.responseStatus?.code === 409) perObject.set(x.objectRef!.name!, (perObject.get(x.objectRef!.name!) ?? 0) + 1);
      expect(Math.max(...perObject.values())).toBeLessThan(20);
    }
  });

  it('throttling: APF 429s without annotations, retried after Retry-After with new auditIDs, at most 10 times', () => {
    const { log, finals } = run([{ type: 'throttling' }], 3 * MINUTE);
    const e = only(log, 'throttling');
    expect(e.object).toBeNull();
    expect(e.actors).toHaveLength(2);
    const r = recount(finals, e);
    expect(r.throttled).toBe(e.throttled);
    expect(e.throttled).toBeGreaterThan(20);
    const rejected = finals.filter((x) => x.responseStatus?.code === 429);
    expect(rejected.every((x) => x.annotations === undefined && x.responseStatus?.reason === undefined)).toBe(true);
    expect(new Set(rejected.map((x) => x.auditID)).size).toBe(rejected.length);
    // The victim's next request after a 429 comes ≥ 1 s later.
    const victim = finals.filter((x) => x.user.username === rejected[0]!.user.username);
    victim.forEach((x, i) => {
      const next = victim[i + 1];
      if (x.responseStatus?.code === 429 && next) expect(us(next.requestReceivedTimestamp) - us(x.stageTimestamp)).toBeGreaterThanOrEqual(1_000_000);
    });
    // The heavy writer: thousands of distinct objects, one write each.
    const heavy = finals.filter((x) => x.user.username !== rejected[0]!.user.username && x.verb === 'patch');
    expect(new Set(heavy.map((x) => x.requestURI.split('?')[0])).size).toBe(heavy.length);
    expect(heavy.length).toBeGreaterThan(3000);
  });

  it('jobControllerReplay: the job controller on jobs/status, ~60 updates/s, mostly 409', () => {
    const { log } = run([{ type: 'jobControllerReplay' }], MINUTE);
    const e = only(log, 'conflict-storm');
    expect(e.actors).toEqual([
      {
        username: 'system:serviceaccount:kube-system:job-controller',
        userAgent: 'kube-controller-manager/v1.30.2 (linux/amd64) kubernetes/3968350/system:serviceaccount:kube-system:job-controller',
      },
    ]);
    expect(e.object).toMatchObject({ apiGroup: 'batch', resource: 'jobs', subresource: 'status' });
    expect(e.writes / 60).toBeGreaterThan(45);
    expect(e.writes / 60).toBeLessThan(75);
    expect(e.conflicts / e.writes).toBeGreaterThan(0.8);
  });

  it('policyEngineReplay: conflicts retried every 50–100 ms', () => {
    const { log, finals } = run([{ type: 'policyEngineReplay' }], MINUTE);
    const e = only(log, 'conflict-storm');
    const evs = eventsOf(finals, e).filter((x) => x.verb === 'update');
    const gaps = evs
      .slice(1)
      .map((x, i) => (us(x.requestReceivedTimestamp) - us(evs[i]!.stageTimestamp)) / 1000)
      .filter((_, i) => evs[i]!.responseStatus?.code === 409);
    expect(gaps.length).toBeGreaterThan(300);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(100);
  });
});

describe('benign scenarios', () => {
  it('rollout, busyController, kubeletStatus: one benign entry each, no 409 or 429', () => {
    for (const type of ['rollout', 'busyController', 'kubeletStatus'] as const) {
      const { log, finals } = run([{ type }], 3 * MINUTE);
      expect(log.expected.map((e) => [e.kind, e.object])).toEqual([['benign', null]]);
      expect(finals.filter((x) => x.responseStatus && x.responseStatus.code >= 400)).toEqual([]);
    }
  });

  it('rollout: the new ReplicaSet reaches the replicas, the old one is scaled away', () => {
    const { finals } = run([{ type: 'rollout', replicas: 8 }], 3 * MINUTE);
    expect(finals.filter((x) => x.verb === 'create' && x.objectRef?.resource === 'pods' && !x.objectRef.subresource)).toHaveLength(8);
    expect(finals.filter((x) => x.verb === 'delete')).toHaveLength(8);
    expect(finals.filter((x) => x.verb === 'create' && x.objectRef?.resource === 'replicasets')).toHaveLength(1);
  });

  it('busyController: each object written exactly once', () => {
    const { log, finals } = run([{ type: 'busyController', objects: 2000, ratePerSec: 30 }], 2 * MINUTE);
    const uris = finals.filter((x) => x.verb === 'patch').map((x) => x.requestURI.split('?')[0]);
    expect(uris).toHaveLength(2000);
    expect(new Set(uris).size).toBe(2000);
    expect(log.expected[0]?.objects).toBe(2000);
  });
});
