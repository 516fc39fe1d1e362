import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { appendFile, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyze } from '../../src/index.js';
import type { LiveAlert } from '../../src/live/alerts.js';
import { formatAlertJson, formatAlertText } from '../../src/live/alerts.js';
import { watch } from '../../src/live/watch.js';
import { generateLog } from '../../src/generator/generate.js';
import { PRESETS } from '../../src/generator/presets.js';
import { incidentLines, STORM, until } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'auditstorm-watch-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Lines before / from 14:11:40 UTC: the storm (14:11:10–14:11:30) is in the first part. */
function split(lines: string[]): [string[], string[]] {
  const cut = lines.findIndex((l) => (JSON.parse(l) as { stageTimestamp: string }).stageTimestamp >= '2026-02-27T14:11:40');
  return [lines.slice(0, cut), lines.slice(cut)];
}

describe('watch', () => {
  it('alerts on a pipe before the input ends; the final report equals analyze()', async () => {
    const lines = incidentLines();
    const [first, rest] = split(lines);
    const stdin = new PassThrough();
    const alerts: LiveAlert[] = [];
    const run = await watch({ inputs: ['-'] }, { stdin, onAlert: (a) => alerts.push(a) }, { tickMs: 50 });
    stdin.write(first.join('\n') + '\n');
    await until(() => alerts.some((a) => a.phase === 'open'), 'the open alert');
    expect(stdin.writableEnded).toBe(false);
    const open = alerts.find((a) => a.phase === 'open')!;
    expect([open.finding.kind, open.finding.id, open.finding.actors[0]!.username]).toEqual([STORM.kind, STORM.id, STORM.user]);
    expect(formatAlertText(open)).toContain(`OPEN   critical conflict-storm appdeployment-operator retries 409 Conflict`);
    expect(formatAlertText(open)).toContain(`user=${STORM.user} object=${STORM.object}`);
    expect(JSON.parse(formatAlertJson(open))).toMatchObject({ type: 'alert', phase: 'open', kind: STORM.kind, id: STORM.id, object: { name: 'payment-core' } });
    stdin.end(rest.join('\n') + '\n');
    const report = await run.done;
    expect(alerts.map((a) => a.phase)).toEqual(['open', 'close']);
    const batch = await analyze({ inputs: ['-'], reorderWindowMs: 1000 }, { stdin: Readable.from([lines.join('\n') + '\n']) });
    expect(report.findings.map((f) => [f.id, f.title])).toEqual(batch.findings.map((f) => [f.id, f.title]));
    expect(report.input.requests).toBe(1184);
    // stdin has no size on disk: the bytes read are shown.
    const bytes = Buffer.byteLength(lines.join('\n') + '\n');
    expect(report.input.sources).toEqual([{ name: '<stdin>', kind: 'stdin', format: 'jsonl', bytes, lines: 1184, events: 1184, requests: 1184, badLines: 0, truncated: 0 }]);
    expect(batch.input.sources[0]!.bytes).toBe(bytes);
  });

  it('stop() ends a watch whose pipe stays open, with the report so far', async () => {
    const [first] = split(incidentLines());
    const stdin = new PassThrough();
    const run = await watch({ inputs: ['-'] }, { stdin, onAlert: () => {} }, { tickMs: 50 });
    stdin.write(first.join('\n') + '\n');
    await until(() => run.session.status().requestsRead === first.length, 'the first part to be read');
    run.stop();
    const report = await run.done;
    expect(report.findings.map((f) => f.id)).toEqual([STORM.id]);
    expect(report.input.requests).toBe(first.length);
  });

  it('follows a file across rotation and alerts on the storm', async () => {
    const lines = incidentLines();
    const active = path.join(dir, 'audit.log');
    await writeFile(active, '');
    const alerts: LiveAlert[] = [];
    const run = await watch({ inputs: [active] }, { onAlert: (a) => alerts.push(a) }, { tickMs: 50, follow: { pollMs: 20 } });
    // The storm is split over the rotation: half in the old file, half in the new one.
    const stormMid = lines.findIndex((l) => (JSON.parse(l) as { stageTimestamp: string }).stageTimestamp >= '2026-02-27T14:11:20');
    await appendFile(active, lines.slice(0, stormMid).join('\n') + '\n');
    await until(() => run.session.status().requestsRead === stormMid, 'the first file');
    await rename(active, path.join(dir, 'audit-2026-02-27T14-11-20.000.log'));
    await writeFile(active, lines.slice(stormMid).join('\n') + '\n');
    await until(() => run.session.status().requestsRead === lines.length, 'the rotated-to file');
    await until(() => alerts.some((a) => a.phase === 'close'), 'the close alert');
    run.stop();
    const report = await run.done;
    expect(alerts.map((a) => [a.phase, a.finding.id])).toEqual([
      ['open', STORM.id],
      ['close', STORM.id],
    ]);
    expect(report.findings.map((f) => [f.kind, f.actors[0]!.username])).toEqual([[STORM.kind, STORM.user]]);
    expect(report.input.sources[0]).toMatchObject({ name: active, lines: 1184, requests: 1184 });
  });

  it('alerts only on storms: writers that back off or RetryOnConflict successfully raise no alert (they become notes)', async () => {
    const sample = PRESETS['sample']!;
    const text = [...generateLog(sample.spec(sample.seed)).lines].join('\n') + '\n';
    const alerts: LiveAlert[] = [];
    const run = await watch({ inputs: ['-'] }, { stdin: Readable.from([text]), onAlert: (a) => alerts.push(a) });
    const report = await run.done;
    const ff = 'system:serviceaccount:featureflag-system:featureflag-controller-manager';
    expect(alerts.map((a) => [a.phase, a.finding.severity, a.finding.actors[0]!.username, a.outcome])).toEqual([
      ['open', 'critical', ff, undefined],
      ['close', 'critical', ff, 'finding'],
    ]);
    expect(report.findings.map((f) => f.actors[0]!.username)).toEqual([ff]);
    expect(report.notes.map((f) => f.actors[0]!.username).sort()).toEqual([
      'system:serviceaccount:cache-system:cachecluster-controller-manager',
      'system:serviceaccount:cache-system:cachecluster-controller-manager',
      'system:serviceaccount:quota-system:tenantquota-controller',
    ]);
  });

  it('reads a named pipe as a stream (as `watch <(tail -F …)` gives one)', async () => {
    const fifo = path.join(dir, 'audit.fifo');
    execFileSync('mkfifo', [fifo]);
    const [first, rest] = split(incidentLines());
    const alerts: LiveAlert[] = [];
    const running = watch({ inputs: [fifo] }, { onAlert: (a) => alerts.push(a) }, { tickMs: 50 });
    const writer = createWriteStream(fifo);
    writer.write(first.join('\n') + '\n');
    const run = await running;
    await until(() => alerts.some((a) => a.phase === 'open'), 'the open alert');
    writer.end(rest.join('\n') + '\n');
    const report = await run.done;
    expect(alerts.map((a) => [a.phase, a.finding.id])).toEqual([
      ['open', STORM.id],
      ['close', STORM.id],
    ]);
    expect(report.input.sources.map((x) => [x.name, x.requests])).toEqual([[fifo, 1184]]);
  });

  it('rejects input that is not an audit log', async () => {
    const stdin = new PassThrough();
    const run = await watch({ inputs: ['-'], sniffLines: 3 }, { stdin, onAlert: () => {} });
    stdin.end('hello\nworld\nagain\n');
    await expect(run.done).rejects.toThrow(/does not look like a kube-apiserver audit log/);
  });

  it('rejects a pipe that stays open after 20 lines that are not audit events, without waiting for its end', async () => {
    const stdin = new PassThrough();
    const run = await watch({ inputs: ['-'] }, { stdin, onAlert: () => {} });
    stdin.write(Array.from({ length: 30 }, (_, i) => `plain text log line ${i + 1}`).join('\n') + '\n');
    await expect(run.done).rejects.toThrow(/none of its first 20 non-blank lines is an audit event/);
    expect(stdin.writableEnded).toBe(false);
    stdin.destroy();
  });

  it('warns once when only bad lines came so far', async () => {
    const stdin = new PassThrough();
    const warnings: string[] = [];
    const run = await watch({ inputs: ['-'] }, { stdin, onAlert: () => {}, onWarning: (m) => warnings.push(m) }, { statusIntervalMs: 50 });
    stdin.write('hello world\n');
    await until(() => warnings.length > 0, 'the warning');
    expect(warnings).toEqual([
      'no audit event yet: the 1 line read so far is not an audit event (line 1: not JSON (Unexpected token \'h\', "hello world" is not valid JSON)); still reading (the watch stops with exit 2 after 20 such lines)',
    ]);
    stdin.end(incidentLines().slice(0, 10).join('\n') + '\n');
    const report = await run.done;
    expect([report.input.events, report.input.badLines]).toEqual([10, 1]);
    expect(warnings).toHaveLength(1);
  });
});
