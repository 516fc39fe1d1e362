import type { ObjectRef } from '../decoding/record.js';

/**
 * The engine's shard key: the unit of audit events that one `Engine` (engine.ts) must see whole, and
 * the one hash that spreads shards over partitions. `auditstorm publish`, `serve --nats` and
 * `worker` (src/fleet/) place and read events only through these two functions.
 *
 * The key is the **cluster**. Every finding's shares and severity come from the cluster-wide
 * series (`TimeSeries`, fed before the filters), and the throttling, fleet-storm and summary
 * state span objects and actors; an engine given part of a cluster's objects would report other
 * shares, severities and episodes than `analyze` of the cluster's log. Splitting a cluster by
 * object would need detector state that can be serialised and merged, which the engine does not
 * have (ARCHITECTURE.md, "Fleet").
 *
 * Inside one cluster the engine can also be split by **object** ({@link objectShardKey}, used by
 * `Engine` with `shards` ≥ 1): see ARCHITECTURE.md, "Sharding by object key".
 */
/** The shard key of the events of `cluster` (as given to `publish --cluster`). */
export function shardKey(cluster: string): string {
  return cluster;
}

/** 32-bit FNV-1a of the UTF-16 code units of `s` (stable across processes, versions and machines). */
function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The shard (0 ≤ shard < `shards`) of a shard key: its 32-bit FNV-1a hash mod `shards`.
 * @throws RangeError when `shards` is not a positive integer
 */
export function shardOf(key: string, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1) throw new RangeError(`shards must be a positive integer, got ${shards}`);
  return fnv1a32(key) % shards;
}

/**
 * The object shard key of a request's object: `apiGroup/resource/namespace/name`, without the
 * subresource, so an object's main resource, `/status` and `/scale` go to one shard (detectors
 * join them: conflict-storm's foreign writes, write-fight's fights, no-op-writes' objects). `''`
 * for a request without object. A create whose name is not logged keys on its collection
 * (`apiGroup/resource/namespace/`).
 */
export function objectShardKey(object: ObjectRef | null): string {
  if (object === null) return '';
  return `${object.apiGroup}/${object.resource}/${object.namespace}/${object.name}`;
}
