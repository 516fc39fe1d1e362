/**
 * Decoding one line of a JSON-lines audit log into an `audit.k8s.io` Event.
 *
 * This is the hot path: validation is by hand (no zod per event), and nothing here throws.
 * Field names, stages and version differences follow `kubernetes/apiserver`
 * `pkg/apis/audit/v1/types.go` and the v1beta1/v1alpha1 conversions (reference
 * `audit-formats.md` §1, §1.5). Known non-event shapes (cloud export wrappers, EventList) are
 * named in the reason so users can tell what they fed in (reference §1.6, §6.2–6.4).
 */
import { parseTimestamp } from './time.js';
import type { AuditEvent } from './event.js';
import { objectRefFromURI } from './uri.js';

/** Stage times outside [2000, 2200) are typos or broken clocks; they would wreck every window. */
const PLAUSIBLE_FROM_MS = Date.UTC(2000, 0, 1);
const PLAUSIBLE_TO_MS = Date.UTC(2200, 0, 1);

/** Outcome of {@link decodeLine}: the event, or a one-line reason for the bad-line report. */
export type DecodeResult = { ok: true; event: AuditEvent } | { ok: false; reason: string };

/** A recognised JSON shape that is not a bare audit event. */
export interface KnownShape {
  /** What it is, e.g. `GKE Cloud Logging entry (protoPayload)`. */
  readonly name: string;
  /** How to turn it into audit-event JSON lines, or what to do instead. */
  readonly hint: string;
}

type Json = Record<string, unknown>;

const STAGES: ReadonlySet<string> = new Set(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);
const LEVELS: ReadonlySet<string> = new Set(['None', 'Metadata', 'Request', 'RequestResponse']);
const V1 = 'audit.k8s.io/v1';
const V1BETA1 = 'audit.k8s.io/v1beta1';
const V1ALPHA1 = 'audit.k8s.io/v1alpha1';
const REQUIRED = ['auditID', 'stage', 'verb', 'requestURI'] as const;
const OBJECT_REF_FIELDS = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const;
export const LEGACY_MARK = ' AUDIT: id="';
export const CLOUDWATCH_TRUNCATED = '[Truncated...]';

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const FROM_JSON_STRING = 'if type == "string" then fromjson else . end';

/** Shapes in test order. Sources: reference §1.6 (EventList), §6.2 GKE, §6.3 EKS, §6.4 AKS. */
const SHAPES: ReadonlyArray<KnownShape & { test(o: Json): boolean }> = [
  {
    name: 'audit EventList document (webhook batch, items[])',
    hint: "Write one event per line first: jq -c '.items[]' FILE",
    test: (o) => o.kind === 'EventList',
  },
  {
    name: 'OpenShift Logging ViaQ record (k8s_audit_level)',
    hint: "Restore the audit level first: jq -c '.level = .k8s_audit_level' FILE",
    test: (o) => o.k8s_audit_level !== undefined,
  },
  {
    name: 'GKE Cloud Logging entry (protoPayload)',
    hint: 'auditstorm reads Cloud Logging entries (JSON lines or a JSON array) directly; if you forced --input-format, drop it.',
    test: (o) => isObject(o.protoPayload),
  },
  {
    name: 'EKS CloudWatch Logs export (events[])',
    hint: "Extract the events: jq -c '.events[].message | fromjson' FILE",
    test: (o) => Array.isArray(o.events),
  },
  {
    name: 'EKS CloudWatch subscription record (logEvents[])',
    hint: "Extract the events: jq -c '.logEvents[].message | fromjson' FILE",
    test: (o) => Array.isArray(o.logEvents),
  },
  {
    name: 'EKS CloudWatch record (message holds an event)',
    hint: "Extract the events: jq -c '.message | fromjson' FILE",
    test: (o) => typeof o.message === 'string' && o.message.startsWith('{'),
  },
  {
    name: 'CloudWatch Logs Insights row (@message)',
    hint: `Extract the events: jq -c '."@message" | fromjson' FILE`,
    test: (o) => typeof o['@message'] === 'string',
  },
  {
    name: 'AKS diagnostic records (records[].properties.log)',
    hint: `Extract the events: jq -c '.records[].properties.log | ${FROM_JSON_STRING}' FILE`,
    test: (o) => Array.isArray(o.records),
  },
  {
    name: 'AKS diagnostic record (properties.log)',
    hint: `Extract the events: jq -c '.properties.log | ${FROM_JSON_STRING}' FILE`,
    test: (o) => isObject(o.properties) && o.properties.log !== undefined,
  },
  {
    name: 'AKS Log Analytics AzureDiagnostics row (log_s)',
    hint: "Extract the events: jq -c '.log_s | fromjson' FILE",
    test: (o) => typeof o.log_s === 'string',
  },
  {
    name: 'OpenTelemetry (OTLP) log export (resourceLogs)',
    hint: "Extract the events: jq -c '.resourceLogs[].scopeLogs[].logRecords[].body.stringValue | fromjson' FILE",
    test: (o) => Array.isArray(o.resourceLogs),
  },
];

