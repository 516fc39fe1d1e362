/**
 * End to end: analyze() on the committed fixtures and on generated logs it has never seen
 * (other names, rates, replica counts, background noise), checked against the generator's
 * ground truth. Storms must be found exactly once on the right object and actor; benign writers
 * (RetryOnConflict, exponential backoff, leases, healthy controllers) must never be findings.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { writeLog } from '../../src/generator/generate.js';
import type { GroundTruth, LogSpec } from '../../src/generator/generate.js';
import { analyze } from '../../src/index.js';
import type { Finding, Report } from '../../src/index.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const fixed = { now: () => new Date('2026-01-01T00:00:00Z') };

function objectOf(f: Finding): string {
  const o = f.object!;
  return `${o.apiGroup}/${o.resource}/${o.namespace}/${o.name}/${o.subresource}`;
}
function truthObject(t: GroundTruth): string {
  const o = t.object;
  return `${o.apiGroup}/${o.resource}/${o.namespace}/${o.name}/${o.subresource}`;
}

/** The planted storms must be the findings, one each; nothing benign may be a finding. */
function expectMatchesTruth(report: Report, truth: GroundTruth[]): void {
  const storms = truth.filter((t) => t.kind === 'conflict-storm');
  expect(report.findings.map((f) => [f.kind, f.actors[0]!.username, objectOf(f)]).sort()).toEqual(storms.map((t) => ['conflict-storm', t.actor.username, truthObject(t)]).sort());
  for (const t of storms) {
    const f = report.findings.find((x) => objectOf(x) === truthObject(t))!;
    // Every planted 409 is in the episode; attempts may miss the successes before the first 409.
    expect(f.metrics.conflicts).toBe(t.conflicts);
    expect(Number(f.metrics.attempts)).toBeLessThanOrEqual(t.attempts);
    expect(Number(f.metrics.attempts)).toBeGreaterThan(t.attempts - 5);
    expect(f.actors[0]!.userAgent).toBe(t.actor.userAgent);
    expect(f.actors[0]!.sourceIPs).toEqual([...t.sourceIPs].sort());
    expect(f.metrics.backoff).toBe('none');
    expect(f.signals).toContain('no-backoff');
  }
}

/** auditIDs of the 409 Conflict ResponseComplete lines on one object, in file order. */
function conflictIDs(text: string, uriSuffix: string): string[] {
  const ids: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { stage: string; requestURI: string; auditID: string; responseStatus?: { code: number; reason?: string } };
    if (e.stage === 'ResponseComplete' && e.requestURI.split('?')[0]!.endsWith(uriSuffix) && e.responseStatus?.reason === 'Conflict') {
      ids.push(e.auditID);
    }
  }
  return ids;
}

describe('bundled sample (fixtures/sample/audit.log.gz)', () => {
  it('finds the one storm, names the benign writers only as notes', async () => {
    const file = path.join(ROOT, 'fixtures/sample/audit.log.gz');
    const truth = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/sample/truth.json'), 'utf8')) as GroundTruth[];
    const r = await analyze({ inputs: [file] }, fixed);
    expect(r.input).toMatchObject({ lines: 20_459, events: 20_459, requests: 10_198, badLines: 0 });
    expect(r.input.skipped).toEqual({ nonFinalStages: 10_261, duplicates: 0, filtered: 0, overlongLines: 0 });
    expectMatchesTruth(r, truth);
    const f = r.findings[0]!;
    expect(f.severity).toBe('critical');
    expect(f.signals).toEqual(['no-backoff', 'duplicate-replicas', 'stale-cache']);
    const ids = conflictIDs(gunzipSync(readFileSync(file)).toString('utf8'), '/checkout/featureflags/checkout-flags/status');
    expect(ids).toHaveLength(4891);
    expect(f.evidence.firstAuditID).toBe(ids[0]);
    expect(f.evidence.auditIDs.slice(0, 4)).toEqual(ids.slice(0, 4));
    expect(r.notes.map((n) => [n.actors[0]!.serviceAccount?.name, n.metrics.backoff])).toEqual([
      ['tenantquota-controller', 'retry-on-conflict'],
      ['cachecluster-controller-manager', 'exponential'],
      ['cachecluster-controller-manager', 'exponential'],
    ]);
  });
});

