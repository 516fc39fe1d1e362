/**
 * The native line scanner (`native/scan.cc`, built by `npm install` / `npm ci` with node-gyp into
 * `build/Release/auditstorm.node`), when it was built: the fast path's template reading
 * (`template()` in `fast.ts`) compiled for the machine. Where no C++ compiler was at hand the
 * install goes on without it and {@link nativeScanner} is null: every line is then read by the
 * JavaScript decoder, with the same results, only slower.
 */
import { createRequire } from 'node:module';

/**
 * The addon's functions. `scan(at, end)` reads the line `piece[at, end)` of the piece last given
 * to `setPiece` (ASCII bytes: one byte per character) and answers 1 with its offsets in the
 * array given to `setOutput` (at least `outputSize` slots, laid out as the `NATIVE_*` constants),
 * or 0 when the JavaScript path must read the line; `times` then holds its `stageTimestamp` and
 * `requestReceivedTimestamp` as `parseTimestamp` (`time.ts`) gives them, or NaN where it did not
 * parse one (absent, escaped, or not a time: JavaScript decides). Each thread (main, worker) has
 * its own piece and output.
 */
export interface NativeScanner {
  /** The piece `scan` reads (held until the next call; null lets go). Its buffer must not be transferred while set. */
  setPiece(bytes: Uint8Array | null): number;
  /** Where `scan` writes: the offsets and ids (`out`), and the line's two times (`times`, see {@link NativeScanner.scan}). */
  setOutput(out: Int32Array, times: Float64Array): number;
  scan(at: number, end: number): number;
  /** A new, empty dictionary cache (see {@link NATIVE_IDS}); freed when the handle is collected. */
  newDict(): NativeDict;
  /** The dictionary `scan` looks final lines up in from now on (null: none). */
  useDict(dict: NativeDict | null): number;
  /** Empties a dictionary cache: the ids of one dictionary (`which`: 0 actors, 1 objects, 2 words) or of all (no `which`). */
  clearDict(dict: NativeDict, which?: number): number;
  /**
   * Keeps `id` for the value of dictionary `kind` (a `NATIVE_ID_*`) of the line last scanned, whose
   * slot said -1 (not there); 1 when kept.
   */
  remember(kind: number, id: number): number;
  /**
   * Where {@link scanLines} writes: per line three slots of `lines` (a `NATIVE_LINE_*` kind, the
   * line's start, the offset of its `\n` or the end), per final line {@link NATIVE_FINAL_STRIDE}
   * slots of `finals` (`NATIVE_FINAL_*`) and two of `times` (stageTimestamp and
   * requestReceivedTimestamp as `finish()` in fast.ts takes them), and `limits` =
   * [PLAUSIBLE_FROM_MS, PLAUSIBLE_TO_MS, REQUIRED] of fast.ts, copied. All held.
   */
  setBatch(lines: Int32Array, finals: Int32Array, times: Float64Array, limits: Float64Array): number;
  /**
   * The lines of the piece's bytes `[at, end)` as `cutLines` (lines.ts) cuts them: each up to its
   * `\n`, and a last one without one only when `last`; as many as fit in the batch arrays.
   * Returns how many were written (the next call starts after the last one's end). A line the
   * scanner reads as `fastDecode` would and whose record values the dictionary in use knows is
   * answered here (`NATIVE_LINE_FINAL` / `NONFINAL`; `NATIVE_LINE_MISS`, the call's last, when a
   * value is new to the dictionary); any other is `NATIVE_LINE_JS`, for the per-line path (which
   * decides as it always did). Needs the piece, output and batch arrays set, and for final lines a
   * dictionary in use.
   */
  scanLines(at: number, end: number, last: boolean, maxLength: number): number;
  readonly outputSize: number;
}

/** An opaque handle of the addon's: one decoder's dictionary cache. */
export type NativeDict = { readonly __nativeDict: unique symbol };

