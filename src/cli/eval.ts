/**
 * Evaluation CLI (`npm run eval`): runs every case for seeds 1, 2, 3 (names randomized from
 * seed 2 on), prints the per-kind table and every miss and false positive.
 *
 *   node dist/cli/eval.js [--seeds 1,2,3] [--case NAME]... [--format text|markdown] [--quiet]
 *
 * Exit codes: 0 no miss and no false positive, 1 otherwise, 2 bad usage.
 */
import { HELP, isMain, parseToolArgs } from './dev-tool.js';
import { defaultCases, evaluate } from '../eval/evaluate.js';
import { details, markdownTable, summary, textTable } from '../eval/format.js';

const USAGE = 'Usage: node dist/cli/eval.js [--seeds 1,2,3] [--case NAME]... [--format text|markdown] [--quiet]';

/** Run the CLI with `argv`; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const args = parseToolArgs(
    argv,
    {
      seeds: { type: 'string', default: '1,2,3' },
      case: { type: 'string', multiple: true },
      format: { type: 'string', default: 'text' },
      quiet: { type: 'boolean', short: 'q' },
      ...HELP,
    },
    USAGE,
    () => `${USAGE}\nCases: ${defaultCases().map((c) => c.name).join(', ')}`,
  );
  if (typeof args === 'number') return args;
  const seeds = args.seeds.split(',').map(Number);
  if (seeds.some((s) => !Number.isSafeInteger(s))) return usage(`--seeds must be integers, got ${args.seeds}`);
  if (args.format !== 'text' && args.format !== 'markdown') return usage(`--format must be text or markdown, got ${args.format}`);
  let cases = defaultCases();
  if (args.case) {
    const unknown = args.case.filter((n) => !cases.some((c) => c.name === n));
    if (unknown.length > 0) return usage(`unknown case ${unknown.join(', ')}; known: ${cases.map((c) => c.name).join(', ')}`);
    cases = cases.filter((c) => args.case?.includes(c.name));
  }
  const progress = !args.quiet && process.stderr.isTTY;
  const e = await evaluate(cases, seeds, {
    onResult: (r) => {
      if (progress) process.stderr.write(`\r\x1b[K${r.case} seed ${r.seed}: ${r.findings.length} findings, ${(r.ms / 1000).toFixed(1)} s`);
    },
  });
  if (progress) process.stderr.write('\r\x1b[K');
  const table = args.format === 'markdown' ? markdownTable(e) : textTable(e);
  const problems = details(e);
  process.stdout.write(`${table}\n\n${summary(e)}\n${problems ? `\n${problems}\n` : ''}`);
  return e.inconsistent > 0 || e.kinds.some((k) => k.missed > 0 || k.falsePositives > 0) ? 1 : 0;
}

function usage(message: string): number {
  process.stderr.write(`${message}\n${USAGE}\n`);
  return 2;
}

if (isMain(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
