/**
 * Publish order across failed publishes. A publisher keeps up to a window of events
 * unacknowledged; when JetStream refuses one of them (no stream leader yet, a node lost) and takes
 * the next ones, the retry lands behind them, so stream order is no longer the log's order, and
 * a worker applying stream order would analyze another log than `analyze` reads (events late past
 * the reorder window). Each message therefore carries `Auditstorm-Order: <run> <window> <n>`: the
 * publisher run, the ordinal of its window's first event and its own ordinal. A window is sent
 * only after the previous one was acknowledged in full, so a message can be overtaken only by
 * later messages of its own window; the worker's {@link OrderBuffer} holds those until the gap is
 * filled, and gives up on a gap as soon as a later window's message arrives (nothing of the
 * earlier window can come after it).
 */
import { randomBytes } from 'node:crypto';

/** NATS header carrying a message's place in its publisher's order. */
export const ORDER_HEADER = 'Auditstorm-Order';

/** Most messages held per cluster waiting for a gap; past it they are applied in ordinal order. */
export const MAX_HELD = 4096;

/** A message's place: publisher run, ordinal of its window's first message, its own ordinal. */
export interface OrderMark {
  run: string;
  window: number;
  n: number;
}

/** The ordinals of one publisher (one `publish` run, or one `serve --nats` process). */
export class PublishOrder {
  /** A random run name (12 hex digits). */
  readonly run = randomBytes(6).toString('hex');
  /** Ordinal of the next message. */
  next = 0;
}

/** The header value of a mark: `<run> <window> <n>`. */
export function formatOrder(m: OrderMark): string {
  return `${m.run} ${m.window} ${m.n}`;
}

/** Parses a header value; `null` for a missing or malformed one (the message is then applied as it comes). */
export function parseOrder(value: string | undefined | null): OrderMark | null {
  if (value === undefined || value === null || value === '') return null;
  const parts = value.split(' ');
  if (parts.length !== 3) return null;
  const window = Number(parts[1]);
  const n = Number(parts[2]);
  if (parts[0] === '' || !Number.isSafeInteger(window) || !Number.isSafeInteger(n) || window < 0 || n < window) return null;
  return { run: parts[0]!, window, n };
}

interface RunState {
  /** Ordinal expected next. */
  next: number;
  /** Messages past a gap, by ordinal. */
  held: Map<number, unknown>;
}

/**
 * Puts one cluster's messages back in publish order (see the module comment). Holds at most
 * {@link MAX_HELD} messages; remembers at most `maxRuns` publisher runs (the least recently seen
 * without held messages is forgotten first; if it comes back it starts over at its window).
 */
export class OrderBuffer<T> {
  private readonly runs = new Map<string, RunState>();
  private heldCount = 0;

  constructor(private readonly maxRuns = 1024) {}

  /** Messages held now. */
  get held(): number {
    return this.heldCount;
  }

  /**
   * Takes the next message of the stream and returns, in order, those to apply now (possibly
   * none, possibly several held ones). A message without a mark, or one behind its run's
   * expected ordinal (a resend past JetStream's de-duplication window), is applied at once.
   */
  push(mark: OrderMark | null, item: T): T[] {
    if (mark === null) return [item];
    let r = this.runs.get(mark.run);
    if (r === undefined) {
      r = { next: mark.window, held: new Map() };
      this.remember(mark.run, r);
    } else {
      // Most recently seen last, for the eviction order.
      this.runs.delete(mark.run);
      this.runs.set(mark.run, r);
    }
    const out: T[] = [];
    if (mark.n > r.next && mark.window > r.next) {
      // A later window began: the gap cannot be filled any more.
      this.release(r, out);
      r.next = Math.max(r.next, mark.window);
    }
    if (mark.n < r.next) {
      out.push(item);
      return out;
    }
    if (mark.n > r.next) {
      if (!r.held.has(mark.n)) {
        r.held.set(mark.n, item);
        this.heldCount++;
      }
      if (this.heldCount > MAX_HELD) for (const s of this.runs.values()) this.release(s, out);
      return out;
    }
    out.push(item);
    r.next++;
    while (r.held.has(r.next)) {
      out.push(r.held.get(r.next) as T);
      r.held.delete(r.next);
      this.heldCount--;
      r.next++;
    }
    return out;
  }

  /** Every held message, in ordinal order per run (runs in the order last seen): at the end of a cluster's stream. */
  flush(): T[] {
    const out: T[] = [];
    for (const r of this.runs.values()) this.release(r, out);
    return out;
  }

  /** Appends `r`'s held messages in ordinal order and moves its expected ordinal past them. */
  private release(r: RunState, out: T[]): void {
    if (r.held.size === 0) return;
    const ns = [...r.held.keys()].sort((a, b) => a - b);
    for (const n of ns) out.push(r.held.get(n) as T);
    this.heldCount -= ns.length;
    r.held.clear();
    r.next = ns[ns.length - 1]! + 1;
  }

  private remember(run: string, r: RunState): void {
    this.runs.set(run, r);
    if (this.runs.size <= this.maxRuns) return;
    for (const [k, s] of this.runs) {
      if (s.held.size === 0) {
        this.runs.delete(k);
        return;
      }
    }
  }
}
