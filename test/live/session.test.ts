import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/index.js';
import { Readable } from 'node:stream';
import type { LiveAlert } from '../../src/live/alerts.js';
import { LIVE_REORDER_WINDOW_MS, LiveSession, REPLAY_IDLE_MS } from '../../src/live/session.js';
import { incidentLines, recordsOf, STORM } from './helpers.js';

const STEP_MS = 10_000;
const TICK_MS = 250;

/**
 * Replays `records` in real time on a fake wall clock (each record arrives `latencyMs` after its
 * stageTimestamp), ticking every 250 ms like the CLI, until `endMs` of stream time.
 */
function replay(session: LiveSession, records: ReturnType<typeof recordsOf>, clock: { t: number }, endMs: number, latencyMs = 50): void {
  let i = 0;
  for (let t = records[0]!.ts; t <= endMs; t += TICK_MS) {
    clock.t = t + latencyMs;
    const batch = [];
    while (i < records.length && records[i]!.ts <= t) batch.push(records[i++]!);
    if (batch.length > 0) session.push(batch);
    session.tick();
  }
  if (i < records.length) session.push(records.slice(i));
}

describe('LiveSession', () => {
  it('opens within 2 s after the triggering window ends and closes without new records', () => {
    const records = recordsOf(incidentLines());
    // Input stops right after the storm's last write: the close must come from the clock alone.
    const stormEnd = Date.parse('2026-02-27T14:11:30Z');
    const input = records.filter((r) => r.ts < stormEnd);
    const clock = { t: 0 };
    const alerts: Array<LiveAlert & { wall: number }> = [];
    const session = new LiveSession({}, { now: () => clock.t, onAlert: (a) => alerts.push({ ...a, wall: clock.t }) });
    expect(session.options.reorderWindowMs).toBe(LIVE_REORDER_WINDOW_MS);
    replay(session, input, clock, stormEnd + 90_000);

    expect(alerts.map((a) => [a.phase, a.finding.kind, a.finding.actors[0]!.username, a.outcome])).toEqual([
      ['open', STORM.kind, STORM.user, undefined],
      ['close', STORM.kind, STORM.user, 'finding'],
    ]);
    const [open, close] = alerts as [LiveAlert & { wall: number }, LiveAlert & { wall: number }];
    expect(open.finding.id).toBe(STORM.id);
    expect(open.finding.object).toMatchObject({ resource: 'appdeployments', subresource: 'status', namespace: 'default', name: 'payment-core' });
    // The window that triggered it ends at the step boundary after its last counted write.
    const boundary = (Math.floor(Date.parse(open.finding.window.to) / STEP_MS) + 1) * STEP_MS;
    expect(boundary).toBe(Date.parse('2026-02-27T14:11:20Z'));
    expect(open.wall - boundary).toBeGreaterThan(0);
    expect(open.wall - boundary).toBeLessThanOrEqual(2000);
    expect(open.at).toBe(new Date(open.wall).toISOString());
    // Closed at the first boundary whose window holds too few Conflicts, with no record arriving.
    expect(close.wall).toBeLessThan(stormEnd + 60_000 + 2000);
    expect(session.openEpisodes()).toEqual([]);
    expect(session.status().openedByKind[STORM.kind]).toBe(1);
    expect(session.status().closedByKind[STORM.kind]).toBe(1);
  });

  it('snapshots list an open episode as ongoing; finish() gives the report analyze() gives', async () => {
    const lines = incidentLines();
    const records = recordsOf(lines);
    const clock = { t: 0 };
    const session = new LiveSession({}, { now: () => clock.t });
    replay(
      session,
      records.filter((r) => r.ts < Date.parse('2026-02-27T14:11:25Z')),
      clock,
      Date.parse('2026-02-27T14:11:25Z'),
    );
    const snap = session.snapshot();
    expect(snap.findings.map((f) => [f.id, f.ongoing])).toEqual([[STORM.id, true]]);
    session.push(records.filter((r) => r.ts >= Date.parse('2026-02-27T14:11:25Z')));
    const final = session.finish();
    const batch = await analyze({ inputs: ['-'], reorderWindowMs: LIVE_REORDER_WINDOW_MS }, { stdin: Readable.from([lines.join('\n') + '\n']) });
    expect(final.findings.map((f) => [f.id, f.title, f.ongoing])).toEqual(batch.findings.map((f) => [f.id, f.title, undefined]));
    expect(final.summaries).toEqual(batch.summaries);
    expect(final.input.requests).toBe(1184);
  });

  it('a replay (times far from the wall clock) may pause without its next records being late', () => {
    const records = recordsOf(incidentLines());
    const half = Math.floor(records.length / 2);
    const clock = { t: Date.parse('2026-12-01T00:00:00Z') }; // months after the log's times
    const alerts: LiveAlert[] = [];
    const session = new LiveSession({}, { now: () => clock.t, onAlert: (a) => alerts.push(a) });
    session.push(records.slice(0, half));
    // A 3 s pause in the pipe, ticked as the CLI ticks.
    for (let k = 0; k < 12; k++) {
      clock.t += TICK_MS;
      session.tick();
    }
    session.push(records.slice(half));
    // Then silence: after REPLAY_IDLE_MS the clock runs on and the storm closes without input.
    for (let k = 0; k < (REPLAY_IDLE_MS + 90_000) / TICK_MS; k++) {
      clock.t += TICK_MS;
      session.tick();
    }
    expect(alerts.map((a) => [a.phase, a.finding.id])).toEqual([
      ['open', STORM.id],
      ['close', STORM.id],
    ]);
    const report = session.finish();
    expect(report.input.lateRequests).toBe(0);
    expect(report.input.requests).toBe(1184);
  });

  it('rejects a --since duration (a live stream has no end)', () => {
    expect(() => new LiveSession({ since: '15m' })).toThrow(/no end to count back from/);
  });
});

