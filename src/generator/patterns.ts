/**
 * Scenarios that plant one finding of each kind besides `conflict-storm` (which {@link storm} in
 * scenarios.ts plants), plus the `lastTransitionTime` replay. Every write's outcome still follows
 * from tracked resourceVersions (plan.ts): a no-op leaves the RV unchanged, a 409 Conflict is
 * caused by a write in the log, a 409 AlreadyExists by an object that exists.
 *
 * Facts used, with sources:
 * - a write that changes nothing stored returns 200 with the old RV; one that only moves a
 *   timestamp is a real write (audit-formats.md §4a, `kubernetes/apiserver` `pkg/storage/etcd3/store.go`);
 * - `metav1.Time` has whole seconds, so a condition stamped "now" twice in one second is byte-identical;
 * - the HPA reads and updates `/scale` every `--horizontal-pod-autoscaler-sync-period` (default 15 s);
 * - APF answers 429 `{"metadata":{},"code":429}` with `Retry-After` 1 s (before 1.28) or 1–32 s
 *   (since), and client-go retries up to 10 times, each a new request and auditID (§4c).
 */
import { objectWithStatus, readyConditions, metaTime, type ObjectIdentity } from './bodies.js';
import { alreadyExistsStatus, tooManyRequestsStatus, type Client, type Level, type Micros, type Target } from './events.js';
import { NAMESPACES, OBJECT_NAMES, randomContender, randomWriter } from './names.js';
import {
  MS,
  OPERATOR_UA,
  SECOND,
  call,
  conflictEpisode,
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
  truthObject,
  write,
  type CommonParams,
  type Ctx,
  type Defaults,
  type FindingRef,
  type OperatorParams,
  type Scenario,
  type Subject,
  type TrackedObject,
} from './plan.js';
import type { Rng } from './random.js';
import { distinctWrites } from './healthy.js';

// ---------------------------------------------------------------------------------------------
// Shared: a reconcile loop writing one object's status

/** What each status write changes: something real, nothing at all, or only condition timestamps. */
export type StatusChange = 'change' | 'identical' | 'timestamps';

interface StatusLoopOptions {
  client: Client;
  obj: TrackedObject;
  subresource: string;
  subject: Subject;
  /** Pause from one write's completion to the next write, µs. */
  gapUs: () => Micros;
  change: StatusChange;
  level: Level;
}

/**
 * A controller writing one object's status again and again, each PUT carrying the RV of its own
 * previous write (its informer has seen it: the write's watch event is what triggered the next
 * reconcile). With `identical` nothing changes, so the apiserver keeps the RV and the next PUT
 * sends the same one; with `timestamps` the conditions' `lastTransitionTime` is set to now, which
 * is a real change unless the second has not moved on. Above Metadata level the requests (and,
 * at RequestResponse, the responses) carry the whole object.
 */
function statusLoop(ctx: Ctx, o: StatusLoopOptions): void {
  const { rng, w } = ctx;
  const identity: ObjectIdentity = { target: o.obj.target, uid: o.obj.uid, generation: rng.int(1, 12), creationUs: w.startUs - rng.uniform(1, 90) * 86_400 * SECOND };
  const settledUs = o.obj.since;
  let stamped = metaTime(settledUs);
  for (let t = w.startUs + rng.uniform(0, 1) * SECOND; t < w.endUs - 100 * MS;) {
    const stamp = o.change === 'timestamps' ? metaTime(t) : metaTime(settledUs);
    const unchanged = o.change === 'identical' || (o.change === 'timestamps' && stamp === stamped);
    stamped = stamp;
    const conditions = readyConditions(identity.generation, Date.parse(stamp) * 1000);
    const req = write(ctx, {
      client: o.client,
      verb: 'update',
      obj: o.obj,
      subresource: o.subresource,
      at: t,
      subject: o.subject,
      noOp: unchanged,
      noOpMark: o.change !== 'change',
      ...(o.level === 'Metadata'
        ? {}
        : {
            level: o.level,
            bodies: (sentRV: string, newRV: string) => ({
              requestObject: objectWithStatus(identity, sentRV, conditions),
              responseObject: objectWithStatus(identity, newRV, conditions),
            }),
          }),
    });
    t = req.completedUs + o.gapUs();
  }
}

