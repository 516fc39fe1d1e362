/**
 * The work of the parallel JSON-lines reader's threads (`parallel.ts`, `worker.ts`): a run of
 * whole lines in, per line what the fast path made of it out. Runs {@link cutLines} and {@link fastDecode}
 * exactly as the single-threaded reader does; lines the fast path leaves to the full path are sent
 * back as text, so everything stateful (bad-line samples, sniffing, legacy pairs, wrappers) stays
 * on the main thread, in line order.
 */
import {
  FAST_FALLBACK,
  FAST_FINAL,
  fastDecode,
  LEVELS,
  nativeFinals,
  nativeFinalTimes,
  nativeInUse,
  nativeLines,
  nativeOut,
  newFastFields,
  readNatively,
  releasePiece,
  usePiece,
  type FastFields,
} from '../decoding/fast.js';
import * as N from '../decoding/native.js';
import { NATIVE_ID_ACTOR, NATIVE_ID_OBJECT, NATIVE_ID_WORDS, NATIVE_IDS, nativeScanner, type NativeDict, type NativeScanner } from '../decoding/native.js';
import { readSync } from 'node:fs';
import { cutFrom, cutLines, MAX_BYTES_PER_UNIT, passLine, type OnAsciiPiece, type OnLine } from './lines.js';
import { fnv30, fresh, StringPool } from '../decoding/fresh.js';
import { idLanes, LANES } from '../decoding/hash.js';
import { cappedUserAgent, uriFacts, type UriFacts } from '../decoding/normalize.js';

/** A run of lines to decode (see `Frame` in `lines.ts`). */
export interface WorkRequest {
  id: number;
  bytes: Uint8Array;
  atEnd: boolean;
  /** Number of the run's first line (1-based within the member). */
  first: number;
  maxLength: number;
}

/**
 * A byte range of a regular file to read and decode (the parallel reader's range mode): the
 * lines that *start* in `[start, end)` — a line starts at offset 0 or after a `\n` — each read to
 * its end, even past `end`. So consecutive ranges give every line once, wherever they cut.
 */
export interface RangeRequest {
  id: number;
  /** A file descriptor of the file, opened by the reading thread (descriptors are per process). */
  fd: number;
  start: number;
  end: number;
  maxLength: number;
  /**
   * Its slot in the pool's claims (see {@link claimRange}), or -1: a worker decodes the range only
   * if it claims the slot first, and answers {@link WorkResult.skipped} if the reading thread did.
   */
  claim: number;
}

/**
 * A range request's claim (`claims` is shared by the reading thread and its workers): the slot
 * holds `id + 1` while the request is open; the first of the worker (which leaves `-(id + 1)`) and
 * the reading thread (which leaves 0) to swap it out decodes the range. True for the one that did.
 * A slot is reused only for a request given out after the one it held was consumed, so a stale
 * request (answered or taken already) can never take a newer one's slot.
 */
export function claimRange(claims: Int32Array, slot: number, id: number, byWorker: boolean): boolean {
  return Atomics.compareExchange(claims, slot, id + 1, byWorker ? -(id + 1) : 0) === id + 1;
}

/** The answer to a {@link RangeRequest} whose range the reading thread claimed first: nothing read. */
export function skippedRange(id: number, state: WorkState): WorkResult {
  return {
    id,
    skipped: true,
    lines: 0,
    kinds: new Uint8Array(0),
    strings: [],
    numbers: new Float64Array(0),
    fallback: [],
    bodies: [],
    actorEpoch: state.actorEpoch,
    objectEpoch: state.objectEpoch,
    wordEpoch: state.wordEpoch,
    actors: [],
    objects: [],
    words: [],
  };
}

/** Per line of a run, in order. */
export const LINE_NONE = 0; // blank
export const LINE_FINAL = 1; // a final-stage event read fast: its fields are next in `strings`/`numbers`
export const LINE_NONFINAL = 2; // a valid non-final event
export const LINE_FALLBACK = 3; // for the full path: its text is next in `fallback`
export const LINE_OVERLONG = 4; // longer than maxLength

/**
 * Strings of one final record in `strings`, in this order. The requestURI is not sent: what a
 * record keeps of it (`fieldManager`, `dryRun`: `uriFacts`) is derived here.
 */
