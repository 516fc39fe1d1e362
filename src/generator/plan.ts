/**
 * Building blocks shared by the scenarios: the scenario contract (what a scenario receives and
 * returns, what ground truth it plants), request planning with latencies, resourceVersion
 * tracking, conflict episodes, watches, and arrival processes. Times are µs since the epoch (UTC).
 *
 * Every write's outcome follows from resourceVersions, never from a coin flip: an `update` is
 * answered 409 Conflict exactly when the RV it sends differs from the object's current RV, and
 * every conflict is caused by a write that is itself in the log (or, in storms, by the
 * replicas' own writes seen through a lagging informer cache). So the lines are consistent with
 * optimistic concurrency as kube-apiserver implements it (audit-formats.md §4d).
 */
import {
  buildRequest,
  conflictStatus,
  okStatus,
  rbacReason,
  serviceAccountUser,
  type Client,
  type Level,
  type Micros,
  type Request,
  type RequestSpec,
  type ResponseStatus,
  type Target,
  nodeUser,
  userAgent,
} from './events.js';
import type { Rng } from './random.js';

// ---------------------------------------------------------------------------------------------
// Contract

/** A scenario's time span plus the cluster-wide facts all scenarios share. Times in µs (UTC). */
export interface Window {
  /** Start of this scenario's activity (inclusive). */
  startUs: Micros;
  /** End of this scenario's activity (exclusive). */
  endUs: Micros;
  logStartUs: Micros;
  logEndUs: Micros;
  /**
   * The etcd revision (the `resourceVersion` string) of a write committed at `us`: one global,
   * time-increasing counter, so RVs of all objects grow with time as in a real cluster.
   */
  revisionAt(us: Micros): string;
}

/** Finding kinds (the report's `Finding.kind`) a scenario can plant. */
export const FINDING_KINDS = ['conflict-storm', 'hot-loop', 'no-op-writes', 'write-fight', 'create-conflict-storm', 'create-storm', 'fleet-storm', 'throttling'] as const;
/** A finding kind detectors must report. */
export type FindingKind = (typeof FINDING_KINDS)[number];
/** Expected verdict for what a scenario planted: a finding kind, or `benign` (must not be reported). */
export type TruthKind = FindingKind | 'benign';

/** An actor as detectors identify it: username plus user agent. */
export interface TruthActor {
  username: string;
  userAgent: string;
}

/** The object written to; empty strings for absent parts (core group, cluster scope, no subresource). */
export interface TruthObject {
  apiGroup: string;
  resource: string;
  namespace: string;
  name: string;
  subresource: string;
}

/**
 * One finding a pair belongs to. Pairs of one scenario with the same `kind` and `id` form one
 * expected finding (write-fight: both writers; fleet-storm: every member of the family).
 */
export interface FindingRef {
  kind: TruthKind;
  id: string;
  /** The object the finding names; `null` for fleet-wide findings. Default: the pair's object. */
  object?: TruthObject | null;
}

/** One (actor, object) pair a scenario planted; generate.ts counts its attempts in the final log. */
export interface Subject {
  /** The scenario's label (its `name` parameter, default its type). */
  scenario: string;
  kind: TruthKind;
  actor: TruthActor;
  object: TruthObject;
  /** The expected findings this pair is part of. Default: one finding of `kind` on this pair alone. */
  findings?: FindingRef[];
}

/** A planned request; write attempts that belong to a planted pattern carry their {@link Subject}. */
export interface PlannedRequest extends Request {
  subject?: Subject;
  /** A successful write that changed nothing but timestamps (or nothing at all). */
  noOp?: boolean;
}

/** A scenario: `(rng, params, window) → requests`. Must use only `rng` for randomness. */
export type Scenario<P> = (rng: Rng, params: P, window: Window) => PlannedRequest[];

/** Parameters every scenario accepts. */
export interface CommonParams {
  /** Label used in ground truth; default: the scenario type. */
  name?: string;
  /** Start of the scenario, ms after the log start. Default 0. */
  startOffsetMs?: number;
  /** Length of the scenario in ms. Default: until the end of the log. */
  durationMs?: number;
  /**
   * Draw every parameter not given explicitly (operator, group, kind, namespace, object name,
   * user agent, rates, background size and noise) from pools instead of the fixed defaults, so
   * tests get logs with the same pattern but names nobody has seen.
   */
  randomizeNames?: boolean;
}

