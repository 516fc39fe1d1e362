import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { decodeLine } from '../../src/decoding/decode.js';
import { digestBody } from '../../src/decoding/body.js';
import {
  cappedUserAgent,
  INTERN_GENERATION_GROWTH,
  INTERN_GENERATION_MAX,
  MAX_USER_AGENT_LENGTH,
  Normalizer,
  parseServiceAccount,
  parseUserAgent,
} from '../../src/decoding/normalize.js';
import type { Actor, ObjectRef, RequestRecord } from '../../src/decoding/record.js';
import { PairMap } from '../../src/detectors/common.js';
import { idLanes, LANES } from '../../src/decoding/hash.js';
import { CONFLICT_EVENT, eventLine } from './helpers.js';

const TEN = Date.UTC(2026, 6, 1, 10, 0, 0);

function normalize(overrides: Record<string, unknown> = {}, normalizer = new Normalizer()): RequestRecord | null {
  const r = decodeLine(eventLine(overrides));
  if (!r.ok) throw new Error(r.reason);
  return normalizer.normalize(r.event);
}

function record(overrides: Record<string, unknown> = {}, normalizer = new Normalizer()): RequestRecord {
  const r = normalize(overrides, normalizer);
  if (r === null) throw new Error('no record');
  return r;
}

