/**
 * Report fixtures for the renderer tests: a full valid report with one high-severity
 * conflict storm, one note, filled summaries and two bad-line samples; variants with no
 * findings, several findings out of order, and hostile user-controlled strings.
 */
import type { Finding, Report, ReportActor } from '../../src/report/schema.js';

export const cartOperator: ReportActor = {
  username: 'system:serviceaccount:shop:cart-operator',
  userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
  userAgentProduct: 'manager',
  controller: '',
  serviceAccount: { namespace: 'shop', name: 'cart-operator' },
  sourceIPs: ['10.244.1.17', '10.244.2.9'],
  fieldManagers: ['cart-operator'],
};

const deploymentController: ReportActor = {
  username: 'system:serviceaccount:kube-system:deployment-controller',
  userAgent: 'kube-controller-manager/v1.29.4 (linux/amd64) kubernetes/55019c8/system:serviceaccount:kube-system:deployment-controller',
  userAgentProduct: 'kube-controller-manager',
  controller: 'deployment-controller',
  serviceAccount: { namespace: 'kube-system', name: 'deployment-controller' },
  sourceIPs: ['172.18.0.2'],
  fieldManagers: [],
};

export const storm: Finding = {
  id: 'conflict-storm/cart-operator/apps/deployments/shop/cart/status/2026-08-08T17:40:00.000Z',
  kind: 'conflict-storm',
  severity: 'high',
  title: 'cart-operator updates deployment shop/cart status 14× per success: 409 Conflict storm without backoff',
  actors: [cartOperator],
  object: { apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', namespace: 'shop', name: 'cart', subresource: 'status' },
  window: { from: '2026-08-08T17:40:00.000Z', to: '2026-08-08T17:46:12.500Z' },
  metrics: {
    attempts: 4210,
    conflicts: 3912,
    successes: 298,
    conflictRatio: 0.929216152,
    peakWritesPerSec: 48.25,
    peak409PerSec: 45.1,
    attemptsPerSuccess: 14.1275,
    retryGapP50Ms: 12,
    retryGapP90Ms: 38.5,
    backoff: 'none',
    shareOfWrites: 0.412,
    durationMs: 372500,
  },
  signals: ['no-backoff', 'duplicate-replicas'],
  evidence: {
    auditIDs: ['5d3c1a2e-0f4b-4c3a-9a51-1b2f3e4d5c6a', '8e7f6a5b-4c3d-4e2f-8a1b-0c9d8e7f6a5b', 'c0ffee00-1234-4abc-8def-0123456789ab'],
    firstAuditID: '5d3c1a2e-0f4b-4c3a-9a51-1b2f3e4d5c6a',
    lastAuditID: 'c0ffee00-1234-4abc-8def-0123456789ab',
    auditLevel: 'Metadata',
    level: 'proven',
  },
  advice: [
    {
      id: 'retry-on-conflict',
      text: 'Wrap the read-modify-write in retry.RetryOnConflict(retry.DefaultRetry, …) so that retries re-read the object and back off.',
    },
    { id: 'use-patch', text: 'Write status with a merge patch or server-side apply instead of an update carrying a stale resourceVersion.' },
    { id: 'duplicate-replicas', text: 'Two source IPs write the same object: check that only one replica holds the leader lease.' },
  ],
};

export const note: Finding = {
  id: 'conflict-storm/deployment-controller/apps/deployments/shop/web//2026-08-08T17:10:00.000Z',
  kind: 'conflict-storm',
  severity: 'info',
  title: 'deployment-controller hit 409 Conflict on deployment shop/web but backed off',
  actors: [deploymentController],
  object: { apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', namespace: 'shop', name: 'web', subresource: '' },
  window: { from: '2026-08-08T17:10:00.000Z', to: '2026-08-08T17:11:00.000Z' },
  metrics: { attempts: 40, conflicts: 12, conflictRatio: 0.3, backoff: 'exponential' },
  signals: ['backoff'],
  evidence: {
    auditIDs: ['11111111-2222-4333-8444-555555555555'],
    firstAuditID: '11111111-2222-4333-8444-555555555555',
    lastAuditID: '11111111-2222-4333-8444-555555555555',
    auditLevel: 'Metadata',
    level: 'proven',
  },
  advice: [],
};

export const report: Report = {
  schemaVersion: 1,
  tool: { name: 'auditstorm', version: '0.1.0' },
  generatedAt: '2026-08-08T18:30:00.000Z',
  input: {
    sources: [
      {
        name: '/var/log/kubernetes/audit/audit.log.gz',
        kind: 'gzip',
        format: 'jsonl',
        bytes: 734_003_200,
        lines: 1_204_331,
        events: 1_204_310,
        requests: 601_877,
        badLines: 2,
        truncated: 0,
      },
      { name: 'audit-2.log', kind: 'file', format: 'jsonl', bytes: 10_485_760, lines: 20_000, events: 20_000, requests: 10_000, badLines: 0, truncated: 0 },
    ],
    lines: 1_224_331,
    events: 1_224_310,
    requests: 611_877,
    badLines: 2,
    badLineSamples: [
      { source: '/var/log/kubernetes/audit/audit.log.gz', line: 88213, reason: 'invalid JSON: Unexpected end of JSON input' },
      { source: '/var/log/kubernetes/audit/audit.log.gz', line: 1204331, reason: 'not an audit event: no auditID' },
    ],
    skipped: { nonFinalStages: 610_400, duplicates: 12, filtered: 0, overlongLines: 1 },
    truncated: 0,
    sourceErrors: [],
    lateRequests: 3,
    nonResourceRequests: 4_567,
    allowlisted: [
      { name: 'node-leases', requests: 36_000, writes: 36_000 },
      { name: 'leader-election', requests: 3_600, writes: 3_600 },
      { name: 'events', requests: 0, writes: 0 },
    ],
    timeRange: { from: '2026-08-08T17:00:00.000Z', to: '2026-08-08T18:00:00.000Z' },
  },
  settings: { 'conflict-storm': { windowMs: 60_000, minConflicts: 50, minConflictRatio: 0.5 } },
  findings: [storm],
  notes: [note],
  summaries: {
    totals: { requests: 611_877, writes: 9_496, conflicts: 3_924, alreadyExists: 7, throttled: 25 },
    requestsByVerbResourceCode: [
      { verb: 'get', resource: 'deployments.apps', code: 200, count: 250_112 },
      { verb: 'list', resource: 'pods', code: 200, count: 120_004 },
      { verb: 'update', resource: 'deployments.apps/status', code: 409, count: 3_912 },
      { verb: 'update', resource: 'deployments.apps/status', code: 200, count: 298 },
      { verb: 'watch', resource: 'pods', code: 200, count: 1_204 },
      { verb: 'get', resource: '(non-resource)', code: 200, count: 4_567 },
      { verb: 'create', resource: 'events', code: 429, count: 25 },
    ],
    topActors: {
      byRequests: [
        { username: cartOperator.username, userAgent: cartOperator.userAgent, requests: 258_420, writes: 4_210, conflicts: 3_912, alreadyExists: 0, throttled: 0 },
        { username: deploymentController.username, userAgent: deploymentController.userAgent, requests: 90_311, writes: 1_240, conflicts: 12, alreadyExists: 0, throttled: 0 },
      ],
      byWrites: [{ username: cartOperator.username, userAgent: cartOperator.userAgent, requests: 258_420, writes: 4_210, conflicts: 3_912, alreadyExists: 0, throttled: 0 }],
      byConflicts: [{ username: cartOperator.username, userAgent: cartOperator.userAgent, requests: 258_420, writes: 4_210, conflicts: 3_912, alreadyExists: 0, throttled: 0 }],
      byThrottled: [],
    },
    topObjects: {
      byWrites: [{ object: storm.object!, writes: 4_210, conflicts: 3_912 }],
      byConflicts: [{ object: storm.object!, writes: 4_210, conflicts: 3_912 }],
    },
    latency: [
      { verb: 'get', resource: 'deployments.apps', count: 250_112, p50: 1.2, p90: 4, p99: 18, max: 412 },
      { verb: 'update', resource: 'deployments.apps/status', count: 4_210, p50: 6, p90: 14, p99: 95, max: 1_730 },
    ],
  },
};

/** The same log with nothing wrong: no findings (the note stays). */
export const cleanReport: Report = { ...report, findings: [] };

/** A deep copy, for tests that modify a report. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/** Recursively freeze a value, so a renderer that writes to it throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** A string that tries to break Markdown tables, inject HTML and links, and drive a terminal. */
export const HOSTILE = 'evil|agent `x` <script>alert(1)</script>\n[link](http://x)';
/** Terminal attack: clear screen, red text, set window title, bell, C1 CSI. */
export const ESCAPES = '\u001b[2J\u001b[31mred\u001b]0;pwned\u0007\u009b1m\r\nend';

/** The report with hostile strings in every user-controlled place the renderers print. */
export function hostileReport(): Report {
  const r = copy(report);
  const f = r.findings[0]!;
  const a = f.actors[0]!;
  a.username = HOSTILE;
  a.userAgent = `ua ${ESCAPES}`;
  a.fieldManagers = ['mgr|x'];
  f.object = { ...f.object!, name: 'cart|evil', namespace: 'shop' };
  f.title = `title ${HOSTILE}`;
  f.advice = [{ id: 'x', text: `- ${HOSTILE}` }];
  f.evidence.auditIDs = ['id`with``ticks'];
  r.summaries.topActors.byRequests[0]!.username = HOSTILE;
  r.summaries.topActors.byRequests[0]!.userAgent = `ua ${ESCAPES}`;
  r.summaries.topObjects.byWrites[0]!.object.name = 'cart|evil';
  r.input.badLineSamples[0]!.reason = `bad ${ESCAPES}`;
  return r;
}