/** Identity of an in-cluster writer (an operator's Deployment and service account). */
export interface OperatorParams {
  /** Namespace of the service account and pods. */
  namespace: string;
  serviceAccount: string;
  /** Deployment name; pods are `<deployment>-<rs hash>-<suffix>`. */
  deployment: string;
  userAgent: string;
}

// ---------------------------------------------------------------------------------------------
// Building blocks

/** Kubernetes version and short commit in control-plane and kubelet user agents. */
export const K8S_VERSION = 'v1.30.2';
/** Short git commit of {@link K8S_VERSION} in user agents (`kubernetes/<commit>`). */
export const K8S_COMMIT = '3968350';
/** Source IP of kube-controller-manager and kube-scheduler. */
export const CONTROL_PLANE_IP = '10.0.0.10';
/**
 * User agent of a kubebuilder operator built without Kubernetes' ldflags (audit-formats.md §5.4:
 * client-go's `gitVersion` defaults give `v0.0.0` and `$Format`).
 */
export const OPERATOR_UA = 'manager/v0.0.0 (linux/amd64) kubernetes/$Format';
/** One millisecond in µs. */
export const MS = 1000;
/** One second in µs. */
export const SECOND = 1_000_000;

/** Per-request planning state: the rng, the window, and the output list. */
export interface Ctx {
  rng: Rng;
  w: Window;
  requests: PlannedRequest[];
  add(spec: RequestSpec, subject?: Subject): PlannedRequest;
}

/** A fresh planning context; `add` builds a request (auditID from `rng`) and records it. */
export function context(rng: Rng, w: Window): Ctx {
  const requests: PlannedRequest[] = [];
  return {
    rng,
    w,
    requests,
    add(spec, subject) {
      const req: PlannedRequest = buildRequest(rng, spec);
      if (subject) req.subject = subject;
      requests.push(req);
      return req;
    },
  };
}

/** Server latency `[minimum, mean of the exponential tail]` in ms per kind of request. */
const LATENCY_MS = {
  get: [0.4, 1.0],
  list: [2, 10],
  write: [2, 3.5],
  conflict: [0.7, 1.2],
  watchStart: [0.3, 1.2],
} as const;

/** A server latency in µs; the tail is capped at 8× its mean so episodes stay bounded. */
export function latencyUs(rng: Rng, kind: keyof typeof LATENCY_MS): Micros {
  const [min, mean] = LATENCY_MS[kind];
  return Math.round((min + Math.min(rng.exponential(mean), 8 * mean)) * MS);
}

/** An object whose resourceVersion a scenario tracks. `target.subresource` is always `''`. */
export interface TrackedObject {
  target: Target;
  uid: string;
  /** Current RV, committed at `since`; before that the object had `prev`. */
  rv: string;
  since: Micros;
  prev: string;
}

/** Start tracking an object: a new uid and an RV from a write up to a minute before the window. */
export function trackObject(ctx: Ctx, t: Target): TrackedObject {
  const since = ctx.w.startUs - ctx.rng.uniform(1, 60) * SECOND;
  const rv = ctx.w.revisionAt(since);
  return { target: { ...t, subresource: '' }, uid: ctx.rng.uuid(), rv, since, prev: rv };
}

/** The RV a reader sees at `us`: a write still in flight is not visible yet. */
export function visibleRV(obj: TrackedObject, us: Micros): string {
  return obj.since <= us ? obj.rv : obj.prev;
}

/** The truth object of a target (no apiVersion). */
export function truthObject(t: Target): TruthObject {
  return { apiGroup: t.apiGroup, resource: t.resource, namespace: t.namespace, name: t.name, subresource: t.subresource };
}

/** The truth subject for `client` writing `t`; `findings` when the pair is part of a group finding. */
export function subjectOf(scenario: string, kind: TruthKind, client: Client, t: Target, findings?: FindingRef[]): Subject {
  return {
    scenario,
    kind,
    actor: { username: client.user.username, userAgent: client.userAgent },
    object: truthObject(t),
    ...(findings ? { findings } : {}),
  };
}

