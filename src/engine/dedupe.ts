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
 * number's two 32-bit halves mixed in last. Never 0 (0 marks an empty slot).
 */
export function hash53(s: string, n = 0): number {
  lanes(s);
  return mixIn(laneA, laneB, n);
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

// The two keys of the last request given to `keys`.
let keyA = 0;
let keyB = 0;

/**
 * A request's two keys (see {@link AuditIdDedupe.seen}) into `keyA` / `keyB`: `auditID` with its
 * times in µs; the second equals the first when both times do. The auditID is hashed once for
 * both, the same as `hash53(auditID, …)` twice.
 */
function keys(auditID: string, ts: number, receivedTs: number): void {
  lanes(auditID);
  keyA = mixIn(laneA, laneB, Math.round(ts * 1000));
  keyB = receivedTs === ts ? keyA : mixIn(laneA, laneB, Math.round(receivedTs * 1000));
}

/** The 53-bit hash of a string's lanes with the number `n`'s two 32-bit halves mixed in. */
function mixIn(a: number, b: number, n: number): number {
  const lo = n % 0x100000000 | 0;
  const hi = Math.floor(n / 0x100000000) | 0;
  a = Math.imul(a ^ lo, 0x01000193);
  a = Math.imul(a ^ hi, 0x01000193);
  b = Math.imul(b ^ lo, 0x5bd1e995);
  b ^= b >>> 13;
  b = Math.imul(b ^ hi, 0x5bd1e995);
  b ^= b >>> 15;
  return (a >>> 11) * 0x100000000 + (b >>> 0) + 1;
}

/**
 * Two generations of 53-bit hashes in one fixed open-addressing table (linear probing, load
 * ≤ 0.5 per generation): slot `i` is two 32-bit words side by side, one per generation, so a
 * lookup in both generations touches one cache line where two tables touched two (the table
 * is 16 MB, so nearly every probe is a cache miss). The home slot comes from the hash's low bits
 * and a word keeps up to 32 of the bits above them (0 marks an empty word), so a lookup compares
 * log2(slots) + min(32, 53 − log2(slots)) bits: all 53 from 2²¹ slots up (the default history
 * has 2²¹: 16 MB).
 */
class TwoGenerations {
  private readonly words: Uint32Array;
  private readonly mask: number;
  private readonly slots: number;
  /** The generation (0 or 1) that {@link add} fills; the other is the previous one. */
  current = 0;
  /** Hashes in the current generation. */
  size = 0;

  /** @param capacity hashes one generation must hold; the table has the next power of 2 ≥ 2 × that slots. */
  constructor(capacity: number) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.words = new Uint32Array(2 * n);
    this.mask = n - 1;
    this.slots = n;
  }

  private fingerprint(h: number): number {
    return Math.floor(h / this.slots) % 0x100000000 || 1;
  }

  /** A word of `h`'s home slot (its cache line), read to bring it in ahead of use (see `AuditIdDedupe.prepare`). */
  touch(h: number): number {
    return this.words[2 * (h % this.slots)]!;
  }

  /** Whether either generation holds `h`. */
  has(h: number): boolean {
    const fp = this.fingerprint(h);
    const w = this.words;
    let open = 3; // bit g: generation g's probe sequence has not reached an empty word yet
    for (let i = h % this.slots; ; i = (i + 1) & this.mask) {
      for (let g = 0; g < 2; g++) {
        if ((open & (1 << g)) === 0) continue;
        const v = w[2 * i + g] as number;
        if (v === fp) return true;
        if (v === 0) open &= ~(1 << g);
      }
      if (open === 0) return false;
    }
  }

  /** Adds `h` to the current generation unless there; the caller keeps `size` ≤ capacity. */
  add(h: number): void {
    const fp = this.fingerprint(h);
    const w = this.words;
    const g = this.current;
    let i = h % this.slots;
    for (;;) {
      const v = w[2 * i + g] as number;
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
    return this.check(keyA, keyB);
  }

  // The keys of the requests of the last `prepare`, by index.
  private keysA = new Float64Array(PREPARE_MAX);
  private keysB = new Float64Array(PREPARE_MAX);
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
    const ka = this.keysA;
    const kb = this.keysB;
    let touched = 0;
    for (let k = 0; k < count; k++) {
      const r = batch[from + k]!;
      keys(r.auditID, r.ts, r.receivedTs);
      ka[k] = keyA;
      kb[k] = keyB;
      touched += t.touch(keyA) + (keyB === keyA ? 0 : t.touch(keyB));
    }
    this.touched = touched;
  }

  /** {@link seen} for the `k`th request of the last {@link prepare}. */
  seenPrepared(k: number): boolean {
    return this.check(this.keysA[k]!, this.keysB[k]!);
  }

  /** Whether a request with keys `a`, `b` was seen; otherwise remembers it. */
  private check(a: number, b: number): boolean {
    const t = this.table;
    if (t.has(a) || (b !== a && t.has(b))) return true;
    t.add(a);
    if (b !== a) t.add(b);
    if (++this.requests >= this.history) {
      t.turn();
      this.requests = 0;
    }
    return false;
  }
}