describe('Normalizer.normalize', () => {
  it('fills every field of the §1.7 conflict example', () => {
    idLanes('6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21');
    const [idLaneA, idLaneB] = LANES;
    expect(record()).toEqual({
      idLaneA,
      idLaneB,
      auditID: '6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21',
      ts: TEN + 131.002,
      receivedTs: TEN + 123.456,
      latencyMs: 7.546,
      stage: 'ResponseComplete',
      verb: 'update',
      isWrite: true,
      dryRun: false,
      actor: {
        key: 'system:serviceaccount:shop-system:shop-operator\u0000manager/v0.0.0 (linux/amd64) kubernetes/$Format',
        username: 'system:serviceaccount:shop-system:shop-operator',
        userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
        userAgentProduct: 'manager',
        userAgentVersion: 'v0.0.0',
        controller: '',
        serviceAccount: { namespace: 'shop-system', name: 'shop-operator' },
      },
      object: {
        key: 'apps/deployments/shop/web/status',
        apiGroup: 'apps',
        apiVersion: 'v1',
        resource: 'deployments',
        namespace: 'shop',
        name: 'web',
        subresource: 'status',
        label: 'deployments.apps/status',
      },
      code: 409,
      reason: 'Conflict',
      resourceVersion: '48213',
      fieldManager: '',
      sourceIP: '10.244.1.17',
      level: 'Metadata',
      responseResourceVersion: '',
      body: null,
    });
  });

  it('returns null for RequestReceived and ResponseStarted, a record for Panic', () => {
    expect(normalize({ stage: 'RequestReceived' })).toBeNull();
    expect(normalize({ stage: 'ResponseStarted' })).toBeNull();
    expect(record({ stage: 'Panic' }).stage).toBe('Panic');
  });

  it('uses empty defaults for absent fields', () => {
    const r = record({
      user: {},
      userAgent: undefined,
      sourceIPs: undefined,
      objectRef: undefined,
      responseStatus: undefined,
      level: undefined,
      requestReceivedTimestamp: undefined,
    });
    expect(r.actor.key).toBe('\u0000');
    expect(r.actor.userAgentProduct).toBe('');
    expect(r.object).toBeNull();
    expect([r.code, r.reason, r.resourceVersion, r.sourceIP, r.level]).toEqual([0, '', '', '', '']);
    expect(r.receivedTs).toBe(r.ts);
    expect(r.latencyMs).toBe(0);
  });

  it('marks long-running requests with latency -1 (watch, proxy, attach/exec/log/portforward/proxy)', () => {
    const ref = (subresource: string) => ({ ...CONFLICT_EVENT.objectRef, resource: 'pods', subresource });
    expect(record({ verb: 'watch' }).latencyMs).toBe(-1);
    expect(record({ verb: 'proxy' }).latencyMs).toBe(-1);
    for (const sub of ['attach', 'exec', 'log', 'portforward', 'proxy']) {
      expect(record({ verb: 'get', objectRef: ref(sub) }).latencyMs, sub).toBe(-1);
    }
    expect(record({ verb: 'create', objectRef: ref('eviction') }).latencyMs).toBe(7.546);
    expect(record({ verb: 'get', objectRef: undefined, requestURI: '/healthz' }).latencyMs).toBe(7.546);
  });

  it('clamps a stage time before the received time to latency 0', () => {
    expect(record({ requestReceivedTimestamp: '2026-07-01T10:00:01Z' }).latencyMs).toBe(0);
  });

  it('classifies writes and dry runs', () => {
    for (const verb of ['create', 'update', 'patch', 'delete', 'deletecollection']) {
      expect(record({ verb }).isWrite, verb).toBe(true);
    }
    for (const verb of ['get', 'list', 'watch']) expect(record({ verb }).isWrite, verb).toBe(false);
    const dry = record({ requestURI: '/api/v1/namespaces/a/pods/b?dryRun=All&fieldManager=kubectl' });
    expect([dry.dryRun, dry.isWrite]).toEqual([true, false]);
    const dryLater = record({ requestURI: '/api/v1/namespaces/a/pods/b?fieldManager=x&dryRun=All' });
    expect([dryLater.dryRun, dryLater.isWrite]).toEqual([true, false]);
    const notDry = record({ requestURI: '/api/v1/namespaces/a/pods/b?xdryRun=All&dryRun=None' });
    expect([notDry.dryRun, notDry.isWrite]).toEqual([false, true]);
  });

  it('decodes the fieldManager query parameter', () => {
    const fm = (requestURI: string) => record({ requestURI }).fieldManager;
    expect(fm('/apis/apps/v1/namespaces/a/deployments/b?fieldManager=kubectl-client-side-apply')).toBe('kubectl-client-side-apply');
    expect(fm('/x?force=true&fieldManager=cluster-network-operator%2Foperconfig&y=1')).toBe('cluster-network-operator/operconfig');
    expect(fm('/x?fieldManager=my+manager')).toBe('my manager');
    expect(fm('/x?notfieldManager=no&fieldManager=yes')).toBe('yes');
    expect(fm('/x?fieldManager=first&fieldManager=second')).toBe('first');
    expect(fm('/x?fieldManager=%zz')).toBe('%zz');
    expect(fm('/x/fieldManager=no')).toBe('');
    expect(fm('/x?fieldManager=')).toBe('');
  });

  it('interns actors and objects', () => {
    const n = new Normalizer();
    const a = record({ auditID: 'a' }, n);
    const b = record({ auditID: 'b', userAgent: 'kubectl/v1.31.0 (linux/amd64) kubernetes/9edcffc' }, n);
    expect(b.actor).not.toBe(a.actor);
    expect(b.object).toBe(a.object);
    // Another apiVersion of the same object: a new instance with the same key, which replaces
    // the interned one, so every record's object carries the apiVersion its request named.
    const c = record({ auditID: 'c', objectRef: { ...CONFLICT_EVENT.objectRef, apiVersion: 'v1beta1' } }, n);
    const d = record({ auditID: 'd', objectRef: { ...CONFLICT_EVENT.objectRef, apiVersion: 'v1beta1' } }, n);
    expect(c.actor).toBe(a.actor);
    expect(c.object).not.toBe(a.object);
    expect(d.object).toBe(c.object);
    expect([a.object?.apiVersion, c.object?.apiVersion, c.object?.key]).toEqual(['v1', 'v1beta1', a.object?.key]);
    expect(record({ auditID: 'e' }, n).object?.apiVersion).toBe('v1');
    expect([n.actorCount, n.objectCount]).toEqual([2, 1]);
  });
});

