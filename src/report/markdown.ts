/**
 * Markdown renderer: a ticket-ready summary in GitHub-flavoured Markdown. Every string from the
 * report is escaped (`escapeMarkdownInline` / `escapeMarkdownCell`) or put in a code span
 * (`markdownCodeSpan`), so audit data can't break a table, inject HTML or add links.
 */
import { adviceSnippet } from './snippets.js';
import { escapeMarkdownCell, escapeMarkdownInline, markdownCodeSpan } from './escape.js';
import { logLinesNote, readerNote, skippedRecordsNote, truncatedNote } from './input-notes.js';
import {
  allowlistSummary,
  bySeverity,
  evidenceIDs,
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
  type Table,
  membersSummary,
  objectsCovered,
} from './format.js';
import { metricsHeader, metricsPolicies, metricsTables } from './metrics-tables.js';
import type { ApiserverMetrics, Finding, Report, ReportActor } from './schema.js';

/** Longest user string (code points) put in a cell or code span; longer ones are cut with `…`. */
const MAX_CHARS = 200;

/** Longest prose string (title, advice) put inline. */
const MAX_TEXT = 1000;

const text = (s: string): string => escapeMarkdownInline(truncate(s, MAX_TEXT));
const cell = (s: string): string => escapeMarkdownCell(truncate(s, MAX_CHARS, 'middle'));
const code = (s: string): string => markdownCodeSpan(truncate(s, MAX_CHARS, 'middle')) || '(empty)';

/**
 * Render a report as GitHub-flavoured Markdown: title and one-sentence verdict; per finding
 * What / Who / When / Impact (metrics) / Fix (advice) / Evidence (auditIDs); notes; summary
 * tables; input statistics and bad-line samples.
 * @param report a valid report (not modified)
 * @returns the Markdown document, ending with a newline; deterministic
 */
export function renderMarkdown(report: Report): string {
  if (report.apiserverMetrics !== undefined) return metricsMarkdown(report, report.apiserverMetrics);
  const findings = bySeverity(report.findings);
  const out: string[] = [];
  const n = findings.length;
  out.push(n === 0 ? '# auditstorm: no retry or write loops found' : `# auditstorm: ${plural(n, 'finding')} (${severityBreakdown(findings)})`, '');
  out.push(verdict(report, findings), '');
  out.push(`_${text(`${report.tool.name} ${report.tool.version}`)}, generated ${text(formatTime(report.generatedAt))}_`, '');
  findings.forEach((f, i) => out.push(...finding(f, i + 1)));
  out.push(...notes(report.notes));
  out.push('## Summary', '');
  for (const t of summaryTables(report.summaries)) out.push(`### ${text(t.title)}`, '', ...table(t));
  out.push(...input(report));
  while (out[out.length - 1] === '') out.pop();
  return `${out.join('\n')}\n`;
}

/** Lines of a GFM table (or `_None._`), followed by a blank line. */
function table(t: Table): string[] {
  if (t.rows.length === 0) return ['_None._', ''];
  const row = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const out = [
    row(t.columns.map((c) => cell(c.header))),
    row(t.columns.map((c) => (c.align === 'right' ? '---:' : '---'))),
    ...t.rows.map((r) => row(t.columns.map((_, i) => cell(r[i] ?? '')))),
  ];
  if (t.footer !== undefined) out.push('', `_${text(t.footer)}_`);
  return [...out, ''];
}

function verdict(report: Report, findings: Finding[]): string {
  const range = report.input.timeRange;
  const over = `${plural(report.input.requests, 'request')}${range ? ` over ${formatWindow(range.from, range.to)}` : ''}`;
  const top = findings[0];
  if (top === undefined) return `**Verdict:** no retry or write loops found in ${text(over)}.`;
  return (
    `**Verdict:** ${plural(findings.length, 'finding')} (${severityBreakdown(findings)}) in ${text(over)}; ` +
    `most severe: **${top.severity.toUpperCase()}** ${text(top.kind)}: ${text(top.title)}`
  );
}

