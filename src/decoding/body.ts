/**
 * Digest of a write's request body (`requestObject`, logged at `Request` level and above): what a
 * no-op detector needs to compare successive writes, without keeping the body (it may hold
 * secrets, and it is large).
 *
 * The body is walked once in a canonical order (object keys sorted, array order kept) and fed to
 * FNV-1a 64-bit hashes (http://www.isthe.com/chongo/tech/comp/fnv/, offset basis
 * `0xcbf29ce484222325`, prime `0x100000001b3`) over UTF-16 code units, with type tags and length
 * prefixes so that distinct JSON values cannot feed the same sequence:
 * - `content`: everything except the volatile fields below;
 * - `timestamps`: for each name in `timestampFields` (sorted), one 16-hex-digit hash of the paths
 *   and values of the fields with that name, concatenated in the same order. So two digests with
 *   equal `content` tell which timestamp fields changed ({@link changedTimestampFields});
 * - `timestampFields`: the sorted, distinct names of the timestamp fields present (interned: equal
 *   lists are one array instance).
 *
 * Volatile fields, left out of `content` and `timestamps` alike, because the server sets them and
 * ignores or overwrites what a client sends on update (`kubernetes/apiserver`
 * `pkg/registry/rest/update.go` `BeforeUpdate`: generation, uid, creationTimestamp,
 * deletionTimestamp and deletionGracePeriodSeconds are taken from the stored object;
 * resourceVersion is the optimistic-lock precondition, not content; managedFields are maintained
 * by the server and a change of their timestamps alone is not a change,
 * `fieldmanager.IgnoreManagedFieldsTimestampsTransformer`, reference `audit-formats.md` §4a):
 * `metadata.{resourceVersion, managedFields, generation, creationTimestamp, uid, selfLink,
 * deletionTimestamp, deletionGracePeriodSeconds}` of the top-level object.
 *
 * Timestamp fields ({@link isTimestampField}), at any depth, whatever their value (a field that
 * appears or disappears is a timestamp change, not a content change). In JSON patches (arrays of
 * `{op, path, value}`), an operation whose `path` ends in a timestamp name feeds its `value` to
 * `timestamps` and only `op`/`path` to `content`; operations on the volatile metadata paths (e.g.
 * the `test` of `/metadata/resourceVersion` that clients use as an optimistic lock) are skipped.
 * Merge, strategic-merge and apply patches are objects and are walked like full objects.
 */
import type { BodyDigest } from './record.js';

/**
 * Field names whose values are times a writer stamps, not state it decides. Sources
 * (`kubernetes/api`, `kubernetes/apimachinery` types):
 * - `lastTransitionTime`: `metav1.Condition`, and the Pod, Node, Deployment, ReplicaSet,
 *   StatefulSet, Job, PVC, Namespace, CRD, APIService conditions (`core/v1`, `apps/v1`,
 *   `batch/v1` `types.go`);
 * - `lastUpdateTime`: `apps/v1` `DeploymentCondition`;
 * - `lastProbeTime`: `core/v1` `PodCondition`, `PersistentVolumeClaimCondition`, `JobCondition`;
 * - `lastHeartbeatTime`: `core/v1` `NodeCondition`;
 * - `lastScheduleTime`, `lastSuccessfulTime`: `batch/v1` `CronJobStatus`;
 * - `lastScaleTime`: `autoscaling/v2` `HorizontalPodAutoscalerStatus`;
 * - `renewTime`, `acquireTime`: `coordination/v1` `LeaseSpec`;
 * - `eventTime`, `firstTimestamp`, `lastTimestamp`: `core/v1` `Event`; `lastObservedTime`:
 *   `events/v1` `EventSeries`;
 * - `observedTime`: named in the tracker issue (operators' own status fields).
 * `metadata.creationTimestamp` and `deletionTimestamp` are volatile metadata (see above);
 * `startTime`/`completionTime` are kept: they are set once and their change is a real change.
 */
export const TIMESTAMP_FIELDS: ReadonlySet<string> = new Set([
  'acquireTime',
  'eventTime',
  'firstTimestamp',
  'lastHeartbeatTime',
  'lastObservedTime',
  'lastProbeTime',
  'lastScaleTime',
  'lastScheduleTime',
  'lastSuccessfulTime',
  'lastTimestamp',
  'lastTransitionTime',
  'lastUpdateTime',
  'observedTime',
  'renewTime',
]);

