import { describe, expect, it } from 'vitest';
import { throttling } from '../../src/detectors/throttling.js';
import type { Detector } from '../../src/detectors/types.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { actor, object, rec, runDetector } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const detector = throttling as unknown as Detector;
const collector = actor('system:serviceaccount:monitoring:metrics-collector', 'metrics-collector/v0.0.0 (linux/amd64) kubernetes/$Format');
const operator = actor('system:serviceaccount:shop-system:shop-operator');
const human = actor('alice@example.com', 'kubectl/v1.31.0 (linux/amd64) kubernetes/9edcffc');
const pods = object('pods', '', '');
const widget = object('widgets', 'shop', 'w1', 'status', 'example.com', 'v1alpha1');

/** The collector lists pods every 200 ms for 60 s; every other list is answered 429 (APF shape: no reason). */
function victim(): RequestRecord[] {
  return Array.from({ length: 300 }, (_, k) => rec(T0 + k * 200, collector, pods, { verb: 'list', code: k % 2 === 0 ? 429 : 200, sourceIP: '10.2.0.1' }));
}

/** The operator updates one object 50 times a second, 1 in 10 answered 409: the heavy client. */
function storm(): RequestRecord[] {
  return Array.from({ length: 3000 }, (_, k) => rec(T0 + 1 + k * 20, operator, widget, { code: k % 10 === 0 ? 409 : 200, sourceIP: '10.1.0.1' }));
}

/** A human's kubectl get once a second: light traffic that explains nothing. */
function kubectl(): RequestRecord[] {
  return Array.from({ length: 60 }, (_, k) => rec(T0 + 2 + k * 1000, human, object('deployments', 'shop', 'web', '', 'apps'), { verb: 'get', sourceIP: '192.168.1.5' }));
}

