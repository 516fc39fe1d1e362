/**
 * Reading Kubernetes objects for `auditstorm objects` and `auditstorm crd`: the output of
 * `kubectl get … -o json` or `-o yaml` (a `List` with `items`, one object, a JSON array) or a
 * multi-document YAML manifest (`---`). Pure over the text it is given; the CLI reads the file.
 */
import { gunzipSync } from 'node:zlib';
import { isMap, LineCounter, parseAllDocuments } from 'yaml';
import { InputError } from '../errors.js';

/**
 * One object of the input and where it came from: `line` is the 1-based line its document (JSON:
 * the whole text; YAML: its `---` document) starts on, `pointer` the JSON pointer of the object
 * inside that document (`''` for the document itself, `/items/3` for a List's fourth item).
 */
export interface InputObject {
  value: unknown;
  line: number;
  pointer: string;
}

/** What {@link readObjects} found: the objects, and how the text was framed. */
export interface ReadObjects {
  objects: InputObject[];
  /** `json` or `yaml`. */
  format: 'json' | 'yaml';
  /** Lines of the text (as `wc -l`, plus one for a last line without a newline). */
  lines: number;
}

function countLines(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

/** 1-based line and column of character offset `pos` in `text`. */
export function lineColumn(text: string, pos: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: pos - start + 1 };
}

/**
 * The text of a file or stdin: gunzipped when it starts with gzip's magic bytes (1f 8b), whatever
 * its name, as `metrics` reads scrapes, so `kubectl get … -o yaml | gzip` archives read as they are.
 * @param raw the bytes read
 * @param source the path or `-`, for messages
 * @returns the UTF-8 text
 * @throws InputError naming `source` when the gzip stream is broken or cut short
 */
export function decodeInput(raw: Buffer, source: string): string {
  if (raw.length < 2 || raw[0] !== 0x1f || raw[1] !== 0x8b) return raw.toString('utf8');
  try {
    return gunzipSync(raw).toString('utf8');
  } catch (e) {
    throw new InputError(`${source}: not a readable gzip file: ${(e as Error).message}`);
  }
}

/** Where {@link jsonErrorOffset} stopped. */
class JsonStop extends Error {
  constructor(readonly at: number) {
    super(`JSON stops at ${at}`);
  }
}

/**
 * Offset of the first character at which `text` stops being JSON (RFC 8259), for V8 messages that
 * give no position ("Unexpected token 'x', …"); the text's trimmed length when the input ends early.
 * Only called after JSON.parse failed, so it need not build values.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const fail = (): never => {
    throw new JsonStop(i);
  };
  const str = (): void => {
    i++; // opening quote
    while (i < n && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (i >= n || !'"\\/bfnrt'.includes(text[i]!)) fail();
      }
      i++;
    }
    if (i >= n) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (c === '{') {
          ws();
          if (text[i] !== '"') fail();
          str();
          ws();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === close) {
          i++;
          return;
        } else fail();
      }
    }
    if (c === '"') return str();
    const lit = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (lit === null) fail();
    i += lit![0].length;
  };
  try {
    value();
    ws();
    if (i < n) fail();
  } catch (e) {
    if (!(e instanceof JsonStop)) throw e;
    return Math.min(e.at, text.trimEnd().length);
  }
  return text.trimEnd().length;
}

/** A `kind: …List` with an `items` array, an object, or something else. */
function expand(value: unknown, line: number, base: string, out: InputObject[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => out.push({ value: v, line, pointer: `${base}/${i}` }));
    return;
  }
  const o = value as { kind?: unknown; items?: unknown } | null;
  if (o !== null && typeof o === 'object' && typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items)) {
    o.items.forEach((v, i) => out.push({ value: v, line, pointer: `${base}/items/${i}` }));
    return;
  }
  if (value === null || value === undefined) return; // an empty YAML document (a trailing `---`)
  out.push({ value, line, pointer: base });
}

/**
 * Parse the text of `source` into objects.
 *
 * @param text the whole input (UTF-8 decoded)
 * @param source the path or `-`, for messages
 * @returns every object, in input order (List items expanded)
 * @throws InputError when the text is empty, or is neither JSON nor YAML (naming the line and column)
 */
export function readObjects(text: string, source: string): ReadObjects {
  const body = text.replace(/^\uFEFF/, '');
  const lines = countLines(body);
  const first = /\S/.exec(body);
  if (first === null) throw new InputError(`${source}: empty input: expected the output of kubectl get -o json or -o yaml`);
  const objects: InputObject[] = [];
  // JSON documents separated by `---` are YAML (JSON is YAML's flow style).
  if ((first[0] === '{' || first[0] === '[') && !/^---\s*$/m.test(body)) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      const m = /position (\d+)/.exec(msg);
      const at = lineColumn(body, m ? Number(m[1]) : jsonErrorOffset(body));
      throw new InputError(
        `${source}:${at.line}:${at.column}: not valid JSON: ${msg.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '')}`,
        'give the output of kubectl get -o json (one JSON document) or -o yaml',
      );
    }
    expand(value, lineColumn(body, first.index).line, '', objects);
    return { objects, format: 'json', lines };
  }
  const counter = new LineCounter();
  const docs = parseAllDocuments(body, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    const err = doc.errors[0];
    if (err !== undefined) {
      const pos = counter.linePos(err.pos[0]);
      throw new InputError(`${source}:${pos.line}:${pos.col}: not valid YAML: ${err.message.split('\n')[0]}`, 'give the output of kubectl get -o yaml or -o json');
    }
    const start = doc.contents?.range[0] ?? doc.range[0];
    const line = counter.linePos(start).line;
    if (doc.contents !== null && !isMap(doc.contents) && !Array.isArray(doc.toJS())) {
      const v = doc.toJS() as unknown;
      if (v === null) continue;
      throw new InputError(
        `${source}:${line}: expected a Kubernetes object (a YAML mapping), got ${typeof v === 'string' ? 'text' : typeof v}`,
        'give the output of kubectl get -o yaml or -o json',
      );
    }
    expand(doc.toJS({ maxAliasCount: 1000 }), line, '', objects);
  }
  return { objects, format: 'yaml', lines };
}

/** A plain object (not null, not an array), or `undefined`. */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** `file:line (pointer)` for messages about one object. */
export function where(source: string, o: Pick<InputObject, 'line' | 'pointer'>, sub = ''): string {
  const p = `${o.pointer}${sub}`;
  return `${source}:${o.line}${p === '' ? '' : ` ${p}`}`;
}
