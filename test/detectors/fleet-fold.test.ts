/**
 * Members of a family that a fleet storm covers are that finding, not one conflict storm each
 * (issue 25, class 10: 200 kubelets retrying node-status patches gave one fleet storm and 200
 * conflict storms).
 */
import { describe, expect, it } from 'vitest';
import { DETECTORS } from '../../src/detectors/registry.js';
import { Allowlist, DEFAULT_ALLOWLIST } from '../../src/engine/allowlist.js';
import { Engine } from '../../src/engine/engine.js';
import { groupFindings } from '../../src/report/group.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import type { Finding } from '../../src/report/schema.js';
import { actor, object, rec } from '../helpers/records.js';

const T0 = Date.parse('2026-08-08T18:00:00Z');
const KUBELET = 'kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f';
const operator = actor('system:serviceaccount:shop-system:shop-operator');

/** `nodes` kubelets, each patching its node's status 5 times (8 ms apart) every 10 s for `periods` periods from `startMs`, every patch 409. */
function kubeletStorm(nodes: number[], startMs: number, periods: number): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let s = 0; s < periods; s++)
    for (const n of nodes)
      for (let i = 0; i < 5; i++)
        out.push(
          rec(T0 + startMs + s * 10_000 + n * 50 + i * 8, actor(`system:node:node-${n}`, KUBELET), object('nodes', '', `node-${n}`, 'status'), {
            verb: 'patch',
            code: 409,
            sourceIP: `10.0.1.${n}`,
            auditID: `k${n}-${s}-${i}`,
          }),
        );
  return out;
}

/** One operator updating one status 2×/s for 3 min from `startMs`, every update 409. */
function operatorStorm(startMs: number): RequestRecord[] {
  return Array.from({ length: 360 }, (_, i) => rec(T0 + startMs + i * 500 + 3, operator, object('widgets', 'shop', 'w1', 'status', 'acme.io'), { code: 409, auditID: `o${i}` }));
}

function run(records: RequestRecord[], minGroup: number): string[] {
  const engine = new Engine({
    detectors: DETECTORS.map((detector) => ({ detector, options: detector.meta.optionsSchema.parse({}) })),
    filter: null,
    allowlist: new Allowlist(DEFAULT_ALLOWLIST),
    reorderWindowMs: 0,
    seriesStepMs: 10_000,
  });
  engine.pushAll(records.sort((a, b) => a.ts - b.ts));
  engine.finish();
  const label = (f: Finding): string =>
    `${f.kind} ${f.object === null ? (f.actors.length > 1 ? String(f.metrics.family) : (f.actors[0]?.username ?? '')) : f.object.name}` +
    (f.metrics.memberFindings === undefined ? '' : ` members=${String(f.metrics.memberFindings)} top=${String(f.metrics.topMemberFindings).split(', ')[0]}`);
  return groupFindings(engine.findings, minGroup).map(label).sort();
}

const twelve = Array.from({ length: 12 }, (_, n) => n);

describe('fleet-storm: its members’ conflict storms fold into it', () => {
  it.each<[string, RequestRecord[], number, string[]]>([
    ['12 kubelets storming alike: one finding', kubeletStorm(twelve, 0, 18), 5, ['fleet-storm system:node:* members=12 top=system:node:node-0 nodes/status node-0(90)']],
    ['with grouping off: every member apart', kubeletStorm(twelve, 0, 18), 0, ['fleet-storm system:node:*', ...twelve.map((n) => `conflict-storm node-${n}`)].sort()],
    [
      'another actor’s storm in the same window stays apart',
      [...kubeletStorm(twelve, 0, 18), ...operatorStorm(0)],
      5,
      ['conflict-storm w1', 'fleet-storm system:node:* members=12 top=system:node:node-0 nodes/status node-0(90)'],
    ],
    [
      'a member’s storm 20 minutes later, outside the fleet storm, stays apart',
      [...kubeletStorm(twelve, 0, 18), ...kubeletStorm([3], 20 * 60_000, 18)],
      5,
      ['conflict-storm node-3', 'fleet-storm system:node:* members=12 top=system:node:node-0 nodes/status node-0(90)'],
    ],
  ])('%s', (_, records, minGroup, expected) => {
    expect(run(records, minGroup)).toEqual(expected);
  });
});
