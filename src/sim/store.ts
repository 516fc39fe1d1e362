/**
 * The simulator's object store: what kube-apiserver + etcd do to a write, reduced to the parts
 * that make conflicts (Kubernetes API conventions, "Concurrency Control and Consistency";
 * `kubernetes/apiserver` `pkg/storage/etcd3/store.go` `GuaranteedUpdate`):
 * - one cluster-wide resourceVersion counter; every write that changes an object takes the next
 *   value;
 * - an update (or a patch carrying `metadata.resourceVersion`) whose resourceVersion is not the
 *   stored one gets **409 Conflict**; an update without one is unconditional;
 * - create of an existing name gets **409 AlreadyExists**;
 * - a write that leaves the object byte-identical is a no-op: 200, resourceVersion kept, no watch
 *   event;
 * - a write to the `status` subresource changes only `status`; to the main resource only `spec`
 *   (and labels), as for resources with a status subresource.
 * Independent of src/generator by design (issue 25).
 */

/** Identifies one object. `group` is `''` for the core group; `namespace` `''` when cluster-scoped. */
export interface SimRef {
  group: string;
  version: string;
  resource: string;
  namespace: string;
  name: string;
}

/**
 * A stored object: content is plain JSON, compared as canonical JSON. The store never mutates an
 * object it has handed out: every change stores a new object, so callers may keep what `get`,
 * `list` and write results return, and must not mutate it.
 */
export interface SimObject {
  ref: SimRef;
  uid: string;
  rv: number;
  generation: number;
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
  /** Second (epoch s) of the last server-side apply, when the legacy managedFields bump is modelled. */
  appliedSecond?: number;
}

/** What a write did: HTTP code, reason for 409s, and the object after it (absent on failure). */
export interface WriteResult {
  code: number;
  reason: '' | 'Conflict' | 'AlreadyExists' | 'NotFound' | 'Invalid';
  object?: SimObject;
  /** True when the write changed the object (a new resourceVersion and a watch event). */
  changed: boolean;
}

/** A change, as a watch sees it. */
export interface ChangeEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: SimObject;
}

/** Stable key of a ref: `group/resource/namespace/name`. */
export function refKey(r: SimRef): string {
  return `${r.group}/${r.resource}/${r.namespace}/${r.name}`;
}

/** JSON with object keys sorted, so equal content gives equal text. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Deep copy of plain JSON data (cheaper than structuredClone for the small bodies used here). */
export function copyJson<T>(v: T): T {
  if (Array.isArray(v)) return v.map(copyJson) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = copyJson(x);
    return out as T;
  }
  return v;
}

/** A stored object with the canonical JSON of its parts, kept to compare writes cheaply. */
interface Entry {
  o: SimObject;
  specJson: string;
  statusJson: string;
}

function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' && !Array.isArray(out[k])) {
      out[k] = mergePatch(out[k] as Record<string, unknown>, v as Record<string, unknown>);
    } else out[k] = copyJson(v);
  }
  return out;
}

/**
 * Whether a resource is a custom resource: `AllowUnconditionalUpdate()` is false for them
 * (apiextensions-apiserver `pkg/registry/customresource/strategy.go`), so an update without
 * resourceVersion gets 422 (audit-formats.md §4a). Built-in groups: core, `*.k8s.io`, apps,
 * batch, autoscaling, policy.
 */
export function isCustomResource(group: string): boolean {
  return !(group === '' || group === 'apps' || group === 'batch' || group === 'autoscaling' || group === 'policy' || group.endsWith('.k8s.io'));
}

/** The store. Not thread-safe; the simulator is single-threaded and time-ordered. */
export class SimStore {
  private readonly objects = new Map<string, Entry>();
  private rvCounter: number;
  private readonly listeners: Array<(e: ChangeEvent) => void> = [];
  private uidCounter = 0;

  /** `firstRv`: the resourceVersion the first write takes (a running cluster's counter is large). */
  constructor(firstRv = 4_100_000) {
    this.rvCounter = firstRv - 1;
  }

  /** The current cluster-wide resourceVersion (of the last change). */
  get currentRv(): number {
    return this.rvCounter;
  }

  /** Called synchronously on every change (informers schedule their own delay). */
  onChange(fn: (e: ChangeEvent) => void): void {
    this.listeners.push(fn);
  }

  private emit(e: ChangeEvent): void {
    for (const l of this.listeners) l(e);
  }

  /** The stored object (not to be mutated), or undefined. */
  get(ref: SimRef): SimObject | undefined {
    return this.objects.get(refKey(ref))?.o;
  }

  /** All objects of a resource (in a namespace, or all when `namespace` is undefined), not to be mutated. */
  list(group: string, resource: string, namespace?: string): SimObject[] {
    const out: SimObject[] = [];
    for (const { o } of this.objects.values()) {
      if (o.ref.group === group && o.ref.resource === resource && (namespace === undefined || o.ref.namespace === namespace)) out.push(o);
    }
    return out;
  }

