/**
 * Audit events inside the wrappers that collectors and managed clusters put around them
 * (reference `audit-formats.md` §1.6, §6.2–§6.4; samples in `shared/corpus/public`).
 *
 * {@link unwrapValue} takes one parsed JSON (or YAML) value and, if it is a known wrapper, returns
 * the audit events in it, each validated by `decodeLine` exactly as a JSON line would be. A bare
 * Event is not a wrapper (`null`: it is `decodeLine`'s job).
 *
 * | shape | accepted values |
 * | --- | --- |
 * | `eventlist` | `{kind: "EventList", items: [Event…]}` (webhook batches) |
 * | `gke` | a Cloud Logging `LogEntry` whose `protoPayload` is an AuditLog of `serviceName: k8s.io`; entries of other services are skipped |
 * | `eks` | a CloudWatch Logs event `{message, timestamp, …}`; `{events: […]}` (FilterLogEvents / GetLogEvents); a subscription record `{messageType, logEvents: […]}` (`CONTROL_MESSAGE` → nothing); `{awslogs: {data}}` (a Lambda event); a Logs Insights row `{"@message"}` |
 * | `aks` | `{records: [record…]}` (Event Hub, storage) or one record `{category, properties: {log}}` (`log` a JSON string or object); an AzureDiagnostics row `{Category, log_s}`. Only `kube-audit` and `kube-audit-admin` are read; other categories are skipped |
 * | `viaq` | an OpenShift Logging ViaQ record: the Event's fields plus `k8s_audit_level`, `@timestamp`, `hostname`, `log_type`, `openshift`, … |
 * | `otlp` | `{resourceLogs: [{scopeLogs: [{logRecords: [{body: {stringValue: "<Event JSON>"}}]}]}]}`, or one log record `{timeUnixNano, body: {stringValue}, attributes}`; records whose `openshift.log.type`/`log_type` attribute is not `audit` are skipped |
 *
 * GKE mapping (reference §6.2; `falcosecurity/plugins` k8saudit-gke does the same): verb = last
 * `.`-segment of `methodName`; `resourceName` `<group|core>/<version>/…` → `requestURI` in API form
 * (`/api/v1/…`, `/apis/<g>/<v>/…`; a create's URI is the collection, its name stays in
 * `objectRef`) and `objectRef` as RequestInfo derives it; other resourceNames (`readyz`) are
 * non-resource paths with no objectRef and no bodies; `principalEmail` → `user.username`;
 * `callerIp` → `sourceIPs[0]`; `callerSuppliedUserAgent` → `userAgent`; `labels` → `annotations`;
 * `operation.id` (else `insertId`) → `auditID`; `timestamp` → both `stageTimestamp` and
 * `requestReceivedTimestamp` (GKE has no received time: latency 0); stage `ResponseComplete`, or
 * `ResponseStarted` when `operation.last === false` (the first entry of a long-running request);
 * status from `response` when it is a Kubernetes Status, else gRPC `status.code` → HTTP (0 → 200,
 * 201 for create; table in `GRPC_TO_HTTP`) with the reason taken from `status.message` when that
 * is a `metav1.StatusReason`, or `AlreadyExists` for gRPC 6 on a create (gRPC 6 on another verb,
 * and gRPC 10, stay a reason-less 409: `errors.IsConflict` semantics); `request`/`response` bodies (without `@type`) → requestObject /
 * responseObject, and level = `RequestResponse` / `Request` / `Metadata` by which are present; a
 * non-patch request body fills `objectRef.uid`/`resourceVersion` as `LogRequestObject` does.
 *
 * Counting: `events` decoded; `bad` one reason per item that should have held an event and did
 * not; `truncated` CloudWatch messages cut at `[Truncated...]` (not bad: CloudWatch cut them);
 * `skipped` items that are legitimately not audit events (other AKS categories, other GKE
 * services, OTLP records of other log types, CloudWatch control messages).
 */
import { gunzipSync } from 'node:zlib';
import { decodeLine, decodeObject, type DecodeResult } from './decode.js';
import type { AuditEvent, AuditObjectRef } from './event.js';
import { parseTimestamp } from './time.js';
import { objectRefFromURI } from './uri.js';

/** Shape names returned in {@link UnwrapResult.shape}. */
export type WrapperShape = 'eventlist' | 'gke' | 'eks' | 'aks' | 'viaq' | 'otlp';

