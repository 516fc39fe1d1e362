import { describe, expect, it } from 'vitest';
import { conflictStorm } from '../../src/detectors/conflict-storm.js';
import type { Detector } from '../../src/detectors/types.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { actor, object, rec, runDetector } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const detector = conflictStorm as unknown as Detector;
const operator = actor('system:serviceaccount:shop-system:shop-operator');
const widget = object('widgets', 'shop', 'w1', 'status', 'example.com', 'v1alpha1');
const kubelet = actor('system:node:node-1', 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
const lease = object('leases', 'kube-node-lease', 'node-1', '', 'coordination.k8s.io');
/** Another actor patching the widget's main resource: what makes a RetryOnConflict writer's PUT conflict. */
const labeler = actor('system:serviceaccount:shop-system:label-injector');
const widgetMain = object('widgets', 'shop', 'w1', '', 'example.com', 'v1alpha1');

/** Node lease renewals every 10 s for `seconds`: background writes by another actor. */
function leases(seconds: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let t = 0; t < seconds * 1000; t += 10_000) out.push(rec(T0 + t, kubelet, lease));
  return out;
}

/**
 * Two replicas (two IPs) of one operator, each writing every 20 ms for `seconds` and retrying at
 * once; replica A succeeds when k % 12 == 11, replica B when k % 12 == 5: chains of 12 attempts.
 */
function twoReplicaStorm(startMs: number, seconds: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  const n = (seconds * 1000) / 20;
  for (let k = 0; k < n; k++) {
    out.push(rec(startMs + k * 20, operator, widget, { sourceIP: '10.1.0.1', code: k % 12 === 11 ? 200 : 409 }));
    out.push(rec(startMs + k * 20 + 10, operator, widget, { sourceIP: '10.1.0.2', code: k % 12 === 5 ? 200 : 409 }));
  }
  return out;
}

/** Count per UTC second (by `ts`) of the records matching `pred`; returns the maximum. */
function peakPerSecond(records: RequestRecord[], pred: (r: RequestRecord) => boolean): number {
  const per = new Map<number, number>();
  for (const r of records) if (pred(r)) per.set(Math.floor(r.ts / 1000), (per.get(Math.floor(r.ts / 1000)) ?? 0) + 1);
  return Math.max(...per.values());
}

describe('conflict-storm: storms', () => {
  it('two replicas retrying at once: one critical finding with exact totals', () => {
    const storm = twoReplicaStorm(T0, 120);
    const { findings, notes, alerts } = runDetector(detector, {}, [...leases(180), ...storm]);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.kind).toBe('conflict-storm');
    expect(f.severity).toBe('critical');
    expect(f.actors).toEqual([
      {
        username: 'system:serviceaccount:shop-system:shop-operator',
        userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
        userAgentProduct: 'manager',
        controller: '',
        serviceAccount: { namespace: 'shop-system', name: 'shop-operator' },
        sourceIPs: ['10.1.0.1', '10.1.0.2'],
        fieldManagers: [],
      },
    ]);
    expect(f.object).toEqual({
      apiGroup: 'example.com',
      apiVersion: 'v1alpha1',
      resource: 'widgets',
      namespace: 'shop',
      name: 'w1',
      subresource: 'status',
    });
    // First write is A's 409 at T0 (+3 ms latency); last is B's 409 at k = 5999.
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:01:59.993Z' });
    const conflicts = storm.filter((r) => r.code === 409).length;
    expect(conflicts).toBe(11_000);
    expect(f.metrics).toMatchObject({
      attempts: 12_000,
      conflicts: 11_000,
      successes: 1_000,
      otherErrors: 0,
      conflictRatio: 0.9167,
      attemptsPerSuccess: 12,
      peakWritesPerSec: 100,
      peak409PerSec: peakPerSecond(storm, (r) => r.code === 409),
      retryGapP50Ms: 17,
      retryGapP90Ms: 17,
      retryChainP90Attempts: 12,
      backoff: 'none',
      sourceIPCount: 2,
      staleRetries: 0,
      // Per-item backoff allows 6 attempts in a 220 ms chain of 12 and 5 in a 100 ms chain of 6:
      // A has 500 chains of 12 (excess 6 each); B has a first chain of 6, 499 of 12 and a last,
      // unfinished one of 6.
      excessRequests: 500 * 6 + 1 + 499 * 6 + 1,
    });
    // 12,000 storm writes among 12,000 + 12 lease renewals in the steps the episode covers.
    expect(f.metrics.shareOfWrites).toBe(0.999);
    expect(f.signals).toEqual(['no-backoff', 'duplicate-replicas']);
    expect(f.advice.map((a) => a.id)).toEqual(['compare-before-write', 'patch-status', 'requeue-with-backoff', 'leader-election', 'confirm-with-request-level']);
    // At Metadata level the log cannot show a churning lastTransitionTime: say how to confirm it.
    expect(f.advice[4]!.text).toContain('level: Request, verbs: ["update", "patch"], resources: [{group: "example.com", resources: ["widgets/status"]}]');
    expect(f.evidence.firstAuditID).toBe(storm[0]!.auditID);
    expect(f.evidence.lastAuditID).toBe(storm[storm.length - 1]!.auditID);
    expect(f.evidence.auditIDs).toEqual([storm[0]!.auditID, storm[1]!.auditID, storm[2]!.auditID, storm[3]!.auditID, storm[storm.length - 1]!.auditID]);
    expect(alerts).toEqual(['open conflict-storm w1', 'close conflict-storm w1']);
  });

  it('a storm that stops and starts again is two episodes', () => {
    const records = [...twoReplicaStorm(T0, 30), ...twoReplicaStorm(T0 + 300_000, 30)];
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.window.from, f.metrics.attempts])).toEqual([
      ['2026-08-08T18:00:00.003Z', 3000],
      ['2026-08-08T18:05:00.003Z', 3000],
    ]);
  });

  it('retries resending the resourceVersion that conflicted raise stale-cache', () => {
    const records: RequestRecord[] = [];
    for (let k = 0; k < 600; k++) {
      records.push(rec(T0 + k * 50, operator, widget, { code: k % 20 === 19 ? 200 : 409, resourceVersion: String(1000 + Math.floor(k / 20)) }));
    }
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.metrics.staleRetries).toBe(30 * 18);
    expect(findings[0]!.signals).toEqual(['no-backoff', 'stale-cache']);
    expect(findings[0]!.advice.map((a) => a.id)).toContain('reread-before-retry');
  });
});

