/**
 * What every sliding-window detector shares: its common options (`windowMs`, `stepMs`,
 * `evidenceSamples`, `maxSourceIPs`, `severity`), severity from those thresholds, and the step
 * clock that judges the window ending at each step boundary.
 *
 * A detector's options schema composes the pieces, so its own options stay in view and keep
 * their place (the order of keys is the order of the resolved options in a report):
 *
 *     export const fooOptions = windowedOptions({
 *       ...windowFields(60_000, 10_000),
 *       minFoo: z.number().int().positive().default(20),
 *       ...evidenceFields(),
 *       severity: severityOption({ share: SHARE, fooPerSec: RATE }, { critical: …, high: …, medium: … }),
 *     });
 */
import { z } from 'zod';
import type { RequestRecord } from '../decoding/record.js';
import type { Severity } from '../report/schema.js';
import { SEVERITIES, severityRank } from '../report/schema.js';
import type { DetectorInstance } from './types.js';

/** Window length and step, ms, as resolved options. */
export interface WindowOptions {
  readonly windowMs: number;
  readonly stepMs: number;
}

/**
 * The `windowMs` and `stepMs` option fields (integer ms, > 0) with these defaults. Pair them with
 * {@link windowedOptions}, which rejects a `windowMs` that is not a multiple of `stepMs`.
 */
export function windowFields(windowMs: number, stepMs: number) {
  return {
    /** Sliding window length, ms. */
    windowMs: z.number().int().positive().default(windowMs),
    /** Window evaluation step, ms; must divide `windowMs`. */
    stepMs: z.number().int().positive().default(stepMs),
  };
}

/**
 * The `evidenceSamples` (integer ≥ 0, default 3) and `maxSourceIPs` (integer > 0, default 16)
 * option fields. `evidenceSamples` counts sample auditIDs kept besides the first and the last
 * (`hot-loop`, `no-op-writes`: besides the last); `maxSourceIPs` caps the distinct source IPs
 * listed per actor.
 */
export function evidenceFields() {
  return {
    /** Sample auditIDs kept as evidence (see each detector: besides the first and last, or the last). */
    evidenceSamples: z.number().int().nonnegative().default(3),
    /** Distinct source IPs listed per actor. */
    maxSourceIPs: z.number().int().positive().default(16),
  };
}

/**
 * A detector's options schema: a strict object of `shape` (unknown keys rejected) that also
 * rejects a `windowMs` that is not a multiple of `stepMs`, with the issue
 * `windowMs must be a multiple of stepMs` at path `['stepMs']`.
 */
export function windowedOptions<S extends z.ZodRawShape & ReturnType<typeof windowFields>>(shape: S) {
  // zod cannot resolve the output type of a generic shape; `S` guarantees these two fields.
  const divides = (o: unknown): boolean => (o as WindowOptions).windowMs % (o as WindowOptions).stepMs === 0;
  const fewSteps = (o: unknown): boolean => (o as WindowOptions).windowMs / (o as WindowOptions).stepMs <= MAX_STEPS_PER_WINDOW;
  return z
    .object(shape)
    .strict()
    .refine(divides, {
      message: 'windowMs must be a multiple of stepMs',
      path: ['stepMs'],
    })
    .refine(fewSteps, {
      message: `windowMs / stepMs must be at most ${MAX_STEPS_PER_WINDOW} steps per window`,
      path: ['stepMs'],
    });
}

/**
 * Steps per window allowed. Every key holds one counter per step and every step boundary judges
 * every live key, so `--window 1h --step 1ms` would cost millions of counters per key.
 */
export const MAX_STEPS_PER_WINDOW = 1000;

/** A share threshold: a number in 0..1. */
export const SHARE = z.number().min(0).max(1);

/** A rate threshold (per second, per minute …): a number ≥ 0. */
export const RATE = z.number().nonnegative();

/** Severity thresholds: for each reportable severity above `low`, a value per metric `K`. */
export type Thresholds<K extends string> = Record<'critical' | 'high' | 'medium', Record<K, number>>;

