/**
 * Helpers shared by the text and Markdown renderers: number, time and object formatting, and a
 * small `Table` model (raw, unescaped cells) built once from the report and laid out by each
 * renderer in its own syntax. Everything here is pure and deterministic.
 */
import { objectLabel } from '../labels.js';
import { severityRank, type Finding, type InputSummary, type ReportActor, type ReportObject, type Severity, type Summaries } from './schema.js';

// ---------------------------------------------------------------------------------------------
// Numbers

/** `'1234567'` → `'1,234,567'` (digits only, no sign). */
function groupDigits(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Fixed-point number with thousands separators.
 * @param n the number
 * @param decimals digits after the point
 * @returns e.g. `formatFixed(1234.56, 1)` → `'1,234.6'`; `'n/a'` when not finite
 */
export function formatFixed(n: number, decimals: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  const [int = '0', frac] = Math.abs(n).toFixed(decimals).split('.');
  const body = frac === undefined ? groupDigits(int) : `${groupDigits(int)}.${frac}`;
  return n < 0 && /[1-9]/.test(body) ? `-${body}` : body;
}

/**
 * Integer with thousands separators (rounded).
 * @returns e.g. `'1,204,331'`
 */
export function formatInt(n: number): string {
  return formatFixed(Math.round(n), 0);
}

/**
 * A non-integer without unit: at most 2 decimals, trailing zeros trimmed (`14.13`, `0.5`).
 */
export function formatDecimal(n: number): string {
  const s = formatFixed(n, 2);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/**
 * A rate.
 * @param perSec events per second
 * @returns 1 decimal and `/s`, e.g. `'48.3/s'`
 */
export function formatRate(perSec: number): string {
  return `${formatFixed(perSec, 1)}/s`;
}

/**
 * A ratio as a percentage with 1 decimal. Values that would round to 0 % or 100 % without
 * being exactly 0 or 1 show as `<0.1%` / `>99.9%`, so "all" and "none" are never overstated.
 * @param ratio 0..1
 * @returns e.g. `'92.9%'`
 */
export function formatPercent(ratio: number): string {
  if (!Number.isFinite(ratio)) return 'n/a';
  const pct = ratio * 100;
  if (ratio > 0 && pct < 0.05) return '<0.1%';
  if (ratio < 1 && pct >= 99.95) return '>99.9%';
  return `${formatFixed(pct, 1)}%`;
}

/**
 * A duration or latency with a unit chosen by size.
 * @param ms milliseconds
 * @returns `'0.4 ms'`, `'12 ms'`, `'1.25 s'`, `'42.3 s'`, `'6m 12s'`, `'2h 03m'`, `'3d 04h'`
 */
export function formatDurationMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 0) return `-${formatDurationMs(-ms)}`;
  if (ms === 0) return '0 ms';
  if (ms < 1) return `${ms.toFixed(1)} ms`;
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  if (ms < 9_995) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)} s`;
  const two = (n: number): string => String(n).padStart(2, '0');
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${two(s % 60)}s`;
  const m = Math.round(ms / 60_000);
  if (m < 24 * 60) return `${Math.floor(m / 60)}h ${two(m % 60)}m`;
  const h = Math.round(ms / 3_600_000);
  return `${Math.floor(h / 24)}d ${two(h % 24)}h`;
}

/**
 * A size in bytes with binary units.
 * @returns `'512 B'`, `'1.5 KiB'`, `'700.0 MiB'`
 */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  if (!(Math.abs(bytes) >= 1024)) return `${formatInt(bytes)} B`;
  let v = bytes / 1024;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${formatFixed(v, 1)} ${units[i]}`;
}

/**
 * A finding metric, formatted by the unit its key names (see `FindingSchema.metrics`):
 * `…PerSec` → rate, `…Ms` → duration, `…Ratio` / `…Share` / `…Fraction` / `shareOf…` /
 * `…ShareOf…` (`throttledShareOfRequests`, `badShareOfFamilyRequests`) → percentage, other integers with thousands separators, other numbers with ≤ 2 decimals;
 * booleans `yes`/`no`, `null` → `n/a`, strings unchanged (the caller escapes them).
 * @param key metric name, e.g. `peakWritesPerSec`
 * @param value metric value
 */
export function formatMetric(key: string, value: number | string | boolean | null): string {
  if (value === null) return 'n/a';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (/PerSec(ond)?$/.test(key)) return formatRate(value);
  if (/Ms$/.test(key)) return formatDurationMs(value);
  if (isShareKey(key)) return formatPercent(value);
  return Number.isInteger(value) ? formatInt(value) : formatDecimal(value);
}

/**
 * A metric key that names a share (0..1), shown as a percentage: it ends in `Ratio`, `Share` or
 * `Fraction`, or has `shareOf` / `…ShareOf` followed by what it is a share of.
 */
export function isShareKey(key: string): boolean {
  return /(Ratio|Share|Fraction)$/.test(key) || /(^s|S)hareOf[A-Z]/.test(key);
}

/** `n` and the noun, plural with `s` unless `n` is 1: `plural(2, 'line')` → `'2 lines'`. */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${formatInt(n)} ${n === 1 ? noun : nouns}`;
}

