/**
 * Latency counts per summary cell, binned as hdr-histogram-js bins them, handed to
 * hdr-histogram-js for the percentiles when the summaries are made.
 *
 * Why not record into the hdr histogram directly: `JsHistogram.recordValue` finds a value's bin
 * with `Math.log2` and two `Math.pow` calls, once per request on the reading thread. Here the
 * bin is two shifts and a `Math.clz32`.
 */
import { createRequire } from 'node:module';

/**
 * hdr-histogram-js's `Int32Histogram`, what `hdr.build` makes for its default 32-bit buckets,
 * required alone: the package's index also loads its WebAssembly build, log encoder and writer,
 * which would lengthen every command's start. Required, not imported: a CommonJS module whose
 * class is `exports.default`, which Node's ESM import and vitest's unwrap differently.
 */
const Int32Histogram = (createRequire(import.meta.url)('hdr-histogram-js/dist/Int32Histogram.js') as typeof import('hdr-histogram-js/dist/Int32Histogram.js')).default;

/** Highest latency kept, in µs (1 hour); longer values are counted as this. */
export const MAX_LATENCY_US = 3_600_000_000;

/** Significant decimal digits of the percentiles (hdr's `numberOfSignificantValueDigits`). */
const DIGITS = 2;

/**
 * log2 of half the bins per power of two: hdr-histogram-js keeps unit resolution up to
 * 2 · 10^DIGITS (200), in 2^ceil(log2 200) = 256 bins, and each power of two above that in the
 * upper half of 256 bins (`JsHistogram.init`: `subBucketHalfCountMagnitude`).
 */
const HALF_MAGNITUDE = Math.ceil(Math.log2(2 * 10 ** DIGITS)) - 1;
/** Half the bins per power of two (128). */
const HALF = 2 ** HALF_MAGNITUDE;

/** Bins for values below 2^32 (MAX_LATENCY_US is): the highest bin index + 1. */
const BINS = (32 - HALF_MAGNITUDE - 1) * HALF + 2 * HALF;

/**
 * The bin of `v` (a whole number of µs, 0 ≤ v < 2^32), as hdr-histogram-js computes its counts
 * index with a lowest discernible value of 1 (`getBucketIndex`, `getSubBucketIndex`,
 * `computeCountsArrayIndex`): power-of-two bucket `b = max(0, floor(log2 v) − HALF_MAGNITUDE)`,
 * then `v >>> b` within it. Every value of a bin is recorded into the same hdr bin as the bin's
 * lowest value ({@link binLow}), which is all the percentiles depend on.
 */
export function binOf(v: number): number {
  const b = v < 2 * HALF ? 0 : 31 - Math.clz32(v) - HALF_MAGNITUDE;
  return b * HALF + (v >>> b);
}

/** The lowest value (µs) of bin `i` (the inverse of {@link binOf}). */
export function binLow(i: number): number {
  if (i < 2 * HALF) return i;
  const b = Math.floor(i / HALF) - 1;
  return (i - b * HALF) * 2 ** b;
}

/** Percentiles of one cell's latencies, in µs. */
export interface LatencyPercentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The latencies of one summary cell: counts per bin and the exact maximum. */
export class LatencyBins {
  private readonly counts = new Uint32Array(BINS);
  /** Highest latency counted, µs. */
  max = 0;

  /** Counts one latency of `ms` milliseconds (≥ 0), rounded to µs and clamped to {@link MAX_LATENCY_US}. */
  add(ms: number): void {
    const us = Math.min(MAX_LATENCY_US, Math.max(0, Math.round(ms * 1000)));
    this.counts[binOf(us)]!++;
    if (us > this.max) this.max = us;
  }

  /**
   * p50, p90, p99 (hdr-histogram-js `getValueAtPercentile` at 2 significant digits, never above
   * the maximum: hdr reports a bin's highest equivalent value) and the maximum, in µs. The same
   * figures as recording every latency into the hdr histogram, which `test/engine/latency.test.ts`
   * checks.
   */
  percentiles(): LatencyPercentiles {
    // As `hdr.build({ numberOfSignificantValueDigits: DIGITS, highestTrackableValue: MAX_LATENCY_US,
    // autoResize: false })` makes it (lowest discernible value 1).
    const h = new Int32Histogram(1, MAX_LATENCY_US, DIGITS);
    h.autoResize = false;
    const c = this.counts;
    for (let i = 0; i < c.length; i++) if (c[i] !== 0) h.recordValueWithCount(binLow(i), c[i]!);
    const at = (p: number): number => Math.min(this.max, h.getValueAtPercentile(p));
    const out = { count: h.totalCount, p50: at(50), p90: at(90), p99: at(99), max: this.max };
    h.destroy();
    return out;
  }
}
