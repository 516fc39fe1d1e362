/**
 * Detector plug-in contract. A detector is a plain `{ meta, create(ctx) }` object (no classes):
 * `meta` carries its id, description and zod options schema (with defaults); `create` returns
 * an instance whose state lives in its closure.
 *
 * The engine feeds records in non-decreasing `ts` order (it reorders slightly unordered input
 * within a bounded window), so detectors may treat `ts` as a clock. Instances must keep state
 * bounded by live keys (evict idle ones) so the same code serves batch files and live streams.
 */
import type { z } from 'zod';
import type { RequestRecord } from '../decoding/record.js';
import type { Finding } from '../report/schema.js';
import type { TimeSeries } from '../engine/series.js';

/** Phase of an episode, for live alerting (`auditstorm watch`). */
export type EpisodePhase = 'open' | 'update' | 'close';

/** What an instance may call back into. */
export interface DetectorContext<O> {
  /** Options after zod defaults were applied. */
  readonly options: O;
  /** Cluster-wide per-step totals (requests, writes, 409s, 429s), for shares of traffic. */
  readonly series: TimeSeries;
  /**
   * Report a finding (a problem). May be called at any time, e.g. when an episode closes. `birth`:
   * the {@link ShardPlacement.birth} of the state that emits it, for the order of findings that
   * object shards emit at one step boundary (absent: 0).
   */
  emit(finding: Finding, birth?: number): void;
  /** Report an episode that looked busy but was handled well: shown apart from findings. `birth` as for {@link emit}. */
  note(finding: Finding, birth?: number): void;
  /** Live signal when an episode opens, worsens or closes; `finding` is its state so far. */
  alert(phase: EpisodePhase, finding: Finding): void;
  /**
   * False when nothing receives alerts (a batch analysis): a detector may then skip building the
   * findings only an alert would carry (what it emits and notes must not change). Absent: true.
   */
  readonly alerting?: boolean;
  /**
   * Most first writes of keys without state a detector holds at once (`FirstWrites` in
   * `common.ts`); absent: `FIRST_WRITES_HELD` (5,000); 0: none, every key gets its state at its
   * first write.
   */
  readonly firstWrites?: number;
  /** Set when the engine shards by object key and this detector is `DetectorMeta.byObject`; absent: one instance sees every record. */
  readonly placement?: ShardPlacement;
}

/**
 * An instance's place in an engine sharded by object key (ARCHITECTURE.md, "Sharding by object
 * key"). The engine feeds the `objects` instances in the global record order, advances every
 * instance of the detector to each record's time before the record (so all judge the same step
 * boundaries), and judges the `cross` instance after the `objects` ones.
 */
export interface ShardPlacement {
  /**
   * `objects`: gets the records of the objects of one shard and keeps their per-object state;
   * `cross`: gets no record and judges, and closes at the end, the state shared by the shards
   * (roll-ups), which the `objects` instances feed.
   */
  readonly role: 'objects' | 'cross';
  /** The value of `name` shared by the detector's instances in this engine, made by `make` at the first call. */
  shared<T>(name: string, make: () => T): T;
  /**
   * A number that grows with every call across the detector's instances: given to a per-object
   * state when it is made, and with its findings to `emit`, it orders the findings of one step
   * boundary as one instance iterating its states in the order they were made would.
   */
  birth(): number;
}

/** A running detector. All methods are synchronous and must not throw on odd records. */
export interface DetectorInstance {
  /** One request, in non-decreasing `ts` order. */
  onRecord(record: RequestRecord): void;
  /**
   * A request an allowlist rule matched that does not exempt this detector (a periodic writer's
   * request, to a detector judging 409/429 answers: `DetectorMeta.judges`), in the same order as
   * `onRecord`'s. Absent: `onRecord` takes it. A detector may keep only what bears on errors (the
   * answers themselves, and requests of keys it already judges), as periodic traffic is heavy.
   */
  onAllowlisted?(record: RequestRecord): void;
  /** Stream time moved to `nowMs` (UTC epoch ms) without a record: evaluate due windows. */
  advance(nowMs: number): void;
  /**
   * Judge the last, partial step as if it were complete, as {@link finish} does first (which then
   * does not judge it again): the engine calls it on every object shard before finishing any.
   */
  settle?(): void;
  /** End of input: close what is open and emit the remaining findings. */
  finish(): void;
  /**
   * Keys (pairs, objects, families, actors) the instance holds state for, plus the first writes
   * it holds: what its memory follows (tests, live `/metrics`). Absent: not counted.
   */
  stateSize?(): number;
}

/** Static description of a detector. */
export interface DetectorMeta<S extends z.ZodType> {
  /** Finding kind it emits; part of the JSON contract. */
  readonly id: string;
  readonly description: string;
  /** Options schema; every field has a default, so `schema.parse({})` gives the defaults. */
  readonly optionsSchema: S;
  /**
   * What it judges: `write-rate` (how often an object is written: hot loops, no-op writes, write
   * fights), which allowlist rules naming no detector exempt periodic writers from, or `errors`
   * (409 Conflict, AlreadyExists, 429 answers), which only a rule naming the detector exempts
   * anyone from: a periodic writer is exempt from being periodic, not from failing (kubernetes#46851:
   * allowlisted node-status PATCHes answered 409 across thousands of nodes).
   */
  readonly judges: 'write-rate' | 'errors';
  /**
   * Whether the engine may shard it by object key: `objects`, one instance per shard (all its
   * state is per object, but for tables it takes from `placement.shared`); `objects+cross`, the
   * same plus one `cross` instance for the state that spans objects. Absent: one instance.
   */
  readonly byObject?: 'objects' | 'objects+cross';
}

export interface Detector<S extends z.ZodType = z.ZodType> {
  readonly meta: DetectorMeta<S>;
  create(ctx: DetectorContext<z.output<S>>): DetectorInstance;
}

/** Identity helper that keeps the options type of a detector literal. */
export function defineDetector<S extends z.ZodType>(d: Detector<S>): Detector<S> {
  return d;
}
