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

interface Slot {
  /** Bucket number each ring slot holds (⌊ts / bucketMs⌋), or -1. */
  bucket: Float64Array;
  writes: Float64Array;
  conflicts: Float64Array;
  lastBucket: number;
}

/** Sliding per-key counters; see the module comment. Times are stream time, UTC epoch ms. */
export class RecentRates {
  private readonly slots = new Map<string, Slot>();
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

  /** Counts one write of `key` at `ts` (epoch ms); `conflict` for a 409 Conflict answer. */
  add(key: string, ts: number, conflict: boolean): void {
    let s = this.slots.get(key);
    if (s === undefined) {
      if (this.slots.size >= this.maxKeys) {
        this.untracked++;
        return;
      }
      s = {
        bucket: new Float64Array(this.buckets).fill(-1),
        writes: new Float64Array(this.buckets),
        conflicts: new Float64Array(this.buckets),
        lastBucket: -1,
      };
      this.slots.set(key, s);
    }
    const b = Math.floor(ts / this.bucketMs);
    // Older than the ring (a resent batch): its slot now holds a newer bucket.
    if (b <= s.lastBucket - this.buckets) return;
    const i = ((b % this.buckets) + this.buckets) % this.buckets;
    if (s.bucket[i] !== b) {
      s.bucket[i] = b;
      s.writes[i] = 0;
      s.conflicts[i] = 0;
    }
    s.writes[i]!++;
    if (conflict) s.conflicts[i]!++;
    if (b > s.lastBucket) s.lastBucket = b;
  }

  /** Drops keys with no write in the span ending at `nowMs`. */
  sweep(nowMs: number): void {
    const oldest = Math.floor(nowMs / this.bucketMs) - this.buckets + 1;
    for (const [k, s] of this.slots) if (s.lastBucket < oldest) this.slots.delete(k);
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
      for (let i = 0; i < this.buckets; i++) {
        const b = s.bucket[i]!;
        if (b >= oldest && b <= nowBucket) {
          w += s.writes[i]!;
          c += s.conflicts[i]!;
        }
      }
      if (w > 0) out.push({ key, writesPerSec: w / spanSec, conflictsPerSec: c / spanSec });
    }
    out.sort((a, b) => b.conflictsPerSec - a.conflictsPerSec || b.writesPerSec - a.writesPerSec || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return out.slice(0, n);
  }
}