/** How {@link write} describes one write. Times in µs. */
export interface WriteOptions {
  client: Client;
  verb: 'update' | 'patch';
  obj: TrackedObject;
  subresource?: string;
  at: Micros;
  /** update (or a preconditioned patch): the RV the client sends; the write conflicts unless it equals `obj.rv`. */
  sentRV?: string;
  /** patch only: the patch carries `metadata.resourceVersion` (optimistic lock), so it can conflict. */
  precondition?: boolean;
  /**
   * The write changes nothing stored: the apiserver skips the etcd write and answers with the
   * old RV (audit-formats.md §4a). Timestamp-only changes are real writes; mark them with
   * `noOpMark` instead.
   */
  noOp?: boolean;
  /** Mark the request as a no-op in the plan (counted in the expected findings). Default `noOp`. */
  noOpMark?: boolean;
  query?: Record<string, string>;
  latencyUs?: Micros;
  subject?: Subject;
  level?: Level;
  /** Request/response bodies for Request/RequestResponse level, given the sent and new RV. */
  bodies?: (sentRV: string, newRV: string, completedUs: Micros) => { requestObject: unknown; responseObject: unknown };
}

/**
 * One write to a tracked object. A patch always succeeds (no RV precondition); an update
 * succeeds only if `sentRV` is the current RV, else it is a 409 Conflict. A success moves the
 * object to the revision of its commit time.
 */
export function write(ctx: Ctx, o: WriteOptions): PlannedRequest {
  const target = { ...o.obj.target, subresource: o.subresource ?? '' };
  const sentRV = o.sentRV ?? o.obj.rv;
  const ok = (o.verb === 'patch' && !o.precondition) || sentRV === o.obj.rv;
  const lat = o.latencyUs ?? latencyUs(ctx.rng, ok ? 'write' : 'conflict');
  const newRV = o.noOp ? o.obj.rv : ctx.w.revisionAt(Math.round(o.at) + lat);
  const req = ctx.add(
    {
      client: o.client,
      verb: o.verb,
      target,
      ...(o.query ? { query: o.query } : {}),
      status: ok ? okStatus() : conflictStatus(target),
      receivedUs: o.at,
      latencyUs: lat,
      ...(o.verb === 'update' ? { uid: o.obj.uid, resourceVersion: sentRV } : {}),
      ...(o.level ? { level: o.level } : {}),
      ...(o.bodies && ok ? o.bodies(sentRV, newRV, Math.round(o.at) + lat) : {}),
    },
    o.subject,
  );
  if (ok && !o.noOp) Object.assign(o.obj, { prev: o.obj.rv, rv: newRV, since: req.completedUs });
  if (ok && (o.noOpMark ?? o.noOp)) req.noOp = true;
  return req;
}

/** A {@link Target}: core group `v1` and empty namespace, name and subresource unless given. */
export function target(resource: string, parts: Partial<Target> = {}): Target {
  return { apiGroup: '', apiVersion: 'v1', resource, namespace: '', name: '', subresource: '', ...parts };
}

const LATENCY_OF_VERB: Record<string, keyof typeof LATENCY_MS> = { get: 'get', list: 'list' };

/**
 * A request whose outcome needs no RV tracking (reads, creates, event patches). Status defaults
 * to 201 for create and 200 otherwise; latency to the verb's usual server latency.
 */
export function call(
  ctx: Ctx,
  client: Client,
  verb: string,
  t: Target,
  at: Micros,
  opts: { status?: ResponseStatus; query?: Record<string, string>; latencyUs?: Micros; subject?: Subject; level?: Level; requestObject?: unknown } = {},
): PlannedRequest {
  return ctx.add(
    {
      client,
      verb,
      target: t,
      ...(opts.query ? { query: opts.query } : {}),
      ...(opts.level ? { level: opts.level } : {}),
      ...(opts.requestObject !== undefined ? { requestObject: opts.requestObject } : {}),
      status: opts.status ?? okStatus(verb === 'create' ? 201 : 200),
      receivedUs: at,
      latencyUs: opts.latencyUs ?? latencyUs(ctx.rng, LATENCY_OF_VERB[verb] ?? 'write'),
    },
    opts.subject,
  );
}

