/**
 * The one place that decides which partition of the `AUDITSTORM` stream an event goes to.
 *
 * Today the key is the **cluster name**: every event of a cluster lands in one partition, so one
 * worker holds all of a cluster's events and its report equals `analyze` of that cluster's log.
 * That is required while the engine keeps its state per process: cross-object detectors
 * (fleet-storm, throttling) and the cluster summaries need every event of a cluster in one engine.
 * Once the engine is sharded by object key and merges per-shard partial sums (issue 26), this
 * function becomes the engine's shard key (cluster + object) and a cluster's events may spread
 * over partitions; publishers and workers need no other change, since both call only this.
 */
import { UsageError } from '../errors.js';

/** Cluster names: NATS subject tokens and KV keys both accept these (no `.`, `*`, `>` or spaces). */
export const CLUSTER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Checks a cluster name for `--cluster`.
 * @throws UsageError when it is empty, longer than 128 characters, or has a character other than letters, digits, `_` and `-`
 */
export function checkClusterName(name: string): string {
  if (!CLUSTER_NAME_PATTERN.test(name)) {
    throw new UsageError(`--cluster "${name}": a cluster name is 1 to 128 letters, digits, "_" or "-"`, 'it is a NATS subject token and a key-value key: no dots, spaces or wildcards');
  }
  return name;
}

/** 32-bit FNV-1a of the UTF-16 code units of `s` (stable across processes and versions). */
function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The partition (0 ≤ p < `partitions`) of an event of `cluster`: FNV-1a of the cluster name mod
 * `partitions`. See the module comment for why the key is the cluster.
 * @throws RangeError when `partitions` is not a positive integer
 */
export function partitionOf(cluster: string, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1) throw new RangeError(`partitions must be a positive integer, got ${partitions}`);
  return fnv1a32(cluster) % partitions;
}
