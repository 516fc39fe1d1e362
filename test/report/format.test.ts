import { describe, expect, it } from 'vitest';
import {
  bySeverity,
  formatBytes,
  formatDurationMs,
  formatInt,
  formatMetric,
  formatObject,
  formatPercent,
  formatRate,
  formatTime,
  formatWindow,
  summaryTables,
  truncate,
} from '../../src/report/format.js';
import { copy, report, storm } from './fixture.js';

describe('numbers', () => {
  it('groups thousands', () => {
    expect(formatInt(0)).toBe('0');
    expect(formatInt(999)).toBe('999');
    expect(formatInt(1_204_331)).toBe('1,204,331');
    expect(formatInt(-12_345.6)).toBe('-12,346');
  });
  it('formats rates, percentages and sizes', () => {
    expect(formatRate(48.25)).toBe('48.3/s');
    expect(formatRate(12_345.67)).toBe('12,345.7/s');
    expect(formatPercent(0.929216)).toBe('92.9%');
    expect(formatPercent(0)).toBe('0.0%');
    expect(formatPercent(1)).toBe('100.0%');
    expect(formatPercent(0.0001)).toBe('<0.1%');
    expect(formatPercent(0.99999)).toBe('>99.9%');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(734_003_200)).toBe('700.0 MiB');
  });
  it('formats durations with units', () => {
    const cases: Array<[number, string]> = [
      [0, '0 ms'],
      [0.4, '0.4 ms'],
      [12, '12 ms'],
      [38.5, '39 ms'],
      [1_730, '1.73 s'],
      [42_300, '42.3 s'],
      [372_000, '6m 12s'],
      [3_600_000, '1h 00m'],
      [7_380_000, '2h 03m'],
      [97_200_000, '1d 03h'],
      [-1_500, '-1.50 s'],
      [Number.NaN, 'n/a'],
    ];
    for (const [ms, want] of cases) expect(formatDurationMs(ms)).toBe(want);
  });
  it('formats metrics by the unit in their key', () => {
    const m = storm.metrics;
    const got = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, formatMetric(k, v)]));
    expect(got).toEqual({
      attempts: '4,210',
      conflicts: '3,912',
      successes: '298',
      conflictRatio: '92.9%',
      peakWritesPerSec: '48.3/s',
      peak409PerSec: '45.1/s',
      attemptsPerSuccess: '14.13',
      retryGapP50Ms: '12 ms',
      retryGapP90Ms: '39 ms',
      backoff: 'none',
      shareOfWrites: '41.2%',
      durationMs: '6m 13s',
    });
    // Shares of something are percentages too, wherever `ShareOf` sits in the key.
    expect(formatMetric('throttledShareOfRequests', 0.0133)).toBe('1.3%');
    expect(formatMetric('badShareOfFamilyRequests', 0.51)).toBe('51.0%');
    expect(formatMetric('shareOfRequests', 0.2)).toBe('20.0%');
    expect(formatMetric('likelyCauseShare', 0.8)).toBe('80.0%');
    expect(formatMetric('shareholders', 3)).toBe('3');
    expect(formatMetric('leaderChanged', true)).toBe('yes');
    expect(formatMetric('lastSuccessMs', null)).toBe('n/a');
  });
});

describe('objects and times', () => {
  it('names objects as kubectl does and leaves out empty parts', () => {
    expect(formatObject(storm.object!)).toBe('deployments.apps/status shop/cart');
    const base = { apiGroup: '', apiVersion: 'v1', resource: 'nodes', namespace: '', name: 'node-1', subresource: '' };
    expect(formatObject(base)).toBe('nodes node-1');
    expect(formatObject({ ...base, resource: 'pods', namespace: 'shop', name: '' })).toBe('pods shop/*');
  });
  it('formats UTC times and windows with durations', () => {
    expect(formatTime('2026-08-08T18:30:00.000Z')).toBe('2026-08-08 18:30:00.000 UTC');
    expect(formatTime('yesterday')).toBe('yesterday');
    expect(formatWindow('2026-08-08T23:59:00.000Z', '2026-08-09T00:01:30.000Z')).toBe('2026-08-08 23:59:00.000 → 2026-08-09 00:01:30.000 UTC (2m 30s)');
    expect(formatWindow('a', 'b')).toBe('a → b');
  });
  it('truncates at the end, start or middle with …', () => {
    expect(truncate('abcdefghij', 10)).toBe('abcdefghij');
    expect(truncate('abcdefghij', 6)).toBe('abcde…');
    expect(truncate('abcdefghij', 6, 'start')).toBe('…fghij');
    expect(truncate('abcdefghij', 6, 'middle')).toBe('abc…ij');
    expect(truncate('abcdefghij', 1)).toBe('…');
    expect(truncate('🙂🙂🙂🙂', 3)).toBe('🙂🙂…');
  });
});

describe('shared tables', () => {
  it('orders findings by severity, stable, without touching the input', () => {
    const input = [
      { ...storm, id: 'a', severity: 'low' as const },
      { ...storm, id: 'b', severity: 'critical' as const },
      { ...storm, id: 'c', severity: 'low' as const },
      { ...storm, id: 'd', severity: 'high' as const },
    ];
    expect(bySeverity(input).map((f) => f.id)).toEqual(['b', 'd', 'a', 'c']);
    expect(input.map((f) => f.id)).toEqual(['a', 'b', 'c', 'd']);
  });
  it('keeps the top rows by count and says how many were left out', () => {
    const s = copy(report.summaries);
    s.requestsByVerbResourceCode = Array.from({ length: 18 }, (_, i) => ({ verb: 'get', resource: `r${i}`, code: 200, count: i + 1 }));
    const t = summaryTables(s).find((x) => x.title === 'Requests by verb × resource × code')!;
    expect(t.rows).toHaveLength(15);
    expect(t.rows[0]).toEqual(['get', 'r17', '200', '18']);
    expect(t.footer).toBe('3 more rows not shown (6 requests)');
  });
});
