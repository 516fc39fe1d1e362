/**
 * `auditstorm diff` end to end on generated before/after pairs (src/generator): the storm gone,
 * reduced, a new storm from another controller, the same storm from renamed pods with new
 * auditIDs; report and log inputs mixed; bad inputs and exit codes; every output format.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { main } from '../../src/cli/main.js';
import { DiffReportSchema, type DiffReport } from '../../src/diff/schema.js';
import { generateLog, logText } from '../../src/generator/generate.js';
import type { ScenarioSpec } from '../../src/generator/scenarios.js';
import { renderJson } from '../../src/report/json.js';
import { fakeIO } from './helpers.js';

const MINUTE = 60_000;
const STORM = { type: 'storm', startOffsetMs: 2 * MINUTE, durationMs: 3 * MINUTE, ratePerSec: 30 } as const;
const STORM_KEY = 'conflict-storm · featureflag-system/featureflag-controller-manager · featureflags.platform.example.com/status checkout/checkout-flags';
const INCIDENT_KEY = 'conflict-storm · appdeployment-system/appdeployment-operator · appdeployments.infra.company.io/status default/payment-core';

let dir: string;
const path = (name: string) => join(dir, name);

function writeGenerated(name: string, seed: number, scenarios: ScenarioSpec[]): void {
  const log = generateLog({ seed, start: '2026-03-14T09:00:00Z', durationMs: 8 * MINUTE, scenarios: [{ type: 'background', nodes: 3 }, ...scenarios] });
  writeFileSync(path(name), `${logText(log)}\n`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'auditstorm-diff-'));
  writeGenerated('before.log', 11, [STORM]);
  writeGenerated('gone.log', 12, []);
  writeGenerated('reduced.log', 13, [{ ...STORM, ratePerSec: 6 }]);
  writeGenerated('renamed.log', 14, [STORM]);
  writeGenerated('new.log', 15, [STORM, { type: 'incident', startOffsetMs: MINUTE, durationMs: MINUTE }]);
  const report = await analyze({ inputs: [path('before.log')] }, { now: () => new Date('2026-03-14T12:00:00Z') });
  writeFileSync(path('before.json'), renderJson(report));
  writeGenerated('bodies.log', 16, [{ type: 'transitionTimeReplay', level: 'RequestResponse' }]);
  writeGenerated('metadata.log', 17, [{ type: 'transitionTimeReplay', level: 'Metadata' }]);
  writeFileSync(path('notes.txt'), 'just some notes\nnothing to see here\n');
  writeFileSync(path('broken.json'), renderJson(report).replace('"findings": [', '"findings": 7, "x": ['));
  writeFileSync(path('old.json'), '{"schemaVersion": 0, "tool": {"name": "auditstorm"}}');
}, 120_000);

async function diff(...args: string[]): Promise<{ code: number; d: DiffReport; stderr: string }> {
  const io = fakeIO();
  const code = await main(['diff', ...args, '--format', 'json'], io);
  expect(io.stderr.text).toBe('');
  return { code, d: DiffReportSchema.parse(JSON.parse(io.stdout.text)), stderr: io.stderr.text };
}

describe('auditstorm diff on generated pairs', () => {
  it('the storm gone: fixed, exit 0 with --fail-on', async () => {
    const { code, d } = await diff(path('before.log'), path('gone.log'), '--fail-on', 'low');
    expect(code).toBe(0);
    expect(d.findings.map((f) => [f.verdict, f.key, f.severity])).toEqual([['fixed', STORM_KEY, 'critical']]);
    expect(d.findings[0]!.text).toBe('409/s 10 → 0, excess requests 26,684/h → 0/h, share of writes 93.4% → n/a');
    expect(d.counts).toEqual({ fixed: 1, new: 0, better: 0, same: 0, worse: 0 });
  });

  it('the storm reduced but still there: better, with both rates', async () => {
    const { code, d } = await diff(path('before.log'), path('reduced.log'), '--fail-on', 'low');
    expect(code).toBe(0);
    expect(d.findings.map((f) => [f.verdict, f.key, f.text])).toEqual([
      ['better', STORM_KEY, '409/s 10 → 2, writes/s 11 → 2.3, excess requests 26,684/h → 5,550/h, peak 409/s 86 → 64, share of writes 93.4% → 73.0%'],
    ]);
    const m = Object.fromEntries(d.findings[0]!.measures.map((x) => [x.key, [x.before, x.after]]));
    const conflicts = (r: DiffReport['findings'][number]['before']) => r!.findings.reduce((s, f) => s + (f.metrics['conflicts'] as number), 0);
    // 409/s is the finding's 409s over the whole run's duration.
    expect(m['conflictsPerSec']![0]).toBeCloseTo(conflicts(d.findings[0]!.before) / (d.before.durationMs / 1000), 9);
    expect(m['conflictsPerSec']![1]).toBeCloseTo(conflicts(d.findings[0]!.after) / (d.after.durationMs / 1000), 9);
    expect(m['conflictsPerSec']![1]! / m['conflictsPerSec']![0]!).toBeLessThan(0.8);
  });

  it('a new storm from another controller: new, exit 1 at --fail-on high; the old storm is the same', async () => {
    const { code, d } = await diff(path('before.log'), path('new.log'), '--fail-on', 'high');
    expect(code).toBe(1);
    expect(d.findings.map((f) => [f.verdict, f.key, f.text])).toEqual([
      ['new', INCIDENT_KEY, '409/s 0 → 10, excess requests 0/h → 29,323/h, share of writes n/a → 97.9%'],
      ['same', STORM_KEY, '409/s 10 → 10, writes/s 11 → 11, excess requests 26,684/h → 27,197/h, peak 409/s 86 → 113, share of writes 93.4% → 93.2%'],
    ]);
    expect((await diff(path('before.log'), path('new.log'))).code).toBe(0);
  });

  it('the same storm from renamed pods with new auditIDs: same', async () => {
    const { code, d } = await diff(path('before.log'), path('renamed.log'), '--fail-on', 'info');
    expect(code).toBe(0);
    expect(d.findings.map((f) => [f.verdict, f.key, f.text])).toEqual([
      ['same', STORM_KEY, '409/s 10 → 10, writes/s 11 → 11, excess requests 26,684/h → 27,273/h, peak 409/s 86 → 105, share of writes 93.4% → 93.0%'],
    ]);
    const [b, a] = [d.findings[0]!.before!.findings[0]!, d.findings[0]!.after!.findings[0]!];
    // Nothing that identifies requests or pods is shared.
    expect(b.actors[0]!.sourceIPs.filter((ip) => a.actors[0]!.sourceIPs.includes(ip))).toEqual([]);
    expect(b.evidence.auditIDs.filter((id) => a.evidence.auditIDs.includes(id))).toEqual([]);
    expect(b.id).not.toBe(a.id);
  });

  it('different audit levels: says what only one run can see', async () => {
    const { d } = await diff(path('bodies.log'), path('metadata.log'));
    expect(d.findings.map((f) => [f.verdict, f.kind, f.limits])).toEqual([
      [
        'same',
        'no-op-writes',
        [
          'audit level RequestResponse in BEFORE, Metadata in AFTER',
          'BEFORE counted 479 no-op writes that change only timestamps, seen in bodies; AFTER was logged at Metadata level, where only writes that left the resourceVersion unchanged can be seen',
        ],
      ],
      ['same', 'hot-loop', ['audit level RequestResponse in BEFORE, Metadata in AFTER']],
    ]);
    expect(d.limits).toEqual([
      "BEFORE's evidence was logged at RequestResponse, AFTER's at Metadata: what only bodies show (no-op writes that change only timestamps, the fields a write fight flips) is seen at Request level and above, so a finding proven in one run may be only suspected, or missing, in the other",
    ]);
  });

  it('a JSON report and a log mixed give the same diff as two logs', async () => {
    const fromLogs = await diff(path('before.log'), path('reduced.log'));
    const mixed = await diff(path('before.json'), path('reduced.log'));
    expect(mixed.d.before.from).toBe('report');
    expect(mixed.d.after.from).toBe('log');
    expect(mixed.d.findings.map((f) => [f.verdict, f.key, f.text])).toEqual(fromLogs.d.findings.map((f) => [f.verdict, f.key, f.text]));
    expect(mixed.d.cluster).toEqual(fromLogs.d.cluster);
  });

  it('warns that analysis options apply to log inputs only, and that the filters differ', async () => {
    const io = fakeIO();
    expect(await main(['diff', path('before.json'), path('reduced.log'), '-n', 'checkout', '--format', 'json'], io)).toBe(0);
    expect(io.stderr.text).toBe(
      `auditstorm: warning: BEFORE ${path('before.json')} is a report: analysis options apply to log inputs only; it keeps the settings it was made with\n`,
    );
    const d = DiffReportSchema.parse(JSON.parse(io.stdout.text));
    expect(d.limits.filter((l) => l.startsWith('the runs were filtered differently'))).toHaveLength(1);
    expect(d.findings.map((f) => [f.verdict, f.key])).toEqual([['better', STORM_KEY]]);
  });

  it('writes text, markdown and html files, a summary on stderr', async () => {
    const io = fakeIO();
    const code = await main(['diff', path('before.json'), path('gone.log'), '-o', path('d.md'), '-o', path('d.html'), '-o', path('d.txt'), '--tolerance', '10%'], io);
    expect(code).toBe(0);
    expect(io.stdout.text).toBe('');
    expect(io.stderr.text).toBe(`auditstorm: wrote ${path('d.md')}, ${path('d.html')}, ${path('d.txt')}: 0 worse, 0 new, 0 same, 0 better, 1 fixed\n`);
    expect(readFileSync(path('d.md'), 'utf8')).toContain(`| **fixed** | critical | conflict-storm | featureflag-system/featureflag-controller-manager |`);
    expect(readFileSync(path('d.txt'), 'utf8')).toMatch(/^auditstorm diff: 1 fixed \(tolerance 10\.0%\)\n/);
    expect(readFileSync(path('d.html'), 'utf8')).toContain('<svg id="chart-conflicts"');
  });
});

describe('auditstorm diff: bad input', () => {
  async function fails(args: string[], message: string): Promise<void> {
    const io = fakeIO();
    expect(await main(['diff', ...args], io)).toBe(2);
    expect(io.stdout.text).toBe('');
    expect(io.stderr.text).toContain(message);
  }

  it('exit 2 with a message naming the file', async () => {
    await fails([path('missing.log'), path('gone.log')], `auditstorm: ${path('missing.log')}: cannot read:`);
    await fails([path('before.log'), path('notes.txt')], `auditstorm: ${path('notes.txt')}: neither an auditstorm JSON report nor an audit log that could be read:`);
    await fails([path('broken.json'), path('gone.log')], `auditstorm: ${path('broken.json')}: not a valid auditstorm report (findings: `);
    await fails([path('old.json'), path('gone.log')], `auditstorm: ${path('old.json')}: auditstorm report with schemaVersion 0; this version reads schemaVersion 1`);
  });

  it('exit 2 on usage errors', async () => {
    await fails([path('before.log')], 'auditstorm: diff takes two inputs, BEFORE and AFTER (got 1)');
    await fails([path('before.log'), '-'], 'auditstorm: diff reads files and directories, not stdin ("-")');
    await fails([path('before.log'), path('gone.log'), '--tolerance', '150%'], 'auditstorm: --tolerance: expected a share such as 20% or 0.2, got "150%"');
    await fails([path('before.log'), path('gone.log'), '--fail-on', 'bad'], 'Invalid values');
  });

  it('a bad flag value points at diff --help, not at the analyze help', async () => {
    const io = fakeIO();
    expect(await main(['diff', path('before.log'), path('gone.log'), '--format', 'yaml'], io)).toBe(2);
    expect(io.stderr.text).toBe(
      'auditstorm: Invalid values: Argument: format, Given: "yaml", Choices: "text", "json", "markdown", "html"\nhint: run `auditstorm diff --help` for usage\n',
    );
  });

  it('--help prints the diff usage', async () => {
    const io = fakeIO();
    expect(await main(['diff', '--help'], io)).toBe(0);
    expect(io.stdout.text).toContain('auditstorm diff before.json after.log --fail-on high');
  });
});
