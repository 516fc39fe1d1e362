/**
 * Renderer registry: one entry point for the CLI to turn a {@link Report} into text, JSON,
 * Markdown or HTML, and the mapping from an output file's extension to its format.
 */
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderText, type TextOptions } from './text.js';
import type { Report } from './schema.js';

export { renderHtml } from './html.js';
export { renderJson } from './json.js';
export { renderMarkdown } from './markdown.js';
export { renderText, DEFAULT_TEXT_WIDTH, type TextOptions } from './text.js';

/** Output formats. */
export type Format = 'text' | 'json' | 'markdown' | 'html';

/** All formats, in the order `--help` lists them. */
export const FORMATS: readonly Format[] = ['text', 'json', 'markdown', 'html'];

/** Options for {@link renderReport}; only the text format reads them. */
export type RenderOptions = Partial<TextOptions>;

/** True when `s` names a format (`text`, `json`, `markdown`, `html`). */
export function isFormat(s: string): s is Format {
  return (FORMATS as readonly string[]).includes(s);
}

/**
 * Render a report in a format. Pure: no I/O, the report is not modified.
 * @param report a valid report
 * @param format output format
 * @param opts text only: `color` (ANSI colours, default `false`), `width` (columns, default 100)
 * @returns the rendered document, ending with a newline
 */
export function renderReport(report: Report, format: Format, opts: RenderOptions = {}): string {
  switch (format) {
    case 'text':
      return renderText(report, { color: opts.color ?? false, ...(opts.width === undefined ? {} : { width: opts.width }) });
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

const EXTENSIONS: Readonly<Record<string, Format | undefined>> = {
  json: 'json',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  log: 'text',
  html: 'html',
  htm: 'html',
};

/**
 * The format an output path asks for, by its extension (case-insensitive): `.json` → json,
 * `.md`/`.markdown` → markdown, `.txt`/`.log` → text, `.html`/`.htm` → html.
 * @param path a file path (POSIX or Windows separators)
 * @returns the format, or `undefined` for other or no extensions
 */
export function formatFromPath(path: string): Format | undefined {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const ext = base.slice(dot + 1).toLowerCase();
  return Object.hasOwn(EXTENSIONS, ext) ? EXTENSIONS[ext] : undefined;
}
