/**
 * `auditstorm worker`: the analysis tier of a fleet.
 *
 * **Ownership.** A worker claims partitions through leases in the {@link LEASE_BUCKET} key-value
 * bucket (create-if-absent, renewed by compare-and-set every `leaseMs / 3`); the bucket's TTL is
 * `leaseMs`, so the lease of a worker that stops renewing (killed, cut off) vanishes and another
 * worker takes the partition over. Each worker takes at most its fair share,
 * ceil(partitions / live workers), live workers being the unexpired entries of {@link WORKER_BUCKET}.
 *
 * **Consuming and resuming.** A partition is read by a durable pull consumer of this ownership
 * (named by the lease's revision: a former owner that stalled past its lease cannot take the new
 * owner's messages; acknowledge-all, acknowledged only after the messages were applied; a
 * redelivered message is not applied again). The engine cannot serialise its state, so
 * whoever takes a partition recreates its consumer at the stream's first sequence and replays
 * the partition up to the checkpointed sequence without sending alerts, then goes on with
 * alerts: the counts are exact (every event is applied once per session; copies are dropped by
 * JetStream's message ID and the engine's auditID de-duplication), and the cost of a takeover
 * grows with the stream's retention (bounded by its max age). The checkpoint (per partition, in
 * {@link CHECKPOINT_BUCKET}) is the sequence applied, written every `checkpointMs`.
 *
 * **Order.** A cluster's messages are applied in publish order, not stream order: a publish that
 * JetStream refused and took on a retry is stored behind later events of its window, and the
 * cluster's {@link OrderBuffer} holds those until it comes (`order.ts`).
 *
 * **Reports.** One live session per cluster (the partition key is the cluster: see
 * `src/engine/shard.ts`). Reports and checkpoints are written by compare-and-set and never go
 * back to an earlier stream position. Every `reportMs` the changed clusters' reports go to {@link REPORT_BUCKET}. A
 * cluster with no new event for `settleMs` is finished: its report is final, equal to `analyze`
 * of its events. A later event of a finished cluster makes the worker replay its partition again.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { AckPolicy, DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { headers } from '@nats-io/transport-node';
import type { SourceCounts } from '../build-report.js';
import type { AnalyzeOptionsInput } from '../options.js';
import { decodeObject } from '../decoding/decode.js';
import { emptyCounts } from '../ingest/read.js';
import type { Report } from '../report/schema.js';
import { formatAlertJson, type LiveAlert } from '../live/alerts.js';
import { LiveSession } from '../live/session.js';
import { backoffMs, connectFleet, fleetPartitions, sleep, workerBuckets, type Fleet, type FleetLog } from './connect.js';
import { OrderBuffer, ORDER_HEADER, parseOrder } from './order.js';
import { alertSubject, consumerName, consumerPrefix, partitionFilter, partitionKey, STREAM } from './names.js';

/**
 * NATS header of an alert message: the stream sequence of the event whose applying raised it
 * (for a `close` at settling, the cluster's last event), so a reader can tell the delay from
 * publish to alert.
 */
export const ALERT_SEQ_HEADER = 'Auditstorm-Stream-Seq';

/** Settings of a worker (all times in ms). */
export interface WorkerSettings {
  url: string;
  /** This worker's name (unique in the fleet); default host + pid. */
  id: string;
  /** Analysis options, as `analyze` takes them (inputs ignored). */
  analyze: AnalyzeOptionsInput;
  /** Lease lifetime; renewed every third of it. Default 6000. */
  leaseMs?: number;
  /** Checkpoint interval. Default 2000. */
  checkpointMs?: number;
  /** Report publishing interval. Default 2000. */
  reportMs?: number;
  /** Quiet time after which a cluster's session is finished (its report final). Default 30000. */
  settleMs?: number;
  /** Replicas of the buckets the worker creates (3 on a cluster). Default 1. */
  replicas?: number;
  log: FleetLog;
}

