/**
 * Renderer registry: one entry point for the CLI to turn a {@link Report} into text, JSON,
 * Markdown or HTML, and the mapping from an output file's extension to its format.
 */
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderText, type TextOptions } from './text.js';
import type { Report } from './schema.js';
import { isStatusReport, renderStatusHtml, renderStatusMarkdown, renderStatusText } from './status.js';
import type { Format } from './formats.js';

export { renderHtml } from './html.js';
export { renderJson } from './json.js';
export { renderMarkdown } from './markdown.js';
export { renderText, type TextOptions } from './text.js';
export { FORMATS, formatFromPath, isFormat, type Format } from './formats.js';

/** Options for {@link renderReport}; only the text format reads them. */
export type RenderOptions = Partial<TextOptions>;

/**
 * Render a report in a format. Pure: no I/O, the report is not modified.
 * @param report a valid report
 * @param format output format
 * @param opts text only: `color` (ANSI colours, default `false`), `width` (columns, default 100),
 *   `fit` (cut to the width as on a terminal; default `false`: identities are never cut)
 * @returns the rendered document, ending with a newline
 */
export function renderReport(report: Report, format: Format, opts: RenderOptions = {}): string {
  // `auditstorm objects` / `auditstorm crd` reports carry no audit traffic: their own layout.
  if (isStatusReport(report) && format !== 'json') {
    return format === 'text' ? renderStatusText(report) : format === 'markdown' ? renderStatusMarkdown(report) : renderStatusHtml(report);
  }
  switch (format) {
    case 'text':
      return renderText(report, { color: opts.color ?? false, fit: opts.fit ?? false, ...(opts.width === undefined ? {} : { width: opts.width }) });
    case 'json':
      return renderJson(report);
    case 'markdown':
      return renderMarkdown(report);
    case 'html':
      return renderHtml(report);
    default: {
      const never: never = format;
      throw new TypeError(`unknown report format: ${String(never)}`);
    }
  }
}
