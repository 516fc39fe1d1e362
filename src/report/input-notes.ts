/**
 * Notes on input that was read only in part or skipped by design, for the input header of the
 * text and Markdown reports (one line each, `null` when there is nothing to say).
 */
import { formatInt, plural } from './format.js';
import type { InputSummary } from './schema.js';

/**
 * Events cut by CloudWatch: `Truncated 5,342 events cut by CloudWatch ([Truncated...]); 5,300
 * read from the part before the cut (no bodies; fields after the cut missing)`.
 */
export function truncatedNote(input: InputSummary): string | null {
  if (input.truncated === 0) return null;
  const read = input.truncatedRead ?? 0;
  const cut = `${plural(input.truncated, 'event')} cut by CloudWatch ([Truncated...])`;
  if (read === 0) return `${cut}; none could be read (lost)`;
  const lost = input.truncated - read;
  return `${cut}; ${formatInt(read)} read from the part before the cut (no bodies; fields after the cut missing)` + (lost > 0 ? `, ${formatInt(lost)} lost` : '');
}

/**
 * The API server's own log lines among the events: `3 lines of the API server's own log (klog)
 * among the events (kubectl logs): not audit events, skipped`.
 */
export function logLinesNote(input: InputSummary): string | null {
  const n = input.skipped.logLines ?? 0;
  if (n === 0) return null;
  return `${plural(n, 'line')} of the API server's own log (klog) among the events (kubectl logs): not audit events, skipped`;
}

/** Which reader read the lines: `native line scanner` or `JavaScript (the native line scanner was not built)`; null when not said. */
export function readerNote(input: InputSummary): string | null {
  if (input.nativeScanner === undefined) return null;
  return input.nativeScanner ? 'native line scanner (native/scan.cc)' : 'JavaScript only: the native line scanner was not built (same results, slower)';
}

/** Wrapper records that are not audit events: `12 records that are not audit events (…)`. */
export function skippedRecordsNote(input: InputSummary): string | null {
  const n = input.skippedRecords ?? 0;
  if (n === 0) return null;
  return `${plural(n, 'record')} that are not audit events (other log streams, categories, services or log types; control messages)`;
}
