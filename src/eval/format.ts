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
    `| --- | ${HEADER.slice(1)
      .map(() => '---:')
      .join(' | ')} |`,
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

/** False positives of one kind by one first actor in one case beyond which the rest are counted, not listed. */
const LISTED_PER_GROUP = 3;

/**
 * One line per miss and false positive, grouped by case and seed; empty when there are none.
 * More than {@link LISTED_PER_GROUP} false positives of one kind by the same first actor in one
 * case (one controller reported once per object) are listed up to that many, then counted.
 */
export function details(e: Evaluation): string {
  const out: string[] = [];
  for (const r of e.cases) {
    if (r.missed.length === 0 && r.falsePositives.length === 0 && r.inconsistent.length === 0) continue;
    out.push(`${r.case} (seed ${r.seed}):`);
    for (const m of r.missed) out.push(`  missed          ${expectedText(m)}`);
    const groups = new Map<string, Array<{ finding: Finding; benign: ExpectedFinding | null }>>();
    for (const x of r.falsePositives) {
      const k = `${x.finding.kind}\u0000${x.finding.actors[0]?.username ?? ''}`;
      const g = groups.get(k);
      if (g) g.push(x);
      else groups.set(k, [x]);
    }
    for (const g of groups.values()) {
      for (const { finding, benign } of g.slice(0, LISTED_PER_GROUP)) out.push(`  false positive  ${findingText(finding)}${benign ? ` [on benign ${benign.scenario}]` : ''}`);
      if (g.length > LISTED_PER_GROUP) out.push(`  false positive  … ${g.length - LISTED_PER_GROUP} more ${g[0]?.finding.kind} by ${who(g[0]?.finding.actors ?? [])}`);
    }
    for (const { finding, problems } of r.inconsistent) out.push(`  inconsistent    ${findingText(finding)}: ${problems.join('; ')}`);
  }
  return out.join('\n');
}

/**
 * Misses, false positives and inconsistent findings as plain records (case, seed, what, kind,
 * actors' usernames, object as `resource[.group][/subresource] [namespace/]name` or null), for
 * JSON output.
 */
export function problemRecords(
  e: Evaluation,
): Array<{ case: string; seed: number; what: 'missed' | 'false positive' | 'inconsistent'; kind: string; actors: string[]; object: string | null; note?: string }> {
  const out: ReturnType<typeof problemRecords> = [];
  const objectOf = (o: Parameters<typeof objectText>[0]) => (o ? objectText(o) : null);
  for (const r of e.cases) {
    for (const m of r.missed)
      out.push({ case: r.case, seed: r.seed, what: 'missed', kind: m.kind, actors: [...new Set(m.actors.map((a) => a.username))], object: objectOf(m.object) });
    for (const { finding } of r.falsePositives)
      out.push({ case: r.case, seed: r.seed, what: 'false positive', kind: finding.kind, actors: finding.actors.map((a) => a.username), object: objectOf(finding.object) });
    for (const { finding, problems } of r.inconsistent)
      out.push({
        case: r.case,
        seed: r.seed,
        what: 'inconsistent',
        kind: finding.kind,
        actors: finding.actors.map((a) => a.username),
        object: objectOf(finding.object),
        note: problems.join('; '),
      });
  }
  return out;
}

/** Summary line without the runtime (deterministic): cases, seeds, logs, benign cases and findings on them, inconsistent findings. */
export function stableSummary(e: Evaluation): string {
  const caseCount = new Set(e.cases.map((c) => c.case)).size;
  return `${caseCount} cases × seeds ${e.seeds.join(', ')} = ${e.cases.length} logs; ${e.benign.entries} benign entries, ${e.benign.falsePositives} findings on them; ${e.inconsistent} findings with inconsistent metrics`;
}
