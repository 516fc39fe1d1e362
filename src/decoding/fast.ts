/**
 * The JSON-lines fast path: one audit event line → the fields a {@link RequestRecord} needs,
 * without building the event object.
 *
 * `JSON.parse` materialises every string, array and object of a line (user groups, annotations,
 * managed fields) only for the analysis to read a dozen fields and drop the rest. This scanner
 * walks the line once, validating its JSON structure as strictly as `JSON.parse` (strings, escapes,
 * numbers, literals, nesting, nothing after the value), and copies out only the wanted values.
 * It answers {@link FAST_FINAL} (the fields are in `out`), {@link FAST_NONFINAL} (a valid
 * `RequestReceived`/`ResponseStarted` event: counted, no record) or {@link FAST_FALLBACK}:
 * anything unusual — another apiVersion, a missing `stageTimestamp`, an unknown level, an
 * `objectRef` without `resource`, a duplicated or escaped key, a syntax error — goes to the full
 * path (`JSON.parse` + `decodeObject` + `Normalizer.normalize`), which alone decides what is wrong
 * with a line. Logged bodies (Request and RequestResponse level) are skipped but for what a record
 * keeps of them: the response's `metadata.resourceVersion` and `metadata.name`, and an update's or
 * patch's request body, which alone is parsed, to be digested (`digestBody`). So the
 * fast path never decides a line is bad, and whenever it answers, the full path gives the same
 * record (`test/parser/fast.test.ts` checks this on every corpus line, every fixture and fuzzed
 * lines). One known difference: a raw control character (U+0000–U+001F) inside a string, which
 * `JSON.parse` rejects, is not looked for (a regular expression over every chunk cost a third of
 * this path), in a skipped body as anywhere else (kube-apiserver escapes them); such a line is read
 * as the event it holds instead of being counted bad.
 *
 * Field semantics are `decodeObject`'s (`decode.ts`): kube-apiserver's `audit.k8s.io/v1` Event
 * (`kubernetes/apiserver` `pkg/apis/audit/v1/types.go`; reference `audit-formats.md` §1).
 * No regular expressions or closures on this path; state is module-level.
 */
import type { NativeScanner } from './native.js';
import * as N from './native.js';
import { digestBody } from './body.js';
import { isHttpStatus } from './decode.js';
import type { BodyDigest } from './record.js';
import { parseTimestamp } from './time.js';

/** `fastDecode` could not decide: use the full path for this line. */
export const FAST_FALLBACK = 0;
/** A valid audit event of a non-final stage (`RequestReceived`, `ResponseStarted`). */
export const FAST_NONFINAL = 1;
/** A valid final-stage event (`ResponseComplete`, `Panic`); its fields are in the output. */
export const FAST_FINAL = 2;
/** Result of {@link fastDecode}. */
export type FastResult = typeof FAST_FALLBACK | typeof FAST_NONFINAL | typeof FAST_FINAL;

/**
 * The fields of a final-stage event that normalization reads, as `decodeObject` +
 * `Normalizer.normalize` see them: absent strings are `''`, an absent `responseStatus.code` is 0.
 * Times are UTC epoch ms with microseconds as the fraction (see `decodeObject`).
 */
export interface FastFields {
  auditID: string;
  stage: 'ResponseComplete' | 'Panic';
  requestURI: string;
  verb: string;
  /** `user.username`. */
  username: string;
  userAgent: string;
  /** `sourceIPs[0]`. */
  sourceIP: string;
  level: string;
  /** False when `objectRef` is absent or null (a non-resource request). */
  hasObjectRef: boolean;
  resource: string;
  namespace: string;
  name: string;
  apiGroup: string;
  apiVersion: string;
  resourceVersion: string;
  subresource: string;
  code: number;
  reason: string;
  stageTimeMs: number;
  receivedTimeMs: number;
  /**
   * `uriFacts(requestURI)` (`normalize.ts`), when the decoder that fills these fields derives them
   * (the parallel reader's workers, which send no requestURI); `fastDecode` leaves them.
   */
  fieldManager: string;
  dryRun: boolean;
  /** `responseObject.metadata.resourceVersion` when a response body is logged, else `''` (`RequestRecord.responseResourceVersion`). */
  responseResourceVersion: string;
  /** Digest of an update's or patch's logged request body (`RequestRecord.body`), else null. */
  body: BodyDigest | null;
}

/** A reusable {@link FastFields} to pass to {@link fastDecode}. */
export function newFastFields(): FastFields {
  return {
    auditID: '',
    stage: 'ResponseComplete',
    requestURI: '',
    verb: '',
    username: '',
    userAgent: '',
    sourceIP: '',
    level: '',
    hasObjectRef: false,
    resource: '',
    namespace: '',
    name: '',
    apiGroup: '',
    apiVersion: '',
    resourceVersion: '',
    subresource: '',
    code: 0,
    reason: '',
    stageTimeMs: 0,
    receivedTimeMs: 0,
    fieldManager: '',
    dryRun: false,
    responseResourceVersion: '',
    body: null,
  };
}

// Same bounds as decode.ts.
const PLAUSIBLE_FROM_MS = Date.UTC(2000, 0, 1);
const PLAUSIBLE_TO_MS = Date.UTC(2200, 0, 1);

