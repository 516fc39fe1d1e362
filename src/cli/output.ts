/**
 * What `analyze`, `watch`/`serve` and `diff` share on the way out: `--out` files, stdout or the
 * summary line, warnings, `--code` and the exit code. A module of its own so that `live.ts` and
 * `diff.ts` do not import `main.ts`, which loads them.
 */
import { stat, writeFile as fsWriteFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { describeFsError, UsageError } from '../errors.js';
import { SEVERITIES, severityRank, type Report, type Severity } from '../report/schema.js';
import type { CliIO } from './io.js';
import type { OutputOptions } from './options.js';

/** Late requests (`input.lateRequests`) that make a warning, when also at least 1 % of the requests. */
const LATE_WARNING_MIN = 100;

/**
 * Things a user must not miss even when the report looks clean: skipped sources, many requests
 * out of order beyond the reorder window, and a run that counted no request at all (an empty
 * file, a filter with a typo).
 */
export function warningsFor(report: Pick<Report, 'input'>): string[] {
  const i = report.input;
  const partial = new Set(i.sources.filter((s) => s.events > 0).map((s) => s.name));
  const out = i.sourceErrors.map((e) => `${partial.has(e.source) ? 'stopped reading' : 'skipped'} ${e.source}: ${e.message}`);
  if (i.lateRequests >= LATE_WARNING_MIN && i.lateRequests * 100 >= i.requests) {
    out.push(
      `${i.lateRequests.toLocaleString('en-US')} of ${i.requests.toLocaleString('en-US')} requests came later than the reorder window and were placed at the stream clock, so rates, peaks and windows around them are wrong: the input looks concatenated or newest-first. Pass rotated files as separate inputs, sort the log by stageTimestamp, or raise --reorder-window`,
    );
  }
  if (i.requests === 0) {
    if (i.skipped.filtered > 0) out.push(`no request matched the filters (${i.skipped.filtered} requests were filtered out)`);
    else if (i.events === 0) out.push('no audit events were read: the input is empty');
    else out.push(`no request was counted: the ${i.events} events read were all RequestReceived/ResponseStarted or duplicates`);
  }
  return out;
}

/**
 * The exit code for a finished report: 1 when a finding (not a note) has severity ≥ `failOn`,
 * else 0.
 *
 * @param report the analysis result
 * @param failOn threshold; undefined means never 1
 */
export function exitCodeFor(report: Pick<Report, 'findings'>, failOn: Severity | undefined): number {
  if (failOn === undefined) return 0;
  const min = severityRank(failOn);
  return report.findings.some((f) => severityRank(f.severity) >= min) ? 1 : 0;
}

/**
 * The one-line summary printed on stderr when the report went only to `--out` files, e.g.
 * `auditstorm: wrote report.json, report.md: 3 findings (1 high, 2 medium) in 12,345 requests`.
 */
export function summaryLine(report: Report, paths: readonly string[]): string {
  const n = report.findings.length;
  const counts = [...SEVERITIES]
    .reverse()
    .map((s) => [s, report.findings.filter((f) => f.severity === s).length] as const)
    .filter(([, c]) => c > 0)
    .map(([s, c]) => `${c} ${s}`);
  const findings = n === 0 ? 'no findings' : `${n} finding${n === 1 ? '' : 's'} (${counts.join(', ')})`;
  return `auditstorm: wrote ${paths.join(', ')}: ${findings} in ${report.input.requests.toLocaleString('en-US')} requests\n`;
}

/** Writes `--out` files, then stdout (or the summary line on stderr). @throws UsageError for an unwritable file. */
export async function writeOutputs(report: Report, output: OutputOptions, out: Guarded, err: Guarded, io: CliIO): Promise<void> {
  const { renderReport } = await import('../report/index.js');
  // Files first: they are what a pipeline keeps even if stdout is closed early.
  for (const o of output.outs) {
    const text = withNewline(renderReport(report, o.format, { color: false }));
    try {
      await fsWriteFile(o.path, text);
    } catch (e) {
      throw new UsageError(`--out ${o.path}: cannot write: ${describeFsError(e)}`);
    }
  }
  if (output.stdout) {
    // A terminal: fit its width. A file or pipe: full identities, prose wrapped at $COLUMNS if set.
    const renderOpts: { color: boolean; width?: number; fit: boolean } = { color: output.color, fit: io.isTTY.stdout };
    const width = io.isTTY.stdout ? io.columns?.stdout : envColumns(io.env);
    if (width !== undefined) renderOpts.width = width;
    await out.write(withNewline(renderReport(report, output.format, renderOpts)));
  } else if (!output.quiet) {
    await err.write(
      summaryLine(
        report,
        output.outs.map((o) => o.path),
      ),
    );
  }
}

/** `$COLUMNS` as a positive integer, or `undefined` when unset or not a number. */
export function envColumns(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const n = Number(env.COLUMNS);
  return env.COLUMNS !== undefined && /^\d+$/.test(env.COLUMNS.trim()) && n > 0 ? n : undefined;
}

/**
 * Fail before a long analysis when an `--out` file could not be written anyway, or is given twice
 * (also under another spelling of the same path, `./x.json`).
 * @throws UsageError naming the `--out` path
 */
export async function checkOutDirs(paths: readonly string[]): Promise<void> {
  const seen = new Set<string>();
  for (const path of paths) {
    if (seen.has(resolve(path))) throw new UsageError(`--out ${path}: given twice`);
    seen.add(resolve(path));
    const dir = dirname(resolve(path));
    let isDir: boolean;
    try {
      isDir = (await stat(dir)).isDirectory();
    } catch (e) {
      const missing = (e as { code?: string }).code === 'ENOENT';
      throw new UsageError(
        missing ? `--out ${path}: directory ${dirname(path)} does not exist` : `--out ${path}: ${describeFsError(e)}`,
        missing ? 'create the directory first; auditstorm does not create directories' : undefined,
      );
    }
    if (!isDir) throw new UsageError(`--out ${path}: ${dirname(path)} is not a directory`);
    try {
      if ((await stat(path)).isDirectory()) throw new UsageError(`--out ${path}: is a directory`);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      // ENOENT: the file does not exist yet, as expected.
    }
  }
}

/**
 * The report as `--code` shows it (`src/report/codes.ts`), and a line on stderr when that hid
 * findings (not with `--quiet`).
 */
export async function withCodes(report: Report, output: Pick<OutputOptions, 'codes' | 'quiet'>, err: Guarded): Promise<Report> {
  if (output.codes.length === 0) return report;
  const { filterByCodes } = await import('../report/codes.js');
  const r = filterByCodes(report, output.codes);
  if (r.hiddenFindings > 0 && !output.quiet) {
    await err.write(`auditstorm: --code ${output.codes.join(',')}: ${r.hiddenFindings} of ${report.findings.length} findings are about other codes and not shown\n`);
  }
  return r.report;
}

function withNewline(s: string): string {
  return s === '' || s.endsWith('\n') ? s : `${s}\n`;
}

/** A stream wrapper whose writes resolve when flushed and become no-ops once the stream broke. */
export interface Guarded {
  write(text: string): Promise<void>;
}
