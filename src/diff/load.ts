/**
 * Telling a JSON report from an audit log, and reading a report back: pure functions over text
 * the CLI has read (`src/cli/diff.ts` does the I/O).
 */
import { InputError } from '../errors.js';
import { ReportSchema, SCHEMA_VERSION, type Report } from '../report/schema.js';

/**
 * Whether the first bytes of a file are an auditstorm JSON report (`--format json`): a JSON
 * object whose first member is `schemaVersion` (the report's first key; no audit Event,
 * EventList or cloud wrapper has one). Gzip and anything else is treated as a log.
 *
 * @param head the file's first bytes (64 KB is plenty)
 */
export function looksLikeReport(head: Uint8Array): boolean {
  if (head[0] === 0x1f && head[1] === 0x8b) return false;
  const s = Buffer.from(head.subarray(0, 4096))
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  return /^\s*\{\s*"schemaVersion"\s*:/.test(s);
}

/**
 * Read a JSON report back.
 *
 * @param name the file, as named in error messages
 * @param text the file's content
 * @returns the validated report
 * @throws InputError naming the file when the text is not JSON, has another `schemaVersion`, or
 *   does not match the report schema (the first three problems, with their paths)
 */
export function parseReport(name: string, text: string): Report {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new InputError(`${name}: looks like an auditstorm JSON report but is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const version = (value as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (version !== SCHEMA_VERSION) {
    throw new InputError(
      `${name}: auditstorm report with schemaVersion ${JSON.stringify(version)}; this version reads schemaVersion ${SCHEMA_VERSION}`,
      'analyze the logs again with this version, or give the logs themselves',
    );
  }
  const parsed = ReportSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`);
    throw new InputError(`${name}: not a valid auditstorm report (${problems.join('; ')}${parsed.error.issues.length > 3 ? '; …' : ''})`);
  }
  return parsed.data;
}