describe('alert titles', () => {
  /** `controller-manager` of namespace `ns` updating its own widget's status every 100 ms, 9 in 10 answered 409. */
  function stormLines(ns: string, offsetMs: number): string[] {
    const base = Date.parse('2026-05-01T10:00:00Z');
    return Array.from({ length: 600 }, (_, k) => {
      const ts = new Date(base + k * 100 + offsetMs).toISOString();
      const code = k % 10 === 0 ? 200 : 409;
      return JSON.stringify({
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID: `${ns}-${k}`,
        stage: 'ResponseComplete',
        requestURI: `/apis/example.com/v1/namespaces/${ns}/widgets/w1/status`,
        verb: 'update',
        user: { username: `system:serviceaccount:${ns}:controller-manager` },
        sourceIPs: ['10.0.0.1'],
        userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
        objectRef: { resource: 'widgets', namespace: ns, name: 'w1', apiGroup: 'example.com', apiVersion: 'v1', subresource: 'status' },
        responseStatus: code === 409 ? { metadata: {}, code, status: 'Failure', reason: 'Conflict' } : { metadata: {}, code },
        requestReceivedTimestamp: ts,
        stageTimestamp: ts,
      });
    });
  }

  it('tell same-named service accounts of two namespaces apart, as the report does', () => {
    const lines = [...stormLines('alpha', 0), ...stormLines('beta', 7)];
    const records = recordsOf(lines).sort((a, b) => a.ts - b.ts);
    const clock = { t: 0 };
    const alerts: LiveAlert[] = [];
    const session = new LiveSession({}, { now: () => clock.t, onAlert: (a) => alerts.push(a) });
    replay(session, records, clock, records[records.length - 1]!.ts + 90_000);
    const report = session.finish();
    const titles = new Set(alerts.map((a) => `${a.phase} ${a.finding.title.split(' retries ')[0]!}`));
    expect([...titles].sort()).toEqual(['alpha', 'beta'].flatMap((ns) => ['close', 'open', 'update'].map((p) => `${p} ${ns}/controller-manager`)).sort());
    expect(report.findings.map((f) => f.title.split(' retries ')[0]).sort()).toEqual(['alpha/controller-manager', 'beta/controller-manager']);
  });
});
