/**
 * The simulated evaluation: a log is a function of scenario, set and seed; the held-out set draws
 * other names and other parameter values than the tuning set; and small scenarios run end to end
 * through `analyze` with exact findings.
 */
import { describe, expect, it } from 'vitest';
import { ALL_SCENARIOS } from '../../src/sim/all.js';
import { INCIDENT_SCENARIOS_4 } from '../../src/sim/scenarios4.js';
import { evaluateSim, HELD_OUT, runSimCase, simulate, TUNING } from '../../src/sim/evaluate.js';
import { POOL_A, POOL_B, Sampler } from '../../src/sim/names.js';
import type { SimScenario } from '../../src/sim/scenarios.js';
import { World } from '../../src/sim/world.js';
import { ref } from '../../src/sim/background.js';
import { serviceAccount } from '../../src/sim/users.js';
import { decodeLine } from '../../src/decoding/decode.js';
import { Normalizer } from '../../src/decoding/normalize.js';

const scenario = (name: string): SimScenario => {
  const sc = ALL_SCENARIOS.find((s) => s.name === name);
  if (!sc) throw new Error(`no scenario ${name}`);
  return sc;
};

describe('simulated logs', () => {
  it('are the same for the same scenario, set and seed, and differ for another seed', () => {
    const a = simulate(scenario('node-stale-watch-cache'), TUNING, 1);
    const b = simulate(scenario('node-stale-watch-cache'), TUNING, 1);
    const c = simulate(scenario('node-stale-watch-cache'), TUNING, 2);
    expect(a.chunks.join('')).toBe(b.chunks.join(''));
    expect(a.lines).toBe(b.lines);
    expect(a.expected).toEqual(b.expected);
    expect(c.chunks.join('')).not.toBe(a.chunks.join(''));
  });

  it('are sorted by stageTimestamp, one audit event per line', () => {
    const { chunks, lines } = simulate(scenario('node-stale-watch-cache'), TUNING, 1);
    const ls = chunks.join('').split('\n').filter(Boolean);
    expect(ls.length).toBe(lines);
    const times = ls.map((l) => (JSON.parse(l) as { stageTimestamp: string }).stageTimestamp);
    expect(times.every((t, i) => i === 0 || (times[i - 1] as string) <= t)).toBe(true);
  });
});

describe('tuning and held-out sets', () => {
  it('share no seed and no name', () => {
    expect(TUNING.seeds.filter((s) => HELD_OUT.seeds.includes(s))).toEqual([]);
    for (const k of Object.keys(POOL_A) as Array<keyof typeof POOL_A>) expect(POOL_A[k].filter((n) => POOL_B[k].includes(n))).toEqual([]);
  });

  it('draw parameters from the middle half (tuning) or the outer quarters (held-out) of each range', () => {
    const mid = new Sampler(5, 'middle', POOL_A);
    const out = new Sampler(5, 'outer', POOL_B);
    for (let i = 0; i < 200; i++) {
      const m = mid.num('x', 100, 200);
      const o = out.num('x', 100, 200);
      expect(m >= 125 && m <= 175).toBe(true);
      expect(o <= 125 || o >= 175).toBe(true);
    }
  });

  it("give a held-out log none of the tuning pool's names", () => {
    const { chunks, params } = simulate(scenario('prometheus-status-409-loop'), HELD_OUT, 101);
    const log = chunks.join('');
    for (const n of [...POOL_A.namespaces, ...POOL_A.nodePrefix]) expect(log.includes(`"${n}`), n).toBe(false);
    expect(POOL_B.namespaces.some((n) => log.includes(`"namespace":"${n}"`))).toBe(true);
    const tuning = simulate(scenario('prometheus-status-409-loop'), TUNING, 1).params;
    // watchDelayMs is drawn from [100, 300]: the middle half is [150, 250].
    expect(Number(params.watchDelayMs) < 150 || Number(params.watchDelayMs) > 250).toBe(true);
    expect(Number(tuning.watchDelayMs) >= 150 && Number(tuning.watchDelayMs) <= 250).toBe(true);
  });
});

