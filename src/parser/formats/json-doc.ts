/**
 * Streaming whole JSON documents in bounded memory with `stream-json`'s tokenizer.
 *
 * One document, or several one after another (pretty-printed events, `aws logs` outputs…):
 *
 * - a top-level array (`gcloud logging read --format=json`, `jq -s`): each element is assembled
 *   and handed on alone;
 * - an object with an array under `items` (webhook `EventList`), `records` (AKS), `events`
 *   (`aws logs filter-log-events`), `logEvents` (CloudWatch subscription) or
 *   `resourceLogs[].scopeLogs[].logRecords` (OTLP): each element of that array alone, with the
 *   object's fields read before it (`kind`, `messageType`) as context;
 * - any other value (a pretty-printed event, GKE entry, ViaQ record): assembled whole.
 *
 * Only one element (or one document that is not a container) is in memory at a time, and an
 * element longer than `maxValueChars` is skipped and counted, so a 2 GB `EventList` streams in
 * the memory of its largest event. Text is fed line by line, so each element carries the 1-based
 * line where it starts. String values are copied out of the tokenizer's buffer (see `fresh`): a
 * kept slice would pin its whole input chunk, and memory would grow with the file.
 *
 * Syntax errors (reported once each, as one bad item):
 *
 * - inside an element of a streamed array (EventList `items`, a top-level array, `records`,
 *   `events`, `logEvents`, OTLP `logRecords`): that element is skipped, found by counting brackets
 *   outside strings from the start of the line holding the error, and reading goes on with the
 *   next element (`…; this element is skipped`, at the element's first line);
 * - anywhere else in a document (a pretty-printed event, the wrapper's own fields): the rest of
 *   that document is skipped the same way and reading goes on with the next document
 *   (`…; the rest of this document is skipped`);
 * - if the brackets never balance, everything to the end of the input is skipped and a second bad
 *   item says so;
 * - a line longer than 64 KiB (a one-line document) is tokenized in pieces that end just past a
 *   comma outside strings where one exists, so each piece starts from a known state. The tokens of
 *   a piece that fails are lost, so a piece that starts with no value open (at the top level, or
 *   between elements or fields) is read again comma by comma: the elements before the broken one
 *   count, and the error is handled as above at the comma it follows. Anywhere else in such a line
 *   (no comma to cut at, or an element open at the piece's start) the rest of that document is
 *   skipped and reading resumes at the next line that starts with `{` or `[`; a line holding several
 *   elements may then lose the ones before the broken one.
 */
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { eventsOfElement, eventsOfValue, type Container, type ValueResult } from './values.js';
import { fresh } from '../fresh.js';

const NONE = Symbol.for('object-stream.none');
const MANY = Symbol.for('object-stream.many');

type Role =
  | 'root-array'
  | 'root-object'
  | 'elements'
  | 'resourceLogs'
  | 'resourceLog'
  | 'scopeLogs'
  | 'scopeLog';

interface Frame {
  role: Role;
  container: Container | null;
  key: string | null;
  /** Values started in this container so far (the current one's index + 1). */
  count: number;
}

const STREAMED_KEYS: ReadonlySet<string> = new Set(['items', 'records', 'events', 'logEvents']);

/** The framing a document reader saw, for the source's `format`. */
export type DocFormat = 'eventlist' | 'json-array' | 'json-docs' | 'json-wrapper';

type Target =
  | { kind: 'element'; container: Container; line: number; at: readonly number[] }
  | { kind: 'head'; key: string }
  | { kind: 'root'; line: number }
  | { kind: 'skip' };


/** Assembles one JSON value from packed tokens (or just tracks depth when discarding). */
class Builder {
  private readonly stack: Array<Record<string, unknown> | unknown[]> = [];
  private readonly keys: Array<string | null> = [];
  private key: string | null = null;
  value: unknown = undefined;
  done = false;
  discard: boolean;
  chars = 0;
  private depth = 0;

  constructor(
    readonly target: Target,
    discard: boolean,
  ) {
    this.discard = discard;
  }

