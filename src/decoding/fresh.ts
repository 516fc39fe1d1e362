/**
 * Small helpers for strings kept from input: copies that pin nothing, a pool of shared copies,
 * and a cheap hash.
 */

/**
 * A copy of `s` that does not keep the string it was cut from alive. V8 keeps a slice of 13
 * characters or more as a view of its whole parent: one `auditID` or object name kept by a record
 * (or interned by the normalizer) would keep its whole chunk of input alive, so memory would grow
 * with the file. The copy is one flat string of exactly `s` (JSON's writer and reader both make
 * sequential strings, and the round trip gives back any string, lone surrogates included): a
 * slice of a copy one character longer, as `(' ' + s).slice(1)` makes, is a 40-byte view more per
 * kept value.
 * Used wherever values cut from input text are kept: the JSON document reader, the normalizer's
 * interned values, the parallel reader's dictionaries.
 */
export function fresh(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/**
 * `joined` made flat and returned: a string just made by joining parts with literal text between
 * them (a template literal such as `${a}/${b}`) is never one of its parts, and, once flat, pins
 * none of them (V8 joins long strings lazily, as a pair of pointers to the parts, and flattens the
 * pair in place at the first read of a character: the parts' strings, slices of the input, are let
 * go). Cheaper than {@link fresh} (no second copy), so the normalizer's keys pay one copy and the
 * values cut from them (an object's name, an actor's username and userAgent) none. Returns `''`
 * for `''`.
 */
export function flattened(joined: string): string {
  // The read's result is stored, so no compiler may drop the read.
  _lastFirstChar = joined.charCodeAt(0);
  return joined;
}

/** The first character {@link flattened} read (an observable store, so the read stays). */
let _lastFirstChar = 0;

/**
 * FNV-1a of `s`, as a small integer (30 bits: always a V8 small integer, so a `Map` keyed by it
 * hashes nothing). `Map.get` with a string just cut from a line hashes it through V8's generic
 * path for sliced strings, slower than this loop, so the dictionaries key by this.
 */
export function fnv30(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}

/**
 * One kept copy ({@link fresh}) of each distinct string: for values that repeat across many kept
 * objects (API groups, resources, namespaces), so they share one string instead of a copy each.
 * Holds at most `max` strings, then starts over (memory stays bounded on any input; a string
 * seen again is copied once more).
 */
export class StringPool {
  private kept = new Map<string, string>();

  constructor(private readonly max: number) {}

  /** The pool's copy of `s` (`''` as is). */
  get(s: string): string {
    if (s === '') return '';
    let k = this.kept.get(s);
    if (k === undefined) {
      if (this.kept.size >= this.max) this.kept = new Map();
      k = fresh(s);
      this.kept.set(k, k);
    }
    return k;
  }
}
