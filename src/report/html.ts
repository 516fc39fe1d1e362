/**
 * HTML renderer: one self-contained incident report page. Everything is inline (CSS, a small
 * script, the charts as SVG drawn here, the report as JSON); the page loads nothing from anywhere,
 * and its Content-Security-Policy forbids it to (`default-src 'none'`, the script and style
 * allowed by hash only), so even a string that slipped through escaping could not run or fetch.
 *
 * Every string from the report goes through {@link text} (control characters stripped, then
 * `escapeHtml`); the embedded JSON through {@link embedJson} (`<`, `>`, `&`, U+2028/9 as `\uXXXX`),
 * so a `</script>` in a userAgent cannot close its tag. Charts are computed from the report's
 * `series` (cluster-wide) and each finding's `series`, the same numbers the JSON report carries.
 * The inline script only sorts tables and copies auditIDs; the page reads fine without it.
 */
import { adviceSnippet } from './snippets.js';
import { createHash } from 'node:crypto';
import { escapeHtml, escapeJsonControls, stripControlChars } from './escape.js';
import { logLinesNote, readerNote, skippedRecordsNote, truncatedNote } from './input-notes.js';
import {
  allowlistSummary,
  bySeverity,
  evidenceIDs,
  formatBytes,
  formatDurationMs,
  formatInt,
  formatMetric,
  formatObject,
  formatPercent,
  formatServiceAccount,
  formatTime,
  formatWindow,
  plural,
  severityBreakdown,
  sourceFormat,
  truncate,
  membersSummary,
  objectsCovered,
} from './format.js';
import { metricsBasis, metricsHeader, metricsPolicies, metricsTables } from './metrics-tables.js';
import type { ApiserverMetrics, ClusterSeries, Finding, FindingSeries, Report, ReportActor, Summaries } from './schema.js';

/** Longest user string (code points) shown in a table cell; the full string is in the JSON. */
const MAX_CELL = 300;
/** Most rows in the verb × resource × code and latency tables. */
const MAX_ROWS = 200;

/** Escape report text for HTML content or a quoted attribute (control characters removed). */
export function text(s: string): string {
  return escapeHtml(stripControlChars(s));
}

/** A cell's text, shortened in the middle when very long. */
function cellText(s: string): string {
  return text(truncate(stripControlChars(s), MAX_CELL, 'middle'));
}

/**
 * JSON for a `<script type="application/json">` element: `<`, `>`, `&`, C1 controls and bidi marks are
 * written as `\uXXXX` escapes (still the same JSON value), so no `</script>` or `<!--` can occur.
 */
