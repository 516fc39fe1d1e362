/**
 * Telling a source's framing from its first bytes (decompressed); `src/ingest/peek.ts` reads
 * them without consuming the stream.
 *
 * Rules, in order, on the first non-blank lines of the first {@link PEEK_BYTES} bytes:
 *
 * 1. `legacy`: one of the first 20 non-blank lines is `<time> AUDIT: id=…` (reference §2).
 * 2. `base64`: the first line is base64 only and starts `H4sI` (gzip) or `eyJ`/`W3s` (`{"`/`[{`):
 *    a CloudWatch subscription payload (§6.3).
 * 3. First line starts with `{` or `[`:
 *    - `jsonl` when it is one complete JSON value (a newline follows it, or the input ends), or
 *      when it is cut by CloudWatch (`[Truncated...]`), or when the next line is complete JSON;
 *    - `json` otherwise: a document spanning lines (pretty-printed, or longer than the peek).
 * 4. `jsonl` when the line is `prefix {…}` (`hostname {…}`, `2026-…Z {…}`).
 * 5. `yaml`: the first line that is not a `#` comment is `---`, `key:` or `- ` (a sequence).
 * 6. `jsonl` for anything else: plain text, HTML and binary fall to the JSON-lines reader, which
 *    rejects them with a description (`sniff.ts`).
 */
import { CLOUDWATCH_TRUNCATED } from '../decode.js';
import { isLegacyLine } from '../legacy.js';
import { stripPrefix } from '../prefix.js';

/** How a source's bytes are cut into values. */
export type Framing = 'jsonl' | 'json' | 'yaml' | 'legacy' | 'base64';

/** `--input-format`: `auto` detects per source member. */
export const INPUT_FORMATS = ['auto', 'jsonl', 'json', 'yaml', 'legacy'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** Bytes looked at to detect a framing. */
export const PEEK_BYTES = 64 * 1024;
/** Non-blank lines looked at for the legacy mark. */
const PEEK_LINES = 20;

const YAML_START = /^(---(\s|$)|- |-$|[A-Za-z_@"'][^\s:]*:(\s|$))/;
const BASE64_START = /^(H4sI|eyJ|W3s)[A-Za-z0-9+/]*={0,2}$/;

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The framing of a source whose first bytes are `head` (UTF-8, BOM allowed); `atEnd` when `head`
 * is the whole input. See the module comment for the rules.
 */
export function detectFraming(head: string, atEnd: boolean): Framing {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  const all = text.split('\n');
  // The last piece is incomplete unless the input ended there.
  const complete = atEnd ? all.length : all.length - 1;
  const lines: { text: string; complete: boolean }[] = [];
  for (let i = 0; i < all.length && lines.length < PEEK_LINES; i++) {
    const raw = all[i]!;
    const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (l.trim() === '') continue;
    lines.push({ text: l, complete: i < complete });
  }
  const first = lines[0];
  if (first === undefined) return 'jsonl';
  if (lines.some((l) => isLegacyLine(l.text))) return 'legacy';
  const t = first.text.trim();
  if (BASE64_START.test(t) && t.length >= 8) return 'base64';
  if (t.startsWith('{') || t.startsWith('[')) {
    if (first.complete && parses(t)) return 'jsonl';
    if (first.text.endsWith(CLOUDWATCH_TRUNCATED)) return 'jsonl';
    const second = lines[1];
    if (first.complete && second !== undefined && second.complete && parses(stripPrefix(second.text.trim()))) {
      return 'jsonl'; // a bad first line in a JSON-lines file
    }
    return 'json';
  }
  const stripped = stripPrefix(first.text);
  if (stripped !== first.text && stripped.startsWith('{')) return 'jsonl';
  const yamlFirst = lines.find((l) => !l.text.startsWith('#'));
  if (yamlFirst !== undefined && YAML_START.test(yamlFirst.text)) return 'yaml';
  return 'jsonl';
}
