import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../src/decoding/time.js';

const TEN = Date.UTC(2026, 6, 1, 10, 0, 0);

describe('parseTimestamp', () => {
  it('keeps microseconds as the fraction of a millisecond (MicroTime)', () => {
    expect(parseTimestamp('2026-07-01T10:00:00.123456Z')).toBe(TEN + 123.456);
    expect(parseTimestamp('2026-07-01T10:00:00.000001Z')).toBe(TEN + 0.001);
  });

  it('reads whole seconds (v1beta1 timestamp) and cuts nanoseconds to the microsecond (a legacy line of a JSON event)', () => {
    expect(parseTimestamp('2018-10-26T13:42:46Z')).toBe(Date.UTC(2018, 9, 26, 13, 42, 46));
    expect(parseTimestamp('2023-10-18T17:32:47.415928952Z')).toBe(parseTimestamp('2023-10-18T17:32:47.415928Z'));
    expect(parseTimestamp('2026-07-01T10:00:00.1234567891Z')).toBe(TEN + 123.456);
    expect(parseTimestamp('2026-07-01T10:00:00.999999999Z')).toBe(TEN + 999.999);
  });

  it('applies offsets and accepts lower-case and space separators', () => {
    expect(parseTimestamp('2026-07-01T12:00:00.5+02:00')).toBe(TEN + 500);
    expect(parseTimestamp('2026-07-01T05:30:00-04:30')).toBe(TEN);
    expect(parseTimestamp('2026-07-01t10:00:00z')).toBe(TEN);
    expect(parseTimestamp('2026-07-01 10:00:00Z')).toBe(TEN);
  });

  it('agrees with Date.parse at millisecond resolution', () => {
    for (const s of ['1999-12-31T23:59:59.999Z', '2024-02-29T00:00:00.001Z', '2026-08-08T18:12:05.123+05:45']) {
      expect(parseTimestamp(s)).toBe(Date.parse(s));
    }
  });

  it('returns NaN for anything else', () => {
    for (const s of [
      '',
      'yesterday',
      '2026-07-01T10:00:00',
      '2026-07-01T10:00:00.Z',
      '2026-07-01T10:00:00Zjunk',
      '2026-13-01T00:00:00Z',
      '2026-07-01T25:00:00Z',
      '2026-07-01T10:00:00+0200',
      '2026-07-01X10:00:00Z',
      '20x6-07-01T10:00:00Z',
    ]) {
      expect(parseTimestamp(s), s).toBeNaN();
    }
  });
});

describe('parseTimestamp: calendar edges', () => {
  it('takes years below 100 literally (Go zero time is year 1)', () => {
    expect(parseTimestamp('0001-01-01T00:00:00Z')).toBe(new Date('0001-01-01T00:00:00Z').getTime());
    expect(new Date(parseTimestamp('0099-12-31T23:59:59.5Z')).toISOString()).toBe('0099-12-31T23:59:59.500Z');
  });
  it('rejects days past the end of the month, knows leap years', () => {
    expect(parseTimestamp('2026-02-31T00:00:00Z')).toBeNaN();
    expect(parseTimestamp('2023-02-29T00:00:00Z')).toBeNaN();
    expect(parseTimestamp('2100-02-29T00:00:00Z')).toBeNaN();
    expect(parseTimestamp('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    expect(parseTimestamp('2000-02-29T00:00:00Z')).toBe(Date.UTC(2000, 1, 29));
    expect(parseTimestamp('2026-04-31T00:00:00Z')).toBeNaN();
  });
});
