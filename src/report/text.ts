/**
 * Plain-text renderer: the report as an SRE reads it in a terminal. Findings first (most severe
 * first), then notes, summary tables and bad-line samples. Every string from the report goes
 * through `stripControlChars` before output, so audit data can't drive the terminal; ANSI
 * colour is added only when asked for, after layout, so widths never count escape codes.
 */
import { stripControlChars } from './escape.js';
import { logLinesNote, readerNote, skippedRecordsNote, truncatedNote } from './input-notes.js';
import {
  allowlistSummary,
  bySeverity,
  displayWidth,
  evidenceIDs,
  formatDurationMs,
  formatInt,
  formatObject,
  formatServiceAccount,
  formatTime,
  formatWindow,
  metricsTable,
  plural,
  severityBreakdown,
  sourcesTable,
  summaryTables,
  truncate,
  windowMs,
  type Column,
  type Table,
  type Truncate,
  membersSummary,
  objectsCovered,
} from './format.js';
import { metricsHeader, metricsPolicies, metricsTables } from './metrics-tables.js';
import type { ApiserverMetrics, Finding, InputSummary, Report, ReportActor, Severity } from './schema.js';

/** A `docs` link shown as is: https, no whitespace or control characters. */
const SAFE_URL = /^https:\/\/[!-~]+$/;

/** Options of {@link renderText}. */
export interface TextOptions {
  /** Emit ANSI SGR colour codes (severity labels, headings). With `false`, no ESC at all. */
  color: boolean;
  /** Line width in columns for tables and wrapping; default 100, at least 40. */
  width?: number;
  /**
   * `true` (a terminal): tables and identity lines are cut to the width, keeping the identifying
   * ends (the namespace:name end of a username, the product/version start of a userAgent).
   * `false` (default: a file or pipe): no username, service account, userAgent or object name is
   * ever cut; tables widen to their widest cell and words longer than a line overflow it.
   */
  fit?: boolean;
}

/** Default line width in columns. */
export const DEFAULT_TEXT_WIDTH = 100;
const MIN_WIDTH = 40;
/** Columns between table columns. */
const GAP = 2;
/** Left columns are not shrunk below this many characters (or their natural width). */
const MIN_COLUMN = 8;
/** Width of the label column in a finding block. */
const LABEL = 16;

const SEVERITY_SGR: Record<Severity, string> = {
  critical: '1;97;41',
  high: '1;31',
  medium: '1;33',
  low: '36',
  info: '2',
};

interface Style {
  bold(s: string): string;
  severity(sev: Severity, s: string): string;
}

function makeStyle(color: boolean): Style {
  const sgr = (code: string, s: string): string => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  return { bold: (s) => sgr('1', s), severity: (sev, s) => sgr(SEVERITY_SGR[sev], s) };
}

/**
 * Render a report as plain text.
 * @param report a valid report (not modified)
 * @param opts `color`: add ANSI colours; `width`: columns (default 100, minimum 40)
 * @returns the text, lines separated by `\n`, ending with a newline; deterministic
 */
export function renderText(report: Report, opts: TextOptions): string {
  const w = opts.width;
  const width = w !== undefined && Number.isFinite(w) ? Math.max(MIN_WIDTH, Math.floor(w)) : DEFAULT_TEXT_WIDTH;
  const r = new TextWriter(width, makeStyle(opts.color), opts.fit === true);
  if (report.apiserverMetrics !== undefined) {
    writeMetricsReport(r, report, report.apiserverMetrics);
    return r.toString();
  }
  writeHeader(r, report);
  writeFindings(r, report);
  writeNotes(r, report.notes);
  writeSummaries(r, report);
  writeBadLines(r, report.input);
  return r.toString();
}

/** Collects output lines; every report string is cleaned on the way in. */
class TextWriter {
  private readonly lines: string[] = [];
  constructor(
    readonly width: number,
    readonly style: Style,
    /** Cut to the width (terminal); otherwise never cut identities. See {@link TextOptions.fit}. */
    readonly fit: boolean,
  ) {}

  /** A line of already-clean text (renderer literals, styled pieces). */
  raw(line = ''): void {
    this.lines.push(line);
  }

