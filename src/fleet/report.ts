/**
 * `auditstorm report --nats`: reading the reports workers publish to {@link REPORT_BUCKET}, one
 * per cluster, and merging them into a fleet report.
 */
import { gunzipSync } from 'node:zlib';
import type { KV } from '@nats-io/kv';
import { compareFindings } from '../build-report.js';
import type { Finding, Report } from '../report/schema.js';
import type { ClusterReportEntry } from './worker.js';

/**
 * Every cluster's latest report entry, by cluster name (sorted). Entries that cannot be read
 * (another version's format) are skipped and named in `unreadable`.
 */
export async function readClusterReports(reports: KV): Promise<{ entries: ClusterReportEntry[]; unreadable: string[] }> {
  const keys: string[] = [];
  for await (const k of await reports.keys()) keys.push(k);
  keys.sort();
  const entries: ClusterReportEntry[] = [];
  const unreadable: string[] = [];
  for (const k of keys) {
    const e = await reports.get(k);
    if (e === null || e.operation !== 'PUT') continue;
    try {
      entries.push(JSON.parse(gunzipSync(e.value).toString('utf8')) as ClusterReportEntry);
    } catch {
      unreadable.push(k);
    }
  }
  return { entries, unreadable };
}

function tagged(fs: Finding[], cluster: string): Finding[] {
  return fs.map((f) => ({ ...f, cluster }));
}

function topBy<T>(rows: T[], key: (r: T) => number, n: number): T[] {
  return [...rows].sort((a, b) => key(b) - key(a)).slice(0, n);
}

/**
 * One report across clusters: every finding and note with its `cluster`, sorted as in one
 * report; input counters and totals summed; per-source rows one per cluster; top actors and
 * objects the highest rows of all clusters (an actor of two clusters is two rows); request counts
 * by verb, resource and code summed. Latency percentiles cannot be summed: they are left empty
 * (read them per cluster with `--cluster`); so is the cluster series.
 * @param entries at least one cluster's entry
 */
export function fleetReport(entries: readonly ClusterReportEntry[], generatedAt: Date): Report {
  if (entries.length === 0) throw new RangeError('fleetReport: no cluster');
  const reps = entries.map((e) => e.report);
  const first = reps[0]!;
  const sum = (f: (r: Report) => number): number => reps.reduce((a, r) => a + f(r), 0);
  const top = first.summaries.topActors.byRequests.length;
  const actors = entries.flatMap((e) => e.report.summaries.topActors.byRequests);
  const actorsAll = {
    byRequests: topBy(actors, (a) => a.requests, Math.max(top, 10)),
    byWrites: topBy(
      entries.flatMap((e) => e.report.summaries.topActors.byWrites),
      (a) => a.writes,
      Math.max(top, 10),
    ),
    byConflicts: topBy(
      entries.flatMap((e) => e.report.summaries.topActors.byConflicts),
      (a) => a.conflicts,
      Math.max(top, 10),
    ),
    byThrottled: topBy(
      entries.flatMap((e) => e.report.summaries.topActors.byThrottled),
      (a) => a.throttled,
      Math.max(top, 10),
    ),
  };
  const vrc = new Map<string, { verb: string; resource: string; code: number; count: number }>();
  for (const r of reps) {
    for (const row of r.summaries.requestsByVerbResourceCode) {
      const k = `${row.verb}\u0000${row.resource}\u0000${row.code}`;
      const cur = vrc.get(k);
      if (cur === undefined) vrc.set(k, { ...row });
      else cur.count += row.count;
    }
  }
  const froms = reps
    .map((r) => r.input.timeRange?.from)
    .filter((x): x is string => x !== undefined)
    .sort();
  const tos = reps
    .map((r) => r.input.timeRange?.to)
    .filter((x): x is string => x !== undefined)
    .sort();
  const { series: _series, ...rest } = first;
  return {
    ...rest,
    generatedAt: generatedAt.toISOString(),
    input: {
      ...first.input,
      sources: entries.flatMap((e) => e.report.input.sources.map((s) => ({ ...s, name: e.cluster }))),
      lines: sum((r) => r.input.lines),
      events: sum((r) => r.input.events),
      requests: sum((r) => r.input.requests),
      badLines: sum((r) => r.input.badLines),
      badLineSamples: reps.flatMap((r) => r.input.badLineSamples).slice(0, Math.max(first.input.badLineSamples.length, 20)),
      skipped: {
        nonFinalStages: sum((r) => r.input.skipped.nonFinalStages),
        duplicates: sum((r) => r.input.skipped.duplicates),
        filtered: sum((r) => r.input.skipped.filtered),
        overlongLines: sum((r) => r.input.skipped.overlongLines),
      },
      truncated: sum((r) => r.input.truncated),
      truncatedRead: sum((r) => r.input.truncatedRead ?? 0),
      skippedRecords: sum((r) => r.input.skippedRecords ?? 0),
      sourceErrors: reps.flatMap((r) => r.input.sourceErrors),
      lateRequests: sum((r) => r.input.lateRequests),
      nonResourceRequests: sum((r) => r.input.nonResourceRequests),
      timeRange: froms.length === 0 ? null : { from: froms[0]!, to: tos[tos.length - 1]! },
    },
    findings: entries.flatMap((e) => tagged(e.report.findings, e.cluster)).sort(compareFindings),
    notes: entries.flatMap((e) => tagged(e.report.notes, e.cluster)).sort(compareFindings),
    summaries: {
      totals: {
        requests: sum((r) => r.summaries.totals.requests),
        writes: sum((r) => r.summaries.totals.writes),
        conflicts: sum((r) => r.summaries.totals.conflicts),
        alreadyExists: sum((r) => r.summaries.totals.alreadyExists),
        throttled: sum((r) => r.summaries.totals.throttled),
      },
      requestsByVerbResourceCode: [...vrc.values()].sort(
        (a, b) => b.count - a.count || (a.verb < b.verb ? -1 : a.verb > b.verb ? 1 : 0) || (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : a.code - b.code),
      ),
      topActors: actorsAll,
      topObjects: {
        byWrites: topBy(
          entries.flatMap((e) => e.report.summaries.topObjects.byWrites),
          (o) => o.writes,
          10,
        ),
        byConflicts: topBy(
          entries.flatMap((e) => e.report.summaries.topObjects.byConflicts),
          (o) => o.conflicts,
          10,
        ),
      },
      latency: [],
    },
  };
}
