/**
 * Recent write and 409-Conflict rates per key (actor, object) for `/metrics`, in bounded memory.
 *
 * Each key has a ring of `buckets` counters of `bucketMs` of stream time each; a rate is the sum
 * of the buckets inside the last `bucketMs × buckets` divided by that span. Keys idle for a whole
 * span are dropped by {@link RecentRates.sweep}; at most `maxKeys` keys are tracked (writes of
 * further keys are counted in {@link RecentRates.untracked} only), so a flood of distinct objects
 * cannot grow memory without bound.
 */

/** Rates of one key over the span, per second. */
export interface KeyRate {
  key: string;
  writesPerSec: number;
  conflictsPerSec: number;
}

/** Slots a {@link RecentRates} allocates first; its arrays double from there up to `maxKeys`. */
const FIRST_SLOTS = 64;

/**
 * Sliding per-key counters; see the module comment. Times are stream time, UTC epoch ms.
 *
 * A key's counters live in typed arrays shared by all keys, at its slot number (`bucketMs ×
 * buckets` apart): a key costs its `Map` entry and `buckets` × 16 + 8 bytes, where an object and
 * three typed arrays of its own cost about 450 bytes (`serve` tracks up to 20,000 keys).
 */
export class RecentRates {
  /** Key → slot number. */
  private readonly slots = new Map<string, number>();
  /** Slot numbers given back by {@link sweep}, to be reused first. */
  private free: number[] = [];
  /** Slots allocated so far (the arrays' length over `buckets`). */
  private capacity = 0;
  /** Bucket number each slot's ring entry holds (⌊ts / bucketMs⌋), or -1; `buckets` per slot. */
  private bucket = new Float64Array(0);
  private writes = new Float64Array(0);
  private conflicts = new Float64Array(0);
  /** Each slot's newest bucket number. */
  private lastBucket = new Float64Array(0);
  /** Writes of keys not tracked because `maxKeys` were already tracked. */
  untracked = 0;

  constructor(
    private readonly bucketMs = 10_000,
    private readonly buckets = 6,
    private readonly maxKeys = 10_000,
  ) {}

  /** Keys tracked now. */
  get size(): number {
    return this.slots.size;
  }

  /** Length of the span rates are taken over (ms). */
  get spanMs(): number {
    return this.bucketMs * this.buckets;
  }

  /** A slot for a new key, or -1 when `maxKeys` are tracked. */
  private newSlot(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    const n = this.slots.size;
    if (n >= this.maxKeys) return -1;
    if (n >= this.capacity) {
      const cap = Math.min(this.maxKeys, Math.max(FIRST_SLOTS, 2 * this.capacity));
      const grow = (a: Float64Array<ArrayBuffer>, per: number): Float64Array<ArrayBuffer> => {
        const b = new Float64Array(cap * per);
        b.set(a);
        return b;
      };
      this.bucket = grow(this.bucket, this.buckets);
      this.writes = grow(this.writes, this.buckets);
      this.conflicts = grow(this.conflicts, this.buckets);
      this.lastBucket = grow(this.lastBucket, 1);
      this.capacity = cap;
    }
    return n;
  }

  /** Counts one write of `key` at `ts` (epoch ms); `conflict` for a 409 Conflict answer. */
  add(key: string, ts: number, conflict: boolean): void {
    let s = this.slots.get(key);
    if (s === undefined) {
      s = this.newSlot();
      if (s < 0) {
        this.untracked++;
        return;
      }
      this.bucket.fill(-1, s * this.buckets, (s + 1) * this.buckets);
      this.lastBucket[s] = -1;
      this.slots.set(key, s);
    }
    const b = Math.floor(ts / this.bucketMs);
    // Older than the ring (a resent batch): its slot now holds a newer bucket.
    if (b <= this.lastBucket[s]! - this.buckets) return;
    const i = s * this.buckets + (((b % this.buckets) + this.buckets) % this.buckets);
    if (this.bucket[i] !== b) {
      this.bucket[i] = b;
      this.writes[i] = 0;
      this.conflicts[i] = 0;
    }
    this.writes[i]!++;
    if (conflict) this.conflicts[i]!++;
    if (b > this.lastBucket[s]!) this.lastBucket[s] = b;
  }

  /** Drops keys with no write in the span ending at `nowMs`. */
  sweep(nowMs: number): void {
    const oldest = Math.floor(nowMs / this.bucketMs) - this.buckets + 1;
    for (const [k, s] of this.slots) {
      if (this.lastBucket[s]! < oldest) {
        this.slots.delete(k);
        this.free.push(s);
      }
    }
    // All gone: start the slots over, so the free list does not keep the high-water mark's numbers.
    if (this.slots.size === 0) this.free = [];
  }

  /**
   * The `n` keys with the highest 409 rate, then write rate, then name, over the span ending at
   * `nowMs`; keys without writes in the span are left out.
   */
  top(n: number, nowMs: number): KeyRate[] {
    const nowBucket = Math.floor(nowMs / this.bucketMs);
    const oldest = nowBucket - this.buckets + 1;
    const spanSec = this.spanMs / 1000;
    const out: KeyRate[] = [];
    for (const [key, s] of this.slots) {
      let w = 0;
      let c = 0;
      for (let i = s * this.buckets; i < (s + 1) * this.buckets; i++) {
        const b = this.bucket[i]!;
        if (b >= oldest && b <= nowBucket) {
          w += this.writes[i]!;
          c += this.conflicts[i]!;
        }
      }
      if (w > 0) out.push({ key, writesPerSec: w / spanSec, conflictsPerSec: c / spanSec });
    }
    out.sort((a, b) => b.conflictsPerSec - a.conflictsPerSec || b.writesPerSec - a.writesPerSec || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return out.slice(0, n);
  }
}
