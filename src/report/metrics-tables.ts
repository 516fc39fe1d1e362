/**
 * The `apiserverMetrics` section of an `auditstorm metrics` report as header fields and tables,
 * for every renderer (each escapes and lays them out as it does the summary tables). Latencies in
 * ms, rates per second.
 */
import { formatDecimal, formatInt, formatPercent, formatTime, plural, type Column, type Table } from './format.js';
import type { ApiserverMetrics, Report } from './schema.js';

/** Rows kept in the requests table (the rest are counted in its footer). */
export const MAX_METRICS_ROWS = 25;

const left = (header: string): Column => ({ header, align: 'left', truncate: 'middle' });
const right = (header: string): Column => ({ header, align: 'right' });

/** `resource[.group][/subresource]`. */
function resourceLabel(r: { group: string; resource: string; subresource: string }): string {
  return `${r.resource}${r.group === '' ? '' : `.${r.group}`}${r.subresource === '' ? '' : `/${r.subresource}`}`;
}

const ms = (v: number | null): string => (v === null ? '–' : formatDecimal(v));
const rate = (v: number | null): string => (v === null ? '–' : formatDecimal(v));

/** What the numbers cover, in words: `rates over 30 s between 2 scrapes` / `totals since the API server started`. */
export function metricsBasis(m: ApiserverMetrics): string {
  if (m.basis === 'rates') {
    const from = m.timesFrom === 'interval' ? ' (times from --interval)' : '';
    return `increases and rates over ${formatDecimal(m.spanSeconds ?? 0)} s between ${plural(m.scrapes.length, 'scrape')}${from}`;
  }
  return m.spanSeconds === null
    ? 'totals since the API server started (uptime unknown: no rates)'
    : `totals since the API server started, ${formatDecimal(m.spanSeconds)} s before the scrape; rates are averages over that uptime`;
}

/** Header fields (label, value) of a metrics report, in reading order. */
export function metricsHeader(report: Report, m: ApiserverMetrics): Array<[string, string]> {
  const t = m.totals;
  const versions = [...new Set(m.scrapes.map((s) => s.kubernetesVersion).filter((v): v is string => v !== null))];
  const out: Array<[string, string]> = [
    ['Generated', formatTime(report.generatedAt)],
    ['Scrapes', `${plural(m.scrapes.length, 'scrape')}${versions.length > 0 ? ` of Kubernetes ${versions.join(', ')}` : ''} · ${plural(report.input.badLines, 'bad line')}`],
    ['Numbers', metricsBasis(m)],
    [
      'Requests',
      `${formatInt(t.requests)} (${formatInt(t.nonResource)} non-resource) · ${formatInt(t.writes)} writes · ${formatInt(t.conflicts)} 409 on updates · ${formatInt(t.alreadyExists)} 409 on creates · ${formatInt(t.throttled)} 429`,
    ],
  ];
  return out;
}

/**
 * The tables of a metrics report, in reading order: scrapes; requests per
 * group/resource/subresource/verb (most first, at most `maxRows`); 409s; slowest p99; APF; in-flight.
 */
export function metricsTables(m: ApiserverMetrics, maxRows = MAX_METRICS_ROWS): Table[] {
  const tables: Table[] = [];
  tables.push({
    title: 'Scrapes',
    columns: [left('Source'), left('Time'), right('Offset s'), left('Process start'), left('Version'), right('Samples'), right('Bad lines')],
    rows: m.scrapes.map((s) => [
      s.source,
      s.time === null ? '–' : formatTime(s.time),
      s.offsetSeconds === null ? '–' : formatDecimal(s.offsetSeconds),
      s.processStart === null ? '–' : formatTime(s.processStart),
      s.kubernetesVersion ?? '–',
      formatInt(s.samples),
      formatInt(s.badLines),
    ]),
  });
  const row = (r: ApiserverMetrics['resources'][number]): string[] => [
    resourceLabel(r),
    r.verb,
    formatInt(r.requests),
    rate(r.perSec),
    formatInt(r.code409),
    formatPercent(r.share409),
    formatInt(r.code429),
    formatPercent(r.share429),
    ms(r.p50Ms),
    ms(r.p90Ms),
    ms(r.p99Ms),
  ];
  const columns = [
    left('Resource'),
    left('Verb'),
    right('Requests'),
    right('/s'),
    right('409'),
    right('409 %'),
    right('429'),
    right('429 %'),
    right('p50 ms'),
    right('p90 ms'),
    right('p99 ms'),
  ];
  const rest = m.resources.slice(maxRows);
  tables.push({
    title: 'Requests by resource and verb',
    columns,
    rows: m.resources.slice(0, maxRows).map(row),
    ...(rest.length > 0
      ? {
          footer: `${plural(rest.length, 'more row')} not shown (${plural(
            rest.reduce((a, r) => a + r.requests, 0),
            'request',
          )}); --format json lists all`,
        }
      : {}),
  });
  tables.push({
    title: '409 responses (Conflict on updates, AlreadyExists on creates)',
    columns,
    rows: m.resources
      .filter((r) => r.code409 > 0)
      .sort((a, b) => b.code409 - a.code409)
      .map(row),
  });
  if (m.resources.some((r) => r.code429 > 0)) {
    tables.push({
      title: '429 responses (TooManyRequests)',
      columns,
      rows: m.resources
        .filter((r) => r.code429 > 0)
        .sort((a, b) => b.code429 - a.code429)
        .map(row),
    });
  }
  const slow = m.resources
    .filter((r) => r.p99Ms !== null)
    .sort((a, b) => b.p99Ms! - a.p99Ms! || b.requests - a.requests)
    .slice(0, 15);
  tables.push({
    title: 'Slowest p99 latency (long-running requests excluded)',
    columns: [left('Resource'), left('Verb'), right('Observed'), right('p50 ms'), right('p90 ms'), right('p99 ms')],
    rows: slow.map((r) => [resourceLabel(r), r.verb, formatInt(r.latencyCount), ms(r.p50Ms), ms(r.p90Ms), ms(r.p99Ms)]),
  });
  tables.push({
    title: 'API Priority and Fairness (per priority level and flow schema)',
    columns: [left('Priority level'), left('Flow schema'), right('Rejected'), left('Reasons'), right('In queue'), right('Max in queue'), right('Waited'), right('Wait p99 ms')],
    rows: m.priorityLevels
      .filter((p) => p.rejected > 0 || p.maxInQueue > 0 || p.waitCount > 0)
      .map((p) => [
        p.priorityLevel,
        p.flowSchema,
        formatInt(p.rejected),
        Object.entries(p.rejectedByReason)
          .map(([k, v]) => `${k} ${formatInt(v)}`)
          .join(', ') || '–',
        formatInt(p.inQueue),
        formatInt(p.maxInQueue),
        formatInt(p.waitCount),
        ms(p.waitP99Ms),
      ]),
  });
  tables.push({
    title: 'In-flight requests',
    columns: [left('Kind'), right('Last scrape'), right('Most')],
    rows: m.inflight.map((f) => [f.kind, formatInt(f.current), formatInt(f.max)]),
  });
  return tables;
}

/** Audit policy rules per finding: `[finding title, YAML]`, in the report's finding order. */
export function metricsPolicies(report: Report, m: ApiserverMetrics): Array<[string, string]> {
  return report.findings.filter((f) => m.auditPolicy[f.id] !== undefined).map((f) => [f.title, m.auditPolicy[f.id]!]);
}