const QUOTE = 34;
const BACKSLASH = 92;
const LBRACE = 123;
const RBRACE = 125;
const LBRACK = 91;
const RBRACK = 93;
const COLON = 58;
const COMMA = 44;
const MINUS = 45;

// Scanner state: the line, the cursor, whether the line holds a backslash, and failure.
let s = '';
let i = 0;
let n = 0;
let escapes = false;
let failed = false;
/**
 * The bytes of `s` when they are at hand (an ASCII piece, see {@link fastDecode}): `bytes[k]` is
 * `s[k]`; else null.
 */
let bytes: Uint8Array | null = null;
let view: DataView | null = null;

function fail(): void {
  failed = true;
  i = n;
}

function ws(): void {
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) i++;
    else return;
  }
}

/**
 * End index of the string whose opening quote is at `i` (index of its closing quote), or -1.
 * (`s` may go on past the line's end `n`: a quote there is not this line's.)
 */
function stringEnd(): number {
  let j = s.indexOf('"', i + 1);
  if (j >= n) return -1;
  if (!escapes) return j;
  while (j !== -1) {
    let k = j - 1;
    while (s.charCodeAt(k) === BACKSLASH) k--;
    if ((j - k) % 2 === 1) return j; // an even number of backslashes before it
    j = s.indexOf('"', j + 1);
    if (j >= n) return -1;
  }
  return -1;
}

/** Reads the string at `i` (which must be `"`), moves past it; `''` with `failed` on error. */
function str(): string {
  if (s.charCodeAt(i) !== QUOTE) {
    fail();
    return '';
  }
  const end = stringEnd();
  if (end === -1) {
    fail();
    return '';
  }
  const start = i + 1;
  i = end + 1;
  if (escapes) {
    const b = s.indexOf('\\', start);
    if (b === -1 || b > end) return s.slice(start, end);
    try {
      return JSON.parse(s.slice(start - 1, end + 1)) as string;
    } catch {
      fail();
      return '';
    }
  }
  return s.slice(start, end);
}

