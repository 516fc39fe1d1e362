/**
 * The few error classes users see. Each maps to exit code 2 in the CLI; anything else is a bug
 * and is shown with its stack. Messages are complete sentences that say what to do.
 */

/** Base for errors that are the user's input, not a bug. `hint` is an optional next step. */
export class AuditstormError extends Error {
  readonly hint: string | undefined;
  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.hint = hint;
  }
}

/** Bad flags or arguments. */
export class UsageError extends AuditstormError {}

/** A config file that cannot be read or does not validate. */
export class ConfigError extends AuditstormError {}

/** Input that cannot be read (missing path, not an audit log, unreadable gzip). */
export class InputError extends AuditstormError {}

/** A file-system error (`ENOENT`, `EACCES`, …) in words, e.g. `no such file or directory`. */
export function describeFsError(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a parent is not a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links (a symlink loop)';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
