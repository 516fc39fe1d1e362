/**
 * Reading a source chain into batches of request records, with per-source statistics.
 *
 * Pipeline per member: `open()` (gzip sniffed) → {@link splitLines} → {@link decodeLine} →
 * {@link Normalizer.normalize}. A member is rejected when none of its first `sniffLines`
 * non-blank lines is an audit event, so a wrong file fails fast with a description instead of
 * producing a report full of bad lines.
 */
import { InputError } from '../errors.js';
import type { BadLineSample } from '../report/schema.js';
import { decodeLine } from './decode.js';
import { splitLines } from './lines.js';
import type { Normalizer } from './normalize.js';
import type { RequestRecord } from './record.js';
import { describeInput } from './sniff.js';
import type { SourceChain, SourceKind, SourceSpec } from './sources.js';

/** Reading limits (see `AnalyzeOptions.maxLineLength`, `sniffLines`). */
export interface ReadOptions {
  /** Longest line kept, in characters; longer lines are counted in `overlongLines` and skipped. */
  maxLineLength: number;
  /** A member is rejected if none of its first this-many non-blank lines is an audit event. */
  sniffLines: number;
}

/** Counters of one source file; updated after every batch while reading. */
export interface SourceStats {
  name: string;
  /** `gzip` also when a pipe turned out to be gzip when opened; stdin stays `stdin`. */
  kind: SourceKind;
  /** On-disk size in bytes (0 for stdin and pipes). */
  bytes: number;
  /** Raw (compressed) bytes read so far, for progress. */
  bytesRead: number;
  /** Lines read, including blank, bad and over-long ones. */
  lines: number;
  /** Lines that decoded to an audit event, any stage. */
  events: number;
  /** Final-stage events (`ResponseComplete`, `Panic`) turned into records. */
  requests: number;
  /** Non-blank lines that are not audit events (each added to the {@link BadLineLog}). */
  badLines: number;
  /** Lines longer than `maxLineLength`. */
  overlongLines: number;
  /** `RequestReceived` / `ResponseStarted` events. */
  nonFinalStages: number;
}

/**
 * Counts bad lines across sources and keeps the first `limit` as report samples. Over-long lines
 * are sampled here too (so they can be found by file:line), though they are counted apart.
 */
export class BadLineLog {
  private total = 0;
  private readonly kept: BadLineSample[] = [];

  constructor(private readonly limit: number) {}

  /** Records a bad line: `line` is 1-based within `source`. */
  add(source: string, line: number, reason: string): void {
    this.total++;
    if (this.kept.length < this.limit) this.kept.push({ source, line, reason });
  }

  /** Bad lines added so far. */
  get count(): number {
    return this.total;
  }

  /** The first `limit` bad lines, by source (in the order first seen) and line number. */
  samples(): BadLineSample[] {
    const order = new Map<string, number>();
    for (const k of this.kept) if (!order.has(k.source)) order.set(k.source, order.size);
    return this.kept.slice().sort((a, b) => order.get(a.source)! - order.get(b.source)! || a.line - b.line);
  }
}

/** Characters of rejected lines kept to describe the input. */
const SNIFF_KEEP_CHARS = 4 * 1024 * 1024;

/** A path as a POSIX shell word, for copy-pasteable hints. */
function shellQuote(p: string): string {
  return /^[\w./+:@%-]+$/.test(p) ? p : `'${p.replaceAll("'", "'\\''")}'`;
}

/** Bad lines seen before a member's first audit event. */
class Sniff {
  lines = 0;
  firstBad: { line: number; reason: string } | undefined;
  readonly texts: string[] = [];
  private chars = 0;

  add(text: string, line: number, reason: string): void {
    this.lines++;
    this.firstBad ??= { line, reason };
    if (this.chars < SNIFF_KEEP_CHARS) {
      this.texts.push(text);
      this.chars += text.length;
    }
  }

  reject(spec: SourceSpec, overlong: number): InputError {
    const guess = describeInput(this.texts, overlong);
    const first = this.firstBad ? ` (line ${this.firstBad.line}: ${this.firstBad.reason})` : '';
    const n = this.lines + overlong;
    const none = n === 1 ? 'its first non-blank line is not' : `none of its first ${n} non-blank lines is`;
    return new InputError(
      `"${spec.name}" does not look like a kube-apiserver audit log: ${none} an audit event${first}. ` +
        `It looks like: ${guess.what}.`,
      spec.kind === 'stdin' ? guess.hint : guess.hint.replaceAll('FILE', shellQuote(spec.name)),
    );
  }
}

