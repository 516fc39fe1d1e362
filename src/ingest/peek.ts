/**
 * Reading a source's first bytes for framing detection (`detectFraming` of
 * `src/decoding/formats/detect.ts`) and putting them back.
 */
import { Readable } from 'node:stream';
import { PEEK_BYTES } from '../decoding/formats/detect.js';

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
