/**
 * Helpers for the live-mode tests: the committed incident fixture (a 20 s conflict storm of
 * appdeployment-operator on appdeployments/status default/payment-core, with background) as lines,
 * records and webhook EventList bodies, and small async utilities.
 */
import { readFileSync } from 'node:fs';
import { decodeObject } from '../../src/decoding/decode.js';
import { Normalizer } from '../../src/decoding/normalize.js';
import type { RequestRecord } from '../../src/decoding/record.js';

/** The storm every live test expects to be alerted on. */
export const STORM = {
  kind: 'conflict-storm',
  user: 'system:serviceaccount:appdeployment-system:appdeployment-operator',
  object: 'appdeployments.infra.company.io/status default/payment-core',
  id: 'conflict-storm:09719b01',
} as const;

/** JSON lines of `fixtures/incident/payment-core.log` (1,184 ResponseComplete events, 14:10:00–14:13:00 UTC). */
export function incidentLines(): string[] {
  return readFileSync(new URL('../../fixtures/incident/payment-core.log', import.meta.url), 'utf8')
    .trimEnd()
    .split('\n');
}

/** Request records of `lines` (every line must be a final-stage event). */
export function recordsOf(lines: readonly string[]): RequestRecord[] {
  const n = new Normalizer();
  return lines.map((l) => {
    const d = decodeObject(JSON.parse(l));
    if (!d.ok) throw new Error(d.reason);
    const r = n.normalize(d.event);
    if (r === null) throw new Error('not a final-stage event');
    return r;
  });
}

/** `audit.k8s.io/v1` EventList bodies of at most `size` events, as the webhook backend batches them. */
export function eventLists(lines: readonly string[], size = 400): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += size) {
    out.push(JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: lines.slice(i, i + size).map((l) => JSON.parse(l) as unknown) }));
  }
  return out;
}

/** Resolves when `check()` is true (polled every 20 ms); rejects after `timeoutMs` with `what`. */
export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