describe('conflict-storm: handled well or below thresholds', () => {
  it('RetryOnConflict (another actor patches, the PUT gets 409, success 11 ms later, every second) is a note, not a finding', () => {
    const records: RequestRecord[] = [];
    for (let s = 0; s < 120; s++) {
      records.push(rec(T0 + s * 1000 - 2, labeler, widgetMain, { verb: 'patch' }));
      records.push(rec(T0 + s * 1000, operator, widget, { code: 409 }));
      records.push(rec(T0 + s * 1000 + 3 + 11, operator, widget, { code: 200 }));
    }
    const { findings, notes } = runDetector(detector, {}, records);
    expect(findings).toEqual([]);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.severity).toBe('info');
    expect(notes[0]!.metrics).toMatchObject({
      attempts: 240,
      conflicts: 120,
      successes: 120,
      backoff: 'retry-on-conflict',
      retryChains: 120,
      retryChainsSucceeded: 120,
      retryGapP50Ms: 11,
      foreignWrites: 119,
    });
  });

  it('RetryOnConflict whose retry lands 8 ms after the 409 (clocks of two API servers) is still a note', () => {
    const records: RequestRecord[] = [];
    for (let s = 0; s < 120; s++) {
      records.push(rec(T0 + s * 1000 - 2, labeler, widgetMain, { verb: 'patch' }));
      records.push(rec(T0 + s * 1000, operator, widget, { code: 409 }));
      records.push(rec(T0 + s * 1000 + 3 + 8, operator, widget, { code: 200 }));
    }
    const { findings, notes } = runDetector(detector, {}, records);
    expect(findings).toEqual([]);
    expect(notes.map((n) => [n.metrics.backoff, n.metrics.retryGapP50Ms, n.metrics.excessRequests])).toEqual([['retry-on-conflict', 8, 0]]);
  });

  // Short chains that succeed, but the Conflicts never stop and no one else writes the object: the
  // writer loses to itself (issue 25, class 1). Each is a finding with no-backoff.
  const selfInflicted: Array<[string, () => RequestRecord[]]> = [
    [
      // prometheus-operator#5610: a 409, a retry 213 ms later that succeeds, again and again: 4.6 writes/s for 9 minutes.
      'a 409 and a retry 213 ms later, every 434 ms for 9 minutes',
      () => {
        const out: RequestRecord[] = [];
        for (let t = 0; t < 9 * 60_000; t += 434) {
          out.push(rec(T0 + t, operator, widget, { code: 409 }));
          out.push(rec(T0 + t + 213, operator, widget, { code: 200 }));
        }
        return out;
      },
    ],
    [
      // http-add-on#1402: two status writes in one reconcile, the second always 409 and retried
      // 10 ms later: 13 writes/s at half Conflict, for 6 minutes.
      'two status writes per reconcile, the second always 409, for 6 minutes',
      () => {
        const out: RequestRecord[] = [];
        for (let t = 0; t < 6 * 60_000; t += 230) {
          out.push(rec(T0 + t, operator, widget, { code: 200 }));
          out.push(rec(T0 + t + 5, operator, widget, { code: 409 }));
          out.push(rec(T0 + t + 15, operator, widget, { code: 200 }));
        }
        return out;
      },
    ],
    [
      // dra-driver#1101: per-node daemons of one service account patching one object, 12 source IPs.
      '12 daemons of one service account patching one object, 62 % answered 409',
      () => {
        const out: RequestRecord[] = [];
        let k = 0;
        for (let t = 0; t < 3 * 60_000; t += 31, k++) {
          const conflict = k % 8 < 5;
          out.push(rec(T0 + t, operator, widget, { verb: 'patch', sourceIP: `10.3.0.${k % 12}`, code: conflict ? 409 : 200 }));
        }
        return out;
      },
    ],
  ];
  it.each(selfInflicted)('%s: a finding with no-backoff', (_name, make) => {
    const records = make();
    const conflicts = records.filter((r) => r.code === 409).length;
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings.map((f) => [f.metrics.backoff, f.signals.includes('no-backoff'), f.metrics.conflicts, f.metrics.foreignWrites])).toEqual([['none', true, conflicts, 0]]);
  });

  // Retries 10 ms apart at first, doubling to a 1 s cap (issue 25, class 8): the median gap is the
  // cap and most growths are 1, yet the client backs off.
  function cappedBackoff(opts: { staleRV: boolean; succeedAfter: number | null; bursts: number }): RequestRecord[] {
    const out: RequestRecord[] = [];
    let t = T0;
    for (let b = 0; b < opts.bursts; b++) {
      let delay = 10;
      for (let k = 0; ; k++) {
        const ok = opts.succeedAfter !== null && k === opts.succeedAfter;
        out.push(rec(t, operator, widget, { code: ok ? 200 : 409, resourceVersion: opts.staleRV ? '4711' : String(5000 + out.length) }));
        if (ok || (opts.succeedAfter === null && t - T0 > 3 * 60_000)) break;
        t += delay;
        delay = Math.min(delay * 2, 1000);
      }
      t += 5000;
    }
    return out;
  }

  it('a stale cache retried with a capped backoff (argo-rollouts#4073): a finding that says backoff and stale cache, not no-backoff', () => {
    const { findings, notes } = runDetector(detector, {}, cappedBackoff({ staleRV: true, succeedAfter: null, bursts: 1 }));
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect([f.metrics.backoff, f.signals, f.advice.map((a) => a.id)]).toEqual(['exponential', ['stale-cache'], ['compare-before-write', 'patch-status', 'reread-before-retry']]);
    // The cap less the 3 ms each request takes (the gap runs from a 409's answer to the next request).
    expect(f.metrics.retryGapP50Ms).toBe(997);
  });

  it('each backed-off PUT preceded by its own merge patch that succeeds (argo-rollouts#4073 as reconciled): the patch is no retry, the PUTs back off and resend one stale resourceVersion', () => {
    const puts = cappedBackoff({ staleRV: true, succeedAfter: null, bursts: 1 }).map((r) => ({ ...r, object: widgetMain }));
    const records = puts.flatMap((r) => [rec(r.receivedTs - 2, operator, widgetMain, { verb: 'patch' }), r]);
    // Every patch counts but the first, which comes before the first 409.
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(
      findings.map((f) => [f.metrics.backoff, f.signals, f.metrics.conflicts, f.metrics.successes, f.metrics.retryChains, f.metrics.retryChainsSucceeded, f.metrics.staleRetries]),
    ).toEqual([['exponential', ['stale-cache'], puts.length, puts.length - 1, 1, 0, puts.length - 1]]);
  });

  /** Every 2 s for `ms`: 3 stale 409s (the retries resend the copy read, 10 then 20 ms later), the fourth attempt 40 ms later carries the copy the watch brought, then 3 writes that succeed. */
  function staleThenMended(ms: number): RequestRecord[] {
    const records: RequestRecord[] = [];
    for (let t = 0; t < ms; t += 2000) {
      for (const [dt, rv] of [
        [0, 100 + t],
        [10, 100 + t],
        [30, 100 + t],
        [70, 200 + t],
      ] as const) {
        records.push(rec(T0 + t + dt, operator, widget, { code: dt === 70 ? 200 : 409, resourceVersion: String(rv) }));
      }
      for (const dt of [500, 1000, 1500]) records.push(rec(T0 + t + dt, operator, widget, { resourceVersion: String(300 + t + dt) }));
    }
    return records;
  }

  it('a stale cache the watch mends within the backoff, for under a minute: a note', () => {
    const { findings, notes } = runDetector(detector, {}, staleThenMended(40_000));
    expect(findings).toEqual([]);
    expect(notes.map((n) => [n.metrics.backoff, n.signals, n.metrics.conflicts, n.metrics.successes, n.metrics.excessRequests])).toEqual([
      ['exponential', ['stale-cache'], 60, 77, 0],
    ]);
  });

  it('the same stale 409s every pass for 10 minutes never stop: a finding, however each pass ends', () => {
    const { findings, notes } = runDetector(detector, {}, staleThenMended(600_000));
    expect(notes).toEqual([]);
    expect(findings.map((f) => [f.metrics.backoff, f.signals, f.metrics.conflicts, f.metrics.excessRequests])).toEqual([['exponential', ['stale-cache'], 900, 0]]);
  });

  it('a capped backoff with fresh reads that succeeds after 20 attempts, burst after burst, is a note', () => {
    const { findings, notes } = runDetector(detector, {}, cappedBackoff({ staleRV: false, succeedAfter: 19, bursts: 8 }));
    expect(findings).toEqual([]);
    expect(notes.map((n) => [n.metrics.backoff, n.signals])).toEqual([['exponential', []]]);
  });

  // Severity weighs how long an episode lasted and what it cost (issue 25, class 4): the same
  // peak for 3 s, for a minute and for 3 minutes; and a short burst too heavy to be brief.
  it.each([
    ['40 409s in a 3-second startup burst', 3_000, 75, 'low'],
    ['the same rate for 40 seconds', 40_000, 75, 'medium'],
    ['the same rate for 3 minutes', 180_000, 75, 'critical'],
    ['8 s at 500 writes/s', 8_000, 2, 'critical'],
  ])('%s', (_name, ms, gapMs, severity) => {
    const records = [...leases(200)];
    for (let t = 0; t < ms; t += gapMs) records.push(rec(T0 + 1000 + t, operator, widget, { code: Math.round(t / gapMs) % 10 === 9 ? 200 : 409 }));
    records.sort((x, y) => x.ts - y.ts);
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => f.severity)).toEqual([severity]);
  });

  it('a flat 1.5 s retry wastes little: a low finding that names the period', () => {
    const records = Array.from({ length: 200 }, (_, i) => rec(T0 + i * 1500, operator, widget, { code: i % 10 === 9 ? 200 : 409 }));
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect([f.severity, f.metrics.backoff, f.metrics.excessRequests, f.metrics.retryGapP50Ms]).toEqual(['low', 'none', 0, 1497]);
    expect(f.title).toContain('retrying every ~1.5 s without growing the delay');
    // Not at once: neither `no-backoff` nor the advice to add backoff.
    expect([f.signals, f.advice.map((a) => a.id)]).toEqual([[], ['compare-before-write', 'patch-status']]);
  });

  it('a capped backoff seen only after it reached its 1 s cap (a capture started mid-incident): paced, stale, no advice to add backoff', () => {
    const atCap = cappedBackoff({ staleRV: true, succeedAfter: null, bursts: 1 }).filter((r) => r.receivedTs >= T0 + 60_000);
    const { findings } = runDetector(detector, {}, atCap);
    expect(findings.map((f) => [f.metrics.backoff, f.metrics.retryGapP50Ms, f.signals, f.advice.map((a) => a.id)])).toEqual([
      ['none', 997, ['stale-cache'], ['compare-before-write', 'patch-status', 'reread-before-retry']],
    ]);
    expect(findings[0]!.title).toContain('retrying every ~997 ms without growing the delay');
  });

  it.each([
    // 30 bursts × 3 retries at once (20 ms) against 119 gaps of 2 s: 43 % at once, under half.
    ['bursts of 4 every fourth pass: 43 % of the retries at once', 4, 4, ['no-backoff'], 'without backoff'],
    // 12 bursts × 2 retries at once against 119 gaps of 2 s: under a quarter at once.
    ['bursts of 3 every tenth pass: a sixth of the retries at once', 10, 3, [], 'retrying every ~2 s without growing the delay'],
  ])('one client, %s', (_name, every, size, signals, how) => {
    // Passes 2 s apart, each one 409, or a burst of `size` 409s 20 ms apart every `every`-th pass.
    const records: RequestRecord[] = [];
    let t = T0;
    for (let pass = 0; pass < 120; pass++) {
      const burst = pass % every === 0 ? size : 1;
      for (let k = 0; k < burst; k++) {
        records.push(rec(t, operator, widget, { code: 409 }));
        t += 20;
      }
      t += 2000;
    }
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.metrics.backoff, f.signals, f.advice.some((a) => a.id === 'requeue-with-backoff')])).toEqual([['none', signals, signals.length > 0]]);
    expect(findings[0]!.title).toContain(how);
  });

  it('20 objects whose 409s come 82 s apart each (a per-item backoff past chainBreakMs): no chain to judge, no no-backoff', () => {
    const records: RequestRecord[] = [];
    for (let k = 0; k < 4; k++)
      for (let i = 0; i < 20; i++) records.push(rec(T0 + k * 82_000 + i * 50, operator, object('widgets', 'shop', `w${i}`, 'status', 'example.com', 'v1alpha1'), { code: 409 }));
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.window.from, f.metrics.conflicts, f.metrics.objects, f.metrics.backoff, f.metrics.retryGapP50Ms, f.signals, f.advice.map((a) => a.id)])).toEqual([
      ['2026-08-08T18:00:00.003Z', 40, 20, 'none', null, [], ['compare-before-write', 'patch-status']],
      ['2026-08-08T18:02:44.003Z', 40, 20, 'none', null, [], ['compare-before-write', 'patch-status']],
    ]);
    expect(findings[0]!.title).toContain('with 409s over 60 s apart per client');
  });

  it('exponential backoff (5 ms doubling until success) is a note', () => {
    const records: RequestRecord[] = [];
    for (let burst = 0; burst < 20; burst++) {
      let t = T0 + burst * 5000;
      let delay = 5;
      for (let attempt = 0; attempt < 8; attempt++) {
        records.push(rec(t, operator, widget, { code: attempt === 7 ? 200 : 409 }));
        t += 3 + delay;
        delay *= 2;
      }
    }
    const { findings, notes } = runDetector(detector, {}, records);
    expect(findings).toEqual([]);
    expect(notes.map((n) => n.metrics.backoff)).toEqual(['exponential']);
    // Gaps 5, 10, 20 … ms; growth is the median of (gap + 1) / (previous gap + 1).
    expect(notes[0]!.metrics.gapGrowth).toBe(1.95);
  });

  const quiet: Array<[string, () => RequestRecord[]]> = [
    [
      'fewer than minConflicts per window (10 a minute), each 409 followed by a success',
      () => Array.from({ length: 100 }, (_, i) => rec(T0 + i * 3000, operator, widget, { code: i % 2 === 0 ? 409 : 200 })),
    ],
    [
      "low Conflict ratio (5 % of 100 writes/s) for 4 minutes: under the sustained look's share too",
      () => Array.from({ length: 24_000 }, (_, i) => rec(T0 + i * 10, operator, widget, { code: i % 20 === 0 ? 409 : 200 })),
    ],
    ['low Conflict ratio (5 % of 100 writes/s)', () => Array.from({ length: 6000 }, (_, i) => rec(T0 + i * 10, operator, widget, { code: i % 20 === 0 ? 409 : 200 }))],
    [
      '409 AlreadyExists on create',
      () => Array.from({ length: 600 }, (_, i) => rec(T0 + i * 20, operator, object('configmaps', 'shop', 'cfg'), { verb: 'create', code: 409, reason: 'AlreadyExists' })),
    ],
    ['dry-run updates', () => Array.from({ length: 600 }, (_, i) => rec(T0 + i * 20, operator, widget, { code: 409, dryRun: true }))],
    ['node lease renewals', () => leases(600)],
  ];
  it.each(quiet)('%s: nothing', (_name, make) => {
    const { findings, notes } = runDetector(detector, {}, make());
    expect([...findings, ...notes]).toEqual([]);
  });

  it('thresholds come from options', () => {
    // One 409 a second: 60 per window at most.
    const records = Array.from({ length: 50 }, (_, i) => rec(T0 + i * 1000, operator, widget, { code: 409 }));
    expect(runDetector(detector, { minConflicts: 51 }, records).findings).toHaveLength(0);
    const { findings } = runDetector(detector, { minConflicts: 50 }, records);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.metrics.conflicts).toBe(50);
  });

  it('rejects a window that is not a multiple of the step', () => {
    const r = detector.meta.optionsSchema.safeParse({ windowMs: 60_000, stepMs: 7000 });
    expect(r.success).toBe(false);
  });
});

