/**
 * Real nats-server processes and auditstorm child processes for the fleet tests: loopback only,
 * free ports, every process killed by {@link Procs.killAll}.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '../../bin/auditstorm.js');

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Child processes started by a test, with their output kept. */
export class Procs {
  readonly all: Array<{ name: string; child: ChildProcess; out: string[] }> = [];

  start(name: string, cmd: string, args: string[]): { child: ChildProcess; out: string[] } {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: string[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d.toString()));
    child.stderr.on('data', (d: Buffer) => out.push(d.toString()));
    const p = { name, child, out };
    this.all.push(p);
    return p;
  }

  /** SIGKILLs every process still running. */
  killAll(): void {
    for (const p of this.all) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  }
}

/** Resolves when `out` holds `text`, rejects after `ms`. */
export async function waitFor(out: string[], text: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!out.join('').includes(text)) {
    if (Date.now() > until) throw new Error(`timed out waiting for "${text}" in: ${out.join('').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits for a process to exit; resolves to its exit code (or rejects after `ms`). */
export function exited(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('process did not exit in time')), ms);
    child.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

/** A started nats-server. */
export interface NatsNode {
  url: string;
  proc: { child: ChildProcess; out: string[] };
}

/** Starts a single JetStream nats-server on a free port, storing under `dir`. */
export async function startNats(procs: Procs, dir: string): Promise<NatsNode> {
  const port = await freePort();
  mkdirSync(dir, { recursive: true });
  const proc = procs.start('nats', 'nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir]);
  await waitFor(proc.out, 'Server is ready', 10_000);
  return { url: `nats://127.0.0.1:${port}`, proc };
}

/** Starts a 3-node JetStream cluster on free ports; resolves once it has a meta leader. */
export async function startNatsCluster(procs: Procs, dir: string): Promise<NatsNode[]> {
  const ports = [await freePort(), await freePort(), await freePort()];
  const routes = [await freePort(), await freePort(), await freePort()];
  const routeList = routes.map((r) => `nats://127.0.0.1:${r}`).join(',');
  const nodes: NatsNode[] = [];
  for (let i = 0; i < 3; i++) {
    const d = join(dir, `n${i}`);
    mkdirSync(d, { recursive: true });
    const proc = procs.start(`nats-${i}`, 'nats-server', [
      '-js',
      '-a',
      '127.0.0.1',
      '-p',
      String(ports[i]),
      '-sd',
      d,
      '-n',
      `n${i}`,
      '--cluster_name',
      'auditstorm-test',
      '--cluster',
      `nats://127.0.0.1:${routes[i]}`,
      '--routes',
      routeList,
    ]);
    nodes.push({ url: `nats://127.0.0.1:${ports[i]}`, proc });
  }
  for (const n of nodes) await waitFor(n.proc.out, 'Server is ready', 15_000);
  const until = Date.now() + 20_000;
  while (!nodes.some((n) => /JetStream cluster new metadata leader|Self is new JetStream cluster metadata leader/.test(n.proc.out.join('')))) {
    if (Date.now() > until) throw new Error('the JetStream cluster elected no meta leader');
    await new Promise((r) => setTimeout(r, 100));
  }
  return nodes;
}
