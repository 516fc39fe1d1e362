/**
 * The report model: one versioned shape for every renderer (text, JSON, Markdown) and for
 * programs reading `--format json`. The zod schema is the contract; the TypeScript types are
 * inferred from it. Times are UTC ISO 8601 strings with millisecond precision; rates are per
 * second; durations are milliseconds.
 */
import { z } from 'zod';

/** Bump when a field is removed or changes meaning; adding optional fields keeps the version. */
export const SCHEMA_VERSION = 1;

export const SeveritySchema = z.enum(['info', 'low', 'medium', 'high', 'critical']);
/** Finding severity, lowest to highest. */
export type Severity = z.infer<typeof SeveritySchema>;
/** Severities in ascending order; index gives rank. */
export const SEVERITIES: readonly Severity[] = SeveritySchema.options;

/** Rank of a severity: `info` 0 … `critical` 4. */
export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

export const ServiceAccountSchema = z.object({ namespace: z.string(), name: z.string() });

export const ActorSchema = z.object({
  username: z.string(),
  userAgent: z.string(),
  userAgentProduct: z.string(),
  controller: z.string(),
  serviceAccount: ServiceAccountSchema.nullable(),
  /** Distinct `sourceIPs[0]` values seen for this actor in the finding (capped, sorted). */
  sourceIPs: z.array(z.string()),
  /** Distinct `fieldManager` query values seen (sorted). */
  fieldManagers: z.array(z.string()),
});
export type ReportActor = z.infer<typeof ActorSchema>;

export const ObjectSchema = z.object({
  apiGroup: z.string(),
  apiVersion: z.string(),
  resource: z.string(),
  namespace: z.string(),
  name: z.string(),
  subresource: z.string(),
});
export type ReportObject = z.infer<typeof ObjectSchema>;

export const WindowSchema = z.object({ from: z.string(), to: z.string() });

export const AdviceSchema = z.object({ id: z.string(), text: z.string() });
export type Advice = z.infer<typeof AdviceSchema>;

export const EvidenceSchema = z.object({
  /** First, a few samples, last: auditIDs to grep for. Unique, in time order. */
  auditIDs: z.array(z.string()),
  firstAuditID: z.string(),
  lastAuditID: z.string(),
  /** Audit `level` the evidence was logged at (`Metadata`, `Request`, `RequestResponse`). */
  auditLevel: z.string(),
  /**
   * `proven`: the audit events show it (409s, equal resourceVersions, bodies that differ only in
   * timestamps); `suspected`: inferred from timing alone (e.g. Metadata-level logs without bodies).
   */
  level: z.enum(['proven', 'suspected']),
});

export const MetricValue = z.union([z.number(), z.string(), z.boolean(), z.null()]);

/** Fixed retry-gap histogram bucket: gaps ≤ `upToMs` (and above the previous bound); `null` = above the last bound. */
export const GapBucketSchema = z.object({ upToMs: z.number().nullable(), count: z.number().int() });

/**
 * A finding's own traffic over its window: its actor's writes and 409 Conflicts on its object per
 * bucket (`t` = bucket start, epoch ms; buckets of `bucketMs`, at most a few hundred), and for
 * conflict storms the distribution of retry gaps. Optional: detectors that keep no series omit it.
 */
export const FindingSeriesSchema = z.object({
  bucketMs: z.number().int().positive(),
  points: z.array(z.object({ t: z.number(), writes: z.number().int(), conflicts: z.number().int() })),
  retryGaps: z.array(GapBucketSchema).optional(),
  /**
   * What the chart shows when it is not "this actor's writes and 409 Conflicts on this object":
   * the heading and the legend names of `writes` and `conflicts` (e.g. `requests/s`, `429/s`).
   * Absent: writes and 409s (conflict-storm, hot-loop, older reports).
   */
  labels: z.object({ title: z.string(), writes: z.string(), conflicts: z.string() }).optional(),
});
export type FindingSeries = z.infer<typeof FindingSeriesSchema>;

/**
 * What an object showed in a `kubectl get -o json` capture given with `analyze --objects FILE`,
 * for a finding about that object: its `metadata.generation`, `status.observedGeneration` (a
 * string when the controller wrote one), its readiness condition (`type`, `status`, `reason`) and
 * one sentence reading them against the storm. No other spec or status value is copied.
 */
