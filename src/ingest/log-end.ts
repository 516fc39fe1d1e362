/**
 * The end time of a log, for `--since 15m` / `--until 5m` ("back from the end of the log").
 *
 * Plain JSON-lines files are read from the tail (the last MiB, up to 16 MiB if no event is
 * there). Anything else — gzip, JSON documents, YAML, legacy text, cloud exports, or a tail with
 * no audit event — is read once through the normal reader, keeping only the latest time. The end
 * is the latest `stageTimestamp` near the end of each chain's last readable member.
 */
import { open, stat } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { decodeLine } from '../decoding/decode.js';
import { stripPrefix } from '../decoding/prefix.js';
import { Normalizer } from '../decoding/normalize.js';
import type { ReadOptions } from './options.js';
import { BadLineLog, readChain } from './read.js';
import type { SourceChain, SourceSpec } from './sources.js';

const TAIL_BYTES = 1024 * 1024;
const MAX_TAIL_BYTES = 16 * TAIL_BYTES;
/** Events near the end whose times are compared (the log is only nearly ordered). */
const LAST_EVENTS = 64;

/** Latest stage time (epoch ms) among the last decodable lines of `texts`, or -Infinity. */
function latestOf(texts: readonly string[]): number {
  let best = -Infinity;
  let seen = 0;
  for (let i = texts.length - 1; i >= 0 && seen < LAST_EVENTS; i--) {
    const d = decodeLine(stripPrefix(texts[i] as string));
    if (!d.ok) continue;
    seen++;
    if (d.event.stageTimeMs > best) best = d.event.stageTimeMs;
  }
  return best;
}

/** Latest event time in the tail of a plain JSON-lines file, or -Infinity if the tail has none. */
async function tailOfFile(spec: SourceSpec): Promise<number> {
  const fh = await open(spec.name, 'r');
  try {
    const size = spec.bytes;
    for (let want = TAIL_BYTES; want <= MAX_TAIL_BYTES; want *= 4) {
      const start = Math.max(0, size - want);
      const buf = Buffer.alloc(size - start);
      await fh.read(buf, 0, buf.length, start);
      const lines = buf.toString('utf8').split('\n');
      if (start > 0) lines.shift(); // first line is probably cut
      const t = latestOf(lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)));
      if (t !== -Infinity || start === 0) return t;
    }
    return -Infinity;
  } finally {
    await fh.close();
  }
}

/** Latest request time in a whole member, read through the normal reader (any format). */
async function lastByReading(spec: SourceSpec, opts: ReadOptions): Promise<number> {
  let best = -Infinity;
  const { batches } = readChain({ name: spec.name, members: [spec] }, new Normalizer(), opts, new BadLineLog(0), () => {});
  for await (const batch of batches) for (const r of batch) if (r.ts > best) best = r.ts;
  return best;
}

/**
 * @param chains the inputs, as resolved by `resolveInputs`
 * @param opts read options, as in the analysis (line length, sniffing, forced input format)
 * @returns the latest stageTimestamp (UTC epoch ms) near the end of any chain, or `null` when no
 *   event was found.
 * @throws UsageError for stdin, pipes and FIFOs, which have no end to look at before reading them;
 *   InputError when a file cannot be read.
 */
export async function findLogEnd(chains: readonly SourceChain[], opts: ReadOptions): Promise<number | null> {
  for (const c of chains) {
    for (const m of c.members) {
      if (m.unreadable !== undefined) continue; // skipped when read
      // A pipe, FIFO or stdin can be read once only: reading its end first would leave nothing.
      if (m.kind === 'stdin' || !(await stat(m.name)).isFile()) {
        throw new UsageError(
          `a duration for --since/--until counts back from the end of the log, which ${m.name} (a pipe or stdin) does not have yet`,
          'give an RFC 3339 time instead, e.g. --since 2026-08-08T18:00:00Z, or save the log to a file first',
        );
      }
    }
  }
  let end = -Infinity;
  for (const c of chains) {
    for (let i = c.members.length - 1; i >= 0; i--) {
      const m = c.members[i] as SourceSpec;
      if (m.unreadable !== undefined) continue;
      let t = m.kind === 'file' ? await tailOfFile(m) : -Infinity;
      if (t === -Infinity) t = await lastByReading(m, opts);
      if (t !== -Infinity) {
        if (t > end) end = t;
        break;
      }
    }
  }
  return end === -Infinity ? null : end;
}
