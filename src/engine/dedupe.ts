/**
 * De-duplication of requests by `auditID` in fixed memory.
 *
 * The same request appears twice when logs overlap: a file given twice, an export that overlaps
 * a rotated file, the same log collected from two places. Copies can be far apart in the
 * stream (a concatenation that starts over), so remembering auditIDs for a time window is not
 * enough; this remembers the most recent `history` to `2 · history` requests, by count, in
 * arrival order (before any reordering, so a late copy still carries its own time).
 *
 * Why hashes in typed arrays: a `Set<string>` of a million UUIDs costs ~100 MB; an open-
 * addressing table of 53-bit hashes (two 32-bit hash lanes) costs 4 bytes per
 * slot and generation (see {@link TwoGenerations}), allocated once. A false "duplicate" needs a 53-bit collision among at most 2·history
 * remembered ids: about 2·10⁶ / 2⁵³ ≈ 2·10⁻¹⁰ per request at the default.
 */
import type { RequestRecord } from '../decoding/record.js';
import { idLanes, LANES } from '../decoding/hash.js';

/**
 * 53-bit hash of a string and a number: the string's two lanes (`idLanes`), the number's two
 * 32-bit halves mixed in last ({@link mixIn}). Never 0.
 */
export function hash53(s: string, n = 0): number {
  idLanes(s);
  mixIn(LANES[0]!, LANES[1]!, (n % 0x100000000) | 0, Math.floor(n / 0x100000000) | 0);
  return W[MIX_HI]! * 0x100000000 + W[MIX_LO]! + 1;
}

// Scratch words, in a typed array: a variable or argument holding a number that is not a small
// integer (past 2³¹, a fraction) boxes it in a new heap number at every store or call, hundreds
// of thousands of times a run, so the hashing passes only int32 values between its functions.
// MIX_HI, MIX_LO: the last `mixIn`; then the two keys of the last request given to `keys`, each
// as its high and low halves.
const W = new Uint32Array(6);
const MIX_HI = 0;
const MIX_LO = 1;
const KEY_A_HI = 2;
const KEY_A_LO = 3;
const KEY_B_HI = 4;
const KEY_B_LO = 5;
/** The times (ms) of the two keys of the last request given to `keys`: its `ts`, its `receivedTs`. */
const T = new Float64Array(2);

/**
 * The 53-bit hash of a string's lanes `a`, `b` with a number's low and high 32 bits (`lo`, `hi`;
 * all four as int32) mixed in, as its high 21 bits (`W[MIX_HI]`) and low 32 bits (`W[MIX_LO]`).
 */
function mixIn(a: number, b: number, lo: number, hi: number): void {
  a = Math.imul(a ^ lo, 0x01000193);
  a = Math.imul(a ^ hi, 0x01000193);
  b = Math.imul(b ^ lo, 0x5bd1e995);
  b ^= b >>> 13;
  b = Math.imul(b ^ hi, 0x5bd1e995);
  b ^= b >>> 15;
  W[MIX_HI] = a >>> 11;
  W[MIX_LO] = b;
}

/**
 * A request's two keys (see {@link AuditIdDedupe.seen}) into `W[KEY_A_*]` / `W[KEY_B_*]`:
 * `auditID` with its times in µs; the second is the first when both times are the same (then
 * returns true). The auditID's lanes come with the request (`idLaneA`, `idLaneB`: the parser
 * threads hash it where they cut it), else it is hashed here, once for both. Takes the request,
 * not its times: times passed as arguments would each be boxed at the call (see `W`).
 */
function keys(r: Pick<RequestRecord, 'auditID' | 'ts' | 'receivedTs' | 'idLaneA' | 'idLaneB'>): boolean {
  let a = r.idLaneA;
  let b = r.idLaneB;
  if ((a | b) === 0) {
    // Not computed where the record was made (see `RequestRecord.idLaneA`).
    idLanes(r.auditID);
    a = LANES[0]!;
    b = LANES[1]!;
  }
  T[0] = r.ts;
  T[1] = r.receivedTs;
  const ts = Math.round(r.ts * 1000);
  mixIn(a, b, (ts % 0x100000000) | 0, Math.floor(ts / 0x100000000) | 0);
  W[KEY_A_HI] = W[MIX_HI]!;
  W[KEY_A_LO] = W[MIX_LO]!;
  const same = r.receivedTs === r.ts;
  if (!same) {
    const received = Math.round(r.receivedTs * 1000);
    mixIn(a, b, (received % 0x100000000) | 0, Math.floor(received / 0x100000000) | 0);
  }
  W[KEY_B_HI] = W[MIX_HI]!;
  W[KEY_B_LO] = W[MIX_LO]!;
  return same;
}

