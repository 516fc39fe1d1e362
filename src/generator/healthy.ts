/**
 * Healthy patterns no detector may report: a Deployment rollout, a busy controller writing
 * thousands of different objects once each, and kubelets patching their pods' status. (Node
 * leases, node status and leader election are part of {@link background}; RetryOnConflict and
 * per-item backoff writers are in scenarios.ts.) Each scenario's truth is one `benign` entry
 * naming every actor, with no object.
 *
 * Rollout steps follow the deployment controller's rolling update (`kubernetes/kubernetes`
 * `pkg/controller/deployment/rolling.go`): scale the new ReplicaSet up by `maxSurge`, wait for
 * its pods to be ready, scale the old one down by as many, repeat; the ReplicaSet controller
 * creates and deletes the pods and writes ReplicaSet status, the deployment controller writes
 * Deployment status.
 */
import { type Client, type Micros, type Target } from './events.js';
import { NAMESPACES, OBJECT_NAMES } from './names.js';
import {
  MS,
  SECOND,
  call,
  componentClient,
  context,
  controllerClient,
  kubeletClient,
  podClients,
  poisson,
  randomized,
  resolve,
  subjectOf,
  target,
  trackObject,
  write,
  type CommonParams,
  type Ctx,
  type Defaults,
  type FindingRef,
  type OperatorParams,
  type Scenario,
  type Subject,
} from './plan.js';

/** The one benign entry of a healthy scenario: every actor, no object. */
const BENIGN: FindingRef[] = [{ kind: 'benign', id: 'healthy', object: null }];

/** How {@link distinctWrites} describes a writer of many objects. */
export interface DistinctWritesOptions {
  client: Client;
  /** One write per time, µs. */
  times: Micros[];
  /** The i-th object written; each a different one. */
  targetOf: (i: number) => Target;
  subjectOf: (t: Target) => Subject;
  /** Default `patch` (a merge patch: no RV, always applied). */
  verb?: 'patch' | 'create';
}

/** One write to each of many different objects (label syncs, bulk imports, migrations). */
export function distinctWrites(ctx: Ctx, o: DistinctWritesOptions): void {
  o.times.forEach((at, i) => {
    const t = o.targetOf(i);
    call(ctx, o.client, o.verb ?? 'patch', t, at, { subject: o.subjectOf(t), ...(o.verb === 'create' ? {} : { query: { fieldManager: o.client.userAgent.split('/')[0] ?? '' } }) });
  });
}

// ---------------------------------------------------------------------------------------------
// busyController

/** Parameters of {@link busyController}. */
export interface BusyControllerParams extends CommonParams {
  operator?: OperatorParams;
  /** Resource written (core group). Default `secrets`. */
  resource?: string;
  /** Distinct objects, each written once. Default 3000. */
  objects?: number;
  /** Writes per second. Default 25. */
  ratePerSec?: number;
}

const BUSY_DEFAULTS: Defaults<BusyControllerParams> = {
  operator: {
    namespace: 'platform-system',
    serviceAccount: 'ownership-migrator',
    deployment: 'ownership-migrator',
    userAgent: 'ownership-migrator/v1.0.2 (linux/amd64) kubernetes/$Format',
  },
  resource: 'secrets',
  objects: 3000,
  ratePerSec: 25,
};

/**
 * A busy but healthy controller: a migration stamps an annotation on thousands of objects, each
 * written once (merge patches, all 200), tens per second. High volume, no loop.
 */
