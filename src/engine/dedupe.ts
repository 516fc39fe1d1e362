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
 * addressing table of 53-bit hashes (two independent 32-bit FNV-1a lanes) costs 4 bytes per
 * slot and generation (see {@link TwoGenerations}), allocated once. A false "duplicate" needs a 53-bit collision among at most 2·history
 * remembered ids: about 2·10⁶ / 2⁵³ ≈ 2·10⁻¹⁰ per request at the default.
 */

/**
 * 53-bit hash of a string and a number: FNV-1a in two lanes with different offset bases, the
 * number's two 32-bit halves mixed in last ({@link mixIn}). Never 0.
 */
export function hash53(s: string, n = 0): number {
  lanes(s);
  mixIn(laneA, laneB, n);
  return mixHi * 0x100000000 + mixLo + 1;
}

// The two lanes of the last string hashed by `lanes` (no allocation per call).
let laneA = 0;
let laneB = 0;

/** FNV-1a of `s` in two lanes, left in `laneA` / `laneB`. */
function lanes(s: string): void {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  laneA = a;
  laneB = b;
}

// The last `mixIn`: a 53-bit hash as its high 21 bits (`mixHi`) and low 32 bits (`mixLo`, unsigned).
let mixHi = 0;
let mixLo = 0;

/** The 53-bit hash of a string's lanes with the number `n`'s two 32-bit halves mixed in, into `mixHi` / `mixLo`. */
function mixIn(a: number, b: number, n: number): void {
  const lo = n % 0x100000000 | 0;
  const hi = Math.floor(n / 0x100000000) | 0;
  a = Math.imul(a ^ lo, 0x01000193);
  a = Math.imul(a ^ hi, 0x01000193);
  b = Math.imul(b ^ lo, 0x5bd1e995);
  b ^= b >>> 13;
  b = Math.imul(b ^ hi, 0x5bd1e995);
  b ^= b >>> 15;
  mixHi = a >>> 11;
  mixLo = b >>> 0;
}

// The two keys of the last request given to `keys`, each as its two halves (see `mixIn`), and
// whether they are the same key.
let keyAHi = 0;
let keyALo = 0;
let keyBHi = 0;
let keyBLo = 0;
let keysSame = true;

/**
 * A request's two keys (see {@link AuditIdDedupe.seen}) into `keyA*` / `keyB*`: `auditID` with
 * its times in µs; the second is the first when both times are the same. The auditID is hashed
 * once for both.
 */
function keys(auditID: string, ts: number, receivedTs: number): void {
  lanes(auditID);
  mixIn(laneA, laneB, Math.round(ts * 1000));
  keyAHi = mixHi;
  keyALo = mixLo;
  keysSame = receivedTs === ts;
  if (keysSame) {
    keyBHi = keyAHi;
    keyBLo = keyALo;
  } else {
    mixIn(laneA, laneB, Math.round(receivedTs * 1000));
    keyBHi = mixHi;
    keyBLo = mixLo;
  }
}

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

  /** The 32 bits above the home slot's of the hash `hi`·2³² + `lo` (never 0). */
  private fingerprint(hi: number, lo: number): number {
    return ((hi << (32 - this.bits)) | (lo >>> this.bits)) >>> 0 || 1;
  }

  /** A word of the hash's home slot (its cache line), read to bring it in ahead of use (see `AuditIdDedupe.prepare`). */
  touch(lo: number): number {
    return this.words[2 * (lo & this.mask)]!;
  }

  /** Whether either generation holds the hash. */
  has(hi: number, lo: number): boolean {
    const fp = this.fingerprint(hi, lo);
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

  /** Adds the hash to the current generation unless there; the caller keeps `size` ≤ capacity. */
  add(hi: number, lo: number): void {
    const fp = this.fingerprint(hi, lo);
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

/** Requests one {@link AuditIdDedupe.prepare} takes at most. */
export const PREPARE_MAX = 256;

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
    keys(auditID, ts, receivedTs);
    return this.check(keyAHi, keyALo, keyBHi, keyBLo, keysSame);
  }

  // The keys of the requests of the last `prepare`, by index: high and low halves of key A, then
  // of key B (equal to A's when the request's two times are).
  private keys = new Uint32Array(4 * PREPARE_MAX);
  /** Where `prepare`'s reads go, so they are not optimized away. */
  private touched = 0;

  /**
   * Hashes the keys of `batch[from, from + count)` (count ≤ {@link PREPARE_MAX}) and reads one word
   * of each key's slot: the table is 16 MB, nearly every key is a cache miss, and reads issued
   * back to back overlap where the same reads spread over the detectors' work wait one by one.
   * Then {@link seenPrepared} answers for each of them, in order, as {@link seen} would.
   */
  prepare(batch: ReadonlyArray<{ auditID: string; ts: number; receivedTs: number }>, from: number, count: number): void {
    const t = this.table;
    const k4 = this.keys;
    let touched = 0;
    for (let k = 0; k < count; k++) {
      const r = batch[from + k]!;
      keys(r.auditID, r.ts, r.receivedTs);
      k4[4 * k] = keyAHi;
      k4[4 * k + 1] = keyALo;
      k4[4 * k + 2] = keyBHi;
      k4[4 * k + 3] = keyBLo;
      touched += t.touch(keyALo) + (keysSame ? 0 : t.touch(keyBLo));
    }
    this.touched = touched;
  }

  /** {@link seen} for the `k`th request of the last {@link prepare}. */
  seenPrepared(k: number): boolean {
    const k4 = this.keys;
    const aHi = k4[4 * k]!;
    const aLo = k4[4 * k + 1]!;
    const bHi = k4[4 * k + 2]!;
    const bLo = k4[4 * k + 3]!;
    return this.check(aHi, aLo, bHi, bLo, aHi === bHi && aLo === bLo);
  }

  /** Whether a request with keys A and B (`same`: one key) was seen; otherwise remembers it. */
  private check(aHi: number, aLo: number, bHi: number, bLo: number, same: boolean): boolean {
    const t = this.table;
    if (t.has(aHi, aLo) || (!same && t.has(bHi, bLo))) return true;
    t.add(aHi, aLo);
    if (!same) t.add(bHi, bLo);
    if (++this.requests >= this.history) {
      t.turn();
      this.requests = 0;
    }
    return false;
  }

}
