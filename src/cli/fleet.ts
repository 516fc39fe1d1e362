/**
 * The fleet commands on NATS JetStream (see README "Fleet"): `publish`, `worker`, `report`, and
 * `serve --nats`. Each has its own small grammar (node's `parseArgs`); errors are thrown as
 * {@link UsageError} / {@link InputError} for `main` to print (exit 2).
 *
 * - `publish --nats URL --cluster NAME [--partitions N] [--replicas R] [--max-age DUR] PATH... | -`
 * - `worker --nats URL [--id NAME] [--replicas R] [--settle DUR] [--lease DUR]`
 * - `report --nats URL [--cluster NAME] [--format F] [-o FILE]... [--fail-on SEV]`
 * - `serve --nats URL --cluster NAME [--listen HOST:PORT | --host H --port P] [--partitions N] [--replicas R]`
 */
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import type { Readable } from 'node:stream';
import { tryParseDuration } from '../duration.js';
import { describeFsError, UsageError } from '../errors.js';
import { SEVERITIES, type Report, type Severity } from '../report/schema.js';
import { connectFleet, ensureStream, retrying, type FleetLog } from '../fleet/connect.js';
import { checkClusterName } from '../fleet/partition.js';
import type { ClusterReportEntry } from '../fleet/worker.js';
import type { CliIO } from './io.js';
import type { Guarded } from './output.js';
import { exitCodeFor } from './output.js';
import { formatFromPath } from '../report/formats.js';

/** Usage of the fleet commands, printed by `--help` and in usage errors' hints. */
export const FLEET_HELP = `auditstorm fleet commands (NATS JetStream)

  auditstorm publish --nats URL --cluster NAME [--partitions N] [--replicas R] [--max-age 24h] PATH... | -
      Read audit logs (every format analyze reads) and publish each event to the stream AUDITSTORM,
      subject auditstorm.events.<cluster>.<partition>, message ID <cluster>/<auditID>/<stage>.
      Creates the stream when missing (--replicas: 1 on one server, 3 on a cluster; --partitions:
      without it the fleet's count, 16 for a new fleet).
  auditstorm serve --nats URL --cluster NAME [--listen HOST:PORT] [--token T] [--partitions N] [--replicas R]
      The audit webhook as the ingest tier: 200 once JetStream acknowledged the batch, 503 while it is unreachable.
  auditstorm worker --nats URL [--id NAME] [--settle 30s] [--lease 6s] [--replicas R]
      Claim partitions, analyze each cluster, publish alerts (auditstorm.alerts.<cluster>) and reports.
  auditstorm report --nats URL [--cluster NAME] [--format text|json|markdown|html] [-o FILE]... [--fail-on SEV]
      The fleet report (findings carry their cluster), or one cluster's.

URL is one or more nats://host:port, comma-separated.
`;

const MS = (flag: string, v: string | undefined, dflt: number): number => {
  if (v === undefined) return dflt;
  const ms = tryParseDuration(v);
  if (ms === undefined || !(ms >= 0)) throw new UsageError(`${flag} ${v}: expected a duration such as 30s, 5m or 24h`);
  return ms;
};

