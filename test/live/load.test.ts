/**
 * Load test of `auditstorm serve` as a real process: a real HTTP client on loopback posts
 * real-shaped EventList batches (400 events each, as the API server's webhook batches them) as
 * fast as it can with 4 connections (the rate is printed, not asserted: speed targets live in
 * `npm run bench`). The storm alert must appear on stdout while the load runs, `/metrics` must
 * show it, and the server's resident memory must stay bounded; a broken body gets 400 and a missing or wrong token 401 in the middle
 * of the load, and the server goes on; SIGTERM gives the final report and exit 0.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateLog } from '../../src/generator/generate.js';
import { eventLists, until } from './helpers.js';

const BIN = fileURLToPath(new URL('../../bin/auditstorm.js', import.meta.url));
const TOKEN = 'load-test-token';
const STORM_USER = 'system:serviceaccount:featureflag-system:featureflag-controller-manager';

/** Eight minutes of a 400-node cluster with a conflict storm from minute 1 to the end: about 62,000 events. */
function workload(): string[] {
  const log = generateLog({
    seed: 7,
    start: '2026-01-10T00:00:00Z',
    durationMs: 480_000,
    stages: 'final-only',
    scenarios: [
      { type: 'background', nodes: 400, noise: 6 },
      { type: 'storm', startOffsetMs: 60_000, durationMs: 410_000, ratePerSec: 150 },
    ],
  });
  return [...log.lines];
}

function post(agent: Agent, port: number, body: string, token = TOKEN): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/audit',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(token === '' ? {} : { authorization: `Bearer ${token}` }) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function get(port: number, p: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: p, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', reject);
    req.end();
  });
}

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.slice(name.length + 1));
}

const dir = mkdtempSync(path.join(tmpdir(), 'auditstorm-load-'));
let child: ChildProcessWithoutNullStreams | null = null;
afterAll(() => {
  if (child !== null && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('serve under load', () => {
  it('takes 400-event EventLists as fast as 4 connections post them, alerts during the load, bounded memory', async () => {
    const lines = workload();
    const bodies = eventLists(lines, 400);
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const c = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', '--token-file', tokenFile, '--metrics-top', '5'], { stdio: 'pipe' });
    child = c;
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => c.on('exit', (code) => resolve(code)));
    await until(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(stderr), 'the server to listen');
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(stderr)![1]);

    let peakRss = 0;
    const sampler = setInterval(() => {
      get(port, '/metrics').then(
        (t) => (peakRss = Math.max(peakRss, metric(t, 'process_resident_memory_bytes'))),
        () => {},
      );
    }, 200);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const statuses: number[] = [];
    let next = 0;
    let alertDuringLoad = false;
    const started = performance.now();
    const misbehaved: number[] = [];
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        while (next < bodies.length) {
          const i = next++;
          statuses.push(await post(agent, port, bodies[i]!));
          if (!alertDuringLoad && next < bodies.length && stdout.includes(' OPEN ')) alertDuringLoad = true;
          // Half-way, a broken body, one without a token and one with a wrong token.
          if (i === Math.floor(bodies.length / 2)) {
            misbehaved.push(await post(agent, port, bodies[i]!.slice(0, 5000)));
            misbehaved.push(await post(agent, port, bodies[i]!, ''));
            misbehaved.push(await post(agent, port, bodies[i]!, 'wrong'));
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    agent.destroy();
    const rate = lines.length / seconds;
    console.log(`load: ${lines.length} events in ${bodies.length} batches, ${seconds.toFixed(2)} s, ${Math.round(rate)} events/s, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB`);

    expect(lines.length).toBeGreaterThan(60_000);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(misbehaved).toEqual([400, 401, 401]);
    expect(alertDuringLoad).toBe(true);
    const openLine = stdout.split('\n').find((l) => l.includes(' OPEN '))!;
    expect(openLine).toContain('conflict-storm featureflag-controller-manager retries 409 Conflict on featureflags.platform.example.com/status checkout/checkout-flags');
    expect(openLine).toContain(`user=${STORM_USER} object=featureflags.platform.example.com/status checkout/checkout-flags`);

    const m = await get(port, '/metrics');
    // The cut body's events before the cut count too; their resent copies are duplicates.
    expect(metric(m, 'auditstorm_events_parsed_total')).toBeGreaterThanOrEqual(lines.length);
    expect(metric(m, 'auditstorm_batches_total')).toBe(bodies.length);
    expect(metric(m, 'auditstorm_batches_rejected_total{reason="bad_body"}')).toBe(1);
    expect(metric(m, 'auditstorm_batches_rejected_total{reason="unauthorized"}')).toBe(2);
    expect(metric(m, 'auditstorm_episodes_opened_total{kind="conflict-storm"}')).toBe(1);
    // Top-5 label sets only, the storm's actor and object among them.
    expect(m.split('\n').filter((l) => l.startsWith('auditstorm_actor_writes_per_second{')).length).toBeLessThanOrEqual(5);
    expect(m.split('\n').filter((l) => l.startsWith('auditstorm_object_writes_per_second{')).length).toBeLessThanOrEqual(5);
    expect(m).toContain(`auditstorm_actor_writes_per_second{user="${STORM_USER}"}`);
    expect(peakRss).toBeGreaterThan(0);
    // Bodies are never kept: the 88,000 events posted are about 190 MB of JSON.
    expect(peakRss).toBeLessThan(256 * 2 ** 20);

    c.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('FINDINGS');
    expect(stdout).toContain(`User            ${STORM_USER}`);
  }, 180_000);
});