describe('end to end through analyze', () => {
  it("finds the stuck kubelet's conflict storm on its node status and nothing else", async () => {
    const r = await runSimCase(scenario('node-stale-watch-cache'), TUNING, 1);
    expect(r.findings.map((f) => [f.kind, f.actors.map((a) => a.username), f.object?.resource, f.object?.subresource, f.object?.name, f.metrics.conflicts])).toEqual([
      ['conflict-storm', ['system:node:worker-a-10-1'], 'nodes', 'status', 'worker-a-10-1', 232],
    ]);
    expect([r.found.length, r.missed.length, r.falsePositives.length, r.inconsistent.length]).toEqual([1, 0, 0, 0]);
  });

  it('reports nothing for an operator whose status write races its own previous write a few times an hour', async () => {
    const r = await runSimCase(scenario('kas-operator-occasional-409'), TUNING, 1);
    expect(r.findings).toEqual([]);
    expect(r.expected).toEqual([]);
  });

  it('finds one write fight per HTTPRoute between the two istiod revisions, each revision rewriting the route status folded into its fight', async () => {
    const r = await runSimCase(scenario('istio-two-revisions-fight'), TUNING, 1);
    expect(r.findings.filter((f) => f.kind === 'write-fight').map((f) => [f.kind, f.actors.map((a) => a.username).sort(), f.object?.namespace, f.object?.name])).toEqual([
      ['write-fight', ['system:serviceaccount:istio-system:istiod', 'system:serviceaccount:istio-system:istiod-canary'], 'catalog', 'reporter-0'],
      ['write-fight', ['system:serviceaccount:istio-system:istiod', 'system:serviceaccount:istio-system:istiod-canary'], 'catalog', 'reporter-1'],
    ]);
    expect([r.found.length, r.missed.length, r.falsePositives.length]).toEqual([2, 0, 0]);
    // Each revision's hot loop on the route's status is the fight told from one side: a member.
    expect(r.acceptableFindings).toEqual([]);
    expect(
      r.findings.map((f) =>
        (f.members ?? []).map((m) => [m.kind, m.username.split(':').pop(), m.object?.name, m.object?.subresource]).sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
      ),
    ).toEqual([
      [
        ['hot-loop', 'istiod', 'reporter-0', 'status'],
        ['hot-loop', 'istiod-canary', 'reporter-0', 'status'],
      ],
      [
        ['hot-loop', 'istiod', 'reporter-1', 'status'],
        ['hot-loop', 'istiod-canary', 'reporter-1', 'status'],
      ],
    ]);
  });
});

describe('scenario fidelity to real-incidents.md', () => {
  it('zookeeper-operator#389 (item 24): every status write is a new resourceVersion, so the loop never stops by itself (>100 req/s at a 6 ms watch delay)', () => {
    const counts = [101, 102].map((seed) => {
      const e = simulate(scenario('zookeeper-status-reconcile-loop'), HELD_OUT, seed).expected[0];
      return [e?.writes, e?.noOps];
    });
    expect(counts).toEqual([
      [33286, 0],
      [77460, 0],
    ]);
  });
});

