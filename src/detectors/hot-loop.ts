/**
 * `hot-loop`: one actor writes one object (typically its `/status`) again and again, and the
 * writes succeed: a reconcile loop that requeues itself, not a controller reacting to change.
 *
 * Why it happens (reference `audit-formats.md` §5.2): controller-runtime enqueues an object on
 * every watch event, its own status writes included, without rate limiting, and `Forget`s its
 * backoff after each successful reconcile. A reconciler that writes on every pass (a fresh
 * `lastTransitionTime`, an `observedAt`, a re-sorted list) therefore triggers itself for ever;
 * `Requeue: true` / an immediate requeue has the same effect. A healthy controller writes when
 * the desired state changes, and periodic writers by design (leases, node status, Events) are
 * allowlisted before detectors see them (`src/engine/allowlist.ts`).
 *
 * Per (identity, object incl. subresource) it counts update/patch attempts and 2xx answers per
 * `stepMs` step in a ring covering `windowMs`, and keeps a score: the **excess writes**, writes
 * beyond what a healthy controller of the object could have made, accumulated over the episode.
 * - Each successful write adds 1 and takes off the budget earned since the previous write (the
 *   score never goes below 0): `changeWritesPerSec` × the gap for a write that may carry a change;
 *   one per `healthyPeriodMs` (a timer's budget) for a write the log proves changed nothing
 *   (RequestResponse level: the response's resourceVersion equals the precondition's; Request
 *   level and above: the same body as the previous write; Metadata level: the next successful
 *   update sent the same resourceVersion precondition, so this write stored nothing, and its score
 *   is redone when that update comes); one per `timestampPeriodMs` (5 min) for a `/status` write
 *   proven to change only timestamps (the body equals the previous one once timestamp fields are
 *   removed, and they differ). A no-op makes no watch event and cannot re-trigger its writer; a
 *   re-stamped status does, and is the "timestamp = now" loop of `real-incidents.md`.
 *   At a steady rate r (writes/s) for T s the score is therefore about (r − changeWritesPerSec) × T: continuous and increasing in both rate and duration, with no
 *   hold time and no rate step. Failed writes add nothing (409s are `conflict-storm`'s).
 * - The pair is **sustained** while its window holds at least `minRunWritesPerSec × windowMs`
 *   writes and at least `minSuccessRatio` of them succeeded; the score lives while it is.
 * - An **episode opens** when a sustained pair's score is enough, and **closes** at the first
 *   boundary that is not sustained; it is emitted then. Enough is evidence-weighted and
 *   continuous: the part of the score proven writes added (`proven`) counts against
 *   `minProvenExcessWrites` (200), the rest against `minExcessWrites` (500), and
 *   `(score − proven) / minExcessWrites + proven / minProvenExcessWrites ≥ 1`. A bounded burst of
 *   real changes (a rollout) never earns proven excess; pointless writes need less rate × duration.
 * - **Steady rule**: a pair whose successful writes per step have varied less than independent
 *   events' would (index of dispersion at most `steadyMaxDispersion`) for `steadyMinSpanMs` also
 *   opens when its whole score reaches `minProvenExcessWrites`, at most `steadyMaxSeverity` while
 *   the score alone is not enough. A timer or a writer re-triggered by its own writes keeps one
 *   cadence for as long as it runs (actions-runner-controller#1643 at 1.2–1.7 writes/s,
 *   crossplane#2449's poll); real changes arrive as independent events and stop. At 1.5 writes/s
 *   the episode opens after about 7 min rather than 17; a writer at or under
 *   `changeWritesPerSec` still scores nothing.
 *
 * Why this shape (real rates from `real-incidents.md`): self-triggering loops run at 60/s
 * (kubernetes#16134), ~5/s (kubewarden, prometheus-operator#5610's 200 ms), ~4.6/s
 * (console-operator) and ~2/s for hours (crossplane#2449: 178,554 CRD updates in 24 h). Benign
 * writers of one object stay at or below about 1 write/s: a Deployment rollout writes each owner's
 * status once per pod transition, and a 300-replica rollout kept its status and EndpointSlice
 * writers at 1.0–1.2/s per object for 10 minutes; periodic writers are slower still (kubelet node
 * status and leases every 2–10 s, HPA every 15 s). So a write at up to 1/s gets the benefit of
 * the doubt, and only what goes beyond accumulates. 500 excess writes is 2.5 times what the
 * busiest short rollout seen leaves (2.8 status writes/s for 105 s, 189 beyond 1/s), and is
 * reached in about 10 min at 1.85/s, 2 min at 5/s, 26 s at 20/s and 9 s at 60/s.
 *
 * What Metadata level cannot tell: whether a write changed anything. There a rollout held at
 * 2.8/s for several minutes, or any writer well above 1/s for long, scores like a loop and is
 * reported (it is as much load); what keeps a rollout out is that it is bounded, so its excess
 * stays small. At RequestResponse or Request level, writes proven to change nothing (or only
 * timestamps) lose the change budget, so a slow no-op loop is found sooner than at Metadata level.
 *
 * Stats and the score are gathered from the first write after the pair was last idle (a pair
 * stops being busy when a whole window has passed without being sustained), so the episode starts
 * where the loop started, not where it crossed the threshold.
 *
 * **Actor-level roll-up** (`rollup.ts`): one controller rewriting many objects in turn writes
 * each too rarely for its own score (kubeflow/notebooks#1343). Per identity × subresource, across
 * resources (one operator's controllers share the code that stamps the time: keycloak-operator#122
 * fixed one helper for 18 controllers), the score changes of writes proven to change nothing or
 * only timestamps are summed over the objects without an episode of their own (an object that
 * opens one takes its share back), and the sum is judged like a pair's score (same window,
 * `minRunWritesPerSec`, `minSuccessRatio`); being all proven, it opens at
 * `minProvenExcessWrites`, with at least `rollupMinObjects` objects. A proven no-op earns its
 * object one write per `healthyPeriodMs`, so objects rewritten unchanged every 10 s or slower
 * (GitOps applies, temporal's 10 s requeue, kubelets) add nothing; a re-stamped status earns one
 * per `timestampPeriodMs`. First writes (no gap) and writes that may carry a change add nothing,
 * as many objects changing at ~1/s each is a rollout, not a loop.
 *
 * **Sweep rule** (Metadata level, `suspectSteadySweeps`): without bodies, a controller that stamps
 * a new time into each of hundreds of objects' status on every pass of its queue
 * (kubeflow/notebooks#1343) proves nothing per write. What it shows is timing: one worker's pass
 * rewrites each object once per pass, at nearly the same gap, for as long as it runs, and the
 * worker is never idle, as each write re-queues its object. Per object, a **sweep run** is a
 * series of successful `/status` writes with gaps under `sweepMaxGapMs` (faster than any
 * control-plane timer); it counts in the identity's roll-up once it has lasted `sweepMinSpanMs`
 * with a coefficient of variation of its gaps at most `sweepMaxGapCv`, while its controller (the
 * identity's counted writes of that resource, any object) has written without a pause of
 * `sweepMaxIdleMs` for `sweepMinSpanMs` too, and stops counting at a longer gap, an uneven
 * stretch, a pause of the writer or an episode of its own. Real changes do not look like that for long: a rollout ends, a Job's progress follows
 * pods finishing at irregular gaps, periodic syncs are 15 s or slower, and a controller that
 * batches or times its syncs (the job controller, once a second per Job) pauses between passes,
 * unless it has so many objects that its passes run back to back (why the rule is opt-in).
 * The run's writes beyond one per `healthyPeriodMs` are the roll-up's unproven excess, judged
 * against `minExcessWrites` (as a pair's score), with at least `rollupMinObjects` runs counting.
 * Such a finding is `suspected` (evidence level and signal), at most `sweepMaxSeverity`: timing
 * alone cannot prove the writes pointless. Only writes without a body or response
 * resourceVersion are judged.
 *
 * Impact: shares of all writes and requests in the episode's steps (`impact.ts`), and
 * `excessRequests` = writes beyond one per `healthyPeriodMs`. The yardstick is 10 s: the period
 * of the kubelet's node lease renewals and default `--node-status-update-frequency`, the fastest
 * cadence at which the control plane itself rewrites an object on a timer. A reconcile-on-change
 * controller needs no timer at all (controller-runtime's resync default is 10 h), so anything
 * above it is work the loop created. (Per-item backoff, `impact.ts`'s other yardstick, does not
 * apply: these writes succeed, and success resets the backoff.)
 *
 * Severity: the higher of the rank of the episode's share of all writes and the rank of its mean
 * writes per second, against the `severity` thresholds, capped by its excess writes
 * (`severityExcess`): a loop that cost the API server little stays `medium` at most, however
 * large its share of a quiet cluster.
 */
