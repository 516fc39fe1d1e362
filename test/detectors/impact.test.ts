import { describe, expect, it } from 'vitest';
import { backoffAttempts, excessAttempts, trafficShare } from '../../src/detectors/impact.js';
import { TimeSeries } from '../../src/engine/series.js';

describe('impact', () => {
  it.each([
    [0, 1],
    [4, 1],
    [5, 2],
    [14, 2],
    [15, 3],
    [35, 4],
    [155, 6],
    [220, 6],
    // 5 ms doubling reaches the 1000 s cap after 18 sleeps (5·(2^18 − 1) ms), then 1000 s each.
    [5 * (2 ** 18 - 1), 19],
    [5 * (2 ** 18 - 1) + 999_999, 19],
    [5 * (2 ** 18 - 1) + 2_000_000, 21],
  ])('over %i ms, per-item backoff makes %i attempts', (span, attempts) => {
    expect(backoffAttempts(span)).toBe(attempts);
  });

  it('counts only attempts beyond the backoff bound', () => {
    expect(excessAttempts(12, 220)).toBe(6);
    expect(excessAttempts(3, 1000)).toBe(0);
  });

  it('shares of writes and requests in the window', () => {
    const s = new TimeSeries(10_000);
    for (let i = 0; i < 80; i++) s.add(1000 + i, true, false, false);
    for (let i = 0; i < 20; i++) s.add(2000 + i, false, false, false);
    expect(trafficShare(s, 0, 9999, 40)).toEqual({ shareOfWrites: 0.5, shareOfRequests: 0.4 });
    expect(trafficShare(s, 20_000, 29_999, 1)).toEqual({ shareOfWrites: null, shareOfRequests: null });
  });
});

describe('shared window options', () => {
  it('reject more than 1000 steps per window, and accept a partial severity override', async () => {
    const { conflictStormOptions } = await import('../../src/detectors/conflict-storm.js');
    const r = conflictStormOptions.safeParse({ windowMs: 3_600_000, stepMs: 1 });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['stepMs', 'windowMs / stepMs must be at most 1000 steps per window']]);
    const ok = conflictStormOptions.parse({ severity: { critical: { share: 0.99 } } });
    expect(ok.severity).toEqual({
      critical: { share: 0.99, peak409PerSec: 50 },
      high: { share: 0.2, peak409PerSec: 10 },
      medium: { share: 0.05, peak409PerSec: 1 },
    });
  });
});