function who(a: ReportActor): string {
  const sa = formatServiceAccount(a);
  const clauses = [`${code(a.username)}${sa === '' ? '' : ` (service account ${code(sa)})`}`, `user agent ${code(a.userAgent)}`];
  if (a.controller !== '') clauses.push(`controller ${code(a.controller)}`);
  if (a.sourceIPs.length > 0) clauses.push(`source IPs ${a.sourceIPs.map(code).join(', ')}`);
  if (a.fieldManagers.length > 0) clauses.push(`field managers ${a.fieldManagers.map(code).join(', ')}`);
  return clauses.join('; ');
}

function finding(f: Finding, n: number): string[] {
  const out = [`## ${n}. ${f.severity.toUpperCase()} ${text(f.kind)}${f.ongoing === true ? ' (ongoing)' : ''}: ${text(f.title)}`, ''];
  const covered = objectsCovered(f.metrics);
  const what = f.object ? `${code(formatObject(f.object))} (API version ${code(f.object.apiVersion)})` : covered !== null ? code(covered) : 'no single object (cluster-wide)';
  out.push(`- **What:** ${what}`);
  if (f.actors.length === 1) out.push(`- **Who:** ${who(f.actors[0]!)}`);
  else if (f.actors.length === 0) out.push('- **Who:** unknown');
  else out.push('- **Who:**', ...f.actors.map((a) => `  - ${who(a)}`));
  out.push(`- **When:** ${text(formatWindow(f.window.from, f.window.to))}`);
  const members = membersSummary(f);
  if (members !== null) out.push(`- **Members:** ${text(members)}`);
  if (f.objectStatus !== undefined) out.push(`- **Object status:** ${escapeMarkdownInline(f.objectStatus.text)}`);
  if (f.signals.length > 0) out.push(`- **Signals:** ${f.signals.map(code).join(', ')}`);
  if (f.docs !== undefined && /^https:\/\/[!-~]+$/.test(f.docs) && !/[()<>[\]]/.test(f.docs)) out.push(`- **Docs:** <${f.docs}>`);
  out.push('');
  if (Object.keys(f.metrics).length > 0) out.push('**Impact**', '', ...table(metricsTable(f.metrics)));
  if (f.advice.length > 0) {
    out.push('**Fix**', '');
    // The same snippet (e.g. RetryOnConflict for two advices) is shown once, under the first.
    const shown = new Set<string>();
    for (const a of f.advice) {
      out.push(`- ${text(a.text)}`);
      const go = adviceSnippet(a.id);
      if (go !== null && !shown.has(go)) {
        shown.add(go);
        out.push('', '  ```go', ...go.split('\n').map((l) => `  ${l}`), '  ```', '');
      }
    }
    out.push('');
  }
  const ids = evidenceIDs(f);
  const level = `${f.evidence.level}, audit level ${code(f.evidence.auditLevel)}`;
  out.push(ids.length === 0 ? `**Evidence** (${level}): no auditIDs recorded` : `**Evidence** (${level}; grep the audit log for these auditIDs): ${ids.map(code).join(', ')}`, '');
  return out;
}

function notes(list: readonly Finding[]): string[] {
  if (list.length === 0) return [];
  const out = ['## Notes (handled well, not storms)', ''];
  for (const f of bySeverity(list)) {
    const actors = f.actors.map((a) => code(a.username)).join(', ');
    const object = f.object ? ` on ${code(formatObject(f.object))}` : '';
    out.push(`- **${f.severity.toUpperCase()}** ${text(f.kind)}: ${text(f.title)} (${actors}${object}, ${text(formatWindow(f.window.from, f.window.to))})`);
  }
  return [...out, ''];
}