/**
 * An operator's own "when did this last happen" field: `last` + a capitalised word or words +
 * `Time`, `Timestamp` or `At` (`lastSyncTime`, `lastReconcileTime`, `lastSyncedAt`). Such a
 * field records the time of the latest pass, so every pass rewrites it, like
 * {@link TIMESTAMP_FIELDS}; fields set once (`startTime`, `completionTime`) do not start with `last`.
 */
const LAST_TIME_FIELD = /^last[A-Z][A-Za-z]*(?:Time|Timestamp|At)$/;

/** `last` + a capitalised word or words, without a time suffix (`lastSync`, `lastState`). */
const LAST_FIELD = /^last[A-Z][A-Za-z]*$/;

/** An RFC 3339 date-time as Kubernetes serialises `metav1.Time` and `MicroTime` (`2026-08-08T18:00:00Z`, `…00.123456+02:00`). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Whether a field holds a time its writer stamps: {@link TIMESTAMP_FIELDS} or
 * {@link LAST_TIME_FIELD} by name, whatever its value; or a `last…` name without a time suffix
 * whose `value` is an RFC 3339 time (kubernetes-external-secrets' `status.lastSync`, argo-cd#6108),
 * while one holding anything else (a container's `lastState`, an object) is content.
 */
export function isTimestampField(name: string, value: unknown): boolean {
  if (TIMESTAMP_FIELDS.has(name)) return true;
  if (name.charCodeAt(0) !== 108) return false;
  return LAST_TIME_FIELD.test(name) || (typeof value === 'string' && LAST_FIELD.test(name) && RFC3339.test(value));
}

/** Top-level `metadata` fields left out of the digest (see the module comment). */
export const VOLATILE_METADATA: ReadonlySet<string> = new Set([
  'creationTimestamp',
  'deletionGracePeriodSeconds',
  'deletionTimestamp',
  'generation',
  'managedFields',
  'resourceVersion',
  'selfLink',
  'uid',
]);

/** Two hex digits per byte value. */
const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const PRIME_LO = 0x1b3; // FNV-1a 64 prime 0x100000001b3 = 2^40 + 0x1b3

/** FNV-1a 64-bit state in two 32-bit halves. */
class Fnv64 {
  hi = 0xcbf29ce4;
  lo = 0x84222325;

  reset(): void {
    this.hi = 0xcbf29ce4;
    this.lo = 0x84222325;
  }

  /** One code unit (0..0xffff): xor into the low bits, multiply by the prime mod 2^64. */
  unit(c: number): void {
    const lo = (this.lo ^ c) >>> 0;
    // (hi·2^32 + lo) · (2^40 + 0x1b3) mod 2^64, in 16-bit halves of lo so every product is exact.
    const a = (lo & 0xffff) * PRIME_LO;
    const b = (lo >>> 16) * PRIME_LO + (a >>> 16);
    this.lo = ((b << 16) | (a & 0xffff)) >>> 0;
    this.hi = (Math.imul(this.hi, PRIME_LO) + (b >>> 16) + (lo << 8)) >>> 0;
  }

  /** A string, length first so concatenations cannot collide. */
  str(s: string): void {
    this.int(s.length);
    let hi = this.hi;
    let lo = this.lo;
    for (let i = 0; i < s.length; i++) {
      lo = (lo ^ s.charCodeAt(i)) >>> 0;
      const a = (lo & 0xffff) * PRIME_LO;
      const b = (lo >>> 16) * PRIME_LO + (a >>> 16);
      hi = (Math.imul(hi, PRIME_LO) + (b >>> 16) + (lo << 8)) >>> 0;
      lo = ((b << 16) | (a & 0xffff)) >>> 0;
    }
    this.hi = hi;
    this.lo = lo;
  }

  /** A length or index (0..2^32): a tag and two 16-bit units, no string built. */
  int(n: number): void {
    this.unit(35); // '#'
    this.unit(n & 0xffff);
    this.unit((n >>> 16) & 0xffff);
  }

  /** Any number, as its decimal text behind a tag. */
  num(n: number): void {
    this.unit(35); // '#'
    const s = String(n);
    for (let i = 0; i < s.length; i++) this.unit(s.charCodeAt(i));
  }

