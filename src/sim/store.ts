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

/** A stored object: content is plain JSON, compared as canonical JSON. */
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
  reason: '' | 'Conflict' | 'AlreadyExists' | 'NotFound';
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
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function clone(o: SimObject): SimObject {
  return { ...o, ref: { ...o.ref }, spec: structuredClone(o.spec), status: structuredClone(o.status) };
}

function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(target);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' && !Array.isArray(out[k])) {
      out[k] = mergePatch(out[k] as Record<string, unknown>, v as Record<string, unknown>);
    } else out[k] = structuredClone(v);
  }
  return out;
}

/** The store. Not thread-safe; the simulator is single-threaded and time-ordered. */
export class SimStore {
  private readonly objects = new Map<string, SimObject>();
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

  /** A copy of the stored object, or undefined. */
  get(ref: SimRef): SimObject | undefined {
    const o = this.objects.get(refKey(ref));
    return o ? clone(o) : undefined;
  }

  /** Copies of all objects of a resource (in a namespace, or all when `namespace` is undefined). */
  list(group: string, resource: string, namespace?: string): SimObject[] {
    const out: SimObject[] = [];
    for (const o of this.objects.values()) {
      if (o.ref.group === group && o.ref.resource === resource && (namespace === undefined || o.ref.namespace === namespace)) out.push(clone(o));
    }
    return out;
  }

  /** Create: 201, or 409 AlreadyExists when the name is taken. */
  create(ref: SimRef, spec: Record<string, unknown>, status: Record<string, unknown> = {}): WriteResult {
    const key = refKey(ref);
    if (this.objects.has(key)) return { code: 409, reason: 'AlreadyExists', changed: false };
    const o: SimObject = { ref: { ...ref }, uid: `uid-${++this.uidCounter}`, rv: ++this.rvCounter, generation: 1, spec: structuredClone(spec), status: structuredClone(status) };
    this.objects.set(key, o);
    this.emit({ type: 'ADDED', object: clone(o) });
    return { code: 201, reason: '', object: clone(o), changed: true };
  }

  /**
   * Update (PUT) of the main resource (`subresource` '') or `status`: replaces that part with
   * `body`. `rv` is the resourceVersion the client sends; `''` makes it unconditional.
   */
  update(ref: SimRef, subresource: '' | 'status', rv: string, body: Record<string, unknown>): WriteResult {
    const cur = this.objects.get(refKey(ref));
    if (!cur) return { code: 404, reason: 'NotFound', changed: false };
    if (rv !== '' && rv !== String(cur.rv)) return { code: 409, reason: 'Conflict', changed: false };
    return this.commit(cur, subresource, body);
  }

  /**
   * Merge patch of spec (`subresource` '') or status. `rv` non-empty acts as a precondition
   * (a patch carrying `metadata.resourceVersion`); `''` applies to whatever is stored.
   */
  patch(ref: SimRef, subresource: '' | 'status', rv: string, patch: Record<string, unknown>): WriteResult {
    const cur = this.objects.get(refKey(ref));
    if (!cur) return { code: 404, reason: 'NotFound', changed: false };
    if (rv !== '' && rv !== String(cur.rv)) return { code: 409, reason: 'Conflict', changed: false };
    const part = subresource === 'status' ? cur.status : cur.spec;
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
    if (legacySecond !== undefined && cur.appliedSecond !== legacySecond) {
      cur.appliedSecond = legacySecond;
      const r = this.commit(cur, '', mergePatch(cur.spec, patch));
      if (r.changed) return r;
      cur.rv = ++this.rvCounter;
      this.emit({ type: 'MODIFIED', object: clone(cur) });
      return { code: 200, reason: '', object: clone(cur), changed: true };
    }
    return this.commit(cur, '', mergePatch(cur.spec, patch));
  }

  /** Delete: 200, or 404. */
  delete(ref: SimRef): WriteResult {
    const key = refKey(ref);
    const cur = this.objects.get(key);
    if (!cur) return { code: 404, reason: 'NotFound', changed: false };
    this.objects.delete(key);
    this.rvCounter++;
    this.emit({ type: 'DELETED', object: clone(cur) });
    return { code: 200, reason: '', object: clone(cur), changed: true };
  }

  private commit(cur: SimObject, subresource: '' | 'status', body: Record<string, unknown>): WriteResult {
    const before = subresource === 'status' ? cur.status : cur.spec;
    if (canonical(before) === canonical(body)) return { code: 200, reason: '', object: clone(cur), changed: false };
    if (subresource === 'status') cur.status = structuredClone(body);
    else {
      cur.spec = structuredClone(body);
      cur.generation++;
    }
    cur.rv = ++this.rvCounter;
    this.emit({ type: 'MODIFIED', object: clone(cur) });
    return { code: 200, reason: '', object: clone(cur), changed: true };
  }
}
