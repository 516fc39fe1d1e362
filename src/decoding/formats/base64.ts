/**
 * CloudWatch Logs subscription-filter payloads as delivered to Lambda, Kinesis or Firehose:
 * gzip, then base64 (reference `audit-formats.md` §6.3). One payload per line, or one payload
 * wrapped over several lines; the decoded JSON (`{"messageType":"DATA_MESSAGE",…,
 * "logEvents":[…]}`, possibly several objects back to back) is read by {@link JsonDocReader}.
 * base64 of plain JSON (`eyJ…`) is read the same way.
 */
import { gunzipSync } from 'node:zlib';
import { JsonDocReader, type OnItem } from './json-doc.js';

const B64_LINE = /^[A-Za-z0-9+/]+={0,2}$/;

const PAYLOAD_START = /^(H4sI|eyJ|W3s)/;

/**
 * Decodes base64 payload lines and hands each payload's events to `onItem` (line of the payload's
 * first line).
 *
 * A wrapped payload's lines are gathered and decoded once it looks complete: on its first line (a
 * payload of one line is read at once), on a line shorter than the first or ending with `=` (the
 * last of a wrapped payload), on the next payload's first line and at the end. A decode that finds
 * the gzip stream incomplete is tried again only when the payload has doubled, so the work stays
 * linear in the input whatever the wrapping (decoding at every line was quadratic).
 */
export class Base64Reader {
  /** Lines of the payload being gathered, trimmed. */
  private parts: string[] = [];
  private chars = 0;
  /** Length of the payload's first line: its wrapping width. */
  private width = 0;
  /** Characters the payload had at its last decode that found it incomplete (0: none yet). */
  private triedAt = 0;
  /** Inside a payload longer than `maxChars`: its lines are dropped up to the next payload's start. */
  private skipping = false;
  private startLine = 0;
  /** Payloads decoded. */
  payloads = 0;
  /** Base64 characters decoded so far, every attempt counted: the work done, for tests. */
  decodedChars = 0;

  constructor(
    private readonly maxChars: number,
    private readonly onItem: OnItem,
  ) {}

  /** One non-blank line (trimmed here) with its 1-based number. */
  line(text: string, no: number): void {
    const t = text.trim();
    if (!B64_LINE.test(t)) {
      this.fail();
      this.skipping = false;
      this.onItem(no, { shape: '', events: [], bad: ['not base64'], truncated: 0 });
      return;
    }
    const starts = PAYLOAD_START.test(t);
    if (this.skipping) {
      if (!starts) return;
      this.skipping = false;
    }
    // A new payload starts with the gzip (H4sI) or JSON (eyJ/W3s) prefix; a gzip payload found
    // incomplete there goes on with this line (a wrapped line may start with those letters too).
    if (this.parts.length > 0 && starts && !(this.mayTry() && this.tryDecode(false) === 'incomplete')) this.fail();
    if (this.parts.length === 0) {
      this.startLine = no;
      this.width = t.length;
      this.triedAt = 0;
    }
    this.parts.push(t);
    this.chars += t.length;
    if (this.chars > this.maxChars) {
      this.onItem(this.startLine, { shape: '', events: [], bad: [`base64 payload longer than ${this.maxChars} characters: skipped`], truncated: 0 });
      this.reset();
      this.skipping = true;
      return;
    }
    if (this.chars % 4 !== 0) return; // wrapped: wait for the rest
    const looksLast = this.parts.length === 1 || t.length < this.width || t.endsWith('=');
    if (looksLast && this.mayTry()) this.tryDecode(false);
  }

  /** Ends the input; a payload still pending is decoded, or reported as cut short. */
  end(): void {
    if (this.parts.length > 0) this.tryDecode(true);
    this.fail();
    this.skipping = false;
  }

  /** Whether a decode may be tried now: the first time, or once the payload doubled since. */
  private mayTry(): boolean {
    return this.triedAt === 0 || this.chars >= 2 * this.triedAt;
  }

  /**
   * Decodes the gathered payload and hands on its events (`done`), or reports it as not valid gzip
   * (`bad`); `incomplete` while a gzip stream or (unless `last`) a JSON text is unfinished.
   */
  private tryDecode(last: boolean): 'done' | 'bad' | 'incomplete' {
    const b64 = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    this.parts = [b64];
    this.decodedChars += b64.length;
    let text: string | null;
    try {
      text = this.decode(b64, last);
    } catch (err) {
      this.onItem(this.startLine, { shape: '', events: [], bad: [`base64 payload is not valid gzip (${(err as Error).message})`], truncated: 0 });
      this.reset();
      return 'bad';
    }
    if (text === null) {
      this.triedAt = this.chars;
      return 'incomplete';
    }
    this.reset();
    this.payloads++;
    const startLine = this.startLine;
    const reader = new JsonDocReader(this.maxChars, (_line, r) => this.onItem(startLine, r));
    reader.feed(text);
    reader.end();
    return 'done';
  }

  private reset(): void {
    this.parts = [];
    this.chars = 0;
  }

  private fail(): void {
    if (this.parts.length === 0) return;
    this.onItem(this.startLine, { shape: '', events: [], bad: ['base64 payload is not gzip or JSON, or is cut short'], truncated: 0 });
    this.reset();
  }

  /**
   * The payload's text, or null while a gzip stream is incomplete or, unless `last`, base64 of
   * JSON does not parse yet (a wrapped JSON payload is read whole, not line by line).
   */
  private decode(b64: string, last: boolean): string | null {
    const buf = Buffer.from(b64, 'base64');
    if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
      try {
        return gunzipSync(buf, { maxOutputLength: Math.max(this.maxChars * 4, 1 << 20) }).toString('utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'Z_BUF_ERROR') return null;
        throw err;
      }
    }
    const text = buf.toString('utf8');
    if (last) return text;
    try {
      JSON.parse(text);
      return text;
    } catch {
      return null;
    }
  }
}
