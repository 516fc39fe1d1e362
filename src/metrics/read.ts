/**
 * Read scrapes for `auditstorm metrics`: files (gzip detected by its magic bytes, whatever the
 * name) or `-` for stdin, each parsed with {@link parseExposition}. A scrape is a few MB, so each
 * is read whole.
 */
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { describeFsError, InputError } from '../errors.js';
import { WANTED } from './analyze.js';
import { parseExposition, ScrapeTimeError } from './exposition.js';
import type { ScrapeInput } from './report.js';

/** All bytes of a stream. */
async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * Read and parse one scrape.
 * @param source a file path, or `-` for `stdin`
 * @param stdin read when `source` is `-`
 * @returns the parsed scrape (samples of the families the analysis reads)
 * @throws InputError naming the file (and line) when it cannot be read, is a broken gzip, holds
 *   binary data, or has a malformed scrape-time line
 */
export async function readScrape(source: string, stdin?: NodeJS.ReadableStream): Promise<ScrapeInput> {
  let raw: Buffer;
  if (source === '-') {
    if (stdin === undefined) throw new InputError('-: stdin is not available');
    raw = await readAll(stdin);
  } else {
    try {
      raw = await readFile(source);
    } catch (e) {
      throw new InputError(`${source}: cannot read: ${describeFsError(e)}`);
    }
  }
  const gzip = raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b;
  let bytes = raw;
  if (gzip) {
    try {
      bytes = gunzipSync(raw);
    } catch (e) {
      throw new InputError(`${source}: not a readable gzip file: ${(e as Error).message}`);
    }
  }
  if (bytes.subarray(0, 8192).includes(0)) throw new InputError(`${source}: binary data, not Prometheus text exposition`, 'scrape with: kubectl get --raw /metrics > scrape.txt');
  try {
    const exposition = parseExposition(bytes.toString('utf8'), { want: (name) => WANTED.has(name) });
    const first = exposition.badLineSamples[0];
    if (first !== undefined && exposition.sampleLines === 0) {
      throw new InputError(`${source}:${first.line}: not Prometheus text exposition: ${first.reason}`, 'scrape with: kubectl get --raw /metrics > scrape.txt');
    }
    return { source, kind: source === '-' ? 'stdin' : gzip ? 'gzip' : 'file', bytes: raw.length, exposition };
  } catch (e) {
    if (e instanceof ScrapeTimeError)
      throw new InputError(`${source}:${e.line}: ${e.message}`, 'write it as: # auditstorm-scrape-time: 2026-12-05T20:00:00Z (date -u +%Y-%m-%dT%H:%M:%SZ)');
    throw e;
  }
}