/** What {@link unwrapValue} found in a wrapper. */
export interface UnwrapResult {
  shape: WrapperShape;
  /** Validated events, in document order. */
  events: AuditEvent[];
  /** One reason per item that is not a valid event (for the bad-line report). */
  bad: string[];
  /** CloudWatch messages cut at `[Truncated...]` (EKS): not malformed input. */
  truncated: number;
  /** Of `truncated`, the messages read leniently from their prefix (their events are in `events`). */
  truncatedRead: number;
  /** Items that are not audit events by design: other categories, services, log types. */
  skipped: number;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const CLOUDWATCH_TRUNCATED = '[Truncated...]';

function result(shape: WrapperShape): UnwrapResult {
  return { shape, events: [], bad: [], truncated: 0, truncatedRead: 0, skipped: 0 };
}

/** Adds one decode outcome to `r`, prefixing a bad reason with where it was. */
function add(r: UnwrapResult, d: DecodeResult, where: string): void {
  if (d.ok) r.events.push(d.event);
  else r.bad.push(`${where}: ${d.reason}`);
}

/**
 * Validates an already-parsed event object by `decodeLine`'s checks (`decodeObject`); the object
 * is completed in place (`stageTimeMs`, `receivedTimeMs`) and becomes the event.
 */
export function decodeEventValue(value: unknown): DecodeResult {
  return decodeObject(value);
}

// ---------------------------------------------------------------------------------------------
// EventList

function unwrapEventList(o: Json, at: number): UnwrapResult {
  const r = result('eventlist');
  const items = o.items;
  if (items === undefined || items === null) return r; // an empty list omits items
  if (!Array.isArray(items)) {
    r.bad.push('EventList: items is not an array');
    return r;
  }
  items.forEach((item, i) => add(r, decodeEventValue(item), `EventList items[${i + at}]`));
  return r;
}

// ---------------------------------------------------------------------------------------------
// GKE

const AUDIT_LOG_TYPE = 'type.googleapis.com/google.cloud.audit.AuditLog';

/**
 * gRPC status code → HTTP status, as `google.rpc.Code` documents the mapping (reference §6.2).
 * 0 (OK) is handled by the caller (200, or 201 for create).
 */
const GRPC_TO_HTTP: ReadonlyMap<number, number> = new Map([
  [1, 499], // CANCELLED
  [2, 500], // UNKNOWN
  [3, 400], // INVALID_ARGUMENT
  [4, 504], // DEADLINE_EXCEEDED
  [5, 404], // NOT_FOUND
  [6, 409], // ALREADY_EXISTS
  [7, 403], // PERMISSION_DENIED
  [8, 429], // RESOURCE_EXHAUSTED
  [9, 400], // FAILED_PRECONDITION
  [10, 409], // ABORTED
  [11, 400], // OUT_OF_RANGE
  [12, 501], // UNIMPLEMENTED
  [13, 500], // INTERNAL
  [14, 503], // UNAVAILABLE
  [15, 500], // DATA_LOSS
  [16, 401], // UNAUTHENTICATED
]);

/** `metav1.StatusReason` values (`kubernetes/apimachinery` `pkg/apis/meta/v1/types.go`). */
const STATUS_REASONS: ReadonlySet<string> = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

function isStatus(v: unknown): v is Json {
  if (!isObject(v)) return false;
  const type = v['@type'];
  return v.kind === 'Status' || (typeof type === 'string' && type.endsWith('/v1.Status'));
}

/** A body without GKE's `@type` key (what kube-apiserver logged as requestObject/responseObject). */
function withoutType(v: Json): Json {
  if (!('@type' in v)) return v;
  const { ['@type']: _type, ...rest } = v;
  return rest;
}

/** Built-in API groups without a dot (every other group, CRDs included, has one). */
const DOTLESS_GROUPS: ReadonlySet<string> = new Set(['apps', 'autoscaling', 'batch', 'extensions', 'policy']);

/**
 * `resourceName` → request path. Resource form `<group or core>/<version>/<rest…>` (a group that
 * is `core`, has a dot, or is a dot-less built-in; version `v<N>[alpha|beta<M>]`) becomes `/api/<version>/<rest>` or `/apis/<group>/<version>/<rest>`;
 * anything else (`readyz`, `HNAP1`, `apis/apps/v1`) is a non-resource path `/<resourceName>`.
 */
function pathFromResourceName(resourceName: string): { path: string; isResource: boolean } {
  const name = resourceName.replace(/^\/+/, '');
  const parts = name.split('/');
  const group = parts[0] ?? '';
  const groupLike = group === 'core' || group.includes('.') || DOTLESS_GROUPS.has(group);
  if (parts.length >= 3 && groupLike && /^v\d+((alpha|beta)\d+)?$/.test(parts[1] ?? '')) {
    const [, version, ...rest] = parts;
    const base = group === 'core' || group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    return { path: `${base}/${rest.join('/')}`, isResource: true };
  }
  return { path: `/${name}`, isResource: false };
}

/** The Kubernetes status of a GKE entry: `response` if it is a Status, else the gRPC code. */
function gkeStatus(p: Json, verb: string): { code: number; reason?: string } | string {
  const response = p.response;
  if (isStatus(response) && typeof response.code === 'number') {
    return typeof response.reason === 'string' && response.reason !== '' ? { code: response.code, reason: response.reason } : { code: response.code };
  }
  const status = p.status;
  let grpc = 0;
  let message: unknown;
  if (isObject(status)) {
    if (status.code !== undefined && typeof status.code !== 'number') return 'protoPayload.status.code is not a number';
    grpc = status.code ?? 0;
    message = status.message;
  } else if (status !== undefined && status !== null) {
    return 'protoPayload.status is not an object';
  }
  if (grpc === 0) return { code: verb === 'create' ? 201 : 200 };
  const code = GRPC_TO_HTTP.get(grpc) ?? 500;
  // GKE's status.message carries the Kubernetes reason in the samples ("Forbidden"); trust it only
  // when it is one. Which gRPC code GKE gives a 409 is unverified (reference §6.2: 6 and 10 both
  // map to 409), so ALREADY_EXISTS (6) names the reason only for a create (the only verb that can
  // be AlreadyExists); on any other verb a 409 stays reason-less, which client-go's
  // `errors.IsConflict` (and the detectors) treat as a Conflict.
  if (typeof message === 'string' && STATUS_REASONS.has(message)) return { code, reason: message };
  if (grpc === 6 && verb === 'create') return { code, reason: 'AlreadyExists' };
  return { code };
}

/** One GKE LogEntry → an audit event (mapping in the module comment); `'skip'` for other services. */
function gkeEvent(o: Json, p: Json): DecodeResult | 'skip' {
  if (p.serviceName !== 'k8s.io') return 'skip';
  const methodName = p.methodName;
  if (typeof methodName !== 'string' || methodName === '') return { ok: false, reason: 'no protoPayload.methodName' };
  const verb = methodName.slice(methodName.lastIndexOf('.') + 1);
  const resourceName = typeof p.resourceName === 'string' ? p.resourceName : '';
  const operation = isObject(o.operation) ? o.operation : undefined;
  const auditID = typeof operation?.id === 'string' && operation.id !== '' ? operation.id : o.insertId;
  if (typeof auditID !== 'string' || auditID === '') return { ok: false, reason: 'no operation.id or insertId' };
  const timestamp = o.timestamp;
  if (typeof timestamp !== 'string' || Number.isNaN(parseTimestamp(timestamp))) {
    return { ok: false, reason: 'timestamp is not an RFC 3339 time' };
  }
  const status = gkeStatus(p, verb);
  if (typeof status === 'string') return { ok: false, reason: status };

  const { path, isResource } = pathFromResourceName(resourceName);
  let requestURI = path;
  let objectRef: AuditObjectRef | null = null;
  if (isResource) {
    objectRef = objectRefFromURI(path, verb);
    // A create is POSTed to the collection; GKE's resourceName names the created object.
    if (verb === 'create' && objectRef?.name !== undefined && objectRef.subresource === undefined) {
      requestURI = path.slice(0, path.lastIndexOf('/'));
    }
  }

  // Bodies are never logged for non-resource requests (reference §3); GKE may attach one anyway.
  const request = objectRef !== null && isObject(p.request) ? p.request : undefined;
  const response = objectRef !== null && isObject(p.response) && !isStatus(p.response) ? p.response : undefined;
  // Like `LogRequestObject`, an object body fills uid and resourceVersion (not a patch body).
  if (objectRef !== null && request !== undefined && request['@type'] !== 'k8s.io/Patch' && isObject(request.metadata)) {
    const { uid, resourceVersion } = request.metadata;
    if (typeof uid === 'string' && uid !== '') objectRef.uid = uid;
    if (typeof resourceVersion === 'string' && resourceVersion !== '') objectRef.resourceVersion = resourceVersion;
  }
  const level = response !== undefined ? 'RequestResponse' : request !== undefined ? 'Request' : 'Metadata';
  const ev: Json = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level,
    auditID,
    stage: operation?.last === false ? 'ResponseStarted' : 'ResponseComplete',
    requestURI,
    verb,
  };
  const auth = p.authenticationInfo;
  if (isObject(auth) && typeof auth.principalEmail === 'string') ev.user = { username: auth.principalEmail };
  const meta = isObject(p.requestMetadata) ? p.requestMetadata : undefined;
  if (typeof meta?.callerIp === 'string' && meta.callerIp !== '') ev.sourceIPs = [meta.callerIp];
  if (typeof meta?.callerSuppliedUserAgent === 'string') ev.userAgent = meta.callerSuppliedUserAgent;
  if (objectRef !== null) ev.objectRef = objectRef;
  ev.responseStatus = { metadata: {}, ...status };
  if (request !== undefined) ev.requestObject = withoutType(request);
  if (response !== undefined) ev.responseObject = withoutType(response);
  ev.requestReceivedTimestamp = timestamp;
  ev.stageTimestamp = timestamp;
  if (isObject(o.labels)) ev.annotations = o.labels;
  return decodeEventValue(ev);
}

