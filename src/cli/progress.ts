/**
 * The progress line: one self-overwriting line on stderr (`\r` + text + erase-to-end-of-line),
 * redrawn at most every `intervalMs`, erased when the run ends. Only used when stderr is a
 * terminal (see `useProgress`).
 */
import type { Progress } from '../analyze.js';

/** A progress display; `update` is safe to call as often as the core likes. */
export interface ProgressLine {
  /** Record new numbers; redraws when `intervalMs` passed since the last draw. */
  update(p: Progress): void;
  /** Erase the line if anything was drawn. Idempotent. */
  done(): void;
}

/** A stream the progress line writes to. */
export interface ProgressStream {
  write(chunk: string): unknown;
}

/** Options of {@link createProgressLine}. */
export interface ProgressLineOptions {
  /** Terminal width; the line is cut to `columns - 1` so it never wraps. Default 80. */
  columns?: number;
  /** Least time between redraws, ms (default 250: at most four a second). */
  intervalMs?: number;
}

const ERASE_LINE = '\u001b[K';

/**
 * Create a progress line on `stream`.
 *
 * @param stream where to draw (stderr)
 * @param options width and redraw interval
 * @returns the display; call `done()` before printing anything else on the stream
 */
export function createProgressLine(stream: ProgressStream, options: ProgressLineOptions = {}): ProgressLine {
  const interval = options.intervalMs ?? 250;
  const width = Math.max(20, (options.columns || 80) - 1); // 0: a terminal of unknown size
  let lastDraw: number | undefined;
  let drawn = false;
  let finished = false;
  return {
    update(p) {
      if (finished) return;
      // The first draw waits one interval, so short runs never flash a line.
      if (p.elapsedMs < (lastDraw ?? 0) + interval) return;
      lastDraw = p.elapsedMs;
      stream.write(`\r${formatProgress(p).slice(0, width)}${ERASE_LINE}`);
      drawn = true;
    },
    done() {
      if (finished) return;
      finished = true;
      if (drawn) stream.write(`\r${ERASE_LINE}`);
    },
  };
}

/**
 * The text of one progress line, e.g.
 * `reading 120.0 MB of 480.0 MB (25%) · 40.0 MB/s · 105k events/s · 1.2M requests`.
 *
 * @param p numbers from the core; `bytesTotal` 0 means unknown (stdin)
 */
export function formatProgress(p: Progress): string {
  const secs = p.elapsedMs / 1000;
  const mb = (n: number) => (n / 1e6).toFixed(1);
  let read = `reading ${mb(p.bytesRead)} MB`;
  if (p.bytesTotal > 0) {
    const pct = Math.min(100, Math.floor((p.bytesRead / p.bytesTotal) * 100));
    read += ` of ${mb(p.bytesTotal)} MB (${pct}%)`;
  }
  const parts = [read];
  if (secs > 0) {
    parts.push(`${mb(p.bytesRead / secs)} MB/s`, `${compact(p.events / secs)} events/s`);
  }
  parts.push(`${compact(p.requests)} requests`);
  return parts.join(' · ');
}

/** 950 → `950`, 1_234 → `1.2k`, 12_345 → `12k`, 1_234_567 → `1.2M`. */
export function compact(n: number): string {
  if (n < 1_000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1_000).toFixed(n < 10_000 ? 1 : 0)}k`;
  if (n < 1_000_000_000) return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
  return `${(n / 1_000_000_000).toFixed(1)}G`;
}
