/**
 * Small parsers for the time-ish values users type: durations (`90s`, `15m`, `1h30m`) and the
 * `--since` / `--until` values (RFC 3339 or a duration back from the end of the log).
 */
import { UsageError } from './errors.js';

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** One `<number><unit>` part; `ms` must be tried before `m`. */
const PART = /(\d+(?:\.\d+)?|\.\d+)(ms|s|m|h|d)/y;

/**
 * Parse a duration into milliseconds, or return `undefined` when `text` is not one.
 *
 * Grammar: one or more `<number><unit>` parts with no spaces, units `ms`, `s`, `m`, `h`, `d`;
 * numbers may have a fraction (`1.5h`). Examples: `90s` → 90000, `1h30m` → 5400000,
 * `250ms` → 250. A bare number (`60`) is not a duration: the unit is required.
 *
 * @param text what the user typed
 * @returns whole milliseconds (rounded), or `undefined` for anything else
 */
export function tryParseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  let total = 0;
  let pos = 0;
  PART.lastIndex = 0;
  while (pos < s.length) {
    PART.lastIndex = pos;
    const m = PART.exec(s);
    if (!m || m.index !== pos) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    pos = PART.lastIndex;
  }
  return Number.isFinite(total) ? Math.round(total) : undefined;
}

/**
 * Parse a duration into milliseconds (see {@link tryParseDuration} for the grammar).
 *
 * @param text what the user typed, e.g. `1h30m`
 * @param what how to name the value in the error message, e.g. `--window`
 * @returns whole milliseconds, e.g. `parseDuration('1h30m')` → `5400000`
 * @throws UsageError when `text` is not a duration (`60` without unit, `abc`, `1x`)
 */
export function parseDuration(text: string, what = 'duration'): number {
  const ms = tryParseDuration(text);
  if (ms !== undefined) return ms;
  throw new UsageError(durationProblem(text, what), 'use a number with a unit: ms, s, m, h or d (e.g. 90s, 15m, 1h30m)');
}

/** The message used for a value that is not a duration; shared with the config validation. */
export function durationProblem(text: string, what: string): string {
  const bare = /^\s*\d+(?:\.\d+)?\s*$/.test(text);
  return bare ? `${what}: "${text}" has no unit (did you mean ${text.trim()}s?)` : `${what}: "${text}" is not a duration (expected e.g. 90s, 15m, 1h30m)`;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Check a `--since` / `--until` value: an RFC 3339 time (`2026-08-08T18:00:00Z`,
 * `2026-08-08T20:00:00+02:00`) or a duration back from the end of the log (`15m`, `2h`).
 *
 * @param text the value as typed
 * @returns a problem description (no field name) or `undefined` when the value is valid
 */
export function timeBoundProblem(text: string): string | undefined {
  if (tryParseDuration(text) !== undefined) return undefined;
  if (RFC3339.test(text.trim()) && !Number.isNaN(Date.parse(text.trim()))) return undefined;
  return `"${text}" is neither an RFC 3339 time (2026-08-08T18:00:00Z) nor a duration (15m, 2h)`;
}

/**
 * Milliseconds as a duration {@link parseDuration} reads back: `60000` → `1m`, `90000` →
 * `1m30s`, `250` → `250ms`, `0` → `0s`.
 *
 * @param ms a whole, non-negative number of milliseconds
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return `${ms}ms`;
  if (ms === 0) return '0s';
  let rest = Math.round(ms);
  let out = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNIT_MS[unit] as number;
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}

/**
 * An age as `kubectl get` prints it (the AGE column), to two or three significant figures:
 * `45s`, `5m3s`, `42m`, `3h5m`, `20h`, `3d4h`, `300d`, `3y20d`, `12y`. Follows `HumanDuration` of
 * `k8s.io/apimachinery/pkg/util/duration` (duration.go): below 2 minutes in seconds, below 10
 * minutes in minutes and seconds, below 3 hours in minutes, below 8 hours in hours and minutes,
 * below 2 days in hours, below 8 days in days and hours, below 2 years in days, below 8 years in
 * years and days, else in years. Negative ages (clock skew) are `0s`.
 * @param ms age in ms
 */
export function kubectlAge(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0s';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}
