/**
 * The evaluation: every scenario (alone with background, mixed, benign-only) for seeds 1–3,
 * names randomized from seed 2 on. Every planted finding must be found and nothing else
 * reported. Expected counts per kind are exact, so a case that silently stops planting its
 * finding fails too.
 */
import { describe, expect, it } from 'vitest';
import { defaultCases, evaluate, matches, score, specFor, type Evaluation } from '../../src/eval/evaluate.js';
import { details, markdownTable, textTable } from '../../src/eval/format.js';
import type { ExpectedFinding } from '../../src/generator/generate.js';
import type { Finding } from '../../src/index.js';

const SEEDS = [1, 2, 3];
/** Expected findings per kind and seed (see defaultCases). */
const PER_SEED: Record<string, number> = {
  'conflict-storm': 7,
  'hot-loop': 5,
  'no-op-writes': 6,
  'write-fight': 2,
  'create-conflict-storm': 2,
  'create-storm': 2,
  'fleet-storm': 3,
  throttling: 2,
};

describe('matching rule', () => {
  const obj = { apiGroup: 'apps', resource: 'deployments', namespace: 'shop', name: 'web', subresource: '' };
  const expected = (kind: ExpectedFinding['kind'], object: ExpectedFinding['object']): ExpectedFinding => ({
    scenario: 's',
    kind,
    actors: [
      { username: 'a', userAgent: 'ua' },
      { username: 'b', userAgent: 'ub' },
    ],
    object,
    from: '',
    to: '',
    writes: 0,
    conflicts: 0,
    alreadyExists: 0,
    throttled: 0,
    noOps: 0,
    objects: 1,
  });
  const finding = (kind: string, username: string, subresource: string | null): Finding =>
    ({ kind, actors: [{ username }], object: subresource === null ? null : { ...obj, apiVersion: 'v1', subresource } }) as unknown as Finding;

  it('needs the kind, one shared actor, and the object (write-fight ignores the subresource)', () => {
    expect(matches(finding('hot-loop', 'b', ''), expected('hot-loop', obj))).toBe(true);
    expect(matches(finding('hot-loop', 'c', ''), expected('hot-loop', obj))).toBe(false);
    expect(matches(finding('conflict-storm', 'a', ''), expected('hot-loop', obj))).toBe(false);
    expect(matches(finding('hot-loop', 'a', 'status'), expected('hot-loop', obj))).toBe(false);
    expect(matches(finding('write-fight', 'a', 'scale'), expected('write-fight', obj))).toBe(true);
    expect(matches(finding('fleet-storm', 'a', null), expected('fleet-storm', null))).toBe(true);
    expect(matches(finding('fleet-storm', 'a', 'status'), expected('fleet-storm', null))).toBe(true);
  });

  it('matches an expected finding to a grouped finding one of whose members it matches by kind, actor and object', () => {
    const member = (kind: string, username: string, name: string | null) => ({
      id: `m-${name}`,
      kind,
      severity: 'high',
      username,
      object: name === null ? null : { ...obj, apiVersion: 'v1', name },
      window: { from: '', to: '' },
      count: 1,
    });
    const group = (...members: Array<ReturnType<typeof member>>) => ({ ...finding('hot-loop', 'z', null), members }) as unknown as Finding;
    expect(matches(group(member('hot-loop', 'z', 'api'), member('hot-loop', 'b', 'web')), expected('hot-loop', obj))).toBe(true);
    expect(matches(group(member('hot-loop', 'z', 'web')), expected('hot-loop', obj))).toBe(false);
    expect(matches(group(member('hot-loop', 'b', 'api')), expected('hot-loop', obj))).toBe(false);
    expect(matches({ ...group(member('no-op-writes', 'b', 'web')), kind: 'no-op-writes' }, expected('hot-loop', obj))).toBe(false);
    // A roll-up with a one-client fleet storm folded in is both.
    const rollup = { ...finding('conflict-storm', 'a', null), members: [member('fleet-storm', 'a', null)] } as unknown as Finding;
    expect([matches(rollup, expected('conflict-storm', null)), matches(rollup, expected('fleet-storm', null)), matches(rollup, expected('hot-loop', null))]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('counts a finding on a benign entry, or on nothing planted, as a false positive', () => {
    const s = score([expected('hot-loop', obj), expected('benign', null)], [finding('hot-loop', 'a', ''), finding('hot-loop', 'a', ''), finding('no-op-writes', 'b', '')]);
    expect(s.found).toHaveLength(1);
    expect(s.missed).toHaveLength(0);
    expect(s.falsePositives.map((x) => [x.finding.kind, x.benign?.kind])).toEqual([['no-op-writes', 'benign']]);
    expect(score([expected('throttling', null)], []).missed).toHaveLength(1);
  });

  it('randomizes names from seed 2 on, unless a case fixes them', () => {
    const c = defaultCases()[0]!;
    expect(specFor(c, 1).scenarios.every((s) => s.randomizeNames === false)).toBe(true);
    expect(specFor(c, 2).scenarios.every((s) => s.randomizeNames === true)).toBe(true);
  });
});

describe('evaluation over every scenario, seeds 1–3', () => {
  let e: Evaluation;

  it('runs', async () => {
    e = await evaluate(defaultCases(), SEEDS);
    expect(e.cases).toHaveLength(defaultCases().length * SEEDS.length);
  }, 300_000);

  it('plants the expected number of findings of each kind', () => {
    for (const [kind, n] of Object.entries(PER_SEED)) expect(e.kinds.find((k) => k.kind === kind)?.expected, kind).toBe(n * SEEDS.length);
    expect(e.benign.entries).toBeGreaterThan(100);
  });

  it.each(Object.keys(PER_SEED))('%s: no miss, no false positive', (kind) => {
    const k = e.kinds.find((x) => x.kind === kind)!;
    expect({ missed: k.missed, falsePositives: k.falsePositives }, details(e)).toEqual({ missed: 0, falsePositives: 0 });
  });

  it('reports no kind nobody planted, and nothing on benign patterns', () => {
    expect(e.kinds.map((k) => k.kind).sort()).toEqual(Object.keys(PER_SEED).sort());
    expect(e.benign.falsePositives, details(e)).toBe(0);
  });

  it('every finding of every case has self-consistent metrics', () => {
    expect(e.cases.flatMap((c) => c.inconsistent.map((x) => `${c.case}/${c.seed} ${x.finding.id}: ${x.problems.join('; ')}`))).toEqual([]);
    expect(e.cases.reduce((n, c) => n + c.findings.length, 0)).toBeGreaterThan(80);
  });

  it('renders the table as text and Markdown', () => {
    expect(textTable(e).split('\n')).toHaveLength(2 + e.kinds.length);
    expect(markdownTable(e)).toMatch(/^\| kind \| expected \| found \| missed \| false positives \| precision \| recall \|/);
  });
});