  /** 16 lower-case hex digits, high half first. */
  hex(): string {
    const hi = this.hi;
    const lo = this.lo;
    return (
      (HEX[hi >>> 24] as string) +
      (HEX[(hi >>> 16) & 0xff] as string) +
      (HEX[(hi >>> 8) & 0xff] as string) +
      (HEX[hi & 0xff] as string) +
      (HEX[lo >>> 24] as string) +
      (HEX[(lo >>> 16) & 0xff] as string) +
      (HEX[(lo >>> 8) & 0xff] as string) +
      (HEX[lo & 0xff] as string)
    );
  }
}

/** FNV-1a 64-bit of a string's UTF-16 code units (raw, no tags), as 16 hex digits. */
export function fnv1a64(s: string): string {
  const h = new Fnv64();
  for (let i = 0; i < s.length; i++) h.unit(s.charCodeAt(i));
  return h.hex();
}

type Json = Record<string, unknown>;

/**
 * Containers nested deeper than this are walked with an explicit stack ({@link hashDeep},
 * `Walk.deepValue`) instead of by recursion, which would exhaust the call stack: `JSON.parse`
 * accepts any depth, and kube-apiserver decodes request bodies up to 10,000 levels deep.
 */
const RECURSION_DEPTH = 256;

/** Canonical hash of any JSON value (sorted keys, nothing removed); `depth`: containers above it. */
function hashValue(h: Fnv64, v: unknown, depth = 0): void {
  if (v === null || v === undefined) {
    h.unit(122); // 'z'
  } else if (typeof v === 'string') {
    h.unit(115); // 's'
    h.str(v);
  } else if (typeof v === 'number') {
    h.unit(110); // 'n'
    h.num(v);
  } else if (typeof v === 'boolean') {
    h.unit(v ? 116 : 102);
  } else if (depth >= RECURSION_DEPTH && typeof v === 'object') {
    hashDeep(h, v);
  } else if (Array.isArray(v)) {
    h.unit(91); // '['
    h.int(v.length);
    for (const x of v) hashValue(h, x, depth + 1);
    h.unit(93);
  } else if (typeof v === 'object') {
    const o = v as Json;
    const keys = Object.keys(o).sort();
    h.unit(123); // '{'
    h.int(keys.length);
    for (const k of keys) {
      h.str(k);
      hashValue(h, o[k], depth + 1);
    }
    h.unit(125);
  }
}

/**
 * The containers being walked by an explicit stack, innermost last: each one, its sorted keys
 * (null for an array), and the index of the next member to walk.
 */
class Containers {
  readonly nodes: Array<Json | unknown[]> = [];
  readonly keys: Array<string[] | null> = [];
  readonly next: number[] = [];

  /** Opens `v` if it is a container (emitting `[` and its length, or `{`), else returns false. */
  open(h: Fnv64, v: unknown, objectLength: boolean): boolean {
    if (v === null || typeof v !== 'object') return false;
    if (Array.isArray(v)) {
      h.unit(91);
      h.int(v.length);
      this.keys.push(null);
    } else {
      const keys = Object.keys(v).sort();
      h.unit(123);
      if (objectLength) h.int(keys.length);
      this.keys.push(keys);
    }
    this.nodes.push(v as Json | unknown[]);
    this.next.push(0);
    return true;
  }

  /** Closes the innermost container (emitting `]` or `}`). */
  close(h: Fnv64): void {
    h.unit(this.keys.pop() === null ? 93 : 125);
    this.nodes.pop();
    this.next.pop();
  }
}

/** {@link hashValue} of a container without recursion: the same code units in the same order. */
function hashDeep(h: Fnv64, root: unknown): void {
  const c = new Containers();
  let v = root;
  for (;;) {
    if (!c.open(h, v, true)) hashValue(h, v); // a scalar
    // The next member to hash, closing the containers that are done.
    for (;;) {
      const top = c.nodes.length - 1;
      if (top < 0) return;
      const k = c.next[top]!;
      const keys = c.keys[top]!;
      const node = c.nodes[top]!;
      if (k < (keys === null ? (node as unknown[]).length : keys.length)) {
        c.next[top] = k + 1;
        if (keys === null) v = (node as unknown[])[k];
        else {
          h.str(keys[k]!);
          v = (node as Json)[keys[k]!];
        }
        break;
      }
      c.close(h);
    }
  }
}

const EMPTY: readonly string[] = Object.freeze([]);
const MAX_INTERNED = 4096;
const interned = new Map<string, readonly string[]>();

