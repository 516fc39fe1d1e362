/**
 * The end time of a log, for `--since 15m` / `--until 5m` ("back from the end of the log").
 *
 * Plain files are read from the tail (the last `TAIL_BYTES`, more if no event is there); gzip
 * files must be inflated to the end, so they are streamed once and only each batch's last lines
 * are decoded. The end is the latest `stageTimestamp` among the last events of each chain's last
 * member.
 */
import { open, stat } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { decodeLine } from './decode.js';
import { splitLines, stripPrefix } from './lines.js';
import type { SourceChain, SourceSpec } from './sources.js';

const TAIL_BYTES = 1024 * 1024;
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

async function tailOfFile(spec: SourceSpec): Promise<number> {
  const fh = await open(spec.name, 'r');
  try {
    let size = spec.bytes;
    let want = TAIL_BYTES;
    for (;;) {
      const start = Math.max(0, size - want);
      const buf = Buffer.alloc(size - start);
      await fh.read(buf, 0, buf.length, start);
      const lines = buf.toString('utf8').split('\n');
      if (start > 0) lines.shift(); // first line is probably cut
      const t = latestOf(lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)));
      if (t !== -Infinity || start === 0) return t;
      want *= 4;
    }
  } finally {
    await fh.close();
  }
}

async function tailOfStream(spec: SourceSpec, maxLineLength: number): Promise<number> {
  const opened = await spec.open();
  const { batches } = splitLines(opened.stream, maxLineLength);
  let best = -Infinity;
  let last: string[] = [];
  for await (const b of batches) {
    if (b.texts.length === 0) continue;
    last = b.texts.length >= LAST_EVENTS ? b.texts.slice(-LAST_EVENTS) : [...last, ...b.texts].slice(-LAST_EVENTS);
  }
  best = latestOf(last);
  return best;
}

/**
 * @param chains the inputs, as resolved by `resolveInputs`
 * @param maxLineLength longest line read, as in the analysis
 * @returns the latest stageTimestamp (UTC epoch ms) near the end of any chain, or `null` when no
 *   event was found.
 * @throws UsageError for stdin, pipes and FIFOs, which have no end to look at before reading them;
 *   InputError when a file cannot be read.
 */
export async function findLogEnd(chains: readonly SourceChain[], maxLineLength: number): Promise<number | null> {
  for (const c of chains) {
    for (const m of c.members) {
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
      const t = m.kind === 'file' ? await tailOfFile(m) : await tailOfStream(m, maxLineLength);
      if (t !== -Infinity) {
        if (t > end) end = t;
        break;
      }
    }
  }
  return end === -Infinity ? null : end;
}
