/**
 * The one place in src/fleet that decides which partition of the `AUDITSTORM` stream an event
 * goes to: the engine's shard key hashed mod the fleet's partition count (src/engine/shard.ts
 * says why the key is the cluster), and the cluster names that may be used in subjects.
 */
import { shardKey, shardOf } from '../engine/shard.js';
import { UsageError } from '../errors.js';

/** Cluster names: NATS subject tokens and KV keys both accept these (no `.`, `*`, `>` or spaces). */
export const CLUSTER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Checks a cluster name for `--cluster`.
 * @throws UsageError when it is empty, longer than 128 characters, or has a character other than letters, digits, `_` and `-`
 */
export function checkClusterName(name: string): string {
  if (!CLUSTER_NAME_PATTERN.test(name)) {
    throw new UsageError(
      `--cluster "${name}": a cluster name is 1 to 128 letters, digits, "_" or "-"`,
      'it is a NATS subject token and a key-value key: no dots, spaces or wildcards',
    );
  }
  return name;
}

/**
 * The partition (0 ≤ p < `partitions`) of an event of `cluster`: the engine's shard key
 * (`shardKey`, the cluster) hashed mod `partitions` (`shardOf`, src/engine/shard.ts).
 * @throws RangeError when `partitions` is not a positive integer
 */
export function partitionOf(cluster: string, partitions: number): number {
  return shardOf(shardKey(cluster), partitions);
}