function isGke(o: Json): o is Json & { protoPayload: Json } {
  const p = o.protoPayload;
  return isObject(p) && (p['@type'] === AUDIT_LOG_TYPE || p.serviceName === 'k8s.io');
}

function unwrapGke(o: Json & { protoPayload: Json }): UnwrapResult {
  const r = result('gke');
  const d = gkeEvent(o, o.protoPayload);
  if (d === 'skip') r.skipped++;
  else add(r, d, 'GKE entry');
  return r;
}

// ---------------------------------------------------------------------------------------------
// EKS

/** `<RFC 3339 time> <message>` (S3 exports of CloudWatch Logs): the message; else `text`. */
function stripTimePrefix(text: string): string {
  const space = text.indexOf(' ');
  if (space < 20 || space > 40 || text[0] === '{') return text;
  return Number.isNaN(parseTimestamp(text.slice(0, space))) ? text : text.slice(space + 1);
}

/** One CloudWatch message (event JSON, possibly cut or time-prefixed) into `r`; `ts` the CloudWatch event's epoch ms. */
function addMessage(r: UnwrapResult, message: unknown, where: string, ts?: unknown): void {
  if (typeof message !== 'string') {
    r.bad.push(`${where}: message is not a string`);
    return;
  }
  const text = stripTimePrefix(message.trim());
  if (text.endsWith(CLOUDWATCH_TRUNCATED)) {
    r.truncated++;
    const ev = decodeTruncated(text, typeof ts === 'number' ? ts : undefined);
    if (ev !== null) {
      r.truncatedRead++;
      r.events.push(ev);
    }
    return;
  }
  add(r, decodeLine(text), where);
}

