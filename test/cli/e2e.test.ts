/**
 * End-to-end: spawn `node bin/auditstorm.js` (the built CLI in dist/) the way users and other
 * tooling run it. Needs `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../../src/report/schema.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin', 'auditstorm.js');
const DIST_MAIN = join(ROOT, 'dist', 'cli', 'main.js');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the CLI to completion; stdin is closed (empty) unless given. */
function run(args: string[], opts: { stdin?: string; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolveRun({ code, signal, stdout, stderr }));
    // The CLI may exit before reading stdin (usage errors): that EPIPE is not the test's concern.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
  });
}

/**
 * A small audit log: one controller stuck updating one Deployment with 409s and no backoff
 * (a conflict storm), plus `extraActors` quiet actors so top-N tables (and the JSON) get long.
 */
function auditLog(extraActors: number): string {
  const lines: string[] = [];
  const t0 = Date.parse('2026-08-08T18:00:00Z');
  let id = 0;
  const event = (ms: number, user: string, verb: string, code: number, name: string) => {
    const ts = new Date(t0 + ms).toISOString().replace('Z', '000Z');
    const done = new Date(t0 + ms + 4).toISOString().replace('Z', '000Z');
    id++;
    lines.push(
      JSON.stringify({
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
        stage: 'ResponseComplete',
        requestURI: `/apis/apps/v1/namespaces/shop/deployments/${name}`,
        verb,
        user: { username: user, groups: ['system:serviceaccounts'] },
        sourceIPs: ['10.0.0.7'],
        userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
        objectRef: { resource: 'deployments', namespace: 'shop', name, apiGroup: 'apps', apiVersion: 'v1', resourceVersion: String(1000 + id) },
        responseStatus: code === 409 ? { metadata: {}, status: 'Failure', reason: 'Conflict', code } : { metadata: {}, code },
        requestReceivedTimestamp: ts,
        stageTimestamp: done,
      }),
    );
  };
  // Ten minutes, 20 updates a second, 9 in 10 rejected with 409 Conflict, each retry 50 ms later.
  for (let ms = 0; ms < 600_000; ms += 50) {
    event(ms, 'system:serviceaccount:shop:web-operator', 'update', (ms / 50) % 10 === 0 ? 200 : 409, 'web');
  }
  for (let i = 0; i < extraActors; i++) {
    event(1000 + i * 5, `user-${String(i).padStart(5, '0')}@example.com`, 'get', 200, `app-${i}`);
  }
  const ts = (line: string): string => (JSON.parse(line) as { stageTimestamp: string }).stageTimestamp;
  lines.sort((a, b) => (ts(a) < ts(b) ? -1 : 1));
  return `${lines.join('\n')}\n`;
}

let dir: string;
let smallLog: string;
let bigLog: string;

beforeAll(async () => {
  if (!existsSync(DIST_MAIN)) {
    throw new Error(`${DIST_MAIN} is missing: run \`npm run build\` before the end-to-end tests`);
  }
  dir = await mkdtemp(join(tmpdir(), 'auditstorm-e2e-'));
  smallLog = join(dir, 'audit.log');
  bigLog = join(dir, 'big-audit.log');
  await writeFile(smallLog, auditLog(0));
  await writeFile(bigLog, auditLog(5000));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('bin/auditstorm.js', () => {
  it('--help exits 0 with the usage on stdout', async () => {
    const r = await run(['--help']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('auditstorm [analyze] [paths..]');
    for (const heading of ['Input:', 'Filters:', 'Detection:', 'Output:', 'Examples:']) expect(r.stdout).toContain(heading);
  });

  it('--version prints the package version', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await run(['--version']);
    // Whether the scanner was built here decides the words; both are one line after the version.
    const { nativeScanner } = await import('../../src/decoding/native.js');
    const native = nativeScanner !== null ? 'in use' : 'not built; every line is read in JavaScript: same results, slower';
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version} (native line scanner: ${native})\n`, stderr: '' });
  });

  it('an unknown flag exits 2 with the yargs message', async () => {
    const r = await run(['--no-such-flag', smallLog]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('auditstorm: Unknown argument: no-such-flag\nhint: run `auditstorm --help` for usage\n');
  });

  it('a missing file exits 2 and names the path, without a stack trace', async () => {
    const missing = join(dir, 'no-such-audit.log');
    const r = await run([missing]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^auditstorm: /);
    expect(r.stderr).toContain(missing);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('analyzes a file and reports the conflict storm', async () => {
    const r = await run([smallLog, '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = ReportSchema.parse(JSON.parse(r.stdout));
    expect(report.input.requests).toBeGreaterThan(0);
    expect(report.findings.some((f) => f.kind === 'conflict-storm')).toBe(true);
  });

  it('--fail-on exits 1 when a finding is severe enough', async () => {
    const r = await run([smallLog, '--fail-on', 'info', '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
  });

  it('reads stdin when no path is given', async () => {
    const r = await run(['--format', 'json'], { stdin: await readFile(smallLog, 'utf8') });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(ReportSchema.parse(JSON.parse(r.stdout)).input.requests).toBeGreaterThan(0);
  });

  it('--out x.json writes valid JSON, stdout stays empty, stderr gets one summary line', async () => {
    const out = join(dir, 'x.json');
    const r = await run([smallLog, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^auditstorm: wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .* requests\\n$`));
    const report = ReportSchema.parse(JSON.parse(await readFile(out, 'utf8')));
    expect(report.tool.name).toBe('auditstorm');
  });

  it('--out x.html -o x.json -o x.md writes all three from one read', async () => {
    const [html, json, md] = ['y.html', 'y.json', 'y.md'].map((f) => join(dir, f)) as [string, string, string];
    const r = await run([smallLog, '--out', html, '-o', json, '-o', md]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const page = await readFile(html, 'utf8');
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
    const report = ReportSchema.parse(JSON.parse(await readFile(json, 'utf8')));
    const embedded = /<script id="report-data" type="application\/json">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';
    expect(JSON.parse(embedded)).toEqual(report);
    expect(await readFile(md, 'utf8')).toMatch(/^# auditstorm/);
  });

  it('--out into a missing directory exits 2 with a clear message', async () => {
    const out = join(dir, 'missing-dir', 'x.json');
    const r = await run([smallLog, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--out ${out}: directory ${join(dir, 'missing-dir')} does not exist`);
  });

  it('a reader that goes away early (| head -1) is no error: exit 0, nothing on stderr', async () => {
    const r = await new Promise<Run & { firstChunk: number }>((resolveRun, reject) => {
      const child = spawn(process.execPath, [BIN, bigLog, '--format', 'json', '--top', '5000'], {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let firstChunk = 0;
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.stdout.once('data', (d: Buffer) => {
        firstChunk = d.length;
        child.stdout.destroy();
      });
      child.on('error', reject);
      child.on('close', (code, signal) => resolveRun({ code, signal, stdout: '', stderr, firstChunk }));
    });
    expect(r.firstChunk).toBeGreaterThan(0);
    expect(r.stderr).toBe('');
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
  });
});
