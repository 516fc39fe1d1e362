/**
 * The report formats and the mapping from an output file's extension to its format: what the CLI
 * needs before any report exists, apart from the renderers (`index.ts`), which it loads only to
 * render (the HTML renderer is slow to load).
 */

/** Output formats. */
export type Format = 'text' | 'json' | 'markdown' | 'html';

/** All formats, in the order `--help` lists them. */
export const FORMATS: readonly Format[] = ['text', 'json', 'markdown', 'html'];

/** True when `s` names a format (`text`, `json`, `markdown`, `html`). */
export function isFormat(s: string): s is Format {
  return (FORMATS as readonly string[]).includes(s);
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