export function embedJson(value: unknown): string {
  return escapeJsonControls(JSON.stringify(value)).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('base64');

/**
 * Render a report as one self-contained HTML page. Pure and deterministic.
 * @param report a valid report (not modified)
 * @returns the HTML document, ending with a newline
 */
export function renderHtml(report: Report): string {
  const findings = bySeverity(report.findings);
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${sha256(CSS)}'`,
    `script-src 'sha256-${sha256(SCRIPT)}'`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const n = findings.length;
  const metrics = report.apiserverMetrics !== undefined;
  const title =
    n === 0
      ? metrics
        ? 'auditstorm metrics: no resource stands out'
        : 'auditstorm: no retry or write loops found'
      : `auditstorm${metrics ? ' metrics' : ''}: ${plural(n, 'finding')} (${severityBreakdown(findings)})`;
  const body = [
    '<header>',
    `<h1>${text(title)}</h1>`,
    `<p class="verdict" id="verdict">${text(report.apiserverMetrics === undefined ? verdict(report, findings) : metricsBasis(report.apiserverMetrics))}</p>`,
    `<p class="meta">${text(`${report.tool.name} ${report.tool.version}, generated ${formatTime(report.generatedAt)}`)}</p>`,
    '</header>',
    ...(report.apiserverMetrics === undefined
      ? [inputSection(report), clusterSection(report, findings), findingsSection(findings), notesSection(report.notes), summarySection(report.summaries), inputDetails(report)]
      : [findingsSection(findings), metricsSection(report, report.apiserverMetrics)]),
    `<footer>${text(`Report data: the JSON report (schemaVersion ${report.schemaVersion}) is embedded in this page as <script id="report-data" type="application/json">.`)}</footer>`,
  ].join('\n');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${text(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${text(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    '<main>',
    body,
    '</main>',
    `<script id="report-data" type="application/json">${embedJson(report)}</script>`,
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Verdict and sections

const KIND_PHRASE: Readonly<Record<string, string>> = {
  'conflict-storm': 'retry loops on 409 Conflict',
  'hot-loop': 'hot write loops',
  'no-op-writes': 'no-op write loops',
  'write-fight': 'write fights',
  'create-conflict-storm': 'create retry loops',
  'create-storm': 'object creation loops',
  'fleet-storm': 'fleet-wide retry storms',
  throttling: 'throttling',
};

/** One sentence: who is looping and how much of the traffic it is. */
export function verdict(report: Report, findings: readonly Finding[]): string {
  const range = report.input.timeRange;
  const over = `${plural(report.input.requests, 'request')}${range ? ` over ${formatDurationMs(Date.parse(range.to) - Date.parse(range.from))}` : ''}`;
  if (findings.length === 0) return `No retry or write loops found in ${over}.`;
  const actors = new Set(findings.flatMap((f) => f.actors.map((a) => a.username)));
  const kinds = new Set(findings.map((f) => f.kind));
  const only = kinds.size === 1 ? KIND_PHRASE[[...kinds][0]!] : undefined;
  const noun = actors.size === 1 ? 'controller' : 'controllers';
  const head = `${formatInt(actors.size)} ${noun} in ${only ?? 'retry or write loops'}`;
  const shares = findings.map((f) => f.metrics.shareOfWrites).filter((v): v is number => typeof v === 'number');
  const worst = shares.length > 0 ? Math.max(...shares) : null;
  const share = worst === null ? '' : `; ${findings.length === 1 ? 'it made' : 'the worst made'} ${formatPercent(worst)} of all writes in its window`;
  return `${head} (${severityBreakdown(findings)})${share}; ${over} analyzed.`;
}

function inputSection(report: Report): string {
  const i = report.input;
  const formats = [...new Set(i.sources.map((s) => sourceFormat(s)))].join(', ');
  const range = i.timeRange ? formatWindow(i.timeRange.from, i.timeRange.to) : 'no requests';
  const items: Array<[string, string]> = [
    ['Sources', `${plural(i.sources.length, 'source')}: ${i.sources.map((s) => s.name).join(', ')}`],
    ['Shapes', formats || 'none'],
    ['Time range', range],
    ['Requests', `${formatInt(i.requests)} (${plural(i.events, 'event')}, ${plural(i.lines, 'line')})`],
    ['Bad lines', formatInt(i.badLines)],
  ];
  return [
    '<section class="input" aria-label="Input">',
    '<dl class="facts">',
    ...items.map(([k, v]) => `<div><dt>${text(k)}</dt><dd>${cellText(v)}</dd></div>`),
    '</dl>',
    '</section>',
  ].join('\n');
}

function clusterSection(report: Report, findings: readonly Finding[]): string {
  const s: ClusterSeries | undefined = report.series;
  const out = ['<section class="cluster">', '<h2>Cluster timeline</h2>'];
  if (s === undefined || s.points.length === 0) {
    out.push('<p class="muted">No time series in this report.</p>', '</section>');
    return out.join('\n');
  }
  const perSec = 1000 / s.bucketMs;
  out.push(
    `<p class="muted">${text(`Writes, 409 Conflict and 429 Too Many Requests per second, cluster-wide, in ${shortMs(s.bucketMs)} buckets; shaded: the findings' windows.`)}</p>`,
    timeChart({
      id: 'chart-cluster',
      label: 'Cluster-wide writes, 409 and 429 per second',
      ts: s.points.map((p) => p.t),
      bucketMs: s.bucketMs,
      lines: [
        { name: 'writes/s', cls: 'l-writes', values: s.points.map((p) => p.writes * perSec) },
        { name: '409/s', cls: 'l-conflicts', values: s.points.map((p) => p.conflicts * perSec) },
        { name: '429/s', cls: 'l-throttled', values: s.points.map((p) => p.throttled * perSec) },
      ],
      shades: findings.map((f, i) => ({ from: Date.parse(f.window.from), to: Date.parse(f.window.to), label: `#${i + 1} ${f.kind}` })),
    }),
    '</section>',
  );
  return out.join('\n');
}

function findingsSection(findings: readonly Finding[]): string {
  if (findings.length === 0) return '<section><h2>Findings</h2><p>No findings.</p></section>';
  return ['<section>', '<h2>Findings</h2>', ...findings.map((f, i) => findingCard(f, i + 1)), '</section>'].join('\n');
}

function actorBlock(a: ReportActor): string {
  const sa = formatServiceAccount(a);
  const rows: Array<[string, string]> = [['User', a.username]];
  if (sa !== '') rows.push(['Service account', sa]);
  rows.push(['User agent', a.userAgent]);
  if (a.controller !== '') rows.push(['Controller', a.controller]);
  if (a.sourceIPs.length > 0) rows.push(['Source IPs', a.sourceIPs.join(', ')]);
  if (a.fieldManagers.length > 0) rows.push(['Field managers', a.fieldManagers.join(', ')]);
  return `<dl class="kv">${rows.map(([k, v]) => `<dt>${text(k)}</dt><dd><code>${cellText(v)}</code></dd>`).join('')}</dl>`;
}

/** Members of a grouped finding listed in its table; the JSON report has every one. */
const MAX_MEMBER_ROWS = 500;

/** Impact metrics shown first, when the finding has them. */
const HEADLINE = ['excessRequests', 'shareOfWrites', 'shareOfRequests', 'peak409PerSec', 'peakWritesPerSec', 'conflictRatio', 'retryGapP50Ms', 'backoff'];

function findingCard(f: Finding, n: number): string {
  const sev = f.severity;
  const out = [
    `<article class="finding sev-${sev}" id="finding-${n}">`,
    `<h3><span class="badge sev-${sev}">${text(sev.toUpperCase())}</span> <span class="num">#${n}</span> <span class="kind">${text(f.kind)}</span>${f.ongoing === true ? ' <span class="muted">(ongoing)</span>' : ''} ${text(f.title)}</h3>`,
    '<div class="cols">',
    '<div class="col">',
    '<h4>Who</h4>',
    f.actors.length === 0 ? '<p>unknown</p>' : f.actors.map(actorBlock).join('\n'),
    '<h4>Which object</h4>',
    f.object
      ? `<p><code>${cellText(formatObject(f.object))}</code> <span class="muted">(API version ${text(f.object.apiVersion || 'unknown')})</span></p>`
      : objectsCovered(f.metrics) !== null
        ? `<p><code>${cellText(objectsCovered(f.metrics) as string)}</code></p>`
        : '<p>no single object (cluster-wide)</p>',
    '<h4>When</h4>',
    `<p>${text(formatWindow(f.window.from, f.window.to))}</p>`,
  ];
  const members = membersSummary(f);
  if (members !== null) out.push('<h4>Members</h4>', `<p>${text(members)}</p>`);
  if (f.objectStatus !== undefined) out.push('<h4>Object status</h4>', `<p class="object-status">${text(f.objectStatus.text)}</p>`);
  if (f.signals.length > 0) out.push('<h4>Signals</h4>', `<p>${f.signals.map((s) => `<span class="chip">${text(s)}</span>`).join(' ')}</p>`);
  if (f.docs !== undefined && /^https:\/\/[!-~]+$/.test(f.docs)) out.push('<h4>Docs</h4>', `<p><a href="${text(f.docs)}" rel="noreferrer">${text(f.docs)}</a></p>`);
  const headline = HEADLINE.filter((k) => Object.hasOwn(f.metrics, k));
  if (headline.length > 0) {
    out.push('<h4>How bad</h4>', `<dl class="stats">${headline.map((k) => `<div><dt>${text(k)}</dt><dd>${text(formatMetric(k, f.metrics[k] ?? null))}</dd></div>`).join('')}</dl>`);
  }
  out.push('</div>', '<div class="col">', findingCharts(f, n), '</div>', '</div>');
  if (Object.keys(f.metrics).length > 0) {
    out.push(
      '<details><summary>All metrics</summary>',
      table(
        [{ header: 'Metric' }, { header: 'Value', num: true }],
        Object.entries(f.metrics).map(([k, v]) => [{ text: k }, { text: formatMetric(k, v), v: typeof v === 'number' ? v : null }]),
        `metrics-${n}`,
      ),
      '</details>',
    );
  }
  if (f.members !== undefined && f.members.length > 0) {
    const shown = f.members.slice(0, MAX_MEMBER_ROWS);
    const more = f.members.length - shown.length;
    out.push(
      `<details><summary>Every member (${text(f.members.length.toLocaleString('en-US'))})</summary>`,
      table(
        [
          { header: 'Severity' },
          { header: 'Kind' },
          { header: 'Actor' },
          { header: 'Object' },
          { header: 'When' },
          { header: 'Size', num: true },
          { header: 'Title' },
          { header: 'auditIDs' },
          { header: 'Finding id' },
        ],
        shown.map((m) => [
          { text: m.severity },
          { text: m.kind },
          { text: m.username },
          { text: m.object === null ? '(no single object)' : formatObject(m.object) },
          { text: formatWindow(m.window.from, m.window.to) },
          { text: m.count.toLocaleString('en-US'), v: m.count },
          { text: m.title },
          { text: m.auditIDs.join(' ') },
          { text: m.id },
        ]),
        `members-${n}`,
      ),
      more > 0 ? `<p class="muted">${text(`${more.toLocaleString('en-US')} more in the JSON report.`)}</p>` : '',
      '</details>',
    );
  }
  const ids = evidenceIDs(f);
  out.push(
    `<h4>Evidence <span class="muted">(${text(f.evidence.level)}, audit level ${text(f.evidence.auditLevel || 'unknown')}; grep the audit log for these auditIDs)</span></h4>`,
  );
  if (ids.length === 0) out.push('<p>No auditIDs recorded.</p>');
  else {
    out.push(
      '<ul class="ids">',
      ...ids.map((id) => `<li><code>${text(id)}</code> <button type="button" class="copy" data-copy="${text(id)}">copy</button></li>`),
      `<li><button type="button" class="copy" data-copy="${text(ids.join(' '))}">copy all</button></li>`,
      '</ul>',
    );
  }
  if (f.advice.length > 0) {
    // The same snippet (e.g. RetryOnConflict for two advices) is shown once, under the first.
    const shown = new Set<string>();
    const item = (a: Finding['advice'][number]): string => {
      const go = adviceSnippet(a.id);
      if (go === null || shown.has(go)) return `<li>${text(a.text)}</li>`;
      shown.add(go);
      // The snippet is the renderer's own multi-line constant: escaped, its line breaks kept.
      return `<li>${text(a.text)}<pre class="go"><code>${go.split('\n').map(text).join('\n')}</code></pre></li>`;
    };
    out.push('<h4>Advice</h4>', '<ol class="advice">', ...f.advice.map(item), '</ol>');
  }
  out.push('</article>');
  return out.join('\n');
}

/**
 * A finding's one-second peaks (`peakWritesPerSec`, `peak409PerSec`, events/s) as chart peaks,
 * when its metrics have them and its chart uses the default writes/409 lines.
 */
function onePeaks(f: Finding, writesName: string, conflictsName: string): NonNullable<TimeChartSpec['peaks']> {
  if (f.series?.labels !== undefined || f.series === undefined || f.series.bucketMs <= 1000) return [];
  const out: NonNullable<TimeChartSpec['peaks']> = [];
  const w = f.metrics.peakWritesPerSec;
  const c = f.metrics.peak409PerSec;
  if (typeof w === 'number' && w > 0) out.push({ value: w, label: `peak ${formatInt(w)} ${writesName} (busiest second)`, cls: 'l-writes' });
  if (typeof c === 'number' && c > 0) out.push({ value: c, label: `peak ${formatInt(c)} ${conflictsName} (busiest second)`, cls: 'l-conflicts' });
  return out;
}

function findingCharts(f: Finding, n: number): string {
  const s: FindingSeries | undefined = f.series;
  if (s === undefined || s.points.length === 0) return '<p class="muted">No time series for this kind of finding.</p>';
  const perSec = 1000 / s.bucketMs;
  const title = s.labels?.title ?? 'Writes and 409s of this actor on this object';
  const writesName = s.labels?.writes ?? 'writes/s';
  const conflictsName = s.labels?.conflicts ?? '409/s';
  const label = s.labels === undefined ? 'writes and 409 Conflict per second' : `${writesName} and ${conflictsName}`;
  const out = [
    `<h4>${text(title)} <span class="muted">(per second, ${text(shortMs(s.bucketMs))} buckets)</span></h4>`,
    timeChart({
      id: `chart-finding-${n}`,
      label: `Finding ${n}: ${label}`,
      ts: s.points.map((p) => p.t),
      bucketMs: s.bucketMs,
      lines: [
        { name: writesName, cls: 'l-writes', values: s.points.map((p) => p.writes * perSec) },
        { name: conflictsName, cls: 'l-conflicts', values: s.points.map((p) => p.conflicts * perSec) },
      ],
      shades: [],
      peaks: onePeaks(f, writesName, conflictsName),
      height: 200,
      width: NARROW,
    }),
  ];
  if (s.retryGaps !== undefined && s.retryGaps.some((b) => b.count > 0)) {
    out.push('<h4>Retry gaps <span class="muted">(409 to the same client\'s next attempt)</span></h4>', gapChart(s.retryGaps, `chart-gaps-${n}`));
  }
  return out.join('\n');
}

function notesSection(notes: readonly Finding[]): string {
  if (notes.length === 0) return '';
  return [
    '<section>',
    '<h2>Notes <span class="muted">(handled well, not storms)</span></h2>',
    '<ul>',
    ...bySeverity(notes).map((f) => {
      const who = f.actors.map((a) => a.username).join(', ');
      const obj = f.object ? ` on ${formatObject(f.object)}` : '';
      return `<li><span class="kind">${text(f.kind)}</span> ${text(f.title)} <span class="muted">(${cellText(who + obj)}, ${text(formatWindow(f.window.from, f.window.to))})</span></li>`;
    }),
    '</ul>',
    '</section>',
  ].join('\n');
}

function summarySection(s: Summaries): string {
  const t = s.totals;
  const actors = new Map<string, Summaries['topActors']['byRequests'][number]>();
  for (const a of [...s.topActors.byRequests, ...s.topActors.byWrites, ...s.topActors.byConflicts, ...s.topActors.byThrottled]) {
    actors.set(`${a.username}\u0000${a.userAgent}`, a);
  }
  const objects = new Map<string, Summaries['topObjects']['byWrites'][number]>();
  for (const o of [...s.topObjects.byWrites, ...s.topObjects.byConflicts]) objects.set(formatObject(o.object), o);
  const codes = [...s.requestsByVerbResourceCode].sort((a, b) => b.count - a.count);
  const latency = [...s.latency].sort((a, b) => b.count - a.count);
  const num = (v: number, shown = formatInt(v)): Cell => ({ text: shown, v });
  const ms = (v: number): Cell => ({ text: formatDurationMs(v), v });
  const more = (total: number): string => (total > MAX_ROWS ? `<p class="muted">${text(`${plural(total - MAX_ROWS, 'more row')} not shown (all in the JSON report).`)}</p>` : '');
  return [
    '<section class="summary">',
    '<h2>Summary</h2>',
    `<p>${text(`Totals: ${plural(t.requests, 'request')}, ${plural(t.writes, 'write')}, ${formatInt(t.conflicts)} 409 Conflict, ${formatInt(t.alreadyExists)} 409 AlreadyExists, ${formatInt(t.throttled)} 429.`)} <span class="muted">Click a column header to sort.</span></p>`,
    '<h3>Top actors</h3>',
    table(
      [
        { header: 'User' },
        { header: 'User agent' },
        { header: 'Requests', num: true },
        { header: 'Writes', num: true },
        { header: '409 Conflict', num: true },
        { header: '409 Exists', num: true },
        { header: '429', num: true },
      ],
      [...actors.values()]
        .sort((a, b) => b.requests - a.requests || (a.username < b.username ? -1 : a.username > b.username ? 1 : 0))
        .map((a) => [{ text: a.username }, { text: a.userAgent }, num(a.requests), num(a.writes), num(a.conflicts), num(a.alreadyExists), num(a.throttled)]),
      'top-actors',
    ),
    '<h3>Top objects</h3>',
    table(
      [{ header: 'Object' }, { header: 'Writes', num: true }, { header: '409 Conflict', num: true }],
      [...objects.entries()].sort((a, b) => b[1].writes - a[1].writes || (a[0] < b[0] ? -1 : 1)).map(([label, o]) => [{ text: label }, num(o.writes), num(o.conflicts)]),
      'top-objects',
    ),
    '<h3>Requests by verb × resource × code</h3>',
    table(
      [{ header: 'Verb' }, { header: 'Resource' }, { header: 'Code', num: true }, { header: 'Requests', num: true }],
      codes.slice(0, MAX_ROWS).map((r) => [{ text: r.verb }, { text: r.resource }, num(r.code, String(r.code)), num(r.count)]),
      'verb-resource-code',
    ),
    more(codes.length),
    '<h3>Latency by verb × resource</h3>',
    table(
      [
        { header: 'Verb' },
        { header: 'Resource' },
        { header: 'Requests', num: true },
        { header: 'p50', num: true },
        { header: 'p90', num: true },
        { header: 'p99', num: true },
        { header: 'max', num: true },
      ],
      latency.slice(0, MAX_ROWS).map((r) => [{ text: r.verb }, { text: r.resource }, num(r.count), ms(r.p50), ms(r.p90), ms(r.p99), ms(r.max)]),
      'latency',
    ),
    more(latency.length),
    '</section>',
  ].join('\n');
}

function inputDetails(report: Report): string {
  const i = report.input;
  const s = i.skipped;
  const lines = [
    `${plural(i.lines, 'line')}, ${plural(i.events, 'event')}, ${plural(i.requests, 'request')}, ${plural(i.badLines, 'bad line')}`,
    `Skipped: ${plural(s.nonFinalStages, 'non-final stage event')}, ${plural(s.duplicates, 'duplicate')}, ${formatInt(s.filtered)} filtered, ${plural(s.overlongLines, 'overlong line')}`,
    ...[truncatedNote(i), skippedRecordsNote(i), logLinesNote(i), readerNote(i) === null ? null : `Reader: ${readerNote(i)}`].filter((x): x is string => x !== null),
    `Late: ${plural(i.lateRequests, 'request')} came later than the reorder window`,
    `Non-resource: ${plural(i.nonResourceRequests, 'request')} without objectRef (in totals only)`,
    `Allowlisted (periodic by design): ${allowlistSummary(i)}`,
    ...i.sourceErrors.map((e) => `${i.sources.some((s) => s.name === e.source && s.events > 0) ? 'Source cut short' : 'Skipped source'} ${e.source}: ${e.message}`),
  ];
  const num = (v: number, shown = formatInt(v)): Cell => ({ text: shown, v });
  const out = [
    '<section class="input-details">',
    '<h2>Input</h2>',
    '<ul>',
    ...lines.map((l) => `<li>${cellText(l)}</li>`),
    '</ul>',
    '<h3>Sources</h3>',
    table(
      [
        { header: 'Source' },
        { header: 'Format' },
        { header: 'Size', num: true },
        { header: 'Lines', num: true },
        { header: 'Events', num: true },
        { header: 'Requests', num: true },
        { header: 'Bad lines', num: true },
      ],
      i.sources.map((x) => [{ text: x.name }, { text: sourceFormat(x) }, num(x.bytes, formatBytes(x.bytes)), num(x.lines), num(x.events), num(x.requests), num(x.badLines)]),
      'sources',
    ),
  ];
  if (i.badLineSamples.length > 0) {
    out.push(
      '<h3>Bad lines</h3>',
      table(
        [{ header: 'Source' }, { header: 'Line', num: true }, { header: 'Reason' }],
        i.badLineSamples.map((b) => [{ text: b.source }, num(b.line, String(b.line)), { text: b.reason }]),
        'bad-lines',
      ),
    );
  }
  out.push('</section>');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Tables

/** A table cell: its text and, in numeric columns, its sort value. */
export interface Cell {
  text: string;
  /** Sort key for numeric columns (`null`: sorts first). */
  v?: number | null;
}

/** A sortable table (the page script sorts it by a header click); cells escaped and shortened. */
export function table(columns: Array<{ header: string; num?: boolean }>, rows: Cell[][], id: string): string {
  if (rows.length === 0) return '<p class="muted">None.</p>';
  const head = columns.map((c) => `<th scope="col"${c.num ? ' class="num" data-type="num"' : ''}><button type="button" class="sort">${text(c.header)}</button></th>`).join('');
  const body = rows
    .map(
      (r) =>
        `<tr>${columns
          .map((c, i) => {
            const cell = r[i] ?? { text: '' };
            const v = c.num && cell.v !== undefined ? ` data-v="${cell.v === null ? '' : String(cell.v)}"` : '';
            return `<td${c.num ? ' class="num"' : ''}${v}>${cellText(cell.text)}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('\n');
  return `<div class="scroll"><table class="sortable" id="table-${text(id)}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** An `auditstorm metrics` report's numbers: header facts, notes, audit policy rules, the metrics tables (sortable). */
function metricsSection(report: Report, m: ApiserverMetrics): string {
  const numeric = (s: string): number | null => {
    const v = Number(s.replace(/[,%]/g, ''));
    return s === '–' || !Number.isFinite(v) ? null : v;
  };
  const out = ['<section class="summary">', '<h2>kube-apiserver metrics</h2>', '<ul>'];
  for (const [label, value] of metricsHeader(report, m)) if (label !== 'Generated') out.push(`<li><strong>${text(label)}:</strong> ${text(value)}</li>`);
  for (const w of m.warnings) out.push(`<li><strong>Note:</strong> ${text(w)}</li>`);
  out.push('</ul>');
  const policies = metricsPolicies(report, m);
  if (policies.length > 0) {
    out.push('<h3>Audit policy rules that would name the writers</h3>');
    for (const [title, yaml] of policies) out.push(`<p>${text(`For: ${title}`)}</p>`, `<pre><code>${yaml.split('\n').map(text).join('\n')}</code></pre>`);
  }
  metricsTables(m).forEach((t, i) => {
    out.push(`<h3>${text(t.title)}</h3>`);
    out.push(
      table(
        t.columns.map((c) => ({ header: c.header, num: c.align === 'right' })),
        t.rows.map((r) => r.map((cell, j) => (t.columns[j]?.align === 'right' ? { text: cell, v: numeric(cell) } : { text: cell }))),
        `metrics-${i}`,
      ),
    );
    if (t.footer !== undefined) out.push(`<p class="muted">${text(t.footer)}</p>`);
  });
  if (report.input.badLineSamples.length > 0) {
    out.push(`<h3>${text(`Bad lines: ${formatInt(report.input.badLines)}`)}</h3>`, '<ul>');
    for (const b of report.input.badLineSamples) out.push(`<li><code>${text(`${b.source}:${b.line}`)}</code> ${text(b.reason)}</li>`);
    out.push('</ul>');
  }
  out.push('</section>');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Charts (SVG, drawn here)

interface ChartLine {
  name: string;
  cls: string;
  values: number[];
}

interface TimeChartSpec {
  id: string;
  label: string;
  ts: number[];
  bucketMs: number;
  lines: ChartLine[];
  shades: Array<{ from: number; to: number; label: string }>;
  /**
   * One-second peaks (events/s, from a finding's `peak…PerSec` metrics) drawn as dashed lines at
   * their real height: buckets wider than 1 s average a burst down, these show how high it went.
   */
  peaks?: Array<{ value: number; label: string; cls: string }>;
  height?: number;
  width?: number;
}

const WIDE = 920;
const NARROW = 600;
const M = { l: 44, r: 30, t: 14, b: 26 };

/** A bucket width or gap bound in short form: `10 ms`, `1 s`, `10 s`, `2 min`. */
function shortMs(ms: number): string {
  if (ms < 1000) return `${formatDecimalShort(ms)} ms`;
  if (ms < 60_000) return `${formatDecimalShort(ms / 1000)} s`;
  return `${formatDecimalShort(ms / 60_000)} min`;
}

function formatDecimalShort(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** 1, 2, 5 × 10^k at or above `v` (at least 1). */
export function niceCeil(v: number): number {
  if (!(v > 1)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

const TICKS_MS = [1, 2, 5, 10, 15, 30]
  .map((s) => s * 1000)
  .concat(
    [1, 2, 5, 10, 15, 30].map((m) => m * 60_000),
    [1, 2, 3, 6, 12, 24].map((h) => h * 3_600_000),
  );

const f1 = (x: number): string => (Math.round(x * 10) / 10).toString();

function rateLabel(v: number): string {
  if (v === 0) return '0';
  if (v >= 1000) return `${formatInt(v / 1000)}k`;
  return v >= 10 ? formatInt(v) : String(Math.round(v * 100) / 100);
}

/** Pixels between two busy stretches of a chart whose series leaves out an empty stretch. */
const BREAK_PX = 14;

/** A run of consecutive buckets: `[from, to)` in epoch ms, drawn from `x0` over `w` pixels. */
interface Stretch {
  from: number;
  to: number;
  x0: number;
  w: number;
}

/**
 * The chart's busy stretches: points more than one bucket apart start a new stretch; each gets
 * width in proportion to its duration, with {@link BREAK_PX} between stretches.
 */
function stretches(ts: number[], bucketMs: number, left: number, pw: number): Stretch[] {
  const runs: Array<{ from: number; to: number }> = [];
  for (const t of ts) {
    const last = runs[runs.length - 1];
    if (last !== undefined && t - last.to < bucketMs) last.to = t + bucketMs;
    else runs.push({ from: t, to: t + bucketMs });
  }
  const total = runs.reduce((a, r) => a + (r.to - r.from), 0);
  const avail = pw - BREAK_PX * (runs.length - 1);
  let x0 = left;
  return runs.map((r) => {
    const w = (avail * (r.to - r.from)) / total;
    const out = { ...r, x0, w };
    x0 += w + BREAK_PX;
    return out;
  });
}

/** `HH:MM` (or `HH:MM:SS`), preceded by the date `MM-DD` when `dated`. */
function tickLabel(t: number, withSeconds: boolean, dated: boolean): string {
  const iso = new Date(t).toISOString();
  const time = iso.slice(11, withSeconds ? 19 : 16);
  return dated ? `${iso.slice(5, 10)} ${time}` : time;
}

function timeChart(c: TimeChartSpec): string {
  const H = c.height ?? 220;
  const W = c.width ?? WIDE;
  const t0 = c.ts[0]!;
  const t1 = c.ts[c.ts.length - 1]! + c.bucketMs;
  const pw = W - M.l - M.r;
  const ph = H - M.t - M.b;
  const parts_ = stretches(c.ts, c.bucketMs, M.l, pw);
  /** x of time `t`: within its stretch, or the nearest stretch edge when `t` falls in a gap. */
  const x = (t: number): number => {
    let at = parts_[0]!;
    for (const s of parts_) {
      if (t < s.from) return at === s ? s.x0 : at.x0 + at.w;
      at = s;
      if (t <= s.to) return s.x0 + ((t - s.from) / (s.to - s.from)) * s.w;
    }
    return at.x0 + at.w;
  };
  const peaks = c.peaks ?? [];
  const max = niceCeil(Math.max(0, ...c.lines.flatMap((l) => l.values), ...peaks.map((p) => p.value)));
  const y = (v: number): number => M.t + ph - (v / max) * ph;
  // Date on the ticks when the chart spans more than one UTC day.
  const dated = new Date(t0).toISOString().slice(0, 10) !== new Date(t1 - 1).toISOString().slice(0, 10);
  const parts: string[] = [];
  parts.push(`<svg id="${text(c.id)}" class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${text(c.label)}"><title>${text(c.label)}</title>`);
  for (const s of c.shades) {
    const a = x(s.from);
    const w = Math.max(3, x(s.to) - a);
    parts.push(
      `<g class="episode"><rect x="${f1(a)}" y="${M.t}" width="${f1(w)}" height="${ph}"><title>${text(s.label)}</title></rect><text x="${f1(a + 3)}" y="${M.t + 11}">${text(s.label.split(' ')[0] ?? '')}</text></g>`,
    );
  }
  for (const v of [0, max / 2, max]) {
    parts.push(
      `<line class="grid" x1="${M.l}" x2="${W - M.r}" y1="${f1(y(v))}" y2="${f1(y(v))}"/><text class="ylab" x="${M.l - 6}" y="${f1(y(v) + 4)}">${text(rateLabel(v))}</text>`,
    );
  }
  // Ticks per stretch, about one per 110 px (dated labels are wider), never closer than 70 px.
  const tickPx = dated ? 130 : 110;
  let lastTickX = -Infinity;
  let lastDay = '';
  for (const s of parts_) {
    const room = Math.max(1, Math.floor(s.w / tickPx));
    const span = s.to - s.from;
    const step = TICKS_MS.find((m) => span / m <= room) ?? 86_400_000 * Math.ceil(span / 86_400_000 / room);
    const withSeconds = step < 60_000;
    for (let t = Math.ceil(s.from / step) * step; t <= s.to; t += step) {
      const xt = x(t);
      if (xt - lastTickX < 70) continue;
      const day = new Date(t).toISOString().slice(0, 10);
      parts.push(
        `<line class="tick" x1="${f1(xt)}" x2="${f1(xt)}" y1="${M.t + ph}" y2="${M.t + ph + 4}"/><text class="xlab" x="${f1(xt)}" y="${H - 8}">${text(tickLabel(t, withSeconds, dated && day !== lastDay))}</text>`,
      );
      lastTickX = xt;
      lastDay = day;
    }
  }
  parts.push(`<line class="axis" x1="${M.l}" x2="${W - M.r}" y1="${M.t + ph}" y2="${M.t + ph}"/>`);
  for (const s of parts_.slice(1)) {
    const xb = s.x0 - BREAK_PX / 2;
    parts.push(
      `<g class="break"><title>${text(`no requests from ${tickLabel(prevEnd(parts_, s), false, true)} to ${tickLabel(s.from, false, true)} UTC`)}</title><line x1="${f1(xb - 3)}" x2="${f1(xb + 1)}" y1="${M.t + ph + 5}" y2="${M.t + ph - 5}"/><line x1="${f1(xb - 1)}" x2="${f1(xb + 3)}" y1="${M.t + ph + 5}" y2="${M.t + ph - 5}"/></g>`,
    );
  }
  for (const l of c.lines) {
    let d = '';
    l.values.forEach((v, i) => {
      const xa = f1(x(c.ts[i]!));
      const xb = f1(x(c.ts[i]! + c.bucketMs));
      const yv = f1(y(v));
      const newRun = i === 0 || c.ts[i]! - c.ts[i - 1]! > c.bucketMs;
      d += newRun ? `M${xa} ${yv}H${xb}` : `V${yv}H${xb}`;
    });
    parts.push(`<path class="line ${text(l.cls)}" d="${d}"><title>${text(l.name)}</title></path>`);
  }
  // Labels alternate left and right so two close peaks don't overprint.
  peaks.forEach((p, i) => {
    const yp = f1(y(p.value));
    const lx = i % 2 === 0 ? `x="${M.l + 4}" text-anchor="start"` : `x="${W - M.r - 4}" text-anchor="end"`;
    parts.push(`<g class="peak ${text(p.cls)}"><line x1="${M.l}" x2="${W - M.r}" y1="${yp}" y2="${yp}"/><text ${lx} y="${f1(y(p.value) - 4)}">${text(p.label)}</text></g>`);
  });
  parts.push('</svg>');
  const gaps = parts_.length > 1 ? ` · ${parts_.length - 1} empty ${parts_.length === 2 ? 'stretch' : 'stretches'} left out (//)` : '';
  const legend = `<p class="legend">${c.lines.map((l) => `<span class="key ${text(l.cls)}"></span>${text(l.name)}`).join(' ')} <span class="muted">· times in UTC${gaps}</span></p>`;
  return `<figure class="figure">${parts.join('')}${legend}</figure>`;
}

/** End of the stretch before `s`. */
function prevEnd(all: Stretch[], s: Stretch): number {
  return all[all.indexOf(s) - 1]!.to;
}

function gapLabel(upToMs: number | null, prev: number | null): string {
  if (upToMs === null) return `> ${shortMs(prev ?? 0)}`;
  return `≤ ${shortMs(upToMs)}`;
}

function gapChart(buckets: NonNullable<FindingSeries['retryGaps']>, id: string): string {
  const H = 150;
  const W = NARROW;
  const pw = W - M.l - M.r;
  const ph = H - M.t - M.b;
  const max = Math.max(1, ...buckets.map((b) => b.count));
  const bw = pw / buckets.length;
  const parts = [`<svg id="${text(id)}" class="chart gaps" viewBox="0 0 ${W} ${H}" role="img" aria-label="Retry-gap distribution"><title>Retry-gap distribution</title>`];
  buckets.forEach((b, i) => {
    const h = (b.count / max) * ph;
    const xa = M.l + i * bw;
    const label = gapLabel(b.upToMs, i > 0 ? (buckets[i - 1]?.upToMs ?? null) : null);
    parts.push(
      `<rect class="bar" x="${f1(xa + 6)}" y="${f1(M.t + ph - h)}" width="${f1(bw - 12)}" height="${f1(Math.max(h, b.count > 0 ? 1 : 0))}"><title>${text(`${label}: ${formatInt(b.count)}`)}</title></rect>`,
      `<text class="count" x="${f1(xa + bw / 2)}" y="${f1(M.t + ph - h - 3)}">${text(formatInt(b.count))}</text>`,
      `<text class="xlab" x="${f1(xa + bw / 2)}" y="${H - 8}">${text(label)}</text>`,
    );
  });
  parts.push(`<line class="axis" x1="${M.l}" x2="${W - M.r}" y1="${M.t + ph}" y2="${M.t + ph}"/>`, '</svg>');
  return `<figure class="figure">${parts.join('')}</figure>`;
}

// ---------------------------------------------------------------------------------------------
// Inline CSS and script (allowed by hash in the Content-Security-Policy)

/** The report page's stylesheet (the diff page extends it). */
export const CSS = `
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--card:#f6f8fa;--line:#d1d9e0;--writes:#1f6feb;--conflicts:#cf222e;--throttled:#8250df;--episode:rgba(207,34,46,.12)}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1240px;margin:0 auto;padding:20px 24px 40px}
h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}h4{font-size:13px;margin:12px 0 4px;text-transform:none}
.verdict{font-size:17px;font-weight:600;margin:4px 0}.meta,.muted{color:var(--muted);font-weight:normal}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--card);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:8px;margin:12px 0}
.facts div{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:6px 10px}
.facts dt{color:var(--muted);font-size:12px}.facts dd{margin:0;overflow-wrap:anywhere}
.figure{margin:4px 0}.chart{width:100%;height:auto;display:block}
.chart text{font-size:11px;fill:var(--muted)}.chart .ylab{text-anchor:end}.chart .xlab,.chart .count{text-anchor:middle}
.chart .grid{stroke:#eaeef2}.chart .axis,.chart .tick{stroke:#8c959f}.chart .break line{stroke:#57606a;stroke-width:1.5}.chart .peak line{stroke-dasharray:4 3;stroke-width:1}.chart .peak text{font-size:11px;stroke:none}.chart .peak.l-writes text{fill:var(--writes)}.chart .peak.l-conflicts text{fill:var(--conflicts)}
.chart .line{fill:none;stroke-width:1.6}.l-writes{stroke:var(--writes)}.l-conflicts{stroke:var(--conflicts)}.l-throttled{stroke:var(--throttled)}
.chart .episode rect{fill:var(--episode)}.chart .episode text{fill:var(--conflicts);font-weight:600}
.chart .bar{fill:var(--writes)}
.legend{margin:2px 0 0 52px;font-size:12px}.key{display:inline-block;width:14px;height:0;border-top:3px solid;margin:0 4px 3px 10px;vertical-align:middle}
.key.l-writes{border-color:var(--writes)}.key.l-conflicts{border-color:var(--conflicts)}.key.l-throttled{border-color:var(--throttled)}
.finding{border:1px solid var(--line);border-left:6px solid #8c959f;border-radius:6px;padding:10px 16px 14px;margin:14px 0;background:#fff}
.finding h3{margin-top:4px;font-size:16px}
.sev-critical{border-left-color:#a40e26}.sev-high{border-left-color:#cf222e}.sev-medium{border-left-color:#bf8700}.sev-low{border-left-color:#1f6feb}.sev-info{border-left-color:#8c959f}
.badge{display:inline-block;color:#fff;border-radius:4px;padding:1px 6px;font-size:12px;background:#8c959f}
.badge.sev-critical{background:#a40e26}.badge.sev-high{background:#cf222e}.badge.sev-medium{background:#9a6700}.badge.sev-low{background:#1f6feb}
.num{font-variant-numeric:tabular-nums}.kind{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;color:var(--muted)}
.cols{display:grid;grid-template-columns:minmax(0,5fr) minmax(0,7fr);gap:20px}@media (max-width:900px){.cols{grid-template-columns:1fr}}
.kv{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 10px;margin:0}.kv dt{color:var(--muted)}.kv dd{margin:0}
.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:6px;margin:0}
.stats div{background:var(--card);border-radius:6px;padding:4px 8px}.stats dt{font-size:11px;color:var(--muted)}.stats dd{margin:0;font-weight:600}
.chip{display:inline-block;background:#fff1e5;color:#953800;border-radius:10px;padding:0 8px;font-size:12px}
.ids{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:4px 14px}
button{font:inherit;font-size:12px;cursor:pointer}
button.copy{border:1px solid var(--line);background:#fff;border-radius:4px;padding:0 6px}
.advice li{margin:3px 0}.advice pre.go{margin:6px 0 10px;padding:8px 10px;background:var(--card);border-radius:6px;overflow-x:auto}.advice pre.go code{padding:0;background:none;overflow-wrap:normal;white-space:pre}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:4px 0 8px}
th,td{border-bottom:1px solid #eaeef2;padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th button.sort{border:0;background:none;font-weight:600;padding:0;color:var(--fg)}
th[aria-sort=ascending] button.sort::after{content:" \\25B2"}th[aria-sort=descending] button.sort::after{content:" \\25BC"}
details summary{cursor:pointer;color:var(--muted);margin:8px 0 2px}
footer{margin-top:30px;color:var(--muted);font-size:12px}
`;

/** The page script: sorts tables, copies auditIDs. */
export const SCRIPT = `
(function () {
  'use strict';
  function key(td, num) {
    var v = td.getAttribute('data-v');
    if (v === null) v = td.textContent || '';
    if (!num) return v;
    return v === '' ? -Infinity : Number(v);
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable th'), function (th) {
    th.addEventListener('click', function () {
      var table = th.closest('table');
      var tbody = table.tBodies[0];
      var idx = Array.prototype.indexOf.call(th.parentNode.children, th);
      var num = th.getAttribute('data-type') === 'num';
      var cur = th.getAttribute('aria-sort');
      var dir = cur === 'descending' ? 'ascending' : cur === 'ascending' ? 'descending' : (num ? 'descending' : 'ascending');
      Array.prototype.forEach.call(table.querySelectorAll('th'), function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', dir);
      var rows = Array.prototype.slice.call(tbody.rows);
      rows.sort(function (a, b) {
        var x = key(a.cells[idx], num), y = key(b.cells[idx], num);
        var c = num ? (x < y ? -1 : x > y ? 1 : 0) : String(x).localeCompare(String(y));
        return dir === 'ascending' ? c : -c;
      });
      rows.forEach(function (r) { tbody.appendChild(r); });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('button.copy'), function (b) {
    b.addEventListener('click', function () {
      var value = b.getAttribute('data-copy') || '';
      function selectIt() {
        var el = b.previousElementSibling;
        var sel = window.getSelection();
        if (el && sel) { var r = document.createRange(); r.selectNodeContents(el); sel.removeAllRanges(); sel.addRange(r); }
        b.textContent = 'selected: press Ctrl+C';
      }
      try {
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(value).then(function () { b.textContent = 'copied'; }, selectIt);
        } else selectIt();
      } catch (e) { selectIt(); }
    });
  });
})();
`;