function emptyStats(spec: SourceSpec): SourceStats {
  return {
    name: spec.name,
    kind: spec.kind,
    bytes: spec.bytes,
    bytesRead: 0,
    lines: 0,
    events: 0,
    requests: 0,
    badLines: 0,
    overlongLines: 0,
    nonFinalStages: 0,
  };
}

async function* readMember(
  spec: SourceSpec,
  stats: SourceStats,
  normalizer: Normalizer,
  opts: ReadOptions,
  bad: BadLineLog,
): AsyncGenerator<RequestRecord[]> {
  const opened = await spec.open();
  if (opened.gzip && stats.kind === 'file') stats.kind = 'gzip';
  const { counts, batches } = splitLines(opened.stream, opts.maxLineLength);
  let sniff: Sniff | null = new Sniff();
  let overlongSampled = 0;
  const sampleOverlong = (): void => {
    for (; overlongSampled < counts.overlongAt.length; overlongSampled++) {
      bad.add(spec.name, counts.overlongAt[overlongSampled]!, `line longer than ${opts.maxLineLength} characters (--max-line-length): skipped`);
    }
  };
  for await (const { texts, lineNos } of batches) {
    sampleOverlong();
    const records: RequestRecord[] = [];
    for (let i = 0; i < texts.length; i++) {
      const result = decodeLine(texts[i]!);
      if (!result.ok) {
        stats.badLines++;
        bad.add(spec.name, lineNos[i]!, result.reason);
        if (sniff !== null) {
          sniff.add(texts[i]!, lineNos[i]!, result.reason);
          if (sniff.lines + counts.overlong >= opts.sniffLines) throw sniff.reject(spec, counts.overlong);
        }
        continue;
      }
      sniff = null;
      stats.events++;
      const record = normalizer.normalize(result.event);
      if (record === null) stats.nonFinalStages++;
      else {
        stats.requests++;
        records.push(record);
      }
    }
    stats.lines = counts.lines;
    stats.overlongLines = counts.overlong;
    stats.bytesRead = opened.bytesRead;
    if (records.length > 0) yield records;
  }
  stats.lines = counts.lines;
  stats.overlongLines = counts.overlong;
  stats.bytesRead = opened.bytesRead;
  sampleOverlong();
  if (sniff !== null && sniff.lines + counts.overlong > 0) throw sniff.reject(spec, counts.overlong);
}

/**
 * Reads a chain's members in order. `stats` has one entry per member, updated while `batches` is
 * consumed. `batches` yields non-empty arrays of records (final-stage events) in file order; it
 * can be iterated once. Bad lines are counted in `badLines` and added to `bad` with their 1-based
 * line number; every valid event still counts.
 *
 * Throws (from the iteration) {@link InputError} when a member cannot be read (missing file,
 * corrupt gzip), or when none of its first `opts.sniffLines` non-blank lines is an audit event;
 * the message says what the input looks like and the hint how to convert it. Empty members are
 * fine. With `onError`, such an InputError is passed to it instead and the next member is read.
 */
export function readChain(
  chain: SourceChain,
  normalizer: Normalizer,
  opts: ReadOptions,
  bad: BadLineLog,
  onError?: (source: string, err: InputError) => void,
): { stats: SourceStats[]; batches: AsyncIterable<RequestRecord[]> } {
  const stats = chain.members.map(emptyStats);
  async function* all(): AsyncGenerator<RequestRecord[]> {
    for (let i = 0; i < chain.members.length; i++) {
      const member = chain.members[i]!;
      try {
        yield* readMember(member, stats[i]!, normalizer, opts, bad);
      } catch (err) {
        // With onError, one unreadable member (a stray file, a .gz still being written) is
        // reported and skipped; what was read of it still counts.
        if (onError === undefined || !(err instanceof InputError)) throw err;
        onError(member.name, err);
      }
    }
  }
  return { stats, batches: all() };
}