/** The request {@link AuditIdDedupe.seen} hands to `keys`, reused (its times are stored in place). */
const ONE = { auditID: '', ts: 0.5, receivedTs: 0.5, idLaneA: 0, idLaneB: 0 };

/** Slots of a page (see {@link TwoGenerations}): 256 bytes, four cache lines. */
const PAGE_SLOTS = 64;
/** Keys a page takes at its own home before the next ones of its buckets go to their hash homes. */
const PAGE_FILL = 48;
/** Width of a time bucket (ms): one page per millisecond of request time. */
const BUCKET_MS = 1;

/**
 * Two generations of 53-bit hashes, each an open-addressing table (linear probing, load ≤ 0.5)
 * of 32-bit words. A key's home is in the page of its time (the request time mixed into it): one
 * page of {@link PAGE_SLOTS} slots per millisecond ({@link BUCKET_MS}), pages in time order and
 * the table's pages taken in turn (it wraps every 32.8 s of request time with the default
 * history), the slot in the page by hash. Requests come mostly in time order, so consecutive
 * keys go to the same or the next few cache lines, where homes by hash alone would make nearly
 * every key a cache miss in 8 MB. A page takes at most {@link PAGE_FILL} keys at its own
 * home; past that (more than about 24,000 requests a second), the next keys of that page go to
 * their hash home anywhere in the table and the page is marked, so a lookup of a key whose page
 * is marked probes there too. A lookup skips a generation whose keys' times do not span its key's
 * time (the previous generation, for a request later than any it holds). A word keeps 32 bits of
 * the hash (its high 21 and the top 11 of its low 32; 0 marks an empty word: a fingerprint of 0 is
 * kept as 1), so a lookup at a page home compares 38 bits (the 6 of the slot in the page and the
 * 32 kept) with the at most 48 keys of that page, and at a hash home all 53 from 2²¹ slots up (the
 * default history has 2²¹ per generation: 16 MB in all): about 2·10⁻¹⁰ false duplicates per
 * request either way. Integer arithmetic only: the hash comes as its high 21 and low 32 bits,
 * times through a `Float64Array`.
 */
class TwoGenerations {
  private readonly words: Uint32Array[];
  /** Per generation and page: the keys it took at its own home. */
  private readonly fill: Uint8Array[];
  /** Per generation and page: 1 when keys of it went to their hash homes. */
  private readonly spilled: Uint8Array[];
  /** Per generation `g`: the earliest (at `2g`) and latest (`2g + 1`) key time it holds, ms. */
  private readonly span = new Float64Array([Infinity, -Infinity, Infinity, -Infinity]);
  private readonly mask: number;
  /** Slots of a page (fewer than {@link PAGE_SLOTS} only in a table smaller than one page), less one. */
  private readonly pageMask: number;
  /** log2 of the slots in a page. */
  private readonly pageBits: number;
  /** Pages, less one. */
  private readonly pagesMask: number;
  /** The generation (0 or 1) that {@link add} fills; the other is the previous one. */
  current = 0;
  /** Hashes in the current generation. */
  size = 0;

  /** @param capacity hashes one generation must hold; each generation has the next power of 2 ≥ 2 × that slots. */
  constructor(capacity: number) {
    let bits = 4;
    while (2 ** bits < capacity * 2) bits++;
    if (bits > 30) throw new RangeError(`dedupe table too large: ${capacity} hashes per generation`);
    this.words = [new Uint32Array(2 ** bits), new Uint32Array(2 ** bits)];
    this.mask = 2 ** bits - 1;
    this.pageBits = Math.min(bits, Math.log2(PAGE_SLOTS));
    this.pageMask = 2 ** this.pageBits - 1;
    const pages = 2 ** (bits - this.pageBits);
    this.pagesMask = pages - 1;
    this.fill = [new Uint8Array(pages), new Uint8Array(pages)];
    this.spilled = [new Uint8Array(pages), new Uint8Array(pages)];
  }

  /** The page of time `times[t]` (ms): its bucket's number, modulo the pages (`| 0` keeps its low 32 bits). */
  private page(times: Float64Array, t: number): number {
    return (Math.floor(times[t]! / BUCKET_MS) | 0) & this.pagesMask;
  }

