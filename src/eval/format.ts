/**
 * Rendering of an {@link Evaluation}: the per-kind table (aligned text or Markdown) and the
 * details of every miss and false positive.
 */
import type { ExpectedFinding } from '../generator/generate.js';
import type { Finding } from '../index.js';
import type { Evaluation } from './evaluate.js';

const HEADER = ['kind', 'expected', 'found', 'missed', 'false positives', 'precision', 'recall'];

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

function rows(e: Evaluation): string[][] {
  return e.kinds.map((k) => [k.kind, String(k.expected), String(k.found), String(k.missed), String(k.falsePositives), pct(k.precision), pct(k.recall)]);
}

/** The table as aligned text (numbers right-aligned). */
export function textTable(e: Evaluation): string {
  const all = [HEADER, ...rows(e)];
  const widths = HEADER.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...rows(e).map(line)].join('\n');
}

/** The table as a Markdown table. */
export function markdownTable(e: Evaluation): string {
  return [
    `| ${HEADER.join(' | ')} |`,
    `| --- | ${HEADER.slice(1).map(() => '---:').join(' | ')} |`,
    ...rows(e).map((r) => `| \`${r[0]}\` | ${r.slice(1).join(' | ')} |`),
  ].join('\n');
}

function who(actors: Array<{ username: string }>): string {
  const names = [...new Set(actors.map((a) => a.username))];
  return names.length > 3 ? `${names.slice(0, 3).join(', ')} (+${names.length - 3})` : names.join(', ');
}

function objectText(o: { apiGroup: string; resource: string; namespace: string; name: string; subresource: string } | null): string {
  if (!o) return '(fleet-wide)';
  return `${o.resource}${o.apiGroup ? `.${o.apiGroup}` : ''}${o.subresource ? `/${o.subresource}` : ''} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

function expectedText(x: ExpectedFinding): string {
  return `${x.kind} by ${who(x.actors)} on ${objectText(x.object)} (${x.writes} writes, ${x.conflicts} conflicts, ${x.alreadyExists} AlreadyExists, ${x.throttled} 429s, ${x.noOps} no-ops, ${x.objects} objects)`;
}

function findingText(f: Finding): string {
  return `${f.kind} by ${who(f.actors)} on ${objectText(f.object)}: ${f.title}`;
}

/** One line per miss and false positive, grouped by case and seed; empty when there are none. */
export function details(e: Evaluation): string {
  const out: string[] = [];
  for (const r of e.cases) {
    if (r.missed.length === 0 && r.falsePositives.length === 0 && r.inconsistent.length === 0) continue;
    out.push(`${r.case} (seed ${r.seed}):`);
    for (const m of r.missed) out.push(`  missed          ${expectedText(m)}`);
    for (const { finding, benign } of r.falsePositives) out.push(`  false positive  ${findingText(finding)}${benign ? ` [on benign ${benign.scenario}]` : ''}`);
    for (const { finding, problems } of r.inconsistent) out.push(`  inconsistent    ${findingText(finding)}: ${problems.join('; ')}`);
  }
  return out.join('\n');
}

/** Summary line: cases, seeds, benign entries, runtime. */
export function summary(e: Evaluation): string {
  const caseCount = new Set(e.cases.map((c) => c.case)).size;
  return `${caseCount} cases × seeds ${e.seeds.join(', ')} = ${e.cases.length} logs; ${e.benign.entries} benign patterns planted, ${e.benign.falsePositives} findings on them; ${e.inconsistent} findings with inconsistent metrics; ${(e.ms / 1000).toFixed(1)} s`;
}