describe('conflict-storm: one identity, several userAgents (issue 25, class 3)', () => {
  // cert-manager#6714 shape: controllers of one binary share a service account, each with its own
  // userAgent. Each loses the race 15 times a minute (under minConflicts 20), 45 together.
  const sa = 'system:serviceaccount:cert-manager:cert-manager';
  const ua = (c: string): string => `cert-manager-certificates-${c}/v1.13.3 (linux/amd64) cert-manager/abc`;
  const controllers = ['issuing', 'readiness', 'requestmanager'].map((c) => actor(sa, ua(c)));
  const cert = object('certificates', 'web', 'web-tls', 'status', 'cert-manager.io', 'v1');

  /**
   * Every 4 s for `seconds`, writer i sends a 409 at +20·i ms and its retry, a success, 50 ms
   * later: chains of 2 per client, interleaved with the other writers' (all from one pod IP).
   */
  function loops(writers: ReadonlyArray<ReturnType<typeof actor>>, seconds: number, obj = cert): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let k = 0; k < seconds / 4; k++) {
      writers.forEach((w, i) => {
        out.push(rec(T0 + k * 4000 + 20 * i, w, obj, { code: 409 }));
        out.push(rec(T0 + k * 4000 + 20 * i + 50, w, obj));
      });
    }
    return out;
  }

  it('three controllers of one service account: one finding, attempts broken down by userAgent, chains per client', () => {
    const records = loops(controllers, 300);
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings.map((f) => [f.actors[0]!.username, f.actors[0]!.userAgent, f.window])).toEqual([
      // Ties between userAgents name the first in code-unit order.
      [sa, ua('issuing'), { from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:04:56.093Z' }],
    ]);
    expect(findings[0]!.metrics).toMatchObject({
      attempts: 450,
      conflicts: 225,
      successes: 225,
      // Each client's 409 is retried by the same client 47 ms later (50 ms minus 3 ms latency),
      // not by the next controller 17 ms later: chains are per client.
      retries: 225,
      retryChains: 225,
      retryChainsSucceeded: 225,
      retryChainP90Attempts: 2,
      retryGapP50Ms: 47,
      retryGapP90Ms: 47,
      // The identity loses to itself: no one else writes the Certificate.
      foreignWrites: 0,
      backoff: 'none',
      userAgents: `${ua('issuing')}(150), ${ua('readiness')}(150), ${ua('requestmanager')}(150)`,
    });
    expect(findings[0]!.signals).toEqual(['no-backoff']);
    // Evidence: the first Conflicts (issuing's, readiness's, …, of every client) and the last retry.
    const first409s = records
      .filter((r) => r.code === 409)
      .slice(0, 4)
      .map((r) => r.auditID);
    expect(findings[0]!.evidence.auditIDs).toEqual([...first409s, records.at(-1)!.auditID]);
  });

  it('one controller alone at 15 Conflicts a minute is no storm', () => {
    expect(runDetector(detector, {}, loops(controllers.slice(0, 1), 300)).findings).toEqual([]);
  });

  it('look-alike: three kubebuilder operators with one userAgent (manager/v0.0.0) but their own service accounts stay apart', () => {
    const operators = ['a', 'b', 'c'].map((n) => actor(`system:serviceaccount:${n}-system:${n}-operator`));
    expect(new Set(operators.map((a) => a.userAgent)).size).toBe(1);
    // Together 45 Conflicts a minute on one object, each 15: no storm of any one identity.
    expect(runDetector(detector, {}, loops(operators, 300)).findings).toEqual([]);
    // Each storming on its own (three loops each, one client: its 409s at +0, +20, +40 ms are one
    // chain, the first success ends it and the next two are not tied to a Conflict, so the episode
    // stops 2 attempts short of the 450): one finding per service account, no breakdown.
    const storms = operators.slice(0, 2).flatMap((op, i) => loops([op, op, op], 300, object('widgets', 'shop', `w${i}`, 'status', 'example.com', 'v1alpha1')));
    const { findings } = runDetector(detector, {}, storms);
    expect(findings.map((f) => [f.actors[0]!.username, f.object?.name, f.metrics.attempts, f.metrics.userAgents])).toEqual([
      ['system:serviceaccount:a-system:a-operator', 'w0', 448, undefined],
      ['system:serviceaccount:b-system:b-operator', 'w1', 448, undefined],
    ]);
  });

  it('look-alike: one username, two programs, only one storms: the finding names the stormer and the breakdown tells them apart', () => {
    const script = actor('system:admin', 'python-requests/2.31.0');
    const kubectl = actor('system:admin', 'kubectl/v1.29.0 (linux/amd64) kubernetes/3f7a50f');
    const cm = object('configmaps', 'ops', 'settings');
    // The human's kubectl writes first, then every 30 s; the script loses 45 races a minute.
    const human = [0, 30, 60, 90, 120, 150, 180, 210, 240, 270].map((s) => rec(T0 + s * 1000 - 1000, kubectl, cm));
    const storm = loops([script, script, script], 300, cm);
    const { findings } = runDetector(detector, {}, [...human, ...storm]);
    expect(findings.map((f) => [f.actors[0]!.userAgent, f.metrics.attempts, f.metrics.conflicts, f.metrics.retries, f.metrics.userAgents])).toEqual([
      // kubectl's 9 writes after the first 409 are attempts of the identity, never a retry of the
      // script's 409s (same IP, another client); the script's last 2 successes end no chain (as above).
      ['python-requests/2.31.0', 457, 225, 225, 'python-requests/2.31.0(448), kubectl/v1.29.0 (linux/amd64) kubernetes/3f7a50f(9)'],
    ]);
  });
});

