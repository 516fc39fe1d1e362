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
  /** Report a finding (a problem). May be called at any time, e.g. when an episode closes. */
  emit(finding: Finding): void;
  /** Report an episode that looked busy but was handled well: shown apart from findings. */
  note(finding: Finding): void;
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
}

export interface Detector<S extends z.ZodType = z.ZodType> {
  readonly meta: DetectorMeta<S>;
  create(ctx: DetectorContext<z.output<S>>): DetectorInstance;
}

/** Identity helper that keeps the options type of a detector literal. */
export function defineDetector<S extends z.ZodType>(d: Detector<S>): Detector<S> {
  return d;
}
