/**
 * Fixture generator CLI.
 *
 *   node dist/cli/generate.js                         rewrite every committed fixture and its truth.json
 *   node dist/cli/generate.js --preset NAME [--seed N] --out PATH [--truth PATH]
 *   node dist/cli/generate.js --list
 *
 * `--out` ending in `.gz` writes gzip; `--out -` writes plain lines to stdout. Paths are relative
 * to the working directory (`npm run fixtures` runs from the repository root). A summary goes to
 * stderr. Exit codes: 0 done, 2 bad usage.
 */
import { HELP, isMain, parseToolArgs } from './dev-tool.js';
import { generateLog, writeLog, writeTruth, type GeneratedLog, type LogSpec } from '../generator/generate.js';
import { PRESETS } from '../generator/presets.js';

const USAGE = `Usage: node dist/cli/generate.js [--preset NAME] [--seed N] [--out PATH|-] [--truth PATH] [--list]
With no arguments, rewrites the committed fixtures (${Object.values(PRESETS)
  .flatMap((p) => (p.fixture ? [p.fixture.log] : []))
  .join(', ')}) and their truth.json.`;

function describe(target: string, log: GeneratedLog, bytes?: number): string {
  const lines = [`${target}: ${log.lineCount} lines, ${log.requestCount} requests (${log.completedCount} completed)${bytes === undefined ? '' : `, ${bytes} bytes`}`];
  for (const t of log.truth.filter((t) => t.conflicts > 0 || t.kind === 'conflict-storm')) {
    lines.push(
      `  ${t.kind.padEnd(14)} ${t.scenario}: ${t.actor.username} → ${t.object.resource}/${t.object.name}${t.object.subresource ? `/${t.object.subresource}` : ''}: ${t.conflicts}/${t.attempts} conflicts, ${t.from} – ${t.to}`,
    );
  }
  return lines.join('\n');
}

async function writeStdout(spec: LogSpec): Promise<GeneratedLog> {
  const log = generateLog(spec);
  for (const line of log.lines) {
    if (!process.stdout.write(line + '\n')) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  return log;
}

/** Run the CLI with `argv` (without `node` and the script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const args = parseToolArgs(
    argv,
    {
      preset: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      truth: { type: 'string' },
      list: { type: 'boolean' },
      ...HELP,
    },
    USAGE,
  );
  if (typeof args === 'number') return args;
  if (args.list) {
    for (const [name, p] of Object.entries(PRESETS)) process.stdout.write(`${name.padEnd(12)} seed ${String(p.seed).padEnd(9)} ${p.description}\n`);
    return 0;
  }
  const usage = (message: string): number => {
    process.stderr.write(`${message}\n${USAGE}\n`);
    return 2;
  };
  const seed = args.seed === undefined ? undefined : Number(args.seed);
  if (seed !== undefined && !Number.isSafeInteger(seed)) return usage(`--seed must be an integer, got ${args.seed}`);

  if (args.out === undefined) {
    if (seed !== undefined || args.truth !== undefined) return usage('--seed and --truth need --out (committed fixtures always use their preset seed)');
    const selected = args.preset === undefined ? Object.values(PRESETS).filter((p) => p.fixture) : [PRESETS[args.preset]];
    for (const preset of selected) {
      if (!preset?.fixture) return usage(`preset ${args.preset} has no committed fixture; give --out`);
      const log = await writeLog(preset.fixture.log, preset.spec(preset.seed));
      await writeTruth(preset.fixture.truth, log.truth);
      process.stderr.write(`${describe(preset.fixture.log, log, log.bytes)}\n`);
    }
    return 0;
  }

  const preset = PRESETS[args.preset ?? 'sample'];
  if (!preset) return usage(`unknown preset ${args.preset}; try --list`);
  const spec = preset.spec(seed ?? preset.seed);
  const log = args.out === '-' ? await writeStdout(spec) : await writeLog(args.out, spec);
  if (args.truth !== undefined) await writeTruth(args.truth, log.truth);
  process.stderr.write(`${describe(args.out === '-' ? 'stdout' : args.out, log, 'bytes' in log ? (log.bytes as number) : undefined)}\n`);
  return 0;
}

if (isMain(import.meta.url)) {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0); // `| head` closed the pipe
    throw err;
  });
  process.exitCode = await main(process.argv.slice(2));
}
