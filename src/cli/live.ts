/**
 * The `watch` and `serve` commands: flags to a running {@link watch} / {@link serve}, alerts to
 * stdout (text or `--format ndjson`), a status line on stderr when it is a terminal, SIGINT or
 * SIGTERM to the final report (the renderers of `analyze`, `-o FILE` files too) and exit 0.
 *
 * Exit codes: 0 (input ended, or a signal); 1 for `watch --fail-on SEVERITY` when a finding at or
 * above it appeared; 2 usage, config or input error (not an audit log, a port in use, unreadable
 * TLS files). A closed stdout (`| head`) stops quietly (0, or 1 as said), still writing the -o files.
 */
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { parseDuration } from '../duration.js';
import { ConfigError, describeFsError, UsageError } from '../errors.js';
import { formatAlertJson, formatAlertText, type LiveAlert } from '../live/alerts.js';
import { statusWithRate, type LiveStatus } from '../live/session.js';
import type { Report } from '../report/schema.js';
import type { ParsedArgs } from './args.js';
import type { CliIO } from './io.js';
import { checkOutDirs, exitCodeFor, warningsFor, withCodes, writeOutputs, type Guarded } from './output.js';
import { createOptions } from './options.js';

/** `HOST:PORT` → parts; `[::1]:8080` for IPv6. Default `127.0.0.1:8080`. */
export function parseListen(v: string | undefined): { host: string; port: number } {
  if (v === undefined) return { host: '127.0.0.1', port: 8080 };
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(v);
  const port = m ? Number(m[3]) : NaN;
  if (m === null || !(port >= 0 && port <= 65535)) {
    throw new UsageError(`--listen ${v}: expected HOST:PORT (127.0.0.1:8080, 0.0.0.0:8443, [::1]:8080)`);
  }
  return { host: m[1] ?? (m[2] === '' ? '0.0.0.0' : m[2]!), port };
}

/** The status line: `auditstorm: 5,210 events/s, 1,234,567 events, 2 open episodes (conflict-storm 1, hot-loop 1)`. */
export function formatStatus(s: LiveStatus & { eventsPerSec: number }): string {
  const open = Object.entries(s.openByKind).filter(([, n]) => n > 0);
  const total = open.reduce((a, [, n]) => a + n, 0);
  const kinds = open.length === 0 ? '' : ` (${open.map(([k, n]) => `${k} ${n}`).join(', ')})`;
  return (
    `auditstorm: ${Math.round(s.eventsPerSec).toLocaleString('en-US')} events/s, ${s.events.toLocaleString('en-US')} events, ` +
    `${total} open episode${total === 1 ? '' : 's'}${kinds}`
  );
}