import { z } from 'zod';
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import { isConflict } from '../decoding/record.js';
import { severityRank, SeveritySchema, type Advice, type Finding, type Severity } from '../report/schema.js';
import { reportObject } from '../engine/aggregates.js';
import { objectLabel, resourceLabel } from '../labels.js';
import { formatDurationMs as formatDuration } from '../report/format.js';
import { BoundedSample } from '../engine/sample.js';
import {
  actorName,
  addSourceIP,
  EpisodeSeries,
  EvidenceIDs,
  FirstWrites,
  firstWritesFor,
  int,
  iso,
  isObjectWrite,
  Identities,
  PairMap,
  PeakPerSecond,
  ratio,
  reportActor,
  round2,
  shortHash,
  StepRing,
  topList,
} from './common.js';
import { trafficShare, writeShare } from './impact.js';
import { transitionTimeAdvice } from './advice.js';
import type { DetectorContext } from './types.js';
import { defineDetector } from './types.js';
import { Rollup, rollupFields, topObjects, type RollupMember } from './rollup.js';
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

export const hotLoopOptions = windowedOptions({
  ...windowFields(60_000, 10_000),
  /**
   * Writes per second (per object) a healthy controller may make when each write carries a real
   * change: the budget taken off the score for each second between writes. 1/s: a Deployment
   * rollout writes each owner's status once per pod transition, and a 300-replica rollout held
   * its status writers at 1.0–1.2/s; the slowest real loop (crossplane#2449) runs at ~2/s.
   */
  changeWritesPerSec: z.number().nonnegative().default(1),
  /**
   * Excess writes (beyond the budget, see the file header) at which an episode opens. 500: 2.5 times
   * the 189 a 2.8/s, 105 s rollout leaves; reached in ~10 min at 1.85/s, 2 min at 5/s, 26 s at 20/s.
   */
  minExcessWrites: z.number().positive().default(500),
  /**
   * Excess writes at which an episode opens when all of them come from writes the log proves
   * changed nothing or only timestamps (see the file header: the evidence-weighted opening rule).
   * 200: OpenShift CI's "updated too often" bar, 200 writes per resource in a run
   * (openshift/origin#29397, `real-incidents.md`); a rollout's writes carry real changes and never
   * count here.
   */
  minProvenExcessWrites: z.number().positive().default(200),
  /**
   * Excess writes below which severity is capped: under `high`, at most `medium`; under
   * `critical`, at most `high`. 2 and 6 times `minExcessWrites`: severity grows with what the loop
   * cost, not with its share of a quiet cluster alone.
   */
  severityExcess: severityExcessOption({ high: 1_000, critical: 3_000 }),
  /**
   * Writes per second over one window below which a pair is not busy (and an episode closes):
   * twice the healthy cadence, so a 10 s writer (leases, heartbeats) never qualifies.
   */
  minRunWritesPerSec: z.number().positive().default(0.2),
  /** Share of writes answered 2xx for the window to count (0..1): 409-dominated loops are conflict storms. */
  minSuccessRatio: z.number().min(0).max(1).default(0.8),
  /**
   * Write period a timer-driven writer may legitimately have, ms: writes beyond one per period are
   * `excessRequests` (the report's impact), and the budget of writes proven to change nothing.
   */
  healthyPeriodMs: z.number().int().positive().default(10_000),
  /**
   * Period, ms, at which a status may legitimately be re-stamped with nothing but a new time: the
   * budget of a `/status` write proven to change only timestamps. 300 000 (5 min): the kubelet
   * re-posts an unchanged node status every 5 min (`nodeStatusReportFrequency`), and the
   * keycloak-operator#121 loop replaced a `--sync-period=5m`. Such a write changes the object, so
   * the writer's own watch sees it: it is how a status loop re-triggers itself.
   */
  timestampPeriodMs: z.number().int().positive().default(300_000),
  /**
   * The steady rule (see the file header): length, ms, over which a pair's successful writes must
   * keep an even cadence for its excess to weigh against `minProvenExcessWrites`. 300 000 (5 min):
   * as `sweepMinSpanMs`, longer than a burst of real changes lasts at one object (the longest run
   * of many Deployments rolling at once on TUNING was 73 s).
   */
  steadyMinSpanMs: z.number().int().positive().default(300_000),
  /**
   * Highest index of dispersion (variance / mean) of the pair's successful writes per step for
   * the cadence to count as steady. Independent events (a Poisson stream) give 1 at any rate; a
   * writer whose gaps vary with coefficient of variation c gives about c² (a self-re-queuing
   * loop's 0.03–0.19 on TUNING: under 0.04). 0.3, about c = 0.55: over the 30 steps of
   * `steadyMinSpanMs`, a Poisson stream comes this low about once in 10 000 (χ² with 29 degrees
   * of freedom at 8.7).
   */
  steadyMaxDispersion: z.number().nonnegative().default(0.3),
  /**
   * Highest severity of an episode only the steady rule opened (its score alone not enough). `low`:
   * its writes and rate are measured, but timing alone does not tell a loop from a writer on a
   * timer under a second, and at such rates the load is small (about 0.5 writes/s beyond one a
   * second at 1.5/s). Once the score alone is enough, severity is rated as for any episode.
   */
  steadyMaxSeverity: SeveritySchema.default('low'),
  /** A pair with an empty window and no write for this long is forgotten, ms. */
  idleMs: z.number().int().positive().default(120_000),
  /** P90/P50 write-gap ratio at or below which the loop looks timer-driven (RequeueAfter). */
  timerMaxSpread: z.number().min(1).default(1.25),
  /** Median gap (ms) from which an evenly spaced loop counts as a timer, not an immediate requeue. */
  timerMinPeriodMs: z.number().nonnegative().default(1_000),
  /** Sample auditIDs kept as evidence, besides the last; distinct source IPs listed per actor. */
  ...evidenceFields(),
  /** The actor-level roll-up (see the file header). */
  ...rollupFields(),
  /**
   * Metadata level: report an identity as a suspected loop when at least `rollupMinObjects` of
   * its objects each have their `/status` rewritten at short, even gaps for minutes on end by a
   * writer that never pauses (the sweep rule, see the file header). Nothing in such a log proves
   * the writes pointless, so the finding's evidence is `suspected` and its severity at most
   * `sweepMaxSeverity`. Off by default: even per-object gaps under 10 s from a writer that never
   * pauses are also what a busy controller over many objects shows (an operator polling progress
   * with a 3 s RequeueAfter over a hundred objects; a queue drained under client-side rate
   * limiting), and a loop whose reconcile takes longer than `sweepMaxIdleMs`, or whose API server
   * stalls once in five minutes, does not show it (docs/evaluation.md, "the writer that never rests").
   */
  suspectSteadySweeps: z.boolean().default(false),
  /**
   * Gap, ms, below which successive `/status` rewrites of one object keep its sweep run going; a
   * longer gap ends it. 10 000: faster than any timer the control plane rewrites a status on (the
   * kubelet's node status every 10 s; HPAs every 15 s; RequeueAfter polling typically 30–60 s),
   * so only a writer that re-queues itself, or something that changes, writes that often.
   */
  sweepMaxGapMs: z.number().int().positive().default(10_000),
  /**
   * Length, ms, a sweep run must reach before the object counts: what changes for real stops
   * (a rollout or a burst of Job progress ends), a self-re-queuing pass does not. 300 000 (5 min):
   * `timestampPeriodMs`, the period at which an unchanged status is legitimately re-stamped; on
   * TUNING the longest run of many Deployments rolling at once (`benign-many-rollouts`) was 73 s.
   */
  sweepMinSpanMs: z.number().int().positive().default(300_000),
  /**
   * Highest coefficient of variation (standard deviation / mean) of a run's gaps for the object
   * to count: one worker's pass over the queue rewrites each object once per pass, at nearly the
   * same gap every time, while writes that follow independent events (pods finishing) come at
   * irregular gaps (a Poisson stream: 1). 0.3: between the loops of the TUNING set (0.03–0.19)
   * and the job controller writing dozens of large Jobs' progress (`benign-batch-jobs-progress`,
   * 0.47–0.66 after its 1 s batching).
   */
  sweepMaxGapCv: z.number().nonnegative().default(0.3),
  /**
   * Longest pause, ms, between successive counted `/status` writes of one resource by the identity
   * (any of its objects: one controller's) that still leaves the controller busy; an object's sweep
   * run counts only while its controller has been busy without such a pause for `sweepMinSpanMs`.
   * A self-re-queuing pass is never idle: each write re-queues its object, so the queue never
   * empties and the next write follows as soon as one reconcile (a cache read and one write) allows. A controller that rewrites objects
   * because something changed, on a timer, or in batches (the job controller syncs a Job at most
   * once a second) pauses between passes, however even its per-object gaps, unless it has so many
   * objects that its passes run back to back (why the rule is off by default). 250: on TUNING the
   * looping notebook controller never paused 100 ms in 10 min, while the longest stretch without a
   * 250 ms pause among the look-alikes was 24 s (the job controller over dozens of busy Jobs;
   * at 500 ms it never paused at all).
   */
  sweepMaxIdleMs: z.number().int().positive().default(250),
  /** Resources (`resource[.group]`) never swept: a Node's conditions carry a heartbeat time refreshed on a timer by API design (core/v1 NodeCondition). */
  sweepIgnoreResources: z.array(z.string()).default(['nodes']),
  /**
   * Highest severity of a suspected (sweep) finding. `medium`: its writes and their rate are
   * measured, only their cause is not; a proven loop of the same size can rank higher.
   */
  sweepMaxSeverity: SeveritySchema.default('medium'),
  severity: severityOption(
    {
      /** Share of all writes in the episode's window (0..1) at or above which this severity applies. */
      share: SHARE,
      /** Mean writes per second over the episode at or above which this severity applies. */
      writesPerSec: RATE,
    },
    {
      critical: { share: 0.5, writesPerSec: 20 },
      high: { share: 0.2, writesPerSec: 5 },
      medium: { share: 0.05, writesPerSec: 1 },
    },
  ),
});