// ---------------------------------------------------------------------------------------------
// Strings, times, objects

/** Where {@link truncate} cuts a string. */
export type Truncate = 'end' | 'start' | 'middle';

/**
 * Shorten a string to at most `width` code points, marking the cut with `…`.
 * @param s text (already free of control characters)
 * @param width maximum length in code points
 * @param where which part is cut: `'end'` keeps the start; `'start'` keeps the end (usernames
 *   such as `system:serviceaccount:ns:name`); `'middle'` keeps both ends (a userAgent's product
 *   and its controller suffix)
 */
export function truncate(s: string, width: number, where: Truncate = 'end'): string {
  const cps = Array.from(s);
  if (cps.length <= width) return s;
  if (width <= 0) return '';
  if (where === 'end' || width < 3) return `${cps.slice(0, width - 1).join('')}…`;
  if (where === 'start') return `…${cps.slice(cps.length - width + 1).join('')}`;
  const head = Math.ceil((width - 1) / 2);
  const tail = width - 1 - head;
  return `${cps.slice(0, head).join('')}…${cps.slice(cps.length - tail).join('')}`;
}

/** Length in code points (what a terminal shows for non-wide characters). */
export function displayWidth(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const ISO_UTC = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$/;

/**
 * A report timestamp for reading: `2026-08-08T17:40:00.000Z` → `2026-08-08 17:40:00.000 UTC`.
 * Strings in another shape are returned unchanged.
 */
export function formatTime(iso: string): string {
  const m = ISO_UTC.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

/**
 * A time window with its duration: `2026-08-08 17:40:00.000 → 17:46:12.500 UTC (6m 12s)`.
 * The date of `to` is left out when it equals that of `from`; the duration is left out when a
 * time doesn't parse.
 * @param from UTC ISO 8601 start
 * @param to UTC ISO 8601 end
 */
export function formatWindow(from: string, to: string): string {
  const a = ISO_UTC.exec(from);
  const b = ISO_UTC.exec(to);
  let span: string;
  if (a && b) span = `${a[1]} ${a[2]} → ${a[1] === b[1] ? '' : `${b[1]} `}${b[2]} UTC`;
  else span = `${from} → ${to}`;
  const ms = windowMs(from, to);
  return Number.isFinite(ms) ? `${span} (${formatDurationMs(ms)})` : span;
}

/** Milliseconds from `from` to `to` (ISO 8601); `NaN` when either doesn't parse. */
export function windowMs(from: string, to: string): number {
  return Date.parse(to) - Date.parse(from);
}

/**
 * An object as kubectl names it (see {@link objectLabel}).
 * @returns e.g. `deployments.apps/status shop/cart`, `nodes node-1`
 */
export function formatObject(o: ReportObject): string {
  return objectLabel(o);
}

/**
 * What a finding without one object covers, from its metrics: `N objects: a(3), b(2)` when it
 * names them (`objects`, `topObjects`: fleet storms, grouped findings), else `null`.
 */
export function objectsCovered(metrics: Record<string, unknown>): string | null {
  const n = metrics['objects'];
  const top = metrics['topObjects'];
  return typeof n === 'number' && typeof top === 'string' && top !== '' ? `${n.toLocaleString('en-US')} objects: ${top}` : null;
}

/**
 * What a grouped finding folded in (`members`), most severe first, or `null` for a finding that
 * is not a group: e.g. `58 findings folded in: 3 high, 55 medium`; a member of another kind is
 * named (`1 critical fleet-storm`).
 */
export function membersSummary(f: Finding): string | null {
  const members = f.members ?? [];
  if (members.length === 0) return null;
  const counts = new Map<string, number>();
  const ordered = [...members].sort((a, b) => severityRank(b.severity) - severityRank(a.severity));
  for (const m of ordered) {
    const key = m.kind === f.kind ? m.severity : `${m.severity} ${m.kind}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const n = members.length;
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'finding' : 'findings'} folded in: ${[...counts].map(([k, c]) => `${c.toLocaleString('en-US')} ${k}`).join(', ')}`;
}

/** A service account as `namespace/name`, or `''` for none. */
export function formatServiceAccount(a: ReportActor): string {
  return a.serviceAccount ? `${a.serviceAccount.namespace}/${a.serviceAccount.name}` : '';
}

/**
 * Findings most severe first; equal severities keep the report's order (already sorted by
 * window, kind, object, actor). Returns a new array; the input is not touched.
 */
export function bySeverity(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((x, y) => severityRank(y.severity) - severityRank(x.severity));
}

/**
 * The auditIDs to show for a finding: `evidence.auditIDs`, or when that is empty the distinct
 * non-empty first/last IDs.
 */
export function evidenceIDs(f: Finding): string[] {
  if (f.evidence.auditIDs.length > 0) return f.evidence.auditIDs;
  return [...new Set([f.evidence.firstAuditID, f.evidence.lastAuditID])].filter((id) => id !== '');
}

/** Counts per severity, most severe first: `'1 critical, 2 high'`; `''` for none. */
export function severityBreakdown(findings: readonly Finding[]): string {
  const counts = new Map<Severity, number>();
  for (const f of bySeverity(findings)) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
}

// ---------------------------------------------------------------------------------------------
// Tables

/**
 * One column. `right` columns hold numbers and are never truncated; `left` columns may be
 * shortened to fit, where `truncate` says (default: at the end).
 */
export interface Column {
  header: string;
  align: 'left' | 'right';
  truncate?: Truncate;
}

/** A table of raw (unescaped) cell strings; each renderer escapes and lays it out. */
export interface Table {
  title: string;
  columns: Column[];
  rows: string[][];
  /** Shown under the rows, e.g. `12 more rows not shown`. */
  footer?: string;
}

/** Rows kept in the verb × resource × code and latency tables. */
export const MAX_SUMMARY_ROWS = 15;

const left = (header: string, truncateAt: Truncate = 'end'): Column => ({ header, align: 'left', truncate: truncateAt });
const right = (header: string): Column => ({ header, align: 'right' });

/** The metrics of a finding as a two-column table, in the report's key order. */
export function metricsTable(metrics: Finding['metrics']): Table {
  return {
    title: 'Metrics',
    columns: [left('Metric'), right('Value')],
    rows: Object.entries(metrics).map(([k, v]) => [k, formatMetric(k, v)]),
  };
}

/**
 * What a source was read as, for the sources table: its format (`jsonl`, `eventlist`, `gke`, …),
 * plus `gzip` when that is not already plain from a `.gz` name (the JSON report keeps `kind`).
 */
export function sourceFormat(s: { name: string; kind: string; format: string }): string {
  return s.kind === 'gzip' && !s.name.endsWith('.gz') ? `${s.format}, gzip` : s.format;
}

/**
 * The input sources with their format, sizes and counts. A `Truncated` column (events cut by
 * CloudWatch) appears only when some source has them.
 */
export function sourcesTable(input: InputSummary): Table {
  const truncated = input.sources.some((s) => s.truncated > 0);
  return {
    title: 'Sources',
    columns: [
      left('Source', 'middle'),
      left('Format'),
      right('Size'),
      right('Lines'),
      right('Events'),
      right('Requests'),
      right('Bad lines'),
      ...(truncated ? [right('Truncated')] : []),
    ],
    rows: input.sources.map((s) => [
      s.name,
      sourceFormat(s),
      formatBytes(s.bytes),
      formatInt(s.lines),
      formatInt(s.events),
      formatInt(s.requests),
      formatInt(s.badLines),
      ...(truncated ? [formatInt(s.truncated)] : []),
    ]),
  };
}

/** Sort by `count` descending (stable), keep `max` rows, and say how many were left out. */
function topRows<T extends { count: number }>(items: readonly T[], max: number): { rows: T[]; footer?: string } {
  const sorted = [...items].sort((a, b) => b.count - a.count);
  const rest = sorted.slice(max);
  if (rest.length === 0) return { rows: sorted };
  const requests = rest.reduce((n, r) => n + r.count, 0);
  return { rows: sorted.slice(0, max), footer: `${plural(rest.length, 'more row')} not shown (${plural(requests, 'request')})` };
}

/**
 * The summary tables in reading order: totals, top actors (by requests, writes, 409 Conflict,
 * 429), top objects (by writes, 409 Conflict), requests by verb × resource × code and latency
 * per verb × resource (both: highest count first, at most `maxRows` rows). Latencies in ms.
 */
export function summaryTables(s: Summaries, maxRows = MAX_SUMMARY_ROWS): Table[] {
  const t = s.totals;
  const actorTable = (title: string, actors: Summaries['topActors']['byRequests']): Table => ({
    title,
    columns: [left('User', 'start'), left('User agent', 'end'), right('Requests'), right('Writes'), right('409 Conflict'), right('409 Exists'), right('429')],
    rows: actors.map((a) => [a.username, a.userAgent, formatInt(a.requests), formatInt(a.writes), formatInt(a.conflicts), formatInt(a.alreadyExists), formatInt(a.throttled)]),
  });
  const objectTable = (title: string, objects: Summaries['topObjects']['byWrites']): Table => ({
    title,
    columns: [left('Object', 'middle'), right('Writes'), right('409 Conflict')],
    rows: objects.map((o) => [formatObject(o.object), formatInt(o.writes), formatInt(o.conflicts)]),
  });
  const codes = topRows(s.requestsByVerbResourceCode, maxRows);
  const latency = topRows(s.latency, maxRows);
  return [
    {
      title: 'Totals',
      columns: [right('Requests'), right('Writes'), right('409 Conflict'), right('409 AlreadyExists'), right('429 Throttled')],
      rows: [[formatInt(t.requests), formatInt(t.writes), formatInt(t.conflicts), formatInt(t.alreadyExists), formatInt(t.throttled)]],
    },
    actorTable('Top actors by requests', s.topActors.byRequests),
    actorTable('Top actors by writes', s.topActors.byWrites),
    actorTable('Top actors by 409 Conflict', s.topActors.byConflicts),
    actorTable('Top actors by 429 Throttled', s.topActors.byThrottled),
    objectTable('Top objects by writes', s.topObjects.byWrites),
    objectTable('Top objects by 409 Conflict', s.topObjects.byConflicts),
    {
      title: 'Requests by verb × resource × code',
      columns: [left('Verb'), left('Resource', 'middle'), right('Code'), right('Requests')],
      rows: codes.rows.map((r) => [r.verb, r.resource, String(r.code), formatInt(r.count)]),
      ...(codes.footer === undefined ? {} : { footer: codes.footer }),
    },
    {
      title: 'Latency by verb × resource',
      columns: [left('Verb'), left('Resource', 'middle'), right('Requests'), right('p50'), right('p90'), right('p99'), right('max')],
      rows: latency.rows.map((r) => [r.verb, r.resource, formatInt(r.count), formatDurationMs(r.p50), formatDurationMs(r.p90), formatDurationMs(r.p99), formatDurationMs(r.max)]),
      ...(latency.footer === undefined ? {} : { footer: latency.footer }),
    },
  ];
}

/**
 * One line on the allowlist: how much traffic legitimate periodic writers had, per rule with
 * traffic, e.g. `2,412 requests (2,400 writes): node-leases 1,200, leader-election 600`.
 */
export function allowlistSummary(input: InputSummary): string {
  const used = input.allowlisted.filter((a) => a.requests > 0);
  if (used.length === 0) return 'no request matched the allowlist';
  const requests = used.reduce((n, a) => n + a.requests, 0);
  const writes = used.reduce((n, a) => n + a.writes, 0);
  return `${plural(requests, 'request')} (${plural(writes, 'write')}): ${used.map((a) => `${a.name} ${formatInt(a.requests)}`).join(', ')}`;
}
