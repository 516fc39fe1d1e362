/**
 * `auditstorm metrics`: read scrapes already parsed ({@link ScrapeInput}) into a {@link Report}
 * whose `apiserverMetrics` section holds the numbers and whose findings are `resource-conflicts`.
 * Pure: times come from the scrapes or `intervalMs`, `generatedAt` from the caller.
 */
import { detectorDocsUrl } from '../docs-link.js';
import { shortHash } from '../detectors/common.js';
import { severityFor } from '../detectors/window.js';
import { InputError, UsageError } from '../errors.js';
import type { ApiserverMetrics, Finding, Report, SourceSummary } from '../report/schema.js';
import { SCHEMA_VERSION, severityRank } from '../report/schema.js';
import { collect, increases, isLongRunning, METRIC_UPDATE_VERBS, METRIC_WRITE_VERBS, type ScrapeData } from './analyze.js';
import type { Exposition } from './exposition.js';
import { RESOURCE_CONFLICTS, resourceConflictsOptions, type ResourceConflictsOptions } from './options.js';
import { histogramQuantile, type Bucket } from './quantile.js';

/** One scrape as read: its name, how it was stored, its size, and what the parser made of it. */
export interface ScrapeInput {
  /** File path, or `-` for stdin. */
  readonly source: string;
  /** `file`, `gzip` or `stdin`. */
  readonly kind: string;
  /** Bytes read (compressed for gzip). */
  readonly bytes: number;
  readonly exposition: Exposition;
}

