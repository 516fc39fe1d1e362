/**
 * `throttling`: an actor gets a large share of its requests rejected with 429 TooManyRequests,
 * and who was sending the traffic that coincides with it (the likely cause).
 *
 * 429s come from API Priority and Fairness (or the older max-in-flight limiter): the audit event
 * shows `"responseStatus":{"metadata":{},"code":429}` with no reason and no
 * `authorization.k8s.io/*` annotations, because the rejection happens before authorization
 * (`kubernetes/apiserver` `pkg/server/filters/priority-and-fairness.go`, filter order in
 * `pkg/server/config.go`; `/work/shared/reference/audit-formats.md` §4c). client-go retries a
 * 429 that carries `Retry-After` up to 10 times, each a new request with a new auditID, after
 * sleeping at least Retry-After (1 s before Kubernetes 1.28, 1–32 s since) (`rest/with_retry.go`).
 *
 * **Victims.** Per actor (username + userAgent) a ring of `windowMs / stepMs` step buckets counts
 * requests, writes, 409 Conflicts and 429s. At every step boundary the window ending there is
 * judged: an episode opens when it holds at least `minThrottled` 429s that make at least
 * `minShare` of the actor's requests, and closes at the first boundary where it does not. One
 * finding per victim episode (victims of one overload each get their own finding, with its own
 * window and impact; `otherVictims` names the others). Statistics are gathered from the actor's
 * first 429 after a window without any.
 *
 * **Likely cause.** At every step boundary the `topK` actors by requests in the step that just
 * ended are ranked from the per-actor rings (all live actors, so exact); while a victim's
 * episode is hot those steps' tallies are added up, and for each actor the number of steps in
 * which the victim got 429s and the actor was among the `topK`. A likely cause is an actor in
 * that tally that is not itself a victim (fewer than `minThrottled` 429s or a 429 share below
 * `minShare`) or, a victim too, sent at least `victimCauseMinOfVictim` times the judged victim's
 * requests in the steps it was throttled in (APF's fair queuing rejects the heaviest flow of a
 * saturated priority level first, so the client that fills it is usually throttled itself), sent at least `minCauseShare` of all requests in those steps, was heavy in at
 * least `minCauseCoverage` of the steps in which the victim was throttled (a client that was
 * not there while the victim was rejected cannot explain those rejections), and, ranked by
 * requests, sent at least `causeMinOfTop` of what the first such actor sent (APF seats are
 * shared within a priority level: the client that fills it stands out; steady background
 * clients a fraction of its size, which were there before the overload too, explain nothing),
 * and, unless it got 429s itself, sent at least `causeMinOfVictim` times the victim's requests.
 * The first is *the* likely cause; up to `maxCauses` are listed. It is
 * `suspected`: audit events do not say which priority level a request went to. Requests, not
 * writes, are ranked: APF seats are taken by every request (lists most of all).
 *
 * **Impact.** `excessRequests` = the victim's 429s: each is a rejected attempt that client-go
 * repeats after Retry-After, so none did useful work. Shares of all writes and all requests are
 * the victim's (`trafficShare` over the episode's window). Severity: the higher of the rank of
 * the victim's 429 share and the rank of its 429s' share of all requests in the window, against
 * the `severity` thresholds; `low` below them; capped by duration unless the 429s are many
 * (`brief`).
 */
import { z } from 'zod';
import type { Actor, RequestRecord } from '../decoding/record.js';
import { isConflict } from '../decoding/record.js';
import type { Advice, Finding, Severity } from '../report/schema.js';
import { severityRank } from '../report/schema.js';
import { BoundedSample } from '../engine/sample.js';
import { actorName, EpisodeSeries, EvidenceIDs, int, iso, PeakPerSecond, ratio, reportActor, round2, shortHash, StepRings, topList } from './common.js';
import { trafficShare } from './impact.js';
import type { DetectorContext } from './types.js';
import { defineDetector } from './types.js';
import { evidenceFields, raiseSeverity, severityFor, severityOption, SHARE, windowedInstance, windowedOptions, windowFields } from './window.js';

