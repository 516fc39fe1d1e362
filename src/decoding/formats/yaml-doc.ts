/**
 * YAML input, one audit event (or wrapper, or list of events) per document, as some log viewers
 * export (`kubectl … -o yaml`, KHI test logs). Documents are split at `---` and `...` lines and
 * parsed one at a time with the `yaml` package (YAML 1.2 core schema: timestamps stay strings),
 * so memory is bounded by the longest document (`maxDocChars`; longer ones are skipped and
 * reported). Each document's events carry the line of its first content line. Anchors, aliases and
 * `<<` merge keys (`objectRef: {<<: *base, subresource: status}`) are resolved.
 */
import { parseDocument } from 'yaml';
import type { OnItem } from './json-doc.js';
import { eventsOfValue } from './values.js';

const DOC_START = /^---(?:\s|$)/;
const DOC_END = /^\.\.\.\s*$/;

/** Splits YAML text into documents and hands each one's events to `onItem`. */
export class YamlDocReader {
  private lines: string[] = [];
  private chars = 0;
  private tooLong = false;
  private startLine = 0;
  private partial = '';
  private line = 0;
  /** Documents with content seen. */
  documents = 0;

  constructor(
    private readonly maxDocChars: number,
    private readonly onItem: OnItem,
  ) {}

  /** Feeds the next piece of decoded text. */
  feed(text: string): void {
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      const part = text.slice(from, nl);
      this.onLine(this.partial === '' ? part : this.partial + part);
      this.partial = '';
      from = nl + 1;
    }
    if (from < text.length) {
      this.partial += text.slice(from);
      if (this.partial.length > this.maxDocChars) {
        this.tooLong = true;
        this.partial = this.partial.slice(-1); // keep reading to the line's end; the document is lost
      }
    }
  }

  /** Ends the input and parses the last document. */
  end(): void {
    if (this.partial !== '') this.onLine(this.partial);
    this.partial = '';
    this.flush();
  }

  private onLine(raw: string): void {
    this.line++;
    const l = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
    if (DOC_START.test(l)) {
      this.flush();
      this.push(l, l.slice(3).trim() !== '' && !l.slice(3).trim().startsWith('#'));
    } else if (DOC_END.test(l)) {
      this.flush();
    } else {
      const t = l.trimStart();
      this.push(l, t !== '' && !t.startsWith('#') && !(this.lines.length === 0 && t.startsWith('%')));
    }
  }

  private push(l: string, content: boolean): void {
    if (content && this.startLine === 0) this.startLine = this.line;
    if (this.tooLong) return;
    this.chars += l.length + 1;
    if (this.chars > this.maxDocChars) {
      this.tooLong = true;
      this.lines = [];
      return;
    }
    this.lines.push(l);
  }

  private flush(): void {
    const start = this.startLine;
    const lines = this.lines;
    const tooLong = this.tooLong;
    this.lines = [];
    this.chars = 0;
    this.tooLong = false;
    this.startLine = 0;
    if (start === 0) return; // only comments, blanks, directives
    this.documents++;
    if (tooLong) {
      this.onItem(start, { shape: '', events: [], bad: [`YAML document longer than ${this.maxDocChars} characters: skipped`], truncated: 0 });
      return;
    }
    const doc = parseDocument(lines.join('\n'), { prettyErrors: false, merge: true });
    const err = doc.errors[0];
    if (err !== undefined) {
      // The yaml package composes collections by recursion and reports a stack overflow as RESOURCE_EXHAUSTION.
      const reason =
        err.code === 'RESOURCE_EXHAUSTION' ? 'YAML document nested too deeply to read (collections inside collections, hundreds deep)' : `not YAML (${err.message.split('\n')[0]})`;
      this.onItem(start, { shape: '', events: [], bad: [reason], truncated: 0 });
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      this.onItem(start, { shape: '', events: [], bad: [`not YAML (${e instanceof Error ? e.message : String(e)})`], truncated: 0 });
      return;
    }
    this.onItem(start, eventsOfValue(value));
  }
}
