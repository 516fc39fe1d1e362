/**
 * Run-wide summaries: requests by verb × resource × code, top actors and objects, and latency
 * percentiles per verb × resource (hdr-histogram-js, microsecond resolution, 2 significant
 * digits, 1 h ceiling: `latency.ts`). Per-object counters are kept for writes only, since reads
 * of millions of objects say nothing about storms.
 */
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import { isConflict } from '../decoding/record.js';
import type { ReportObject, Summaries } from '../report/schema.js';
import { laneA } from '../decoding/hash.js';
import { LatencyBins } from './latency.js';

interface ActorCounts {
  requests: number;
  writes: number;
  conflicts: number;
  alreadyExists: number;
  throttled: number;
}

/** An actor's entry, also cached on the interned actor (`Actor.summaryMemo`) for its owner. */
interface ActorEntry extends ActorCounts {
  readonly owner: Aggregates;
  readonly actor: Actor;
  /** In the table of actors: false once forgotten (see {@link MAX_TRACKED_ACTORS}). */
  tracked: boolean;
}

/**
 * Written objects tracked for the top-objects tables. Past this, the objects with the fewest
 * writes are forgotten (half of them at a time), so a log of millions of distinct objects keeps
 * flat memory; an object forgotten and written again later counts from then on, so only objects
 * below the median of the tracked ones can be undercounted (the tables show the top few). Each
 * tracked object pins its interned `ObjectRef` (≈ 350 bytes with its strings), so this bounds
 * the live heap (see docs/performance.md, "Records moved from code comments"); its counts are
 * slots of typed arrays ({@link TrackedObjects}), not an object of its own.
 */
export const MAX_TRACKED_OBJECTS = 10_000;

/**
 * Actors tracked for the top-actors tables. Past this, the half with the fewest 409s, 429s and
 * AlreadyExists answers, then the fewest requests, is forgotten, as objects are: a log with a new
 * username every few requests (generated service accounts, per-job users) keeps flat memory, and
 * only actors ranked below the median of the tracked ones can be undercounted. Kubelets of a
 * 10,000-node cluster fit.
 */
export const MAX_TRACKED_ACTORS = 20_000;

/** Plain copy of an interned object for the report. */
export function reportObject(o: ObjectRef): ReportObject {
  return {
    apiGroup: o.apiGroup,
    apiVersion: o.apiVersion,
    resource: o.resource,
    namespace: o.namespace,
    name: o.name,
    subresource: o.subresource,
  };
}

/**
 * The requests of one verb on one kind of object (resource label): counts by code (a few codes
 * each, so two parallel arrays searched in order) and the latency histogram (null until a request
 * with a latency comes).
 */
interface VerbCell {
  /** The verb it counts (a per-object memo of the cell checks it). */
  readonly verb: string;
  codes: number[];
  counts: number[];
  latency: LatencyBins | null;
}

/** The hash of an object's key the table finds its slot by: lane A of `idLanes`, in 30 bits. */
function keyHash(s: string): number {
  return laneA(s) & 0x3fffffff;
}

/**
 * The written objects the summaries track, at most `capacity` of them, each in a slot: its
 * interned object, its writes and conflicts (side by side in one `Float64Array`) and the cell of
 * the verb it was last requested with, so a tracked object costs no allocation of its own. Slots are
 * listed in the order their objects began to be tracked (`order`), which is the order
 * {@link forget} drops ties in; dropped slots are reused through a free list, so no sweep moves
 * the others. Slots are found by key in an open-addressing table of their numbers (`table`,
 * linear probing, load ≤ 0.5; each entry the slot and its hash side by side, so a probe reads
 * one cache line) by the key's hash ({@link keyHash}), which each object carries
 * from its first write on (`ObjectRef.summaryMemo`: a function of the key alone, so valid for
 * every summary and after the object is dropped): no `Map` of strings to grow, shrink and
 * rehash as half the objects go and new ones come, and no key hashed twice.
 */
class TrackedObjects {
  /** By slot: the instance it was filled for (its key is the slot's key, its fields are reported), or null while free. */
  readonly refs: Array<ObjectRef | null>;
  /**
   * By slot `s`: at `2s` its writes (successful or not, `RequestRecord.isWrite`), at `2s + 1`
   * its 409 Conflict answers, since tracked.
   */
  readonly counts: Float64Array;
  /** By slot: the cell of the verb last requested (null until the first request is counted). */
  readonly cells: Array<VerbCell | null>;
  /** The slots in use, first `size` of it, in the order they were filled. */
  readonly order: Int32Array;
  size = 0;
  /** By slot: the hash of its object's key ({@link keyHash}), to find its entry when it goes. */
  private readonly hashes: Int32Array;
  /**
   * Entry `i` (home: the hash's low bits) at `2i`: slot + 1 (0: empty), at `2i + 1`: its hash;
   * a power of 2 ≥ 2 × capacity entries.
   */
  private readonly table: Int32Array;
  private readonly mask: number;
  /** Free slots, first `freeCount` of it, after the never-used ones from `fresh` on. */
  private readonly free: Int32Array;
  private freeCount = 0;
  private fresh = 0;