  /** A section heading with a blank line before it. */
  heading(title: string): void {
    this.raw();
    this.raw(this.style.bold(clean(title)));
    this.raw('='.repeat(Math.min(this.width, displayWidth(clean(title)))));
  }

  /** Wrapped prose at `indent` columns; continuation lines at `indent + hang`. */
  para(text: string, indent: number, hang = 0): void {
    const [first = '', ...rest] = wrap(clean(text), this.width - indent, this.width - indent - hang, this.fit);
    this.raw(' '.repeat(indent) + first);
    for (const l of rest) this.raw(' '.repeat(indent + hang) + l);
  }

  /** `label` padded to the label column, then the wrapped value. */
  field(indent: number, label: string, value: string): void {
    const avail = this.width - indent - LABEL;
    const [first = '', ...rest] = wrap(clean(value), avail, avail, this.fit);
    this.raw(`${' '.repeat(indent)}${label.padEnd(LABEL - 1)} ${first}`.trimEnd());
    for (const l of rest) this.raw(' '.repeat(indent + LABEL) + l);
  }

  /**
   * `label` then one identity (username, userAgent, object): never broken mid-word. On a
   * terminal a value longer than the line is cut at `where` (keeping its identifying end);
   * otherwise it is printed whole, past the width if need be.
   */
  identity(indent: number, label: string, value: string, where: Truncate): void {
    const v = clean(value)
      .split(' ')
      .filter((w) => w !== '')
      .join(' ');
    const avail = this.width - indent - LABEL;
    if (!this.fit && v.includes(' ')) return this.field(indent, label, v);
    const shown = this.fit ? truncate(v, avail, where) : v;
    this.raw(`${' '.repeat(indent)}${label.padEnd(LABEL - 1)} ${shown}`.trimEnd());
  }

  /** One line of report text, cleaned and cut to the width. */
  line(indent: number, text: string): void {
    this.raw(' '.repeat(indent) + truncate(clean(text), this.width - indent));
  }

  table(t: Table, indent: number, header = true): void {
    for (const l of layoutTable(t, this.fit ? this.width - indent : Infinity, header)) this.raw(' '.repeat(indent) + l);
  }

  toString(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

/** Longest report string (code points) printed; the rest is cut with `…`. */
const MAX_TEXT = 1000;

/** A report string made safe for the terminal and cut to {@link MAX_TEXT}. */
function clean(s: string): string {
  return truncate(stripControlChars(s), MAX_TEXT);
}

/**
 * Greedy word wrap. Words longer than a line are cut hard when `cut`, else left whole on a line
 * of their own (so a username or URL is never broken off a terminal).
 * @param first width of the first line; `rest` width of the others
 */
function wrap(text: string, first: number, rest: number, cut: boolean): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  const room = (): number => Math.max(1, out.length === 0 ? first : rest);
  for (const word of text.split(' ')) {
    if (word === '') continue;
    let cps = Array.from(word);
    if (cur.length > 0 && cur.length + 1 + cps.length <= room()) {
      cur.push(' ', ...cps);
      continue;
    }
    if (cur.length > 0) out.push(cur.join(''));
    for (let n = room(); cut && cps.length > n; n = room()) {
      out.push(cps.slice(0, n).join(''));
      cps = cps.slice(n);
    }
    cur = cps;
  }
  if (cur.length > 0 || out.length === 0) out.push(cur.join(''));
  return out;
}

/**
 * Column widths that fit `available`. Left columns are shrunk first, the widest giving up space
 * first (water-filling), none below `min(natural, MIN_COLUMN)`; only then are the headers of
 * right (number) columns cut, never below their widest value. If even that doesn't fit, the
 * table overflows rather than hide digits.
 * @param natural widest cell per column, header included
 * @param data widest value per column, header excluded
 */
function fitWidths(natural: number[], data: number[], cols: Column[], available: number): number[] {
  const leftFloor = natural.map((n, i) => (cols[i]!.align === 'right' ? n : Math.min(n, MIN_COLUMN)));
  const fitted = waterFill(natural, leftFloor, available);
  if (sum(fitted) <= available) return fitted;
  return waterFill(
    fitted,
    fitted.map((w, i) => (cols[i]!.align === 'right' ? data[i]! : w)),
    available,
  );
}

/** Widths plus the gaps between columns. */
function sum(widths: number[]): number {
  return widths.reduce((a, b) => a + b, GAP * (widths.length - 1));
}

/** Cap every width at one level (but not below its floor), the highest level that fits. */
function waterFill(widths: number[], floor: number[], available: number): number[] {
  if (sum(widths) <= available) return widths;
  const at = (level: number): number[] => widths.map((n, i) => Math.min(n, Math.max(level, floor[i]!)));
  let lo = 0;
  let hi = Math.max(...widths);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sum(at(mid)) <= available) lo = mid;
    else hi = mid - 1;
  }
  const out = at(lo);
  let slack = available - sum(out);
  for (let i = 0; i < out.length && slack > 0; i++) {
    if (out[i]! < widths[i]!) {
      out[i]!++;
      slack--;
    }
  }
  return out;
}

