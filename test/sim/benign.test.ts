/**
 * Benign look-alikes end to end (src/sim/benign.ts): the cheapest three, simulated on the tuning
 * set's first seed and analyzed. Each must produce its mechanism (the 409s or AlreadyExists it is
 * built from, counted in the log) and no finding at all.
 */
import { describe, expect, it } from 'vitest';
import { BENIGN_SCENARIOS } from '../../src/sim/benign.js';
import { evaluateSim, simulate, TUNING, type SimSet } from '../../src/sim/evaluate.js';

const ONE_SEED: SimSet = { ...TUNING, seeds: [1] };
const byName = (n: string) => {
  const sc = BENIGN_SCENARIOS.find((x) => x.name === n);
  if (!sc) throw new Error(`no scenario ${n}`);
  return sc;
};

/** 409 answers in a simulated log, by reason. */
function answers(log: string): { conflict: number; alreadyExists: number } {
  let conflict = 0;
  let alreadyExists = 0;
  for (const line of log.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { stage: string; responseStatus?: { code: number; reason?: string } };
    if (e.stage !== 'ResponseComplete' || e.responseStatus?.code !== 409) continue;
    if (e.responseStatus.reason === 'AlreadyExists') alreadyExists++;
    else conflict++;
  }
  return { conflict, alreadyExists };
}

describe('benign look-alikes', () => {
  it('every benign scenario is marked benign and expects nothing', () => {
    expect(BENIGN_SCENARIOS.length).toBe(23);
    for (const sc of BENIGN_SCENARIOS) expect(sc.benign).toBe(true);
  });

  it('create-existing-once: two replicas each create every default object once (AlreadyExists), no finding', async () => {
    const sc = byName('benign-create-existing-once');
    const sim = simulate(sc, TUNING, 1);
    expect(sim.params.objects).toBe(17);
    expect(answers(sim.chunks.join(''))).toEqual({ conflict: 0, alreadyExists: 34 });
    const ev = await evaluateSim(ONE_SEED, [sc]);
    expect(ev.cases[0]?.findings).toEqual([]);
    expect(ev.benign).toEqual({ entries: 1, falsePositives: 0 });
  });

  it('ci-pipelineruns: PipelineRuns created with generateName (no objectRef.name), TaskRuns by name, runs pruned; no finding', async () => {
    const sc = byName('benign-ci-pipelineruns');
    const sim = simulate(sc, TUNING, 2);
    const counts: Record<string, number> = {};
    for (const line of sim.chunks.join('').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line) as { stage: string; verb: string; objectRef?: { apiGroup?: string; resource: string; name?: string; subresource?: string } };
      if (e.stage !== 'ResponseComplete' || e.objectRef?.apiGroup !== 'tekton.dev') continue;
      const k = `${e.verb} ${e.objectRef.resource}${e.objectRef.subresource ? `/${e.objectRef.subresource}` : ''}${e.objectRef.name ? '' : ' (no name)'}`;
      counts[k] = (counts[k] ?? 0) + 1;
    }
    expect(counts).toEqual({
      'create pipelineruns (no name)': 60,
      'update pipelineruns/status': 293,
      'create taskruns': 177,
      'update taskruns/status': 350,
      'get pipelineruns': 55,
      'list pipelineruns (no name)': 9,
      'delete pipelineruns': 56,
      'delete taskruns': 168,
    });
    const ev = await evaluateSim({ ...TUNING, seeds: [2] }, [sc]);
    expect(ev.cases[0]?.findings).toEqual([]);
  });

  it('two-writers-minutes-apart: alternating writers minutes apart, no 409, no finding', async () => {
    const sc = byName('benign-two-writers-minutes-apart');
    const sim = simulate(sc, TUNING, 1);
    expect(answers(sim.chunks.join(''))).toEqual({ conflict: 0, alreadyExists: 0 });
    const ev = await evaluateSim(ONE_SEED, [sc]);
    expect(ev.cases[0]?.findings).toEqual([]);
  });

  it('requeue-backoff-resolves: error requeues back off and stop once the Secret exists, no finding', async () => {
    const sc = byName('benign-requeue-backoff-resolves');
    const sim = simulate(sc, TUNING, 1);
    // Each Database's reconciles GET its Secret (404) until it appears ~105 s in: with 5 ms·2^n
    // backoff that is 15 GETs each (5 ms … 81.92 s), not thousands; then one status update each.
    const complete = sim.chunks
      .join('')
      .split('\n')
      .filter((l) => l.includes('"stage":"ResponseComplete"'));
    const gets404 = complete.filter((l) => l.includes('"verb":"get"') && l.includes('-creds"') && l.includes('"code":404')).length;
    const statusUpdates = complete.filter((l) => l.includes('/databases/') && l.includes('"verb":"update"')).length;
    expect(sim.params.objects).toBe(6);
    expect(gets404).toBe(90);
    expect(statusUpdates).toBe(6);
    const ev = await evaluateSim(ONE_SEED, [sc]);
    expect(ev.cases[0]?.findings).toEqual([]);
  });

  it('many-rollouts: dozens of Deployments roll at once; each status is written on every pod change until its rollout ends, no finding', async () => {
    const sc = byName('benign-many-rollouts');
    const sim = simulate(sc, TUNING, 1);
    const writes = new Map<string, number[]>();
    for (const line of sim.chunks.join('').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line) as { stage: string; verb: string; stageTimestamp: string; user: { username: string }; objectRef?: { name?: string; subresource?: string } };
      if (e.stage !== 'ResponseComplete' || e.verb !== 'update' || !e.user.username.endsWith(':deployment-controller') || e.objectRef?.subresource !== 'status') continue;
      const k = e.objectRef.name ?? '';
      writes.set(k, [...(writes.get(k) ?? []), Date.parse(e.stageTimestamp)]);
    }
    // The first write, at the start, records the Deployments as they were; the rollout starts later.
    const spans = [...writes.values()].map((ts) => (ts[ts.length - 1]! - ts[1]!) / 1000);
    expect([sim.params.deployments, writes.size, answers(sim.chunks.join('')).conflict]).toEqual([62, 62, 1]);
    // Every rollout ends within a few minutes: the longest status history, first to last write, in s.
    expect(Math.max(...spans.map(Math.round))).toBe(193);
    const ev = await evaluateSim(ONE_SEED, [sc]);
    expect(ev.cases[0]?.findings).toEqual([]);
  });
});
