/**
 * Impact of a finding: its share of all traffic in its window, and the requests it sent beyond
 * what the same work would have cost a client that backs off.
 *
 * The yardstick is the more generous of the two standard client behaviours:
 * - client-go `retry.DefaultBackoff` (`util/retry/util.go`): 4 attempts, sleeping 10, 50 and
 *   250 ms between them (×1.0–1.1 jitter);
 * - a requeue with controller-runtime's default per-item backoff (client-go
 *   `util/workqueue/default_rate_limiters.go`, `ItemExponentialFailureRateLimiter(5ms, 1000s)`):
 *   5 ms · 2^failures, capped at 1000 s.
 * Over any span the per-item backoff allows at least as many attempts as DefaultBackoff (2 in
 * 10 ms, 4 in 35 ms, 6 in 155 ms against 2, 3 and 3), so it is the bound used.
 */
import type { TimeSeries } from '../engine/series.js';
import { ratio } from './common.js';

const BASE_MS = 5;
const CAP_MS = 1_000_000;

/**
 * Attempts a client with per-item exponential backoff (5 ms doubling, capped at 1000 s) makes
 * in `spanMs` from its first attempt, counting that first one. `backoffAttempts(0)` is 1.
 */
export function backoffAttempts(spanMs: number): number {
  let attempts = 1;
  let elapsed = 0;
  let delay = BASE_MS;
  while (delay < CAP_MS && elapsed + delay <= spanMs) {
    elapsed += delay;
    attempts++;
    delay *= 2;
  }
  if (delay >= CAP_MS) attempts += Math.floor((spanMs - elapsed) / CAP_MS);
  return attempts;
}

/** Attempts beyond {@link backoffAttempts} for a retry chain of `attempts` over `spanMs`. */
export function excessAttempts(attempts: number, spanMs: number): number {
  return Math.max(0, attempts - backoffAttempts(spanMs));
}

/**
 * Share (0..1, unrounded) of all writes in `[fromMs, toMs]` that `writes` make; 0 when the
 * cluster saw none. This is what `share` severity thresholds are compared with.
 */
export function writeShare(series: TimeSeries, fromMs: number, toMs: number, writes: number): number {
  const total = series.sum(fromMs, toMs).writes;
  return total > 0 ? Math.min(1, writes / total) : 0;
}

/**
 * Shares (0..1, 4 decimals; `null` when the cluster saw none) of all writes and of all requests in
 * `[fromMs, toMs]` (the cluster series) that a finding's traffic makes. `own` is either that
 * traffic's `{ writes, requests }`, or one count used for both (the writes of a detector that
 * watches writes only). Each count is capped at the cluster's total, so a share is at most 1.
 */
export function trafficShare(
  series: TimeSeries,
  fromMs: number,
  toMs: number,
  own: number | { writes: number; requests: number },
): { shareOfWrites: number | null; shareOfRequests: number | null } {
  const { writes, requests } = typeof own === 'number' ? { writes: own, requests: own } : own;
  const around = series.sum(fromMs, toMs);
  return {
    shareOfWrites: ratio(Math.min(writes, around.writes), around.writes),
    shareOfRequests: ratio(Math.min(requests, around.requests), around.requests),
  };
}
