/**
 * Names shared by the fleet commands: the JetStream stream, its subjects, message IDs and the
 * key-value buckets. They are part of the contract of `publish`, `serve --nats`, `worker` and `report`.
 */

/** The stream that holds every cluster's audit events. */
export const STREAM = 'AUDITSTORM';
/** Subjects of {@link STREAM}. */
export const STREAM_SUBJECTS = 'auditstorm.events.>';
/** Key-value bucket of fleet settings (`partitions`). */
export const META_BUCKET = 'auditstorm-meta';
/** Key-value bucket of partition leases (entries expire when not renewed). */
export const LEASE_BUCKET = 'auditstorm-leases';
/** Key-value bucket of live workers (entries expire when not renewed): the fair share of partitions. */
export const WORKER_BUCKET = 'auditstorm-workers';
/** Key-value bucket of per-partition checkpoints. */
export const CHECKPOINT_BUCKET = 'auditstorm-checkpoints';
/** Key-value bucket of per-cluster reports (gzip JSON of a {@link ClusterReportEntry}). */
export const REPORT_BUCKET = 'auditstorm-reports';

/** Subject of one event: `auditstorm.events.<cluster>.<partition>`. */
export function eventSubject(cluster: string, partition: number): string {
  return `auditstorm.events.${cluster}.${partition}`;
}

/** Filter of one partition's events (every cluster). */
export function partitionFilter(partition: number): string {
  return `auditstorm.events.*.${partition}`;
}

/** Subject of a cluster's live alerts (NDJSON alert objects of `watch --format ndjson`). */
export function alertSubject(cluster: string): string {
  return `auditstorm.alerts.${cluster}`;
}

/** JetStream message ID of an event, `<cluster>/<auditID>/<stage>`: resends within the de-duplication window are dropped. */
export function messageId(cluster: string, auditID: string, stage: string): string {
  return `${cluster}/${auditID}/${stage}`;
}

/** Key of a partition in the lease and checkpoint buckets. */
export function partitionKey(partition: number): string {
  return `p${partition}`;
}

/**
 * Durable pull consumer of partition `partition` for one ownership of it: `epoch` is the lease's
 * revision when it was taken, so a former owner that stalled past its lease reads from a
 * consumer of its own (and never takes messages from the new owner's).
 */
export function consumerName(partition: number, epoch: number): string {
  return `${consumerPrefix(partition)}${epoch}`;
}

/** Start of the names of every consumer of partition `partition` (see {@link consumerName}). */
export function consumerPrefix(partition: number): string {
  return `auditstorm-p${partition}-`;
}