/**
 * The `severity` option: `{ critical, high, medium }`, each a strict object with one number per
 * metric of `metrics` (its zod type, e.g. {@link SHARE} or {@link RATE}); every number, every
 * level and the whole default to `defaults`. Read it with {@link severityFor}.
 */
export function severityOption<K extends string>(metrics: Record<K, z.ZodNumber>, defaults: Thresholds<K>) {
  // Every number defaults on its own, so a config may set `severity.critical.share` alone.
  // Typed by its output: zod cannot resolve a generic object's output type for `.default`.
  const level = (sev: 'critical' | 'high' | 'medium') =>
    z
      .object(Object.fromEntries(Object.entries<z.ZodNumber>(metrics).map(([k, t]) => [k, t.default(defaults[sev][k as K])])))
      .strict()
      .default(defaults[sev]) as unknown as z.ZodType<Record<K, number>>;
  return z
    .object({ critical: level('critical'), high: level('high'), medium: level('medium') })
    .strict()
    .default(defaults);
}

/**
 * The highest of `critical`, `high`, `medium` at which any metric of `values` reaches (≥) its
 * threshold; `low` when none does.
 */
export function severityFor<K extends string>(thresholds: Thresholds<K>, values: Record<K, number>): Severity {
  for (const sev of ['critical', 'high', 'medium'] as const) {
    const t = thresholds[sev];
    for (const k in values) if (values[k] >= t[k]) return sev;
  }
  return 'low';
}

/**
 * Excess requests (beyond what a backing-off client would have sent, see impact.ts) from which an
 * episode may be rated `high` and `critical`, and, where given, `medium` (below it: at most `low`).
 */
export interface ExcessThresholds {
  readonly medium?: number;
  readonly high: number;
  readonly critical: number;
}

/**
 * The `severityExcess` option: `{ high, critical }` (and `medium` when `defaults` has it), each a
 * number ≥ 0 defaulting on its own, the whole defaulting to `defaults`. Read it with
 * {@link capByExcess}. Shared by the detectors that cap severity by what an episode cost.
 */
export function severityExcessOption(defaults: ExcessThresholds) {
  const n = (v: number) => z.number().nonnegative().default(v);
  const shape =
    defaults.medium === undefined
      ? { high: n(defaults.high), critical: n(defaults.critical) }
      : { medium: n(defaults.medium), high: n(defaults.high), critical: n(defaults.critical) };
  // Typed by its output: the shape depends on `defaults`.
  return z
    .object(shape)
    .strict()
    .default(defaults as never) as unknown as z.ZodType<ExcessThresholds, ExcessThresholds | undefined>;
}

/**
 * `by` capped by `excess` (excess requests of the episode) against `t`: under `t.high` at most
 * `medium` (at most `low` under `t.medium` when given), under `t.critical` at most `high`.
 */
export function capByExcess(by: Severity, excess: number, t: ExcessThresholds): Severity {
  const cap: Severity = excess >= t.critical ? 'critical' : excess >= t.high ? 'high' : t.medium === undefined || excess >= t.medium ? 'medium' : 'low';
  return severityRank(by) > severityRank(cap) ? cap : by;
}

/**
 * Raise an open episode's severity to `next` when `next` ranks higher, and say whether it did
 * (time for an `update` alert). A `null` severity (not rated yet) is left alone.
 */
export function raiseSeverity(episode: { severity: Severity | null }, next: Severity): boolean {
  if (episode.severity === null || SEVERITIES.indexOf(next) <= SEVERITIES.indexOf(episode.severity)) return false;
  episode.severity = next;
  return true;
}

/**
 * Step clock of a sliding-window detector. Boundary `B` (an integer) ends the window
 * `[B·stepMs − windowMs, B·stepMs)`; stream time `t` is in step `⌊t / stepMs⌋`. {@link advance}
 * calls `judge(B)` once for every boundary `B` that became due since the last call, in order.
 * After `windowMs / stepMs + 1` boundaries without records every window is empty, so a longer gap
 * is skipped: `judge` is called for the first `steps + 1` boundaries of the gap, then once at its
 * end. `judge` typically evaluates every live key at `B` and drops the idle ones.
 */
