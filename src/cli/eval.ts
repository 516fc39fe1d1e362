/**
 * Evaluation CLI (`npm run eval`). Two parts:
 * - the generator cases (src/eval/evaluate.ts) for seeds 1, 2, 3 (names randomized from seed 2 on);
 * - the simulated incidents and benign look-alikes (src/sim/), scored separately on the TUNING set
 *   (seeds 1–2, name pool A, middle of every parameter range) and the HELD-OUT set (seeds 101–102,
 *   pool B, outer parts of the ranges). HELD-OUT is the figure the README reports.
 * It prints each part's per-kind table (precision and recall), a summary line (benign cases and
 * findings on them, inconsistent findings), then every miss and false positive (case, seed, kind,
 * actors, object). Runtimes go to stderr, so stdout is the same on every run.
 *
 *   node dist/cli/eval.js [--seeds 1,2,3] [--case NAME]... [--sim-only] [--generator-only]
 *                         [--scenario NAME]... [--set tuning|held-out|both] [--jobs N]
 *                         [--format text|markdown|json] [--quiet]
 *
 * `--case` alone runs only those generator cases; `--scenario` alone only those simulated
 * scenarios (give both to run both). Exit codes: 0 no miss, no false positive and no inconsistent
 * finding, 1 otherwise, 2 bad usage.
 */
import { availableParallelism } from 'node:os';
import { HELP, isMain, parseToolArgs } from './dev-tool.js';
import { defaultCases, evaluate, type Evaluation } from '../eval/evaluate.js';
import { details, markdownTable, problemRecords, stableSummary, textTable } from '../eval/format.js';
import { ALL_SCENARIOS } from '../sim/all.js';
import { evaluateSim, HELD_OUT, TUNING, type SimCaseResult, type SimEvaluation, type SimSet } from '../sim/evaluate.js';
import { SimPool } from '../sim/pool.js';

const USAGE =
  'Usage: node dist/cli/eval.js [--seeds 1,2,3] [--case NAME]... [--sim-only] [--generator-only] [--scenario NAME]... [--set tuning|held-out|both] [--jobs N] [--format text|markdown|json] [--quiet]';

function describeSet(s: SimSet): string {
  return `seeds ${s.seeds.join(', ')}; name pool ${s.name === 'tuning' ? 'A' : 'B'}; ${s.part === 'middle' ? 'middle half' : 'outer quarters'} of every parameter range`;
}

