/**
 * HTML renderer of a {@link DiffReport}: one self-contained page in the style of the report page
 * (`src/report/html.ts`, whose stylesheet, table sorting script and escaping it reuses), with
 * the same Content-Security-Policy (nothing loaded, style and script allowed by hash only).
 * Both runs' cluster timelines are drawn on one time axis, minutes from each run's start, so a
 * storm and its absence line up. Every string goes through `text` (control characters
 * stripped, HTML-escaped); the embedded diff JSON through `embedJson`.
 */
import { createHash } from 'node:crypto';
import { formatPercent } from '../report/format.js';
import { CSS, embedJson, niceCeil, SCRIPT, table, text, type Cell } from '../report/html.js';
import type { ClusterSeries } from '../report/schema.js';
import { formatMeasureValue } from './diff.js';
import { countsLine, headline, runLine } from './words.js';
import type { DiffFinding, DiffReport, DiffRun } from './schema.js';

const DIFF_CSS = `${CSS}
.v{display:inline-block;border-radius:4px;padding:1px 7px;font-size:12px;font-weight:600;color:#fff}
.v-worse{background:#a40e26}.v-new{background:#cf222e}.v-same{background:#9a6700}.v-better{background:#1a7f37}.v-fixed{background:#116329}
.l-before{stroke:#8c959f;stroke-dasharray:5 3}.l-after{stroke:var(--conflicts)}.l-before-w{stroke:#8c959f;stroke-dasharray:5 3}.l-after-w{stroke:var(--writes)}
.key.l-before,.key.l-before-w{border-color:#8c959f;border-top-style:dashed}.key.l-after{border-color:var(--conflicts)}.key.l-after-w{border-color:var(--writes)}
.limits li{margin:3px 0}
#table-diff-findings td:nth-child(-n+2),#table-diff-findings th:nth-child(-n+2){white-space:nowrap}
`;

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('base64');

const W = 920;
const H = 220;
const M = { l: 44, r: 30, t: 14, b: 26 };
const f1 = (x: number): string => (Math.round(x * 10) / 10).toString();

/** A run's series as rates per second against ms since the run's start. */
function relative(run: DiffRun, field: 'writes' | 'conflicts' | 'requests' | 'throttled'): { x: number[]; v: number[]; bucketMs: number } | null {
  const s: ClusterSeries | undefined = run.series;
  if (!s || s.points.length === 0) return null;
  const start = run.timeRange ? Date.parse(run.timeRange.from) : s.points[0]!.t;
  const t0 = Math.min(start, s.points[0]!.t);
  return { x: s.points.map((p) => p.t - t0), v: s.points.map((p) => p[field] / (s.bucketMs / 1000)), bucketMs: s.bucketMs };
}

/** Minutes and seconds since a run's start: `+0m`, `+2m 30s`. */
function sinceStart(ms: number): string {
  const s = Math.round(ms / 1000);
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  if (h > 0) return `+${h}h ${String(m % 60).padStart(2, '0')}m`;
  return s % 60 === 0 ? `+${m}m` : `+${m}m ${s % 60}s`;
}

