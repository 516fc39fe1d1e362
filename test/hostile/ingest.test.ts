/**
 * Hostile inputs at the ingest layer: damaged gzip, stray directory entries, wrapped CloudWatch
 * payloads, values without a newline and files that shrink while read. A bad input is counted and
 * named; every valid event still counts; nothing ends a run with an internal error.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, openSync, truncateSync, writeSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { warningsFor } from '../../src/cli/output.js';
import { watch } from '../../src/live/watch.js';
import { FileFollower } from '../../src/live/follow.js';
import { resolveInputs } from '../../src/ingest/sources.js';
import type { ReadOptions } from '../../src/ingest/options.js';
import { BadLineLog, readChain } from '../../src/ingest/read.js';
import { Normalizer } from '../../src/decoding/normalize.js';
import { Base64Reader } from '../../src/decoding/formats/base64.js';
import { toEksSubscriptionPayload } from '../../src/generator/shapes.js';
import { until } from '../live/helpers.js';
import { DEFAULT_READ, eventLine, readStdin, removeTempDirs, tempDir } from '../parser/helpers.js';

afterAll(removeTempDirs);

/** Opening a file named `denied.log` fails with EACCES, as chmod 000 does for a user other than root. */
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof fs.open = (p, ...rest) =>
    String(p).endsWith('denied.log') ? Promise.reject(Object.assign(new Error(`EACCES: permission denied, open '${String(p)}'`), { code: 'EACCES' })) : fs.open(p, ...rest);
  return { ...fs, open };
});

const T0 = Date.parse('2026-07-01T10:00:00Z');

/** `n` distinct audit-event lines, 10 ms apart, each ending with `\n`. */
function eventLines(n: number, from = 0): string {
  let out = '';
  for (let i = from; i < from + n; i++) {
    const t = new Date(T0 + i * 10).toISOString();
    out += eventLine({ auditID: `ev-${i}`, requestReceivedTimestamp: t, stageTimestamp: t }) + '\n';
  }
  return out;
}

/** Reads `paths` as `analyze` does (a source that fails is passed to `onError` and skipped). */
async function readPaths(paths: string[], opts: ReadOptions = DEFAULT_READ) {
  const chains = await resolveInputs(paths, { stdin: new PassThrough() });
  const bad = new BadLineLog(100);
  const errors: Array<{ source: string; message: string }> = [];
  const normalizer = new Normalizer();
  let records = 0;
  const stats = [];
  for (const chain of chains) {
    const read = readChain(chain, normalizer, opts, bad, (source, err) => errors.push({ source, message: err.message }));
    for await (const batch of read.batches) records += batch.length;
    stats.push(...read.stats);
  }
  return { records, stats, errors, badCount: bad.count, bad: bad.samples() };
}

/** One thread, and worker threads for every size (the parallel read path). */
const READ_PATHS: Array<[string, ReadOptions]> = [
  ['one thread', { ...DEFAULT_READ, parallel: { workers: 0, minBytes: 0 } }],
  ['worker threads', { ...DEFAULT_READ, parallel: { workers: 2, minBytes: 0 } }],
];

describe('damaged gzip', () => {
  const text = eventLines(1000);
  const gz = gzipSync(text);

  for (const [label, opts] of READ_PATHS) {
    it(`a bad CRC: every one of the 1,000 events counts, and the file is named as damaged (${label})`, async () => {
      const bad = Buffer.from(gz);
      bad[bad.length - 6]! ^= 0xff; // the trailer's CRC-32
      const file = path.join(tempDir(), 'crc.log.gz');
      writeFileSync(file, bad);
      const r = await readPaths([file], opts);
      expect([r.records, r.stats[0]!.events, r.stats[0]!.lines, r.badCount]).toEqual([1000, 1000, 1000, 0]);
      expect(r.errors).toEqual([
        {
          source: file,
          message: `Cannot read "${file}": corrupt or truncated gzip data (incorrect data check). Read up to there: 1,000 lines, 1,000 events counted.`,
        },
      ]);
    });

    it(`a truncated .gz: every complete line that decoded counts (${label})`, async () => {
      const cut = gz.subarray(0, Math.floor(gz.length / 2));
      const complete = (await import('node:zlib')).gunzipSync(cut, { finishFlush: 2 /* Z_SYNC_FLUSH */ }).toString('utf8');
      const lines = complete.split('\n').length - 1;
      expect(lines).toBeGreaterThan(100);
      const file = path.join(tempDir(), 'cut.log.gz');
      writeFileSync(file, cut);
      const r = await readPaths([file], opts);
      expect([r.records, r.stats[0]!.events, r.badCount]).toEqual([lines, lines, 0]);
      expect(r.errors).toEqual([
        {
          source: file,
          message: `Cannot read "${file}": corrupt or truncated gzip data (unexpected end of file). Read up to there: ${lines.toLocaleString('en-US')} lines, ${lines.toLocaleString('en-US')} events counted.`,
        },
      ]);
    });
  }

  it('watch -: a truncated gzip stream ends with the final report of what decoded', async () => {
    const big = gzipSync(eventLines(3000));
    const cut = big.subarray(0, Math.floor(big.length * 0.6));
    const lines = (await import('node:zlib')).gunzipSync(cut, { finishFlush: 2 }).toString('utf8').split('\n').length - 1;
    const stdin = new PassThrough();
    const run = await watch({ inputs: ['-'] }, { stdin, onAlert: () => {} }, { tickMs: 50 });
    stdin.end(cut);
    const report = await run.done;
    expect([report.input.events, report.input.requests, report.input.badLines]).toEqual([lines, lines, 0]);
    expect(report.input.sourceErrors).toEqual([
      {
        source: '<stdin>',
        message: `Cannot read "<stdin>": corrupt or truncated gzip data (unexpected end of file). Read up to there: ${lines.toLocaleString('en-US')} lines, ${lines.toLocaleString('en-US')} events counted.`,
      },
    ]);
  });
});