  private add(v: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.value = v;
      this.done = true;
    } else if (Array.isArray(top)) top.push(v);
    else top[this.key as string] = v;
  }

  private open(c: Record<string, unknown> | unknown[]): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) this.value = c;
    else if (Array.isArray(top)) top.push(c);
    else top[this.key as string] = c;
    this.keys.push(this.key);
    this.stack.push(c);
  }

  consume(t: Token): void {
    if (this.discard) {
      switch (t.name) {
        case 'startObject':
        case 'startArray':
          this.depth++;
          return;
        case 'endObject':
        case 'endArray':
          if (--this.depth === 0) this.done = true;
          return;
        case 'keyValue':
          return;
        default:
          if (this.depth === 0) this.done = true;
          return;
      }
    }
    switch (t.name) {
      case 'startObject':
        this.depth++;
        this.open({});
        return;
      case 'startArray':
        this.depth++;
        this.open([]);
        return;
      case 'endObject':
      case 'endArray':
        this.depth--;
        this.stack.pop();
        this.key = this.keys.pop() ?? null;
        if (this.stack.length === 0) this.done = true;
        return;
      case 'keyValue':
        this.key = t.value;
        return;
      case 'stringValue':
        this.add(fresh(t.value));
        return;
      case 'numberValue':
        this.add(Number(t.value));
        return;
      case 'nullValue':
        this.add(null);
        return;
      case 'trueValue':
        this.add(true);
        return;
      case 'falseValue':
        this.add(false);
        return;
      default:
        return;
    }
  }

  /** Containers opened and not yet closed in this value. */
  get openDepth(): number {
    return this.depth;
  }

  /** Switches to discarding (the value grew too long); depth tracking continues. */
  drop(): void {
    if (this.discard) return;
    this.discard = true;
    this.value = undefined;
    this.stack.length = 0;
    this.keys.length = 0;
  }
}

/** Longest partial line held back for its newline; longer lines (one-line documents) are tokenized in pieces. */
const MAX_PENDING = 64 * 1024;

/**
 * Index of the quote closing the string opened at `open` (the first one not escaped by an odd run
 * of backslashes); -1 when the text ends first.
 */
function stringEnd(text: string, open: number): number {
  let j = open;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j === -1) return -1;
    let k = j - 1;
    while (text.charCodeAt(k) === 92) k--; // '\\'
    if ((j - 1 - k) % 2 === 0) return j;
  }
}

/**
 * Where a piece of a long line may end: the index just past the last `,` outside strings in the
 * second half of `text` (which must start outside a string), the shallowest one if they differ, so
 * pieces tend to end between elements and a piece leaves at most half behind; -1 when there is none.
 */
function commaCut(text: string): number {
  const half = text.length >> 1;
  let depth = 0;
  let best = -1;
  let bestDepth = Infinity;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i);
      if (i === -1) return best;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
    else if (c === 44 && i >= half && depth <= bestDepth) {
      best = i + 1;
      bestDepth = depth;
    }
  }
  return best;
}

/** Indexes just past each `,` outside strings in `text` (which must start outside a string). */
function commaEnds(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i);
      if (i === -1) return out;
    } else if (c === 44) out.push(i + 1);
  }
  return out;
}

function newParser(): ReturnType<typeof jsonParser> {
  return jsonParser({ packValues: true, streamValues: false, jsonStreaming: true });
}

/**
 * Skips text after a syntax error by counting brackets outside strings. `element`: to the end of
 * the element open at the error (depth > 0), or of the next one to start (depth 0: whitespace and
 * commas before it are skipped), then past the comma after it; if something other than an element
 * comes first, it goes on as `document`. `document`: to where the open containers close.
 */
class Skip {
  private inString = false;
  private escape = false;
  private after = false;

  constructor(
    public mode: 'element' | 'document',
    private depth: number,
    /** Line reported. */
    readonly line: number,
  ) {}

  /** Index in `text` where reading resumes, or -1 when the skipped value goes on past it. */
  scan(text: string): number {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === 92) this.escape = true; // '\\'
        else if (c === 34) this.inString = false; // '"'
        continue;
      }
      if (c === 32 || c === 9 || c === 10 || c === 13) continue;
      if (this.after) return c === 44 ? i + 1 : i; // ',' is skipped with the element
      if (this.mode === 'element' && this.depth === 0) {
        if (c === 44) continue;
        if (c !== 123 && c !== 91) {
          // Not an element (a stray value, or the container's end): give up on this document.
          this.mode = 'document';
          this.depth = this.outer;
        }
      }
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) this.depth++;
      else if (c === 125 || c === 93) {
        this.depth--;
        if (this.depth <= 0) {
          if (this.mode === 'document') return i + 1;
          this.after = true;
        }
      }
    }
    return -1;
  }

  /** Containers around the element (set by the reader for `element` mode). */
  outer = 0;
}

