/**
 * The fifth batch of incident scenarios (src/sim/scenarios5.ts, issue 25): registered after the
 * third batch, and each producing the mechanism its thread describes, counted from the simulated
 * log (TUNING seed 1) rather than from the findings.
 */
import { describe, expect, it } from 'vitest';
import { ALL_SCENARIOS } from '../../src/sim/all.js';
import { INCIDENT_SCENARIOS_3 } from '../../src/sim/scenarios3.js';
import { INCIDENT_SCENARIOS_5 } from '../../src/sim/scenarios5.js';
import { runSimCase, simulate, TUNING } from '../../src/sim/evaluate.js';
import type { SimScenario } from '../../src/sim/scenarios.js';

const byName = (n: string): SimScenario => {
  const sc = INCIDENT_SCENARIOS_5.find((x) => x.name === n);
  if (!sc) throw new Error(`no scenario ${n}`);
  return sc;
};

/** Writes in a simulated log by `user` (last segment of the username), as `verb resource[/sub] code [reason]` → count. */
function writes(log: string, user: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of log.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as {
      stage: string;
      verb: string;
      user: { username: string };
      objectRef: { resource: string; subresource?: string };
      responseStatus: { code: number; reason?: string };
    };
    if (e.stage !== 'ResponseComplete' || !['create', 'update', 'patch', 'delete'].includes(e.verb) || e.user.username.split(':').pop() !== user) continue;
    const k = `${e.verb} ${e.objectRef.resource}${e.objectRef.subresource ? `/${e.objectRef.subresource}` : ''} ${e.responseStatus.code}${e.responseStatus.reason ? ` ${e.responseStatus.reason}` : ''}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

describe('scenarios5 (B.2 lines of real-incidents.md)', () => {
  it('are registered after the third batch, one of them a benign look-alike', () => {
    const names = ALL_SCENARIOS.map((x) => x.name);
    const last3 = names.indexOf(INCIDENT_SCENARIOS_3[INCIDENT_SCENARIOS_3.length - 1]?.name as string);
    expect(INCIDENT_SCENARIOS_5.map((x) => [x.name, x.benign, names.indexOf(x.name) > last3])).toEqual([
      ['helm-operator-upgrade-loop', false, true],
      ['longhorn-probe-time-conflicts', false, true],
      ['mongodb-credentials-loop', false, true],
      ['argocd-amplified-by-status-churn', false, true],
      ['evenfire-create-probe-pass', false, true],
      ['kuberay-routine-status-409', true, true],
      ['openshift-revision-hot-loop', false, true],
    ]);
  });

  it('cluster-kube-apiserver-operator#441: the revision loop runs 30 minutes, long enough for the e2e bar of 20 revisions at one a minute', () => {
    const sim = simulate(byName('openshift-revision-hot-loop'), TUNING, 1);
    const times = sim.chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => Date.parse((JSON.parse(l) as { stageTimestamp: string }).stageTimestamp));
    expect(Math.round((Math.max(...times) - Math.min(...times)) / 60_000)).toBe(30);
    // 40 revisions of revision-status, 9 input ConfigMaps and 3 Secrets; an installer pod per master for most of them.
    expect(writes(sim.chunks.join(''), 'kube-apiserver-operator')).toEqual({
      'create configmaps 201': 400,
      'create pods 201': 61,
      'create secrets 201': 120,
      'update clusteroperators/status 200': 40,
      'update kubeapiservers/status 200': 61,
    });
  });

  it('longhorn#183: every manager re-stamps every node once a second, and the losers of each race get 409 ("tons of conflicts")', () => {
    const sim = simulate(byName('longhorn-probe-time-conflicts'), TUNING, 1);
    expect(sim.params.managers).toBe(8);
    expect(writes(sim.chunks.join(''), 'longhorn-service-account')).toEqual({ 'update nodes 200': 1714, 'update nodes 409 Conflict': 12124 });
  });

  it('evenfire#598: every pass POSTs every object first; AlreadyExists is most of its writes', () => {
    const sim = simulate(byName('evenfire-create-probe-pass'), TUNING, 1);
    expect(writes(sim.chunks.join(''), 'hcc-controller')).toEqual({
      'create configmaps 409 AlreadyExists': 1044,
      'create deployments 409 AlreadyExists': 1044,
      'create networkpolicies 409 AlreadyExists': 522,
      'create serviceaccounts 409 AlreadyExists': 1044,
      'create services 409 AlreadyExists': 522,
      'update configmaps 200': 67,
      'update deployments 200': 73,
      'update networkpolicies 200': 46,
      'update serviceaccounts 200': 54,
      'update services 200': 24,
    });
  });

  it('kuberay#745 and secret-agent#182: routine status-update 409s, each resolved by the re-queued reconcile; no finding', async () => {
    const r = await runSimCase(byName('kuberay-routine-status-409'), TUNING, 1);
    const log = simulate(byName('kuberay-routine-status-409'), TUNING, 1).chunks.join('');
    expect(writes(log, 'kuberay-operator')['update rayclusters/status 409 Conflict']).toBe(62);
    expect(writes(log, 'secret-agent-manager')['update secretagentconfigurations/status 409 Conflict']).toBe(11);
    expect(r.findings).toEqual([]);
  });
});
