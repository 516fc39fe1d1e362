/**
 * diffReports on hand-made reports: matching keys, duration-normalised rates, tolerance
 * boundaries, the verdict text, limits, --fail-on, and the renderers' escaping and schema.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diffFails, diffReports, formatAmount, matchKey, type DiffInput } from '../../src/diff/diff.js';
import { renderDiffHtml } from '../../src/diff/html.js';
import { renderDiffJson, renderDiffMarkdown, renderDiffText } from '../../src/diff/render.js';
import { DiffReportSchema, diffJsonSchema } from '../../src/diff/schema.js';
import type { Finding, Report } from '../../src/report/schema.js';
import { fakeFinding, fakeReport } from '../cli/helpers.js';

const HOUR = { from: '2026-08-08T18:00:00.000Z', to: '2026-08-08T19:00:00.000Z' };
const HALF_HOUR = { from: '2026-08-09T10:00:00.000Z', to: '2026-08-09T10:30:00.000Z' };
const OPTS = { generatedAt: '2026-08-10T00:00:00.000Z', version: '0.0.0-test' };

/** A report over `range` holding `findings`. */
function report(range: { from: string; to: string }, findings: Finding[]): Report {
  const r = fakeReport([]);
  r.input.timeRange = range;
  r.findings = findings;
  return r;
}

/** A conflict storm with the given counts (over its run). */
function storm(conflicts: number, excess: number, over: Partial<Finding> = {}): Finding {
  const f = fakeFinding('high');
  f.metrics = { attempts: conflicts + 10, conflicts, excessRequests: excess, shareOfWrites: 0.5, peak409PerSec: 9 };
  return { ...f, ...over };
}

const input = (name: string, r: Report): DiffInput => ({ name, from: 'report', report: r });

function one(before: Finding[], after: Finding[], tolerance?: number, ranges: [typeof HOUR, typeof HOUR] = [HOUR, HOUR]) {
  return diffReports(input('b.json', report(ranges[0], before)), input('a.json', report(ranges[1], after)), { ...OPTS, ...(tolerance === undefined ? {} : { tolerance }) });
}

describe('matchKey', () => {
  it('names kind, service account and object without the API version', () => {
    expect(matchKey(storm(1, 1)).key).toBe('conflict-storm · shop/ctrl · deployments.apps shop/web-0');
  });

  it('ignores ids, auditIDs, times, source IPs, pod names and the API version', () => {
    const a = storm(3600, 0);
    const b = structuredClone(a);
    b.id = 'conflict-storm/other';
    b.window = { from: '2026-08-09T10:05:00.000Z', to: '2026-08-09T10:06:00.000Z' };
    b.evidence = { ...b.evidence, auditIDs: ['x', 'y'], firstAuditID: 'x', lastAuditID: 'y' };
    b.actors[0]!.sourceIPs = ['10.9.9.9'];
    b.actors[0]!.userAgent = 'manager/v0.0.0 (linux/amd64) kubernetes/$Format/pod-zz';
    b.object!.apiVersion = 'v2';
    expect(matchKey(b).key).toBe(matchKey(a).key);
  });

  it('falls back from service account to username to userAgent product', () => {
    const f = storm(1, 1);
    f.actors[0]!.serviceAccount = null;
    expect(matchKey(f).actor).toBe('system:serviceaccount:shop:ctrl');
    f.actors[0]!.username = '';
    expect(matchKey(f).actor).toBe('manager');
  });

  it('keys fleet storms by family and resources, write fights by both writers, object-less findings by their resources', () => {
    const fleet = storm(1, 1, { kind: 'fleet-storm', object: null });
    fleet.metrics = { family: 'system:node:*', topObjects: 'nodes/status n-1(33), nodes/status n-2(3), leases.coordination.k8s.io kube-node-lease/n-1(2)' };
    expect(matchKey(fleet).key).toBe('fleet-storm · system:node:* · leases.coordination.k8s.io, nodes/status');
    const fight = storm(1, 1, { kind: 'write-fight' });
    fight.actors = [{ ...fight.actors[0]!, serviceAccount: { namespace: 'z', name: 'hpa' } }, { ...fight.actors[0]! }];
    expect(matchKey(fight).actor).toBe('shop/ctrl and z/hpa');
    const create = storm(1, 1, { kind: 'create-conflict-storm' });
    create.metrics = { resources: 'secrets, configmaps' };
    expect(matchKey(create).key).toBe('create-conflict-storm · shop/ctrl · configmaps, secrets');
    const throttled = storm(1, 1, { kind: 'throttling', object: null });
    expect(matchKey(throttled).key).toBe('throttling · shop/ctrl · ');
  });
});

