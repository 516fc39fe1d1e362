/**
 * `buildMetricsReport` on generated scrapes (test/metrics/scrape.ts) whose numbers were worked out
 * by hand: the 409 storm on one CRD's status between two scrapes 30 s apart, times from headers or
 * --interval, one scrape with its uptime, a restarted API server, thresholds from options.
 */
import { describe, expect, it } from 'vitest';
import { WANTED } from '../../src/metrics/analyze.js';
import { parseExposition } from '../../src/metrics/exposition.js';
import { auditPolicyRule, buildMetricsReport, type ScrapeInput } from '../../src/metrics/report.js';
import { ReportSchema, type Report } from '../../src/report/schema.js';
import { renderReport } from '../../src/report/index.js';
import { scrapeText, stormScrapes, type ScrapeSpec } from './scrape.js';

function input(spec: ScrapeSpec, source: string): ScrapeInput {
  const text = scrapeText(spec);
  return { source, kind: 'file', bytes: text.length, exposition: parseExposition(text, { want: (n) => WANTED.has(n) }) };
}

function build(specs: ScrapeSpec[], opts: { intervalMs?: number; resourceConflicts?: unknown } = {}): Report {
  const report = buildMetricsReport(
    specs.map((s, i) => input(s, `m${i + 1}.txt`)),
    { now: new Date('2026-12-05T21:00:00Z'), version: '0.0.0-test', ...opts },
  );
  return ReportSchema.parse(report);
}

const POLICY = [
  'apiVersion: audit.k8s.io/v1',
  'kind: Policy',
  'omitStages: ["RequestReceived"]',
  'rules:',
  '  - level: Metadata',
  '    verbs: ["update", "patch"]',
  '    resources:',
  '      - group: "example.com"',
  '        resources: ["appdeployments/status"]',
  "  # ...the cluster's other rules after this one",
].join('\n');

