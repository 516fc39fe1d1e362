/**
 * connectFleet against a nats-server that answers but has no JetStream (as a cluster node does
 * while its meta leader is elected): every connection it opened is closed when it gives up, so
 * a command that gives up (or succeeds on a later attempt) can exit. And the fleet's partition
 * count: taken when no `--partitions` is given, a usage error when another one is.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectFleet, ensureStream } from '../../src/fleet/connect.js';
import { InputError } from '../../src/errors.js';
import { FleetWorker } from '../../src/fleet/worker.js';
import { BIN, freePort, Procs, startNats, waitFor } from './helpers.js';

const HAVE_NATS = spawnSync('nats-server', ['--version']).status === 0;
if (!HAVE_NATS) console.warn('test/fleet: nats-server is not on PATH (apt-get install nats-server): the connect test is skipped');

const procs = new Procs();
afterAll(() => procs.killAll());

/** Open client connections of the server, from its monitoring endpoint `/connz`. */
async function connections(monitor: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${monitor}/connz`);
  return ((await res.json()) as { num_connections: number }).num_connections;
}

describe.skipIf(!HAVE_NATS)('connectFleet', () => {
  it('closes every connection it opened when JetStream never answers', async () => {
    const port = await freePort();
    const monitor = await freePort();
    const proc = procs.start('nats-nojs', 'nats-server', ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitor)]);
    await waitFor(proc.out, 'Server is ready', 10_000);
    const said: string[] = [];
    const err = await connectFleet(`nats://127.0.0.1:${port}`, (l) => said.push(l), 1200).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/^cannot reach JetStream at nats:\/\/127\.0\.0\.1:\d+: /);
    // It tried more than once (each try opened a connection), and said so.
    expect(said.filter((l) => l.startsWith('nats: cannot reach')).length).toBeGreaterThanOrEqual(2);
    // The server drops a closed client at once; allow it a moment to notice.
    const until = Date.now() + 5000;
    let open = await connections(monitor);
    while (open !== 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      open = await connections(monitor);
    }
    expect(open).toBe(0);
  }, 30_000);
});

describe.skipIf(!HAVE_NATS)('the fleet partition count', () => {
  it('without --partitions publish and serve take the fleet count; a different one is a usage error (exit 2) at start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'auditstorm-partitions-'));
    try {
      const nats = await startNats(procs, join(dir, 'nats'));
      const f = await connectFleet(nats.url, () => {}, 10_000);
      try {
        expect(await ensureStream(f, { partitions: 4, replicas: 1, maxAgeMs: 0 })).toBe(4);
        expect(await ensureStream(f, { partitions: null, replicas: 1, maxAgeMs: 0 })).toBe(4);
        await expect(ensureStream(f, { partitions: 5, replicas: 1, maxAgeMs: 0 })).rejects.toThrow("--partitions 5: this fleet's stream has 4 partitions");
      } finally {
        await f.nc.close();
      }
      const log = join(dir, 'a.log');
      writeFileSync(log, readFileSync(join(import.meta.dirname, '../../fixtures/sample/audit.log.gz')));
      const pub = spawnSync(process.execPath, [BIN, 'publish', '--nats', nats.url, '--cluster', 'c1', '-q', log], { encoding: 'utf8' });
      expect([pub.status, pub.stderr]).toEqual([0, '']);
      const port = await freePort();
      const serve = spawnSync(process.execPath, [BIN, 'serve', '--nats', nats.url, '--cluster', 'c1', '--partitions', '16', '--port', String(port)], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(serve.status).toBe(2);
      expect(serve.stderr).toContain("--partitions 16: this fleet's stream has 4 partitions");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(!HAVE_NATS)('a worker stopping while JetStream goes away', () => {
  it('gives up on its final checkpoints after the grace time and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'auditstorm-stop-'));
    try {
      const nats = await startNats(procs, join(dir, 'nats'));
      const said: string[] = [];
      const worker = new FleetWorker({ url: nats.url, id: 'w-stop', analyze: {}, leaseMs: 3000, log: (l) => said.push(l) });
      await worker.start();
      nats.proc.child.kill('SIGKILL');
      const t0 = Date.now();
      await worker.stop(1500);
      const took = Date.now() - t0;
      // The grace time, plus at most the second the connection gets to close.
      expect(took).toBeLessThan(1500 + 1000 + 500);
      expect(said.filter((l) => l.startsWith('worker: JetStream did not answer within 1500 ms of stopping'))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
