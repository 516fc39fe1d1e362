/**
 * Cluster-wide totals per time step (requests, writes, 409 Conflict, 429), kept for the whole
 * run: one small entry per step that saw traffic (8,640 entries a day at the default 10 s step).
 * Detectors read it to express an episode as a share of all traffic.
 */

/** Counters of one step. */
export interface StepTotals {
  requests: number;
  writes: number;
  conflicts: number;
  throttled: number;
}

/** Per-step totals keyed by `floor(ts / stepMs)`. */
export class TimeSeries {
  readonly stepMs: number;
  private readonly steps = new Map<number, StepTotals>();
  /** The step of the last {@link add}, and its key. */
  private lastKey = Number.NaN;
  private lastStep: StepTotals | undefined = undefined;

  /** @param stepMs bucket width in ms (> 0). */
  constructor(stepMs: number) {
    if (!(stepMs > 0)) throw new RangeError(`stepMs must be > 0, got ${stepMs}`);
    this.stepMs = stepMs;
  }

  /** Count one request at `ts` (epoch ms). */
  add(ts: number, isWrite: boolean, conflict: boolean, throttled: boolean): void {
    const k = Math.floor(ts / this.stepMs);
    let s = k === this.lastKey ? this.lastStep : undefined;
    if (s === undefined) {
      s = this.steps.get(k);
      if (s === undefined) {
        s = { requests: 0, writes: 0, conflicts: 0, throttled: 0 };
        this.steps.set(k, s);
      }
      // Records come in time order: the next one is nearly always in the same step.
      this.lastKey = k;
      this.lastStep = s;
    }
    s.requests++;
    if (isWrite) s.writes++;
    if (conflict) s.conflicts++;
    if (throttled) s.throttled++;
  }

  /** Sum of the steps overlapping `[fromMs, toMs]` (whole steps, so slightly wider than asked). */
  sum(fromMs: number, toMs: number): StepTotals {
    const out: StepTotals = { requests: 0, writes: 0, conflicts: 0, throttled: 0 };
    const a = Math.floor(fromMs / this.stepMs);
    const b = Math.floor(toMs / this.stepMs);
    for (let k = a; k <= b; k++) {
      const s = this.steps.get(k);
      if (s === undefined) continue;
      out.requests += s.requests;
      out.writes += s.writes;
      out.conflicts += s.conflicts;
      out.throttled += s.throttled;
    }
    return out;
  }

  /** All steps in time order, as `[stepStartMs, totals]`. */
  entries(): Array<[number, StepTotals]> {
    return [...this.steps.entries()].sort((x, y) => x[0] - y[0]).map(([k, v]) => [k * this.stepMs, v]);
  }
}

/** Most points in the report's cluster series; longer logs are re-bucketed to wider buckets. */
export const MAX_SERIES_POINTS = 720;

/**
 * An empty stretch longer than this many buckets is left out of the cluster series, so a
 * directory of rotated logs days apart spends its points on the busy stretches. A layout choice
 * (1/20 of {@link MAX_SERIES_POINTS}), not a detection threshold.
 */
export const SERIES_GAP_BUCKETS = 36;

/**
 * The cluster series as the report carries it: the busy stretches of the log, buckets widened by
 * a whole factor of `stepMs` (the smallest that fits) so that there are at most `maxPoints`. Within
 * a stretch every bucket is listed (empty ones as zeros); a run of more than `gapBuckets` empty
 * buckets between two stretches is left out, so consecutive points more than `bucketMs` apart mark
 * a gap in the log.
 * @returns `bucketMs` and the points (`t` = bucket start, epoch ms, ascending); no points for an empty series
 */
export function bucketedSeries(
  series: TimeSeries,
  maxPoints = MAX_SERIES_POINTS,
  gapBuckets = SERIES_GAP_BUCKETS,
): { bucketMs: number; points: Array<{ t: number } & StepTotals> } {
  const entries = series.entries();
  if (entries.length === 0) return { bucketMs: series.stepMs, points: [] };
  const cap = Math.max(1, maxPoints);
  /** Start of every busy bucket at width `bucketMs`, ascending, with the gaps cut. */
  const layout = (bucketMs: number): number[] => {
    const out: number[] = [];
    for (const [t] of entries) {
      const b = Math.floor(t / bucketMs) * bucketMs;
      const prev = out[out.length - 1];
      if (prev === undefined || b - prev > gapBuckets * bucketMs) out.push(b);
      else for (let x = prev + bucketMs; x <= b; x += bucketMs) out.push(x);
      if (out.length > cap) return out;
    }
    return out;
  };
  // Each bucket holds at most `factor` steps, so no factor below entries/cap can fit.
  let factor = Math.max(1, Math.ceil(entries.length / cap));
  let starts = layout(series.stepMs * factor);
  while (starts.length > cap) {
    factor = factor < 64 ? factor + 1 : Math.ceil(factor * 1.05);
    starts = layout(series.stepMs * factor);
  }
  const bucketMs = series.stepMs * factor;
  const index = new Map(starts.map((t, i) => [t, i]));
  const points = starts.map((t) => ({ t, requests: 0, writes: 0, conflicts: 0, throttled: 0 }));
  for (const [t, s] of entries) {
    const p = points[index.get(Math.floor(t / bucketMs) * bucketMs)!]!;
    p.requests += s.requests;
    p.writes += s.writes;
    p.conflicts += s.conflicts;
    p.throttled += s.throttled;
  }
  return { bucketMs, points };
}
