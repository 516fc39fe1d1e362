/**
 * The audit Event as auditstorm reads it: the validated subset of an `audit.k8s.io/v1` Event
 * (`kubernetes/apiserver` `pkg/apis/audit/v1/types.go`; reference `audit-formats.md` §1), which
 * `decodeLine` of `decode.ts` returns.
 */
/** Audit stages (`pkg/apis/audit/v1/types.go`); see reference §1.3 for when each is emitted. */
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

/** `user` (`authentication/v1.UserInfo`): only the field used. */
export interface AuditUser {
  username?: string;
}

/**
 * `objectRef` (`ObjectReference`); every field is optional. After `decodeLine`, a v1alpha1
 * `apiVersion` of `group/version` has been split into `apiGroup` and `apiVersion`.
 */
export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  /** `''` or absent for the core group. */
  apiGroup?: string;
  /** Version only, e.g. `v1`. */
  apiVersion?: string;
  /** The RV in the request body (for update: the precondition the client sent). */
  resourceVersion?: string;
  subresource?: string;
}

/** `responseStatus` (a subset of `metav1.Status`). */
export interface AuditResponseStatus {
  /** HTTP status code. */
  code?: number;
  /** Status reason, e.g. `Conflict`, `AlreadyExists`. */
  reason?: string;
}

/**
 * The subset of an `audit.k8s.io/v1` Event that auditstorm reads, as returned by
 * `decodeLine`. The listed types are checked; other JSON fields are left as parsed. `null`
 * in an optional object field is treated as absent. v1beta1/v1alpha1 events are presented in v1
 * form (see `stageTimeMs`, `receivedTimeMs`, {@link AuditObjectRef}).
 */
export interface AuditEvent {
  /** `Event` or absent (Falco samples carry no `kind`/`apiVersion`). */
  kind?: string;
  /** `audit.k8s.io/v1`, `…/v1beta1`, `…/v1alpha1`, or absent. */
  apiVersion?: string;
  /** `None`, `Metadata`, `Request`, `RequestResponse`. */
  level?: string;
  /** Request id, shared by all stages of one request. */
  auditID: string;
  stage: AuditStage;
  /** Path plus raw query, as the client sent it. */
  requestURI: string;
  /** Kubernetes verb; for non-resource requests the lower-cased HTTP method. */
  verb: string;
  user?: AuditUser | null;
  /** Only `sourceIPs[0]` is checked to be a string. */
  sourceIPs?: string[] | null;
  userAgent?: string;
  /** Absent for non-resource requests. */
  objectRef?: AuditObjectRef | null;
  responseStatus?: AuditResponseStatus | null;
  requestReceivedTimestamp?: string | null;
  stageTimestamp?: string | null;
  /**
   * The request body (`runtime.Unknown`: embedded JSON), at `Request` level and above, final
   * stages only; `null` when truncated (reference §1.1, §1.6). Not validated here: read only by
   * the normalizer for update/patch, which digests it (`body.ts`) and drops it.
   */
  requestObject?: unknown;
  /** The response body, at `RequestResponse` level only (reference §1.2). Not validated. */
  responseObject?: unknown;
  /**
   * Not in the JSON: set by `decodeLine`. UTC epoch ms (µs as the fraction) of
   * `stageTimestamp`, else v1beta1 `metadata.creationTimestamp`, else `timestamp`.
   */
  stageTimeMs: number;
  /**
   * Not in the JSON: set by `decodeLine`. UTC epoch ms of `requestReceivedTimestamp`, else
   * v1beta1 `timestamp`, else equal to `stageTimeMs`.
   */
  receivedTimeMs: number;
  /**
   * Not in the JSON: true when the event was read leniently from the prefix of a message cut by
   * CloudWatch (`[Truncated...]`, `unwrap.ts` `decodeTruncated`): no bodies, annotations or
   * fields after the cut.
   */
  truncated?: boolean;
}
