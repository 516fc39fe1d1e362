/**
 * Builds kube-apiserver scrapes in the 1.35 label layout for the metrics tests: each request
 * counter and histogram is split over two `scope` values (as real scrapes split them over scopes
 * and components), so the tests also check that the analysis sums labels away.
 */

/** `[group, resource, subresource, VERB, code, count]`. */
export type RequestCount = [string, string, string, string, string, number];
/** `[group, resource, subresource, VERB, bounds (s, without +Inf), cumulative counts (with +Inf last)]`. */
export type Histogram = [string, string, string, string, number[], number[]];

export interface ScrapeSpec {
  /** ISO time for the `# auditstorm-scrape-time:` line; none when absent. */
  time?: string;
  /** `process_start_time_seconds`. */
  processStart?: number;
  requests: RequestCount[];
  durations?: Histogram[];
  /** `[priority_level, flow_schema, reason, count]`. */
  rejected?: Array<[string, string, string, number]>;
  /** `[priority_level, flow_schema, count]`. */
  inQueue?: Array<[string, string, number]>;
  /** `[request_kind, count]`. */
  inflight?: Array<[string, number]>;
  /** Raw lines added after the samples (malformed ones, for the bad-input tests). */
  extra?: string[];
}

/** Split `n` in two parts (the larger first) so each series is the sum of two label variants. */
function halves(n: number): [number, number] {
  const a = Math.ceil(n / 2);
  return [a, n - a];
}

/** The exposition text of a scrape. */
export function scrapeText(spec: ScrapeSpec): string {
  const out: string[] = [];
  if (spec.time !== undefined) out.push(`# auditstorm-scrape-time: ${spec.time}`);
  out.push('# HELP apiserver_current_inflight_requests [STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.');
  out.push('# TYPE apiserver_current_inflight_requests gauge');
  for (const [kind, n] of spec.inflight ?? []) out.push(`apiserver_current_inflight_requests{request_kind="${kind}"} ${n}`);
  out.push('# HELP apiserver_flowcontrol_current_inqueue_requests [BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem');
  out.push('# TYPE apiserver_flowcontrol_current_inqueue_requests gauge');
  for (const [pl, fs, n] of spec.inQueue ?? []) out.push(`apiserver_flowcontrol_current_inqueue_requests{flow_schema="${fs}",priority_level="${pl}"} ${n}`);
  out.push('# TYPE apiserver_flowcontrol_rejected_requests_total counter');
  for (const [pl, fs, reason, n] of spec.rejected ?? [])
    out.push(`apiserver_flowcontrol_rejected_requests_total{flow_schema="${fs}",priority_level="${pl}",reason="${reason}"} ${n}`);
  out.push(
    '# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
  );
  out.push('# TYPE apiserver_request_duration_seconds histogram');
  for (const [g, r, s, verb, bounds, counts] of spec.durations ?? []) {
    for (const [k, scope] of ['namespace', 'resource'].entries()) {
      const labels = `component="apiserver",dry_run="",group="${g}",resource="${r}",scope="${scope}",subresource="${s}",verb="${verb}",version="v1"`;
      const les = [...bounds.map(String), '+Inf'];
      les.forEach((le, i) => out.push(`apiserver_request_duration_seconds_bucket{${labels},le="${le}"} ${halves(counts[i]!)[k]}`));
      out.push(`apiserver_request_duration_seconds_count{${labels}} ${halves(counts[counts.length - 1]!)[k]}`);
    }
  }
  out.push(
    '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
  );
  out.push('# TYPE apiserver_request_total counter');
  for (const [g, r, s, verb, code, n] of spec.requests) {
    const [a, b] = halves(n);
    const component = r === '' ? '' : 'apiserver';
    const scope = (x: string): string => (r === '' ? '' : x);
    out.push(
      `apiserver_request_total{code="${code}",component="${component}",dry_run="",group="${g}",resource="${r}",scope="${scope('namespace')}",subresource="${s}",verb="${verb}",version="${r === '' ? '' : 'v1'}"} ${a}`,
    );
    out.push(
      `apiserver_request_total{code="${code}",component="${component}",dry_run="",group="${g}",resource="${r}",scope="${scope('resource')}",subresource="${s}",verb="${verb}",version="${r === '' ? '' : 'v1'}"} ${b}`,
    );
  }
  if (spec.processStart !== undefined) {
    out.push('# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.');
    out.push('# TYPE process_start_time_seconds gauge');
    out.push(`process_start_time_seconds ${spec.processStart}`);
  }
  out.push(...(spec.extra ?? []));
  return `${out.join('\n')}\n`;
}

const BOUNDS = [0.1, 0.5, 1, 5];

/**
 * The 409 storm: two scrapes 30 s apart. Between them `appdeployments.example.com/status` gets
 * 600 successful PUTs and 2,400 PUTs answered 409 (80/s, 80 % of its updates); other traffic is
 * quiet (30 deployment PUTs, 13 deployments/status PUTs of which 3 are 409, 300 pod GETs, 5
 * /healthz GETs). APF rejects 60 requests of workload-low/service-accounts (queue-full 55,
 * time-out 5); the queue holds 3 then 12; mutating in-flight 5 then 40.
 */
export function stormScrapes(opts: { headers?: boolean; processStart2?: number } = {}): [ScrapeSpec, ScrapeSpec] {
  const headers = opts.headers ?? true;
  const first: ScrapeSpec = {
    ...(headers ? { time: '2026-12-05T20:00:00Z' } : {}),
    processStart: 1_796_500_000,
    requests: [
      ['example.com', 'appdeployments', 'status', 'PUT', '200', 1000],
      ['example.com', 'appdeployments', 'status', 'PUT', '409', 200],
      ['apps', 'deployments', '', 'PUT', '200', 500],
      ['apps', 'deployments', 'status', 'PUT', '200', 60],
      ['apps', 'deployments', 'status', 'PUT', '409', 5],
      ['', 'pods', '', 'GET', '200', 3000],
      ['', '', '/healthz', 'GET', '200', 10],
    ],
    durations: [['example.com', 'appdeployments', 'status', 'PUT', BOUNDS, [100, 900, 1100, 1200, 1200]]],
    rejected: [['workload-low', 'service-accounts', 'queue-full', 10]],
    inQueue: [['workload-low', 'service-accounts', 3]],
    inflight: [
      ['mutating', 5],
      ['readOnly', 2],
    ],
  };
  const second: ScrapeSpec = {
    ...(headers ? { time: '2026-12-05T20:00:30Z' } : {}),
    processStart: opts.processStart2 ?? 1_796_500_000,
    requests: [
      ['example.com', 'appdeployments', 'status', 'PUT', '200', 1600],
      ['example.com', 'appdeployments', 'status', 'PUT', '409', 2600],
      ['apps', 'deployments', '', 'PUT', '200', 530],
      ['apps', 'deployments', 'status', 'PUT', '200', 70],
      ['apps', 'deployments', 'status', 'PUT', '409', 8],
      ['', 'pods', '', 'GET', '200', 3300],
      ['', '', '/healthz', 'GET', '200', 15],
    ],
    durations: [['example.com', 'appdeployments', 'status', 'PUT', BOUNDS, [400, 1900, 3100, 4190, 4200]]],
    rejected: [
      ['workload-low', 'service-accounts', 'queue-full', 65],
      ['workload-low', 'service-accounts', 'time-out', 5],
    ],
    inQueue: [['workload-low', 'service-accounts', 12]],
    inflight: [
      ['mutating', 40],
      ['readOnly', 1],
    ],
  };
  return [first, second];
}
