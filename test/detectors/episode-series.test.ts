import { describe, expect, it } from 'vitest';
import { EpisodeSeries, GapHistogram } from '../../src/detectors/common.js';
import { bucketedSeries, TimeSeries } from '../../src/engine/series.js';

describe('EpisodeSeries', () => {
  it('counts writes and conflicts per step from the first write', () => {
    const s = new EpisodeSeries(10_000);
    s.add(25_000, true);
    s.add(29_999, false);
    s.add(41_000, true);
    expect(s.toReport()).toEqual({
      bucketMs: 10_000,
      points: [
        { t: 20_000, writes: 2, conflicts: 1 },
        { t: 30_000, writes: 0, conflicts: 0 },
        { t: 40_000, writes: 1, conflicts: 1 },
      ],
    });
    expect(s.toReport(35_000).points).toHaveLength(2);
  });

  it('re-buckets to stay within maxPoints and keeps every count', () => {
    const s = new EpisodeSeries(1_000, 8);
    let n = 0;
    for (let t = 3_000; t < 100_000; t += 250) {
      s.add(t, n % 3 === 0);
      n++;
    }
    const r = s.toReport();
    expect(r.points.length).toBeLessThanOrEqual(8);
    expect(r.bucketMs).toBe(16_000);
    expect(r.points.reduce((a, p) => a + p.writes, 0)).toBe(n);
    expect(r.points[0]!.t % r.bucketMs).toBe(0);
    expect(r.points[0]!.t).toBeLessThanOrEqual(3_000);
  });

  it('extra lines: tentative counts move into a reported line; trailing empty buckets trimmed', () => {
    const s = new EpisodeSeries(1_000, 8, 4);
    s.bump(0, 3);
    s.bump(1_500, 3);
    s.bump(1_600, 2);
    s.move(3, 0);
    s.bump(5_000, 3); // tentative, never moved: not reported
    expect(s.toReport(Infinity, 0, 2, true)).toEqual({
      bucketMs: 1_000,
      points: [
        { t: 0, writes: 1, conflicts: 0 },
        { t: 1_000, writes: 1, conflicts: 1 },
      ],
    });
  });
});

describe('GapHistogram', () => {
  it('counts gaps in fixed buckets', () => {
    const h = new GapHistogram();
    for (const g of [0, 1, 2, 10, 50, 999, 20_000]) h.add(g);
    expect(h.toReport().map((b) => b.count)).toEqual([2, 2, 1, 1, 0, 1]);
    expect(h.toReport().at(-1)).toEqual({ upToMs: null, count: 1 });
  });
});

describe('bucketedSeries', () => {
  it('fills gaps with zeros and caps the number of points', () => {
    const ts = new TimeSeries(10_000);
    ts.add(5_000, true, false, false);
    ts.add(35_000, true, true, false);
    expect(bucketedSeries(ts).points.map((p) => p.writes)).toEqual([1, 0, 0, 1]);
    const long = new TimeSeries(10_000);
    for (let t = 0; t < 86_400_000; t += 10_000) long.add(t, false, false, t % 20_000 === 0);
    const b = bucketedSeries(long, 720);
    expect(b.points.length).toBeLessThanOrEqual(720);
    expect(b.bucketMs).toBe(120_000);
    expect(b.points.reduce((a, p) => a + p.requests, 0)).toBe(8_640);
  });

  it('leaves out long empty stretches between busy ones, keeping the busy ones at full resolution', () => {
    const ts = new TimeSeries(10_000);
    const day = 86_400_000;
    for (const start of [0, day]) for (let t = start; t < start + 1_800_000; t += 10_000) ts.add(t, true, false, false);
    for (let i = 0; i < 7_500; i++) ts.add(day + 600_000, true, true, false);
    const b = bucketedSeries(ts, 720);
    expect(b.bucketMs).toBe(10_000);
    expect(b.points).toHaveLength(360);
    expect(b.points[179]!.t).toBe(1_790_000);
    expect(b.points[180]!.t).toBe(day);
    expect(Math.max(...b.points.map((p) => p.conflicts))).toBe(7_500);
    expect(b.points.reduce((a, p) => a + p.writes, 0)).toBe(360 + 7_500);
    // A short empty stretch (under 36 buckets) stays in, as zeros.
    const short = new TimeSeries(10_000);
    short.add(0, true, false, false);
    short.add(300_000, true, false, false);
    expect(bucketedSeries(short, 720).points).toHaveLength(31);
  });
});