/** What a worker publishes per cluster to {@link REPORT_BUCKET} (gzip JSON). */
export interface ClusterReportEntry {
  cluster: string;
  partition: number;
  /** Last stream sequence of the partition applied when the report was built. */
  seq: number;
  /** `true` once the cluster was quiet for `settleMs` and its session finished: the report is final. */
  settled: boolean;
  worker: string;
  /** The cluster's report: a snapshot (open episodes `ongoing`) until settled, then the final one. */
  report: Report;
}

interface ClusterState {
  session: LiveSession;
  /** Messages put back in publish order. */
  order: OrderBuffer<JsMsg>;
  source: SourceCounts;
  lastMsgAt: number;
  lastSeq: number;
  dirty: boolean;
  finished: boolean;
}

/** Counters of a worker, for tests and the status line. */
export interface WorkerCounters {
  /** Messages applied (any partition, replays included). */
  applied: number;
  /** Messages that were not audit events. */
  bad: number;
  /** Partitions taken (including retakes after a restart). */
  claims: number;
}

/** A running worker; {@link FleetWorker.stop} ends it. */
export class FleetWorker {
  readonly counters: WorkerCounters = { applied: 0, bad: 0, claims: 0 };
  private fleet: Fleet | null = null;
  private buckets: Awaited<ReturnType<typeof workerBuckets>> | null = null;
  private readonly owned = new Map<number, { revision: number; stop: boolean; done: Promise<void> }>();
  private stopping = false;
  private readonly leaseMs: number;
  private readonly checkpointMs: number;
  private readonly reportMs: number;
  private readonly settleMs: number;
  private loop: Promise<void> | null = null;

  constructor(private readonly s: WorkerSettings) {
    this.leaseMs = s.leaseMs ?? 6000;
    this.checkpointMs = s.checkpointMs ?? 2000;
    this.reportMs = s.reportMs ?? 2000;
    this.settleMs = s.settleMs ?? 30_000;
    // Fails now on bad analysis options, not in a partition later.
    new LiveSession({ ...this.sessionOptions() });
  }

  private sessionOptions(): AnalyzeOptionsInput {
    // The reorder window of `analyze` (not live's 1 s), so the report equals `analyze` of the cluster's log.
    return { reorderWindowMs: 5000, ...this.s.analyze, inputs: [] };
  }

  /** Connects (retrying for ever with backoff) and starts claiming partitions. */
  async start(): Promise<void> {
    this.fleet = await connectFleet(this.s.url, this.s.log, Number.POSITIVE_INFINITY, `auditstorm-worker-${this.s.id}`);
    const replicas = this.s.replicas ?? 1;
    for (let attempt = 0; ; attempt++) {
      try {
        this.buckets = await workerBuckets(this.fleet, replicas, this.leaseMs);
        break;
      } catch (err) {
        this.s.log(`worker: cannot open the key-value buckets (${(err as Error).message}); retrying in ${backoffMs(attempt)} ms`);
        await sleep(backoffMs(attempt));
      }
    }
    this.loop = this.leaseLoop();
  }

