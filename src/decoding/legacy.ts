/**
 * The legacy text audit formats (reference `audit-formats.md` §2) → {@link AuditEvent}.
 *
 * Three line forms are read:
 *
 * 1. The advanced-audit legacy line, `--audit-log-format=legacy` (1.8 → today; `kubernetes/apiserver`
 *    `pkg/audit/format.go` `EventString`), one line per stage:
 *    `<time> AUDIT: id="…" stage="…" ip="…" method="update" user="…" groups="…" as="<self>"
 *    asgroups="<lookup>" user-agent="…" namespace="…" uri="…" response="409"`.
 *    1.7's v1alpha1 line is the same without `stage=` (a `response="<deferred>"` line is then
 *    the RequestReceived stage, any other response the final one), and 1.8–1.21 lines have no
 *    `user-agent=`.
 * 2. The shorthand of incident write-ups: `verb=` for `method=`, `code=` for `response=`, bare
 *    (unquoted) values, and an optional `reason="Conflict"`.
 * 3. The pre-1.12 basic audit (`pkg/endpoints/filters/legacy_audit.go`, removed in 1.12), two
 *    lines per request: `<time> AUDIT: id="…" ip="…" method="GET" user="…" groups="…" as="…"
 *    asgroups="…" namespace="…" uri="…"` when the request arrives and `<time> AUDIT: id="…"
 *    response="200"` when it is answered. Joining them needs state: see {@link LegacyDecoder}.
 *
 * Values are Go `%q` strings (escapes undone as `strconv.Unquote`) or bare words. Placeholders
 * mean absent: `ip="<unknown>"`, `user="<none>"`, `groups="<none>"`, `as="<self>"`,
 * `asgroups="<lookup>"`, `namespace="<none>"`, `response="<deferred>"` (no status yet).
 *
 * What the events lack (the formats do not carry it): `resourceVersion` and `uid`, the reason of a
 * status (a 409 stays ambiguous unless the shorthand gives `reason=`; `errors.IsConflict` counts an
 * unknown-reason 409 as a conflict, reference §4b), a create's object name, annotations and bodies.
 * Level is `Metadata`. The advanced line carries only the received time, so every stage of a request
 * has `stageTimestamp = requestReceivedTimestamp` (`stageTimeMs === receivedTimeMs`, latency 0);
 * the basic format's two lines give both times.
 */
import { decodeObject, type DecodeResult } from './decode.js';
import type { AuditObjectRef, AuditStage } from './event.js';
import { parseTimestamp } from './time.js';
import { objectRefFromURI, verbFromLegacyMethod } from './uri.js';

/** The mark every legacy line carries after its timestamp. */
export const LEGACY_AUDIT_MARK = ' AUDIT: ';

const PLAUSIBLE_FROM_MS = Date.UTC(2000, 0, 1);
const PLAUSIBLE_TO_MS = Date.UTC(2200, 0, 1);
const STAGES: ReadonlySet<string> = new Set(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);

/** True if `text` looks like a legacy audit line: `<time> AUDIT: id=…`. Cheap; for sniffing. */
export function isLegacyLine(text: string): boolean {
  const at = text.indexOf(LEGACY_AUDIT_MARK);
  return at > 0 && text.startsWith('id=', at + LEGACY_AUDIT_MARK.length);
}

/** A parsed line: its time and its `key=value` fields (first occurrence of a key wins). */
interface LegacyFields {
  timeRaw: string;
  timeMs: number;
  fields: Map<string, string>;
}

function bad(reason: string): DecodeResult {
  return { ok: false, reason };
}

function clip(s: string, max = 60): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\u0007',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

function isHex(s: string): boolean {
  return /^[0-9a-fA-F]+$/.test(s);
}

/**
 * Reads a Go-quoted string starting at `text[at] === '"'`, undoing `strconv.Quote` escapes
 * (`\n`, `\"`, `\\`, `\xHH` and octal bytes, `\uHHHH`, `\UHHHHHHHH`). Byte escapes are decoded as
 * UTF-8 together. Returns the value and the index after the closing quote, or `null` if the
 * string is unterminated or an escape is malformed.
 */