export const STRING_FIELDS = ['auditID', 'resourceVersion'] as const satisfies ReadonlyArray<keyof FastFields>;
/** Strings of one final record given as ids of the worker's string dictionary (few distinct values), in `numbers` after the ids of actor and object. */
export const WORD_FIELDS = ['verb', 'sourceIP', 'level', 'reason', 'fieldManager'] as const satisfies ReadonlyArray<keyof FastFields>;
/** Where the auditID's hash lanes are among a record's {@link NUMBER_FIELDS}. */
export const NUMBER_LANES = 6 + WORD_FIELDS.length;
/** The timestamp field names of a record without a request body's digest (see {@link WorkResult.bodies}). */
const EMPTY_NAMES: readonly string[] = [];
/** A final record's flag (in `numbers`): what it keeps of logged bodies is next in `bodies`. */
export const FLAG_BODY = 4;
/**
 * Numbers of one final record in `numbers`: stageTimeMs, receivedTimeMs, code, flags (1 Panic,
 * 2 dryRun, {@link FLAG_BODY}), actor id, object id (-1: no objectRef), one word id per {@link WORD_FIELDS}, then the
 * auditID's two hash lanes (`idLanes` in hash.ts: `RequestRecord.idLaneA`, `idLaneB`). Ids index
 * this worker's dictionaries (see {@link WorkResult.actors}).
 */
export const NUMBER_FIELDS = NUMBER_LANES + 2;
/** Entries a worker's dictionaries hold together before the largest starts over (a new epoch of it). */
export const DICTIONARY_LIMIT = 20_000;

/** What a worker answers for one {@link WorkRequest} or {@link RangeRequest}. */
export interface WorkResult {
  id: number;
  /** Set instead of the rest when a {@link RangeRequest}'s file could not be read: the error's code and message. */
  error?: { code: string; message: string };
  /** Set (and nothing else) when the reading thread claimed the range first ({@link claimRange}): not to be consumed. */
  skipped?: true;
  /** Which worker answered (set by the pool): dictionaries are per worker. */
  worker?: number;
  lines: number;
  kinds: Uint8Array;
  /**
   * The {@link STRING_FIELDS} of every final record, in order. Copies that pin nothing: a worker's
   * travel by structured clone (each arrives as a string of its own), and a run decoded on the
   * reading thread copies them (`WorkState.onReadingThread`).
   */
  strings: string[];
  numbers: Float64Array;
  fallback: string[];
  /**
   * What each final record with flag {@link FLAG_BODY} keeps of its logged bodies, in order: its
   * `responseResourceVersion`, then its request body's digest as `content`, `timestamps` and the
   * `timestampFields` list (`''`, `''`, `[]` when it has none).
   */
  bodies: Array<string | readonly string[]>;
  /**
   * Epochs of the worker's actor, object and word dictionaries: the ids of a dictionary's
   * earlier epoch are void (it started over: {@link WorkState.trim}).
   */
  actorEpoch: number;
  objectEpoch: number;
  wordEpoch: number;
  /** Actors first seen in this run, in id order: username, userAgent, username, … */
  actors: string[];
  /** Objects first seen in this run, in id order: apiGroup, resource, namespace, name, subresource, apiVersion, … */
  objects: string[];
  /** Words (verbs, source IPs, levels, reasons) first seen in this run, in id order. */
  words: string[];
}

interface ActorEntry {
  username: string;
  userAgent: string;
  id: number;
  /** The next entry of the same hash (a chain, not an array per hash: ~40 bytes less each). */
  next: ActorEntry | null;
}
interface WordEntry {
  text: string;
  id: number;
  next: WordEntry | null;
}
interface ObjectEntry {
  apiGroup: string;
  resource: string;
  namespace: string;
  name: string;
  subresource: string;
  apiVersion: string;
  id: number;
  /** The next entry of the same hash. */
  next: ObjectEntry | null;
}

/**
 * One decoder's dictionaries: a worker thread keeps one for its life, and a reader that decodes
 * some runs itself (`decodeRanges`) one of its own. Keyed by the FNV hash of the username and of
 * the object name; entries are compared in full, so a hash collision only costs a comparison.
 * Ids are valid within their dictionary's epoch.
 */