  /** @param capacity most objects tracked at once (≥ 2). */
  constructor(readonly capacity: number) {
    this.refs = new Array<ObjectRef | null>(capacity).fill(null);
    this.counts = new Float64Array(2 * capacity);
    this.cells = new Array<VerbCell | null>(capacity).fill(null);
    this.order = new Int32Array(capacity);
    this.hashes = new Int32Array(capacity);
    let n = 4;
    while (n < 2 * capacity) n *= 2;
    this.table = new Int32Array(2 * n);
    this.mask = n - 1;
    this.free = new Int32Array(capacity);
  }

  /** The slot of `o` (by key; `h` is its {@link keyHash}), or -1 when not tracked. */
  find(o: ObjectRef, h: number): number {
    const table = this.table;
    const mask = this.mask;
    for (let i = h & mask, v = table[2 * i]!; v !== 0; i = (i + 1) & mask, v = table[2 * i]!) {
      if (table[2 * i + 1] === h) {
        // Another instance of the same key (interned again) shares the slot of the first.
        const r = this.refs[v - 1]!;
        if (r === o || r.key === o.key) return v - 1;
      }
    }
    return -1;
  }

  /**
   * Starts tracking `o` (not tracked; `h` is its {@link keyHash}) with no counts, after dropping
   * half of the others when full ({@link forget}); its slot.
   */
  track(o: ObjectRef, h: number): number {
    if (this.size >= this.capacity) this.forget();
    const table = this.table;
    const mask = this.mask;
    let i = h & mask;
    while (table[2 * i] !== 0) i = (i + 1) & mask;
    const s = this.freeCount > 0 ? this.free[--this.freeCount]! : this.fresh++;
    table[2 * i] = s + 1;
    table[2 * i + 1] = h;
    this.hashes[s] = h;
    this.refs[s] = o;
    this.counts[2 * s] = 0;
    this.counts[2 * s + 1] = 0;
    this.cells[s] = null;
    this.order[this.size++] = s;
    return s;
  }

  /**
   * Takes slot `s` out of the table: the entries after it in its probe run that may sit at its
   * place move back (backward-shift deletion), so no tombstone ever lengthens a lookup.
   */
  private unlink(s: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = this.hashes[s]! & mask;
    while (table[2 * i] !== s + 1) i = (i + 1) & mask;
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const v = table[2 * j]!;
      if (v === 0) break;
      const h = table[2 * j + 1]!;
      const home = h & mask;
      // The entry at j stays unless its home is outside the cyclic range (i, j].
      if (i <= j ? home <= i || home > j : home <= i && home > j) {
        table[2 * i] = v;
        table[2 * i + 1] = h;
        i = j;
      }
    }
    table[2 * i] = 0;
  }

  /**
   * Drops the half of the tracked objects with the fewest writes + conflicts: those at or below
   * the median, the earliest tracked first, until half are gone. The survivors keep their slots
   * and their order; only `order` is compacted.
   */
  private forget(): void {
    const n = this.size;
    const order = this.order;
    const c = this.counts;
    const sums = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const s = order[i]!;
      sums[i] = c[2 * s]! + c[2 * s + 1]!;
    }
    sums.sort();
    const limit = sums[Math.floor(n / 2)]!;
    const target = n / 2;
    let dropped = 0;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const s = order[i]!;
      if (dropped < target && c[2 * s]! + c[2 * s + 1]! <= limit) {
        this.unlink(s);
        this.refs[s] = null;
        this.cells[s] = null;
        this.free[this.freeCount++] = s;
        dropped++;
      } else order[kept++] = s;
    }
    this.size = kept;
  }
}

/** Accumulates summaries; feed every counted request once. */
export class Aggregates {
  /** label -> verb -> its cell; label '' for non-resource requests. */
  private readonly cells = new Map<string, Map<string, VerbCell>>();
  /**
   * By `Actor.key`, so an actor interned again after being dropped counts as the same one; each
   * entry is also cached on its actor (`Actor.summaryMemo`), which spares the lookup.
   */
  private readonly actors = new Map<string, ActorEntry>();
  /** Written objects: at most `maxObjects`, by `ObjectRef.key` (its hash cached on each object, `ObjectRef.summaryMemo`). */
  private readonly objects: TrackedObjects;
  private readonly totals = { requests: 0, writes: 0, conflicts: 0, alreadyExists: 0, throttled: 0 };
  // The last cell of a request whose object has no entry (read-only objects, non-resource
  // requests: label ''), and its kind and verb (consecutive ones often share them).
  private lastLabel = '';
  private lastVerb = '';
  private lastCell: VerbCell | null = null;

