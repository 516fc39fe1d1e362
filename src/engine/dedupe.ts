/**
 * De-duplication of requests by `auditID` in fixed memory.
 *
 * The same request appears twice when logs overlap: a file given twice, an export that overlaps
 * a rotated file, the same log collected from two places. Copies can be far apart in the
 * stream (a concatenation that starts over), so remembering auditIDs for a time window is not
 * enough; this remembers the most recent `history` to `2 · history` requests, by count, in
 * arrival order (before any reordering, so a late copy still carries its own time).
 *
 * Why hashes in typed arrays: a `Set<string>` of a million UUIDs costs ~100 MB; two open-
 * addressing tables of 53-bit hashes (two independent 32-bit FNV-1a lanes) cost 4 bytes per
 * slot (see {@link HashTable}), allocated once. A false "duplicate" needs a 53-bit collision among at most 2·history
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

/** One generation: open addressing with linear probing over a Float64Array that grows to fit. */
/**
 * A set of 53-bit hashes in a fixed open-addressing table (linear probing, load ≤ 0.5): the home
 * slot comes from the hash's low bits and the slot keeps up to 32 of the bits above them (0 marks
 * an empty slot), so a slot costs 4 bytes. A lookup compares log2(slots) + min(32, 53 − log2(slots))
 * bits: all 53 from 2²¹ slots up (the default history has 2²² per table).
 */
class HashTable {
  private readonly slots: Uint32Array;
  private readonly mask: number;
  private readonly size2: number;
  size = 0;

  /** @param capacity hashes it must hold; the table has the next power of 2 ≥ 2 × that slots. */
  constructor(readonly capacity: number) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.slots = new Uint32Array(n);
    this.mask = n - 1;
    this.size2 = n;
  }

  private fingerprint(h: number): number {
    return Math.floor(h / this.size2) % 0x100000000 || 1;
  }

  has(h: number): boolean {
    const fp = this.fingerprint(h);
    for (let i = h % this.size2; ; i = (i + 1) & this.mask) {
      const v = this.slots[i] as number;
      if (v === 0) return false;
      if (v === fp) return true;
    }
  }

  /** Adds `h` unless present; the caller keeps `size` ≤ `capacity`. */
  add(h: number): void {
    const fp = this.fingerprint(h);
    let i = h % this.size2;
    for (;;) {
      const v = this.slots[i] as number;
      if (v === 0) break;
      if (v === fp) return;
      i = (i + 1) & this.mask;
    }
    this.slots[i] = fp;
    this.size++;
  }

  clear(): void {
    this.slots.fill(0);
    this.size = 0;
  }
}

/** Remembers the last `history`…`2·history` auditIDs seen. */
export class AuditIdDedupe {
  private current: HashTable;
  private previous: HashTable;

  /**
   * @param history requests per generation (≥ 1). Both tables are sized for it up front (two
   *   keys per request): 2 × 4 bytes × the next power of 2 ≥ 4·history, 16 MB at the default
   *   500,000, so memory does not grow with the log (the OS commits the pages as they fill).
   */
  constructor(private readonly history: number) {
    this.current = new HashTable(2 * history);
    this.previous = new HashTable(2 * history);
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
    lanes(auditID); // once for both keys: the same as hash53(auditID, …) twice
    const a = mixIn(laneA, laneB, Math.round(ts * 1000));
    const b = receivedTs === ts ? a : mixIn(laneA, laneB, Math.round(receivedTs * 1000));
    if (this.current.has(a) || this.previous.has(a) || this.current.has(b) || this.previous.has(b)) return true;
    this.current.add(a);
    if (b !== a) this.current.add(b);
    if (++this.requests >= this.history) {
      const old = this.previous;
      this.previous = this.current;
      old.clear();
      this.current = old;
      this.requests = 0;
    }
    return false;
  }
}