export const throttlingOptions = windowedOptions({
  ...windowFields(60_000, 10_000),
  /**
   * 429s of one actor in one window needed to open an episode. 20 a minute: a client retried
   * after `Retry-After: 1` makes at most one 429 a second per call, so a few rejected lists are
   * not an episode.
   */
  minThrottled: z.number().int().positive().default(20),
  /** 429s / requests of one actor in one window needed to open an episode (0..1). */
  minShare: z.number().min(0).max(1).default(0.1),
  /** Heaviest actors kept per step for the likely-cause tally. */
  topK: z.number().int().positive().default(16),
  /**
   * Share of all requests in the episode's steps (0..1) a heavy actor must have sent to be named
   * a likely cause: a light client next to an overload explains nothing.
   */
  minCauseShare: z.number().min(0).max(1).default(0.05),
  /**
   * Share (0..1) of the steps in which the victim got 429s in which a likely cause must have
   * been among the `topK` heaviest actors: it has to coincide with the throttling, not with part of it.
   */
  minCauseCoverage: z.number().min(0).max(1).default(0.8),
  /**
   * A further likely cause must have sent at least this share (0..1) of the requests of the
   * first (the heaviest qualifying actor): only clients whose traffic stands out are named.
   */
  causeMinOfTop: z.number().min(0).max(1).default(0.5),
  /**
   * A likely cause that got no 429 in the episode's steps must have sent at least this many times
   * the victim's requests in the steps in which the victim got 429s. Under APF's fair queuing a flow is rejected for sending more
   * than its share of its priority level; a client lighter than the victim, never rejected
   * itself, cannot be what crowded it out (a CI bulk apply throttled in its own flow next to a
   * steady reader).
   */
  causeMinOfVictim: z.number().nonnegative().default(1),
  /**
   * A client throttled itself is still a likely cause of another actor's 429s when it sent at
   * least this many times that actor's requests in the steps in which that actor got 429s: APF's
   * fair queuing rejects the heaviest flow of a saturated priority level first, so the client
   * that fills it is usually throttled too, while clients of comparable size are fellow victims.
   */
  victimCauseMinOfVictim: z.number().positive().default(4),
  /** Likely causes listed after the victim in `actors[]`. */
  maxCauses: z.number().int().nonnegative().default(2),
  /**
   * Actors whose per-step counts are held at most. Beyond it the half with the fewest requests in
   * the window that are not being judged (no 429 since their last episode) are dropped: a likely
   * cause sends at least `minCauseShare` of all requests, so it is never among them.
   */
  maxActors: z.number().int().min(2).default(10_000),
  /** Objects remembered per victim to time its retries after a 429. */
  maxRetryObjects: z.number().int().positive().default(256),
  /** Median gap from a 429 to the retry under which `Retry-After` (≥ 1 s) is evidently ignored, ms. */
  retryAfterMinMs: z.number().nonnegative().default(900),
  /** Sample auditIDs kept as evidence, besides the first and last; distinct source IPs listed per actor. */
  ...evidenceFields(),
  /**
   * A short episode's severity is capped by how long it lasted (first to last 429), unless its
   * 429s reach `excess`: under `lowMs` at most `low`, under `mediumMs` at most `medium`. A bulk
   * apply that APF throttles for a few seconds and that then completes (client-go retries each
   * 429 after Retry-After, up to 10 times) is APF doing its work, not an outage.
   */
  brief: z
    .object({
      lowMs: z.number().nonnegative().default(30_000),
      mediumMs: z.number().nonnegative().default(60_000),
      excess: z.number().int().nonnegative().default(3_000),
    })
    .strict()
    .default({ lowMs: 30_000, mediumMs: 60_000, excess: 3_000 }),
  severity: severityOption(
    {
      /** The victim's 429s / its requests (0..1) at or above which this severity applies. */
      throttledShare: SHARE,
      /** The victim's 429s / all requests in the window (0..1) at or above which this severity applies. */
      shareOfRequests: SHARE,
    },
    {
      critical: { throttledShare: 0.8, shareOfRequests: 0.3 },
      high: { throttledShare: 0.5, shareOfRequests: 0.1 },
      medium: { throttledShare: 0.25, shareOfRequests: 0.02 },
    },
  ),
});

