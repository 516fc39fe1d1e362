/**
 * The fleet on real nats-servers (loopback, free ports): a generated fleet of 20 clusters is
 * published through `publish` and `serve --nats`, analyzed by 3 workers, and the fleet report must
 * equal `analyze` of each cluster's log alone, finding for finding and count for count, through
 * a worker killed with SIGKILL mid-stream, a worker restarted from its checkpoint, and (on a
 * 3-node cluster with the stream at 3 replicas) a server node killed mid-stream.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { connectFleet, type Fleet } from '../../src/fleet/connect.js';
import { REPORT_BUCKET } from '../../src/fleet/names.js';
import { readClusterReports } from '../../src/fleet/report.js';
import type { ClusterReportEntry } from '../../src/fleet/worker.js';
import { fleetSpecs } from '../../src/generator/fleet.js';
import { generateLog, logText } from '../../src/generator/generate.js';
import type { Finding, Report } from '../../src/report/schema.js';
import { BIN, exited, freePort, Procs, startNats, startNatsCluster, waitFor } from './helpers.js';

const run = promisify(execFile);
/** Debian's nats-server (installed by .ci/run); without it these tests cannot run and say so. */
const HAVE_NATS = spawnSync('nats-server', ['--version']).status === 0;
if (!HAVE_NATS) console.warn('test/fleet: nats-server is not on PATH (apt-get install nats-server): the fleet tests are skipped');
const CLUSTERS = 20;
/** Clusters sent through `serve --nats` (the rest through `publish`). */
const VIA_SERVE = ['cluster-18', 'cluster-19'];

interface Expected {
  name: string;
  path: string;
  report: Report;
}

let dir: string;
let fleetLogs: Expected[];

beforeAll(async () => {
  if (!HAVE_NATS) return;
  dir = mkdtempSync(join(tmpdir(), 'auditstorm-fleet-'));
  fleetLogs = [];
  for (const c of fleetSpecs(CLUSTERS)) {
    const path = join(dir, `${c.name}.log`);
    writeFileSync(path, logText(generateLog(c.spec)));
    fleetLogs.push({ name: c.name, path, report: await analyze({ inputs: [path] }) });
  }
}, 60_000);

afterAll(() => {
  if (HAVE_NATS) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function withoutCluster(f: Finding): Finding {
  const { cluster: _c, ...rest } = f;
  return rest;
}

/** Runs `fn` over `items`, `n` at a time (publish processes in parallel, bounded for 2 cores). */
async function eachLimited<T>(items: readonly T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function publish(url: string, c: Expected, replicas = 1): Promise<string> {
  const { stderr } = await run(process.execPath, [BIN, 'publish', '--nats', url, '--cluster', c.name, '--partitions', '8', '--replicas', String(replicas), c.path], {
    timeout: 60_000,
  });
  return stderr;
}

/** POSTs a cluster's events to `serve --nats` as EventList batches of 400; returns the statuses. */
async function postViaServe(port: number, c: Expected): Promise<number[]> {
  const items = readFileSync(c.path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
  const statuses: number[] = [];
  for (let i = 0; i < items.length; i += 400) {
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: items.slice(i, i + 400) }),
    });
    await res.text();
    statuses.push(res.status);
  }
  return statuses;
}

function startWorker(procs: Procs, url: string, id: string, replicas = 1): { child: import('node:child_process').ChildProcess; out: string[] } {
  return procs.start(id, process.execPath, [BIN, 'worker', '--nats', url, '--id', id, '--settle', '2s', '--lease', '4s', '--replicas', String(replicas)]);
}

/** Polls the report bucket until every cluster is settled with all its events (and `ok(entries)`), or fails after `ms`. */
async function settled(f: Fleet, ms: number, ok: (e: ClusterReportEntry[]) => boolean = () => true, logs: Expected[] = fleetLogs): Promise<ClusterReportEntry[]> {
  const until = Date.now() + ms;
  let last: ClusterReportEntry[] = [];
  for (;;) {
    try {
      last = (await readClusterReports(await f.kvm.open(REPORT_BUCKET))).entries;
    } catch {
      last = [];
    }
    const want = new Map(logs.map((c) => [c.name, c.report.input.events]));
    if (last.length === want.size && last.every((e) => e.settled && e.report.input.events === want.get(e.cluster)) && ok(last)) return last;
    if (Date.now() > until) {
      throw new Error(`not settled: ${last.map((e) => `${e.cluster} settled=${e.settled} events=${e.report.input.events}/${want.get(e.cluster)} worker=${e.worker}`).join('; ')}`);
    }
    await sleep(500);
  }
}