async function readFlagFile(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${flag} ${path}: cannot read: ${describeFsError(e)}`);
  }
}

/**
 * Runs `watch` or `serve` until the input ends or a signal arrives.
 *
 * @param args parsed flags with `command` `watch` or `serve`
 * @param io the outside world; `io.onSignal` (SIGINT/SIGTERM) stops the run
 * @returns the exit code (0, or 1 for `--fail-on` as in `analyze`)
 * @throws UsageError, ConfigError, InputError (the caller prints them and exits 2)
 */
export async function runLive(args: ParsedArgs, io: CliIO, out: Guarded, err: Guarded): Promise<number> {
  const command = args.command === 'serve' ? 'serve' : 'watch';
  const live = args.live ?? { fromStart: false };
  if (args.format !== undefined && args.format !== 'text' && args.format !== 'ndjson') {
    throw new UsageError(
      `${command} --format ${args.format}: alerts are text or ndjson`,
      `write the final report with -o report.${args.format === 'markdown' ? 'md' : args.format}`,
    );
  }
  const ndjson = args.format === 'ndjson';
  const { analyze: options, output } = await createOptions(args, io.readFile, {
    term: { stdoutIsTTY: io.isTTY.stdout, stderrIsTTY: io.isTTY.stderr, env: io.env },
  });
  await checkOutDirs(output.outs.map((o) => o.path));
  const statusOn = io.isTTY.stderr && !output.quiet;
  let statusShown = false;
  const clearStatus = async (): Promise<void> => {
    if (statusShown) {
      statusShown = false;
      await err.write('\r\u001b[K');
    }
  };
  // Alerts are written in order; a closed stdout (`| head`) ends the run quietly.
  let chain = Promise.resolve();
  let stdoutClosed = false;
  let stopRun: () => void = () => {};
  io.stdout.on('error', () => {
    stdoutClosed = true;
    stopRun();
  });
  // --code: alerts about other codes are not written, as the final report does not show them.
  const { codeMatches, findingCodes } = await import('../report/codes.js');
  const shownAlert = (a: LiveAlert): boolean => output.codes.length === 0 || findingCodes(a.finding).some((c) => codeMatches(c, output.codes));
  const onAlert = (a: LiveAlert): void => {
    if (!shownAlert(a)) return;
    const line = ndjson ? formatAlertJson(a) : formatAlertText(a);
    chain = chain.then(clearStatus).then(() => out.write(`${line}\n`));
  };
  const onStatus = statusOn
    ? (s: LiveStatus & { eventsPerSec: number }): void => {
        chain = chain.then(async () => {
          statusShown = true;
          await err.write(`\r\u001b[K${formatStatus(s)}`);
        });
      }
    : undefined;
  const now = (): number => io.now().getTime();

  let report: Report;
  let usedStdin = false;
  let unsubscribe: () => void = () => {};
  try {
    if (command === 'watch') {
      const inputs = options.inputs ?? [];
      if (inputs.length > 1)
        throw new UsageError('watch follows one input: a file, or "-" for stdin', 'run one watch per log, or pipe them together: tail -F a.log b.log | auditstorm watch');
      usedStdin = inputs.length === 0 || inputs[0] === '-';
      if (usedStdin && io.isTTY.stdin) {
        throw new UsageError(
          'watch: stdin is a terminal, not an audit log',
          'e.g. tail -F /var/log/kubernetes/audit/audit.log | auditstorm watch, or auditstorm watch /var/log/kubernetes/audit/audit.log',
        );
      }
      const { watch } = await import('../live/watch.js');
      const run = await watch(
        options,
        {
          ...(usedStdin ? { stdin: io.stdin } : {}),
          now,
          onAlert,
          onWarning: (m: string) => {
            chain = chain.then(clearStatus).then(() => err.write(`auditstorm: warning: ${m}\n`));
          },
          ...(onStatus ? { onStatus } : {}),
        },
        { follow: { fromStart: live.fromStart } },
      );
      stopRun = () => run.stop();
      unsubscribe = io.onSignal?.(() => run.stop()) ?? unsubscribe;
      report = await run.done;
    } else {
      if (options.inputs !== undefined && options.inputs.length > 0) {
        throw new UsageError(`serve takes no paths (got ${options.inputs.join(' ')}): it receives events over HTTP`, 'use auditstorm watch FILE to follow a log file');
      }
      const { host, port } = parseListen(live.listen);
      if ((live.tlsCert === undefined) !== (live.tlsKey === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
      if (live.tlsClientCa !== undefined && live.tlsCert === undefined) throw new UsageError('--tls-client-ca needs --tls-cert and --tls-key');
      let requestTimeoutMs: number | undefined;
      if (live.requestTimeout !== undefined) {
        requestTimeoutMs = parseDuration(live.requestTimeout, '--request-timeout');
        if (requestTimeoutMs <= 0) throw new UsageError(`--request-timeout ${live.requestTimeout}: must be longer than 0`, 'e.g. --request-timeout 30s');
      }
      let token: string | undefined;
      if (live.tokenFile !== undefined) {
        token = (await readFlagFile('--token-file', live.tokenFile)).trim();
        if (token === '') throw new ConfigError(`--token-file ${live.tokenFile}: the file is empty`);
      }
      const tls =
        live.tlsCert !== undefined && live.tlsKey !== undefined
          ? {
              cert: await readFlagFile('--tls-cert', live.tlsCert),
              key: await readFlagFile('--tls-key', live.tlsKey),
              ...(live.tlsClientCa !== undefined ? { clientCa: await readFlagFile('--tls-client-ca', live.tlsClientCa) } : {}),
            }
          : undefined;
      const { serve } = await import('../live/serve.js');
      const server = await serve(
        options,
        {
          host,
          port,
          ...(token !== undefined ? { token } : {}),
          ...(tls !== undefined ? { tls } : {}),
          ...(live.maxBodyBytes !== undefined ? { maxBodyBytes: live.maxBodyBytes } : {}),
          ...(live.metricsTop !== undefined ? { metricsTop: live.metricsTop } : {}),
          ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
        },
        { now, onAlert, ...(io.residentMemory ? { residentMemory: io.residentMemory } : {}) },
      );
      const shownHost = server.host.includes(':') ? `[${server.host}]` : server.host;
      // Also with -q: with --listen HOST:0 it is the only way to learn the port.
      await err.write(
        `auditstorm: listening on ${server.scheme}://${shownHost}:${server.port} (POST audit EventLists; GET /metrics /healthz /report /report.html)${token !== undefined ? ', bearer token required' : ''}${tls?.clientCa !== undefined ? ', client certificates required' : ''}\n`,
      );
      let statusTimer: ReturnType<typeof setInterval> | null = null;
      if (onStatus) {
        const read = statusWithRate(server.session, now);
        statusTimer = setInterval(() => onStatus(read()), 2000);
      }
      report = await new Promise<Report>((resolve) => {
        const stop = (): void => {
          if (statusTimer !== null) clearInterval(statusTimer);
          void server.close().then(resolve);
        };
        stopRun = stop;
        unsubscribe = io.onSignal?.(stop) ?? unsubscribe;
      });
    }
  } finally {
    unsubscribe();
    // A pipe that never ends (`tail -F |`) must not keep the process alive, on errors too.
    if (usedStdin) (io.stdin as Readable).destroy?.();
  }
  await chain;
  await clearStatus();
  // As analyze: a source cut short or skipped is said on stderr, not only in the report.
  for (const w of warningsFor(report).filter((x) => !x.startsWith('no '))) await err.write(`auditstorm: warning: ${w}\n`);
  report = await withCodes(report, output, err);
  // watch --fail-on: 1 when such a finding appeared (stdin ended, or a signal).
  // serve has no --fail-on (a config file's failOn does not make a stopped server exit 1).
  const code = command === 'watch' ? exitCodeFor(report, output.failOn) : 0;
  if (stdoutClosed) {
    // The -o files asked for still get the report of what was read before stdout closed.
    if (output.outs.length > 0) await writeOutputs(report, { ...output, stdout: false, quiet: true }, out, err, io);
    return code;
  }
  if (ndjson && output.stdout) {
    await out.write(`${JSON.stringify({ type: 'report', report })}\n`);
    await writeOutputs(report, { ...output, stdout: false, quiet: true }, out, err, io);
  } else {
    if (output.stdout) await out.write('\n');
    await writeOutputs(report, output, out, err, io);
  }
  return code;
}