  /**
   * Stops consuming, writes final checkpoints, releases leases, closes the connection. When that
   * takes longer than `graceMs` (JetStream gone while stopping: every step would wait for it),
   * gives up on it, says so, and closes the connection: the next owner replays from the last
   * checkpoint, as after a crash.
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    const graceful = (async () => {
      this.stopping = true;
      await this.loop;
      for (const o of this.owned.values()) o.stop = true;
      await Promise.all([...this.owned.values()].map((o) => o.done));
      for (const p of this.owned.keys()) await this.buckets?.leases.delete(partitionKey(p)).catch(() => {});
      this.owned.clear();
      await this.fleet?.nc.close();
      return true;
    })();
    let timer: NodeJS.Timeout | undefined;
    const inTime = Number.isFinite(graceMs) ? await Promise.race([graceful, new Promise<false>((r) => (timer = setTimeout(() => r(false), graceMs)))]) : await graceful;
    clearTimeout(timer);
    if (inTime) return;
    this.s.log(`worker: JetStream did not answer within ${graceMs} ms of stopping: leaving without final checkpoints (the next owner replays from the last one)`);
    await Promise.race([this.fleet?.nc.close().catch(() => {}), sleep(1000)]);
  }

  /** Partitions owned now. */
  partitions(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  private async leaseLoop(): Promise<void> {
    const b = this.buckets!;
    let partitions: number | null = null;
    let attempt = 0;
    let lastWarn = 0;
    // The first round only registers this worker, so workers started together see each other
    // before they count their fair share (no claim-then-release churn).
    let rounds = 0;
    while (!this.stopping) {
      try {
        await b.workers.put(this.s.id, String(Date.now()));
        if (partitions === null) {
          partitions = await fleetPartitions(this.fleet!);
          if (partitions === null && Date.now() - lastWarn > 10_000) {
            lastWarn = Date.now();
            this.s.log('worker: no fleet stream yet (run `auditstorm publish` or `serve --nats` first); waiting');
          }
        }
        if (partitions !== null && rounds++ > 0) await this.balance(partitions);
        attempt = 0;
      } catch (err) {
        this.s.log(`worker: JetStream unreachable (${(err as Error).message}); retrying in ${backoffMs(attempt)} ms`);
        await sleep(backoffMs(attempt++));
        continue;
      }
      await sleep(this.leaseMs / 3);
    }
  }

  /** Renews owned leases, then claims free ones up to the fair share (or releases past it). */
  private async balance(partitions: number): Promise<void> {
    const b = this.buckets!;
    for (const [p, o] of this.owned) {
      try {
        o.revision = await b.leases.update(partitionKey(p), this.s.id, o.revision);
      } catch (err) {
        this.s.log(`worker: lost the lease of partition ${p} (${(err as Error).message})`);
        o.stop = true;
        await o.done;
        this.owned.delete(p);
      }
    }
    let live = 0;
    for await (const _k of await b.workers.keys()) live++;
    const share = Math.ceil(partitions / Math.max(1, live));
    while (this.owned.size > share) {
      const p = Math.max(...this.owned.keys());
      const o = this.owned.get(p)!;
      o.stop = true;
      await o.done;
      this.owned.delete(p);
      await b.leases.delete(partitionKey(p)).catch(() => {});
      this.s.log(`worker: released partition ${p} (fair share ${share})`);
    }
    for (let p = 0; p < partitions && this.owned.size < share && !this.stopping; p++) {
      if (this.owned.has(p)) continue;
      let revision: number;
      try {
        revision = await b.leases.create(partitionKey(p), this.s.id);
      } catch {
        continue; // held by another worker
      }
      const o = { revision, epoch: revision, stop: false, done: Promise.resolve() };
      o.done = this.runPartition(p, o);
      this.owned.set(p, o);
      this.counters.claims++;
      this.s.log(`worker: took partition ${p}`);
    }
  }

  /** Consumes partition `p` until `o.stop`; replays again when a finished cluster gets an event. */
  private async runPartition(p: number, o: { stop: boolean; epoch: number }): Promise<void> {
    let attempt = 0;
    while (!o.stop && !this.stopping) {
      try {
        await this.consume(p, o);
        attempt = 0;
      } catch (err) {
        this.s.log(`worker: partition ${p}: ${(err as Error).message}; retrying in ${backoffMs(attempt)} ms`);
        await sleep(backoffMs(attempt++));
      }
    }
  }

  /** One pass over partition `p`: replay to the checkpoint, go on live; returns to be run again. */
  private async consume(p: number, o: { stop: boolean; epoch: number }): Promise<void> {
    const f = this.fleet!;
    const b = this.buckets!;
    // A worker whose lease ran out while it was busy (a long stall) must not touch the consumer
    // the new owner reads from.
    const lease = await b.leases.get(partitionKey(p));
    if (lease === null || lease.operation !== 'PUT' || lease.string() !== this.s.id) {
      this.s.log(`worker: partition ${p} is no longer leased to ${this.s.id}; leaving it`);
      o.stop = true;
      return;
    }
    const ck = await b.checkpoints.get(partitionKey(p));
    // Alerts raised by messages up to here were sent by the previous owner (or this worker before
    // it replayed): the replay sends none, so an alert is sent at least once and at most twice.
    const replayUntil = ck !== null && ck.operation === 'PUT' ? Number(ck.string()) : 0;
    let replayTo = replayUntil;
    /** Stream sequence of the message being applied (or of the cluster finished): alerts it raises are live past `replayUntil`. */
    const cursor = { seq: 0 };
    const live = (): boolean => cursor.seq > replayUntil;
    const name = consumerName(p, o.epoch);
    // Every earlier consumer of the partition goes (a former owner's, this one's before a replay).
    const prefix = consumerPrefix(p);
    for await (const c of f.jsm.consumers.list(STREAM)) {
      if (c.name.startsWith(prefix)) await f.jsm.consumers.delete(STREAM, c.name).catch(() => {});
    }
    await f.jsm.consumers.add(STREAM, {
      durable_name: name,
      filter_subject: partitionFilter(p),
      deliver_policy: DeliverPolicy.All,
      ack_policy: AckPolicy.All,
      ack_wait: 30_000 * 1_000_000,
      max_ack_pending: 10_000,
    });
    const consumer = await f.js.consumers.get(STREAM, name);
    const clusters = new Map<string, ClusterState>();
    let applied = 0;
    let lastCheckpoint = Date.now();
    let lastReport = Date.now();
    const checkpoint = async (): Promise<void> => {
      if (applied > replayTo) {
        await advanceCheckpoint(b.checkpoints, partitionKey(p), applied);
        replayTo = applied;
      }
      lastCheckpoint = Date.now();
    };
    const publishReports = async (): Promise<void> => {
      for (const [cluster, st] of clusters) {
        if (!st.dirty) continue;
        const entry: ClusterReportEntry = { cluster, partition: p, seq: applied, settled: st.finished, worker: this.s.id, report: st.session.snapshot() };
        await putReport(b.reports, entry);
        st.dirty = false;
      }
      lastReport = Date.now();
    };
    try {
      while (!o.stop && !this.stopping) {
        const batch = await consumer.fetch({ max_messages: 500, expires: 1000 });
        let last: JsMsg | null = null;
        let reopen = false;
        for await (const m of batch) {
          const cluster = m.subject.split('.')[2] ?? '';
          let st = clusters.get(cluster);
          if (st?.finished === true) {
            // A finished session cannot take more events: replay the partition to here, then go on.
            reopen = true;
            break;
          }
          // A redelivery (an acknowledgement lost): applied already, counted once.
          if (m.seq <= applied) continue;
          if (st === undefined) st = this.newCluster(cluster, clusters, live, cursor);
          st.lastMsgAt = Date.now();
          for (const x of st.order.push(parseOrder(m.headers?.get(ORDER_HEADER)), m)) {
            cursor.seq = x.seq;
            this.apply(st, x);
          }
          applied = m.seq;
          last = m;
        }
        if (last !== null) last.ack();
        if (reopen) {
          if (last !== null) await last.ackAck().catch(() => {});
          await checkpoint();
          return;
        }
        const now = Date.now();
        for (const st of clusters.values()) {
          if (!st.finished && now - st.lastMsgAt >= this.settleMs) {
            for (const x of st.order.flush()) {
              cursor.seq = x.seq;
              this.apply(st, x);
            }
            cursor.seq = st.lastSeq;
            st.session.finish();
            st.finished = true;
            st.dirty = true;
          }
        }
        if (now - lastCheckpoint >= this.checkpointMs) await checkpoint();
        if (now - lastReport >= this.reportMs || [...clusters.values()].some((s) => s.finished && s.dirty)) await publishReports();
      }
      await checkpoint();
      await publishReports();
    } finally {
      // Sessions left open are dropped, not finished: finishing would send `close` alerts for
      // episodes that the next owner goes on with.
      clusters.clear();
    }
  }

  private newCluster(cluster: string, clusters: Map<string, ClusterState>, live: () => boolean, cursor: { seq: number }): ClusterState {
    const nc = this.fleet!.nc;
    const session = new LiveSession(this.sessionOptions(), {
      onAlert: (a: LiveAlert) => {
        if (!live()) return;
        const h = headers();
        h.set(ALERT_SEQ_HEADER, String(cursor.seq));
        nc.publish(alertSubject(cluster), formatAlertJson(a), { headers: h });
      },
    });
    const source: SourceCounts = { ...emptyCounts(cluster, 'jetstream'), kind: 'jetstream' };
    session.addSource(source);
    const st: ClusterState = { session, order: new OrderBuffer(), source, lastMsgAt: Date.now(), lastSeq: 0, dirty: true, finished: false };
    clusters.set(cluster, st);
    return st;
  }

  /** Applies one message: an audit event (any stage), or a bad one (counted and sampled). */
  private apply(st: ClusterState, m: JsMsg): void {
    this.counters.applied++;
    st.lastSeq = Math.max(st.lastSeq, m.seq);
    st.dirty = true;
    const src = st.source;
    src.lines++;
    let parsed: unknown;
    let reason: string | null = null;
    try {
      parsed = JSON.parse(m.string());
    } catch (err) {
      reason = `not JSON (${(err as Error).message})`;
    }
    if (reason === null) {
      const d = decodeObject(parsed);
      if (d.ok) {
        src.events++;
        const record = st.session.normalizer.normalize(d.event);
        if (record === null) src.nonFinalStages++;
        else {
          src.requests++;
          st.session.push([record]);
        }
        return;
      }
      reason = d.reason;
    }
    this.counters.bad++;
    src.badLines++;
    st.session.bad.add(src.name, m.seq, `stream sequence ${m.seq}: ${reason}`);
  }
}

/** Rank of a report entry: later stream position first, then settled over still open. */
function rank(e: Pick<ClusterReportEntry, 'seq' | 'settled'>): number {
  return e.seq * 2 + (e.settled ? 1 : 0);
}

/**
 * Writes a cluster's report entry unless the bucket already holds one of a later stream position
 * (or the same position, settled, when this one is not): a worker that lost its lease while stalled, or one replaying a
 * partition, never overwrites a newer report. Compare-and-set on the entry's revision; retried on
 * a race.
 */
async function putReport(reports: KV, entry: ClusterReportEntry): Promise<void> {
  const bytes = gzipSync(JSON.stringify(entry));
  for (;;) {
    const cur = await reports.get(entry.cluster);
    try {
      if (cur === null || cur.operation !== 'PUT') {
        await reports.create(entry.cluster, bytes);
        return;
      }
      const old = JSON.parse(gunzipSync(cur.value).toString('utf8')) as ClusterReportEntry;
      if (rank(old) > rank(entry)) return;
      await reports.update(entry.cluster, bytes, cur.revision);
      return;
    } catch (err) {
      // Another writer came first (wrong last sequence): read again and decide again.
      if (!/wrong last sequence|exists/i.test((err as Error).message)) throw err;
    }
  }
}

/** Sets a partition's checkpoint to `seq` unless it already is at or past it (compare-and-set). */
async function advanceCheckpoint(checkpoints: KV, key: string, seq: number): Promise<void> {
  for (;;) {
    const cur = await checkpoints.get(key);
    try {
      if (cur === null || cur.operation !== 'PUT') {
        await checkpoints.create(key, String(seq));
        return;
      }
      if (Number(cur.string()) >= seq) return;
      await checkpoints.update(key, String(seq), cur.revision);
      return;
    } catch (err) {
      if (!/wrong last sequence|exists/i.test((err as Error).message)) throw err;
    }
  }
}
