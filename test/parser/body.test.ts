import { describe, expect, it } from 'vitest';
import { changedTimestampFields, digestBody, fnv1a64, responseResourceVersion } from '../../src/decoding/body.js';
import type { BodyDigest } from '../../src/decoding/record.js';

/** A Deployment-like status body as controllers send it with Status().Update(). */
function status(opts: { rv?: string; ready?: number; ltt?: string; lut?: string; managedAt?: string } = {}): unknown {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'shop',
      uid: 'b0a1c2d3-3333-4a2b-8c9d-000000000003',
      resourceVersion: opts.rv ?? '48213',
      generation: 7,
      creationTimestamp: '2026-07-01T09:00:00Z',
      managedFields: [{ manager: 'shop-operator', operation: 'Update', time: opts.managedAt ?? '2026-07-01T10:00:00Z' }],
    },
    status: {
      readyReplicas: opts.ready ?? 3,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          lastTransitionTime: opts.ltt ?? '2026-07-01T09:00:05Z',
          lastUpdateTime: opts.lut ?? '2026-07-01T09:00:05Z',
        },
      ],
    },
  };
}

function digest(body: unknown): BodyDigest {
  const d = digestBody(body);
  if (d === null) throw new Error('no digest');
  return d;
}

describe('fnv1a64', () => {
  it.each([
    ['', 'cbf29ce484222325'],
    ['a', 'af63dc4c8601ec8c'],
    ['foobar', '85944171f73967e8'],
  ])('matches the published FNV-1a 64 test vector for %j', (s, hex) => {
    expect(fnv1a64(s)).toBe(hex);
  });
});

