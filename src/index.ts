/**
 * Programmatic API: `analyze(options, io)` reads audit logs and returns the `Report` model
 * (`src/analyze.ts`); `watch` and `serve` run the live modes. No argv, no exit codes, no writing:
 * that is the CLI's job (`src/cli`).
 */
export { analyze, formatZodIssues, resolveOptions, resolveTimeBound, type AnalyzeIO, type Progress } from './analyze.js';
export type { AnalyzeOptions, AnalyzeOptionsInput } from './options.js';
export type { Report, Finding, Severity } from './report/schema.js';
export { ReportSchema, SCHEMA_VERSION } from './report/schema.js';
export { UsageError, ConfigError, InputError, AuditstormError } from './errors.js';
export { DETECTORS } from './detectors/registry.js';
export { watch, type WatchIO, type WatchRun, type WatchSettings } from './live/watch.js';
export { serve, type LiveServer, type ServeIO, type ServeSettings } from './live/serve.js';
export { LiveSession, LIVE_REORDER_WINDOW_MS, type LiveStatus } from './live/session.js';
export { formatAlertJson, formatAlertText, type LiveAlert } from './live/alerts.js';
export { buildReport, compareFindings, createEngine } from './build-report.js';
export type { ReportParts, SourceCounts } from './build-report.js';
export { diffReports, diffFails, DEFAULT_TOLERANCE, type DiffInput, type DiffOptions } from './diff/diff.js';
export { DiffReportSchema, DIFF_SCHEMA_VERSION, diffJsonSchema, type DiffReport, type DiffFinding, type Verdict } from './diff/schema.js';
export { renderDiff } from './diff/render.js';