/** Runs `report --format json` and checks it against `analyze` of every cluster alone. */
async function checkFleetReport(url: string, logs: Expected[] = fleetLogs): Promise<Report> {
  const { stdout } = await run(process.execPath, [BIN, 'report', '--nats', url, '--format', 'json'], { timeout: 30_000, maxBuffer: 64 * 1024 * 1024 });
  const fleet = JSON.parse(stdout) as Report;
  for (const c of logs) {
    const mine = fleet.findings.filter((f) => f.cluster === c.name).map(withoutCluster);
    expect(mine, c.name).toEqual(c.report.findings);
    expect(fleet.notes.filter((f) => f.cluster === c.name).map(withoutCluster), c.name).toEqual(c.report.notes);
    const src = fleet.input.sources.find((s) => s.name === c.name)!;
    expect([src.events, src.requests], c.name).toEqual([c.report.input.events, c.report.input.sources[0]!.requests]);
  }
  const sum = (f: (r: Report) => number): number => logs.reduce((a, c) => a + f(c.report), 0);
  expect(fleet.input.requests).toBe(sum((r) => r.input.requests));
  expect(fleet.input.skipped.duplicates).toBe(sum((r) => r.input.skipped.duplicates));
  expect(fleet.input.events).toBe(sum((r) => r.input.events));
  expect(fleet.summaries.totals).toEqual({
    requests: sum((r) => r.summaries.totals.requests),
    writes: sum((r) => r.summaries.totals.writes),
    conflicts: sum((r) => r.summaries.totals.conflicts),
    alreadyExists: sum((r) => r.summaries.totals.alreadyExists),
    throttled: sum((r) => r.summaries.totals.throttled),
  });
  expect(fleet.findings.length).toBe(sum((r) => r.findings.length));
  return fleet;
}

