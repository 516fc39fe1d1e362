/**
 * Run-wide summaries: requests by verb × resource × code, top actors and objects, and latency
 * percentiles per verb × resource (hdr-histogram-js, microsecond resolution, 2 significant
 * digits, 1 h ceiling: `latency.ts`). Per-object counters are kept for writes only, since reads
 * of millions of objects say nothing about storms.
 */
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import { isConflict } from '../decoding/record.js';
import type { ReportObject, Summaries } from '../report/schema.js';
import { LatencyBins } from './latency.js';

interface ActorCounts {
  requests: number;
  writes: number;
  conflicts: number;
  alreadyExists: number;
  throttled: number;
}

/** An actor's entry, also cached on the interned actor (`Actor.summaryMemo`) for its owner. */
interface ActorEntry extends ActorCounts {
  readonly owner: Aggregates;
  readonly actor: Actor;
  /** In the table of actors: false once forgotten (see {@link MAX_TRACKED_ACTORS}). */
  tracked: boolean;
}

/**
 * An object's entry: its write counts while tracked (in {@link Aggregates}' table of written
 * objects) and the cell of the verb it was last requested with; also cached on the interned
 * object (`ObjectRef.summaryMemo`) for its owner, so a record reaches both in one object.
 */
interface ObjectEntry {
  readonly owner: Aggregates;
  /** The instance it was made for (an object interned again later shares the entry). */
  readonly object: ObjectRef;
  writes: number;
  conflicts: number;
  /** In the table of written objects: false before the object's first write and once forgotten. */
  tracked: boolean;
  verb: string;
  cell: VerbCell | null;
}

/**
 * Written objects tracked for the top-objects tables. Past this, the objects with the fewest
 * writes are forgotten (half of them at a time), so a log of millions of distinct objects keeps
 * flat memory; an object forgotten and written again later counts from then on, so only objects
 * below the median of the tracked ones can be undercounted (the tables show the top few). Each
 * tracked object pins its interned `ObjectRef` (≈ 350 bytes with its strings), so this bounds
 * the live heap (see docs/performance.md, "Records moved from code comments").
 */
export const MAX_TRACKED_OBJECTS = 10_000;

/**
 * Actors tracked for the top-actors tables. Past this, the half with the fewest 409s, 429s and
 * AlreadyExists answers, then the fewest requests, is forgotten, as objects are: a log with a new
 * username every few requests (generated service accounts, per-job users) keeps flat memory, and
 * only actors ranked below the median of the tracked ones can be undercounted. Kubelets of a
 * 10,000-node cluster fit.
 */
export const MAX_TRACKED_ACTORS = 20_000;

/** Plain copy of an interned object for the report. */
export function reportObject(o: ObjectRef): ReportObject {
  return {
    apiGroup: o.apiGroup,
    apiVersion: o.apiVersion,
    resource: o.resource,
    namespace: o.namespace,
    name: o.name,
    subresource: o.subresource,
  };
}

/**
 * The requests of one verb on one kind of object (resource label): counts by code (a few codes
 * each, so two parallel arrays searched in order) and the latency histogram (null until a request
 * with a latency comes).
 */
interface VerbCell {
  codes: number[];
  counts: number[];
  latency: LatencyBins | null;
}

/** Accumulates summaries; feed every counted request once. */
export class Aggregates {
  /** label -> verb -> its cell; label '' for non-resource requests. */
  private readonly cells = new Map<string, Map<string, VerbCell>>();
  /**
   * By `Actor.key`, so an actor interned again after being dropped counts as the same one; each
   * entry is also cached on its actor (`Actor.summaryMemo`), which spares the lookup.
   */
  private readonly actors = new Map<string, ActorEntry>();
  /** By `ObjectRef.key`; at most {@link MAX_TRACKED_OBJECTS} (cached on each object, `ObjectRef.summaryMemo`). */
  private readonly objects = new Map<string, ObjectEntry>();
  private readonly totals = { requests: 0, writes: 0, conflicts: 0, alreadyExists: 0, throttled: 0 };
  // The last cell of a request whose object has no entry (read-only objects, non-resource
  // requests: label ''), and its kind and verb (consecutive ones often share them).
  private lastLabel = '';
  private lastVerb = '';
  private lastCell: VerbCell | null = null;

