/**
 * The command line: argv in, exit code out. The only module that touches `process` (through
 * {@link processIO}); everything else takes a {@link CliIO} so tests can inject streams, the
 * environment, terminal facts, the clock and even `analyze`.
 *
 * Exit codes: 0 success; 1 a finding at or above `--fail-on`; 2 usage, config, input or
 * output-file error (message on stderr as `auditstorm: …` plus an optional `hint: …` line).
 */
import { stat } from 'node:fs/promises';
import { isatty } from 'node:tty';
import type { AnalyzeIO } from '../analyze.js';
import { AuditstormError, describeFsError, UsageError } from '../errors.js';
import type { Report } from '../report/schema.js';
import { VERSION } from '../version.js';
import { stripControlChars } from '../report/escape.js';
import { DETECTORS } from '../detectors/registry.js';
import { AnalyzeOptionsSchema, LIVE_REORDER_WINDOW_MS } from '../options.js';
import { parseArgs, type HelpDefaults } from './args.js';
import type { AnalyzeFn, CliIO, CliWritable } from './io.js';
import { formatDuration } from '../duration.js';
import { CONFLICT_STORM, createOptions } from './options.js';
import { checkOutDirs, exitCodeFor, warningsFor, withCodes, writeOutputs, type Guarded } from './output.js';
import { createProgressLine, type ProgressLine } from './progress.js';

/**
 * The name to show for the executable at `argv1` (`process.argv[1]`): `kubectl auditstorm` when
 * kubectl runs it as a plugin (an executable named `kubectl-auditstorm` on the PATH), else
 * `auditstorm`.
 */
export function programName(argv1: string | undefined): string {
  const base = (argv1 ?? '').split(/[\\/]/).pop() ?? '';
  return /^kubectl-auditstorm(\.js|\.exe)?$/.test(base) ? 'kubectl auditstorm' : 'auditstorm';
}

/**
 * The real process: `process.stdin/stdout/stderr`, `process.env`, `isatty(0/1/2)`, wall clock.
 * `stdin` is only touched when the analysis reads it.
 */
export function processIO(): CliIO {
  return {
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    isTTY: { stdin: isatty(0), stdout: isatty(1), stderr: isatty(2) },
    // `columns` is 0 or undefined when the size is unknown.
    columns: { stdout: process.stdout.columns || undefined, stderr: process.stderr.columns || undefined },
    now: () => new Date(),
    onSignal: (handler) => {
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    },
    residentMemory: () => process.memoryUsage.rss(),
    program: programName(process.argv[1]),
  };
}

const COMMANDS = ['analyze', 'watch', 'serve', 'diff', 'metrics', 'objects', 'crd', 'publish', 'worker', 'report', 'completion', 'help'] as const;