/** Called once per element or document with the line it starts on. */
export type OnItem = (line: number, result: ValueResult) => void;

function isValueStart(name: Token['name']): boolean {
  return name !== 'keyValue' && name !== 'endObject' && name !== 'endArray';
}

/** Streams JSON documents; see the module comment. Feed text, then call {@link end}. */
export class JsonDocReader {
  private parser = newParser();
  private readonly stack: Frame[] = [];
  private builder: Builder | null = null;
  private head: Record<string, unknown> = {};
  private headChars = 0;
  private streamed = false;
  private rootLine = 1;
  private resync = false;
  /** A partial line waiting for its newline (see {@link feed}). */
  private pending = '';
  private pendingAtLineStart = true;
  /** {@link pending} starts just past a comma where a long line was cut. */
  private pendingAfterComma = false;
  /** The piece being tokenized starts just past such a comma. */
  private afterComma = false;
  /** A failed piece is being read again (see {@link replay}). */
  private replaying = false;
  /** The value being skipped after a syntax error, if any. */
  private skip: Skip | null = null;
  /**
   * Characters tokenized since the last `"` on the current line: no token (string, number) the
   * tokenizer holds is longer, so past `maxValueChars` the value is dropped before it fills memory.
   */
  private sinceQuote = 0;
  /** Current 1-based line. */
  line: number;
  /** Documents (top-level values) seen, by how they were read. */
  readonly formats: Record<DocFormat, number> = { eventlist: 0, 'json-array': 0, 'json-docs': 0, 'json-wrapper': 0 };

  /**
   * @param maxValueChars longest element or document kept (characters); longer ones are skipped
   *   and reported
   * @param onItem receives each element's or document's events, bad items and truncated count
   * @param firstLine line number of the first character fed
   */
  constructor(
    private readonly maxValueChars: number,
    private readonly onItem: OnItem,
    firstLine = 1,
  ) {
    this.line = firstLine;
  }

  /** Feeds the next piece of text (any size; cut into whole lines here). */
  feed(text: string): void {
    let from = 0;
    while (from < text.length) {
      const nl = text.indexOf('\n', from);
      if (nl === -1) {
        // A partial line waits for its end, so the tokenizer is always handed whole lines and a
        // syntax error can be recovered from a known state; a line longer than MAX_PENDING (a
        // one-line document) is handed on in pieces.
        this.pending += from === 0 ? text : text.slice(from);
        if (this.pending.length > MAX_PENDING) {
          const p = this.pending;
          // Cut just past a comma, so the next piece starts where the tokenizer holds no partial lexeme.
          const cut = this.pendingAtLineStart ? commaCut(p) : -1;
          if (cut !== -1) {
            this.pending = p.slice(cut);
            this.piece(p.slice(0, cut), true, this.pendingAfterComma);
            this.pendingAfterComma = true;
          } else {
            this.pending = '';
            this.piece(p, this.pendingAtLineStart, this.pendingAfterComma);
            this.pendingAtLineStart = false;
            this.pendingAfterComma = false;
          }
        }
        return;
      }
      const part = from === 0 && nl === text.length - 1 ? text : text.slice(from, nl + 1);
      const whole = this.pending === '' ? part : this.pending + part;
      this.pending = '';
      this.piece(whole, this.pendingAtLineStart, this.pendingAfterComma);
      this.pendingAtLineStart = true;
      this.pendingAfterComma = false;
      this.line++;
      from = nl + 1;
    }
  }

