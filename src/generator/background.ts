/**
 * The `background` scenario: a healthy cluster's steady traffic, which detectors must not
 * report. Periods and user agents follow kubelet, kube-controller-manager and kube-scheduler
 * defaults (audit-formats.md §5.4): node leases every 10 s (0.25 × the 40 s lease), leader-election
 * renewals every 2 s (`RetryPeriod`), reflector watches of 300–600 s
 * (`kubernetes/client-go` `tools/cache/reflector.go`), APF 429s retried after `Retry-After: 1`
 * with a new auditID (`kubernetes/client-go` `rest/with_retry.go`).
 */
import { alreadyExistsStatus, microTime, notFoundStatus, okStatus, rbacReason, tooManyRequestsStatus, userAgent, type Client, type Micros } from './events.js';
import { NAMESPACES, OBJECT_NAMES, nodeName } from './names.js';
import {
  K8S_COMMIT,
  K8S_VERSION,
  MS,
  SECOND,
  call,
  componentClient,
  conflictEpisode,
  context,
  controllerClient,
  kubeletClient,
  periodic,
  podClients,
  poisson,
  resolve,
  subjectOf,
  target,
  trackObject,
  watchChain,
  write,
  type CommonParams,
  type Ctx,
  type Defaults,
  type Scenario,
  type Subject,
  type TrackedObject,
} from './plan.js';
import type { Rng } from './random.js';

/** Parameters of {@link background}. */
export interface BackgroundParams extends CommonParams {
  /** Worker nodes (kubelets). Default 20. */
  nodes?: number;
  /** Node lease renewal period, ms. Default 10 000. */
  nodeLeaseIntervalMs?: number;
  /** Node status patch period, ms. Default 60 000. */
  nodeStatusIntervalMs?: number;
  /** Leader-election renewal period of kube-controller-manager and kube-scheduler, ms. Default 2000. */
  leaderElectionIntervalMs?: number;
  /** Multiplier of the rates of the Poisson noise (kubectl, events, lists, controllers, pods). Default 1. */
  noise?: number;
  /** Log lease updates at RequestResponse level, with Lease request and response bodies. Default false. */
  requestResponseLeases?: boolean;
}

const BACKGROUND_DEFAULTS: Defaults<BackgroundParams> = {
  nodes: 20,
  nodeLeaseIntervalMs: 10_000,
  nodeStatusIntervalMs: 60_000,
  leaderElectionIntervalMs: 2000,
  noise: 1,
  requestResponseLeases: false,
};

const WORKLOADS = [
  { namespace: 'shop', name: 'web' },
  { namespace: 'shop', name: 'cart' },
  { namespace: 'payments', name: 'api' },
  { namespace: 'monitoring', name: 'grafana' },
];

/** Everything the parts of the background share. */
interface Env {
  ctx: Ctx;
  rng: Rng;
  p: Defaults<BackgroundParams> & BackgroundParams;
  label: string;
  workloads: Array<{ namespace: string; name: string }>;
  kubelets: Array<{ name: string; client: Client }>;
  /** Poisson arrivals with the given mean gap (ms, scaled by `noise`), leaving 10 s at the end. */
  every: (meanGapMs: number) => Micros[];
  kubectl: Client;
  deploymentController: Client;
  replicasetController: Client;
  scheduler: Client;
}

interface LeaseOptions {
  client: Client;
  obj: TrackedObject;
  periodMs: number;
  holder: string;
  leaseDurationSeconds: number;
  /** The client's request timeout query (`?timeout=`). */
  timeout: string;
  subject?: Subject;
}

/** Periodic lease renewals: updates carrying the RV the previous renewal returned. */
function leaseRenewals({ ctx, p }: Env, o: LeaseOptions): void {
  const lease = (rv: string, renewUs: Micros) => ({
    kind: 'Lease',
    apiVersion: 'coordination.k8s.io/v1',
    metadata: { name: o.obj.target.name, namespace: o.obj.target.namespace, uid: o.obj.uid, resourceVersion: rv },
    spec: { holderIdentity: o.holder, leaseDurationSeconds: o.leaseDurationSeconds, renewTime: microTime(renewUs) },
  });
  const bodies = (sentRV: string, newRV: string, completedUs: Micros) => ({
    requestObject: lease(sentRV, completedUs - 3 * MS),
    responseObject: lease(newRV, completedUs - 3 * MS),
  });
  for (const at of periodic(ctx.rng, o.periodMs, Math.min(40, o.periodMs / 50), ctx.w.startUs, ctx.w.endUs)) {
    write(ctx, {
      client: o.client,
      verb: 'update',
      obj: o.obj,
      at,
      query: { timeout: o.timeout },
      ...(o.subject ? { subject: o.subject } : {}),
      ...(p.requestResponseLeases ? { level: 'RequestResponse' as const, bodies } : {}),
    });
  }
}