function readQuoted(text: string, at: number): { value: string; end: number } | null {
  let out = '';
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length > 0) {
      out += Buffer.from(bytes).toString('utf8');
      bytes = [];
    }
  };
  let i = at + 1;
  let runStart = i;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      flush();
      out += text.slice(runStart, i);
      return { value: out, end: i + 1 };
    }
    if (c !== '\\') {
      i++;
      continue;
    }
    const run = text.slice(runStart, i);
    if (run !== '') {
      flush();
      out += run;
    }
    const e = text[i + 1];
    if (e === undefined) return null;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      flush();
      out += simple;
      i += 2;
    } else if (e === 'x') {
      const hex = text.slice(i + 2, i + 4);
      if (hex.length !== 2 || !isHex(hex)) return null;
      bytes.push(parseInt(hex, 16));
      i += 4;
    } else if (e === 'u' || e === 'U') {
      const len = e === 'u' ? 4 : 8;
      const hex = text.slice(i + 2, i + 2 + len);
      if (hex.length !== len || !isHex(hex)) return null;
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) return null;
      flush();
      out += String.fromCodePoint(cp);
      i += 2 + len;
    } else if (e >= '0' && e <= '7') {
      const oct = text.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(oct)) return null;
      const b = parseInt(oct, 8);
      if (b > 255) return null;
      bytes.push(b);
      i += 4;
    } else {
      return null;
    }
    runStart = i;
  }
  return null;
}

/**
 * Splits a legacy line into its time and fields, or says what is wrong. The time is the word just
 * before ` AUDIT: ` (anything earlier, e.g. a syslog prefix, is ignored).
 */
function parseLegacy(text: string): LegacyFields | string {
  const mark = text.indexOf(LEGACY_AUDIT_MARK);
  if (mark === -1) return 'not a legacy audit line (no " AUDIT: ")';
  const head = text.slice(0, mark).trimEnd();
  const timeRaw = head.slice(head.lastIndexOf(' ') + 1);
  const timeMs = parseTimestamp(timeRaw);
  if (Number.isNaN(timeMs)) return `time "${clip(timeRaw)}" is not an RFC 3339 time`;
  if (timeMs < PLAUSIBLE_FROM_MS || timeMs >= PLAUSIBLE_TO_MS) {
    return `time "${clip(timeRaw)}" is implausible (before 2000 or after 2199)`;
  }
  const fields = new Map<string, string>();
  const n = text.length;
  let i = mark + LEGACY_AUDIT_MARK.length;
  while (i < n) {
    while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
    if (i >= n) break;
    const eq = text.indexOf('=', i);
    if (eq === -1) return `no "=" after "${clip(text.slice(i), 20)}"`;
    const key = text.slice(i, eq);
    if (!/^[A-Za-z][A-Za-z0-9_.-]*$/.test(key)) return `bad field name "${clip(key, 20)}"`;
    let value: string;
    if (text[eq + 1] === '"') {
      const q = readQuoted(text, eq + 1);
      if (q === null) return `${key}= has an unterminated or malformed quoted value`;
      value = q.value;
      i = q.end;
    } else {
      let end = eq + 1;
      while (end < n && text[end] !== ' ' && text[end] !== '\t') end++;
      value = text.slice(eq + 1, end);
      i = end;
    }
    if (!fields.has(key)) fields.set(key, value);
  }
  return { timeRaw, timeMs, fields };
}

/** `v` unless it is absent, empty, or one of the placeholders in `placeholders`. */
function present(v: string | undefined, ...placeholders: string[]): string | undefined {
  return v === undefined || v === '' || placeholders.includes(v) ? undefined : v;
}

/**
 * Parses a `groups=` value: `%q`-quoted groups joined by `,` (`", "` in the oldest basic lines),
 * already unquoted once by the field reader: `"system:masters","system:authenticated"`.
 */
function parseGroups(v: string | undefined): string[] | undefined {
  const s = present(v, '<none>', '<lookup>');
  if (s === undefined) return undefined;
  const groups: string[] = [];
  let i = 0;
  while (i < s.length) {
    while (i < s.length && (s[i] === ',' || s[i] === ' ')) i++;
    if (i >= s.length) break;
    if (s[i] === '"') {
      const q = readQuoted(s, i);
      if (q === null) return [s];
      groups.push(q.value);
      i = q.end;
    } else {
      const comma = s.indexOf(',', i);
      const end = comma === -1 ? s.length : comma;
      groups.push(s.slice(i, end).trim());
      i = end;
    }
  }
  return groups;
}

/** The HTTP method of the basic format is upper case; the advanced `method=` is the verb. */
function isHttpMethod(m: string): boolean {
  return /^[A-Z]+$/.test(m);
}

