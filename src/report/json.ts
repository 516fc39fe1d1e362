/**
 * JSON renderer: the report model itself, the machine-readable contract (`--format json`).
 */
import { escapeJsonControls } from './escape.js';
import { ReportSchema, type Report } from './schema.js';

/**
 * Render a report as pretty-printed JSON after validating it against {@link ReportSchema}.
 * The validated value is serialised, so keys appear in schema order and nothing outside the
 * contract leaks into the output.
 * @param report the report (not modified)
 * @returns `JSON.stringify(report, null, 2)` plus a trailing newline, DEL, C1 controls and bidi
 *   marks written as `\uXXXX` escapes ({@link escapeJsonControls})
 * @throws ZodError when the report does not match the schema (a bug in the producer)
 */
export function renderJson(report: Report): string {
  return `${escapeJsonControls(JSON.stringify(ReportSchema.parse(report), null, 2))}\n`;
}
