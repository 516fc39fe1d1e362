/**
 * Reading a source chain into batches of request records, with per-source statistics.
 *
 * Pipeline per member: `open()` (gzip sniffed) → {@link peek} the first 64 KB and
 * {@link detectFraming} (or `inputFormat`) → frame:
 *
 * - `jsonl`: {@link splitLines} → {@link fastDecode} (the fast path, `fast.ts`), else `JSON.parse` +
 *   {@link decodeObject}; a line that is not a bare event goes to {@link eventsOfValue} (EventList, array, `unwrapValue` for cloud
 *   wrappers), a legacy text line to `decodeLegacyLine`, a CloudWatch-cut line to `truncated`;
 * - `json`: {@link JsonDocReader} (stream-json), one element or document at a time;
 * - `yaml`: {@link YamlDocReader}, one document at a time;
 * - `legacy`: {@link splitLines} → `decodeLegacyLine`;
 * - `base64`: {@link splitLines} → {@link Base64Reader} (CloudWatch subscription payloads);
 *
 * → {@link Normalizer.normalize}. A member is rejected when none of its first `sniffLines` units
 * (non-blank lines, JSON values, YAML documents) holds an audit event, so a wrong file fails fast
 * with a description instead of producing a report full of bad lines.
 */
import { fstatSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { InputError } from '../errors.js';
import type { BadLineSample } from '../report/schema.js';
import { CLOUDWATCH_TRUNCATED, decodeObject, notJsonReason, type DecodeResult } from '../decoding/decode.js';
import { Base64Reader } from '../decoding/formats/base64.js';
import { detectFraming, type Framing, type InputFormat } from '../decoding/formats/detect.js';
import { peek } from './peek.js';
import { JsonDocReader, type DocFormat } from '../decoding/formats/json-doc.js';
import { isLegacyLine, LegacyDecoder } from '../decoding/formats/peers.js';
import { BARE, eventsOfValue, type ValueResult } from '../decoding/formats/values.js';
import type { YamlDocReader } from '../decoding/formats/yaml-doc.js';
import { FAST_FALLBACK, FAST_FINAL, fastDecode, newFastFields, releasePiece } from '../decoding/fast.js';
import { frameLines, OVERLONG_KEPT, splitLines } from './lines.js';
import { decodeInParallel, decodeRanges, parallelWorkers, RunDecoder, type RangeRun } from './parallel.js';
import { LINE_FALLBACK, LINE_FINAL, LINE_NONFINAL, LINE_OVERLONG, type WorkResult } from './work-lines.js';
import { decodeTruncated } from '../decoding/unwrap.js';
import type { Normalizer } from '../decoding/normalize.js';
import type { RequestRecord } from '../decoding/record.js';
import { isJsonLogRecord, isKlogLine } from '../decoding/server-log.js';
import { describeInput } from '../decoding/sniff.js';
import type { ReadOptions } from './options.js';
import type { SourceChain, SourceKind, SourceSpec } from './sources.js';

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
  /**
   * What was read: the framing (`jsonl`, `eventlist`, `json-array`, `json-docs`, `yaml`, `legacy`,
   * `base64`), or the wrapper (`gke`, `eks`, `aks`, `viaq`, `otlp`, …) when most events came
   * out of one. `''` until the member is opened.
   */
  format: string;
  /** Items cut short by CloudWatch (`[Truncated...]`): counted here, not as bad lines. */
  truncated: number;
  /**
   * Of `truncated`, those read leniently from the prefix before the cut (their events count in
   * `events`; see `unwrap.ts` `decodeTruncated`).
   */
  truncatedRead: number;
  /**
   * Wrapper items that are not audit events by design (other AKS categories, other GKE services,
   * non-audit CloudWatch streams and control messages, non-Kubernetes OTLP records): not bad.
   */
  skippedRecords: number;
  /**
   * Lines of the API server's own log (klog text, or JSON logging) among the events, as
   * `kubectl logs kube-apiserver-…` gives them (`server-log.ts`): not audit events, not bad.
   */
  logLines: number;
}