/** Each kubelet: node lease every 10 s, node status patch every ~60 s, pod and node watches. */
function kubeletTraffic(env: Env): void {
  const { ctx, p } = env;
  const { startUs, endUs } = ctx.w;
  for (const { name, client } of env.kubelets) {
    const lease = trackObject(ctx, target('leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name }));
    leaseRenewals(env, { client, obj: lease, periodMs: p.nodeLeaseIntervalMs, holder: name, leaseDurationSeconds: 40, timeout: '10s' });
    const node = trackObject(ctx, target('nodes', { name }));
    for (const at of periodic(ctx.rng, p.nodeStatusIntervalMs, 200, startUs, endUs)) {
      write(ctx, { client, verb: 'patch', obj: node, subresource: 'status', at, query: { timeout: '10s' } });
    }
    watchChain(ctx, client, target('pods'), startUs, endUs, `spec.nodeName=${name}`);
    watchChain(ctx, client, target('nodes', { name }), startUs, endUs, `metadata.name=${name}`);
  }
}

/** Leader election: one lease update per renewal (the holder updates its cached lease directly). */
function leaderElection(env: Env): void {
  for (const component of ['kube-controller-manager', 'kube-scheduler'] as const) {
    const client = componentClient(component, 'leader-election');
    const obj = trackObject(env.ctx, target('leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-system', name: component }));
    leaseRenewals(env, {
      client,
      obj,
      periodMs: env.p.leaderElectionIntervalMs,
      holder: `control-plane-1_${env.rng.uuid()}`,
      leaseDurationSeconds: 15,
      timeout: '5s',
      subject: subjectOf(env.label, 'benign', client, obj.target),
    });
  }
}

/** Shared informers of kube-controller-manager and the scheduler's informers. */
function controlPlaneWatches({ ctx, scheduler }: Env): void {
  const { startUs, endUs } = ctx.w;
  const informers = componentClient('kube-controller-manager', 'shared-informers');
  for (const [apiGroup, resource] of [
    ['', 'pods'],
    ['', 'nodes'],
    ['apps', 'deployments'],
    ['apps', 'replicasets'],
    ['discovery.k8s.io', 'endpointslices'],
  ] as const) {
    watchChain(ctx, informers, target(resource, { apiGroup }), startUs, endUs);
  }
  for (const resource of ['pods', 'nodes']) watchChain(ctx, scheduler, target(resource), startUs, endUs);
}

/**
 * kube-controller-manager keeping each workload's Deployment status, ReplicaSet status and
 * EndpointSlice up to date. About 5% of status writes meet one conflict (a `kubectl rollout
 * restart` or the deployment controller touched the object) and are requeued after 5 ms.
 */
function workloadControllers(env: Env): void {
  const { ctx, rng, label } = env;
  const endpointsliceController = controllerClient(rng, 'endpointslice-controller');
  for (const wl of env.workloads) {
    const writers = [
      {
        writer: env.deploymentController,
        t: target('deployments', { apiGroup: 'apps', name: wl.name, subresource: 'status' }),
        contender: env.kubectl,
        query: { fieldManager: 'kubectl-rollout' },
      },
      {
        writer: env.replicasetController,
        t: target('replicasets', { apiGroup: 'apps', name: `${wl.name}-${rng.nameSuffix(rng.int(9, 10))}`, subresource: 'status' }),
        contender: env.deploymentController,
      },
      { writer: endpointsliceController, t: target('endpointslices', { apiGroup: 'discovery.k8s.io', name: `${wl.name}-${rng.nameSuffix(5)}` }) },
    ];
    for (const { writer, t, contender, query } of writers) {
      const objTarget = { ...t, namespace: wl.namespace };
      const obj = trackObject(ctx, objTarget);
      const writerSubject = subjectOf(label, 'benign', writer, objTarget);
      const contenderSubject = subjectOf(label, 'benign', contender ?? writer, obj.target);
      for (const at of env.every(20_000)) {
        conflictEpisode(ctx, {
          writer,
          writerSubject,
          obj,
          subresource: t.subresource,
          contender: contender ?? writer,
          contenderSubject,
          ...(query ? { contenderQuery: query } : {}),
          at,
          conflicts: contender && rng.chance(0.05) ? 1 : 0,
          delayUs: () => (5 + rng.uniform(0.05, 0.5)) * MS,
          readFirst: false,
        });
      }
    }
  }
}

/** Pod churn: a pod created (generateName: no name in objectRef), bound, its status patched twice. */
function podChurn({ ctx, rng, workloads, kubelets, replicasetController, scheduler, every }: Env): void {
  for (const at of every(90_000)) {
    const wl = rng.pick(workloads);
    const created = call(ctx, replicasetController, 'create', target('pods', { namespace: wl.namespace }), at);
    const pod = target('pods', { namespace: wl.namespace, name: `${wl.name}-${rng.nameSuffix(10)}-${rng.nameSuffix(5)}` });
    const bound = call(ctx, scheduler, 'create', { ...pod, subresource: 'binding' }, created.completedUs + rng.uniform(5, 60) * MS);
    const kubelet = rng.pick(kubelets).client;
    for (const delayS of [rng.uniform(1, 2), rng.uniform(3, 6)]) call(ctx, kubelet, 'patch', { ...pod, subresource: 'status' }, bound.completedUs + delayS * SECOND);
  }
}

/** Events: kubelets create core/v1 events and patch repeats; controllers create events.k8s.io/v1 ones. */
function events({ ctx, rng, workloads, kubelets, deploymentController, replicasetController, scheduler, every }: Env): void {
  for (const at of every(8000)) {
    const wl = rng.pick(workloads);
    const event = target('events', { namespace: wl.namespace, name: `${wl.name}-${rng.nameSuffix(10)}-${rng.nameSuffix(5)}.${rng.hex(16)}` });
    const roll = rng.next();
    if (roll < 0.6) call(ctx, rng.pick(kubelets).client, 'create', event, at);
    else if (roll < 0.8) call(ctx, rng.pick(kubelets).client, 'patch', event, at);
    else call(ctx, rng.pick([deploymentController, replicasetController, scheduler]), 'create', { ...event, apiGroup: 'events.k8s.io' }, at);
  }
}

/** kubectl: discovery (non-resource `/api`, `/apis`) when its cache expired, then a read; some 404s. */
function kubectlReads({ ctx, rng, workloads, kubectl, every }: Env): void {
  for (let at of every(40_000)) {
    if (rng.chance(0.3)) {
      for (const path of ['/api', '/apis']) {
        const discovery = ctx.add({ client: kubectl, verb: 'get', path, query: { timeout: '32s' }, status: okStatus(), receivedUs: at, latencyUs: rng.uniform(0.5, 3) * MS });
        at = discovery.completedUs + rng.uniform(1, 5) * MS;
      }
    }
    const wl = rng.pick(workloads);
    const inNs = (resource: string, parts: { apiGroup?: string; name?: string } = {}) => target(resource, { namespace: wl.namespace, ...parts });
    const missing = inNs('configmaps', { name: `${wl.name}-config` });
    [
      () => call(ctx, kubectl, 'list', inNs('pods'), at, { query: { limit: '500' } }),
      () => call(ctx, kubectl, 'list', inNs('events'), at, { query: { limit: '500' } }),
      () => call(ctx, kubectl, 'get', inNs('deployments', { apiGroup: 'apps', name: wl.name }), at),
      () => call(ctx, kubectl, 'get', missing, at, { status: notFoundStatus(missing) }),
    ][rng.int(0, 3)]?.();
  }
}

/** A metrics agent lists all pods every 15 s; big lists are slow, and APF rejects some with 429. */
function metricsLists({ ctx, rng, p }: Env): void {
  const [agent] = podClients(
    rng,
    { namespace: 'monitoring', serviceAccount: 'metrics-collector', deployment: 'metrics-collector', userAgent: 'metrics-collector/v0.0.0 (linux/amd64) kubernetes/$Format' },
    1,
  );
  const query = { limit: '500' };
  for (let at of periodic(rng, 15_000 / p.noise, 100, ctx.w.startUs, ctx.w.endUs - 10 * SECOND)) {
    if (!agent) break;
    if (rng.chance(0.05)) {
      const rejected = call(ctx, agent, 'list', target('pods'), at, { query, status: tooManyRequestsStatus(), latencyUs: rng.uniform(0.1, 0.5) * MS });
      at = rejected.completedUs + rng.uniform(1000, 1020) * MS; // Retry-After: 1
    }
    call(ctx, agent, 'list', target('pods'), at, { query, latencyUs: (rng.chance(0.15) ? rng.uniform(520, 1400) : rng.uniform(40, 300)) * MS });
  }
}

/** An "ensure" loop: create a ConfigMap, get 409 AlreadyExists (not a Conflict), read it instead. */
function ensureLoop({ ctx, rng, label, workloads, every }: Env): void {
  const [syncer] = podClients(
    rng,
    { namespace: 'platform-system', serviceAccount: 'config-syncer', deployment: 'config-syncer', userAgent: 'config-syncer/v2.1.0 (linux/amd64) kubernetes/$Format' },
    1,
  );
  for (const at of every(60_000)) {
    if (!syncer) break;
    const cm = target('configmaps', { namespace: rng.pick(workloads).namespace, name: 'trusted-ca-bundle' });
    const create = call(ctx, syncer, 'create', cm, at, { status: alreadyExistsStatus(cm), latencyUs: rng.uniform(0.7, 2) * MS, subject: subjectOf(label, 'benign', syncer, cm) });
    call(ctx, syncer, 'get', cm, create.completedUs + rng.uniform(0.2, 1) * MS);
  }
}

/**
 * A healthy cluster's steady traffic: kubelet node leases (every 10 s) and node status patches
 * (every ~60 s), leader-election renewals of kube-controller-manager and kube-scheduler (every
 * 2 s), informer watches (3 stages, minutes long), kube-controller-manager controllers updating
 * workloads (rare 409s, requeued after 5 ms), pod creation/binding/status, events, kubectl
 * reads (including non-resource discovery and a 404), a metrics agent's lists (some slow, some
 * 429 then retried) and an "ensure" loop whose creates get 409 AlreadyExists.
 *
 * Ground truth (all `benign`): leader-election leases, the workload controllers (and whoever
 * caused their conflicts), and the ensure loop's creates. Node leases and status are not listed.
 */
export const background: Scenario<BackgroundParams> = (rng, params, w) => {
  const names = rng.fork('names');
  const random: Partial<BackgroundParams> = params.randomizeNames ? { nodes: names.int(3, 30), noise: names.uniform(0.5, 2) } : {};
  const p = resolve(BACKGROUND_DEFAULTS, random, params);
  const nodeStyle = params.randomizeNames ? names.int(0, 3) : 0;
  const pool = names.hex(8);
  const env: Env = {
    ctx: context(rng, w),
    rng,
    p,
    label: p.name ?? 'background',
    workloads: params.randomizeNames ? WORKLOADS.map(() => ({ namespace: names.pick(NAMESPACES), name: `${names.pick(OBJECT_NAMES)}-${names.nameSuffix(3)}` })) : WORKLOADS,
    kubelets: Array.from({ length: p.nodes }, (_, i) => {
      const ip = `10.0.${1 + Math.floor(i / 200)}.${20 + (i % 200)}`;
      const name = nodeName(nodeStyle, i, ip, names, pool);
      return { name, client: kubeletClient(name, ip) };
    }),
    every: (meanGapMs) => poisson(rng, meanGapMs / p.noise, w.startUs, w.endUs - 10 * SECOND),
    kubectl: {
      user: { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] },
      sourceIP: '192.168.10.24',
      userAgent: userAgent('kubectl', K8S_VERSION, K8S_COMMIT),
      authzReason: rbacReason('kubeadm:cluster-admins', 'cluster-admin', 'Group "kubeadm:cluster-admins"'),
    },
    deploymentController: controllerClient(rng, 'deployment-controller'),
    replicasetController: controllerClient(rng, 'replicaset-controller'),
    scheduler: componentClient('kube-scheduler', 'scheduler'),
  };
  for (const part of [kubeletTraffic, leaderElection, controlPlaneWatches, workloadControllers, podChurn, events, kubectlReads, metricsLists, ensureLoop]) part(env);
  return env.ctx.requests;
};
