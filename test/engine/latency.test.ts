import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { binLow, binOf, LatencyBins, MAX_LATENCY_US } from '../../src/engine/latency.js';

/** What the summaries reported before the bins: every latency recorded into the hdr histogram. */
function direct(ms: readonly number[]): { count: number; p50: number; p90: number; p99: number; max: number } {
  const h = hdr.build({ numberOfSignificantValueDigits: 2, highestTrackableValue: MAX_LATENCY_US, autoResize: false });
  for (const v of ms) h.recordValue(Math.min(MAX_LATENCY_US, Math.max(0, Math.round(v * 1000))));
  const at = (p: number): number => Math.min(h.maxValue, h.getValueAtPercentile(p));
  return { count: h.totalCount, p50: at(50), p90: at(90), p99: at(99), max: h.maxValue };
}

function binned(ms: readonly number[]): ReturnType<typeof direct> {
  const b = new LatencyBins();
  for (const v of ms) b.add(v);
  return b.percentiles();
}

/** A seeded xorshift32, so a failure names its case. */
function rng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('latency bins', () => {
  it('put every value in the bin hdr-histogram-js counts it in, and binLow inverts binOf', () => {
    const h = hdr.build({ numberOfSignificantValueDigits: 2, highestTrackableValue: MAX_LATENCY_US, autoResize: false }) as unknown as {
      countsArrayIndex(v: number): number;
    };
    const edges = [0, 1, 127, 128, 255, 256, 257, 511, 512, 1023, 1024, 65_535, 65_536, 2 ** 31 - 1, 2 ** 31, MAX_LATENCY_US];
    const next = rng(7);
    const values = [...edges, ...Array.from({ length: 20_000 }, () => Math.floor(2 ** (next() * 31.7)))];
    for (const v of values) {
      expect(binOf(v), `value ${v}`).toBe(h.countsArrayIndex(v));
      expect(binOf(binLow(binOf(v))), `value ${v}`).toBe(binOf(v));
      expect(binLow(binOf(v)), `value ${v}`).toBeLessThanOrEqual(v);
    }
    expect([binOf(0), binOf(255), binOf(256), binOf(511), binOf(512), binOf(MAX_LATENCY_US)]).toEqual([0, 255, 256, 383, 384, 3286]);
  });

  it('give the percentiles and maximum of recording every latency into hdr-histogram-js', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const next = rng(seed);
      const n = 1 + Math.floor(next() * 5000);
      // Latencies from µs to over the hour ceiling, a few exact repeats, and zeros.
      const ms = Array.from({ length: n }, () => (next() < 0.05 ? 0 : next() < 0.1 ? 12.5 : 10 ** (next() * 7.7 - 3)));
      expect(binned(ms), `seed ${seed}`).toEqual(direct(ms));
    }
    expect(binned([0.2, 4500, 3_700_000])).toEqual({ count: 3, p50: 4_521_983, p90: MAX_LATENCY_US, p99: MAX_LATENCY_US, max: MAX_LATENCY_US });
    expect(binned([1.234])).toEqual({ count: 1, p50: 1234, p90: 1234, p99: 1234, max: 1234 });
  });
});