function pad(s: string, width: number, align: Column['align']): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(s)));
  return align === 'right' ? fill + s : s + fill;
}

/** Lay out a table in `width` columns: header, rule, rows (cells cleaned and truncated), footer. */
function layoutTable(t: Table, width: number, header: boolean): string[] {
  const rows = t.rows.map((r) => t.columns.map((_, i) => clean(r[i] ?? '')));
  if (rows.length === 0) return ['(none)'];
  const heads = t.columns.map((c) => clean(c.header));
  const data = t.columns.map((_, i) => Math.max(...rows.map((r) => displayWidth(r[i]!))));
  const natural = data.map((d, i) => Math.max(d, header ? displayWidth(heads[i]!) : 0));
  const widths = fitWidths(natural, data, t.columns, width);
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => pad(truncate(c, widths[i]!, t.columns[i]!.truncate), widths[i]!, t.columns[i]!.align))
      .join(' '.repeat(GAP))
      .trimEnd();
  const out = header ? [line(heads), widths.map((n) => '-'.repeat(n)).join(' '.repeat(GAP))] : [];
  for (const r of rows) out.push(line(r));
  if (t.footer !== undefined) out.push(truncate(clean(t.footer), width));
  return out;
}

function writeHeader(r: TextWriter, report: Report): void {
  const input = report.input;
  const s = input.skipped;
  r.raw(r.style.bold(`${clean(report.tool.name)} ${clean(report.tool.version)} — retry and write-loop report`));
  r.field(0, 'Generated', formatTime(report.generatedAt));
  r.field(0, 'Time range', input.timeRange ? formatWindow(input.timeRange.from, input.timeRange.to) : 'none (no requests)');
  r.field(
    0,
    'Input',
    [
      plural(input.sources.length, 'source'),
      plural(input.lines, 'line'),
      plural(input.events, 'event'),
      plural(input.requests, 'request'),
      plural(input.badLines, 'bad line'),
    ].join(' · '),
  );
  r.field(
    0,
    'Skipped',
    [plural(s.nonFinalStages, 'non-final stage event'), plural(s.duplicates, 'duplicate'), `${formatInt(s.filtered)} filtered`, plural(s.overlongLines, 'overlong line')].join(
      ' · ',
    ),
  );
  const truncated = truncatedNote(input);
  if (truncated !== null) r.field(0, 'Truncated', truncated);
  const notAudit = skippedRecordsNote(input);
  if (notAudit !== null) r.field(0, 'Not audit', notAudit);
  const serverLog = logLinesNote(input);
  if (serverLog !== null) r.field(0, 'Server log', serverLog);
  const reader = readerNote(input);
  if (reader !== null) r.field(0, 'Reader', reader);
  r.field(0, 'Late', `${plural(input.lateRequests, 'request')} came later than the reorder window (placed at the stream clock)`);
  r.field(0, 'Non-resource', `${plural(input.nonResourceRequests, 'request')} without objectRef (in totals only)`);
  r.field(0, 'Allowlisted', allowlistSummary(input));
  const partial = new Set(input.sources.filter((s) => s.events > 0).map((s) => s.name));
  for (const e of input.sourceErrors) r.field(0, partial.has(e.source) ? 'CUT SHORT' : 'SKIPPED', `${e.source}: ${e.message}`);
  if (input.sources.length > 0) {
    r.raw();
    r.table(sourcesTable(input), 2);
  }
}