/**
 * Counts bad lines across sources and keeps the first `limit` as report samples. Over-long lines
 * are sampled here too (so they can be found by file:line), though they are counted apart.
 */
export class BadLineLog {
  private total = 0;
  private readonly kept: BadLineSample[] = [];
  private readonly bySource = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Records a bad line: `line` is 1-based within `source`. */
  add(source: string, line: number, reason: string): void {
    this.total++;
    this.bySource.set(source, (this.bySource.get(source) ?? 0) + 1);
    if (this.kept.length < this.limit) this.kept.push({ source, line, reason });
  }

  /**
   * Drops what was added for `source` (a source rejected as a whole is not a source of bad
   * lines: its lines were never read as audit events).
   */
  forget(source: string): void {
    for (let i = this.kept.length - 1; i >= 0; i--) if (this.kept[i]!.source === source) this.kept.splice(i, 1);
    const n = this.bySource.get(source) ?? 0;
    this.total -= n;
    this.bySource.delete(source);
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

/** What a framing's units are called in the rejection message: [one, many]. */
const UNITS: Record<Framing, [string, string]> = {
  jsonl: ['non-blank line', 'non-blank lines'],
  legacy: ['non-blank line', 'non-blank lines'],
  base64: ['non-blank line', 'non-blank lines'],
  json: ['JSON value', 'JSON values'],
  yaml: ['YAML document', 'YAML documents'],
};

/** Bad units (lines, values, documents) seen before a member's first audit event. */
class Sniff {
  lines = 0;
  firstBad: { line: number; reason: string } | undefined;
  readonly texts: string[] = [];
  private chars = 0;

  /**
   * @param framing names the units in the message
   * @param headTexts for documents (JSON, YAML): the first lines of the input, to describe it
   */
  constructor(
    private readonly framing: Framing,
    private readonly headTexts: readonly string[] | null,
  ) {}

  add(text: string, line: number, reason: string): void {
    this.lines++;
    this.firstBad ??= { line, reason };
    if (this.headTexts === null && this.chars < SNIFF_KEEP_CHARS) {
      this.texts.push(text);
      this.chars += text.length;
    }
  }

  /**
   * @param forced `--input-format` when it is not `auto`, and the framing detection would have
   *   chosen: a forced format that does not fit the file is named, with the advice to drop it
   */
  reject(spec: SourceSpec, overlong: number, forced?: { format: InputFormat; detected: Framing }): InputError {
    const guess = describeInput(this.headTexts ?? this.texts, overlong);
    const first = this.firstBad ? ` (line ${this.firstBad.line}: ${this.firstBad.reason})` : '';
    const n = this.lines + overlong;
    const [one, many] = UNITS[this.framing];
    const none = n === 1 ? `its first ${one} is not` : `none of its first ${n} ${many} is`;
    const name = spec.kind === 'stdin' ? 'the input' : shellQuote(spec.name);
    if (forced !== undefined && forced.detected !== forced.format) {
      return new InputError(
        `"${spec.name}" was read as ${forced.format} (--input-format ${forced.format}), but ${none} an audit event${first}. ` + `It looks like ${forced.detected} (${guess.what}).`,
        `Drop --input-format to detect the format of each file (or use --input-format ${forced.detected === 'base64' ? 'auto' : forced.detected} for ${name}).`,
      );
    }
    return new InputError(
      `"${spec.name}" does not look like a kube-apiserver audit log: ${none} an audit event${first}. ` + `It looks like: ${guess.what}.`,
      spec.kind === 'stdin' ? guess.hint : guess.hint.replaceAll('FILE', shellQuote(spec.name)),
    );
  }
}

/** Non-blank lines of the peeked head, as `describeInput` expects them (BOM and `\r` removed). */
function headLines(head: string, atEnd: boolean): string[] {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  const all = text.split('\n');
  if (!atEnd && all.length > 1) all.pop(); // the last line is cut by the peek
  return all.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).filter((l) => l.trim() !== '');
}

/** Lines in a text stream, counted as `splitLines` does: `\n`-terminated lines plus a non-empty last one. */
class LineCounter {
  newlines = 0;
  private lastNewline = true;
  add(text: string): void {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.newlines++;
    if (text.length > 0) this.lastNewline = text.charCodeAt(text.length - 1) === 10;
  }
  get lines(): number {
    return this.newlines + (this.lastNewline ? 0 : 1);
  }
}

function emptyStats(spec: SourceSpec): SourceStats {
  return { ...emptyCounts(spec.name, '', spec.bytes), kind: spec.kind, bytesRead: 0 };
}

/** Zero counters of a source named `name` (for sources that are not files, e.g. the webhook). */
export function emptyCounts(name: string, format: string, bytes = 0): Omit<SourceStats, 'kind' | 'bytesRead'> {
  return {
    name,
    bytes,
    lines: 0,
    events: 0,
    requests: 0,
    badLines: 0,
    overlongLines: 0,
    nonFinalStages: 0,
    format,
    truncated: 0,
    truncatedRead: 0,
    skippedRecords: 0,
    logLines: 0,
  };
}

/**
 * The member's `format`: the shape that gave the most events if it is a wrapper, else the
 * framing's name. Without events, the wrapper whose items were all skipped or truncated (a
 * subscription file of control messages only is still `eks`).
 */
function formatOf(framing: string, byShape: Map<string, number>, wrapperSeen: string): string {
  let best = '';
  let bestCount = 0;
  for (const [shape, n] of byShape) {
    if (n > bestCount) {
      best = shape;
      bestCount = n;
    }
  }
  if (best === '' && wrapperSeen !== '') return wrapperSeen;
  if (best === '' || best === BARE) return framing;
  return best;
}

/** The framing name of a JSON-document member, from the documents seen. */
function docFormat(formats: Record<DocFormat, number>): string {
  if (formats.eventlist > 0) return 'eventlist';
  if (formats['json-array'] > 0) return 'json-array';
  if (formats['json-docs'] > 0) return 'json-docs';
  return formats['json-wrapper'] > 0 ? 'json-wrapper' : 'json-docs';
}

async function* readMember(spec: SourceSpec, stats: SourceStats, normalizer: Normalizer, opts: ReadOptions, bad: BadLineLog): AsyncGenerator<RequestRecord[]> {
  const opened = await spec.open();
  if (opened.gzip && stats.kind === 'file') stats.kind = 'gzip';
  const peeked = await peek(opened.stream);
  const headText = peeked.head.toString('utf8');
  const forced = opts.inputFormat ?? 'auto';
  const detected = detectFraming(headText, peeked.atEnd);
  const framing: Framing = forced === 'auto' ? detected : forced;
  const forcedInfo = forced === 'auto' ? undefined : { format: forced, detected };
  const isDoc = framing === 'json' || framing === 'yaml';
  let sniff: Sniff | null = new Sniff(framing, isDoc ? headLines(headText, peeked.atEnd) : null);
  const byShape = new Map<string, number>();
  let wrapperSeen = ''; // the first wrapper that gave skipped or truncated items
  let records: RequestRecord[] = [];
  let overlong = 0; // over-long lines so far (line framings)
  let docFormats: Record<DocFormat, number> | null = null;
  let bare = 0; // bare events on the JSON-lines fast path, added to byShape by setFormat
  const setFormat = (): void => {
    if (bare > 0) {
      byShape.set(BARE, (byShape.get(BARE) ?? 0) + bare);
      bare = 0;
    }
    stats.format = formatOf(docFormats === null ? framing : docFormat(docFormats), byShape, wrapperSeen);
  };
  stats.format = framing;

  /** Counts one unit's result: events become records, bad items bad lines. */
  const take = (line: number, r: ValueResult, text: string): void => {
    const events = r.events;
    const skipped = r.skipped ?? 0;
    if (events.length > 0 || r.truncated > 0 || skipped > 0) sniff = null;
    if (r.truncated > 0) stats.truncated += r.truncated;
    if (r.truncatedRead !== undefined) stats.truncatedRead += r.truncatedRead;
    stats.skippedRecords += skipped;
    if (wrapperSeen === '' && r.shape !== '' && (skipped > 0 || r.truncated > 0)) wrapperSeen = r.shape;
    if (events.length > 0) {
      byShape.set(r.shape, (byShape.get(r.shape) ?? 0) + events.length);
      for (let i = 0; i < events.length; i++) {
        stats.events++;
        const record = normalizer.normalize(events[i]!);
        if (record === null) stats.nonFinalStages++;
        else {
          stats.requests++;
          records.push(record);
        }
      }
    }
    if (r.bad.length === 0) return;
    for (const reason of r.bad) {
      stats.badLines++;
      bad.add(spec.name, line, reason);
    }
    if (sniff !== null && events.length === 0 && r.truncated === 0) {
      sniff.add(text, line, r.bad[0]!);
      checkSniff();
    }
  };
  /**
   * Rejects the member once its first `sniffLines` lines — bad ones and over-long ones, counted
   * in line order — held no audit event (the same in every reader: see `overlong`).
   */
  const checkSniff = (): void => {
    if (sniff !== null && sniff.lines + overlong >= opts.sniffLines) throw sniff.reject(spec, overlong, forcedInfo);
  };
  const flush = (): RequestRecord[] => {
    const out = records;
    records = [];
    return out;
  };

  if (isDoc) {
    const decoder = new StringDecoder('utf8');
    const counter = new LineCounter();
    const onItem = (line: number, r: ValueResult): void => take(line, r, '');
    let reader: JsonDocReader | YamlDocReader;
    if (framing === 'json') {
      const json = new JsonDocReader(opts.maxLineLength, onItem);
      docFormats = json.formats;
      reader = json;
    } else {
      // Loaded when a YAML source comes (with the `yaml` package), so other runs do not load it.
      const { YamlDocReader: Reader } = await import('../decoding/formats/yaml-doc.js');
      reader = new Reader(opts.maxLineLength, onItem);
    }
    let first = true;
    for await (const chunk of peeked.stream as AsyncIterable<Buffer>) {
      let text = decoder.write(chunk);
      if (first && text.length > 0) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
      }
      counter.add(text);
      reader.feed(text);
      stats.lines = counter.lines;
      stats.bytesRead = opened.bytesRead;
      if (records.length > 0) {
        setFormat();
        yield flush();
      }
    }
    const rest = decoder.end();
    counter.add(rest);
    reader.feed(rest);
    reader.end();
    stats.lines = counter.lines;
    stats.bytesRead = opened.bytesRead;
    setFormat();
    if (records.length > 0) yield flush();
    if (sniff !== null && sniff.lines > 0) throw sniff.reject(spec, 0, forcedInfo);
    return;
  }

