/**
 * Turning decoded audit events into interned {@link RequestRecord}s.
 *
 * Field meanings are those documented in `record.ts`; facts about stages, long-running requests,
 * query parameters and user agents come from the reference `audit-formats.md` (§1.3, §3, §5.4).
 */
import { digestBody, responseResourceVersion } from './body.js';
import type { AuditEvent } from './decode.js';
import {
  WRITE_VERBS,
  type Actor,
  type ObjectRef,
  type RequestRecord,
  type ServiceAccountRef,
} from './record.js';

/**
 * Long-running verbs and subresources of kube-apiserver's `BasicLongRunningRequestCheck`
 * (`kubernetes/apiserver` `pkg/server/filters/longrunning.go`; reference §1.3).
 */
const LONG_RUNNING_VERBS: ReadonlySet<string> = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES: ReadonlySet<string> = new Set([
  'attach',
  'exec',
  'log',
  'portforward',
  'proxy',
]);

const SA_PREFIX = 'system:serviceaccount:';
/** client-go's user agent: `<product>/<version> (<os>/<arch>) kubernetes/<commit>[/<suffix>]`. */
const UA_COMMIT_MARK = ' kubernetes/';

/**
 * Parses `system:serviceaccount:<namespace>:<name>`, the username of a service-account token
 * (`kubernetes/apiserver` `pkg/authentication/serviceaccount/util.go`, `MakeUsername`). Returns
 * `null` for anything else, including the group `system:serviceaccounts:<ns>`.
 */
export function parseServiceAccount(username: string): ServiceAccountRef | null {
  if (!username.startsWith(SA_PREFIX)) return null;
  const colon = username.indexOf(':', SA_PREFIX.length);
  if (colon === -1) return null;
  const namespace = username.slice(SA_PREFIX.length, colon);
  const name = username.slice(colon + 1);
  if (namespace === '' || name === '' || name.includes(':')) return null;
  return { namespace, name };
}

/** The parts of a user agent an {@link Actor} keeps. */
export interface UserAgentParts {
  /** Text before the first `/` of the first word, e.g. `kube-controller-manager`; `''` if empty. */
  product: string;
  /** Text after that `/` up to the first space, e.g. `v1.29.0`; `''` if none. */
  version: string;
  /**
   * The suffix after `kubernetes/<commit>/` (what `rest.AddUserAgent` appends, reference §5.4),
   * e.g. `deployment-controller`, `leader-election`; for `system:serviceaccount:NS:NAME` the NAME.
   */
  controller: string;
}

/**
 * Splits a user agent as client-go's `buildUserAgent` builds it (reference §5.4). Any string is
 * accepted; missing parts are `''`.
 */
export function parseUserAgent(ua: string): UserAgentParts {
  const space = ua.indexOf(' ');
  const word = space === -1 ? ua : ua.slice(0, space);
  const slash = word.indexOf('/');
  const product = slash === -1 ? word : word.slice(0, slash);
  const version = slash === -1 ? '' : word.slice(slash + 1);
  let controller = '';
  const mark = ua.indexOf(UA_COMMIT_MARK);
  if (mark !== -1) {
    const suffixSlash = ua.indexOf('/', mark + UA_COMMIT_MARK.length);
    if (suffixSlash !== -1) {
      const suffix = ua.slice(suffixSlash + 1);
      controller = parseServiceAccount(suffix)?.name ?? suffix;
    }
  }
  return { product, version, controller };
}

/**
 * Value of query parameter `key` (given with its `=`, e.g. `fieldManager=`) in a requestURI whose
 * `?` is at `query`; the first occurrence wins, as Go's `url.Values.Get`. Percent-escapes and `+`
 * are decoded as Go's `url.QueryUnescape`; a malformed escape leaves the raw value. `''` if absent.
 */