export const ObjectStatusSchema = z.object({
  /** The `--objects` file the object came from. */
  source: z.string(),
  kind: z.string(),
  generation: z.number().nullable(),
  observedGeneration: z.union([z.number(), z.string()]).nullable(),
  /** Condition type read as readiness (`Ready`, else `Healthy`, `Available`…; see the objects options), or null. */
  readyType: z.string().nullable(),
  /** That condition's `status` (`True`, `False`, `Unknown`), or null. */
  ready: z.string().nullable(),
  reason: z.string().nullable(),
  /** One sentence: what the object shows, e.g. that the controller had nothing to do. */
  text: z.string(),
});

/**
 * One finding folded into a grouped finding (`src/report/group.ts`): its id, kind, severity,
 * first actor's username, object (null for an actor-level one), window, and its size (`count`:
 * its writes, else conflicts, else events, else 429s, the measure the group ranks members by).
 */
export const GroupMemberSchema = z.object({
  id: z.string(),
  kind: z.string(),
  severity: SeveritySchema,
  title: z.string(),
  username: z.string(),
  object: ObjectSchema.nullable(),
  window: WindowSchema,
  count: z.number(),
  /** The member's evidence auditIDs (its `evidence.auditIDs`). */
  auditIDs: z.array(z.string()),
});
export type GroupMember = z.infer<typeof GroupMemberSchema>;

export const FindingSchema = z.object({
  /** Stable id: kind + actor + object + start; unique within a report. */
  id: z.string(),
  kind: z.string(),
  severity: SeveritySchema,
  /** One line: what was seen. */
  title: z.string(),
  actors: z.array(ActorSchema),
  object: ObjectSchema.nullable(),
  window: WindowSchema,
  /** Numbers (rates per second, durations in ms, ratios 0..1); keys documented per detector. */
  metrics: z.record(z.string(), MetricValue),
  /** Named signals supporting the verdict, e.g. `no-backoff`, `duplicate-replicas`. */
  signals: z.array(z.string()),
  evidence: EvidenceSchema,
  advice: z.array(AdviceSchema),
  /** Bucketed traffic of the finding (every built-in detector); absent in older reports. */
  series: FindingSeriesSchema.optional(),
  /**
   * Live reports only (`auditstorm serve` `GET /report`): `true` for an episode that is still
   * open, its numbers as of its last alert (open or worsen). Absent for finished episodes.
   */
  ongoing: z.boolean().optional(),
  /**
   * URL of the kind's documentation page (`docs/detectors/<kind>.md` in the package's repository):
   * what it means, what triggers it, its options. Built-in kinds only; absent in older reports.
   */
  docs: z.string().optional(),
  /**
   * Fleet reports only (`auditstorm report --nats` without `--cluster`): the name of the cluster
   * whose audit events the finding comes from, as given to `publish --cluster` / `serve --cluster`.
   */
  cluster: z.string().optional(),
  /**
   * Grouped findings only: every finding folded into this one (one actor's findings of one kind
   * on many objects, a family's members, a fleet storm's members' conflict storms, a one-client
   * fleet storm or per-object conflict storms folded into a conflict-storm roll-up, one side's
   * own findings on a fought-over object folded into the write fight), largest first. Absent
   * otherwise.
   */
  members: z.array(GroupMemberSchema).optional(),
  /** `analyze --objects FILE`: what the finding's object showed in that capture. Absent otherwise. */
  objectStatus: ObjectStatusSchema.optional(),
});
export type Finding = z.infer<typeof FindingSchema>;

export const BadLineSampleSchema = z.object({
  source: z.string(),
  line: z.number().int(),
  reason: z.string(),
});
export type BadLineSample = z.infer<typeof BadLineSampleSchema>;

export const SourceSummarySchema = z.object({
  name: z.string(),
  /** `file`, `gzip` or `stdin`. */
  kind: z.string(),
  /**
   * What was read (detected per file, or `--input-format`): `jsonl`, `eventlist`, `json-array`,
   * `json-docs`, `json-wrapper`, `yaml`, `legacy`, `base64`, or the cloud wrapper most events came
   * out of (`gke`, `eks`, `aks`, `viaq`, `otlp`). One entry per file, rotated files included.
   * `skipped`: the file was not an audit log and was left out (see `sourceErrors`; `badLines` 0).
   */
  format: z.string(),
  /** Size on disk (compressed for gzip); for stdin, the bytes read. */
  bytes: z.number(),
  lines: z.number().int(),
  events: z.number().int(),
  requests: z.number().int(),
  badLines: z.number().int(),
  /** Events cut short by CloudWatch (`[Truncated...]`): not bad lines, not read. */
  truncated: z.number().int(),
});
export type SourceSummary = z.infer<typeof SourceSummarySchema>;

