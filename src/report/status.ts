/**
 * Renderers of the reports of `auditstorm objects` and `auditstorm crd` (a {@link Report} with an
 * `objects` or `crd` section and no audit traffic): the findings, then the status table (as
 * `kubectl get -o custom-columns=NAME,GEN,OBS_GEN,READY,REASON` would show it) or the contract per
 * served version. JSON goes through the common `renderJson`. Every string from the input is
 * cleaned (text), escaped (Markdown, HTML).
 */
import { createHash } from 'node:crypto';
import { kubectlAge } from '../duration.js';
import { escapeHtml, escapeMarkdownCell, escapeMarkdownInline, stripControlChars } from './escape.js';
import type { CrdSection, Finding, ObjectsSection, Report } from './schema.js';

/** Whether a report is one of `objects` / `crd` (rendered here, not by the audit-log renderers). */
export function isStatusReport(report: Report): boolean {
  return report.objects !== undefined || report.crd !== undefined;
}

type Table = { headers: string[]; rows: string[][] };

function objectName(f: Finding): string {
  const o = f.object;
  if (o === null) return '(several objects)';
  const ns = o.namespace === '' ? '' : `${o.namespace}/`;
  return `${o.resource} ${ns}${o.name}`;
}

function ageText(ms: number | null): string {
  return ms === null ? '-' : kubectlAge(ms);
}

function objectsTable(s: ObjectsSection): Table {
  return {
    headers: ['NAME', 'KIND', 'GEN', 'OBS_GEN', 'READY', 'REASON', 'SINCE'],
    rows: s.rows.map((r) => [
      r.namespace === '' ? r.name : `${r.namespace}/${r.name}`,
      r.kind,
      r.generation === null ? '-' : String(r.generation),
      r.observedGeneration === null
        ? '-'
        : typeof r.observedGeneration === 'string'
          ? JSON.stringify(r.observedGeneration)
          : `${r.observedGeneration}${r.observedFrom === 'condition' ? '*' : ''}`,
      r.ready === null ? '-' : `${r.readyType}=${r.ready}`,
      r.reason ?? '-',
      ageText(r.readyForMs),
    ]),
  };
}

function crdTable(s: CrdSection): Table {
  return {
    headers: ['CRD', 'VERSION', 'STATUS', 'SUBRESOURCE', 'CONDITIONS', 'OBSERVED_GEN', 'UNMARKED_LISTS'],
    rows: s.versions.map((v) => [
      v.crd,
      `${v.version}${v.storage ? ' (storage)' : ''}`,
      v.hasStatus ? 'yes' : 'no',
      v.statusSubresource ? 'yes' : 'no',
      v.conditions,
      v.observedGeneration,
      String(v.atomicObjectLists),
    ]),
  };
}

function tableOf(report: Report): { title: string; table: Table; note: string } {
  if (report.objects !== undefined) {
    const s = report.objects;
    const clock = s.now === null ? 'no timestamps in the input: ages unknown' : `ages at ${s.now} (${s.clock === 'flag' ? '--now' : 'the newest timestamp in the input'})`;
    return {
      title: `Objects (${s.rows.length})`,
      table: objectsTable(s),
      note: `${clock}; OBS_GEN with * is the readiness condition's observedGeneration (no status.observedGeneration)`,
    };
  }
  const s = report.crd!;
  return {
    title: `Served versions (${s.versions.length})`,
    table: crdTable(s),
    note: s.otherDocuments > 0 ? `${s.otherDocuments} document(s) that are not CustomResourceDefinitions were skipped` : '',
  };
}

function headline(report: Report): string {
  const n = report.findings.length;
  const what = report.objects !== undefined ? 'auditstorm objects' : 'auditstorm crd';
  return `${what}: ${n === 0 ? 'no findings' : `${n} finding${n === 1 ? '' : 's'}`} in ${report.input.sources.map((s) => s.name).join(', ')}`;
}