  /** @param maxObjects written objects tracked at once for the top-objects tables (≥ 2; see {@link MAX_TRACKED_OBJECTS}). */
  constructor(maxObjects = MAX_TRACKED_OBJECTS) {
    this.objects = new TrackedObjects(maxObjects);
  }

  add(r: RequestRecord): void {
    const conflict = isConflict(r);
    const exists = r.code === 409 && !conflict;
    const throttled = r.code === 429;
    const write = r.isWrite;
    tally(this.totals, write, conflict, exists, throttled);

    const actor = r.actor;
    let a = actor.summaryMemo as ActorEntry | undefined;
    if (a === undefined || a.owner !== this || !a.tracked) {
      a = this.actors.get(actor.key);
      if (a === undefined) {
        if (this.actors.size >= MAX_TRACKED_ACTORS) this.forgetActors();
        a = { owner: this, actor, requests: 0, writes: 0, conflicts: 0, alreadyExists: 0, throttled: 0, tracked: true };
        this.actors.set(actor.key, a);
      }
      actor.summaryMemo = a;
    }
    tally(a, write, conflict, exists, throttled);

    const verb = r.verb;
    const o = r.object;
    let cell: VerbCell;
    const t = this.objects;
    let s = -1;
    if (o !== null) {
      let h = o.summaryMemo as number | undefined;
      // Objects only ever read are never hashed nor tracked (they are most of a large cluster's
      // objects): their cell comes from the last-used memo below.
      if (h === undefined && (write || conflict)) {
        h = keyHash(o.key);
        o.summaryMemo = h;
      }
      if (h !== undefined) {
        s = t.find(o, h);
        if (s < 0 && (write || conflict)) s = t.track(o, h);
      }
    }
    if (s >= 0) {
      if (write) t.counts[2 * s]!++;
      if (conflict) t.counts[2 * s + 1]!++;
      let c = t.cells[s]!;
      if (c === null || c.verb !== verb) {
        c = this.cellOf(o!.label, verb);
        t.cells[s] = c;
      }
      cell = c;
    } else {
      const label = o === null ? '' : o.label;
      let c = this.lastCell;
      if (c === null || verb !== this.lastVerb || label !== this.lastLabel) {
        c = this.cellOf(label, verb);
        this.lastCell = c;
        this.lastVerb = verb;
        this.lastLabel = label;
      }
      cell = c;
    }

    const codes = cell.codes;
    let k = 0;
    while (k < codes.length && codes[k] !== r.code) k++;
    if (k === codes.length) {
      codes.push(r.code);
      cell.counts.push(1);
    } else cell.counts[k]!++;

    if (r.latencyMs >= 0) {
      cell.latency ??= new LatencyBins();
      cell.latency.add(r.latencyMs);
    }
  }

  /** The cell of `verb` on objects of kind `label` (`''`: non-resource requests). */
  private cellOf(label: string, verb: string): VerbCell {
    let byVerb = this.cells.get(label);
    if (byVerb === undefined) {
      byVerb = new Map();
      this.cells.set(label, byVerb);
    }
    let cell = byVerb.get(verb);
    if (cell === undefined) {
      cell = { verb, codes: [], counts: [], latency: null };
      byVerb.set(verb, cell);
    }
    return cell;
  }

  /** Drops the half of the tracked actors that rank lowest: fewest 409s, 429s and AlreadyExists, then fewest requests (as {@link TrackedObjects.forget} drops objects). */
  private forgetActors(): void {
    const weight = (a: ActorEntry): number => (a.conflicts + a.throttled + a.alreadyExists) * 2 ** 32 + a.requests;
    const weights = new Float64Array(this.actors.size);
    let i = 0;
    this.actors.forEach((a) => {
      weights[i++] = weight(a);
    });
    weights.sort();
    const limit = weights[Math.floor(weights.length / 2)]!;
    const target = weights.length / 2;
    let dropped = 0;
    this.actors.forEach((a, key) => {
      if (dropped < target && weight(a) <= limit) {
        this.actors.delete(key);
        a.tracked = false;
        dropped++;
      }
    });
  }

