/**
 * `GET /metrics` of `auditstorm serve`: Prometheus text exposition format 0.0.4, written by hand
 * (a dozen families do not justify a client library). Label values are escaped (`\\`, `\"`,
 * `\n`) and stripped of other control characters, as alerts are; label sets are bounded: kinds
 * are the detectors', actors and objects are the top N by recent 409 rate then write rate
 * (`--metrics-top`, default 10). Pure over its input.
 */
import { stripControlChars } from '../report/escape.js';
import type { KeyRate } from './rates.js';
import type { LiveStatus } from './session.js';

/** Counters of the HTTP endpoint. */
export interface ServerCounters {
  /** POST bodies accepted (200). */
  batches: number;
  /** POST bodies rejected, by reason: `bad_body` (400), `too_large` (413), `unauthorized` (401), `unsupported_encoding` (415), `method` (405), `timeout` (408). */
  rejected: Record<string, number>;
  /** Items (events, or what should have been events) seen in accepted and rejected bodies. */
  itemsReceived: number;
  /** Body bytes received (after decompression). */
  bodyBytes: number;
}

/** Everything `/metrics` shows. */
export interface MetricsInput {
  status: LiveStatus;
  server: ServerCounters;
  /** Top actors (key = username) and objects (key = `resource\0namespace\0name`). */
  actors: KeyRate[];
  objects: KeyRate[];
  /** Span the rates are over (ms). */
  rateSpanMs: number;
  /** Resident set size of the process (bytes), when the caller knows it. */
  residentMemoryBytes?: number;
}

/**
 * Escapes a label value for the text format: `\\`, `\"` and `\n` as the format escapes them; the
 * other control characters (ESC, BEL, CR, bidi overrides, …) are removed and tabs become spaces
 * ({@link stripControlChars}), so a username cannot put raw escape sequences into a scrape.
 */
export function escapeLabelValue(v: string): string {
  return stripControlChars(v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"'));
}

function labels(pairs: Record<string, string>): string {
  const parts = Object.entries(pairs).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function value(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  // Six decimals: rates of a few per minute stay readable; epoch seconds keep their milliseconds.
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1e6) / 1e6);
}

/** The `/metrics` body (text/plain; version=0.0.4). */
export function renderMetrics(m: MetricsInput): string {
  const out: string[] = [];
  const family = (name: string, type: 'counter' | 'gauge', help: string, samples: Array<[Record<string, string>, number]>): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    // Keys that differ only in control characters escape alike: a repeated label set would make the
    // whole scrape invalid, so only the first (highest ranked) is written.
    const seen = new Set<string>();
    for (const [l, v] of samples) {
      const ls = labels(l);
      if (seen.has(ls)) continue;
      seen.add(ls);
      out.push(`${name}${ls} ${value(v)}`);
    }
  };
  const s = m.status;
  const span = `${Math.round(m.rateSpanMs / 1000)}s`;
  family('auditstorm_events_received_total', 'counter', 'Items received in webhook bodies (audit events and items that failed to parse).', [[{}, m.server.itemsReceived]]);
  family('auditstorm_events_parsed_total', 'counter', 'Audit events decoded (any stage).', [[{}, s.events]]);
  family('auditstorm_parse_errors_total', 'counter', 'Items that were not audit events (bad JSON, bad fields).', [[{}, s.badLines]]);
  family('auditstorm_requests_read_total', 'counter', 'Final-stage events read, before de-duplication and filters.', [[{}, s.requestsRead]]);
  family('auditstorm_requests_total', 'counter', 'Requests counted as the report counts them: de-duplicated by auditID, after the filters.', [[{}, s.requests]]);
  family('auditstorm_duplicate_requests_total', 'counter', 'Requests dropped as copies of one already counted (batches sent again).', [[{}, s.duplicates]]);
  family('auditstorm_batches_total', 'counter', 'EventList bodies accepted.', [[{}, m.server.batches]]);
  family(
    'auditstorm_batches_rejected_total',
    'counter',
    'POST bodies rejected, by reason.',
    Object.keys(m.server.rejected)
      .sort()
      .map((r) => [{ reason: r }, m.server.rejected[r]!]),
  );
  family('auditstorm_body_bytes_total', 'counter', 'Body bytes received, after decompression.', [[{}, m.server.bodyBytes]]);
  const kinds = Object.keys(s.openByKind).sort();
  family(
    'auditstorm_open_episodes',
    'gauge',
    'Episodes open now, by finding kind.',
    kinds.map((k) => [{ kind: k }, s.openByKind[k]!]),
  );
  family(
    'auditstorm_episodes_opened_total',
    'counter',
    'Episodes opened, by finding kind.',
    kinds.map((k) => [{ kind: k }, s.openedByKind[k] ?? 0]),
  );
  family(
    'auditstorm_episodes_closed_total',
    'counter',
    'Episodes closed, by finding kind.',
    kinds.map((k) => [{ kind: k }, s.closedByKind[k] ?? 0]),
  );
  if (s.streamTimeMs !== null) {
    family('auditstorm_stream_time_seconds', 'gauge', 'Stream clock: newest stageTimestamp seen, run on by wall time (Unix seconds).', [[{}, s.streamTimeMs / 1000]]);
  }
  family(
    'auditstorm_actor_writes_per_second',
    'gauge',
    `Write rate per user over the last ${span}, top actors by 409 rate.`,
    m.actors.map((a) => [{ user: a.key }, a.writesPerSec]),
  );
  family(
    'auditstorm_actor_conflicts_per_second',
    'gauge',
    `409 Conflict rate per user over the last ${span}, top actors by 409 rate.`,
    m.actors.map((a) => [{ user: a.key }, a.conflictsPerSec]),
  );
  const obj = (k: string): Record<string, string> => {
    const [resource = '', namespace = '', name = ''] = k.split('\u0000');
    return { resource, namespace, name };
  };
  family(
    'auditstorm_object_writes_per_second',
    'gauge',
    `Write rate per object over the last ${span}, top objects by 409 rate.`,
    m.objects.map((o) => [obj(o.key), o.writesPerSec]),
  );
  family(
    'auditstorm_object_conflicts_per_second',
    'gauge',
    `409 Conflict rate per object over the last ${span}, top objects by 409 rate.`,
    m.objects.map((o) => [obj(o.key), o.conflictsPerSec]),
  );
  family('auditstorm_uptime_seconds', 'gauge', 'Seconds since the server started.', [[{}, s.uptimeMs / 1000]]);
  if (m.residentMemoryBytes !== undefined) {
    family('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', [[{}, m.residentMemoryBytes]]);
  }
  return `${out.join('\n')}\n`;
}