/**
 * Names a parsed JSON value's shape if it is one of the known wrappers or documents that hold
 * audit events (EventList, GKE, EKS, AKS, OpenShift ViaQ, OTLP); `undefined` otherwise.
 */
export function recognizeShape(value: unknown): KnownShape | undefined {
  if (!isObject(value)) return undefined;
  for (const shape of SHAPES) {
    if (shape.test(value)) return { name: shape.name, hint: shape.hint };
  }
  return undefined;
}

/** Shortens user-supplied text for a reason. */
function clip(s: string, max = 60): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}

function show(v: unknown): string {
  if (typeof v === 'string') return `"${clip(v)}"`;
  try {
    return clip(String(JSON.stringify(v)));
  } catch {
    // JSON.stringify recurses and throws RangeError on a value nested thousands deep.
    return `${Array.isArray(v) ? 'an array' : 'an object'} nested too deeply to show`;
  }
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

function bad(reason: string): DecodeResult {
  return { ok: false, reason };
}

/** Not an event: a named shape (`<shape>: not read yet`), or the first thing missing. */
function notEvent(o: Json, what: string): DecodeResult {
  const shape = recognizeShape(o);
  return bad(shape ? `${shape.name}: not read yet` : `JSON but not an audit event: ${what}`);
}

function malformed(what: string): DecodeResult {
  return bad(`malformed audit event: ${what}`);
}

function notJson(text: string, err: unknown): string {
  if (text.includes(LEGACY_MARK)) {
    return 'legacy text audit line (--audit-log-format=legacy): not read yet';
  }
  if (text.endsWith(CLOUDWATCH_TRUNCATED)) {
    return `not JSON (cut by CloudWatch: ends with "${CLOUDWATCH_TRUNCATED}")`;
  }
  return `not JSON (${clip(err instanceof Error ? err.message : String(err), 120)})`;
}

/** `undefined` if `v` is absent/null or an object, else what is wrong with it. */
function checkObject(v: unknown, field: string): string | undefined {
  return v === undefined || v === null || isObject(v) ? undefined : `${field} is not an object`;
}

/** `undefined` if `v` is absent or a string, else what is wrong with it. */
function checkString(v: unknown, field: string): string | undefined {
  return v === undefined || typeof v === 'string' ? undefined : `${field} is not a string`;
}

/** Checks the optional fields normalization reads; returns what is wrong, if anything. */
function checkOptional(o: Json): string | undefined {
  const user = o.user;
  const ref = o.objectRef;
  const status = o.responseStatus;
  const ips = o.sourceIPs;
  let problem =
    checkObject(user, 'user') ?? checkObject(ref, 'objectRef') ?? checkObject(status, 'responseStatus') ?? checkString(o.userAgent, 'userAgent') ?? checkString(o.level, 'level');
  if (problem !== undefined) return problem;
  if (ips !== undefined && ips !== null) {
    if (!Array.isArray(ips)) return 'sourceIPs is not an array';
    problem = checkString(ips[0], 'sourceIPs[0]');
  }
  if (isObject(user)) problem ??= checkString(user.username, 'user.username');
  if (isObject(status)) {
    const code = status.code;
    if (code !== undefined && typeof code !== 'number') problem ??= 'responseStatus.code is not a number';
    else if (code !== undefined && !isHttpStatus(code)) {
      problem ??= `responseStatus.code ${String(code)} is not an integer HTTP status (${MIN_STATUS}–${MAX_STATUS})`;
    }
    problem ??= checkString(status.reason, 'responseStatus.reason');
  }
  if (isObject(ref)) {
    for (const f of OBJECT_REF_FIELDS) problem ??= checkString(ref[f], `objectRef.${f}`);
  }
  return problem;
}

/** The status codes Go's `net/http` writes (`checkWriteHeaderCode`): kube-apiserver cannot send others. */
export const MIN_STATUS = 100;
export const MAX_STATUS = 999;

/** Whether `code` is an integer HTTP status code, {@link MIN_STATUS}–{@link MAX_STATUS}. */
export function isHttpStatus(code: number): boolean {
  return Number.isInteger(code) && code >= MIN_STATUS && code <= MAX_STATUS;
}

/** Epoch ms of a timestamp value; `NaN` if it is not an RFC 3339 string. */
function timeOf(v: unknown): number {
  return typeof v === 'string' ? parseTimestamp(v) : NaN;
}

/**
 * Decodes one line (prefix and `\r` already stripped) into an audit event.
 *
 * Accepts `kind` `Event` or absent, and `apiVersion` `audit.k8s.io/v1`, `v1beta1`, `v1alpha1` or
 * absent. Requires string `auditID`, `stage` (one of the four stages), `verb`, `requestURI`, and
 * a stage time: `stageTimestamp`, else v1beta1 `metadata.creationTimestamp`, else `timestamp`;
 * received time is `requestReceivedTimestamp`, else `timestamp`, else the stage time (reference
 * §1.5, `v1beta1/conversion.go`). For v1alpha1, `objectRef.apiVersion` `group/version` is split on
 * the last `/` into `apiGroup` and `apiVersion` (`v1alpha1/conversion.go`). An `objectRef` without
 * `resource` whose `requestURI` is a resource URL is completed from the URL as kube-apiserver's
 * RequestInfo derives it (`objectRefFromURI`: resource, namespace, name, group, version,
 * subresource; fields already present are kept). The parsed object is completed in place and
 * returned (see {@link AuditEvent}).
 *
 * Reasons, never thrown: `not JSON (…)`, `legacy text audit line …: not read yet`,
 * `JSON but not an audit event: …` (e.g. `no auditID`), `<known shape>: not read yet` (see
 * {@link recognizeShape}), `malformed audit event: …` (wrong field types, bad timestamps, a
 * `responseStatus.code` that is not an integer HTTP status, see {@link isHttpStatus}).
 */
export function decodeLine(text: string): DecodeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return bad(notJson(text, err));
  }
  return decodeObject(parsed);
}

