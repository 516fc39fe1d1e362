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
 * Syntax errors (reported once each, as one bad item). What is read never depends on how the text
 * arrives: the tokenizer gets whole lines, and a line longer than 64 KiB (a one-line document) in
 * pieces cut from fixed 64 KiB windows of it, just past a comma followed by `{"key":` (which no
 * string can hold, so the cut is sound even where quotes no longer pair up), else past a comma
 * outside strings. A piece that fails is read again one comma at a time from the state it started
 * in (the open containers and what came last), so what precedes the error counts; then:
 *
 * - inside an element of a streamed array (EventList `items`, a top-level array, `records`,
 *   `events`, `logEvents`, OTLP `logRecords`): that element is skipped (`…; this element is
 *   skipped`, at the element's first line) and reading resumes at the first of: the next `,{"k":`
 *   where `k` is the first key of the array's elements; the element's end found by counting
 *   brackets outside strings, when the closers match and another element or the array's end
 *   follows; the document's closers (`]}`) at the end of a line. So a stray quote or a missing
 *   brace costs one element, not the rest of the document (the JSON grammar cannot say where the
 *   broken element ends; the next element start is the one sound landmark);
 * - anywhere else in a document (a pretty-printed event, the wrapper's own fields): the rest of
 *   that document is skipped by counting brackets and reading goes on with the next document
 *   (`…; the rest of this document is skipped`); if the brackets never balance, everything to the
 *   end of the input is skipped and a second bad item says so;
 * - a string or number longer than `maxValueChars` is never held whole: in a streamed element the
 *   element is reported at its first line and skipped as above; elsewhere reading resumes at the
 *   next line starting with `{` or `[`.
 */
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { eventsOfElement, eventsOfValue, type Container, type ValueResult } from './values.js';
import { fresh } from '../fresh.js';

const NONE = Symbol.for('object-stream.none');
const MANY = Symbol.for('object-stream.many');

type Role = 'root-array' | 'root-object' | 'elements' | 'resourceLogs' | 'resourceLog' | 'scopeLogs' | 'scopeLog';

interface Frame {
  role: Role;
  container: Container | null;
  key: string | null;
  /** Values started in this container so far (the current one's index + 1). */
  count: number;
  /** First key of the last element read whole (streamed arrays): how the next element starts. */
  firstKey?: string | null;
}

const STREAMED_KEYS: ReadonlySet<string> = new Set(['items', 'records', 'events', 'logEvents']);

/** The framing a document reader saw, for the source's `format`. */
export type DocFormat = 'eventlist' | 'json-array' | 'json-docs' | 'json-wrapper';

type Target = { kind: 'element'; container: Container; line: number; at: readonly number[] } | { kind: 'head'; key: string } | { kind: 'root'; line: number } | { kind: 'skip' };

/** Assembles one JSON value from packed tokens (or just tracks depth when discarding). */
class Builder {
  private readonly stack: Array<Record<string, unknown> | unknown[]> = [];
  private readonly keys: Array<string | null> = [];
  private key: string | null = null;
  value: unknown = undefined;
  done = false;
  discard: boolean;
  chars = 0;
  /** The value's first key (an element's `kind`). */
  firstKey: string | null = null;
  private depth = 0;
  /** Openers (true: `{`) of the open containers while discarding; null when dropped without them. */
  private openers: boolean[] | null = [];

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
          this.openers?.push(t.name === 'startObject');
          return;
        case 'endObject':
        case 'endArray':
          this.openers?.pop();
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
        if (this.firstKey === null && this.depth === 1) this.firstKey = t.value;
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

  /** Appends the openers (true: `{`) of the containers open in this value to `out`; false when not known. */
  kinds(out: boolean[]): boolean {
    if (!this.discard) {
      for (const c of this.stack) out.push(!Array.isArray(c));
      return true;
    }
    if (this.openers === null || this.openers.length !== this.depth) return false;
    for (const o of this.openers) out.push(o);
    return true;
  }

  /** Switches to discarding (the value grew too long); depth tracking continues. */
  drop(): void {
    if (this.discard) return;
    this.openers = this.stack.map((c) => !Array.isArray(c));
    this.discard = true;
    this.value = undefined;
    this.stack.length = 0;
    this.keys.length = 0;
  }
}

/** Longest partial line held back for its newline; longer lines (one-line documents) are tokenized in pieces. */
const MAX_PENDING = 64 * 1024;

/** Longest text kept while checking whether a `{` after a comma starts the next element (see {@link Seek}). */
const MAX_CANDIDATE = 4096;

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

/**
 * Where a piece of a long line may end, found without tracking strings: just past the last `,` in
 * the second half of `text` that is followed by `{"key":` (blanks allowed around `{` and `:`). A
 * quote is never unescaped inside a string, so that comma is outside one even in a line whose
 * quotes no longer pair up (a stray quote): the cut stays sound there, where {@link commaCut} is
 * not. -1 when there is none.
 */
function elementCut(text: string): number {
  const half = text.length >> 1;
  let j = text.lastIndexOf('{"');
  while (j >= half) {
    let k = j - 1;
    while (k >= 0 && isSpace(text.charCodeAt(k))) k--;
    if (k >= half && text.charCodeAt(k) === 44) {
      let q = j + 2;
      while (q < text.length) {
        const c = text.charCodeAt(q);
        if (c === 34 || c === 92) break;
        q++;
      }
      if (text.charCodeAt(q) === 34) {
        q++;
        while (q < text.length && isSpace(text.charCodeAt(q))) q++;
        if (text.charCodeAt(q) === 58) return k + 1; // ':'
      }
    }
    j = text.lastIndexOf('{"', j - 1);
  }
  return -1;
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

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Text to tokenize, with the line it starts on; `known`: it starts outside any lexeme, in the state {@link JsonDocReader.prime} describes. */
interface Part {
  text: string;
  line: number;
  known: boolean;
  /** It starts a line (where reading resumes after skipping to the next line starting with `{` or `[`). */
  lineStart?: boolean;
}

/** How a {@link Seek} ended: reading resumes at `parts` inside the streamed array, or after the document (`end`). */
type Found = { kind: 'element'; parts: Part[] } | { kind: 'end'; rest: string };

/**
 * Skips text after a syntax error (or an over-long value) up to where reading can resume. Three
 * rules run side by side over the same text and the first to match wins:
 *
 * - (bracket) brackets counted outside strings from the error's piece (when its state is known):
 *   `element` mode to the end of the element open at the error (or of the next one to start) and
 *   on to the next element or the array's end, trusted only when every closer matches its opener
 *   and a `{`/`[` follows the comma; `document` mode to where the open containers close;
 * - (next element) `,` then `{` then the first key of the array's elements (`{"kind":` in an
 *   EventList), whitespace allowed between: a quote in raw JSON text is never escaped outside a
 *   string, so this holds whatever a stray quote or a missing bracket did to the counts;
 * - (document end) the closers of the open containers (`]}` for an EventList), then the line's
 *   end or the input's, the last closer not indented (so not a nested container's end in a
 *   pretty-printed document).
 *
 * The last two (element mode only) ignore strings, so they can be fooled only by a nested array of
 * objects with the same first key, or a document end inside the broken element.
 */
class Seek {
  private inString = false;
  private escape = false;
  /** Bracket rule: 0 inside, 1 after the element's end, 2 after the comma following it; -1 given up. */
  private after = 0;
  /** Openers (true: `{`) of the containers open in the skipped value, when known. */
  private readonly open: boolean[] | null;
  /** Next-element rule: the last non-blank character was a comma. */
  private sawComma: boolean;
  /** 0 none; 1 after `{`; 2 in the key (`ki` characters matched); 3 after the key; text since the `{` in `cand`. */
  private cState = 0;
  private ki = 0;
  private cand: Part[] = [];
  /** Blanks since the candidate's `{`: past MAX_CANDIDATE it is given up, so `cand` stays small. */
  private candBlanks = 0;
  /** Document-end rule: closers matched so far, and the character before this one. */
  private ci = 0;
  private prev = 10;

  constructor(
    public mode: 'element' | 'document',
    private depth: number,
    /** Line reported. */
    readonly line: number,
    /** Containers around the element (element mode): the depth of a `document` skip. */
    private readonly outer: number,
    open: boolean[] | null,
    /** Brackets are counted (the state where the skip starts is known). */
    bracket: boolean,
    /** Element mode: the first key of the array's elements (null: any key), and the closers of the document. */
    private readonly key: string | null,
    private readonly closers: string,
    sawComma: boolean,
    /** The skipped element was started (counted) before the error. */
    readonly started: boolean,
  ) {
    this.open = open;
    this.sawComma = sawComma;
    if (!bracket) this.after = -1;
  }

  /** Scans the next part; what to read next when a rule matched, null when the skip goes on past it. */
  scan(part: Part): Found | null {
    const text = part.text;
    const element = this.mode === 'element';
    if (this.cState !== 0) this.addCand(part, 0);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (element) {
        // Document end: the closers, then the line's end; the last closer at a line start (pretty)
        // or right after text (one line), not indented (a nested container's end in a pretty document).
        const n = this.closers.length;
        if (this.ci === n && c === 10) return { kind: 'end', rest: text.slice(i + 1) };
        if (c === 125 || c === 93) {
          const edge = this.prev === 10 || !isSpace(this.prev);
          if (this.ci < n && this.closers.charCodeAt(this.ci) === c && (this.ci < n - 1 || edge)) this.ci++;
          else this.ci = this.closers.charCodeAt(0) === c && (n > 1 || edge) ? 1 : 0;
        } else if (!isSpace(c)) this.ci = 0;
        this.prev = c;
        // Next element: `,` `{` `"key"` `:`.
        if (this.cState !== 0) {
          const found = this.candStep(c);
          if (found) return { kind: 'element', parts: this.takeCand() };
          if (this.cState === 0) this.cand = [];
        }
        if (this.cState === 0 && !isSpace(c)) {
          if (c === 123 && this.sawComma) {
            this.cState = 1;
            this.cand = [];
            this.candBlanks = 0;
            this.addCand(part, i);
          }
          this.sawComma = c === 44;
        }
      }
      // Brackets counted outside strings.
      if (this.after === -1) continue;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === 92)
          this.escape = true; // '\\'
        else if (c === 34) this.inString = false; // '"'
        continue;
      }
      if (isSpace(c)) continue;
      if (this.after === 1) {
        if (c === 44) this.after = 2;
        else if (c === 93) return { kind: 'element', parts: [{ text: text.slice(i), line: part.line, known: true }] };
        else this.after = -1;
        continue;
      }
      if (this.after === 2) {
        if (c === 123 || c === 91) return { kind: 'element', parts: [{ text: text.slice(i), line: part.line, known: true }] };
        this.after = -1;
        continue;
      }
      if (element && this.depth === 0) {
        if (c === 44) continue;
        if (c !== 123 && c !== 91) {
          // Not an element (a stray value, or the container's end): give up on this document.
          this.mode = 'document';
          this.depth = this.outer;
          return this.scan({ text: text.slice(i), line: part.line, known: false });
        }
      }
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) {
        this.depth++;
        this.open?.push(c === 123);
      } else if (c === 125 || c === 93) {
        this.depth--;
        if (this.open !== null && this.open.length > 0 && this.open.pop() !== (c === 125)) {
          // A closer that does not match its opener: the counts cannot be trusted.
          this.after = -1;
          continue;
        }
        if (this.depth <= 0) {
          if (!element) return { kind: 'end', rest: text.slice(i + 1) };
          this.after = 1;
        }
      }
    }
    return null;
  }

  /** The input ended during the skip: true when it ended just after the document's closers. */
  atEnd(): boolean {
    return this.mode === 'element' && this.ci === this.closers.length;
  }

  private addCand(part: Part, from: number): void {
    const text = from === 0 ? part.text : part.text.slice(from);
    this.cand.push({ text, line: part.line, known: true });
  }

  /** One character of a candidate element start; true when it is confirmed. */
  private candStep(c: number): boolean {
    const key = this.key;
    switch (this.cState) {
      case 1:
        if (isSpace(c)) break;
        if (c !== 34) this.cState = 0;
        else if (key === null) return true;
        else {
          this.cState = 2;
          this.ki = 0;
        }
        return false;
      case 2:
        if (this.ki === key!.length) {
          this.cState = c === 34 ? 3 : 0;
          return false;
        }
        if (c === key!.charCodeAt(this.ki)) this.ki++;
        else this.cState = 0;
        return false;
      case 3:
        if (isSpace(c)) break;
        if (c === 58) return true; // ':'
        this.cState = 0;
        return false;
    }
    if (++this.candBlanks > MAX_CANDIDATE) this.cState = 0;
    return false;
  }

  private takeCand(): Part[] {
    const parts = this.cand;
    this.cand = [];
    this.cState = 0;
    return parts;
  }
}