function queryParam(uri: string, query: number, key: string): string {
  for (let at = uri.indexOf(key, query + 1); at !== -1; at = uri.indexOf(key, at + 1)) {
    const before = uri.charCodeAt(at - 1);
    if (before !== 63 && before !== 38) continue; // '?' '&'
    const start = at + key.length;
    const amp = uri.indexOf('&', start);
    const raw = amp === -1 ? uri.slice(start) : uri.slice(start, amp);
    if (raw.indexOf('%') === -1 && raw.indexOf('+') === -1) return raw;
    try {
      return decodeURIComponent(raw.replaceAll('+', ' '));
    } catch {
      return raw;
    }
  }
  return '';
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Rounds ms to whole microseconds (the audit log's resolution) to drop float noise. */
function roundMicros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * Builds {@link RequestRecord}s from decoded events, interning actors (by
 * `username + '\0' + userAgent`) and objects (by {@link ObjectRef.key}) so equal values share one
 * instance for the lifetime of the normalizer. An object keeps the `apiVersion` it was first seen
 * with. User agents are parsed once per interned actor. Never throws on a decoded event.
 */
export class Normalizer {
  private readonly actors = new Map<string, Actor>();
  private readonly objects = new Map<string, ObjectRef>();

  /** Distinct actors interned so far. */
  get actorCount(): number {
    return this.actors.size;
  }

  /** Distinct objects interned so far. */
  get objectCount(): number {
    return this.objects.size;
  }

  /**
   * The request record of a final-stage event (`ResponseComplete`, `Panic`); `null` for
   * `RequestReceived` and `ResponseStarted`, which add no request. Times are UTC epoch ms.
   */
  normalize(ev: AuditEvent): RequestRecord | null {
    const stage = ev.stage;
    if (stage !== 'ResponseComplete' && stage !== 'Panic') return null;
    const uri = ev.requestURI;
    const verb = ev.verb;
    const ref = ev.objectRef;
    const object = ref ? this.object(ref) : null;
    const query = uri.indexOf('?');
    const dryRun = query !== -1 && queryParam(uri, query, 'dryRun=') === 'All';
    const longRunning =
      LONG_RUNNING_VERBS.has(verb) ||
      (object !== null && LONG_RUNNING_SUBRESOURCES.has(object.subresource));
    const status = ev.responseStatus;
    const record: Mutable<RequestRecord> = {
      auditID: ev.auditID,
      ts: ev.stageTimeMs,
      receivedTs: ev.receivedTimeMs,
      latencyMs: longRunning ? -1 : Math.max(0, roundMicros(ev.stageTimeMs - ev.receivedTimeMs)),
      stage,
      verb,
      isWrite: !dryRun && WRITE_VERBS.has(verb),
      dryRun,
      actor: this.actor(ev.user?.username ?? '', ev.userAgent ?? ''),
      object,
      code: status?.code ?? 0,
      reason: status?.reason ?? '',
      resourceVersion: ref?.resourceVersion ?? '',
      fieldManager: query === -1 ? '' : queryParam(uri, query, 'fieldManager='),
      sourceIP: ev.sourceIPs?.[0] ?? '',
      level: ev.level ?? '',
      requestURI: uri,
      responseResourceVersion: '',
      body: null,
    };
    // Bodies exist only at Request/RequestResponse level: Metadata events pay two property reads.
    const requestObject = ev.requestObject;
    const responseObject = ev.responseObject;
    if (responseObject !== undefined && responseObject !== null) {
      record.responseResourceVersion = responseResourceVersion(responseObject);
    }
    if (requestObject !== undefined && requestObject !== null && (verb === 'update' || verb === 'patch')) {
      record.body = digestBody(requestObject);
    }
    return record;
  }

  private actor(username: string, userAgent: string): Actor {
    const key = `${username}\u0000${userAgent}`;
    let actor = this.actors.get(key);
    if (actor === undefined) {
      const ua = parseUserAgent(userAgent);
      actor = {
        key,
        username,
        userAgent,
        userAgentProduct: ua.product,
        userAgentVersion: ua.version,
        controller: ua.controller,
        serviceAccount: parseServiceAccount(username),
      };
      this.actors.set(key, actor);
    }
    return actor;
  }

  private object(ref: NonNullable<AuditEvent['objectRef']>): ObjectRef {
    const apiGroup = ref.apiGroup ?? '';
    const resource = ref.resource ?? '';
    const namespace = ref.namespace ?? '';
    const name = ref.name ?? '';
    const subresource = ref.subresource ?? '';
    const key = `${apiGroup}/${resource}/${namespace}/${name}/${subresource}`;
    let object = this.objects.get(key);
    if (object === undefined) {
      object = {
        key,
        apiGroup,
        apiVersion: ref.apiVersion ?? '',
        resource,
        namespace,
        name,
        subresource,
      };
      this.objects.set(key, object);
    }
    return object;
  }
}