// ---------------------------------------------------------------------------------------------
// Messages cut by CloudWatch: read leniently (reference §6.3)

/** Top-level fields kept from a cut message, and the nested objects read field by field. */
const TRUNCATED_FIELDS: ReadonlySet<string> = new Set([
  'kind',
  'apiVersion',
  'level',
  'auditID',
  'stage',
  'requestURI',
  'verb',
  'user',
  'sourceIPs',
  'userAgent',
  'objectRef',
  'responseStatus',
  'requestReceivedTimestamp',
  'stageTimestamp',
]);
const TRUNCATED_OBJECTS: ReadonlySet<string> = new Set(['user', 'objectRef', 'responseStatus']);

/** `metav1.StatusReason` → the HTTP code apimachinery's `errors` package gives it. */
const REASON_CODES: ReadonlyMap<string, number> = new Map([
  ['Unauthorized', 401],
  ['Forbidden', 403],
  ['NotFound', 404],
  ['AlreadyExists', 409],
  ['Conflict', 409],
  ['Gone', 410],
  ['Invalid', 422],
  ['ServerTimeout', 500],
  ['Timeout', 504],
  ['TooManyRequests', 429],
  ['BadRequest', 400],
  ['MethodNotAllowed', 405],
  ['NotAcceptable', 406],
  ['RequestEntityTooLarge', 413],
  ['UnsupportedMediaType', 415],
  ['InternalError', 500],
  ['Expired', 410],
  ['ServiceUnavailable', 503],
]);

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Index just past the JSON value starting at `i` (a string, or brackets counted outside strings,
 * or a scalar up to `,` `}` `]`), or -1 if `text` ends inside it.
 */
