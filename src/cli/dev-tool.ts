/**
 * What the developer tools (`generate.ts`, `eval.ts`) share: strict flag parsing that answers
 * `--help` and bad flags the same way, and knowing whether a module is the script being run.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The flag every tool has: `-h/--help`. */
export const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Parse `argv` strictly with `options` (which include {@link HELP}). On a bad flag, writes the
 * error and `usage` to stderr and returns exit code 2; on `--help`, writes `help()` to stdout and
 * returns 0; otherwise returns the parsed values.
 */
export function parseToolArgs<O extends Options>(
  argv: string[],
  options: O,
  usage: string,
  help: () => string = () => usage,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true }>>['values'] | number {
  try {
    const { values } = parseArgs({ args: argv, options, strict: true });
    if ((values as { help?: boolean }).help) {
      process.stdout.write(`${help()}\n`);
      return 0;
    }
    return values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}\n`);
    return 2;
  }
}

/** True when the module at `moduleUrl` (`import.meta.url`) is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(moduleUrl);
}