/** Options of {@link buildMetricsReport}. */
export interface MetricsReportOptions {
  /** Time between consecutive scrapes, ms (`--interval`); overrides scrape-time headers. */
  intervalMs?: number;
  /** `resource-conflicts` options (validated here; defaults for missing fields). */
  resourceConflicts?: unknown;
  /** The report's `generatedAt`. */
  now: Date;
  /** Tool version for the report. */
  version: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const round = (v: number, digits = 3): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
const share = (part: number, whole: number): number => (whole > 0 ? round(part / whole, 4) : 0);

/** `resource[.group][/subresource]` as kubectl names it. */
export function resourceName(group: string, resource: string, subresource: string): string {
  return `${resource}${group === '' ? '' : `.${group}`}${subresource === '' ? '' : `/${subresource}`}`;
}

/**
 * The audit policy rule that logs writes to one resource at level Metadata (who, what, when, the
 * response code; no bodies): enough for `auditstorm analyze` to name the controller. As the
 * `audit.k8s.io/v1` Policy spells it: core group `""`, a subresource as `resource/subresource`.
 */
export function auditPolicyRule(group: string, resource: string, subresource: string): string {
  const res = subresource === '' ? resource : `${resource}/${subresource}`;
  return [
    'apiVersion: audit.k8s.io/v1',
    'kind: Policy',
    'omitStages: ["RequestReceived"]',
    'rules:',
    '  - level: Metadata',
    '    verbs: ["update", "patch"]',
    '    resources:',
    `      - group: ${JSON.stringify(group)}`,
    `        resources: [${JSON.stringify(res)}]`,
    "  # ...the cluster's other rules after this one",
  ].join('\n');
}

/** The same rule in one line (YAML flow style), for advice text. */
function auditPolicyFlow(group: string, resource: string, subresource: string): string {
  const res = subresource === '' ? resource : `${resource}/${subresource}`;
  return `{level: Metadata, verbs: [update, patch], resources: [{group: ${JSON.stringify(group)}, resources: [${JSON.stringify(res)}]}]}`;
}

/** The times of the scrapes (epoch ms or offsets), and where they came from. */
function scrapeTimes(
  inputs: readonly ScrapeInput[],
  intervalMs: number | undefined,
): { times: (number | null)[]; offsets: (number | null)[]; from: ApiserverMetrics['timesFrom'] } {
  const headers = inputs.map((i) => i.exposition.scrapeTime);
  if (intervalMs !== undefined) {
    const first = headers[0] ?? null;
    return { times: inputs.map((_, i) => (first === null ? null : first + i * intervalMs)), offsets: inputs.map((_, i) => (i * intervalMs) / 1000), from: 'interval' };
  }
  const withTime = headers.filter((t) => t !== null).length;
  if (withTime === inputs.length) {
    const first = headers[0]!;
    return { times: headers, offsets: headers.map((t) => (t! - first) / 1000), from: 'header' };
  }
  if (inputs.length === 1) return { times: [null], offsets: [null], from: 'none' };
  const missing = inputs.filter((i) => i.exposition.scrapeTime === null).map((i) => i.source);
  throw new UsageError(
    withTime === 0
      ? `${inputs.length} scrapes but no times: rates need the time between them`
      : `${missing.join(', ')}: no "# auditstorm-scrape-time:" line, while other scrapes have one`,
    'add the line when scraping: { echo "# auditstorm-scrape-time: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; kubectl get --raw /metrics; } > scrape-1.txt, or give --interval 30s for scrapes taken that far apart',
  );
}

/**
 * Build the report of `auditstorm metrics`.
 * @param inputs the scrapes, in the order given (sorted by time when they carry times)
 * @param opts `--interval`, the `resource-conflicts` options, clock and version
 * @returns a valid {@link Report} with `apiserverMetrics`, findings of kind `resource-conflicts`
 * @throws UsageError when several scrapes have no times, or two have the same time
 * @throws InputError when no scrape holds `apiserver_request_total`
 */
export function buildMetricsReport(inputsGiven: readonly ScrapeInput[], opts: MetricsReportOptions): Report {
  const options: ResourceConflictsOptions = resourceConflictsOptions.parse(opts.resourceConflicts ?? {});
  const inputs =
    opts.intervalMs === undefined && inputsGiven.every((i) => i.exposition.scrapeTime !== null)
      ? [...inputsGiven].sort((a, b) => a.exposition.scrapeTime! - b.exposition.scrapeTime!)
      : [...inputsGiven];
  const { times, offsets, from: timesFrom } = scrapeTimes(inputs, opts.intervalMs);
  for (let i = 1; i < inputs.length; i++) {
    if (offsets[i] !== null && offsets[i - 1] !== null && offsets[i]! <= offsets[i - 1]!) {
      throw new UsageError(`${inputs[i - 1]!.source} and ${inputs[i]!.source} have the same scrape time: rates need time between them`);
    }
  }
  const data: ScrapeData[] = inputs.map((s, i) => collect(s.source, times[i] ?? null, s.exposition.samples));
  const withRequests = data.filter((d) => d.hasRequests);
  if (withRequests.length === 0) {
    throw new InputError(
      `${inputs.map((i) => i.source).join(', ')}: no apiserver_request_total samples: not a kube-apiserver /metrics scrape`,
      'scrape the API server itself: kubectl get --raw /metrics > scrape.txt',
    );
  }
  const warnings: string[] = [];
  for (const d of data) if (!d.hasRequests) warnings.push(`${d.source}: no apiserver_request_total samples (its requests count as 0)`);
  warnings.push(
    'one scrape reaches one API server replica: `kubectl get --raw /metrics` goes through the kubernetes Service to any one of them; with several replicas, scrape each (e.g. through its own address or pod) and run this per replica',
  );

  // A different process_start_time_seconds: another process (a restart, or another replica); its counters start at 0.
  const newProcess = data.map((d, i) => {
    if (i === 0) return false;
    const a = data[i - 1]!.processStart;
    return a !== null && d.processStart !== null && a !== d.processStart;
  });
  for (let i = 1; i < data.length; i++) {
    if (newProcess[i])
      warnings.push(
        `${data[i]!.source}: process_start_time_seconds differs from ${data[i - 1]!.source}: another API server process (restarted, or another replica); its counters are counted from 0`,
      );
    else {
      // Falling counters of one process are resets too (counted from 0, as PromQL's increase does); without a
      // process_start_time_seconds they are the only sign of a restart or of scrapes that reached different replicas.
      const before = data[i - 1]!.requests;
      let fell = 0;
      for (const [k, v] of data[i]!.requests) if (v < (before.get(k) ?? 0)) fell++;
      if (fell > 0)
        warnings.push(
          `${data[i]!.source}: ${fell} apiserver_request_total series fell below their value in ${data[i - 1]!.source}: counted from 0 as after a restart; if the two scrapes reached different API server replicas, the numbers between them are wrong`,
        );
    }
  }

  // --- span --------------------------------------------------------------------------------
  const single = data.length === 1;
  let spanSeconds: number | null = null;
  if (!single) spanSeconds = offsets[offsets.length - 1]! - offsets[0]!;
  else if (times[0] !== null && data[0]!.processStart !== null && times[0]! > data[0]!.processStart) spanSeconds = (times[0]! - data[0]!.processStart) / 1000;
  if (single) {
    warnings.push(
      spanSeconds === null
        ? 'one scrape: numbers are totals since the API server started, and its uptime is unknown (no "# auditstorm-scrape-time:" line or no process_start_time_seconds), so no rates; take two scrapes some seconds apart for rates'
        : `one scrape: numbers are totals since the API server started ${round(spanSeconds, 0)} s before it; rates are averages over that uptime, not the current rate (take two scrapes for that)`,
    );
  }
  const perSec = (n: number): number | null => (spanSeconds !== null && spanSeconds > 0 ? round(n / spanSeconds, 3) : null);

  // --- requests ----------------------------------------------------------------------------
  const req = increases(
    data.map((d) => d.requests),
    newProcess,
  ).total;
  const dur = increases(
    data.map((d) => d.durations),
    newProcess,
  ).total;
  interface Row {
    group: string;
    resource: string;
    subresource: string;
    verb: string;
    requests: number;
    c409: number;
    c429: number;
  }
  const rows = new Map<string, Row>();
  const totals = { requests: 0, writes: 0, conflicts: 0, alreadyExists: 0, throttled: 0, nonResource: 0 };
  for (const [k, n] of req) {
    const [key, code] = k.split('\x01') as [string, string];
    const [group, resource, subresource, verb] = key.split('\0') as [string, string, string, string];
    totals.requests += n;
    if (code === '429') totals.throttled += n;
    if (resource === '') {
      totals.nonResource += n;
      continue;
    }
    if (METRIC_WRITE_VERBS.has(verb)) totals.writes += n;
    if (code === '409') {
      if (METRIC_UPDATE_VERBS.has(verb)) totals.conflicts += n;
      else if (verb === 'POST') totals.alreadyExists += n;
    }
    let row = rows.get(key);
    if (row === undefined) rows.set(key, (row = { group, resource, subresource, verb, requests: 0, c409: 0, c429: 0 }));
    row.requests += n;
    if (code === '409') row.c409 += n;
    if (code === '429') row.c429 += n;
  }
  const buckets = new Map<string, Bucket[]>();
  for (const [k, n] of dur) {
    const [key, le] = k.split('\x01') as [string, string];
    let b = buckets.get(key);
    if (b === undefined) buckets.set(key, (b = []));
    b.push({ le: Number(le), count: n });
  }
  const ms = (v: number | null): number | null => (v === null ? null : round(v * 1000, 1));
  const resources: ApiserverMetrics['resources'] = [...rows.entries()]
    .map(([key, r]) => {
      const b = isLongRunning(r.verb, r.subresource) ? undefined : buckets.get(key);
      const count = b === undefined ? 0 : Math.max(0, ...b.filter((x) => x.le === Infinity).map((x) => x.count));
      const q = (p: number): number | null => (b === undefined || count === 0 ? null : ms(histogramQuantile(p, b)));
      return {
        group: r.group,
        resource: r.resource,
        subresource: r.subresource,
        verb: r.verb,
        requests: r.requests,
        perSec: perSec(r.requests),
        code409: r.c409,
        share409: share(r.c409, r.requests),
        code429: r.c429,
        share429: share(r.c429, r.requests),
        latencyCount: count,
        p50Ms: q(0.5),
        p90Ms: q(0.9),
        p99Ms: q(0.99),
      };
    })
    .sort(
      (a, b) =>
        b.requests - a.requests || resourceName(a.group, a.resource, a.subresource).localeCompare(resourceName(b.group, b.resource, b.subresource)) || a.verb.localeCompare(b.verb),
    );

  // --- APF ---------------------------------------------------------------------------------
  const rej = increases(
    data.map((d) => d.rejected),
    newProcess,
  ).total;
  const wait = increases(
    data.map((d) => d.waits),
    newProcess,
  ).total;
  const pl = new Map<string, { rejected: number; byReason: Record<string, number>; inQueue: number; maxInQueue: number; waits: Bucket[] }>();
  const plOf = (k: string) => {
    let p = pl.get(k);
    if (p === undefined) pl.set(k, (p = { rejected: 0, byReason: {}, inQueue: 0, maxInQueue: 0, waits: [] }));
    return p;
  };
  for (const [k, n] of rej) {
    const [key, reason] = k.split('\x01') as [string, string];
    const p = plOf(key);
    p.rejected += n;
    p.byReason[reason] = (p.byReason[reason] ?? 0) + n;
  }
  data.forEach((d, i) => {
    for (const [k, n] of d.inQueue) {
      const p = plOf(k);
      if (i === data.length - 1) p.inQueue = n;
      p.maxInQueue = Math.max(p.maxInQueue, n);
    }
  });
  for (const [k, n] of wait) {
    const [key, le] = k.split('\x01') as [string, string];
    plOf(key).waits.push({ le: Number(le), count: n });
  }
  const priorityLevels: ApiserverMetrics['priorityLevels'] = [...pl.entries()]
    .map(([k, p]) => {
      const [priorityLevel, flowSchema] = k.split('\0') as [string, string];
      const waitCount = Math.max(0, ...p.waits.filter((x) => x.le === Infinity).map((x) => x.count));
      return {
        priorityLevel,
        flowSchema,
        rejected: p.rejected,
        rejectedByReason: Object.fromEntries(Object.entries(p.byReason).sort(([a], [b]) => a.localeCompare(b))),
        inQueue: p.inQueue,
        maxInQueue: p.maxInQueue,
        waitCount,
        waitP99Ms: waitCount > 0 ? ms(histogramQuantile(0.99, p.waits)) : null,
      };
    })
    .sort(
      (a, b) =>
        b.rejected - a.rejected ||
        b.maxInQueue - a.maxInQueue ||
        b.waitCount - a.waitCount ||
        a.priorityLevel.localeCompare(b.priorityLevel) ||
        a.flowSchema.localeCompare(b.flowSchema),
    );
  if (data.every((d) => d.rejected.size === 0 && d.inQueue.size === 0))
    warnings.push('no API Priority and Fairness series (apiserver_flowcontrol_*): APF off, or the scrape predates it');

  const kinds = new Set(data.flatMap((d) => [...d.inflight.keys()]));
  const inflight = [...kinds].sort().map((kind) => ({
    kind,
    current: data[data.length - 1]!.inflight.get(kind) ?? 0,
    max: Math.max(...data.map((d) => d.inflight.get(kind) ?? 0)),
  }));

  // --- findings ----------------------------------------------------------------------------
  const window = windowOf(times, offsets, data);
  const findings: Finding[] = [];
  const auditPolicy: Record<string, string> = {};
  const perResource = new Map<
    string,
    { group: string; resource: string; subresource: string; updates: number; conflicts: number; writes: number; alreadyExists: number; throttled: number; p99Ms: number | null }
  >();
  for (const r of resources) {
    const key = `${r.group}\0${r.resource}\0${r.subresource}`;
    let p = perResource.get(key);
    if (p === undefined)
      perResource.set(
        key,
        (p = { group: r.group, resource: r.resource, subresource: r.subresource, updates: 0, conflicts: 0, writes: 0, alreadyExists: 0, throttled: 0, p99Ms: null }),
      );
    p.throttled += r.code429;
    if (!METRIC_WRITE_VERBS.has(r.verb)) continue;
    p.writes += r.requests;
    if (r.verb === 'POST') p.alreadyExists += r.code409;
    if (METRIC_UPDATE_VERBS.has(r.verb)) {
      p.updates += r.requests;
      p.conflicts += r.code409;
      if (r.p99Ms !== null) p.p99Ms = Math.max(p.p99Ms ?? 0, r.p99Ms);
    }
  }
  for (const [key, p] of perResource) {
    const conflictShare = share(p.conflicts, p.updates);
    const conflictsPerSec = perSec(p.conflicts);
    const writesPerSec = perSec(p.writes);
    const writeShare = share(p.writes, totals.writes);
    const conflictsStandOut =
      p.conflicts >= options.minConflicts && conflictShare >= options.minConflictShare && (conflictsPerSec === null || conflictsPerSec >= options.minConflictsPerSec);
    const writesStandOut = writesPerSec !== null && writesPerSec >= options.minWritesPerSec && writeShare >= options.minWriteShare;
    if (!conflictsStandOut && !writesStandOut) continue;
    const name = resourceName(p.group, p.resource, p.subresource);
    // Judged on what stood out: 409s below the finding thresholds do not raise a write-rate finding.
    const severity = severityFor(options.severity, {
      conflictShare: conflictsStandOut ? conflictShare : 0,
      conflictsPerSec: conflictsStandOut ? (conflictsPerSec ?? 0) : 0,
      writesPerSec: writesStandOut ? (writesPerSec ?? 0) : 0,
    });
    const id = `${RESOURCE_CONFLICTS}-${shortHash(key)}`;
    const over =
      spanSeconds === null
        ? 'since the API server started'
        : single
          ? `in ${round(spanSeconds, 0)} s since the API server started`
          : `in ${round(spanSeconds, 3)} s between scrapes`;
    const title = conflictsStandOut
      ? `409 Conflict on ${pct(conflictShare)} of updates to ${name}: ${p.conflicts.toLocaleString('en-US')} ${over}${conflictsPerSec === null ? '' : ` (${conflictsPerSec}/s)`}`
      : `${writesPerSec}/s writes to ${name}, ${pct(writeShare)} of all writes ${over}`;
    const versions = data.map((d) => d.versions.get(key)).find((v) => v !== undefined);
    const apiVersion = versions === undefined ? '' : [...versions.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    auditPolicy[id] = auditPolicyRule(p.group, p.resource, p.subresource);
    const metrics: Finding['metrics'] = {
      updates: p.updates,
      conflicts: p.conflicts,
      conflictShare,
      conflictsPerSec,
      writes: p.writes,
      writesPerSec,
      writeShareOfCluster: writeShare,
      alreadyExists: p.alreadyExists,
      throttled: p.throttled,
      updateP99Ms: p.p99Ms,
      spanSeconds: spanSeconds === null ? null : round(spanSeconds, 3),
    };
    findings.push({
      id,
      kind: RESOURCE_CONFLICTS,
      severity,
      title,
      actors: [],
      object: { apiGroup: p.group, apiVersion, resource: p.resource, namespace: '', name: '', subresource: p.subresource },
      window,
      metrics,
      signals: [
        ...(conflictsStandOut ? ['conflict-share'] : []),
        ...(writesStandOut ? ['write-rate'] : []),
        ...(single ? ['totals-since-start'] : []),
        'metrics-only',
        'one-replica',
      ],
      evidence: { auditIDs: [], firstAuditID: '', lastAuditID: '', auditLevel: 'none (apiserver metrics)', level: 'suspected' },
      advice: [
        {
          id: 'metrics-cannot-name-controller',
          text: `apiserver_request_total has no user, userAgent or object label: these numbers cannot name the controller writing ${name}. Log those writes at level Metadata (the rule below) and run \`auditstorm analyze\` on the audit log: it names the service account, userAgent and objects, and whether the client backs off.`,
        },
        { id: 'audit-policy-rule', text: `Audit policy rule, first in the policy's rules: ${auditPolicyFlow(p.group, p.resource, p.subresource)}` },
        {
          id: 'scrape-every-replica',
          text: 'One scrape reaches one API server replica: with several replicas, scrape each and compare; the storm may be larger than this replica shows.',
        },
      ],
      docs: detectorDocsUrl(RESOURCE_CONFLICTS),
    });
  }
  findings.sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || a.title.localeCompare(b.title) || a.id.localeCompare(b.id));

  // --- report ------------------------------------------------------------------------------
  const sources: SourceSummary[] = inputs.map((s, i) => ({
    name: s.source,
    kind: s.kind,
    format: 'prometheus',
    bytes: s.bytes,
    lines: s.exposition.lines,
    events: s.exposition.sampleLines,
    requests: [...data[i]!.requests.values()].reduce((a, b) => a + b, 0),
    badLines: s.exposition.badLines,
    truncated: 0,
  }));
  const section: ApiserverMetrics = {
    version: 1,
    basis: single ? 'totals' : 'rates',
    timesFrom,
    spanSeconds: spanSeconds === null ? null : round(spanSeconds, 3),
    scrapes: inputs.map((s, i) => ({
      source: s.source,
      time: times[i] === null ? null : iso(times[i]!),
      offsetSeconds: offsets[i] ?? null,
      processStart: data[i]!.processStart === null ? null : iso(data[i]!.processStart),
      kubernetesVersion: data[i]!.kubernetesVersion,
      samples: s.exposition.sampleLines,
      badLines: s.exposition.badLines,
    })),
    totals,
    resources,
    priorityLevels,
    inflight,
    auditPolicy,
    warnings,
  };
  const known = times.filter((t): t is number => t !== null);
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'auditstorm', version: opts.version },
    generatedAt: opts.now.toISOString(),
    input: {
      sources,
      lines: sources.reduce((a, s) => a + s.lines, 0),
      events: sources.reduce((a, s) => a + s.events, 0),
      requests: totals.requests,
      badLines: sources.reduce((a, s) => a + s.badLines, 0),
      badLineSamples: inputs.flatMap((s) => s.exposition.badLineSamples.map((b) => ({ source: s.source, line: b.line, reason: b.reason }))).slice(0, 50),
      skipped: { nonFinalStages: 0, duplicates: 0, filtered: 0, overlongLines: 0 },
      truncated: 0,
      sourceErrors: [],
      lateRequests: 0,
      nonResourceRequests: totals.nonResource,
      allowlisted: [],
      timeRange: known.length > 0 ? { from: iso(Math.min(...known)), to: iso(Math.max(...known)) } : null,
    },
    settings: { command: 'metrics', intervalMs: opts.intervalMs ?? null, [RESOURCE_CONFLICTS]: options },
    findings,
    notes: [],
    summaries: {
      totals: { requests: totals.requests, writes: totals.writes, conflicts: totals.conflicts, alreadyExists: totals.alreadyExists, throttled: totals.throttled },
      requestsByVerbResourceCode: [],
      topActors: { byRequests: [], byWrites: [], byConflicts: [], byThrottled: [] },
      topObjects: { byWrites: [], byConflicts: [] },
      latency: [],
    },
    apiserverMetrics: section,
  };
}

/** `12.5%`. */
function pct(v: number): string {
  return `${round(v * 100, 1)}%`;
}

/** The findings' window: scrape times when known, else words (`scrape 1` → `scrape 3 (+60 s)`). */
function windowOf(times: readonly (number | null)[], offsets: readonly (number | null)[], data: readonly ScrapeData[]): Finding['window'] {
  const last = times.length - 1;
  if (times.length === 1) {
    const start = data[0]!.processStart;
    return { from: start === null ? 'API server start' : iso(start), to: times[0] === null ? 'the scrape' : iso(times[0]!) };
  }
  if (times[0] !== null && times[last] !== null) return { from: iso(times[0]!), to: iso(times[last]!) };
  return { from: 'scrape 1', to: `scrape ${times.length} (+${offsets[last]} s)` };
}
