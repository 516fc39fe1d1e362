/**
 * Publishing audit events to the fleet stream: `auditstorm publish` (logs read as `analyze` reads
 * them, every format) and `serve --nats` (webhook batches) both end here.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import type { AuditEvent } from '../decoding/event.js';
import { Normalizer } from '../decoding/normalize.js';
import type { ReadOptions } from '../ingest/options.js';
import { BadLineLog, readChain, type SourceStats } from '../ingest/read.js';
import type { RequestRecord } from '../decoding/record.js';
import { resolveInputs, type SourceChain } from '../ingest/sources.js';
import { mergeBy } from '../engine/merge.js';
import type { Readable } from 'node:stream';
import { backoffMs, sleep, type FleetLog } from './connect.js';
import { eventSubject, messageId } from './names.js';
import { formatOrder, ORDER_HEADER, PublishOrder } from './order.js';
import { partitionOf } from './partition.js';

/** A decoded event (any stage) and the time it is merged by: its record's `ts`, or the last one before it for a non-final stage. */
interface KeptEvent {
  ev: AuditEvent;
  ts: number;
}

/** A normalizer that also keeps every decoded event (any stage) for the publisher. */
class KeepingNormalizer extends Normalizer {
  kept: KeptEvent[] = [];
  private lastTs = Number.NEGATIVE_INFINITY;
  override normalize(ev: AuditEvent): RequestRecord | null {
    const r = super.normalize(ev);
    if (r !== null && Number.isFinite(r.ts)) this.lastTs = r.ts;
    this.kept.push({ ev, ts: this.lastTs });
    return r;
  }
}

/** The events of one log, in batches as read; its read counters go to `stats` when reading starts. */
async function* keptEvents(chain: SourceChain, opts: ReadOptions, bad: BadLineLog, stats: SourceStats[]): AsyncIterable<KeptEvent[]> {
  const normalizer = new KeepingNormalizer();
  const r = readChain(chain, normalizer, opts, bad);
  stats.push(...r.stats);
  for await (const _batch of r.batches) {
    if (normalizer.kept.length === 0) continue;
    yield normalizer.kept;
    normalizer.kept = [];
  }
  // Non-final stages alone make no record batch: what is left.
  if (normalizer.kept.length > 0) yield normalizer.kept;
}

/** Counters of one publish run. */
export interface PublishCounts {
  /** Events published and acknowledged by JetStream (any stage). */
  published: number;
  /** Of those, dropped by JetStream as resends (same message ID within the de-duplication window). */
  duplicates: number;
  /** Bad lines / items of the input (not published). */
  badLines: number;
  /** Events without an auditID or stage (no message ID can be formed): not published, counted. */
  unnamed: number;
}

/** Where one cluster's events go. */
export interface PublishTarget {
  js: JetStreamClient;
  cluster: string;
  partitions: number;
  log: FleetLog;
  /** Longest time (ms) one event is retried while JetStream does not acknowledge it; default 60 s. */
  retryForMs?: number;
  /** This publisher's ordinals (one per `publish` run or `serve` process; see `order.ts`). */
  order: PublishOrder;
}

/** When each log was last told of a publish retry (ms since the epoch). */
const lastSaid = new WeakMap<FleetLog, number>();

/** Events in flight (published, not yet acknowledged) per publisher. */
export const PUBLISH_WINDOW = 256;

/**
 * Publishes one event and waits for JetStream's acknowledgement, retrying with backoff (said on
 * stderr) for up to `retryForMs`. Safe to retry: the message ID makes JetStream drop a copy.
 * @returns whether JetStream reported it a duplicate
 * @throws the last error once `retryForMs` has passed
 */
