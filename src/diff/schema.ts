/**
 * The diff model: what `auditstorm diff BEFORE AFTER` computes from two reports, for every
 * renderer (text, JSON, Markdown, HTML) and for programs reading `diff --format json`. The zod
 * schema is the contract (`diffSchemaVersion`); {@link diffJsonSchema} exports it as JSON Schema.
 * Rates are per second unless the name says `PerHour`; durations are milliseconds; times are
 * UTC ISO 8601 strings; shares are 0..1.
 */
import { z } from 'zod';
import { ClusterSeriesSchema, FindingSchema, SeveritySchema } from '../report/schema.js';

/** Bump when a field is removed or changes meaning. */
export const DIFF_SCHEMA_VERSION = 1;

export const VerdictSchema = z.enum(['fixed', 'new', 'better', 'same', 'worse']);
/** How a finding changed from BEFORE to AFTER. */
export type Verdict = z.infer<typeof VerdictSchema>;
/** Verdicts in display order (what needs attention first). */
export const VERDICTS: readonly Verdict[] = ['worse', 'new', 'same', 'better', 'fixed'];

/** One compared figure of a finding: its value in each run (`null`: not in that run). */
export const MeasureSchema = z.object({
  /** Machine name, e.g. `conflictsPerSec`, `excessRequestsPerHour`, `shareOfWrites`. */
  key: z.string(),
  /** Display label, e.g. `409/s`, `excess requests`. */
  label: z.string(),
  /** `perSec`, `perHour` or `share`: how to print the value. */
  unit: z.enum(['perSec', 'perHour', 'share']),
  before: z.number().nullable(),
  after: z.number().nullable(),
  /** Whether this measure decides the verdict (shares and peaks are shown, not judged). */
  judged: z.boolean(),
});
export type Measure = z.infer<typeof MeasureSchema>;

/** The side of one run in a compared finding: the findings of that run with the same key. */
export const SideSchema = z.object({
  /** Highest severity among the matched findings. */
  severity: SeveritySchema,
  /** The matched findings themselves, as in that run's report. */
  findings: z.array(FindingSchema),
});

export const DiffFindingSchema = z.object({
  /** The match key: kind, actor and object (or what the finding covers), joined with ` · `. */
  key: z.string(),
  kind: z.string(),
  /** Actor named in the key: service account `ns/name`, else username, else userAgent product. */
  actor: z.string(),
  /** Object or coverage named in the key, e.g. `featureflags.platform.example.com/status checkout/checkout-flags`. */
  subject: z.string(),
  verdict: VerdictSchema,
  /** Severity used for `--fail-on`: AFTER's for new/better/same/worse, BEFORE's for fixed. */
  severity: SeveritySchema,
  /** One line with the numbers, e.g. `409/s 31 → 0.3, excess requests 41,000/h → 120/h`. */
  text: z.string(),
  measures: z.array(MeasureSchema),
  before: SideSchema.nullable(),
  after: SideSchema.nullable(),
  /** What about this pair cannot be compared (e.g. proven in one run, suspected in the other). */
  limits: z.array(z.string()),
});
export type DiffFinding = z.infer<typeof DiffFindingSchema>;

/** A cluster-wide figure in both runs (`null`: not measurable in that run). */
export const ClusterFigureSchema = z.object({
  key: z.string(),
  label: z.string(),
  unit: z.enum(['perSec', 'share', 'ms']),
  before: z.number().nullable(),
  after: z.number().nullable(),
});
export type ClusterFigure = z.infer<typeof ClusterFigureSchema>;

/** What a run is, in short: where it came from and what it covers. */
export const RunSchema = z.object({
  /** The path as given on the command line. */
  name: z.string(),
  /** `report` (a JSON report read back) or `log` (audit logs analyzed for this diff). */
  from: z.enum(['report', 'log']),
  timeRange: z.object({ from: z.string(), to: z.string() }).nullable(),
  /** Length of the time range, ms (0 without requests). */
  durationMs: z.number(),
  requests: z.number().int(),
  findings: z.number().int(),
  /** Audit levels the run's finding evidence was logged at, sorted. */
  auditLevels: z.array(z.string()),
  /** The run's cluster series (absent in older reports): drawn on one relative time axis. */
  series: ClusterSeriesSchema.optional(),
});
export type DiffRun = z.infer<typeof RunSchema>;

export const DiffReportSchema = z.object({
  diffSchemaVersion: z.literal(DIFF_SCHEMA_VERSION),
  tool: z.object({ name: z.literal('auditstorm'), version: z.string() }),
  generatedAt: z.string(),
  /** Relative change (0..1) within which a rate counts as `same`. */
  tolerance: z.number(),
  before: RunSchema,
  after: RunSchema,
  /** Counts per verdict. */
  counts: z.object({ fixed: z.number().int(), new: z.number().int(), better: z.number().int(), same: z.number().int(), worse: z.number().int() }),
  /** Sorted: worse, new, same, better, fixed; then severity desc, key. */
  findings: z.array(DiffFindingSchema),
  cluster: z.array(ClusterFigureSchema),
  /** What the two runs differ in that limits the comparison (durations, filters, thresholds, input problems). */
  limits: z.array(z.string()),
});
export type DiffReport = z.infer<typeof DiffReportSchema>;

/** The diff report's JSON Schema (draft 2020-12), from {@link DiffReportSchema}. */
export function diffJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(DiffReportSchema);
}