export type ThrottlingOptions = z.output<typeof throttlingOptions>;

/** One actor's counts in one step, or summed over an episode. */
interface Tally {
  requests: number;
  writes: number;
  conflicts: number;
  throttled: number;
  ips: Set<string>;
  /** Steps in which the victim got 429s and this actor was among the `topK` (summed tallies only). */
  throttledSteps: number;
  /** Requests in those steps (summed tallies only). */
  throttledStepRequests: number;
}

interface Hot {
  from: number;
  to: number;
  requests: number;
  writes: number;
  throttled: number;
  peak: PeakPerSecond;
  verbs: Map<string, number>;
  resources: Map<string, number>;
  /** Per object: time of the last 429, for the retry gap. */
  pending: Map<string, number>;
  retryGaps: BoundedSample;
  /** Heavy actors of the steps the episode spans, summed. */
  tally: Map<Actor, Tally>;
  /** Steps tallied in which the victim got 429s. */
  throttledSteps: number;
  ips: Set<string>;
  fieldManagers: Set<string>;
  evidence: EvidenceIDs;
  /** A 429 whose response carried a reason: not the APF / max-in-flight shape. */
  withReason: number;
  severity: Severity | null;
  /** The victim's requests and 429s per bucket, for the report. */
  series: EpisodeSeries;
}

interface ActorState {
  actor: Actor;
  /** Per step: 0 requests, 1 writes, 2 409 Conflicts, 3 429s. */
  ring: number;
  /**
   * The first source IP seen in step `stepIPsBucket` (for causes; `''`: none), and the others
   * after it (`null` while there are none): at most `maxSourceIPs` in all. Most actors send from
   * one IP, so most hold no array.
   */
  stepIP: string;
  stepIPsMore: string[] | null;
  stepIPsBucket: number;
  lastTs: number;
  hot: Hot | null;
  open: boolean;
}

const T_REQ = 0;
const T_WRITE = 1;
const T_CONFLICT = 2;
const T_429 = 3;