describe('throttling: throttled actors', () => {
  it('a throttled collector next to a hot writer: victim, likely cause, exact counts', () => {
    const v = victim();
    const { findings, notes, alerts } = runDetector(detector, {}, [...v, ...storm(), ...kubectl()]);
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.kind).toBe('throttling');
    expect(f.object).toBeNull();
    expect(f.window).toEqual({ from: '2026-08-08T18:00:00.003Z', to: '2026-08-08T18:00:59.603Z' });
    // The victim first, then the likely cause; kubectl is below minCauseShare.
    expect(f.actors.map((a) => [a.username, a.sourceIPs])).toEqual([
      ['system:serviceaccount:monitoring:metrics-collector', ['10.2.0.1']],
      ['system:serviceaccount:shop-system:shop-operator', ['10.1.0.1']],
    ]);
    expect(f.metrics).toEqual({
      requests: 300,
      throttled: 150,
      throttledShare: 0.5,
      peak429PerSec: 3,
      durationMs: 59_600,
      throttledVerbs: 'list(150)',
      throttledResources: 'pods(150)',
      // The next list 200 ms after each 429 (197 ms from its stageTimestamp): Retry-After ignored.
      retryGapP50Ms: 197,
      likelyCause: 'system:serviceaccount:shop-system:shop-operator',
      likelyCauseUserAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
      likelyCauseRequests: 3000,
      likelyCauseWrites: 3000,
      likelyCauseConflicts: 300,
      // 3,000 of 300 + 3,000 + 60 requests.
      likelyCauseShare: 0.8929,
      otherVictims: null,
      throttledShareOfRequests: 0.0446,
      excessRequests: 150,
      shareOfWrites: 0,
      shareOfRequests: 0.0893,
    });
    // Half its requests rejected (high), for 59.6 s, under brief.mediumMs: medium.
    expect(f.severity).toBe('medium');
    expect(f.signals).toEqual(['throttled', 'apf-rejected', 'ignores-retry-after', 'likely-cause', 'cause-conflict-storm']);
    expect(f.advice.map((a) => a.id)).toEqual(['fix-the-heavy-client', 'flowschema', 'watch-instead-of-list', 'honor-retry-after']);
    expect(f.evidence).toEqual({
      auditIDs: [v[0]!.auditID, v[2]!.auditID, v[4]!.auditID, v[6]!.auditID, v[298]!.auditID],
      firstAuditID: v[0]!.auditID,
      lastAuditID: v[298]!.auditID,
      auditLevel: 'Metadata',
      level: 'proven',
    });
    expect(f.title).toBe('metrics-collector is throttled: 150 of 300 requests answered 429 (50%), peak 3/s; coincides with shop-operator (3,000 requests)');
    // The finding's timeline: its buckets add up to its own counts.
    expect([
      f.series?.points.reduce((n, p) => n + p.writes, 0),
      f.series?.points.reduce((n, p) => n + p.conflicts, 0),
      f.series?.labels?.writes,
      f.series?.labels?.conflicts,
    ]).toEqual([300, 150, 'requests/s', '429/s']);
    // Opened at low (under 30 s of 429s so far), raised to medium as it went on.
    expect(alerts).toEqual(['open throttling ', 'update throttling ', 'close throttling ']);
  });

  it('two victims: each its own finding, naming the other', () => {
    const second = actor('system:serviceaccount:monitoring:log-shipper', 'log-shipper/v1.0.0 (linux/amd64) kubernetes/$Format');
    const records = [...victim(), ...storm(), ...victim().map((r) => ({ ...r, auditID: `b-${r.auditID}`, actor: second }))];
    const { findings } = runDetector(detector, {}, records);
    const rows = findings.map((f) => [f.actors[0]!.username, f.metrics.likelyCause, f.metrics.otherVictims]);
    expect(rows.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1))).toEqual([
      ['system:serviceaccount:monitoring:log-shipper', 'system:serviceaccount:shop-system:shop-operator', 'system:serviceaccount:monitoring:metrics-collector(150)'],
      ['system:serviceaccount:monitoring:metrics-collector', 'system:serviceaccount:shop-system:shop-operator', 'system:serviceaccount:monitoring:log-shipper(150)'],
    ]);
    expect(findings.every((f) => f.signals.includes('other-victims'))).toBe(true);
  });

  it('a heavy lister throttled itself (APF rejects the heaviest flow first) is the likely cause of a light victim, not a fellow victim', () => {
    const lister = actor('system:serviceaccount:analytics:reportgen', 'OpenAPI-Generator/29.0.0/python');
    // 3,000 lists in 60 s (10× the collector's 300), 6 in 10 answered 429.
    const heavy = Array.from({ length: 3000 }, (_, k) =>
      rec(T0 + 3 + k * 20, lister, object('secrets', '', ''), { verb: 'list', code: k % 10 < 6 ? 429 : 200, sourceIP: '10.7.0.1' }),
    );
    const { findings } = runDetector(
      detector,
      {},
      [...victim(), ...heavy].sort((a, b) => a.ts - b.ts),
    );
    const rows = findings.map((f) => [f.actors.map((a) => a.username), f.metrics.throttled, f.metrics.likelyCause, f.metrics.otherVictims, f.signals]);
    expect(rows.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1))).toEqual([
      [
        ['system:serviceaccount:analytics:reportgen'],
        1800,
        null,
        'system:serviceaccount:monitoring:metrics-collector(150)',
        ['throttled', 'apf-rejected', 'ignores-retry-after', 'other-victims'],
      ],
      [
        ['system:serviceaccount:monitoring:metrics-collector', 'system:serviceaccount:analytics:reportgen'],
        150,
        'system:serviceaccount:analytics:reportgen',
        null,
        ['throttled', 'apf-rejected', 'ignores-retry-after', 'likely-cause'],
      ],
    ]);
  });

  const bystander = actor('system:serviceaccount:x:bg', 'bg/v1');
  const latecomer = actor('system:serviceaccount:shop-system:widget-operator', 'widget-operator/v1');
  const causes: Array<[string, () => RequestRecord[], string[]]> = [
    [
      // 600 requests: 15 % of all, above minCauseShare, but a fifth of the operator's 3,000.
      'a steady background client at 10/s throughout is a bystander (below causeMinOfTop)',
      () =>
        Array.from({ length: 600 }, (_, k) =>
          rec(T0 + 5 + k * 100, bystander, object('configmaps', 'x', `bg-${k % 30}`), { verb: k % 4 === 0 ? 'update' : 'get', sourceIP: '10.9.9.9' }),
        ),
      ['system:serviceaccount:shop-system:shop-operator'],
    ],
    [
      // 2,400 requests (80 % of the operator's) in the last 30 s: heavy in 3 of the 6 throttled steps.
      'a heavy client that arrives half-way through the throttling is not a cause (below minCauseCoverage)',
      () => Array.from({ length: 2400 }, (_, k) => rec(T0 + 30_000 + 7 + k * 12.5, latecomer, widget, { sourceIP: '10.4.0.1' })),
      ['system:serviceaccount:shop-system:shop-operator'],
    ],
    [
      "two heavy clients throughout, the second with ≥ half the first's requests: both named",
      () => Array.from({ length: 2400 }, (_, k) => rec(T0 + 7 + k * 25, latecomer, widget, { sourceIP: '10.4.0.1' })),
      ['system:serviceaccount:shop-system:shop-operator', 'system:serviceaccount:shop-system:widget-operator'],
    ],
  ];
  it.each(causes)('likely causes: %s', (_, extra, named) => {
    const records = [...victim(), ...storm(), ...extra()].sort((a, b) => a.ts - b.ts);
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.actors.map((a) => a.username)).toEqual(['system:serviceaccount:monitoring:metrics-collector', ...named]);
    expect(findings[0]!.metrics.likelyCause).toBe('system:serviceaccount:shop-system:shop-operator');
  });

  it('ranks the heaviest actors of a step by requests, ties by actor key, and keeps topK of them', () => {
    // Three clients exactly as heavy as the operator (3,000 requests 20 ms apart): with topK 3,
    // the heaviest of each step are the operator (first by key) and the first two ties by key.
    const tie = (name: string): RequestRecord[] => {
      const a = actor(`system:serviceaccount:t:${name}`, 'tie/v1');
      return Array.from({ length: 3000 }, (_, k) => rec(T0 + 9 + k * 20, a, widget, { sourceIP: '10.5.0.1' }));
    };
    const records = [...victim(), ...storm(), ...tie('c-b'), ...tie('c-c'), ...tie('c-a')].sort((a, b) => a.ts - b.ts);
    const { findings } = runDetector(detector, { topK: 3 }, records);
    expect(findings).toHaveLength(1);
    // Listed: the victim, then the causes by requests (ties by key), at most two of them.
    expect(findings[0]!.actors.map((a) => a.username)).toEqual([
      'system:serviceaccount:monitoring:metrics-collector',
      'system:serviceaccount:shop-system:shop-operator',
      'system:serviceaccount:t:c-a',
    ]);
    expect(findings[0]!.metrics.likelyCause).toBe('system:serviceaccount:shop-system:shop-operator');
  });

  it('no heavy client around: no likely cause', () => {
    const { findings } = runDetector(detector, {}, victim());
    expect(findings).toHaveLength(1);
    expect(findings[0]!.metrics).toMatchObject({ likelyCause: null, likelyCauseShare: null, throttledShareOfRequests: 0.5 });
    expect(findings[0]!.actors).toHaveLength(1);
    expect(findings[0]!.signals).not.toContain('likely-cause');
    // Its 429s are half of all requests: critical by share of all requests, but for under a minute: medium.
    expect(findings[0]!.severity).toBe('medium');
  });
});

