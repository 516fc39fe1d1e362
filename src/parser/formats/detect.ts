/**
 * Telling a source's framing from its first bytes (decompressed), without consuming them.
 *
 * Rules, in order, on the first non-blank lines of the first {@link PEEK_BYTES} bytes:
 *
 * 1. `legacy`: one of the first 20 non-blank lines is `<time> AUDIT: id=…` (reference §2).
 * 2. `base64`: the first line is base64 only and starts `H4sI` (gzip) or `eyJ`/`W3s` (`{"`/`[{`):
 *    a CloudWatch subscription payload (§6.3).
 * 3. First line starts with `{` or `[`:
 *    - `jsonl` when it is one complete JSON value (a newline follows it, or the input ends), or
 *      when it is cut by CloudWatch (`[Truncated...]`), or when the next line is complete JSON;
 *    - `json` otherwise: a document spanning lines (pretty-printed, or longer than the peek).
 * 4. `jsonl` when the line is `prefix {…}` (`hostname {…}`, `2026-…Z {…}`).
 * 5. `yaml`: the first line that is not a `#` comment is `---`, `key:` or `- ` (a sequence).
 * 6. `jsonl` for anything else: plain text, HTML and binary fall to the JSON-lines reader, which
 *    rejects them with a description (`sniff.ts`).
 */
import { Readable } from 'node:stream';
import { CLOUDWATCH_TRUNCATED } from '../decode.js';
import { isLegacyLine } from '../legacy.js';
import { stripPrefix } from '../lines.js';

/** How a source's bytes are cut into values. */
export type Framing = 'jsonl' | 'json' | 'yaml' | 'legacy' | 'base64';

/** `--input-format`: `auto` detects per source member. */
export const INPUT_FORMATS = ['auto', 'jsonl', 'json', 'yaml', 'legacy'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** Bytes looked at to detect a framing. */
export const PEEK_BYTES = 64 * 1024;
/** Non-blank lines looked at for the legacy mark. */
const PEEK_LINES = 20;

const YAML_START = /^(---(\s|$)|- |-$|[A-Za-z_@"'][^\s:]*:(\s|$))/;
const BASE64_START = /^(H4sI|eyJ|W3s)[A-Za-z0-9+/]*={0,2}$/;

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The framing of a source whose first bytes are `head` (UTF-8, BOM allowed); `atEnd` when `head`
 * is the whole input. See the module comment for the rules.
 */
export function detectFraming(head: string, atEnd: boolean): Framing {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  const all = text.split('\n');
  // The last piece is incomplete unless the input ended there.
  const complete = atEnd ? all.length : all.length - 1;
  const lines: { text: string; complete: boolean }[] = [];
  for (let i = 0; i < all.length && lines.length < PEEK_LINES; i++) {
    const raw = all[i]!;
    const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (l.trim() === '') continue;
    lines.push({ text: l, complete: i < complete });
  }
  const first = lines[0];
  if (first === undefined) return 'jsonl';
  if (lines.some((l) => isLegacyLine(l.text))) return 'legacy';
  const t = first.text.trim();
  if (BASE64_START.test(t) && t.length >= 8) return 'base64';
  if (t.startsWith('{') || t.startsWith('[')) {
    if (first.complete && parses(t)) return 'jsonl';
    if (first.text.endsWith(CLOUDWATCH_TRUNCATED)) return 'jsonl';
    const second = lines[1];
    if (first.complete && second !== undefined && second.complete && parses(stripPrefix(second.text.trim()))) {
      return 'jsonl'; // a bad first line in a JSON-lines file
    }
    return 'json';
  }
  const stripped = stripPrefix(first.text);
  if (stripped !== first.text && stripped.startsWith('{')) return 'jsonl';
  const yamlFirst = lines.find((l) => !l.text.startsWith('#'));
  if (yamlFirst !== undefined && YAML_START.test(yamlFirst.text)) return 'yaml';
  return 'jsonl';
}

/** A stream whose first bytes have been read for detection, and the same bytes put back. */
export interface Peeked {
  /** The first bytes (at most about {@link PEEK_BYTES}, more if one chunk was bigger). */
  readonly head: Buffer;
  /** True when `head` is the whole input. */
  readonly atEnd: boolean;
  /** The whole input again, `head` first. */
  readonly stream: Readable;
}

/** Marks streams that are read live (`auditstorm watch`): see {@link markLiveStream}. */
const LIVE_STREAM = Symbol('auditstorm.liveStream');

/**
 * Marks `stream` as live: {@link peek} then detects the framing from the first chunk that
 * completes a line instead of waiting for {@link PEEK_BYTES}, which a quiet pipe or followed file
 * may take minutes to deliver. Returns `stream`.
 */
export function markLiveStream<S extends Readable>(stream: S): S {
  (stream as unknown as Record<symbol, boolean>)[LIVE_STREAM] = true;
  return stream;
}

function isLiveStream(stream: Readable): boolean {
  return (stream as unknown as Record<symbol, boolean | undefined>)[LIVE_STREAM] === true;
}

/**
 * Reads up to `bytes` from `input` and returns them with a stream that yields them again, then
 * the rest of `input`. Errors of `input` are thrown here (while peeking) or by the new stream.
 */
export async function peek(input: Readable, bytes = PEEK_BYTES): Promise<Peeked> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const chunks: Buffer[] = [];
  let size = 0;
  let atEnd = false;
  const live = isLiveStream(input);
  while (size < bytes) {
    const r = await it.next();
    if (r.done === true) {
      atEnd = true;
      break;
    }
    const b = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    chunks.push(b);
    size += b.length;
    // A live stream (watch) may stay quiet for minutes: detect from the first whole line.
    if (live && b.includes(0x0a)) break;
  }
  const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  async function* again(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) yield head;
      if (atEnd) return;
      for (let r = await it.next(); r.done !== true; r = await it.next()) {
        yield typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
      }
    } finally {
      await it.return?.();
    }
  }
  return { head, atEnd, stream: Readable.from(again(), { objectMode: false }) };
}