/** Plain text: headline, findings (one block each), the table, skipped items. */
export function renderStatusText(report: Report): string {
  const c = stripControlChars;
  const out: string[] = [c(headline(report)), ''];
  report.findings.forEach((f, i) => {
    out.push(`#${i + 1}  ${f.severity.toUpperCase()}  ${c(f.kind)}`, `    ${c(f.title)}`);
    if (f.object !== null) out.push(`    Object          ${c(objectName(f))}`);
    if (f.signals.length > 0) out.push(`    Signals         ${c(f.signals.join(', '))}`);
    for (const a of f.advice) out.push(`    Advice          ${c(a.text)}`);
    if (f.docs !== undefined) out.push(`    Docs            ${c(f.docs)}`);
    out.push('');
  });
  const { title, table, note } = tableOf(report);
  out.push(title);
  const cells = table.rows.map((r) => r.map(c));
  const widths = table.headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r
      .map((x, i) => x.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  out.push(line(table.headers), ...cells.map(line));
  if (note !== '') out.push(c(note));
  const bad = report.input.badLineSamples;
  if (bad.length > 0) out.push('', `Skipped (${report.input.badLines})`, ...bad.map((b) => `  ${c(b.reason)}`));
  return `${out.join('\n')}\n`;
}

/** GitHub-flavoured Markdown. */
export function renderStatusMarkdown(report: Report): string {
  const i = escapeMarkdownInline;
  const cell = escapeMarkdownCell;
  const out: string[] = [`# ${i(headline(report))}`, ''];
  if (report.findings.length > 0) {
    out.push('## Findings', '');
    for (const f of report.findings) {
      out.push(`- **${f.severity}** \`${i(f.kind)}\`: ${i(f.title)}`);
      for (const a of f.advice) out.push(`  - ${i(a.text)}`);
      // Our own URL (src/docs-link.ts), as an autolink: escaping would break it.
      if (f.docs !== undefined) out.push(`  - Docs: <${f.docs}>`);
    }
    out.push('');
  }
  const { title, table, note } = tableOf(report);
  out.push(`## ${i(title)}`, '', `| ${table.headers.join(' | ')} |`, `| ${table.headers.map(() => '---').join(' | ')} |`);
  for (const r of table.rows) out.push(`| ${r.map(cell).join(' | ')} |`);
  if (note !== '') out.push('', i(note));
  const bad = report.input.badLineSamples;
  if (bad.length > 0) out.push('', `## Skipped (${report.input.badLines})`, '', ...bad.map((b) => `- ${i(b.reason)}`));
  return `${out.join('\n')}\n`;
}

const STATUS_CSS =
  'body{font:14px system-ui,sans-serif;margin:2em;max-width:72em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}.sev{font-weight:bold;text-transform:uppercase}';

/**
 * A self-contained HTML page (no scripts, no external resources): as the analyze report, its
 * Content-Security-Policy loads nothing and allows only its own style, by hash.
 */
export function renderStatusHtml(report: Report): string {
  const h = (s: string): string => escapeHtml(stripControlChars(s));
  const csp = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STATUS_CSS, 'utf8').digest('base64')}'`;
  const parts: string[] = [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${h(csp)}"><meta name="referrer" content="no-referrer"><title>${h(headline(report))}</title>`,
    `<style>${STATUS_CSS}</style>`,
    '</head><body>',
    `<h1>${h(headline(report))}</h1>`,
  ];
  if (report.findings.length > 0) {
    parts.push('<h2>Findings</h2>', '<ol>');
    for (const f of report.findings) {
      const docs = f.docs !== undefined ? ` <a href="${h(f.docs)}">docs</a>` : '';
      parts.push(
        `<li><span class="sev">${h(f.severity)}</span> <code>${h(f.kind)}</code>: ${h(f.title)}${docs}<ul>${f.advice.map((a) => `<li>${h(a.text)}</li>`).join('')}</ul></li>`,
      );
    }
    parts.push('</ol>');
  }
  const { title, table, note } = tableOf(report);
  parts.push(`<h2>${h(title)}</h2>`, '<table><thead><tr>', ...table.headers.map((x) => `<th>${h(x)}</th>`), '</tr></thead><tbody>');
  for (const r of table.rows) parts.push(`<tr>${r.map((x) => `<td>${h(x)}</td>`).join('')}</tr>`);
  parts.push('</tbody></table>');
  if (note !== '') parts.push(`<p>${h(note)}</p>`);
  const bad = report.input.badLineSamples;
  if (bad.length > 0) parts.push(`<h2>Skipped (${report.input.badLines})</h2><ul>${bad.map((b) => `<li>${h(b.reason)}</li>`).join('')}</ul>`);
  parts.push('</body></html>');
  return `${parts.join('\n')}\n`;
}
