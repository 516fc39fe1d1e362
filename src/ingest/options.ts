/**
 * What reading takes from the analysis options ({@link ReadOptions}): line and document limits,
 * the framing, and the parser threads.
 */
import type { InputFormat } from '../decoding/formats/detect.js';

/** Reading limits (see `AnalyzeOptions.maxLineLength`, `sniffLines`, `inputFormat`). */
export interface ReadOptions {
  /**
   * Longest line kept, in characters; longer lines are counted in `overlongLines` and skipped. Also
   * the longest JSON element, JSON document or YAML document kept (longer ones are bad items).
   */
  maxLineLength: number;
  /** A member is rejected if none of its first this-many units (lines, values, documents) is an audit event. */
  sniffLines: number;
  /** Framing to use for every member; `auto` (the default) detects it per member. */
  inputFormat?: InputFormat;
  /**
   * JSON-lines files of at least `minBytes` are cut and fast-decoded on `workers` threads
   * (`parallel.ts`); `workers: 0` reads everything on this thread. Default `PARALLEL_DEFAULTS`.
   * A plain regular file is read by the workers in ranges of `rangeBytes` (default
   * `RANGE_BYTES`, 1 MB; tests use tiny ones so that ranges cut lines everywhere).
   */
  parallel?: { workers: number; minBytes: number; rangeBytes?: number };
  /**
   * Decode every JSON line in full, through `Normalizer.normalize` (no fast path, no worker
   * threads), so a normalizer that keeps the decoded events sees all of them (`auditstorm publish`).
   */
  fullDecode?: boolean;
}
