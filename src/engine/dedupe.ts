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
 * addressing tables of 53-bit hashes (two independent 32-bit FNV-1a lanes) cost 16 bytes per
 * slot, allocated once. A false "duplicate" needs a 53-bit collision among at most 2·history
 * remembered ids: about 2·10⁶ / 2⁵³ ≈ 2·10⁻¹⁰ per request at the default.
 */

/**
 * 53-bit hash of a string and a number: FNV-1a in two lanes with different offset bases, the
 * number's two 32-bit halves mixed in last. Never 0 (0 marks an empty slot).
 */
export function hash53(s: string, n = 0): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
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
class HashTable {
  private slots = new Float64Array(1024);
  private mask = 1023;
  size = 0;

  has(h: number): boolean {
    for (let i = h % (this.mask + 1); ; i = (i + 1) & this.mask) {
      const v = this.slots[i] as number;
      if (v === 0) return false;
      if (v === h) return true;
    }
  }

  add(h: number): void {
    if ((this.size + 1) * 2 > this.slots.length) this.grow(); // load factor ≤ 0.5
    let i = h % (this.mask + 1);
    while (this.slots[i] !== 0) {
      if (this.slots[i] === h) return;
      i = (i + 1) & this.mask;
    }
    this.slots[i] = h;
    this.size++;
  }

  clear(): void {
    this.slots.fill(0);
    this.size = 0;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    this.mask = this.slots.length - 1;
    this.size = 0;
    for (let i = 0; i < old.length; i++) if (old[i] !== 0) this.add(old[i] as number);
  }
}

/** Remembers the last `history`…`2·history` auditIDs seen. */
export class AuditIdDedupe {
  private current = new HashTable();
  private previous = new HashTable();

  /**
   * @param history requests per generation (≥ 1). Memory grows with what is remembered (two
   *   keys per request), up to about 2 × 8 bytes × the next power of 2 ≥ 4·history (64 MB at the
   *   default 1,000,000).
   */
  constructor(private readonly history: number) {}

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
    const a = hash53(auditID, Math.round(ts * 1000));
    const b = receivedTs === ts ? a : hash53(auditID, Math.round(receivedTs * 1000));
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
