/**
 * The engine: push-based and incremental. Readers push `RequestRecord`s in (nearly) time
 * order; the engine de-duplicates by auditID, reorders within a bounded window, updates the
 * cluster-wide series, applies the request filters, updates the summaries, and feeds each
 * detector (except allowlisted traffic). The same engine
 * serves files, live stdin and (later) a webhook: nothing here knows where records come from.
 */
import type { RequestRecord } from '../decoding/record.js';
import { isConflict } from '../decoding/record.js';
import type { Finding } from '../report/schema.js';
import type { Detector, DetectorContext, DetectorInstance, EpisodePhase, ShardPlacement } from '../detectors/types.js';
import { Aggregates } from './aggregates.js';
import type { Allowlist } from './allowlist.js';
import { AuditIdDedupe } from './dedupe.js';
import { ObjectShards } from './object-shards.js';
import { ReorderQueue } from './reorder.js';
import { TimeSeries } from './series.js';

/**
 * Default requests per de-duplication generation ({@link AuditIdDedupe}): the last 500,000 to
 * 1,000,000 requests are remembered, in one fixed 16 MB table of two generations, both in use
 * from the 500,001st request on, so the memory of a 1 GB log and of a 5 GB one is the same.
 */
export const DEDUPE_HISTORY = 500_000;

/** Engine settings. Times in ms. */
export interface EngineOptions {
  /** Detectors to run, each with its validated options. */
  detectors: ReadonlyArray<{ detector: Detector; options: unknown }>;
  /** Predicate from the request filters, or null for none. */
  filter: ((r: RequestRecord) => boolean) | null;
  /** Legitimate periodic writers: counted, but not fed to detectors. */
  allowlist?: Allowlist | null;
  reorderWindowMs: number;
  seriesStepMs: number;
  /** Requests whose auditIDs are remembered for de-duplication (see AuditIdDedupe); default 500,000 (16 MB of tables). */
  dedupeHistory?: number;
  /** Most first writes each detector holds until their object is written again (see `FirstWrites`); default 5,000; 0: none. */
  firstWrites?: number;
  /**
   * Object shards (integer ≥ 0): with 1 or more, each detector that can be sharded by object key
   * (`DetectorMeta.byObject`) runs one instance per shard, fed by `objectShardKey`, in this thread
   * (see `ObjectShards`). 0 or absent: one instance per detector. The first writes each shard
   * holds count against `firstWrites` on their own, so the findings are the same as with 0 only
   * while no detector drops a held write for room (ARCHITECTURE.md, "Sharding by object key").
   */
  shards?: number;
}

/** Callbacks for live use; all optional. */
export interface EngineSink {
  alert?(phase: EpisodePhase, finding: Finding): void;
}

/** Counters of what the engine did with the records it was given. */
export interface EngineCounters {
  /** Records counted (after filters and de-duplication). */
  requests: number;
  filtered: number;
  duplicates: number;
  late: number;
  nonResource: number;
  /** First and last counted `ts` (UTC epoch ms), or null when nothing was counted. */
  firstTs: number | null;
  lastTs: number | null;
}

export class Engine {
  readonly series: TimeSeries;
  readonly aggregates = new Aggregates();
  readonly findings: Finding[] = [];
  readonly notes: Finding[] = [];
  private readonly instances: DetectorInstance[];
  /** Detector id of each instance. */
  private readonly ids: string[];
  /** Per instance: the allowlist rules it obeys (see `Allowlist.scopeFor`). */
  private readonly scopes: number[];
  private readonly filter: ((r: RequestRecord) => boolean) | null;
  private readonly allowlist: Allowlist | null;
  private readonly queue: ReorderQueue;
  private readonly reorderWindowMs: number;
  private readonly dedupe: AuditIdDedupe;
  /** The detectors when sharded by object key (`EngineOptions.shards` ≥ 1), else null. */
  private readonly sharded: ObjectShards | null;
  private readonly counters: EngineCounters = {
    requests: 0,
    filtered: 0,
    duplicates: 0,
    late: 0,
    nonResource: 0,
    firstTs: null,
    lastTs: null,
  };