const TICKS = [10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map((s) => s * 1000);

/** A step chart of one figure of both runs, x = time since each run's start. */
function overlayChart(d: DiffReport, id: string, title: string, field: 'writes' | 'conflicts', cls: [string, string]): string {
  const lines = [
    { name: `BEFORE ${title}`, cls: cls[0], s: relative(d.before, field) },
    { name: `AFTER ${title}`, cls: cls[1], s: relative(d.after, field) },
  ].filter((l) => l.s !== null) as Array<{ name: string; cls: string; s: NonNullable<ReturnType<typeof relative>> }>;
  if (lines.length === 0) return `<p class="muted">${text('Neither run carries a cluster time series (older reports).')}</p>`;
  const span = Math.max(...lines.map((l) => l.s.x[l.s.x.length - 1]! + l.s.bucketMs));
  const pw = W - M.l - M.r;
  const ph = H - M.t - M.b;
  const x = (t: number): number => M.l + (Math.min(Math.max(t, 0), span) / span) * pw;
  const max = niceCeil(Math.max(0, ...lines.flatMap((l) => l.s.v)));
  const y = (v: number): number => M.t + ph - (v / max) * ph;
  const parts = [`<svg id="${text(id)}" class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${text(title)}"><title>${text(title)}</title>`];
  for (const v of [0, max / 2, max]) {
    parts.push(
      `<line class="grid" x1="${M.l}" x2="${W - M.r}" y1="${f1(y(v))}" y2="${f1(y(v))}"/><text class="ylab" x="${M.l - 6}" y="${f1(y(v) + 4)}">${text(String(Math.round(v * 100) / 100))}</text>`,
    );
  }
  const step = TICKS.find((s) => span / s <= 8) ?? 86_400_000;
  for (let t = 0; t <= span; t += step) {
    parts.push(
      `<line class="tick" x1="${f1(x(t))}" x2="${f1(x(t))}" y1="${M.t + ph}" y2="${M.t + ph + 4}"/><text class="xlab" x="${f1(x(t))}" y="${H - 8}">${text(sinceStart(t))}</text>`,
    );
  }
  parts.push(`<line class="axis" x1="${M.l}" x2="${W - M.r}" y1="${M.t + ph}" y2="${M.t + ph}"/>`);
  for (const l of lines) {
    let p = '';
    l.s.v.forEach((v, i) => {
      const xa = f1(x(l.s.x[i]!));
      const xb = f1(x(l.s.x[i]! + l.s.bucketMs));
      p += i === 0 ? `M${xa} ${f1(y(v))}H${xb}` : `V${f1(y(v))}H${xb}`;
    });
    parts.push(`<path class="line ${text(l.cls)}" d="${p}"><title>${text(l.name)}</title></path>`);
  }
  parts.push('</svg>');
  const legend = `<p class="legend">${lines.map((l) => `<span class="key ${text(l.cls)}"></span>${text(l.name)}`).join(' ')} <span class="muted">· time since each run's start</span></p>`;
  return `<figure class="figure">${parts.join('')}${legend}</figure>`;
}

function findingRow(f: DiffFinding): Cell[] {
  const sev = f.before && f.after && f.before.severity !== f.after.severity ? `${f.before.severity} → ${f.after.severity}` : f.severity;
  return [
    { text: f.verdict },
    { text: sev },
    { text: f.kind },
    { text: f.actor },
    { text: f.subject || '—' },
    { text: [f.text, ...f.limits.map((l) => `cannot compare: ${l}`)].join('; ') },
  ];
}

/**
 * Render a diff as one self-contained HTML page. Pure and deterministic.
 * @param d the diff (not modified)
 * @returns the HTML document, ending with a newline
 */
export function renderDiffHtml(d: DiffReport): string {
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${sha256(DIFF_CSS)}'`,
    `script-src 'sha256-${sha256(SCRIPT)}'`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const title = `auditstorm diff: ${countsLine(d)}`;
  const verdicts = d.findings
    .map(
      (f, i) =>
        `<li id="diff-${i}"><span class="v v-${text(f.verdict)}">${text(f.verdict)}</span> <span class="kind">${text(f.kind)}</span> <strong>${text(f.actor)}</strong>${f.subject ? ` on <code>${text(f.subject)}</code>` : ''}: ${text(f.text)}${f.limits.map((l) => `<br><span class="muted">${text(`cannot compare: ${l}`)}</span>`).join('')}</li>`,
    )
    .join('\n');
  const rows = d.findings.map(findingRow);
  const cluster = d.cluster.map((c): Cell[] => [
    { text: c.label },
    { text: formatMeasureValue(c.unit, c.before), v: c.before },
    { text: formatMeasureValue(c.unit, c.after), v: c.after },
  ]);
  const body = [
    '<header>',
    `<h1>${text(title)}</h1>`,
    `<p class="verdict" id="verdict">${text(headline(d))}</p>`,
    `<p class="meta">${text(`${d.tool.name} ${d.tool.version}, generated ${d.generatedAt}; rates within ${formatPercent(d.tolerance)} count as the same`)}</p>`,
    '</header>',
    '<section id="runs"><h2>Runs</h2>',
    `<dl class="kv"><dt>BEFORE</dt><dd>${text(runLine(d.before))}</dd><dt>AFTER</dt><dd>${text(runLine(d.after))}</dd></dl>`,
    '</section>',
    '<section id="findings"><h2>Findings</h2>',
    d.findings.length === 0 ? '<p class="muted">No findings in either run.</p>' : `<ul class="advice" id="verdicts">\n${verdicts}\n</ul>`,
    table([{ header: 'Verdict' }, { header: 'Severity' }, { header: 'Kind' }, { header: 'Actor' }, { header: 'Object' }, { header: 'Change' }], rows, 'diff-findings'),
    '</section>',
    '<section id="timelines"><h2>Timelines</h2>',
    overlayChart(d, 'chart-conflicts', '409 Conflicts/s (cluster)', 'conflicts', ['l-before', 'l-after']),
    overlayChart(d, 'chart-writes', 'writes/s (cluster)', 'writes', ['l-before-w', 'l-after-w']),
    '</section>',
    '<section id="cluster"><h2>Cluster-wide</h2>',
    table([{ header: 'Figure' }, { header: 'BEFORE', num: true }, { header: 'AFTER', num: true }], cluster, 'diff-cluster'),
    '</section>',
    d.limits.length === 0 ? '' : `<section id="limits"><h2>What cannot be compared</h2><ul class="limits">${d.limits.map((l) => `<li>${text(l)}</li>`).join('')}</ul></section>`,
    `<footer>${text(`Diff data: the JSON diff (diffSchemaVersion ${d.diffSchemaVersion}) is embedded in this page as <script id="diff-data" type="application/json">.`)}</footer>`,
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
    `<style>${DIFF_CSS}</style>`,
    '</head>',
    '<body>',
    '<main>',
    body,
    '</main>',
    `<script id="diff-data" type="application/json">${embedJson(d)}</script>`,
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