  /** Ends the input: flushes the tokenizer and reports a document cut short. */
  end(): void {
    if (this.pending !== '') {
      const p = this.pending;
      this.pending = '';
      this.piece(p, this.pendingAtLineStart, this.pendingAfterComma);
    }
    if (this.skip !== null) {
      this.onItem(this.skip.line, {
        shape: '',
        events: [],
        bad: ['JSON input ends inside the value skipped after a syntax error: the rest of the document was skipped'],
        truncated: 0,
      });
      this.skip = null;
      this.stack.length = 0;
      this.builder = null;
      return;
    }
    let cut = false;
    if (!this.resync) {
      try {
        this.run(NONE, false, true);
      } catch {
        cut = true; // the tokenizer wanted more input
      }
    }
    if (cut || this.stack.length > 0 || this.builder !== null) {
      this.onItem(this.builder?.target.kind === 'element' ? this.builder.target.line : this.rootLine, {
        shape: '',
        events: [],
        bad: ['JSON document ends early (cut short?)'],
        truncated: 0,
      });
      this.stack.length = 0;
      this.builder = null;
    }
  }

  /**
   * Tokenizes one piece. `known`: the piece starts where the tokenizer holds no partial lexeme
   * (a line start, just past a comma where a long line was cut, or just after a recovery), so
   * after a syntax error the open containers are exactly {@link stack} plus the builder's, and the
   * skip can start at the piece's first character. `afterComma`: the piece starts just past a
   * comma where a long line was cut.
   */
  private piece(text: string, known: boolean, afterComma = false): void {
    if (this.skip !== null) {
      const at = this.skip.scan(text);
      if (at === -1) return;
      this.resume(text.slice(at));
      return;
    }
    if (this.resync) {
      const c = text.charCodeAt(0);
      if (!known || afterComma || (c !== 123 && c !== 91)) return; // '{' '[' at a line start
      this.resync = false;
    }
    const quote = text.lastIndexOf('"');
    this.sinceQuote = quote !== -1 ? text.length - quote - 1 : (known ? 0 : this.sinceQuote) + text.length;
    if (this.sinceQuote > this.maxValueChars) {
      this.tooLong();
      return;
    }
    this.afterComma = afterComma;
    if (!this.run(text, known)) return;
    const b = this.builder;
    if (b !== null) {
      b.chars += text.length;
      if (b.chars > this.maxValueChars) b.drop();
    } else if (this.stack.length === 1 && this.stack[0]!.role === 'root-object' && !this.streamed) {
      this.headChars += text.length;
    }
  }

  /** Runs the tokenizer; false after a syntax error (handled: the piece is consumed by recovery). */
  private run(input: string | symbol, known = false, rethrow = false): boolean {
    let out: unknown;
    try {
      out = (this.parser as unknown as (x: string | symbol) => unknown)(input);
    } catch (err) {
      if (rethrow) throw err;
      this.failSyntax(err, typeof input === 'string' ? input : '', known);
      return false;
    }
    if (out === NONE || out === undefined) return true;
    const o = out as { [MANY]?: number; values?: Token[] } & Token;
    if (o[MANY] === 1) {
      const tokens = o.values!;
      for (let i = 0; i < tokens.length; i++) this.token(tokens[i]!);
    } else this.token(o);
    return true;
  }

  /**
   * A syntax error in `text`. With a known start state: an error inside an element of a streamed
   * array (EventList `items`, a top-level array, `records`, …) skips that element (brackets and
   * strings counted from the piece's start) and reading goes on with the next element; an error
   * anywhere else skips the rest of that document. Without one (inside a line longer than
   * MAX_PENDING), the rest of the document is skipped up to the next line starting with `{` or `[`.
   */
  private failSyntax(err: unknown, text: string, known: boolean): void {
    const b = this.builder;
    if (known && !this.replaying && b === null && (this.stack.length === 0 || this.afterComma)) {
      this.replay(text);
      return;
    }
    const msg = (err instanceof Error ? err.message : String(err)).replace(/^Parser cannot parse input: /, '');
    const top = this.stack[this.stack.length - 1];
    const inElements = top !== undefined && (top.role === 'elements' || top.role === 'root-array');
    this.parser = newParser();
    if (known && (b === null || b.target.kind === 'element') && inElements) {
      // Skip the element open at the piece's start (or the next one starting in it).
      const line = b?.target.kind === 'element' ? b.target.line : this.line;
      this.report(line, `not JSON (${msg}); this element is skipped`);
      this.builder = null;
      this.skip = new Skip('element', b === null ? 0 : b.openDepth, line);
      this.skip.outer = this.stack.length;
    } else if (known && !this.replaying && this.stack.length + (b?.openDepth ?? 0) > 0) {
      this.report(this.line, `not JSON (${msg}); the rest of this document is skipped`);
      this.skip = new Skip('document', this.stack.length + (b?.openDepth ?? 0), this.line);
      this.builder = null;
    } else {
      this.report(this.line, `not JSON (${msg}); the rest of this document is skipped`);
      this.stack.length = 0;
      this.builder = null;
      this.head = {};
      this.resync = true;
      return;
    }
    const at = this.skip.scan(text);
    if (at !== -1) this.resume(text.slice(at));
  }

