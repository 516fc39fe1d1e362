/**
 * Request URIs → `objectRef` and verb, as kube-apiserver's `RequestInfoFactory.NewRequestInfo`
 * derives them (`kubernetes/apiserver` `pkg/endpoints/request/requestinfo.go`; reference
 * `audit-formats.md` §3). The audit `objectRef` is built from that RequestInfo
 * (`pkg/audit/request.go`), so formats that log only a URI (legacy text, GKE's `resourceName`)
 * get the same namespace, name, resource and subresource a JSON event would carry.
 *
 * What the URL cannot give: `uid` and `resourceVersion` (from the request body), and a create's
 * `name` (the URL addresses the collection; the body names the object).
 */
import type { AuditObjectRef } from './event.js';

/** Verbs that may appear as a path segment after the version (`/api/v1/watch/...`). */
const SPECIAL_VERBS: ReadonlySet<string> = new Set(['proxy', 'watch']);
/** Special verbs whose third part is not a subresource. */
const SPECIAL_VERBS_NO_SUBRESOURCES: ReadonlySet<string> = new Set(['proxy']);
/** Subresources of the Namespace object itself (`/api/v1/namespaces/<ns>/status`). */
const NAMESPACE_SUBRESOURCES: ReadonlySet<string> = new Set(['status', 'finalize']);

/** What {@link requestInfo} derives from a URI. */
export interface RequestInfo {
  /** False for non-resource URLs (`/healthz`, `/apis`, `/apis/apps/v1`, `/openapi/v2`). */
  isResourceRequest: boolean;
  /** Kubernetes verb; for non-resource requests the lower-cased HTTP method ('' if none given). */
  verb: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
}

/** Go's `url.QueryUnescape` (`+` is a space); the raw text when an escape is malformed. */
function unescapeQuery(s: string): string {
  if (s.indexOf('%') === -1 && s.indexOf('+') === -1) return s;
  try {
    return decodeURIComponent(s.replaceAll('+', ' '));
  } catch {
    return s;
  }
}

/** Go's `url.PathUnescape` of one segment; the raw text when an escape is malformed. */
function unescapePath(s: string): string {
  if (s.indexOf('%') === -1) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** First value of each query key, as `url.Values.Get`. */
function queryValues(query: string): Map<string, string> {
  const out = new Map<string, string>();
  if (query === '') return out;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = unescapeQuery(eq === -1 ? pair : pair.slice(0, eq));
    if (!out.has(key)) out.set(key, eq === -1 ? '' : unescapeQuery(pair.slice(eq + 1)));
  }
  return out;
}

/**
 * The name a field selector pins with `metadata.name=<v>` or `metadata.name==<v>` (apimachinery
 * `fields.Selector.RequiresExactMatch`), if it is a valid path segment name
 * (`path.IsValidPathSegmentName`: not `.`/`..`, no `/` or `%`). Terms are comma-separated; `\`
 * escapes the next character in a value.
 */
function nameFromFieldSelector(selector: string): string {
  for (const term of splitSelector(selector)) {
    const m = /^\s*metadata\.name\s*(==|=)\s*(.*)$/.exec(term);
    if (m === null || (m[2] ?? '').startsWith('=')) continue;
    const value = (m[2] ?? '').replace(/\\(.)/g, '$1').trim();
    if (value === '.' || value === '..' || value.includes('/') || value.includes('%')) return '';
    return value;
  }
  return '';
}

/** Splits a field selector on commas that are not escaped with `\`. */
function splitSelector(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '\\') i++;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** True for `watch` query values that turn a GET into a watch: anything but `0`/`false` (any case). */
function watchRequested(values: Map<string, string>): boolean {
  const w = values.get('watch');
  if (w === undefined) return false;
  const lower = w.toLowerCase();
  return lower !== 'false' && lower !== '0';
}

/**
 * Derives what kube-apiserver's `NewRequestInfo` derives from a request URI (path plus optional
 * query) and an HTTP method. With `method` omitted the verb is computed as for `GET`.
 *
 * - `/api/<v>/…` and `/apis/<g>/<v>/…` with at least one more segment are resource requests;
 *   everything else (including `/api/v1`, `/apis/apps/v1`) is not.
 * - `/…/<v>/watch/…` and `/…/<v>/proxy/…` set the verb from the path; `proxy` has no subresource.
 * - `namespaces/<ns>/<resource>/…` sets the namespace; `namespaces/<ns>[/status|/finalize]` is the
 *   Namespace object itself, whose namespace is also `<ns>`.
 * - GET/HEAD without a name become `list`, or `watch` when the query asks for it; then a field
 *   selector `metadata.name=<n>` supplies the name. DELETE without a name is `deletecollection`.
 */