  // One per member: pre-1.12 basic legacy lines come in request/response pairs.
  const legacy = new LegacyDecoder();
  const base64 = framing === 'base64' ? new Base64Reader(opts.maxLineLength, (line, r) => take(line, r, '')) : null;
  const fields = newFastFields();
  const fast = framing === 'jsonl' && opts.fullDecode !== true;
  /** One bare event: its record, or `null` for a non-final stage (counted, no record). */
  const bareEvent = (record: RequestRecord | null): void => {
    sniff = null;
    stats.events++;
    bare++;
    if (record === null) stats.nonFinalStages++;
    else {
      stats.requests++;
      records.push(record);
    }
  };
  /** One line the fast path did not take (or every line of a framing it does not read). */
  const slowLine = (text: string, line: number): void => {
    if (base64 !== null) {
      base64.line(text, line);
      return;
    }
    if (framing === 'legacy') {
      const d = legacy.decode(text);
      if (d !== null) take(line, legacyResult(d), text);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      if (isKlogLine(text)) {
        stats.logLines++;
        return;
      }
      if (isLegacyLine(text)) {
        const d = legacy.decode(text);
        if (d !== null) take(line, legacyResult(d), text);
      } else take(line, notJsonLine(text, err), text);
      return;
    }
    if (isJsonLogRecord(parsed)) {
      stats.logLines++;
      return;
    }
    const d = decodeObject(parsed);
    // A bare event the fast path left to the full one, or what the value holds.
    if (d.ok) bareEvent(normalizer.normalize(d.event));
    else take(line, eventsOfValue(parsed, d), text);
  };
  /** A member of the API server's own log lines and no audit event: not an audit log. */
  const onlyLogLines = (): void => {
    if (stats.events > 0 || stats.logLines === 0 || stats.badLines > 0 || stats.truncated > 0 || stats.skippedRecords > 0) return;
    throw new InputError(
      `"${spec.name}" holds ${stats.logLines.toLocaleString('en-US')} lines of the API server's own log (klog) and no audit event`,
      'kubectl logs shows audit events only when the API server writes them to stdout (--audit-log-path=-); else read the file given to --audit-log-path',
    );
  };
  const overlongReason = `line longer than ${opts.maxLineLength} characters (--max-line-length): skipped`;

