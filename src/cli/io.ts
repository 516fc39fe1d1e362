/**
 * What the command line needs from the outside world ({@link CliIO}): `src/cli/main.ts` builds
 * the real one from `process`, tests inject streams, the environment, terminal facts and the clock.
 */
import type { AnalyzeIO } from '../analyze.js';
import type { AnalyzeOptionsInput } from '../options.js';
import type { Report } from '../report/schema.js';
import type { ReadFileFn } from './options.js';

/** The analysis entry point, as `main` calls it (the real one is `analyze` in `src/analyze.ts`). */
export type AnalyzeFn = (options: AnalyzeOptionsInput, io?: AnalyzeIO) => Promise<Report>;

/** A writable stream as `main` uses it: `write` with a callback, and `error` events. */
export type CliWritable = NodeJS.WritableStream;

/** Everything `main` needs from the outside world. */
export interface CliIO {
  /** Read when no path or `-` is given. */
  stdin: NodeJS.ReadableStream;
  stdout: CliWritable;
  stderr: CliWritable;
  env: Readonly<Record<string, string | undefined>>;
  /** Which of the standard streams are terminals. */
  isTTY: { stdin: boolean; stdout: boolean; stderr: boolean };
  /** Terminal widths in columns, when they are terminals. */
  columns?: { stdout?: number; stderr?: number };
  /** Clock for the report's `generatedAt`. */
  now: () => Date;
  /** Replaces the real `analyze` (tests). */
  analyze?: AnalyzeFn;
  /** Replaces reading the `--config` file (tests). */
  readFile?: ReadFileFn;
  /**
   * `watch` / `serve`: calls `handler` on SIGINT or SIGTERM until the returned function is called.
   * Absent: no signals (tests stop runs by ending stdin).
   */
  onSignal?: (handler: () => void) => () => void;
  /** `serve`: resident memory in bytes, for `/metrics`. */
  residentMemory?: () => number;
  /**
   * The program's name in help and hints: `auditstorm`, or `kubectl auditstorm` when run as the
   * kubectl plugin `kubectl-auditstorm` (see {@link programName}). Default `auditstorm`.
   */
  program?: string;
  /** Whether the native line scanner is built and in use (default: as `src/decoding/native.ts` loaded it). */
  nativeScanner?: boolean;
}

/**
 * A command's help text with the program named as `program` (see {@link CliIO.program}):
 * `auditstorm crd FILE` reads `kubectl auditstorm crd FILE` for the kubectl plugin. Only the word
 * followed by a space is the program (`# auditstorm-scrape-time:` stays).
 */
export function helpFor(text: string, program: string | undefined): string {
  return program === undefined || program === 'auditstorm' ? text : text.replace(/(?<![\w-]|kubectl )auditstorm(?= )/g, program);
}
