/**
 * The normalized request record: the one type every detector and aggregate consumes.
 *
 * One `RequestRecord` stands for one API request, built from its final audit event
 * (`ResponseComplete`, or `Panic`). Strings that repeat across millions of events (actors,
 * objects) are interned: records share one `Actor` and one `ObjectRef` instance per distinct
 * value, so detectors may key maps by the instance or by its precomputed `key`.
 */

/** Service account identity parsed from `system:serviceaccount:<namespace>:<name>`. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/**
 * Who sent a request. Identity is `username` + `userAgent` (the field manager is per request,
 * see {@link RequestRecord.fieldManager}).
 *
 * The userAgent is split as client-go builds it (`kubernetes/client-go` `rest/config.go`,
 * `buildUserAgent`): `<product>/<version> (<os>/<arch>) kubernetes/<commit>[/<suffix>]`, where
 * the suffix is what `rest.AddUserAgent` appends, e.g. kube-controller-manager's
 * `/deployment-controller` or `/system:serviceaccount:kube-system:deployment-controller`, or
 * `/leader-election`.
 */
export interface Actor {
  /** `username + '\u0000' + userAgent`; stable, unique per actor. */
  readonly key: string;
  /** `user.username`; `''` when the event has none. */
  readonly username: string;
  /** Raw `userAgent`; `''` when absent. */
  readonly userAgent: string;
  /** userAgent product, e.g. `kube-controller-manager`, `manager`, `kubectl`; `''` if unknown. */
  readonly userAgentProduct: string;
  /** userAgent version, e.g. `v1.29.0`, `v0.0.0`; `''` if absent. */
  readonly userAgentVersion: string;
  /**
   * The suffix after `kubernetes/<commit>/`, e.g. `deployment-controller`, `leader-election`;
   * for `/system:serviceaccount:NS:NAME` suffixes the service-account name. `''` if none.
   */
  readonly controller: string;
  /** Set when `username` is `system:serviceaccount:NS:NAME`. */
  readonly serviceAccount: ServiceAccountRef | null;
  /**
   * Run state the engine caches on the interned value: its summaries' entry (`summaryMemo`) and
   * its allowlist rule mask (`allowMask`, valid for the allowlist `allowOwner`), each tagged with
   * the instance that owns it. Set at first use, so a record costs property reads where it cost
   * map lookups by key, and the mask is a field of the value itself, not an object of its own
   * (each object a record's path touches is a likely cache miss). Not part of the value: unset
   * until an engine counts a request of it; a second engine sharing the normalizer finds the tags
   * not its own and looks the value up again.
   */
  summaryMemo?: unknown;
  /** See {@link summaryMemo}. */
  allowOwner?: unknown;
  /** See {@link summaryMemo}. */
  allowMask?: number;
}

/**
 * The object a request addressed (`objectRef`), interned. For list/watch `name` may be `''`, and
 * for a create with `generateName` too, unless its response body is logged (RequestResponse
 * level): then `name` is the response's `metadata.name` (`Normalizer.normalize`). `apiGroup` is `''` for the core group.
 */
export interface ObjectRef {
  /** `apiGroup/resource/namespace/name/subresource` (empty parts kept), unique per object. */
  readonly key: string;
  readonly apiGroup: string;
  /** The `apiVersion` this record's request named (instances of one key may differ in it). */
  readonly apiVersion: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  /**
   * `resourceLabel` of the object (`labels.ts`): `resource[.apiGroup][/subresource]`, e.g.
   * `deployments.apps/status`; one shared string per distinct value, computed when interned.
   */
  readonly label: string;
  /**
   * Run state the engine caches on the interned value, as on {@link Actor.summaryMemo}: here the
   * hash of the object's key the summaries find it by (a function of the key alone).
   */
  summaryMemo?: unknown;
  /** See {@link Actor.summaryMemo}. */
  allowOwner?: unknown;
  /** See {@link Actor.summaryMemo}. */
  allowMask?: number;
}

/** Final stages: the stage at which a request is counted. */
export type FinalStage = 'ResponseComplete' | 'Panic';

