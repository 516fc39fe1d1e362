/**
 * Pure renderers of a {@link DiffReport}: text (terminal), JSON (the validated model), Markdown
 * (for a ticket or a pull request). HTML is in `./html.ts`; {@link renderDiff} picks by format.
 * Every string from the runs goes through `stripControlChars` (text) or the Markdown escapes.
 */
import { escapeJsonControls, escapeMarkdownCell, escapeMarkdownInline, stripControlChars } from '../report/escape.js';
import { formatPercent } from '../report/format.js';
import type { Format } from '../report/formats.js';
import { formatMeasureValue } from './diff.js';
import { renderDiffHtml } from './html.js';
import { DiffReportSchema, type DiffFinding, type DiffReport } from './schema.js';
import { countsLine, headline, runLine } from './words.js';

export { countsLine, headline, runLine };

/** `WORSE high conflict-storm: ns/sa on resource ns/name` (severity `a → b` when it changed): a finding's first line. */
function findingHead(f: DiffFinding): string {
  const sev = f.before && f.after && f.before.severity !== f.after.severity ? `${f.before.severity} → ${f.after.severity}` : f.severity;
  return `${f.verdict.toUpperCase()} ${sev} ${f.kind}: ${f.actor}${f.subject ? ` on ${f.subject}` : ''}`;
}

/** Plain text for a terminal or a CI log (long strings are not cut). */
export function renderDiffText(d: DiffReport): string {
  const t = (s: string) => stripControlChars(s);
  const lines: string[] = [];
  lines.push(`auditstorm diff: ${countsLine(d)} (tolerance ${formatPercent(d.tolerance)})`, t(headline(d)), '');
  lines.push(`BEFORE ${t(runLine(d.before))}`, `AFTER  ${t(runLine(d.after))}`, '');
  if (d.findings.length > 0) {
    lines.push('Findings');
    for (const f of d.findings) {
      lines.push(`  ${t(findingHead(f))}`, `    ${t(f.text)}`);
      for (const l of f.limits) lines.push(`    cannot compare: ${t(l)}`);
    }
    lines.push('');
  }
  lines.push('Cluster-wide (rates per second of each run)');
  const rows = d.cluster.map((c) => [c.label, formatMeasureValue(c.unit, c.before), formatMeasureValue(c.unit, c.after)] as const);
  const w0 = Math.max('figure'.length, ...rows.map((r) => r[0].length));
  const w1 = Math.max('BEFORE'.length, ...rows.map((r) => r[1].length));
  const w2 = Math.max('AFTER'.length, ...rows.map((r) => r[2].length));
  lines.push(`  ${'figure'.padEnd(w0)}  ${'BEFORE'.padStart(w1)}  ${'AFTER'.padStart(w2)}`);
  for (const r of rows) lines.push(`  ${t(r[0]).padEnd(w0)}  ${r[1].padStart(w1)}  ${r[2].padStart(w2)}`);
  if (d.limits.length > 0) {
    lines.push('', 'What cannot be compared');
    for (const l of d.limits) lines.push(`  - ${t(l)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The diff model as pretty JSON, validated against {@link DiffReportSchema}. @throws ZodError on a bug in the producer. */
export function renderDiffJson(d: DiffReport): string {
  return `${escapeJsonControls(JSON.stringify(DiffReportSchema.parse(d), null, 2))}\n`;
}

/** GitHub-flavoured Markdown for a ticket or pull request. */
export function renderDiffMarkdown(d: DiffReport): string {
  const c = escapeMarkdownCell;
  const i = escapeMarkdownInline;
  const lines: string[] = [];
  lines.push(`## auditstorm diff: ${i(countsLine(d))}`, '', `**${i(headline(d))}** Tolerance ${formatPercent(d.tolerance)}.`, '');
  lines.push(`- **BEFORE** ${i(runLine(d.before))}`, `- **AFTER** ${i(runLine(d.after))}`, '');
  if (d.findings.length > 0) {
    lines.push('| Verdict | Severity | Kind | Actor | Object | Change |', '| --- | --- | --- | --- | --- | --- |');
    for (const f of d.findings) {
      const sev = f.before && f.after && f.before.severity !== f.after.severity ? `${f.before.severity} → ${f.after.severity}` : f.severity;
      const change = [f.text, ...f.limits.map((l) => `cannot compare: ${l}`)].join('; ');
      lines.push(`| **${f.verdict}** | ${sev} | ${c(f.kind)} | ${c(f.actor)} | ${c(f.subject || '—')} | ${c(change)} |`);
    }
    lines.push('');
  }
  lines.push('### Cluster-wide', '', '| Figure | BEFORE | AFTER |', '| --- | ---: | ---: |');
  for (const x of d.cluster) lines.push(`| ${c(x.label)} | ${formatMeasureValue(x.unit, x.before)} | ${formatMeasureValue(x.unit, x.after)} |`);
  if (d.limits.length > 0) {
    lines.push('', '### What cannot be compared', '');
    for (const l of d.limits) lines.push(`- ${i(l)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Render a diff in one of the report formats. */
export function renderDiff(d: DiffReport, format: Format): string {
  switch (format) {
    case 'json':
      return renderDiffJson(d);
    case 'markdown':
      return renderDiffMarkdown(d);
    case 'html':
      return renderDiffHtml(d);
    default:
      return renderDiffText(d);
  }
}