describe('Normalizer generations', () => {
  // Generations of 1 min, closed at the first record a minute after they opened once they hold
  // three values (one actor and two objects here).
  const gens = (): Normalizer => new Normalizer(60_000, 3, 1_000);
  const at = (min: number): string => new Date(TEN + min * 60_000).toISOString();
  const on = (name: string, min: number, apiVersion = 'v1'): Record<string, unknown> => ({
    objectRef: { ...CONFLICT_EVENT.objectRef, name, apiVersion },
    requestReceivedTimestamp: at(min),
    stageTimestamp: at(min),
  });
  /** A full collection, once this job is over (WeakRef targets live until then). */
  const collect = async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  };

  it('counts the objects newObject made (the parallel reader) in a generation, as interned ones', () => {
    // A generation of at most 1,000 values: 999 objects made per definition and one record's
    // actor and object fill it, so the next record opens a new one (without the count, the
    // generation would hold only two values and stay open for a minute).
    const n = gens();
    record(on('first', 0), n);
    for (let i = 0; i < 999; i++) n.newObject('', 'pods', 'ns', `p-${i}`, 'status', 'v1');
    expect(n.generation).toBe(0);
    record(on('next', 0), n);
    expect(n.generation).toBe(1);
    const made = n.newObject('', 'pods', 'ns', 'p-0', 'status', 'v1');
    expect([made.key, made.name, made.subresource, made.label]).toEqual(['/pods/ns/p-0/status', 'p-0', 'status', 'pods/status']);
  });

  it('an object of the previous generation keeps its instance', () => {
    const n = gens();
    const web = record(on('web', 0), n).object;
    const api = record(on('api', 2), n); // closes the generation web and api are in
    expect(record(on('web', 3), n).object).toBe(web);
    expect(n.objectCount).toBe(2); // web promoted; api still in the previous generation
    const v2 = record(on('web', 3, 'v2'), n).object; // the same key named with another apiVersion
    expect([v2 === web, v2?.key, v2?.apiVersion, web?.apiVersion]).toEqual([false, web?.key, 'v2', 'v1']);
    expect(n.objectCount).toBe(2);
    expect(api.object?.name).toBe('api');
  });

  it('an object idle for two generations is made again with its key; state kept by key is not split', () => {
    const n = gens();
    // A detector's state for a ReplicaSet's status, then 5,000 other objects (five generations of
    // 1,000), then the ReplicaSet's status again: a new instance of the same key, which a
    // PairMap (the detectors' per-object state) finds the state by.
    const first = record(on('web', 0), n);
    const held = first.object!;
    const states = new PairMap<{ object: ObjectRef; actor: Actor; writes: number }>();
    states.add({ object: held, actor: first.actor, writes: 1 });
    for (let i = 0; i < 5_000; i++) record(on(`pod-${i}`, 0), n);
    expect(n.generation).toBe(5);
    const again = record(on('web', 0, 'v2'), n);
    expect(again.object).not.toBe(held);
    expect([again.object?.key, again.object?.apiVersion, held.apiVersion]).toEqual([held.key, 'v2', 'v1']);
    expect(states.get(again.object!, again.actor)?.writes).toBe(1);
  });

  it('lets go of an object unseen for two generations', async () => {
    const n = gens();
    let web: RequestRecord | null = record(on('web', 0), n);
    const weak = new WeakRef(web.object!);
    const api = record(on('api', 2), n).object;
    record(on('api', 3), n); // closes the generation web and api are in; api is promoted
    record(on('db', 3), n);
    web = null;
    await collect();
    expect(weak.deref()).toBeDefined(); // the previous generation holds it
    record(on('x', 5), n); // closes the next one: web's generation is let go
    expect(n.objectCount).toBe(3); // api and db (previous generation) and x
    await collect();
    expect(weak.deref()).toBeUndefined();
    expect(record(on('api', 5), n).object).toBe(api);
  });

  it('holds at most two generations of objects however many distinct ones come (defaults)', async () => {
    const n = new Normalizer();
    expect(INTERN_GENERATION_MAX).toBe(20_000);
    // 50,000 distinct objects in one minute of stream time: a generation closes when it holds
    // INTERN_GENERATION_MAX values (the one actor counts too), so the current one holds
    // 50,000 − 2 × 19,999 = 10,002 objects and the previous one 19,999; the first 19,999 go.
    const weak = new WeakRef(record(on('w-0', 0), n).object!);
    for (let i = 1; i < 50_000; i++) record(on(`w-${i}`, 0), n);
    expect(n.objectCount).toBe(10_002 + 19_999);
    await collect();
    expect(weak.deref()).toBeUndefined();
    // Nothing was made again after it was let go: the generations stay at their smallest.
    expect(n.generationLimit).toBe(20_000);
  });

  it('grows the generations when the values in use recur more slowly than two of them last, and shrinks them back', () => {
    const n = gens();
    expect(INTERN_GENERATION_GROWTH).toBe(8);
    // 3,000 objects requested in turn (a cluster's Leases every 10 s): generations of 1,000
    // values let each of them go before it comes again.
    const limits: number[] = [];
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 3_000; i++) record(on(`lease-${i}`, 0), n);
      limits.push(n.generationLimit);
    }
    // Round 1 made again values the generations had let go: ×4, and 4,000 values hold the 3,000
    // in use, so nothing is made again after that (the ceiling, 8 × 1,000, is not needed).
    expect(limits).toEqual([1_000, 4_000, 4_000, 4_000, 4_000, 4_000]);
    // Then only new objects. No generation closed in rounds 2–5 (3,001 values, under 4,000), so
    // the first to close holds round 1's 2,001 leases made again: ×2 to the ceiling, 8,000. Each
    // later one, with fewer than 1 in 16 of its values from earlier ones, halves the next, down
    // to 1,000. None of this depends on when V8 collects.
    const limitsAfter: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      record(on(`pod-${i}`, 0), n);
      if (i % 4_000 === 3_999) limitsAfter.push(n.generationLimit);
    }
    expect(limitsAfter).toEqual([8_000, 8_000, 4_000, 1_000, 1_000]);
  });

  it('keeps no piece of input alive through an interned key, name, username or userAgent', async () => {
    const n = new Normalizer();
    // Enough calls first for V8 to optimize the interning, whose copies must hold there too.
    for (let i = 0; i < 30_000; i++) {
      n.internObject('apps', 'deployments', 'shop', `warm-${i}`, '', 'v1');
      n.internActor(`user-${i % 100}`, 'kubectl/v1.29.0');
    }
    await collect();
    const before = process.memoryUsage().heapUsed;
    const kept: unknown[] = [];
    for (let i = 0; i < 1_000; i++) {
      // A 64 KB piece of input per object; each value is a slice of it (a view V8 keeps it alive by).
      const piece = `${i}:${'x'.repeat(65_536)}`.slice(0);
      kept.push(n.internObject('apps', 'deployments', piece.slice(1, 20), piece.slice(2, 40), 'status', 'v1'));
      kept.push(n.internActor(piece.slice(3, 33), piece.slice(4, 60)));
    }
    await collect();
    // The copies take about 0.1 MB; an object keeping its name as the slice it was given (one
    // value out of four) already held 7 MB more here.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(2_000_000);
    const o = kept[0] as { key: string; name: string };
    expect([o.name, o.key]).toEqual(['x'.repeat(38), `apps/deployments/:${'x'.repeat(18)}/${'x'.repeat(38)}/status`]);
    const a = kept[1] as { username: string; userAgent: string; key: string };
    expect([a.username, a.userAgent, a.key]).toEqual(['x'.repeat(30), 'x'.repeat(56), `${'x'.repeat(30)}\u0000${'x'.repeat(56)}`]);
  });

  it('shares the few-valued parts of objects between instances', () => {
    const n = new Normalizer();
    const a = record(on('web', 0), n).object!;
    const b = record(on('api', 0), n).object!;
    expect(a).not.toBe(b);
    expect([a.resource, a.apiGroup, a.label]).toEqual(['deployments', 'apps', 'deployments.apps/status']);
    expect(n.part(a.label)).toBe(a.label);
    expect(n.part('deployments')).toBe(b.resource);
  });
});