  constructor(opts: EngineOptions, sink: EngineSink = {}) {
    this.series = new TimeSeries(opts.seriesStepMs);
    this.filter = opts.filter;
    this.allowlist = opts.allowlist ?? null;
    this.dedupe = new AuditIdDedupe(opts.dedupeHistory ?? DEDUPE_HISTORY);
    this.reorderWindowMs = opts.reorderWindowMs;
    this.queue = new ReorderQueue(opts.reorderWindowMs, (r) => this.count(r));
    const alert = sink.alert?.bind(sink) ?? (() => {});
    this.ids = opts.detectors.map(({ detector }) => detector.meta.id);
    this.scopes = opts.detectors.map(({ detector }) => this.allowlist?.scopeFor(detector.meta.id, detector.meta.judges) ?? 0);
    const shards = opts.shards ?? 0;
    if (!Number.isInteger(shards) || shards < 0) throw new RangeError(`shards must be an integer ≥ 0, got ${shards}`);
    const make = (detector: Detector, options: unknown, out: Pick<DetectorContext<unknown>, 'emit' | 'note'>, placement?: ShardPlacement): DetectorInstance =>
      detector.create({
        options,
        series: this.series,
        emit: out.emit,
        note: out.note,
        alert,
        alerting: sink.alert !== undefined,
        ...(opts.firstWrites === undefined ? {} : { firstWrites: opts.firstWrites }),
        ...(placement === undefined ? {} : { placement }),
      });
    const out = { emit: (f: Finding) => this.findings.push(f), note: (f: Finding) => this.notes.push(f) };
    this.sharded = shards === 0 ? null : new ObjectShards(opts.detectors, this.scopes, shards, make, this.findings, this.notes);
    this.instances = this.sharded === null ? opts.detectors.map(({ detector, options }) => make(detector, options, out)) : [];
  }

  /** One request as read. */
  push(r: RequestRecord): void {
    if (this.dedupe.seenRequest(r)) {
      this.counters.duplicates++;
      return;
    }
    this.queue.push(r);
  }

  /** Requests as read, in order: {@link push} for each. */
  pushAll(batch: readonly RequestRecord[]): void {
    for (let k = 0; k < batch.length; k++) this.push(batch[k]!);
  }

  /**
   * Stream time is `nowMs` (UTC epoch ms) though no record says so (live mode, on a timer):
   * records with `ts <= nowMs - reorderWindowMs` leave the reorder queue and detectors are moved
   * to that time, so episodes open and close without waiting for newer records. A record older
   * than that arriving later is counted as late and placed at that time.
   */
  advance(nowMs: number): void {
    const t = nowMs - this.reorderWindowMs;
    this.queue.releaseUntil(t);
    for (const d of this.instances) d.advance(t);
    this.sharded?.advance(t);
  }

  /** Per detector id, the keys it holds state for (see `DetectorInstance.stateSize`; 0 when it does not say). */
  stateSizes(): Record<string, number> {
    const sizes: Record<string, number> = {};
    const n = this.sharded?.stateSizes() ?? this.instances.map((d) => d.stateSize?.() ?? 0);
    n.forEach((k, i) => {
      sizes[this.ids[i] as string] = k;
    });
    return sizes;
  }

  /** Counters so far, without ending the input (live snapshots); records still queued are not in them. */
  snapshot(): EngineCounters {
    return this.countersNow();
  }

  /** First and last counted `ts` (UTC epoch ms; NaN before any). */
  private firstTs = Number.NaN;
  private lastTs = Number.NaN;

  private countersNow(): EngineCounters {
    const c = this.counters;
    const any = c.requests > 0;
    return { ...c, firstTs: any ? this.firstTs : null, lastTs: any ? this.lastTs : null, late: this.queue.late };
  }

  /** End of input: release buffered records and let detectors close their episodes. */
  finish(): EngineCounters {
    this.queue.flush();
    for (const d of this.instances) d.finish();
    this.sharded?.finish();
    return this.countersNow();
  }

  private count(r: RequestRecord): void {
    const c = this.counters;
    // The series is cluster-wide, before filters: shares of traffic must not depend on what
    // the user chose to look at.
    this.series.add(r.ts, r.isWrite, isConflict(r), r.code === 429);
    if (this.filter !== null && !this.filter(r)) {
      c.filtered++;
      return;
    }
    c.requests++;
    // Kept as plain numbers (the counters' fields, null at first, would box every store).
    if (c.requests === 1) this.firstTs = r.ts;
    this.lastTs = r.ts;
    if (r.object === null) c.nonResource++;
    // Here, not as the request arrives: the allowlist and the detectors read the same actor and
    // object next, so their lines come into the cache once (counted on arrival, the summaries
    // and the allowlist would each take a cache miss of their own).
    this.aggregates.add(r);
    const allowed = this.allowlist === null ? 0 : this.allowlist.match(r);
    if (this.sharded !== null) {
      this.sharded.feed(r, allowed);
      return;
    }
    const inst = this.instances;
    for (let i = 0; i < inst.length; i++) {
      if ((allowed & (this.scopes[i] as number)) !== 0) continue;
      const d = inst[i] as DetectorInstance;
      if (allowed !== 0 && d.onAllowlisted !== undefined) d.onAllowlisted(r);
      else d.onRecord(r);
    }
  }
}