  /**
   * A token (a string or number) grew past `maxValueChars`: the value holding it is reported and
   * skipped up to the next line starting with `{` or `[`, as after a syntax error inside a long
   * line (the tokenizer would hold the whole token, so it is not fed the rest).
   */
  private tooLong(): void {
    const b = this.builder;
    const line = b?.target.kind === 'element' ? b.target.line : this.stack.length > 0 ? this.rootLine : this.line;
    this.report(line, `JSON value longer than ${this.maxValueChars} characters (--max-line-length): skipped to the next line starting with { or [`);
    this.parser = newParser();
    this.stack.length = 0;
    this.builder = null;
    this.head = {};
    this.sinceQuote = 0;
    this.resync = true;
  }

  /**
   * Reads a failed piece again from the state it started in (no value open: the top level, or just
   * past a comma), one comma at a time: the elements before the broken one count, and the error is
   * handled at the comma it follows, whose state is known. An error outside a streamed element
   * skips the rest of the document, as it would have without the replay.
   */
  private replay(text: string): void {
    this.parser = newParser();
    if (this.stack.length > 0) {
      // A fresh tokenizer is put back just past a comma inside the open containers.
      let prefix = '';
      for (let i = 0; i < this.stack.length; i++) {
        const role = this.stack[i]!.role;
        const object = role === 'root-object' || role === 'resourceLog' || role === 'scopeLog';
        const last = i === this.stack.length - 1;
        prefix += object ? (last ? '{"":0,' : '{"":') : last ? '[0,' : '[';
      }
      (this.parser as unknown as (x: string) => unknown)(prefix);
    }
    this.replaying = true;
    try {
      let from = 0;
      for (const to of commaEnds(text)) {
        this.piece(text.slice(from, to), true);
        from = to;
        if (this.resync) return;
      }
      if (from < text.length) this.piece(text.slice(from), true);
    } finally {
      this.replaying = false;
    }
  }

  private report(line: number, reason: string): void {
    this.onItem(line, { shape: '', events: [], bad: [reason], truncated: 0 });
  }

  /** The skip ended: go on with `rest` from the state the skip leaves (next element, or top level). */
  private resume(rest: string): void {
    const skip = this.skip!;
    this.skip = null;
    if (skip.mode === 'document') {
      this.stack.length = 0;
      this.head = {};
    } else {
      // A fresh tokenizer is put back inside the open containers: `{"items":[`, `[`, OTLP's nesting.
      let prefix = '';
      for (const f of this.stack) {
        prefix += f.role === 'root-object' || f.role === 'resourceLog' || f.role === 'scopeLog' ? `{${JSON.stringify(f.key ?? '')}:` : '[';
      }
      (this.parser as unknown as (x: string) => unknown)(prefix);
    }
    if (rest !== '') this.piece(rest, true);
  }

  private startBuilder(target: Target, t: Token, discard = false): void {
    const b = new Builder(target, discard);
    this.builder = b;
    b.consume(t);
    if (b.done) this.finish(b);
  }

  private finish(b: Builder): void {
    this.builder = null;
    const target = b.target;
    const tooLong = b.discard && target.kind !== 'skip';
    switch (target.kind) {
      case 'element':
        this.onItem(
          target.line,
          tooLong
            ? { shape: '', events: [], bad: [`JSON element longer than ${this.maxValueChars} characters: skipped`], truncated: 0 }
            : eventsOfElement(target.container, b.value, this.head, target.at),
        );
        return;
      case 'head':
        if (!tooLong) this.head[target.key] = b.value;
        else this.headChars = Infinity;
        return;
      case 'root':
        this.formats['json-docs']++;
        this.onItem(target.line, eventsOfValue(b.value));
        return;
      case 'skip':
        return;
    }
  }

