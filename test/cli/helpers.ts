/**
 * Test helpers for the CLI: a fake report, collecting streams and an injectable CliIO.
 */
import { PassThrough, Writable } from 'node:stream';
import type { CliIO } from '../../src/cli/io.js';
import { ReportSchema, type Finding, type Report, type Severity } from '../../src/report/schema.js';

/** A finding of the given severity; everything else is plausible filler. */
export function fakeFinding(severity: Severity, i = 0): Finding {
  return {
    id: `conflict-storm/${severity}/${i}`,
    kind: 'conflict-storm',
    severity,
    title: `fake ${severity} storm ${i}`,
    actors: [
      {
        username: 'system:serviceaccount:shop:ctrl',
        userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
        userAgentProduct: 'manager',
        controller: '',
        serviceAccount: { namespace: 'shop', name: 'ctrl' },
        sourceIPs: ['10.0.0.1'],
        fieldManagers: [],
      },
    ],
    object: { apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', namespace: 'shop', name: `web-${i}`, subresource: '' },
    window: { from: '2026-08-08T18:00:00.000Z', to: '2026-08-08T18:05:00.000Z' },
    metrics: { conflicts: 300, conflictRatio: 0.8 },
    signals: ['no-backoff'],
    evidence: { auditIDs: ['a', 'b'], firstAuditID: 'a', lastAuditID: 'b', auditLevel: 'Metadata', level: 'proven' },
    advice: [{ id: 'use-patch', text: 'Use a patch instead of an update.' }],
  };
}

/** A schema-valid report with one finding per given severity. */
export function fakeReport(severities: Severity[] = [], requests = 1234): Report {
  const report: Report = {
    schemaVersion: 1,
    tool: { name: 'auditstorm', version: '0.0.0-test' },
    generatedAt: '2026-08-08T19:00:00.000Z',
    input: {
      sources: [{ name: 'audit.log', kind: 'file', format: 'jsonl', bytes: 1000, lines: requests, events: requests, requests, badLines: 0, truncated: 0 }],
      lines: requests,
      events: requests,
      requests,
      badLines: 0,
      badLineSamples: [],
      skipped: { nonFinalStages: 0, duplicates: 0, filtered: 0, overlongLines: 0 },
      truncated: 0,
      lateRequests: 0,
      nonResourceRequests: 0,
      allowlisted: [],
      sourceErrors: [],
      timeRange: { from: '2026-08-08T18:00:00.000Z', to: '2026-08-08T18:59:59.000Z' },
    },
    settings: {},
    findings: severities.map((s, i) => fakeFinding(s, i)),
    notes: [],
    summaries: {
      totals: { requests, writes: 10, conflicts: 5, alreadyExists: 0, throttled: 0 },
      requestsByVerbResourceCode: [],
      topActors: { byRequests: [], byWrites: [], byConflicts: [], byThrottled: [] },
      topObjects: { byWrites: [], byConflicts: [] },
      latency: [],
    },
  };
  return ReportSchema.parse(report);
}

/** A writable that keeps what was written. */
export class Sink extends Writable {
  chunks: string[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(chunk.toString());
    cb();
  }
  get text(): string {
    return this.chunks.join('');
  }
}

/** A CliIO over sinks: not a terminal, empty environment, fixed clock, unless overridden. */
export function fakeIO(over: Partial<CliIO> = {}): CliIO & { stdout: Sink; stderr: Sink } {
  const stdin = new PassThrough();
  stdin.end();
  return {
    stdin,
    stdout: new Sink(),
    stderr: new Sink(),
    env: {},
    isTTY: { stdin: false, stdout: false, stderr: false },
    columns: { stdout: 100, stderr: 100 },
    now: () => new Date('2026-08-08T19:00:00.000Z'),
    ...over,
  } as CliIO & { stdout: Sink; stderr: Sink };
}
