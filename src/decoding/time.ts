/**
 * Fast RFC 3339 timestamp parsing for audit events.
 *
 * kube-apiserver writes `requestReceivedTimestamp` and `stageTimestamp` as `metav1.MicroTime`:
 * `2006-01-02T15:04:05.000000Z`, always UTC with 6 fractional digits (`kubernetes/apimachinery`
 * `pkg/apis/meta/v1/micro_time.go`). v1beta1's `timestamp` and `metadata.creationTimestamp` are
 * whole seconds. `Date.parse` keeps only milliseconds, so this parser keeps the sub-millisecond
 * digits as the fraction of the result.
 */

const DIGIT_0 = 48;

/** Value of `len` ASCII digits at `s[at]`, or -1 if any is not a digit. */
function digits(s: string, at: number, len: number): number {
  let v = 0;
  for (let i = at; i < at + len; i++) {
    const d = s.charCodeAt(i) - DIGIT_0;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` to UTC epoch milliseconds; digits below the
 * millisecond are kept as the fraction (`…00.123456Z` → `… + 123.456`). Up to 6 fractional
 * digits are used (microseconds); more are cut, not rounded: kube-apiserver's legacy lines print
 * `time.RFC3339Nano` where the JSON event of the same request has `MicroTime`'s truncated
 * microseconds, and a copy read from each shape must carry the same time (de-duplication keys on
 * it). `t`/`z` and a space separator are accepted.
 * Returns `NaN` for anything else, including days past the month's end (`2026-02-31`); never
 * throws. Years below 100 are taken literally (Go's zero time `0001-01-01T00:00:00Z` is year 1,
 * not 1901 as `Date.UTC` would make it).
 */
export function parseTimestamp(s: string): number {
  const n = s.length;
  if (n < 20) return NaN;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return NaN; // '-'
  if (s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return NaN; // ':'
  const sep = s.charCodeAt(10);
  if (sep !== 84 && sep !== 116 && sep !== 32) return NaN; // 'T' 't' ' '
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return NaN;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return NaN;

  let i = 19;
  let fraction = 0;
  if (s.charCodeAt(i) === 46) {
    // '.'
    const start = ++i;
    let value = 0;
    let scale = 1;
    for (; i < n; i++) {
      const d = s.charCodeAt(i) - DIGIT_0;
      if (d < 0 || d > 9) break;
      if (i - start < 6) {
        value = value * 10 + d;
        scale *= 10;
      }
    }
    if (i === start) return NaN;
    fraction = (value * 1000) / scale;
  }

  let offsetMinutes = 0;
  const zone = s.charCodeAt(i);
  if (zone === 90 || zone === 122) {
    // 'Z' 'z'
    if (i + 1 !== n) return NaN;
  } else if (zone === 43 || zone === 45) {
    // '+' '-'
    if (i + 6 !== n || s.charCodeAt(i + 3) !== 58) return NaN;
    const oh = digits(s, i + 1, 2);
    const om = digits(s, i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return NaN;
    offsetMinutes = (zone === 45 ? -1 : 1) * (oh * 60 + om);
  } else {
    return NaN;
  }
  // Consecutive events share their minute: Date.UTC runs once per minute (all integers, so
  // minute + seconds is exact).
  const minuteKey = (((year * 13 + month) * 32 + day) * 24 + hour) * 60 + minute;
  if (minuteKey !== lastMinuteKey) {
    // Date.UTC maps years 0–99 to 1900–1999; 400 Gregorian years are exactly 146,097 days.
    const shift = year < 100 ? 400 : 0;
    lastMinuteMs = Date.UTC(year + shift, month - 1, day, hour, minute, 0) - (shift > 0 ? GREGORIAN_400_YEARS_MS : 0);
    lastMinuteKey = minuteKey;
  }
  return lastMinuteMs + second * 1000 - offsetMinutes * 60_000 + fraction;
}

let lastMinuteKey = -1;
let lastMinuteMs = 0;

const GREGORIAN_400_YEARS_MS = 146_097 * 86_400_000;

/** Days in `month` (1–12) of `year`, Gregorian leap years. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
