/**
 * Core options of an analysis run, validated by zod. The CLI (`src/cli/options.ts`) builds this
 * object from flags and the config file; programs call `analyze()` with it directly. Every
 * field has a default, so `AnalyzeOptionsSchema.parse({ inputs: ['audit.log'] })` is a full set.
 */
import { z } from 'zod';
import { SeveritySchema } from './report/schema.js';
import { AllowRuleSchema } from './engine/allowlist.js';
import { INPUT_FORMATS } from './decoding/formats/detect.js';

/** Per-detector options live under `detectors.<id>`; each detector's schema validates its own. */
/** Default reorder window of the live modes, `watch` and `serve` (ms; `analyze` keeps 5 s): see src/live/session.ts. */
export const LIVE_REORDER_WINDOW_MS = 1000;

export const AnalyzeOptionsSchema = z
  .object({
    /** Paths: files, directories, or `-` for stdin. Empty means stdin. */
    inputs: z.array(z.string()).default([]),
    /**
     * Keep requests at or after this time: RFC 3339 (`2026-08-08T18:00:00Z`) or a duration back
     * from the end of the log (`15m`, `2h`, `1h30m`, `90s`).
     */
    since: z.string().optional(),
    /** Keep requests at or before this time: RFC 3339, or a duration back from the end of the log. */
    until: z.string().optional(),
    /** Keep only these namespaces (objectRef.namespace). */
    namespaces: z.array(z.string()).default([]),
    /** Keep only these usernames; `*` is a wildcard (`system:serviceaccount:shop:*`). */
    users: z.array(z.string()).default([]),
    /** Keep only these resources: `resource`, `resource/subresource`, `resource.group`; `*` wildcards. */
    resources: z.array(z.string()).default([]),
    /** Keep only these verbs. */
    verbs: z.array(z.string()).default([]),
    /**
     * How each input is framed: `auto` (detected per file from its first bytes), or forced:
     * `jsonl` (one JSON value per line), `json` (whole JSON documents: EventList, arrays,
     * pretty-printed values), `yaml` (one value per YAML document), `legacy` (the legacy text format).
     */
    inputFormat: z.enum(INPUT_FORMATS).default('auto'),
    /**
     * Worker threads that cut and decode JSON-lines files of 64 MB and more (`src/ingest/parallel.ts`);
     * `0` reads everything on the main thread. Default: cores − 1, at least 1.
     */
    threads: z.number().int().nonnegative().max(64).optional(),
    /** Longest line (or JSON value) accepted, in characters (bytes for ASCII text); longer ones are counted and skipped. */
    maxLineLength: z
      .number()
      .int()
      .positive()
      .default(16 * 1024 * 1024),
    /** How far (ms) a request may arrive out of time order and still be placed correctly. */
    reorderWindowMs: z.number().int().nonnegative().default(5000),
    /** Bad-line samples kept for the report. */
    badLineSamples: z.number().int().nonnegative().default(10),
    /** If none of a source's first N lines is an audit event, the input is rejected (exit 2). */
    sniffLines: z.number().int().positive().default(1000),
    /** Rows in each top-N summary table. */
    top: z.number().int().positive().default(10),
    /**
     * Findings of one kind and one actor on this many objects or more (any severity) become one
     * finding listing the objects (`src/report/group.ts`), and this many conflict storms of a
     * fleet storm's members fold into it; 0 keeps them apart.
     */
    groupFindings: z.number().int().nonnegative().default(5),
    /** Step of the cluster-wide time series (ms). */
    seriesStepMs: z.number().int().positive().default(10_000),
    /** Per-detector options keyed by detector id (`conflict-storm`, …). */
    detectors: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
    /**
     * Extra allowlist rules: matching requests count in totals but are never fed to detectors.
     * Added to the built-in rules (node leases, leader election, kubelet node status, events)
     * unless `defaultAllowlist` is false.
     */
    allowlist: z.array(AllowRuleSchema).default([]),
    /** Use the built-in allowlist (`DEFAULT_ALLOWLIST` in `src/engine/allowlist.ts`). */
    defaultAllowlist: z.boolean().default(true),
    /** Findings at or above this severity make the CLI exit 1. */
    failOn: SeveritySchema.optional(),
  })
  .strict();

/** Options as accepted (defaults optional). */
export type AnalyzeOptionsInput = z.input<typeof AnalyzeOptionsSchema>;
/** Options after defaults. */
export type AnalyzeOptions = z.output<typeof AnalyzeOptionsSchema>;