  /** Summaries with `top` rows per table, in a total, deterministic order. */
  summarize(top: number): Summaries {
    const vrcRows: Summaries['requestsByVerbResourceCode'] = [];
    for (const [resource, byVerb] of this.cells) {
      for (const [verb, cell] of byVerb) {
        for (let k = 0; k < cell.codes.length; k++) vrcRows.push({ verb, resource: resource || '(non-resource)', code: cell.codes[k]!, count: cell.counts[k]! });
      }
    }
    vrcRows.sort((x, y) => y.count - x.count || cmp(x.verb, y.verb) || cmp(x.resource, y.resource) || x.code - y.code);

    const actorRows = [...this.actors.values()].map(({ actor, requests, writes, conflicts, alreadyExists, throttled }) => ({
      username: actor.username,
      userAgent: actor.userAgent,
      requests,
      writes,
      conflicts,
      alreadyExists,
      throttled,
    }));
    type ActorRow = (typeof actorRows)[number];
    const topActors = (field: keyof ActorCounts): ActorRow[] =>
      firstRows(
        actorRows.filter((r) => r[field] > 0),
        top,
        (x, y) => y[field] - x[field] || cmp(x.username, y.username) || cmp(x.userAgent, y.userAgent),
      );

    const t = this.objects;
    const objectRows: Array<{ object: ObjectRef; writes: number; conflicts: number }> = [];
    for (let i = 0; i < t.size; i++) {
      const s = t.order[i]!;
      objectRows.push({ object: t.refs[s]!, writes: t.counts[2 * s]!, conflicts: t.counts[2 * s + 1]! });
    }
    const topObjects = (field: 'writes' | 'conflicts') =>
      firstRows(
        objectRows.filter((c) => c[field] > 0),
        top,
        (x, y) => y[field] - x[field] || cmp(x.object.key, y.object.key),
      ).map((c) => ({ object: reportObject(c.object), writes: c.writes, conflicts: c.conflicts }));

    const latency: Summaries['latency'] = [];
    for (const [resource, byVerb] of this.cells) {
      for (const [verb, cell] of byVerb) {
        if (cell.latency === null) continue;
        const p = cell.latency.percentiles();
        latency.push({ verb, resource: resource || '(non-resource)', count: p.count, p50: us(p.p50), p90: us(p.p90), p99: us(p.p99), max: us(p.max) });
      }
    }
    latency.sort((x, y) => y.count - x.count || cmp(x.verb, y.verb) || cmp(x.resource, y.resource));

    return {
      totals: { ...this.totals },
      requestsByVerbResourceCode: vrcRows.slice(0, Math.max(top, 20)),
      topActors: {
        byRequests: topActors('requests'),
        byWrites: topActors('writes'),
        byConflicts: topActors('conflicts'),
        byThrottled: topActors('throttled'),
      },
      topObjects: { byWrites: topObjects('writes'), byConflicts: topObjects('conflicts') },
      latency: latency.slice(0, Math.max(top, 20)),
    };
  }
}

/** Counts one request in `c`. */
function tally(c: ActorCounts, write: boolean, conflict: boolean, exists: boolean, throttled: boolean): void {
  c.requests++;
  if (write) c.writes++;
  if (conflict) c.conflicts++;
  if (exists) c.alreadyExists++;
  if (throttled) c.throttled++;
}

/**
 * µs from the histogram → ms, to 3 significant digits: the histogram keeps 2, and reports the
 * highest value equivalent to a bucket, so more digits would be noise.
 */
function us(v: number): number {
  return Number((v / 1000).toPrecision(3));
}

/**
 * The first `k` of `rows` in the order of `compare` (a total order): what
 * `[...rows].sort(compare).slice(0, k)` gives, with about `rows.length` comparisons where the
 * sort made `rows.length · log2(rows.length)` (for a `k` of more than an eighth of the rows, that
 * sort). The summaries are made once per report, so their comparators run in V8's interpreter,
 * over thousands of objects and actors.
 */
export function firstRows<T>(rows: readonly T[], k: number, compare: (a: T, b: T) => number): T[] {
  // Each row may move up to k kept ones: for a k near the row count (`--top 1000000`), the sort.
  if (rows.length <= 8 * k) return [...rows].sort(compare).slice(0, k);
  const best: T[] = [];
  if (k <= 0) return best;
  for (const r of rows) {
    if (best.length === k && compare(r, best[k - 1]!) >= 0) continue;
    let i = best.length === k ? k - 1 : best.length;
    while (i > 0 && compare(r, best[i - 1]!) < 0) i--;
    if (best.length === k) best.pop();
    best.splice(i, 0, r);
  }
  return best;
}

/** Code-unit string comparison (locale-independent, so output is the same everywhere). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
