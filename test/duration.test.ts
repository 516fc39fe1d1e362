import { describe, expect, it } from 'vitest';
import { formatDuration, kubectlAge, parseDuration, timeBoundProblem, tryParseDuration } from '../src/duration.js';
import { UsageError } from '../src/errors.js';

describe('parseDuration', () => {
  it.each([
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['60s', 60_000],
    ['10s', 10_000],
    ['1m', 60_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['250ms', 250],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['1h1m1s1ms', 3_661_001],
    ['0s', 0],
    [' 5m ', 300_000],
  ])('%s → %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'abc', '60', '1x', '1 h', 'h', '-5m', '1h30', 'm5', '1.h', '5mm', '1e3s'])('rejects %j', (text) => {
    expect(tryParseDuration(text)).toBeUndefined();
    expect(() => parseDuration(text)).toThrow(UsageError);
  });

  it('names the value and suggests a unit for a bare number', () => {
    expect(() => parseDuration('60', '--window')).toThrow('--window: "60" has no unit (did you mean 60s?)');
    expect(() => parseDuration('soon', '--window')).toThrow('--window: "soon" is not a duration (expected e.g. 90s, 15m, 1h30m)');
  });
});

describe('timeBoundProblem', () => {
  it.each(['15m', '2h', '2026-08-08T18:00:00Z', '2026-08-08T18:00:00.123456Z', '2026-08-08T20:00:00+02:00', '2026-08-08 18:00:00Z'])('accepts %s', (v) => {
    expect(timeBoundProblem(v)).toBeUndefined();
  });

  it.each(['yesterday', '2026-08-08', '2026-13-40T18:00:00Z', '2026-08-08T18:00:00', '15'])('rejects %s', (v) => {
    expect(timeBoundProblem(v)).toMatch(/is neither an RFC 3339 time .* nor a duration/);
  });
});

describe('formatDuration', () => {
  it.each([
    [60_000, '1m'],
    [10_000, '10s'],
    [90_000, '1m30s'],
    [5_400_000, '1h30m'],
    [250, '250ms'],
    [0, '0s'],
    [86_400_000 + 1, '1d1ms'],
  ])('%i → %s, and back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('kubectlAge (the AGE column of kubectl get)', () => {
  const S = 1000;
  const M = 60 * S;
  const H = 60 * M;
  const D = 24 * H;
  it.each([
    [-5 * S, '0s'],
    [999, '0s'],
    [119 * S + 999, '119s'],
    [2 * M, '2m'],
    [5 * M + 3 * S, '5m3s'],
    [10 * M + 59 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [47 * H, '47h'],
    [2 * D, '2d'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [2479 * D + 11 * H + 52 * M + 31 * S, '6y289d'],
    [8 * 365 * D + 40 * D, '8y'],
  ])('%i ms → %s', (ms, text) => {
    expect(kubectlAge(ms)).toBe(text);
  });
});
