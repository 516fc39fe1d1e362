/**
 * k-way merge of record batches from several sources by `ts`, so several API servers' logs
 * read as one. Each source must be nearly time-ordered; what disorder is left is fixed by the
 * engine's reordering window. Memory holds one batch per source.
 */
import type { RequestRecord } from '../decoding/record.js';

/** Records per merged batch. */
const OUT_BATCH = 1024;

/** Merge time-ordered batch streams into one; a single source passes through untouched. */
export function mergeByTime(sources: AsyncIterable<RequestRecord[]>[]): AsyncIterable<RequestRecord[]> {
  return mergeBy(sources, (r) => r.ts);
}

/**
 * Merge batch streams ordered by `key` (ms) into one, taking the smallest key next (the earlier
 * source on a tie); a single source passes through untouched.
 */
export async function* mergeBy<T>(sources: AsyncIterable<T[]>[], key: (t: T) => number): AsyncIterable<T[]> {
  if (sources.length === 1) {
    yield* sources[0] as AsyncIterable<T[]>;
    return;
  }
  interface Head {
    it: AsyncIterator<T[]>;
    batch: T[];
    i: number;
  }
  const heads: Head[] = [];
  /** Fill a head's batch; false when its source is exhausted. */
  const refill = async (h: Head): Promise<boolean> => {
    for (;;) {
      const next = await h.it.next();
      if (next.done) return false;
      if (next.value.length > 0) {
        h.batch = next.value;
        h.i = 0;
        return true;
      }
    }
  };
  for (const s of sources) {
    const h: Head = { it: s[Symbol.asyncIterator](), batch: [], i: 0 };
    if (await refill(h)) heads.push(h);
  }
  let out: T[] = [];
  while (heads.length > 0) {
    let min = 0;
    let minTs = key((heads[0] as Head).batch[(heads[0] as Head).i]!);
    for (let k = 1; k < heads.length; k++) {
      const h = heads[k] as Head;
      const ts = key(h.batch[h.i]!);
      if (ts < minTs) {
        minTs = ts;
        min = k;
      }
    }
    const h = heads[min] as Head;
    out.push(h.batch[h.i++] as T);
    if (h.i === h.batch.length && !(await refill(h))) heads.splice(min, 1);
    if (out.length >= OUT_BATCH) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}
