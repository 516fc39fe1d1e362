/**
 * `conflict-storm`: one actor keeps writing one object and keeps losing the optimistic-lock
 * race (409 `Conflict`), typically `Status().Update()` from an informer cache that is always a
 * step behind, retried at once.
 *
 * Per (actor, object) it counts update/patch attempts and 409 Conflict answers in a sliding
 * window (`windowMs`, evaluated every `stepMs`). An **episode** opens when a window holds at
 * least `minConflicts` Conflicts and a Conflict ratio of at least `minConflictRatio`, and closes
 * at the first step where that no longer holds; a longer look (`sustained`, see its fields) also
 * opens and holds one for conflicts that never stop under that rule. While an actor is hot (from its first Conflict
 * after a quiet window) every write feeds the episode's totals, per-second peaks, the retry gap
 * (time from a 409's `stageTimestamp` to the same client's next `requestReceivedTimestamp` on
 * the same object), and its retry chains (per source IP and verb: attempts from a first 409 to a
 * success or a give-up; a write of another verb, such as argo-rollouts#4073's merge patch before
 * each PUT that 409s, is not a retry and does not end the chain).
 *
 * The chains give the backoff verdict:
 * - `exponential`: gaps inside chains grow by at least `exponentialGrowth` per attempt
 *   (controller-runtime per-item backoff doubles from 5 ms; `retry.DefaultBackoff` multiplies
 *   by 5) — `kubernetes/client-go` `util/workqueue/default_rate_limiters.go`, `util/retry/util.go`;
 * - `retry-on-conflict`: chains of at most `rocMaxAttempts` attempts about 10 ms apart
 *   (`retry.DefaultRetry`: 5 steps, 10 ms, factor 1, jitter 0.1);
 * - `none`: anything else, typically long chains of short flat gaps: retries with no backoff.
 * An episode with `exponential` backoff, or `retry-on-conflict` chains that end in success at
 * least `rocMinSuccess` of the time, is handled well: it becomes a note, not a finding. Backed-off
 * retries that resend a stale resourceVersion (`stale-cache`) are handled well only when the watch
 * caught up within the backoff: a brief episode (under `brief.mediumMs`), no excess request, and at
 * least as many successes as 409s.
 *
 * **Per identity, per client.** The window's counts, the episode and the finding belong to one
 * identity (username) and object: controllers of one binary that share a service account and each
 * set their own userAgent are one writer (cert-manager#6714: three at about 1.6 writes/s each), and
 * the finding breaks its attempts down by userAgent (`userAgents`) and names the busiest. Retry
 * chains, and so retry gaps, gap growth, stale resends and the backoff verdict, stay per client
 * (source IP + userAgent): a chain is one client's retry loop, and a gap measured from one
 * client's 409 to another client's write says nothing about either one's backoff. Two programs
 * under one username (a human's kubectl and a script as `system:admin`) are thus one finding whose
 * breakdown tells them apart, each judged on its own chains.
 *
 * **Roll-up per identity and resource.** A controller that writes many short-lived objects of one
 * resource and meets 409s on each (kyverno#4265: every UpdateRequest's second status update is
 * written from the cached copy the first one made stale, so it 409s until the watch catches up,
 * and the object is deleted soon after) never gives one object enough Conflicts for an episode.
 * So the writes of an identity to a resource (and subresource), from its first Conflict there,
 * are also counted together: when that window passes the same rule (`minConflicts`,
 * `minConflictRatio`) with Conflicts on at least `rollup.minObjects` objects, on at least
 * `rollup.minObjectsPerClient` objects per source IP (one client working through many objects;
 * many clients each on its own object are `fleet-storm`'s), and no object of
 * the resource has an episode of this identity open, an episode opens for the resource, with
 * `object` null and the objects counted (`objects`, `topObjects`). Retry chains stay per client
 * and object.
 *
 * Severity: the higher of the rank of the episode's share of all writes in its window and the
 * rank of its peak 409/s, against the `severity` thresholds; for a writer whose writes mostly go
 * through, capped by its excess requests (`severityExcess`); for a short episode, capped by its
 * duration unless its excess requests are many (`brief`).
 */
import { z } from 'zod';
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import { isConflict } from '../decoding/record.js';
import { severityRank, type Advice, type Finding, type Severity } from '../report/schema.js';
import { reportObject } from '../engine/aggregates.js';
import { objectLabel } from '../labels.js';
import { BoundedSample } from '../engine/sample.js';
import {
  actorName,
  addSourceIP,
  EpisodeSeries,
  EvidenceIDs,
  FirstWrites,
  firstWritesFor,
  GapHistogram,
  Identities,
  int,
  iso,
  isObjectWrite,
  PairMap,
  PeakPerSecond,
  ratio,
  reportActor,
  round2,
  shortHash,
  StepRing,
  topList,
  UserAgentCounts,
} from './common.js';
import { excessAttempts, trafficShare, writeShare } from './impact.js';
import { transitionTimeAdvice } from './advice.js';
import type { DetectorContext } from './types.js';
import { defineDetector } from './types.js';
import {
  capByExcess,
  catchUp,
  evidenceFields,
  raiseSeverity,
  RATE,
  severityExcessOption,
  severityFor,
  severityOption,
  SHARE,
  windowedInstance,
  windowedOptions,
  windowFields,
} from './window.js';

