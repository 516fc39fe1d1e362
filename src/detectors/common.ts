/**
 * Small helpers shared by detectors: report shapes of actors, stable finding ids, times, the
 * per-key state they keep (per-(object, actor) maps, step rings, evidence, per-second peaks).
 * The sliding-window options, severity and step clock are in `window.ts`.
 */
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import type { ReportActor } from '../report/schema.js';
import { fnv30 } from '../decoding/fresh.js';

/** Report view of an interned actor plus what was seen with it (sorted, de-duplicated). */
export function reportActor(a: Actor, sourceIPs: Iterable<string>, fieldManagers: Iterable<string>): ReportActor {
  return {
    username: a.username,
    userAgent: a.userAgent,
    userAgentProduct: a.userAgentProduct,
    controller: a.controller,
    serviceAccount: a.serviceAccount ? { ...a.serviceAccount } : null,
    sourceIPs: [...new Set(sourceIPs)].filter(Boolean).sort(),
    fieldManagers: [...new Set(fieldManagers)].filter(Boolean).sort(),
  };
}

/**
 * Distinct source IPs an episode counts exactly; past this its count is a lower bound, so a
 * storm from thousands of pods keeps bounded state.
 */
export const MAX_COUNTED_SOURCE_IPS = 4096;

/** The source IPs of an episode: the first ones, kept for the report, and the count of all. */
export interface SourceIPState {
  /** The first `maxListed` distinct IPs (see {@link addSourceIP}). */
  ips: Set<string>;
  /** The other distinct IPs seen, made at the first one past `ips`. */
  ipSeen: Set<string> | null;
  /** Distinct IPs seen: `ips` plus `ipSeen`, at most {@link MAX_COUNTED_SOURCE_IPS}. */
  ipCount: number;
}

/** Notes that `ip` sent a request of the episode `h`, keeping at most `maxListed` IPs to show. */
export function addSourceIP(h: SourceIPState, ip: string, maxListed: number): void {
  if (h.ips.has(ip)) return;
  if (h.ips.size < maxListed) {
    h.ips.add(ip);
    h.ipCount++;
    return;
  }
  const seen = (h.ipSeen ??= new Set());
  if (h.ipCount >= MAX_COUNTED_SOURCE_IPS || seen.has(ip)) return;
  seen.add(ip);
  h.ipCount++;
}

/** An update or patch of one named object that persists (not a dry run): a write that can loop, conflict or fight. */
export function isObjectWrite(r: RequestRecord): boolean {
  return (r.verb === 'update' || r.verb === 'patch') && !r.dryRun && r.object !== null && r.object.name !== '';
}

/** Short human name of an actor: the service-account name, else the controller, else the username. */
export function actorName(a: Actor): string {
  return a.serviceAccount?.name || a.controller || a.username || a.userAgentProduct || '(unknown)';
}

/** UTC ISO 8601 with milliseconds, e.g. `2026-08-08T18:12:05.123Z`. */
export function iso(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}

/** FNV-1a 32-bit hash as 8 hex chars: stable ids for findings across runs. */
export function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** `1234.5678` → `1234.57`: metrics carry 2 decimals (rates, ms) so reports stay readable. */
export function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/** Ratio rounded to 4 decimals (0..1), or `null` when the denominator is 0. */
export function ratio(num: number, den: number): number | null {
  return den > 0 ? Math.round((num / den) * 10_000) / 10_000 : null;
}