describe('generateName creates (audit-formats.md §1: objectRef.name stays empty)', () => {
  const cr = ref('cert-manager.io', 'v1', 'certificaterequests', 'shop', 'web-tls-x2k4p');
  const user = serviceAccount('cert-manager', 'cert-manager', 'cert-manager', 'v1.14.4', '10.244.21.6');
  function created(level: string[]): Record<string, unknown> {
    const w = new World({ seed: 1, startMs: Date.UTC(2026, 0, 1), durationUs: 1_000_000, requestResponse: level, requestReceivedShare: 0 });
    w.at(1000, () => w.call(user, { verb: 'create', ref: cr, body: { issuerRef: 'pca' }, generateName: 'web-tls-' }));
    w.run();
    const lines = w.auditLog().split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]!) as Record<string, unknown>;
  }

  it('Metadata level: no name in objectRef, the URI or anywhere else', () => {
    const ev = created([]);
    expect(ev.objectRef).toEqual({ resource: 'certificaterequests', namespace: 'shop', apiGroup: 'cert-manager.io', apiVersion: 'v1' });
    expect(ev.requestURI).toBe('/apis/cert-manager.io/v1/namespaces/shop/certificaterequests');
    expect(JSON.stringify(ev)).not.toContain('x2k4p');
  });

  it('RequestResponse level: generateName in the request body, the generated name only in the response body; the parser names the object from it', () => {
    const ev = created(['certificaterequests']);
    expect(ev.objectRef).toEqual({ resource: 'certificaterequests', namespace: 'shop', apiGroup: 'cert-manager.io', apiVersion: 'v1' });
    expect((ev.requestObject as { metadata: unknown }).metadata).toEqual({ generateName: 'web-tls-', namespace: 'shop' });
    expect((ev.responseObject as { metadata: { name: string; generateName: string } }).metadata).toMatchObject({ name: 'web-tls-x2k4p', generateName: 'web-tls-' });
    const d = decodeLine(JSON.stringify(ev));
    if (!d.ok) throw new Error(d.reason);
    expect(new Normalizer().normalize(d.event)?.object?.key).toBe('cert-manager.io/certificaterequests/shop/web-tls-x2k4p/');
  });
});

describe('objectRef.resourceVersion (audit-formats.md: LogRequestObject on update, never on patch)', () => {
  it('an update carries the resourceVersion it sent, a 409 included; a patch with metadata.resourceVersion carries none', () => {
    const cm = ref('', 'v1', 'configmaps', 'shop', 'settings');
    const user = serviceAccount('shop', 'shop-operator', 'manager', 'v0.0.0', '10.244.1.17');
    const w = new World({ seed: 1, startMs: Date.UTC(2026, 0, 1), durationUs: 1_000_000, requestResponse: [], requestReceivedShare: 0 });
    const rvs: number[] = [];
    const keep = (r: { object?: { rv: number } }): void => {
      if (r.object !== undefined) rvs.push(r.object.rv);
    };
    // 100 ms apart (times in µs): each answer is back before the next request.
    w.at(100_000, () => w.call(user, { verb: 'create', ref: cm, body: { data: { a: '1' } } }, keep));
    w.at(200_000, () => w.call(user, { verb: 'update', ref: cm, rv: String(rvs[0]), body: { data: { a: '2' } } }, keep));
    w.at(300_000, () => w.call(user, { verb: 'update', ref: cm, rv: String(rvs[0]), body: { data: { a: '3' } } }));
    w.at(400_000, () => w.call(user, { verb: 'patch', ref: cm, rv: String(rvs[1]), body: { data: { a: '4' } } }));
    w.run();
    expect(rvs).toHaveLength(2);
    const events = w
      .auditLog()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { verb: string; objectRef: { resourceVersion?: string }; responseStatus: { code: number } });
    expect(events.map((e) => [e.verb, e.responseStatus.code, e.objectRef.resourceVersion])).toEqual([
      ['create', 201, undefined],
      ['update', 200, String(rvs[0])],
      ['update', 409, String(rvs[0])],
      ['patch', 200, undefined],
    ]);
  });
});