/** Edit distance (insertions, deletions, substitutions) of two short words. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The command a bare first word (no `/`, no `.`) is a typo of, if it is within 2 edits of one. */
export function commandTypo(word: string | undefined): string | null {
  if (word === undefined || word === '-' || /[/.]/.test(word) || word.length < 3) return null;
  let best: string | null = null;
  let bestD = 3;
  for (const c of COMMANDS) {
    const d = editDistance(word.toLowerCase(), c);
    if (d < bestD && d > 0) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Run the command line.
 *
 * @param argv arguments after the program name (`process.argv.slice(2)`)
 * @param io the outside world (default: the real process)
 * @returns the exit code: 0 success, 1 a finding at or above `--fail-on`, 2 user error
 *   (usage, config, input, an `--out` file that cannot be written). Internal errors (bugs)
 *   are printed with their stack and also give 2. Never rejects for those; a closed stdout
 *   (`| head`) just stops the writing.
 */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const out = guard(io.stdout);
  const err = guard(io.stderr);
  const program = io.program ?? 'auditstorm';
  let progress: ProgressLine | undefined;
  try {
    if (argv[0] === 'publish' || argv[0] === 'worker' || argv[0] === 'report' || (argv[0] === 'serve' && argv.some((a) => a === '--nats' || a.startsWith('--nats=')))) {
      // The fleet commands on NATS JetStream (src/fleet/) have a grammar of their own.
      const { runFleet } = await import('./fleet.js');
      return await runFleet(argv, io, out, err);
    }
    if (argv[0] === 'diff') {
      // `diff` has a grammar of its own (two inputs, --tolerance) over the analysis flags.
      const { runDiff } = await import('./diff.js');
      return await runDiff(argv.slice(1), io, out, err);
    }
    if (argv[0] === 'metrics') {
      // `metrics` reads Prometheus scrapes, not audit logs: its own flags (`src/cli/metrics.ts`).
      const { runMetrics } = await import('./metrics.js');
      return await runMetrics(argv.slice(1), io, out, err);
    }
    if (argv[0] === 'objects' || argv[0] === 'crd') {
      // Object captures and CRDs, not audit logs: a grammar of their own (src/cli/status.ts).
      const { runStatus } = await import('./status.js');
      return await runStatus(argv[0], argv.slice(1), io, out, err);
    }
    const width = io.isTTY.stdout ? (io.columns?.stdout ?? 80) : 80;
    const version = argv.includes('--version') ? versionText(await nativeInUse(io)) : VERSION;
    const parsed = await parseArgs(argv, version, width, helpDefaults(), { program, ...(io.env.SHELL !== undefined ? { shell: io.env.SHELL } : {}) });
    if (parsed.kind === 'print') {
      await out.write(parsed.text);
      return 0;
    }
    const typo = commandTypo(parsed.args.paths[0]);
    if (typo !== null && !(await exists(parsed.args.paths[0]!))) {
      throw new UsageError(
        `"${parsed.args.paths[0]}" is neither a file nor a command`,
        `did you mean \`${program} ${typo}\`? (commands: ${COMMANDS.map((c) => (c === 'analyze' ? 'analyze, the default' : c)).join(', ')})`,
      );
    }
    if (!parsed.args.quiet && !(await nativeInUse(io))) {
      const { nativeNoteOnce } = await import('./native-note.js');
      const note = await nativeNoteOnce(io.env, VERSION);
      if (note !== null) await err.write(note);
    }
    if (parsed.args.command === 'watch' || parsed.args.command === 'serve') {
      const { runLive } = await import('./live.js');
      return await runLive(parsed.args, io, out, err);
    }
    const { analyze: analyzeOptions, output } = await createOptions(parsed.args, io.readFile, {
      term: { stdoutIsTTY: io.isTTY.stdout, stderrIsTTY: io.isTTY.stderr, env: io.env },
    });
    const inputs = analyzeOptions.inputs ?? [];
    const readsStdin = inputs.length === 0 || inputs.includes('-');
    if (readsStdin && parsed.args.objects === '-') {
      throw new UsageError('--objects -: stdin is already the audit log', 'save the kubectl get output to a file and give --objects FILE');
    }
    if (readsStdin && io.isTTY.stdin) {
      throw new UsageError(
        inputs.length === 0 ? 'no input: give audit log files or directories, or pipe a log into stdin' : 'stdin ("-") is a terminal, not an audit log',
        'e.g. auditstorm /var/log/kubernetes/audit.log, or zcat audit.log.gz | auditstorm',
      );
    }
    await checkOutDirs(output.outs.map((o) => o.path));

    if (output.progress) progress = createProgressLine(io.stderr, { columns: io.columns?.stderr ?? 80 });
    const analyze: AnalyzeFn = io.analyze ?? (await import('../analyze.js')).analyze;
    // stdin only when it is an input: touching `process.stdin` sets up a handle for nothing.
    const analyzeIO: AnalyzeIO = readsStdin ? { stdin: io.stdin, now: io.now } : { now: io.now };
    if (progress) analyzeIO.onProgress = progress.update.bind(progress);
    let report = await analyze(analyzeOptions, analyzeIO);
    progress?.done();
    if (parsed.args.objects !== undefined) report = await withObjects(report, parsed.args.objects, err, output.quiet, io);
    for (const w of warningsFor(report)) await err.write(`auditstorm: warning: ${w}\n`);
    const shown = await withCodes(report, output, err);
    await writeOutputs(shown, output, out, err, io);
    return exitCodeFor(shown, output.failOn);
  } catch (e) {
    progress?.done();
    await err.write(describeError(e, program));
    return 2;
  }
}

/**
 * `analyze --objects FILE`: storm findings on objects in the capture get what the object showed
 * (`src/status/report.ts` joinObjects). FILE `-` is stdin (the log then comes from files).
 * @throws InputError when FILE cannot be read or parsed; UsageError when `-` is a terminal.
 */
async function withObjects(report: Report, path: string, err: Guarded, quiet: boolean, io: CliIO): Promise<Report> {
  const { readFile } = await import('node:fs/promises');
  const { InputError } = await import('../errors.js');
  let buf: Buffer;
  if (path === '-') {
    if (io.isTTY.stdin) throw new UsageError('--objects -: stdin is a terminal', 'pipe kubectl get <kind> -A -o json into it, or give a file');
    const chunks: Buffer[] = [];
    for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
    buf = Buffer.concat(chunks);
  } else {
    try {
      buf = await readFile(path);
    } catch (e) {
      throw new InputError(`--objects ${path}: cannot read: ${describeFsError(e)}`);
    }
  }
  const { joinObjects } = await import('../status/report.js');
  const { decodeInput } = await import('../status/input.js');
  let r: ReturnType<typeof joinObjects>;
  try {
    r = joinObjects(report, { name: path, text: decodeInput(buf, path), bytes: buf.length, kind: path === '-' ? 'stdin' : 'file' });
  } catch (e) {
    // The capture's messages name it by path (path:line:column); say which flag gave it.
    if (e instanceof InputError) throw new InputError(`--objects ${e.message}`, e.hint, { cause: e });
    throw e;
  }
  if (r.joined === 0 && !quiet) await err.write(`auditstorm: warning: --objects ${path}: no storm finding is about an object in it\n`);
  return r.report;
}

/** Defaults for `--help`, from the core options schema and the conflict-storm detector schema. */
function helpDefaults(): HelpDefaults {
  const core = AnalyzeOptionsSchema.parse({});
  const d: HelpDefaults = {
    top: core.top,
    maxLineLength: core.maxLineLength,
    reorderWindow: formatDuration(core.reorderWindowMs),
    liveReorderWindow: formatDuration(LIVE_REORDER_WINDOW_MS),
  };
  const cs = DETECTORS.find((x) => x.meta.id === CONFLICT_STORM)?.meta.optionsSchema.safeParse({});
  if (cs?.success) {
    const o = cs.data as Partial<Record<'windowMs' | 'stepMs' | 'minConflicts' | 'minConflictRatio', unknown>>;
    if (typeof o.windowMs === 'number') d.window = formatDuration(o.windowMs);
    if (typeof o.stepMs === 'number') d.step = formatDuration(o.stepMs);
    if (typeof o.minConflicts === 'number') d.minConflicts = o.minConflicts;
    if (typeof o.minConflictRatio === 'number') d.minConflictRatio = o.minConflictRatio;
  }
  return d;
}

/** `0.1.0 (native line scanner: in use)`, or that it was not built. */
export function versionText(native: boolean): string {
  return `${VERSION} (native line scanner: ${native ? 'in use' : 'not built; every line is read in JavaScript: same results, slower'})`;
}

/** Whether the native line scanner is in use: `io.nativeScanner`, else whether `src/decoding/native.ts` loaded it. */
async function nativeInUse(io: CliIO): Promise<boolean> {
  if (io.nativeScanner !== undefined) return io.nativeScanner;
  return (await import('../decoding/native.js')).nativeScanner !== null;
}

/**
 * `auditstorm: <message>` plus `hint: …` for user errors; the stack for bugs. As a kubectl
 * plugin, the commands named in messages and hints read `kubectl auditstorm …`.
 */
function describeError(e: unknown, program = 'auditstorm'): string {
  if (e instanceof AuditstormError) {
    const named = (t: string): string =>
      program === 'auditstorm' ? t : t.replace(/(?<!kubectl )`auditstorm(?=[ `])|(?<=(?:e\.g\.|\|) )auditstorm(?= )/g, (m) => m.replace('auditstorm', program));
    // Messages quote input (a JSON parser's excerpt, a bad line): no ESC or BEL reaches the terminal.
    const clean = (t: string): string => t.split('\n').map(stripControlChars).join('\n');
    return `auditstorm: ${clean(named(e.message))}\n${e.hint ? `hint: ${clean(named(e.hint))}\n` : ''}`;
  }
  // A file system error that escaped the core still names a path the user gave: not a bug.
  const fsErr = e as { code?: unknown; path?: unknown } | null;
  if (fsErr && typeof fsErr.path === 'string' && ['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'ENOTDIR'].includes(String(fsErr.code))) {
    return `auditstorm: ${fsErr.path}: ${describeFsError(e)}\n`;
  }
  const detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
  return `auditstorm: internal error: ${detail}\nhint: this is a bug in auditstorm; please report it with the command line used\n`;
}

/**
 * Guard a stream against EPIPE and friends (`auditstorm … | head`): on the first error the
 * stream is considered closed and later writes are dropped; no error surfaces, no stack trace.
 */
function guard(stream: CliWritable): Guarded {
  let broken = false;
  stream.on('error', () => {
    broken = true;
  });
  return {
    write(text) {
      if (broken || text === '') return Promise.resolve();
      return new Promise<void>((resolveWrite) => {
        try {
          stream.write(text, (e?: Error | null) => {
            if (e) broken = true;
            resolveWrite();
          });
        } catch {
          broken = true;
          resolveWrite();
        }
      });
    },
  };
}
