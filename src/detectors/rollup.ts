/**
 * Actor-level roll-up shared by `hot-loop` and `no-op-writes`: one controller looping over many
 * objects, each written too few times to open an episode of its own (knative#13204: every
 * Deployment updated unchanged on each resync; kubeflow/notebooks#1343: hundreds of notebooks'
 * status rewritten in turn). What the per-object rule counts (excess writes, proven no-ops) is
 * summed per identity × resource (× subresource) over the objects that have no episode of their
 * own, and judged by the same window and thresholds.
 *
 * Memory: one {@link Rollup} per identity × resource with a step ring and counters; each
 * object's share is kept on the detector's own per-object state ({@link RollupMember}), never in
 * the roll-up, which holds only the keys of the objects its episode counted (one reference each,
 * at most {@link MAX_COUNTED_OBJECTS}), so that an object counts once.
 */
import { z } from 'zod';
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import type { Severity } from '../report/schema.js';
import { resourceLabel } from '../labels.js';
import { addSourceIP, EpisodeSeries, EvidenceIDs, PeakPerSecond, StepRing } from './common.js';

/**
 * The roll-up's option fields: `rollupMinObjects` (integer ≥ 2, default 2; 0 turns the roll-up
 * off) and `rollupTopObjects` (integer ≥ 1, default 5).
 */
export function rollupFields() {
  return {
    /**
     * Objects that must contribute before an actor-level finding opens; 0 turns the roll-up off.
     * 2: one object alone is the per-object rule's, and already judged by it.
     */
    rollupMinObjects: z
      .number()
      .int()
      .nonnegative()
      .refine((v) => v !== 1, { message: 'rollupMinObjects must be 0 (off) or at least 2' })
      .default(2),
    /** Objects named in an actor-level finding's `topObjects`, by their share, most first. */
    rollupTopObjects: z.number().int().positive().default(5),
  };
}

/** What a detector keeps per object (pair) for its roll-up: its share of the current episode. */
export interface RollupMember {
  /** The object written. */
  readonly object: ObjectRef;
  /** The roll-up of the object's identity and resource; null when the roll-up is off. */
  roll: Rollup | null;
  /** `Rollup.gen` of the episode the object contributed to; -1 when none. */
  rollGen: number;
  /** What it contributed there (excess writes, no-op writes). */
  rolled: number;
}

/** The key of an identity's roll-up on one resource: identity (username, else userAgent product) and `group/resource/subresource`. */
export function rollupKey(identity: Actor, ob: ObjectRef): string {
  return `${identity.username || identity.userAgentProduct}\u0001${ob.apiGroup}/${ob.resource}/${ob.subresource}`;
}

/**
 * Keys of the objects a roll-up's episode has counted, at most this many: an object whose state
 * the detector dropped (idle for a while) and made again must not count twice. Past it, an object
 * whose state was dropped may count again (the cost stays one reference per object).
 */
const MAX_COUNTED_OBJECTS = 100_000;

/**
 * One identity's writes of one resource, summed over its objects without an episode of their
 * own. The ring (`width` counters per step) and the episode's counters are the detector's to
 * fill; {@link contribute} counts objects and keeps evidence from several of them.
 */
export class Rollup {
  readonly ring: StepRing;
  /** Episode generation: objects count once per generation. */
  gen = 0;
  lastTs: number;
  open = false;
  /** Episode state, from the first contribution after being idle. */
  from = -1;
  to = -1;
  score = 0;
  objects = 0;
  /** Keys of the objects counted in `objects` this generation (see {@link MAX_COUNTED_OBJECTS}). */
  private counted = new Set<string>();
  writes = 0;
  severity: Severity | null = null;
  evidence: EvidenceIDs;
  series: EpisodeSeries;
  peak = new PeakPerSecond();
  ips = new Set<string>();
  ipSeen: Set<string> | null = null;
  ipCount = 0;
  fieldManagers = new Set<string>();