describe('stray directory entries', () => {
  it('a symlink loop, a dangling symlink, a FIFO and a file that cannot be opened are skipped and listed; the rest counts', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'audit-2026-07-01T09-00-00.000.log'), eventLines(200));
    writeFileSync(path.join(dir, 'audit.log'), eventLines(300, 200));
    writeFileSync(path.join(dir, 'denied.log'), eventLines(50, 500));
    symlinkSync('loop.log', path.join(dir, 'loop.log'));
    symlinkSync('missing.log', path.join(dir, 'gone.log'));
    execFileSync('mkfifo', [path.join(dir, 'pipe.log')]);
    mkdirSync(path.join(dir, 'archive'));
    writeFileSync(path.join(dir, 'archive', 'old.log'), eventLines(7, 900));

    const report = await analyze({ inputs: [dir], threads: 0 });
    expect([report.input.events, report.input.requests, report.input.badLines]).toEqual([500, 500, 0]);
    const at = (name: string): string => path.join(dir, name);
    expect(report.input.sourceErrors).toEqual([
      { source: at('denied.log'), message: `Cannot read "${at('denied.log')}": permission denied.` },
      { source: at('gone.log'), message: `Cannot read "${at('gone.log')}": a symbolic link to a missing file.` },
      { source: at('loop.log'), message: `Cannot read "${at('loop.log')}": too many levels of symbolic links (a symlink loop).` },
      { source: at('pipe.log'), message: `Cannot read "${at('pipe.log')}": a named pipe (FIFO).` },
    ]);
    expect(report.input.sources.map((s) => [path.basename(s.name), s.events])).toEqual([
      ['audit-2026-07-01T09-00-00.000.log', 200],
      ['audit.log', 300],
      ['denied.log', 0],
      ['gone.log', 0],
      ['loop.log', 0],
      ['pipe.log', 0],
    ]);
    expect(warningsFor(report)).toEqual(report.input.sourceErrors.map((e) => `skipped ${e.source}: ${e.message}`));
  });

  it('--since with a duration skips the stray entries too', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'audit.log'), eventLines(300));
    symlinkSync('missing.log', path.join(dir, 'gone.log'));
    execFileSync('mkfifo', [path.join(dir, 'pipe.log')]);
    const report = await analyze({ inputs: [dir], since: '1s', threads: 0 });
    // The last event is at T0 + 2.99 s: one second back keeps the last 100.
    expect([report.input.events, report.input.requests, report.input.sourceErrors.length]).toEqual([300, 101, 2]);
  });

  it('a directory of stray entries only is an input error naming the first', async () => {
    const dir = tempDir();
    symlinkSync('loop.log', path.join(dir, 'loop.log'));
    await expect(analyze({ inputs: [dir], threads: 0 })).rejects.toThrow(`Cannot read "${path.join(dir, 'loop.log')}": too many levels of symbolic links (a symlink loop).`);
  });
});

