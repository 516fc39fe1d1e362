/**
 * `auditstorm diff BEFORE AFTER`: compare two runs. Each input is a JSON report
 * (`--format json`) or audit logs (a file or directory, analyzed here with the same options as
 * `analyze` would use: filters, detection flags, `--config`); mixed is fine. The comparison
 * itself is `diffReports` (`src/diff/diff.ts`), the output `renderDiff`.
 *
 * Flags: every analysis flag (they apply to log inputs), `--format`, `-o/--out`, `--fail-on`,
 * `--no-color`, `--quiet`, and `--tolerance` (`20%` or `0.2`, default 20 %).
 * Exit codes: 0 done; 1 a `new` or `worse` finding at or above `--fail-on`; 2 usage or input
 * error (an input that is neither a report nor a log, unreadable, or a schema-invalid report:
 * the message names the file).
 */
import { open, stat, writeFile } from 'node:fs/promises';
import { AuditstormError, describeFsError, InputError, UsageError } from '../errors.js';
import type { AnalyzeOptionsInput } from '../options.js';
import { DEFAULT_TOLERANCE, diffFails, diffReports, type DiffInput } from '../diff/diff.js';
import { looksLikeReport, parseReport } from '../diff/load.js';
import type { DiffReport } from '../diff/schema.js';
import { VERSION } from '../version.js';
import { parseArgs } from './args.js';
import { helpFor, type CliIO } from './io.js';
import { checkOutDirs, type Guarded } from './output.js';
import { createOptions, type OutputOptions } from './options.js';

/** `auditstorm diff --help`. */
export const DIFF_HELP = `auditstorm diff BEFORE AFTER [options]

Compare two runs: did a fix make the storm go away, and did nothing new appear?
BEFORE and AFTER are JSON reports (auditstorm --format json) or audit logs (files or
directories, analyzed with the options given here); mixed is fine.

Findings are matched by kind, actor (service account, username, userAgent product) and object,
never by auditIDs or times. Each is fixed, new, better, same or worse, judged on rates per
second (or per hour) of each run's duration.

Options:
  --tolerance T     Relative change counted as the same: 20% or 0.2 (default 20%)
  --fail-on SEV     Exit 1 when a new or worse finding has this severity or higher
  --format F        text, json, markdown or html on stdout (default text)
  -o, --out FILE    Also write the diff to FILE (.txt, .json, .md, .html; repeatable)
  --no-color, -q/--quiet, and every analysis flag of \`auditstorm --help\` (for log inputs)

Examples:
  auditstorm diff before.json after.log --fail-on high
  auditstorm diff before.log.gz after.log.gz -o diff.html -o diff.md

Exit codes: 0 done, 1 a new or worse finding at or above --fail-on, 2 usage or input error.
`;

/**
 * `--tolerance` text as a ratio: `20%` → 0.2, `0.2` → 0.2.
 * @throws UsageError for anything else, or a value outside [0, 100 %)
 */
export function parseTolerance(s: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(s);
  const v = m ? Number(m[1]) / (m[2] === '%' ? 100 : 1) : NaN;
  if (!(v >= 0 && v < 1) || (m?.[2] !== '%' && Number(m?.[1]) >= 1)) {
    throw new UsageError(`--tolerance: expected a share such as 20% or 0.2, got "${s}"`, 'run `auditstorm diff --help` for usage');
  }
  return v;
}

/** Split `--tolerance X` / `--tolerance=X` out of argv. */
function takeTolerance(argv: readonly string[]): { rest: string[]; tolerance: number } {
  const rest: string[] = [];
  let tolerance = DEFAULT_TOLERANCE;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '--tolerance') {
      const v = argv[i + 1];
      if (v === undefined) throw new UsageError('--tolerance: needs a value such as 20%', 'run `auditstorm diff --help` for usage');
      tolerance = parseTolerance(v);
      i++;
    } else if (a.startsWith('--tolerance=')) {
      tolerance = parseTolerance(a.slice('--tolerance='.length));
    } else {
      rest.push(a);
    }
  }
  return { rest, tolerance };
}

/** Read a file's first bytes. @throws InputError naming the file when it cannot be read. */
async function head(path: string): Promise<Uint8Array> {
  try {
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw new InputError(`${path}: cannot read: ${describeFsError(e)}`);
  }
}

