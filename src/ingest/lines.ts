/**
 * Splitting a byte stream into audit-log lines, delivered in batches (one per input chunk).
 *
 * This is the hot path's first step, so it works on whole chunks: the bytes up to a chunk's last
 * `\n` are decoded in 64 KB pieces — as Latin-1 when they are all ASCII (`buffer.isAscii`, which is
 * then the same text, about ten times faster than UTF-8 decoding), else as UTF-8 (invalid
 * sequences become U+FFFD, as `TextDecoder` and `string_decoder` make them) — and cut at `\n`
 * with `indexOf`. A `\n` byte never occurs inside a UTF-8 sequence, so no character is split.
 * Decoding line by line (split2 + `string_decoder`) is too slow for this step of the hot path.
 * The bytes after the last `\n` wait for the next chunk; when they grow past what
 * `maxLength` characters can take (3 bytes per UTF-16 unit), the line is over-long, skipped up to
 * its end, and counted. Line numbers are exact whatever the chunking.
 */
import { isAscii } from 'node:buffer';
import type { Readable } from 'node:stream';
import { stripPrefix } from '../decoding/prefix.js';

/** Lines of one chunk of input: `texts[i]` is line number `lineNos[i]` (1-based, per source). */
export interface LineBatch {
  /** Non-blank lines with `\r`, a leading BOM (line 1) and a `host`/time prefix removed. */
  readonly texts: string[];
  readonly lineNos: number[];
  /**
   * Where each line was cut from, as {@link cutLines} hands it on: the decoded piece, the line's
   * offset in it, and the piece's bytes when ASCII (`fastDecode` reads the piece itself, and the
   * native scanner its bytes). Valid until the next batch is asked for.
   */
  readonly pieces: string[];
  readonly ats: number[];
  readonly asciis: Array<Buffer | null>;
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
/** The most UTF-8 bytes one UTF-16 code unit takes. */
export const MAX_BYTES_PER_UNIT = 3;
/**
 * Bytes decoded at a time (cut at a newline). V8 allocates strings over ~128 KB in its large-object
 * space, which makes decoding larger chunks at once slower than 64 KB pieces (see
 * docs/performance.md, "Records moved from code comments").
 */
const PIECE = 64 * 1024;

function isBlank(line: string): boolean {
  const first = line.charCodeAt(0); // NaN when empty
  return !(first > 32) && line.trim().length === 0;
}

/**
 * What {@link frameLines} yields, in input order: `bytes`, whole lines (every one ends with `\n`,
 * except the last one of the input, `atEnd`), or `overlong`, one line longer than the limit that
 * was skipped while reading it (it is the next line in order).
 */
export type Frame = { bytes: Buffer; atEnd: boolean } | { bytes: null; atEnd: false };

/**
 * Cuts a byte stream into runs of whole lines without decoding them: the bytes up to each
 * chunk's last `\n` (plus what was left of the previous chunk). A line that grows past what
 * `maxLength` characters can take (3 UTF-8 bytes per UTF-16 unit) before its newline comes is
 * skipped as it is read, and yielded as an `overlong` frame in its place.
 */
export async function* frameLines(input: Readable, maxLength: number): AsyncGenerator<Frame> {
  const maxBytes = maxLength * MAX_BYTES_PER_UNIT;
  // Bytes after the last newline so far, as pieces (joined once: a long line over many chunks
  // must not be copied again with every chunk).
  let rest: Buffer[] = [];
  let restBytes = 0;
  let skipping = false; // inside an over-long line, up to its newline
  const keep = (b: Buffer): void => {
    if (b.length === 0) return;
    rest.push(Buffer.from(b)); // a copy: the stream may reuse its chunk
    restBytes += b.length;
    if (restBytes > maxBytes) {
      rest = [];
      restBytes = 0;
      skipping = true;
    }
  };
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (skipping) {
      const nl = buf.indexOf(NEWLINE);
      if (nl === -1) continue;
      skipping = false;
      yield { bytes: null, atEnd: false };
      buf = buf.subarray(nl + 1);
    }
    const last = buf.lastIndexOf(NEWLINE);
    if (last === -1) {
      keep(buf);
      continue;
    }
    let whole = buf.subarray(0, last + 1);
    if (restBytes > 0) {
      rest.push(whole);
      whole = Buffer.concat(rest, restBytes + whole.length);
      rest = [];
      restBytes = 0;
    }
    keep(buf.subarray(last + 1));
    yield { bytes: whole, atEnd: false };
  }
  if (skipping) yield { bytes: null, atEnd: false };
  else if (restBytes > 0) yield { bytes: Buffer.concat(rest, restBytes), atEnd: true };
}

/** What {@link cutLines} calls for each line (see there). */
export type OnLine = (no: number, text: string | null, piece: string, at: number, ascii: Buffer | null) => void;

/**
 * What {@link cutLines} may hand an ASCII piece to instead of cutting it: `ascii` (its bytes, not
 * decoded: the taker decodes what it needs), whether its last line may lack a newline (`last`),
 * and the number of the line before its first. It cuts the piece's lines as `cutLines` would
 * (calling {@link passLine} on the piece's latin1 text for any it does not take itself) and
 * returns the number of its last line.
 */