describe('B.2 scenarios, part A (src/sim/scenarios4.ts)', () => {
  it('are registered once each, after the third batch and before the benign look-alikes', () => {
    const names = ALL_SCENARIOS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    expect(INCIDENT_SCENARIOS_4.map((s) => s.name)).toEqual([
      'capi-kcp-rollout-condition-conflicts',
      'mcm-machine-node-conditions',
      'gatekeeper-reimport-victim-409',
      'arc-webhook-update-loop',
      'strimzi-kafka-status-ltt-loop',
      'emqx-pod-condition-every-second',
      'operator-noop-workload-updates',
    ]);
    const at = names.indexOf('capi-kcp-rollout-condition-conflicts');
    expect(names.slice(at, at + 7)).toEqual(INCIDENT_SCENARIOS_4.map((s) => s.name));
    expect(names[at - 1]).toBe('neon-stale-retry-1s');
  });

  it('are each a function of scenario, set and seed (no clock or Math.random in their actors)', () => {
    for (const sc of INCIDENT_SCENARIOS_4) {
      const a = simulate(sc, TUNING, 1);
      const b = simulate(sc, TUNING, 1);
      expect(a.chunks.join('') === b.chunks.join(''), sc.name).toBe(true);
      expect(a.lines, sc.name).toBeGreaterThan(1000);
    }
  });

  it('emqx-operator#998: each core pod is re-stamped about once a second, every write a new resourceVersion', () => {
    const e = simulate(scenario('emqx-pod-condition-every-second'), TUNING, 1).expected[0];
    expect([e?.kind, e?.objects, e?.writes, e?.noOps]).toEqual(['hot-loop', 3, 1257, 0]);
  });

  it('cluster-api#3395: a rollout makes a few 409s on the KubeadmControlPlane status and no finding', async () => {
    const sc = scenario('capi-kcp-rollout-condition-conflicts');
    const codes: Record<string, number> = {};
    for (const line of simulate(sc, TUNING, 1).chunks.join('').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line) as { stage: string; verb: string; objectRef?: { resource: string }; responseStatus: { code: number } };
      if (e.stage !== 'ResponseComplete' || e.objectRef?.resource !== 'kubeadmcontrolplanes' || e.verb !== 'patch') continue;
      codes[e.responseStatus.code] = (codes[e.responseStatus.code] ?? 0) + 1;
    }
    expect(codes).toEqual({ 200: 18, 409: 11 });
    const r = await runSimCase(sc, TUNING, 1);
    expect([r.findings.length, r.falsePositives.length, r.benign]).toEqual([0, 0, true]);
  });
});

describe("expectations out of the log's reach", () => {
  it('machine-controller-manager#293 at Metadata level: the no-op expectation is scored apart, with its counts, neither missed nor found', async () => {
    const r = await runSimCase(scenario('mcm-machine-node-conditions'), TUNING, 1);
    expect(r.params.requestResponse).toBe('false');
    expect([r.expected.length, r.missed.length, r.found.length, r.falsePositives.length]).toEqual([0, 0, 0, 0]);
    expect(r.outOfReach.map((e) => [e.kind, e.actors.map((a) => a.username), e.writes, e.objects])).toEqual([
      ['no-op-writes', ['system:serviceaccount:shoot--billing-svc--prod:machine-controller-manager'], 2137, 214],
    ]);
    expect(r.outOfReachFound).toEqual([]);
  });

  it('strimzi#9176 with bodies logged: the loop is expected and found, nothing out of reach', async () => {
    const r = await runSimCase(scenario('strimzi-kafka-status-ltt-loop'), TUNING, 1);
    expect(r.params.requestResponse).toBe('true');
    expect([r.found.map((e) => e.kind), r.missed.length, r.outOfReach.length]).toEqual([['hot-loop'], 0, 0]);
  });

  it('longhorn#183 in a draw whose race never started: a conflict storm without one 409 is out of reach, not missed', () => {
    const sim = simulate(scenario('longhorn-probe-time-conflicts'), TUNING, 5);
    expect(sim.expected).toEqual([]);
    expect(sim.outOfReach.map((e) => [e.kind, e.writes, e.conflicts, e.why])).toEqual([
      ['conflict-storm', 754, 0, 'the pattern did not occur in this draw: no 409 Conflict answered to the expected actors'],
    ]);
    expect(simulate(scenario('longhorn-probe-time-conflicts'), TUNING, 1).expected.map((e) => [e.kind, e.conflicts > 0])).toEqual([['conflict-storm', true]]);
  });

  it("an evaluation counts out-of-reach expectations apart from the kinds' expected findings", async () => {
    const e = await evaluateSim(TUNING, [scenario('mcm-machine-node-conditions'), scenario('keycloak-ltt-hot-loop')]);
    expect(e.outOfReach).toEqual({ entries: 3, found: 0 });
    expect(e.kinds.filter((k) => k.expected > 0).map((k) => [k.kind, k.expected, k.found])).toEqual([['hot-loop', 1, 1]]);
  });
});
