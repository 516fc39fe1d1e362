/**
 * Markdown test helpers: how a GFM table parser sees a row (cmark-gfm `scan_table_cell`:
 * a backslash escapes the next character, any other `|` delimits a cell).
 */

/** Number of `|` in a line that are cell delimiters (not backslash-escaped). */
export function unescapedPipes(line: string): number {
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '|') n++;
  }
  return n;
}

/** The GFM tables of a document: runs of consecutive lines starting with `|`. */
export function tables(md: string): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  for (const line of md.split('\n')) {
    if (line.startsWith('|')) cur.push(line);
    else if (cur.length > 0) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length > 0) out.push(cur);
  return out;
}