function writeFindings(r: TextWriter, report: Report): void {
  const findings = bySeverity(report.findings);
  if (findings.length === 0) {
    r.heading('FINDINGS');
    const range = report.input.timeRange;
    const ms = range ? windowMs(range.from, range.to) : NaN;
    const span = Number.isFinite(ms) ? ` (${formatDurationMs(ms)} of audit log)` : '';
    r.raw();
    r.para(`No retry or write loops found in ${plural(report.input.requests, 'request')}${span}.`, 0);
    if (report.notes.length > 0) {
      r.para(`${plural(report.notes.length, 'busy episode')} handled well: see Notes.`, 0);
    }
    return;
  }
  r.heading(`FINDINGS (${findings.length}: ${severityBreakdown(findings)}), most severe first`);
  findings.forEach((f, i) => {
    r.raw();
    writeFinding(r, f, i + 1);
  });
}

function writeActor(r: TextWriter, a: ReportActor): void {
  r.identity(4, 'User', a.username || '(none)', 'start');
  const sa = formatServiceAccount(a);
  if (sa !== '') r.identity(4, 'Service account', sa, 'start');
  r.identity(4, 'User agent', a.userAgent || '(none)', 'end');
  if (a.controller !== '') r.field(4, 'Controller', a.controller);
  if (a.sourceIPs.length > 0) r.field(4, 'Source IPs', a.sourceIPs.join(', '));
  if (a.fieldManagers.length > 0) r.field(4, 'Field managers', a.fieldManagers.join(', '));
}

function writeFinding(r: TextWriter, f: Finding, n: number): void {
  const sev = r.style.severity(f.severity, f.severity.toUpperCase());
  r.raw(`#${n}  ${sev}  ${truncate(clean(f.kind), r.width - 12)}${f.ongoing === true ? '  (ongoing)' : ''}`);
  r.para(f.title, 4);
  if (f.actors.length === 0) r.field(4, 'User', '(unknown)');
  f.actors.forEach((a, i) => {
    if (f.actors.length > 1) r.raw(`    Actor ${i + 1} of ${f.actors.length}`);
    writeActor(r, a);
  });
  if (f.object) r.identity(4, 'Object', formatObject(f.object), 'middle');
  else r.field(4, 'Object', objectsCovered(f.metrics) ?? '(none: cluster-wide)');
  r.field(4, 'When', formatWindow(f.window.from, f.window.to));
  const members = membersSummary(f);
  if (members !== null) r.field(4, 'Members', `${members} (each in --format json or html)`);
  if (f.objectStatus !== undefined) r.field(4, 'Object status', f.objectStatus.text);
  if (Object.keys(f.metrics).length > 0) {
    r.raw('    Metrics');
    writeMetrics(r, f.metrics, 6);
  }
  if (f.signals.length > 0) r.field(4, 'Signals', f.signals.join(', '));
  if (f.docs !== undefined && SAFE_URL.test(f.docs)) r.field(4, 'Docs', f.docs);
  const ids = evidenceIDs(f);
  if (ids.length === 0) r.field(4, 'Evidence', `${f.evidence.level}, audit level ${f.evidence.auditLevel}; no auditIDs recorded`);
  else r.field(4, 'Evidence', `${f.evidence.level}, audit level ${f.evidence.auditLevel}; grep the audit log for these auditIDs:`);
  for (const id of ids) r.para(id, 4 + LABEL);
  if (f.advice.length > 0) {
    r.raw('    Advice');
    for (const a of f.advice) r.para(`• ${a.text}`, 6, 2);
  }
}

/** String values up to this many code points are right-aligned with the numbers; longer ones flow. */
const SHORT_VALUE = 24;

/**
 * A finding's metrics, one per line: the key in full (never cut), then the value. Numbers and
 * short strings are right-aligned in one column as wide as the widest of them; a longer string
 * (a list such as `topObjects`) starts at that column and wraps at the line width, continuation
 * lines indented to the column, so no value widens the block.
 */