export const throttling = defineDetector({
  meta: {
    id: 'throttling',
    description: 'An actor gets many of its requests rejected with 429 TooManyRequests (API Priority and Fairness); names the heavy traffic that coincides.',
    optionsSchema: throttlingOptions,
    judges: 'errors',
  },
  create(ctx: DetectorContext<ThrottlingOptions>) {
    const o = ctx.options;
    const n = o.windowMs / o.stepMs;
    const actors = new Map<Actor, ActorState>();
    /**
     * States of forgotten actors (no episode), reused for new ones: a log whose actors outnumber
     * `maxActors` forgets and makes states all the time, each a ring of `4 · steps` counters.
     */
    const spare: ActorState[] = [];
    /** The actors' rings, by `ActorState.ring`; a state's row goes back when the state is let go (not kept in `spare`). */
    const rings = new StepRings(n, 4);

    function newHot(r: RequestRecord): Hot {
      return {
        from: r.ts,
        to: r.ts,
        requests: 0,
        writes: 0,
        throttled: 0,
        peak: new PeakPerSecond(),
        verbs: new Map(),
        resources: new Map(),
        pending: new Map(),
        retryGaps: new BoundedSample(),
        tally: new Map(),
        throttledSteps: 0,
        ips: new Set(),
        fieldManagers: new Set(),
        evidence: new EvidenceIDs(o.evidenceSamples + 1),
        withReason: 0,
        severity: null,
        series: new EpisodeSeries(o.stepMs),
      };
    }

    function onRequest(r: RequestRecord): void {
      let s = actors.get(r.actor);
      if (s === undefined) {
        if (actors.size >= o.maxActors) forgetLightest(Math.floor(r.ts / o.stepMs) + 1);
        s = spare.pop();
        if (s === undefined) s = { actor: r.actor, ring: rings.alloc(), stepIP: '', stepIPsMore: null, stepIPsBucket: -1, lastTs: r.ts, hot: null, open: false };
        else {
          s.actor = r.actor;
          s.stepIPsBucket = -1;
          s.lastTs = r.ts;
          s.hot = null;
          s.open = false;
        }
        actors.set(r.actor, s);
      }
      const b = Math.floor(r.ts / o.stepMs);
      const throttled = r.code === 429;
      s.lastTs = r.ts;
      rings.add(s.ring, b, T_REQ);
      if (r.isWrite) rings.add(s.ring, b, T_WRITE);
      if (isConflict(r)) rings.add(s.ring, b, T_CONFLICT);
      if (throttled) rings.add(s.ring, b, T_429);
      if (s.stepIPsBucket !== b) {
        s.stepIPsBucket = b;
        s.stepIP = '';
        s.stepIPsMore = null;
      }
      if (r.sourceIP && r.sourceIP !== s.stepIP) addStepIP(s, r.sourceIP);

      if (throttled && s.hot === null) s.hot = newHot(r);
      const h = s.hot;
      if (h === null) return;
      h.requests++;
      if (r.isWrite) h.writes++;
      h.series.add(r.ts, throttled);
      if (r.sourceIP && h.ips.size < o.maxSourceIPs) h.ips.add(r.sourceIP);
      if (r.fieldManager) h.fieldManagers.add(r.fieldManager);
      if (r.object !== null) {
        const sent = h.pending.get(r.object.key);
        if (sent !== undefined) {
          h.retryGaps.add(Math.max(0, r.receivedTs - sent));
          h.pending.delete(r.object.key);
        }
      }
      if (!throttled) return;
      h.throttled++;
      h.to = r.ts;
      h.peak.add(r.ts);
      h.evidence.add(r.auditID, r.level);
      if (r.reason !== '') h.withReason++;
      h.verbs.set(r.verb, (h.verbs.get(r.verb) ?? 0) + 1);
      const res = r.object === null ? '(non-resource)' : r.object.label;
      h.resources.set(res, (h.resources.get(res) ?? 0) + 1);
      if (r.object !== null && (h.pending.has(r.object.key) || h.pending.size < o.maxRetryObjects)) h.pending.set(r.object.key, r.ts);
    }

    /**
     * Drops the half of the actors not being judged (no episode building) with the fewest requests
     * in the window ending at `boundary` (ties: the least recently seen), so at most `maxActors`
     * are held whatever the cardinality.
     */
    function forgetLightest(boundary: number): void {
      // Indices into two parallel arrays, sorted (stably) by requests then last seen: no pair per actor.
      const idle: ActorState[] = [];
      const sums: number[] = [];
      actors.forEach((s) => {
        if (s.hot !== null) return;
        idle.push(s);
        sums.push(rings.sum(s.ring, boundary, T_REQ));
      });
      const order = Array.from({ length: idle.length }, (_, i) => i);
      order.sort((a, b) => (sums[a] as number) - (sums[b] as number) || (idle[a] as ActorState).lastTs - (idle[b] as ActorState).lastTs);
      const drop = Math.min(idle.length, actors.size - Math.floor(o.maxActors / 2));
      for (let i = 0; i < drop; i++) drop1(idle[order[i] as number] as ActorState);
    }

    /** Notes that `s` sent from `ip` (not its step's first IP) in its current step, keeping at most `maxSourceIPs`. */
    function addStepIP(s: ActorState, ip: string): void {
      if (s.stepIP === '') {
        if (o.maxSourceIPs > 0) s.stepIP = ip;
        return;
      }
      const more = s.stepIPsMore;
      if (more === null) {
        if (o.maxSourceIPs > 1) s.stepIPsMore = [ip];
      } else if (1 + more.length < o.maxSourceIPs && !more.includes(ip)) more.push(ip);
    }

    /** The source IPs of `s`'s current step, in the order first seen. */
    function stepIPsOf(s: ActorState): string[] {
      if (s.stepIP === '') return [];
      return s.stepIPsMore === null ? [s.stepIP] : [s.stepIP, ...s.stepIPsMore];
    }

    /** Forget `s` (not in an episode): its state is kept for the next new actor. */
    function drop1(s: ActorState): void {
      actors.delete(s.actor);
      rings.clear(s.ring);
      s.stepIP = '';
      s.stepIPsMore = null;
      if (spare.length < o.maxActors / 2) spare.push(s);
      else rings.free(s.ring);
    }

    /**
     * The `topK` actors by requests in bucket `bucket` (ties by actor key), with their counts.
     * Selected in one pass, tallies made for those only, not a tally for every actor of the step,
     * all sorted: a step can hold thousands of actors.
     */
    function heavyIn(bucket: number): Array<[Actor, Tally]> {
      const best: Array<[ActorState, number]> = []; // by requests desc, then key asc
      for (const s of actors.values()) {
        const req = rings.at(s.ring, bucket, T_REQ);
        if (req === 0) continue;
        let k = best.length;
        while (k > 0 && heavier(s, req, best[k - 1]![0], best[k - 1]![1])) k--;
        if (k >= o.topK) continue;
        best.splice(k, 0, [s, req]);
        if (best.length > o.topK) best.pop();
      }
      return best.map(([s, req]) => [
        s.actor,
        {
          requests: req,
          writes: rings.at(s.ring, bucket, T_WRITE),
          conflicts: rings.at(s.ring, bucket, T_CONFLICT),
          throttled: rings.at(s.ring, bucket, T_429),
          ips: new Set(s.stepIPsBucket === bucket ? stepIPsOf(s) : []),
          throttledSteps: 0,
          throttledStepRequests: 0,
        },
      ]);
    }

    /** Whether `a` with `aReq` requests ranks before `b` with `bReq` in {@link heavyIn}. */
    function heavier(a: ActorState, aReq: number, b: ActorState, bReq: number): boolean {
      return aReq > bReq || (aReq === bReq && a.actor.key < b.actor.key);
    }

    /** Add one step's heavy actors to `h`'s tally; `throttledStep`: the victim got 429s in that step. */
    function addTally(h: Hot, heavy: Array<[Actor, Tally]>, throttledStep: boolean): void {
      if (throttledStep) h.throttledSteps++;
      for (const [a, t] of heavy) {
        let x = h.tally.get(a);
        if (x === undefined) {
          x = { requests: 0, writes: 0, conflicts: 0, throttled: 0, ips: new Set(), throttledSteps: 0, throttledStepRequests: 0 };
          h.tally.set(a, x);
        }
        if (throttledStep) {
          x.throttledSteps++;
          x.throttledStepRequests += t.requests;
        }
        x.requests += t.requests;
        x.writes += t.writes;
        x.conflicts += t.conflicts;
        x.throttled += t.throttled;
        for (const ip of t.ips) if (x.ips.size < o.maxSourceIPs) x.ips.add(ip);
      }
      // Bound the tally: keep the 4·topK heaviest.
      if (h.tally.size > 4 * o.topK) {
        const keep = [...h.tally.entries()].sort((p, q) => q[1].requests - p[1].requests).slice(0, 4 * o.topK);
        h.tally = new Map(keep);
      }
    }

    function severityOf(h: Hot): Severity {
      const around = ctx.series.sum(h.from, h.to).requests;
      const own = h.requests > 0 ? h.throttled / h.requests : 0;
      const ofAll = around > 0 ? h.throttled / around : 0;
      const by = severityFor(o.severity, { throttledShare: own, shareOfRequests: ofAll });
      const lasted = h.to - h.from;
      if (h.throttled >= o.brief.excess) return by;
      if (lasted < o.brief.lowMs) return severityRank(by) > severityRank('low') ? 'low' : by;
      if (lasted < o.brief.mediumMs) return severityRank(by) > severityRank('medium') ? 'medium' : by;
      return by;
    }

    /** Judge the window ending at `boundary * stepMs` for one actor. Returns false to drop it. */
    function evaluate(s: ActorState, boundary: number, heavy: () => Array<[Actor, Tally]>): boolean {
      const req = rings.sum(s.ring, boundary, T_REQ);
      const thr = rings.sum(s.ring, boundary, T_429);
      const passes = thr >= o.minThrottled && thr >= o.minShare * req;
      if (s.hot !== null && rings.at(s.ring, boundary - 1, T_REQ) + thr > 0) addTally(s.hot, heavy(), rings.at(s.ring, boundary - 1, T_429) > 0);
      if (s.open) {
        if (passes) {
          const h = s.hot as Hot;
          if (raiseSeverity(h, severityOf(h))) ctx.alert('update', build(s));
          return true;
        }
        close(s);
      } else if (passes && s.hot !== null) {
        s.open = true;
        s.hot.severity = severityOf(s.hot);
        ctx.alert('open', build(s));
        return true;
      } else if (thr === 0) {
        s.hot = null;
      }
      return !(s.hot === null && req === 0 && boundary * o.stepMs - s.lastTs > o.windowMs);
    }

    function close(s: ActorState): void {
      s.open = false;
      rings.clear(s.ring);
      const f = build(s);
      ctx.alert('close', f);
      ctx.emit(f);
      s.hot = null;
    }

    function build(s: ActorState): Finding {
      const h = s.hot as Hot;
      const victimShare = (t: Tally): number => (t.requests > 0 ? t.throttled / t.requests : 0);
      const ranked = [...h.tally.entries()]
        .filter(([a]) => a !== s.actor)
        .sort((a, b) => b[1].requests - a[1].requests || (a[0].key < b[0].key ? -1 : a[0].key > b[0].key ? 1 : 0));
      const around = ctx.series.sum(h.from, h.to);
      const isVictim = (t: Tally): boolean => victimShare(t) >= o.minShare && t.throttled >= o.minThrottled;
      const coincides = (t: Tally): boolean => t.throttledSteps >= o.minCauseCoverage * h.throttledSteps;
      // A client never rejected itself must outweigh the victim in the steps it was throttled in (see `causeMinOfVictim`).
      const victimStepRequests = h.tally.get(s.actor)?.throttledStepRequests ?? h.requests;
      const crowds = (t: Tally): boolean => t.throttled > 0 || t.throttledStepRequests >= o.causeMinOfVictim * victimStepRequests;
      // A fellow victim counts only when it dwarfs this one (see `victimCauseMinOfVictim`).
      const notFellow = (t: Tally): boolean => !isVictim(t) || t.throttledStepRequests >= o.victimCauseMinOfVictim * victimStepRequests;
      const candidates = ranked.filter(([, t]) => notFellow(t) && t.requests >= o.minCauseShare * around.requests && coincides(t) && crowds(t));
      const top = candidates[0]?.[1].requests ?? 0;
      const causes = candidates.filter(([, t]) => t.requests >= o.causeMinOfTop * top);
      const others = ranked.filter(([a, t]) => isVictim(t) && !causes.slice(0, o.maxCauses).some(([c]) => c === a));
      const cause = causes[0];
      const gapP50 = h.retryGaps.percentile(50);
      const durationMs = Math.max(0, h.to - h.from);

      const signals = ['throttled'];
      if (h.withReason === 0) signals.push('apf-rejected');
      if (gapP50 !== null && gapP50 < o.retryAfterMinMs) signals.push('ignores-retry-after');
      if (cause !== undefined) signals.push('likely-cause');
      if (cause !== undefined && cause[1].conflicts > 0) signals.push('cause-conflict-storm');
      if (others.length > 0) signals.push('other-victims');

      const metrics: Finding['metrics'] = {
        requests: h.requests,
        throttled: h.throttled,
        throttledShare: ratio(h.throttled, h.requests),
        peak429PerSec: h.peak.peak,
        durationMs: Math.round(durationMs),
        throttledVerbs: topList(h.verbs, (v) => v, 5),
        throttledResources: topList(h.resources, (r) => r, 5),
        retryGapP50Ms: gapP50 === null ? null : round2(gapP50),
        likelyCause: cause === undefined ? null : cause[0].username,
        likelyCauseUserAgent: cause === undefined ? null : cause[0].userAgent,
        likelyCauseRequests: cause === undefined ? null : cause[1].requests,
        likelyCauseWrites: cause === undefined ? null : cause[1].writes,
        likelyCauseConflicts: cause === undefined ? null : cause[1].conflicts,
        likelyCauseShare: cause === undefined ? null : ratio(Math.min(cause[1].requests, around.requests), around.requests),
        otherVictims:
          others.length === 0
            ? null
            : topList(
                others.map(([a, t]) => [a, t.throttled] as [Actor, number]),
                (a) => a.username,
                5,
              ),
        throttledShareOfRequests: ratio(Math.min(h.throttled, around.requests), around.requests),
        excessRequests: h.throttled,
        ...trafficShare(ctx.series, h.from, h.to, { writes: h.writes, requests: h.requests }),
      };

      const who = actorName(s.actor);
      const pct = Math.round((h.throttled / Math.max(1, h.requests)) * 100);
      const causeText = cause === undefined ? '' : `; coincides with ${actorName(cause[0])} (${int(cause[1].requests)} requests)`;
      return {
        id: `throttling:${shortHash(`${s.actor.key}\u0001${h.from}`)}`,
        kind: 'throttling',
        severity: h.severity ?? severityOf(h),
        title: `${who} is throttled: ${int(h.throttled)} of ${int(h.requests)} requests answered 429 (${pct}%), peak ${int(h.peak.peak)}/s${causeText}`,
        actors: [reportActor(s.actor, h.ips, h.fieldManagers), ...causes.slice(0, o.maxCauses).map(([a, t]) => reportActor(a, t.ips, []))],
        object: null,
        window: { from: iso(h.from), to: iso(h.to) },
        metrics,
        signals,
        evidence: h.evidence.evidence('proven'),
        advice: adviceFor(h, signals, cause?.[0] ?? null),
        series: { ...h.series.toReport(), labels: { title: 'Requests and 429s of this actor', writes: 'requests/s', conflicts: '429/s' } },
      };
    }

    function adviceFor(h: Hot, signals: string[], cause: Actor | null): Advice[] {
      const advice: Advice[] = [];
      if (cause !== null) {
        advice.push({
          id: 'fix-the-heavy-client',
          text: `${actorName(cause)} (${cause.username}) sent the most requests while this actor was throttled: fix its loop first (see its conflict-storm, write-fight or fleet-storm finding, if any), or move it to its own FlowSchema so it cannot fill the priority level others share.`,
        });
      }
      advice.push({
        id: 'flowschema',
        text: 'Check APF: `kubectl get --raw /debug/api_priority_and_fairness/dump_priority_levels` and the apiserver_flowcontrol_rejected_requests_total metric show which priority level rejects; give this client a FlowSchema with a priority level of its own if its work matters.',
      });
      if (h.verbs.has('list')) {
        advice.push({
          id: 'watch-instead-of-list',
          text: 'Lists are the most expensive requests under APF: read from an informer (list once, then watch) or list with resourceVersion=0 and pagination instead of polling full lists.',
        });
      }
      if (signals.includes('ignores-retry-after')) {
        advice.push({
          id: 'honor-retry-after',
          text: 'Retries follow the 429s in under a second: honor Retry-After (client-go does, up to 10 times) instead of retrying at once, which only adds to the overload.',
        });
      }
      return advice;
    }

    return windowedInstance(o, {
      judge(at: number): void {
        // The heaviest actors of the step that just ended, ranked once and only if a hot actor asks.
        let cached: Array<[Actor, Tally]> | null = null;
        const heavy = (): Array<[Actor, Tally]> => (cached ??= heavyIn(at - 1));
        const idleBefore = at * o.stepMs - o.windowMs;
        for (const s of actors.values()) {
          if (s.hot === null) {
            // Nothing to judge (no 429 since its last episode; never open): `evaluate` would only
            // drop it once idle for a window, which is when its last request left the window (so
            // the window holds none). Its ring is not summed: a step holds thousands of actors,
            // most of them never throttled.
            if (s.lastTs < idleBefore) drop1(s);
            continue;
          }
          if (!evaluate(s, at, heavy)) {
            actors.delete(s.actor);
            rings.free(s.ring);
          }
        }
      },
      onRecord(r: RequestRecord): void {
        onRequest(r);
      },
      onAllowlisted(r: RequestRecord): void {
        // A periodic writer is judged by its 429s: its other periodic requests count only in an
        // episode of its own, so heartbeat volume neither makes it a likely cause nor dilutes its share.
        if (r.code === 429 || (actors.get(r.actor)?.hot ?? null) !== null) onRequest(r);
      },
      finish(): void {
        for (const s of actors.values()) if (s.open) close(s);
        actors.clear();
      },
      stateSize: () => actors.size,
    });
  },
});
