import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLog, logText, truthJSON, writeLog, type GroundTruth, type LogSpec } from '../../src/generator/generate.js';
import { main } from '../../src/cli/generate.js';
import { microTime } from '../../src/generator/events.js';
import { PRESETS } from '../../src/generator/presets.js';
import { createRng } from '../../src/generator/random.js';

/** The subset of an audit event the assertions read. */
interface Ev {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  sourceIPs: string[];
  userAgent: string;
  objectRef?: { resource: string; namespace?: string; name?: string; uid?: string; apiGroup?: string; apiVersion: string; resourceVersion?: string; subresource?: string };
  responseStatus?: { code: number; reason?: string; message?: string };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

const EVENT_KEYS = [
  'kind',
  'apiVersion',
  'level',
  'auditID',
  'stage',
  'requestURI',
  'verb',
  'user',
  'impersonatedUser',
  'authenticationMetadata',
  'sourceIPs',
  'userAgent',
  'objectRef',
  'responseStatus',
  'requestObject',
  'responseObject',
  'requestReceivedTimestamp',
  'stageTimestamp',
  'annotations',
];
const OBJECT_REF_KEYS = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'];
const STATUS_KEYS = ['metadata', 'status', 'message', 'reason', 'details', 'code'];
const USER_KEYS = ['username', 'uid', 'groups', 'extra'];
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const WRITE_VERBS = new Set(['create', 'update', 'patch']);

/** Keys appear in the documented order (absent ones skipped). */
function inOrder(obj: object, order: string[]): boolean {
  const idx = Object.keys(obj).map((k) => order.indexOf(k));
  return idx.every((i, n) => i >= 0 && (n === 0 || i > (idx[n - 1] ?? -1)));
}

/** Microseconds since the epoch of a MicroTime string (exact, unlike Date.parse). */
function us(t: string): number {
  return Date.parse(t.slice(0, 23) + 'Z') * 1000 + Number(t.slice(23, 26));
}

const parse = (spec: LogSpec): { events: Ev[]; truth: GroundTruth[] } => {
  const log = generateLog(spec);
  return { events: [...log.lines].map((l) => JSON.parse(l) as Ev), truth: log.truth };
};

const final = (events: Ev[]): Ev[] => events.filter((e) => e.stage === 'ResponseComplete');
const is409 = (e: Ev): boolean => e.responseStatus?.code === 409 && e.responseStatus.reason === 'Conflict';

/** Final write events of one truth entry's actor on its object. */
function attemptsOf(events: Ev[], t: GroundTruth): Ev[] {
  return final(events).filter(
    (e) =>
      WRITE_VERBS.has(e.verb) &&
      e.user.username === t.actor.username &&
      e.userAgent === t.actor.userAgent &&
      (e.objectRef?.apiGroup ?? '') === t.object.apiGroup &&
      e.objectRef?.resource === t.object.resource &&
      (e.objectRef.namespace ?? '') === t.object.namespace &&
      (e.objectRef.name ?? '') === t.object.name &&
      (e.objectRef.subresource ?? '') === t.object.subresource,
  );
}

const START = '2026-04-01T12:00:00Z';
const MINUTE = 60_000;

describe('random', () => {
  it('is deterministic per seed and fork label, and forks are independent of parent draws', () => {
    const a = createRng(42);
    const b = createRng(42);
    expect([a.next(), a.uuid(), a.int(1, 6)]).toEqual([b.next(), b.uuid(), b.int(1, 6)]);
    expect(createRng(43).next()).not.toBe(createRng(42).next());
    const fresh = createRng(42).fork('x').next();
    a.next();
    expect(a.fork('x').next()).toBe(fresh);
    expect(createRng(1).uuid()).toMatch(UUID_V4);
  });
});

describe('generateLog', () => {
  const spec: LogSpec = {
    seed: 11,
    start: START,
    durationMs: 2 * MINUTE,
    scenarios: [
      { type: 'background', nodes: 3 },
      { type: 'storm', startOffsetMs: 30_000, durationMs: 30_000, ratePerSec: 40 },
      { type: 'retryOnConflict' },
      { type: 'exponentialBackoff' },
    ],
  };
  let events: Ev[];
  let truth: GroundTruth[];
  beforeAll(() => ({ events, truth } = parse(spec)));

  it('is deterministic: same spec → same bytes, another seed → other bytes', () => {
    const text = logText(generateLog(spec));
    expect(logText(generateLog(spec))).toBe(text);
    expect(logText(generateLog({ ...spec, seed: 12 }))).not.toBe(text);
    expect(JSON.stringify(generateLog(spec).truth)).toBe(JSON.stringify(truth));
  });

  it('writes valid audit.k8s.io/v1 events with the apiserver key order and formats', () => {
    expect(events.length).toBeGreaterThan(1000);
    for (const e of events) {
      expect(e.kind).toBe('Event');
      expect(e.apiVersion).toBe('audit.k8s.io/v1');
      expect(e.level).toBe('Metadata');
      expect(e.auditID).toMatch(UUID_V4);
      expect(['RequestReceived', 'ResponseStarted', 'ResponseComplete']).toContain(e.stage);
      expect(e.verb).toMatch(/^(get|list|watch|create|update|patch)$/);
      expect(e.requestURI).toMatch(/^\/(api|apis)(\/|\?|$)/);
      expect(e.user.username).not.toBe('');
      expect(e.requestReceivedTimestamp).toMatch(MICRO_TIME);
      expect(e.stageTimestamp).toMatch(MICRO_TIME);
      expect(inOrder(e, EVENT_KEYS)).toBe(true);
      expect(inOrder(e.user, USER_KEYS)).toBe(true);
      if (e.objectRef) expect(inOrder(e.objectRef, OBJECT_REF_KEYS)).toBe(true);
      if (e.responseStatus) expect(inOrder(e.responseStatus, STATUS_KEYS)).toBe(true);
      if (e.stage === 'RequestReceived') {
        expect(e.stageTimestamp).toBe(e.requestReceivedTimestamp);
        expect(e.responseStatus).toBeUndefined();
        expect(e.annotations).toBeUndefined();
        expect(e.objectRef?.resourceVersion).toBeUndefined();
        expect(e.objectRef?.uid).toBeUndefined();
      } else {
        expect(e.responseStatus).toBeDefined();
        // 429s come from APF before authorization: no authorization annotations.
        expect(e.annotations === undefined).toBe(e.responseStatus?.code === 429);
      }
    }
  });

  it('orders lines by emission time, so ResponseComplete lines are in stageTimestamp order', () => {
    const times = events.map((e) => us(e.stageTimestamp));
    expect(times.every((t, i) => i === 0 || t >= (times[i - 1] ?? 0))).toBe(true);
    expect(times[0]).toBeGreaterThanOrEqual(us(microTime(Date.parse(START) * 1000)));
    expect(times.at(-1)).toBeLessThan((Date.parse(START) + spec.durationMs) * 1000);
  });

  it('writes RequestReceived + ResponseComplete per request, + ResponseStarted for watches', () => {
    const byID = new Map<string, Ev[]>();
    for (const e of events) byID.set(e.auditID, [...(byID.get(e.auditID) ?? []), e]);
    let watchesSeenWhole = 0;
    for (const [, evs] of byID) {
      const stages = evs.map((e) => e.stage);
      const first = evs[0];
      if (!first) continue;
      if (first.verb !== 'watch') {
        expect(stages).toEqual(['RequestReceived', 'ResponseComplete']);
        const [rr, rc] = evs as [Ev, Ev];
        expect(rc.requestReceivedTimestamp).toBe(rr.requestReceivedTimestamp);
        expect(rc.requestURI).toBe(rr.requestURI);
      } else {
        // Watches straddle the log edges; whole ones show all three stages.
        expect(['RequestReceived', 'ResponseStarted', 'ResponseComplete'].join()).toContain(stages.join());
        if (stages.length === 3) watchesSeenWhole++;
      }
    }
    expect(watchesSeenWhole).toBe(0); // timeouts are 5–10 min, the log is 2 min
    expect(final(events).filter((e) => e.verb === 'watch').length).toBeGreaterThan(0);
  });

  it('plants exact periodic counts: node leases, node status, leader election', () => {
    const finals = final(events);
    const nodeLeases = finals.filter((e) => e.verb === 'update' && e.objectRef?.namespace === 'kube-node-lease');
    expect(nodeLeases).toHaveLength(3 * 12); // nodes × duration / 10 s
    expect(new Set(nodeLeases.map((e) => e.user.username)).size).toBe(3);
    expect(nodeLeases.every((e) => e.requestURI.endsWith('?timeout=10s') && e.userAgent.startsWith('kubelet/'))).toBe(true);
    expect(finals.filter((e) => e.verb === 'patch' && e.objectRef?.resource === 'nodes' && e.objectRef.subresource === 'status')).toHaveLength(3 * 2);
    for (const component of ['kube-controller-manager', 'kube-scheduler']) {
      const renewals = finals.filter((e) => e.user.username === `system:${component}` && e.objectRef?.resource === 'leases');
      expect(renewals).toHaveLength(60); // duration / 2 s
      expect(renewals.every((e) => e.userAgent.endsWith('/leader-election'))).toBe(true);
      // Each renewal sends the RV the previous one produced; none conflicts.
      expect(new Set(renewals.map((e) => e.objectRef?.resourceVersion)).size).toBe(60);
      expect(renewals.every((e) => e.responseStatus?.code === 200)).toBe(true);
    }
  });

  it('ground truth matches the lines, and accounts for every 409 Conflict', () => {
    for (const t of truth) {
      const attempts = attemptsOf(events, t);
      expect(attempts.length, `${t.scenario} ${t.actor.username}`).toBe(t.attempts);
      expect(attempts.filter(is409).length).toBe(t.conflicts);
      expect(attempts.map((e) => e.requestReceivedTimestamp).sort()[0]).toBe(t.from);
      expect(
        attempts
          .map((e) => e.stageTimestamp)
          .sort()
          .at(-1),
      ).toBe(t.to);
      expect(t.sourceIPs).toEqual([...new Set(attempts.map((e) => e.sourceIPs[0]))].sort());
    }
    const planted = truth.reduce((n, t) => n + t.conflicts, 0);
    expect(final(events).filter(is409).length).toBe(planted);
  });

  it('plants a storm: two pods of one operator, mostly 409s, immediate retries with a stale RV', () => {
    const [storm] = truth.filter((t) => t.kind === 'conflict-storm');
    expect(truth.filter((t) => t.kind === 'conflict-storm')).toHaveLength(1);
    if (!storm) return;
    expect(storm).toMatchObject({
      scenario: 'storm',
      actor: { username: 'system:serviceaccount:featureflag-system:featureflag-controller-manager', userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format' },
      object: { apiGroup: 'platform.example.com', resource: 'featureflags', namespace: 'checkout', name: 'checkout-flags', subresource: 'status' },
    });
    expect(storm.sourceIPs).toHaveLength(2);
    expect(storm.attempts).toBeGreaterThan(40 * 30 * 0.85);
    expect(storm.attempts).toBeLessThan(40 * 30 * 1.15);
    expect(storm.conflicts / storm.attempts).toBeGreaterThan(0.8);
    const attempts = attemptsOf(events, storm);
    expect(attempts.every((e) => e.verb === 'update' && e.objectRef?.resourceVersion)).toBe(true);
    const first409 = attempts.find(is409);
    expect(first409?.responseStatus?.message).toBe(
      'Operation cannot be fulfilled on featureflags.platform.example.com "checkout-flags": the object has been modified; please apply your changes to the latest version and try again',
    );
    // Per pod: the next attempt after a 409 comes within a few ms and usually resends the same RV.
    for (const ip of storm.sourceIPs) {
      const mine = attempts.filter((e) => e.sourceIPs[0] === ip);
      let retries = 0;
      let sameRV = 0;
      mine.forEach((e, i) => {
        const next = mine[i + 1];
        if (!next || !is409(e)) return;
        retries++;
        const gapMs = (us(next.requestReceivedTimestamp) - us(e.stageTimestamp)) / 1000;
        expect(gapMs).toBeGreaterThanOrEqual(1);
        expect(gapMs).toBeLessThanOrEqual(5);
        if (next.objectRef?.resourceVersion === e.objectRef?.resourceVersion) sameRV++;
      });
      expect(sameRV / retries).toBeGreaterThan(0.7);
    }
  });

  it('plants RetryOnConflict: GET then PUT, ~10 ms (+≤10%) sleeps, ≤5 attempts, always resolved', () => {
    const writer = truth.find((t) => t.scenario === 'retryOnConflict' && t.object.subresource === 'status');
    expect(writer?.conflicts).toBeGreaterThan(0);
    if (!writer) return;
    const mine = final(events).filter((e) => e.user.username === writer.actor.username);
    let run = 0;
    mine.forEach((e, i) => {
      const prev = mine[i - 1];
      if (e.verb === 'update') {
        expect(prev?.verb).toBe('get'); // a fresh read before every PUT
        run = is409(e) ? run + 1 : 0;
        expect(run).toBeLessThan(5);
      } else if (prev && is409(prev)) {
        const sleepMs = (us(e.requestReceivedTimestamp) - us(prev.stageTimestamp)) / 1000;
        expect(sleepMs).toBeGreaterThanOrEqual(10);
        expect(sleepMs).toBeLessThan(11);
      }
    });
    expect(mine.at(-1)?.responseStatus?.code).toBe(200);
  });

  it('plants per-item exponential backoff: 5, 10, 20, … ms between conflicting attempts', () => {
    const writer = truth.find((t) => t.scenario === 'exponentialBackoff' && t.object.subresource === 'status');
    expect(writer?.conflicts).toBeGreaterThan(0);
    if (!writer) return;
    const attempts = attemptsOf(events, writer);
    let failures = 0;
    let longestBurst = 0;
    attempts.forEach((e, i) => {
      const prev = attempts[i - 1];
      if (prev && is409(prev)) {
        const delayMs = (us(e.requestReceivedTimestamp) - us(prev.stageTimestamp)) / 1000;
        const backoffMs = 5 * 2 ** (failures - 1); // failures ≥ 1 here
        expect(delayMs).toBeGreaterThanOrEqual(backoffMs);
        expect(delayMs).toBeLessThan(backoffMs + 0.5);
      }
      failures = is409(e) ? failures + 1 : 0;
      longestBurst = Math.max(longestBurst, failures);
    });
    expect(longestBurst).toBeGreaterThanOrEqual(2); // conflicts come in bursts
  });

  it('includes the noise parsers must cope with: non-resource, 404, 429 + retry, AlreadyExists, slow lists, creates', () => {
    const { events: noisy } = parse({ seed: 4, start: START, durationMs: 10 * MINUTE, scenarios: [{ type: 'background', nodes: 2, noise: 3 }] });
    const finals = final(noisy);
    expect(finals.some((e) => !e.objectRef && e.requestURI === '/apis?timeout=32s')).toBe(true);
    expect(finals.some((e) => e.responseStatus?.code === 404 && e.responseStatus.reason === 'NotFound')).toBe(true);
    const exists = finals.filter((e) => e.responseStatus?.reason === 'AlreadyExists');
    expect(exists.length).toBeGreaterThan(0);
    expect(exists.every((e) => e.verb === 'create' && e.responseStatus?.code === 409 && e.objectRef?.name)).toBe(true);
    // A create's name comes from the body: only the final stage has it.
    const created = noisy.filter((e) => e.auditID === exists[0]?.auditID);
    expect(created.map((e) => e.objectRef?.name)).toEqual([undefined, 'trusted-ca-bundle']);
    for (const rejected of finals.filter((e) => e.responseStatus?.code === 429)) {
      expect(rejected.responseStatus).toEqual({ metadata: {}, code: 429 });
      const retry = finals.find((e) => e.user.username === rejected.user.username && us(e.requestReceivedTimestamp) > us(rejected.stageTimestamp));
      expect((us(retry?.requestReceivedTimestamp ?? '') - us(rejected.stageTimestamp)) / 1000).toBeGreaterThanOrEqual(1000);
    }
    const slow = finals.filter((e) => e.annotations?.['apiserver.latency.k8s.io/total']);
    expect(slow.every((e) => us(e.stageTimestamp) - us(e.requestReceivedTimestamp) > 500_000)).toBe(true);
  });

  it('RequestResponse leases carry Lease bodies with the sent and the new RV', () => {
    const { events: rr } = parse({ seed: 3, start: START, durationMs: 20_000, scenarios: [{ type: 'background', nodes: 1, requestResponseLeases: true }] });
    const leases = rr.filter((e) => e.objectRef?.resource === 'leases');
    expect(leases.every((e) => e.level === 'RequestResponse')).toBe(true);
    for (const e of final(leases) as Array<
      Ev & { requestObject: { metadata: { resourceVersion: string } }; responseObject: { kind: string; metadata: { resourceVersion: string } } }
    >) {
      expect(e.requestObject.metadata.resourceVersion).toBe(e.objectRef?.resourceVersion);
      expect(e.responseObject.kind).toBe('Lease');
      expect(Number(e.responseObject.metadata.resourceVersion)).toBeGreaterThan(Number(e.objectRef?.resourceVersion));
    }
    expect(leases.filter((e) => e.stage === 'RequestReceived').every((e) => !('requestObject' in e))).toBe(true);
  });

  it('final-only keeps just the ResponseComplete lines', () => {
    const { events: finals } = parse({ ...spec, stages: 'final-only' });
    expect(finals.every((e) => e.stage === 'ResponseComplete')).toBe(true);
    expect(finals).toEqual(final(events));
  });

  it('randomizeNames keeps the pattern with names nobody has seen', () => {
    const { events: rnd, truth: rndTruth } = parse({
      ...spec,
      scenarios: spec.scenarios.map((s) => ({ ...s, randomizeNames: true })),
    });
    const storm = rndTruth.find((t) => t.kind === 'conflict-storm');
    expect(storm?.actor.username).not.toBe('system:serviceaccount:featureflag-system:featureflag-controller-manager');
    expect(storm && storm.conflicts / storm.attempts).toBeGreaterThan(0.6);
    for (const t of rndTruth) expect(attemptsOf(rnd, t).length).toBe(t.attempts);
    expect(final(rnd).filter(is409).length).toBe(rndTruth.reduce((n, t) => n + t.conflicts, 0));
  });

  it('rejects a bad start or window', () => {
    expect(() => generateLog({ ...spec, start: '2026-04-01 12:00' })).toThrow(/RFC 3339/);
    expect(() => generateLog({ ...spec, durationMs: 0 })).toThrow(/durationMs/);
    expect(() => generateLog({ ...spec, scenarios: [{ type: 'storm', startOffsetMs: 3 * MINUTE }] })).toThrow(/window/);
  });
});

describe('writeLog', () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'auditstorm-gen-'))));
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('writes identical gzip bytes for the same spec', async () => {
    const spec: LogSpec = { seed: 5, start: START, durationMs: 30_000, scenarios: [{ type: 'background', nodes: 2 }, { type: 'incident' }] };
    const a = await writeLog(join(dir, 'a.log.gz'), spec);
    const b = await writeLog(join(dir, 'b.log.gz'), spec);
    const [bytesA, bytesB] = await Promise.all([readFile(join(dir, 'a.log.gz')), readFile(join(dir, 'b.log.gz'))]);
    expect(bytesA.equals(bytesB)).toBe(true);
    expect(a.bytes).toBe(bytesA.length);
    expect(b.lineCount).toBe(a.lineCount);
    expect(gunzipSync(bytesA).toString('utf8')).toBe(logText(generateLog(spec)));
  });
});