const INT = (flag: string, v: string | undefined, dflt: number, min = 1): number => {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} ${v}: expected an integer ≥ ${min}`);
  return n;
};

type Options = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>;

function parse(argv: readonly string[], options: Options): { values: Record<string, string | boolean | string[] | boolean[] | undefined>; positionals: string[] } {
  try {
    return parseArgs({ args: [...argv], options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message, 'run `auditstorm publish --help` for the fleet commands');
  }
}

function need(v: unknown, flag: string): string {
  if (typeof v !== 'string' || v === '') throw new UsageError(`${flag} is required`, 'run `auditstorm publish --help` for the fleet commands');
  return v;
}

/**
 * Runs a fleet command; `argv[0]` is the command. Resolves to the exit code (0, or 1 for
 * `report --fail-on`); throws usage and input errors.
 */
export async function runFleet(argv: readonly string[], io: CliIO, out: Guarded, err: Guarded): Promise<number> {
  const log: FleetLog = (line) => void err.write(`auditstorm: ${line}\n`);
  const command = argv[0];
  const rest = argv.slice(1);
  if (rest.includes('--help') || rest.includes('-h')) {
    await out.write(FLEET_HELP);
    return 0;
  }
  if (command === 'publish') return runPublish(rest, io, err, log);
  if (command === 'worker') return runWorker(rest, io, log);
  if (command === 'report') return runReport(rest, io, out, err);
  if (command === 'serve') {
    const { runServeNats } = await import('./fleet-serve.js');
    return runServeNats(rest, io, err, log);
  }
  throw new UsageError(`unknown fleet command ${String(command)}`);
}

async function runPublish(argv: readonly string[], io: CliIO, err: Guarded, log: FleetLog): Promise<number> {
  const { values, positionals } = parse(argv, {
    nats: { type: 'string' },
    cluster: { type: 'string' },
    partitions: { type: 'string' },
    replicas: { type: 'string' },
    'max-age': { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
  });
  const url = need(values.nats, '--nats');
  const cluster = checkClusterName(need(values.cluster, '--cluster'));
  const partitions = values.partitions === undefined ? null : INT('--partitions', values.partitions as string, 1);
  const replicas = INT('--replicas', values.replicas as string | undefined, 1);
  const maxAgeMs = MS('--max-age', values['max-age'] as string | undefined, 24 * 3600_000);
  if ((positionals.length === 0 || positionals.includes('-')) && io.isTTY.stdin) {
    throw new UsageError('no input: give audit log files or directories, or pipe a log into stdin');
  }
  // A server or leader that is away for a while (a node restarting) is waited for, said on stderr.
  const fleet = await connectFleet(url, log, PUBLISH_RETRY_MS);
  try {
    const n = await retrying('publish: setting up the stream', () => ensureStream(fleet, { partitions, replicas, maxAgeMs }), log, PUBLISH_RETRY_MS);
    const { publishInputs } = await import('../fleet/publish.js');
    const { stats, counts } = await publishInputs({ js: fleet.js, cluster, partitions: n, log, retryForMs: PUBLISH_RETRY_MS }, positionals, io.stdin as Readable, {
      maxLineLength: 16 * 1024 * 1024,
      sniffLines: 1000,
      badLineSamples: 20,
    });
    if (values.quiet !== true) {
      const requests = stats.reduce((a, s) => a + s.requests, 0);
      await err.write(
        `auditstorm: published ${counts.published} events (${requests} requests) of cluster ${cluster}; ${counts.duplicates} already in the stream, ${counts.badLines} bad lines, ${counts.unnamed} without auditID\n`,
      );
    }
    return 0;
  } finally {
    await fleet.nc.close();
  }
}

async function runWorker(argv: readonly string[], io: CliIO, log: FleetLog): Promise<number> {
  const { values } = parse(argv, {
    nats: { type: 'string' },
    id: { type: 'string' },
    replicas: { type: 'string' },
    settle: { type: 'string' },
    lease: { type: 'string' },
  });
  const url = need(values.nats, '--nats');
  const { FleetWorker } = await import('../fleet/worker.js');
  const worker = new FleetWorker({
    url,
    id: (values.id as string | undefined) ?? `${hostname()}-${process.pid}`,
    analyze: {},
    replicas: INT('--replicas', values.replicas as string | undefined, 1),
    settleMs: MS('--settle', values.settle as string | undefined, 30_000),
    leaseMs: MS('--lease', values.lease as string | undefined, 6000),
    log,
  });
  await worker.start();
  await new Promise<void>((resolve) => {
    const off = io.onSignal?.(() => {
      off?.();
      resolve();
    });
  });
  await worker.stop(STOP_GRACE_MS);
  return 0;
}

/** How long a stopping worker waits for JetStream to take its final checkpoints and lease releases (ms). */
const STOP_GRACE_MS = 10_000;

/** How long `publish` waits for JetStream (to connect, to set up the stream, to acknowledge an event) before it gives up (ms). */
const PUBLISH_RETRY_MS = 60_000;

const FORMATS = ['text', 'json', 'markdown', 'html'] as const;
type Format = (typeof FORMATS)[number];

async function runReport(argv: readonly string[], io: CliIO, out: Guarded, err: Guarded): Promise<number> {
  const { values } = parse(argv, {
    nats: { type: 'string' },
    cluster: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string', short: 'o', multiple: true },
    'fail-on': { type: 'string' },
    // As analyze takes it; the report is never colored.
    'no-color': { type: 'boolean' },
  });
  const url = need(values.nats, '--nats');
  const format = (values.format as string | undefined) ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format ${format}: expected one of ${FORMATS.join(', ')}`);
  const failOn = values['fail-on'] as string | undefined;
  if (failOn !== undefined && !(SEVERITIES as readonly string[]).includes(failOn)) throw new UsageError(`--fail-on ${failOn}: expected one of ${SEVERITIES.join(', ')}`);
  // As analyze: a name with no known extension (/dev/null, `report`) is written in --format, which
  // then no longer asks for the report on stdout.
  let formatTaken = false;
  const outs = ((values.out as string[] | undefined) ?? []).map((path) => {
    if (path === '') throw new UsageError('--out: empty file name');
    const named = formatFromPath(path);
    if (named === undefined && values.format !== undefined) formatTaken = true;
    return { path, format: named ?? (format as Format) };
  });
  const cluster = values.cluster === undefined ? undefined : checkClusterName(values.cluster as string);
  const log: FleetLog = (line) => void err.write(`auditstorm: ${line}\n`);
  // A server or leader that is away for a while (a node restarting) is waited for, said on stderr.
  const fleet = await connectFleet(url, log, PUBLISH_RETRY_MS);
  let report: Report;
  try {
    const { REPORT_BUCKET } = await import('../fleet/names.js');
    const { readClusterReports, fleetReport } = await import('../fleet/report.js');
    let entries: ClusterReportEntry[] = await retrying(
      "report: reading the workers' reports",
      async () => {
        let kv;
        try {
          kv = await fleet.kvm.open(REPORT_BUCKET);
        } catch (e) {
          // No worker has published a report yet.
          if (/not found/i.test((e as Error).message)) return [];
          throw e;
        }
        return (await readClusterReports(kv)).entries;
      },
      log,
      PUBLISH_RETRY_MS,
    );
    if (cluster !== undefined) entries = entries.filter((e) => e.cluster === cluster);
    if (entries.length === 0) {
      throw new UsageError(
        cluster === undefined ? 'no cluster report yet: is a worker running?' : `no report of cluster ${cluster} yet`,
        'workers publish reports every few seconds once they applied events',
      );
    }
    const live = entries.filter((e) => !e.settled).map((e) => e.cluster);
    if (live.length > 0)
      await err.write(`auditstorm: ${live.length} of ${entries.length} clusters still receiving events (their open episodes are marked ongoing): ${live.join(', ')}\n`);
    report = cluster !== undefined ? entries[0]!.report : fleetReport(entries, io.now());
  } finally {
    await fleet.nc.close();
  }
  const { renderReport } = await import('../report/index.js');
  for (const o of outs) {
    try {
      await writeFile(o.path, renderReport(report, o.format));
    } catch (e) {
      throw new UsageError(`--out ${o.path}: cannot write: ${describeFsError(e)}`);
    }
  }
  if (outs.length === 0 || (values.format !== undefined && !formatTaken)) await out.write(renderReport(report, format as Format, { color: false }));
  return exitCodeFor(report, failOn as Severity | undefined);
}