/** How {@link conflictEpisode} describes one logical change of a contended writer. Times in µs. */
export interface EpisodeOptions {
  writer: Client;
  writerSubject: Subject;
  obj: TrackedObject;
  /** Subresource the writer updates, e.g. `status`. */
  subresource: string;
  contender: Client;
  contenderSubject: Subject;
  contenderQuery?: Record<string, string>;
  at: Micros;
  /** How many attempts conflict before one succeeds. */
  conflicts: number;
  /** Sleep after the i-th conflict (0-based) before the next attempt, µs. */
  delayUs: (i: number) => Micros;
  /** GET before every PUT (the documented RetryOnConflict pattern) instead of reading a cache. */
  readFirst: boolean;
}

/**
 * One logical change that meets `conflicts` 409s before it succeeds. Each conflict is caused by
 * the contender's patch landing between the writer's read and its PUT: with `readFirst`, after
 * the GET; otherwise just before the PUT, which the writer's informer cache has not seen yet
 * (the cache has caught up with everything earlier). Returns when the last response completed.
 */
export function conflictEpisode(ctx: Ctx, o: EpisodeOptions): Micros {
  const { rng } = ctx;
  let t = o.at;
  for (let i = 0; ; i++) {
    const conflict = i < o.conflicts;
    if (o.readFirst) t = call(ctx, o.writer, 'get', o.obj.target, t).completedUs + rng.uniform(0.2, 2) * MS;
    const sentRV = o.obj.rv;
    if (conflict) {
      const lat = latencyUs(rng, 'write');
      const at = o.readFirst ? t : t - lat - rng.uniform(0.2, 1.5) * MS;
      const bump = write(ctx, {
        client: o.contender,
        verb: 'patch',
        obj: o.obj,
        at,
        latencyUs: lat,
        subject: o.contenderSubject,
        ...(o.contenderQuery ? { query: o.contenderQuery } : {}),
      });
      if (o.readFirst) t = bump.completedUs + rng.uniform(0.1, 0.8) * MS;
    }
    const put = write(ctx, { client: o.writer, verb: 'update', obj: o.obj, subresource: o.subresource, at: t, sentRV, subject: o.writerSubject });
    if (!conflict) return put.completedUs;
    t = put.completedUs + o.delayUs(i);
  }
}

/**
 * Back-to-back reflector watches of one informer, from before `from` until `to`: each runs for
 * `timeoutSeconds` ∈ [300, 600) and is re-opened within a few ms. Stages outside the log are
 * dropped by generateLog, so a log starts with completions of watches opened earlier.
 */
export function watchChain(ctx: Ctx, client: Client, target: Target, from: Micros, to: Micros, fieldSelector?: string): void {
  const { rng, w } = ctx;
  for (let t = from - rng.uniform(0, 600) * SECOND; t < to;) {
    const timeoutSeconds = rng.int(300, 599);
    const req = ctx.add({
      client,
      verb: 'watch',
      target,
      query: {
        allowWatchBookmarks: 'true',
        ...(fieldSelector ? { fieldSelector } : {}),
        resourceVersion: w.revisionAt(t - rng.uniform(0.5, 5) * SECOND),
        timeoutSeconds: String(timeoutSeconds),
        watch: 'true',
      },
      status: okStatus(),
      receivedUs: t,
      latencyUs: timeoutSeconds * SECOND + rng.uniform(0.1, 3) * MS,
      startedAfterUs: latencyUs(rng, 'watchStart'),
    });
    t = req.completedUs + rng.uniform(0.2, 5) * MS;
  }
}

/** Times of a Poisson process with the given mean gap (ms) over [from, to), µs. */
export function poisson(rng: Rng, meanGapMs: number, from: Micros, to: Micros): Micros[] {
  const times: Micros[] = [];
  for (let t = from + rng.exponential(meanGapMs) * MS; t < to; t += rng.exponential(meanGapMs) * MS) times.push(t);
  return times;
}