export class WorkState {
  /**
   * @param onReadingThread whether the answers are used on this thread, not posted: their
   *   strings are then copied (`fresh`) so a kept record does not pin the run's text.
   */
  constructor(
    readonly onReadingThread = false,
    /** Entries its dictionaries hold together before the largest starts over (see {@link trim}). */
    readonly limit = DICTIONARY_LIMIT,
  ) {}

  /**
   * Per dictionary, the number of times it started over (see {@link WorkResult.actorEpoch}): one
   * starts over alone ({@link trim}), so a log of ever new objects does not define its actors and
   * words again every time the objects fill up.
   */
  actorEpoch = 0;
  objectEpoch = 0;
  wordEpoch = 0;
  actorIds = new Map<number, ActorEntry>();
  actorCount = 0;
  objectIds = new Map<number, ObjectEntry>();
  objectCount = 0;
  /** Words by {@link fnv30} hash, chained (see {@link WordEntry}); `wordCount` of them. */
  wordIds = new Map<number, WordEntry>();
  wordCount = 0;
  /** One copy of each object part other than the name (few values: groups, resources, namespaces). */
  parts = new StringPool(DICTIONARY_LIMIT);

  /**
   * The native scanner's cache of these dictionaries' ids (keyed by the values' raw bytes; see
   * `NATIVE_IDS`), made when first needed; emptied with them.
   */
  private nativeDict: NativeDict | null = null;

  /** The per-line work of `work()` for this state, made once. */
  private runReader: RunReader | null = null;

  /** {@link runReader}, made if need be. */
  reader(): RunReader {
    this.runReader ??= new RunReader(this);
    return this.runReader;
  }

  /** The kept copy of a few-valued object part. */
  part(s: string): string {
    return this.parts.get(s);
  }

  /** {@link nativeDict}, made if need be (the scanner is built). */
  dictCache(): NativeDict {
    this.nativeDict ??= nativeScanner!.newDict();
    return this.nativeDict;
  }

  /** Starts every dictionary over (a new epoch of each). */
  reset(): void {
    this.resetActors();
    this.resetObjects();
    this.resetWords();
  }

  /**
   * When the dictionaries hold more than `limit` entries together, starts over the one that holds
   * the most (objects, on a log of ever new objects): the others keep their ids, so their values
   * are not defined again, and memory stays as bounded as if all started over.
   */
  trim(): void {
    const a = this.actorCount;
    const o = this.objectCount;
    const w = this.wordCount;
    if (a + o + w <= this.limit) return;
    if (o >= a && o >= w) this.resetObjects();
    else if (a >= w) this.resetActors();
    else this.resetWords();
  }

  private resetActors(): void {
    if (this.nativeDict !== null) nativeScanner!.clearDict(this.nativeDict, 0);
    this.actorEpoch++;
    this.actorIds = new Map();
    this.actorCount = 0;
  }

  private resetObjects(): void {
    if (this.nativeDict !== null) nativeScanner!.clearDict(this.nativeDict, 1);
    this.objectEpoch++;
    this.parts = new StringPool(DICTIONARY_LIMIT);
    this.objectIds = new Map();
    this.objectCount = 0;
  }

  private resetWords(): void {
    if (this.nativeDict !== null) nativeScanner!.clearDict(this.nativeDict, 2);
    this.wordEpoch++;
    this.wordIds = new Map();
    this.wordCount = 0;
  }
}

/**
 * The per-line work of {@link work} for one {@link WorkState} (made once with it): the answer being
 * built and the callbacks `cutLines` calls. The callbacks are made once per state, not per run:
 * closures made anew for every run would be compiled by V8's optimizing compiler again and again.
 */
class RunReader {
  kinds: number[] = [];
  strings: string[] = [];
  /**
   * The answer's numbers: the first `numberCount` of `numbers`, grown by doubling and copied out
   * once per run, not a `number[]` grown element by element and converted again.
   */
  numbers = new Float64Array(NUMBER_FIELDS * 1024);
  numberCount = 0;
  fallback: string[] = [];
  bodies: Array<string | readonly string[]> = [];
  actors: string[] = [];
  objects: string[] = [];
  words: string[] = [];
  /** The number of the next line not answered yet. */
  next = 0;
  /** Whether the answer is used on this thread (`WorkState.onReadingThread`): its strings are copied. */
  copy = false;
  maxLength = 0;
  /** The native scanner in use, or null. */
  nat: NativeScanner | null = null;
  // The last value of each word field and its id: most records repeat the previous verb, level
  // and reason, and a `===` is cheaper than a Map lookup.
  private readonly lastWord: string[] = WORD_FIELDS.map(() => '');
  private readonly lastWordId: number[] = WORD_FIELDS.map(() => -1);
  private readonly f = newFastFields();
  private readonly facts: UriFacts = { fieldManager: '', dryRun: false };