describe('verdicts', () => {
  it('fixed, new and the numbers, normalised by each run', () => {
    const gone = one([storm(3600, 41_000)], []);
    expect(gone.findings.map((f) => [f.verdict, f.text])).toEqual([['fixed', '409/s 1 → 0, excess requests 41,000/h → 0/h, share of writes 50.0% → n/a']]);
    const fresh = one([], [storm(270, 120)]);
    expect(fresh.findings.map((f) => [f.verdict, f.severity, f.text])).toEqual([['new', 'high', '409/s 0 → 0.075, excess requests 0/h → 120/h, share of writes n/a → 50.0%']]);
  });

  it('rates per run duration: the same count in half the time is twice the rate', () => {
    const d = one([storm(3600, 3600)], [storm(1800, 1800)], undefined, [HOUR, HALF_HOUR]);
    expect(d.findings.map((f) => [f.verdict, f.text])).toEqual([
      ['same', '409/s 1 → 1, writes/s 1 → 1, excess requests 3,600/h → 3,600/h, peak 409/s 9 → 9, share of writes 50.0% → 50.0%'],
    ]);
    expect(d.limits).toContain(
      "BEFORE covers 1h 00m, AFTER 30m 00s: rates are averaged over each run's whole length, so a storm shorter than its run looks weaker in the longer run",
    );
  });

  it('better and worse at the tolerance boundary (20 % by default, --tolerance)', () => {
    expect(one([storm(1000, 1000)], [storm(1200, 1000)]).findings[0]!.verdict).toBe('same');
    expect(one([storm(1000, 1000)], [storm(1201, 1000)]).findings[0]!.verdict).toBe('worse');
    expect(one([storm(1000, 1000)], [storm(800, 1000)]).findings[0]!.verdict).toBe('same');
    expect(one([storm(1000, 1000)], [storm(799, 1000)]).findings[0]!.verdict).toBe('better');
    expect(one([storm(1000, 1000)], [storm(1201, 1000)], 0.3).findings[0]!.verdict).toBe('same');
    // One rate better, another worse: worse wins (a CI gate must not miss it).
    expect(one([storm(1000, 1000)], [storm(500, 2000)]).findings[0]!.verdict).toBe('worse');
    expect(one([storm(75 * 3600, 41_000)], [storm(0.3 * 3600, 120)]).findings[0]!.text).toBe(
      '409/s 75 → 0.3, writes/s 75 → 0.3, excess requests 41,000/h → 120/h, peak 409/s 9 → 9, share of writes 50.0% → 50.0%',
    );
  });

  it('create storms (no bad answers) are judged on creates/s, keyed by their resource', () => {
    const cs = (creates: number) =>
      storm(0, creates, {
        kind: 'create-storm',
        object: null,
        metrics: { creates, resource: 'certificaterequests.cert-manager.io', excessRequests: creates - 3600, peakCreatesPerSec: 4 },
      });
    expect(matchKey(cs(1)).key).toBe('create-storm · shop/ctrl · certificaterequests.cert-manager.io');
    const d = one([cs(36_000)], [cs(7200)]);
    expect(d.findings.map((f) => [f.verdict, f.text])).toEqual([['better', 'creates/s 10 → 2, excess requests 32,400/h → 3,600/h, peak creates/s 4 → 4']]);
  });

  it('within tolerance, a change of severity decides', () => {
    const d = one([storm(1000, 1000)], [{ ...storm(1000, 1000), severity: 'critical' }]);
    expect(d.findings[0]!.verdict).toBe('worse');
    expect(d.findings[0]!.severity).toBe('critical');
  });

  it('adds up several episodes of one key', () => {
    const b = [storm(1800, 100, { id: 'a' }), storm(1800, 100, { id: 'b', window: { from: '2026-08-08T18:40:00.000Z', to: '2026-08-08T18:45:00.000Z' } })];
    const d = one(b, [storm(3600, 200)]);
    expect(d.findings).toHaveLength(1);
    expect(d.findings[0]!.verdict).toBe('same');
    expect(d.findings[0]!.before!.findings).toHaveLength(2);
  });

  it('says when evidence is proven in one run and only suspected in the other', () => {
    const suspected = storm(1000, 1000);
    suspected.evidence = { ...suspected.evidence, level: 'suspected', auditLevel: 'Metadata' };
    const proven = storm(1000, 1000);
    proven.evidence = { ...proven.evidence, level: 'proven', auditLevel: 'RequestResponse' };
    const d = one([suspected], [proven]);
    expect(d.findings[0]!.limits).toEqual([
      'evidence suspected in BEFORE (audit level Metadata) but proven in AFTER (audit level RequestResponse): the two runs do not prove the same thing',
    ]);
    expect(d.limits).toContain(
      "BEFORE's evidence was logged at Metadata, AFTER's at RequestResponse: what only bodies show (no-op writes that change only timestamps, the fields a write fight flips) is seen at Request level and above, so a finding proven in one run may be only suspected, or missing, in the other",
    );
  });

  it('says when filters or detection settings differ', () => {
    const b = report(HOUR, []);
    const a = report(HOUR, []);
    b.settings = { filters: { namespaces: [] }, detectors: { 'conflict-storm': { minConflicts: 20 } } };
    a.settings = { filters: { namespaces: ['shop'] }, detectors: { 'conflict-storm': { minConflicts: 50 } } };
    const d = diffReports(input('b', b), input('a', a), OPTS);
    expect(d.limits).toEqual([
      'the runs were filtered differently (BEFORE {"namespaces":[]}, AFTER {"namespaces":["shop"]}): a finding outside one run\'s filters shows as fixed or new',
      'detection settings differ for conflict-storm: a finding may appear or vanish because of the thresholds, not the cluster',
    ]);
  });

  it('--fail-on: only new or worse findings at or above it', () => {
    const fixedOnly = one([storm(1000, 1000)], []);
    expect(diffFails(fixedOnly, 'info')).toBe(false);
    const fresh = one([], [storm(1000, 1000)]);
    expect(diffFails(fresh, 'high')).toBe(true);
    expect(diffFails(fresh, 'critical')).toBe(false);
    expect(diffFails(fresh, undefined)).toBe(false);
    expect(() => one([], [], 1)).toThrow(RangeError);
  });
});

