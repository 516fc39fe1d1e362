import { describe, expect, it } from 'vitest';
import { compact, createProgressLine, formatProgress } from '../../src/cli/progress.js';

const p = (elapsedMs: number, over: Partial<{ bytesRead: number; bytesTotal: number; events: number; requests: number }> = {}) => ({
  bytesRead: 40_000_000,
  bytesTotal: 160_000_000,
  events: 200_000,
  requests: 100_000,
  elapsedMs,
  ...over,
});

describe('formatProgress', () => {
  it('shows MB read of the total, MB/s, events/s and requests', () => {
    expect(formatProgress(p(2000))).toBe('reading 40.0 MB of 160.0 MB (25%) · 20.0 MB/s · 100k events/s · 100k requests');
  });

  it('leaves out the total when unknown (stdin)', () => {
    expect(formatProgress(p(1000, { bytesTotal: 0, requests: 1_500_000 }))).toBe('reading 40.0 MB · 40.0 MB/s · 200k events/s · 1.5M requests');
  });

  it('leaves out rates before any time passed', () => {
    expect(formatProgress(p(0, { requests: 12 }))).toBe('reading 40.0 MB of 160.0 MB (25%) · 12 requests');
  });
});

describe('compact', () => {
  it.each([
    [0, '0'],
    [950, '950'],
    [1_234, '1.2k'],
    [12_345, '12k'],
    [1_234_567, '1.2M'],
    [123_456_789, '123M'],
    [2_500_000_000, '2.5G'],
  ])('%d → %s', (n, s) => expect(compact(n)).toBe(s));
});

describe('createProgressLine', () => {
  it('redraws one line at most every 250 ms and erases it at the end', () => {
    const writes: string[] = [];
    const line = createProgressLine({ write: (s: string) => writes.push(s) }, { columns: 200 });
    line.update(p(100)); // too early: short runs never show a line
    expect(writes).toEqual([]);
    line.update(p(260));
    line.update(p(400)); // throttled
    line.update(p(520));
    expect(writes).toHaveLength(2);
    for (const w of writes) {
      expect(w.startsWith('\r')).toBe(true);
      expect(w.endsWith('\u001b[K')).toBe(true);
      expect(w).not.toContain('\n');
    }
    line.done();
    line.done();
    expect(writes.slice(2)).toEqual(['\r\u001b[K']);
    line.update(p(5000));
    expect(writes).toHaveLength(3);
  });

  it('never wraps: cut to the terminal width', () => {
    const writes: string[] = [];
    const line = createProgressLine({ write: (s: string) => writes.push(s) }, { columns: 30 });
    line.update(p(1000));
    expect(writes[0]).toBe(`\r${formatProgress(p(1000)).slice(0, 29)}\u001b[K`);
  });

  it('erases nothing when nothing was drawn', () => {
    const writes: string[] = [];
    createProgressLine({ write: (s: string) => writes.push(s) }).done();
    expect(writes).toEqual([]);
  });
});