describe('digestBody', () => {
  it('gives 16-hex-digit hashes, one timestamp hash per sorted field name, interned names', () => {
    const d = digest(status());
    expect(d.content).toMatch(/^[0-9a-f]{16}$/);
    expect(d.timestampFields).toEqual(['lastTransitionTime', 'lastUpdateTime']);
    expect(d.timestamps).toMatch(/^[0-9a-f]{32}$/);
    expect(digest(status({ ready: 1 })).timestampFields).toBe(d.timestampFields);
    expect(digest({ spec: { replicas: 1 } }).timestampFields).toEqual([]);
  });

  it('same content, different timestamps: equal content, different timestamps, the changed field named', () => {
    const a = digest(status());
    const b = digest(status({ lut: '2026-07-01T10:00:00Z' }));
    const c = digest(status({ ltt: '2026-07-01T10:00:00Z', lut: '2026-07-01T10:00:00Z' }));
    expect(b.content).toBe(a.content);
    expect(b.timestamps).not.toBe(a.timestamps);
    expect(changedTimestampFields(a, b)).toEqual(['lastUpdateTime']);
    expect(changedTimestampFields(a, c)).toEqual(['lastTransitionTime', 'lastUpdateTime']);
    expect(changedTimestampFields(a, digest(status()))).toEqual([]);
  });

  it.each([
    ['lastSyncTime', true],
    ['lastReconcileTime', true],
    ['lastSyncedAt', true],
    ['lastAppliedTimestamp', true],
    ['startTime', false],
    ['completionTime', false],
    ['lastsyncTime', false],
  ])("an operator's own %s: stamped time %s", (field, stamped) => {
    const body = (t: string, phase = 'Ready'): unknown => ({ status: { phase, [field]: t } });
    const a = digest(body('2026-07-01T09:00:05Z'));
    const b = digest(body('2026-07-01T09:00:06Z'));
    expect([a.content === b.content, a.timestampFields]).toEqual([stamped, stamped ? [field] : []]);
    expect(digest(body('2026-07-01T09:00:05Z', 'Failed')).content).not.toBe(a.content);
  });

  it.each([
    // kubernetes-external-secrets' status.lastSync (argo-cd#6108): a last… field holding a time.
    ['lastSync', '2026-07-01T09:00:05Z', '2026-07-01T09:00:06Z', true],
    ['lastSync', '2026-07-01T09:00:05.123456+02:00', '2026-07-01T09:00:06.5+02:00', true],
    ['lastSync', 'ok', 'failed', false],
    ['lastTime', '2026-07-01T09:00:05Z', '2026-07-01T09:00:06Z', true],
    ['lastAppliedRevision', 'main@sha1:4f2c9e1', 'main@sha1:77ab010', false],
    ['lastSync', '2026-07-01', '2026-07-02', false],
    ['syncedAt', '2026-07-01T09:00:05Z', '2026-07-01T09:00:06Z', false],
  ])('a last… field without a time suffix, %s: %s then %s, stamped time %s', (field, v1, v2, stamped) => {
    const a = digest({ status: { phase: 'Ready', [field]: v1 } });
    const b = digest({ status: { phase: 'Ready', [field]: v2 } });
    expect([a.content === b.content, a.timestampFields]).toEqual([stamped, stamped ? [field] : []]);
  });

  it("a container's lastState (an object) is content", () => {
    const pod = (reason: string): unknown => ({ status: { containerStatuses: [{ name: 'app', lastState: { terminated: { reason, exitCode: 1 } } }] } });
    expect(digest(pod('OOMKilled')).content).not.toBe(digest(pod('Error')).content);
    expect(digest(pod('OOMKilled')).timestampFields).toEqual([]);
  });

  it('a content change changes content', () => {
    expect(digest(status({ ready: 2 })).content).not.toBe(digest(status()).content);
  });

  it('ignores key order', () => {
    const a = { metadata: { name: 'x', labels: { a: '1', b: '2' } }, status: { phase: 'Ready', n: 1 } };
    const b = { status: { n: 1, phase: 'Ready' }, metadata: { labels: { b: '2', a: '1' }, name: 'x' } };
    expect(digest(b)).toEqual(digest(a));
  });

  it('ignores managedFields, resourceVersion, generation, uid, creationTimestamp of the top-level metadata only', () => {
    const a = digest(status());
    const b = digest({
      ...(status({ rv: '99999', managedAt: '2026-07-01T11:00:00Z' }) as object),
      metadata: { name: 'web', namespace: 'shop', resourceVersion: '1', generation: 9, uid: 'other', creationTimestamp: '2020-01-01T00:00:00Z' },
    });
    expect(b).toEqual(a);
    // Nested fields of the same name are content.
    expect(digest({ spec: { template: { metadata: { generation: 1 } } } }).content).not.toBe(digest({ spec: { template: { metadata: { generation: 2 } } } }).content);
  });

  it('keeps array order and tells where a timestamp sits', () => {
    expect(digest({ list: [1, 2] }).content).not.toBe(digest({ list: [2, 1] }).content);
    const c = (t0: string | undefined, t1: string | undefined) =>
      digest({
        conditions: [
          { type: 'A', lastTransitionTime: t0 },
          { type: 'B', lastTransitionTime: t1 },
        ],
      });
    const swapped = [c('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'), c('2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z')];
    expect(swapped[0]!.content).toBe(swapped[1]!.content);
    expect(swapped[0]!.timestamps).not.toBe(swapped[1]!.timestamps);
  });

  it('distinguishes values that print alike', () => {
    const contents = [{ a: '1' }, { a: 1 }, { a: true }, { a: 'true' }, { a: null }, { a: [] }, { a: {} }, { ab: '' }, { a: 'b' }].map((b) => digest(b).content);
    expect(new Set(contents).size).toBe(contents.length);
  });

  it('JSON patches: timestamp ops go to timestamps, resourceVersion tests are skipped', () => {
    const patch = (rv: string, t: string, ready: number) => [
      { op: 'test', path: '/metadata/resourceVersion', value: rv },
      { op: 'replace', path: '/status/readyReplicas', value: ready },
      { op: 'replace', path: '/status/conditions/0/lastTransitionTime', value: t },
    ];
    const a = digest(patch('10', '2026-01-01T00:00:00Z', 3));
    const b = digest(patch('11', '2026-01-01T00:00:01Z', 3));
    expect(b.content).toBe(a.content);
    expect(changedTimestampFields(a, b)).toEqual(['lastTransitionTime']);
    expect(a.timestampFields).toEqual(['lastTransitionTime']);
    expect(digest(patch('10', '2026-01-01T00:00:00Z', 2)).content).not.toBe(a.content);
  });

  it('merge patches are objects like any other', () => {
    const mp = (t: string) => ({ metadata: { resourceVersion: t }, status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: t }] } });
    const a = digest(mp('1'));
    expect(digest(mp('2')).content).toBe(a.content);
    expect(a.timestampFields).toEqual(['lastHeartbeatTime']);
  });

  it('returns null for non-bodies', () => {
    expect(digestBody(null)).toBeNull();
    expect(digestBody(undefined)).toBeNull();
    expect(digestBody('skipped-too-big-size-object')).toBeNull();
    expect(digestBody(42)).toBeNull();
  });
});

describe('responseResourceVersion', () => {
  it('reads metadata.resourceVersion when it is a string', () => {
    expect(responseResourceVersion({ metadata: { resourceVersion: '48214' } })).toBe('48214');
    expect(responseResourceVersion({ metadata: { resourceVersion: 48214 } })).toBe('');
    expect(responseResourceVersion({ metadata: null })).toBe('');
    expect(responseResourceVersion({})).toBe('');
    expect(responseResourceVersion('x')).toBe('');
    expect(responseResourceVersion(null)).toBe('');
  });
});