/** Called once per element or document with the line it starts on. */
export type OnItem = (line: number, result: ValueResult) => void;

function isValueStart(name: Token['name']): boolean {
  return name !== 'keyValue' && name !== 'endObject' && name !== 'endArray';
}

function isObjectRole(role: Role): boolean {
  return role === 'root-object' || role === 'resourceLog' || role === 'scopeLog';
}

/** A key as it appears in raw JSON text, or null when escapes could make it appear otherwise. */
function rawKey(key: string | null): string | null {
  // eslint-disable-next-line no-control-regex -- control characters are escaped in JSON text, so such a key never appears raw
  return key === null || /["\\\u0000-\u001f\u007f-\uffff]/.test(key) ? null : key;
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
  /** {@link pending} starts outside any lexeme (at a line start, or just past a comma where a long line was cut). */
  private pendingKnown = true;
  /** {@link pending} starts a line. */
  private pendingAtLineStart = true;
  /** The value being skipped after a syntax error or an over-long value, if any. */
  private seek: Seek | null = null;
  /** Last non-blank character tokenized, and the name of the last token: the state between two pieces (see {@link prime}). */
  private tail = 0;
  private lastTok: Token['name'] | '' = '';
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

  /**
   * Feeds the next piece of text (any size). The tokenizer is handed whole lines, and a line longer
   * than MAX_PENDING in pieces cut from fixed windows of its text, so the pieces, and all that
   * follows from a syntax error, depend on the text only, never on how it arrived.
   */
  feed(text: string): void {
    let from = 0;
    while (from < text.length) {
      const nl = text.indexOf('\n', from);
      const to = nl === -1 ? text.length : nl + 1;
      const part = from === 0 && to === text.length ? text : text.slice(from, to);
      this.pending = this.pending === '' ? part : this.pending + part;
      if (this.pending.length > MAX_PENDING) this.drain();
      if (nl === -1) return;
      const whole = this.pending;
      this.pending = '';
      this.piece(whole, this.pendingKnown, this.pendingAtLineStart);
      this.pendingKnown = true;
      this.pendingAtLineStart = true;
      this.line++;
      from = to;
    }
  }

  /**
   * Hands on the head of a long pending line in pieces of at most MAX_PENDING characters, each cut
   * from the first MAX_PENDING characters just past a comma outside strings where one exists (see
   * {@link commaCut}), so the next piece starts where the tokenizer holds no partial lexeme.
   */
  private drain(): void {
    while (this.pending.length > MAX_PENDING) {
      const p = this.pending;
      const window = p.slice(0, MAX_PENDING);
      let cut = elementCut(window);
      if (cut === -1 && this.pendingKnown) cut = commaCut(window);
      if (cut !== -1) {
        this.pending = p.slice(cut);
        this.piece(window.slice(0, cut), this.pendingKnown, this.pendingAtLineStart);
        this.pendingKnown = true;
      } else {
        this.pending = p.slice(MAX_PENDING);
        this.piece(window, this.pendingKnown, this.pendingAtLineStart);
        this.pendingKnown = false;
      }
      this.pendingAtLineStart = false;
    }
  }

  /** Ends the input: flushes the tokenizer and reports a document cut short. */
  end(): void {
    if (this.pending !== '') {
      const p = this.pending;
      this.pending = '';
      this.piece(p, this.pendingKnown, this.pendingAtLineStart);
    }
    if (this.seek !== null) {
      const seek = this.seek;
      this.seek = null;
      if (seek.atEnd()) {
        this.endDocument();
        return;
      }
      this.onItem(seek.line, {
        shape: '',
        events: [],
        bad: ['JSON input ends inside the value skipped after a syntax error: the rest of the document was skipped'],
        truncated: 0,
      });
      this.stack.length = 0;
      this.builder = null;
      return;
    }
    let cut = false;
    if (!this.resync) {
      try {
        this.call(NONE);
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
   * Tokenizes one piece (a line, or a piece of a long line). Recovery can put more parts in front
   * of the queue (the rest of a piece after a skip), so this loops rather than recursing.
   */
  private piece(text: string, known: boolean, lineStart: boolean): void {
    const line = this.line;
    const queue: Part[] = [{ text, line, known, lineStart }];
    while (queue.length > 0) {
      const p = queue.shift()!;
      this.line = p.line;
      this.step(p, queue);
    }
    this.line = line;
  }

  private step(p: Part, queue: Part[]): void {
    if (this.seek !== null) {
      const found = this.seek.scan(p);
      if (found !== null) this.resume(found, queue);
      return;
    }
    const text = p.text;
    if (this.resync) {
      const c = text.charCodeAt(0);
      if (p.lineStart !== true || (c !== 123 && c !== 91)) return; // '{' '[' at a line start
      this.resync = false;
      this.tail = 0;
    }
    const quote = text.lastIndexOf('"');
    this.sinceQuote = quote !== -1 ? text.length - quote - 1 : (p.known ? 0 : this.sinceQuote) + text.length;
    if (this.sinceQuote > this.maxValueChars) {
      if (quote !== -1 && quote + 1 < text.length) {
        // Tokenize up to the long value first, so the value is known (its element, its line).
        queue.unshift({ text: text.slice(0, quote + 1), line: p.line, known: p.known }, { text: text.slice(quote + 1), line: p.line, known: false });
        return;
      }
      this.tooLong();
      queue.unshift({ text, line: p.line, known: false });
      return;
    }
    let err: unknown = null;
    try {
      this.call(text);
    } catch (e) {
      err = e;
    }
    if (err === null) {
      this.account(text);
      return;
    }
    this.failSyntax(err, p, queue);
  }

  /** After `text` was tokenized: the element's or wrapper's length so far, and the state the next piece starts in. */
  private account(text: string): void {
    const b = this.builder;
    if (b !== null) {
      b.chars += text.length;
      if (b.chars > this.maxValueChars) b.drop();
    } else if (this.stack.length === 1 && this.stack[0]!.role === 'root-object' && !this.streamed) {
      this.headChars += text.length;
    }
    let i = text.length - 1;
    while (i >= 0 && isSpace(text.charCodeAt(i))) i--;
    if (i >= 0) this.tail = text.charCodeAt(i);
  }

  /** Runs the tokenizer on `input` and hands on its tokens; throws its syntax error (no token of that input is handed on). */
  private call(input: string | symbol): void {
    const out = (this.parser as unknown as (x: string | symbol) => unknown)(input);
    if (out === NONE || out === undefined) return;
    const o = out as { [MANY]?: number; values?: Token[] } & Token;
    if (o[MANY] === 1) {
      const tokens = o.values!;
      for (let i = 0; i < tokens.length; i++) this.token(tokens[i]!);
    } else this.token(o);
  }

  /**
   * Text that puts a fresh tokenizer in the state the current one was in after the last piece
   * tokenized whole: the open containers ({@link stack} and the builder's), and what came last in
   * the innermost (an opener, a key, `:`, a value or `,`, from {@link tail} and {@link lastTok}).
   * Null when that is not known (a `"` that may end a key or open a string).
   */
  private prime(): string | null {
    const kinds: boolean[] = [];
    for (const f of this.stack) kinds.push(isObjectRole(f.role));
    const b = this.builder;
    if (b !== null && !b.kinds(kinds)) return null;
    if (kinds.length === 0) return '';
    let s = '';
    for (let i = 0; i < kinds.length - 1; i++) s += kinds[i] ? '{"":' : '[';
    const obj = kinds[kinds.length - 1]!;
    const t = this.tail;
    const tok = this.lastTok;
    if (t === 44) return s + (obj ? '{"":0,' : '[0,'); // ','
    if (t === 123 && tok === 'startObject') return obj ? s + '{' : null;
    if (t === 91 && tok === 'startArray') return obj ? null : s + '[';
    if (t === 58) return obj ? s + '{"":' : null; // ':'
    if (t === 34 && tok === 'keyValue') return null;
    if (t === 34 || t === 125 || t === 93 || (t >= 48 && t <= 57) || t === 101 || t === 108) return s + (obj ? '{"":0' : '[0');
    return null;
  }

  /**
   * A syntax error in part `p`. When the state `p` starts in is known ({@link prime}), `p` is read
   * again from that state one comma at a time, so what comes before the error counts and the
   * error is placed between two commas; then an error inside an element of a streamed array
   * (EventList `items`, a top-level array, `records`, …) skips that element (see {@link Seek}) and
   * an error anywhere else in a document skips the rest of it. In an unknown state (a piece of a
   * long line cut inside a string), an element is skipped the same way, without counting brackets;
   * anything else skips the rest of the document up to the next line starting with `{` or `[`.
   */
  private failSyntax(err: unknown, p: Part, queue: Part[]): void {
    const start = p.known ? this.prime() : null;
    let from = 0;
    if (start !== null) {
      this.parser = newParser();
      if (start !== '') (this.parser as unknown as (x: string) => unknown)(start);
      const ends = commaEnds(p.text);
      ends.push(p.text.length);
      for (const to of ends) {
        if (to <= from) continue;
        const s = p.text.slice(from, to);
        try {
          this.call(s);
        } catch (e) {
          err = e;
          break;
        }
        this.account(s);
        from = to;
      }
      if (from >= p.text.length) return; // (the tokenizer failed on the whole piece only)
    }
    const msg = (err instanceof Error ? err.message : String(err)).replace(/^Parser cannot parse input: /, '');
    const b = this.builder;
    const top = this.stack[this.stack.length - 1];
    const inElements = top !== undefined && (top.role === 'elements' || top.role === 'root-array');
    const rest: Part = { text: from === 0 ? p.text : p.text.slice(from), line: p.line, known: false };
    this.parser = newParser();
    this.builder = null;
    if (inElements && (b === null || b.target.kind === 'element')) {
      const line = b?.target.kind === 'element' ? b.target.line : p.line;
      this.report(line, `not JSON (${msg}); this element is skipped`);
      let open: boolean[] | null = null;
      if (start !== null) {
        open = [];
        if (b !== null && !b.kinds(open)) open = null;
      }
      // The broken element's own `{` (when it starts in this text) is not the next element.
      const sawComma = b !== null && (from > 0 || (start !== null && this.tail === 44));
      this.seek = this.elementSeek(line, b?.openDepth ?? 0, open, start !== null, sawComma, b !== null);
      queue.unshift(rest);
    } else if (start !== null && this.stack.length + (b?.openDepth ?? 0) > 0) {
      this.report(p.line, `not JSON (${msg}); the rest of this document is skipped`);
      this.seek = new Seek('document', this.stack.length + (b?.openDepth ?? 0), p.line, 0, null, true, null, '', false, false);
      queue.unshift(rest);
    } else {
      this.report(p.line, `not JSON (${msg}); the rest of this document is skipped`);
      this.stack.length = 0;
      this.head = {};
      this.resync = true;
      this.tail = 0;
    }
  }

  /** A {@link Seek} for the rest of an element of the innermost (streamed) array. */
  private elementSeek(line: number, depth: number, open: boolean[] | null, bracket: boolean, sawComma: boolean, started: boolean): Seek {
    let closers = '';
    for (let i = this.stack.length - 1; i >= 0; i--) closers += isObjectRole(this.stack[i]!.role) ? '}' : ']';
    const top = this.stack[this.stack.length - 1]!;
    return new Seek('element', depth, line, this.stack.length, open, bracket, rawKey(top.firstKey ?? null), closers, sawComma, started);
  }

  /**
   * A token (a string or number) grew past `maxValueChars`. In an element of a streamed array the
   * element is reported at its first line and skipped to the next element (see {@link Seek});
   * anywhere else the value is skipped up to the next line starting with `{` or `[`. Either way the
   * tokenizer is not fed the rest of the token, which it would hold whole.
   */
  private tooLong(): void {
    const b = this.builder;
    const top = this.stack[this.stack.length - 1];
    this.parser = newParser();
    this.sinceQuote = 0;
    this.builder = null;
    if (top !== undefined && (top.role === 'elements' || top.role === 'root-array') && (b === null || b.target.kind === 'element')) {
      const line = b?.target.kind === 'element' ? b.target.line : this.line;
      this.report(line, `JSON element longer than ${this.maxValueChars} characters (--max-line-length): skipped`);
      this.seek = this.elementSeek(line, 0, null, false, false, b !== null);
      return;
    }
    const line = b?.target.kind === 'element' ? b.target.line : this.stack.length > 0 ? this.rootLine : this.line;
    this.report(line, `JSON value longer than ${this.maxValueChars} characters (--max-line-length): skipped to the next line starting with { or [`);
    this.stack.length = 0;
    this.head = {};
    this.resync = true;
    this.tail = 0;
  }

  private report(line: number, reason: string): void {
    this.onItem(line, { shape: '', events: [], bad: [reason], truncated: 0 });
  }

  /** The skip ended: go on from the state it leaves (inside the array at the next element or its end, or after the document). */
  private resume(found: Found, queue: Part[]): void {
    const seek = this.seek!;
    this.seek = null;
    this.parser = newParser();
    if (found.kind === 'end') {
      this.endDocument();
      if (found.rest !== '') queue.unshift({ text: found.rest, line: this.line, known: true });
      return;
    }
    // A fresh tokenizer is put back inside the open containers: `{"items":[`, `[`, OTLP's nesting.
    let prefix = '';
    for (const f of this.stack) prefix += isObjectRole(f.role) ? `{${JSON.stringify(f.key ?? '')}:` : '[';
    (this.parser as unknown as (x: string) => unknown)(prefix);
    if (!seek.started) this.stack[this.stack.length - 1]!.count++;
    this.tail = 91; // as just after '[' (or a comma): the next piece starts at an element or the array's end
    this.lastTok = 'startArray';
    queue.unshift(...found.parts);
  }

  /** The document being skipped ended: it is counted, and reading goes on at the top level. */
  private endDocument(): void {
    const root = this.stack[0];
    if (root !== undefined && (root.role === 'root-array' || this.streamed)) this.endRoot(root);
    this.stack.length = 0;
    this.builder = null;
    this.head = {};
    this.tail = 0;
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
      case 'element': {
        const top = this.stack[this.stack.length - 1];
        if (top !== undefined && !tooLong && b.firstKey !== null) top.firstKey = b.firstKey;
        this.onItem(
          target.line,
          tooLong
            ? { shape: '', events: [], bad: [`JSON element longer than ${this.maxValueChars} characters: skipped`], truncated: 0 }
            : eventsOfElement(target.container, b.value, this.head, target.at),
        );
        return;
      }
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
    this.lastTok = t.name;
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
      } else if (isObject) {
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