export function requestInfo(requestURI: string, method = 'GET'): RequestInfo {
  const q = requestURI.indexOf('?');
  const rawPath = q === -1 ? requestURI : requestURI.slice(0, q);
  const query = q === -1 ? '' : requestURI.slice(q + 1);
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    verb: method.toLowerCase(),
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    name: '',
    subresource: '',
  };
  const trimmed = rawPath.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return nonResource;
  let parts = trimmed.split('/').map(unescapePath);
  if (parts.length < 3) return nonResource;
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource;
  parts = parts.slice(1);
  let apiGroup = '';
  if (prefix === 'apis') {
    if (parts.length < 3) return nonResource;
    apiGroup = parts[0] ?? '';
    parts = parts.slice(1);
  }
  const apiVersion = parts[0] ?? '';
  parts = parts.slice(1);

  let verb: string;
  const first = parts[0] ?? '';
  if (SPECIAL_VERBS.has(first)) {
    // `/api/v1/watch` alone: kube-apiserver fails the request ("unable to determine kind and namespace").
    if (parts.length < 2) return nonResource;
    verb = first;
    parts = parts.slice(1);
  } else {
    switch (method.toUpperCase()) {
      case 'POST':
        verb = 'create';
        break;
      case 'GET':
      case 'HEAD':
        verb = 'get';
        break;
      case 'PUT':
        verb = 'update';
        break;
      case 'PATCH':
        verb = 'patch';
        break;
      case 'DELETE':
        verb = 'delete';
        break;
      default:
        verb = '';
    }
  }

  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1] ?? '';
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] ?? '')) parts = parts.slice(2);
  }

  const resource = parts[0] ?? '';
  let name = parts.length >= 2 ? (parts[1] ?? '') : '';
  const subresource = parts.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(verb) ? (parts[2] ?? '') : '';

  if (name === '' && verb === 'get') {
    const values = queryValues(query);
    verb = watchRequested(values) ? 'watch' : 'list';
    const selector = values.get('fieldSelector');
    if (selector !== undefined) name = nameFromFieldSelector(selector);
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';

  return { isResourceRequest: true, verb, apiGroup, apiVersion, namespace, resource, name, subresource };
}

/**
 * The audit `objectRef` of a request URI, as kube-apiserver builds it from RequestInfo: only
 * non-empty fields are set (no `apiGroup` for the core group), `apiVersion` is the version alone.
 * `null` for non-resource URLs. The query is ignored except that, for a collection read
 * (`verb` omitted, `get`, `list` or `watch`), `fieldSelector=metadata.name=<n>` names the object
 * as it does in kube-apiserver. The `/api/v1/proxy/…` form has no subresource.
 *
 * No `uid`, `resourceVersion`, nor a create's `name`: those come from the request body.
 */
export function objectRefFromURI(requestURI: string, verb?: string): AuditObjectRef | null {
  const readsCollection = verb === undefined || verb === 'get' || verb === 'list' || verb === 'watch';
  const info = requestInfo(requestURI, readsCollection ? 'GET' : 'PUT');
  if (!info.isResourceRequest || info.resource === '') return null;
  const ref: AuditObjectRef = { resource: info.resource };
  if (info.namespace !== '') ref.namespace = info.namespace;
  if (info.name !== '') ref.name = info.name;
  if (info.apiGroup !== '') ref.apiGroup = info.apiGroup;
  ref.apiVersion = info.apiVersion;
  if (info.subresource !== '') ref.subresource = info.subresource;
  return ref;
}

/**
 * The Kubernetes verb of a request logged with its HTTP method, as the pre-1.12 basic audit
 * format logs it (reference §2.2, §3): POST → `create`; GET/HEAD → `get`, or `list` without a
 * name, or `watch` with `watch=<not false/0>`; PUT → `update`; PATCH → `patch`; DELETE →
 * `delete`, or `deletecollection` without a name; `/watch/` and `/proxy/` path prefixes give
 * `watch` and `proxy`. Non-resource URLs give the lower-cased method; an unknown method on a
 * resource URL gives `''`, as kube-apiserver does.
 */
export function verbFromLegacyMethod(method: string, uri: string): string {
  return requestInfo(uri, method).verb;
}
