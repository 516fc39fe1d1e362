/**
 * A copy of `s` that does not keep the string it was cut from alive. V8 keeps a slice of 13
 * characters or more as a view of its whole parent: one `auditID` or object name kept by a record
 * (or interned by the normalizer) would keep its whole chunk of input alive, so memory would grow
 * with the file. Concatenation then `slice(1)` flattens into a new string that holds only `s`.
 * Used wherever values cut from input text are kept: the JSON document reader, the normalizer's
 * interned values, the parallel reader's dictionaries.
 */
export function fresh(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}