export class StepClock {
  private readonly steps: number;
  /** Boundary evaluated last. */
  private evaluated = -Infinity;
  /** The last, partial step was judged ({@link finish}). */
  private finished = false;

  constructor(
    private readonly o: WindowOptions,
    private readonly judge: (boundary: number) => void,
  ) {
    this.steps = o.windowMs / o.stepMs;
  }

  /** Stream time moved to `nowMs` (a record's `ts`, or a tick): judge the boundaries now due. */
  advance(nowMs: number): void {
    this.advanceTo(Math.floor(nowMs / this.o.stepMs));
  }

  /** End of input: judge the last, partial step as if it were complete (no-op before any time, and when called again). */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.evaluated !== -Infinity) this.advanceTo(this.evaluated + 1);
  }

  private advanceTo(boundary: number): void {
    if (boundary <= this.evaluated) return;
    const first = this.evaluated === -Infinity ? boundary : this.evaluated + 1;
    // After steps + 1 empty steps every window is empty: skip straight to the target.
    const last = Math.min(boundary, first + this.steps + 1);
    for (let k = first; k <= last; k++) this.judge(k === last ? boundary : k);
    this.evaluated = boundary;
  }
}

/**
 * Judge, for a key whose state is made only now (see `FirstWrites`), the boundaries a
 * {@link StepClock} over `o` judged since its first write at `fromTs`, up to the record at
 * `toTs` (ms): those after `fromTs`'s step up to `toTs`'s, skipping as the clock skips a gap (the
 * first `steps + 1`, then the last). Stops and returns false at the first boundary `judge`
 * answers false (the state would have been dropped there).
 */
export function catchUp(o: WindowOptions, fromTs: number, toTs: number, judge: (boundary: number) => boolean): boolean {
  const first = Math.floor(fromTs / o.stepMs) + 1;
  const target = Math.floor(toTs / o.stepMs);
  if (target < first) return true;
  const last = Math.min(target, first + o.windowMs / o.stepMs + 1);
  for (let k = first; k <= last; k++) if (!judge(k === last ? target : k)) return false;
  return true;
}

/** What a windowed detector does at each step boundary, with each record, and at the end. */
export interface WindowedHandlers {
  /** Judge the window ending at `boundary` (see {@link StepClock}) for every live key; drop idle keys. */
  judge(boundary: number): void;
  /** One record, after every boundary up to its time was judged. */
  onRecord(r: RequestRecord): void;
  /** See `DetectorInstance.onAllowlisted`; called as `onRecord` is. */
  onAllowlisted?(r: RequestRecord): void;
  /** End of input, after the last, partial step was judged as if complete: close what is open, drop all state. */
  finish(): void;
  /** See `DetectorInstance.stateSize`. */
  stateSize?(): number;
}

/**
 * The {@link DetectorInstance} of a windowed detector: a {@link StepClock} over `o` calls
 * `judge` for each boundary that is due. Every record and every tick first moves the clock to
 * its time, so windows that ended before a record are judged before it counts.
 */
export function windowedInstance(o: WindowOptions, handlers: WindowedHandlers): DetectorInstance {
  const clock = new StepClock(o, (boundary) => handlers.judge(boundary));
  return {
    onRecord(r: RequestRecord): void {
      clock.advance(r.ts);
      handlers.onRecord(r);
    },
    ...(handlers.onAllowlisted
      ? {
          onAllowlisted(r: RequestRecord): void {
            clock.advance(r.ts);
            (handlers.onAllowlisted as (r: RequestRecord) => void)(r);
          },
        }
      : {}),
    advance(nowMs: number): void {
      clock.advance(nowMs);
    },
    settle(): void {
      clock.finish();
    },
    finish(): void {
      clock.finish();
      handlers.finish();
    },
    ...(handlers.stateSize ? { stateSize: handlers.stateSize.bind(handlers) } : {}),
  };
}
