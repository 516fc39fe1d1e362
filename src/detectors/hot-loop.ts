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
 * Per (actor, object incl. subresource) it counts update/patch attempts and 2xx answers per
 * `stepMs` step in a ring covering `windowMs`, and judges the window ending at each step boundary:
 * - **sustained**: the window holds at least `minRunWritesPerSec × windowMs` writes and at least
 *   `minSuccessRatio` of them succeeded (mostly-409 traffic is `conflict-storm`'s business);
 * - an **episode opens** when, sustained, every window of an unbroken run covering at least
 *   `minLoopMs` of writes held `minWritesPerSec × windowMs` writes (a fast loop that keeps its
 *   rate), or the writes gathered since the pair became busy reach `minWritesInRun` over at
 *   least `minRunMs` (a slower loop that goes on; by default `/status` writes only, see
 *   `runRuleStatusOnly`);
 * - it **closes** at the first boundary that is not sustained, and is emitted then.
 *
 * Why these defaults (rates are the highest count of one (actor, object) pair in any 60 s window):
 * a healthy Deployment rollout writes the Deployment's and ReplicaSets' `/status` and the
 * EndpointSlice once per pod transition, every write a real change; a 300-replica rollout kept
 * deployment-controller, replicaset-controller and endpointslice-controller at 1.0–1.2 writes/s
 * per object for 10 minutes, the busiest benign status writers of the evaluation's background
 * reach 1.4/s, and a smaller rollout writes in bursts of a few seconds. The self-triggering
 * loops of the evaluation (`hotLoop`, `transitionTimeReplay`) run at 5–13/s for 4 minutes and a
 * 200 ms status loop at 5/s. So the fast rule needs 2 writes/s (above any rollout seen, below
 * every loop) held over 90 s (more than one window, so one busy minute is not a loop; less than
 * any loop worth finding). The slow rule, which a long rollout reaches by count (600 status
 * writes in 10 minutes), needs the run to last 15 minutes: half as long again as that rollout,
 * and about the 17 minutes that 200 writes at the 0.2/s floor take anyway. Rate and duration
 * cannot tell a self-triggering controller from a rollout held at ≥ 2/s for minutes, or at
 * ≥ 0.2/s for over 15: those are reported (they are as much load).
 *
 * Stats are gathered from the first write after the pair was last idle (a pair stops being busy
 * when a whole window has passed without being sustained), so the episode starts where the loop
 * started, not where it crossed the threshold.
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
 * writes per second, against the `severity` thresholds.
 */
import { z } from 'zod';
import type { Actor, ObjectRef, RequestRecord } from '../parser/record.js';
import { isConflict } from '../parser/record.js';
import type { Advice, Finding, Severity } from '../report/schema.js';
import { reportObject } from '../engine/aggregates.js';
import { objectLabel } from '../labels.js';
import { formatDurationMs as formatDuration } from '../report/format.js';
import { BoundedSample } from '../engine/sample.js';
import { actorName, EpisodeSeries, EvidenceIDs, FirstWrites, firstWritesFor, int, isObjectWrite, iso, PairMap, PeakPerSecond, ratio, reportActor, round2, shortHash, StepRing, topList } from './common.js';
import { trafficShare, writeShare } from './impact.js';
import { transitionTimeAdvice } from './advice.js';
import type { DetectorContext } from './types.js';
import { defineDetector } from './types.js';
import { catchUp, evidenceFields, raiseSeverity, RATE, severityFor, severityOption, SHARE, windowedInstance, windowedOptions, windowFields } from './window.js';

export const hotLoopOptions = windowedOptions({
  ...windowFields(60_000, 10_000),
  /**
   * Writes per second over one window that make it fast: 120 a minute. A large Deployment
   * rollout keeps its status writers at 1–1.2/s per object (every write a real change); the
   * self-triggering loops found run at 5/s and more (see the file header).
   */
  minWritesPerSec: z.number().positive().default(2),
  /**
   * How long, ms, the fast rate must be held before an episode opens: every window of an
   * unbroken run of fast windows, from the run's first write (or the pair's first write after
   * being idle) to its last write, at least this long. 90 s, half as long again as a window:
   * one busy minute (a rollout's burst as a batch of pods turns ready, a bulk relabel) never
   * opens an episode; a loop keeps going.
   */
  minLoopMs: z.number().int().nonnegative().default(90_000),
  /** Writes to one object, gathered while busy, that open an episode (slower loops that last). */
  minWritesInRun: z.number().int().positive().default(200),
  /**
   * How long, ms, the run of `minWritesInRun` must have lasted (first to last write): 15 min.
   * A rollout writes hundreds of status updates in minutes but ends; without it a 10-minute
   * rollout at 1 write/s would pass by count alone.
   */
  minRunMs: z.number().int().nonnegative().default(900_000),
  /**
   * Apply `minWritesInRun` to `/status` writes only. Below `minWritesPerSec`, a writer of the
   * main object is usually a periodic reporter or autoscaler by design; a status writer has no
   * reason to write on a timer (it reports observed change), so a slow steady one is a loop.
   */
  runRuleStatusOnly: z.boolean().default(true),
  /**
   * Writes per second over one window below which a pair is not busy (and an episode closes):
   * twice the healthy cadence, so a 10 s writer (leases, heartbeats) never qualifies.
   */
  minRunWritesPerSec: z.number().positive().default(0.2),
  /** Share of writes answered 2xx for the window to count (0..1): 409-dominated loops are conflict storms. */
  minSuccessRatio: z.number().min(0).max(1).default(0.8),
  /** Write period a timer-driven writer may legitimately have, ms: writes beyond one per period are excess. */
  healthyPeriodMs: z.number().int().positive().default(10_000),
  /** A pair with an empty window and no write for this long is forgotten, ms. */
  idleMs: z.number().int().positive().default(120_000),
  /** P90/P50 write-gap ratio at or below which the loop looks timer-driven (RequeueAfter). */
  timerMaxSpread: z.number().min(1).default(1.25),
  /** Median gap (ms) from which an evenly spaced loop counts as a timer, not an immediate requeue. */
  timerMinPeriodMs: z.number().nonnegative().default(1_000),
  /** Sample auditIDs kept as evidence, besides the last; distinct source IPs listed per actor. */
  ...evidenceFields(),
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
  ipCount: number;
  fieldManagers: Set<string>;
  /** Writes per userAgent of the identity (at most {@link MAX_USER_AGENTS} told apart). */
  userAgents: Map<string, number>;
  verbs: Set<string>;
  peakWrites: PeakPerSecond;
  /** The first `evidenceSamples` writes and the last. */
  evidence: EvidenceIDs;
  severity: Severity | null;
  /** Writes and 409s per bucket, for the report. */
  series: EpisodeSeries;
}

interface Pair {
  actor: Actor;
  object: ObjectRef;
  /** Per step: 0 writes, 1 2xx answers. */
  ring: StepRing;
  lastWriteTs: number;
  hot: Hot | null;
  open: boolean;
  /** Start (ms) of the current unbroken run of fast windows; -1 when the last window was not fast. */
  fastFrom: number;
}

const H_WRITE = 0;
const H_OK = 1;
/** userAgents of one identity counted apart in a finding; the rest are summed under the last. */
const MAX_USER_AGENTS = 8;
/** Usernames whose first actor is remembered (see `identityOf`); the map starts over beyond. */
const MAX_IDENTITIES = 20_000;

export const hotLoop = defineDetector({
  meta: {
    id: 'hot-loop',
    description:
      'One actor writes one object (typically /status) at a sustained rate with mostly successful answers: a reconcile loop that triggers itself.',
    optionsSchema: hotLoopOptions,
    judges: 'write-rate',
  },
  create(ctx: DetectorContext<HotLoopOptions>) {
    const o = ctx.options;
    const n = o.windowMs / o.stepMs;
    const windowSec = o.windowMs / 1000;
    /** Live (object, actor) pairs; `evaluate` says when one is idle and can go. */
    const pairs = new PairMap<Pair>();
    /**
     * First writes of objects no pair holds, while one write cannot make a window sustained. A
     * pair with one write is dropped once a window and `idleMs` passed.
     */
    const firstWrites =
      firstWritesFor<ObjectRef>(ctx, o.minRunWritesPerSec * windowSec > 1, Math.max(o.windowMs + o.stepMs, o.idleMs) + o.stepMs, (ob) => ob.key);

    /**
     * Writers are judged per identity (username), not per username + userAgent: controllers of one
     * binary that share a service account each set their own userAgent (cert-manager#6714: three
     * at 1.6 writes/s each, 4.8/s together on one object). The first actor seen with a username
     * stands for it; the finding breaks its writes down by userAgent.
     */
    let identities = new Map<string, Actor>();
    function identityOf(a: Actor): Actor {
      let id = identities.get(a.username);
      if (id === undefined) {
        if (identities.size >= MAX_IDENTITIES) identities = new Map();
        id = a;
        identities.set(a.username, a);
      }
      return id;
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
        ipCount: 0,
        fieldManagers: new Set(),
        userAgents: new Map(),
        verbs: new Set(),
        peakWrites: new PeakPerSecond(),
        evidence: new EvidenceIDs(o.evidenceSamples),
        severity: null,
        series: new EpisodeSeries(o.stepMs),
      };
    }

    /** A write of an object no pair holds: held, or, with the write held before it, given a pair. */
    function onFirstWrite(r: RequestRecord, held: FirstWrites<ObjectRef>): void {
      const first = held.take(r.object as ObjectRef, r);
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
      const p = pairs.get(obj, who) ?? pairs.add({ actor: who, object: obj, ring: new StepRing(n, 2), lastWriteTs: r.ts, hot: null, open: false, fastFrom: -1 });
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
      if (!h.ips.has(r.sourceIP)) {
        h.ipCount++;
        if (h.ips.size < o.maxSourceIPs) h.ips.add(r.sourceIP);
      }
      h.peakWrites.add(r.ts);
      h.series.add(r.ts, isConflict(r));
    }

    /** Judge the window ending at `boundary * stepMs` for one pair. Returns false to drop it. */
    function evaluate(p: Pair, boundary: number): boolean {
      const w = p.ring.sum(boundary, H_WRITE);
      const ok = p.ring.sum(boundary, H_OK);
      const end = boundary * o.stepMs;
      const sustained = w > 0 && w >= o.minRunWritesPerSec * windowSec && ok >= o.minSuccessRatio * w;
      const h = p.hot;
      // The run of fast windows (each at ≥ minWritesPerSec) that the fast rule needs to last minLoopMs.
      const fastWindow = h !== null && sustained && w >= o.minWritesPerSec * windowSec;
      if (!fastWindow) p.fastFrom = -1;
      else if (p.fastFrom < 0) p.fastFrom = Math.max((h as Hot).from, end - o.windowMs);
      if (p.open) {
        if (sustained) {
          if (raiseSeverity(h as Hot, severityOf(h as Hot))) ctx.alert('update', build(p));
          return true;
        }
        close(p);
      } else if (h !== null && sustained) {
        const fast = fastWindow && h.to - p.fastFrom >= o.minLoopMs;
        const long =
          h.writes >= o.minWritesInRun &&
          h.to - h.from >= o.minRunMs &&
          h.successes >= o.minSuccessRatio * h.writes &&
          (!o.runRuleStatusOnly || p.object.subresource === 'status');
        if (fast || long) {
          p.open = true;
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
      p.fastFrom = -1;
      p.ring.clear();
      const f = build(p);
      ctx.alert('close', f);
      ctx.emit(f);
      p.hot = null;
    }

    function meanRate(h: Hot): number {
      const d = h.to - h.from;
      return d > 0 ? (h.writes - 1) / (d / 1000) : 0;
    }

    function severityOf(h: Hot): Severity {
      return severityFor(o.severity, { share: writeShare(ctx.series, h.from, h.to, h.writes), writesPerSec: meanRate(h) });
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

      const metrics: Finding['metrics'] = {
        writes: h.writes,
        successes: h.successes,
        conflicts: h.conflicts,
        otherErrors: h.otherErrors,
        successRatio: ratio(h.successes, h.writes),
        durationMs: Math.round(durationMs),
        writePeriodP50Ms: p50 === null ? null : round2(p50),
        writePeriodP90Ms: p90 === null ? null : round2(p90),
        meanWritesPerSec: durationMs > 0 ? round2(meanRate(h)) : null,
        peakWritesPerSec: h.peakWrites.peak,
        sourceIPCount: h.ipCount,
        excessRequests: excess,
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
        for (const p of pairs) if (!evaluate(p, at)) pairs.delete(p);
        firstWrites?.expire(at * o.stepMs);
      },
      onRecord(r: RequestRecord): void {
        if (!isObjectWrite(r)) return;
        if (firstWrites === null || pairs.hasObject(r.object as ObjectRef)) onWrite(r);
        else onFirstWrite(r, firstWrites);
      },
      finish(): void {
        for (const p of pairs) if (p.open) close(p);
        pairs.clear();
        identities.clear();
        firstWrites?.clear();
      },
      stateSize: () => pairs.size + (firstWrites?.size ?? 0),
    });
  },
});