describe('cli', () => {
  it('writes a preset with another seed to --out and --truth, and rejects bad usage', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'auditstorm-cli-'));
    try {
      const out = join(dir, 'x.log');
      expect(await main(['--preset', 'incident', '--seed', '3', '--out', out, '--truth', join(dir, 'truth.json')])).toBe(0);
      const log = generateLog(PRESETS.incident?.spec(3) as LogSpec);
      expect(await readFile(out, 'utf8')).toBe(logText(log));
      expect(await readFile(join(dir, 'truth.json'), 'utf8')).toBe(truthJSON(log.truth));
      expect(await main(['--seed', 'x', '--out', out])).toBe(2);
      expect(await main(['--seed', '3'])).toBe(2);
      expect(await main(['--preset', 'nope', '--out', out])).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('committed fixtures', () => {
  for (const [name, preset] of Object.entries(PRESETS)) {
    if (!preset.fixture) continue;
    const { log: logPath, truth: truthPath } = preset.fixture;
    it(`${logPath} and ${truthPath} are what the generator produces now (npm run fixtures)`, async () => {
      const log = generateLog(preset.spec(preset.seed));
      const raw = await readFile(logPath);
      const text = logPath.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
      expect(text === logText(log), `${name}: regenerate with npm run fixtures`).toBe(true);
      expect(await readFile(truthPath, 'utf8')).toBe(truthJSON(log.truth));
      expect(raw.length).toBeLessThan(2 * 1024 * 1024);
    });
  }

  it('the incident fixture holds the payment-core storm', async () => {
    const truth = JSON.parse(await readFile('fixtures/incident/truth.json', 'utf8')) as GroundTruth[];
    expect(truth.filter((t) => t.kind === 'conflict-storm')).toEqual([
      expect.objectContaining({
        scenario: 'incident',
        actor: { username: 'system:serviceaccount:appdeployment-system:appdeployment-operator', userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format' },
        object: { apiGroup: 'infra.company.io', resource: 'appdeployments', namespace: 'default', name: 'payment-core', subresource: 'status' },
      }),
    ]);
  });
});