  /** Number of stored objects. */
  get size(): number {
    return this.objects.size;
  }

  /** Create: 201, or 409 AlreadyExists when the name is taken. */
  create(ref: SimRef, spec: Record<string, unknown>, status: Record<string, unknown> = {}): WriteResult {
    const key = refKey(ref);
    if (this.objects.has(key)) return { code: 409, reason: 'AlreadyExists', changed: false };
    const o: SimObject = { ref: { ...ref }, uid: `uid-${++this.uidCounter}`, rv: ++this.rvCounter, generation: 1, spec: copyJson(spec), status: copyJson(status) };
    this.objects.set(key, { o, specJson: canonical(o.spec), statusJson: canonical(o.status) });
    this.emit({ type: 'ADDED', object: o });
    return { code: 201, reason: '', object: o, changed: true };
  }

  /**
   * Update (PUT) of the main resource (`subresource` '') or `status`: replaces that part with
   * `body`. `rv` is the resourceVersion the client sends. The precondition is checked before the
   * no-op comparison, so an identical update with a stale resourceVersion still gets 409. `''`
   * makes it unconditional for built-in types; a custom resource then gets 422 Invalid
   * (audit-formats.md §4a).
   */
  update(ref: SimRef, subresource: '' | 'status', rv: string, body: Record<string, unknown>): WriteResult {
    const cur = this.objects.get(refKey(ref));
    if (!cur) return { code: 404, reason: 'NotFound', changed: false };
    if (rv === '' && isCustomResource(ref.group)) return { code: 422, reason: 'Invalid', changed: false };
    if (rv !== '' && rv !== String(cur.o.rv)) return { code: 409, reason: 'Conflict', changed: false };
    return this.commit(cur, subresource, body);
  }

  /**
   * Merge patch of spec (`subresource` '') or status. `rv` non-empty acts as a precondition
   * (a patch carrying `metadata.resourceVersion`); `''` applies to whatever is stored.
   */
  patch(ref: SimRef, subresource: '' | 'status', rv: string, patch: Record<string, unknown>): WriteResult {
    const cur = this.objects.get(refKey(ref));
    if (!cur) return { code: 404, reason: 'NotFound', changed: false };
    if (rv !== '' && rv !== String(cur.o.rv)) return { code: 409, reason: 'Conflict', changed: false };
    const part = subresource === 'status' ? cur.o.status : cur.o.spec;
    return this.commit(cur, subresource, mergePatch(part, patch));
  }

  /**
   * Server-side apply of `patch` to the main resource, creating the object when absent. Field
   * ownership is not modelled (every manager here owns disjoint fields or forces); an apply that
   * changes nothing keeps the resourceVersion (the managedFields-timestamp bump of
   * kubernetes/kubernetes#121404 was fixed by ignoring those timestamps).
   */
  apply(ref: SimRef, patch: Record<string, unknown>, legacySecond?: number): WriteResult {
    const cur = this.objects.get(refKey(ref));
    if (!cur) return this.create(ref, patch);
    // Before the fix of kubernetes/kubernetes#121404 an identical apply in a new second still
    // rewrote managedFields' time, a real write with a new resourceVersion.
    if (legacySecond !== undefined && cur.o.appliedSecond !== legacySecond) {
      const r = this.commit(cur, '', mergePatch(cur.o.spec, patch), legacySecond);
      if (r.changed) return r;
      return this.replace(cur, { ...cur.o, appliedSecond: legacySecond }, cur.specJson, cur.statusJson);
    }
    return this.commit(cur, '', mergePatch(cur.o.spec, patch));
  }

  /** Delete: 200, or 404. */
  delete(ref: SimRef): WriteResult {
    const key = refKey(ref);
    const cur = this.objects.get(key);
    if (!cur) return { code: 404, reason: 'NotFound', changed: false };
    this.objects.delete(key);
    this.rvCounter++;
    this.emit({ type: 'DELETED', object: cur.o });
    return { code: 200, reason: '', object: cur.o, changed: true };
  }

  private commit(cur: Entry, subresource: '' | 'status', body: Record<string, unknown>, appliedSecond?: number): WriteResult {
    const json = canonical(body);
    if (json === (subresource === 'status' ? cur.statusJson : cur.specJson)) return { code: 200, reason: '', object: cur.o, changed: false };
    const next: SimObject = subresource === 'status' ? { ...cur.o, status: copyJson(body) } : { ...cur.o, spec: copyJson(body), generation: cur.o.generation + 1 };
    if (appliedSecond !== undefined) next.appliedSecond = appliedSecond;
    return subresource === 'status' ? this.replace(cur, next, cur.specJson, json) : this.replace(cur, next, json, cur.statusJson);
  }

  private replace(cur: Entry, next: SimObject, specJson: string, statusJson: string): WriteResult {
    next.rv = ++this.rvCounter;
    this.objects.set(refKey(cur.o.ref), { o: next, specJson, statusJson });
    this.emit({ type: 'MODIFIED', object: next });
    return { code: 200, reason: '', object: next, changed: true };
  }
}