describe('Normalizer.normalize: bodies (Request / RequestResponse level)', () => {
  const requestObject = {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: { name: 'web', namespace: 'shop', resourceVersion: '48213', managedFields: [{ manager: 'm', time: '2026-07-01T10:00:00Z' }] },
    status: { readyReplicas: 3, conditions: [{ type: 'Available', status: 'True', lastTransitionTime: '2026-07-01T10:00:00Z' }] },
  };
  const responseObject = { ...requestObject, metadata: { ...requestObject.metadata, resourceVersion: '48214' } };
  const ok = { responseStatus: { metadata: {}, code: 200 } };

  it('digests the request body of an update and reads the response resourceVersion', () => {
    const r = record({ ...ok, level: 'RequestResponse', requestObject, responseObject });
    expect(r.responseResourceVersion).toBe('48214');
    expect(r.body).toEqual(digestBody(requestObject));
    expect(r.body?.timestampFields).toEqual(['lastTransitionTime']);
    expect(r.body?.content).toMatch(/^[0-9a-f]{16}$/);
    expect(r.body?.timestamps).toMatch(/^[0-9a-f]{16}$/);
  });

  it('Request level: body, no response resourceVersion', () => {
    const r = record({ ...ok, level: 'Request', requestObject });
    expect([r.responseResourceVersion, r.body]).toEqual(['', digestBody(requestObject)]);
  });

  it('digests JSON-patch bodies of patches', () => {
    const patch = [{ op: 'replace', path: '/status/readyReplicas', value: 3 }];
    const r = record({ ...ok, verb: 'patch', level: 'Request', requestObject: patch });
    expect(r.body).toEqual(digestBody(patch));
    expect(r.body?.timestampFields).toEqual([]);
    expect(r.body?.timestamps).toBe('');
  });

  it('no body for other verbs, truncated bodies and Metadata level', () => {
    expect(record({ ...ok, verb: 'create', level: 'RequestResponse', requestObject, responseObject })).toMatchObject({
      body: null,
      responseResourceVersion: '48214',
    });
    expect(record({ ...ok, level: 'Request', requestObject: null, responseObject: null })).toMatchObject({
      body: null,
      responseResourceVersion: '',
    });
    expect(record({ ...ok, level: 'RequestResponse', requestObject: 'skipped-too-big-size-object' }).body).toBeNull();
    expect(record(ok)).toMatchObject({ body: null, responseResourceVersion: '' });
  });

  describe('generateName creates: objectRef has no name, the response body has the generated one', () => {
    // audit-formats.md §1: objectRef.name comes from the request body's metadata.name, still empty with generateName.
    const objectRef = { resource: 'certificaterequests', namespace: 'shop', apiGroup: 'cert-manager.io', apiVersion: 'v1' };
    const created = { responseStatus: { metadata: {}, code: 201 }, verb: 'create', requestURI: '/apis/cert-manager.io/v1/namespaces/shop/certificaterequests', objectRef };
    const request = { kind: 'CertificateRequest', apiVersion: 'cert-manager.io/v1', metadata: { generateName: 'web-tls-', namespace: 'shop' } };
    const response = { ...request, metadata: { name: 'web-tls-x2k4p', generateName: 'web-tls-', namespace: 'shop', resourceVersion: '7001' } };

    it('RequestResponse level: the name is the response metadata.name', () => {
      const r = record({ ...created, level: 'RequestResponse', requestObject: request, responseObject: response });
      expect(r.object).toMatchObject({ key: 'cert-manager.io/certificaterequests/shop/web-tls-x2k4p/', name: 'web-tls-x2k4p' });
      expect(r.responseResourceVersion).toBe('7001');
    });

    it('Metadata level, a failed create (Status body) and a create whose objectRef has a name keep objectRef as it is', () => {
      expect(record({ ...created, level: 'Metadata' }).object?.name).toBe('');
      const failed = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422 };
      expect(record({ ...created, responseStatus: { metadata: {}, code: 422 }, level: 'RequestResponse', requestObject: request, responseObject: failed }).object?.name).toBe('');
      expect(record({ ...created, objectRef: { ...objectRef, name: 'named' }, level: 'RequestResponse', requestObject: request, responseObject: response }).object?.name).toBe(
        'named',
      );
    });

    it('only creates: a list response or an update keeps objectRef as it is', () => {
      const list = { kind: 'CertificateRequestList', apiVersion: 'cert-manager.io/v1', metadata: { resourceVersion: '9' }, items: [response] };
      expect(record({ ...created, verb: 'list', level: 'RequestResponse', responseObject: list }).object?.name).toBe('');
      expect(record({ ...created, verb: 'update', level: 'RequestResponse', requestObject: request, responseObject: response }).object?.name).toBe('');
    });
  });
});

