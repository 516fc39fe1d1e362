/**
 * The Prometheus text reader and histogram_quantile, on hand-written lines with hand-worked results.
 */
import { describe, expect, it } from 'vitest';
import { parseExposition, parseSampleLine, parseScrapeTime, parseValue, ScrapeTimeError } from '../../src/metrics/exposition.js';
import { histogramQuantile } from '../../src/metrics/quantile.js';

describe('parseSampleLine', () => {
  it('reads names, labels with escapes, a trailing comma, values and timestamps', () => {
    expect(parseSampleLine('apiserver_request_total{code="409",group="apps",verb="PUT"} 8')).toEqual({
      ok: true,
      name: 'apiserver_request_total',
      labels: { code: '409', group: 'apps', verb: 'PUT' },
      value: 8,
    });
    expect(parseSampleLine('x{a="q\\"uo\\\\te\\nd",} 1.5e+09 1700000000000')).toEqual({ ok: true, name: 'x', labels: { a: 'q"uo\\te\nd' }, value: 1.5e9 });
    expect(parseSampleLine('process_start_time_seconds 1.68549934601e+09')).toEqual({ ok: true, name: 'process_start_time_seconds', labels: {}, value: 1685499346.01 });
    expect(parseSampleLine('b{le="+Inf"} +Inf')).toMatchObject({ ok: true, labels: { le: '+Inf' }, value: Infinity });
    expect(parseSampleLine('x{} NaN')).toMatchObject({ ok: true, value: NaN });
  });

  it('says what is wrong with a malformed line', () => {
    expect(parseSampleLine('9x 1')).toEqual({ ok: false, reason: 'expected a metric name' });
    expect(parseSampleLine('x{a="1" 2')).toEqual({ ok: false, reason: 'expected "," or "}" after the value of label a' });
    expect(parseSampleLine('x{a="1}')).toEqual({ ok: false, reason: 'unterminated value of label a' });
    expect(parseSampleLine('x{a=1} 2')).toEqual({ ok: false, reason: 'expected a quoted value for label a' });
    expect(parseSampleLine('x{a="1",a="2"} 2')).toEqual({ ok: false, reason: 'label a given twice' });
    expect(parseSampleLine('x{a="\\t"} 2')).toEqual({ ok: false, reason: 'bad escape in the value of label a' });
    expect(parseSampleLine('x{a="1"}')).toEqual({ ok: false, reason: 'no value for x' });
    expect(parseSampleLine('x 12abc')).toEqual({ ok: false, reason: 'value of x is not a number: "12abc"' });
    expect(parseSampleLine('x 1 2.5')).toEqual({ ok: false, reason: 'timestamp of x is not an integer (ms)' });
    expect(parseSampleLine('x 1 2 3')).toEqual({ ok: false, reason: 'unexpected text after the value of x' });
  });

  it('parseValue takes Go float spellings and refuses the rest', () => {
    expect([parseValue('-Inf'), parseValue('0.005'), parseValue('.5'), parseValue('1e3'), parseValue('0x1f')]).toEqual([-Infinity, 0.005, 0.5, 1000, 31]);
    expect([parseValue(''), parseValue('1,5'), parseValue('one')]).toEqual([null, null, null]);
  });
});

describe('parseExposition', () => {
  const text = [
    '# auditstorm-scrape-time: 2026-12-05T20:00:00Z',
    '# HELP a_total A counter.',
    '# TYPE a_total counter',
    'a_total{x="1"} 3',
    '',
    'b_total 4\r',
    'a_total{x="2" 5',
    '# TYPE a_total widget',
    'a_total{x="3"} 7',
  ].join('\n');

  it('keeps wanted samples with their lines, counts and samples bad lines, reads the scrape time', () => {
    const e = parseExposition(text, { want: (n) => n === 'a_total' });
    expect(e.samples).toEqual([
      { name: 'a_total', labels: { x: '1' }, value: 3, line: 4 },
      { name: 'a_total', labels: { x: '3' }, value: 7, line: 9 },
    ]);
    expect([e.lines, e.sampleLines, e.badLines]).toEqual([9, 3, 2]);
    expect(e.badLineSamples).toEqual([
      { line: 7, reason: 'expected "," or "}" after the value of label x' },
      { line: 8, reason: 'unknown metric type widget for a_total' },
    ]);
    expect(e.scrapeTime).toBe(Date.UTC(2026, 11, 5, 20, 0, 0));
    expect(e.scrapeTimeLine).toBe(1);
    expect(e.types.get('a_total')).toBe('counter');
  });

  it('keeps only the first bad-line samples but counts them all', () => {
    const e = parseExposition(Array.from({ length: 30 }, () => 'x{').join('\n'), { maxBadSamples: 3 });
    expect(e.badLines).toBe(30);
    expect(e.badLineSamples.map((b) => b.line)).toEqual([1, 2, 3]);
  });

  it('a bad or second scrape-time line throws with its line', () => {
    expect(() => parseExposition('a 1\n# auditstorm-scrape-time: yesterday\n')).toThrow(ScrapeTimeError);
    try {
      parseExposition('# auditstorm-scrape-time: 2026-12-05T20:00:00Z\n# auditstorm-scrape-time: 2026-12-05T20:00:30Z\n');
    } catch (e) {
      expect((e as ScrapeTimeError).line).toBe(2);
      expect((e as Error).message).toBe('a second scrape-time line (the first is line 1)');
    }
    expect(parseScrapeTime('2026-02-30T00:00:00Z')).toBeNull();
    expect(parseScrapeTime('2026-12-05T20:00:00.250Z')).toBe(Date.UTC(2026, 11, 5, 20, 0, 0, 250));
    expect(parseScrapeTime('2026-12-05T20:00:00+01:00')).toBeNull();
  });
});

describe('histogramQuantile (PromQL histogram_quantile)', () => {
  // 78 observations: 62 ≤ 5 ms, 15 in (5, 25] ms, 1 in (25, 50] ms (pods/status PATCH of the 1.35 scrape).
  const b = [
    { le: 0.005, count: 62 },
    { le: 0.025, count: 77 },
    { le: 0.05, count: 78 },
    { le: 60, count: 78 },
    { le: Infinity, count: 78 },
  ];
  it('interpolates inside the bucket the rank falls in; the first bucket starts at 0', () => {
    expect(histogramQuantile(0.99, b)).toBeCloseTo(0.025 + 0.025 * ((0.99 * 78 - 77) / 1), 12);
    expect(histogramQuantile(0.5, b)).toBeCloseTo(0.005 * (39 / 62), 12);
    expect(histogramQuantile(0.9, [...b].reverse())).toBeCloseTo(0.005 + 0.02 * ((0.9 * 78 - 62) / 15), 12);
  });
  it('a rank in +Inf gives the highest finite bound; no +Inf or no observations gives null', () => {
    expect(
      histogramQuantile(0.99, [
        { le: 1, count: 1 },
        { le: Infinity, count: 10 },
      ]),
    ).toBe(1);
    expect(histogramQuantile(0.5, [{ le: 1, count: 1 }])).toBeNull();
    expect(
      histogramQuantile(0.5, [
        { le: 1, count: 0 },
        { le: Infinity, count: 0 },
      ]),
    ).toBeNull();
  });
  it('cumulative counts that fall are raised to the one before', () => {
    expect(
      histogramQuantile(0.5, [
        { le: 1, count: 4 },
        { le: 2, count: 2 },
        { le: 3, count: 10 },
        { le: Infinity, count: 10 },
      ]),
    ).toBeCloseTo(2 + 1 / 6, 12);
  });
});