async function publishOne(t: PublishTarget, subject: string, data: string, msgID: string, order: string): Promise<boolean> {
  const started = Date.now();
  const h = headers();
  h.set(ORDER_HEADER, order);
  for (let attempt = 0; ; attempt++) {
    try {
      const ack = await t.js.publish(subject, data, { msgID, timeout: 5000, headers: h });
      return ack.duplicate;
    } catch (err) {
      if (Date.now() - started >= (t.retryForMs ?? 60_000)) throw err;
      const wait = backoffMs(attempt);
      // Up to a window of events fail together: said once a second, not once per event.
      const now = Date.now();
      if (now - (lastSaid.get(t.log) ?? 0) >= 1000) {
        lastSaid.set(t.log, now);
        t.log(`publish: JetStream did not acknowledge (${(err as Error).message}); retrying in ${wait} ms`);
      }
      await sleep(wait);
    }
  }
}

/**
 * Publishes events of `t.cluster`, at most {@link PUBLISH_WINDOW} unacknowledged at a time, a
 * window only after the previous one was acknowledged in full (the bound `order.ts` relies on),
 * each marked with its place in `t.order`; resolves once every one is acknowledged. Events without `auditID` or `stage` are counted in
 * `counts.unnamed` and skipped.
 * @throws the publish error of an event JetStream did not acknowledge within `retryForMs`
 */
export async function publishEvents(t: PublishTarget, events: readonly AuditEvent[], counts: PublishCounts): Promise<void> {
  const partition = partitionOf(t.cluster, t.partitions);
  const subject = eventSubject(t.cluster, partition);
  let inflight: Array<Promise<void>> = [];
  let window = t.order.next;
  for (const ev of events) {
    if (typeof ev.auditID !== 'string' || ev.auditID === '' || typeof ev.stage !== 'string') {
      counts.unnamed++;
      continue;
    }
    if (inflight.length === 0) window = t.order.next;
    const order = formatOrder({ run: t.order.run, window, n: t.order.next++ });
    inflight.push(
      publishOne(t, subject, JSON.stringify(ev), messageId(t.cluster, ev.auditID, ev.stage), order).then((dup) => {
        counts.published++;
        if (dup) counts.duplicates++;
      }),
    );
    if (inflight.length >= PUBLISH_WINDOW) {
      await Promise.all(inflight);
      inflight = [];
    }
  }
  await Promise.all(inflight);
}

/**
 * Reads `paths` (files, directories, `.gz`, or `-` for `stdin`) as `analyze` does and publishes
 * every audit event of every stage, several logs merged by time as `analyze` merges them (so the
 * API servers' logs of one cluster make one stream in `analyze`'s order). Bad lines are counted
 * and sampled in `bad`.
 * @returns per-source read counters, and the publish counters
 * @throws InputError for an input that cannot be read or is not an audit log; publish errors as {@link publishEvents}
 */
export async function publishInputs(
  t: Omit<PublishTarget, 'order'>,
  paths: string[],
  stdin: Readable,
  read: { maxLineLength: number; sniffLines: number; badLineSamples: number },
): Promise<{ stats: SourceStats[]; counts: PublishCounts; bad: BadLineLog }> {
  const chains = await resolveInputs(paths.length === 0 ? ['-'] : paths, { stdin });
  const target: PublishTarget = { ...t, order: new PublishOrder() };
  const bad = new BadLineLog(read.badLineSamples);
  const opts: ReadOptions = { maxLineLength: read.maxLineLength, sniffLines: read.sniffLines, fullDecode: true, parallel: { workers: 0, minBytes: Infinity } };
  const counts: PublishCounts = { published: 0, duplicates: 0, badLines: 0, unnamed: 0 };
  const stats: SourceStats[] = [];
  // Several logs (API servers of one cluster) go out merged in time, as `analyze` reads them.
  for await (const batch of mergeBy(
    chains.map((c) => keptEvents(c, opts, bad, stats)),
    (k) => k.ts,
  )) {
    await publishEvents(
      target,
      batch.map((k) => k.ev),
      counts,
    );
  }
  counts.badLines = bad.count;
  return { stats, counts, bad };
}