describe('parseUserAgent', () => {
  it.each([
    ['kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/deployment-controller', 'kube-controller-manager', 'v1.29.0', 'deployment-controller'],
    [
      'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/system:serviceaccount:kube-system:deployment-controller',
      'kube-controller-manager',
      'v1.29.0',
      'deployment-controller',
    ],
    ['kube-scheduler/v1.22.8 (linux/amd64) kubernetes/2dca91e/leader-election', 'kube-scheduler', 'v1.22.8', 'leader-election'],
    ['manager/v0.0.0 (linux/amd64) kubernetes/$Format', 'manager', 'v0.0.0', ''],
    ['kube-apiserver/v1.25.8+27e744f (linux/amd64) kubernetes/df8a1b9', 'kube-apiserver', 'v1.25.8+27e744f', ''],
    ['kubectl/v1.26.1', 'kubectl', 'v1.26.1', ''],
    ['Mozilla/5.0 (X11; Linux x86_64)', 'Mozilla', '5.0', ''],
    ['gke-master-healthcheck', 'gke-master-healthcheck', '', ''],
    ['', '', '', ''],
  ])('%s', (ua, product, version, controller) => {
    expect(parseUserAgent(ua)).toEqual({ product, version, controller });
  });

  it('parses the user agent once per interned actor', () => {
    const n = new Normalizer();
    const ua = 'kube-controller-manager/v1.29.0 (linux/amd64) kubernetes/3f7a50f/replicaset-controller';
    const first = record({ userAgent: ua, user: { username: 'system:kube-controller-manager' } }, n).actor;
    const second = record({ userAgent: ua, user: { username: 'system:kube-controller-manager' } }, n).actor;
    expect(second).toBe(first);
    expect(first.controller).toBe('replicaset-controller');
    expect(first.serviceAccount).toBeNull();
  });
});