interface Parts {
  auditID: string;
  stage: AuditStage;
  verb: string;
  requestURI: string;
  code: number | undefined;
  reason: string | undefined;
  receivedRaw: string;
  stageRaw: string;
  fields: Map<string, string>;
}

/**
 * Builds the event in the key order of an `audit.k8s.io/v1` JSON line and validates it with
 * `decodeObject` (the checks `decodeLine` applies), which also sets `stageTimeMs`/`receivedTimeMs`.
 */
function buildEvent(p: Parts): DecodeResult {
  const f = p.fields;
  const ev: Record<string, unknown> = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: p.auditID,
    stage: p.stage,
    requestURI: p.requestURI,
    verb: p.verb,
  };
  const username = present(f.get('user'), '<none>');
  if (username !== undefined) {
    const user: Record<string, unknown> = { username };
    const groups = parseGroups(f.get('groups'));
    if (groups !== undefined) user.groups = groups;
    ev.user = user;
  }
  const as = present(f.get('as'), '<self>');
  if (as !== undefined) {
    const impersonated: Record<string, unknown> = { username: as };
    const groups = parseGroups(f.get('asgroups'));
    if (groups !== undefined) impersonated.groups = groups;
    ev.impersonatedUser = impersonated;
  }
  const ip = present(f.get('ip'), '<unknown>');
  if (ip !== undefined) ev.sourceIPs = [ip];
  const ua = f.get('user-agent');
  if (ua !== undefined && ua !== '') ev.userAgent = ua;
  const ref: AuditObjectRef | null = objectRefFromURI(p.requestURI, p.verb);
  if (ref !== null) {
    // The URI is authoritative; `namespace=` only fills a gap (it is the same RequestInfo value).
    const ns = present(f.get('namespace'), '<none>');
    if (ref.namespace === undefined && ns !== undefined) ref.namespace = ns;
    ev.objectRef = ref;
  }
  if (p.code !== undefined) {
    ev.responseStatus = p.reason === undefined ? { code: p.code } : { reason: p.reason, code: p.code };
  }
  ev.requestReceivedTimestamp = p.receivedRaw;
  ev.stageTimestamp = p.stageRaw;
  return decodeObject(ev);
}

/** `response=` / `code=`: `undefined` for `<deferred>`/absent, `NaN` if not an integer. */
function statusCode(f: Map<string, string>): number | undefined {
  const raw = f.get('response') ?? f.get('code');
  if (raw === undefined || raw === '<deferred>') return undefined;
  return /^-?\d{1,9}$/.test(raw) ? Number(raw) : NaN;
}

type LineKind = 'event' | 'basic-request' | 'basic-response';

function kindOf(f: Map<string, string>): LineKind {
  if (f.has('stage')) return 'event';
  const hasURI = f.has('uri');
  const hasResponse = f.has('response') || f.has('code');
  if (hasURI && hasResponse) return 'event'; // 1.7 line, or shorthand without a stage
  if (hasURI) return 'basic-request';
  return 'basic-response';
}

const MALFORMED = 'malformed legacy audit line: ';

/** The event of a single-line form (advanced, 1.7, shorthand), or what is wrong. */
function decodeSingle(parsed: LegacyFields): DecodeResult {
  const f = parsed.fields;
  const auditID = f.get('id');
  if (auditID === undefined) return bad(`${MALFORMED}no id`);
  const requestURI = f.get('uri');
  if (requestURI === undefined) return bad(`${MALFORMED}no uri`);
  const method = f.get('method') ?? f.get('verb');
  if (method === undefined) return bad(`${MALFORMED}no method or verb`);
  const code = statusCode(f);
  if (code !== undefined && Number.isNaN(code)) return bad(`${MALFORMED}response "${clip(f.get('response') ?? f.get('code') ?? '')}" is not a number`);
  let stage = f.get('stage');
  if (stage === undefined) stage = code === undefined ? 'RequestReceived' : 'ResponseComplete';
  if (!STAGES.has(stage)) return bad(`${MALFORMED}unknown stage "${clip(stage)}"`);
  const verb = isHttpMethod(method) ? verbFromLegacyMethod(method, requestURI) : method;
  return buildEvent({
    auditID,
    stage: stage as AuditStage,
    verb,
    requestURI,
    code,
    reason: present(f.get('reason')),
    receivedRaw: parsed.timeRaw,
    stageRaw: parsed.timeRaw,
    fields: f,
  });
}

const BASIC_NEEDS_STATE = 'pre-1.12 basic audit line (two lines per request): it needs its other line; read with LegacyDecoder';