function input(report: Report): string[] {
  const i = report.input;
  const s = i.skipped;
  const out = ['## Input', ''];
  out.push(
    `- ${plural(i.lines, 'line')}, ${plural(i.events, 'event')}, ${plural(i.requests, 'request')}, ${plural(i.badLines, 'bad line')}`,
    `- Skipped: ${plural(s.nonFinalStages, 'non-final stage event')}, ${plural(s.duplicates, 'duplicate')}, ${formatInt(s.filtered)} filtered, ${plural(s.overlongLines, 'overlong line')}`,
    ...(
      [
        ['Truncated', truncatedNote(i)],
        ['Not audit', skippedRecordsNote(i)],
        ['Server log', logLinesNote(i)],
        ['Reader', readerNote(i)],
      ] as const
    )
      .filter(([, n]) => n !== null)
      .map(([label, n]) => `- ${label}: ${escapeMarkdownInline(n!)}`),
    `- Late: ${plural(i.lateRequests, 'request')} came later than the reorder window (placed at the stream clock)`,
    `- Non-resource: ${plural(i.nonResourceRequests, 'request')} without objectRef (in totals only)`,
    `- Allowlisted (periodic by design): ${escapeMarkdownInline(allowlistSummary(i))}`,
    ...i.sourceErrors.map(
      (e) => `- **${i.sources.some((s) => s.name === e.source && s.events > 0) ? 'Source cut short' : 'Skipped source'}** ${code(e.source)}: ${escapeMarkdownInline(e.message)}`,
    ),
    '',
    '### Sources',
    '',
    ...table(sourcesTable(i)),
  );
  if (i.badLineSamples.length > 0) {
    out.push('### Bad lines', '', ...badLinesTable(i.badLineSamples));
  }
  return out;
}

/** The sampled bad lines (file, line, reason) as a Markdown table. */
function badLinesTable(samples: Report['input']['badLineSamples']): string[] {
  return table({
    title: 'Bad lines',
    columns: [
      { header: 'Source', align: 'left' },
      { header: 'Line', align: 'right' },
      { header: 'Reason', align: 'left' },
    ],
    rows: samples.map((b) => [b.source, String(b.line), b.reason]),
  });
}

/** An `auditstorm metrics` report: title, what the numbers cover, findings, policy rules, tables, bad lines. */
function metricsMarkdown(report: Report, m: ApiserverMetrics): string {
  const findings = bySeverity(report.findings);
  const n = findings.length;
  const out: string[] = [n === 0 ? '# auditstorm metrics: no resource stands out' : `# auditstorm metrics: ${plural(n, 'finding')} (${severityBreakdown(findings)})`, ''];
  out.push(`_${text(`${report.tool.name} ${report.tool.version}, generated ${formatTime(report.generatedAt)}`)}_`, '');
  for (const [label, value] of metricsHeader(report, m)) if (label !== 'Generated') out.push(`- ${text(label)}: ${text(value)}`);
  for (const w of m.warnings) out.push(`- **Note:** ${text(w)}`);
  out.push('');
  findings.forEach((f, i) => out.push(...finding(f, i + 1)));
  const policies = metricsPolicies(report, m);
  if (policies.length > 0) {
    out.push('## Audit policy rules that would name the writers', '');
    for (const [title, yaml] of policies) {
      // A fence longer than any backtick run in the rule, so label text from the scrape cannot close it.
      const fence = '`'.repeat(Math.max(3, ...[...yaml.matchAll(/`+/g)].map((x) => x[0].length + 1)));
      out.push(text(`For: ${title}`), '', `${fence}yaml`, yaml, fence, '');
    }
  }
  out.push('## Metrics', '');
  for (const t of metricsTables(m)) out.push(`### ${text(t.title)}`, '', ...table(t));
  if (report.input.badLineSamples.length > 0) {
    out.push(`### Bad lines: ${formatInt(report.input.badLines)}`, '', ...badLinesTable(report.input.badLineSamples));
  }
  while (out[out.length - 1] === '') out.pop();
  return `${out.join('\n')}\n`;
}
