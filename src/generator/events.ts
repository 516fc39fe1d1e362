/**
 * Builders for realistic `audit.k8s.io/v1` Events, and their serialization.
 *
 * A {@link Request} is one API request (one auditID); {@link renderEvent} turns it into the JSON
 * line of one stage. Key order follows the Go struct order that kube-apiserver's JSON encoder
 * writes (`kubernetes/apiserver` `pkg/apis/audit/v1/types.go`; see
 * `/work/shared/reference/audit-formats.md` §1.1 and the §1.7 example line), and map-valued
 * fields (`annotations`, `user.extra`) have sorted keys, as Go's `encoding/json` sorts map keys.
 *
 * Times are integer microseconds since the Unix epoch (UTC) throughout the generator; audit
 * timestamps are `metav1.MicroTime` (`2006-01-02T15:04:05.000000Z`).
 */
import type { Rng } from './random.js';

/** Microseconds since the Unix epoch, UTC; always an integer. */
export type Micros = number;

/** Audit level of an event (`None` never produces an event). */
export type Level = 'Metadata' | 'Request' | 'RequestResponse';

/** Stages the generator writes (`Panic` is never generated). */
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete';

/** `authentication/v1.UserInfo`; every field but `username` is omitted when absent. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** A client process: who it authenticates as, where it connects from, how it identifies itself. */
export interface Client {
  user: UserInfo;
  /** The single entry of `sourceIPs`. */
  sourceIP: string;
  userAgent: string;
  /** Value of the `authorization.k8s.io/reason` annotation for this client's requests. */
  authzReason: string;
}

/**
 * What a resource request addresses, URL-shaped. Empty strings mean absent: `apiGroup: ''` is the
 * core group, `namespace: ''` a cluster-scoped resource, `name: ''` a collection.
 */
export interface Target {
  apiGroup: string;
  apiVersion: string;
  resource: string;
  namespace: string;
  name: string;
  subresource: string;
}

/** The `objectRef` of an event, keys in serialization order; absent fields are omitted. */
export interface ObjectRef {
  resource: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion: string;
  resourceVersion?: string;
  subresource?: string;
}

/** `metav1.StatusDetails` as audit copies it (`name`, `group`, `kind`); `kind` holds the resource. */
export interface StatusDetails {
  name: string;
  group?: string;
  kind: string;
}

/** `responseStatus`: the fields of `metav1.Status` that audit copies, in serialization order. */
export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** One planned API request; every stage event of it shares `auditID`. */
export interface Request {
  auditID: string;
  verb: string;
  requestURI: string;
  level: Level;
  client: Client;
  /** `objectRef` as logged at ResponseComplete; absent for non-resource requests (`/apis`, `/healthz`). */
  objectRef?: ObjectRef;
  /** Final status (ResponseComplete). */
  responseStatus: ResponseStatus;
  /** Only logged at Request level and above, at ResponseComplete. */
  requestObject?: unknown;
  /** Only logged at RequestResponse level, at ResponseComplete. */
  responseObject?: unknown;
  /** Annotations at ResponseStarted / ResponseComplete; absent for 429s (authorization never ran). */
  annotations?: Record<string, string>;
  receivedUs: Micros;
  /** Long-running requests (watches) only: when the headers were written. */
  startedUs?: Micros;
  completedUs: Micros;
}

/** How a {@link buildRequest} call describes a request. */
export interface RequestSpec {
  client: Client;
  verb: string;
  /** Resource requests: what is addressed. Omit for non-resource requests and give `path`. */
  target?: Target;
  /** Non-resource request path, e.g. `/apis`. */
  path?: string;
  /** Query parameters; encoded in sorted key order as client-go's `url.Values.Encode` does. */
  query?: Record<string, string>;
  status: ResponseStatus;
  receivedUs: Micros;
  /** Time from received to ResponseComplete, µs. */
  latencyUs: Micros;
  /** Long-running only: time from received to ResponseStarted, µs. */
  startedAfterUs?: Micros;
  /** `objectRef.uid`, logged only for bodies that carry it (update). */
  uid?: string;
  /** `objectRef.resourceVersion`: the precondition RV the client sent (update only). */
  resourceVersion?: string;
  level?: Level;
  requestObject?: unknown;
  responseObject?: unknown;
}

