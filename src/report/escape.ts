/**
 * Escaping for user-controlled strings (usernames, userAgents, object names, reasons …), which
 * come straight from audit logs and may hold anything: terminal escape sequences, Markdown,
 * HTML. Every renderer passes such strings through one of these functions before output.
 */

/**
 * C0 controls (incl. ESC, BEL, CR, LF, TAB), DEL, C1 controls (incl. the 8-bit CSI `\u009b`),
 * the Unicode line/paragraph separators, and the bidi marks, overrides and isolates (Trojan
 * Source style reordering).
 */
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SPACE_LIKE = new Set(['\t', '\n', '\r', '\u2028', '\u2029']);

/**
 * Make a string safe to print on one terminal line: tabs and line breaks (CR, LF, U+2028/9)
 * become a space, every other control character (ESC, BEL, C1 CSI, bidi overrides, …) is
 * removed, so an `ESC [ 2 J` in a userAgent prints as the harmless text `[2J`.
 * @param s any string
 * @returns `s` without control characters; printable characters are kept unchanged
 */
export function stripControlChars(s: string): string {
  return s.replace(CONTROL_RE, (c) => (SPACE_LIKE.has(c) ? ' ' : ''));
}

/**
 * Escape a string for one cell of a GFM table, so it renders as the literal text on one line
 * and can't split the row, open emphasis, links, images, code, math or raw HTML:
 *
 * - control characters are stripped and line breaks become spaces ({@link stripControlChars});
 * - `\`, `` ` ``, `*`, `_`, `[`, `]`, `|`, `~`, `#`, `$` are backslash-escaped;
 * - `&`, `<`, `>` become entities (no raw HTML, no `<autolink>`);
 * - bare-URL autolinks (`http://`, `www.`) are broken up with an escaped `:` / `.`.
 *
 * Cells hold inline content only, so block starters (`-`, `1.`) need no escaping here.
 * @param s raw user-controlled text
 * @returns cell source; never contains an unescaped `|` or a line break
 */
export function escapeMarkdownCell(s: string): string {
  return stripControlChars(s)
    .replace(/[\\`*_[\]|~#$]/g, '\\$&')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/:\/\//g, '\\://')
    .replace(/\b(www)\./gi, '$1\\.');
}

/**
 * Escape a string for inline GitHub-flavoured Markdown anywhere on a line (paragraph, list item,
 * heading, table cell): the rules of {@link escapeMarkdownCell}, plus block starters at the
 * start (`-`, `+`, `=`, `1.`, `1)`, leading spaces) are neutralised, so the text can't turn a
 * list item into a nested list, a rule or an indented code block.
 * @param s raw user-controlled text
 * @returns Markdown source that renders as `s` (minus control characters) on one line
 */
export function escapeMarkdownInline(s: string): string {
  return escapeMarkdownCell(s)
    .replace(/^ +/, (m) => '&#32;'.repeat(m.length))
    .replace(/^[-+=]/, '\\$&')
    .replace(/^(\d+)([.)])/, '$1\\$2');
}

/**
 * Wrap a string in a Markdown code span whose backtick fence is longer than any backtick run in
 * the content, padding with a space where CommonMark would otherwise eat or merge characters.
 * Line breaks become spaces and control characters are stripped. Inside a code span nothing is
 * interpreted (no HTML, links, mentions), so this suits identifiers such as auditIDs. Not for
 * table cells: a `|` inside would still split the row; use {@link escapeMarkdownCell} there.
 * @param s raw text
 * @returns e.g. `` `abc` ``, ``` `` a`b `` ```; `''` for an empty string (a code span can't be empty)
 */
export function markdownCodeSpan(s: string): string {
  const text = stripControlChars(s);
  if (text === '') return '';
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || (text.startsWith(' ') && text.endsWith(' ') && text.trim() !== '');
  return pad ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escape text for HTML element content or a quoted attribute value.
 * @param s raw text
 * @returns `s` with `&`, `<`, `>`, `"`, `'` replaced by entities; nothing else changed
 */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

/** DEL, C1 controls and the bidi and line-separator marks that `JSON.stringify` leaves raw. */
const JSON_RAW_RE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text with every character of {@link JSON_RAW_RE} written as a `\uXXXX` escape: the same
 * value once parsed, but a terminal showing the raw text (`--format json`, an embedded report)
 * meets no C1 control (0x9b is CSI) and no bidi override. `JSON.stringify` already escapes C0.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(JSON_RAW_RE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