/** The reason {@link decodeLine} gives for text that is not JSON (legacy line, CloudWatch cut, syntax error). */
export function notJsonReason(text: string, err: unknown): string {
  return notJson(text, err);
}

/**
 * Validates an already parsed JSON (or YAML) value as an audit event: everything
 * {@link decodeLine} does after `JSON.parse`. The object is completed in place on success.
 */
export function decodeObject(parsed: unknown): DecodeResult {
  if (!isObject(parsed)) return bad(`JSON but not an audit event: ${jsonType(parsed)}`);
  const o = parsed;

  const kind = o.kind;
  if (kind !== undefined && kind !== 'Event') return notEvent(o, `kind ${show(kind)}`);
  const version = o.apiVersion;
  if (version !== undefined && version !== V1 && version !== V1BETA1 && version !== V1ALPHA1) {
    return notEvent(o, `apiVersion ${show(version)} is not audit.k8s.io`);
  }
  for (const f of REQUIRED) {
    const v = o[f];
    if (typeof v !== 'string') return notEvent(o, v === undefined ? `no ${f}` : `${f} is not a string`);
  }
  if (!STAGES.has(o.stage as string)) return malformed(`unknown stage ${show(o.stage)}`);

  const problem = checkOptional(o);
  if (problem !== undefined) return malformed(problem);
  const level = o.level;
  if (level !== undefined && !LEVELS.has(level as string) && recognizeShape(o)) {
    return notEvent(o, `level ${show(level)}`);
  }

  let stageRaw = o.stageTimestamp;
  if (stageRaw === undefined || stageRaw === null) {
    stageRaw = isObject(o.metadata) ? o.metadata.creationTimestamp : undefined;
    if (stageRaw === undefined || stageRaw === null) stageRaw = o.timestamp;
  }
  if (stageRaw === undefined || stageRaw === null) return malformed('no stageTimestamp');
  const stageMs = timeOf(stageRaw);
  if (Number.isNaN(stageMs)) return malformed(`stageTimestamp ${show(stageRaw)} is not an RFC 3339 time`);
  if (stageMs < PLAUSIBLE_FROM_MS || stageMs >= PLAUSIBLE_TO_MS) {
    return malformed(`stageTimestamp ${show(stageRaw)} is implausible (before 2000 or after 2199)`);
  }

  let receivedRaw = o.requestReceivedTimestamp;
  if (receivedRaw === undefined || receivedRaw === null) receivedRaw = o.timestamp;
  let receivedMs = stageMs;
  if (receivedRaw !== undefined && receivedRaw !== null) {
    receivedMs = timeOf(receivedRaw);
    if (Number.isNaN(receivedMs)) {
      return malformed(`requestReceivedTimestamp ${show(receivedRaw)} is not an RFC 3339 time`);
    }
    // Go's zero time (`0001-01-01T00:00:00Z`) or a clock far off means "unknown": use the stage time.
    if (receivedMs < PLAUSIBLE_FROM_MS || receivedMs > stageMs) receivedMs = stageMs;
  }
  o.stageTimeMs = stageMs;
  o.receivedTimeMs = receivedMs;

  const ref = o.objectRef;
  if (version === V1ALPHA1 && isObject(ref) && ref.apiGroup === undefined) {
    const groupVersion = ref.apiVersion;
    if (typeof groupVersion === 'string') {
      const slash = groupVersion.lastIndexOf('/');
      ref.apiGroup = slash === -1 ? '' : groupVersion.slice(0, slash);
      ref.apiVersion = groupVersion.slice(slash + 1);
    }
  }
  // An objectRef without `resource` (hand-edited or re-serialized logs, a YAML merge gone wrong)
  // gets the fields kube-apiserver would have derived from a resource URL; fields present win.
  if (isObject(ref) && ref.resource === undefined) {
    const derived = objectRefFromURI(o.requestURI as string, o.verb as string);
    if (derived !== null) {
      for (const [k, v] of Object.entries(derived)) if (ref[k] === undefined || ref[k] === null) ref[k] = v;
    }
  }
  return { ok: true, event: o as unknown as AuditEvent };
}
