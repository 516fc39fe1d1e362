/**
 * `auditstorm metrics SCRAPE [SCRAPE2 …]`: what kube-apiserver's `/metrics` shows about requests,
 * 409s, 429s, latency, APF and in-flight requests, and `resource-conflicts` findings
 * (`src/metrics/report.ts`), rendered by the report renderers like any report.
 *
 * Flags: `--interval`, `--config` (its `detectors.resource-conflicts`), `--format`, `-o/--out`,
 * `--fail-on`, `--no-color`, `-q/--quiet`, `-h/--help`.
 * Exit codes: 0 done; 1 a finding at or above `--fail-on`; 2 usage or input error (the message
 * names the file, and the line when one is at fault).
 */
import { parseArgs as parseNodeArgs } from 'node:util';
import { parseDuration } from '../duration.js';
import { ConfigError, UsageError } from '../errors.js';
import { formatFromPath, isFormat, FORMATS, type Format } from '../report/formats.js';
import { SeveritySchema, type Severity } from '../report/schema.js';
import { VERSION } from '../version.js';
import { helpFor, type CliIO } from './io.js';
import { checkOutDirs, exitCodeFor, writeOutputs, type Guarded } from './output.js';
import { formatIssue, loadConfig, useColor, type OutputOptions } from './options.js';

/** `auditstorm metrics --help`. */
export const METRICS_HELP = `auditstorm metrics SCRAPE [SCRAPE2 ...] [options]

Read kube-apiserver metrics scrapes (Prometheus text, as \`kubectl get --raw /metrics\`
prints them; files, .gz, or - for stdin) and report, per group/resource/subresource/verb,
requests, their rate, 409 and 429 shares and latency p50/p90/p99; API Priority and Fairness
rejections, queues and waits per priority level and flow schema; in-flight requests.
A resource whose 409 share of updates or write rate stands out is a resource-conflicts
finding. Metrics cannot name the controller: the finding gives the audit policy rule that
lets \`auditstorm analyze\` name it.

Several scrapes of one API server give rates over the time between them, from a first line
  # auditstorm-scrape-time: 2026-12-05T20:00:00Z
in each (add it when scraping; see Examples) or from --interval. One scrape gives totals
since the API server started. One scrape reaches one API server replica.

Options:
  --interval D      Time between consecutive scrapes, in the order given (e.g. 30s);
                    overrides scrape-time lines
  --config FILE     YAML or JSON config; reads detectors.resource-conflicts (thresholds)
  --fail-on SEV     Exit 1 when a finding has this severity or higher (info, low, medium,
                    high, critical)
  --format F        text, json, markdown or html on stdout (default text)
  -o, --out FILE    Also write the report to FILE (.txt, .json, .md, .html; repeatable)
  --no-color        No ANSI colours
  -q, --quiet       Nothing on stderr but errors
  -h, --help        This help

Examples:
  { echo "# auditstorm-scrape-time: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; kubectl get --raw /metrics; } > m1.txt
  sleep 30; { echo "# auditstorm-scrape-time: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; kubectl get --raw /metrics; } > m2.txt
  auditstorm metrics m1.txt m2.txt --fail-on high
  kubectl get --raw /metrics | auditstorm metrics -
  auditstorm metrics a.txt b.txt --interval 30s -o metrics.html

Exit codes: 0 done, 1 a finding at or above --fail-on, 2 usage or input error.
`;

const usageHint = 'run `auditstorm metrics --help` for usage';

/** The parsed command line of `metrics`. */
export interface MetricsArgs {
  paths: string[];
  intervalMs?: number;
  config?: string;
  output: OutputOptions;
  help: boolean;
}

/**
 * Parse `metrics` arguments (those after the word `metrics`).
 * @throws UsageError for unknown flags, bad values, or no scrape
 */
