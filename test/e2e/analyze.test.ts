/**
 * analyze() on awkward inputs: a directory with a stray file or a .gz still being written, a
 * pipe with a duration for --since, filters that must not change a finding's severity.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { warningsFor } from '../../src/cli/output.js';
import { analyze, InputError, UsageError } from '../../src/index.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SAMPLE = path.join(ROOT, 'fixtures/sample/audit.log.gz');
const INCIDENT = path.join(ROOT, 'fixtures/incident/payment-core.log');
const fixed = { now: () => new Date('2026-01-01T00:00:00Z') };
const dir = mkdtempSync(path.join(tmpdir(), 'auditstorm-analyze-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('unreadable sources are skipped, not fatal', () => {
  it('a stray notes file and a truncated rotated .gz next to a good log', async () => {
    const d = path.join(dir, 'logs');
    execFileSync('mkdir', ['-p', d]);
    copyFileSync(INCIDENT, path.join(d, 'audit.log'));
    writeFileSync(path.join(d, 'NOTES.txt'), 'rotated by hand on Tuesday\n');
    const gz = readFileSync(SAMPLE);
    writeFileSync(path.join(d, 'audit-2026-03-14T09-10-00.000.log.gz'), gz.subarray(0, 100_000));
    const r = await analyze({ inputs: [d] }, fixed);
    expect(r.input.sourceErrors.map((e) => [path.basename(e.source), e.message.split(':')[0]])).toEqual([
      ['NOTES.txt', `"${path.join(d, 'NOTES.txt')}" does not look like a kube-apiserver audit log`],
      ['audit-2026-03-14T09-10-00.000.log.gz', `Cannot read "${path.join(d, 'audit-2026-03-14T09-10-00.000.log.gz')}"`],
    ]);
    // The incident log is read whole; the truncated archive counts what it held before the cut.
    const incident = r.input.sources.find((x) => x.name.endsWith('audit.log'))!;
    expect(incident.requests).toBe(1184);
    expect(r.findings.filter((f) => f.object?.name === 'payment-core')).toHaveLength(1);
    // The cut archive says how much of it was read; the notes file's line is no bad line of the run.
    const cut = r.input.sources.find((x) => x.name.endsWith('.log.gz'))!;
    expect(cut.events).toBeGreaterThan(0);
    expect(r.input.sourceErrors[1]!.message).toMatch(
      new RegExp(`Read up to there: ${cut.lines.toLocaleString('en-US')} lines, ${cut.events.toLocaleString('en-US')} events counted\\.$`),
    );
    // Listed as skipped: no format, no bad lines (it was never read as audit events).
    const notes = r.input.sources.find((x) => x.name.endsWith('NOTES.txt'))!;
    expect([notes.format, notes.badLines, notes.events]).toEqual(['skipped', 0, 0]);
    expect(r.input.badLines).toBe(cut.badLines);
    expect(r.input.badLineSamples.filter((b) => b.source.endsWith('NOTES.txt'))).toEqual([]);
    // The archive's events (the sample, later in time) are read before audit.log's (the incident,
    // earlier), so every one of the incident's requests comes later than the reorder window.
    expect(r.input.lateRequests).toBe(1184);
    expect(warningsFor(r).map((w) => w.split(' ').slice(0, 2).join(' '))).toEqual(['skipped ' + path.join(d, 'NOTES.txt') + ':', 'stopped reading', '1,184 of']);
  });

  it('a single file that is not an audit log is still an input error', async () => {
    const f = path.join(dir, 'policy.yaml');
    writeFileSync(f, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    await expect(analyze({ inputs: [f] }, fixed)).rejects.toBeInstanceOf(InputError);
  });
});

describe('--since with a duration needs the end of the log', () => {
  it('is refused for a FIFO instead of hanging on it', async () => {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(analyze({ inputs: [fifo], since: '1m' }, fixed)).rejects.toBeInstanceOf(UsageError);
  });

  it('counts back from the last event of a file', async () => {
    const r = await analyze({ inputs: [INCIDENT], since: '1m' }, fixed);
    expect(r.settings.filters).toMatchObject({ since: '2026-02-27T14:11:59.581Z' });
    expect((r.input.timeRange?.from ?? '') >= '2026-02-27T14:11:59.581Z').toBe(true);
  });
});

describe('filters choose what is judged, not the denominator', () => {
  it('the incident storm keeps its share of all writes under -n and --resource', async () => {
    const all = await analyze({ inputs: [INCIDENT] }, fixed);
    const storm = all.findings.find((f) => f.kind === 'conflict-storm')!;
    for (const opts of [{ namespaces: ['default'] }, { resources: ['appdeployments.infra.company.io'] }]) {
      const r = await analyze({ inputs: [INCIDENT], ...opts }, fixed);
      const f = r.findings.find((x) => x.kind === 'conflict-storm')!;
      expect([f.severity, f.metrics.shareOfWrites, f.metrics.attempts]).toEqual([storm.severity, storm.metrics.shareOfWrites, storm.metrics.attempts]);
      expect(r.input.skipped.filtered).toBeGreaterThan(0);
    }
  });

  it('a filter that matches nothing is a warning', async () => {
    const r = await analyze({ inputs: [INCIDENT], verbs: ['UPDATE'] }, fixed);
    expect(r.input.requests).toBe(0);
    expect(warningsFor(r)).toEqual(['no request matched the filters (1184 requests were filtered out)']);
  });
});

describe('--since with a duration on other shapes', () => {
  it('finds the end of a gzipped log and of a pretty-printed document', async () => {
    const gz = await analyze({ inputs: [SAMPLE], since: '2m' }, fixed);
    expect(gz.settings.filters).toMatchObject({ since: '2026-03-14T09:07:59.691Z' });
    const doc = path.join(dir, 'doc.json');
    const lines = readFileSync(INCIDENT, 'utf8').trim().split('\n');
    writeFileSync(doc, lines.map((l) => JSON.stringify(JSON.parse(l), null, 2)).join('\n'));
    const r = await analyze({ inputs: [doc], since: '1m' }, fixed);
    expect(r.settings.filters).toMatchObject({ since: '2026-02-27T14:11:59.581Z' });
    expect(r.input.sources[0]?.format).toBe('json-docs');
  });
});
