/**
 * connectFleet against a nats-server that answers but has no JetStream (as a cluster node does
 * while its meta leader is elected): every connection it opened is closed when it gives up, so
 * a command that gives up (or succeeds on a later attempt) can exit.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { connectFleet } from '../../src/fleet/connect.js';
import { InputError } from '../../src/errors.js';
import { freePort, Procs, waitFor } from './helpers.js';

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