export const busyController: Scenario<BusyControllerParams> = (rng, params, w) => {
  const random = randomized<BusyControllerParams>(rng, params, (n) => ({
    operator: {
      ...BUSY_DEFAULTS.operator,
      serviceAccount: `${n.pick(['label', 'owner', 'policy', 'tag'])}-${n.pick(['sync', 'migrator', 'stamper'])}`,
      deployment: 'sync',
      userAgent: `bulk-${n.hex(4)}/v0.${n.int(1, 9)}.0 (linux/amd64) kubernetes/$Format`,
    },
    resource: n.pick(['secrets', 'configmaps', 'serviceaccounts']),
    objects: n.int(2000, 5000),
    ratePerSec: Math.round(n.uniform(15, 45)),
  }));
  const p = resolve(BUSY_DEFAULTS, random, params);
  const ctx = context(rng, w);
  const [client] = podClients(rng, p.operator, 1);
  if (!client) return [];
  const label = p.name ?? 'busyController';
  distinctWrites(ctx, {
    client,
    times: poisson(rng, 1000 / p.ratePerSec, w.startUs, w.endUs - SECOND).slice(0, p.objects),
    targetOf: (i) => target(p.resource, { namespace: rng.pick(NAMESPACES), name: `${rng.pick(OBJECT_NAMES)}-${i.toString(36).padStart(4, '0')}` }),
    subjectOf: (t) => subjectOf(label, 'benign', client, t, BENIGN),
  });
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// kubeletStatus

/** Parameters of {@link kubeletStatus}. */
export interface KubeletStatusParams extends CommonParams {
  nodes?: number;
  podsPerNode?: number;
  /** Mean pause between two status patches of one pod, ms. Default 45 000. */
  meanIntervalMs?: number;
}

const KUBELET_DEFAULTS: Defaults<KubeletStatusParams> = { nodes: 20, podsPerNode: 8, meanIntervalMs: 45_000 };

/**
 * Kubelets patching the status of the pods on their node (readiness and container state
 * changes): many writers of the `system:node:*` family over many objects, all 200.
 */
export const kubeletStatus: Scenario<KubeletStatusParams> = (rng, params, w) => {
  const random = randomized<KubeletStatusParams>(rng, params, (n) => ({ nodes: n.int(8, 30), podsPerNode: n.int(4, 12), meanIntervalMs: n.uniform(30_000, 90_000) }));
  const p = resolve(KUBELET_DEFAULTS, random, params);
  const ctx = context(rng, w);
  const label = p.name ?? 'kubeletStatus';
  for (let i = 0; i < p.nodes; i++) {
    const ip = `10.0.${4 + Math.floor(i / 200)}.${10 + (i % 200)}`;
    const kubelet = kubeletClient(`ip-${ip.replaceAll('.', '-')}.ec2.internal`, ip);
    for (let j = 0; j < p.podsPerNode; j++) {
      const pod = target('pods', { namespace: rng.pick(NAMESPACES), name: `${rng.pick(OBJECT_NAMES)}-${rng.nameSuffix(10)}-${rng.nameSuffix(5)}`, subresource: 'status' });
      const subject = subjectOf(label, 'benign', kubelet, pod, BENIGN);
      for (const at of poisson(rng, p.meanIntervalMs, w.startUs, w.endUs - SECOND)) call(ctx, kubelet, 'patch', pod, at, { subject });
    }
  }
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// rollout

/** Parameters of {@link rollout}. */
export interface RolloutParams extends CommonParams {
  /** The Deployment (namespace and name used). */
  object?: Target;
  replicas?: number;
  /** Pods added (and removed) per step. Default 25% of replicas, at least 1. */
  maxSurge?: number;
  /** Time from pod creation to ready, ms, uniform. Default [4000, 15 000]. */
  readyMs?: [number, number];
}

const ROLLOUT_DEFAULTS: Defaults<RolloutParams> = {
  object: { apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', namespace: 'shop', name: 'web', subresource: '' },
  replicas: 12,
  maxSurge: 0,
  readyMs: [4000, 15_000],
};

/**
 * A rolling update: `kubectl set image` patches the Deployment; the deployment controller
 * creates a ReplicaSet and scales it up by `maxSurge` while scaling the old one down once pods
 * are ready; the ReplicaSet controller creates and deletes pods and writes ReplicaSet status at
 * every change; the scheduler binds, the kubelets report pod status. Busy for a minute or two,
 * several writers per object on disjoint fields, no conflicts.
 */
export const rollout: Scenario<RolloutParams> = (rng, params, w) => {
  const random = randomized<RolloutParams>(rng, params, (n) => ({
    object: { ...ROLLOUT_DEFAULTS.object, namespace: n.pick(NAMESPACES), name: `${n.pick(OBJECT_NAMES)}-${n.nameSuffix(3)}` },
    replicas: n.int(3, 30),
  }));
  const p = resolve(ROLLOUT_DEFAULTS, random, params);
  const ctx = context(rng, w);
  const label = p.name ?? 'rollout';
  const surge = p.maxSurge > 0 ? p.maxSurge : Math.max(1, Math.ceil(p.replicas / 4));
  const dc = controllerClient(rng, 'deployment-controller');
  const rsc = controllerClient(rng, 'replicaset-controller');
  const scheduler = componentClient('kube-scheduler', 'scheduler');
  const kubectl: Client = {
    ...dc,
    user: { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] },
    sourceIP: '192.168.10.24',
    userAgent: 'kubectl/v1.30.2 (linux/amd64) kubernetes/3968350',
  };
  const kubelets = Array.from({ length: 4 }, (_, i) => kubeletClient(`worker-${String(i + 1).padStart(2, '0')}`, `10.0.1.${20 + i}`));
  const deployment = trackObject(ctx, p.object);
  const rsTarget = (hash: string) => target('replicasets', { apiGroup: 'apps', namespace: p.object.namespace, name: `${p.object.name}-${hash}` });
  const oldRS = trackObject(ctx, rsTarget(rng.nameSuffix(10)));
  const newRSTarget = rsTarget(rng.nameSuffix(10));
  const subject = (c: Client, t: Target) => subjectOf(label, 'benign', c, t, BENIGN);
  const upd = (c: Client, obj: typeof deployment, subresource: string, at: Micros) =>
    write(ctx, { client: c, verb: 'update', obj, subresource, at, subject: subject(c, { ...obj.target, subresource }) }).completedUs;

  let t = w.startUs + rng.uniform(1, 5) * SECOND;
  t = write(ctx, { client: kubectl, verb: 'patch', obj: deployment, at: t, subject: subject(kubectl, deployment.target) }).completedUs + rng.uniform(2, 20) * MS;
  t = call(ctx, dc, 'create', newRSTarget, t, { subject: subject(dc, newRSTarget) }).completedUs;
  const newRS = trackObject(ctx, newRSTarget);
  Object.assign(newRS, { rv: w.revisionAt(t), prev: w.revisionAt(t), since: t });
  t = upd(dc, deployment, 'status', t + rng.uniform(1, 5) * MS);
  const oldPods = Array.from({ length: p.replicas }, () => `${oldRS.target.name}-${rng.nameSuffix(5)}`);
  for (let done = 0; done < p.replicas && t < w.endUs - 30 * SECOND;) {
    const step = Math.min(surge, p.replicas - done);
    t = upd(dc, newRS, '', t + rng.uniform(1, 10) * MS);
    const readyAt: Array<{ at: Micros; pod: Target }> = [];
    for (let k = 0; k < step; k++) {
      const pod = target('pods', { namespace: p.object.namespace, name: `${newRS.target.name}-${rng.nameSuffix(5)}` });
      const created = call(ctx, rsc, 'create', { ...pod, name: '' }, t + rng.uniform(1, 30) * MS, { subject: subject(rsc, { ...pod, name: '' }) });
      const bound = call(ctx, scheduler, 'create', { ...pod, subresource: 'binding' }, created.completedUs + rng.uniform(5, 60) * MS);
      const kubelet = rng.pick(kubelets);
      call(ctx, kubelet, 'patch', { ...pod, subresource: 'status' }, bound.completedUs + rng.uniform(0.5, 2) * SECOND);
      readyAt.push({ at: bound.completedUs + rng.uniform(p.readyMs[0], p.readyMs[1]) * MS, pod: { ...pod, subresource: 'status' } });
    }
    t = upd(rsc, newRS, 'status', t + rng.uniform(20, 80) * MS);
    let last = t;
    for (const { at: ready, pod } of readyAt.sort((a, b) => a.at - b.at)) {
      const at = Math.max(ready, last + 5 * MS);
      const patched = call(ctx, rng.pick(kubelets), 'patch', pod, at);
      last = upd(rsc, newRS, 'status', patched.completedUs + rng.uniform(5, 50) * MS);
      last = upd(dc, deployment, 'status', last + rng.uniform(5, 50) * MS);
    }
    t = upd(dc, oldRS, '', last + rng.uniform(1, 10) * MS);
    for (let k = 0; k < step; k++) {
      const name = oldPods.pop() ?? `${oldRS.target.name}-${rng.nameSuffix(5)}`;
      call(ctx, rsc, 'delete', target('pods', { namespace: p.object.namespace, name }), t + rng.uniform(1, 30) * MS, {
        subject: subject(rsc, target('pods', { namespace: p.object.namespace, name })),
      });
    }
    t = upd(rsc, oldRS, 'status', t + rng.uniform(40, 120) * MS);
    t = upd(dc, deployment, 'status', t + rng.uniform(5, 50) * MS);
    done += step;
  }
  return ctx.requests;
};