describe('wrapped base64 CloudWatch payloads', () => {
  /** `text` (one payload per line) with each payload wrapped at `width` columns, as `base64` writes it. */
  const wrap = (text: string, width: number): string =>
    text
      .trim()
      .split('\n')
      .map((p) => p.match(new RegExp(`.{1,${width}}`, 'g'))!.join('\n'))
      .join('\n') + '\n';

  it('an 8,000-event payload wrapped at 76 columns reads as the one-line form, each payload decoded once', async () => {
    const oneLine = toEksSubscriptionPayload(eventLines(8000).trim().split('\n'), { batchSize: 8000 });
    const wrapped = wrap(oneLine, 76);
    const b64 = oneLine.trim();
    const lines = wrapped.split('\n').length - 1;
    expect(lines).toBe(Math.ceil(b64.length / 76));

    const one = await readStdin(oneLine);
    const w = await readStdin(wrapped);
    expect([one.records.length, one.stats[0]!.events, one.badCount, one.stats[0]!.format]).toEqual([8000, 8000, 0, 'eks']);
    expect([w.records.length, w.stats[0]!.events, w.badCount, w.stats[0]!.format, w.stats[0]!.lines]).toEqual([8000, 8000, 0, 'eks', lines]);
    expect(w.records.map((r) => r.auditID)).toEqual(one.records.map((r) => r.auditID));

    // The work: the first line is tried alone (a payload of one line is read at once), then the
    // payload once it is complete; decoding at every line took b64.length² / 152 characters.
    let events = 0;
    const reader = new Base64Reader(DEFAULT_READ.maxLineLength, (_line, r) => (events += r.events.length));
    wrapped.split('\n').forEach((l, i) => l !== '' && reader.line(l, i + 1));
    reader.end();
    expect([events, reader.payloads, reader.decodedChars]).toEqual([8000, 1, b64.length + 76]);
  });

  it('several wrapped payloads, one ending on a full line: each decoded once more than its first line', async () => {
    const text = toEksSubscriptionPayload(eventLines(3000).trim().split('\n'), { batchSize: 1000 });
    const payloads = text.trim().split('\n');
    // At 12 columns the second and third payloads end on a full line: each is decoded when the
    // next payload starts, or at the end.
    expect(payloads.map((p) => p.length % 12 === 0)).toEqual([false, true, true]);
    const wrapped = wrap(text, 12);
    let events = 0;
    const bad: string[] = [];
    const reader = new Base64Reader(DEFAULT_READ.maxLineLength, (_line, r) => {
      events += r.events.length;
      bad.push(...r.bad);
    });
    wrapped.split('\n').forEach((l, i) => l !== '' && reader.line(l, i + 1));
    reader.end();
    const total = payloads.reduce((a, p) => a + p.length, 0);
    expect([events, bad, reader.payloads, reader.decodedChars]).toEqual([3000, [], 3, total + 3 * 12]);
    const r = await readStdin(wrapped);
    expect([r.records.length, r.badCount]).toEqual([3000, 0]);
  });
});

describe('a long value without a newline', () => {
  const LONG = 64 * 1024 * 1024;
  const MAX = 1_000_000;

  /** Writes `before`, a `{"pad":"xxx…` value of LONG characters (closed, then `\n`, unless `close` is false), then `after`. */
  function writeLong(file: string, before: string, after: string, close = true): void {
    const fd = openSync(file, 'w');
    writeSync(fd, before + '{"pad":"');
    const block = Buffer.alloc(1024 * 1024, 'x');
    for (let i = 0; i < LONG / block.length; i++) writeSync(fd, block);
    if (close) writeSync(fd, '"}\n');
    writeSync(fd, after);
    closeSync(fd);
  }

  /** `analyze` of `file` in a child process: the counts and the peak RSS in MB. */
  function analyzeInChild(file: string): { events: number; badLines: number; overlong: number; reasons: string[]; lines: number; rssMb: number } {
    const script = `
      const { analyze } = await import(${JSON.stringify(new URL('../../dist/analyze.js', import.meta.url).href)});
      const r = await analyze({ inputs: [${JSON.stringify(file)}], maxLineLength: ${MAX} });
      const i = r.input;
      console.log(JSON.stringify({ events: i.events, badLines: i.badLines, overlong: i.skipped.overlongLines, lines: i.lines,
        reasons: i.badLineSamples.map((b) => b.line + ': ' + b.reason), rssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));`;
    const at = path.join(tempDir(), 'run.mjs'); // a file: worker threads would inherit --input-type
    writeFileSync(at, script);
    return JSON.parse(execFileSync(process.execPath, [at], { encoding: 'utf8' })) as ReturnType<typeof analyzeInChild>;
  }

  const small = (name: string): string => {
    const file = path.join(tempDir(), name);
    writeFileSync(file, eventLines(5));
    return file;
  };

  it('JSON documents: the value is dropped as it streams, one bad item, the following lines count', () => {
    const file = path.join(tempDir(), 'doc.json');
    writeLong(file, '', eventLines(5));
    const r = analyzeInChild(file);
    const base = analyzeInChild(small('base.json'));
    // The value is 64 MB: held whole, the peak would grow by at least that much; streamed, the
    // peak grows by the reader's chunks and the garbage V8 has not collected yet (30-39 MB here).
    expect(r.rssMb - base.rssMb).toBeLessThan(48);
    expect([r.events, r.badLines, r.overlong, r.lines]).toEqual([5, 1, 0, 6]);
    expect(r.reasons).toEqual([`1: JSON value longer than ${MAX} characters (--max-line-length): skipped to the next line starting with { or [`]);
  });

  it('JSON lines: a long line in the middle, and a long last line without a newline, are each one over-long line', () => {
    const mid = path.join(tempDir(), 'mid.log');
    writeLong(mid, eventLines(3), eventLines(4, 3));
    const r = analyzeInChild(mid);
    expect([r.events, r.badLines, r.overlong, r.lines]).toEqual([7, 0, 1, 8]);
    expect(r.reasons).toEqual([`4: line longer than ${MAX} characters (--max-line-length): skipped`]);
    const last = path.join(tempDir(), 'last.log');
    writeLong(last, eventLines(3), '', false);
    const l = analyzeInChild(last);
    expect([l.events, l.badLines, l.overlong, l.lines]).toEqual([3, 0, 1, 4]);
    const base = analyzeInChild(small('base.log'));
    expect(Math.max(r.rssMb, l.rssMb) - base.rssMb).toBeLessThan(32);
  });
});