export const TimeRangeSchema = z.object({ from: z.string(), to: z.string() }).nullable();

export const InputSummarySchema = z.object({
  sources: z.array(SourceSummarySchema),
  /** Lines read (including bad and skipped ones). */
  lines: z.number().int(),
  /** Lines that decoded to an audit Event (any stage). */
  events: z.number().int(),
  /** Requests counted: final-stage events after de-duplication and filters. */
  requests: z.number().int(),
  badLines: z.number().int(),
  badLineSamples: z.array(BadLineSampleSchema),
  skipped: z.object({
    /** Events at `RequestReceived` / `ResponseStarted` (they add no request). */
    nonFinalStages: z.number().int(),
    /** Final events whose auditID was already counted. */
    duplicates: z.number().int(),
    /** Requests dropped by --since/--until/--namespace/--user/--resource/--verb. */
    filtered: z.number().int(),
    /** Lines longer than the maximum line length. */
    overlongLines: z.number().int(),
    /**
     * Lines of the API server's own log (klog text or JSON logging) among the events, as
     * `kubectl logs kube-apiserver-…` interleaves them: not audit events, not bad lines. Absent
     * when there are none, and in older reports.
     */
    logLines: z.number().int().optional(),
  }),
  /** Events cut short by CloudWatch (`[Truncated...]`): counted apart from bad lines. */
  truncated: z.number().int(),
  /**
   * Of `truncated`, the events read leniently from the part of the message before the cut (they
   * count in `events`; no bodies, and fields after the cut are missing). Absent in older reports.
   */
  truncatedRead: z.number().int().optional(),
  /**
   * Wrapper records that are not audit events by design, skipped (not bad): other AKS categories,
   * other GKE services, non-audit CloudWatch streams and control messages, non-Kubernetes OTLP
   * records. Absent in older reports.
   */
  skippedRecords: z.number().int().optional(),
  /**
   * Whether the native line scanner (`native/scan.cc`) read the JSON lines: false when it was
   * not built and every line was read in JavaScript (same results, slower). Absent in older reports.
   */
  nativeScanner: z.boolean().optional(),
  /** Sources skipped because they could not be read as audit logs (the rest was analyzed). */
  sourceErrors: z.array(z.object({ source: z.string(), message: z.string() })),
  /** Requests that arrived later than the reordering window allows (fed at the current time). */
  lateRequests: z.number().int(),
  /** Requests without objectRef (non-resource URLs): in totals only. */
  nonResourceRequests: z.number().int(),
  /** Traffic of legitimate periodic writers, per allowlist rule: counted, never a finding. */
  allowlisted: z.array(z.object({ name: z.string(), requests: z.number().int(), writes: z.number().int() })),
  timeRange: TimeRangeSchema,
});
export type InputSummary = z.infer<typeof InputSummarySchema>;

export const VerbResourceCodeSchema = z.object({
  verb: z.string(),
  /** `resource[.group][/subresource]` as kubectl names it, e.g. `deployments.apps/status`; `(non-resource)` for URLs without objectRef. */
  resource: z.string(),
  code: z.number().int(),
  count: z.number().int(),
});

export const TopActorSchema = z.object({
  username: z.string(),
  userAgent: z.string(),
  requests: z.number().int(),
  writes: z.number().int(),
  conflicts: z.number().int(),
  alreadyExists: z.number().int(),
  throttled: z.number().int(),
});

export const TopObjectSchema = z.object({
  object: ObjectSchema,
  writes: z.number().int(),
  conflicts: z.number().int(),
});

export const LatencySchema = z.object({
  verb: z.string(),
  resource: z.string(),
  count: z.number().int(),
  p50: z.number(),
  p90: z.number(),
  p99: z.number(),
  max: z.number(),
});

export const SummariesSchema = z.object({
  totals: z.object({
    requests: z.number().int(),
    writes: z.number().int(),
    conflicts: z.number().int(),
    alreadyExists: z.number().int(),
    throttled: z.number().int(),
  }),
  requestsByVerbResourceCode: z.array(VerbResourceCodeSchema),
  topActors: z.object({
    byRequests: z.array(TopActorSchema),
    byWrites: z.array(TopActorSchema),
    byConflicts: z.array(TopActorSchema),
    byThrottled: z.array(TopActorSchema),
  }),
  topObjects: z.object({
    byWrites: z.array(TopObjectSchema),
    byConflicts: z.array(TopObjectSchema),
  }),
  /** Latency in ms per verb × resource; long-running requests excluded. */
  latency: z.array(LatencySchema),
});
export type Summaries = z.infer<typeof SummariesSchema>;

