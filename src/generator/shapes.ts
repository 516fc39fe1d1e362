/**
 * Writers that re-wrap generated audit logs in the shapes managed clusters and collectors use, so
 * a test can check that every input shape gives the findings the JSON lines give.
 */

// ================================================================================================
// Wrapper and legacy writers (owner: decoding/unwrap.ts, decoding/legacy.ts). Keep this block whole.
//
// Each writer takes audit-event JSON lines as `renderEvent` writes them and returns the file text.
// The mapping is the inverse of `src/decoding/unwrap.ts` / `src/decoding/legacy.ts` and follows the
// reference (`audit-formats.md` §2, §6.2–§6.4). What each shape cannot carry is lost on the way:
//
// | writer | output | lost |
// | --- | --- | --- |
// | `toGke` | JSON lines of Cloud Logging LogEntries (AuditLog protoPayload) | the RequestReceived stage (GKE's policy omits it); `requestReceivedTimestamp` (only `timestamp` = stageTimestamp, so latency is 0); the query string (`fieldManager`, `dryRun=All`, `watch=true`); user groups, uid and extra; `sourceIPs` beyond the first (`callerIp`); `objectRef.uid`/`resourceVersion` unless a non-patch request body carries them; success codes other than 200 (201 only for create); the level (inferred from which bodies are present); JSON-patch (array) request bodies |
// | `toEksFilterLogEvents` | one `{"events":[…]}` document (FilterLogEvents) | nothing (the message is the line), unless `truncateAt` cuts long messages as CloudWatch does (the reader then keeps only the fields before the cut: no bodies, annotations or later fields) |
// | `toEksSubscriptionPayload` | one base64(gzip(`DATA_MESSAGE` JSON)) payload per line | nothing |
// | `toAks` | JSON lines of `{"records":[…]}` (Event Hub / storage), category `kube-audit` | nothing |
// | `toViaq` | JSON lines of OpenShift ViaQ records | nothing (the ViaQ fields are dropped again and `level` restored) |
// | `toOtlp` | JSON lines of OTLP `ExportLogsServiceRequest` (`resourceLogs`) | nothing |
// | `toLegacy` | advanced legacy text lines (`EventString`) | stage time (every stage has the received time, latency 0); `objectRef.resourceVersion` and `uid`; a create's object name; the status reason (a 409 is ambiguous); level, annotations, bodies; user uid/extra; `sourceIPs` beyond the first |
// ================================================================================================
import { gzipSync } from 'node:zlib';
import { stringify as stringifyYaml } from 'yaml';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function parseLines(lines: Iterable<string>): Json[] {
  const out: Json[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    const v = JSON.parse(line) as unknown;
    if (!isObject(v)) throw new TypeError('shapes: every line must be a JSON audit event object');
    out.push(v);
  }
  return out;
}

function nonEmptyLines(lines: Iterable<string>): string[] {
  const out: string[] = [];
  for (const line of lines) if (line.trim() !== '') out.push(line);
  return out;
}

/** Epoch ms of an RFC 3339 UTC time as the generator writes it (µs kept as the fraction). */
function epochMs(t: string): number {
  const ms = Date.parse(t);
  const frac = /\.(\d+)Z$/.exec(t)?.[1] ?? '';
  return Number.isNaN(ms) ? 0 : ms - (ms % 1000) + Number(`0.${frac || '0'}`) * 1000;
}

/** `stageTimestamp` of an event (the generator always writes it). */
function stageTime(ev: Json): string {
  return str(ev.stageTimestamp) ?? str(ev.requestReceivedTimestamp) ?? '1970-01-01T00:00:00Z';
}

function chunked<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function jsonLines(values: unknown[]): string {
  return values.map((v) => JSON.stringify(v) + '\n').join('');
}

// ---------------------------------------------------------------------------------------------
// GKE

/** HTTP status → gRPC code, the inverse of `unwrap.ts`'s table; 409 AlreadyExists → 6, else 10. */
function grpcCode(code: number, reason: string | undefined): number {
  if (code < 400) return 0;
  switch (code) {
    case 400:
    case 422:
      return 3;
    case 401:
      return 16;
    case 403:
      return 7;
    case 404:
      return 5;
    case 409:
      return reason === 'AlreadyExists' ? 6 : 10;
    case 429:
      return 8;
    case 499:
      return 1;
    case 501:
      return 12;
    case 503:
      return 14;
    case 504:
      return 4;
    default:
      return code >= 500 ? 13 : 9;
  }
}