  const workers = fast ? parallelWorkers(spec, opts) : 0;
  if (workers > 0) {
    // The same lines, cut and fast-decoded on worker threads (parallel.ts), consumed in order here.
    let lines = 0;
    let overlongLines = 0;
    const runs = new RunDecoder(normalizer);
    const overlongAt = (no: number): void => {
      overlongLines++;
      overlong = overlongLines;
      if (overlongLines <= OVERLONG_KEPT) bad.add(spec.name, no, overlongReason); // as splitLines keeps them
      checkSniff();
    };
    // A plain regular file is read by the workers themselves, in byte ranges, through the
    // descriptor its stream holds (so it is the file that was opened, whatever a rotation does);
    // anything else (gzip, a pipe) is read here and its runs of lines posted to them.
    const fd = spec.path !== undefined && !opened.gzip ? opened.fd : undefined;
    let offset = 0; // of the file, read up to (ranges)
    const bytesRead = (): number => (fd !== undefined ? offset : opened.bytesRead);
    const source: AsyncIterable<RangeRun | WorkResult | null> =
      fd !== undefined
        ? decodeRanges(spec.name, fd, spec.bytes, workers, opts.maxLineLength, opts.parallel?.rangeBytes)
        : decodeInParallel(frameLines(peeked.stream, opts.maxLineLength), workers, opts.maxLineLength);
    try {
      for await (const item of source) {
        if (item === null) {
          overlongAt(++lines);
          continue;
        }
        let run: WorkResult;
        if ('offset' in item) {
          run = item.run;
          offset = item.offset;
        } else run = item;
        runs.begin(run);
        const kinds = run.kinds;
        for (let k = 0; k < run.lines; k++) {
          const kind = kinds[k];
          if (kind === LINE_FINAL) bareEvent(runs.record());
          else if (kind === LINE_NONFINAL) bareEvent(null);
          else if (kind === LINE_FALLBACK) slowLine(runs.fallback(), lines + k + 1);
          else if (kind === LINE_OVERLONG) overlongAt(lines + k + 1);
        }
        lines += run.lines;
        stats.lines = lines;
        stats.overlongLines = overlongLines;
        stats.bytesRead = bytesRead();
        if (records.length > 0) {
          setFormat();
          yield flush();
        }
      }
      // Ranges reach the size the file had; one that shrank since ended earlier, as a stream would.
      if (fd !== undefined) offset = Math.min(offset, fstatSync(fd).size);
    } finally {
      // The stream was only peeked at: ending it closes the descriptor (after the workers stopped).
      if (fd !== undefined) opened.stream.destroy();
    }
    stats.lines = lines;
    stats.overlongLines = overlongLines;
    stats.bytesRead = bytesRead();
    setFormat();
    if (records.length > 0) yield flush();
    if (sniff !== null && sniff.lines + overlongLines > 0) throw sniff.reject(spec, overlongLines, forcedInfo);
    onlyLogLines();
    return;
  }

