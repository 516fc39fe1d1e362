/**
 * Bounded reordering of nearly time-ordered records.
 *
 * An API server writes `ResponseComplete` events as requests finish, so their `stageTimestamp`s
 * are only nearly ordered (concurrent handlers), and several sources merged together are
 * ordered only per source. Detectors want a clock that never goes back. This queue holds
 * records for `windowMs` of stream time and releases them in (ts, arrival) order.
 *
 * Why a tail-sorted array rather than a heap: input is almost sorted, so an insert is an
 * append or a short backwards scan from the tail (O(1) typical), and release is a pointer bump.
 */
import type { RequestRecord } from '../parser/record.js';

/** Releases records in non-decreasing `ts`; records later than the window are passed on clamped. */
export class ReorderQueue {
  private buf: RequestRecord[] = [];
  private head = 0;
  private maxTs = -Infinity;
  private releasedTs = -Infinity;
  /** Records that arrived after records more than `windowMs` newer had already been released. */
  late = 0;

  /**
   * @param windowMs how long (ms of stream time) a record may arrive out of order and still be
   *   placed exactly. 0 releases at once.
   * @param release receives each record once, in order.
   */
  constructor(
    private readonly windowMs: number,
    private readonly release: (r: RequestRecord) => void,
  ) {}

  /** Stream time of the last released record (UTC epoch ms), or -Infinity. */
  get clock(): number {
    return this.releasedTs;
  }

  /** Add one record; releases every record older than `newest ts - windowMs`. */
  push(r: RequestRecord): void {
    if (r.ts < this.releasedTs) {
      // Too late to place: feed it at the current clock so downstream time never goes back.
      this.late++;
      this.release({ ...r, ts: this.releasedTs });
      return;
    }
    const buf = this.buf;
    let i = buf.length;
    while (i > this.head && (buf[i - 1] as RequestRecord).ts > r.ts) i--;
    if (i === buf.length) buf.push(r);
    else buf.splice(i, 0, r);
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
    const buf = this.buf;
    let h = this.head;
    while (h < buf.length && (buf[h] as RequestRecord).ts <= limit) {
      const r = buf[h] as RequestRecord;
      buf[h] = undefined as unknown as RequestRecord;
      h++;
      this.releasedTs = r.ts;
      this.release(r);
    }
    if (h === buf.length) {
      this.buf = [];
      this.head = 0;
    } else if (h > 4096 && h * 2 > buf.length) {
      this.buf = buf.slice(h);
      this.head = 0;
    } else {
      this.head = h;
    }
  }
}