describe('two scrapes 30 s apart with a 409 storm on appdeployments.example.com/status', () => {
  const report = build(stormScrapes());
  const m = report.apiserverMetrics!;

  it('one critical resource-conflicts finding with exact numbers', () => {
    expect(report.findings.length).toBe(1);
    const f = report.findings[0]!;
    expect(f.id).toMatch(/^resource-conflicts-[0-9a-f]{8}$/);
    expect(f.kind).toBe('resource-conflicts');
    expect(f.severity).toBe('critical');
    expect(f.title).toBe('409 Conflict on 80% of updates to appdeployments.example.com/status: 2,400 in 30 s between scrapes (80/s)');
    expect(f.object).toEqual({ apiGroup: 'example.com', apiVersion: 'v1', resource: 'appdeployments', namespace: '', name: '', subresource: 'status' });
    expect(f.window).toEqual({ from: '2026-12-05T20:00:00.000Z', to: '2026-12-05T20:00:30.000Z' });
    expect(f.metrics).toEqual({
      updates: 3000,
      conflicts: 2400,
      conflictShare: 0.8,
      conflictsPerSec: 80,
      writes: 3000,
      writesPerSec: 100,
      writeShareOfCluster: 0.9859,
      alreadyExists: 0,
      throttled: 0,
      updateP99Ms: 4919.2,
      spanSeconds: 30,
    });
    expect(f.signals).toEqual(['conflict-share', 'write-rate', 'metrics-only', 'one-replica']);
    expect(f.actors).toEqual([]);
    expect(f.evidence).toEqual({ auditIDs: [], firstAuditID: '', lastAuditID: '', auditLevel: 'none (apiserver metrics)', level: 'suspected' });
    expect(f.advice.map((a) => a.id)).toEqual(['metrics-cannot-name-controller', 'audit-policy-rule', 'scrape-every-replica']);
    expect(f.advice[0]!.text).toContain('cannot name the controller writing appdeployments.example.com/status');
    expect(f.advice[1]!.text).toBe(
      'Audit policy rule, first in the policy\'s rules: {level: Metadata, verbs: [update, patch], resources: [{group: "example.com", resources: ["appdeployments/status"]}]}',
    );
    expect(f.docs).toMatch(/\/blob\/main\/docs\/detectors\/resource-conflicts\.md$/);
    expect(m.auditPolicy).toEqual({ [f.id]: POLICY });
  });

  it('rates, shares and latency per resource and verb; labels summed over scope', () => {
    expect(m.basis).toBe('rates');
    expect(m.timesFrom).toBe('header');
    expect(m.spanSeconds).toBe(30);
    expect(m.totals).toEqual({ requests: 3348, writes: 3043, conflicts: 2403, alreadyExists: 0, throttled: 0, nonResource: 5 });
    expect(m.resources).toEqual([
      {
        group: 'example.com',
        resource: 'appdeployments',
        subresource: 'status',
        verb: 'PUT',
        requests: 3000,
        perSec: 100,
        code409: 2400,
        share409: 0.8,
        code429: 0,
        share429: 0,
        latencyCount: 3000,
        p50Ms: 750,
        p90Ms: 3828.3,
        p99Ms: 4919.2,
      },
      {
        group: '',
        resource: 'pods',
        subresource: '',
        verb: 'GET',
        requests: 300,
        perSec: 10,
        code409: 0,
        share409: 0,
        code429: 0,
        share429: 0,
        latencyCount: 0,
        p50Ms: null,
        p90Ms: null,
        p99Ms: null,
      },
      {
        group: 'apps',
        resource: 'deployments',
        subresource: '',
        verb: 'PUT',
        requests: 30,
        perSec: 1,
        code409: 0,
        share409: 0,
        code429: 0,
        share429: 0,
        latencyCount: 0,
        p50Ms: null,
        p90Ms: null,
        p99Ms: null,
      },
      {
        group: 'apps',
        resource: 'deployments',
        subresource: 'status',
        verb: 'PUT',
        requests: 13,
        perSec: 0.433,
        code409: 3,
        share409: 0.2308,
        code429: 0,
        share429: 0,
        latencyCount: 0,
        p50Ms: null,
        p90Ms: null,
        p99Ms: null,
      },
    ]);
  });

  it('APF rejections and queue, in-flight requests', () => {
    expect(m.priorityLevels).toEqual([
      {
        priorityLevel: 'workload-low',
        flowSchema: 'service-accounts',
        rejected: 60,
        rejectedByReason: { 'queue-full': 55, 'time-out': 5 },
        inQueue: 12,
        maxInQueue: 12,
        waitCount: 0,
        waitP99Ms: null,
      },
    ]);
    expect(m.inflight).toEqual([
      { kind: 'mutating', current: 40, max: 40 },
      { kind: 'readOnly', current: 1, max: 2 },
    ]);
    expect(m.warnings).toEqual([expect.stringMatching(/^one scrape reaches one API server replica/)]);
    expect(report.input.timeRange).toEqual({ from: '2026-12-05T20:00:00.000Z', to: '2026-12-05T20:00:30.000Z' });
  });

  it('renders in every format with the finding, the policy rule and the tables', () => {
    const text = renderReport(report, 'text');
    expect(text).toContain('kube-apiserver metrics report');
    expect(text).toContain('#1  CRITICAL  resource-conflicts');
    expect(text).toContain('        resources: ["appdeployments/status"]');
    expect(text).toContain('appdeployments.example.com/status  PUT      3,000   100  2,400  80.0%    0   0.0%     750  3,828.3  4,919.2');
    const md = renderReport(report, 'markdown');
    expect(md.startsWith('# auditstorm metrics: 1 finding (1 critical)\n')).toBe(true);
    expect(md).toContain(`\`\`\`yaml\n${POLICY}\n\`\`\``);
    expect(md).toContain('| workload-low | service-accounts | 60 | queue-full 55, time-out 5 | 12 | 12 | 0 | – |');
    const html = renderReport(report, 'html');
    expect(html).toContain('<title>auditstorm metrics: 1 finding (1 critical)</title>');
    expect(html).toContain('<pre><code>apiVersion: audit.k8s.io/v1\nkind: Policy\n');
    expect(html).toContain('        resources: [&quot;appdeployments/status&quot;]\n');
    expect((JSON.parse(renderReport(report, 'json')) as Report).apiserverMetrics!.totals.conflicts).toBe(2403);
  });
});

