/**
 * `npm run bench:fleet`: throughput of `auditstorm worker` with 1, 2 and 4 workers, and the delay
 * from publish to alert, on a local nats-server (Debian's `nats-server` on `PATH`, JetStream on,
 * a free loopback port, a fresh store per run).
 *
 *   node dist/cli/bench-fleet.js [--clusters 16] [--partitions 8] [--workers 1,2,4]
 *
 * Per worker count: a fresh server; the generated fleet (`src/generator/fleet.ts`, seeded) is
 * published by `auditstorm publish` (3 at a time); then the workers are started and the time
 * from their start until every partition's durable consumer has acknowledged its last message
 * gives events/s (worker start-up included). Then, with the workers idle, one more cluster with
 * a 409 storm is published at a fixed pace (events/s of {@link PACE_PER_SEC}); each alert carries
 * the stream sequence of the event that raised it (`Auditstorm-Stream-Seq`), so its delay is
 * its arrival minus that event's publish acknowledgement. Prints a Markdown table. Times are
 * wall-clock ms on this machine, which is shared: read them as orders of magnitude.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectFleet, ensureStream, sleep, type Fleet } from '../fleet/connect.js';
import { alertSubject, eventSubject, messageId, STREAM } from '../fleet/names.js';
import { partitionOf } from '../fleet/partition.js';
import { ALERT_SEQ_HEADER } from '../fleet/worker.js';
import { fleetSpecs } from '../generator/fleet.js';
import { generateLog, logText } from '../generator/generate.js';

const BIN = join(import.meta.dirname, '../../bin/auditstorm.js');
/** Events/s at which the delay cluster is published (well under one worker's throughput). */
const PACE_PER_SEC = 400;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function start(cmd: string, args: string[]): { child: ChildProcess; out: string[] } {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  child.stdout?.on('data', (d: Buffer) => out.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => out.push(d.toString()));
  return { child, out };
}

async function waitFor(out: string[], text: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!out.join('').includes(text)) {
    if (Date.now() > until) throw new Error(`timed out waiting for "${text}": ${out.join('').slice(-1000)}`);
    await sleep(50);
  }
}

function runToEnd(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = start(process.execPath, [BIN, ...args]);
    p.child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`auditstorm ${args[0]} exited ${String(code)}: ${p.out.join('').slice(-1000)}`))));
  });
}

/** Resolves once every partition has a consumer and no consumer has a pending or unacknowledged message. */
async function caughtUp(f: Fleet, partitions: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const seen = new Set<number>();
    let done = true;
    try {
      for await (const ci of f.jsm.consumers.list(STREAM)) {
        const p = Number(/^auditstorm-p(\d+)-/.exec(ci.name)?.[1]);
        if (Number.isInteger(p)) seen.add(p);
        if (ci.num_pending !== 0 || ci.num_ack_pending !== 0) done = false;
      }
    } catch {
      done = false;
    }
    if (done && seen.size === partitions) return;
    if (Date.now() > until) throw new Error('the workers did not catch up in time');
    await sleep(100);
  }
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

interface Row {
  workers: number;
  events: number;
  publishPerSec: number;
  workerPerSec: number;
  delayP50: number;
  delayMax: number;
  alerts: number;
}