describe('throttling: severity weighs duration, causes must crowd the victim out (issue 25)', () => {
  const ci = actor('release-bot', 'kubectl/v1.31.0 (linux/amd64) kubernetes/9edcffc');
  const reader = actor('system:serviceaccount:kube-system:coredns', 'coredns/v1.11.1');

  /**
   * A CI bulk apply: 300 ConfigMap creates in 6 s (one per 20 ms); its APF flow admits one in
   * three, the others get 429 and are sent again 1 s later (Retry-After), admitted then.
   * Alongside, a reader that is never throttled lists endpointslices 10 times a second for 4 min:
   * above minCauseShare and heavy in every step, but lighter than the burst.
   */
  function bulkApply(): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let k = 0; k < 300; k++) {
      const cm = object('configmaps', 'ci', `cfg-${k}`);
      const t = T0 + 60_000 + k * 20;
      if (k % 3 === 0) out.push(rec(t, ci, cm, { verb: 'create', code: 201, sourceIP: '192.0.2.40' }));
      else {
        out.push(rec(t, ci, cm, { verb: 'create', code: 429, sourceIP: '192.0.2.40' }));
        out.push(rec(t + 1000, ci, cm, { verb: 'create', code: 201, sourceIP: '192.0.2.40' }));
      }
    }
    for (let k = 0; k < 2400; k++) out.push(rec(T0 + k * 100, reader, object('endpointslices', '', '', '', 'discovery.k8s.io'), { verb: 'list', sourceIP: '10.244.0.9' }));
    return out;
  }

  it('a bulk apply throttled for 6 s that completes: low, and the never-throttled reader is no likely cause', () => {
    const records = bulkApply();
    const { findings } = runDetector(detector, {}, records);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.actors.map((a) => a.username)).toEqual(['release-bot']);
    expect(f.severity).toBe('low');
    // From the first 429 (the second create) to the last (the 300th): 499 requests, 5,960 ms.
    expect(f.metrics).toMatchObject({ requests: 499, throttled: 200, durationMs: 5960, likelyCause: null });
    expect(f.signals).toEqual(['throttled', 'apf-rejected']);
    const rejected = records.filter((r) => r.code === 429);
    expect([f.evidence.firstAuditID, f.evidence.lastAuditID]).toEqual([rejected[0]!.auditID, rejected.at(-1)!.auditID]);
  });

  it('the same 429 share for 2 minutes is rated by its shares again: high', () => {
    const long = Array.from({ length: 600 }, (_, k) => rec(T0 + k * 200, collector, pods, { verb: 'list', code: k % 2 === 0 ? 429 : 200, sourceIP: '10.2.0.1' }));
    const { findings } = runDetector(detector, {}, [...long, ...Array.from({ length: 6000 }, (_, k) => rec(T0 + 1 + k * 20, operator, widget, { sourceIP: '10.1.0.1' }))]);
    expect(findings.map((f) => [f.severity, f.metrics.durationMs, f.metrics.likelyCause])).toEqual([['high', 119_600, 'system:serviceaccount:shop-system:shop-operator']]);
  });

  it('brief and causeMinOfVictim come from options', () => {
    // 200 429s reach excess 200: rated by its shares (a third of all requests in its 6 s): critical.
    expect(runDetector(detector, { brief: { excess: 200 } }, bulkApply()).findings.map((f) => f.severity)).toEqual(['critical']);
    expect(runDetector(detector, { causeMinOfVictim: 0 }, bulkApply()).findings.map((f) => f.metrics.likelyCause)).toEqual(['system:serviceaccount:kube-system:coredns']);
  });
});

describe('throttling: not throttled', () => {
  const quiet: Array<[string, () => RequestRecord[]]> = [
    ['a few 429s (5 in a minute)', () => victim().map((r, k) => ({ ...r, code: k % 60 === 0 ? 429 : 200 }))],
    [
      'many 429s but a small share (25 of 1,000 lists)',
      () => Array.from({ length: 1000 }, (_, k) => rec(T0 + k * 60, collector, pods, { verb: 'list', code: k % 40 === 0 ? 429 : 200 })),
    ],
    ['a busy writer that is never throttled', storm],
  ];
  it.each(quiet)('%s: nothing', (_name, make) => {
    const { findings, notes } = runDetector(detector, {}, make());
    expect([...findings, ...notes]).toEqual([]);
  });

  it('thresholds come from options', () => {
    const records = Array.from({ length: 1000 }, (_, k) => rec(T0 + k * 60, collector, pods, { verb: 'list', code: k % 40 === 0 ? 429 : 200 }));
    expect(runDetector(detector, { minShare: 0.03 }, records).findings).toHaveLength(0);
    expect(runDetector(detector, { minShare: 0.02 }, records).findings.map((f) => f.metrics.throttled)).toEqual([25]);
  });
});