describe('times', () => {
  it('--interval gives the same rates without header lines, and says so', () => {
    const report = build(stormScrapes({ headers: false }), { intervalMs: 30_000 });
    expect(report.apiserverMetrics!.timesFrom).toBe('interval');
    expect(report.findings[0]!.metrics['conflictsPerSec']).toBe(80);
    expect(report.findings[0]!.window).toEqual({ from: 'scrape 1', to: 'scrape 2 (+30 s)' });
    expect(report.input.timeRange).toBeNull();
  });

  it('scrapes given out of order are put in time order by their headers', () => {
    const [a, b] = stormScrapes();
    expect(build([b, a]).findings[0]!.metrics['conflicts']).toBe(2400);
  });

  it('several scrapes without times, or with one missing, are a usage error with the shell line', () => {
    expect(() => build(stormScrapes({ headers: false }))).toThrow('2 scrapes but no times: rates need the time between them');
    const [a, b] = stormScrapes();
    const { time: _drop, ...noTime } = b;
    expect(() => build([a, noTime])).toThrow('m2.txt: no "# auditstorm-scrape-time:" line, while other scrapes have one');
    expect(() => build([a, { ...b, time: '2026-12-05T20:00:00Z' }])).toThrow('m1.txt and m2.txt have the same scrape time');
  });

  it('one scrape with its time and process start: totals since start, average rates over the uptime', () => {
    const [, b] = stormScrapes();
    // An API server started 100 s before the scrape.
    const start = Date.UTC(2026, 11, 5, 20, 0, 30) / 1000 - 100;
    const report = build([{ ...b, processStart: start }]);
    const m = report.apiserverMetrics!;
    expect(m.basis).toBe('totals');
    expect(m.spanSeconds).toBe(100);
    expect(m.totals.requests).toBe(1600 + 2600 + 530 + 78 + 3300 + 15);
    const f = report.findings[0]!;
    expect(f.title).toBe('409 Conflict on 61.9% of updates to appdeployments.example.com/status: 2,600 in 100 s since the API server started (26/s)');
    expect(f.metrics['conflictShare']).toBe(0.619);
    expect(f.severity).toBe('critical');
    expect(f.signals).toContain('totals-since-start');
    expect(m.warnings[1]).toBe(
      'one scrape: numbers are totals since the API server started 100 s before it; rates are averages over that uptime, not the current rate (take two scrapes for that)',
    );
  });

  it('one scrape without a time: totals, no rates, the finding judged on count and share', () => {
    const [, b] = stormScrapes({ headers: false });
    const report = build([b]);
    expect(report.apiserverMetrics!.spanSeconds).toBeNull();
    expect(report.apiserverMetrics!.resources[0]!.perSec).toBeNull();
    const f = report.findings[0]!;
    expect(f.title).toBe('409 Conflict on 61.9% of updates to appdeployments.example.com/status: 2,600 since the API server started');
    expect(f.metrics['conflictsPerSec']).toBeNull();
    expect(f.window).toEqual({ from: '2026-12-05T19:46:40.000Z', to: 'the scrape' });
  });

  it('a restarted API server (another process_start_time_seconds): counters count from 0, with a warning', () => {
    const report = build(stormScrapes({ processStart2: 1_796_500_500 }));
    const m = report.apiserverMetrics!;
    // Every second-scrape value counts whole: 1,600 + 2,600 PUTs, 2,600 of them 409.
    expect(m.resources[0]).toMatchObject({ requests: 4200, code409: 2600 });
    expect(m.warnings).toContain(
      'm2.txt: process_start_time_seconds differs from m1.txt: another API server process (restarted, or another replica); its counters are counted from 0',
    );
  });

  it('a counter that falls without a new process start is a reset too', () => {
    const [a, b] = stormScrapes();
    const { processStart: _p1, ...a2 } = a;
    const { processStart: _p2, ...b2 } = b;
    const low = { ...b2, requests: b2.requests.map((r) => (r[1] === 'pods' ? ([...r.slice(0, 5), 40] as typeof r) : r)) };
    expect(build([a2, low]).apiserverMetrics!.resources.find((r) => r.resource === 'pods')!.requests).toBe(40);
  });
});

describe('thresholds', () => {
  it('below minConflicts, or a quiet write rate, is no finding; options move the line', () => {
    expect(build(stormScrapes(), { resourceConflicts: { minConflicts: 2401, minWritesPerSec: 101 } }).findings).toEqual([]);
    const writesOnly = build(stormScrapes(), { resourceConflicts: { minConflicts: 2401 } }).findings;
    expect(writesOnly.map((f) => [f.title, f.signals])).toEqual([
      ['100/s writes to appdeployments.example.com/status, 98.6% of all writes in 30 s between scrapes', ['write-rate', 'metrics-only', 'one-replica']],
    ]);
    // deployments/status: 3 409s of 13 updates (23 %) is a finding only when 3 are enough and 0.1/s is.
    const low = build(stormScrapes(), { resourceConflicts: { minConflicts: 3, minConflictsPerSec: 0.1 } }).findings.map((f) => [
      f.severity,
      f.object?.resource,
      f.object?.subresource,
    ]);
    expect(low).toEqual([
      ['critical', 'appdeployments', 'status'],
      ['medium', 'deployments', 'status'],
    ]);
  });

  it('rejects unknown and out-of-range options', () => {
    expect(() => build(stormScrapes(), { resourceConflicts: { minConflictShare: 2 } })).toThrow();
    expect(() => build(stormScrapes(), { resourceConflicts: { nope: 1 } })).toThrow();
  });
});

describe('bad input', () => {
  it('malformed sample lines are counted and sampled with file:line; the run goes on', () => {
    const [a, b] = stormScrapes();
    const report = build([a, { ...b, extra: ['apiserver_request_total{code="200" 5', 'apiserver_request_total{code="200"} five'] }]);
    expect(report.findings.length).toBe(1);
    const lines = scrapeText(b).split('\n').length - 1;
    expect(report.input.badLines).toBe(2);
    expect(report.input.badLineSamples).toEqual([
      { source: 'm2.txt', line: lines + 1, reason: 'expected "," or "}" after the value of label code' },
      { source: 'm2.txt', line: lines + 2, reason: 'value of apiserver_request_total is not a number: "five"' },
    ]);
    expect(renderReport(report, 'text')).toContain(`m2.txt:${lines + 1} expected "," or "}" after the value of label code`);
  });

  it('a scrape without apiserver_request_total is an input error', () => {
    expect(() => build([{ requests: [] }])).toThrow('m1.txt: no apiserver_request_total samples: not a kube-apiserver /metrics scrape');
  });

  it('the audit policy rule names the core group as ""', () => {
    expect(auditPolicyRule('', 'configmaps', '')).toContain('      - group: ""\n        resources: ["configmaps"]');
  });
});