export type OnAsciiPiece = (ascii: Buffer, last: boolean, no: number) => number;

/**
 * The line `text[from, to)` (`to`: its newline, or the end) as {@link cutLines} passes it on, as
 * line number `no`: null when longer than `maxLength`, nothing when blank, else without its `\r`,
 * a BOM on line 1 and a prefix (`stripPrefix`).
 */
export function passLine(text: string, from: number, to: number, no: number, maxLength: number, ascii: Buffer | null, onLine: OnLine): void {
  if (to - from > maxLength) {
    onLine(no, null, text, from, null);
    return;
  }
  let a = from;
  let b = to;
  if (no === 1 && text.charCodeAt(a) === BOM) a++;
  if (b > a && text.charCodeAt(b - 1) === 13) b--; // '\r'
  if (b > a) {
    const line = text.slice(a, b);
    if (!isBlank(line)) {
      const stripped = stripPrefix(line);
      onLine(no, stripped, text, a + line.length - stripped.length, ascii);
    }
  }
}

/**
 * The lines of a piece's `text` from offset `from` (a line's start) on, each passed on as
 * {@link passLine} passes it, numbered from `no + 1`; the last one without a newline only when
 * `last`. Returns the number of the last line.
 */
export function cutFrom(text: string, from: number, last: boolean, no: number, maxLength: number, ascii: Buffer | null, onLine: OnLine): number {
  for (;;) {
    let to = text.indexOf('\n', from);
    if (to === -1) {
      if (!last || from >= text.length) return no;
      to = text.length;
    }
    passLine(text, from, to, ++no, maxLength, ascii, onLine);
    from = to + 1;
  }
}

/**
 * Decodes a run of whole lines (a `bytes` frame) in {@link PIECE}s and calls `onLine` for each:
 * `no` is the line's number (1-based, `first + k`), `text` the line with `\r`, a BOM on line 1
 * and a `host`/time prefix removed, or `null` for a line longer than `maxLength` (measured with
 * its `\r` and BOM, as split2 did). Blank lines are counted but not passed. `piece` is the
 * decoded text the line was cut from and `at` the offset there of `text`'s first character; when
 * the piece was ASCII, `ascii` is its bytes (one per character), else null. A reader may scan
 * the piece (a flat string) instead of the slice, and compare bytes instead of cutting strings.
 * With `onAscii`, ASCII pieces are handed to it whole instead (see {@link OnAsciiPiece}).
 * Returns the number of lines in the run.
 */
export function cutLines(bytes: Buffer, atEnd: boolean, first: number, maxLength: number, onLine: OnLine, onAscii?: OnAsciiPiece): number {
  let no = first - 1;
  for (let at = 0; at < bytes.length;) {
    let end = bytes.length;
    if (end - at > PIECE) {
      end = bytes.lastIndexOf(NEWLINE, at + PIECE - 1) + 1;
      if (end <= at) end = bytes.indexOf(NEWLINE, at + PIECE) + 1; // one line longer than a piece
      if (end <= at) end = bytes.length; // the last line of the input, without a newline
    }
    const piece = bytes.subarray(at, end);
    const last = atEnd && end === bytes.length;
    if (isAscii(piece)) {
      if (onAscii !== undefined) no = onAscii(piece, last, no);
      else no = cutFrom(piece.toString('latin1'), 0, last, no, maxLength, piece, onLine);
    } else no = cutFrom(piece.toString('utf8'), 0, last, no, maxLength, null, onLine);
    at = end;
  }
  return no - first + 1;
}

/**
 * Splits `input` (decompressed bytes of one source) into lines of at most `maxLength` UTF-16
 * code units. Lines end at `\n`; a trailing `\r` is removed, as is a UTF-8 BOM at the start.
 * Blank and over-long lines are counted but not delivered. Errors of `input` are thrown by the
 * batch iterator; ending the iteration early destroys `input`.
 */
export function splitLines(input: Readable, maxLength: number): LineSplitter {
  const counts: LineCounts = { lines: 0, overlong: 0, overlongAt: [] };
  const overlong = (no: number): void => {
    counts.overlong++;
    if (counts.overlongAt.length < OVERLONG_KEPT) counts.overlongAt.push(no);
  };

  async function* batches(): AsyncGenerator<LineBatch> {
    for await (const frame of frameLines(input, maxLength)) {
      if (frame.bytes === null) {
        overlong(++counts.lines);
        continue;
      }
      const texts: string[] = [];
      const lineNos: number[] = [];
      const pieces: string[] = [];
      const ats: number[] = [];
      const asciis: Array<Buffer | null> = [];
      counts.lines += cutLines(frame.bytes, frame.atEnd, counts.lines + 1, maxLength, (no, text, piece, at, ascii) => {
        if (text === null) overlong(no);
        else {
          texts.push(text);
          lineNos.push(no);
          pieces.push(piece);
          ats.push(at);
          asciis.push(ascii);
        }
      });
      if (texts.length > 0) yield { texts, lineNos, pieces, ats, asciis };
    }
  }

  return { counts, batches: batches() };
}