// Output slots, as `native/scan.cc` writes them: the start and end offsets (-1: absent) of each
// string value, then the top-level members seen, flags, level, stage, status code and
// which strings have escapes.
export const NATIVE_AUDITID = 0;
export const NATIVE_URI = 2;
export const NATIVE_VERB = 4;
export const NATIVE_USERNAME = 6;
export const NATIVE_SOURCEIP = 8;
export const NATIVE_USERAGENT = 10;
export const NATIVE_RESOURCE = 12;
export const NATIVE_NAMESPACE = 14;
export const NATIVE_NAME = 16;
export const NATIVE_APIGROUP = 18;
export const NATIVE_APIVERSION = 20;
export const NATIVE_RESOURCEVERSION = 22;
export const NATIVE_SUBRESOURCE = 24;
export const NATIVE_REASON = 26;
export const NATIVE_RECEIVED = 28;
export const NATIVE_STAGETS = 30;
/** The `K_*` bits of the top-level members seen (as fast.ts's `seen`). */
export const NATIVE_SEEN = 32;
/** Bits: 1 objectRef present, 2 objectRef has `resource`, 4 a body was logged, 8 `requestReceivedTimestamp` given. */
export const NATIVE_FLAGS = 33;
/** {@link NATIVE_FLAGS} bit: the event has an `objectRef`. */
export const NATIVE_HAS_REF = 1;
/** 1 Metadata, 2 Request, 3 RequestResponse, 4 None. */
export const NATIVE_LEVEL = 34;
/** 1 RequestReceived, 2 ResponseStarted, 3 ResponseComplete, 4 Panic. */
export const NATIVE_STAGE = 35;
/** `responseStatus.code` (0 when absent). */
export const NATIVE_CODE = 36;
/** Bit `slot / 2` set: that string has escapes (`JSON.parse` of it with its quotes gives its value). */
export const NATIVE_ESCAPED = 37;
/**
 * Dictionary ids of a final line read with a dictionary in use (`useDict`), from here on, one
 * per `NATIVE_ID_*`: the id the decoder gave that value (the raw bytes of the line's value are
 * the key), -1 when it is not in the cache (the decoder looks it up, then `remember`s it), -2 when
 * not looked up (a value with escapes, no objectRef, no dictionary in use).
 */
export const NATIVE_IDS = 38;
export const NATIVE_ID_ACTOR = 0;
export const NATIVE_ID_OBJECT = 1;
/** Words from here on, one slot each in `WORD_FIELDS` order (work-lines.ts): verb, source IP, level, reason. */
export const NATIVE_ID_WORDS = 2;
/**
 * What a record keeps of logged bodies (as `readBody` in fast.ts reads it): the start and end
 * offsets of the `requestObject` value (-1: none), then of the `responseObject`'s
 * `metadata.resourceVersion` and `metadata.name` strings (-1: absent or not a string; their
 * escapes in {@link NATIVE_ESCAPED} as any string's).
 */
export const NATIVE_REQUEST_BODY = 44;
export const NATIVE_RESPONSE_RV = 46;
export const NATIVE_RESPONSE_NAME = 48;
export const NATIVE_ID_SOURCEIP = NATIVE_ID_WORDS + 1;
export const NATIVE_ID_REASON = NATIVE_ID_WORDS + 3;
/** Kinds of {@link NativeScanner.scanLines}: for the per-line path (`cutLines` and `fastDecode` decide). */
export const NATIVE_LINE_JS = 0;
/** Longer than `maxLength` (its `\r` counted, as `cutLines` counts it). */
export const NATIVE_LINE_LONG = 1;
/** A valid event of a non-final stage (`fastDecode` answers FAST_NONFINAL). */
export const NATIVE_LINE_NONFINAL = 2;
/** A final event read by the scanner, its values in the next final slots (`fastDecode` answers FAST_FINAL). */
export const NATIVE_LINE_FINAL = 3;
/** Nothing before its newline but, maybe, a `\r` (`cutLines` passes nothing on). */
export const NATIVE_LINE_EMPTY = 4;
/**
 * A final event the scanner read (in `[start, end)` less a trailing `\r`) with a value the
 * dictionary in use does not know: its values in the next final slots as a final line's, with -1
 * for each id not found, and the call's last line, its reading left in the output as `scan` leaves
 * one (`onAscii` in work-lines.ts cuts the new values out of the piece at the output's offsets,
 * looks them up and `remember`s them).
 */
export const NATIVE_LINE_MISS = 5;
/**
 * A final line's slots in `finals`: offsets of auditID, resourceVersion (-1: absent) and
 * requestURI (-1 when it holds neither `fieldManager=` nor `dryRun=`, so nothing a record keeps:
 * see `uriFacts`), code, 1 for Panic, the dictionary ids (`NATIVE_ID_*` order; object -1
 * without objectRef), then the auditID's hash lanes.
 */
export const NATIVE_FINAL_AUDITID = 0;
export const NATIVE_FINAL_RV = 2;
export const NATIVE_FINAL_URI = 4;
export const NATIVE_FINAL_CODE = 6;
export const NATIVE_FINAL_PANIC = 7;
export const NATIVE_FINAL_IDS = 8;
/** The auditID's two hash lanes (`idLanes` in hash.ts, from the line's bytes), as int32. */
export const NATIVE_FINAL_LANES = 14;
export const NATIVE_FINAL_STRIDE = 16;
/** Slots the output needs. */
export const NATIVE_OUTPUT_SIZE = 50;

function load(): NativeScanner | null {
  try {
    const addon = createRequire(import.meta.url)('../../build/Release/auditstorm.node') as NativeScanner;
    // A build of another layout (an old build/ left behind) is not used.
    return addon.outputSize === NATIVE_OUTPUT_SIZE && typeof addon.scanLines === 'function' ? addon : null;
  } catch {
    return null;
  }
}

/** The addon, or null when it was not built (or could not be loaded on this platform). */
export const nativeScanner: NativeScanner | null = load();
