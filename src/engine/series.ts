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
 * The cluster series as the report carries it: every bucket from the first step with traffic to
 * the last (empty ones as zeros), buckets widened by a whole factor of `stepMs` so that there are
 * at most `maxPoints`.
 * @returns `bucketMs` and the points (`t` = bucket start, epoch ms); no points for an empty series
 */
export function bucketedSeries(
  series: TimeSeries,
  maxPoints = MAX_SERIES_POINTS,
): { bucketMs: number; points: Array<{ t: number } & StepTotals> } {
  const entries = series.entries();
  const first = entries[0];
  const last = entries[entries.length - 1];
  if (first === undefined || last === undefined) return { bucketMs: series.stepMs, points: [] };
  const steps = (last[0] - first[0]) / series.stepMs + 1;
  const cap = Math.max(1, maxPoints);
  let factor = Math.max(1, Math.ceil(steps / cap));
  // Buckets start at multiples of their width, which can add one bucket: widen until it fits.
  const count = (f: number): number => Math.floor((last[0] - Math.floor(first[0] / (series.stepMs * f)) * series.stepMs * f) / (series.stepMs * f)) + 1;
  while (count(factor) > cap) factor++;
  const bucketMs = series.stepMs * factor;
  const origin = Math.floor(first[0] / bucketMs) * bucketMs;
  const n = count(factor);
  const points = Array.from({ length: n }, (_, i) => ({ t: origin + i * bucketMs, requests: 0, writes: 0, conflicts: 0, throttled: 0 }));
  for (const [t, s] of entries) {
    const p = points[Math.floor((t - origin) / bucketMs)]!;
    p.requests += s.requests;
    p.writes += s.writes;
    p.conflicts += s.conflicts;
    p.throttled += s.throttled;
  }
  return { bucketMs, points };
}