describe('conflict-storm: backing off but losing to itself (prometheus-operator#5610)', () => {
  /**
   * Every 220 ms the operator writes its status twice from one cached copy: the first succeeds,
   * the second (3 ms later) 409s, and the next sync's write succeeds (chains of 2 attempts). Every
   * 100th sync the cache lags and a chain backs off 5, 10, 20, 40 ms before it succeeds. With
   * `foreign`, another actor patches the main resource 1 ms before each 409 (its cause).
   */
  function twoWritesPerSync(foreign: boolean): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let k = 0; k < 600; k++) {
      const t = T0 + k * 220;
      if (k % 100 === 50) {
        let at = t;
        for (const gap of [5, 10, 20, 40]) {
          if (foreign) out.push(rec(at - 1, labeler, widgetMain, { verb: 'patch' }));
          out.push(rec(at, operator, widget, { code: 409 }));
          at += 3 + gap;
        }
        out.push(rec(at, operator, widget));
        continue;
      }
      out.push(rec(t, operator, widget));
      if (foreign) out.push(rec(t + 2, labeler, widgetMain, { verb: 'patch' }));
      out.push(rec(t + 3, operator, widget, { code: 409 }));
    }
    return out;
  }

  it.each([
    // 4.7 409/s on average over 2 min 12 s, never above 10 in a second: medium on that mean.
    ['no other writer: a finding with self-conflict', false, 1, 0, ['self-conflict'], 'medium'],
    ['another writer causing each 409: a note', true, 0, 1, [], 'info'],
  ])('%s', (_name, foreign, nFindings, nNotes, signals, severity) => {
    const { findings, notes } = runDetector(detector, {}, twoWritesPerSync(foreign));
    expect([findings.length, notes.length]).toEqual([nFindings, nNotes]);
    const f = (findings[0] ?? notes[0])!;
    expect([f.metrics.backoff, f.metrics.conflicts, f.metrics.retryChains, f.metrics.retryChainP90Attempts, f.signals, f.severity]).toEqual([
      'exponential',
      618,
      594,
      2,
      signals,
      severity,
    ]);
  });
});

