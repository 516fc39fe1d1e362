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

/** Decodes base64 payload lines and hands each payload's events to `onItem` (line of the payload's first line). */
export class Base64Reader {
  private pending = '';
  private startLine = 0;
  /** Payloads decoded. */
  payloads = 0;

  constructor(
    private readonly maxChars: number,
    private readonly onItem: OnItem,
  ) {}

  /** One non-blank line (trimmed here) with its 1-based number. */
  line(text: string, no: number): void {
    const t = text.trim();
    if (!B64_LINE.test(t)) {
      this.fail();
      this.onItem(no, { shape: '', events: [], bad: ['not base64'], truncated: 0 });
      return;
    }
    // A new payload starts with the gzip (H4sI) or JSON (eyJ/W3s) prefix; anything else continues one.
    if (this.pending !== '' && /^(H4sI|eyJ|W3s)/.test(t)) this.fail();
    if (this.pending === '') this.startLine = no;
    this.pending += t;
    if (this.pending.length > this.maxChars) {
      this.onItem(this.startLine, { shape: '', events: [], bad: [`base64 payload longer than ${this.maxChars} characters: skipped`], truncated: 0 });
      this.pending = '';
      return;
    }
    if (this.pending.length % 4 !== 0) return; // wrapped: wait for the rest
    let text2: string | null;
    try {
      text2 = this.decode(this.pending);
    } catch (err) {
      this.onItem(this.startLine, { shape: '', events: [], bad: [`base64 payload is not valid gzip (${(err as Error).message})`], truncated: 0 });
      this.pending = '';
      return;
    }
    if (text2 === null) return; // incomplete gzip: wait for more lines
    this.pending = '';
    this.payloads++;
    const reader = new JsonDocReader(this.maxChars, (_line, r) => this.onItem(this.startLine, r));
    reader.feed(text2);
    reader.end();
  }

  /** Ends the input; a payload still pending is reported as cut short. */
  end(): void {
    this.fail();
  }

  private fail(): void {
    if (this.pending === '') return;
    this.onItem(this.startLine, { shape: '', events: [], bad: ['base64 payload is not gzip or JSON, or is cut short'], truncated: 0 });
    this.pending = '';
  }

  /** The payload's text, or null while a gzip stream is incomplete. */
  private decode(b64: string): string | null {
    const buf = Buffer.from(b64, 'base64');
    if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
      try {
        return gunzipSync(buf, { maxOutputLength: Math.max(this.maxChars * 4, 1 << 20) }).toString('utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'Z_BUF_ERROR') return null;
        throw err;
      }
    }
    return buf.toString('utf8');
  }
}