/** The group part of a GKE methodName: `io.k8s.core`, `io.k8s.coordination`, `com.example`. */
function methodGroup(group: string): string {
  if (group === '') return 'io.k8s.core';
  if (group.endsWith('.k8s.io')) return `io.k8s.${group.slice(0, -'.k8s.io'.length).split('.').reverse().join('.')}`;
  if (!group.includes('.')) return `io.k8s.${group}`;
  return group.split('.').reverse().join('.');
}

/** `@type` of a body: `core.k8s.io/v1.Pod`, `coordination.k8s.io/v1.Lease`, `apps.k8s.io/v1.Deployment`. */
function bodyType(group: string, version: string, body: Json): string {
  const g = group === '' ? 'core.k8s.io' : group.includes('.') ? group : `${group}.k8s.io`;
  const kind = str(body.kind);
  return kind === undefined ? `${g}/${version}` : `${g}/${version}.${kind}`;
}

function gkeEntry(ev: Json, first: boolean, last: boolean): Json {
  const auditID = str(ev.auditID) ?? '';
  const verb = str(ev.verb) ?? '';
  const uri = str(ev.requestURI) ?? '/';
  const ref = isObject(ev.objectRef) ? ev.objectRef : undefined;
  const status = isObject(ev.responseStatus) ? ev.responseStatus : {};
  const code = typeof status.code === 'number' ? status.code : 200;
  const reason = str(status.reason);
  let methodName: string;
  let resourceName: string;
  const group = str(ref?.apiGroup) ?? '';
  const version = str(ref?.apiVersion) ?? 'v1';
  if (ref !== undefined) {
    const resource = str(ref.resource) ?? '';
    const ns = str(ref.namespace);
    const name = str(ref.name);
    const sub = str(ref.subresource);
    methodName = [methodGroup(group), version, resource, ...(sub ? [sub] : []), verb].join('.');
    resourceName = `${group || 'core'}/${version}/`;
    if (ns && resource !== 'namespaces') resourceName += `namespaces/${ns}/`;
    resourceName += resource;
    if (name) resourceName += `/${name}`;
    if (sub) resourceName += `/${sub}`;
  } else {
    methodName = `io.k8s.${verb}`;
    const q = uri.indexOf('?');
    resourceName = (q === -1 ? uri : uri.slice(0, q)).replace(/^\/+/, '');
  }
  const annotations = isObject(ev.annotations) ? ev.annotations : undefined;
  const user = isObject(ev.user) ? ev.user : undefined;
  const ips = Array.isArray(ev.sourceIPs) ? ev.sourceIPs : [];
  const payload: Json = {
    '@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
    authenticationInfo: user?.username !== undefined ? { principalEmail: user.username } : {},
    authorizationInfo: [{ granted: annotations?.['authorization.k8s.io/decision'] !== 'forbid', permission: methodName, resource: resourceName }],
    methodName,
  };
  const requestObject = ev.requestObject;
  if (ref !== undefined && isObject(requestObject)) {
    payload.request = { '@type': verb === 'patch' ? 'k8s.io/Patch' : bodyType(group, version, requestObject), ...requestObject };
  }
  const meta: Json = {};
  if (typeof ips[0] === 'string') meta.callerIp = ips[0];
  if (typeof ev.userAgent === 'string') meta.callerSuppliedUserAgent = ev.userAgent;
  payload.requestMetadata = meta;
  payload.resourceName = resourceName;
  if (code >= 400) {
    const { metadata: _m, ...rest } = status;
    payload.response = { '@type': 'core.k8s.io/v1.Status', apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', ...rest, code };
  } else if (ref !== undefined && isObject(ev.responseObject)) {
    payload.response = { '@type': bodyType(group, version, ev.responseObject), ...ev.responseObject };
  }
  payload.serviceName = 'k8s.io';
  const grpc = grpcCode(code, reason);
  payload.status = grpc === 0 ? { code: 0 } : { code: grpc, message: reason ?? `HTTP ${code}` };
  const time = stageTime(ev);
  const write = verb !== 'get' && verb !== 'list' && verb !== 'watch';
  const entry: Json = {
    insertId: auditID,
    ...(annotations !== undefined ? { labels: annotations } : {}),
    logName: `projects/sample-project/logs/cloudaudit.googleapis.com%2F${write ? 'activity' : 'data_access'}`,
    operation: { first, id: auditID, last, producer: 'k8s.io' },
    protoPayload: payload,
    receiveTimestamp: time,
    resource: { labels: { cluster_name: 'sample-cluster', location: 'us-central1-a', project_id: 'sample-project' }, type: 'k8s_cluster' },
    timestamp: time,
  };
  return entry;
}

/**
 * GKE Cloud Logging entries (JSON lines), one per ResponseStarted/ResponseComplete event; the
 * RequestReceived stage is dropped as GKE's policy omits it. A watch's ResponseStarted entry has
 * `operation.last: false`, its ResponseComplete entry `first: false`.
 */
export function toGke(lines: Iterable<string>): string {
  const started = new Set<string>();
  const out: Json[] = [];
  for (const ev of parseLines(lines)) {
    const id = str(ev.auditID) ?? '';
    if (ev.stage === 'RequestReceived') continue;
    if (ev.stage === 'ResponseStarted') {
      started.add(id);
      out.push(gkeEntry(ev, true, false));
    } else {
      out.push(gkeEntry(ev, !started.delete(id), true));
    }
  }
  return jsonLines(out);
}

// ---------------------------------------------------------------------------------------------
// EKS

const EKS_STREAM = 'kube-apiserver-audit-0a1b2c3d4e5f67890a1b2c3d4e5f6789';
const EKS_TRUNCATED = '[Truncated...]';

/** Options of the EKS writers. */
export interface EksOptions {
  /** Cut messages longer than this many characters and append `[Truncated...]`, as CloudWatch does. */
  truncateAt?: number;
}

function cloudWatchEvents(lines: Iterable<string>, opts: EksOptions): Array<{ ts: number; message: string }> {
  return nonEmptyLines(lines).map((line) => {
    const ev = JSON.parse(line) as Json;
    const message = opts.truncateAt !== undefined && line.length > opts.truncateAt ? line.slice(0, opts.truncateAt) + EKS_TRUNCATED : line;
    return { ts: Math.floor(epochMs(stageTime(ev))), message };
  });
}

/** A FilterLogEvents response `{"events":[…],"searchedLogStreams":[]}`: one document, one line. */
export function toEksFilterLogEvents(lines: Iterable<string>, opts: EksOptions = {}): string {
  const events = cloudWatchEvents(lines, opts).map((e, i) => ({
    logStreamName: EKS_STREAM,
    timestamp: e.ts,
    message: e.message,
    ingestionTime: e.ts + 1500,
    eventId: String(i).padStart(56, '0'),
  }));
  return JSON.stringify({ events, searchedLogStreams: [] }) + '\n';
}

/**
 * CloudWatch subscription payloads, one per line: each is base64(gzip(JSON)) of a `DATA_MESSAGE`
 * with up to `batchSize` log events (deterministic: gzip at level 9, no mtime).
 */
export function toEksSubscriptionPayload(lines: Iterable<string>, opts: EksOptions & { batchSize?: number } = {}): string {
  const events = cloudWatchEvents(lines, opts);
  return chunked(events, opts.batchSize ?? 1000)
    .map((batch, b) => {
      const payload = {
        messageType: 'DATA_MESSAGE',
        owner: '123456789012',
        logGroup: '/aws/eks/sample-cluster/cluster',
        logStream: EKS_STREAM,
        subscriptionFilters: ['auditstorm'],
        logEvents: batch.map((e, i) => ({ id: String(b * 1_000_000 + i).padStart(56, '0'), timestamp: e.ts, message: e.message })),
      };
      return gzipSync(Buffer.from(JSON.stringify(payload)), { level: 9 }).toString('base64') + '\n';
    })
    .join('');
}

// ---------------------------------------------------------------------------------------------
// AKS

/** Azure diagnostic records, JSON lines of `{"records":[…]}` with up to `batchSize` records each. */
export function toAks(lines: Iterable<string>, opts: { batchSize?: number } = {}): string {
  const records = nonEmptyLines(lines).map((line) => {
    const ev = JSON.parse(line) as Json;
    return {
      time: stageTime(ev),
      resourceId: '/SUBSCRIPTIONS/00000000-0000-0000-0000-000000000000/RESOURCEGROUPS/RG-SAMPLE/PROVIDERS/MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/AKS-SAMPLE',
      category: 'kube-audit',
      operationName: 'Microsoft.ContainerService/managedClusters/diagnosticLogs/Read',
      properties: { log: line + '\n', stream: 'stdout', pod: 'kube-apiserver-6d7fc956fd-s68ss', containerID: '4f1c0000' },
    };
  });
  return jsonLines(chunked(records, opts.batchSize ?? 100).map((batch) => ({ records: batch })));
}

// ---------------------------------------------------------------------------------------------
// OpenShift ViaQ

/** OpenShift Logging ViaQ records (JSON lines): `level: "default"`, the audit level in `k8s_audit_level`. */
export function toViaq(lines: Iterable<string>): string {
  const out = parseLines(lines).map((ev) => {
    const time = stageTime(ev);
    const rec: Json = {
      ...ev,
      '@timestamp': time,
      timestamp: time,
      hostname: 'master-0.sample.internal',
      k8s_audit_level: ev.level,
      level: 'default',
      log_type: 'audit',
      log_source: 'kubeAPI',
      openshift: { cluster_id: 'd24a392b-dd87-4eb8-a1a9-7384423567e3' },
    };
    // Vector writes keys sorted.
    return Object.fromEntries(
      Object.keys(rec)
        .sort()
        .map((k) => [k, rec[k]]),
    );
  });
  return jsonLines(out);
}

// ---------------------------------------------------------------------------------------------
// OTLP

function attr(key: string, value: string): Json {
  return { key, value: { stringValue: value } };
}

/** OTLP JSON (`ExportLogsServiceRequest` per line, up to `batchSize` records), body = the event line. */
export function toOtlp(lines: Iterable<string>, opts: { batchSize?: number } = {}): string {
  const records = nonEmptyLines(lines).map((line) => {
    const ev = JSON.parse(line) as Json;
    const ns = String(Math.round(epochMs(stageTime(ev)) * 1000)) + '000';
    const status = isObject(ev.responseStatus) ? ev.responseStatus : undefined;
    const attributes: Json[] = [
      attr('k8s.audit.event.level', str(ev.level) ?? ''),
      attr('k8s.audit.event.stage', str(ev.stage) ?? ''),
      attr('k8s.audit.event.request.uri', str(ev.requestURI) ?? ''),
      attr('k8s.audit.event.request.verb', str(ev.verb) ?? ''),
    ];
    if (typeof status?.code === 'number') attributes.push({ key: 'k8s.audit.event.response.code', value: { intValue: String(status.code) } });
    return { timeUnixNano: ns, observedTimeUnixNano: ns, body: { stringValue: line }, attributes };
  });
  const resource = {
    attributes: [attr('openshift.cluster.uid', 'b8af9b52-4ef1-444a-9b62-3b7bd2ab02f6'), attr('openshift.log.type', 'audit'), attr('log_type', 'audit')],
  };
  return jsonLines(chunked(records, opts.batchSize ?? 500).map((batch) => ({ resourceLogs: [{ resource, scopeLogs: [{ scope: {}, logRecords: batch }] }] })));
}

// ---------------------------------------------------------------------------------------------
// Legacy text

/** Go's `strconv.Quote`: `"` and `\` escaped, control and non-printable characters as escapes. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\u0007') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (ch !== ' ' && /[\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/u.test(ch)) {
      out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return out + '"';
}

/** `time.RFC3339Nano` of a UTC timestamp: fraction with trailing zeros trimmed (none if zero). */
function rfc3339Nano(t: string): string {
  return t.replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}

/** `auditStringSlice`: each `%q`-quoted, joined by `,`. */
function stringSlice(list: unknown[]): string {
  return list.map((g) => goQuote(String(g))).join(',');
}

/** One event as kube-apiserver's `EventString` writes it (`pkg/audit/format.go`). */
export function legacyLine(ev: Json): string {
  const user = isObject(ev.user) ? ev.user : {};
  let username = '<none>';
  let groups = '<none>';
  if (typeof user.username === 'string' && user.username !== '') {
    username = user.username;
    if (Array.isArray(user.groups) && user.groups.length > 0) groups = stringSlice(user.groups);
  }
  let as = '<self>';
  let asgroups = '<lookup>';
  if (isObject(ev.impersonatedUser)) {
    as = str(ev.impersonatedUser.username) ?? '';
    if (Array.isArray(ev.impersonatedUser.groups)) asgroups = stringSlice(ev.impersonatedUser.groups);
  }
  const ref = isObject(ev.objectRef) ? ev.objectRef : undefined;
  const namespace = str(ref?.namespace) || '<none>';
  const status = isObject(ev.responseStatus) ? ev.responseStatus : undefined;
  const response = status !== undefined ? String(typeof status.code === 'number' ? status.code : 0) : '<deferred>';
  const ips = Array.isArray(ev.sourceIPs) ? ev.sourceIPs : [];
  const ip = typeof ips[0] === 'string' ? ips[0] : '<unknown>';
  const q = goQuote;
  return (
    `${rfc3339Nano(str(ev.requestReceivedTimestamp) ?? stageTime(ev))} AUDIT: id=${q(str(ev.auditID) ?? '')} stage=${q(str(ev.stage) ?? '')} ` +
    `ip=${q(ip)} method=${q(str(ev.verb) ?? '')} user=${q(username)} groups=${q(groups)} as=${q(as)} asgroups=${q(asgroups)} ` +
    `user-agent=${q(str(ev.userAgent) ?? '')} namespace=${q(namespace)} uri=${q(str(ev.requestURI) ?? '')} response="${response}"`
  );
}

/** Advanced legacy text lines (`--audit-log-format=legacy`), one per event, all stages kept. */
export function toLegacy(lines: Iterable<string>): string {
  return parseLines(lines)
    .map((ev) => legacyLine(ev) + '\n')
    .join('');
}

// ================================================================================================
// End of the wrapper and legacy writers.
// ================================================================================================

// ================================================================================================
// Document and YAML writers (owner: ingest/read.ts, decoding/formats/). Keep this block whole.
//
// Same input as above (audit-event JSON lines); nothing is lost in any of these shapes.
//
// | writer | output |
// | --- | --- |
// | `toEventList` | webhook batches: `{"kind":"EventList",…,"items":[…]}` documents of `batchSize` events, pretty-printed one after another (one document when `batchSize` is not given) |
// | `toJsonArray` | one top-level JSON array of the events, pretty-printed (as `jq -s .` or `gcloud … --format=json` print) |
// | `toPrettyDocs` | every event pretty-printed, one document after another |
// | `toYamlDocs` | one YAML document per event, separated by `---` |
// ================================================================================================

function eventValues(lines: Iterable<string>): unknown[] {
  return nonEmptyLines(lines).map((l) => JSON.parse(l) as unknown);
}

/** Webhook `EventList` documents (reference §1.6), pretty-printed with 2 spaces. */
export function toEventList(lines: Iterable<string>, opts: { batchSize?: number } = {}): string {
  const events = eventValues(lines);
  const size = opts.batchSize ?? Math.max(1, events.length);
  let out = '';
  for (let i = 0; i < events.length || (i === 0 && events.length === 0); i += size) {
    const list = { kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: events.slice(i, i + size) };
    out += `${JSON.stringify(list, null, 2)}\n`;
  }
  return out;
}

/** One pretty-printed top-level JSON array of the events. */
export function toJsonArray(lines: Iterable<string>): string {
  return `${JSON.stringify(eventValues(lines), null, 2)}\n`;
}

/** Every event pretty-printed (2 spaces), one document after another. */
export function toPrettyDocs(lines: Iterable<string>): string {
  return eventValues(lines)
    .map((e) => `${JSON.stringify(e, null, 2)}\n`)
    .join('');
}

/** One YAML document per event, each starting with `---`. */
export function toYamlDocs(lines: Iterable<string>): string {
  return eventValues(lines)
    .map((e) => `---\n${stringifyYaml(e, { lineWidth: 0 })}`)
    .join('');
}
// ================================================================================================
// End of the document and YAML writers.
// ================================================================================================