describe.skipIf(!HAVE_NATS)('fleet on one nats-server', () => {
  const procs = new Procs();
  afterAll(() => procs.killAll());

  it('publish + serve --nats + 3 workers (one killed -9, one restarted) equal analyze per cluster', async () => {
    expect(fleetLogs.filter((c) => c.report.findings.length > 0).length).toBeGreaterThanOrEqual(12);
    const nats = await startNats(procs, join(dir, 'single'));
    const f = await connectFleet(nats.url, () => {}, 30_000);
    const alerts: Array<{ cluster: string; phase: string; id: string }> = [];
    const sub = f.nc.subscribe('auditstorm.alerts.>', {
      callback: (_e, m) => {
        const a = JSON.parse(m.string()) as { phase: string; id: string };
        alerts.push({ cluster: m.subject.split('.')[2]!, phase: a.phase, id: a.id });
      },
    });
    try {
      const viaPublish = fleetLogs.filter((c) => !VIA_SERVE.includes(c.name));
      // Before any worker: the first half.
      const firstHalf = viaPublish.slice(0, 9);
      await eachLimited(firstHalf, 3, async (c) => {
        expect(await publish(nats.url, c)).toContain(`published ${c.report.input.events} events`);
      });
      const w = [startWorker(procs, nats.url, 'w-a'), startWorker(procs, nats.url, 'w-b'), startWorker(procs, nats.url, 'w-c')];
      await waitFor(w[0]!.out, 'took partition', 20_000);
      // Mid-stream: kill -9 one worker, publish the rest.
      await sleep(1500);
      w[0]!.child.kill('SIGKILL');
      await eachLimited(viaPublish.slice(9), 3, async (c) => {
        await publish(nats.url, c);
      });
      const servePort = await freePort();
      const serve = procs.start('serve', process.execPath, [
        BIN,
        'serve',
        '--nats',
        nats.url,
        '--cluster',
        VIA_SERVE[0]!,
        '--partitions',
        '8',
        '--port',
        String(servePort),
        '--publish-timeout',
        '1s',
      ]);
      await waitFor(serve.out, 'serving the audit webhook', 10_000);
      const statuses = await postViaServe(
        servePort,
        fleetLogs.find((c) => c.name === VIA_SERVE[0])!,
      );
      expect(new Set(statuses)).toEqual(new Set([200]));
      const serve2Port = await freePort();
      const serve2 = procs.start('serve2', process.execPath, [BIN, 'serve', '--nats', nats.url, '--cluster', VIA_SERVE[1]!, '--partitions', '8', '--port', String(serve2Port)]);
      await waitFor(serve2.out, 'serving the audit webhook', 10_000);
      // Every batch twice (the API server resends what it saw fail): JetStream drops the copies.
      const c19 = fleetLogs.find((c) => c.name === VIA_SERVE[1])!;
      expect(new Set([...(await postViaServe(serve2Port, c19)), ...(await postViaServe(serve2Port, c19))])).toEqual(new Set([200]));

      const first = await settled(f, 120_000);
      expect(first.length).toBe(CLUSTERS);
      await checkFleetReport(nats.url);
      // One cluster's report (`--cluster`) is analyze's, summaries included (latency percentiles too).
      for (const name of ['cluster-03', 'cluster-05']) {
        const { stdout } = await run(process.execPath, [BIN, 'report', '--nats', nats.url, '--cluster', name, '--format', 'json'], {
          timeout: 30_000,
          maxBuffer: 64 * 1024 * 1024,
        });
        const one = JSON.parse(stdout) as Report;
        const want = fleetLogs.find((c) => c.name === name)!.report;
        expect([one.findings, one.notes, one.summaries, one.input.requests], name).toEqual([want.findings, want.notes, want.summaries, want.input.requests]);
      }
      // As analyze: --no-color taken, an -o name with no known extension written in --format, nothing on stdout.
      const file = join(dir, 'cluster-03-report');
      const toFile = await run(process.execPath, [BIN, 'report', '--nats', nats.url, '--cluster', 'cluster-03', '--no-color', '--format', 'json', '-o', file], { timeout: 30_000 });
      expect(toFile.stdout).toBe('');
      expect((JSON.parse(readFileSync(file, 'utf8')) as Report).findings).toEqual(fleetLogs.find((c) => c.name === 'cluster-03')!.report.findings);

      // Alerts: every finding of the clusters applied before the kill was announced when it opened.
      for (const c of firstHalf) {
        for (const fd of c.report.findings)
          expect(
            alerts.some((a) => a.cluster === c.name && a.phase === 'open' && a.id === fd.id),
            `${c.name} ${fd.id}`,
          ).toBe(true);
      }

      // Restart from the checkpoint: stop w-b (final checkpoint, leases released), start w-d.
      w[1]!.child.kill('SIGTERM');
      expect(await exited(w[1]!.child, 20_000)).toBe(0);
      startWorker(procs, nats.url, 'w-d');
      await settled(f, 120_000, (es) => es.every((e) => e.worker !== 'w-b' && e.worker !== 'w-a'));
      await checkFleetReport(nats.url);

      // JetStream gone: serve answers 503 (the API server will resend).
      nats.proc.child.kill('SIGKILL');
      await exited(nats.proc.child, 10_000);
      const st = await postViaServe(servePort, fleetLogs[0]!);
      expect(st[0]).toBe(503);
    } finally {
      sub.unsubscribe();
      await f.nc.close().catch(() => {});
    }
  }, 300_000);
});

describe.skipIf(!HAVE_NATS)('fleet on a 3-node JetStream cluster', () => {
  const procs = new Procs();
  afterAll(() => procs.killAll());

  it('stream at 3 replicas; one server node killed mid-stream: the report still equals analyze per cluster', async () => {
    const nodes = await startNatsCluster(procs, join(dir, 'cluster'));
    const url = nodes.map((n) => n.url).join(',');
    const survivors = nodes
      .slice(0, 2)
      .map((n) => n.url)
      .join(',');
    // Ten clusters keep this test short; the 20-cluster equality is the test above.
    const logs = fleetLogs.slice(0, 10);
    const half = logs.length / 2;
    await eachLimited(logs.slice(0, half), 3, async (c) => {
      await publish(url, c, 3);
    });
    for (const id of ['c-a', 'c-b', 'c-c']) startWorker(procs, url, id, 3);
    await sleep(2000);
    nodes[2]!.proc.child.kill('SIGKILL');
    await eachLimited(logs.slice(half), 3, async (c) => {
      await publish(survivors, c, 3);
    });
    const f = await connectFleet(survivors, () => {}, 30_000);
    try {
      await settled(f, 150_000, () => true, logs);
    } finally {
      await f.nc.close().catch(() => {});
    }
    await checkFleetReport(survivors, logs);
  }, 300_000);
});