/** Skips the string at `i`, validating its escapes. */
function skipStr(): void {
  const end = stringEnd();
  if (end === -1) {
    fail();
    return;
  }
  const start = i + 1;
  i = end + 1;
  if (escapes) {
    const b = s.indexOf('\\', start);
    if (b !== -1 && b < end) {
      try {
        JSON.parse(s.slice(start - 1, end + 1));
      } catch {
        fail();
      }
    }
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Skips a JSON number at `i` (strict grammar); returns its start. */
function skipNumber(): number {
  const start = i;
  if (s.charCodeAt(i) === MINUS) i++;
  let c = s.charCodeAt(i);
  if (c === 48) i++;
  else if (c >= 49 && c <= 57) {
    i++;
    while (isDigit(s.charCodeAt(i))) i++;
  } else {
    fail();
    return start;
  }
  if (s.charCodeAt(i) === 46) {
    i++;
    if (!isDigit(s.charCodeAt(i))) {
      fail();
      return start;
    }
    while (isDigit(s.charCodeAt(i))) i++;
  }
  c = s.charCodeAt(i);
  if (c === 101 || c === 69) {
    i++;
    c = s.charCodeAt(i);
    if (c === 43 || c === 45) i++;
    if (!isDigit(s.charCodeAt(i))) {
      fail();
      return start;
    }
    while (isDigit(s.charCodeAt(i))) i++;
  }
  return start;
}

function literal(word: string): void {
  if (s.startsWith(word, i)) i += word.length;
  else fail();
}

/**
 * Containers nested deeper than this inside a skipped value are left to the full path
 * (`JSON.parse` has no depth limit): the skip recurses once per level, and a line nested
 * thousands deep would exhaust the call stack. (The native scanner stops at 64 and leaves such
 * lines to this path.)
 */
const MAX_SKIP_DEPTH = 512;

/** Skips any JSON value at `i`; `depth` is how many skipped containers hold it. */
function skipValue(depth: number): void {
  const c = s.charCodeAt(i);
  if (c === QUOTE) skipStr();
  else if (c === LBRACE || c === LBRACK) {
    if (depth >= MAX_SKIP_DEPTH) return fail();
    if (c === LBRACE) skipObject(depth + 1);
    else skipArray(depth + 1);
  } else if (c === 116) literal('true');
  else if (c === 102) literal('false');
  else if (c === 110) literal('null');
  else skipNumber();
}

/** After a member value: `,` (returns true, at the next key) or `}` / `]` `close` (false). */
function next(close: number): boolean {
  ws();
  const c = s.charCodeAt(i);
  if (c === COMMA) {
    i++;
    ws();
    return true;
  }
  if (c === close) {
    i++;
    return false;
  }
  fail();
  return false;
}

/** At `{`: true if the object has members (then `i` is at the first key), false if it is `{}`. */
function open(close: number): boolean {
  i++;
  ws();
  if (s.charCodeAt(i) === close) {
    i++;
    return false;
  }
  return !failed;
}

/** Reads a key at `i` and the `:` after it; returns the key's start index and sets `keyLen`. */
let keyLen = 0;
function key(): number {
  if (s.charCodeAt(i) !== QUOTE) {
    fail();
    return 0;
  }
  const start = i + 1;
  const end = stringEnd();
  if (end === -1) {
    fail();
    return 0;
  }
  if (escapes) {
    const b = s.indexOf('\\', start);
    if (b !== -1 && b < end) {
      fail(); // escaped keys are left to the full path
      return 0;
    }
  }
  keyLen = end - start;
  i = end + 1;
  ws();
  if (s.charCodeAt(i) !== COLON) {
    fail();
    return 0;
  }
  i++;
  ws();
  return start;
}

function skipObject(depth: number): void {
  if (!open(RBRACE)) return;
  do {
    key();
    if (failed) return;
    skipValue(depth);
  } while (!failed && next(RBRACE));
}

function skipArray(depth: number): void {
  if (!open(RBRACK)) return;
  do {
    skipValue(depth);
  } while (!failed && next(RBRACK));
}

function keyIs(at: number, name: string): boolean {
  return keyLen === name.length && s.startsWith(name, at);
}

/** True when the value at `i` is `null` (consumed). */
function isNull(): boolean {
  if (s.charCodeAt(i) === 110) {
    literal('null');
    return true;
  }
  return false;
}

// Values of the line being decoded.
let auditID = '';
let stage = '';
let requestURI = '';
let verb = '';
let username = '';
let userAgent = '';
let sourceIP = '';
let level = '';
let hasRef = false;
let refHasResource = false;
let resource = '';
let namespace = '';
let name = '';
let apiGroup = '';
let apiVersion = '';
let resourceVersion = '';
let subresource = '';
let code = 0;
let reason = '';
let stageTs = '';
let receivedTs = '';
/** A logged `responseObject`'s `metadata.resourceVersion` and `metadata.name` (see {@link readBody}; `''`: none). */
let responseRv = '';
let responseName = '';
/** The span of a non-null `requestObject` in `s` (-1: none). */
let requestFrom = -1;
let requestTo = -1;
let hasReceived = false;
/** The times the native scanner parsed (NaN: parse `stageTs` / `receivedTs` here). */
let stageMsRead = NaN;
let receivedMsRead = NaN;
/** False while the template reads a non-final event's members: strings are checked, not copied. */
let keep = true;
/** Bits of the top-level keys seen (a duplicate falls back: JSON.parse keeps the last). */
let seen = 0;

const K_KIND = 1;
const K_API = 2;
const K_LEVEL = 4;
const K_AUDITID = 8;
const K_STAGE = 16;
const K_URI = 32;
const K_VERB = 64;
const K_USER = 128;
const K_IPS = 256;
const K_UA = 512;
const K_REF = 1024;
const K_STATUS = 2048;
const K_REQOBJ = 4096;
const K_RESPOBJ = 8192;
const K_RECEIVED = 16384;
const K_STAGETS = 32768;
const REQUIRED = K_AUDITID | K_STAGE | K_URI | K_VERB | K_STAGETS;

function mark(bit: number): boolean {
  if ((seen & bit) !== 0) {
    fail();
    return false;
  }
  seen |= bit;
  return true;
}

/** A string-typed member that must be a string when present (null is "not a string"). */
function strField(bit: number): string {
  if (!mark(bit)) return '';
  return str();
}

function readUser(): void {
  if (!mark(K_USER) || isNull()) return;
  if (s.charCodeAt(i) !== LBRACE) return fail();
  if (!open(RBRACE)) return;
  let got = false;
  do {
    const at = key();
    if (failed) return;
    if (keyIs(at, 'username')) {
      if (got) return fail();
      got = true;
      username = str();
    } else skipValue(0);
  } while (!failed && next(RBRACE));
}

function readSourceIPs(): void {
  if (!mark(K_IPS) || isNull()) return;
  if (s.charCodeAt(i) !== LBRACK) return fail();
  if (!open(RBRACK)) return;
  sourceIP = str(); // sourceIPs[0] must be a string
  while (!failed && next(RBRACK)) skipValue(0);
}

function readObjectRef(): void {
  if (!mark(K_REF) || isNull()) return;
  if (s.charCodeAt(i) !== LBRACE) return fail();
  hasRef = true;
  if (!open(RBRACE)) return;
  let got = 0;
  do {
    const at = key();
    if (failed) return;
    let bit = 0;
    switch (keyLen) {
      case 4:
        if (s.startsWith('name', at)) bit = 1;
        break;
      case 8:
        if (s.startsWith('resource', at)) bit = 2;
        else if (s.startsWith('apiGroup', at)) bit = 4;
        break;
      case 9:
        if (s.startsWith('namespace', at)) bit = 8;
        break;
      case 10:
        if (s.startsWith('apiVersion', at)) bit = 16;
        break;
      case 11:
        if (s.startsWith('subresource', at)) bit = 32;
        break;
      case 15:
        if (s.startsWith('resourceVersion', at)) bit = 64;
        break;
      case 3:
        if (s.startsWith('uid', at)) bit = 128;
        break;
    }
    if (bit === 0) {
      skipValue(0);
      continue;
    }
    if ((got & bit) !== 0) return fail();
    got |= bit;
    const v = str();
    if (bit === 1) name = v;
    else if (bit === 2) {
      resource = v;
      refHasResource = true;
    } else if (bit === 4) apiGroup = v;
    else if (bit === 8) namespace = v;
    else if (bit === 16) apiVersion = v;
    else if (bit === 32) subresource = v;
    else if (bit === 64) resourceVersion = v;
  } while (!failed && next(RBRACE));
}

function readStatus(): void {
  if (!mark(K_STATUS) || isNull()) return;
  if (s.charCodeAt(i) !== LBRACE) return fail();
  if (!open(RBRACE)) return;
  let got = 0;
  do {
    const at = key();
    if (failed) return;
    if (keyIs(at, 'code')) {
      if ((got & 1) !== 0) return fail();
      got |= 1;
      const c = s.charCodeAt(i);
      if (c !== MINUS && !isDigit(c)) return fail(); // not a number: the full path says why
      const start = skipNumber();
      code = Number(s.slice(start, i));
      if (!isHttpStatus(code)) return fail(); // the full path names it a bad line
    } else if (keyIs(at, 'reason')) {
      if ((got & 2) !== 0) return fail();
      got |= 2;
      reason = str();
    } else skipValue(0);
  } while (!failed && next(RBRACE));
}

/**
 * `requestObject` / `responseObject`: null is absent; anything else is a body. Of a request body
 * only its span is kept (digested in {@link finish} for an update or patch); of a response object
 * `metadata.resourceVersion` and `metadata.name` are read on the way (`responseResourceVersion`,
 * `responseName` in body.ts: a later duplicate of a key wins, as in `JSON.parse`).
 */
function readBody(bit: number): void {
  if (!mark(bit) || isNull()) return;
  if (bit === K_RESPOBJ) {
    if (s.charCodeAt(i) === LBRACE) return readResponseObject();
    return skipValue(0);
  }
  requestFrom = i;
  skipValue(0);
  requestTo = i;
}

/** The members of a response object at `{`: `metadata` read, the rest skipped. */
function readResponseObject(): void {
  if (!open(RBRACE)) return;
  do {
    const at = key();
    if (failed) return;
    if (keyIs(at, 'metadata')) {
      responseRv = responseName = '';
      if (s.charCodeAt(i) === LBRACE) readResponseMetadata();
      else skipValue(1);
    } else skipValue(1);
  } while (!failed && next(RBRACE));
}

/** The value at `i` in a response's `metadata`: a string's value, else `''` (the value skipped). */
function metadataString(): string {
  if (s.charCodeAt(i) === QUOTE) return str();
  skipValue(2);
  return '';
}

/** A response object's `metadata` at `{`: `resourceVersion` and `name` when strings, else `''`. */
function readResponseMetadata(): void {
  if (!open(RBRACE)) return;
  do {
    const at = key();
    if (failed) return;
    if (keyIs(at, 'resourceVersion')) responseRv = metadataString();
    else if (keyIs(at, 'name')) responseName = metadataString();
    else skipValue(2);
  } while (!failed && next(RBRACE));
}

/** Optional timestamp: `null` for JSON null; a non-string fails. */
function readTime(bit: number): string | null {
  if (!mark(bit) || isNull()) return null;
  return str();
}

function member(at: number): void {
  switch (keyLen) {
    case 4:
      if (s.startsWith('kind', at)) {
        if (strField(K_KIND) !== 'Event') fail();
        return;
      }
      if (s.startsWith('verb', at)) {
        verb = strField(K_VERB);
        return;
      }
      if (s.startsWith('user', at)) return readUser();
      break;
    case 5:
      if (s.startsWith('stage', at)) {
        stage = strField(K_STAGE);
        return;
      }
      if (s.startsWith('level', at)) {
        level = strField(K_LEVEL);
        if (level !== 'Metadata' && level !== 'Request' && level !== 'RequestResponse' && level !== 'None') fail();
        return;
      }
      break;
    case 7:
      if (s.startsWith('auditID', at)) {
        auditID = strField(K_AUDITID);
        return;
      }
      break;
    case 9:
      if (s.startsWith('userAgent', at)) {
        userAgent = strField(K_UA);
        return;
      }
      if (s.startsWith('objectRef', at)) return readObjectRef();
      if (s.startsWith('sourceIPs', at)) return readSourceIPs();
      if (s.startsWith('timestamp', at)) return fail(); // v1beta1's time: the full path
      break;
    case 10:
      if (s.startsWith('requestURI', at)) {
        requestURI = strField(K_URI);
        return;
      }
      if (s.startsWith('apiVersion', at)) {
        if (strField(K_API) !== 'audit.k8s.io/v1') fail(); // v1beta1/v1alpha1 convert: the full path
        return;
      }
      break;
    case 13:
      if (s.startsWith('requestObject', at)) return readBody(K_REQOBJ);
      break;
    case 14:
      if (s.startsWith('stageTimestamp', at)) {
        const v = readTime(K_STAGETS);
        if (v === null)
          fail(); // v1beta1 times are read only without it: the full path
        else stageTs = v;
        return;
      }
      if (s.startsWith('responseStatus', at)) return readStatus();
      if (s.startsWith('responseObject', at)) return readBody(K_RESPOBJ);
      break;
    case 24:
      if (s.startsWith('requestReceivedTimestamp', at)) {
        const v = readTime(K_RECEIVED);
        if (v !== null) {
          receivedTs = v;
          hasReceived = true;
        }
        return;
      }
      break;
  }
  skipValue(0);
}

/**
 * The first backslash of `backslashIn` at or after `backslashFrom` (Infinity: none). Valid for a
 * line of the same text starting in `[backslashFrom, backslashAt]`: the lines of a piece are
 * decoded in order, so a piece's text is searched about once, not once per line. (Strings compare
 * by content: another piece with the same text may reuse it, as its backslashes are the same.)
 */
let backslashIn = '';
let backslashFrom = 0;
let backslashAt = Infinity;

/** Starts on the line `s[from, to)`. */
function reset(text: string, from: number, to: number): void {
  s = text;
  i = from;
  n = to;
  // The next backslash of a piece is searched once for all its lines before it.
  if (from < backslashFrom || from > backslashAt || text !== backslashIn) {
    backslashIn = text;
    backslashFrom = from;
    backslashAt = text.indexOf('\\', from);
    if (backslashAt === -1) backslashAt = Infinity;
  }
  escapes = backslashAt < to;
  failed = false;
  seen = 0;
  auditID = stage = requestURI = verb = username = userAgent = sourceIP = level = '';
  resource = namespace = name = apiGroup = apiVersion = resourceVersion = subresource = reason = '';
  stageTs = receivedTs = '';
  hasRef = refHasResource = hasReceived = false;
  responseRv = responseName = '';
  requestFrom = requestTo = -1;
  stageMsRead = receivedMsRead = NaN;
  keep = true;
  code = 0;
}

/**
 * Decodes one JSON-lines line (prefix, BOM and `\r` already removed, as `splitLines` delivers
 * it). `piece`, `at` and `ascii`, when given, are what `cutLines` passes: the decoded text the
 * line was cut from, the line's offset in it, and the piece's bytes if it was ASCII (else null).
 * The scanner then reads the piece itself — `charCodeAt` on a flat string, not on a slice — and
 * compares the template's literals as bytes. Returns {@link FAST_FINAL} with `out` filled,
 * {@link FAST_NONFINAL}, or {@link FAST_FALLBACK} when the full path must decide. Never throws.
 */
export function fastDecode(line: string, out: FastFields, piece: string | null = null, at = 0, ascii: Buffer | null = null): FastResult {
  usePiece(piece === null ? null : ascii);
  const text = piece ?? line;
  const from = piece === null ? 0 : at;
  reset(text, from, from + line.length);
  readNatively = bytes !== null && native !== null && nativeTemplate();
  if (!readNatively && !template()) {
    // Not kube-apiserver's own member order and layout: walk the members in any order.
    reset(text, from, from + line.length);
    walk();
  }
  if (failed) return FAST_FALLBACK;
  return finish(out);
}

/**
 * Makes `b` the piece whose bytes the next lines are read from (null: none; see
 * {@link fastDecode}), and hands it to the native scanner in use; nothing when it already is.
 * `work()` calls it before the scanner reads a whole piece (`scanLines`).
 */
export function usePiece(b: Buffer | null): void {
  if (b === bytes) return;
  bytes = b;
  view = b === null ? null : new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b !== null && native !== null) native.setPiece(b);
}

/** The native scanner while in use (see {@link useNativeScanner}). */
let native: NativeScanner | null = N.nativeScanner;
/**
 * Where the native scanner writes a line's offsets (and, with a dictionary in use, its ids from
 * `NATIVE_IDS` on: see {@link readNatively}).
 */
export const nativeOut = new Int32Array(N.NATIVE_OUTPUT_SIZE);
/** The native scanner's times of the line: stageTimestamp, requestReceivedTimestamp (NaN: parse here). */
const nativeTimes = new Float64Array(2);
if (native !== null) native.setOutput(nativeOut, nativeTimes);
/** Lines and final lines one `scanLines` call answers at most (see {@link nativeLines}). */
const BATCH_LINES = 1024;
const BATCH_FINALS = 512;
/**
 * Where the native scanner's `scanLines` writes (`native.ts`): per line its kind, start and end;
 * per final line its values ({@link nativeFinals}) and its two times ({@link nativeFinalTimes}),
 * the scanner checking what {@link finish} checks with this module's limits.
 */
export const nativeLines = new Int32Array(3 * BATCH_LINES);
export const nativeFinals = new Int32Array(N.NATIVE_FINAL_STRIDE * BATCH_FINALS);
export const nativeFinalTimes = new Float64Array(2 * BATCH_FINALS);
if (native !== null) native.setBatch(nativeLines, nativeFinals, nativeFinalTimes, Float64Array.of(PLAUSIBLE_FROM_MS, PLAUSIBLE_TO_MS, REQUIRED));
/**
 * Whether the last {@link fastDecode} was answered by the native scanner: then `nativeOut` holds
 * its dictionary ids, and the fields of `out` whose id was found (≥ 0) were left `''`
 * (username and userAgent; apiGroup, resource, namespace, name, subresource and apiVersion; verb;
 * sourceIP; reason) — the decoder that put the dictionary in use reads the ids instead.
 */
export let readNatively = false;

/**
 * Lets go of the piece last decoded (JavaScript's reference and the native scanner's), so a buffer
 * transferred to another thread afterwards is never read: `work()` calls it when a run is done.
 */
export function releasePiece(): void {
  bytes = null;
  view = null;
  if (native !== null) native.setPiece(null);
}

/** The native scanner in use, or null. */
export function nativeInUse(): NativeScanner | null {
  return native;
}

/**
 * Whether {@link fastDecode} lets the native scanner (`native.ts`) read ASCII pieces' lines in
 * kube-apiserver's layout (the default when it was built) or reads every line in JavaScript (the
 * agreement tests compare the two). Returns whether the scanner is now in use (false when it
 * was not built).
 */
export function useNativeScanner(on: boolean): boolean {
  native = on ? N.nativeScanner : null;
  bytes = null; // the next piece is handed to the scanner again
  view = null;
  return native !== null;
}

/** The event levels by the native scanner's code (`NATIVE_LEVEL`: 1–4). */
export const LEVELS: readonly string[] = ['', 'Metadata', 'Request', 'RequestResponse', 'None'];
const STAGES = ['', 'RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/**
 * The string at the native scanner's offsets `slot`, `slot + 1` (`''` when absent), unescaped as
 * {@link str} unescapes it (the scanner checked its escapes).
 */
function nativeStr(slot: number): string {
  const from = nativeOut[slot]!;
  if (from === -1) return '';
  const to = nativeOut[slot + 1]!;
  if ((nativeOut[N.NATIVE_ESCAPED]! & (1 << (slot >> 1))) === 0) return s.slice(from, to);
  return JSON.parse(s.slice(from - 1, to + 1)) as string;
}

/**
 * {@link template} by the native scanner: true when it read the line (`reset` for it), with the
 * values `template` would have read; false when the JavaScript path must read it.
 */
function nativeTemplate(): boolean {
  const from = i;
  if (native!.scan(from, n) !== 1) return false;
  const o = nativeOut;
  const flags = o[N.NATIVE_FLAGS]!;
  seen = o[N.NATIVE_SEEN]!;
  hasRef = (flags & 1) !== 0;
  refHasResource = (flags & 2) !== 0;
  hasReceived = (flags & 8) !== 0;
  requestFrom = o[N.NATIVE_REQUEST_BODY]!;
  requestTo = o[N.NATIVE_REQUEST_BODY + 1]!;
  const st = o[N.NATIVE_STAGE]!;
  stage = STAGES[st]!;
  try {
    // Times the scanner parsed are not cut out.
    stageMsRead = nativeTimes[0]!;
    if (Number.isNaN(stageMsRead)) stageTs = nativeStr(N.NATIVE_STAGETS);
    if (hasReceived) {
      receivedMsRead = nativeTimes[1]!;
      if (Number.isNaN(receivedMsRead)) receivedTs = nativeStr(N.NATIVE_RECEIVED);
    }
    if (st >= 3) {
      // A final stage: the record's values (a non-final one's are checked, not copied), but for
      // those the dictionary in use knew (their ids are read instead).
      level = LEVELS[o[N.NATIVE_LEVEL]!]!;
      auditID = nativeStr(N.NATIVE_AUDITID);
      requestURI = nativeStr(N.NATIVE_URI);
      resourceVersion = nativeStr(N.NATIVE_RESOURCEVERSION);
      code = o[N.NATIVE_CODE]!;
      const ids = N.NATIVE_IDS;
      if (o[ids + N.NATIVE_ID_ACTOR]! < 0) {
        username = nativeStr(N.NATIVE_USERNAME);
        userAgent = nativeStr(N.NATIVE_USERAGENT);
      }
      if (o[ids + N.NATIVE_ID_OBJECT]! < 0) {
        resource = nativeStr(N.NATIVE_RESOURCE);
        namespace = nativeStr(N.NATIVE_NAMESPACE);
        name = nativeStr(N.NATIVE_NAME);
        apiGroup = nativeStr(N.NATIVE_APIGROUP);
        apiVersion = nativeStr(N.NATIVE_APIVERSION);
        subresource = nativeStr(N.NATIVE_SUBRESOURCE);
      }
      if (o[ids + N.NATIVE_ID_WORDS]! < 0) verb = nativeStr(N.NATIVE_VERB);
      if (o[ids + N.NATIVE_ID_SOURCEIP]! < 0) sourceIP = nativeStr(N.NATIVE_SOURCEIP);
      if (o[ids + N.NATIVE_ID_REASON]! < 0) reason = nativeStr(N.NATIVE_REASON);
      if ((flags & 4) !== 0) {
        // What `finish` makes of logged bodies depends on the verb and the objectRef's name.
        verb = nativeStr(N.NATIVE_VERB);
        name = nativeStr(N.NATIVE_NAME);
        responseRv = nativeStr(N.NATIVE_RESPONSE_RV);
        responseName = nativeStr(N.NATIVE_RESPONSE_NAME);
        if (name === '' && verb === 'create' && responseName !== '') {
          // Named by its response: the object the dictionary found for the empty name is not it.
          reset(s, from, n);
          return false;
        }
      }
    }
  } catch {
    // Not expected (the scanner checked every escape); the JavaScript path decides.
    reset(s, from, n);
    return false;
  }
  i = n;
  return true;
}

/** Reads the members in any order (the line has been `reset`). */
function walk(): void {
  ws();
  if (s.charCodeAt(i) !== LBRACE || !open(RBRACE)) return fail();
  do {
    const at = key();
    if (failed) return;
    member(at);
  } while (!failed && next(RBRACE));
  if (failed) return;
  ws();
  if (i !== n) fail();
}

/**
 * A literal of the template, ready for {@link lit}: its text, its third character, and its bytes
 * as little-endian 32-bit words plus the 0–3 bytes left over.
 */
interface Literal {
  text: string;
  length: number;
  third: number;
  words: Int32Array;
  tail: Uint8Array;
}

function templateLiteral(text: string): Literal {
  const b = Buffer.from(text, 'latin1');
  const words = new Int32Array(Math.floor(b.length / 4));
  for (let k = 0; k < words.length; k++) words[k] = b.readInt32LE(4 * k);
  return { text, length: text.length, third: text.charCodeAt(2), words, tail: Uint8Array.from(b.subarray(4 * words.length)) };
}

/**
 * If the literal is at `i`, moves past it. When the line's bytes are at hand (an ASCII piece: one
 * byte per character) it compares them four at a time, and no string is cut; else one character
 * first (most optional members are absent), then one string comparison. Byte words are the
 * fastest of these, and slice + `===` is faster than a `charCodeAt` loop or `startsWith`.
 */
function lit(l: Literal): boolean {
  const end = i + l.length;
  if (view !== null) {
    // Every literal has at least one word; the first one rejects an absent member at once.
    if (end > n) return false;
    const w = l.words;
    for (let k = 0; k < w.length; k++) if (view.getInt32(i + 4 * k, true) !== w[k]) return false;
    const t = l.tail;
    const tb = i + 4 * w.length;
    for (let k = 0; k < t.length; k++) if (bytes![tb + k] !== t[k]) return false;
  } else if (s.charCodeAt(i + 2) !== l.third || end > n || s.slice(i, end) !== l.text) return false;
  i = end;
  return true;
}

// Literals of the template, in the order kube-apiserver writes them.
const L_HEAD = templateLiteral('{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"');
const L_AUDITID = templateLiteral(',"auditID":"');
const L_STAGE = templateLiteral(',"stage":"');
const L_REQUESTURI = templateLiteral(',"requestURI":"');
const L_VERB = templateLiteral(',"verb":"');
const L_USER_USERNAME = templateLiteral(',"user":{"username":"');
const L_IMPERSONATEDUSER = templateLiteral(',"impersonatedUser":');
const L_SOURCEIPS = templateLiteral(',"sourceIPs":[');
const L_USERAGENT = templateLiteral(',"userAgent":"');
const L_OBJECTREF = templateLiteral(',"objectRef":{');
const L_RESOURCE = templateLiteral('"resource":"');
const L_NAMESPACE = templateLiteral(',"namespace":"');
const L_NAME = templateLiteral(',"name":"');
const L_UID = templateLiteral(',"uid":"');
const L_APIGROUP = templateLiteral(',"apiGroup":"');
const L_APIVERSION = templateLiteral(',"apiVersion":"');
const L_RESOURCEVERSION = templateLiteral(',"resourceVersion":"');
const L_SUBRESOURCE = templateLiteral(',"subresource":"');
const L_RESPONSESTATUS = templateLiteral(',"responseStatus":');
const L_REQUESTOBJECT = templateLiteral(',"requestObject":');
const L_RESPONSEOBJECT = templateLiteral(',"responseObject":');
const L_REQUESTRECEIVEDTIMESTAMP = templateLiteral(',"requestReceivedTimestamp":');
const L_STAGETIMESTAMP = templateLiteral(',"stageTimestamp":"');
const L_ANNOTATIONS = templateLiteral(',"annotations":');

/** Reads a string value whose opening quote is just before `i`. */
function tstr(): string {
  if (escapes) {
    i--;
    if (!keep) {
      skipStr();
      return '';
    }
    return str();
  }
  const end = s.indexOf('"', i);
  if (end === -1 || end >= n) {
    fail();
    return '';
  }
  const start = i;
  i = end + 1;
  return keep ? s.slice(start, end) : '';
}

/** Skips the members of `user` after `username`, up to its `}` (a second `username` fails). */
function restOfUser(): void {
  while (!failed && next(RBRACE)) {
    const at = key();
    if (failed) return;
    if (keyIs(at, 'username')) return fail();
    skipValue(0);
  }
}

/**
 * The members as kube-apiserver writes them: compact, in the order of the Go struct
 * (`pkg/apis/audit/v1/types.go`: kind, apiVersion, level, auditID, stage, requestURI, verb, user,
 * impersonatedUser, sourceIPs, userAgent, objectRef, responseStatus, requestObject, responseObject,
 * requestReceivedTimestamp, stageTimestamp, annotations; ObjectReference: resource, namespace,
 * name, uid, apiGroup, apiVersion, resourceVersion, subresource). One `startsWith` per member
 * instead of a key scan. Returns false, with nothing decided, at the first difference.
 */
function template(): boolean {
  if (!lit(L_HEAD)) return false;
  level = tstr();
  if (level !== 'Metadata' && level !== 'Request' && level !== 'RequestResponse' && level !== 'None') return false;
  if (!lit(L_AUDITID)) return false;
  auditID = tstr();
  if (!lit(L_STAGE)) return false;
  stage = tstr();
  // A non-final stage gives no record: its values are checked but not copied.
  if (stage !== 'ResponseComplete' && stage !== 'Panic') keep = false;
  if (!lit(L_REQUESTURI)) return false;
  requestURI = tstr();
  if (!lit(L_VERB)) return false;
  verb = tstr();
  seen = K_KIND | K_API | K_LEVEL | K_AUDITID | K_STAGE | K_URI | K_VERB;
  if (failed) return false;
  if (lit(L_USER_USERNAME)) {
    seen |= K_USER;
    username = tstr();
    restOfUser();
  }
  if (lit(L_IMPERSONATEDUSER)) skipValue(0);
  if (lit(L_SOURCEIPS)) {
    seen |= K_IPS;
    if (s.charCodeAt(i) !== RBRACK) {
      sourceIP = str();
      while (!failed && next(RBRACK)) skipValue(0);
    } else i++;
  }
  if (lit(L_USERAGENT)) {
    seen |= K_UA;
    userAgent = tstr();
  }
  if (lit(L_OBJECTREF)) {
    seen |= K_REF;
    hasRef = true;
    // The first member has no comma before it; kube-apiserver always writes `resource` first.
    if (lit(L_RESOURCE)) {
      resource = tstr();
      refHasResource = true;
      if (lit(L_NAMESPACE)) namespace = tstr();
      if (lit(L_NAME)) name = tstr();
      if (lit(L_UID)) tstr();
      if (lit(L_APIGROUP)) apiGroup = tstr();
      if (lit(L_APIVERSION)) apiVersion = tstr();
      if (lit(L_RESOURCEVERSION)) resourceVersion = tstr();
      if (lit(L_SUBRESOURCE)) subresource = tstr();
    }
    if (s.charCodeAt(i) !== RBRACE) return false;
    i++;
  }
  if (lit(L_RESPONSESTATUS)) readStatus();
  if (lit(L_REQUESTOBJECT)) readBody(K_REQOBJ);
  if (lit(L_RESPONSEOBJECT)) readBody(K_RESPOBJ);
  if (lit(L_REQUESTRECEIVEDTIMESTAMP)) {
    const v = readTime(K_RECEIVED);
    if (v !== null) {
      receivedTs = v;
      hasReceived = true;
    }
  }
  keep = true;
  if (!lit(L_STAGETIMESTAMP)) return false;
  seen |= K_STAGETS;
  stageTs = tstr();
  if (lit(L_ANNOTATIONS)) skipValue(0);
  if (failed || s.charCodeAt(i) !== RBRACE || i + 1 !== n) return false;
  i++;
  return true;
}

/** Checks what `decodeObject` checks after the members were read, and fills `out`. */
function finish(out: FastFields): FastResult {
  if ((seen & REQUIRED) !== REQUIRED) return FAST_FALLBACK;
  const final = stage === 'ResponseComplete' || stage === 'Panic';
  if (!final && stage !== 'RequestReceived' && stage !== 'ResponseStarted') return FAST_FALLBACK;
  const stageMs = Number.isNaN(stageMsRead) ? parseTimestamp(stageTs) : stageMsRead;
  if (!(stageMs >= PLAUSIBLE_FROM_MS && stageMs < PLAUSIBLE_TO_MS)) return FAST_FALLBACK;
  let receivedMs = stageMs;
  if (hasReceived) {
    receivedMs = Number.isNaN(receivedMsRead) ? parseTimestamp(receivedTs) : receivedMsRead;
    if (Number.isNaN(receivedMs)) return FAST_FALLBACK;
    if (receivedMs < PLAUSIBLE_FROM_MS || receivedMs > stageMs) receivedMs = stageMs;
  }
  if (!final) return FAST_NONFINAL;
  // What the full path adds on a final stage: objectRef fields derived from the URL.
  if (hasRef && !refHasResource) return FAST_FALLBACK;
  let body: BodyDigest | null = null;
  if (requestFrom >= 0 && (verb === 'update' || verb === 'patch')) {
    // Only an update's or patch's request body is digested (`Normalizer.normalize`): parsed alone.
    let parsed: unknown;
    try {
      parsed = JSON.parse(s.slice(requestFrom, requestTo));
    } catch {
      return FAST_FALLBACK; // a raw control character: the full path names the bad line
    }
    body = digestBody(parsed);
  }

  out.auditID = auditID;
  out.stage = stage as FastFields['stage'];
  out.requestURI = requestURI;
  out.verb = verb;
  out.username = username;
  out.userAgent = userAgent;
  out.sourceIP = sourceIP;
  out.level = level;
  out.hasObjectRef = hasRef;
  out.resource = resource;
  out.namespace = namespace;
  // A create with generateName is named by its logged response (as `Normalizer.normalize` does).
  out.name = name === '' && verb === 'create' ? responseName : name;
  out.apiGroup = apiGroup;
  out.apiVersion = apiVersion;
  out.resourceVersion = resourceVersion;
  out.subresource = subresource;
  out.code = code;
  out.reason = reason;
  out.stageTimeMs = stageMs;
  out.receivedTimeMs = receivedMs;
  out.responseResourceVersion = responseRv;
  out.body = body;
  return FAST_FINAL;
}