/** Parameters of a single operator writing a single object. */
export interface WriterParams extends CommonParams {
  operator?: OperatorParams;
  /** The object written; usually a `/status`. */
  object?: Target;
}

/** With `randomizeNames`: a random operator and object (always a `/status`). */
function randomStatusWriter(names: Rng): { operator: OperatorParams; object: Target } {
  const { operator, object } = randomWriter(names);
  return { operator, object: { ...object, subresource: 'status' } };
}

/** Set up one writer pod and its tracked object. */
function writerSetup(rng: Rng, w: Parameters<Scenario<unknown>>[2], p: Required<Pick<WriterParams, 'operator' | 'object'>>) {
  const ctx = context(rng, w);
  const obj = trackObject(ctx, p.object);
  const [client] = podClients(rng, p.operator, 1);
  if (!client) throw new Error('unreachable: podClients(…, 1) returns one client');
  return { ctx, obj, client };
}

// ---------------------------------------------------------------------------------------------
// hotLoop

/** Parameters of {@link hotLoop}. */
export interface HotLoopParams extends WriterParams {
  /** Status writes per second. Default 8. */
  ratePerSec?: number;
}

const HOT_LOOP_DEFAULTS: Defaults<HotLoopParams> = {
  operator: {
    namespace: 'ingress-system',
    serviceAccount: 'edgeroute-controller',
    deployment: 'edgeroute-controller',
    userAgent: 'edgeroute-controller/v0.9.3 (linux/amd64) kubernetes/$Format',
  },
  object: { apiGroup: 'networking.acme.dev', apiVersion: 'v1', resource: 'edgeroutes', namespace: 'shop', name: 'storefront', subresource: 'status' },
  ratePerSec: 8,
};

/**
 * A hot loop: one operator pod re-reconciles one object as soon as its own status write comes
 * back through the watch, writing a real change every time (a counter, an ever-new message), so
 * it never settles. Every write succeeds; the rate is `ratePerSec`.
 */