export type HotLoopOptions = z.output<typeof hotLoopOptions>;

/** Everything gathered while a pair is busy, from its first write after being idle. */
interface Hot {
  from: number;
  to: number;
  writes: number;
  successes: number;
  conflicts: number;
  otherErrors: number;
  /** `requestReceivedTimestamp` of the previous write, ms. */
  lastReceived: number;
  gaps: BoundedSample;
  ips: Set<string>;
  ipSeen: Set<string> | null;
  ipCount: number;
  fieldManagers: Set<string>;
  /** Writes per userAgent of the identity (at most {@link MAX_USER_AGENTS} told apart). */
  userAgents: Map<string, number>;
  verbs: Set<string>;
  peakWrites: PeakPerSecond;
  /** The first `evidenceSamples` writes and the last. */
  evidence: EvidenceIDs;
  severity: Severity | null;
  /** Excess writes beyond the budget (see the file header), unrounded. */
  score: number;
  /** `ts` of the previous successful write, ms; -1 before the first. */
  lastOkTs: number;
  /** Content digest of the previous write's body (Request level and above); '' when none. */
  lastContent: string;
  /** Timestamps digest of the previous write's body; '' when none. */
  lastTimestamps: string;
  /** The part of `score` that proven writes (no change, or timestamps only) added; 0..score. */
  proven: number;
  /** Successful writes per step over the complete steps since `from`: their number, sum and sum of squares (the steady rule). */
  steps: number;
  stepSum: number;
  stepSq: number;
  /** The next step to count: the first complete step after `from`, then the first not yet counted. */
  nextStep: number;
  /** `proven` before the previous successful write. */
  prevProvenBefore: number;
  /** resourceVersion the previous successful write sent, if it was an update; '' otherwise. */
  prevUpdateRV: string;
  /** The previous successful write was scored as one that may carry a change (not yet proven unchanged). */
  prevMayChange: boolean;
  /** Score before the previous successful write, and its gap to the one before it (ms; -1 when it had none). */
  prevScoreBefore: number;
  prevGapMs: number;
  /** Writes and 409s per bucket, for the report. */
  series: EpisodeSeries;
}

/** An identity's roll-up on one subresource of all its resources, with the answers and clients of its writes. */
class HotRollup extends Rollup {
  successes = 0;
  conflicts = 0;
  otherErrors = 0;
  /** Writes per userAgent of the identity (at most {@link MAX_USER_AGENTS} told apart). */
  userAgents = new Map<string, number>();
  /** `resourceLabel`s of the objects written (at most {@link MAX_USER_AGENTS}). */
  resources = new Set<string>();
  /** Objects whose sweep run counts in this episode now (see `suspectSteadySweeps`). */
  sweeping = 0;
  /** Objects that have counted at some point of this episode. */
  swept = 0;
  /** Excess of the sweep runs' writes not already in `score`: beyond one per `healthyPeriodMs` per object, unrounded. */
  sweptExcess = 0;
  /** Gaps (ms) of the counted runs' writes, summed, and their number: their mean is the rewrite period. */
  sweepGapSum = 0;
  sweepGaps = 0;
  /** The proven rule held at some judging of this episode: the finding is proven, never downgraded. */
  provenSeen = false;
  /**
   * Per resource written (API group, then resource), the current busy stretch of the identity's
   * counted `/status` writes of it (see {@link Busy}). The stream's, not the episode's: kept across
   * episodes.
   */
  controllers = new Map<string, Map<string, Busy>>();