export const conflictStormOptions = windowedOptions({
  ...windowFields(60_000, 10_000),
  /** Conflicts in one window needed to open an episode. */
  minConflicts: z.number().int().positive().default(20),
  /** Conflicts / attempts in one window needed to open an episode (0..1). */
  minConflictRatio: z.number().min(0).max(1).default(0.3),
  /**
   * A second, longer look for conflicts that never stop but stay under the window's rule (either
   * rule opens and holds an episode); see the fields.  A writer that converges (each 409 followed
   * by a success) at a low rate passes neither of its rules.
   */
  sustained: z
    .object({
      /** Length of the longer look, ms, rounded up to whole steps (at least `windowMs`). */
      lookMs: z.number().int().positive().default(180_000),
      /** Share (0..1) of the look's steps that must hold a 409 Conflict: conflicts that never stop, not a burst. */
      minActiveStepShare: z.number().min(0).max(1).default(0.75),
      /**
       * Contention: Conflicts in the look (60 in 3 min: the main rule's 20 a minute) that make at
       * least `contentionMinRatio` of the attempts: races that have gone on for minutes at a lower
       * share (per-node daemons patching one object from their caches, dra-driver#1101).
       */
      contentionMinConflicts: z.number().int().positive().default(60),
      /** Conflicts / attempts in the look (0..1) for the contention rule. */
      contentionMinRatio: z.number().min(0).max(1).default(0.1),
      /**
       * Stuck: Conflicts in the look that make at least `stuckMinRatio` of the attempts: a writer
       * that almost never gets a write through, however slowly it retries (a kubelet whose watch
       * cache is stuck resends one stale resourceVersion every sync, kubernetes#58002: one 409 per
       * 10 s sync). 14: one per step in `minActiveStepShare` of the 3-minute look's 10 s steps, so
       * the rate a writer is stuck at does not matter once its 409s fill the look.
       */
      stuckMinConflicts: z.number().int().positive().default(14),
      /** Conflicts / attempts in the look (0..1) for the stuck rule. */
      stuckMinRatio: z.number().min(0).max(1).default(0.8),
    })
    .strict()
    .default({ lookMs: 180_000, minActiveStepShare: 0.75, contentionMinConflicts: 60, contentionMinRatio: 0.1, stuckMinConflicts: 14, stuckMinRatio: 0.8 }),
  /** The roll-up per identity and resource (see the file header). */
  rollup: z
    .object({
      /** Objects with 409 Conflicts in the window needed to open a roll-up episode. */
      minObjects: z.number().int().min(2).default(2),
      /**
       * Objects with 409 Conflicts per source IP with 409 Conflicts, in the window, needed to open
       * a roll-up episode: one client working through many objects. Many clients each on its own
       * object (a DaemonSet's pods, one per node) are a fleet: `fleet-storm`'s.
       */
      minObjectsPerClient: z.number().positive().default(2),
      /** Objects counted by name per episode; further ones are summed under `(other)`. */
      maxObjects: z.number().int().positive().default(1000),
      /** Objects listed in `topObjects`. */
      topObjects: z.number().int().positive().default(5),
      /**
       * Retry chains per object with 409 Conflicts, beyond those another writer's change set off
       * (`reactionMs`), up to which a roll-up's RetryOnConflict chains stay `retry-on-conflict`
       * (else `none`) and its short backed-off chains are no `self-conflict`: each object's
       * conflicts stopped once its chain succeeded (a restart's stale cache, one 409 per object).
       * More: its 409s recur on objects, the writer losing to itself.
       */
      rocMaxChainsPerObject: z.number().positive().default(1),
      /**
       * The reaction to another user's change (ms): the writer's successful writes and retry
       * chains on the object in a row, each within this of the one before, whose first came at
       * most `reactionLagMs` after another user's successful write to the object (any
       * subresource). A roll-up's chain whose first 409 Conflict comes within this of the
       * reaction's start was set off by that change: the reconciles a change triggers write from
       * a cache that lags their own last write and retry until the informer catches up
       * (ray-project/kuberay#745: an autoscaler's spec patch, then the operator's status
       * updates), not the writer losing to itself. 2 s: the informer's lag plus per-item
       * backoff's first retries (5 ms doubling: 8 within 1.3 s, reference/audit-formats.md §5.2).
       */
      reactionMs: z.number().int().nonnegative().default(2_000),
      /**
       * Most ms from another user's change to the writer's first write of a reaction to it (see
       * `reactionMs`): the informer's lag in handing the change over. A writer that reconciles on
       * its own clock beside someone writing the object every few seconds starts most passes
       * later than that. 0: no chain counts as set off.
       */
      reactionLagMs: z.number().int().nonnegative().default(500),
    })
    .strict()
    .default({ minObjects: 2, minObjectsPerClient: 2, maxObjects: 1000, topObjects: 5, rocMaxChainsPerObject: 1, reactionMs: 2_000, reactionLagMs: 500 }),
  /** A write more than this long after the same client's 409 starts a new chain, ms. */
  chainBreakMs: z.number().int().positive().default(60_000),
  /** Longest chain (attempts) still typical of `retry.DefaultRetry`. */
  rocMaxAttempts: z.number().int().positive().default(5),
  /**
   * Median retry gap range (ms) for the `retry-on-conflict` verdict. `retry.DefaultRetry` sleeps
   * 10–11 ms (plus a GET), but the gap is measured across API servers' clocks, so the floor is 0
   * by default and the verdict rests on short chains that end in success.
   */
  rocMinGapMs: z.number().nonnegative().default(0),
  rocMaxGapMs: z.number().nonnegative().default(250),
  /** Share of chains ending in success for a RetryOnConflict writer to count as handled well. */
  rocMinSuccess: z.number().min(0).max(1).default(0.8),
  /**
   * 409 Conflicts a RetryOnConflict writer may meet per successful write of another actor to the
   * object (any subresource) in its episode, beyond one chain's (`rocMaxAttempts`), for its
   * verdict to stay `retry-on-conflict` (else `none`). Such a writer GETs before
   * each retry, so it only loses the race when someone else wrote in between: conflicts beyond the
   * others' writes are its own (a second status write in one reconcile, replicas of one service
   * account racing each other) and do not stop (http-add-on#1402, dra-driver#1101). The same bound
   * applies to an `exponential` verdict whose median chain is too short to show a growing delay
   * (under 3 attempts): per-item backoff restarts at every success, so a writer that loses only to
   * itself in one-retry chains never stops conflicting, whatever a few long chains show
   * (prometheus-operator#5610: two status updates per sync from one cached copy, the second 409s,
   * about every 200 ms); its episode is then a finding with signal `self-conflict`, not a note.
   */
  rocMaxConflictsPerForeignWrite: z.number().nonnegative().default(1),
  /** Median growth of successive retry gaps that means exponential backoff. */
  exponentialGrowth: z.number().positive().default(1.5),
  /** Sample auditIDs kept as evidence, besides the first and last; distinct source IPs listed per actor. */
  ...evidenceFields(),
  /** Successful writes per second above which timestamp churn in status is suspected. */
  churnWritesPerSec: z.number().nonnegative().default(0.2),
  /**
   * An episode whose excess requests (beyond per-item backoff, see impact.ts) are under this
   * share of its attempts, and whose peak 409/s stays under the `high` threshold, is at most
   * `low`: its retries cost the API server almost nothing, however large its share of a quiet
   * cluster's writes. For a writer that backs off exponentially, its 409s averaged over the
   * episode (at least `windowMs`) stand for the peak: per-item backoff from 5 ms retries each
   * object 8 times in its first second, so 30 objects backing off together peak at 240 409/s and
   * then slow down. A writer that loses to itself (its 409s not explained by others' writes) for
   * `brief.mediumMs` or longer is rated on its 409s alone against the `peak409PerSec` thresholds
   * instead: by their mean rate, or, for a writer not backing off, by their peak once it reaches
   * the `high` rate. A backoff that starts over after each success never stops them.
   */
  lowImpactExcessShare: z.number().min(0).max(1).default(0.1),
  /**
   * A short episode's severity is capped by how long it lasted, unless its excess requests reach
   * `excess`: under `lowMs` at most `low`, under `mediumMs` at most `medium`. 40 409s of a
   * 3-second startup burst cost the API server nothing a real storm does, whatever their peak.
   */
  brief: z
    .object({
      lowMs: z.number().nonnegative().default(10_000),
      mediumMs: z.number().nonnegative().default(60_000),
      excess: z.number().int().nonnegative().default(200),
    })
    .strict()
    .default({ lowMs: 10_000, mediumMs: 60_000, excess: 200 }),
  /**
   * For an episode whose writes mostly go through (at least as many successes as 409s: each
   * Conflict costs a retry that then succeeds, a writer converging after every race), excess
   * requests below which its severity is capped: under `medium` at most `low`, under `high` at
   * most `medium`, under `critical` at most `high`. A controller that re-reads and retries its
   * own status write once after its cache lags its last write (the daemonset controller in a
   * rollout) costs the API server little however steady. A writer that rarely gets through (a
   * stale cache resent for ever) is rated by its shares alone.
   */
  severityExcess: severityExcessOption({ medium: 200, high: 1_000, critical: 3_000 }),
  severity: severityOption(
    {
      /** Share of all writes in the episode's window (0..1) at or above which this severity applies. */
      share: SHARE,
      /** Peak 409 Conflict answers per second (1 s buckets) at or above which this severity applies. */
      peak409PerSec: RATE,
    },
    {
      critical: { share: 0.5, peak409PerSec: 50 },
      high: { share: 0.2, peak409PerSec: 10 },
      medium: { share: 0.05, peak409PerSec: 1 },
    },
  ),
});

