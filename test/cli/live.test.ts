/**
 * End-to-end of `auditstorm watch` and `auditstorm serve`: spawn `node bin/auditstorm.js` (the
 * built CLI in dist/; `npm test` builds first) with real pipes, signals and HTTP.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../../src/report/schema.js';
import { eventLists, incidentLines, STORM, until } from '../live/helpers.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin', 'auditstorm.js');

interface Live {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function start(args: string[]): Live {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: 'pipe' });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.on('error', () => {});
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
  return { child, out: () => out, err: () => err, exit };
}

/** The incident log up to 14:11:40 UTC (storm included) and the rest. */
function parts(): [string, string] {
  const lines = incidentLines();
  const cut = lines.findIndex((l) => (JSON.parse(l) as { stageTimestamp: string }).stageTimestamp >= '2026-02-27T14:11:40');
  return [lines.slice(0, cut).join('\n') + '\n', lines.slice(cut).join('\n') + '\n'];
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'auditstorm-cli-live-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('auditstorm watch', () => {
  it('watch - fed a gzip stream cut short warns on stderr, as analyze does, and prints its final report', async () => {
    const { gzipSync } = await import('node:zlib');
    const big = gzipSync(incidentLines().join('\n') + '\n');
    const w = start(['watch', '-', '-q', '-o', join(dir, 'cut.json')]);
    w.child.stdin.end(big.subarray(0, Math.floor(big.length / 2)));
    expect((await w.exit).code).toBe(0);
    const report = ReportSchema.parse(JSON.parse(await readFile(join(dir, 'cut.json'), 'utf8')));
    expect(report.input.sourceErrors.map((e) => e.source)).toEqual(['<stdin>']);
    expect(w.err()).toContain(`auditstorm: warning: stopped reading <stdin>: ${report.input.sourceErrors[0]!.message}\n`);
  });

  it('prints the alert while the pipe is still open; SIGINT prints the final report and exits 0', async () => {
    const [first] = parts();
    const w = start(['watch', '--format', 'text', '-o', join(dir, 'watch.json')]);
    w.child.stdin.write(first);
    await until(() => w.out().includes(' OPEN '), 'the OPEN alert', 15_000);
    expect(w.child.stdin.writableEnded).toBe(false);
    const open = w
      .out()
      .split('\n')
      .find((l) => l.includes(' OPEN '))!;
    expect(open).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z OPEN {3}critical conflict-storm appdeployment-operator retries 409 Conflict on appdeployments\.infra\.company\.io\/status default\/payment-core without backoff: /,
    );
    expect(open).toContain(`| user=${STORM.user} object=${STORM.object} `);
    expect(open).toContain(`id=${STORM.id}`);
    // The episode is still open (its 60 s window still holds the storm): SIGINT closes it.
    w.child.kill('SIGINT');
    expect(await w.exit).toEqual({ code: 0, signal: null });
    expect(w.out()).toContain(' CLOSED critical conflict-storm ');
    expect(w.out()).toContain('FINDINGS (1: 1 critical)');
    expect(w.out()).toContain(`User            ${STORM.user}`);
    const report = ReportSchema.parse(JSON.parse(await readFile(join(dir, 'watch.json'), 'utf8')));
    expect(report.findings.map((f) => [f.id, f.kind])).toEqual([[STORM.id, STORM.kind]]);
    expect(w.err()).toBe('');
  }, 30_000);

  it('follows a file across rotation (renamed, then a new file) and alerts on the storm', async () => {
    const lines = incidentLines();
    const active = join(dir, 'audit.log');
    await writeFile(active, '');
    // --from-start: the file is empty now, and whenever the process gets to open it, nothing is missed.
    const w = start(['watch', active, '--from-start', '--format', 'ndjson']);
    const mid = lines.findIndex((l) => (JSON.parse(l) as { stageTimestamp: string }).stageTimestamp >= '2026-02-27T14:11:20');
    await appendFile(active, lines.slice(0, mid).join('\n') + '\n');
    await until(() => w.out().includes('"phase":"open"'), 'the open alert', 15_000);
    await rename(active, join(dir, 'audit-2026-02-27T14-11-20.000.log'));
    await writeFile(active, lines.slice(mid).join('\n') + '\n');
    await until(() => w.out().includes('"phase":"close"'), 'the close alert from the new file', 15_000);
    w.child.kill('SIGTERM');
    expect(await w.exit).toEqual({ code: 0, signal: null });
    const objs = w
      .out()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; id?: string; report?: unknown });
    expect(objs.map((o) => [o.type, o.id])).toEqual([
      ['alert', STORM.id],
      ['alert', STORM.id],
      ['report', undefined],
    ]);
    const report = ReportSchema.parse(objs[2]!.report);
    expect(report.input.requests).toBe(1184);
    expect(report.input.sources.map((x) => [x.name, x.requests])).toEqual([[active, 1184]]);
  }, 30_000);

  it('--format ndjson writes one JSON object per alert, then the report, when the input ends', async () => {
    const [first, rest] = parts();
    const w = start(['watch', '--format', 'ndjson', '-']);
    w.child.stdin.end(first + rest);
    expect(await w.exit).toEqual({ code: 0, signal: null });
    const objs = w
      .out()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; phase?: string; id?: string; kind?: string; outcome?: string; report?: unknown });
    expect(objs.map((o) => [o.type, o.phase, o.kind, o.id, o.outcome])).toEqual([
      ['alert', 'open', STORM.kind, STORM.id, undefined],
      ['alert', 'close', STORM.kind, STORM.id, 'finding'],
      ['report', undefined, undefined, undefined, undefined],
    ]);
    expect(ReportSchema.parse(objs[2]!.report).input.requests).toBe(1184);
  }, 30_000);

  /** `watch` with `args`: stdout closed at its first output (as `| head` does), then the rest of the input. */
  async function watchWithStdoutClosed(args: string[]): Promise<ReturnType<typeof start>> {
    const [first, rest] = parts();
    const w = start(args);
    w.child.stdout.once('data', () => w.child.stdout.destroy());
    w.child.stdin.write(first);
    await new Promise((r) => setTimeout(r, 300));
    w.child.stdin.end(rest);
    return w;
  }

  it('exits quietly when stdout is closed (| head)', async () => {
    const w = await watchWithStdoutClosed(['watch']);
    expect((await w.exit).code).toBe(0);
    expect(w.err()).toBe('');
  }, 30_000);

  it('with stdout closed (| head) still writes the -o report of what was read', async () => {
    const out = join(dir, 'closed-stdout.json');
    const w = await watchWithStdoutClosed(['watch', '-q', '-o', out]);
    expect((await w.exit).code).toBe(0);
    expect(w.err()).toBe('');
    const report = ReportSchema.parse(JSON.parse(await readFile(out, 'utf8')));
    expect(report.findings.map((f) => [f.kind, f.id])).toEqual([[STORM.kind, STORM.id]]);
  }, 30_000);

  it('has --help, and rejects flags and formats that do not fit (exit 2)', async () => {
    const help = start(['watch', '--help']);
    expect(await help.exit).toEqual({ code: 0, signal: null });
    expect(help.out()).toContain('Alert on storms while the log is written');
    expect(help.out()).toContain('--from-start');
    const top = start(['help']);
    expect((await top.exit).code).toBe(0);
    expect(top.out()).toContain('auditstorm watch [PATH | -]');
    expect(top.out()).toContain('auditstorm serve --listen HOST:PORT');
    for (const [args, msg] of [
      [['watch', '--format', 'html'], /watch --format html: alerts are text or ndjson/],
      [['analyze', '--listen', '127.0.0.1:1'], /--listen is an option of serve, not of analyze/],
      [['analyze', '--format', 'ndjson', 'x.log'], /Invalid values: Argument: format, Given: "ndjson"/],
      [['watch', 'a.log', 'b.log'], /watch follows one input/],
      [['watch', '--since', '15m'], /no end to count back from/],
      [['serve', '--listen', 'nope'], /--listen nope: expected HOST:PORT/],
      [['serve', '--tls-cert', 'x.crt'], /--tls-cert and --tls-key go together/],
    ] as const) {
      const r = start([...args]);
      r.child.stdin.end('');
      expect([args, (await r.exit).code]).toEqual([args, 2]);
      expect(r.err()).toMatch(msg);
    }
  }, 30_000);
});