describe('the incident that started the project (fixtures/incident/payment-core.log)', () => {
  it('yields one conflict-storm on payment-core/status naming appdeployment-operator', async () => {
    const r = await analyze({ inputs: [path.join(ROOT, 'fixtures/incident/payment-core.log')] }, fixed);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.kind).toBe('conflict-storm');
    expect(f.actors[0]!.username).toBe('system:serviceaccount:appdeployment-system:appdeployment-operator');
    expect(f.actors[0]!.serviceAccount).toEqual({ namespace: 'appdeployment-system', name: 'appdeployment-operator' });
    expect(f.object).toEqual({
      apiGroup: 'infra.company.io',
      apiVersion: 'v1alpha1',
      resource: 'appdeployments',
      namespace: 'default',
      name: 'payment-core',
      subresource: 'status',
    });
    expect(f.metrics.conflicts).toBe(811);
    expect(Number(f.metrics.peak409PerSec)).toBeGreaterThan(40);
    expect(f.advice.map((a) => a.id)).toEqual(expect.arrayContaining(['patch-status', 'requeue-with-backoff', 'leader-election', 'compare-before-write']));
  });
});

describe('logs it has never seen: other names, rates, replicas and noise', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'auditstorm-unseen-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const MINUTE = 60_000;
  const variants: Array<[string, LogSpec]> = [
    [
      'slow storm, 1 replica, quiet cluster',
      {
        seed: 101,
        start: '2026-06-01T00:00:00Z',
        durationMs: 6 * MINUTE,
        scenarios: [
          { type: 'background', nodes: 5, randomizeNames: true },
          { type: 'storm', startOffsetMs: MINUTE, durationMs: 2 * MINUTE, ratePerSec: 6, replicas: 1, randomizeNames: true },
        ],
      },
    ],
    [
      'fast storm, 3 replicas, busy cluster, healthy retriers',
      {
        seed: 202,
        start: '2026-06-02T12:00:00Z',
        durationMs: 8 * MINUTE,
        scenarios: [
          { type: 'background', nodes: 60, noise: 2, randomizeNames: true },
          { type: 'storm', startOffsetMs: 3 * MINUTE, durationMs: 90_000, ratePerSec: 150, replicas: 3, randomizeNames: true },
          { type: 'retryOnConflict', randomizeNames: true },
          { type: 'exponentialBackoff', randomizeNames: true },
        ],
      },
    ],
    [
      'two storms at once on different objects',
      {
        seed: 303,
        start: '2026-06-03T06:30:00Z',
        durationMs: 7 * MINUTE,
        scenarios: [
          { type: 'background', nodes: 20, randomizeNames: true },
          { type: 'storm', startOffsetMs: MINUTE, durationMs: 3 * MINUTE, ratePerSec: 25, randomizeNames: true },
          { type: 'incident', startOffsetMs: 2 * MINUTE, durationMs: 2 * MINUTE, ratePerSec: 60, randomizeNames: true },
          { type: 'retryOnConflict', randomizeNames: true },
        ],
      },
    ],
    [
      'benign only: RetryOnConflict, backoff, leases, controllers',
      {
        seed: 404,
        start: '2026-06-04T22:00:00Z',
        durationMs: 10 * MINUTE,
        scenarios: [
          { type: 'background', nodes: 40, noise: 3, randomizeNames: true },
          { type: 'retryOnConflict', randomizeNames: true },
          { type: 'exponentialBackoff', randomizeNames: true },
        ],
      },
    ],
  ];

  it.each(variants)('%s', async (name, spec) => {
    const file = path.join(dir, `${name.replace(/\W+/g, '-')}.log.gz`);
    const log = await writeLog(file, spec);
    const r = await analyze({ inputs: [file] }, fixed);
    // Requests are the auditIDs with a ResponseComplete line (watches still open at the end of
    // the log have none), counted straight from the file.
    const completed = new Set(
      gunzipSync(readFileSync(file))
        .toString('utf8')
        .split('\n')
        .filter((l) => l.includes('"stage":"ResponseComplete"'))
        .map((l) => (JSON.parse(l) as { auditID: string }).auditID),
    );
    expect(log.requestCount).toBeGreaterThanOrEqual(completed.size);
    expect(log.completedCount).toBe(completed.size);
    expect(r.input.requests).toBe(completed.size);
    expect(r.input.badLines).toBe(0);
    expectMatchesTruth(r, log.truth);
  });
});