describe('conflict-storm: a backoff that starts over after each success, pass after pass (try63 c3)', () => {
  /**
   * Every `periodMs` (1.1 s) for `seconds` a pass PUTs the widget's status with the resourceVersion its cache
   * still holds from before its own last write: 409, and again after 5, 10, 20 and 40 ms (four
   * 409s resending that resourceVersion), then the cache catches up and the fifth PUT succeeds.
   * The backoff is reset by the success (client-go's `Forget`), so no request is beyond per-item
   * backoff. With `foreign`, another actor patches the main resource 1 ms before each pass.
   */
  function restartingChains(seconds: number, foreign: boolean, periodMs = 1100): RequestRecord[] {
    const out: RequestRecord[] = [];
    let rv = 1000;
    for (let t = 0; t < seconds * 1000; t += periodMs) {
      if (foreign) out.push(rec(T0 + t - 1, labeler, widgetMain, { verb: 'patch' }));
      let at = T0 + t;
      for (const gap of [5, 10, 20, 40]) {
        out.push(rec(at, operator, widget, { code: 409, resourceVersion: String(rv) }));
        at += 3 + gap;
      }
      out.push(rec(at, operator, widget, { resourceVersion: String(rv + 1) }));
      rv += 2;
    }
    return out;
  }

  it.each([
    // 80 % of 2,730 writes answered 409 for 10 min, nobody else writing: no longer low.
    ['10 minutes, no other writer: the 409s never stop, rated on their mean rate', 600, false, [['medium', 2184, 0, ['stale-cache']]], 0, 1100],
    // The same passes for 50 s: a brief episode, low.
    ['50 seconds, no other writer: brief, low', 50, false, [['low', 184, 0, ['stale-cache']]], 0, 1100],
    // Another writer's patch sets off each chain: reactions to real changes, a note.
    ['10 minutes, each chain set off by another writer: a note', 600, true, [], 1, 1100],
    // A pass every 300 ms: 13.3 409/s on average, `high` on that mean, not `critical` on the share
    // of a cluster where it is the only writer.
    ['10 minutes, a pass every 300 ms: high', 600, false, [['high', 8000, 0, ['stale-cache']]], 0, 300],
  ] as const)('%s', (_name, seconds, foreign, expected, nNotes, periodMs) => {
    const { findings, notes } = runDetector(detector, {}, restartingChains(seconds, foreign, periodMs));
    expect(findings.map((f) => [f.severity, f.metrics.conflicts, f.metrics.excessRequests, f.signals])).toEqual(expected);
    expect(notes).toHaveLength(nNotes);
  });
});