describe('cluster figures', () => {
  it('requests/s by verb, 409 and 429 shares, write p99, per run duration', () => {
    const b = report(HOUR, []);
    b.summaries.totals = { requests: 7200, writes: 3600, conflicts: 900, alreadyExists: 0, throttled: 72 };
    b.summaries.requestsByVerbResourceCode = [
      { verb: 'update', resource: 'pods', code: 200, count: 2700 },
      { verb: 'update', resource: 'pods', code: 409, count: 900 },
      { verb: 'get', resource: 'pods', code: 200, count: 3600 },
    ];
    b.summaries.latency = [
      { verb: 'update', resource: 'pods', count: 3600, p50: 2, p90: 5, p99: 40, max: 90 },
      { verb: 'get', resource: 'pods', count: 3600, p50: 1, p90: 2, p99: 300, max: 400 },
    ];
    const a = report(HALF_HOUR, []);
    a.summaries.totals = { requests: 1800, writes: 900, conflicts: 9, alreadyExists: 0, throttled: 0 };
    a.summaries.requestsByVerbResourceCode = [
      { verb: 'update', resource: 'pods', code: 200, count: 900 },
      { verb: 'get', resource: 'pods', code: 200, count: 900 },
    ];
    a.summaries.latency = [{ verb: 'update', resource: 'pods', count: 900, p50: 2, p90: 5, p99: 12, max: 20 }];
    const d = diffReports(input('b', b), input('a', a), OPTS);
    expect(d.cluster.map((c) => [c.key, c.before, c.after])).toEqual([
      ['requestsPerSec', 2, 1],
      ['writesPerSec', 1, 0.5],
      ['requestsPerSec.get', 1, 0.5],
      ['requestsPerSec.update', 1, 0.5],
      ['conflictShareOfWrites', 0.25, 0.01],
      ['throttledShareOfRequests', 0.01, 0],
      ['writeLatencyP99Ms', 40, 12],
    ]);
  });
});

describe('renderers', () => {
  const hostile = '<script>alert(1)</script>|`x`';
  function hostileDiff() {
    const f = storm(100, 100);
    f.actors[0]!.serviceAccount = { namespace: 'ns', name: hostile };
    f.object!.name = hostile;
    return one([], [f]);
  }

  it('formats amounts as the verdict text shows them', () => {
    expect([0, 0.3, 0.075, 0.0028, 1, 7.94, 11.2, 75, 41_000].map(formatAmount)).toEqual(['0', '0.3', '0.075', '0.0028', '1', '7.9', '11', '75', '41,000']);
  });

  it('JSON validates against its schema and the exported JSON Schema names the verdicts', () => {
    const d = hostileDiff();
    expect(DiffReportSchema.parse(JSON.parse(renderDiffJson(d)))).toEqual(d);
    const schema = diffJsonSchema() as { properties: { findings: { items: { properties: { verdict: { enum: string[] } } } } } };
    expect(schema.properties.findings.items.properties.verdict.enum).toEqual(['fixed', 'new', 'better', 'same', 'worse']);
  });

  it('docs/diff.schema.json is the schema (regenerate with npm run schema when the model changes)', () => {
    expect(JSON.parse(readFileSync('docs/diff.schema.json', 'utf8'))).toEqual(diffJsonSchema());
  });

  it('escapes every string in HTML and Markdown', () => {
    const d = hostileDiff();
    const html = renderDiffHtml(d);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const md = renderDiffMarkdown(d);
    expect(md).not.toContain('<script>');
    expect(md).toContain('| **new** | high | conflict-storm |');
    expect(renderDiffText(d)).toContain(`NEW high conflict-storm: ns/${hostile} on deployments.apps shop/${hostile}`);
  });
});