/**
 * Cluster-wide totals per bucket over the input's time range, before request filters: `t` is the
 * bucket start (epoch ms), buckets are `bucketMs` wide (a multiple of `settings.seriesStepMs`,
 * widened so there are at most 720 points). Every bucket of a busy stretch is listed; long empty
 * stretches between them are left out, so two points more than `bucketMs` apart mark a gap.
 */
export const ClusterSeriesSchema = z.object({
  bucketMs: z.number().int().positive(),
  points: z.array(
    z.object({
      t: z.number(),
      requests: z.number().int(),
      writes: z.number().int(),
      conflicts: z.number().int(),
      throttled: z.number().int(),
    }),
  ),
});
export type ClusterSeries = z.infer<typeof ClusterSeriesSchema>;

/**
 * One row of `auditstorm objects`' table, as `kubectl get -o custom-columns=NAME,GEN,OBS_GEN,READY,REASON`
 * would show it. `observedGeneration` is `status.observedGeneration` (kept as the string a
 * controller wrote, if it wrote one), else the readiness condition's own `observedGeneration`
 * (`observedFrom` says which). `readyForMs`: time since the readiness condition's
 * `lastTransitionTime`, at the report's clock (`objects.now`).
 */
export const ObjectRowSchema = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  namespace: z.string(),
  name: z.string(),
  generation: z.number().nullable(),
  observedGeneration: z.union([z.number(), z.string()]).nullable(),
  observedFrom: z.enum(['status', 'condition']).nullable(),
  readyType: z.string().nullable(),
  ready: z.string().nullable(),
  reason: z.string().nullable(),
  readyForMs: z.number().nullable(),
});
export type ObjectRow = z.infer<typeof ObjectRowSchema>;

/** `auditstorm objects`: the clock the ages are measured at and one row per object read. */
export const ObjectsSectionSchema = z.object({
  /** The clock (UTC): `--now`, or the newest timestamp in the input. */
  now: z.string().nullable(),
  clock: z.enum(['flag', 'input', 'none']),
  rows: z.array(ObjectRowSchema),
});
export type ObjectsSection = z.infer<typeof ObjectsSectionSchema>;

/**
 * `auditstorm crd`: the status contract of one served version of a CustomResourceDefinition.
 * `conditions`: `list-map` (`x-kubernetes-list-type: map` keyed by `type`), `list` (a list
 * without those markers), `other` (not a list of objects), `none`. `observedGeneration`:
 * `integer` (minimum 0), `integer-no-minimum`, `per-condition` (only inside conditions),
 * `other` (not an integer), `none`.
 */
export const CrdVersionRowSchema = z.object({
  crd: z.string(),
  kind: z.string(),
  version: z.string(),
  storage: z.boolean(),
  hasStatus: z.boolean(),
  statusSubresource: z.boolean(),
  conditions: z.enum(['list-map', 'list', 'other', 'none']),
  observedGeneration: z.enum(['integer', 'integer-no-minimum', 'per-condition', 'other', 'none']),
  /** Lists of objects in spec and status without `x-kubernetes-list-type` (atomic for server-side apply). */
  atomicObjectLists: z.number().int(),
});
export type CrdVersionRow = z.infer<typeof CrdVersionRowSchema>;

/** `auditstorm crd`: one row per served version; documents that were not CRDs are counted. */
export const CrdSectionSchema = z.object({
  versions: z.array(CrdVersionRowSchema),
  /** Documents that are not a CustomResourceDefinition (skipped). */
  otherDocuments: z.number().int(),
});
export type CrdSection = z.infer<typeof CrdSectionSchema>;

/**
 * `auditstorm metrics`: what kube-apiserver scrapes (`kubectl get --raw /metrics`) show. Versioned
 * on its own (`version`); built by `src/metrics/report.ts`. Requests and latencies per
 * group/resource/subresource/verb, APF per priority level and flow schema, in-flight requests.
 * `basis` says what the numbers cover: `rates`, the increase between the first and the last of
 * several scrapes of one API server; `totals`, counts since the API server started (one scrape).
 * Latencies in ms, rates per second, shares 0..1; `null` where the scrape cannot tell.
 */