describe('conflict-storm: a roll-up whose chains another writer’s changes set off (kuberay#745)', () => {
  const ray = actor('system:serviceaccount:ray-system:kuberay-operator', 'kuberay-operator/v0.3.0');
  const autoscaler = actor('system:serviceaccount:ml:ray-autoscaler', 'ray-autoscaler/v2.1.0');

  /**
   * 16 RayClusters, each every 40 s for 10 minutes: the autoscaler patches its spec (with
   * `foreign`), 58 ms later the operator's status update is stored, 52 ms after that the next
   * reconcile's update, from a cache that has not seen the first yet, gets 409 and its retry 6 ms
   * later is stored. With `backoff`, that reconcile's update gets 409 four times, retried with
   * per-item backoff (5, 10, 20 and 40 ms after each answer) until the cache catches up, and
   * resends the stale resourceVersion each time (try60's kuberay_small); with `storeEvery` 2, only
   * every other such chain ends with a stored write (in the others the caught-up cache leaves
   * nothing to write, try61's kr100). `periodMs`: the time between one cluster's patches.
   */
  function reactions(foreign: boolean, backoff = false, storeEvery = 1, periodMs = 40_000): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let c = 0; c < 16; c++) {
      const main = object('rayclusters', 'ml', `raycluster-${c}`, '', 'ray.io');
      const status = object('rayclusters', 'ml', `raycluster-${c}`, 'status', 'ray.io');
      for (let t = 5000 + c * 2500, round = 0; t < 600_000; t += periodMs, round++) {
        if (foreign) out.push(rec(T0 + t, autoscaler, main, { verb: 'patch' }));
        out.push(rec(T0 + t + 58, ray, status));
        if (!backoff) {
          out.push(rec(T0 + t + 110, ray, status, { code: 409 }));
          out.push(rec(T0 + t + 116, ray, status));
          continue;
        }
        let at = t + 110;
        for (const delay of [5, 10, 20, 40]) {
          out.push(rec(T0 + at, ray, status, { code: 409, resourceVersion: `${c}-${t}`, latencyMs: 1 }));
          at += delay + 1;
        }
        if (round % storeEvery === 0) out.push(rec(T0 + at, ray, status, { latencyMs: 1 }));
      }
    }
    return out.sort((a, b) => a.receivedTs - b.receivedTs);
  }

  it.each<[string, boolean, Record<string, unknown>, number, number, string]>([
    ['each chain within 2 s of the autoscaler’s patch: RetryOnConflict handled well, a note', true, {}, 0, 1, 'retry-on-conflict'],
    ['the same chains with no other writer: the operator loses to itself, a finding', false, {}, 1, 0, 'none'],
    ['rollup.reactionLagMs 0: no chain counts as set off, a finding', true, { rollup: { reactionLagMs: 0 } }, 1, 0, 'none'],
    ['rollup.reactionLagMs 50: the operator’s first write comes 58 ms after the patch, a finding', true, { rollup: { reactionLagMs: 50 } }, 1, 0, 'none'],
  ])('%s', (_name, foreign, options, nFindings, nNotes, backoff) => {
    const { findings, notes } = runDetector(detector, options, reactions(foreign));
    expect([findings.length, notes.length]).toEqual([nFindings, nNotes]);
    const f = (findings[0] ?? notes[0])!;
    // 15 rounds of 14 clusters and 14 of the last two (their first patch comes 2.5 s later each): 238 409s, one chain each.
    expect([f.object, f.metrics.objects, f.metrics.conflicts, f.metrics.retryChains, f.metrics.backoff]).toEqual([null, 16, 238, 238, backoff]);
  });

  it.each<[string, boolean, number, number]>([
    ['chains backed off through a lagging cache after each patch, every one stored: a note', true, 0, 1],
    ['the same chains with no other writer: a finding', false, 1, 0],
  ])('%s', (_name, foreign, nFindings, nNotes) => {
    const { findings, notes } = runDetector(detector, {}, reactions(foreign, true, 1));
    expect([findings.length, notes.length]).toEqual([nFindings, nNotes]);
    const f = (findings[0] ?? notes[0])!;
    expect([f.metrics.backoff, f.signals, f.metrics.conflicts, f.metrics.retryChains, f.metrics.retryChainsSucceeded, f.metrics.chainsSetOff, f.metrics.excessRequests]).toEqual([
      'exponential',
      ['stale-cache'],
      4 * 238,
      238,
      238,
      // The first chain comes before any roll-up, so before writes to rayclusters were kept: 237.
      foreign ? 237 : 0,
      0,
    ]);
  });

  it('chains set off by patches 70 s apart, every other one ending with nothing left to write: a note', () => {
    const records = reactions(true, true, 2, 70_000);
    const { findings, notes } = runDetector(detector, {}, records);
    expect([findings.length, notes.length]).toEqual([0, 1]);
    const m = notes[0]!.metrics;
    // One chain per patch: 9 rounds of 14 clusters, 8 of the last two (142). Those of odd rounds end
    // unstored (the next write comes 70 s later, past chainBreakMs): 5 × 14 + 4 × 2 = 78 stored,
    // 55 %. Every chain but the first (before any roll-up kept writes) was set off.
    const patches = records.filter((r) => r.verb === 'patch').length;
    expect([patches, m.backoff, m.retryChains, m.retryChainsSucceeded, m.chainsSetOff, m.excessRequests]).toEqual([142, 'exponential', 142, 78, 141, 0]);
  });

  // try61 kr1_fast: one RayCluster whose autoscaler patches it every 3 s: the object's own episode
  // (no roll-up), each chain a reaction to one of the autoscaler's writes.
  it.each<[string, boolean, number, number]>([
    ['one object, a patch every 3 s, each followed by a backed-off chain: a note', true, 0, 1],
    ['the same chains with no other writer: a finding', false, 1, 0],
  ])('%s', (_name, foreign, nFindings, nNotes) => {
    const main = object('rayclusters', 'ml', 'raycluster-0', '', 'ray.io');
    const status = object('rayclusters', 'ml', 'raycluster-0', 'status', 'ray.io');
    const out: RequestRecord[] = [];
    for (let t = 1000; t < 600_000; t += 3000) {
      if (foreign) out.push(rec(T0 + t, autoscaler, main, { verb: 'patch' }));
      out.push(rec(T0 + t + 58, ray, status));
      let at = t + 110;
      for (const delay of [5, 10, 20, 40]) {
        out.push(rec(T0 + at, ray, status, { code: 409, resourceVersion: `${t}`, latencyMs: 1 }));
        at += delay + 1;
      }
      out.push(rec(T0 + at, ray, status, { latencyMs: 1 }));
    }
    const { findings, notes } = runDetector(detector, {}, out);
    expect([findings.length, notes.length]).toEqual([nFindings, nNotes]);
    const f = (findings[0] ?? notes[0])!;
    // 200 rounds: 800 409s in 200 chains; the autoscaler's patches after the first 409 are the episode's foreign writes (199).
    expect([f.object?.name, f.metrics.backoff, f.signals, f.metrics.conflicts, f.metrics.retryChains, f.metrics.foreignWrites, f.metrics.excessRequests]).toEqual([
      'raycluster-0',
      'exponential',
      ['stale-cache'],
      800,
      200,
      foreign ? 199 : 0,
      0,
    ]);
  });

  // flux2#3689's double patch over 8 Kustomizations, each every 20 s, beside a writer patching
  // each about every 1.5 s out of step with the controller (try60 flux8g_foreign_1s): most passes
  // start over 500 ms after the last outside patch, so they are the controller losing to itself.
  it('a writer losing to itself beside another touching each object every 1.5 s: a finding', () => {
    const flux = actor('system:serviceaccount:flux-system:kustomize-controller', 'kustomize-controller/v1.2.0');
    const out: RequestRecord[] = [];
    for (let k = 0; k < 8; k++) {
      const main = object('kustomizations', 'apps', `app-${k}`, '', 'kustomize.toolkit.fluxcd.io');
      const status = object('kustomizations', 'apps', `app-${k}`, 'status', 'kustomize.toolkit.fluxcd.io');
      for (let t = k * 100; t < 600_000; t += 20_000) {
        out.push(rec(T0 + t, flux, status, { verb: 'patch' }));
        out.push(rec(T0 + t + 4, flux, status, { verb: 'patch', code: 409 }));
        out.push(rec(T0 + t + 15, flux, status, { verb: 'patch' }));
      }
      for (let t = k * 37 + 700; t < 600_000; t += 1500 + k) out.push(rec(T0 + t, autoscaler, main, { verb: 'patch' }));
    }
    out.sort((a, b) => a.receivedTs - b.receivedTs);
    const { findings } = runDetector(detector, {}, out);
    expect(findings.map((f) => [f.object, f.metrics.conflicts, f.metrics.backoff])).toEqual([[null, 240, 'none']]);
  });
});