  private token(t: Token): void {
    const b = this.builder;
    if (b !== null) {
      b.consume(t);
      if (b.done) this.finish(b);
      return;
    }
    const top = this.stack[this.stack.length - 1];
    if (t.name === 'keyValue') {
      if (top !== undefined) top.key = t.value;
      return;
    }
    if (t.name === 'endObject' || t.name === 'endArray') {
      this.stack.pop();
      if (top !== undefined && this.stack.length === 0) this.endRoot(top);
      return;
    }
    if (!isValueStart(t.name)) return;
    const isArray = t.name === 'startArray';
    const isObject = t.name === 'startObject';
    if (top === undefined) {
      this.rootLine = this.line;
      if (isArray) {
        this.stack.push({ role: 'root-array', container: null, key: null, count: 0 });
        this.head = {};
      }
      else if (isObject) {
        this.stack.push({ role: 'root-object', container: null, key: null, count: 0 });
        this.head = {};
        this.headChars = 0;
        this.streamed = false;
      } else this.startBuilder({ kind: 'root', line: this.line }, t);
      return;
    }
    const key = top.key;
    top.count++;
    switch (top.role) {
      case 'root-array':
        this.startBuilder({ kind: 'element', container: 'array', line: this.line, at: [top.count - 1] }, t);
        return;
      case 'elements':
        this.startBuilder({ kind: 'element', container: top.container!, line: this.line, at: this.indexPath(top) }, t);
        return;
      case 'root-object':
        if (isArray && key !== null && STREAMED_KEYS.has(key)) {
          this.streamed = true;
          this.stack.push({ role: 'elements', container: key as Container, key: null, count: 0 });
        } else if (isArray && key === 'resourceLogs') {
          this.streamed = true;
          this.stack.push({ role: 'resourceLogs', container: null, key: null, count: 0 });
        } else {
          this.startBuilder({ kind: 'head', key: key ?? '' }, t, this.headChars > this.maxValueChars);
        }
        return;
      case 'resourceLogs':
        if (isObject) this.stack.push({ role: 'resourceLog', container: null, key: null, count: 0 });
        else this.startBuilder({ kind: 'skip' }, t, true);
        return;
      case 'resourceLog':
        if (isArray && key === 'scopeLogs') this.stack.push({ role: 'scopeLogs', container: null, key: null, count: 0 });
        else this.startBuilder({ kind: 'skip' }, t, true);
        return;
      case 'scopeLogs':
        if (isObject) this.stack.push({ role: 'scopeLog', container: null, key: null, count: 0 });
        else this.startBuilder({ kind: 'skip' }, t, true);
        return;
      case 'scopeLog':
        if (isArray && key === 'logRecords') this.stack.push({ role: 'elements', container: 'logRecords', key: null, count: 0 });
        else this.startBuilder({ kind: 'skip' }, t, true);
        return;
    }
  }

  /** Index path of the element starting in `top`: OTLP [resourceLogs, scopeLogs, logRecords], else [index]. */
  private indexPath(top: Frame): number[] {
    if (top.container !== 'logRecords') return [top.count - 1];
    const at: number[] = [];
    for (const f of this.stack) if (f.role === 'resourceLogs' || f.role === 'scopeLogs') at.push(f.count - 1);
    at.push(top.count - 1);
    return at;
  }

  private endRoot(frame: Frame): void {
    if (frame.role === 'root-array') {
      this.formats['json-array']++;
      return;
    }
    if (this.streamed) {
      this.formats[this.head.kind === 'EventList' ? 'eventlist' : 'json-wrapper']++;
      return;
    }
    this.formats['json-docs']++;
    if (this.headChars > this.maxValueChars) {
      this.onItem(this.rootLine, {
        shape: '',
        events: [],
        bad: [`JSON document longer than ${this.maxValueChars} characters: skipped`],
        truncated: 0,
      });
    } else this.onItem(this.rootLine, eventsOfValue(this.head));
    this.head = {};
  }
}