export type ConflictStormOptions = z.output<typeof conflictStormOptions>;

/** Backoff verdict of an episode. */
export type Backoff = 'none' | 'retry-on-conflict' | 'exponential';

/** A median retry gap from which a flat retry is described by its period, not as "at once", ms. */
const SLOW_RETRY_MS = 500;

/** `1500` → `1.5 s`, `800` → `800 ms`. */
function formatGap(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms)} ms`;
}

/** Retry chain of one client (source IP + userAgent) on one object. */
interface Chain {
  /** The verb of the chain's writes. */
  verb: string;
  /** The same client's chain of another verb on the object, if any. */
  other: Chain | undefined;
  /** `stageTimestamp` of the first and the last write, ms. */
  startTs: number;
  lastTs: number;
  lastConflict: boolean;
  /** resourceVersion sent with the last 409'd write. */
  lastConflictRV: string;
  attempts: number;
  conflicts: number;
  /** Previous retry gap in this chain, ms, or -1. */
  prevGap: number;
  /** Retry gaps that grew by at least `exponentialGrowth` over the one before, in this chain. */
  grew: number;
  /** A retry gap fell below the one before by that factor: the delay started over, no backoff. */
  shrank: boolean;
  /** Roll-up only: the chain's first 409 came within `rollup.reactionMs` of another user's write to the object. */
  reaction: boolean;
}

/** Everything gathered while an (actor, object) pair is hot, from its first Conflict. */
interface Hot {
  from: number;
  attempts: number;
  conflicts: number;
  successes: number;
  otherErrors: number;
  /** Totals as of the last write tied to a Conflict (a 409 or the retry right after one). */
  to: number;
  toAttempts: number;
  toConflicts: number;
  toSuccesses: number;
  toOtherErrors: number;
  retries: number;
  staleRetries: number;
  gaps: BoundedSample;
  growth: BoundedSample;
  chainLengths: BoundedSample;
  chainsSucceeded: number;
  /** Roll-up only: chains with a 409 that another user's change set off (`Chain.reaction`). */
  reactedChains: number;
  /** Chains of at least {@link LONG_CHAIN} attempts, and those whose delay grew and never started over. */
  longChains: number;
  backedOffChains: number;
  /** Attempts beyond what a client with per-item backoff would have sent (see impact.ts). */
  excess: number;
  /** Successful writes of other actors (usernames) to the object, any subresource, while hot. */
  foreignWrites: number;
  ips: Set<string>;
  ipSeen: Set<string> | null;
  ipCount: number;
  fieldManagers: Set<string>;
  /** Attempts per userAgent of the identity, marked as of `to`. */
  userAgents: UserAgentCounts;
  peakWrites: PeakPerSecond;
  peakConflicts: PeakPerSecond;
  /** The first Conflicts and the last write tied to a Conflict. */
  evidence: EvidenceIDs;
  verbs: Set<string>;
  /** Roll-up only: 409 Conflicts per object label (beyond `rollup.maxObjects`, `(other)`), objects written, marked as of `to`. */
  objects: Map<string, number>;
  objectsWritten: Set<string>;
  toObjects: number;
  severity: Severity | null;
  /** Writes and 409s per bucket, and the retry-gap histogram, for the report. */
  series: EpisodeSeries;
  gapHistogram: GapHistogram;
}

interface Pair {
  /** The actor standing for the identity (see `Identities`). */
  actor: Actor;
  object: ObjectRef;
  /** Per step: 0 writes, 1 409 Conflicts. */
  ring: StepRing;
  lastWriteTs: number;
  /**
   * Retry chains per client: by source IP, plus `\u0000` userAgent for the identity's other
   * actors (a roll-up adds `\u0003` and the object's key: chains stay per object); one chain per
   * verb, listed through `Chain.other`.
   */
  chains: Map<string, Chain>;
  hot: Hot | null;
  open: boolean;
  /** Roll-up of an identity's writes to one resource (see the file header); null for an object's pair. */
  rollup: Rollup | null;
  /**
   * An `open` alert went out for the current episode. Episodes that look handled well so far
   * (exponential backoff, RetryOnConflict chains that succeed) raise none, as they become notes,
   * not findings; one that stops looking so raises its `open` then.
   */
  alerted: boolean;
  /** Its rank among the pairs of other object shards (`ShardPlacement.birth`; 0 when not sharded). */
  born: number;
}

/** What a roll-up pair keeps besides a pair's state. */
interface Rollup {
  /** Key in the roll-up map: identity key + `\u0001` + resource label. */
  key: string;
  /** Objects (by key) with a 409 Conflict, and the step of their last one. */
  conflictSteps: Map<string, number>;
  /** Source IPs with a 409 Conflict, and the step of their last one. */
  clientSteps: Map<string, number>;
}

/** The latest successful writes to one object (`noteWrite`): the latest, and the latest before it by another user. */
interface LastWrites {
  object: ObjectRef;
  user: string;
  ts: number;
  /** The time of the latest write by another user than `user` (ms; -1: none). */
  otherTs: number;
  /** `user`'s writes in a row, each within `rollup.reactionMs` of the one before: the first one's time, and whether it came within `rollup.reactionLagMs` of `otherTs`. */
  burstStart: number;
  burstSetOff: boolean;
}

/** Objects whose latest writes are kept for roll-ups (`lastWrites`); the table starts over when full. */
const LAST_WRITES_MAX = 50_000;

/** Attempts from which a chain's delays can show a backoff (three growths among its retries). */
const LONG_CHAIN = 5;
/** Attempts from which a chain's delay can grow at all (two retry gaps to compare). */
const GROWTH_CHAIN = 3;

/** Sum of counter `i` over the `steps` buckets ending at `boundary` (the ring may hold more). */
function sumSteps(ring: StepRing, boundary: number, i: number, steps: number): number {
  let t = 0;
  for (let b = boundary - steps; b < boundary; b++) t += ring.at(b, i);
  return t;
}

const C_WRITE = 0;
const C_CONFLICT = 1;

export const conflictStorm = defineDetector({
  meta: {
    id: 'conflict-storm',
    description: 'One actor writes one object and keeps getting 409 Conflict, retrying without backoff (optimistic-lock retry loop).',
    optionsSchema: conflictStormOptions,
    judges: 'errors',
    // Pairs are per object; the identity table, the held first writes and the roll-ups, which span objects, are shared by the shards, and the roll-ups judged by the cross instance.
    byObject: 'objects+cross',
  },
  create(ctx: DetectorContext<ConflictStormOptions>) {
    const o = ctx.options;
    /** `all` when not sharded; else what this instance judges (see `ShardPlacement.role`). */
    const role = ctx.placement?.role ?? 'all';
    const shared = ctx.placement ? ctx.placement.shared.bind(ctx.placement) : <T>(_name: string, make: () => T): T => make();
    const n = o.windowMs / o.stepMs;
    /** Steps of the sustained look; the pairs' rings hold this many (at least `n`). */
    const longSteps = Math.max(n, Math.ceil(o.sustained.lookMs / o.stepMs));
    /** Live (object, actor) pairs; `evaluate` says when one is idle and can go. */
    const pairs = new PairMap<Pair>();
    /** Roll-up pairs by identity key + `\u0001` + resource label, made at an identity's first 409 on a resource. */
    const rollups = shared('rollups', () => new Map<string, Pair>());
    /** Roll-ups per resource (`ObjectRef.resource`): successful writes to these are noted in `lastWrites`. */
    const rollupResources = shared('rollupResources', () => new Map<string, number>());
    /** The latest successful writes to objects of resources with a roll-up, by object name (see {@link noteWrite}). */
    const lastWrites = shared('lastWrites', () => new Map<string, LastWrites>());
    /** Open episodes of objects' pairs per roll-up key: a roll-up does not open beside them. */
    const openObjects = shared('openObjects', () => new Map<string, number>());
    /** Pairs are keyed by identity (username), not by username + userAgent. */
    const identities = shared('identities', () => new Identities());
    /**
     * First writes of objects no pair holds, while a pair with one write cannot open an episode.
     * A pair with one write and no Conflict in its window is dropped once `chainBreakMs` passed.
     */
    // One table for every object shard: held writes take room in the order of all objects' writes.
    const firstWrites = shared('firstWrites', () => firstWritesFor<string>(ctx, o.minConflicts >= 2, Math.max(o.windowMs + o.stepMs, o.chainBreakMs) + o.stepMs, (k) => k));

    /**
     * Hot pairs by their object's name (a string the object holds: no key built per write); the
     * rest of the object, without subresource, is compared on lookup. Their episodes count
     * others' writes to the object.
     */
    const hotByObject = new Map<string, Pair[]>();

    /** Whether `a` and `b` are one object but for the subresource (`/status` and the main resource are). */
    function sameObject(a: ObjectRef, b: ObjectRef): boolean {
      return a.name === b.name && a.namespace === b.namespace && a.resource === b.resource && a.apiGroup === b.apiGroup;
    }

    function heat(p: Pair, r: RequestRecord): void {
      p.hot = newHot(r);
      if (p.rollup !== null) return;
      const list = hotByObject.get(p.object.name);
      if (list === undefined) hotByObject.set(p.object.name, [p]);
      else list.push(p);
    }

    function cool(p: Pair): void {
      p.hot = null;
      if (p.rollup !== null) return;
      const list = hotByObject.get(p.object.name);
      if (list === undefined) return;
      const i = list.indexOf(p);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) hotByObject.delete(p.object.name);
    }

    /** A successful write `r`: another actor's write for every hot pair on its object. */
    function countForeign(r: RequestRecord): void {
      const ob = r.object as ObjectRef;
      const list = hotByObject.get(ob.name);
      if (list === undefined) return;
      for (const p of list) if (p.actor.username !== r.actor.username && sameObject(p.object, ob)) (p.hot as Hot).foreignWrites++;
    }

    /**
     * A successful write `r` to an object of a resource with a roll-up: kept as the object's latest
     * write, and the one before by another user (so the latest write by anyone but a given user is
     * known). Keyed by the object's name (a string it holds), the rest compared on lookup; a name
     * shared by two objects keeps the later one's.
     */
    function noteWrite(r: RequestRecord): void {
      const ob = r.object as ObjectRef;
      const user = r.actor.username;
      let w = lastWrites.get(ob.name);
      if (w === undefined || !sameObject(w.object, ob)) {
        if (w === undefined && lastWrites.size >= LAST_WRITES_MAX) lastWrites.clear();
        w = { object: ob, user, ts: r.ts, otherTs: -1, burstStart: r.ts, burstSetOff: false };
        lastWrites.set(ob.name, w);
        return;
      }
      if (w.user !== user || r.ts - w.ts > o.rollup.reactionMs) {
        if (w.user !== user) {
          w.otherTs = w.ts;
          w.user = user;
        }
        w.burstStart = r.ts;
        w.burstSetOff = w.otherTs >= 0 && r.ts - w.otherTs <= o.rollup.reactionLagMs;
      }
      w.ts = r.ts;
    }

    /**
     * Whether 409 `r`, the first of a roll-up's retry chain, is part of its writer's reaction to
     * another user's change to the object (see `rollup.reactionMs`).
     */
    function setOff(r: RequestRecord): boolean {
      const ob = r.object as ObjectRef;
      const w = lastWrites.get(ob.name);
      if (w === undefined || !sameObject(w.object, ob)) return false;
      // Another user wrote last: the chain starts the reaction, if soon enough after the change.
      if (w.user !== r.actor.username) return r.ts - w.ts <= o.rollup.reactionLagMs;
      return w.burstSetOff && r.ts - w.ts <= o.rollup.reactionMs && r.ts - w.burstStart <= o.rollup.reactionMs;
    }

    /** A request `r`, if it is a stored write to a named object: counted for the hot pairs and roll-ups that read others' writes. */
    function noteStored(r: RequestRecord): void {
      if (!r.isWrite || r.object === null || r.object.name === '' || r.code < 200 || r.code >= 300) return;
      if (hotByObject.size > 0) countForeign(r);
      if (rollupResources.size > 0 && rollupResources.has(r.object.resource)) noteWrite(r);
    }

    function newHot(r: RequestRecord): Hot {
      return {
        from: r.ts,
        attempts: 0,
        conflicts: 0,
        successes: 0,
        otherErrors: 0,
        to: r.ts,
        toAttempts: 0,
        toConflicts: 0,
        toSuccesses: 0,
        toOtherErrors: 0,
        retries: 0,
        staleRetries: 0,
        gaps: new BoundedSample(),
        growth: new BoundedSample(),
        chainLengths: new BoundedSample(),
        chainsSucceeded: 0,
        reactedChains: 0,
        longChains: 0,
        backedOffChains: 0,
        excess: 0,
        foreignWrites: 0,
        ips: new Set(),
        ipSeen: null,
        ipCount: 0,
        fieldManagers: new Set(),
        userAgents: new UserAgentCounts(),
        peakWrites: new PeakPerSecond(),
        peakConflicts: new PeakPerSecond(),
        evidence: new EvidenceIDs(o.evidenceSamples + 1),
        verbs: new Set(),
        objects: new Map(),
        objectsWritten: new Set(),
        toObjects: 0,
        severity: null,
        series: new EpisodeSeries(o.stepMs),
        gapHistogram: new GapHistogram(),
      };
    }

    /** Close a chain that contained a Conflict into the hot stats. */
    function endChain(h: Hot | null, c: Chain, succeeded: boolean): void {
      if (h === null || c.conflicts === 0) return;
      h.chainLengths.add(c.attempts);
      if (c.reaction) h.reactedChains++;
      if (c.attempts >= LONG_CHAIN) {
        h.longChains++;
        if (c.grew >= LONG_CHAIN - 2 && !c.shrank) h.backedOffChains++;
      }
      h.excess += excessAttempts(c.attempts, c.lastTs - c.startTs);
      if (succeeded) h.chainsSucceeded++;
    }

    /**
     * Held first writes already counted in their identity's roll-up (when they were held): the
     * roll-up counts the identity's writes to the resource, objects written once included.
     */
    const rolledHeld = shared('rolledHeld', () => new WeakSet<RequestRecord>());

    /** A write of an object no pair holds: held, or, with the write held before it, given a pair. */
    function onFirstWrite(r: RequestRecord, held: FirstWrites<string>): void {
      const first = held.take((r.object as ObjectRef).key, r);
      if (first === undefined) {
        const who = identities.of(r.actor);
        // Counted only in a roll-up that exists: one made per identity with a held 409 would grow with the identities.
        if (rollupWrite(r, who, r.object as ObjectRef, r.actor === who ? r.sourceIP : `${r.sourceIP}\u0000${r.actor.userAgent}`, false)) rolledHeld.add(r);
        return;
      }
      if (first === null) return onWrite(r);
      onWrite(first, rolledHeld.has(first));
      const p = pairs.get(first.object as ObjectRef, identities.of(first.actor)) as Pair;
      if (!catchUp(o, first.ts, r.ts, (b) => evaluate(p, b))) pairs.delete(p);
      onWrite(r);
    }

    function newPair(who: Actor, obj: ObjectRef, ts: number, rollup: Rollup | null): Pair {
      return {
        actor: who,
        object: obj,
        ring: new StepRing(rollup === null ? longSteps : n, 2),
        lastWriteTs: ts,
        chains: new Map(),
        hot: null,
        open: false,
        rollup,
        alerted: false,
        born: ctx.placement?.birth() ?? 0,
      };
    }

    function rollupKey(who: Actor, obj: ObjectRef): string {
      return `${who.key}\u0001${obj.label}`;
    }

    /** A write `r` of an object: its pair's, and its roll-up's unless `rolled` (counted there when it was held). */
    function onWrite(r: RequestRecord, rolled = false): void {
      const obj = r.object as ObjectRef;
      const who = identities.of(r.actor);
      const p = pairs.get(obj, who) ?? pairs.add(newPair(who, obj, r.ts, null));
      const client = r.actor === p.actor ? r.sourceIP : `${r.sourceIP}\u0000${r.actor.userAgent}`;
      feed(p, r, client);
      if (!rolled) rollupWrite(r, who, obj, client);
    }

    /**
     * Write `r` of `obj` by identity `who`'s client `client`, for their roll-up (made at a 409
     * when `make`). Returns whether it was counted.
     */
    function rollupWrite(r: RequestRecord, who: Actor, obj: ObjectRef, client: string, make = true): boolean {
      const conflict = isConflict(r);
      if (rollups.size === 0 && !(conflict && make)) return false;
      const key = rollupKey(who, obj);
      let u = rollups.get(key);
      if (u === undefined) {
        if (!conflict || !make) return false;
        u = newPair(who, obj, r.ts, { key, conflictSteps: new Map(), clientSteps: new Map() });
        rollups.set(key, u);
        rollupResources.set(obj.resource, (rollupResources.get(obj.resource) ?? 0) + 1);
      }
      if (conflict) {
        const step = Math.floor(r.ts / o.stepMs);
        (u.rollup as Rollup).conflictSteps.set(obj.key, step);
        (u.rollup as Rollup).clientSteps.set(r.sourceIP, step);
      }
      feed(u, r, `${client}\u0003${obj.key}`);
      return true;
    }

    /** One write `r` of pair `p` (an object's or a roll-up) by client `client`. */
    function feed(p: Pair, r: RequestRecord, client: string): void {
      const conflict = isConflict(r);
      const ok = r.code >= 200 && r.code < 300;
      p.lastWriteTs = r.ts;

      const b = Math.floor(r.ts / o.stepMs);
      p.ring.add(b, C_WRITE);
      if (conflict) p.ring.add(b, C_CONFLICT);

      if (conflict && p.hot === null) heat(p, r);
      const h = p.hot;

      // Retry chain of this client on this object, per verb: a retry resends the same request, so
      // a write of another verb (argo-rollouts#4073's merge patch before each failing PUT) neither
      // continues the chain nor ends it.
      let c = p.chains.get(client);
      while (c !== undefined && c.verb !== r.verb) c = c.other;
      let retryGap = -1;
      if (c !== undefined && c.lastConflict && r.ts - c.lastTs <= o.chainBreakMs) {
        retryGap = Math.max(0, r.receivedTs - c.lastTs);
        c.attempts++;
      } else {
        if (c === undefined) {
          c = {
            verb: r.verb,
            other: undefined,
            startTs: 0,
            lastTs: 0,
            lastConflict: false,
            lastConflictRV: '',
            attempts: 0,
            conflicts: 0,
            prevGap: -1,
            grew: 0,
            shrank: false,
            reaction: false,
          };
          const head = p.chains.get(client);
          if (head === undefined) p.chains.set(client, c);
          else {
            c.other = head.other;
            head.other = c;
          }
        } else if (c.lastConflict) endChain(h, c, false);
        startOver(c);
        c.startTs = r.ts;
        c.attempts = 1;
      }
      const tiedToConflict = conflict || retryGap >= 0;

      if (h !== null) {
        h.attempts++;
        if (conflict) h.conflicts++;
        else if (ok) h.successes++;
        else h.otherErrors++;
        h.verbs.add(r.verb);
        if (p.rollup !== null) {
          const ob = r.object as ObjectRef;
          if (h.objectsWritten.size < o.rollup.maxObjects) h.objectsWritten.add(ob.key);
          if (conflict) {
            const label = h.objects.has(ob.key) || h.objects.size < o.rollup.maxObjects ? ob.key : '(other)';
            h.objects.set(label, (h.objects.get(label) ?? 0) + 1);
          }
        }
        h.userAgents.add(r.actor);
        if (r.fieldManager) h.fieldManagers.add(r.fieldManager);
        addSourceIP(h, r.sourceIP, o.maxSourceIPs);
        h.peakWrites.add(r.ts);
        if (conflict) h.peakConflicts.add(r.ts);
        h.series.add(r.ts, conflict);
        if (retryGap >= 0) {
          h.retries++;
          h.gaps.add(retryGap);
          h.gapHistogram.add(retryGap);
          if (c.prevGap >= 0) {
            const growth = (retryGap + 1) / (c.prevGap + 1);
            h.growth.add(growth);
            if (growth >= o.exponentialGrowth) c.grew++;
            else if (growth * o.exponentialGrowth < 1) c.shrank = true;
          }
          if (conflict && r.resourceVersion !== '' && r.resourceVersion === c.lastConflictRV) h.staleRetries++;
        }
        if (conflict) h.evidence.add(r.auditID, r.level);
        else if (tiedToConflict) h.evidence.extend(r.auditID);
        if (tiedToConflict) {
          h.to = r.ts;
          h.toAttempts = h.attempts;
          h.toConflicts = h.conflicts;
          h.toSuccesses = h.successes;
          h.toOtherErrors = h.otherErrors;
          h.userAgents.mark();
          h.toObjects = h.objectsWritten.size;
        }
      }

      c.prevGap = retryGap;
      c.lastTs = r.ts;
      if (conflict) {
        if (c.conflicts === 0 && p.rollup !== null) c.reaction = setOff(r);
        c.conflicts++;
        c.lastConflict = true;
        c.lastConflictRV = r.resourceVersion;
      } else {
        if (c.conflicts > 0) endChain(h, c, ok);
        startOver(c);
        // A roll-up's chains are per object: one that ended holds nothing the next write needs.
        if (p.rollup !== null) unlinkChain(p, client, c);
      }
    }

    /** Empties chain `c` (its verb and place in the list stay): no attempt, no 409 waiting for a retry. */
    function startOver(c: Chain): void {
      c.lastConflict = false;
      c.attempts = 0;
      c.conflicts = 0;
      c.prevGap = -1;
      c.grew = 0;
      c.shrank = false;
      c.reaction = false;
    }

    /** Takes chain `c` out of client `client`'s chains of `p`. */
    function unlinkChain(p: Pair, client: string, c: Chain): void {
      const head = p.chains.get(client) as Chain;
      if (head === c) {
        if (c.other === undefined) p.chains.delete(client);
        else p.chains.set(client, c.other);
        return;
      }
      let x = head;
      while (x.other !== c) x = x.other as Chain;
      x.other = c.other;
    }

    /** Keys of `steps` whose last 409 Conflict is in the window ending at `boundary`; older ones are forgotten. */
    function inWindow(steps: Map<string, number>, boundary: number): number {
      let k = 0;
      for (const [key, step] of steps) {
        if (step >= boundary - n) k++;
        else steps.delete(key);
      }
      return k;
    }

    /** Roll-up `u` has 409 Conflicts on enough objects, and enough per client, in the window ending at `boundary`. */
    function spread(u: Rollup, boundary: number): boolean {
      const objects = inWindow(u.conflictSteps, boundary);
      return objects >= o.rollup.minObjects && objects >= o.rollup.minObjectsPerClient * inWindow(u.clientSteps, boundary);
    }

    /** Evaluate the window ending at `boundary * stepMs` for one pair. Returns false to drop it. */
    function evaluate(p: Pair, boundary: number): boolean {
      const w = sumSteps(p.ring, boundary, C_WRITE, n);
      const cf = sumSteps(p.ring, boundary, C_CONFLICT, n);
      const passes =
        p.rollup === null
          ? (cf >= o.minConflicts && cf >= o.minConflictRatio * w) || (cf > 0 && sustains(p.ring, boundary))
          : cf >= o.minConflicts && cf >= o.minConflictRatio * w && spread(p.rollup, boundary) && (p.open || (openObjects.get(p.rollup.key) ?? 0) === 0);
      if (p.open) {
        if (passes) {
          const h = p.hot as Hot;
          const raised = raiseSeverity(h, severityOf(h, p.rollup !== null));
          if (p.alerted) {
            if (raised) ctx.alert('update', build(p));
          } else alertOpen(p);
          return true;
        }
        close(p);
      } else if (passes && p.hot !== null) {
        p.open = true;
        if (p.rollup === null) countOpen(p, 1);
        p.hot.severity = severityOf(p.hot, p.rollup !== null);
        alertOpen(p);
        return true;
      } else if (cf === 0) {
        cool(p);
      }
      const end = boundary * o.stepMs;
      return !(w === 0 && p.hot === null && end - p.lastWriteTs > o.chainBreakMs);
    }

    /** The sustained look (see the `sustained` option) over the `longSteps` ending at `boundary`. */
    function sustains(ring: StepRing, boundary: number): boolean {
      const s = o.sustained;
      let w = 0;
      let cf = 0;
      let active = 0;
      for (let b = boundary - longSteps; b < boundary; b++) {
        const c = ring.at(b, C_CONFLICT);
        w += ring.at(b, C_WRITE);
        cf += c;
        if (c > 0) active++;
      }
      if (active < s.minActiveStepShare * longSteps) return false;
      return (cf >= s.contentionMinConflicts && cf >= s.contentionMinRatio * w) || (cf >= s.stuckMinConflicts && cf >= s.stuckMinRatio * w);
    }

    /** Live `open` alert, unless the episode looks handled well so far (see {@link Pair.alerted}). */
    function alertOpen(p: Pair): void {
      // Judged anew at every step while the episode looks handled well: not built for no one.
      if (ctx.alerting === false) return;
      const f = build(p);
      if (isHandledWell(f)) return;
      p.alerted = true;
      ctx.alert('open', f);
    }

    /** An object's pair opened (`by` 1) or closed (−1) an episode: counted for its roll-up. */
    function countOpen(p: Pair, by: number): void {
      const key = rollupKey(p.actor, p.object);
      const k = (openObjects.get(key) ?? 0) + by;
      if (k > 0) openObjects.set(key, k);
      else openObjects.delete(key);
      // That episode's Conflicts were reported: a roll-up must earn its own with new ones.
      if (by < 0) rollups.get(key)?.ring.clear();
    }

    function close(p: Pair): void {
      p.open = false;
      if (p.rollup === null) countOpen(p, -1);
      // The next episode must be earned by new Conflicts, not by this one's tail still in the window.
      p.ring.clear();
      const h = p.hot as Hot;
      // Chains still waiting for their next attempt end here, unresolved.
      for (const head of p.chains.values()) {
        for (let c: Chain | undefined = head; c !== undefined; c = c.other) {
          if (!c.lastConflict) continue;
          endChain(h, c, false);
          startOver(c);
        }
      }
      const f = build(p);
      if (p.alerted) ctx.alert('close', f);
      p.alerted = false;
      if (isHandledWell(f)) ctx.note({ ...f, severity: 'info' }, p.born);
      else ctx.emit(f, p.born);
      cool(p);
    }

    /**
     * Whether the retry gaps grow exponentially: their median growth, or most long chains' delays.
     * Growth of a capped backoff (10 ms doubling to a 1 s cap) is mostly 1 once at the cap: a long
     * chain whose delay grew several times and never started over backs off too.
     */
    function backsOff(h: Hot): boolean {
      const growth = medianGrowth(h);
      return (growth !== null && growth >= o.exponentialGrowth) || (h.longChains > 0 && h.backedOffChains * 2 >= h.longChains);
    }

    /** Median growth of successive retry gaps, or null with fewer than 3. */
    function medianGrowth(h: Hot): number | null {
      return h.growth.size >= 3 ? h.growth.percentile(50) : null;
    }

    function backoffOf(h: Hot, rollup: boolean): { backoff: Backoff; growth: number | null; chainP90: number | null } {
      const growth = medianGrowth(h);
      const chainP90 = h.chainLengths.percentile(90);
      const gapP50 = h.gaps.percentile(50);
      let backoff: Backoff = 'none';
      if (backsOff(h)) backoff = 'exponential';
      else if (chainP90 !== null && chainP90 <= o.rocMaxAttempts && gapP50 !== null && gapP50 >= o.rocMinGapMs && gapP50 <= o.rocMaxGapMs)
        // Short chains are RetryOnConflict only while others' writes explain the Conflicts (the
        // causes of the first chain's may come before the episode does: a chain's worth of
        // slack); beyond, the writer loses to itself reconcile after reconcile, unbacked-off.
        backoff = selfConflicts(h, rollup) ? 'none' : 'retry-on-conflict';
      return { backoff, growth, chainP90 };
    }

    /**
     * More 409s than others' writes to the object explain (`rocMaxConflictsPerForeignWrite` per
     * foreign write, plus a chain's worth, `rocMaxAttempts`): the writer loses to itself. A
     * roll-up loses to itself when its 409s recur on an object (more than
     * `rollup.rocMaxChainsPerObject` retry chains per object with 409s, leaving out those another
     * user's change set off), not when each object's conflicts stop after one chain.
     */
    function selfConflicts(h: Hot, rollup: boolean): boolean {
      if (rollup) return h.chainLengths.count - h.reactedChains > o.rollup.rocMaxChainsPerObject * h.objects.size;
      return h.toConflicts > o.rocMaxConflictsPerForeignWrite * h.foreignWrites + o.rocMaxAttempts;
    }

    function severityOf(h: Hot, rollup: boolean): Severity {
      // Retries that cost almost nothing stay low, unless the 409s come fast (throughout, for a
      // writer backing off). A writer that loses to itself pass after pass for longer than a
      // brief episode is rated on its 409s alone, never on its share of a quiet cluster: by their
      // mean rate (their peak once it reaches the `high` rate, for a writer not backing off), as
      // backing off within each pass mends nothing and they never stop.
      const fast = o.severity.high.peak409PerSec;
      const mean409PerSec = h.toConflicts / (Math.max(o.windowMs, h.to - h.from) / 1000);
      if (h.excess < o.lowImpactExcessShare * h.toAttempts) {
        const backing = backsOff(h);
        if (h.to - h.from >= o.brief.mediumMs && selfConflicts(h, rollup))
          return severityFor(o.severity, { share: 0, peak409PerSec: !backing && h.peakConflicts.peak >= fast ? h.peakConflicts.peak : mean409PerSec });
        if (h.peakConflicts.peak < fast || (backing && mean409PerSec < fast)) return 'low';
      }
      const share = writeShare(ctx.series, h.from, h.to, h.toAttempts);
      const rated = severityFor(o.severity, { share, peak409PerSec: h.peakConflicts.peak });
      const by = h.toSuccesses >= h.toConflicts ? capByExcess(rated, h.excess, o.severityExcess) : rated;
      const lasted = h.to - h.from;
      if (h.excess >= o.brief.excess) return by;
      if (lasted < o.brief.lowMs) return severityRank(by) > severityRank('low') ? 'low' : by;
      if (lasted < o.brief.mediumMs) return severityRank(by) > severityRank('medium') ? 'medium' : by;
      return by;
    }

    /**
     * A writer whose stale cache catches up within the backoff after each other user's change:
     * its requests beyond per-item backoff stay under `lowImpactExcessShare` of its attempts, and
     * at least half a roll-up's retry chains were set off by such a change (`chainsSetOff`), or an
     * object's chains are no more than other users' successful writes to it (`foreignWrites`):
     * kuberay#745's reconciles after an autoscaler's patch. A chain need not end stored: once the
     * cache has caught up, the reconcile often finds nothing left to write.
     */
    function reactionsMended(f: Finding): boolean {
      const m = f.metrics;
      const chains = Number(m.retryChains);
      if (chains === 0 || Number(m.excessRequests) >= o.lowImpactExcessShare * Number(m.attempts)) return false;
      // An object's episode: no more chains than other users' successful writes to it, each a change
      // to react to (plus one: the first chain's change came before the episode did).
      if (m.chainsSetOff === undefined) return chains <= Number(m.foreignWrites) + 1;
      return Number(m.chainsSetOff) * 2 >= chains;
    }

    function isHandledWell(f: Finding): boolean {
      const m = f.metrics;
      if (m.backoff === 'exponential') {
        if (f.signals.includes('self-conflict')) return false;
        // Backing off alone never mends a stale cache (retries that resend the conflicting
        // resourceVersion fail for ever), unless the watch catches up within the backoff: a brief
        // episode (under `brief.mediumMs`) with no request beyond the budget and at least as many
        // writes stored as answered 409. A loop whose 409s never stop is not mended, however its
        // passes end.
        if (f.signals.includes('stale-cache'))
          return (Number(m.durationMs) < o.brief.mediumMs && m.excessRequests === 0 && Number(m.successes) >= Number(m.conflicts)) || reactionsMended(f);
        return true;
      }
      const chains = Number(m.retryChains);
      return m.backoff === 'retry-on-conflict' && chains > 0 && Number(m.retryChainsSucceeded) / chains >= o.rocMinSuccess;
    }

    /** The finding for a pair's current hot state. */
    function build(p: Pair): Finding {
      const h = p.hot as Hot;
      const { backoff, growth, chainP90 } = backoffOf(h, p.rollup !== null);
      const durationMs = Math.max(0, h.to - h.from);
      const share = trafficShare(ctx.series, h.from, h.to, h.toAttempts);
      const chains = h.chainLengths.count;
      const gapP50 = h.gaps.percentile(50);
      const gapP90 = h.gaps.percentile(90);
      const okPerSec = durationMs > 0 ? h.toSuccesses / (durationMs / 1000) : 0;
      const sa = p.actor.serviceAccount;

      // Flat retries a period apart (a capped per-item backoff seen at its cap, a RequeueAfter),
      // or 409s too far apart to chain, are not retries at once: no `no-backoff`, no advice to
      // add backoff (the 409s that go on call for a fresh read or a patch instead). A quarter of
      // the retries at once (one client of several, or bursts between paced passes) is enough
      // to call it at once.
      const gapP25 = h.gaps.percentile(25);
      const paced = backoff === 'none' && (gapP25 === null || gapP25 >= SLOW_RETRY_MS);
      const signals: string[] = [];
      if (backoff === 'none' && !paced) signals.push('no-backoff');
      if (sa !== null && h.ipCount > 1) signals.push('duplicate-replicas');
      if (h.toConflicts > 1 && h.staleRetries * 2 >= h.toConflicts) signals.push('stale-cache');
      const chainP50 = h.chainLengths.percentile(50);
      if (backoff === 'exponential' && selfConflicts(h, p.rollup !== null) && chainP50 !== null && chainP50 < GROWTH_CHAIN) signals.push('self-conflict');

      const metrics: Finding['metrics'] = {
        attempts: h.toAttempts,
        conflicts: h.toConflicts,
        successes: h.toSuccesses,
        otherErrors: h.toOtherErrors,
        conflictRatio: ratio(h.toConflicts, h.toAttempts),
        attemptsPerSuccess: h.toSuccesses > 0 ? round2(h.toAttempts / h.toSuccesses) : null,
        durationMs: Math.round(durationMs),
        // Attempts − 1 intervals over the duration; a burst shorter than a second has no higher mean than its busiest second.
        meanWritesPerSec: durationMs > 0 ? round2(Math.min((h.toAttempts - 1) / (durationMs / 1000), h.peakWrites.peak)) : null,
        peakWritesPerSec: h.peakWrites.peak,
        peak409PerSec: h.peakConflicts.peak,
        retryGapP50Ms: gapP50 === null ? null : round2(gapP50),
        retryGapP90Ms: gapP90 === null ? null : round2(gapP90),
        retries: h.retries,
        retryChains: chains,
        retryChainsSucceeded: h.chainsSucceeded,
        retryChainP90Attempts: chainP90,
        gapGrowth: growth === null ? null : round2(growth),
        backoff,
        staleRetries: h.staleRetries,
        sourceIPCount: h.ipCount,
        excessRequests: h.excess,
        foreignWrites: h.foreignWrites,
        ...(p.rollup === null
          ? {}
          : {
              chainsSetOff: h.reactedChains,
              // The resource the roll-up covers (`resource[.apiGroup][/subresource]`).
              resource: p.object.label,
              objects: h.toObjects,
              objectsWithConflicts: h.objects.size,
              topObjects: topList(
                h.objects,
                (k) =>
                  k
                    .split('/')
                    .slice(2, 4)
                    .filter((x) => x !== '')
                    .join('/'),
                o.rollup.topObjects,
              ),
            }),
        ...share,
        // Several clients of one identity (its userAgents), with their attempts.
        ...h.userAgents.report(true),
      };

      const named = h.userAgents.top(p.actor, true);
      const who = actorName(named);
      const what = p.rollup === null ? objectLabel(p.object) : `${int(h.toObjects)} ${p.object.label} objects`;
      const pct = Math.round((h.toConflicts / Math.max(1, h.toAttempts)) * 100);
      const how =
        backoff !== 'none'
          ? `with ${backoff} backoff`
          : !paced
            ? 'without backoff'
            : gapP50 === null
              ? `with 409s over ${formatGap(o.chainBreakMs)} apart per client`
              : `retrying every ~${formatGap(gapP50)} without growing the delay`;
      return {
        id: `conflict-storm:${shortHash(`${p.actor.key}\u0001${p.rollup === null ? p.object.key : p.rollup.key}\u0001${h.from}`)}`,
        kind: 'conflict-storm',
        severity: h.severity ?? severityOf(h, p.rollup !== null),
        title: `${who} retries 409 Conflict on ${what} ${how}: ${int(h.toConflicts)} of ${int(h.toAttempts)} writes conflicted (${pct}%), peak ${int(h.peakConflicts.peak)} 409/s`,
        actors: [reportActor(named, h.ips, h.fieldManagers)],
        object: p.rollup === null ? reportObject(p.object) : null,
        window: { from: iso(h.from), to: iso(h.to) },
        metrics,
        signals,
        evidence: h.evidence.evidence('proven'),
        advice: adviceFor(p, h, backoff, signals, okPerSec),
        series: { ...h.series.toReport(h.to), retryGaps: h.gapHistogram.toReport() },
      };
    }

    function adviceFor(p: Pair, h: Hot, backoff: Backoff, signals: string[], okPerSec: number): Advice[] {
      const advice: Advice[] = [];
      const status = p.object.subresource === 'status';
      advice.push({
        id: 'compare-before-write',
        text: `Compare the desired ${status ? 'status' : 'object'} with the current one and skip the write when nothing changed (equality.Semantic.DeepEqual): every write bumps resourceVersion and makes the next write from a cached copy conflict.`,
      });
      if (h.verbs.has('update')) {
        advice.push({
          id: status ? 'patch-status' : 'patch-instead-of-update',
          text: status
            ? 'Write status with a merge patch (controller-runtime Status().Patch(ctx, obj, client.MergeFrom(orig))) instead of Status().Update(): a patch without resourceVersion applies to the current object and cannot 409 on a stale read.'
            : 'Use a patch (client.MergeFrom, or server-side apply) instead of a full Update: a patch without resourceVersion applies to the current object and cannot 409 on a stale read.',
        });
      }
      if (signals.includes('no-backoff')) {
        advice.push({
          id: 'requeue-with-backoff',
          text: 'Requeue with backoff instead of retrying at once: return the error from Reconcile (the workqueue backs off per item from 5 ms up to 1000 s) or use retry.RetryOnConflict(retry.DefaultBackoff, …) with a fresh Get before each attempt.',
        });
      }
      if (signals.includes('stale-cache')) {
        advice.push({
          id: 'reread-before-retry',
          text: 'Most retries resend the resourceVersion that just conflicted: re-read the object (Get from the API server, or wait for the informer to catch up) before retrying.',
        });
      }
      if (signals.includes('duplicate-replicas')) {
        const sa = p.actor.serviceAccount as { namespace: string; name: string };
        advice.push({
          id: 'leader-election',
          text: `${h.ipCount} pods of service account ${sa.namespace}/${sa.name} write this object from different IPs and race each other: run one active replica with leader election (controller-runtime manager option LeaderElection: true).`,
        });
      }
      if (status && okPerSec >= o.churnWritesPerSec) {
        advice.push(
          transitionTimeAdvice(
            h.evidence.level,
            p.object,
            "Only change a condition's lastTransitionTime when its status changes (meta.SetStatusCondition does this): a timestamp set to now on every reconcile makes every status write a real change that triggers the next reconcile.",
          ),
        );
      }
      return advice;
    }

    return windowedInstance(o, {
      judge(at: number): void {
        for (const p of pairs) if (!evaluate(p, at)) pairs.delete(p);
        if (role !== 'objects')
          for (const [k, u] of rollups) {
            if (evaluate(u, at)) continue;
            rollups.delete(k);
            const left = (rollupResources.get(u.object.resource) ?? 1) - 1;
            if (left > 0) rollupResources.set(u.object.resource, left);
            else rollupResources.delete(u.object.resource);
            // With no roll-up left, no write kept is read again.
            if (rollupResources.size === 0) lastWrites.clear();
          }
        firstWrites?.expire(at * o.stepMs);
      },
      onRecord(r: RequestRecord): void {
        noteStored(r);
        // Optimistic-concurrency writes: the ones that can answer 409 Conflict.
        if (!isObjectWrite(r)) return;
        if (firstWrites === null || pairs.hasObject(r.object as ObjectRef)) onWrite(r);
        else onFirstWrite(r, firstWrites);
      },
      onAllowlisted(r: RequestRecord): void {
        // A periodic writer's 409s are judged; its writes only once a Conflict gave them a pair.
        noteStored(r);
        if (!isObjectWrite(r)) return;
        if (isConflict(r) || pairs.get(r.object as ObjectRef, identities.of(r.actor)) !== undefined) onWrite(r);
      },
      finish(): void {
        // The last, partial step was judged as if it were complete: close what is still open.
        for (const p of pairs) if (p.open) close(p);
        pairs.clear();
        hotByObject.clear();
        firstWrites?.clear();
        // Shards finish before the cross instance, which closes the roll-ups and drops the shared tables.
        if (role === 'objects') return;
        for (const u of rollups.values()) if (u.open) close(u);
        rollups.clear();
        openObjects.clear();
        identities.clear();
      },
      stateSize: () => pairs.size + (role === 'objects' ? 0 : rollups.size + (firstWrites?.size ?? 0)),
    });
  },
});