describe('parseServiceAccount', () => {
  it('parses system:serviceaccount:NS:NAME only', () => {
    expect(parseServiceAccount('system:serviceaccount:kube-system:deployment-controller')).toEqual({
      namespace: 'kube-system',
      name: 'deployment-controller',
    });
    expect(parseServiceAccount('system:serviceaccounts:default:default')).toBeNull();
    expect(parseServiceAccount('system:serviceaccount:ns')).toBeNull();
    expect(parseServiceAccount('system:serviceaccount::name')).toBeNull();
    expect(parseServiceAccount('system:serviceaccount:a:b:c')).toBeNull();
    expect(parseServiceAccount('system:node:ip-10-0-31-19')).toBeNull();
  });
});

describe('userAgent length (kube-apiserver cuts at 1,024 bytes + "...TRUNCATED")', () => {
  it('keeps an agent up to the limit plus the suffix, cuts a longer one, and one actor for agents equal up to the cut', () => {
    const real = `${'k'.repeat(MAX_USER_AGENT_LENGTH)}...TRUNCATED`;
    expect(cappedUserAgent(real)).toBe(real);
    expect(cappedUserAgent('kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f')).toBe('kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
    const n = new Normalizer();
    const a = n.internActor('system:serviceaccount:x:y', `op/1.0 ${'a'.repeat(400_000)}`);
    const b = n.internActor('system:serviceaccount:x:y', `op/1.0 ${'a'.repeat(300_000)}b`);
    expect([a.userAgent.length, a.userAgent.slice(0, 8), a.userAgent.slice(-13), a.userAgentProduct, b === a, n.actorCount]).toEqual([
      1036,
      'op/1.0 a',
      'a...TRUNCATED',
      'op',
      true,
      1,
    ]);
  });
});