/**
 * A client-go user agent: `<product>/<version> (linux/amd64) kubernetes/<commit>[/<suffix>]`
 * (`kubernetes/client-go` `rest/config.go`, `buildUserAgent` and `AddUserAgent`).
 */
export function userAgent(product: string, version: string, commit: string, suffix = ''): string {
  return `${product}/${version} (linux/amd64) kubernetes/${commit}${suffix ? `/${suffix}` : ''}`;
}

/** A kubelet's identity: `system:node:<name>` in `system:nodes` (X.509 client cert, so no uid). */
export function nodeUser(nodeName: string): UserInfo {
  return { username: `system:node:${nodeName}`, groups: ['system:nodes', 'system:authenticated'] };
}

/**
 * A service account's identity. With `pod`, the token is pod-bound and `extra` carries the pod
 * name and uid (`authentication.kubernetes.io/pod-name`, `…/pod-uid`), as in real audit logs.
 */
export function serviceAccountUser(namespace: string, name: string, uid: string, pod?: { name: string; uid: string }): UserInfo {
  const user: UserInfo = {
    username: `system:serviceaccount:${namespace}:${name}`,
    uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
  if (pod) {
    user.extra = {
      'authentication.kubernetes.io/pod-name': [pod.name],
      'authentication.kubernetes.io/pod-uid': [pod.uid],
    };
  }
  return user;
}

/**
 * The RBAC authorizer's reason string, e.g.
 * `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to ServiceAccount "sa/ns"`.
 * `binding` is `name` for a ClusterRoleBinding and `name/namespace` for a RoleBinding.
 */
export function rbacReason(binding: string, role: string, subject: string, namespaced = false): string {
  const [bindingKind, roleKind] = namespaced ? ['RoleBinding', 'Role'] : ['ClusterRoleBinding', 'ClusterRole'];
  return `RBAC: allowed by ${bindingKind} "${binding}" of ${roleKind} "${role}" to ${subject}`;
}

/** `resource[.group]`, the qualified resource used in API error messages. */
export function qualifiedResource(t: Pick<Target, 'resource' | 'apiGroup'>): string {
  return t.apiGroup ? `${t.resource}.${t.apiGroup}` : t.resource;
}

/** A success status: `{"metadata":{},"code":200}` (only `code` is set for object responses). */
export function okStatus(code = 200): ResponseStatus {
  return { metadata: {}, code };
}

function failure(t: Target, code: number, reason: string, message: string): ResponseStatus {
  const details: StatusDetails = t.apiGroup ? { name: t.name, group: t.apiGroup, kind: t.resource } : { name: t.name, kind: t.resource };
  return { metadata: {}, status: 'Failure', message, reason, details, code };
}

/**
 * 409 Conflict from an optimistic-lock failure (`OptimisticLockErrorMsg`,
 * `kubernetes/apiserver` `pkg/registry/generic/registry/store.go`; `details.kind` is the resource).
 */
export function conflictStatus(t: Target): ResponseStatus {
  const message =
    `Operation cannot be fulfilled on ${qualifiedResource(t)} "${t.name}": the object has been modified; ` + 'please apply your changes to the latest version and try again';
  return failure(t, 409, 'Conflict', message);
}

/** 409 AlreadyExists from a create of an existing name (`kubernetes/apimachinery` `pkg/api/errors`). */
export function alreadyExistsStatus(t: Target): ResponseStatus {
  return failure(t, 409, 'AlreadyExists', `${qualifiedResource(t)} "${t.name}" already exists`);
}

/** 404 NotFound. */
export function notFoundStatus(t: Target): ResponseStatus {
  return failure(t, 404, 'NotFound', `${qualifiedResource(t)} "${t.name}" not found`);
}

/**
 * 429 from API Priority and Fairness: written with `http.Error`, so no Status body and only
 * `{"metadata":{},"code":429}` (`kubernetes/apiserver` `pkg/server/filters/priority-and-fairness.go`).
 */
export function tooManyRequestsStatus(): ResponseStatus {
  return { metadata: {}, code: 429 };
}

const NO_NAME_IN_URL = new Set(['create', 'list', 'watch', 'deletecollection']);

/**
 * The request path plus query for a resource request: core `/api/v1/...`, groups
 * `/apis/<group>/<version>/...`, `namespaces/<ns>/` unless cluster-scoped, the name unless the
 * verb addresses a collection, then the subresource.
 */
export function requestURI(verb: string, t: Target, query?: Record<string, string>): string {
  let path = t.apiGroup ? `/apis/${t.apiGroup}/${t.apiVersion}` : `/api/${t.apiVersion}`;
  if (t.namespace && t.resource !== 'namespaces') path += `/namespaces/${t.namespace}`;
  path += `/${t.resource}`;
  if (t.name && (t.subresource || !NO_NAME_IN_URL.has(verb))) path += `/${t.name}`;
  if (t.subresource) path += `/${t.subresource}`;
  return path + encodeQuery(query);
}

function encodeQuery(query?: Record<string, string>): string {
  if (!query) return '';
  const keys = Object.keys(query).sort();
  if (keys.length === 0) return '';
  return '?' + keys.map((k) => `${k}=${encodeURIComponent(query[k] ?? '')}`).join('&');
}

function buildObjectRef(t: Target, uid?: string, resourceVersion?: string): ObjectRef {
  // Serialization order, empty fields dropped.
  return {
    resource: t.resource,
    ...(t.namespace ? { namespace: t.namespace } : {}),
    ...(t.name ? { name: t.name } : {}),
    ...(uid ? { uid } : {}),
    ...(t.apiGroup ? { apiGroup: t.apiGroup } : {}),
    apiVersion: t.apiVersion,
    ...(resourceVersion ? { resourceVersion } : {}),
    ...(t.subresource ? { subresource: t.subresource } : {}),
  };
}

/**
 * Go's `time.Duration.String()` for a duration in µs (`512.345ms`, `1.2s`, `87µs`), the format of
 * the `apiserver.latency.k8s.io/*` annotations.
 */
export function goDuration(us: Micros): string {
  const trim = (x: number, digits: number): string => x.toFixed(digits).replace(/\.?0+$/, '');
  if (us >= 1_000_000) return `${trim(us / 1_000_000, 6)}s`;
  if (us >= 1000) return `${trim(us / 1000, 3)}ms`;
  return `${us}µs`;
}

/**
 * Annotations of the final stage: the authorization decision and reason, plus the latency
 * breakdown that kube-apiserver adds only when total latency exceeds 500 ms (since 1.24,
 * `pkg/endpoints/filters/audit.go` `writeLatencyToAnnotation`). 429s get none: APF rejects before
 * authorization runs. Keys are sorted, as Go serializes maps.
 */
function finalAnnotations(spec: RequestSpec): Record<string, string> | undefined {
  if (spec.status.code === 429) return undefined;
  const annotations: Record<string, string> = {};
  if (spec.verb !== 'watch' && spec.latencyUs > 500_000) {
    annotations['apiserver.latency.k8s.io/etcd'] = goDuration(Math.round(spec.latencyUs * 0.83));
    annotations['apiserver.latency.k8s.io/serialize-response-object'] = goDuration(Math.round(spec.latencyUs * 0.12));
    annotations['apiserver.latency.k8s.io/total'] = goDuration(spec.latencyUs);
  }
  annotations['authorization.k8s.io/decision'] = 'allow';
  annotations['authorization.k8s.io/reason'] = spec.client.authzReason;
  return annotations;
}

/** Turn a {@link RequestSpec} into a {@link Request}, drawing its auditID from `rng`. */
export function buildRequest(rng: Rng, spec: RequestSpec): Request {
  const receivedUs = Math.round(spec.receivedUs);
  const latencyUs = Math.max(1, Math.round(spec.latencyUs));
  const req: Request = {
    auditID: rng.uuid(),
    verb: spec.verb,
    requestURI: spec.target ? requestURI(spec.verb, spec.target, spec.query) : (spec.path ?? '/') + encodeQuery(spec.query),
    level: spec.level ?? 'Metadata',
    client: spec.client,
    responseStatus: spec.status,
    receivedUs,
    completedUs: receivedUs + latencyUs,
  };
  if (spec.target) req.objectRef = buildObjectRef(spec.target, spec.uid, spec.resourceVersion);
  if (spec.startedAfterUs !== undefined) req.startedUs = receivedUs + Math.max(1, Math.round(spec.startedAfterUs));
  if (req.level !== 'Metadata' && spec.requestObject !== undefined) req.requestObject = spec.requestObject;
  if (req.level === 'RequestResponse' && spec.responseObject !== undefined) req.responseObject = spec.responseObject;
  const annotations = finalAnnotations({ ...spec, latencyUs });
  if (annotations) req.annotations = annotations;
  return req;
}

/** `metav1.MicroTime` JSON: `2006-01-02T15:04:05.000000Z`, always UTC with six fractional digits. */
export function microTime(us: Micros): string {
  const ms = Math.floor(us / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(us - ms * 1000).padStart(3, '0')}Z`;
}

/** True for requests kube-apiserver treats as long-running (of those generated: watches). */
export function isLongRunning(req: Request): boolean {
  return req.startedUs !== undefined;
}

/** The stages of a request with their emission times: 2 for normal requests, 3 for watches. */
export function stagesOf(req: Request): Array<{ stage: Stage; atUs: Micros }> {
  const stages: Array<{ stage: Stage; atUs: Micros }> = [{ stage: 'RequestReceived', atUs: req.receivedUs }];
  if (req.startedUs !== undefined) stages.push({ stage: 'ResponseStarted', atUs: req.startedUs });
  stages.push({ stage: 'ResponseComplete', atUs: req.completedUs });
  return stages;
}

/**
 * The objectRef a RequestReceived event carries: only URL-derived fields. uid and
 * resourceVersion come from the decoded body, and so does a create's name (audit §1.1,
 * `pkg/audit/request.go` `LogRequestObject`).
 */
function urlObjectRef(req: Request, ref: ObjectRef): ObjectRef {
  const { uid: _uid, resourceVersion: _rv, ...rest } = ref;
  if (req.verb === 'create' && !ref.subresource) delete rest.name;
  return rest;
}

/** Serialize one stage of a request as the single JSON line the log backend writes (no newline). */
export function renderEvent(req: Request, stage: Stage): string {
  const received = stage === 'RequestReceived';
  const final = stage === 'ResponseComplete';
  const stageUs = received ? req.receivedUs : final ? req.completedUs : (req.startedUs ?? req.receivedUs);
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: req.level,
    auditID: req.auditID,
    stage,
    requestURI: req.requestURI,
    verb: req.verb,
    user: req.client.user,
    sourceIPs: [req.client.sourceIP],
    userAgent: req.client.userAgent,
    objectRef: req.objectRef && received ? urlObjectRef(req, req.objectRef) : req.objectRef,
    responseStatus: received ? undefined : final ? req.responseStatus : okStatus(200),
    requestObject: final ? req.requestObject : undefined,
    responseObject: final ? req.responseObject : undefined,
    requestReceivedTimestamp: microTime(req.receivedUs),
    stageTimestamp: microTime(stageUs),
    annotations: received ? undefined : req.annotations,
  });
}