export function parseMetricsArgs(argv: readonly string[], io: Pick<CliIO, 'isTTY' | 'env'>): MetricsArgs {
  let parsed;
  try {
    parsed = parseNodeArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        interval: { type: 'string' },
        config: { type: 'string' },
        'fail-on': { type: 'string' },
        format: { type: 'string' },
        out: { type: 'string', short: 'o', multiple: true },
        'no-color': { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(`metrics: ${(e as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, '')}`, usageHint);
  }
  const v = parsed.values;
  const paths = parsed.positionals;
  const help = v.help === true;
  let format: Format | undefined;
  if (v.format !== undefined) {
    if (!isFormat(v.format)) throw new UsageError(`--format: expected one of ${FORMATS.join(', ')}, got "${v.format}"`, usageHint);
    format = v.format;
  }
  let failOn: Severity | undefined;
  if (v['fail-on'] !== undefined) {
    const s = SeveritySchema.safeParse(v['fail-on'].toLowerCase());
    if (!s.success) throw new UsageError(`--fail-on: expected one of ${SeveritySchema.options.join(', ')}, got "${v['fail-on']}"`, usageHint);
    failOn = s.data;
  }
  let intervalMs: number | undefined;
  if (v.interval !== undefined) {
    try {
      intervalMs = parseDuration(v.interval, '--interval');
    } catch (e) {
      throw new UsageError((e as Error).message, usageHint);
    }
    if (!(intervalMs > 0)) throw new UsageError(`--interval: must be more than 0, got "${v.interval}"`, usageHint);
  }
  const outs = (v.out ?? []).map((path) => ({ path, format: formatFromPath(path) ?? format ?? 'text' }));
  const quiet = v.quiet === true;
  const output: OutputOptions = {
    format: format ?? 'text',
    // As for analyze: a --format that an -o file with no known extension takes is not for stdout.
    stdout: outs.length === 0 || (format !== undefined && (v.out ?? []).every((path) => formatFromPath(path) !== undefined)),
    outs,
    codes: [],
    color: useColor({ stdoutIsTTY: io.isTTY.stdout, stderrIsTTY: io.isTTY.stderr, env: io.env }, v['no-color'] === true),
    progress: false,
    quiet,
    ...(failOn === undefined ? {} : { failOn }),
  };
  if (!help && paths.length === 0)
    throw new UsageError('metrics needs at least one scrape: a file, a .gz file, or - for stdin', 'e.g. kubectl get --raw /metrics | auditstorm metrics -');
  if (paths.filter((p) => p === '-').length > 1) throw new UsageError('metrics: stdin ("-") can be given once');
  return { paths, output, help, ...(intervalMs === undefined ? {} : { intervalMs }), ...(v.config === undefined ? {} : { config: v.config }) };
}

/**
 * Run `auditstorm metrics`.
 * @param argv the arguments after `metrics`
 * @returns 0, or 1 when a finding is at or above `--fail-on`
 * @throws UsageError / InputError / ConfigError (exit 2 in `main`)
 */
export async function runMetrics(argv: readonly string[], io: CliIO, out: Guarded, err: Guarded): Promise<number> {
  const args = parseMetricsArgs(argv, io);
  if (args.help) {
    await out.write(helpFor(METRICS_HELP, io.program));
    return 0;
  }
  if (args.paths.includes('-') && io.isTTY.stdin) {
    throw new UsageError('stdin ("-") is a terminal, not a metrics scrape', 'e.g. kubectl get --raw /metrics | auditstorm metrics -');
  }
  let resourceConflicts: unknown;
  if (args.config !== undefined) {
    const { RESOURCE_CONFLICTS, resourceConflictsOptions } = await import('../metrics/options.js');
    const config = await loadConfig(args.config, io.readFile);
    const raw = config.detectors?.[RESOURCE_CONFLICTS];
    if (raw !== undefined) {
      const r = resourceConflictsOptions.safeParse(raw);
      if (!r.success) throw new ConfigError(`${args.config}: ${formatIssue(r.error.issues[0]!, ['detectors', RESOURCE_CONFLICTS])}`);
      resourceConflicts = raw;
    }
  }
  await checkOutDirs(args.output.outs.map((o) => o.path));
  const { readScrape } = await import('../metrics/read.js');
  const { buildMetricsReport } = await import('../metrics/report.js');
  const inputs = [];
  for (const p of args.paths) inputs.push(await readScrape(p, io.stdin));
  const report = buildMetricsReport(inputs, {
    now: io.now(),
    version: VERSION,
    ...(args.intervalMs === undefined ? {} : { intervalMs: args.intervalMs }),
    ...(resourceConflicts === undefined ? {} : { resourceConflicts }),
  });
  if (!args.output.quiet) {
    for (const s of report.input.sources) {
      if (s.badLines > 0) await err.write(`auditstorm: warning: ${s.name}: ${s.badLines} malformed line${s.badLines === 1 ? '' : 's'} skipped (see Bad lines in the report)\n`);
    }
  }
  await writeOutputs(report, args.output, out, err, io);
  return exitCodeFor(report, args.output.failOn);
}