/** A request, normalized from its final audit event. All times are UTC epoch milliseconds. */
export interface RequestRecord {
  /** `auditID` of the request (same across its stages). */
  readonly auditID: string;
  /** `stageTimestamp` of the final event, epoch ms (microseconds kept as the fraction). */
  readonly ts: number;
  /** `requestReceivedTimestamp`, epoch ms; equals `ts` when the event lacks it. */
  readonly receivedTs: number;
  /**
   * `ts - receivedTs` in ms, or `-1` for long-running requests (watch, proxy, and the
   * attach/exec/log/portforward/proxy subresources: kube-apiserver's
   * `BasicLongRunningRequestCheck`, `kubernetes/apiserver` `pkg/server/filters/longrunning.go`).
   */
  readonly latencyMs: number;
  readonly stage: FinalStage;
  /** Kubernetes verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, …). */
  readonly verb: string;
  /** True for create, update, patch, delete, deletecollection that are not dry-run. */
  readonly isWrite: boolean;
  /** True when the requestURI carries `dryRun=All` (nothing was persisted). */
  readonly dryRun: boolean;
  readonly actor: Actor;
  /** `null` for non-resource requests (`/healthz`, `/metrics`, discovery): totals only. */
  readonly object: ObjectRef | null;
  /** `responseStatus.code`; `0` when absent. */
  readonly code: number;
  /** `responseStatus.reason` (e.g. `Conflict`, `AlreadyExists`); `''` when absent. */
  readonly reason: string;
  /** `objectRef.resourceVersion`: for update, the precondition RV the client sent; `''` if none. */
  readonly resourceVersion: string;
  /** `fieldManager` query parameter of the requestURI; `''` if none. */
  readonly fieldManager: string;
  /** First of `sourceIPs` (the client as the first hop saw it); `''` if none. */
  readonly sourceIP: string;
  /** `level` of the event: `Metadata`, `Request`, `RequestResponse`. */
  readonly level: string;
  /**
   * `responseObject.metadata.resourceVersion` when the response body is logged
   * (RequestResponse level); `''` otherwise. For an update, equal to `resourceVersion` means
   * the write changed nothing (`kubernetes/apiserver` `pkg/storage/etcd3/store.go`
   * `GuaranteedUpdate` skips byte-identical writes and returns the old resourceVersion).
   */
  readonly responseResourceVersion: string;
  /** Digest of the request body of an update/patch logged at Request level or above; else null. */
  readonly body: BodyDigest | null;
  /**
   * The auditID's hash as request de-duplication keys it (`idLanes` in `hash.ts`): two int32
   * lanes, computed where the record is made (by the native scanner from the line's bytes, on a
   * parser thread) so the reading thread does not hash every auditID again. Both 0: not computed
   * (records made by hand); the de-duplication then hashes the auditID itself.
   */
  readonly idLaneA: number;
  /** See {@link idLaneA}. */
  readonly idLaneB: number;
}

/**
 * What a write's request body says, without keeping the body (it may hold secrets): a hash of
 * its content with volatile fields removed, and a hash of the timestamp fields that were removed.
 * Two writes with equal `content` and different `timestamps` differ only in timestamps.
 */
export interface BodyDigest {
  /** Hash of `requestObject` without resourceVersion, managedFields and timestamp fields. */
  readonly content: string;
  /** Hash of the removed timestamp fields' values (`lastTransitionTime`, `lastUpdateTime`, …). */
  readonly timestamps: string;
  /** Sorted, de-duplicated names of the timestamp fields present (interned array). */
  readonly timestampFields: readonly string[];
}

/** Verbs that change state. Source: `kubernetes/apiserver` `pkg/endpoints/request/requestinfo.go`. */
export const WRITE_VERBS: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** True when a record is a 409 whose reason is `Conflict` (or unknown: `errors.IsConflict`). */
export function isConflict(r: Pick<RequestRecord, 'code' | 'reason'>): boolean {
  return r.code === 409 && r.reason !== 'AlreadyExists';
}