  /** The resources written, sorted and comma-joined, e.g. `keycloakclients.keycloak.hostzero.com/status, keycloakrealms…`. */
  get resourceList(): string {
    return [...this.resources].sort().join(', ');
  }

  override reset(): void {
    super.reset();
    this.successes = 0;
    this.conflicts = 0;
    this.otherErrors = 0;
    this.userAgents = new Map();
    this.resources = new Set();
    this.sweeping = 0;
    this.swept = 0;
    this.sweptExcess = 0;
    this.sweepGapSum = 0;
    this.sweepGaps = 0;
    this.provenSeen = false;
  }
}

/**
 * One controller's busy stretch: the first and last `ts` (ms) of its counted writes of one
 * resource's `/status` with no pause of `sweepMaxIdleMs` between them. Per resource, as a
 * controller has one work queue per kind it reconciles, and one identity may run many controllers
 * (kube-controller-manager without per-controller service accounts): their writes together may
 * never pause while each controller rests between its passes.
 */
interface Busy {
  from: number;
  last: number;
}

/**
 * The key of an identity's roll-up: identity (username, else userAgent product) and subresource,
 * across resources: one operator's controllers share the status code that stamps the time
 * (keycloak-operator#122 fixed one helper for 18 controllers), so their writes add up.
 */
function hotRollupKey(identity: Actor, ob: ObjectRef): string {
  return `${identity.username || identity.userAgentProduct}\u0001${ob.subresource}`;
}

interface Pair extends RollupMember {
  roll: HotRollup | null;
  actor: Actor;
  object: ObjectRef;
  /** Per step: 0 writes, 1 2xx answers. */
  ring: StepRing;
  lastWriteTs: number;
  hot: Hot | null;
  open: boolean;
  /** The current sweep run of its `/status` rewrites (the sweep rule); null until the rule judges a write of it. */
  run: SweepRun | null;
  /** Its rank among the pairs of other object shards (`ShardPlacement.birth`; 0 when not sharded). */
  born: number;
}

/** A sweep run: one object's `/status` rewrites at gaps under `sweepMaxGapMs` (see the file header). */
interface SweepRun {
  /** The run's first write's and last write's `ts` (ms; `last` -1: no run). */
  from: number;
  last: number;
  /** Gaps in the run, their sum and sum of squares (ms, ms²). */
  n: number;
  sum: number;
  sq: number;
  /** The run's excess has been added to a roll-up (it is added once per run). */
  added: boolean;
  /** `HotRollup.gen` in which the run counts now; -1 when it does not. */
  gen: number;
  /**
   * `HotRollup.gen` in which the object has counted in `swept` (-1: none): an object counts once
   * per episode, however often its runs stop and count again.
   */
  counted: number;
  /** Excess the object's runs added to its roll-up's `sweptExcess` in generation `counted`. */
  rolled: number;
}

const H_WRITE = 0;
const H_OK = 1;
/** userAgents of one identity counted apart in a finding; the rest are summed under the last. */
const MAX_USER_AGENTS = 8;
/** Usernames whose first actor is remembered (see `identities`); the table starts over beyond. */
const MAX_IDENTITIES = 20_000;