function valueEnd(text: string, i: number): number {
  let depth = 0;
  let inString = false;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (inString) {
      if (c === 92)
        j++; // skip the escaped character
      else if (c === 34) {
        inString = false;
        if (depth === 0) return j + 1;
      }
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (depth === 0) return j; // a scalar ended by its container
      if (--depth === 0) return j + 1;
    } else if (depth === 0 && (c === 44 || isSpace(c))) return j;
  }
  return -1;
}

/**
 * The complete members of a JSON object whose text may be cut anywhere (`text[i]` is its `{`):
 * each member whose value ends before the cut is parsed; a cut value in `nested` (an object)
 * is read the same way, one level down. Members outside `keep` are stepped over unparsed.
 */
function partialObject(text: string, i: number, keep: ReadonlySet<string> | null, nested: ReadonlySet<string>): Json {
  const out: Json = {};
  let j = i + 1;
  for (;;) {
    while (j < text.length && (isSpace(text.charCodeAt(j)) || text.charCodeAt(j) === 44)) j++;
    if (j >= text.length || text.charCodeAt(j) !== 34) return out; // '}' or cut
    const keyEnd = valueEnd(text, j);
    if (keyEnd === -1) return out;
    let key: string;
    try {
      key = JSON.parse(text.slice(j, keyEnd)) as string;
    } catch {
      return out;
    }
    j = keyEnd;
    while (j < text.length && isSpace(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) !== 58) return out; // ':'
    j++;
    while (j < text.length && isSpace(text.charCodeAt(j))) j++;
    if (j >= text.length) return out;
    const end = valueEnd(text, j);
    const wanted = keep === null || keep.has(key);
    if (end === -1) {
      if (wanted && nested.has(key) && text.charCodeAt(j) === 123) out[key] = partialObject(text, j, null, new Set());
      else if (keep === null && text.charCodeAt(j) === 34) {
        // A string cut inside a nested object: keep its beginning (`message` of a Status).
        const head = partialString(text.slice(j));
        if (head !== undefined) out[key] = new CutString(head);
      }
      return out;
    }
    if (wanted) {
      try {
        out[key] = JSON.parse(text.slice(j, end)) as unknown;
      } catch {
        return out;
      }
    }
    j = end;
  }
}

/** The beginning of a string value cut by CloudWatch (never a real JSON value). */
class CutString {
  constructor(readonly head: string) {}
}

/** The decoded beginning of a cut JSON string (`"abc\` → `abc`), or undefined. */
function partialString(raw: string): string | undefined {
  for (let cut = raw.length; cut > raw.length - 6 && cut > 0; cut--) {
    try {
      return JSON.parse(raw.slice(0, cut) + '"') as string;
    } catch {
      // a cut escape sequence: drop a character and retry
    }
  }
  return undefined;
}

/** apimachinery `errors.NewConflict`: "Operation cannot be fulfilled on <resource> <name>: …". */
const CONFLICT_MESSAGE = 'Operation cannot be fulfilled on ';

/** HTTP code of a cut responseStatus: `code`, else its `reason`'s, else a Conflict message's; or undefined. */
function cutStatusCode(status: Json): number | undefined {
  if (typeof status.code === 'number') return status.code;
  if (typeof status.reason === 'string') return REASON_CODES.get(status.reason);
  const message = status.message;
  const text = message instanceof CutString ? message.head : typeof message === 'string' ? message : '';
  return status.status === 'Failure' && text.startsWith(CONFLICT_MESSAGE) ? 409 : undefined;
}

/**
 * An audit event from a CloudWatch message cut at `[Truncated...]`, read leniently (reference
 * §6.3): the complete top-level fields of its JSON prefix (`auditID`, `stage`, `verb`,
 * `requestURI`, `user`, `sourceIPs`, `userAgent`, `objectRef`, `responseStatus`, both timestamps;
 * `user`, `objectRef` and `responseStatus` field by field if the cut falls inside them), with no
 * bodies or annotations. `ts` (the CloudWatch event's epoch ms) stands in for the stage time when
 * both timestamps were cut off. An event after `RequestReceived` needs its code
 * (`responseStatus.code`, else the code of its `reason`, else 409 Conflict when the cut `message`
 * starts as `errors.NewConflict` writes it: "Operation cannot be fulfilled on"). `null` unless `auditID`, `stage`, `verb`, `requestURI`,
 * a time (and, for a final stage, the code) are there and the result passes `decodeObject`. The
 * event is marked `truncated: true`.
 */