  constructor(private readonly state: WorkState) {}

  /** {@link numbers}, with room for one more record's. */
  private room(): Float64Array {
    if (this.numberCount + NUMBER_FIELDS > this.numbers.length) {
      const grown = new Float64Array(2 * this.numbers.length);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    return this.numbers;
  }

  /** Starts the answer to `req` (the state's dictionaries already started over if need be). */
  begin(req: WorkRequest): void {
    this.kinds = [];
    this.strings = [];
    this.numberCount = 0;
    this.fallback = [];
    this.bodies = [];
    this.actors = [];
    this.objects = [];
    this.words = [];
    this.next = req.first;
    this.copy = this.state.onReadingThread;
    this.maxLength = req.maxLength;
    this.nat = nativeInUse();
    this.lastWord.fill('');
    this.lastWordId.fill(-1);
  }

  /** The id of word field `k`'s value `s` in the state's dictionary (a new one defined in this answer). */
  private word(k: number, s: string): number {
    if (s === this.lastWord[k] && this.lastWordId[k] !== -1) return this.lastWordId[k]!;
    // By hash, as the other dictionaries: source IPs change from record to record.
    const state = this.state;
    const h = fnv30(s);
    const first = state.wordIds.get(h);
    let id = -1;
    for (let w = first ?? null; w !== null; w = w.next) {
      if (w.text === s) {
        id = w.id;
        break;
      }
    }
    if (id === -1) {
      id = state.wordCount++;
      const kept = fresh(s);
      state.wordIds.set(h, { text: kept, id, next: first ?? null });
      this.words.push(kept);
    }
    this.lastWord[k] = s;
    this.lastWordId[k] = id;
    return id;
  }

  /**
   * The id of the actor `username`, `agent` (cut as `cappedUserAgent` says) in the state's
   * dictionary (a new one defined in this answer). Looked up by hashes of the fields, compared in full: a key string per record
   * (built, then hashed) cost more than all the rest of the record here.
   */
  private actorId(username: string, agent: string): number {
    const userAgent = cappedUserAgent(agent);
    const state = this.state;
    const ah = fnv30(username);
    const byUser = state.actorIds.get(ah);
    for (let a = byUser ?? null; a !== null; a = a.next) {
      if (a.userAgent === userAgent && a.username === username) return a.id;
    }
    const id = state.actorCount++;
    const e: ActorEntry = { username: fresh(username), userAgent: fresh(userAgent), id, next: byUser ?? null };
    state.actorIds.set(ah, e);
    this.actors.push(e.username, e.userAgent);
    return id;
  }

  /**
   * The id of an object in the state's dictionary, as {@link actorId}: one per object and
   * `apiVersion`, so the reading thread makes each record's object with the `apiVersion` its
   * request named (`RunDecoder`).
   */
  private objectId(apiGroup: string, resource: string, namespace: string, name: string, subresource: string, apiVersion: string): number {
    const state = this.state;
    const oh = fnv30(name);
    const named = state.objectIds.get(oh);
    for (let o = named ?? null; o !== null; o = o.next) {
      if (o.resource === resource && o.namespace === namespace && o.name === name && o.apiGroup === apiGroup && o.subresource === subresource && o.apiVersion === apiVersion)
        return o.id;
    }
    const id = state.objectCount++;
    const e: ObjectEntry = {
      id,
      apiGroup: state.part(apiGroup),
      resource: state.part(resource),
      namespace: state.part(namespace),
      name: fresh(name),
      subresource: state.part(subresource),
      apiVersion: state.part(apiVersion),
      next: named ?? null,
    };
    state.objectIds.set(oh, e);
    this.objects.push(e.apiGroup, e.resource, e.namespace, e.name, e.subresource, e.apiVersion);
    return id;
  }

  /**
   * A line the native scanner answered `NATIVE_LINE_MISS`: the ids of final slot `b` it did not
   * find (-1) looked up here, from the values cut out of the piece's bytes at the offsets its
   * reading left in `nativeOut` (none has escapes: those lines take the per-line path), each
   * remembered by the scanner; then the line is a final line like any other. Reading the line
   * again on the per-line path would cost many times more, and have V8 compile that path too.
   */
  private resolveMiss(ascii: Buffer, b: number): void {
    const F = nativeFinals;
    const ids = b + N.NATIVE_FINAL_IDS;
    const cut = (slot: number): string => {
      const from = nativeOut[slot]!;
      return from === -1 ? '' : ascii.toString('latin1', from, nativeOut[slot + 1]);
    };
    if (F[ids + NATIVE_ID_ACTOR] === -1) {
      F[ids + NATIVE_ID_ACTOR] = this.actorId(cut(N.NATIVE_USERNAME), cut(N.NATIVE_USERAGENT));
      this.nat!.remember(NATIVE_ID_ACTOR, F[ids + NATIVE_ID_ACTOR]!);
    }
    if (F[ids + NATIVE_ID_OBJECT] === -1 && (nativeOut[N.NATIVE_FLAGS]! & N.NATIVE_HAS_REF) !== 0) {
      F[ids + NATIVE_ID_OBJECT] = this.objectId(
        cut(N.NATIVE_APIGROUP),
        cut(N.NATIVE_RESOURCE),
        cut(N.NATIVE_NAMESPACE),
        cut(N.NATIVE_NAME),
        cut(N.NATIVE_SUBRESOURCE),
        cut(N.NATIVE_APIVERSION),
      );
      this.nat!.remember(NATIVE_ID_OBJECT, F[ids + NATIVE_ID_OBJECT]!);
    }
    // WORD_FIELDS in order: verb, source IP, level (by its code), reason.
    for (let k = 0; k < 4; k++) {
      const w = ids + NATIVE_ID_WORDS + k;
      if (F[w] !== -1) continue;
      const text = k === 2 ? LEVELS[nativeOut[N.NATIVE_LEVEL]!]! : cut(k === 0 ? N.NATIVE_VERB : k === 1 ? N.NATIVE_SOURCEIP : N.NATIVE_REASON);
      F[w] = this.word(k, text);
      this.nat!.remember(NATIVE_ID_WORDS + k, F[w]);
    }
  }

  /** {@link word}, kept in the native scanner's cache too when it missed there (slot -1). */
  private wordId(k: number, s: string, slot: number): number {
    const id = this.word(k, s);
    if (slot === -1) this.nat!.remember(NATIVE_ID_WORDS + k, id);
    return id;
  }

  /** Line `no` is answered next: the lines skipped since the last answer were blank. */
  private reach(no: number): void {
    while (this.next < no) {
      this.kinds.push(LINE_NONE);
      this.next++;
    }
    this.next = no + 1;
  }

  /** One line as `cutLines` passes it on, read by the per-line path (`fastDecode`). */
  readonly onLine: OnLine = (no, text, piece, at, ascii) => {
    this.reach(no);
    if (text === null) {
      this.kinds.push(LINE_OVERLONG);
      return;
    }
    const r = fastDecode(text, this.f, piece, at, ascii);
    if (r === FAST_FALLBACK) {
      this.kinds.push(LINE_FALLBACK);
      this.fallback.push(fresh(text)); // rare; a copy, as a worker's answer would carry it
    } else if (r === FAST_FINAL) {
      this.kinds.push(LINE_FINAL);
      // In STRING_FIELDS order, spelled out (a keyed load per field cost more than the push).
      if (this.copy) this.strings.push(fresh(this.f.auditID), fresh(this.f.resourceVersion));
      else this.strings.push(this.f.auditID, this.f.resourceVersion);
      const query = uriFacts(this.f.requestURI, this.facts);
      // Ids the native scanner found (≥ 0; their fields were left ''), else looked up here.
      const viaNative = readNatively;
      const f = this.f;
      let actor = viaNative ? nativeOut[NATIVE_IDS + NATIVE_ID_ACTOR]! : -2;
      if (actor < 0) {
        const slot = actor;
        actor = this.actorId(f.username, f.userAgent);
        if (slot === -1) this.nat!.remember(NATIVE_ID_ACTOR, actor);
      }
      let object = -1;
      if (f.hasObjectRef) {
        object = viaNative ? nativeOut[NATIVE_IDS + NATIVE_ID_OBJECT]! : -2;
        if (object < 0) {
          const slot = object;
          object = this.objectId(f.apiGroup, f.resource, f.namespace, f.name, f.subresource, f.apiVersion);
          if (slot === -1) this.nat!.remember(NATIVE_ID_OBJECT, object);
        }
      }
      // WORD_FIELDS in order, spelled out.
      const w = NATIVE_IDS + NATIVE_ID_WORDS;
      const verb = viaNative ? nativeOut[w]! : -2;
      const ip = viaNative ? nativeOut[w + 1]! : -2;
      const level = viaNative ? nativeOut[w + 2]! : -2;
      const reason = viaNative ? nativeOut[w + 3]! : -2;
      const n = this.room();
      const i = this.numberCount;
      n[i] = this.f.stageTimeMs;
      n[i + 1] = this.f.receivedTimeMs;
      n[i + 2] = this.f.code;
      let flags = (this.f.stage === 'Panic' ? 1 : 0) | (query.dryRun ? 2 : 0);
      const body = f.body;
      if (f.responseResourceVersion !== '' || body !== null) {
        flags |= FLAG_BODY;
        const rrv = f.responseResourceVersion;
        if (body === null) this.bodies.push(this.copy ? fresh(rrv) : rrv, '', '', EMPTY_NAMES);
        else this.bodies.push(this.copy ? fresh(rrv) : rrv, body.content, body.timestamps, body.timestampFields);
      }
      n[i + 3] = flags;
      n[i + 4] = actor;
      n[i + 5] = object;
      n[i + 6] = verb >= 0 ? verb : this.wordId(0, this.f.verb, verb);
      n[i + 7] = ip >= 0 ? ip : this.wordId(1, this.f.sourceIP, ip);
      n[i + 8] = level >= 0 ? level : this.wordId(2, this.f.level, level);
      n[i + 9] = reason >= 0 ? reason : this.wordId(3, this.f.reason, reason);
      n[i + 10] = this.word(4, query.fieldManager);
      idLanes(f.auditID);
      n[i + NUMBER_LANES] = LANES[0]!;
      n[i + NUMBER_LANES + 1] = LANES[1]!;
      this.numberCount = i + NUMBER_FIELDS;
    } else this.kinds.push(LINE_NONFINAL);
  };

  /**
   * With the native scanner, an ASCII piece read in one call (`scanLines`): the lines it answers
   * itself cost here only what their records keep (two strings, the URI's facts), and every other
   * line takes the per-line path ({@link onLine}), in order.
   */
  readonly onAscii: OnAsciiPiece = (ascii, last, no) => {
    usePiece(ascii);
    // The piece's text only if a line takes the per-line path: the values a record keeps are cut
    // from the bytes (flat strings of their own), so the worker does not copy each piece into a
    // string of 64 KB (a gigabyte per gigabyte of log, through its young generation and the
    // cache the main thread works in).
    let text: string | null = null;
    const L = nativeLines;
    const F = nativeFinals;
    const T = nativeFinalTimes;
    const end = ascii.length;
    let at = 0;
    for (;;) {
      const count = at <= end ? this.nat!.scanLines(at, end, last, this.maxLength) : 0;
      if (count === 0) break;
      let fin = 0;
      for (let k = 0; k < 3 * count; k += 3) {
        const kind = L[k]!;
        no++;
        if (kind === N.NATIVE_LINE_NONFINAL || kind === N.NATIVE_LINE_FINAL || kind === N.NATIVE_LINE_MISS) {
          this.reach(no);
          if (kind === N.NATIVE_LINE_NONFINAL) {
            this.kinds.push(LINE_NONFINAL);
            continue;
          }
          this.kinds.push(LINE_FINAL);
          const b = N.NATIVE_FINAL_STRIDE * fin;
          if (kind === N.NATIVE_LINE_MISS) this.resolveMiss(ascii, b);
          const rv = F[b + N.NATIVE_FINAL_RV]!;
          const uri = F[b + N.NATIVE_FINAL_URI]!;
          // Cut from the bytes: copies already (nothing to `fresh`).
          this.strings.push(
            ascii.toString('latin1', F[b + N.NATIVE_FINAL_AUDITID], F[b + N.NATIVE_FINAL_AUDITID + 1]),
            rv === -1 ? '' : ascii.toString('latin1', rv, F[b + N.NATIVE_FINAL_RV + 1]),
          );
          const query = uri === -1 ? NO_FACTS : uriFacts(ascii.toString('latin1', uri, F[b + N.NATIVE_FINAL_URI + 1]), this.facts);
          const ids = b + N.NATIVE_FINAL_IDS;
          const n = this.room();
          const i = this.numberCount;
          n[i] = T[2 * fin]!;
          n[i + 1] = T[2 * fin + 1]!;
          n[i + 2] = F[b + N.NATIVE_FINAL_CODE]!;
          n[i + 3] = F[b + N.NATIVE_FINAL_PANIC]! | (query.dryRun ? 2 : 0);
          n[i + 4] = F[ids + NATIVE_ID_ACTOR]!;
          n[i + 5] = F[ids + NATIVE_ID_OBJECT]!;
          n[i + 6] = F[ids + NATIVE_ID_WORDS]!;
          n[i + 7] = F[ids + NATIVE_ID_WORDS + 1]!;
          n[i + 8] = F[ids + NATIVE_ID_WORDS + 2]!;
          n[i + 9] = F[ids + NATIVE_ID_WORDS + 3]!;
          n[i + 10] = this.word(4, query.fieldManager);
          n[i + NUMBER_LANES] = F[b + N.NATIVE_FINAL_LANES]!;
          n[i + NUMBER_LANES + 1] = F[b + N.NATIVE_FINAL_LANES + 1]!;
          this.numberCount = i + NUMBER_FIELDS;
          fin++;
        } else {
          const from = L[k + 1]!;
          const to = L[k + 2]!;
          // The per-line path (a blank or prefixed line, anything the scanner is not sure of, an
          // escaped value). Only the line is decoded, its bytes a piece of their own that the
          // scanner reads again: decoding the whole 64 KB piece for one line would cost far more.
          const bytes = ascii.subarray(from, to);
          passLine(bytes.toString('latin1'), 0, to - from, no, this.maxLength, bytes, this.onLine);
          usePiece(ascii); // the scanner reads on in the whole piece
        }
      }
      at = L[3 * count - 1]! + 1;
    }
    // What the scanner left: nothing but a line's unterminated start where the piece is not the
    // last (cutLines leaves that too), unless it could not read the piece at all (not expected).
    return at < end ? cutFrom((text ??= ascii.toString('latin1')), at, last, no, this.maxLength, ascii, this.onLine) : no;
  };
}

/**
 * Decodes one run with the dictionaries of `state` (the worker calls it per message). Never
 * throws on input. Dictionary definitions and fall-back texts are copies (`fresh`), and so are
 * the records' strings when `state.onReadingThread` (a worker's are copied by structured clone
 * as they are posted), so an answer kept on the reading thread never keeps the run's text alive.
 */
export function work(req: WorkRequest, state: WorkState): WorkResult {
  const bytes = Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength);
  // A new member: its reader knows no id yet.
  if (req.first === 1) state.reset();
  else state.trim();
  const r = state.reader();
  r.begin(req);
  const nat = r.nat;
  if (nat !== null) nat.useDict(state.dictCache());
  let lines = 0;
  try {
    lines = cutLines(bytes, req.atEnd, req.first, req.maxLength, r.onLine, nat !== null ? r.onAscii : undefined);
  } finally {
    if (nat !== null) nat.useDict(null);
    releasePiece();
  }
  const kinds = r.kinds;
  while (r.next < req.first + lines) {
    kinds.push(LINE_NONE);
    r.next++;
  }
  return {
    id: req.id,
    lines,
    kinds: Uint8Array.from(kinds),
    strings: r.strings,
    numbers: r.numbers.slice(0, r.numberCount),
    fallback: r.fallback,
    bodies: r.bodies,
    actorEpoch: state.actorEpoch,
    objectEpoch: state.objectEpoch,
    wordEpoch: state.wordEpoch,
    actors: r.actors,
    objects: r.objects,
    words: r.words,
  };
}

