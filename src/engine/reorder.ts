/**
 * Bounded reordering of nearly time-ordered records.
 *
 * An API server writes `ResponseComplete` events as requests finish, so their `stageTimestamp`s
 * are only nearly ordered (concurrent handlers), and several sources merged together are
 * ordered only per source. Detectors want a clock that never goes back. This queue holds
 * records for `windowMs` of stream time and releases them in (ts, arrival) order.
 *
 * Why a tail-sorted ring rather than a heap: input is almost sorted, so an insert is an
 * append or a short backwards scan from the tail (O(1) typical), and release is a pointer bump.
 * A record older than every one held goes before the head, also O(1): a newest-first log (as
 * `gcloud logging read` prints) holds everything until {@link MAX_HELD_RECORDS} and must not
 * cost a scan of all of it per record.
 */
import type { RequestRecord } from '../decoding/record.js';

/**
 * Records a queue holds at most (about 150 MB of records): past this the oldest is released
 * however young, so memory stays bounded when stream time does not advance (a newest-first or
 * concatenated log); the records then arrive late and are counted as such.
 */
export const MAX_HELD_RECORDS = 1 << 19;

/** Releases records in non-decreasing `ts`; records later than the window are passed on clamped. */
export class ReorderQueue {
  /**
   * The records held, oldest first, in a ring: `size` of them from `start`. A ring, not an array
   * pushed at the tail and cut at the head: that array would grow and be copied again and again.
   */
  private ring: Array<RequestRecord | undefined> = new Array<RequestRecord | undefined>(1024).fill(undefined);
  private mask = 1023;
  private start = 0;
  private size = 0;
  private maxTs = -Infinity;
  private releasedTs = -Infinity;
  /** Records that arrived after records more than `windowMs` newer had already been released. */
  late = 0;

  /**
   * @param windowMs how long (ms of stream time) a record may arrive out of order and still be
   *   placed exactly. 0 releases at once.
   * @param release receives each record once, in order.
   * @param maxHeld records held at most ({@link MAX_HELD_RECORDS})
   */
  constructor(
    private readonly windowMs: number,
    private readonly release: (r: RequestRecord) => void,
    private readonly maxHeld = MAX_HELD_RECORDS,
  ) {}

  /** Stream time of the last released record (UTC epoch ms), or -Infinity. */
  get clock(): number {
    return this.releasedTs;
  }

  /** Add one record; releases every record older than `newest ts - windowMs`. */
  push(r: RequestRecord): void {
    if (this.size >= this.maxHeld) this.releaseOldest();
    if (r.ts < this.releasedTs) {
      // Too late to place: feed it at the current clock so downstream time never goes back.
      this.late++;
      this.release({ ...r, ts: this.releasedTs });
      return;
    }
    if (this.size === this.ring.length) this.grow();
    const ring = this.ring;
    const mask = this.mask;
    const start = this.start;
    if (this.size > 0 && r.ts < (ring[start] as RequestRecord).ts) {
      // Older than all held: before the head, no scan.
      this.start = (start - 1) & mask;
      ring[this.start] = r;
      this.size++;
      return;
    }
    // After the last record not newer than `r` (arrival order among equal times), moving the
    // newer ones up on the way: input is nearly sorted, so that is the tail or a few places before.
    let i = this.size;
    for (; i > 0; i--) {
      const prev = ring[(start + i - 1) & mask] as RequestRecord;
      if (prev.ts <= r.ts) break;
      ring[(start + i) & mask] = prev;
    }
    ring[(start + i) & mask] = r;
    this.size++;
    if (r.ts > this.maxTs) {
      this.maxTs = r.ts;
      this.drainUntil(this.maxTs - this.windowMs);
    }
  }

  /**
   * Stream time reached `limitMs` without records (live mode): release every record with
   * `ts <= limitMs` and move the clock there, so a record older than `limitMs` that arrives later
   * is counted as late and fed at the clock (downstream time never goes back).
   */
  releaseUntil(limitMs: number): void {
    this.drainUntil(limitMs);
    if (limitMs > this.releasedTs) this.releasedTs = limitMs;
  }

  /** Release everything (end of input). */
  flush(): void {
    this.drainUntil(Infinity);
  }

  private drainUntil(limit: number): void {
    const ring = this.ring;
    const mask = this.mask;
    while (this.size > 0) {
      const r = ring[this.start] as RequestRecord;
      if (r.ts > limit) break;
      ring[this.start] = undefined;
      this.start = (this.start + 1) & mask;
      this.size--;
      this.releasedTs = r.ts;
      this.release(r);
    }
  }

  /** Releases the oldest record held, however young (see {@link MAX_HELD_RECORDS}). */
  private releaseOldest(): void {
    this.drainUntil((this.ring[this.start] as RequestRecord).ts);
  }

  /** Twice the room, the records oldest first from 0. */
  private grow(): void {
    const old = this.ring;
    const ring = new Array<RequestRecord | undefined>(old.length * 2).fill(undefined);
    for (let k = 0; k < this.size; k++) ring[k] = old[(this.start + k) & this.mask];
    this.ring = ring;
    this.mask = ring.length - 1;
    this.start = 0;
  }
}