  constructor(
    readonly key: string,
    /** The actor standing for the identity. */
    readonly actor: Actor,
    /** An object of the resource (its group, resource and subresource name the roll-up). */
    readonly sample: ObjectRef,
    steps: number,
    width: number,
    private readonly o: { readonly stepMs: number; readonly evidenceSamples: number; readonly maxSourceIPs: number },
    ts: number,
  ) {
    this.ring = new StepRing(steps, width);
    this.lastTs = ts;
    this.evidence = new EvidenceIDs(o.evidenceSamples);
    this.series = new EpisodeSeries(o.stepMs);
  }

  /** `resource[.group][/subresource]`, e.g. `notebooks.kubeflow.org/status`. */
  get resource(): string {
    return resourceLabel(this.sample);
  }

  /** Whether an episode (open or not yet) is being gathered. */
  get busy(): boolean {
    return this.from >= 0;
  }

  /** A write of a member object counted in the roll-up (whether or not it contributes). */
  write(r: RequestRecord, conflict: boolean): void {
    if (this.from < 0) this.from = r.ts;
    this.to = Math.max(this.to, r.ts);
    this.lastTs = r.ts;
    this.writes++;
    this.peak.add(r.ts);
    this.series.add(r.ts, conflict);
    if (r.fieldManager && this.fieldManagers.size < this.o.maxSourceIPs) this.fieldManagers.add(r.fieldManager);
    addSourceIP(this, r.sourceIP, this.o.maxSourceIPs);
  }

  /**
   * `m` contributes `amount` (may be negative: a per-object score that fell) with write `auditID` (at audit
   * level `level`) as evidence. An object's first contribution in this episode counts it and samples its auditID,
   * so the evidence names several objects.
   */
  contribute(m: RollupMember, amount: number, auditID: string, level: string): void {
    if (m.rollGen !== this.gen) {
      if (amount <= 0) return;
      m.rollGen = this.gen;
      m.rolled = 0;
      if (!this.counted.has(m.object.key)) {
        if (this.counted.size < MAX_COUNTED_OBJECTS) this.counted.add(m.object.key);
        this.objects++;
        this.evidence.add(auditID, level);
      }
    } else if (amount > 0) this.evidence.extend(auditID);
    m.rolled += amount;
    this.score = Math.max(0, this.score + amount);
  }

  /** `m` opened an episode of its own: take back what it contributed (while the roll-up is not open). */
  withdraw(m: RollupMember): void {
    if (m.rollGen !== this.gen || this.open) return;
    this.score = Math.max(0, this.score - m.rolled);
    this.objects--;
    this.counted.delete(m.object.key);
    m.rollGen = -1;
    m.rolled = 0;
  }

  /** Start afresh: the next contribution opens a new generation. */
  reset(): void {
    this.gen++;
    this.open = false;
    this.from = -1;
    this.to = -1;
    this.score = 0;
    this.objects = 0;
    this.counted = new Set();
    this.writes = 0;
    this.severity = null;
    this.evidence = new EvidenceIDs(this.o.evidenceSamples);
    this.series = new EpisodeSeries(this.o.stepMs);
    this.peak = new PeakPerSecond();
    this.ips = new Set();
    this.ipSeen = null;
    this.ipCount = 0;
    this.fieldManagers = new Set();
  }
}

/**
 * The top `k` of `members` that contributed to `r`'s current episode, by contribution (rounded)
 * then label, as `label(n)` comma-joined, e.g. `notebooks.kubeflow.org/status ml/nb-1(41), …`.
 * Objects the detector no longer holds (idle) are not listed.
 */
export function topObjects<M extends RollupMember>(r: Rollup, members: Iterable<M>, label: (o: ObjectRef) => string, k: number): string {
  const rows: Array<[string, number]> = [];
  for (const m of members) if (m.roll === r && m.rollGen === r.gen && m.rolled > 0) rows.push([label(m.object), Math.round(m.rolled)]);
  return rows
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, k)
    .map(([l, c]) => `${l}(${c})`)
    .join(', ');
}
