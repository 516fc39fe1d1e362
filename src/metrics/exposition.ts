/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4, what
 * `kubectl get --raw /metrics` prints): `# HELP` / `# TYPE` lines, other comments, blank lines and
 * samples `name{label="value",…} value [timestamp]`. The grammar is the one the Prometheus
 * documentation gives ("Exposition formats", text-based format): metric names
 * `[a-zA-Z_:][a-zA-Z0-9_:]*`, label names `[a-zA-Z_][a-zA-Z0-9_]*`, label values in double quotes
 * with the escapes `\\`, `\"` and `\n`, values as Go floats (`NaN`, `+Inf`, `-Inf` included).
 *
 * A line that breaks the grammar is counted and sampled with its line number and a reason; it
 * never ends the read. Only the families `want` accepts are kept (a kube-apiserver scrape has
 * 10,000–25,000 lines, of which the analysis needs a few thousand).
 *
 * Our own reader because the analysis needs every series kept with its labels and each malformed
 * line reported with its number (ARCHITECTURE.md, "Dependencies and why", says which package fell short).
 */

/** One sample: its metric name (with `_bucket`/`_sum`/`_count` suffix as written), labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  /** 1-based line number in the source. */
  readonly line: number;
}

/** A line that could not be read, with why. */
export interface BadLine {
  readonly line: number;
  readonly reason: string;
}

/** What {@link parseExposition} read from one source. */
export interface Exposition {
  /** Samples of the wanted families, in file order. */
  readonly samples: Sample[];
  /** Lines in the text (a last line without a newline counts). */
  readonly lines: number;
  /** Sample lines that parsed (wanted or not); a bad one is in {@link badLines} only. */
  readonly sampleLines: number;
  /** Lines that broke the grammar. */
  readonly badLines: number;
  /** The first `maxBadSamples` bad lines. */
  readonly badLineSamples: BadLine[];
  /**
   * The time of the scrape from an `# auditstorm-scrape-time: <ISO 8601 UTC>` line, epoch ms;
   * `null` when there is none.
   */
  readonly scrapeTime: number | null;
  /** Line of the scrape-time header, 0 when absent. */
  readonly scrapeTimeLine: number;
  /** `# TYPE` of each family seen (`counter`, `gauge`, `histogram`, `summary`, `untyped`). */
  readonly types: ReadonlyMap<string, string>;
}

/** The comment line that carries a scrape's time: `# auditstorm-scrape-time: 2026-12-05T20:00:00Z`. */
export const SCRAPE_TIME_PREFIX = '# auditstorm-scrape-time:';

/** An ISO 8601 UTC time as `date -u +%Y-%m-%dT%H:%M:%SZ` prints it, optionally with fractional seconds. */
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]00:?00)$/;

/** Thrown by {@link parseExposition} for a malformed scrape-time header (a wrong time would make every rate wrong). */
export class ScrapeTimeError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Epoch ms of an `auditstorm-scrape-time` value, or `null` when it is not an ISO 8601 UTC time on
 * the calendar (years 2000–2199).
 */
export function parseScrapeTime(text: string): number | null {
  const m = ISO_UTC.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  const frac = m[7] === undefined ? 0 : Math.round(Number(`0${m[7]}`) * 1000);
  const t = Date.UTC(y, mo - 1, d, h, mi, s, frac);
  const back = new Date(t);
  if (y < 2000 || y > 2199 || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  return t;
}

const NAME_START = /[a-zA-Z_:]/;
const NAME_CHAR = /[a-zA-Z0-9_:]/;
const LABEL_START = /[a-zA-Z_]/;
const LABEL_CHAR = /[a-zA-Z0-9_]/;
/** A Go `strconv.ParseFloat` number as exporters write it, or the special values. */
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F]+|Inf|inf|NaN|nan)$/;
const INT = /^-?\d+$/;