/** Integer with `,` thousands separators, the same on every machine: `12345` → `12,345`. */
export function int(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Sliding-window counters of one key: a ring of `steps` per-step buckets, each with `width`
 * counters. Bucket `b` covers `[b·stepMs, (b+1)·stepMs)`; the window ending at boundary `B`
 * holds buckets `B − steps … B − 1`. Most keys of a large cluster are written in one or two
 * steps, so a ring holds only the slots it uses while they are at most two, and becomes the whole
 * ring at the third: memory `2 · (width + 1)` numbers, then `steps · (width + 1)`.
 */
export class StepRing {
  /**
   * Per slot: its bucket (−1: none), then its `width` counters. While `full` is false, two
   * entries in the order first used, each standing for the ring slot `bucket % steps`; then
   * every slot of the ring, slot `s` at `s · (width + 1)`. One plain array, not a Float64Array:
   * a typed array of more than 64 bytes has its memory outside the heap and is slow to make,
   * and a ring is made per key (again after a pause).
   */
  private d: number[];
  private full = false;

  constructor(
    readonly steps: number,
    readonly width: number,
  ) {
    this.d = new Array<number>(2 * (width + 1)).fill(-1);
  }

  /** Add `by` to counter `i` of bucket `bucket`. */
  add(bucket: number, i: number, by = 1): void {
    const at = this.entry(bucket);
    this.d[at + 1 + i] = (this.d[at + 1 + i] as number) + by;
  }

  /** Sum of counter `i` over the window ending at `boundary` (buckets `boundary − steps … boundary − 1`). */
  sum(boundary: number, i: number): number {
    const d = this.d;
    const stride = this.width + 1;
    const from = boundary - this.steps;
    let t = 0;
    for (let at = 0; at < d.length; at += stride) {
      const b = d[at] as number;
      if (b >= from && b < boundary) t += d[at + 1 + i] as number;
    }
    return t;
  }

  /** Counter `i` of exactly bucket `bucket` (0 when that bucket is not held). */
  at(bucket: number, i: number): number {
    const d = this.d;
    const stride = this.width + 1;
    if (this.full) {
      const at = (bucket % this.steps) * stride;
      return d[at] === bucket ? (d[at + 1 + i] as number) : 0;
    }
    if (d[0] === bucket) return d[1 + i] as number;
    return d[stride] === bucket ? (d[stride + 1 + i] as number) : 0;
  }

  /** Forget every bucket (e.g. when an episode closes, so its tail cannot reopen it). */
  clear(): void {
    const stride = this.width + 1;
    for (let at = 0; at < this.d.length; at += stride) this.d[at] = -1;
  }

  /**
   * A ring of width 1 whose counter is counter `i` of this one, bucket by bucket: what a ring fed
   * only the adds to counter `i` would sum to over any window that does not reach back past this
   * ring's newest bucket by `steps` or more.
   */
  column(i: number): StepRing {
    const c = new StepRing(this.steps, 1);
    const stride = this.width + 1;
    for (let at = 0; at < this.d.length; at += stride) {
      const b = this.d[at] as number;
      if (b !== -1) c.add(b, 0, this.d[at + 1 + i]);
    }
    return c;
  }

  /** Index in `d` of bucket `bucket`'s entry, which it claims (counters zeroed) when it held another bucket. */
  private entry(bucket: number): number {
    const d = this.d;
    const stride = this.width + 1;
    if (this.full) {
      const at = (bucket % this.steps) * stride;
      if (d[at] !== bucket) this.claim(at, bucket);
      return at;
    }
    if (d[0] === bucket) return 0;
    if (d[stride] === bucket) return stride;
    const s = bucket % this.steps;
    // The entry of the same ring slot (its bucket is overwritten, as in the ring), else a free one.
    if (d[0] !== -1 && (d[0] as number) % this.steps === s) return this.claim(0, bucket);
    if (d[stride] !== -1 && (d[stride] as number) % this.steps === s) return this.claim(stride, bucket);
    if (d[0] === -1) return this.claim(0, bucket);
    if (d[stride] === -1) return this.claim(stride, bucket);
    this.grow();
    return this.entry(bucket);
  }

  /** Entry `at` now holds `bucket`, its counters zeroed; returns `at`. */
  private claim(at: number, bucket: number): number {
    this.d[at] = bucket;
    this.d.fill(0, at + 1, at + 1 + this.width);
    return at;
  }

  /** From the two entries to the whole ring. */
  private grow(): void {
    const stride = this.width + 1;
    const old = this.d;
    const d = new Array<number>(this.steps * stride).fill(0);
    for (let at = 0; at < d.length; at += stride) d[at] = -1;
    for (let at = 0; at < old.length; at += stride) {
      const b = old[at] as number;
      if (b === -1) continue;
      const to = (b % this.steps) * stride;
      for (let k = 0; k < stride; k++) d[to + k] = old[at + k] as number;
    }
    this.d = d;
    this.full = true;
  }
}

/**
 * Step rings of one shape (`steps` buckets of `width` counters, as {@link StepRing}), each a row
 * of one shared Float64Array: no object per ring, for a detector that holds a ring per actor for
 * as long as the actor is active (all of a cluster's kubelets). A row is taken with
 * {@link alloc} and given back with {@link free}; the numbers are the row's.
 */
export class StepRings {
  /** Row `r`, slot `s` at `r · steps · (width + 1) + s · (width + 1)`: its bucket (−1: none), then its counters. */
  private data: Float64Array;
  private rows = 0;
  private readonly freed: number[] = [];
  private readonly stride: number;

  constructor(
    readonly steps: number,
    readonly width: number,
  ) {
    this.stride = steps * (width + 1);
    this.data = new Float64Array(64 * this.stride);
  }

  /** A row with no bucket held. */
  alloc(): number {
    const row = this.freed.pop() ?? this.rows++;
    if ((row + 1) * this.stride > this.data.length) {
      const grown = new Float64Array(2 * this.data.length);
      grown.set(this.data);
      this.data = grown;
    }
    this.clear(row);
    return row;
  }

  /** Gives `row` back: it must not be used again until {@link alloc} returns it. */
  free(row: number): void {
    this.freed.push(row);
  }

  /** Add `by` to counter `i` of bucket `bucket` of ring `row`. */
  add(row: number, bucket: number, i: number, by = 1): void {
    const d = this.data;
    const at = row * this.stride + (bucket % this.steps) * (this.width + 1);
    if (d[at] !== bucket) {
      d[at] = bucket;
      d.fill(0, at + 1, at + 1 + this.width);
    }
    d[at + 1 + i] = (d[at + 1 + i] as number) + by;
  }

  /** Sum of counter `i` of ring `row` over the window ending at `boundary` (buckets `boundary − steps … boundary − 1`). */
  sum(row: number, boundary: number, i: number): number {
    const d = this.data;
    const w = this.width + 1;
    const from = boundary - this.steps;
    let t = 0;
    for (let at = row * this.stride, end = at + this.stride; at < end; at += w) {
      const b = d[at] as number;
      if (b >= from && b < boundary) t += d[at + 1 + i] as number;
    }
    return t;
  }

  /** Counter `i` of exactly bucket `bucket` of ring `row` (0 when that bucket is not held). */
  at(row: number, bucket: number, i: number): number {
    const at = row * this.stride + (bucket % this.steps) * (this.width + 1);
    return this.data[at] === bucket ? (this.data[at + 1 + i] as number) : 0;
  }

  /** Forget every bucket of ring `row`. */
  clear(row: number): void {
    const w = this.width + 1;
    for (let at = row * this.stride, end = at + this.stride; at < end; at += w) this.data[at] = -1;
  }
}

/**
 * Per-(object, actor) states, iterated in the order they were added. Objects go by their key
 * (`ObjectRef.key`, a string each instance holds: no key built per record; two instances of one
 * object, as the normalizer makes for an object idle for two generations, share their states),
 * actors, which the normalizer keeps one instance of while in use, by identity: an object written
 * by one actor (most are) maps to its state itself, one written by several to a map per actor, so
 * a state costs no map of its own.
 */
export class PairMap<S extends { readonly object: ObjectRef; readonly actor: Actor }> implements Iterable<S> {
  private readonly byObject = new Map<string, S | Map<Actor, S>>();
  private readonly order = new Set<S>();

  /** The state of (`object`, `actor`), if any. */
  get(object: ObjectRef, actor: Actor): S | undefined {
    const v = this.byObject.get(object.key);
    if (v === undefined) return undefined;
    if (v instanceof Map) return v.get(actor);
    return v.actor === actor ? v : undefined;
  }

  /** Whether some actor has a state for `object`. */
  hasObject(object: ObjectRef): boolean {
    return this.byObject.has(object.key);
  }

  /**
   * Adds `s` last and returns it; its object and actor must have no state yet. `get`, then `add`
   * when there is none, rather than a get-or-make with a callback: a callback closing over the
   * record would be allocated for every write.
   */
  add(s: S): S {
    const key = s.object.key;
    const v = this.byObject.get(key);
    if (v === undefined) this.byObject.set(key, s);
    else if (v instanceof Map) v.set(s.actor, s);
    else
      this.byObject.set(
        key,
        new Map([
          [v.actor, v],
          [s.actor, s],
        ]),
      );
    this.order.add(s);
    return s;
  }

  /** Forget `s`; safe while iterating. */
  delete(s: S): void {
    const key = s.object.key;
    const v = this.byObject.get(key);
    if (v === s) this.byObject.delete(key);
    else if (v instanceof Map) {
      v.delete(s.actor);
      if (v.size === 0) this.byObject.delete(key);
    }
    this.order.delete(s);
  }

  /** Forget every state. */
  clear(): void {
    this.byObject.clear();
    this.order.clear();
  }

  /** States held. */
  get size(): number {
    return this.order.size;
  }

  /** The states, oldest first. */
  [Symbol.iterator](): Iterator<S> {
    return this.order.values();
  }
}

/**
 * Most first writes a {@link FirstWrites} holds by default (see `EngineOptions.firstWrites`):
 * each pins its record and the interned object it names (about 1.4 KB over the four detectors
 * that hold writes, shared). 5,000 is 2 s of writes at 2,500 a second: enough for the benchmark
 * log's and the evaluation's keys (the same findings as with more held or none), and it bounds
 * the live heap on a log of new objects (see `docs/performance.md`).
 */
export const FIRST_WRITES_HELD = 5_000;

/**
 * The {@link FirstWrites} of a detector whose keys, with one write, cannot open an episode under
 * its options (`oneWriteIsQuiet`), holding at most `ctx.firstWrites` (default
 * {@link FIRST_WRITES_HELD}); `null`, so every key gets its state at its first write, when they
 * could or when `ctx.firstWrites` is 0.
 */
export function firstWritesFor<K>(ctx: { readonly firstWrites?: number }, oneWriteIsQuiet: boolean, horizonMs: number, keyString: (key: K) => string): FirstWrites<K> | null {
  const capacity = ctx.firstWrites ?? FIRST_WRITES_HELD;
  return oneWriteIsQuiet && capacity > 0 ? new FirstWrites<K>(horizonMs, capacity, keyString) : null;
}

/**
 * The first write of each key (an object, or an object's family) that has no detector state
 * yet, held until a second write to the key shows it is worth state. Most distinct objects of a
 * large cluster are written once or twice (a pod's status as it starts, an Event's count), and
 * a state per object written once (rings, maps, episode stats) kept until it is idle was
 * kilobytes per object: memory grew with the log.
 *
 * A held write is given back by {@link take} at the key's next write; the detector then makes
 * the state, feeds it the first write, judges the boundaries that passed in between
 * (`catchUp` in `window.ts`) and feeds the second: the same state as if it had been made at
 * once, as a key with one write cannot open an episode (each detector holds writes only when its
 * options make that so). The detector drops held writes older than `horizonMs` at each step
 * boundary ({@link expire}: by then their state would have been dropped as idle). Past
 * `capacity` held, the oldest is dropped and only its key's hash is remembered, in a table of
 * 4 × `capacity` slots: that key's next write then gets a state at once, which starts from
 * that write (the first is lost: counts are one write short). A slot holds one hash, so a key
 * may be taken for one seen (its state is then made at once, as without holding) or be
 * forgotten (its next write is held again).
 */
export class FirstWrites<K> {
  /** Held writes by key. */
  private readonly held = new Map<K, RequestRecord>();
  /**
   * Every write held, in time order (records come in non-decreasing `ts`), as a ring of at most
   * `capacity` slots: a write taken back stays in its slot until the slot's turn comes. A ring,
   * not the map's own order: a map whose oldest entries keep being deleted is walked over their
   * holes from its start each time.
   */
  private readonly keys: Array<K | undefined> = [];
  private readonly records: Array<RequestRecord | undefined> = [];
  private head = 0;
  private count = 0;
  /** Hashes (`| 1`, so never 0) of the keys whose held write was dropped for room; made at the first drop. */
  private seen: Int32Array | null = null;
  /** Held writes dropped because `capacity` were held (not the ones that went out of the horizon). */
  evicted = 0;

  /**
   * @param horizonMs how long a held write may wait for the next write to its key, ms
   * @param capacity most writes held at once (> 0)
   * @param keyString the key as a string, hashed for the table of dropped keys
   */
  constructor(
    private readonly horizonMs: number,
    private readonly capacity: number,
    private readonly keyString: (key: K) => string,
  ) {}

  /** Writes held now. */
  get size(): number {
    return this.held.size;
  }

  /**
   * The write held for `key`, which is no longer held; `null` when the key's held write was
   * dropped for room (make its state from `r` alone); else `undefined`, after holding `r` as the
   * key's first write.
   */
  take(key: K, r: RequestRecord): RequestRecord | null | undefined {
    const first = this.held.get(key);
    if (first !== undefined) {
      this.held.delete(key);
      return first;
    }
    const seen = this.seen;
    if (seen !== null) {
      const h = fnv30(this.keyString(key));
      const slot = h & (seen.length - 1);
      if (seen[slot] === (h | 1)) {
        seen[slot] = 0;
        return null;
      }
    }
    if (this.count === this.capacity && this.evict()) this.evicted++;
    let i = this.head + this.count;
    if (i >= this.capacity) i -= this.capacity;
    if (i === this.keys.length) {
      this.keys.push(key);
      this.records.push(r);
    } else {
      this.keys[i] = key;
      this.records[i] = r;
    }
    this.count++;
    this.held.set(key, r);
    return undefined;
  }

  /** The write held for `key`, which is no longer held; `undefined` when none is (nothing is held then). */
  release(key: K): RequestRecord | undefined {
    const first = this.held.get(key);
    if (first !== undefined) this.held.delete(key);
    return first;
  }

  /** Drop the writes older than `horizonMs` before `nowMs` (stream time, ms). */
  expire(nowMs: number): void {
    const oldest = nowMs - this.horizonMs;
    while (this.count > 0 && (this.records[this.head] as RequestRecord).ts < oldest) this.shift();
  }

  /** Forget every held write (end of input: a key written once makes no finding). */
  clear(): void {
    this.held.clear();
    this.seen = null;
    this.keys.length = 0;
    this.records.length = 0;
    this.head = 0;
    this.count = 0;
  }

  /** {@link shift} to make room: a write still held leaves its key's hash behind. */
  private evict(): boolean {
    const key = this.keys[this.head] as K;
    if (!this.shift()) return false;
    let seen = this.seen;
    if (seen === null) seen = this.seen = new Int32Array(2 ** Math.ceil(Math.log2(4 * this.capacity)));
    const hash = fnv30(this.keyString(key));
    seen[hash & (seen.length - 1)] = hash | 1;
    return true;
  }

  /** Empty the oldest slot; true when its write was still held. */
  private shift(): boolean {
    const h = this.head;
    const key = this.keys[h] as K;
    const live = this.held.get(key) === this.records[h];
    if (live) this.held.delete(key);
    this.keys[h] = undefined;
    this.records[h] = undefined;
    this.head = h + 1 === this.capacity ? 0 : h + 1;
    this.count--;
    return live;
  }
}

/**
 * Evidence auditIDs: the first `keepFirst` added and the last one, unique and in time order.
 * Detectors whose `evidenceSamples` counts samples besides the first and last pass
 * `evidenceSamples + 1`. `level` is the audit level of the first auditID added.
 */
export class EvidenceIDs {
  private readonly ids: string[] = [];
  private added = false;
  last = '';
  level = '';

  constructor(private readonly keepFirst: number) {}

  add(auditID: string, level: string): void {
    if (!this.added) this.level = level;
    this.added = true;
    if (this.ids.length < this.keepFirst) this.ids.push(auditID);
    this.last = auditID;
  }

  /** Make `auditID` the last of the evidence without taking it as a sample (e.g. a retry that ended a run). */
  extend(auditID: string): void {
    this.last = auditID;
  }

  /** Evidence of a finding; `level` says whether the log proves it or only suggests it. */
  evidence(level: 'proven' | 'suspected'): { auditIDs: string[]; firstAuditID: string; lastAuditID: string; auditLevel: string; level: 'proven' | 'suspected' } {
    const auditIDs = [...this.ids];
    if (this.last !== '' && !auditIDs.includes(this.last)) auditIDs.push(this.last);
    return { auditIDs, firstAuditID: auditIDs[0] ?? '', lastAuditID: this.last, auditLevel: this.level, level };
  }
}

/**
 * Highest count in any 1 s bucket (UTC seconds of `ts`). Records come in time order, but for a
 * held first write given back late ({@link FirstWrites}): one of an earlier second than the last
 * counts toward a peak of 1 only (its second's count is gone) and leaves the current second's
 * count alone, so two peaks of one stream, one of a subset (409s among writes), keep their order.
 */
export class PeakPerSecond {
  private sec = -1;
  private cur = 0;
  peak = 0;

  add(ts: number): void {
    const s = Math.floor(ts / 1000);
    if (s !== this.sec) {
      if (s < this.sec) {
        if (this.peak === 0) this.peak = 1;
        return;
      }
      this.sec = s;
      this.cur = 0;
    }
    if (++this.cur > this.peak) this.peak = this.cur;
  }
}

/** Top `k` entries of a count map as `label(count)`, by count desc then label; comma-joined. */
export function topList<K>(counts: Iterable<[K, number]>, label: (k: K) => string, k: number): string {
  return [...counts]
    .map(([key, c]) => [label(key), c] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, k)
    .map(([l, c]) => `${l}(${c})`)
    .join(', ');
}

/** Nearest-rank median of integers, or null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.ceil(s.length / 2) - 1] as number;
}

/** Most points in a finding's series; longer episodes are re-bucketed to wider buckets. */
export const MAX_EPISODE_POINTS = 360;

/**
 * Writes and 409 Conflicts (or other per-finding counts, as extra lines) of one episode per
 * bucket, appended as the episode goes on. Buckets
 * start `stepMs` wide at the step of the first write; when an episode outgrows `maxPoints`
 * buckets, neighbours are merged pairwise and the width doubles, so memory stays at most
 * `2 · maxPoints` numbers however long the episode runs. Times before the first bucket (late
 * records) count in the first bucket.
 */
export class EpisodeSeries {
  private origin = NaN;
  private bucketMs: number;
  /** Per line, counts per bucket; lines 0 (writes) and 1 (conflicts) by default. */
  private readonly lines: number[][];
  private readonly totals: number[];

  constructor(
    stepMs: number,
    private readonly maxPoints = MAX_EPISODE_POINTS,
    lineCount = 2,
  ) {
    this.bucketMs = stepMs;
    this.lines = Array.from({ length: Math.max(2, lineCount) }, () => []);
    this.totals = new Array<number>(this.lines.length).fill(0);
  }

  /** Count one write at `ts` (epoch ms), and whether it was answered 409 Conflict. */
  add(ts: number, conflict: boolean): void {
    const i = this.index(ts);
    this.lines[0]![i]!++;
    this.totals[0]!++;
    if (conflict) {
      this.lines[1]![i]!++;
      this.totals[1]!++;
    }
  }

  /** Add `by` to line `line` (0 writes, 1 conflicts, others as the caller defines) at `ts`. */
  bump(ts: number, line: number, by = 1): void {
    const i = this.index(ts);
    this.lines[line]![i]! += by;
    this.totals[line]! += by;
  }

  /** Move every count of line `from` into line `to`, bucket by bucket (e.g. commit tentative writes). */
  move(from: number, to: number): void {
    const src = this.lines[from]!;
    const dst = this.lines[to]!;
    let left = this.totals[from]!;
    for (let k = src.length - 1; k >= 0 && left > 0; k--) {
      const v = src[k]!;
      if (v === 0) continue;
      dst[k]! += v;
      src[k] = 0;
      left -= v;
    }
    this.totals[to]! += this.totals[from]!;
    this.totals[from] = 0;
  }

  /** Bucket index of `ts`, growing (and re-bucketing) the series as needed. */
  private index(ts: number): number {
    if (Number.isNaN(this.origin)) this.origin = Math.floor(ts / this.bucketMs) * this.bucketMs;
    let i = Math.max(0, Math.floor((ts - this.origin) / this.bucketMs));
    while (i >= this.maxPoints) {
      this.halve();
      i = Math.max(0, Math.floor((ts - this.origin) / this.bucketMs));
    }
    for (const l of this.lines) while (l.length <= i) l.push(0);
    return i;
  }

  /** Merge neighbouring buckets: twice as wide, half as many; the origin stays on a bucket boundary. */
  private halve(): void {
    const width = this.bucketMs * 2;
    const origin = Math.floor(this.origin / width) * width;
    const shift = (this.origin - origin) / this.bucketMs; // 0 or 1 old bucket before the first
    for (const l of this.lines) {
      const m: number[] = [];
      for (let k = 0; k < l.length; k++) {
        const j = Math.floor((k + shift) / 2);
        m[j] = (m[j] ?? 0) + l[k]!;
      }
      l.length = 0;
      l.push(...m);
    }
    this.origin = origin;
    this.bucketMs = width;
  }

  /**
   * The series for a report, up to the bucket holding `untilMs` (the finding's end).
   * `writesLine` / `conflictsLine` pick the lines reported as `writes` / `conflicts`; with
   * `trim`, trailing buckets where both are 0 are left out.
   * @returns bucket width and points (`t` = bucket start, epoch ms)
   */
  toReport(untilMs = Infinity, writesLine = 0, conflictsLine = 1, trim = false): { bucketMs: number; points: Array<{ t: number; writes: number; conflicts: number }> } {
    const points: Array<{ t: number; writes: number; conflicts: number }> = [];
    const w = this.lines[writesLine]!;
    const c = this.lines[conflictsLine]!;
    for (let i = 0; i < w.length; i++) {
      const t = this.origin + i * this.bucketMs;
      if (t > untilMs) break;
      points.push({ t, writes: w[i]!, conflicts: c[i]! });
    }
    if (trim) while (points.length > 0 && points[points.length - 1]!.writes === 0 && points[points.length - 1]!.conflicts === 0) points.pop();
    return { bucketMs: this.bucketMs, points };
  }
}

/** Upper bounds (ms) of the retry-gap histogram buckets; gaps above the last go in a final bucket. */
export const RETRY_GAP_BOUNDS_MS: readonly number[] = [1, 10, 100, 1_000, 10_000];

/** Retry gaps counted in the fixed {@link RETRY_GAP_BOUNDS_MS} buckets: constant memory. */
export class GapHistogram {
  private readonly counts = new Array<number>(RETRY_GAP_BOUNDS_MS.length + 1).fill(0);

  add(gapMs: number): void {
    let i = RETRY_GAP_BOUNDS_MS.findIndex((b) => gapMs <= b);
    if (i < 0) i = RETRY_GAP_BOUNDS_MS.length;
    this.counts[i]!++;
  }

  /** Buckets in order: `upToMs` the bound, `null` for the last (above every bound). */
  toReport(): Array<{ upToMs: number | null; count: number }> {
    return this.counts.map((count, i) => ({ upToMs: RETRY_GAP_BOUNDS_MS[i] ?? null, count }));
  }
}

/**
 * One identity (username) per actor: controllers of one binary that share a service account and
 * each set their own userAgent are one writer (cert-manager#6714: three controllers at about
 * 1.6 writes/s each, 4.8/s together). The first actor seen with a username stands for it, so a
 * detector keyed by the returned actor judges per identity. At most `max` usernames are
 * remembered; beyond, the map starts over.
 */
export class Identities {
  private byUser = new Map<string, Actor>();
  constructor(private readonly max = 20_000) {}

  /** The actor that stands for `a.username` (the first seen with it). */
  of(a: Actor): Actor {
    let id = this.byUser.get(a.username);
    if (id === undefined) {
      if (this.byUser.size >= this.max) this.byUser = new Map();
      id = a;
      this.byUser.set(a.username, a);
    }
    return id;
  }

  clear(): void {
    this.byUser.clear();
  }
}

/**
 * Requests per actor (userAgent) of one identity in one episode: the finding's `userAgents`
 * breakdown, and the actor it names (the userAgent with most requests). At most `max` actors are
 * told apart; the rest are counted under `(other)`. `mark()` freezes the counts a finding reports
 * (`report(true)`), for episodes whose totals stop at their last telling request (`toAttempts`).
 */
export class UserAgentCounts {
  /** Per actor: [requests, requests as of the last `mark()`]. */
  private readonly counts = new Map<Actor, [number, number]>();
  private readonly other: [number, number] = [0, 0];
  constructor(private readonly max = 8) {}

  add(a: Actor): void {
    const c = this.counts.get(a);
    if (c !== undefined) c[0]++;
    else if (this.counts.size < this.max) this.counts.set(a, [1, 0]);
    else this.other[0]++;
  }

  /** The counts so far become the ones `report(true)` and `top(…, true)` give. */
  mark(): void {
    for (const c of this.counts.values()) c[1] = c[0];
    this.other[1] = this.other[0];
  }

  /** The actor with most requests (ties: the userAgent first in code-unit order), or `fallback`. */
  top(fallback: Actor, marked = false): Actor {
    const k = marked ? 1 : 0;
    let best: Actor | null = null;
    let bestN = 0;
    for (const [a, c] of this.counts) if (c[k] > bestN || (c[k] === bestN && best !== null && a.userAgent < best.userAgent)) [best, bestN] = [a, c[k]];
    return best ?? fallback;
  }

  /**
   * `{ userAgents: 'UA(requests), …' }` (most first, ties by userAgent) when the identity used
   * more than one userAgent, else `{}`: the metric `hot-loop` reports too. The counts sum to the
   * finding's requests.
   */
  report(marked = false): { userAgents?: string } {
    const k = marked ? 1 : 0;
    const list: Array<[string, number]> = [];
    for (const [a, c] of this.counts) if (c[k] > 0) list.push([a.userAgent, c[k]]);
    if (this.other[k] > 0) list.push(['(other)', this.other[k]]);
    return list.length > 1 ? { userAgents: topList(list, (ua) => ua, list.length) } : {};
  }
}
