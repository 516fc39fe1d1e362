/**
 * From kube-apiserver scrapes to numbers: per group/resource/subresource/verb the requests, their
 * rate, 409 and 429 shares (`apiserver_request_total`) and latency percentiles
 * (`apiserver_request_duration_seconds`); per APF priority level and flow schema the rejections
 * (`apiserver_flowcontrol_rejected_requests_total`), the queue
 * (`apiserver_flowcontrol_current_inqueue_requests`) and the queue wait
 * (`apiserver_flowcontrol_request_wait_duration_seconds`); in-flight requests
 * (`apiserver_current_inflight_requests`); and `resource-conflicts` findings.
 *
 * Several scrapes of one API server give increases between the first and the last (summed over
 * consecutive pairs; a counter that falls, or a scrape of a new process, restarts from 0, as
 * PromQL's `increase` treats resets) and rates over the time between them. One scrape gives
 * totals since the process started, and an average rate when its time and
 * `process_start_time_seconds` are known.
 *
 * Labels across Kubernetes 1.19–1.35 (the four scrapes in `../shared/corpus/metrics`): requests
 * are keyed by `group`, `resource`, `subresource`, `verb` and `code`; every other label
 * (`component`, `scope`, `version`, `dry_run`, 1.19's `contentType`, older `client`) is summed
 * away. Before 1.14 the counter was `apiserver_request_count`, read the same way. APF labels are
 * `priority_level` and `flow_schema` (`priorityLevel`/`flowSchema` accepted too).
 */
import type { Sample } from './exposition.js';

/** The metric families the analysis reads (names without `_bucket`/`_sum`/`_count`). */
export const WANTED = new Set([
  'apiserver_request_total',
  'apiserver_request_count',
  'apiserver_request_duration_seconds',
  'apiserver_flowcontrol_rejected_requests_total',
  'apiserver_flowcontrol_current_inqueue_requests',
  'apiserver_flowcontrol_request_wait_duration_seconds',
  'apiserver_current_inflight_requests',
  'process_start_time_seconds',
  'kubernetes_build_info',
]);

/** Verbs (as the metrics spell them, upper case) that write. */
export const METRIC_WRITE_VERBS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'DELETECOLLECTION', 'APPLY']);
/** Write verbs that carry a resourceVersion precondition or apply: their 409 is a Conflict, not AlreadyExists. */
export const METRIC_UPDATE_VERBS: ReadonlySet<string> = new Set(['PUT', 'PATCH', 'APPLY']);
/** Long-running requests (kube-apiserver's `BasicLongRunningRequestCheck`): counted, kept out of latency. */
const LONG_RUNNING_VERBS: ReadonlySet<string> = new Set(['WATCH', 'WATCHLIST', 'CONNECT']);
const LONG_RUNNING_SUBRESOURCES: ReadonlySet<string> = new Set(['attach', 'exec', 'log', 'portforward', 'proxy']);

/** What one scrape holds, summed to the keys the analysis uses. */
export interface ScrapeData {
  readonly source: string;
  /** Epoch ms of the scrape, or `null`. */
  readonly time: number | null;
  /** `process_start_time_seconds` in epoch ms, or `null` when absent (cut off, or not exported). */
  readonly processStart: number | null;
  /** `kubernetes_build_info`'s `git_version` (or `gitVersion`), or `null`. */
  readonly kubernetesVersion: string | null;
  /** `g\0r\0s\0VERB\x01code` → requests. */
  readonly requests: Map<string, number>;
  /** The most common `version` label per `g\0r\0s`. */
  readonly versions: Map<string, Map<string, number>>;
  /** `g\0r\0s\0VERB\x01le` → cumulative observations (seconds). */
  readonly durations: Map<string, number>;
  /** `pl\0fs\x01reason` → rejected. */
  readonly rejected: Map<string, number>;
  /** `pl\0fs` → requests in queue. */
  readonly inQueue: Map<string, number>;
  /** `pl\0fs\x01le` → cumulative queue waits (seconds). */
  readonly waits: Map<string, number>;
  /** `request_kind` → requests in flight. */
  readonly inflight: Map<string, number>;
  /** Whether the scrape has `apiserver_request_total` (or `apiserver_request_count`) samples. */
  readonly hasRequests: boolean;
}

const add = (m: Map<string, number>, k: string, v: number): void => {
  m.set(k, (m.get(k) ?? 0) + v);
};

/** The `le` label as a number (`+Inf` → Infinity); `null` when absent or not a number. */
function leOf(labels: Readonly<Record<string, string>>): number | null {
  const le = labels['le'];
  if (le === undefined) return null;
  if (le === '+Inf' || le === 'Inf' || le === '+inf') return Infinity;
  const v = Number(le);
  return Number.isFinite(v) ? v : null;
}

