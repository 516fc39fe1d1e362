/**
 * Splitting a byte stream into audit-log lines, delivered in batches.
 *
 * Uses `split2` (UTF-8 decoding across chunk boundaries, `maxLength` + `skipOverflow`). split2
 * drops an over-long line silently and only checks the length of a line still being buffered at
 * a chunk's end, so over-long lines are counted here: those split2 skips (it is in its `overflow`
 * state when a chunk with the line's end arrives) and those it delivers whole or cut at the end of
 * the stream (length check). Line numbers therefore stay exact whatever the chunking.
 */
import { pipeline, type Readable, type Transform, type TransformCallback } from 'node:stream';
import split2 from 'split2';

/** Lines of one chunk of input: `texts[i]` is line number `lineNos[i]` (1-based, per source). */
export interface LineBatch {
  /** Non-blank lines with `\r`, a leading BOM (line 1) and a `host`/time prefix removed. */
  readonly texts: string[];
  readonly lineNos: number[];
}

/** Counters that grow while the batches are consumed. */
export interface LineCounts {
  /** Lines seen, including blank and over-long ones. */
  lines: number;
  /** Lines longer than `maxLength` (skipped). */
  overlong: number;
  /** Line numbers of the first {@link OVERLONG_KEPT} over-long lines, for bad-line samples. */
  overlongAt: number[];
}

/** Over-long line numbers remembered per source. */
export const OVERLONG_KEPT = 64;

/** The result of {@link splitLines}. */
export interface LineSplitter {
  readonly counts: LineCounts;
  /** One batch per input chunk that completed at least one delivered line. */
  readonly batches: AsyncIterable<LineBatch>;
}

const NEWLINE = 0x0a;
const BOM = 0xfeff;

/** split2's internal state (split2 4.2.0 `index.js`). */
type Split2Stream = Transform & { overflow: boolean };

/**
 * Removes a prefix written before the JSON: `hostname {…}` as `oc adm node-logs` prints, or
 * `2026-07-01T10:00:00.123Z {…}` as CloudWatch S3 exports (reference §6.3). Stripped when the
 * line does not start with `{`, its first `{` follows a space, and the prefix holds no `"` (so
 * pretty-printed JSON such as `  "user": {` stays as it is).
 */
export function stripPrefix(line: string): string {
  if (line.charCodeAt(0) === 123) return line; // '{'
  const brace = line.indexOf('{');
  if (brace < 1 || line.charCodeAt(brace - 1) !== 32) return line; // ' '
  const quote = line.indexOf('"');
  return quote !== -1 && quote < brace ? line : line.slice(brace);
}

function isBlank(line: string): boolean {
  const first = line.charCodeAt(0); // NaN when empty
  return !(first > 32) && line.trim().length === 0;
}

/**
 * Splits `input` (decompressed bytes of one source) into lines of at most `maxLength` UTF-16
 * code units (split2's measure). Lines end at `\n`; a trailing `\r` is removed, as is a UTF-8 BOM
 * at the start. Blank and over-long lines are counted but not delivered. Errors of `input` are
 * thrown by the batch iterator; ending the iteration early destroys `input`.
 */
export function splitLines(input: Readable, maxLength: number): LineSplitter {
  const counts: LineCounts = { lines: 0, overlong: 0, overlongAt: [] };
  const overlong = (no: number): void => {
    counts.overlong++;
    if (counts.overlongAt.length < OVERLONG_KEPT) counts.overlongAt.push(no);
  };
  let texts: string[] = [];
  let lineNos: number[] = [];

  const onLine = (raw: string): undefined => {
    const no = ++counts.lines;
    if (raw.length > maxLength) {
      overlong(no);
      return undefined;
    }
    let line = raw;
    if (no === 1 && line.charCodeAt(0) === BOM) line = line.slice(1);
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1); // '\r'
    if (isBlank(line)) return undefined;
    texts.push(stripPrefix(line));
    lineNos.push(no);
    return undefined; // nothing for split2 to push; the batch is pushed per chunk
  };
  const options: split2.Options & { skipOverflow: boolean } = { maxLength, skipOverflow: true };
  const splitter = split2('\n', onLine, options) as Split2Stream;
  const pushBatch = (): void => {
    if (texts.length === 0) return;
    splitter.push({ texts, lineNos } satisfies LineBatch);
    texts = [];
    lineNos = [];
  };

  const transform = splitter._transform;
  splitter._transform = (chunk: Buffer, encoding: BufferEncoding, cb: TransformCallback): void => {
    // In overflow, split2 discards up to the next newline: that completes one skipped line.
    if (splitter.overflow && chunk.indexOf(NEWLINE) !== -1) overlong(++counts.lines);
    transform.call(splitter, chunk, encoding, (err?: Error | null) => {
      pushBatch();
      cb(err);
    });
  };
  const flush = splitter._flush;
  splitter._flush = (cb: TransformCallback): void => {
    flush.call(splitter, (err?: Error | null) => {
      pushBatch();
      cb(err);
    });
  };

  pipeline(input, splitter, () => {}); // errors reach the iterator through `splitter`
  return { counts, batches: splitter };
}