export const hotLoop: Scenario<HotLoopParams> = (rng, params, w) => {
  const p = resolve(
    HOT_LOOP_DEFAULTS,
    randomized<HotLoopParams>(rng, params, (n) => ({ ...randomStatusWriter(n), ratePerSec: Math.round(n.uniform(2, 20) * 10) / 10 })),
    params,
  );
  const { ctx, obj, client } = writerSetup(rng, w, p);
  const periodUs = SECOND / p.ratePerSec;
  statusLoop(ctx, {
    client,
    obj,
    subresource: p.object.subresource,
    subject: subjectOf(p.name ?? 'hotLoop', 'hot-loop', client, p.object),
    gapUs: () => Math.max(0.2 * MS, periodUs * rng.uniform(0.6, 1.4) - 3 * MS),
    change: 'change',
    level: 'Metadata',
  });
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// noOpWrites

/** Parameters of {@link noOpWrites}. */
export interface NoOpWritesParams extends WriterParams {
  /** Audit level of the writes. Default `Metadata` (no bodies). */
  level?: Level;
  /**
   * `identical`: the status sent is the stored one (200, same RV); `timestamps`: only the
   * conditions' `lastTransitionTime` moves, visible only in bodies (Request level and above).
   * Default `identical`; at Metadata level always `identical`.
   */
  change?: 'identical' | 'timestamps';
  /** Pause between two writes, ms, uniform in [min, max]. Default [3000, 8000]: not a hot loop. */
  intervalMs?: [number, number];
}

const NO_OP_DEFAULTS: Defaults<NoOpWritesParams> = {
  operator: { namespace: 'db-system', serviceAccount: 'dbinstance-operator', deployment: 'dbinstance-operator', userAgent: OPERATOR_UA },
  object: { apiGroup: 'data.initech.io', apiVersion: 'v1beta1', resource: 'dbinstances', namespace: 'payments', name: 'ledger-db', subresource: 'status' },
  level: 'Metadata',
  change: 'identical',
  intervalMs: [3000, 8000],
};

/**
 * Writes that change nothing: a reconciler that PUTs the status it computed without comparing
 * it to the stored one. With `identical` the apiserver skips the etcd write and returns the old
 * RV, so the next PUT sends the same RV again; with `timestamps` (Request/RequestResponse level)
 * successive bodies differ only in `lastTransitionTime`. Below hot-loop rates.
 */
export const noOpWrites: Scenario<NoOpWritesParams> = (rng, params, w) => {
  const random = randomized<NoOpWritesParams>(rng, params, (n) => ({
    ...randomStatusWriter(n),
    change: n.pick(['identical', 'timestamps'] as const),
    intervalMs: [n.uniform(2000, 4000), n.uniform(5000, 9000)],
  }));
  const p = resolve(NO_OP_DEFAULTS, random, params);
  const { ctx, obj, client } = writerSetup(rng, w, p);
  statusLoop(ctx, {
    client,
    obj,
    subresource: p.object.subresource,
    subject: subjectOf(p.name ?? 'noOpWrites', 'no-op-writes', client, p.object),
    gapUs: () => rng.uniform(p.intervalMs[0], p.intervalMs[1]) * MS,
    change: p.level === 'Metadata' ? 'identical' : p.change,
    level: p.level,
  });
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// transitionTimeReplay

/** Parameters of {@link transitionTimeReplay}. */
export interface TransitionTimeParams extends WriterParams {
  /** Audit level; above Metadata the bodies prove the writes change only timestamps. Default `RequestResponse`. */
  level?: Level;
  /** Reconcile time between the watch event of its own write and the next write, ms. Default [60, 250]. */
  reconcileMs?: [number, number];
}

const TRANSITION_DEFAULTS: Defaults<TransitionTimeParams> = {
  operator: { namespace: 'cert-system', serviceAccount: 'certbundle-operator', deployment: 'certbundle-operator', userAgent: OPERATOR_UA },
  object: { apiGroup: 'cert.globex.cloud', apiVersion: 'v1alpha1', resource: 'certbundles', namespace: 'platform', name: 'edge-gw-tls', subresource: 'status' },
  level: 'RequestResponse',
  reconcileMs: [60, 250],
};

/**
 * Replay of a common public report: an operator sets its conditions' `lastTransitionTime` to now
 * on every reconcile instead of only when the status flips (what `meta.SetStatusCondition`
 * does), so every status write is a change, whose watch event triggers the next reconcile: a
 * hot loop of a few writes per second (the operator also requeues itself, so a reconcile that
 * changed nothing does not end the loop). Ground truth: `hot-loop` and `no-op-writes`: with
 * bodies logged, successive bodies differ only in `lastTransitionTime`; at Metadata level, the
 * writes that land in the same second as the previous one are byte-identical (`metav1.Time` has
 * whole seconds), so the apiserver keeps the RV and the next PUT sends it again.
 */
export const transitionTimeReplay: Scenario<TransitionTimeParams> = (rng, params, w) => {
  const p = resolve(
    TRANSITION_DEFAULTS,
    randomized<TransitionTimeParams>(rng, params, (n) => ({ ...randomStatusWriter(n), reconcileMs: [n.uniform(30, 100), n.uniform(150, 400)] })),
    params,
  );
  const { ctx, obj, client } = writerSetup(rng, w, p);
  // Both kinds at every level: above Metadata the bodies differ only in lastTransitionTime; at
  // Metadata level the reconciles that land in the same second as the previous one (metav1.Time
  // has whole seconds) send byte-identical objects, so the RV stays and the next PUT resends it.
  const findings: FindingRef[] = [
    { kind: 'hot-loop', id: 'loop' },
    { kind: 'no-op-writes', id: 'loop' },
  ];
  statusLoop(ctx, {
    client,
    obj,
    subresource: p.object.subresource,
    subject: subjectOf(p.name ?? 'transitionTimeReplay', 'hot-loop', client, p.object, findings),
    gapUs: () => rng.uniform(p.reconcileMs[0], p.reconcileMs[1]) * MS,
    change: 'timestamps',
    level: p.level,
  });
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// writeFight

/** Parameters of {@link writeFight}. */
export interface WriteFightParams extends CommonParams {
  /** The Deployment fought over (`subresource` ignored). */
  object?: Target;
  /** The GitOps side: applies the manifest's replicas to the main resource. */
  applier?: OperatorParams;
  /** Field manager of the applier's patches. */
  fieldManager?: string;
  /** Replicas in Git, and the range the autoscaler wants. */
  gitReplicas?: number;
  /** HPA sync period, ms (`--horizontal-pod-autoscaler-sync-period`). Default 5000. */
  hpaPeriodMs?: number;
  /** Delay from the HPA's change until the applier's self-heal reverts it, ms. Default [300, 2000]. */
  revertMs?: [number, number];
}

const FIGHT_DEFAULTS: Defaults<WriteFightParams> = {
  object: { apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', namespace: 'shop', name: 'checkout-api', subresource: '' },
  applier: {
    namespace: 'argocd',
    serviceAccount: 'argocd-application-controller',
    deployment: 'argocd-application-controller',
    userAgent: 'argocd-application-controller/v0.0.0 (linux/amd64) kubernetes/$Format',
  },
  fieldManager: 'argocd-controller',
  gitReplicas: 3,
  hpaPeriodMs: 5000,
  revertMs: [300, 2000],
};

const APPLIERS: Array<{ applier: OperatorParams; fieldManager: string }> = [
  { applier: FIGHT_DEFAULTS.applier, fieldManager: 'argocd-controller' },
  {
    applier: {
      namespace: 'flux-system',
      serviceAccount: 'kustomize-controller',
      deployment: 'kustomize-controller',
      userAgent: 'kustomize-controller/v1.2.2 (linux/amd64) kubernetes/$Format',
    },
    fieldManager: 'kustomize-controller',
  },
  {
    applier: { namespace: 'ci', serviceAccount: 'deploy-bot', deployment: 'deploy-bot', userAgent: 'kubectl/v1.29.3 (linux/amd64) kubernetes/6813625' },
    fieldManager: 'kubectl-client-side-apply',
  },
];

/**
 * Two writers undo each other: the HPA (kube-controller-manager's `horizontal-pod-autoscaler`)
 * GETs and PUTs the Deployment's `/scale` to the replicas it wants, and a GitOps applier with
 * self-heal patches the main resource back to the replicas in Git a moment later, A, B, A, B…
 * The deployment controller follows each change with a `/status` write (disjoint fields: not
 * part of the fight).
 */
export const writeFight: Scenario<WriteFightParams> = (rng, params, w) => {
  const random = randomized<WriteFightParams>(rng, params, (n) => ({
    ...n.pick(APPLIERS),
    object: { ...FIGHT_DEFAULTS.object, namespace: n.pick(NAMESPACES), name: `${n.pick(OBJECT_NAMES)}-${n.nameSuffix(3)}` },
    gitReplicas: n.int(1, 5),
    hpaPeriodMs: n.int(3000, 6000),
    revertMs: [n.uniform(100, 500), n.uniform(800, 2500)],
  }));
  const p = resolve(FIGHT_DEFAULTS, random, params);
  const ctx = context(rng, w);
  const obj = trackObject(ctx, p.object);
  const hpa = controllerClient(rng, 'horizontal-pod-autoscaler');
  const deploymentController = controllerClient(rng, 'deployment-controller');
  const [applier] = podClients(rng, p.applier, 1);
  if (!applier) return [];
  const label = p.name ?? 'writeFight';
  const fight: FindingRef[] = [{ kind: 'write-fight', id: 'fight', object: truthObject(obj.target) }];
  const scale = { ...obj.target, subresource: 'scale' };
  const hpaSubject = subjectOf(label, 'write-fight', hpa, scale, fight);
  const applierSubject = subjectOf(label, 'write-fight', applier, obj.target, fight);
  const followStatus = (at: Micros): Micros =>
    write(ctx, { client: deploymentController, verb: 'update', obj, subresource: 'status', at: at + rng.uniform(5, 40) * MS }).completedUs;
  for (let t = w.startUs + rng.uniform(0, p.hpaPeriodMs) * MS; t < w.endUs - 5 * SECOND; t += p.hpaPeriodMs * MS) {
    const get = call(ctx, hpa, 'get', scale, t);
    const put = write(ctx, { client: hpa, verb: 'update', obj, subresource: 'scale', at: get.completedUs + rng.uniform(0.3, 2) * MS, subject: hpaSubject });
    const after = followStatus(put.completedUs);
    const revert = write(ctx, {
      client: applier,
      verb: 'patch',
      obj,
      at: Math.max(after, put.completedUs + rng.uniform(p.revertMs[0], p.revertMs[1]) * MS),
      query: { fieldManager: p.fieldManager },
      subject: applierSubject,
    });
    followStatus(revert.completedUs);
  }
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// createConflictStorm

/** Parameters of {@link createConflictStorm}. */
export interface CreateConflictParams extends CommonParams {
  operator?: OperatorParams;
  /** The object created again and again (it exists). */
  object?: Target;
  /** How many names the loop creates in turn. Default 1. */
  names?: number;
  /** Create attempts per second. Default 12. */
  ratePerSec?: number;
}

const CREATE_DEFAULTS: Defaults<CreateConflictParams> = {
  operator: { namespace: 'vault-system', serviceAccount: 'secret-injector', deployment: 'secret-injector', userAgent: 'secret-injector/v1.4.0 (linux/amd64) kubernetes/$Format' },
  object: { apiGroup: '', apiVersion: 'v1', resource: 'secrets', namespace: 'payments', name: 'db-credentials', subresource: '' },
  names: 1,
  ratePerSec: 12,
};

/**
 * An "ensure" loop gone wrong: an operator creates the same object(s) over and over, answered
 * 409 AlreadyExists each time, and requeues at once instead of reading what exists. With several
 * names the expected finding names the actor, not one object.
 */
export const createConflictStorm: Scenario<CreateConflictParams> = (rng, params, w) => {
  const random = randomized<CreateConflictParams>(rng, params, (n) => {
    const { operator, object } = randomWriter(n);
    const builtin = n.pick([{ apiGroup: '', apiVersion: 'v1', resource: 'secrets' }, { apiGroup: '', apiVersion: 'v1', resource: 'configmaps' }, object]);
    return { operator, object: { ...object, ...builtin, subresource: '' }, names: n.int(1, 3), ratePerSec: Math.round(n.uniform(4, 30)) };
  });
  const p = resolve(CREATE_DEFAULTS, random, params);
  const ctx = context(rng, w);
  const [client] = podClients(rng, p.operator, 1);
  if (!client) return [];
  const label = p.name ?? 'createConflictStorm';
  const targets = Array.from({ length: p.names }, (_, i) => ({ ...p.object, name: i === 0 ? p.object.name : `${p.object.name}-${i + 1}` }));
  const findings: FindingRef[] | undefined = p.names > 1 ? [{ kind: 'create-conflict-storm', id: 'loop', object: null }] : undefined;
  let i = 0;
  for (const at of poisson(rng, 1000 / p.ratePerSec, w.startUs, w.endUs - 50 * MS)) {
    const t = targets[i++ % targets.length] as Target;
    call(ctx, client, 'create', t, at, {
      status: alreadyExistsStatus(t),
      latencyUs: rng.uniform(0.7, 2.5) * MS,
      subject: subjectOf(label, 'create-conflict-storm', client, t, findings),
    });
  }
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// createStorm

/** Parameters of {@link createStorm}. */
export interface CreateStormParams extends CommonParams {
  operator?: OperatorParams;
  /** The owner the loop makes objects for; each create is a new object named `<owner name>-<suffix>`. */
  object?: Target;
  /** Creates per second. Default 5. */
  ratePerSec?: number;
  /** Names sent by the client (true) or left to generateName (false: no name in objectRef). Default true. */
  named?: boolean;
}

const CREATE_STORM_DEFAULTS: Defaults<CreateStormParams> = {
  operator: {
    namespace: 'cert-manager',
    serviceAccount: 'cert-manager',
    deployment: 'cert-manager',
    userAgent: 'cert-manager-certificates-request-manager/v1.14.4 (linux/amd64) cert-manager/4a1a1b4',
  },
  object: { apiGroup: 'cert-manager.io', apiVersion: 'v1', resource: 'certificaterequests', namespace: 'payments', name: 'api-tls', subresource: '' },
  ratePerSec: 5,
  named: true,
};

/** generateName's alphabet (`k8s.io/apimachinery/pkg/util/rand`). */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * A controller that lost track of what it made (cert-manager#6714: a new CertificateRequest on
 * every pass for one Certificate): each create is a new object and succeeds (201), nothing is
 * deleted, and the loop goes on at the rate of its requeues.
 */
export const createStorm: Scenario<CreateStormParams> = (rng, params, w) => {
  const random = randomized<CreateStormParams>(rng, params, (n) => {
    const { operator, object } = randomWriter(n);
    const kind = n.pick([{ apiGroup: '', apiVersion: 'v1', resource: 'configmaps' }, { apiGroup: 'batch', apiVersion: 'v1', resource: 'jobs' }, object]);
    return { operator, object: { ...object, ...kind, subresource: '' }, ratePerSec: Math.round(n.uniform(4, 20) * 10) / 10, named: n.chance(0.7) };
  });
  const p = resolve(CREATE_STORM_DEFAULTS, random, params);
  const ctx = context(rng, w);
  const [client] = podClients(rng, p.operator, 1);
  if (!client) return [];
  const label = p.name ?? 'createStorm';
  const findings: FindingRef[] = [{ kind: 'create-storm', id: 'loop', object: null }];
  for (const at of poisson(rng, 1000 / p.ratePerSec, w.startUs, w.endUs - 50 * MS)) {
    let suffix = '';
    for (let k = 0; k < 5; k++) suffix += NAME_ALPHABET[rng.int(0, NAME_ALPHABET.length - 1)];
    const t = { ...p.object, name: p.named ? `${p.object.name}-${suffix}` : '' };
    call(ctx, client, 'create', t, at, { latencyUs: rng.uniform(2, 6) * MS, subject: subjectOf(label, 'create-storm', client, t, findings) });
  }
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// fleetStorm

/** Parameters of {@link fleetStorm}. */
export interface FleetStormParams extends CommonParams {
  /**
   * `daemonset`: the pods of one DaemonSet (one service account) each update their node's object;
   * `kubelet`: kubelets (`system:node:*`) each update the status of a pod on their node.
   */
  family?: 'daemonset' | 'kubelet';
  /** The DaemonSet (family `daemonset`). */
  agent?: OperatorParams;
  /** Cluster-scoped per-node resource the agents update (family `daemonset`). */
  resource?: Pick<Target, 'apiGroup' | 'apiVersion' | 'resource'>;
  /** The controller whose patches make the fleet's updates conflict. */
  contender?: OperatorParams;
  /** Members of the family (nodes). Default 24. */
  members?: number;
  /** Pause between two changes of one member, ms. Default [15 000, 40 000]. */
  intervalMs?: [number, number];
  /** Probability of 0, 1, 2, 3 conflicts per change. Default [0.2, 0.4, 0.3, 0.1]. */
  conflictWeights?: number[];
}

const FLEET_DEFAULTS: Defaults<FleetStormParams> = {
  family: 'daemonset',
  agent: { namespace: 'kube-system', serviceAccount: 'netmesh-agent', deployment: 'netmesh-agent', userAgent: 'netmesh-agent/v1.15.1 (linux/amd64) kubernetes/$Format' },
  resource: { apiGroup: 'netmesh.io', apiVersion: 'v2', resource: 'meshnodes' },
  contender: {
    namespace: 'kube-system',
    serviceAccount: 'netmesh-operator',
    deployment: 'netmesh-operator',
    userAgent: 'netmesh-operator/v1.15.1 (linux/amd64) kubernetes/$Format',
  },
  members: 24,
  intervalMs: [15_000, 40_000],
  conflictWeights: [0.2, 0.4, 0.3, 0.1],
};

/**
 * A fleet of one actor family (a DaemonSet's pods, or the kubelets) each updating its own object
 * with the RV from its cache while a controller patches those objects: every member meets a few
 * 409s now and then and retries at once. No single object has a storm; the fleet has hundreds
 * of 409s a minute. The expected finding is fleet-wide (no object).
 */
export const fleetStorm: Scenario<FleetStormParams> = (rng, params, w) => {
  const random = randomized<FleetStormParams>(rng, params, (n) => {
    const { operator, object } = randomWriter(n);
    return {
      family: n.pick(['daemonset', 'kubelet'] as const),
      agent: { ...operator, namespace: 'kube-system' },
      resource: { apiGroup: object.apiGroup || 'infra.example.com', apiVersion: object.apiVersion, resource: object.resource },
      contender: randomContender(n, operator),
      members: n.int(12, 40),
    };
  });
  const p = resolve(FLEET_DEFAULTS, random, params);
  const ctx = context(rng, w);
  const label = p.name ?? 'fleetStorm';
  const [contender] = podClients(rng, p.contender, 1);
  if (!contender) return [];
  const nodes = Array.from({ length: p.members }, (_, i) => ({
    name: `ip-10-0-${2 + Math.floor(i / 200)}-${30 + (i % 200)}.ec2.internal`,
    ip: `10.0.${2 + Math.floor(i / 200)}.${30 + (i % 200)}`,
  }));
  const agents = p.family === 'daemonset' ? podClients(rng, p.agent, p.members) : nodes.map((n) => kubeletClient(n.name, n.ip));
  const fleet: FindingRef[] = [{ kind: 'fleet-storm', id: 'fleet', object: null }];
  const benign: FindingRef[] = [{ kind: 'benign', id: 'contender', object: null }];
  nodes.forEach((node, i) => {
    const writer = agents[i] as Client;
    const t: Target =
      p.family === 'daemonset'
        ? { ...p.resource, namespace: '', name: node.name, subresource: 'status' }
        : target('pods', { namespace: rng.pick(NAMESPACES), name: `${rng.pick(OBJECT_NAMES)}-${rng.nameSuffix(10)}-${rng.nameSuffix(5)}`, subresource: 'status' });
    const obj = trackObject(ctx, t);
    const writerSubject = subjectOf(label, 'fleet-storm', writer, t, fleet);
    const contenderSubject = subjectOf(label, 'benign', contender, obj.target, benign);
    for (let at = w.startUs + rng.uniform(0, p.intervalMs[1]) * MS; at < w.endUs - SECOND;) {
      const end = conflictEpisode(ctx, {
        writer,
        writerSubject,
        obj,
        subresource: 'status',
        contender,
        contenderSubject,
        contenderQuery: { fieldManager: p.contender.deployment },
        at,
        conflicts: rng.weighted(p.conflictWeights),
        delayUs: () => rng.uniform(1, 5) * MS,
        readFirst: false,
      });
      at = end + rng.uniform(p.intervalMs[0], p.intervalMs[1]) * MS;
    }
  });
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// throttling

/** Parameters of {@link throttling}. */
export interface ThrottlingParams extends CommonParams {
  /** The throttled controller. */
  victim?: OperatorParams;
  /** Objects the victim reconciles (1–3). */
  object?: Target;
  /** The heavy writer sharing the victim's priority level. */
  writer?: OperatorParams;
  /** Heavy writes per second during the flood. Default 50. */
  floodPerSec?: number;
  /** The flood's share of the scenario window, centred. Default 0.7. */
  floodShare?: number;
  /** Probability that APF rejects one of the victim's requests during the flood. Default 0.65. */
  rejectProbability?: number;
  /** `Retry-After` seconds, uniform integer in [min, max]. Default [1, 1] (before 1.28). */
  retryAfterS?: [number, number];
}

const THROTTLING_DEFAULTS: Defaults<ThrottlingParams> = {
  victim: {
    namespace: 'billing-system',
    serviceAccount: 'invoice-controller',
    deployment: 'invoice-controller',
    userAgent: 'invoice-controller/v2.3.1 (linux/amd64) kubernetes/$Format',
  },
  object: { apiGroup: 'billing.contoso.net', apiVersion: 'v1', resource: 'invoiceruns', namespace: 'billing', name: 'nightly', subresource: 'status' },
  writer: { namespace: 'ci', serviceAccount: 'bulk-importer', deployment: 'bulk-importer', userAgent: 'bulk-importer/v0.3.0 (linux/amd64) kubernetes/$Format' },
  floodPerSec: 50,
  floodShare: 0.7,
  rejectProbability: 0.65,
  retryAfterS: [1, 1],
};

/**
 * A heavy writer floods the apiserver (thousands of ConfigMaps, one write each) and APF rejects
 * a large share of another controller's requests in the same priority level with 429. The
 * victim's GET-then-PUT reconciles are retried by client-go after `Retry-After`, up to 10 times,
 * each retry a new request. Ground truth: `throttling` naming the victim and the heavy writer.
 */
export const throttling: Scenario<ThrottlingParams> = (rng, params, w) => {
  const random = randomized<ThrottlingParams>(rng, params, (n) => {
    const { operator, object } = randomStatusWriter(n);
    return {
      victim: operator,
      object: object,
      writer: randomContender(n, operator),
      floodPerSec: Math.round(n.uniform(30, 70)),
      rejectProbability: n.uniform(0.5, 0.8),
      retryAfterS: n.pick([
        [1, 1],
        [1, 3],
      ] as Array<[number, number]>),
    };
  });
  const p = resolve(THROTTLING_DEFAULTS, random, params);
  const ctx = context(rng, w);
  const label = p.name ?? 'throttling';
  const [victim] = podClients(rng, p.victim, 1);
  const [heavy] = podClients(rng, p.writer, 1);
  if (!victim || !heavy) return [];
  const findings: FindingRef[] = [{ kind: 'throttling', id: 'throttling', object: null }];
  const span = w.endUs - w.startUs;
  const floodFrom = w.startUs + (span * (1 - p.floodShare)) / 2;
  const floodTo = floodFrom + span * p.floodShare;
  distinctWrites(ctx, {
    client: heavy,
    times: poisson(rng, 1000 / p.floodPerSec, floodFrom, floodTo),
    targetOf: (i) => target('configmaps', { namespace: rng.pick(NAMESPACES), name: `import-${i.toString(36).padStart(5, '0')}` }),
    subjectOf: (t) => subjectOf(label, 'throttling', heavy, t, findings),
  });
  const obj = trackObject(ctx, p.object);
  const subject = subjectOf(label, 'throttling', victim, p.object, findings);
  for (let t = w.startUs + rng.uniform(0, 2) * SECOND; t < w.endUs - 15 * SECOND;) {
    const got = victimRequest(ctx, victim, 'get', obj.target, t, { floodFrom, floodTo, p, subject });
    const put = got.ok ? victimRequest(ctx, victim, 'update', obj.target, got.doneUs + rng.uniform(0.3, 2) * MS, { floodFrom, floodTo, p, subject, obj }) : got;
    // A reconcile that gave up returns its error: the workqueue requeues it a while later.
    t = put.doneUs + (put.ok ? rng.uniform(500, 1500) : rng.uniform(1000, 3000)) * MS;
  }
  return ctx.requests;
};

interface VictimContext {
  floodFrom: Micros;
  floodTo: Micros;
  p: Defaults<ThrottlingParams>;
  subject: Subject;
  /** For updates: the object, whose RV the PUT sends. */
  obj?: TrackedObject;
}

/**
 * One client-go call of the throttled victim: during the flood APF rejects each try with
 * probability `rejectProbability` (429, no authorization annotations), and client-go tries again
 * after `Retry-After` (plus its rate limiter's few ms), up to 10 retries. Returns when the last
 * try completed and whether the call succeeded (false: it gave up after 11 rejections).
 */
function victimRequest(ctx: Ctx, client: Client, verb: 'get' | 'update', t: Target, at: Micros, v: VictimContext): { doneUs: Micros; ok: boolean } {
  const { rng } = ctx;
  const sub = verb === 'update' ? { ...t, subresource: v.p.object.subresource } : t;
  for (let retry = 0; retry <= 10; retry++) {
    if (!(at >= v.floodFrom && at < v.floodTo && rng.chance(v.p.rejectProbability))) {
      if (verb === 'get') return { doneUs: call(ctx, client, 'get', t, at, { subject: v.subject }).completedUs, ok: true };
      const obj = v.obj as TrackedObject;
      return { doneUs: write(ctx, { client, verb: 'update', obj, subresource: v.p.object.subresource, at, subject: v.subject }).completedUs, ok: true };
    }
    const rejected = call(ctx, client, verb, sub, at, { status: tooManyRequestsStatus(), latencyUs: rng.uniform(0.1, 0.5) * MS, subject: v.subject });
    if (retry === 10) return { doneUs: rejected.completedUs, ok: false };
    at = rejected.completedUs + (rng.int(v.p.retryAfterS[0], v.p.retryAfterS[1]) * 1000 + rng.uniform(0.5, 20)) * MS;
  }
  return { doneUs: at, ok: false };
}