/**
 * Decodes one advanced legacy line (or the 1.7 form, or the shorthand) into an audit event.
 * Stateless: a pre-1.12 basic line (no `stage=`, and either no `response=` or no `uri=`) gives a
 * bad result saying to use {@link LegacyDecoder}. Never throws. The event has level `Metadata`,
 * `stageTimestamp = requestReceivedTimestamp` = the line's time (in whatever zone it was
 * written), and `objectRef` from the URI ({@link objectRefFromURI}).
 */
export function decodeLegacyLine(text: string): DecodeResult {
  const parsed = parseLegacy(text);
  if (typeof parsed === 'string') return bad(MALFORMED + parsed);
  if (kindOf(parsed.fields) !== 'event') return bad(BASIC_NEEDS_STATE);
  return decodeSingle(parsed);
}

/** A basic-format request line waiting for its response line. */
interface PendingRequest {
  parsed: LegacyFields;
}

/**
 * Reads legacy lines of one source in order, joining the pre-1.12 basic format's request and
 * response lines by `id`.
 *
 * - Advanced, 1.7 and shorthand lines decode at once (as {@link decodeLegacyLine}).
 * - A basic request line is held (returns `null`) until the response line with its id arrives;
 *   that line returns one `ResponseComplete` event with `requestReceivedTimestamp` from the
 *   request line and `stageTimestamp` from the response line, the verb from the HTTP method and
 *   URI ({@link verbFromLegacyMethod}) and `responseStatus.code` from `response=`.
 * - A response line whose request is not held is a bad line (`…without its request line`).
 * - At most `maxPending` requests are held (default 10,000: basic ids are fresh UUIDs and a
 *   response follows its request within the request's duration, so only in-flight requests wait).
 *   When full, the oldest is dropped and counted in {@link unanswered}; {@link finish} adds the
 *   ones still held at end of input. Watches answered after the log ends are such requests.
 *
 * One decoder per source chain: lines of different sources must not be interleaved.
 */
export class LegacyDecoder {
  private readonly pending = new Map<string, PendingRequest>();
  private dropped = 0;

  constructor(readonly maxPending = 10_000) {
    if (!(maxPending >= 1)) throw new RangeError(`maxPending must be at least 1, got ${maxPending}`);
  }

  /** Basic request lines now waiting for their response line. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Basic request lines dropped without a response line so far (evicted, or left at finish). */
  get unanswered(): number {
    return this.dropped;
  }

  /** The event of a line, a bad-line reason, or `null` for a held basic request line. */
  decode(text: string): DecodeResult | null {
    const parsed = parseLegacy(text);
    if (typeof parsed === 'string') return bad(MALFORMED + parsed);
    const f = parsed.fields;
    const kind = kindOf(f);
    if (kind === 'event') return decodeSingle(parsed);
    const id = f.get('id');
    if (id === undefined) return bad(`${MALFORMED}no id`);
    if (kind === 'basic-request') {
      if (!f.has('method')) return bad(`${MALFORMED}no method`);
      this.pending.delete(id); // a reused id: the newer request replaces the older
      this.pending.set(id, { parsed });
      if (this.pending.size > this.maxPending) {
        const oldest = this.pending.keys().next().value as string;
        this.pending.delete(oldest);
        this.dropped++;
      }
      return null;
    }
    const held = this.pending.get(id);
    if (held === undefined) return bad(`basic audit response line without its request line (id "${clip(id, 40)}")`);
    this.pending.delete(id);
    const code = statusCode(f);
    if (code === undefined || Number.isNaN(code)) return bad(`${MALFORMED}response "${clip(f.get('response') ?? '')}" is not a number`);
    const req = held.parsed;
    const requestURI = req.fields.get('uri') ?? '';
    const method = req.fields.get('method') ?? '';
    return buildEvent({
      auditID: id,
      stage: 'ResponseComplete',
      verb: isHttpMethod(method) ? verbFromLegacyMethod(method, requestURI) : method,
      requestURI,
      code,
      reason: present(f.get('reason')),
      receivedRaw: req.timeRaw,
      stageRaw: parsed.timeRaw,
      fields: req.fields,
    });
  }

  /**
   * End of input: counts the requests still held as unanswered, forgets them, and returns
   * {@link unanswered}, the total of basic request lines that never got a response line.
   */
  finish(): number {
    this.dropped += this.pending.size;
    this.pending.clear();
    return this.dropped;
  }
}