/** One input: a report read back, or logs analyzed with `options`. */
async function loadInput(path: string, options: AnalyzeOptionsInput, io: CliIO): Promise<DiffInput> {
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch (e) {
    throw new InputError(`${path}: cannot read: ${describeFsError(e)}`);
  }
  if (!isDir && looksLikeReport(await head(path))) {
    const { readFile } = await import('node:fs/promises');
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw new InputError(`${path}: cannot read: ${describeFsError(e)}`);
    }
    return { name: path, from: 'report', report: parseReport(path, text) };
  }
  const analyze = io.analyze ?? (await import('../analyze.js')).analyze;
  try {
    return { name: path, from: 'log', report: await analyze({ ...options, inputs: [path] }, { now: io.now }) };
  } catch (e) {
    if (e instanceof AuditstormError) {
      throw new InputError(`${path}: neither an auditstorm JSON report nor an audit log that could be read: ${e.message}`, e.hint);
    }
    throw e;
  }
}

async function writeDiff(diff: DiffReport, output: OutputOptions, out: Guarded, err: Guarded): Promise<void> {
  const { renderDiff } = await import('../diff/render.js');
  for (const o of output.outs) {
    try {
      await writeFile(o.path, renderDiff(diff, o.format));
    } catch (e) {
      throw new UsageError(`--out ${o.path}: cannot write: ${describeFsError(e)}`);
    }
  }
  if (output.stdout) {
    await out.write(renderDiff(diff, output.format));
  } else if (!output.quiet) {
    const c = diff.counts;
    await err.write(`auditstorm: wrote ${output.outs.map((o) => o.path).join(', ')}: ${c.worse} worse, ${c.new} new, ${c.same} same, ${c.better} better, ${c.fixed} fixed\n`);
  }
}

/**
 * Run `auditstorm diff`.
 *
 * @param argv the arguments after `diff`
 * @param io the outside world
 * @param out guarded stdout
 * @param err guarded stderr
 * @returns 0, or 1 when a new or worse finding is at or above `--fail-on`
 * @throws UsageError / InputError / ConfigError (exit 2 in `main`)
 */
export async function runDiff(argv: readonly string[], io: CliIO, out: Guarded, err: Guarded): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    await out.write(helpFor(DIFF_HELP, io.program));
    return 0;
  }
  const { rest, tolerance } = takeTolerance(argv);
  let parsed: Awaited<ReturnType<typeof parseArgs>>;
  try {
    parsed = await parseArgs(rest, VERSION);
  } catch (e) {
    // parseArgs reads the flags as analyze's, and its hint names the analyze help.
    if (e instanceof UsageError && e.hint === 'run `auditstorm --help` for usage') throw new UsageError(e.message, 'run `auditstorm diff --help` for usage', { cause: e });
    throw e;
  }
  if (parsed.kind === 'print') {
    await out.write(parsed.text);
    return 0;
  }
  const args = parsed.args;
  if (args.command !== undefined || args.paths.length !== 2) {
    throw new UsageError(`diff takes two inputs, BEFORE and AFTER (got ${args.paths.length})`, 'e.g. auditstorm diff before.json after.log');
  }
  if (args.paths.includes('-')) throw new UsageError('diff reads files and directories, not stdin ("-")', 'save the log or report to a file first');
  const { analyze: options, output } = await createOptions(args, io.readFile, {
    term: { stdoutIsTTY: io.isTTY.stdout, stderrIsTTY: io.isTTY.stderr, env: io.env },
  });
  await checkOutDirs(output.outs.map((o) => o.path));
  const before = await loadInput(args.paths[0]!, options, io);
  const after = await loadInput(args.paths[1]!, options, io);
  const analysisFlags =
    [args.namespace, args.user, args.resource, args.verb].some((l) => l.length > 0) ||
    [args.since, args.until, args.window, args.step, args.minConflicts, args.minConflictRatio, args.config].some((v) => v !== undefined);
  if (analysisFlags && !output.quiet) {
    for (const [side, input] of [
      ['BEFORE', before],
      ['AFTER', after],
    ] as const) {
      if (input.from === 'report')
        await err.write(`auditstorm: warning: ${side} ${input.name} is a report: analysis options apply to log inputs only; it keeps the settings it was made with\n`);
    }
  }
  const diff = diffReports(before, after, { tolerance, generatedAt: io.now().toISOString(), version: VERSION });
  await writeDiff(diff, output, out, err);
  return diffFails(diff, output.failOn) ? 1 : 0;
}
