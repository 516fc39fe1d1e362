/**
 * One actor's pattern across many objects is one finding (issue 25, class 10).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETECTORS } from '../../src/detectors/registry.js';
import { Allowlist, DEFAULT_ALLOWLIST } from '../../src/engine/allowlist.js';
import { Engine } from '../../src/engine/engine.js';
import { groupFindings } from '../../src/report/group.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import type { Finding, Severity } from '../../src/report/schema.js';
import { actor, object, rec } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');

function finding(kind: string, user: string, name: string, severity: Severity, writes: number, minute: number): Finding {
  return {
    id: `${kind}:${user}:${name}`,
    kind,
    severity,
    title: `${user} wrote ${name} ${writes} times`,
    actors: [{ username: user, userAgent: 'agent/v1', userAgentProduct: 'agent', controller: '', serviceAccount: null, sourceIPs: [], fieldManagers: [] }],
    object: { apiGroup: '', apiVersion: 'v1', resource: 'nodes', namespace: '', name, subresource: 'status' },
    window: { from: new Date(T0 + minute * 60_000).toISOString(), to: new Date(T0 + (minute + 5) * 60_000).toISOString() },
    metrics: { writes, noOpWrites: writes - 1, noOpShare: 0.99, durationMs: 300_000 },
    signals: [`s-${minute % 2}`],
    evidence: { auditIDs: [`${name}-a`], firstAuditID: `${name}-a`, lastAuditID: `${name}-z`, auditLevel: 'Metadata', level: 'suspected' },
    advice: [{ id: 'compare-before-write', text: 'Compare before writing.' }],
  };
}

describe('groupFindings', () => {
  const one = (n: number, sev: Severity = 'low') => finding('no-op-writes', 'npd', `node-${n}`, sev, 100 + n, n);
  const input = [
    one(1),
    finding('hot-loop', 'ctl', 'w', 'medium', 9, 0),
    one(2),
    one(3, 'info'),
    one(4),
    one(5),
    one(6),
    one(7, 'high'),
    ...[1, 2, 3, 4].map((n) => finding('no-op-writes', 'other', `node-${n}`, 'low', 50, n)),
  ];

  // Class 10: a severity above low kept one actor's findings apart (58 high conflict storms of one
  // controller on 58 objects were 58 findings); a group is as severe as its most severe member.
  it('folds 7 findings of one kind and actor, whatever their severity, into one in the first one’s place; keeps the rest', () => {
    const out = groupFindings(input, 5);
    expect(out.map((f) => f.id)).toEqual([
      out[0]!.id,
      'hot-loop:ctl:w',
      'no-op-writes:other:node-1',
      'no-op-writes:other:node-2',
      'no-op-writes:other:node-3',
      'no-op-writes:other:node-4',
    ]);
    const g = out[0]!;
    expect(g.id).toMatch(/^no-op-writes:group:[0-9a-f]{8}$/);
    expect([g.severity, g.object, g.window, g.signals]).toEqual(['high', null, { from: '2026-08-08T18:01:00.000Z', to: '2026-08-08T18:12:00.000Z' }, ['s-0', 's-1']]);
    expect(g.metrics).toEqual({
      writes: 101 + 102 + 103 + 104 + 105 + 106 + 107,
      noOpWrites: 100 + 101 + 102 + 103 + 104 + 105 + 106,
      findings: 7,
      objects: 7,
      topObjects: 'nodes/status node-7(107), nodes/status node-6(106), nodes/status node-5(105), nodes/status node-4(104), nodes/status node-3(103)',
    });
    expect(g.members?.[0]).toMatchObject({ title: 'npd wrote node-7 107 times', auditIDs: ['node-7-a'] });
    expect(g.members?.map((m) => [m.id, m.severity, m.username, m.object?.name, m.window.from, m.count])).toEqual([
      ['no-op-writes:npd:node-7', 'high', 'npd', 'node-7', '2026-08-08T18:07:00.000Z', 107],
      ['no-op-writes:npd:node-6', 'low', 'npd', 'node-6', '2026-08-08T18:06:00.000Z', 106],
      ['no-op-writes:npd:node-5', 'low', 'npd', 'node-5', '2026-08-08T18:05:00.000Z', 105],
      ['no-op-writes:npd:node-4', 'low', 'npd', 'node-4', '2026-08-08T18:04:00.000Z', 104],
      ['no-op-writes:npd:node-3', 'info', 'npd', 'node-3', '2026-08-08T18:03:00.000Z', 103],
      ['no-op-writes:npd:node-2', 'low', 'npd', 'node-2', '2026-08-08T18:02:00.000Z', 102],
      ['no-op-writes:npd:node-1', 'low', 'npd', 'node-1', '2026-08-08T18:01:00.000Z', 101],
    ]);
    expect(g.evidence.firstAuditID).toBe('node-7-a');
    expect(g.title).toBe('7 no-op-writes findings of one actor on 7 objects; the busiest: npd wrote node-7 107 times');
  });

  // try63 g6: a critical storm on one object stood behind a busier low member's title, window,
  // advice and evidence.
  it('heads a group with its most severe member, and keeps every member’s advice', () => {
    const quiet = [1, 2, 3, 4, 5].map((n) => finding('conflict-storm', 'ctl', `minor-${n}`, 'low', 500, n));
    const storm = { ...finding('conflict-storm', 'ctl', 'payments', 'critical', 300, 0), advice: [{ id: 'requeue-with-backoff', text: 'Back off.' }] };
    const g = groupFindings([...quiet, storm], 5)[0]!;
    expect([g.severity, g.title, g.evidence.firstAuditID, g.advice.map((a) => a.id)]).toEqual([
      'critical',
      '6 conflict-storm findings of one actor on 6 objects; the most severe: ctl wrote payments 300 times',
      'payments-a',
      ['requeue-with-backoff', 'compare-before-write'],
    ]);
  });

  // try63 g1b: 9 episodes on 4 objects were grouped; and topObjects listed one object twice.
  it('counts distinct objects toward minGroup, and one object’s episodes as one entry of topObjects', () => {
    const episodes = [1, 2, 3, 4].flatMap((n) => [0, 20].map((m) => ({ ...finding('conflict-storm', 'ctl', `obj-${n}`, 'high', 10 * n, n + m), id: `e-${n}-${m}` })));
    expect(groupFindings(episodes, 5)).toEqual(episodes);
    const g = groupFindings([...episodes, finding('conflict-storm', 'ctl', 'obj-5', 'low', 1, 9)], 5)[0]!;
    expect([g.metrics.findings, g.metrics.objects, g.metrics.topObjects]).toEqual([
      9,
      5,
      'nodes/status obj-4(80), nodes/status obj-3(60), nodes/status obj-2(40), nodes/status obj-1(20), nodes/status obj-5(1)',
    ]);
  });

  it('keeps an episode still open (live) apart', () => {
    const live = input.map((f) => (f.id === 'no-op-writes:npd:node-7' ? { ...f, ongoing: true } : f));
    const out = groupFindings(live, 5);
    expect(out.map((f) => f.id)).toContain('no-op-writes:npd:node-7');
    expect(out[0]!.metrics.findings).toBe(6);
  });

  it('folds actor-level findings (throttling) of one family: 240 kubelets throttled alike are one finding', () => {
    const kubelets = Array.from({ length: 240 }, (_, n): Finding => {
      const f = finding('throttling', `system:node:node-${n}`, '', 'low', 0, n % 7);
      return {
        ...f,
        id: `throttling:node-${n}`,
        object: null,
        actors: [{ ...f.actors[0]!, userAgent: 'kubelet/v1.29.0', userAgentProduct: 'kubelet' }],
        metrics: { throttled: 20 + (n % 5), requests: 100, throttledShare: 0.2 },
      };
    });
    const other = {
      ...kubelets[0]!,
      id: 'throttling:alice',
      actors: [{ ...kubelets[0]!.actors[0]!, username: 'alice@example.com', userAgent: 'kubectl/v1.31.0', userAgentProduct: 'kubectl' }],
    };
    const out = groupFindings([...kubelets, other], 5);
    expect(out.map((f) => f.id)).toEqual([out[0]!.id, 'throttling:alice']);
    const g = out[0]!;
    expect([g.object, g.metrics.findings, g.metrics.actors, g.metrics.throttled, g.metrics.requests, g.metrics.throttledShare]).toEqual([
      null,
      240,
      240,
      240 * 20 + 48 * (0 + 1 + 2 + 3 + 4),
      24_000,
      undefined,
    ]);
    expect(g.metrics.topActors).toBe('system:node:node-104(24), system:node:node-109(24), system:node:node-114(24), system:node:node-119(24), system:node:node-124(24)');
    expect(g.title).toBe('240 throttling findings of one family (system:node:*, 240 actors); the busiest: system:node:node-104 wrote  0 times');
  });

  it('roll-ups of one family over the same objects at different times: object counts are not summed', () => {
    const rollups = Array.from({ length: 6 }, (_, n): Finding => {
      const f = finding('conflict-storm', `system:serviceaccount:ray:operator-${n}`, '', 'low', 0, n * 10);
      return { ...f, id: `conflict-storm:rollup-${n}`, object: null, metrics: { conflicts: 10 + n, objects: 20 - (n % 2), objectsWithConflicts: 18 + (n % 3) } };
    });
    const g = groupFindings(rollups, 5)[0]!;
    expect([g.metrics.findings, g.metrics.conflicts, g.metrics.objects, g.metrics.objectsWithConflicts]).toEqual([6, 6 * 10 + 15, 20, 20]);
  });

  // try61 kr5: five roll-ups of one operator at different times had shareOfWrites 1.4366 (summed),
  // sourceIPCount 5 for its one IP, and its username five times in topActors. A finding per
  // episode: one actor's roll-ups at different times are one actor, not five (try63 g1b).
  it('roll-ups at different times: one actor’s stay apart; a family’s group with shares left out, distinct counts the largest, each actor listed once', () => {
    const rollup = (user: string, n: number): Finding => {
      const f = finding('conflict-storm', `system:serviceaccount:ray:${user}`, '', 'low', 0, n * 10);
      return { ...f, id: `conflict-storm:rollup-${n}`, object: null, metrics: { conflicts: 10 + n, shareOfWrites: 0.29, shareOfRequests: 0.1, sourceIPCount: 1, objects: 5 } };
    };
    const one = [0, 1, 2, 3, 4].map((n) => rollup('kuberay-operator', n));
    expect(groupFindings(one, 5)).toEqual(one);
    const family = [0, 1, 2, 3, 4, 5].map((n) => rollup(`operator-${n === 5 ? 0 : n}`, n));
    const g = groupFindings(family, 5)[0]!;
    expect([g.metrics.shareOfWrites, g.metrics.shareOfRequests, g.metrics.sourceIPCount, g.metrics.actors, g.metrics.topActors, g.metrics.conflicts]).toEqual([
      undefined,
      undefined,
      1,
      5,
      'system:serviceaccount:ray:operator-0(25), system:serviceaccount:ray:operator-4(14), system:serviceaccount:ray:operator-3(13), system:serviceaccount:ray:operator-2(12), system:serviceaccount:ray:operator-1(11)',
      75,
    ]);
  });

  // try62 s10: flux's kustomize-controller, 409s on 320 Kustomizations' status, came out twice,
  // as a conflict-storm roll-up and a fleet-storm of one client, both critical.
  it('a one-client fleet storm folds into the conflict-storm roll-up of the same 409s', () => {
    const flux = 'system:serviceaccount:flux-system:kustomize-controller';
    const rollup: Finding = { ...finding('conflict-storm', flux, '', 'high', 0, 0), id: 'conflict-storm:rollup', object: null, metrics: { conflicts: 8201, objects: 320 } };
    const fleet = (id: string, conflicts: number, extra: Record<string, number> = {}): Finding => ({
      ...finding('fleet-storm', flux, '', 'critical', 0, 1),
      id,
      object: null,
      metrics: { conflicts, events: conflicts, actors: 1, clients: 1, objects: 320, ...extra },
    });
    const out = groupFindings([rollup, fleet('fleet-storm:one', 8201)], 5);
    expect(out.map((f) => [f.id, f.kind, f.severity, f.members?.map((m) => [m.id, m.kind, m.count])])).toEqual([
      ['conflict-storm:rollup', 'conflict-storm', 'critical', [['fleet-storm:one', 'fleet-storm', 8201]]],
    ]);
    expect(out[0]!.title).toBe(`${rollup.title}; the fleet-storm finding on the same 409s folded in`);
    // Most of the fleet's 409s elsewhere (other resources), several clients, or no overlap: both stay.
    expect(groupFindings([rollup, fleet('fleet-storm:wide', 12_000)], 5)).toHaveLength(2);
    expect(groupFindings([rollup, fleet('fleet-storm:many', 8201, { actors: 3, clients: 3 })], 5)).toHaveLength(2);
    const later = { ...fleet('fleet-storm:later', 8201), window: { from: '2026-08-08T19:00:00.000Z', to: '2026-08-08T19:05:00.000Z' } };
    expect(groupFindings([rollup, later], 5)).toHaveLength(2);
  });

  // try63 c1: a critical roll-up over 200 objects beside a low group of those objects' 200 episodes.
  it('a client’s per-object conflict storms on the roll-up’s resource fold into its roll-up', () => {
    const rollup: Finding = {
      ...finding('conflict-storm', 'ctl', '', 'critical', 0, 0),
      id: 'conflict-storm:rollup',
      object: null,
      metrics: { conflicts: 900, objects: 3, resource: 'nodes/status' },
    };
    const episode = (name: string, severity: Severity, user = 'ctl') => ({ ...finding('conflict-storm', user, name, severity, 10, 1), id: `e-${user}-${name}` });
    const other = { ...episode('lease', 'low'), object: { ...episode('lease', 'low').object!, resource: 'leases', subresource: '' }, id: 'e-lease' };
    const out = groupFindings([rollup, episode('n1', 'low'), episode('n2', 'critical'), episode('n3', 'low', 'someone'), other], 5);
    expect(out.map((f) => [f.id, f.members?.map((m) => m.id)])).toEqual([
      ['conflict-storm:rollup', ['e-ctl-n1', 'e-ctl-n2']],
      ['e-someone-n3', undefined],
      ['e-lease', undefined],
    ]);
    expect(out[0]!.title).toBe(`${rollup.title}; 2 conflict-storm findings on single objects of the same 409s folded in`);
    const later = { ...episode('n4', 'low'), window: { from: '2026-08-08T19:00:00.000Z', to: '2026-08-08T19:05:00.000Z' } };
    expect(groupFindings([rollup, later], 5).map((f) => f.id)).toEqual(['conflict-storm:rollup', 'e-ctl-n4']);
  });

  // try62 s18: external-secrets and postgres-operator taking turns on one Secret, 1.35 writes/s
  // each for 13 min: each side's steady rewrites were a hot-loop beside the write-fight.
  it('one side’s own findings on the fought-over object fold into the write fight', () => {
    const secret = { apiGroup: '', apiVersion: 'v1', resource: 'secrets', namespace: 'app', name: 'pg-app-user', subresource: '' };
    const fight: Finding = { ...finding('write-fight', 'eso', 'pg-app-user', 'high', 2100, 0), id: 'fight', object: secret };
    fight.actors = [fight.actors[0]!, { ...fight.actors[0]!, username: 'pgo' }];
    const side = (kind: string, user: string, severity: Severity, over: Partial<Finding> = {}): Finding => ({
      ...finding(kind, user, 'pg-app-user', severity, 1050, 1),
      id: `${kind}-${user}`,
      object: secret,
      ...over,
    });
    const out = groupFindings(
      [
        fight,
        side('hot-loop', 'eso', 'medium'),
        side('hot-loop', 'pgo', 'medium', { advice: [{ id: 'requeue-after', text: 'Requeue after a delay.' }] }),
        // A third writer, another object, a later window, a more severe side: each stays.
        side('hot-loop', 'kubectl', 'low'),
        side('no-op-writes', 'eso', 'low', { id: 'other-object', object: { ...secret, name: 'other' } }),
        side('conflict-storm', 'pgo', 'low', { id: 'later', window: { from: '2026-08-08T19:00:00.000Z', to: '2026-08-08T19:05:00.000Z' } }),
        side('conflict-storm', 'eso', 'critical'),
      ],
      5,
    );
    expect(out.map((f) => [f.id, f.members?.map((m) => m.id)])).toEqual([
      ['fight', ['hot-loop-eso', 'hot-loop-pgo']],
      ['hot-loop-kubectl', undefined],
      ['other-object', undefined],
      ['later', undefined],
      ['conflict-storm-eso', undefined],
    ]);
    expect(out[0]!.title).toBe(`${fight.title}; 2 findings of one side on the same writes folded in`);
    // The fight keeps what its members say: their signals and advice, each once.
    expect([out[0]!.signals, out[0]!.advice.map((a) => a.id)]).toEqual([
      ['s-0', 's-1'],
      ['compare-before-write', 'requeue-after'],
    ]);
  });

  // try65 b12: KEDA's status re-stamps were a no-op-writes roll-up over the ScaledObjects beside a
  // group of 114 of their own episodes, the same writes told twice.
  it('per-object hot loops and no-op writes on a resource their roll-up covers fold into it', () => {
    const keda = 'system:serviceaccount:keda:keda-operator';
    const so = (name: string) => ({ apiGroup: 'keda.sh', apiVersion: 'v1alpha1', resource: 'scaledobjects', namespace: 'apps', name, subresource: 'status' });
    const rollup = (kind: string, resource: string): Finding => ({
      ...finding(kind, keda, '', 'medium', 3000, 0),
      id: `${kind}:rollup`,
      object: null,
      metrics: { writes: 3000, objects: 129, resource },
    });
    const episode = (kind: string, name: string, severity: Severity = 'low'): Finding => ({
      ...finding(kind, keda, name, severity, 20, 1),
      id: `${kind}-${name}`,
      object: so(name),
    });
    const out = groupFindings(
      [
        rollup('no-op-writes', 'scaledobjects.keda.sh/status'),
        rollup('hot-loop', 'scaledjobs.keda.sh/status, scaledobjects.keda.sh/status'),
        episode('no-op-writes', 'a'),
        episode('no-op-writes', 'b'),
        episode('hot-loop', 'c'),
        // More severe than its roll-up, of another kind than any roll-up, or mostly after the
        // roll-up's window (the object's own story; kubewarden's 10-minute loops beside a
        // roll-up of their first 2 minutes): apart.
        episode('no-op-writes', 'd', 'high'),
        episode('conflict-storm', 'e'),
        { ...episode('no-op-writes', 'f'), window: { from: '2026-08-08T18:04:00.000Z', to: '2026-08-08T18:30:00.000Z' } },
      ],
      5,
    );
    expect(out.map((f) => [f.id, f.members?.map((m) => m.id)])).toEqual([
      ['no-op-writes:rollup', ['no-op-writes-a', 'no-op-writes-b']],
      ['hot-loop:rollup', ['hot-loop-c']],
      ['no-op-writes-d', undefined],
      ['conflict-storm-e', undefined],
      ['no-op-writes-f', undefined],
    ]);
    expect(out[0]!.title).toBe(`${keda} wrote  3000 times; 2 no-op-writes findings on single objects of the same writes folded in`);
  });

  it('keeps everything apart below minGroup, or with 0', () => {
    expect(groupFindings(input, 8)).toEqual(input);
    expect(groupFindings(input, 0)).toEqual(input);
  });

  // A node agent patching every node's status once a second, at Metadata level: one suspected
  // no-op finding per node before, one finding for the agent now.
  it('a node agent patching 320 nodes’ status every second is one finding', () => {
    const npd = actor('system:serviceaccount:kube-system:node-problem-detector', 'node-problem-detector/v0.8.19 (linux/amd64) kubernetes/$Format');
    const records: RequestRecord[] = [];
    for (let s = 0; s < 300; s++)
      for (let n = 0; n < 320; n++) records.push(rec(T0 + s * 1000 + n * 2, npd, object('nodes', '', `node-${n}`, 'status'), { auditID: `p${s}-${n}`, verb: 'patch' }));
    const engine = new Engine({
      detectors: DETECTORS.map((detector) => ({
        detector,
        options: detector.meta.optionsSchema.parse(detector.meta.id === 'no-op-writes' ? { suspectedIgnoreResources: [] } : {}),
      })),
      filter: null,
      allowlist: new Allowlist(DEFAULT_ALLOWLIST),
      reorderWindowMs: 0,
      seriesStepMs: 10_000,
    });
    engine.pushAll(records);
    engine.finish();
    const kinds = (fs: Finding[]) => fs.map((f) => `${f.kind}/${f.severity}`);
    expect(new Set(kinds(engine.findings))).toEqual(new Set(['no-op-writes/low']));
    expect(engine.findings).toHaveLength(320);
    const grouped = groupFindings(engine.findings, 5);
    expect(grouped.map((f) => [f.kind, f.severity, f.metrics.findings, f.metrics.objects])).toEqual([['no-op-writes', 'low', 320, 320]]);
  });
});

describe('a grouped finding in every format', () => {
  it('names the objects it covers where one finding names its object', async () => {
    const { writeFileSync } = await import('node:fs');
    const { analyze } = await import('../../src/analyze.js');
    const { renderReport } = await import('../../src/report/index.js');
    const { tempDir, removeTempDirs } = await import('../parser/helpers.js');
    const lines: string[] = [];
    for (let s = 0; s < 300; s++) {
      for (let n = 0; n < 6; n++) {
        const ts = new Date(T0 + s * 1000 + n * 2).toISOString();
        lines.push(
          JSON.stringify({
            kind: 'Event',
            apiVersion: 'audit.k8s.io/v1',
            level: 'Metadata',
            auditID: `p${s}-${n}`,
            stage: 'ResponseComplete',
            requestURI: `/api/v1/nodes/node-${n}/status`,
            verb: 'patch',
            user: { username: 'system:serviceaccount:kube-system:node-problem-detector' },
            sourceIPs: ['10.0.0.9'],
            userAgent: 'node-problem-detector/v0.8.19',
            objectRef: { resource: 'nodes', name: `node-${n}`, apiVersion: 'v1', subresource: 'status' },
            responseStatus: { metadata: {}, code: 200 },
            requestReceivedTimestamp: ts,
            stageTimestamp: ts,
          }),
        );
      }
    }
    const file = join(tempDir(), 'npd.log');
    writeFileSync(file, lines.join('\n') + '\n');
    const report = await analyze({ inputs: [file], threads: 0, detectors: { 'no-op-writes': { suspectedIgnoreResources: [] } } }, { now: () => new Date('2026-08-08T19:00:00Z') });
    removeTempDirs();
    expect(report.findings.map((f) => [f.kind, f.metrics.findings])).toEqual([['no-op-writes', 6]]);
    const covered = `6 objects: ${report.findings[0]!.metrics.topObjects as string}`;
    expect(covered).toMatch(/^6 objects: nodes\/status node-\d\(\d+\), /);
    const text = renderReport(report, 'text', { width: 400 });
    expect(text).toContain(`Object          ${covered}`);
    expect(renderReport(report, 'markdown')).toContain(`\`${covered}\``);
    expect(renderReport(report, 'html')).toContain(`<code>${covered}</code>`);
    // The members: summed up in every format, each one in the HTML's table.
    expect(text).toContain('Members         6 findings folded in: 6 low (each in --format json or html)');
    expect(renderReport(report, 'markdown')).toContain('- **Members:** 6 findings folded in: 6 low');
    const html = renderReport(report, 'html');
    expect(html).toContain('<summary>Every member (6)</summary>');
    expect(html.match(/<tr><td>low<\/td><td>no-op-writes<\/td><td>system:serviceaccount:kube-system:node-problem-detector<\/td><td>nodes\/status node-\d<\/td>/g)).toHaveLength(6);
  });
});