describe('a file that shrinks while it is read', () => {
  for (const [label, opts] of READ_PATHS) {
    it(`analyze: the file is named with its size at the start and where it ended; what was read counts (${label})`, async () => {
      const file = path.join(tempDir(), 'audit.log');
      const text = eventLines(1000);
      writeFileSync(file, text);
      const chains = await resolveInputs([file], { stdin: new PassThrough() });
      const keep = text.split('\n').slice(0, 400).join('\n').length + 1; // 400 whole lines
      truncateSync(file, keep); // after the size was taken, before it is read
      const bad = new BadLineLog(10);
      const errors: string[] = [];
      const read = readChain(chains[0]!, new Normalizer(), opts, bad, (source, err) => errors.push(`${source}: ${err.message}`));
      let records = 0;
      for await (const batch of read.batches) records += batch.length;
      expect([records, read.stats[0]!.events, read.stats[0]!.lines, bad.count]).toEqual([400, 400, 400, 0]);
      expect(errors).toEqual([
        `${file}: "${file}" got shorter while it was read: it held ${Buffer.byteLength(text).toLocaleString('en-US')} bytes when the run started, and ended after ${keep.toLocaleString('en-US')} (truncated or rotated under the run). Read up to there: 400 lines, 400 events counted.`,
      ]);
    });
  }

  it('watch FILE: a followed file truncated in place is named in a warning, and read again from its start', async () => {
    const file = path.join(tempDir(), 'audit.log');
    writeFileSync(file, '');
    const warnings: string[] = [];
    const run = await watch({ inputs: [file] }, { onAlert: () => {}, onWarning: (m) => warnings.push(m) }, { tickMs: 50, follow: { pollMs: 20 } });
    const first = eventLines(100);
    appendFileSync(file, first);
    await until(() => run.session.status().requestsRead === 100, 'the first 100 lines');
    const again = eventLines(10, 100);
    writeFileSync(file, again); // truncated, then 10 new lines: shorter than what was read
    await until(() => run.session.status().requestsRead === 110, 'the 10 lines after the truncation');
    run.stop();
    const report = await run.done;
    expect([report.input.events, report.input.requests]).toEqual([110, 110]);
    expect(warnings).toEqual([
      `${file} got shorter (${Buffer.byteLength(again).toLocaleString('en-US')} bytes) than the ${Buffer.byteLength(first).toLocaleString('en-US')} bytes read: truncated in place; reading it again from its start`,
    ]);
  });
});

describe('watch FILE on a gzip file', () => {
  it('is an input error naming the file and saying how to read it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'audit-2026-08-08T18-12-05.123.log.gz');
    writeFileSync(file, gzipSync(Array.from({ length: 10 }, (_, k) => eventLine({ auditID: `gz-${k}` })).join('\n') + '\n'));
    const follower = new FileFollower(file, { fromStart: true });
    await expect(follower.ready).rejects.toThrow(`Cannot follow "${file}": it is gzip-compressed (a rotated log).`);
    follower.stop();
  });
});