  add(r: RequestRecord): void {
    const conflict = isConflict(r);
    const exists = r.code === 409 && !conflict;
    const throttled = r.code === 429;
    const write = r.isWrite;
    tally(this.totals, write, conflict, exists, throttled);

    const actor = r.actor;
    let a = actor.summaryMemo as ActorEntry | undefined;
    if (a === undefined || a.owner !== this || !a.tracked) {
      a = this.actors.get(actor.key);
      if (a === undefined) {
        if (this.actors.size >= MAX_TRACKED_ACTORS) this.forgetActors();
        a = { owner: this, actor, requests: 0, writes: 0, conflicts: 0, alreadyExists: 0, throttled: 0, tracked: true };
        this.actors.set(actor.key, a);
      }
      actor.summaryMemo = a;
    }
    tally(a, write, conflict, exists, throttled);

    const verb = r.verb;
    const o = r.object;
    let cell: VerbCell;
    let m = o === null ? undefined : (o.summaryMemo as ObjectEntry | undefined);
    if (m !== undefined && m.owner !== this) m = undefined;
    if (o !== null && m === undefined && (write || conflict)) {
      // A tracked entry of the same object under an earlier instance, or a new one. Objects only
      // ever read get none (they are most of a large cluster's objects): their cell comes from
      // the last-used memo below.
      m = this.objects.get(o.key) ?? { owner: this, object: o, writes: 0, conflicts: 0, tracked: false, verb: '', cell: null };
      o.summaryMemo = m;
    }
    if (m !== undefined) {
      if (write || conflict) {
        if (!m.tracked) {
          // Its first write, or the first since it was forgotten: it counts from here on.
          if (this.objects.size >= MAX_TRACKED_OBJECTS) this.forget();
          m.writes = 0;
          m.conflicts = 0;
          m.tracked = true;
          this.objects.set(o!.key, m);
        }
        if (write) m.writes++;
        if (conflict) m.conflicts++;
      }
      if (m.cell === null || m.verb !== verb) {
        m.cell = this.cellOf(o!.label, verb);
        m.verb = verb;
      }
      cell = m.cell;
    } else {
      const label = o === null ? '' : o.label;
      let c = this.lastCell;
      if (c === null || verb !== this.lastVerb || label !== this.lastLabel) {
        c = this.cellOf(label, verb);
        this.lastCell = c;
        this.lastVerb = verb;
        this.lastLabel = label;
      }
      cell = c;
    }

    const codes = cell.codes;
    let k = 0;
    while (k < codes.length && codes[k] !== r.code) k++;
    if (k === codes.length) {
      codes.push(r.code);
      cell.counts.push(1);
    } else cell.counts[k]!++;

    if (r.latencyMs >= 0) {
      cell.latency ??= new LatencyBins();
      cell.latency.add(r.latencyMs);
    }
  }

  /** The cell of `verb` on objects of kind `label` (`''`: non-resource requests). */
  private cellOf(label: string, verb: string): VerbCell {
    let byVerb = this.cells.get(label);
    if (byVerb === undefined) {
      byVerb = new Map();
      this.cells.set(label, byVerb);
    }
    let cell = byVerb.get(verb);
    if (cell === undefined) {
      cell = { codes: [], counts: [], latency: null };
      byVerb.set(verb, cell);
    }
    return cell;
  }

  /**
   * Drops the half of the tracked objects with the fewest writes + conflicts, in the order they
   * were tracked. The counts go through one typed array and `forEach`, not entry arrays and
   * iterator results: this runs once per 5,000 newly written objects, in the interpreter.
   */
  private forget(): void {
    const counts = new Float64Array(this.objects.size);
    let i = 0;
    this.objects.forEach((c) => {
      counts[i++] = c.writes + c.conflicts;
    });
    counts.sort();
    const limit = counts[Math.floor(counts.length / 2)]!;
    const target = counts.length / 2;
    let dropped = 0;
    this.objects.forEach((c, key) => {
      if (dropped < target && c.writes + c.conflicts <= limit) {
        this.objects.delete(key);
        c.tracked = false;
        dropped++;
      }
    });
  }

  /** Drops the half of the tracked actors that rank lowest: fewest 409s, 429s and AlreadyExists, then fewest requests (as {@link forget} does). */
  private forgetActors(): void {
    const weight = (a: ActorEntry): number => (a.conflicts + a.throttled + a.alreadyExists) * 2 ** 32 + a.requests;
    const weights = new Float64Array(this.actors.size);
    let i = 0;
    this.actors.forEach((a) => {
      weights[i++] = weight(a);
    });
    weights.sort();
    const limit = weights[Math.floor(weights.length / 2)]!;
    const target = weights.length / 2;
    let dropped = 0;
    this.actors.forEach((a, key) => {
      if (dropped < target && weight(a) <= limit) {
        this.actors.delete(key);
        a.tracked = false;
        dropped++;
      }
    });
  }