  /**
   * Whether generation `g` holds the hash whose halves are `keys[at]` (high) and `keys[at + 1]`
   * (low), of the key with time `times[t]` (ms). Hashes and times are passed as places in typed
   * arrays: a 32-bit value past 2³⁰ or a time passed as a number would be boxed in a heap number
   * at every call.
   */
  has(keys: Uint32Array, at: number, times: Float64Array, t: number, g: number): boolean {
    const span = this.span;
    const time = times[t]!;
    if (!(time >= span[2 * g]! && time <= span[2 * g + 1]!)) return false;
    const lo = keys[at + 1]!;
    const fp = ((keys[at]! << 11) | (lo >>> 21)) >>> 0 || 1;
    const w = this.words[g]!;
    const mask = this.mask;
    const page = this.page(times, t);
    for (let i = (page << this.pageBits) | (lo & this.pageMask); ; i = (i + 1) & mask) {
      const v = w[i]!;
      if (v === fp) return true;
      if (v === 0) break;
    }
    if (this.spilled[g]![page] === 0) return false;
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      const v = w[i]!;
      if (v === fp) return true;
      if (v === 0) return false;
    }
  }

  /** Whether either generation holds the hash (see {@link has}). */
  hasEither(keys: Uint32Array, at: number, times: Float64Array, t: number): boolean {
    return this.has(keys, at, times, t, this.current) || this.has(keys, at, times, t, 1 - this.current);
  }

  /** Adds the hash at `keys[at]` of time `times[t]` (see {@link has}) to the current generation unless there; the caller keeps `size` ≤ capacity. */
  add(keys: Uint32Array, at: number, times: Float64Array, t: number): void {
    const g = this.current;
    const lo = keys[at + 1]!;
    const fp = ((keys[at]! << 11) | (lo >>> 21)) >>> 0 || 1;
    const w = this.words[g]!;
    const mask = this.mask;
    const page = this.page(times, t);
    let i: number;
    const fill = this.fill[g]!;
    if (fill[page]! < PAGE_FILL) {
      fill[page]!++;
      i = (page << this.pageBits) | (lo & this.pageMask);
    } else {
      this.spilled[g]![page] = 1;
      i = lo & mask;
    }
    for (;;) {
      const v = w[i]!;
      if (v === 0) break;
      if (v === fp) return;
      i = (i + 1) & mask;
    }
    w[i] = fp;
    this.size++;
    const time = times[t]!;
    const span = this.span;
    if (time < span[2 * g]!) span[2 * g] = time;
    if (time > span[2 * g + 1]!) span[2 * g + 1] = time;
  }

  /** The current generation becomes the previous one; the previous one is emptied and becomes current. */
  turn(): void {
    const g = 1 - this.current;
    this.words[g]!.fill(0);
    this.fill[g]!.fill(0);
    this.spilled[g]!.fill(0);
    this.span[2 * g] = Infinity;
    this.span[2 * g + 1] = -Infinity;
    this.current = g;
    this.size = 0;
  }
}

/** Remembers the last `history`…`2·history` auditIDs seen. */
export class AuditIdDedupe {
  private readonly table: TwoGenerations;

  /**
   * @param history requests per generation (≥ 1). The table is sized for it up front (two keys
   *   per request): 8 bytes × the next power of 2 ≥ 4·history slots, 16 MB at the default
   *   500,000, so memory does not grow with the log (the OS commits the pages as they fill).
   */
  constructor(private readonly history: number) {
    this.table = new TwoGenerations(2 * history);
  }

  private requests = 0;

  /**
   * True when this request was seen among the remembered ones; otherwise remembers it. A request
   * is `auditID` with its `stageTimestamp` (`ts`) or its `requestReceivedTimestamp`
   * (`receivedTs`), epoch ms: the time is part of the key because clients may send their own
   * `Audit-ID` header and reuse it (`pkg/endpoints/filters/audit_init.go`), and both times count
   * because some shapes carry only one (legacy text lines only the received time, GKE entries
   * only the completion time), so the same request read from two shapes still matches.
   */
  seen(auditID: string, ts: number, receivedTs: number = ts): boolean {
    const q = ONE;
    q.auditID = auditID;
    q.ts = ts;
    q.receivedTs = receivedTs;
    return this.seenRequest(q);
  }

  /**
   * {@link seen} for a request as read: the lanes of its auditID it carries (`idLaneA`,
   * `idLaneB`, hashed by the parser threads) are not computed again.
   */
  seenRequest(r: Pick<RequestRecord, 'auditID' | 'ts' | 'receivedTs' | 'idLaneA' | 'idLaneB'>): boolean {
    const same = keys(r);
    return this.check(W, KEY_A_HI, same);
  }

  /**
   * Whether the request with keys A at `keys[at]` (time `T[0]`), B at `keys[at + 2]` (time
   * `T[1]`; `same`: one key) was seen; otherwise remembers it.
   */
  private check(keys: Uint32Array, at: number, same: boolean): boolean {
    const t = this.table;
    if (t.hasEither(keys, at, T, 0) || (!same && t.hasEither(keys, at + 2, T, 1))) return true;
    t.add(keys, at, T, 0);
    if (!same) t.add(keys, at + 2, T, 1);
    if (++this.requests >= this.history) {
      t.turn();
      this.requests = 0;
    }
    return false;
  }
}
