/**
 * Self-consistency of a finding's metrics (issue 25: "no share above 1, no mean above its
 * peak"): checks every finding of every evaluation case, and the detector tests.
 */
import type { Finding } from '../report/schema.js';

/** Pairs (part, whole) of metrics where the part can never exceed the whole. */
const PARTS: ReadonlyArray<readonly [string, string]> = [
  ['noOpWrites', 'writes'],
  ['conflicts', 'attempts'],
  ['successes', 'attempts'],
  ['meanWritesPerSec', 'peakWritesPerSec'],
  ['peak409PerSec', 'peakWritesPerSec'],
  ['writes', 'requests'],
  ['conflicts', 'events'],
  ['throttled', 'events'],
];

/**
 * What is inconsistent in `f.metrics`, one sentence each (empty when nothing is): a metric named
 * `…Share` or `…Ratio` outside 0..1, a negative count or rate, or a part above its whole
 * ({@link PARTS}). Metrics that are null or absent are not checked.
 */
export function inconsistencies(f: Finding): string[] {
  const out: string[] = [];
  const m = f.metrics;
  for (const [name, v] of Object.entries(m)) {
    if (typeof v !== 'number') continue;
    if (!Number.isFinite(v)) out.push(`${name} is ${v}`);
    else if (v < 0) out.push(`${name} ${v} is negative`);
    else if (/(Share|Ratio)([A-Z]|$)/.test(name) && v > 1) out.push(`${name} ${v} is above 1`);
  }
  for (const [part, whole] of PARTS) {
    const p = m[part];
    const w = m[whole];
    if (typeof p === 'number' && typeof w === 'number' && p > w) out.push(`${part} ${p} is above ${whole} ${w}`);
  }
  return out;
}
