/**
 * The hash of an auditID that request de-duplication keys on (`src/engine/dedupe.ts`), here so
 * that the parser threads can compute it where they cut the auditID (the native scanner computes
 * the same lanes from the line's bytes: `idLanes` in native/scan.cc), and the reading thread only
 * reads it off the record (`RequestRecord.idLaneA` / `idLaneB`).
 */

/** The lanes of the last {@link idLanes}, as int32. */
export const LANES = new Int32Array(2);

/**
 * A 64-bit hash of `s` in two 32-bit lanes, left in `LANES[0]` / `LANES[1]`: MurmurHash3's
 * (x86, 32-bit) block mix over two UTF-16 code units at a time, one lane with its constants and
 * one with others, each with its finalizer. Two code units a step, because a per-unit hash is a
 * multiply chain as long as the string and de-duplication hashes every auditID.
 */
export function idLanes(s: string): void {
  const n = s.length;
  let a = 0x811c9dc5 ^ n;
  let b = 0x5bd1e995 ^ n;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const c = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
    let k = Math.imul(c, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    a ^= Math.imul(k, 0x1b873593);
    a = (a << 13) | (a >>> 19);
    a = (Math.imul(a, 5) + 0xe6546b64) | 0;
    let j = Math.imul(c, 0x85ebca6b);
    j = (j << 16) | (j >>> 16);
    b ^= Math.imul(j, 0xc2b2ae35);
    b = (b << 17) | (b >>> 15);
    b = (Math.imul(b, 5) + 0x52dce729) | 0;
  }
  if (i < n) {
    const c = s.charCodeAt(i);
    let k = Math.imul(c, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    a ^= Math.imul(k, 0x1b873593);
    let j = Math.imul(c, 0x85ebca6b);
    j = (j << 16) | (j >>> 16);
    b ^= Math.imul(j, 0xc2b2ae35);
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  a = Math.imul(a, 0xc2b2ae35);
  a ^= a >>> 16;
  b ^= b >>> 15;
  b = Math.imul(b, 0x2c1b3c6d);
  b ^= b >>> 12;
  b = Math.imul(b, 0x297a2d39);
  b ^= b >>> 15;
  LANES[0] = a;
  LANES[1] = b;
}

/**
 * Lane A of {@link idLanes} alone (int32), with half the work: the same block mix and finalizer
 * over two UTF-16 code units a step. The summaries' object table hashes keys with it
 * (`engine/aggregates.ts`); a test keeps it equal to `LANES[0]`.
 */
export function laneA(s: string): number {
  const n = s.length;
  let a = 0x811c9dc5 ^ n;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    let k = Math.imul(s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16), 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    a ^= Math.imul(k, 0x1b873593);
    a = (a << 13) | (a >>> 19);
    a = (Math.imul(a, 5) + 0xe6546b64) | 0;
  }
  if (i < n) {
    let k = Math.imul(s.charCodeAt(i), 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    a ^= Math.imul(k, 0x1b873593);
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  a = Math.imul(a, 0xc2b2ae35);
  a ^= a >>> 16;
  return a | 0;
}