describe("conflict-storm: conflicts that never stop under the window's rule (issue 25, sustained look)", () => {
  const node = actor('system:node:node-7', 'kubelet/v1.30.4 (linux/amd64) kubernetes/a51b3b7');
  const nodeStatus = object('nodes', '', 'node-7', 'status');
  const nodeLease = object('leases', 'kube-node-lease', 'node-7', '', 'coordination.k8s.io');
  const daemon = actor('system:serviceaccount:dra:compute-domain-daemon', 'compute-domain-daemon/v25.3.0 (linux/amd64) kubernetes/$Format');
  const clique = object('computedomaincliques', 'dra', 'clique-a', '', 'resource.nvidia.com', 'v1beta1');

  /**
   * kubernetes#58002: a kubelet whose watch cache is stuck patches node status every 10 s for
   * `seconds` with one stale resourceVersion, `tries` times 5 ms apart, all 409 (18 a minute with
   * 3 tries, under minConflicts 20), and renews its Lease (another object) every 10 s.
   */
  function stuckKubelet(seconds: number, tries: number): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let t = 0; t < seconds * 1000; t += 10_000) {
      out.push(rec(T0 + t + 500, node, nodeLease));
      for (let k = 0; k < tries; k++) out.push(rec(T0 + t + 5 * k, node, nodeStatus, { verb: 'patch', code: 409, resourceVersion: '4711' }));
    }
    return out;
  }

  /**
   * dra-driver#1101: 8 daemons (8 IPs) of one service account patch one object every second for
   * `seconds`; each second 2 of them lose the race and retry 2 ms after the 409 with success:
   * 10 writes/s, 2 409s/s (20 %, under minConflictRatio 0.3).
   */
  function daemons(seconds: number): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let s = 0; s < seconds; s++) {
      for (let d = 0; d < 8; d++) {
        const t = T0 + s * 1000 + d * 50;
        const ip = `10.2.0.${d + 1}`;
        const loses = (s + d) % 4 === 0;
        out.push(rec(t, daemon, clique, { verb: 'patch', sourceIP: ip, code: loses ? 409 : 200 }));
        if (loses) out.push(rec(t + 5, daemon, clique, { verb: 'patch', sourceIP: ip }));
      }
    }
    return out;
  }

  it('a stuck kubelet at 18 409s a minute, every write answered 409: one finding with stale-cache', () => {
    const records = stuckKubelet(240, 3);
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    const storm = records.filter((r) => r.object === nodeStatus);
    expect([f.actors[0]!.username, f.object?.name, f.object?.subresource, f.window]).toEqual([
      'system:node:node-7',
      'node-7',
      'status',
      { from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:03:50.013Z' },
    ]);
    expect(f.metrics).toMatchObject({ attempts: 72, conflicts: 72, successes: 0, retries: 71, staleRetries: 71, backoff: 'none' });
    expect(f.signals).toEqual(['no-backoff', 'stale-cache']);
    expect(f.evidence.auditIDs).toEqual([...storm.slice(0, 4).map((r) => r.auditID), storm.at(-1)!.auditID]);
  });

  it('daemons of one service account losing 20 % of their patches for 4 minutes: one finding', () => {
    const records = daemons(240);
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings.map((f) => [f.object?.name, f.metrics.attempts, f.metrics.conflicts, f.metrics.successes, f.metrics.sourceIPCount, f.signals])).toEqual([
      // All 2,400 writes but the last two successes, which follow no 409.
      ['clique-a', 2398, 480, 1918, 8, ['no-backoff', 'duplicate-replicas']],
    ]);
  });

  it('20 pods of one service account (20 IPs, past maxSourceIPs 16): sourceIPCount counts each IP once', () => {
    // Each second every pod patches once and gets 409, then retries 5 ms later with success.
    const records: RequestRecord[] = [];
    for (let s = 0; s < 240; s++) {
      for (let d = 0; d < 20; d++) {
        const ip = `10.4.0.${d + 1}`;
        records.push(rec(T0 + s * 1000 + d * 40, daemon, clique, { verb: 'patch', sourceIP: ip, code: 409 }));
        records.push(rec(T0 + s * 1000 + d * 40 + 5, daemon, clique, { verb: 'patch', sourceIP: ip }));
      }
    }
    const { findings } = runDetector(detector, {}, records);
    expect(findings.map((f) => [f.object?.name, f.metrics.attempts, f.metrics.conflicts, f.metrics.sourceIPCount, f.actors[0]!.sourceIPs.length])).toEqual([
      ['clique-a', 9600, 4800, 20, 16],
    ]);
  });

  it.each([
    ["the stuck kubelet for 2 minutes only (409s in too few of the 3-minute look's steps)", () => stuckKubelet(120, 3)],
    ['the daemons for 1 minute only', () => daemons(60)],
    [
      'one 409 per sync, a success after it (6 a minute, converging)',
      () => stuckKubelet(300, 1).flatMap((r) => (r.object === nodeStatus ? [r, rec(r.receivedTs + 20, node, nodeStatus, { verb: 'patch' })] : [r])),
    ],
  ])('look-alike: %s: nothing', (_name, make) => {
    const { findings, notes } = runDetector(detector, {}, make());
    expect([...findings, ...notes]).toEqual([]);
  });

  /**
   * A stale cache retried with per-item backoff from 100 ms doubling to an 8 s cap, every retry
   * resending one resourceVersion and answered 409, for `seconds`; the first `skip` ms left out
   * (as `--since` cuts a log).
   */
  function cappedStale(seconds: number, skip = 0): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let t = 0, d = 100; t < seconds * 1000; t += d, d = Math.min(d * 2, 8000)) if (t >= skip) out.push(rec(T0 + t, operator, widget, { code: 409, resourceVersion: '4711' }));
    return out;
  }

  // A writer whose every write to an object conflicts for minutes is stuck whatever its rate
  // (kubernetes#58002: one 409 per 10 s sync), and its episode stays open while that lasts.
  it.each<[string, RequestRecord[], Array<[number, number, string, string]>]>([
    ['the stuck kubelet at one 409 per 10 s sync for 9 minutes', stuckKubelet(540, 1), [[54, 54, '2026-08-08T18:00:00.003Z', '2026-08-08T18:08:50.003Z']]],
    ['a stale cache behind an 8 s capped backoff for 10 minutes: open to its last 409', cappedStale(600), [[81, 81, '2026-08-08T18:00:00.003Z', '2026-08-08T18:09:56.703Z']]],
    ['the same from minute 5 on (a log cut by --since)', cappedStale(600, 300_000), [[38, 38, '2026-08-08T18:05:00.703Z', '2026-08-08T18:09:56.703Z']]],
  ])('stuck whatever its rate: %s', (_name, records, expected) => {
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings.map((f) => [f.metrics.attempts, f.metrics.conflicts, f.window.from, f.window.to])).toEqual(expected);
  });

  it('the sustained look comes from options', () => {
    expect(runDetector(detector, { sustained: { stuckMinConflicts: 80 } }, stuckKubelet(240, 3)).findings).toEqual([]);
    expect(runDetector(detector, { sustained: { contentionMinRatio: 0.25 } }, daemons(240)).findings).toEqual([]);
  });
});