/**
 * Ticks of a fixed-period process over [from, to), µs: exactly ⌊(to − from) / period⌋ ticks, with
 * a random phase and up to `jitterMs` of jitter, each leaving room for the request to complete
 * before the next tick (so counts are exact, e.g. nodes × duration / 10 s node lease renewals).
 */
export function periodic(rng: Rng, periodMs: number, jitterMs: number, from: Micros, to: Micros): Micros[] {
  const count = Math.floor((to - from) / (periodMs * MS));
  const phase = rng.uniform(0, Math.max(0, periodMs - jitterMs - Math.min(100, periodMs / 4))) * MS;
  return Array.from({ length: count }, (_, k) => from + phase + k * periodMs * MS + rng.uniform(0, jitterMs) * MS);
}

/** `a.b.c.d` inside 10.244.0.0/16, the usual pod CIDR. */
function podIP(rng: Rng): string {
  return `10.244.${rng.int(0, 15)}.${rng.int(2, 254)}`;
}

/** One client per pod of an operator Deployment: same service account and user agent, own IP and pod. */
export function podClients(rng: Rng, op: OperatorParams, replicas: number): Client[] {
  const saUID = rng.uuid();
  const rsHash = rng.nameSuffix(rng.int(9, 10));
  const project = op.deployment.replace(/-controller-manager$/, ''); // kubebuilder names RBAC after the project
  const authzReason = rbacReason(`${project}-manager-rolebinding`, `${project}-manager-role`, `ServiceAccount "${op.serviceAccount}/${op.namespace}"`);
  return Array.from({ length: replicas }, () => ({
    user: serviceAccountUser(op.namespace, op.serviceAccount, saUID, { name: `${op.deployment}-${rsHash}-${rng.nameSuffix(5)}`, uid: rng.uuid() }),
    sourceIP: podIP(rng),
    userAgent: op.userAgent,
    authzReason,
  }));
}

/** A kube-system controller of kube-controller-manager, with its own service-account credentials. */
export function controllerClient(rng: Rng, sa: string): Client {
  return {
    user: serviceAccountUser('kube-system', sa, rng.uuid()),
    sourceIP: CONTROL_PLANE_IP,
    userAgent: userAgent('kube-controller-manager', K8S_VERSION, K8S_COMMIT, `system:serviceaccount:kube-system:${sa}`),
    authzReason: rbacReason(`system:controller:${sa}`, `system:controller:${sa}`, `ServiceAccount "${sa}/kube-system"`),
  };
}

/** A control-plane component authenticating as `system:<component>` with a user-agent suffix. */
export function componentClient(component: 'kube-controller-manager' | 'kube-scheduler', suffix: string): Client {
  return {
    user: { username: `system:${component}`, groups: ['system:authenticated'] },
    sourceIP: CONTROL_PLANE_IP,
    userAgent: userAgent(component, K8S_VERSION, K8S_COMMIT, suffix),
    authzReason: rbacReason(`system:${component}`, `system:${component}`, `User "system:${component}"`),
  };
}

/** A kubelet: `system:node:<name>` from its node IP (X.509, no authorization reason logged). */
export function kubeletClient(name: string, ip: string): Client {
  return { user: nodeUser(name), sourceIP: ip, userAgent: userAgent('kubelet', K8S_VERSION, K8S_COMMIT), authzReason: '' };
}

/** With `randomizeNames`: the scenario's randomized parameters from its own `names` stream; else nothing. */
export function randomized<P>(rng: Rng, params: CommonParams, draw: (names: Rng) => Partial<P>): Partial<P> {
  return params.randomizeNames ? draw(rng.fork('names')) : {};
}

/** A value for every scenario-specific parameter. */
export type Defaults<P> = Required<Omit<P, keyof CommonParams>>;

/** Parameters after defaults: `layers` applied left to right over `defaults`, undefined fields skipped. */
export function resolve<P extends CommonParams>(defaults: Defaults<P>, ...layers: Array<Partial<P>>): Defaults<P> & P {
  const out: Record<string, unknown> = { ...(defaults as object) };
  for (const layer of layers) for (const [k, v] of Object.entries(layer)) if (v !== undefined) out[k] = v;
  return out as Defaults<P> & P;
}