  const { counts, batches } = splitLines(peeked.stream, opts.maxLineLength);
  let overlongSampled = 0;
  /**
   * Samples the over-long lines before line `before`, so samples are taken in line order, and
   * sets `overlong` to how many there are (past the {@link OVERLONG_KEPT} whose line numbers are
   * kept: all of them so far), as the parallel reader counts them.
   */
  const sampleOverlong = (before = Infinity): void => {
    for (; overlongSampled < counts.overlongAt.length && counts.overlongAt[overlongSampled]! < before; overlongSampled++) {
      bad.add(spec.name, counts.overlongAt[overlongSampled]!, overlongReason);
    }
    overlong = overlongSampled < OVERLONG_KEPT ? overlongSampled : counts.overlong;
    checkSniff();
  };
  for await (const { texts, lineNos, pieces, ats, asciis } of batches) {
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i]!;
      if (overlong !== counts.overlong) sampleOverlong(lineNos[i]);
      if (fast) {
        // Read inside its piece, as the workers read (the native scanner reads ASCII pieces'
        // bytes); the record copies what it keeps (`normalizeFast`).
        const f = fastDecode(text, fields, pieces[i], ats[i], asciis[i]);
        if (f !== FAST_FALLBACK) {
          bareEvent(f === FAST_FINAL ? normalizer.normalizeFast(fields) : null);
          continue;
        }
      }
      slowLine(text, lineNos[i]!);
    }
    if (fast) releasePiece(); // the next batch's bytes may reuse this one's memory
    stats.lines = counts.lines;
    stats.overlongLines = counts.overlong;
    stats.bytesRead = opened.bytesRead;
    if (records.length > 0) {
      setFormat();
      yield flush();
    }
  }
  base64?.end();
  stats.lines = counts.lines;
  stats.overlongLines = counts.overlong;
  stats.bytesRead = opened.bytesRead;
  overlong = counts.overlong;
  sampleOverlong();
  setFormat();
  if (records.length > 0) yield flush();
  if (sniff !== null && sniff.lines + counts.overlong > 0) throw sniff.reject(spec, counts.overlong, forcedInfo);
  onlyLogLines();
}