export function decodeTruncated(message: string, ts?: number): AuditEvent | null {
  const text = message.endsWith(CLOUDWATCH_TRUNCATED) ? message.slice(0, -CLOUDWATCH_TRUNCATED.length) : message;
  const start = text.indexOf('{');
  if (start === -1 || text.slice(0, start).trim() !== '') return null;
  const o = partialObject(text, start, TRUNCATED_FIELDS, TRUNCATED_OBJECTS);
  for (const k of ['auditID', 'stage', 'verb', 'requestURI'] as const) if (typeof o[k] !== 'string') return null;
  if (typeof o.stageTimestamp !== 'string' && typeof o.requestReceivedTimestamp !== 'string') {
    if (ts === undefined || !Number.isFinite(ts)) return null;
    o.stageTimestamp = new Date(ts).toISOString();
  }
  // A final event needs its code: from responseStatus.code, else from a reason kept before the
  // cut (Status reason → HTTP code as apimachinery sets it); otherwise the outcome is unknown and
  // the message is only counted (guessing 200 would invent successful writes).
  const status = o.responseStatus;
  if (isObject(status)) {
    const code = cutStatusCode(status);
    if (code === undefined) delete o.responseStatus;
    else {
      const reason = typeof status.reason === 'string' ? status.reason : code === 409 && typeof status.code !== 'number' ? 'Conflict' : undefined;
      o.responseStatus = reason === undefined ? { code } : { code, reason };
    }
  }
  if (o.stage !== 'RequestReceived' && o.responseStatus === undefined) return null;
  const d = decodeObject(o);
  if (!d.ok) return null;
  d.event.truncated = true;
  return d.event;
}

/** EKS audit log streams are `kube-apiserver-audit-<id>` (reference §6.3); other streams are not audit. */
const EKS_AUDIT_STREAM = 'kube-apiserver-audit';

function isOtherStream(name: unknown): boolean {
  return typeof name === 'string' && name !== '' && !name.startsWith(EKS_AUDIT_STREAM);
}

function addCloudWatchEvents(r: UnwrapResult, events: unknown, where: string, at: number): void {
  if (!Array.isArray(events)) {
    r.bad.push(`${where} is not an array`);
    return;
  }
  events.forEach((e, i) => {
    if (!isObject(e)) r.bad.push(`${where}[${i + at}] is not an object`);
    else if (isOtherStream(e.logStreamName))
      r.skipped++; // authenticator, scheduler, … streams
    else addMessage(r, e.message, `${where}[${i + at}]`, e.timestamp);
  });
}

/**
 * Decodes a CloudWatch Logs subscription payload (what a Lambda receives in `awslogs.data`, or a
 * Kinesis/Firehose record): base64, then gzip, then JSON. Returns the parsed value (pass it to
 * {@link unwrapValue}). Throws an `Error` whose message says which step failed.
 */