  /** Summaries with `top` rows per table, in a total, deterministic order. */
  summarize(top: number): Summaries {
    const vrcRows: Summaries['requestsByVerbResourceCode'] = [];
    for (const [resource, byVerb] of this.cells) {
      for (const [verb, cell] of byVerb) {
        for (let k = 0; k < cell.codes.length; k++) vrcRows.push({ verb, resource: resource || '(non-resource)', code: cell.codes[k]!, count: cell.counts[k]! });
      }
    }
    vrcRows.sort((x, y) => y.count - x.count || cmp(x.verb, y.verb) || cmp(x.resource, y.resource) || x.code - y.code);

    const actorRows = [...this.actors.values()].map(({ actor, requests, writes, conflicts, alreadyExists, throttled }) => ({
      username: actor.username,
      userAgent: actor.userAgent,
      requests,
      writes,
      conflicts,
      alreadyExists,
      throttled,
    }));
    type ActorRow = (typeof actorRows)[number];
    const topActors = (field: keyof ActorCounts): ActorRow[] =>
      firstRows(
        actorRows.filter((r) => r[field] > 0),
        top,
        (x, y) => y[field] - x[field] || cmp(x.username, y.username) || cmp(x.userAgent, y.userAgent),
      );

    const objectRows = [...this.objects.values()];
    const topObjects = (field: 'writes' | 'conflicts') =>
      firstRows(
        objectRows.filter((c) => c[field] > 0),
        top,
        (x, y) => y[field] - x[field] || cmp(x.object.key, y.object.key),
      ).map((c) => ({ object: reportObject(c.object), writes: c.writes, conflicts: c.conflicts }));

    const latency: Summaries['latency'] = [];
    for (const [resource, byVerb] of this.cells) {
      for (const [verb, cell] of byVerb) {
        if (cell.latency === null) continue;
        const p = cell.latency.percentiles();
        latency.push({ verb, resource: resource || '(non-resource)', count: p.count, p50: us(p.p50), p90: us(p.p90), p99: us(p.p99), max: us(p.max) });
      }
    }
    latency.sort((x, y) => y.count - x.count || cmp(x.verb, y.verb) || cmp(x.resource, y.resource));

    return {
      totals: { ...this.totals },
      requestsByVerbResourceCode: vrcRows.slice(0, Math.max(top, 20)),
      topActors: {
        byRequests: topActors('requests'),
        byWrites: topActors('writes'),
        byConflicts: topActors('conflicts'),
        byThrottled: topActors('throttled'),
      },
      topObjects: { byWrites: topObjects('writes'), byConflicts: topObjects('conflicts') },
      latency: latency.slice(0, Math.max(top, 20)),
    };
  }
}

/** Counts one request in `c`. */
function tally(c: ActorCounts, write: boolean, conflict: boolean, exists: boolean, throttled: boolean): void {
  c.requests++;
  if (write) c.writes++;
  if (conflict) c.conflicts++;
  if (exists) c.alreadyExists++;
  if (throttled) c.throttled++;
}

/**
 * µs from the histogram → ms, to 3 significant digits: the histogram keeps 2, and reports the
 * highest value equivalent to a bucket, so more digits would be noise.
 */
function us(v: number): number {
  return Number((v / 1000).toPrecision(3));
}

/**
 * The first `k` of `rows` in the order of `compare` (a total order): what
 * `[...rows].sort(compare).slice(0, k)` gives, with about `rows.length` comparisons where the
 * sort made `rows.length · log2(rows.length)` (for a `k` of more than an eighth of the rows, that
 * sort). The summaries are made once per report, so their comparators run in V8's interpreter,
 * over thousands of objects and actors.
 */
export function firstRows<T>(rows: readonly T[], k: number, compare: (a: T, b: T) => number): T[] {
  // Each row may move up to k kept ones: for a k near the row count (`--top 1000000`), the sort.
  if (rows.length <= 8 * k) return [...rows].sort(compare).slice(0, k);
  const best: T[] = [];
  if (k <= 0) return best;
  for (const r of rows) {
    if (best.length === k && compare(r, best[k - 1]!) >= 0) continue;
    let i = best.length === k ? k - 1 : best.length;
    while (i > 0 && compare(r, best[i - 1]!) < 0) i--;
    if (best.length === k) best.pop();
    best.splice(i, 0, r);
  }
  return best;
}

/** Code-unit string comparison (locale-independent, so output is the same everywhere). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