async function runOnce(dir: string, logs: Array<{ name: string; path: string; events: number }>, live: string[], workers: number, partitions: number): Promise<Row> {
  const port = await freePort();
  const store = mkdtempSync(join(dir, 'js-'));
  const nats = start('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', store]);
  const procs: ChildProcess[] = [nats.child];
  try {
    await waitFor(nats.out, 'Server is ready', 10_000);
    const url = `nats://127.0.0.1:${port}`;
    const events = logs.reduce((a, l) => a + l.events, 0);
    const t0 = Date.now();
    let next = 0;
    await Promise.all(
      [0, 1, 2].map(async () => {
        while (next < logs.length) {
          const l = logs[next++]!;
          await runToEnd(['publish', '--nats', url, '--cluster', l.name, '--partitions', String(partitions), '-q', l.path]);
        }
      }),
    );
    const publishPerSec = events / ((Date.now() - t0) / 1000);
    const f = await connectFleet(url, () => {});
    try {
      const t1 = Date.now();
      for (let i = 0; i < workers; i++) procs.push(start(process.execPath, [BIN, 'worker', '--nats', url, '--id', `bench-${i}`, '--settle', '10m']).child);
      await caughtUp(f, partitions, 600_000);
      const workerPerSec = events / ((Date.now() - t1) / 1000);

      // Delay: a storm cluster published at a fixed pace while the workers are idle.
      const cluster = 'bench-live';
      await ensureStream(f, { partitions, replicas: 1, maxAgeMs: 0 });
      const subject = eventSubject(cluster, partitionOf(cluster, partitions));
      const ackAt = new Map<number, number>();
      const delays: number[] = [];
      const sub = f.nc.subscribe(alertSubject(cluster), {
        callback: (_e, m) => {
          const seq = Number(m.headers?.get(ALERT_SEQ_HEADER));
          const at = ackAt.get(seq);
          if (at !== undefined && (JSON.parse(m.string()) as { phase: string }).phase === 'open') delays.push(Date.now() - at);
        },
      });
      const started = Date.now();
      for (let i = 0; i < live.length; i++) {
        const due = started + (i * 1000) / PACE_PER_SEC;
        if (due > Date.now()) await sleep(due - Date.now());
        const ev = JSON.parse(live[i]!) as { auditID: string; stage: string };
        const ack = await f.js.publish(subject, live[i], { msgID: messageId(cluster, ev.auditID, ev.stage) });
        ackAt.set(ack.seq, Date.now());
      }
      await caughtUp(f, partitions, 60_000);
      await sleep(500);
      sub.unsubscribe();
      return { workers, events, publishPerSec, workerPerSec, delayP50: quantile(delays, 0.5), delayMax: Math.max(...delays), alerts: delays.length };
    } finally {
      await f.nc.close();
    }
  } finally {
    for (const p of procs.slice(1)) p.kill('SIGTERM');
    await sleep(1000);
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { clusters: { type: 'string' }, partitions: { type: 'string' }, workers: { type: 'string' } } });
  const clusters = Number(values.clusters ?? 16);
  const partitions = Number(values.partitions ?? 8);
  const counts = (values.workers ?? '1,2,4').split(',').map(Number);
  const dir = mkdtempSync(join(tmpdir(), 'auditstorm-bench-fleet-'));
  try {
    const logs = fleetSpecs(clusters, 7, 3, 4).map((c) => {
      const path = join(dir, `${c.name}.log`);
      const text = logText(generateLog(c.spec));
      writeFileSync(path, text);
      return { name: c.name, path, events: text.split('\n').filter((l) => l !== '').length };
    });
    const live = logText(
      generateLog({
        seed: 99,
        start: '2026-04-01T10:00:00Z',
        durationMs: 90_000,
        scenarios: [
          { type: 'background', nodes: 2 },
          { type: 'storm', startOffsetMs: 20_000, durationMs: 40_000, ratePerSec: 6 },
        ],
      }),
    )
      .split('\n')
      .filter((l) => l !== '');
    const rows: Row[] = [];
    for (const w of counts) {
      rows.push(await runOnce(dir, logs, live, w, partitions));
      process.stderr.write(`bench:fleet: ${w} worker(s) done\n`);
    }
    const lines = [
      `Fleet of ${clusters} clusters, ${rows[0]?.events ?? 0} events, ${partitions} partitions; delay cluster: ${live.length} events at ${PACE_PER_SEC}/s`,
      '',
      '| workers | publish events/s | worker events/s | open alerts | delay p50 ms | delay max ms |',
      '| ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map((r) => `| ${r.workers} | ${Math.round(r.publishPerSec)} | ${Math.round(r.workerPerSec)} | ${r.alerts} | ${r.delayP50} | ${r.delayMax} |`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