function writeMetrics(r: TextWriter, metrics: Finding['metrics'], indent: number): void {
  const rows = metricsTable(metrics).rows.map(([k = '', v = '']) => [clean(k), clean(v)] as const);
  const keyWidth = Math.max(...rows.map(([k]) => displayWidth(k)));
  const avail = Math.max(MIN_COLUMN, r.width - indent - keyWidth - GAP);
  const isLong = (v: string): boolean => displayWidth(v) > Math.min(SHORT_VALUE, avail);
  const valueWidth = Math.max(0, ...rows.filter(([, v]) => !isLong(v)).map(([, v]) => displayWidth(v)));
  const lead = ' '.repeat(indent);
  for (const [k, v] of rows) {
    const key = k.padEnd(keyWidth + GAP);
    if (!isLong(v)) {
      r.raw(`${lead}${key}${pad(v, valueWidth, 'right')}`.trimEnd());
      continue;
    }
    const [first = '', ...rest] = wrap(v, avail, avail, r.fit);
    r.raw(`${lead}${key}${first}`.trimEnd());
    for (const l of rest) r.raw(`${lead}${' '.repeat(keyWidth + GAP)}${l}`.trimEnd());
  }
}

function writeNotes(r: TextWriter, notes: readonly Finding[]): void {
  if (notes.length === 0) return;
  r.heading(`Notes (handled well, not storms): ${notes.length}`);
  for (const f of bySeverity(notes)) {
    r.raw();
    r.raw(`  • ${r.style.severity(f.severity, f.severity.toUpperCase())}  ${truncate(clean(f.kind), r.width - 14)}`);
    r.para(f.title, 4);
    const who = f.actors.map((a) => a.username || a.userAgent).join(', ');
    const what = f.object ? formatObject(f.object) : '';
    r.para([who, what].filter((x) => x !== '').join(' · '), 4, 2);
    r.para(formatWindow(f.window.from, f.window.to), 4, 2);
    if (f.signals.length > 0) r.para(`signals: ${f.signals.join(', ')}`, 4, 2);
  }
}

function writeSummaries(r: TextWriter, report: Report): void {
  r.heading('SUMMARY');
  for (const t of summaryTables(report.summaries)) {
    r.raw();
    r.raw(r.style.bold(clean(t.title)));
    r.table(t, 2);
  }
}

function writeBadLines(r: TextWriter, input: InputSummary): void {
  if (input.badLines === 0 && input.badLineSamples.length === 0) return;
  r.heading(`Bad lines: ${formatInt(input.badLines)} (${formatInt(input.badLineSamples.length)} shown)`);
  for (const b of input.badLineSamples) r.line(2, `${b.source}:${b.line} ${b.reason}`);
}

/** An `auditstorm metrics` report: header, warnings, findings, the metrics tables, policy rules, bad lines. */
function writeMetricsReport(r: TextWriter, report: Report, m: ApiserverMetrics): void {
  r.raw(r.style.bold(`${clean(report.tool.name)} ${clean(report.tool.version)} — kube-apiserver metrics report`));
  for (const [label, value] of metricsHeader(report, m)) r.field(0, label, value);
  for (const w of m.warnings) r.field(0, 'NOTE', w);
  const findings = bySeverity(report.findings);
  if (findings.length === 0) {
    r.heading('FINDINGS');
    r.raw();
    r.para(`No resource's 409 share or write rate stands out in ${plural(report.input.requests, 'request')}.`, 0);
  } else {
    r.heading(`FINDINGS (${findings.length}: ${severityBreakdown(findings)}), most severe first`);
    findings.forEach((f, i) => {
      r.raw();
      writeFinding(r, f, i + 1);
    });
  }
  const policies = metricsPolicies(report, m);
  if (policies.length > 0) {
    r.heading('Audit policy rules that would name the writers');
    for (const [title, yaml] of policies) {
      r.raw();
      r.para(`For: ${title}`, 0);
      for (const l of yaml.split('\n')) r.line(2, l);
    }
  }
  r.heading('METRICS');
  for (const t of metricsTables(m)) {
    r.raw();
    r.raw(r.style.bold(clean(t.title)));
    r.table(t, 2);
  }
  writeBadLines(r, report.input);
}
