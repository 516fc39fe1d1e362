/**
 * Small helpers shared by detectors: report shapes of actors, stable finding ids, times.
 */
import type { Actor } from '../parser/record.js';
import type { ReportActor, Severity } from '../report/schema.js';
import { SEVERITIES } from '../report/schema.js';

/** Report view of an interned actor plus what was seen with it (sorted, de-duplicated). */
export function reportActor(a: Actor, sourceIPs: Iterable<string>, fieldManagers: Iterable<string>): ReportActor {
  return {
    username: a.username,
    userAgent: a.userAgent,
    userAgentProduct: a.userAgentProduct,
    controller: a.controller,
    serviceAccount: a.serviceAccount ? { ...a.serviceAccount } : null,
    sourceIPs: [...new Set(sourceIPs)].filter(Boolean).sort(),
    fieldManagers: [...new Set(fieldManagers)].filter(Boolean).sort(),
  };
}

/** Short human name of an actor: the service-account name, else the controller, else the username. */
export function actorName(a: Actor): string {
  return a.serviceAccount?.name || a.controller || a.username || a.userAgentProduct || '(unknown)';
}

/** UTC ISO 8601 with milliseconds, e.g. `2026-08-08T18:12:05.123Z`. */
export function iso(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}

/** FNV-1a 32-bit hash as 8 hex chars: stable ids for findings across runs. */
export function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The higher of two severities. */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return SEVERITIES.indexOf(a) >= SEVERITIES.indexOf(b) ? a : b;
}

/** `1234.5678` → `1234.57`: metrics carry 2 decimals (rates, ms) so reports stay readable. */
export function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/** Ratio rounded to 4 decimals (0..1), or `null` when the denominator is 0. */
export function ratio(num: number, den: number): number | null {
  return den > 0 ? Math.round((num / den) * 10_000) / 10_000 : null;
}

/** Integer with `,` thousands separators, the same on every machine: `12345` → `12,345`. */
export function int(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
