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

/**
 * Two generations of 53-bit hashes in one fixed open-addressing table (linear probing, load
 * ≤ 0.5 per generation): slot `i` is two 32-bit words side by side, one per generation, so a
 * lookup in both generations touches one cache line where two tables touched two (the table
 * is 16 MB, so nearly every probe is a cache miss). The home slot is the hash's low `log2(slots)`
 * bits and a word keeps the next 32 bits (0 marks an empty word: a fingerprint of 0 is kept as
 * 1), so a lookup compares log2(slots) + min(32, 53 − log2(slots)) bits: all 53 from 2²¹ slots
 * up (the default history has 2²¹: 16 MB). Integer arithmetic only: the hash comes as its high
 * 21 and low 32 bits.
 */
class TwoGenerations {
  private readonly words: Uint32Array;
  private readonly mask: number;
  /** log2 of the slots (4 … 30). */
  private readonly bits: number;
  /** The generation (0 or 1) that {@link add} fills; the other is the previous one. */
  current = 0;
  /** Hashes in the current generation. */
  size = 0;

  /** @param capacity hashes one generation must hold; the table has the next power of 2 ≥ 2 × that slots. */
  constructor(capacity: number) {
    let bits = 4;
    while (2 ** bits < capacity * 2) bits++;
    if (bits > 30) throw new RangeError(`dedupe table too large: ${capacity} hashes per generation`);
    this.words = new Uint32Array(2 ** (bits + 1));
    this.mask = 2 ** bits - 1;
    this.bits = bits;
  }

  /**
   * Whether either generation holds the hash whose halves are `keys[at]` (high) and `keys[at + 1]`
   * (low). Hashes are passed as a place in a typed array: a 32-bit value past 2³⁰ passed as a
   * number would be boxed in a heap number at every call.
   */
  has(keys: Uint32Array, at: number): boolean {
    const hi = keys[at]!;
    const lo = keys[at + 1]!;
    // The 32 bits above the home slot's (0 marks an empty word: kept as 1).
    const fp = ((hi << (32 - this.bits)) | (lo >>> this.bits)) >>> 0 || 1;
    const w = this.words;
    const mask = this.mask;
    let open = 3; // bit g: generation g's probe sequence has not reached an empty word yet
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      if ((open & 1) !== 0) {
        const v = w[2 * i]!;
        if (v === fp) return true;
        if (v === 0) open &= 2;
      }
      if ((open & 2) !== 0) {
        const v = w[2 * i + 1]!;
        if (v === fp) return true;
        if (v === 0) open &= 1;
      }
      if (open === 0) return false;
    }
  }

  /** Adds the hash at `keys[at]` (see {@link has}) to the current generation unless there; the caller keeps `size` ≤ capacity. */
  add(keys: Uint32Array, at: number): void {
    const hi = keys[at]!;
    const lo = keys[at + 1]!;
    const fp = ((hi << (32 - this.bits)) | (lo >>> this.bits)) >>> 0 || 1;
    const w = this.words;
    const g = this.current;
    let i = lo & this.mask;
    for (;;) {
      const v = w[2 * i + g]!;
      if (v === 0) break;
      if (v === fp) return;
      i = (i + 1) & this.mask;
    }
    w[2 * i + g] = fp;
    this.size++;
  }

  /** The current generation becomes the previous one; the previous one is emptied and becomes current. */
  turn(): void {
    const g = 1 - this.current;
    const w = this.words;
    for (let k = g; k < w.length; k += 2) w[k] = 0;
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

  /** Whether the request with keys A at `keys[at]`, B at `keys[at + 2]` (`same`: one key) was seen; otherwise remembers it. */
  private check(keys: Uint32Array, at: number, same: boolean): boolean {
    const t = this.table;
    if (t.has(keys, at) || (!same && t.has(keys, at + 2))) return true;
    t.add(keys, at);
    if (!same) t.add(keys, at + 2);
    if (++this.requests >= this.history) {
      t.turn();
      this.requests = 0;
    }
    return false;
  }
}