export const hotLoop = defineDetector({
  meta: {
    id: 'hot-loop',
    description: 'One actor writes one object (typically /status) at a sustained rate with mostly successful answers: a reconcile loop that triggers itself.',
    optionsSchema: hotLoopOptions,
    judges: 'write-rate',
    // Pairs are per object; the identity table, the held first writes and the roll-ups, which span objects, are shared by the shards, and the roll-ups judged by the cross instance.
    byObject: 'objects+cross',
  },
  create(ctx: DetectorContext<HotLoopOptions>) {
    const o = ctx.options;
    const n = o.windowMs / o.stepMs;
    const windowSec = o.windowMs / 1000;
    /** `all` when not sharded; else what this instance judges (see `ShardPlacement.role`). */
    const role = ctx.placement?.role ?? 'all';
    const shared = ctx.placement ? ctx.placement.shared.bind(ctx.placement) : <T>(_name: string, make: () => T): T => make();
    /** Live (object, actor) pairs; `evaluate` says when one is idle and can go. */
    const pairs = new PairMap<Pair>();
    /** The pairs of every object shard, for the roll-ups' busiest objects (this instance's alone when not sharded). */
    const allPairs = shared('pairs', (): Array<PairMap<Pair>> => []);
    if (role !== 'cross') allPairs.push(pairs);
    /** Every pair of the detector (of every shard). */
    function* everyPair(): Generator<Pair> {
      for (const m of allPairs) yield* m;
    }
    /** Roll-ups by identity × subresource (`hotRollupKey`). */
    const rollups = shared('rollups', () => new Map<string, HotRollup>());
    /** The boundary judged last. */
    let judged = -Infinity;
    /**
     * First writes of objects no pair holds, while one write cannot make a window sustained. A
     * pair with one write is dropped once a window and `idleMs` passed.
     */
    // One table for every object shard: held writes take room in the order of all objects' writes.
    const firstWrites = shared('firstWrites', () =>
      firstWritesFor<string>(ctx, o.minRunWritesPerSec * windowSec > 1, Math.max(o.windowMs + o.stepMs, o.idleMs) + o.stepMs, (k) => k),
    );

    /**
     * Writers are judged per identity (username), not per username + userAgent: controllers of one
     * binary that share a service account each set their own userAgent (cert-manager#6714: three
     * at 1.6 writes/s each, 4.8/s together on one object). The first actor seen with a username
     * stands for it; the finding breaks its writes down by userAgent.
     */
    const identities = shared('identities', () => new Identities(MAX_IDENTITIES));
    function identityOf(a: Actor): Actor {
      return identities.of(a);
    }

    function newHot(r: RequestRecord): Hot {
      return {
        from: r.ts,
        to: r.ts,
        writes: 0,
        successes: 0,
        conflicts: 0,
        otherErrors: 0,
        lastReceived: -1,
        gaps: new BoundedSample(),
        ips: new Set(),
        ipSeen: null,
        ipCount: 0,
        fieldManagers: new Set(),
        userAgents: new Map(),
        verbs: new Set(),
        peakWrites: new PeakPerSecond(),
        evidence: new EvidenceIDs(o.evidenceSamples),
        severity: null,
        score: 0,
        lastOkTs: -1,
        lastContent: '',
        lastTimestamps: '',
        proven: 0,
        steps: 0,
        stepSum: 0,
        stepSq: 0,
        nextStep: Math.floor(r.ts / o.stepMs) + 1,
        prevProvenBefore: 0,
        prevUpdateRV: '',
        prevMayChange: false,
        prevScoreBefore: 0,
        prevGapMs: -1,
        series: new EpisodeSeries(o.stepMs),
      };
    }

    /** A write of an object no pair holds: held, or, with the write held before it, given a pair. */
    function onFirstWrite(r: RequestRecord, held: FirstWrites<string>): void {
      const first = held.take((r.object as ObjectRef).key, r);
      if (first === undefined) return;
      if (first === null) return onWrite(r);
      onWrite(first);
      const p = pairs.get(first.object as ObjectRef, identityOf(first.actor)) as Pair;
      if (!catchUp(o, first.ts, r.ts, (b) => evaluate(p, b))) pairs.delete(p);
      onWrite(r);
    }

    function onWrite(r: RequestRecord): void {
      const obj = r.object as ObjectRef;
      const who = identityOf(r.actor);
      const p =
        pairs.get(obj, who) ??
        pairs.add({
          actor: who,
          object: obj,
          ring: new StepRing(n, 2),
          lastWriteTs: r.ts,
          hot: null,
          open: false,
          roll: rollupOf(who, obj, r.ts),
          rollGen: -1,
          rolled: 0,
          run: null,
          born: ctx.placement?.birth() ?? 0,
        });
      const ok = r.code >= 200 && r.code < 300;
      p.lastWriteTs = r.ts;
      const b = Math.floor(r.ts / o.stepMs);
      p.ring.add(b, H_WRITE);
      if (ok) p.ring.add(b, H_OK);

      if (p.hot === null) p.hot = newHot(r);
      const h = p.hot;
      h.writes++;
      if (ok) h.successes++;
      else if (isConflict(r)) h.conflicts++;
      else h.otherErrors++;
      if (h.lastReceived >= 0) h.gaps.add(Math.max(0, r.receivedTs - h.lastReceived));
      h.lastReceived = r.receivedTs;
      h.to = r.ts;
      h.evidence.add(r.auditID, r.level);
      h.verbs.add(r.verb);
      if (r.fieldManager) h.fieldManagers.add(r.fieldManager);
      const ua = h.userAgents.has(r.actor.userAgent) || h.userAgents.size < MAX_USER_AGENTS ? r.actor.userAgent : '(other)';
      h.userAgents.set(ua, (h.userAgents.get(ua) ?? 0) + 1);
      addSourceIP(h, r.sourceIP, o.maxSourceIPs);
      h.peakWrites.add(r.ts);
      h.series.add(r.ts, isConflict(r));
      // An update that succeeds with the resourceVersion the previous one sent proves that one changed nothing.
      const proved = ok ? proveEarlier(h, r) : null;
      const before = h.score;
      // A first write has no gap to judge a rate by: it scores 1 for its object, never for the roll-up.
      const hadPrev = h.lastOkTs >= 0;
      const unchanged = ok && addToScore(h, r);
      const g = p.roll;
      // The sweep rule judges what the log cannot show the content of: no body, no response resourceVersion.
      const sweepable = sweeps && ok && g !== null && obj.subresource === 'status' && r.body === null && r.responseResourceVersion === '' && !unswept(obj);
      // Every counted write keeps its controller busy, also one of an object in an episode of its
      // own; a held first write given back later (older than the last) is not a new moment of it.
      const busy = sweepable ? busyOf(g, obj) : null;
      if (busy !== null && r.ts >= busy.last) {
        if (r.ts - busy.last >= o.sweepMaxIdleMs) busy.from = r.ts;
        busy.last = r.ts;
      }
      if (g !== null && !p.open && proved !== null) g.contribute(p, proved, r.auditID, r.level);
      if (g !== null && !p.open) {
        // The object has no episode of its own: its writes and its excess count in the roll-up.
        g.write(r, isConflict(r));
        if (g.resources.size < MAX_USER_AGENTS) g.resources.add(resourceLabel(obj));
        // A held first write older than the window judged last would take a live step's slot.
        if (b >= judged - n) {
          g.ring.add(b, H_WRITE);
          if (ok) g.ring.add(b, H_OK);
        }
        if (ok) {
          g.successes++;
          // Only writes proven to change nothing (or only timestamps): writes that may carry a
          // change, spread over many objects, are what a busy controller does (a rollout).
          if (unchanged && hadPrev) g.contribute(p, h.score - before, r.auditID, r.level);
          if (busy !== null) sweep(p, g, r, unchanged, busy);
        } else if (isConflict(r)) g.conflicts++;
        else g.otherErrors++;
        const ua = g.userAgents.has(r.actor.userAgent) || g.userAgents.size < MAX_USER_AGENTS ? r.actor.userAgent : '(other)';
        g.userAgents.set(ua, (g.userAgents.get(ua) ?? 0) + 1);
      }
    }

    const sweeps = o.suspectSteadySweeps && o.rollupMinObjects > 0;
    const unsweptSet = new Set(o.sweepIgnoreResources);
    /** Whether `ob`'s resource is in `sweepIgnoreResources`. */
    function unswept(ob: ObjectRef): boolean {
      return unsweptSet.size > 0 && unsweptSet.has(ob.apiGroup ? `${ob.resource}.${ob.apiGroup}` : ob.resource);
    }

    /**
     * A successful `/status` write of `p` (no episode of its own) in roll-up `g`: extend or restart
     * its sweep run, and count the run in `g` while it is long and even enough (the sweep rule).
     * The run's writes beyond one per `healthyPeriodMs` go to `g.sweptExcess`, once for the run
     * so far when it first counts, then write by write; a write proven unchanged or re-stamped
     * (`proven`) is already in `g.score` and adds nothing here.
     */
    function sweep(p: Pair, g: HotRollup, r: RequestRecord, proven: boolean, busy: Busy): void {
      const run = (p.run ??= { from: -1, last: -1, n: 0, sum: 0, sq: 0, added: false, gen: -1, counted: -1, rolled: 0 });
      const gap = run.last < 0 ? Infinity : r.ts - run.last;
      run.last = r.ts;
      if (gap >= o.sweepMaxGapMs) {
        unsweep(p);
        run.from = r.ts;
        run.n = 0;
        run.sum = 0;
        run.sq = 0;
        run.added = false;
        return;
      }
      run.n++;
      run.sum += gap;
      run.sq += gap * gap;
      const mean = run.sum / run.n;
      const cv = mean > 0 ? Math.sqrt(Math.max(0, run.sq / run.n - mean * mean)) / mean : 0;
      if (r.ts - run.from < o.sweepMinSpanMs || cv > o.sweepMaxGapCv || r.ts - busy.from < o.sweepMinSpanMs) {
        unsweep(p);
        return;
      }
      if (run.gen !== g.gen) {
        run.gen = g.gen;
        g.sweeping++;
      }
      if (run.counted !== g.gen) {
        run.counted = g.gen;
        run.rolled = 0;
        g.swept++;
        g.evidence.add(r.auditID, r.level);
      } else g.evidence.extend(r.auditID);
      const add = run.added ? 1 - gap / o.healthyPeriodMs : Math.max(0, run.n - (r.ts - run.from) / o.healthyPeriodMs);
      run.added = true;
      g.sweepGapSum += gap;
      g.sweepGaps++;
      if (proven) return;
      run.rolled += add;
      g.sweptExcess += add;
    }

    /** The busy stretch of `g`'s identity on `ob`'s resource, made on first need. */
    function busyOf(g: HotRollup, ob: ObjectRef): Busy {
      let byResource = g.controllers.get(ob.apiGroup);
      if (byResource === undefined) g.controllers.set(ob.apiGroup, (byResource = new Map<string, Busy>()));
      let b = byResource.get(ob.resource);
      if (b === undefined) byResource.set(ob.resource, (b = { from: -1, last: -Infinity }));
      return b;
    }

    /**
     * `p`'s run no longer counts in its roll-up (it ended, grew uneven, or the writer paused); with
     * `withdraw` (the object opened an episode of its own) the object also takes back its count and
     * excess, unless the roll-up's episode is open.
     */
    function unsweep(p: Pair, withdraw = false): void {
      const g = p.roll;
      const run = p.run;
      if (g === null || run === null) return;
      if (run.gen === g.gen) {
        g.sweeping--;
        run.gen = -1;
      }
      if (withdraw && run.counted === g.gen && !g.open) {
        g.swept--;
        g.sweptExcess = Math.max(0, g.sweptExcess - run.rolled);
        run.counted = -1;
        run.rolled = 0;
      }
    }

    /** The roll-up of `who` on `ob`'s resource, made on first need; null when the roll-up is off. */
    function rollupOf(who: Actor, ob: ObjectRef, ts: number): HotRollup | null {
      if (o.rollupMinObjects === 0) return null;
      const key = hotRollupKey(who, ob);
      let g = rollups.get(key);
      if (g === undefined) {
        g = new HotRollup(key, who, ob, n, 2, o, ts);
        rollups.set(key, g);
      }
      return g;
    }

    /**
     * A successful write adds 1 to the score, less the budget earned since the previous successful
     * write: `changeWritesPerSec` per second for a write that may carry a change; one per
     * `healthyPeriodMs` when the log proves it changed nothing (same resourceVersion back, or the
     * same body as the previous write); one per `timestampPeriodMs` for a `/status` write proven
     * to change only timestamps (same body content, other timestamps). Returns whether it was
     * proven (either of the last two); its score change then counts in `proven`.
     */
    function addToScore(h: Hot, r: RequestRecord): boolean {
      const sameContent = r.body !== null && h.lastContent !== '' && r.body.content === h.lastContent;
      const noOp =
        (r.responseResourceVersion !== '' && r.resourceVersion !== '' && r.responseResourceVersion === r.resourceVersion) ||
        (sameContent && r.body?.timestamps === h.lastTimestamps);
      const timestampsOnly = !noOp && sameContent;
      const noChange = noOp || timestampsOnly;
      if (r.body !== null) {
        h.lastContent = r.body.content;
        h.lastTimestamps = r.body.timestamps;
      }
      const gapMs = h.lastOkTs < 0 ? 0 : Math.max(0, r.ts - h.lastOkTs);
      h.prevScoreBefore = h.score;
      h.prevProvenBefore = h.proven;
      h.prevGapMs = h.lastOkTs < 0 ? -1 : gapMs;
      h.prevMayChange = !noChange;
      h.prevUpdateRV = r.verb === 'update' ? r.resourceVersion : '';
      h.lastOkTs = r.ts;
      const restamp = timestampsOnly && (r.object as ObjectRef).subresource === 'status';
      const budget = restamp ? gapMs / o.timestampPeriodMs : noChange ? gapMs / o.healthyPeriodMs : (gapMs / 1000) * o.changeWritesPerSec;
      h.score = Math.max(0, h.score + 1 - budget);
      h.proven = Math.min(h.score, noChange ? Math.max(0, h.proven + h.score - h.prevScoreBefore) : h.proven);
      return noChange;
    }

    /**
     * Whether a pair's score is enough to open an episode: excess from writes that may carry a
     * change counts against `minExcessWrites`, excess from proven writes against
     * `minProvenExcessWrites`, and the two fractions add up (evidence-weighted, continuous).
     */
    function enough(h: Hot): boolean {
      return byScore(h) || (steady(h) && h.score >= o.minProvenExcessWrites);
    }

    /** The score alone is enough (the evidence-weighted rule, without the steady rule). */
    function byScore(h: Hot): boolean {
      return (h.score - h.proven) / o.minExcessWrites + h.proven / o.minProvenExcessWrites >= 1;
    }

    /**
     * The steady rule: for at least `steadyMinSpanMs`, the pair's successful writes per step have
     * varied less than independent events' would (index of dispersion, variance / mean, at most
     * `steadyMaxDispersion`). A writer on a timer, or one its own writes re-trigger, writes about
     * as often in every step for as long as it runs, however its writes fall within a pass;
     * writes that follow real changes (pods becoming ready in a rollout) come as a Poisson
     * stream (dispersion 1) or in waves, and stop.
     */
    function steady(h: Hot): boolean {
      if (h.steps < 2 || h.to - h.from < o.steadyMinSpanMs) return false;
      const mean = h.stepSum / h.steps;
      return mean > 0 && Math.max(0, h.stepSq / h.steps - mean * mean) / mean <= o.steadyMaxDispersion;
    }

    /**
     * Adds the successful writes of `p`'s steps not yet counted, up to the step of its last write
     * (excluded), to `h`'s step statistics: empty steps after the last write count only once a
     * later write makes them a pause within the episode, not its end.
     */
    function countSteps(p: Pair, h: Hot, boundary: number): void {
      const end = Math.min(boundary, Math.floor(h.to / o.stepMs));
      for (let b = h.nextStep; b < end; b++) {
        const c = p.ring.at(b, H_OK);
        h.steps++;
        h.stepSum += c;
        h.stepSq += c * c;
      }
      if (end > h.nextStep) h.nextStep = end;
    }

    /**
     * Metadata level: successful update `r` sent the resourceVersion R that the previous successful
     * write (an update) sent too. The precondition is checked before the write, so the object was
     * still at R: the previous write stored nothing (`audit-formats.md` §4a). Its score is redone
     * with the proven budget (one write per `healthyPeriodMs`). Returns what that write now adds to
     * the roll-up (it had a gap to judge), else null.
     */
    function proveEarlier(h: Hot, r: RequestRecord): number | null {
      if (r.verb !== 'update' || r.resourceVersion === '' || r.resourceVersion !== h.prevUpdateRV || !h.prevMayChange) return null;
      h.prevMayChange = false;
      const gapMs = Math.max(0, h.prevGapMs);
      h.score = Math.max(0, h.prevScoreBefore + 1 - gapMs / o.healthyPeriodMs);
      h.proven = Math.min(h.score, Math.max(0, h.prevProvenBefore + h.score - h.prevScoreBefore));
      return h.prevGapMs < 0 ? null : h.score - h.prevScoreBefore;
    }

    /** Judge the window ending at `boundary * stepMs` for one pair. Returns false to drop it. */
    function evaluate(p: Pair, boundary: number): boolean {
      const w = p.ring.sum(boundary, H_WRITE);
      const ok = p.ring.sum(boundary, H_OK);
      const end = boundary * o.stepMs;
      const sustained = w > 0 && w >= o.minRunWritesPerSec * windowSec && ok >= o.minSuccessRatio * w;
      const h = p.hot;
      if (h !== null) countSteps(p, h, boundary);
      if (p.run !== null && p.run.gen >= 0 && end - p.run.last >= o.sweepMaxGapMs) unsweep(p);
      if (p.open) {
        if (sustained) {
          if (raiseSeverity(h as Hot, severityOf(h as Hot))) ctx.alert('update', build(p));
          return true;
        }
        close(p);
      } else if (h !== null && sustained) {
        if (enough(h)) {
          p.open = true;
          p.roll?.withdraw(p);
          unsweep(p, true);
          if (p.run !== null) p.run.last = -1;
          h.severity = severityOf(h);
          ctx.alert('open', build(p));
          return true;
        }
      } else if (h !== null && end - h.from >= o.windowMs) {
        // A whole window without being sustained: whatever comes next starts afresh.
        p.hot = null;
      }
      return !(w === 0 && p.hot === null && end - p.lastWriteTs > o.idleMs);
    }

    function close(p: Pair): void {
      p.open = false;
      p.ring.clear();
      const f = build(p);
      ctx.alert('close', f);
      ctx.emit(f, p.born);
      p.hot = null;
    }

    /** Judge the window ending at `boundary * stepMs` for one roll-up, as `evaluate` a pair. Returns false to drop it. */
    function evaluateRollup(g: HotRollup, boundary: number): boolean {
      const w = g.ring.sum(boundary, H_WRITE);
      const ok = g.ring.sum(boundary, H_OK);
      const end = boundary * o.stepMs;
      const sustained = w > 0 && w >= o.minRunWritesPerSec * windowSec && ok >= o.minSuccessRatio * w;
      if (g.open) {
        if (sustained) {
          if (raiseSeverity(g, rollupSeverity(g))) ctx.alert('update', buildRollup(g));
          return true;
        }
        closeRollup(g);
      } else if (g.busy && sustained && (rollupProven(g) || rollupSuspected(g))) {
        g.open = true;
        g.severity = rollupSeverity(g);
        ctx.alert('open', buildRollup(g));
        return true;
      } else if (g.busy && !sustained && end - g.from >= o.windowMs) g.reset();
      return !(w === 0 && !g.busy && end - g.lastTs > o.idleMs);
    }

    function closeRollup(g: HotRollup): void {
      const f = buildRollup(g);
      ctx.alert('close', f);
      ctx.emit(f);
      g.ring.clear();
      g.reset();
    }

    /** The roll-up's proven excess (writes the log proves unchanged or re-stamped) is enough, over enough objects. */
    function rollupProven(g: HotRollup): boolean {
      if (g.score >= o.minProvenExcessWrites && g.objects >= o.rollupMinObjects) g.provenSeen = true;
      return g.provenSeen;
    }

    /**
     * The sweep rule: enough objects' runs count now, and the excess weighs enough, unproven
     * sweep excess against `minExcessWrites` and proven excess against `minProvenExcessWrites`
     * (as a pair's score, `enough`).
     */
    function rollupSuspected(g: HotRollup): boolean {
      return sweeps && g.sweeping >= o.rollupMinObjects && g.sweptExcess / o.minExcessWrites + g.score / o.minProvenExcessWrites >= 1;
    }

    function rollupRate(g: HotRollup): number {
      const d = g.to - g.from;
      return d > 0 ? (g.writes - 1) / (d / 1000) : 0;
    }

    function rollupSeverity(g: HotRollup): Severity {
      const by = severityFor(o.severity, { share: writeShare(ctx.series, g.from, g.to, g.writes), writesPerSec: rollupRate(g) });
      const sev = capByExcess(by, g.score + g.sweptExcess, o.severityExcess);
      return !rollupProven(g) && severityRank(sev) > severityRank(o.sweepMaxSeverity) ? o.sweepMaxSeverity : sev;
    }

    /** The objects of `g`'s sweep runs with the largest excess, as `topObjects` lists them. */
    function topSwept(g: HotRollup): string {
      const rows: Array<[string, number]> = [];
      for (const p of everyPair()) if (p.roll === g && p.run !== null && p.run.counted === g.gen) rows.push([objectLabel(p.object), Math.round(p.run.rolled)]);
      return rows
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .slice(0, o.rollupTopObjects)
        .map(([l, c]) => `${l}(${c})`)
        .join(', ');
    }

    /** The actor-level finding of a roll-up: no object, the resource and its busiest objects instead. */
    function buildRollup(g: HotRollup): Finding {
      const durationMs = Math.max(0, g.to - g.from);
      const excess = Math.round(g.score + g.sweptExcess);
      const proven = rollupProven(g);
      const period = g.sweepGaps > 0 ? g.sweepGapSum / g.sweepGaps : null;
      const objects = proven ? g.objects : Math.max(g.objects, g.swept);
      const metrics: Finding['metrics'] = {
        resource: g.resourceList,
        objects,
        topObjects: proven ? topObjects(g, everyPair(), objectLabel, o.rollupTopObjects) : topSwept(g),
        // The sweep rule: objects rewritten at short, even gaps for minutes, and their mean rewrite gap.
        ...(g.swept > 0 ? { steadyObjects: g.swept, steadyRewritePeriodMs: period === null ? null : Math.round(period) } : {}),
        writes: g.writes,
        successes: g.successes,
        conflicts: g.conflicts,
        otherErrors: g.otherErrors,
        successRatio: ratio(g.successes, g.writes),
        durationMs: Math.round(durationMs),
        meanWritesPerSec: durationMs > 0 ? round2(Math.min(rollupRate(g), g.peak.peak)) : null,
        peakWritesPerSec: g.peak.peak,
        sourceIPCount: g.ipCount,
        excessRequests: excess,
        excessWrites: excess,
        ...trafficShare(ctx.series, g.from, g.to, g.writes),
        ...(g.userAgents.size > 1 ? { userAgents: topList(g.userAgents, (ua) => ua, MAX_USER_AGENTS) } : {}),
      };
      const status = g.sample.subresource === 'status';
      const signals = ['many-objects'];
      // What proves the writes pointless also makes them the loop's trigger; timing alone does not.
      if (status && proven) signals.push('self-triggering');
      if (g.swept > 0) signals.push('steady-rewrites');
      if (!proven) signals.push('suspected');
      const pct = Math.round((g.successes / Math.max(1, g.writes)) * 100);
      const span = formatDuration(Math.round(durationMs));
      const title = proven
        ? `${actorName(g.actor)} wrote ${int(g.objects)} ${g.resourceList} objects ${int(g.writes)} times in ${span}, ${pct}% succeeded: ${int(excess)} writes beyond what changes explain, though no object alone is a loop`
        : `${actorName(g.actor)} rewrote ${int(g.swept)} ${g.resourceList} objects each every ${formatDuration(Math.round(period ?? 0))} on average, at even gaps for ${formatDuration(o.sweepMinSpanMs)} or more, never pausing ${formatDuration(o.sweepMaxIdleMs)} between writes (${int(g.writes)} writes in ${span}, ${pct}% succeeded): suspected self-re-queuing loop, as the log (no bodies) cannot show whether each write changed something`;
      return {
        id: `hot-loop:${shortHash(`${g.key}\u0001${g.from}`)}`,
        kind: 'hot-loop',
        severity: g.severity ?? rollupSeverity(g),
        title,
        actors: [reportActor(g.actor, g.ips, g.fieldManagers)],
        object: null,
        window: { from: iso(g.from), to: iso(g.to) },
        metrics,
        signals,
        evidence: g.evidence.evidence(proven ? 'proven' : 'suspected'),
        advice: [
          {
            id: 'compare-before-write',
            text: `Write only when the desired ${status ? 'status' : 'object'} differs from the current one (equality.Semantic.DeepEqual on the computed value): each of ${int(objects)} objects is rewritten faster than its changes explain.`,
          },
          ...(status
            ? [
                {
                  id: 'ignore-own-status-updates',
                  text: 'Every status write is a watch event that enqueues the object again: filter them with builder.WithPredicates(predicate.GenerationChangedPredicate{}), and never stamp time.Now() into status on every pass (meta.SetStatusCondition keeps lastTransitionTime).',
                },
              ]
            : []),
        ],
        series: g.series.toReport(g.to),
      };
    }

    function meanRate(h: Hot): number {
      const d = h.to - h.from;
      return d > 0 ? (h.writes - 1) / (d / 1000) : 0;
    }

    function severityOf(h: Hot): Severity {
      const by = severityFor(o.severity, { share: writeShare(ctx.series, h.from, h.to, h.writes), writesPerSec: meanRate(h) });
      const sev = capByExcess(by, h.score, o.severityExcess);
      // An episode the steady rule alone opens: timing does not tell a loop from a fast timer.
      return !byScore(h) && severityRank(sev) > severityRank(o.steadyMaxSeverity) ? o.steadyMaxSeverity : sev;
    }

    function build(p: Pair): Finding {
      const h = p.hot as Hot;
      const durationMs = Math.max(0, h.to - h.from);
      const p50 = h.gaps.percentile(50);
      const p90 = h.gaps.percentile(90);
      const excess = Math.max(0, h.writes - (Math.floor(durationMs / o.healthyPeriodMs) + 1));
      const status = p.object.subresource === 'status';
      const timer = p50 !== null && p90 !== null && p50 >= o.timerMinPeriodMs && p90 <= o.timerMaxSpread * p50;

      const signals: string[] = [];
      if (status) signals.push('self-triggering');
      if (timer) signals.push('timer-driven');
      else if (p50 !== null && p50 < o.timerMinPeriodMs) signals.push('immediate-requeue');
      if (p.actor.serviceAccount !== null && h.ipCount > 1) signals.push('duplicate-replicas');
      if (steady(h)) signals.push('steady-rewrites');

      const metrics: Finding['metrics'] = {
        writes: h.writes,
        successes: h.successes,
        conflicts: h.conflicts,
        otherErrors: h.otherErrors,
        successRatio: ratio(h.successes, h.writes),
        durationMs: Math.round(durationMs),
        writePeriodP50Ms: p50 === null ? null : round2(p50),
        writePeriodP90Ms: p90 === null ? null : round2(p90),
        meanWritesPerSec: durationMs > 0 ? round2(Math.min(meanRate(h), h.peakWrites.peak)) : null,
        peakWritesPerSec: h.peakWrites.peak,
        sourceIPCount: h.ipCount,
        excessRequests: excess,
        // The score: writes beyond what real changes (≤ changeWritesPerSec) could explain.
        excessWrites: Math.round(h.score),
        ...trafficShare(ctx.series, h.from, h.to, h.writes),
        // Several controllers of one identity (its userAgents), with their writes.
        ...(h.userAgents.size > 1 ? { userAgents: topList(h.userAgents, (ua) => ua, MAX_USER_AGENTS) } : {}),
      };

      const pct = Math.round((h.successes / Math.max(1, h.writes)) * 100);
      const every = p50 === null ? '' : `, every ${formatDuration(Math.round(p50))} (median)`;
      return {
        id: `hot-loop:${shortHash(`${p.actor.key}\u0001${p.object.key}\u0001${h.from}`)}`,
        kind: 'hot-loop',
        severity: h.severity ?? severityOf(h),
        title: `${actorName(p.actor)} wrote ${objectLabel(p.object)} ${int(h.writes)} times in ${formatDuration(Math.round(durationMs))}${every}, ${pct}% succeeded`,
        actors: [reportActor(p.actor, h.ips, h.fieldManagers)],
        object: reportObject(p.object),
        window: { from: iso(h.from), to: iso(h.to) },
        metrics,
        signals,
        evidence: h.evidence.evidence('proven'),
        advice: adviceFor(p, h, signals, p50),
        series: h.series.toReport(h.to),
      };
    }

    function adviceFor(p: Pair, h: Hot, signals: string[], p50: number | null): Advice[] {
      const status = p.object.subresource === 'status';
      const advice: Advice[] = [
        {
          id: 'compare-before-write',
          text: `Write only when the desired ${status ? 'status' : 'object'} differs from the current one (equality.Semantic.DeepEqual on the computed value): ${int(h.writes)} successful-looking writes in ${formatDuration(Math.round(h.to - h.from))} cannot all be changes.`,
        },
      ];
      if (status) {
        advice.push({
          id: 'ignore-own-status-updates',
          text: 'Every status write is a watch event that enqueues the object again: filter them with builder.WithPredicates(predicate.GenerationChangedPredicate{}) (status writes do not bump metadata.generation), so the controller reacts to spec changes, not to its own writes.',
        });
        advice.push(
          transitionTimeAdvice(
            h.evidence.level,
            p.object,
            "Set conditions with meta.SetStatusCondition, which changes lastTransitionTime only when the condition's status changes; never stamp time.Now() into status on every pass.",
          ),
        );
      }
      if (signals.includes('immediate-requeue')) {
        advice.push({
          id: 'requeue-after',
          text: `Writes follow each other after ${formatDuration(Math.round(p50 ?? 0))} (median): do not return Requeue: true or requeue at once after a successful write; if the object must be re-checked, return ctrl.Result{RequeueAfter: d} with a period that matches how fast the watched state can change.`,
        });
      }
      if (signals.includes('timer-driven')) {
        advice.push({
          id: 'lengthen-requeue-after',
          text: `The writes are evenly spaced (${formatDuration(Math.round(p50 ?? 0))}): a RequeueAfter timer, or a ticker, rewrites the object each period. Skip the write when nothing changed, and re-check no more often than needed.`,
        });
      }
      if (signals.includes('duplicate-replicas')) {
        const sa = p.actor.serviceAccount as { namespace: string; name: string };
        advice.push({
          id: 'leader-election',
          text: `${h.ipCount} pods of service account ${sa.namespace}/${sa.name} write this object from different IPs: run one active replica with leader election (controller-runtime manager option LeaderElection: true).`,
        });
      }
      return advice;
    }

    return windowedInstance(o, {
      judge(at: number): void {
        judged = at;
        for (const p of pairs) if (!evaluate(p, at)) pairs.delete(p);
        if (role !== 'objects') for (const g of rollups.values()) if (!evaluateRollup(g, at)) rollups.delete(g.key);
        firstWrites?.expire(at * o.stepMs);
      },
      onRecord(r: RequestRecord): void {
        if (!isObjectWrite(r)) return;
        if (firstWrites === null || pairs.hasObject(r.object as ObjectRef)) onWrite(r);
        else onFirstWrite(r, firstWrites);
      },
      finish(): void {
        for (const p of pairs) if (p.open) close(p);
        firstWrites?.clear();
        // Shards finish before the cross instance, which closes the roll-ups (naming their objects from the shards' pairs) and drops the shared tables.
        if (role === 'objects') return;
        for (const g of rollups.values()) if (g.open) closeRollup(g);
        for (const m of allPairs) m.clear();
        rollups.clear();
        identities.clear();
      },
      stateSize: () => pairs.size + (role === 'objects' ? 0 : rollups.size + (firstWrites?.size ?? 0)),
    });
  },
});