/** Run the CLI with `argv`; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const args = parseToolArgs(
    argv,
    {
      seeds: { type: 'string', default: '1,2,3' },
      case: { type: 'string', multiple: true },
      scenario: { type: 'string', multiple: true },
      'sim-only': { type: 'boolean' },
      'generator-only': { type: 'boolean' },
      set: { type: 'string', default: 'both' },
      jobs: { type: 'string' },
      format: { type: 'string', default: 'text' },
      quiet: { type: 'boolean', short: 'q' },
      ...HELP,
    },
    USAGE,
    () =>
      `${USAGE}\nCases: ${defaultCases()
        .map((c) => c.name)
        .join(', ')}\nScenarios: ${ALL_SCENARIOS.map((s) => s.name).join(', ')}`,
  );
  if (typeof args === 'number') return args;
  const seeds = args.seeds.split(',').map(Number);
  if (seeds.some((s) => !Number.isSafeInteger(s))) return usage(`--seeds must be integers, got ${args.seeds}`);
  if (!['text', 'markdown', 'json'].includes(args.format)) return usage(`--format must be text, markdown or json, got ${args.format}`);
  if (!['tuning', 'held-out', 'both'].includes(args.set)) return usage(`--set must be tuning, held-out or both, got ${args.set}`);
  if (args['sim-only'] && args['generator-only']) return usage('--sim-only and --generator-only exclude each other');
  const jobs = args.jobs === undefined ? Math.min(2, availableParallelism()) : Number(args.jobs);
  if (!Number.isSafeInteger(jobs) || jobs < 1) return usage(`--jobs must be a positive integer, got ${args.jobs}`);

  let cases = defaultCases();
  if (args.case) {
    const unknown = args.case.filter((n) => !cases.some((c) => c.name === n));
    if (unknown.length > 0) return usage(`unknown case ${unknown.join(', ')}; known: ${cases.map((c) => c.name).join(', ')}`);
    cases = cases.filter((c) => args.case?.includes(c.name));
  }
  let scenarios = ALL_SCENARIOS;
  if (args.scenario) {
    const unknown = args.scenario.filter((n) => !scenarios.some((c) => c.name === n));
    if (unknown.length > 0) return usage(`unknown scenario ${unknown.join(', ')}; known: ${scenarios.map((c) => c.name).join(', ')}`);
    scenarios = scenarios.filter((c) => args.scenario?.includes(c.name));
  }
  const runGenerator = !args['sim-only'] && (args.case !== undefined || args.scenario === undefined);
  const runSim = !args['generator-only'] && (args.scenario !== undefined || args.case === undefined);
  const sets = args.set === 'both' ? [TUNING, HELD_OUT] : args.set === 'tuning' ? [TUNING] : [HELD_OUT];

  const progress = !args.quiet && process.stderr.isTTY;
  const tick = (r: { case: string; seed: number; findings: unknown[]; ms: number }) => {
    if (progress) process.stderr.write(`\r\x1b[K${r.case} seed ${r.seed}: ${r.findings.length} findings, ${(r.ms / 1000).toFixed(1)} s`);
  };
  const parts: Array<{ title: string; e: Evaluation | SimEvaluation }> = [];
  if (runGenerator) {
    const e = await evaluate(cases, seeds, { onResult: tick });
    parts.push({ title: `Generator cases (seeds ${seeds.join(', ')})`, e });
  }
  if (runSim) {
    const pool = jobs > 1 ? new SimPool(jobs) : undefined;
    try {
      for (const set of sets) {
        const e = await evaluateSim(set, scenarios, { onResult: tick, concurrency: jobs, ...(pool ? { run: (n, s, seed) => pool.run(n, s, seed) } : {}) });
        parts.push({ title: `Simulated incidents, ${set.name === 'tuning' ? 'TUNING' : 'HELD-OUT (the figure the README reports)'}: ${describeSet(set)}`, e });
      }
    } finally {
      await pool?.close();
    }
  }
  if (progress) process.stderr.write('\r\x1b[K');
  if (!args.quiet) for (const p of parts) process.stderr.write(`${p.title.split(':')[0]}: ${(p.e.ms / 1000).toFixed(1)} s\n`);

  if (args.format === 'json') {
    const out = parts.map(({ title, e }) => ({
      title,
      seeds: e.seeds,
      kinds: e.kinds,
      benign: e.benign,
      inconsistent: e.inconsistent,
      ...('outOfReach' in e ? { outOfReach: e.outOfReach } : {}),
      problems: problemRecords(e),
    }));
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    const blocks: string[] = [];
    for (const { title, e } of parts) {
      const table = args.format === 'markdown' ? markdownTable(e) : textTable(e);
      const problems = details(e);
      const reach = 'outOfReach' in e ? outOfReachText(e) : '';
      blocks.push(`== ${title} ==\n${table}\n\n${stableSummary(e)}\n${reach}${problems ? `\nMisses and false positives:\n${problems}\n` : ''}`);
    }
    process.stdout.write(`${blocks.join('\n')}`);
  }
  return parts.some(({ e }) => e.inconsistent > 0 || e.kinds.some((k) => k.missed > 0 || k.falsePositives > 0)) ? 1 : 0;
}

/** The expectations the logs could not support, scored apart: how many, found anyway, and each with its reason (empty when none). */
function outOfReachText(e: SimEvaluation): string {
  if (e.outOfReach.entries === 0) return '';
  const lines = (e.cases as SimCaseResult[]).flatMap((r) =>
    r.outOfReach.map((x) => `  ${r.case} (seed ${r.seed}): ${x.kind}${r.outOfReachFound.includes(x) ? ' (found anyway)' : ''}: ${x.why}`),
  );
  return `${e.outOfReach.entries} expectations out of the logs' reach, scored apart (found anyway: ${e.outOfReach.found}):\n${lines.join('\n')}\n`;
}

function usage(message: string): number {
  process.stderr.write(`${message}\n${USAGE}\n`);
  return 2;
}

if (isMain(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