function notEvents(reason: string): ValueResult {
  return { shape: '', events: [], bad: [reason], truncated: 0 };
}

function legacyResult(d: DecodeResult): ValueResult {
  return d.ok ? { shape: 'legacy', events: [d.event], bad: [], truncated: 0 } : notEvents(d.reason);
}

/** A JSON-lines line that is not JSON (nor legacy text): a CloudWatch-cut event (read leniently), or garbage. */
function notJsonLine(text: string, err: unknown): ValueResult {
  if (text.endsWith(CLOUDWATCH_TRUNCATED)) {
    const ev = decodeTruncated(text);
    return ev === null ? { shape: '', events: [], bad: [], truncated: 1 } : { shape: BARE, events: [ev], bad: [], truncated: 1, truncatedRead: 1 };
  }
  return notEvents(notJsonReason(text, err));
}

/** The warning for a file that ended before the size it had when the run started. */
function shrunk(member: SourceSpec, st: SourceStats): InputError {
  const n = (x: number): string => x.toLocaleString('en-US');
  return new InputError(
    `"${member.name}" got shorter while it was read: it held ${n(member.bytes)} bytes when the run started, and ended after ${n(st.bytesRead)} (truncated or rotated under the run). Read up to there: ${n(st.lines)} lines, ${n(st.events)} events counted.`,
    'Read a copy, or a rotated file that is no longer written to.',
  );
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
 * fine. With `onError`, such an InputError is passed to it instead and the next member is read;
 * so is a file that got shorter while it was read (fewer bytes read than it held when resolved).
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
        const st = stats[i]!;
        if (onError !== undefined && member.path !== undefined && st.bytesRead < member.bytes) {
          // Fewer bytes than the file held when the run started: truncated or rotated under the run.
          onError(member.name, shrunk(member, st));
        }
      } catch (err) {
        // With onError, one unreadable member (a stray file, a .gz still being written) is
        // reported and skipped; what was read of it still counts.
        if (onError === undefined || !(err instanceof InputError)) throw err;
        const st = stats[i]!;
        if (st.events > 0) {
          // Cut short (a .gz still being written, a truncated copy): what came before counts.
          onError(
            member.name,
            new InputError(`${err.message} Read up to there: ${st.lines.toLocaleString('en-US')} lines, ${st.events.toLocaleString('en-US')} events counted.`, err.hint),
          );
        } else {
          // Not read at all: its lines are not the run's bad lines.
          bad.forget(member.name);
          onError(member.name, err);
        }
      }
    }
  }
  return { stats, batches: all() };
}