describe('auditstorm serve', () => {
  it('prints the address it bound also with -q (port 0: the only way to learn the port)', async () => {
    const s = start(['serve', '--listen', '127.0.0.1:0', '-q']);
    await until(() => /listening on http:\/\/127\.0\.0\.1:\d+ /.test(s.err()), 'the server to listen');
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(s.err())![1]);
    expect(port).toBeGreaterThan(0);
    s.child.kill('SIGTERM');
    expect(await s.exit).toEqual({ code: 0, signal: null });
    expect(s.err()).toBe(`auditstorm: listening on http://127.0.0.1:${port} (POST audit EventLists; GET /metrics /healthz /report /report.html)\n`);
  }, 30_000);

  it('answers the webhook, shows /metrics, and prints the final report on SIGTERM', async () => {
    const s = start(['serve', '--listen', '127.0.0.1:0']);
    await until(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(s.err()), 'the server to listen');
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(s.err())![1]);
    const send = (method: string, path: string, body?: string): Promise<{ status: number; body: string }> =>
      new Promise((res, rej) => {
        const req = request({ host: '127.0.0.1', port, method, path, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (r) => {
          let b = '';
          r.setEncoding('utf8').on('data', (d: string) => (b += d));
          r.on('end', () => res({ status: r.statusCode ?? 0, body: b }));
        });
        req.on('error', rej);
        req.end(body);
      });
    for (const body of eventLists(incidentLines())) expect((await send('POST', '/audit', body)).status).toBe(200);
    expect(await send('POST', '/audit', '{"kind":"EventList","items":[]}')).toEqual({ status: 400, body: 'no audit events in the body (an EventList with no items?)\n' });
    await until(() => s.out().includes(' OPEN '), 'the OPEN alert');
    const metrics = (await send('GET', '/metrics')).body;
    expect(metrics).toContain('auditstorm_episodes_opened_total{kind="conflict-storm"} 1');
    expect(metrics).toContain('auditstorm_events_parsed_total 1184');
    expect(metrics).toMatch(/process_resident_memory_bytes \d+/);
    s.child.kill('SIGTERM');
    expect(await s.exit).toEqual({ code: 0, signal: null });
    expect(s.out()).toContain(`#1  CRITICAL  conflict-storm`);
    expect(s.out()).toContain('webhook');
  }, 30_000);
});