/** One shared frozen array per distinct list of names (bounded; beyond it, fresh arrays). */
function internNames(names: string[]): readonly string[] {
  if (names.length === 0) return EMPTY;
  const key = names.join(',');
  let a = interned.get(key);
  if (a === undefined) {
    a = Object.freeze(names);
    if (interned.size < MAX_INTERNED) interned.set(key, a);
  }
  return a;
}

/**
 * The shared array of a list of timestamp field names (`BodyDigest.timestampFields`), for a digest
 * rebuilt from its parts: a parser thread's answer carries a copy of the list (`names` is then
 * frozen and kept when not shared yet); a list already frozen is one a digest made here.
 */
export function internTimestampFields(names: readonly string[]): readonly string[] {
  return Object.isFrozen(names) ? names : internNames(names as string[]);
}

/** Walk state of one digest. */
class Walk {
  readonly content = new Fnv64();
  /** Timestamp field name → hash of its paths and values. */
  readonly stamps = new Map<string, Fnv64>();
  /** Keys and indices from the root to the value being walked. */
  readonly path: Array<string | number> = [];

  stamp(name: string, value: unknown, pointer: string | null): void {
    let h = this.stamps.get(name);
    if (h === undefined) {
      h = new Fnv64();
      this.stamps.set(name, h);
    }
    if (pointer !== null) h.str(pointer);
    else {
      h.int(this.path.length);
      for (const seg of this.path) {
        if (typeof seg === 'number') h.int(seg);
        else h.str(seg);
      }
      h.str(name);
    }
    hashValue(h, value);
  }

  /** Content walk: like {@link hashValue}, minus volatile metadata and timestamp fields. */
  value(v: unknown, depth: number): void {
    if (v === null || typeof v !== 'object') {
      hashValue(this.content, v);
      return;
    }
    if (depth >= RECURSION_DEPTH) {
      this.deepValue(v);
      return;
    }
    const h = this.content;
    if (Array.isArray(v)) {
      h.unit(91);
      h.int(v.length);
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        this.path.push(i);
        if (depth === 0 && isPatchOp(x)) this.patchOp(x);
        else this.value(x, depth + 1);
        this.path.pop();
      }
      h.unit(93);
      return;
    }
    const o = v as Json;
    const keys = Object.keys(o).sort();
    h.unit(123);
    for (const k of keys) {
      const x = o[k];
      if (isTimestampField(k, x)) {
        this.stamp(k, x, null);
        continue;
      }
      if (depth === 1 && VOLATILE_METADATA.has(k) && this.path.length === 1 && this.path[0] === 'metadata') continue;
      h.str(k);
      this.path.push(k);
      this.value(x, depth + 1);
      this.path.pop();
    }
    h.unit(125);
  }

  /**
   * {@link value} of a container below the top two levels (no patch operations or volatile
   * metadata there), without recursion: the same content code units in the same order. A
   * timestamp field down here is stamped with a hash of its path kept level by level (see
   * {@link stampDeep}), not the whole path again: a body with a timestamp at each of 100,000
   * levels would otherwise cost 5·10⁹ steps.
   */
  private deepValue(root: unknown): void {
    const h = this.content;
    const path = this.path;
    const base = path.length;
    const c = new Containers();
    // The hash of the path to each open container (two halves), and a scratch state to extend it.
    const pathHi: number[] = [];
    const pathLo: number[] = [];
    const p = new Fnv64();
    for (const seg of path) {
      if (typeof seg === 'number') p.int(seg);
      else p.str(seg);
    }
    let hi = p.hi;
    let lo = p.lo;
    let v = root;
    for (;;) {
      if (c.open(h, v, false)) {
        pathHi.push(hi);
        pathLo.push(lo);
      } else hashValue(h, v); // a scalar
      // The next member to walk, closing the containers that are done.
      for (;;) {
        const top = c.nodes.length - 1;
        if (top < 0) return;
        if (path.length > base + top) path.pop(); // the member walked last is done
        const keys = c.keys[top]!;
        const node = c.nodes[top]!;
        let k = c.next[top]!;
        let found = false;
        p.hi = pathHi[top]!;
        p.lo = pathLo[top]!;
        if (keys === null) {
          if (k < (node as unknown[]).length) {
            path.push(k);
            p.int(k);
            v = (node as unknown[])[k++];
            found = true;
          }
        } else {
          while (k < keys.length) {
            const name = keys[k++]!;
            const x = (node as Json)[name];
            if (isTimestampField(name, x)) {
              this.stampDeep(name, x, path.length, p);
              continue;
            }
            h.str(name);
            path.push(name);
            p.str(name);
            v = x;
            found = true;
            break;
          }
        }
        c.next[top] = k;
        if (found) {
          hi = p.hi;
          lo = p.lo;
          break;
        }
        c.close(h);
        pathHi.pop();
        pathLo.pop();
      }
    }
  }

  /**
   * {@link stamp} of a timestamp field in a container `depth` segments down whose path hashed to
   * `path` (see {@link deepValue}): a `p` tag, the depth and that hash stand for the segments.
   */
  private stampDeep(name: string, value: unknown, depth: number, path: Fnv64): void {
    let h = this.stamps.get(name);
    if (h === undefined) {
      h = new Fnv64();
      this.stamps.set(name, h);
    }
    h.int(depth);
    h.unit(112); // 'p'
    h.int(path.hi);
    h.int(path.lo);
    h.str(name);
    hashValue(h, value);
  }

  /** One JSON-patch operation (RFC 6902) of a top-level patch array. */
  patchOp(op: Json & { op: string; path: string }): void {
    const p = op.path;
    if (p.startsWith('/metadata/')) {
      const slash = p.indexOf('/', 10);
      if (VOLATILE_METADATA.has(slash === -1 ? p.slice(10) : p.slice(10, slash))) return;
    }
    const last = p.slice(p.lastIndexOf('/') + 1);
    if (isTimestampField(last, op.value) && op.op !== 'remove' && op.op !== 'move' && op.op !== 'copy') {
      const h = this.content;
      h.unit(123);
      h.str('op');
      hashValue(h, op.op);
      h.str('path');
      hashValue(h, p);
      h.unit(125);
      this.stamp(last, op.value, p);
      return;
    }
    this.value(op, 1);
  }

  digest(): BodyDigest {
    const names = [...this.stamps.keys()].sort();
    let timestamps = '';
    for (const n of names) timestamps += (this.stamps.get(n) as Fnv64).hex();
    return { content: this.content.hex(), timestamps, timestampFields: internNames(names) };
  }
}