/**
 * Sum one scrape's samples to the analysis keys.
 * @param source the scrape's name (file path or `-`)
 * @param time epoch ms of the scrape, or `null`
 * @param samples the samples of {@link WANTED} families
 */
export function collect(source: string, time: number | null, samples: readonly Sample[]): ScrapeData {
  const d: ScrapeData = {
    source,
    time,
    processStart: null,
    kubernetesVersion: null,
    requests: new Map(),
    versions: new Map(),
    durations: new Map(),
    rejected: new Map(),
    inQueue: new Map(),
    waits: new Map(),
    inflight: new Map(),
    hasRequests: false,
  };
  let processStart: number | null = null;
  let kubernetesVersion: string | null = null;
  let hasRequests = false;
  for (const s of samples) {
    const l = s.labels;
    const res = (): string => `${l['group'] ?? ''}\0${l['resource'] ?? ''}\0${l['subresource'] ?? ''}`;
    const verb = (l['verb'] ?? '').toUpperCase();
    const plfs = (): string => `${l['priority_level'] ?? l['priorityLevel'] ?? ''}\0${l['flow_schema'] ?? l['flowSchema'] ?? ''}`;
    switch (s.name) {
      case 'apiserver_request_total':
      case 'apiserver_request_count': {
        hasRequests = true;
        const r = res();
        add(d.requests, `${r}\0${verb}\x01${l['code'] ?? ''}`, s.value);
        const v = l['version'];
        if (v !== undefined && v !== '') {
          let m = d.versions.get(r);
          if (m === undefined) d.versions.set(r, (m = new Map<string, number>()));
          add(m, v, s.value);
        }
        break;
      }
      case 'apiserver_request_duration_seconds_bucket': {
        const le = leOf(l);
        if (le !== null) add(d.durations, `${res()}\0${verb}\x01${le}`, s.value);
        break;
      }
      case 'apiserver_flowcontrol_rejected_requests_total':
        add(d.rejected, `${plfs()}\x01${l['reason'] ?? ''}`, s.value);
        break;
      case 'apiserver_flowcontrol_current_inqueue_requests':
        add(d.inQueue, plfs(), s.value);
        break;
      case 'apiserver_flowcontrol_request_wait_duration_seconds_bucket': {
        const le = leOf(l);
        if (le !== null) add(d.waits, `${plfs()}\x01${le}`, s.value);
        break;
      }
      case 'apiserver_current_inflight_requests':
        add(d.inflight, l['request_kind'] ?? l['requestKind'] ?? '', s.value);
        break;
      case 'process_start_time_seconds':
        if (Number.isFinite(s.value)) processStart = Math.round(s.value * 1000);
        break;
      case 'kubernetes_build_info':
        kubernetesVersion = l['git_version'] ?? l['gitVersion'] ?? kubernetesVersion;
        break;
      default:
        break;
    }
  }
  return { ...d, processStart, kubernetesVersion, hasRequests };
}

/**
 * Increase of every counter from the first scrape to the last, summed over consecutive pairs: a
 * value below the one before it (or any value after a new process) is a reset, and counts whole.
 * With one scrape, the values themselves (totals since the process started).
 * @param maps the counter's values in each scrape, in time order
 * @param newProcess `newProcess[i]`: scrape i is of another process than scrape i − 1
 * @returns total increase per key, and the increase of each consecutive pair
 */
export function increases(maps: readonly ReadonlyMap<string, number>[], newProcess: readonly boolean[]): { total: Map<string, number>; pairs: Map<string, number>[] } {
  const total = new Map<string, number>();
  const pairs: Map<string, number>[] = [];
  if (maps.length === 1) {
    for (const [k, v] of maps[0]!) total.set(k, v);
    return { total, pairs };
  }
  for (let i = 1; i < maps.length; i++) {
    const prev = maps[i - 1]!;
    const pair = new Map<string, number>();
    for (const [k, v] of maps[i]!) {
      const before = prev.get(k) ?? 0;
      const inc = newProcess[i] === true || v < before ? v : v - before;
      pair.set(k, inc);
      add(total, k, inc);
    }
    pairs.push(pair);
  }
  return { total, pairs };
}

/** Whether requests of this verb and subresource are long-running (kept out of latency). */
export function isLongRunning(verb: string, subresource: string): boolean {
  return LONG_RUNNING_VERBS.has(verb) || LONG_RUNNING_SUBRESOURCES.has(subresource);
}
