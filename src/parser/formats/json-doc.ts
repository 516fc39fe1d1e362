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
 * line where it starts. A syntax error makes the rest of that document unreadable: it is
 * reported once, and reading resumes at the next line that starts with `{` or `[`.
 */
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { eventsOfElement, eventsOfValue, type Container, type ValueResult } from './values.js';

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
}

const STREAMED_KEYS: ReadonlySet<string> = new Set(['items', 'records', 'events', 'logEvents']);

/** The framing a document reader saw, for the source's `format`. */
export type DocFormat = 'eventlist' | 'json-array' | 'json-docs' | 'json-wrapper';

type Target =
  | { kind: 'element'; container: Container; line: number }
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
        this.add(t.value);
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

  /** Switches to discarding (the value grew too long); depth tracking continues. */
  drop(): void {
    if (this.discard) return;
    this.discard = true;
    this.value = undefined;
    this.stack.length = 0;
    this.keys.length = 0;
  }
}

/** Called once per element or document with the line it starts on. */
export type OnItem = (line: number, result: ValueResult) => void;

function isValueStart(name: Token['name']): boolean {
  return name !== 'keyValue' && name !== 'endObject' && name !== 'endArray';
}

/** Streams JSON documents; see the module comment. Feed text, then call {@link end}. */
export class JsonDocReader {
  private parser = jsonParser({ packValues: true, streamValues: false, jsonStreaming: true });
  private readonly stack: Frame[] = [];
  private builder: Builder | null = null;
  private head: Record<string, unknown> = {};
  private headChars = 0;
  private streamed = false;
  private rootLine = 1;
  private resync = false;
  private atLineStart = true;
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

  /** Feeds the next piece of text (any size; split at newlines here). */
  feed(text: string): void {
    let from = 0;
    while (from < text.length) {
      const nl = text.indexOf('\n', from);
      const to = nl === -1 ? text.length : nl + 1;
      this.piece(from === 0 && to === text.length ? text : text.slice(from, to));
      if (nl !== -1) {
        this.line++;
        this.atLineStart = true;
      } else this.atLineStart = false;
      from = to;
    }
  }

  /** Ends the input: flushes the tokenizer and reports a document cut short. */
  end(): void {
    let cut = false;
    if (!this.resync) {
      try {
        this.run(NONE, true);
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

  private piece(text: string): void {
    if (this.resync) {
      const c = text.charCodeAt(0);
      if (!this.atLineStart || (c !== 123 && c !== 91)) return; // '{' '['
      this.resync = false;
    }
    this.run(text);
    const b = this.builder;
    if (b !== null) {
      b.chars += text.length;
      if (b.chars > this.maxValueChars) b.drop();
    } else if (this.stack.length === 1 && this.stack[0]!.role === 'root-object' && !this.streamed) {
      this.headChars += text.length;
    }
  }

  private run(input: string | symbol, rethrow = false): void {
    let out: unknown;
    try {
      out = (this.parser as unknown as (x: string | symbol) => unknown)(input);
    } catch (err) {
      if (rethrow) throw err;
      this.failSyntax(err);
      return;
    }
    if (out === NONE || out === undefined) return;
    const o = out as { [MANY]?: number; values?: Token[] } & Token;
    if (o[MANY] === 1) {
      const tokens = o.values!;
      for (let i = 0; i < tokens.length; i++) this.token(tokens[i]!);
    } else this.token(o);
  }

  private failSyntax(err: unknown): void {
    const msg = err instanceof Error ? err.message : String(err);
    this.onItem(this.line, {
      shape: '',
      events: [],
      bad: [`not JSON (${msg.replace(/^Parser cannot parse input: /, '')}); the rest of this document is skipped`],
      truncated: 0,
    });
    this.parser = jsonParser({ packValues: true, streamValues: false, jsonStreaming: true });
    this.stack.length = 0;
    this.builder = null;
    this.head = {};
    this.resync = true;
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
            : eventsOfElement(target.container, b.value, this.head),
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
        this.stack.push({ role: 'root-array', container: null, key: null });
        this.head = {};
      }
      else if (isObject) {
        this.stack.push({ role: 'root-object', container: null, key: null });
        this.head = {};
        this.headChars = 0;
        this.streamed = false;
      } else this.startBuilder({ kind: 'root', line: this.line }, t);
      return;
    }
    const key = top.key;
    switch (top.role) {
      case 'root-array':
        this.startBuilder({ kind: 'element', container: 'array', line: this.line }, t);
        return;
      case 'elements':
        this.startBuilder({ kind: 'element', container: top.container!, line: this.line }, t);
        return;
      case 'root-object':
        if (isArray && key !== null && STREAMED_KEYS.has(key)) {
          this.streamed = true;
          this.stack.push({ role: 'elements', container: key as Container, key: null });
        } else if (isArray && key === 'resourceLogs') {
          this.streamed = true;
          this.stack.push({ role: 'resourceLogs', container: null, key: null });
        } else {
          this.startBuilder({ kind: 'head', key: key ?? '' }, t, this.headChars > this.maxValueChars);
        }
        return;
      case 'resourceLogs':
        if (isObject) this.stack.push({ role: 'resourceLog', container: null, key: null });
        else this.startBuilder({ kind: 'skip' }, t, true);
        return;
      case 'resourceLog':
        if (isArray && key === 'scopeLogs') this.stack.push({ role: 'scopeLogs', container: null, key: null });
        else this.startBuilder({ kind: 'skip' }, t, true);
        return;
      case 'scopeLogs':
        if (isObject) this.stack.push({ role: 'scopeLog', container: null, key: null });
        else this.startBuilder({ kind: 'skip' }, t, true);
        return;
      case 'scopeLog':
        if (isArray && key === 'logRecords') this.stack.push({ role: 'elements', container: 'logRecords', key: null });
        else this.startBuilder({ kind: 'skip' }, t, true);
        return;
    }
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