function isPatchOp(x: unknown): x is Json & { op: string; path: string } {
  return typeof x === 'object' && x !== null && typeof (x as Json).op === 'string' && typeof (x as Json).path === 'string';
}

/**
 * Digest of a request body: a full object, a merge/strategic-merge/apply patch (objects) or a
 * JSON patch (array). `null` for anything else (absent, `null` after truncation, or a string such
 * as AKS's `"skipped-too-big-size-object"`). Never throws on JSON input; the body is not kept.
 */
export function digestBody(body: unknown): BodyDigest | null {
  if (typeof body !== 'object' || body === null) return null;
  const w = new Walk();
  w.value(body, 0);
  return w.digest();
}

/**
 * Names of the timestamp fields whose values differ between two digests (sorted); for digests
 * with different field lists, the names present in only one of them as well.
 */
export function changedTimestampFields(a: BodyDigest, b: BodyDigest): string[] {
  if (a.timestamps === b.timestamps && a.timestampFields === b.timestampFields) return [];
  const hashes = (d: BodyDigest) => {
    const m = new Map<string, string>();
    d.timestampFields.forEach((n, i) => m.set(n, d.timestamps.slice(i * 16, i * 16 + 16)));
    return m;
  };
  const ha = hashes(a);
  const hb = hashes(b);
  const out = new Set<string>();
  for (const [n, h] of ha) if (hb.get(n) !== h) out.add(n);
  for (const n of hb.keys()) if (!ha.has(n)) out.add(n);
  return [...out].sort();
}

/** `metadata.resourceVersion` of a logged response object, else `''`. */
export function responseResourceVersion(obj: unknown): string {
  if (typeof obj !== 'object' || obj === null) return '';
  const meta = (obj as Json).metadata;
  if (typeof meta !== 'object' || meta === null) return '';
  const rv = (meta as Json).resourceVersion;
  return typeof rv === 'string' ? rv : '';
}

/**
 * `metadata.name` of a logged response object, else `''`: for a create with `generateName` the
 * only place the generated name is logged (`objectRef.name` stays empty, `audit-formats.md` §1).
 */
export function responseName(obj: unknown): string {
  if (typeof obj !== 'object' || obj === null) return '';
  const meta = (obj as Json).metadata;
  if (typeof meta !== 'object' || meta === null) return '';
  const name = (meta as Json).name;
  return typeof name === 'string' ? name : '';
}