export function decodeSubscriptionPayload(base64: string): unknown {
  const compact = base64.trim();
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) throw new Error('CloudWatch subscription payload: not base64');
  const bytes = Buffer.from(compact, 'base64');
  let text: string;
  try {
    text = gunzipSync(bytes).toString('utf8');
  } catch (err) {
    throw new Error(`CloudWatch subscription payload: not gzip (${err instanceof Error ? err.message : String(err)})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`CloudWatch subscription payload: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

function unwrapEks(o: Json, at = 0): UnwrapResult | null {
  const r = result('eks');
  if (Array.isArray(o.logEvents) || typeof o.messageType === 'string') {
    if (o.messageType === 'CONTROL_MESSAGE') {
      r.skipped++;
      return r;
    }
    if (isOtherStream(o.logStream)) {
      r.skipped += Array.isArray(o.logEvents) ? o.logEvents.length : 1;
      return r;
    }
    addCloudWatchEvents(r, o.logEvents, 'CloudWatch logEvents', at);
    return r;
  }
  if (Array.isArray(o.events)) {
    addCloudWatchEvents(r, o.events, 'CloudWatch events', at);
    return r;
  }
  if (isObject(o.awslogs) && typeof o.awslogs.data === 'string') {
    let inner: unknown;
    try {
      inner = decodeSubscriptionPayload(o.awslogs.data);
    } catch (err) {
      r.bad.push(err instanceof Error ? err.message : String(err));
      return r;
    }
    const nested = isObject(inner) ? unwrapEks(inner) : null;
    if (nested === null) r.bad.push('CloudWatch subscription payload: not a subscription record');
    return nested ?? r;
  }
  if (typeof o['@message'] === 'string') {
    if (isOtherStream(o['@logStream'])) r.skipped++;
    else addMessage(r, o['@message'], 'CloudWatch Logs Insights row');
    return r;
  }
  // A single CloudWatch event: { message, timestamp, logStreamName?, ingestionTime?, eventId? }.
  // A message that is not event JSON (a plain log line) is not this shape.
  if (typeof o.message === 'string' && (stripTimePrefix(o.message.trim()).startsWith('{') || (isOtherStream(o.logStreamName) && typeof o.timestamp === 'number'))) {
    if (isOtherStream(o.logStreamName)) r.skipped++;
    else addMessage(r, o.message, 'CloudWatch event', o.timestamp);
    return r;
  }
  return null;
}

/**
 * One line of a CloudWatch Logs S3 export (`CreateExportTask`): `<RFC 3339 time> <event JSON>`.
 * `null` if the line is not of that form (no time prefix followed by `{`), so the caller can try
 * other readers. A message cut at `[Truncated...]` counts in `truncated`.
 */
export function unwrapExportLine(text: string): UnwrapResult | null {
  const stripped = stripTimePrefix(text);
  if (stripped === text || !stripped.startsWith('{')) return null;
  const r = result('eks');
  addMessage(r, stripped, 'CloudWatch export line');
  return r;
}

// ---------------------------------------------------------------------------------------------
// AKS

const AKS_AUDIT_CATEGORIES: ReadonlySet<string> = new Set(['kube-audit', 'kube-audit-admin']);

function addAksRecord(r: UnwrapResult, rec: unknown, where: string): void {
  if (!isObject(rec)) {
    r.bad.push(`${where} is not an object`);
    return;
  }
  const category = rec.category ?? rec.Category;
  if (category !== undefined && (typeof category !== 'string' || !AKS_AUDIT_CATEGORIES.has(category))) {
    r.skipped++;
    return;
  }
  const props = rec.properties;
  const log = isObject(props) ? props.log : rec.log_s;
  if (typeof log === 'string') add(r, decodeLine(log), where);
  else if (isObject(log)) add(r, decodeEventValue(log), where);
  else r.bad.push(`${where}: no properties.log`);
}

function unwrapAks(o: Json, at: number): UnwrapResult | null {
  if (Array.isArray(o.records)) {
    const r = result('aks');
    o.records.forEach((rec, i) => addAksRecord(r, rec, `AKS records[${i + at}]`));
    return r;
  }
  if ((isObject(o.properties) && o.properties.log !== undefined) || typeof o.log_s === 'string') {
    const r = result('aks');
    addAksRecord(r, o, 'AKS record');
    return r;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// OpenShift ViaQ

/** Fields the OpenShift Logging collector adds to an audit event (ViaQ data model). */
const VIAQ_FIELDS: readonly string[] = [
  '@timestamp',
  'hostname',
  'k8s_audit_level',
  'log_type',
  'log_source',
  'openshift',
  'source_type',
  'tag',
  'viaq_msg_id',
  'viaq_index_name',
  'pipeline_metadata',
];

function unwrapViaq(o: Json): UnwrapResult {
  const r = result('viaq');
  const level = o.k8s_audit_level;
  if (typeof level !== 'string') {
    r.bad.push('ViaQ record: k8s_audit_level is not a string');
    return r;
  }
  const ev: Json = { ...o, level };
  for (const f of VIAQ_FIELDS) delete ev[f];
  // ViaQ's `timestamp` is the collection time (= `@timestamp`), not v1beta1's received time.
  if (ev.timestamp !== undefined && ev.timestamp === o['@timestamp']) delete ev.timestamp;
  add(r, decodeEventValue(ev), 'ViaQ record');
  return r;
}

// ---------------------------------------------------------------------------------------------
// OTLP

/** The string value of OTLP attribute `key`, if any. */
function otlpAttribute(attributes: unknown, key: string): string | undefined {
  if (!Array.isArray(attributes)) return undefined;
  for (const a of attributes) {
    if (isObject(a) && a.key === key && isObject(a.value) && typeof a.value.stringValue === 'string') return a.value.stringValue;
  }
  return undefined;
}

/** The log type an OTLP resource or record declares (OpenShift: `audit`, `application`, …). */
function otlpLogType(attributes: unknown): string | undefined {
  return otlpAttribute(attributes, 'openshift.log.type') ?? otlpAttribute(attributes, 'log_type');
}

/** A lone OTLP log record (a `logRecords` element): a string body and OTLP record fields. */
function isOtlpLogRecord(o: Json): boolean {
  return isObject(o.body) && typeof o.body.stringValue === 'string' && (o.timeUnixNano !== undefined || o.observedTimeUnixNano !== undefined || Array.isArray(o.attributes));
}

/** One OTLP log record into `r`; records of a non-audit log type are skipped. */
function addOtlpRecord(r: UnwrapResult, lr: unknown, resourceType: string | undefined, where: string): void {
  if (!isObject(lr)) {
    r.bad.push(`${where} is not an object`);
    return;
  }
  const type = otlpLogType(lr.attributes) ?? resourceType;
  if (type !== undefined && type !== 'audit') {
    r.skipped++;
    return;
  }
  const body = lr.body;
  if (!isObject(body) || typeof body.stringValue !== 'string') {
    r.bad.push(`${where}: body is not a stringValue`);
    return;
  }
  const text = body.stringValue;
  // OpenShift's `audit` log type also carries node auditd, OVN and OAuth records: only what
  // looks like a Kubernetes audit event is decoded (and bad if it is not one).
  const parsed = kubernetesAuditCandidate(text);
  if (parsed === undefined) r.skipped++;
  else add(r, decodeObject(parsed), where);
}

/**
 * The parsed body if it may be a Kubernetes audit event (JSON with `kind: Event`, an
 * `audit.k8s.io` apiVersion, or an `auditID`, or not JSON but starting with `{`: a broken event);
 * `undefined` for other records (plain text, other JSON).
 */
function kubernetesAuditCandidate(text: string): unknown {
  const t = text.trimStart();
  if (!t.startsWith('{')) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return t; // not JSON: decodeObject reports it as bad
  }
  if (!isObject(v)) return undefined;
  const version = v.apiVersion;
  const k8s = v.kind === 'Event' || (typeof version === 'string' && version.startsWith('audit.k8s.io/')) || v.auditID !== undefined;
  return k8s ? v : undefined;
}

function unwrapOtlp(o: Json, at: readonly number[]): UnwrapResult {
  const r = result('otlp');
  const resourceLogs = o.resourceLogs as unknown[];
  const [a0 = 0, a1 = 0, a2 = 0] = at;
  resourceLogs.forEach((rl, i) => {
    if (!isObject(rl)) {
      r.bad.push(`OTLP resourceLogs[${i + a0}] is not an object`);
      return;
    }
    const resourceType = otlpLogType(isObject(rl.resource) ? rl.resource.attributes : undefined);
    const scopes = rl.scopeLogs ?? rl.instrumentationLibraryLogs; // the latter before OTLP 0.15
    if (!Array.isArray(scopes)) return;
    scopes.forEach((sl, j) => {
      const records = isObject(sl) ? sl.logRecords : undefined;
      if (!Array.isArray(records)) return;
      records.forEach((lr, k) => {
        addOtlpRecord(r, lr, resourceType, `OTLP resourceLogs[${i + a0}].scopeLogs[${j + a1}].logRecords[${k + a2}]`);
      });
    });
  });
  return r;
}

// ---------------------------------------------------------------------------------------------

/**
 * The audit events in a known wrapper value, or `null` if `value` is not one (a bare Event, any
 * other JSON). Checks, in order: EventList, ViaQ, GKE, EKS, AKS, OTLP (the order of
 * `recognizeShape`). Every event passes `decodeLine`'s validation. Never throws.
 */
export function unwrapValue(value: unknown, at: readonly number[] = []): UnwrapResult | null {
  if (!isObject(value)) return null;
  const first = at[at.length - 1] ?? 0;
  if (value.kind === 'EventList') return unwrapEventList(value, first);
  if (value.k8s_audit_level !== undefined) return unwrapViaq(value);
  if (isGke(value)) return unwrapGke(value);
  const eks = unwrapEks(value, first);
  if (eks !== null) return eks;
  const aks = unwrapAks(value, first);
  if (aks !== null) return aks;
  if (Array.isArray(value.resourceLogs)) return unwrapOtlp(value, at);
  if (isOtlpLogRecord(value)) {
    const r = result('otlp');
    addOtlpRecord(r, value, undefined, 'OTLP log record');
    return r;
  }
  return null;
}