export const ApiserverMetricsSchema = z.object({
  version: z.literal(1),
  basis: z.enum(['rates', 'totals']),
  /** Where the times came from: scrape-time header lines, `--interval`, or none. */
  timesFrom: z.enum(['header', 'interval', 'none']),
  /** Seconds the numbers cover: first to last scrape; for one scrape its uptime when known. */
  spanSeconds: z.number().nullable(),
  scrapes: z.array(
    z.object({
      source: z.string(),
      /** Scrape time (UTC ISO), `null` without a header line. */
      time: z.string().nullable(),
      /** Seconds after the first scrape. */
      offsetSeconds: z.number().nullable(),
      /** `process_start_time_seconds` (UTC ISO), `null` when absent. */
      processStart: z.string().nullable(),
      kubernetesVersion: z.string().nullable(),
      /** Sample lines that parsed (all families); bad lines are counted in `badLines` only. */
      samples: z.number().int(),
      badLines: z.number().int(),
    }),
  ),
  totals: z.object({
    requests: z.number(),
    writes: z.number(),
    /** 409s on updates (PUT, PATCH, APPLY). */
    conflicts: z.number(),
    /** 409s on creates (POST): AlreadyExists. */
    alreadyExists: z.number(),
    throttled: z.number(),
    /** Requests to non-resource URLs (`/healthz`, `/metrics`, …). */
    nonResource: z.number(),
  }),
  resources: z.array(
    z.object({
      group: z.string(),
      resource: z.string(),
      subresource: z.string(),
      verb: z.string(),
      requests: z.number(),
      perSec: z.number().nullable(),
      /** Responses with code 409 (Conflict on updates, AlreadyExists on creates). */
      code409: z.number(),
      share409: z.number(),
      code429: z.number(),
      share429: z.number(),
      /** Observations in the duration histogram (long-running requests: 0, no percentiles). */
      latencyCount: z.number(),
      p50Ms: z.number().nullable(),
      p90Ms: z.number().nullable(),
      p99Ms: z.number().nullable(),
    }),
  ),
  priorityLevels: z.array(
    z.object({
      priorityLevel: z.string(),
      flowSchema: z.string(),
      rejected: z.number(),
      /** Rejections per `reason` label (`queue-full`, `concurrency-limit`, `time-out`, `cancelled`). */
      rejectedByReason: z.record(z.string(), z.number()),
      /** Requests waiting in queues at the last scrape, and the most at any scrape. */
      inQueue: z.number(),
      maxInQueue: z.number(),
      waitCount: z.number(),
      waitP99Ms: z.number().nullable(),
    }),
  ),
  /** `apiserver_current_inflight_requests` per `request_kind` (`mutating`, `readOnly`): last scrape and most at any scrape. */
  inflight: z.array(z.object({ kind: z.string(), current: z.number(), max: z.number() })),
  /** The audit policy rule that would let `auditstorm analyze` name the writers, per finding id (YAML). */
  auditPolicy: z.record(z.string(), z.string()),
  /** What the numbers cannot say (one replica, totals since start, missing series). */
  warnings: z.array(z.string()),
});
export type ApiserverMetrics = z.infer<typeof ApiserverMetricsSchema>;

export const ReportSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  tool: z.object({ name: z.literal('auditstorm'), version: z.string() }),
  /** Injected clock; stubbed in tests. */
  generatedAt: z.string(),
  input: InputSummarySchema,
  /** Effective detection settings (windows, thresholds) so a reader can judge the findings. */
  settings: z.record(z.string(), z.unknown()),
  /** Sorted: severity desc, window.from, kind, object key, actor. */
  findings: z.array(FindingSchema),
  /** Episodes that looked busy but were handled well (backoff, RetryOnConflict): not findings. */
  notes: z.array(FindingSchema),
  summaries: SummariesSchema,
  /** Cluster-wide time series (requests, writes, 409s, 429s per bucket). Absent in older reports. */
  series: ClusterSeriesSchema.optional(),
  /** `auditstorm objects`: the status table. Absent in audit-log reports. */
  objects: ObjectsSectionSchema.optional(),
  /** `auditstorm crd`: the status contract per served version. Absent in audit-log reports. */
  crd: CrdSectionSchema.optional(),
  /** `auditstorm metrics` reports only: the scrapes' numbers (see {@link ApiserverMetricsSchema}). */
  apiserverMetrics: ApiserverMetricsSchema.optional(),
});
export type Report = z.infer<typeof ReportSchema>;
