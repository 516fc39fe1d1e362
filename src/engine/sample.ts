/**
 * Bounded, deterministic sample of numbers for percentiles of unbounded streams (retry gaps,
 * chain lengths). Keeps every value until `capacity`, then halves itself (every other value)
 * and doubles its stride, so it always holds an evenly spaced subsequence of what it was given.
 */
export class BoundedSample {
  private values: number[] = [];
  private stride = 1;
  private skip = 0;
  /** Values offered, including those not kept. */
  count = 0;

  /** @param capacity most values held at once (≥ 2). */
  constructor(private readonly capacity = 1024) {}

  add(v: number): void {
    this.count++;
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    this.values.push(v);
    this.skip = this.stride - 1;
    if (this.values.length >= this.capacity) {
      this.values = this.values.filter((_, i) => i % 2 === 0);
      this.stride *= 2;
      this.skip = this.stride - 1;
    }
  }

  /** Nearest-rank percentile (0 < p ≤ 100) of the kept values; `null` when empty. */
  percentile(p: number): number | null {
    if (this.values.length === 0) return null;
    const sorted = [...this.values].sort((a, b) => a - b);
    const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
    return sorted[rank] as number;
  }

  /** Number of values currently kept. */
  get size(): number {
    return this.values.length;
  }
}
