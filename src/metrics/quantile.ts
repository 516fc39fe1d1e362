/**
 * Quantiles of a Prometheus histogram from its cumulative buckets, the way PromQL's
 * `histogram_quantile` estimates them (Prometheus documentation, "Functions":
 * histogram_quantile): the observations are assumed spread evenly inside a bucket, the lowest
 * bucket starts at 0 (when its upper bound is positive), and a quantile that falls in the `+Inf`
 * bucket is the upper bound of the highest finite bucket.
 */

/** One cumulative bucket: observations ≤ `le`. */
export interface Bucket {
  /** Upper bound (`le` label), `Infinity` for `+Inf`. */
  readonly le: number;
  /** Cumulative count of observations ≤ `le`. */
  readonly count: number;
}

/**
 * The `q`-quantile of a histogram.
 * @param q the quantile, 0..1
 * @param buckets cumulative buckets in any order; must include `+Inf`
 * @returns the estimate in the histogram's unit, or `null` when there is no `+Inf` bucket, fewer
 *   than two buckets, or no observation. Counts that fall as `le` rises (a scrape taken mid-update)
 *   are raised to their predecessor's, as Prometheus does.
 */
export function histogramQuantile(q: number, buckets: readonly Bucket[]): number | null {
  if (Number.isNaN(q)) return null;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  if (sorted.length < 2 || sorted[sorted.length - 1]!.le !== Infinity) return null;
  // Cumulative counts never fall with a higher bound.
  const counts: number[] = [];
  let prev = 0;
  for (const b of sorted) {
    prev = Math.max(prev, b.count);
    counts.push(prev);
  }
  const total = counts[counts.length - 1]!;
  if (!(total > 0)) return null;
  const rank = q * total;
  // First bucket whose cumulative count reaches the rank; the +Inf bucket if none of the finite ones does.
  let b = counts.findIndex((c, i) => i < counts.length - 1 && c >= rank);
  if (b < 0) b = counts.length - 1;
  if (b === counts.length - 1) return sorted[counts.length - 2]!.le;
  if (b === 0 && sorted[0]!.le <= 0) return sorted[0]!.le;
  const start = b === 0 ? 0 : sorted[b - 1]!.le;
  const below = b === 0 ? 0 : counts[b - 1]!;
  const inBucket = counts[b]! - below;
  const end = sorted[b]!.le;
  if (inBucket === 0) return start;
  return start + (end - start) * ((rank - below) / inBucket);
}