/** What a record keeps of a requestURI that names neither `fieldManager` nor `dryRun` (see `uriFacts`). */
const NO_FACTS: Readonly<UriFacts> = { fieldManager: '', dryRun: false };

/** Bytes read past a range's end, where its last line ends (audit lines are a few KB at most, as a rule). */
const TAIL_READ = 16 * 1024;

/** A worker's read buffer for range requests, reused. */
let rangeBuffer = Buffer.allocUnsafe(0);

/** Reads `len` bytes at `pos` into `buf` at `at`; returns how many (fewer only at end of file). */
function readFully(fd: number, buf: Buffer, at: number, len: number, pos: number): number {
  let got = 0;
  while (got < len) {
    const n = readSync(fd, buf, at + got, len - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/**
 * Reads and decodes the lines of one {@link RangeRequest} as {@link work} decodes a run:
 * `first` is 1 for the range at offset 0 (its line 1 may carry a BOM) and 2 otherwise (main
 * numbers the lines). A last line longer than `maxLength` allows (3 bytes per UTF-16 unit) is
 * not kept: it is answered as one over-long line. A file that cannot be read is answered with
 * `error`, not thrown. Uses the dictionaries of `state`, as {@link work} does.
 */
export function workRange(req: RangeRequest, state: WorkState): WorkResult {
  const fd = req.fd;
  const maxBytes = req.maxLength * MAX_BYTES_PER_UNIT;
  const first = req.start === 0 ? 1 : 2;
  const none = (): WorkResult => work({ id: req.id, bytes: new Uint8Array(0), atEnd: false, first: 2, maxLength: req.maxLength }, state);
  try {
    // From the byte before `start` (to see whether a line starts at `start`): buffer index
    // `want` is file offset `end`. One read takes the range and TAIL_READ more, where the last
    // line that starts in the range nearly always ends.
    const from = req.start === 0 ? 0 : req.start - 1;
    const want = req.end - from;
    if (rangeBuffer.length < want + TAIL_READ) rangeBuffer = Buffer.allocUnsafe(want + TAIL_READ);
    let buf = rangeBuffer;
    let len = readFully(fd, buf, 0, want + TAIL_READ, from);
    let atEnd = len < want + TAIL_READ;
    const lim = Math.min(len, want); // lines starting before `lim` are this range's
    if (lim === 0) return none(); // the file shrank
    let begin = 0;
    if (req.start > 0) {
      const nl = buf.subarray(0, lim).indexOf(10);
      if (nl === -1 || nl + 1 >= lim) return none(); // no line starts in the range
      begin = nl + 1;
    }
    // The end of the last line starting before `lim`: the first newline from `lim - 1` on.
    const cut = buf.subarray(0, len).indexOf(10, lim - 1);
    if (cut !== -1) return work({ id: req.id, bytes: buf.subarray(begin, cut + 1), atEnd: false, first, maxLength: req.maxLength }, state);
    if (atEnd) return work({ id: req.id, bytes: buf.subarray(begin, len), atEnd: true, first, maxLength: req.maxLength }, state);
    // A long last line: read on to its newline, the end of the file, or past what maxLength allows.
    const tailFrom = Math.max(begin, buf.subarray(0, lim).lastIndexOf(10) + 1);
    for (;;) {
      if (len - tailFrom > maxBytes) {
        // Over-long: the lines before it, then it as one over-long line (the next ranges skip
        // it: no line starts before its newline).
        const r = work({ id: req.id, bytes: buf.subarray(begin, tailFrom), atEnd: false, first, maxLength: req.maxLength }, state);
        return { ...r, lines: r.lines + 1, kinds: appendKind(r.kinds, LINE_OVERLONG) };
      }
      if (buf.length < len + TAIL_READ) {
        const bigger = Buffer.allocUnsafe(Math.max(2 * buf.length, len + TAIL_READ));
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const n = readFully(fd, buf, len, TAIL_READ, from + len);
      const nl = buf.subarray(0, len + n).indexOf(10, len);
      len += n;
      if (nl !== -1) return work({ id: req.id, bytes: buf.subarray(begin, nl + 1), atEnd: false, first, maxLength: req.maxLength }, state);
      if (n < TAIL_READ) {
        atEnd = true;
        return work({ id: req.id, bytes: buf.subarray(begin, len), atEnd, first, maxLength: req.maxLength }, state);
      }
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ...none(), error: { code: e.code ?? '', message: e.message } };
  }
}

function appendKind(kinds: Uint8Array, kind: number): Uint8Array {
  const out = new Uint8Array(kinds.length + 1);
  out.set(kinds);
  out[kinds.length] = kind;
  return out;
}