/** A number as the text format writes it; `null` when it is not one. */
export function parseValue(s: string): number | null {
  if (!FLOAT.test(s)) return null;
  if (/^[+-]?inf$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return NaN;
  const v = /^[+-]?0[xX]/.test(s) ? Number.parseInt(s, 16) : Number(s);
  return Number.isNaN(v) ? null : v;
}

type LineResult = { ok: true; name: string; labels: Record<string, string>; value: number } | { ok: false; reason: string };

/** Read one sample line (no newline, not a comment, not blank). */
export function parseSampleLine(text: string): LineResult {
  let i = 0;
  const n = text.length;
  const skipSpace = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  skipSpace();
  const start = i;
  if (i >= n || !NAME_START.test(text[i]!)) return { ok: false, reason: 'expected a metric name' };
  while (i < n && NAME_CHAR.test(text[i]!)) i++;
  const name = text.slice(start, i);
  const labels: Record<string, string> = {};
  skipSpace();
  if (text[i] === '{') {
    i++;
    for (;;) {
      skipSpace();
      if (text[i] === '}') {
        i++;
        break;
      }
      const ls = i;
      if (i >= n || !LABEL_START.test(text[i]!)) return { ok: false, reason: `expected a label name or "}" at column ${i + 1}` };
      while (i < n && LABEL_CHAR.test(text[i]!)) i++;
      const label = text.slice(ls, i);
      skipSpace();
      if (text[i] !== '=') return { ok: false, reason: `expected "=" after label ${label}` };
      i++;
      skipSpace();
      if (text[i] !== '"') return { ok: false, reason: `expected a quoted value for label ${label}` };
      i++;
      let value = '';
      let closed = false;
      while (i < n) {
        const c = text[i]!;
        if (c === '"') {
          closed = true;
          i++;
          break;
        }
        if (c === '\\') {
          const e = text[i + 1];
          if (e === '\\') value += '\\';
          else if (e === '"') value += '"';
          else if (e === 'n') value += '\n';
          else return { ok: false, reason: `bad escape in the value of label ${label}` };
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      if (!closed) return { ok: false, reason: `unterminated value of label ${label}` };
      if (Object.hasOwn(labels, label)) return { ok: false, reason: `label ${label} given twice` };
      labels[label] = value;
      skipSpace();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        break;
      }
      return { ok: false, reason: `expected "," or "}" after the value of label ${label}` };
    }
  }
  const rest = text
    .slice(i)
    .trim()
    .split(/[ \t]+/);
  if (rest.length === 0 || rest[0] === '') return { ok: false, reason: `no value for ${name}` };
  if (rest.length > 2) return { ok: false, reason: `unexpected text after the value of ${name}` };
  const value = parseValue(rest[0]!);
  if (value === null) return { ok: false, reason: `value of ${name} is not a number: ${JSON.stringify(rest[0]!.slice(0, 40))}` };
  if (rest.length === 2 && !INT.test(rest[1]!)) return { ok: false, reason: `timestamp of ${name} is not an integer (ms)` };
  return { ok: true, name, labels, value };
}

/** Options of {@link parseExposition}. */
export interface ParseOptions {
  /** Keep samples of this metric family (the name without `_bucket`/`_sum`/`_count`) or name. Default: all. */
  want?: (name: string) => boolean;
  /** Bad lines kept as samples (default 20). */
  maxBadSamples?: number;
}

/**
 * Read a whole scrape.
 * @param text the exposition text (LF or CRLF line ends)
 * @returns samples of the wanted families, line counts, bad lines, the scrape-time header
 * @throws ScrapeTimeError for an `# auditstorm-scrape-time:` line whose time cannot be read, or a second one
 */
export function parseExposition(text: string, opts: ParseOptions = {}): Exposition {
  const want = opts.want ?? (() => true);
  const maxBad = opts.maxBadSamples ?? 20;
  const samples: Sample[] = [];
  const badLineSamples: BadLine[] = [];
  const types = new Map<string, string>();
  let badLines = 0;
  let sampleLines = 0;
  let scrapeTime: number | null = null;
  let scrapeTimeLine = 0;
  let lineNo = 0;
  const bad = (reason: string): void => {
    badLines++;
    if (badLineSamples.length < maxBad) badLineSamples.push({ line: lineNo, reason });
  };
  let pos = 0;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    let line = text.slice(pos, end);
    pos = end + 1;
    lineNo++;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const t = line.trimStart();
    if (t === '') continue;
    if (t.startsWith('#')) {
      if (t.startsWith(SCRAPE_TIME_PREFIX)) {
        const value = t.slice(SCRAPE_TIME_PREFIX.length).trim();
        if (scrapeTimeLine !== 0) throw new ScrapeTimeError(lineNo, `a second scrape-time line (the first is line ${scrapeTimeLine})`);
        const time = parseScrapeTime(value);
        if (time === null) throw new ScrapeTimeError(lineNo, `scrape time ${JSON.stringify(value.slice(0, 40))} is not an ISO 8601 UTC time such as 2026-12-05T20:00:00Z`);
        scrapeTime = time;
        scrapeTimeLine = lineNo;
        continue;
      }
      const m = /^#\s+TYPE\s+(\S+)\s+(\S+)\s*$/.exec(t);
      if (m) {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped', 'gaugehistogram', 'info', 'stateset', 'unknown'].includes(m[2]!))
          bad(`unknown metric type ${m[2]!} for ${m[1]!}`);
        else types.set(m[1]!, m[2]!);
      } else if (/^#\s+TYPE\b/.test(t)) {
        bad('a TYPE line needs a metric name and a type');
      }
      continue;
    }
    const r = parseSampleLine(line);
    if (!r.ok) {
      bad(r.reason);
      continue;
    }
    sampleLines++;
    if (!want(familyOf(r.name)) && !want(r.name)) continue;
    samples.push({ name: r.name, labels: r.labels, value: r.value, line: lineNo });
  }
  return { samples, lines: lineNo, sampleLines, badLines, badLineSamples, scrapeTime, scrapeTimeLine, types };
}

/** The family a sample belongs to: its name without a `_bucket`, `_sum` or `_count` suffix. */
export function familyOf(name: string): string {
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  return m ? m[1]! : name;
}
