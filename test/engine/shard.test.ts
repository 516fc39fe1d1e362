/**
 * The engine's shard key and hash, which place every fleet event in its partition: FNV-1a 32
 * (reference values from the FNV test suite, http://www.isthe.com/chongo/src/fnv/test_fnv.c),
 * the cluster as the key, and the cluster names `--cluster` accepts.
 */
import { describe, expect, it } from 'vitest';
import type { ObjectRef } from '../../src/decoding/record.js';
import { objectShardKey, shardKey, shardOf } from '../../src/engine/shard.js';
import { checkClusterName, partitionOf } from '../../src/fleet/partition.js';
import { eventSubject, messageId } from '../../src/fleet/names.js';

describe('shardOf', () => {
  it('is FNV-1a 32 of the key mod the shard count', () => {
    // FNV-1a 32: "a" → 0xe40c292c, "foobar" → 0xbf9cf968, "" → 0x811c9dc5.
    expect(shardOf('a', 1000)).toBe(0xe40c292c % 1000);
    expect(shardOf('foobar', 1000)).toBe(0xbf9cf968 % 1000);
    expect(shardOf('', 7)).toBe(0x811c9dc5 % 7);
    expect(shardOf('foobar', 1)).toBe(0);
  });

  it('rejects a shard count that is not a positive integer', () => {
    expect(() => shardOf('a', 0)).toThrow(RangeError);
    expect(() => shardOf('a', 2.5)).toThrow('shards must be a positive integer, got 2.5');
  });
});

describe('fleet placement', () => {
  it('puts every event of a cluster in the partition of its shard key', () => {
    expect(shardKey('prod-eu-1')).toBe('prod-eu-1');
    const p = partitionOf('prod-eu-1', 16);
    expect(p).toBe(shardOf('prod-eu-1', 16));
    expect(eventSubject('prod-eu-1', p)).toBe(`auditstorm.events.prod-eu-1.${p}`);
    expect(messageId('prod-eu-1', '4b1f6c3e-0000-4000-8000-000000000001', 'ResponseComplete')).toBe('prod-eu-1/4b1f6c3e-0000-4000-8000-000000000001/ResponseComplete');
  });

  it('accepts only cluster names that are one NATS subject token and a key-value key', () => {
    expect(checkClusterName('prod_eu-1')).toBe('prod_eu-1');
    for (const bad of ['', 'prod.eu', 'prod eu', 'a*', 'a>', 'x'.repeat(129)]) expect(() => checkClusterName(bad), bad).toThrow('a cluster name is 1 to 128 letters');
  });
});

describe('objectShardKey', () => {
  const ref = (subresource: string, name = 'web-1'): ObjectRef => ({
    key: `apps/deployments/shop/${name}/${subresource}`,
    apiGroup: 'apps',
    apiVersion: 'v1',
    resource: 'deployments',
    namespace: 'shop',
    name,
    subresource,
    label: subresource === '' ? 'deployments.apps' : `deployments.apps/${subresource}`,
  });

  it('is group/resource/namespace/name: an object and its subresources share one shard', () => {
    expect(objectShardKey(ref(''))).toBe('apps/deployments/shop/web-1');
    expect(objectShardKey(ref('status'))).toBe('apps/deployments/shop/web-1');
    expect(objectShardKey(ref('scale'))).toBe('apps/deployments/shop/web-1');
    expect(objectShardKey(ref('', ''))).toBe('apps/deployments/shop/');
    expect(objectShardKey(null)).toBe('');
    // FNV-1a 32 of the key, as for clusters.
    expect(shardOf(objectShardKey(ref('status')), 4)).toBe(shardOf('apps/deployments/shop/web-1', 4));
  });
});
