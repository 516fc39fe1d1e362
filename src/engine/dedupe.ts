/**
 * De-duplication of requests by `auditID` in bounded memory.
 *
 * The same request appears twice when the same log is read twice (overlapping exports, a file
 * given twice). Copies carry the same `stageTimestamp`, so after reordering they are close in
 * stream time; two generations of `horizonMs` each are enough, and memory is bounded by the
 * request rate times `2 * horizonMs` instead of growing with the whole log.
 */
export class AuditIdDedupe {
  private current = new Set<string>();
  private previous = new Set<string>();
  private generationEnd = -Infinity;

  /** @param horizonMs stream time (ms) a seen auditID is remembered for, at least. */
  constructor(private readonly horizonMs: number) {}

  /** True when `auditID` was seen within the horizon; otherwise remembers it and returns false. */
  seen(auditID: string, ts: number): boolean {
    if (ts >= this.generationEnd) {
      this.previous = ts >= this.generationEnd + this.horizonMs ? new Set() : this.current;
      this.current = new Set();
      this.generationEnd = ts + this.horizonMs;
    }
    if (this.current.has(auditID) || this.previous.has(auditID)) return true;
    this.current.add(auditID);
    return false;
  }
}