describe('conflict-storm: roll-up per identity and resource (kyverno#4265)', () => {
  const bg = actor('system:serviceaccount:kyverno:kyverno-background-controller', 'kyverno/v1.11.4 (linux/amd64) kubernetes/');
  const ur = (i: number) => object('updaterequests', 'kyverno', `ur-${i}`, 'status', 'kyverno.io', 'v1beta1');

  /**
   * Every 500 ms for `seconds` a new UpdateRequest: its status is updated to Pending (200), then
   * 20 ms later to Completed from the same cached copy (409), requeued 5, 10, 20 ms after each
   * 409 until the watch catches up (a 200 38 ms after the fourth 409): 4 409s on each object, 8 a
   * second in all, none of them enough for an object's own episode.
   */
  function updateRequests(seconds: number): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let i = 0; i < seconds * 2; i++) {
      const t = T0 + i * 500;
      out.push(rec(t, bg, ur(i), { resourceVersion: String(100 + i) }));
      let at = t + 20;
      for (const gap of [5, 10, 20, 38]) {
        out.push(rec(at, bg, ur(i), { code: 409, resourceVersion: String(100 + i) }));
        at += 3 + gap;
      }
      out.push(rec(at, bg, ur(i), { resourceVersion: String(101 + i) }));
    }
    return out;
  }

  it('409s spread over 480 short-lived objects of one resource: one finding for the resource, object null', () => {
    const records = updateRequests(240);
    const { findings, notes } = runDetector(detector, {}, records);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.object).toBeNull();
    expect(f.title).toBe(
      'kyverno-background-controller retries 409 Conflict on 480 updaterequests.kyverno.io/status objects with exponential backoff: 1,920 of 2,879 writes conflicted (67%), peak 8 409/s',
    );
    // From the first 409 (the first object's Pending write came before it): 5 + 479 × 6 writes.
    expect(f.metrics).toMatchObject({
      attempts: 2879,
      conflicts: 1920,
      successes: 959,
      objects: 480,
      objectsWithConflicts: 480,
      topObjects: 'kyverno/ur-0(4), kyverno/ur-1(4), kyverno/ur-10(4), kyverno/ur-100(4), kyverno/ur-101(4)',
      retryChains: 480,
      retryChainsSucceeded: 480,
      backoff: 'exponential',
      staleRetries: 1440,
    });
    expect(f.signals).toEqual(['stale-cache']);
    const conflicts = records.filter((r) => r.code === 409);
    expect(f.evidence.auditIDs).toEqual([...conflicts.slice(0, 4).map((r) => r.auditID), records.at(-1)!.auditID]);
  });

  it('rollup.minObjects comes from options', () => {
    // 120 objects get their 409s in any one window.
    expect(runDetector(detector, { rollup: { minObjects: 121 } }, updateRequests(240)).findings).toEqual([]);
    expect(runDetector(detector, { rollup: { minObjects: 120 } }, updateRequests(240)).findings).toHaveLength(1);
  });

  it.each([
    [
      'one 409 on every tenth of 600 objects (ratio under minConflictRatio)',
      () => Array.from({ length: 2400 }, (_, i) => rec(T0 + i * 100, bg, ur(i % 600), { code: i % 40 === 0 ? 409 : 200 })),
    ],
    [
      "the same pattern from one DaemonSet's 480 pods (one service account, one IP and one object each: a fleet)",
      () => updateRequests(240).map((r) => ({ ...r, sourceIP: `10.3.${Math.floor(Number(r.object!.name.slice(3)) / 250)}.${Number(r.object!.name.slice(3)) % 250}` })),
    ],
    [
      'the same pattern from 480 kubelets, each on its own node (one object per identity)',
      () => updateRequests(240).map((r) => ({ ...r, actor: actor(`system:node:${r.object!.name}`, 'kubelet/v1.30.4 (linux/amd64) kubernetes/a51b3b7') })),
    ],
  ])('look-alike: %s: nothing', (_name, make) => {
    const { findings, notes } = runDetector(detector, {}, make());
    expect([...findings, ...notes]).toEqual([]);
  });

  /**
   * Every 250 ms a write of a new object for `n` objects: every `every`-th is answered 409 and
   * retried 20 ms later with success, the others go through at once (written once each).
   */
  function restartBlip(n: number, every: number, fromMs = 0): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let i = 0; i < n; i++) {
      const t = T0 + fromMs + i * 250;
      if (i % every !== 0) out.push(rec(t, bg, ur(i)));
      else out.push(rec(t, bg, ur(i), { code: 409 }), rec(t + 20, bg, ur(i)));
    }
    return out;
  }

  // The roll-up's share counts the identity's writes to the resource from its first 409,
  // objects written once included (issue 25: "45 of 90 writes" for 45 of 445); its backoff is
  // RetryOnConflict, handled well, when each object's conflicts stop after one chain.
  it.each<[string, RequestRecord[], Array<[string, number, number, number, unknown]>]>([
    // 120 writes; the last object's, after the last retry, is past the episode's end.
    ['80 objects, every second one 409 then ok at once: 40 of 119 writes (34 %), a note', restartBlip(80, 2), [['info', 40, 119, 40, 'retry-on-conflict']]],
    ['400 objects, every ninth one 409 then ok: 45 of 445 writes (10 %), under minConflictRatio', restartBlip(400, 9), []],
    ['the same 40 objects 409 again 30 s later: the conflicts recur, no backoff', [...restartBlip(80, 2), ...restartBlip(80, 2, 30_000)], [['low', 80, 239, 40, 'none']]],
  ])('roll-up share and backoff: %s', (_name, records, expected) => {
    const { findings, notes } = runDetector(detector, {}, records);
    expect([...findings, ...notes].map((f) => [f.severity, f.metrics.conflicts, f.metrics.attempts, f.metrics.objectsWithConflicts, f.metrics.backoff])).toEqual(expected);
  });

  it('an object with its own episode is reported alone: no roll-up beside it or on its tail', () => {
    const others = Array.from({ length: 100 }, (_, i) => rec(T0 + i * 1500, operator, object('widgets', 'shop', `x${i}`, 'status', 'example.com', 'v1alpha1'), { code: 409 }));
    const { findings } = runDetector(detector, {}, [...twoReplicaStorm(T0, 120), ...others]);
    expect(findings.map((f) => [f.object?.name ?? null, f.metrics.conflicts])).toEqual([['w1', 11_000]]);
  });
});

describe('conflict-storm: severity weighs excess requests for a writer that converges (issue 25)', () => {
  const dsController = actor(
    'system:serviceaccount:kube-system:daemon-set-controller',
    'kube-controller-manager/v1.30.4 (linux/amd64) kubernetes/a51b3b7/system:serviceaccount:kube-system:daemon-set-controller',
  );
  const dsStatus = object('daemonsets', 'kube-system', 'agent', 'status', 'apps');

  /**
   * A DaemonSet rollout for `seconds`: `perSec` times a second the controller's status update
   * from a cache behind its own last write gets 409, the re-read retry 2 ms later succeeds (1 ms
   * latency: 1 request beyond per-item backoff per chain), and an update 300 ms later succeeds. No
   * one else writes the DaemonSet: the 409s are its own (`none`, as for self-conflicts).
   */
  function rollout(seconds: number, perSec: number): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let k = 0; k < seconds * perSec; k++) {
      const t = T0 + Math.round((k * 1000) / perSec);
      out.push(rec(t, dsController, dsStatus, { code: 409, latencyMs: 1 }));
      out.push(rec(t + 2, dsController, dsStatus, { latencyMs: 1 }));
      out.push(rec(t + Math.round(300 / perSec), dsController, dsStatus, { latencyMs: 1 }));
    }
    return out;
  }

  it.each([
    // All the log's writes (share 1: critical by share) but 150 excess requests: low.
    ['one lost race a second for 150 s', 150, 1, 'low', 150],
    ['four a second for 150 s (600 excess requests)', 150, 4, 'medium', 600],
    ['four a second for 5 min (1,200 excess requests)', 300, 4, 'high', 1200],
  ])('%s: %s', (_name, seconds, perSec, severity, excess) => {
    const { findings } = runDetector(detector, {}, rollout(seconds, perSec));
    expect(findings.map((f) => [f.severity, f.metrics.excessRequests, f.metrics.retryChainsSucceeded, f.metrics.backoff])).toEqual([[severity, excess, seconds * perSec, 'none']]);
  });

  it('severityExcess comes from options', () => {
    expect(runDetector(detector, { severityExcess: { medium: 100 } }, rollout(150, 1)).findings.map((f) => f.severity)).toEqual(['medium']);
  });
});
