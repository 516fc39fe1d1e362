/**
 * `fleet-storm`: one family of actors (every kubelet, every pod of a DaemonSet, per-tenant agents
 * with numbered service accounts) gets 409 Conflict or 429 TooManyRequests across many objects
 * at once: a fleet-wide problem (a bad rollout, a shared stale cache, synchronized polling), one
 * finding for the whole family instead of none (each object below `conflict-storm`'s thresholds)
 * or hundreds.
 *
 * **Family.** The username pattern plus the userAgent product (`Actor.userAgentProduct`, without
 * version: a rolling upgrade mixes versions of one fleet). The product alone is not enough: it is
 * `manager` for every kubebuilder-scaffolded operator and `<binary>/v0.0.0` for most third-party
 * ones (`/work/shared/reference/audit-formats.md` §5.4), so unrelated operators would merge. The
 * username pattern is, in order ({@link familyOf}):
 * - `system:node:*` for kubelets (`system:node:<nodeName>`, Node authorizer naming);
 * - a username whose last `-`/`.`/`:`/`_`-separated segment is a number or a hash (contains a
 *   digit, 1–10 alphanumerics), with that segment replaced by `*`:
 *   `system:serviceaccount:agents:agent-7f9c4` → `system:serviceaccount:agents:agent-*`;
 * - otherwise the username itself: pods of one Deployment or DaemonSet share their service
 *   account, so the family is that service account and its members are told apart by source IP.
 *
 * **Counting.** Requests answered 409 `Conflict` (not `AlreadyExists`: `create-conflict-storm`)
 * or 429 are *bad*. Per family a ring of `windowMs / stepMs` step buckets counts bad answers,
 * and the last bad time is kept per object and per client (actor + source IP), capped. At every
 * step boundary the window ending there is judged: an episode opens when it holds at least
 * `minEvents` bad answers on at least `minObjects` distinct objects from at least `minClients`
 * distinct clients, and closes at the first boundary where it does not. Requiring many objects
 * keeps a single-object storm (that is `conflict-storm`) out. `minClients` is 1 by default: one
 * controller storming wide (flux2#3689: one service account patching 400 Kustomizations' status,
 * about 1.3 409s per object per minute) is below `conflict-storm` on every object, and only
 * this finding shows it; set 2 or more for fleets alone. With one client an object counts toward
 * `minObjects` only when its 409s span `singleClientMinSpanMs` and most are not explained by a
 * race: a 409 is explained when another family wrote the object since the client's previous
 * request to it, or the 409 is part of the client's reaction to such a write: requests in a row
 * that began within `singleClientReactionLagMs` of it, up to the attempts per-item backoff makes
 * in `singleClientRaceReactionMs` (`singleClientMaxConflictsPerForeignWrite`). 409s after
 * other writers' changes, each followed by a stored retry, are the optimistic lock working
 * (ray-project/kuberay#745), not a controller losing to itself; so are the 409s of the reconciles
 * such a change sets off, which write from a cache that has not seen their own last write yet and
 * retry with backoff until it has. An episode of mostly 429s needs 2 clients whatever
 * `minClients` says: one client throttled across objects is `throttling`'s finding.
 *
 * **Impact.** `excessRequests` = the 429s (each is retried by client-go after `Retry-After`, up
 * to 10 times: `rest/with_retry.go`, so the rejected attempts are pure overhead) plus, per
 * object and retry chain (the family's 409s there until its next stored write, where per-item
 * backoff starts over), the attempts beyond what per-item exponential backoff (5 ms doubling,
 * `impact.ts` `excessAttempts`) makes over the chain's span, as `conflict-storm` counts them.
 * Shares: the family's writes among all writes and its requests among all requests in the
 * episode's window.
 *
 * **Evidence.** `actors[]` lists the `topN` members with the most bad answers; the evidence
 * auditIDs are theirs only (each one's first bad answers in turn, and the last of any of them),
 * so every auditID to grep for belongs to an actor the finding names.
 *
 * Severity: the higher of the rank of the larger of the two shares and the rank of the peak bad
 * answers per second, against the `severity` thresholds; `low` below them.
 */
import { z } from 'zod';
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import { isConflict } from '../decoding/record.js';
import type { Advice, Finding, Severity } from '../report/schema.js';
import { objectLabel } from '../labels.js';
import { formatDurationMs } from '../report/format.js';
import { EpisodeSeries, int, iso, PeakPerSecond, ratio, reportActor, shortHash, StepRing, topList } from './common.js';
import { backoffAttempts, excessAttempts, trafficShare } from './impact.js';
import type { DetectorContext } from './types.js';
import { defineDetector } from './types.js';
import { evidenceFields, raiseSeverity, RATE, severityFor, severityOption, SHARE, windowedInstance, windowedOptions, windowFields } from './window.js';

export const fleetStormOptions = windowedOptions({
  ...windowFields(60_000, 10_000),
  /** 409 Conflict + 429 answers to the family in one window needed to open an episode. */
  minEvents: z.number().int().positive().default(30),
  /** Distinct objects with such answers in one window needed to open an episode. */
  minObjects: z.number().int().positive().default(10),
  /** Distinct clients (actor + source IP) with such answers in one window needed to open an episode. */
  minClients: z.number().int().positive().default(1),
  /**
   * With one client, ms an object's 409/429 answers in the family must span (first to latest) to
   * count toward `minObjects`: a storm keeps conflicting on the same objects, a rollout's 409s stop
   * once each object settles (see the file header).
   */
  singleClientMinSpanMs: z.number().int().nonnegative().default(60_000),
  /**
   * With one client, 409 Conflicts on an object that no race explains, per 409 that one does, up to
   * which the object does not count toward `minObjects` (plus one: the first 409's cause came before
   * the object was tracked). A 409 is explained when another family wrote the object (any
   * subresource) since the client's previous request to it, or is part of the client's reaction to
   * such a write (`singleClientRaceReactionMs`): a status write racing another writer's
   * change, answered 409 and then stored by the requeued reconcile, is the optimistic lock working
   * (ray-project/kuberay#745, ForgeRock/secret-agent#182: routine status-update 409s after an
   * autoscaler's or a Secret's change); 1 allows one stale retry per race. A storm's 409s are its
   * own (two writes per reconcile from one cached copy, flux2#3689), whatever others write between.
   */
  singleClientMaxConflictsPerForeignWrite: z.number().nonnegative().default(1),
  /**
   * With one client, the reaction to another family's change (ms): the client's requests to the
   * object in a row, each within this of the one before, whose first came at most
   * `singleClientReactionLagMs` after the change, explain their 409s up to this long after that
   * first request and up to the attempts per-item backoff makes in that time (9 in 2 s: 5 ms
   * doubling, see `impact.ts`). The reconciles a change sets off write from a cache that lags
   * their own last write, get 409, and retry with per-item backoff (controller-runtime's default,
   * reference/audit-formats.md §5.2) until the informer catches up (kuberay#745). 409s beyond
   * that budget, or of requests that did not start right after a change (a periodic reconcile
   * beside a writer that touches the object every few seconds), are the client's own.
   */
  singleClientRaceReactionMs: z.number().int().nonnegative().default(2_000),
  /**
   * With one client, ms from another family's change to the client's first request of a
   * reaction to it (see `singleClientRaceReactionMs`): the informer's lag in handing the change
   * to the controller.
   */
  singleClientReactionLagMs: z.number().int().nonnegative().default(500),
  /** Objects and clients tracked per family; beyond, answers count in totals only. */
  maxObjectsPerFamily: z.number().int().positive().default(10_000),
  /**
   * Objects tracked across all families: a log where hundreds of families each get a 409 now and
   * then on ever new objects keeps every family hot, and each family's objects would pile up to
   * its own cap.
   */
  maxObjects: z.number().int().positive().default(20_000),
  maxClientsPerFamily: z.number().int().positive().default(10_000),
  /**
   * Clients tracked across all families in their windows, and clients and per-actor tallies across
   * all episodes, each (as `maxObjects`); beyond, answers count in totals only, so a finding's
   * clients and actors are then lower bounds (an episode holds its first `topN` of each still).
   */
  maxClients: z.number().int().positive().default(20_000),
  /** Actors listed in `actors[]` and objects / actors named in `topObjects` / `topActors`. */
  topN: z.number().int().positive().default(5),
  /** Sample auditIDs kept as evidence, besides the first and last; distinct source IPs listed per actor. */
  ...evidenceFields(),
  severity: severityOption(
    {
      /** Share of all writes or all requests (the larger) at or above which this severity applies (0..1). */
      share: SHARE,
      /** Peak 409/429 answers per second (1 s buckets) at or above which this severity applies. */
      peakPerSec: RATE,
    },
    {
      critical: { share: 0.5, peakPerSec: 100 },
      high: { share: 0.2, peakPerSec: 20 },
      medium: { share: 0.05, peakPerSec: 5 },
    },
  ),
});

export type FleetStormOptions = z.output<typeof fleetStormOptions>;

/** How a family was derived from a username. */
export type FamilyBy = 'node' | 'username-pattern' | 'username';

/** A family: username pattern and userAgent product. */
export interface Family {
  key: string;
  pattern: string;
  product: string;
  by: FamilyBy;
}

const NUMBERED = /^(.*[-.:_])([0-9a-z]{1,10})$/;

/** The family of an actor (see the file header). */
export function familyOf(a: Actor): Family {
  let pattern = a.username;
  let by: FamilyBy = 'username';
  if (a.username.startsWith('system:node:')) {
    pattern = 'system:node:*';
    by = 'node';
  } else {
    const m = NUMBERED.exec(a.username);
    if (m !== null && /[0-9]/.test(m[2] as string)) {
      pattern = `${m[1] as string}*`;
      by = 'username-pattern';
    }
  }
  return { key: `${pattern}\u0001${a.userAgentProduct}`, pattern, product: a.userAgentProduct, by };
}

/**
 * What the detector keeps per interned actor: its family and the client key of the source IP it
 * was last seen from (most actors keep one address; one cached key, not a map per actor).
 */
interface ActorInfo {
  family: Family;
  lastIP: string;
  lastClient: string;
}

/** Distinct families held in the cache of {@link familyOf} results at most (it is cleared when full). */
const MAX_CACHED_FAMILIES = 10_000;

interface ObjStat {
  lastTs: number;
  /** First bad answer since the family last went quiet (reset with the episode), or -1. */
  firstBadTs: number;
  /** In the current episode: bad answers, 409s, 429s, first and last 409 time. */
  bad: number;
  conflicts: number;
  throttled: number;
  firstConflictTs: number;
  lastConflictTs: number;
  /**
   * The retry chain open now: 409s since the family's last stored write to the object (per-item
   * backoff starts over at a success), from `chainStartTs` (-1: none); and the excess of the
   * chains closed in the current episode.
   */
  chainStartTs: number;
  chainConflicts: number;
  closedExcess: number;
  /** In the current episode: 409s that followed another family's write to the object since the family's previous request to it. */
  explained: number;
  /** Another family wrote the object (any subresource) since this family's latest request to it. */
  raced: boolean;
  /** stageTimestamp (ms) of another family's latest successful write to the object, or -1. */
  lastForeignTs: number;
  /**
   * The family's requests to the object in a row, each within `singleClientRaceReactionMs` of the
   * one before (a burst): the latest one's time and the burst's first (ms, -1: none), whether
   * another family's write came at most `singleClientReactionLagMs` before that first (the burst
   * is a reaction to that change), and the 409s it explained (at most `reactionBudget`).
   */
  lastOwnTs: number;
  burstStartTs: number;
  burstSetOff: boolean;
  reacted: number;
  /** The object and its family's key, to count other families' writes to it. */
  obj: ObjectRef;
  familyKey: string;
}

interface ActorStat {
  bad: number;
  ips: Set<string>;
  fieldManagers: Set<string>;
  /** This actor's first `evidenceSamples + 1` bad answers: [stageTimestamp, auditID]. */
  samples: Array<[number, string]>;
  /** Its last bad answer (two fields: an array per answer was garbage for every bad answer). */
  lastTs: number;
  lastAuditID: string;
  level: string;
}

interface Hot {
  from: number;
  to: number;
  bad: number;
  conflicts: number;
  throttled: number;
  requests: number;
  writes: number;
  /**
   * Objects with bad answers not held: answered beyond the caps (one each at most), or dropped
   * once out of the window while objects were scarce (their excess is in `droppedExcess`).
   */
  untracked: number;
  droppedExcess: number;
  clients: Set<string>;
  actors: Map<Actor, ActorStat>;
  peak: PeakPerSecond;
  severity: Severity | null;
  /** The family's requests and 409/429 answers per bucket, for the report. */
  series: EpisodeSeries;
}

interface FamilyState {
  family: Family;
  /** Per step: 0 bad answers. */
  ring: StepRing;
  /** By object key (`ObjectRef.key`). */
  objects: Map<string, ObjStat>;
  clients: Map<string, number>;
  lastBadTs: number;
  hot: Hot | null;
  open: boolean;
}

export const fleetStorm = defineDetector({
  meta: {
    id: 'fleet-storm',
    description: 'One family of actors (kubelets, pods of one DaemonSet, numbered agents) gets 409 Conflict or 429 across many objects at once.',
    optionsSchema: fleetStormOptions,
    judges: 'errors',
  },
  create(ctx: DetectorContext<FleetStormOptions>) {
    const o = ctx.options;
    const n = o.windowMs / o.stepMs;
    // 409s one other writer's change can explain: the attempts per-item backoff makes in its reaction window.
    const reactionBudget = backoffAttempts(o.singleClientRaceReactionMs);
    const families = new Map<string, FamilyState>();
    /** Families whose `hot` is set (an episode may be building). */
    let hotFamilies = 0;
    /** Objects tracked by all families together (at most `maxObjects`). */
    let trackedObjects = 0;
    /** Entries of every family's `clients` (at most `maxClients`). */
    let trackedClients = 0;
    /**
     * Entries of every episode's `clients` and `actors` (at most `maxClients`, but an episode
     * always holds its first `topN` actors and clients, so every finding names some).
     */
    let episodeEntries = 0;
    /** Tracked objects of every family, by object name (a write to any subresource finds them). */
    const byName = new Map<string, ObjStat[]>();
    const actorCache = new WeakMap<Actor, ActorInfo>();
    /** One `Family` per key, shared by the actors in it. */
    let familyCache = new Map<string, Family>();

    function infoOf(a: Actor): ActorInfo {
      let f = actorCache.get(a);
      if (f === undefined) {
        const fresh = familyOf(a);
        let family = familyCache.get(fresh.key);
        if (family === undefined) {
          if (familyCache.size >= MAX_CACHED_FAMILIES) familyCache = new Map();
          family = fresh;
          familyCache.set(family.key, family);
        }
        f = { family, lastIP: '', lastClient: '' };
        actorCache.set(a, f);
      }
      return f;
    }

    /**
     * The client key of `a` with source IP `ip`, one string per pair, kept on the actor's info:
     * building and hashing it afresh for every bad answer was this detector's largest cost.
     */
    function clientOf(info: ActorInfo, a: Actor, ip: string): string {
      if (info.lastIP !== ip || info.lastClient === '') {
        info.lastIP = ip;
        info.lastClient = `${a.key}\u0001${ip}`;
      }
      return info.lastClient;
    }

    function newHot(r: RequestRecord): Hot {
      return {
        from: r.ts,
        to: r.ts,
        bad: 0,
        conflicts: 0,
        throttled: 0,
        requests: 0,
        writes: 0,
        untracked: 0,
        droppedExcess: 0,
        clients: new Set(),
        actors: new Map(),
        peak: new PeakPerSecond(),
        severity: null,
        series: new EpisodeSeries(o.stepMs),
      };
    }

    /** Track `os` under its object's name. */
    function index(os: ObjStat): void {
      const list = byName.get(os.obj.name);
      if (list === undefined) byName.set(os.obj.name, [os]);
      else list.push(os);
    }

    /** Stop tracking `os` under its object's name. */
    function unindex(os: ObjStat): void {
      const list = byName.get(os.obj.name);
      if (list === undefined) return;
      const i = list.indexOf(os);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) byName.delete(os.obj.name);
    }

    /**
     * A request `r` answered well to a tracked object: a successful write by another family marks a
     * race for every family tracking it; any request of the family itself ends its race.
     */
    function noteRequest(r: RequestRecord, ob: ObjectRef): void {
      const list = byName.get(ob.name);
      if (list === undefined) return;
      let key: string | null = null;
      for (const os of list) {
        const t = os.obj;
        if (t.namespace !== ob.namespace || t.resource !== ob.resource || t.apiGroup !== ob.apiGroup) continue;
        key ??= infoOf(r.actor).family.key;
        const stored = r.isWrite && r.code >= 200 && r.code < 300;
        if (os.familyKey === key) {
          ownRequest(os, r.ts);
          os.raced = false;
          // The family's write stored: its chain of 409s on the object ends in success.
          if (stored && os.chainStartTs >= 0) {
            os.closedExcess += excessAttempts(os.chainConflicts + 1, r.ts - os.chainStartTs);
            os.chainStartTs = -1;
            os.chainConflicts = 0;
          }
        } else if (stored) {
          os.raced = true;
          os.lastForeignTs = r.ts;
        }
      }
    }

    /** A request of the object's family at `ts`: it continues the family's burst on the object, or starts one. */
    function ownRequest(os: ObjStat, ts: number): void {
      if (os.lastOwnTs < 0 || ts - os.lastOwnTs > o.singleClientRaceReactionMs) {
        os.burstStartTs = ts;
        os.burstSetOff = os.lastForeignTs >= 0 && ts - os.lastForeignTs <= o.singleClientReactionLagMs;
        os.reacted = 0;
      }
      os.lastOwnTs = ts;
    }

    function onRequest(r: RequestRecord): void {
      const conflict = isConflict(r);
      const throttled = r.code === 429;
      const bad = (conflict || throttled) && r.object !== null;
      if (!bad && r.object !== null && byName.size > 0) noteRequest(r, r.object);
      // A request answered well counts only in a hot family's episode: with none hot, its
      // family is not even looked up (most requests are answered well).
      if (!bad && hotFamilies === 0) return;
      const info = infoOf(r.actor);
      const fam = info.family;
      let s = families.get(fam.key);
      if (s === undefined) {
        if (!bad) return;
        s = { family: fam, ring: new StepRing(n, 1), objects: new Map(), clients: new Map(), lastBadTs: r.ts, hot: null, open: false };
        families.set(fam.key, s);
      }
      let h = s.hot;
      if (h !== null) {
        h.requests++;
        if (r.isWrite) h.writes++;
        h.series.add(r.ts, bad);
      }
      if (!bad) return;
      s.ring.add(Math.floor(r.ts / o.stepMs), 0);
      s.lastBadTs = r.ts;
      if (h === null) {
        h = s.hot = newHot(r);
        hotFamilies++;
        h.requests = 1;
        h.writes = r.isWrite ? 1 : 0;
        h.series.add(r.ts, true);
      }
      const obj = r.object;
      let os = s.objects.get(obj.key);
      if (os === undefined && s.objects.size < o.maxObjectsPerFamily && trackedObjects < o.maxObjects) {
        os = {
          lastTs: r.ts,
          firstBadTs: -1,
          bad: 0,
          conflicts: 0,
          throttled: 0,
          firstConflictTs: -1,
          lastConflictTs: -1,
          chainStartTs: -1,
          chainConflicts: 0,
          closedExcess: 0,
          explained: 0,
          raced: false,
          lastForeignTs: -1,
          lastOwnTs: -1,
          burstStartTs: -1,
          burstSetOff: false,
          reacted: 0,
          obj,
          familyKey: fam.key,
        };
        s.objects.set(obj.key, os);
        index(os);
        trackedObjects++;
      }
      const client = clientOf(info, r.actor, r.sourceIP);
      if (s.clients.has(client)) s.clients.set(client, r.ts);
      else if (s.clients.size < o.maxClientsPerFamily && trackedClients < o.maxClients) {
        s.clients.set(client, r.ts);
        trackedClients++;
      }
      h.bad++;
      if (conflict) h.conflicts++;
      else h.throttled++;
      h.to = r.ts;
      h.peak.add(r.ts);
      if ((h.clients.size < o.topN || (h.clients.size < o.maxClientsPerFamily && episodeEntries < o.maxClients)) && !h.clients.has(client)) {
        h.clients.add(client);
        episodeEntries++;
      }
      if (os === undefined) h.untracked++;
      else {
        os.lastTs = r.ts;
        if (os.firstBadTs < 0) os.firstBadTs = r.ts;
        os.bad++;
        ownRequest(os, r.ts);
        if (conflict) {
          os.conflicts++;
          if (os.raced || (os.burstSetOff && r.ts - os.burstStartTs <= o.singleClientRaceReactionMs && os.reacted < reactionBudget)) {
            os.explained++;
            os.reacted++;
          }
          os.raced = false;
          if (os.firstConflictTs < 0) os.firstConflictTs = r.ts;
          os.lastConflictTs = r.ts;
          if (os.chainStartTs < 0) os.chainStartTs = r.ts;
          os.chainConflicts++;
        } else os.throttled++;
      }
      let as = h.actors.get(r.actor);
      if (as === undefined && (h.actors.size < o.topN || (h.actors.size < o.maxClientsPerFamily && episodeEntries < o.maxClients))) {
        as = { bad: 0, ips: new Set(), fieldManagers: new Set(), samples: [], lastTs: r.ts, lastAuditID: r.auditID, level: r.level };
        h.actors.set(r.actor, as);
        episodeEntries++;
      }
      if (as !== undefined) {
        as.bad++;
        if (as.samples.length < o.evidenceSamples + 1) as.samples.push([r.ts, r.auditID]);
        as.lastTs = r.ts;
        as.lastAuditID = r.auditID;
        if (r.sourceIP && as.ips.size < o.maxSourceIPs) as.ips.add(r.sourceIP);
        if (r.fieldManager) as.fieldManagers.add(r.fieldManager);
      }
    }

    function severityOf(h: Hot): Severity {
      const around = ctx.series.sum(h.from, h.to);
      const share = Math.max(around.writes > 0 ? h.writes / around.writes : 0, around.requests > 0 ? h.requests / around.requests : 0);
      return severityFor(o.severity, { share, peakPerSec: h.peak.peak });
    }

    /** Requests an object's 409s cost beyond a client backing off over their span (see the file header). */
    function excessOf(os: ObjStat): number {
      return os.closedExcess + (os.chainStartTs >= 0 ? excessAttempts(os.chainConflicts, os.lastConflictTs - os.chainStartTs) : 0);
    }

    /**
     * Judge the window ending at `boundary * stepMs` for one family. Returns false to drop it.
     * `scarce`: objects are short (half of `maxObjects` held), so an episode's objects out of the
     * window are dropped, their counts kept in the episode's totals, lest long episodes hold them all.
     */
    function evaluate(s: FamilyState, boundary: number, scarce: boolean): boolean {
      const start = (boundary - n) * o.stepMs;
      const bad = s.ring.sum(boundary, 0);
      let objects = 0;
      let lasting = 0;
      for (const [key, os] of s.objects) {
        if (os.lastTs >= start) {
          objects++;
          if (os.firstBadTs >= 0 && os.lastTs - os.firstBadTs >= o.singleClientMinSpanMs && !racedOthers(os)) lasting++;
        } else if (os.bad === 0 || s.hot === null || scarce) {
          if (os.bad > 0 && s.hot !== null) {
            s.hot.untracked++;
            s.hot.droppedExcess += excessOf(os);
          }
          s.objects.delete(key);
          unindex(os);
          trackedObjects--;
        }
      }
      let clients = 0;
      for (const [c, ts] of s.clients) {
        if (ts >= start) clients++;
        else {
          s.clients.delete(c);
          trackedClients--;
        }
      }
      // One client throttled across objects is `throttling`'s finding (per actor, with its likely
      // cause); it takes a fleet for 429s to be this one's too.
      const mostly429 = s.hot !== null && s.hot.throttled > s.hot.conflicts;
      // One client must keep conflicting on the same objects: a rollout's 409s on each object stop once it settles.
      const wide = clients >= 2 ? objects : lasting;
      const passes = bad >= o.minEvents && wide >= o.minObjects && clients >= (mostly429 ? Math.max(2, o.minClients) : o.minClients);
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
      } else if (bad === 0 && s.hot !== null) {
        endHot(s);
      }
      return !(s.hot === null && bad === 0 && boundary * o.stepMs - s.lastBadTs > o.windowMs);
    }

    function endHot(s: FamilyState): void {
      if (s.hot !== null) {
        hotFamilies--;
        episodeEntries -= s.hot.clients.size + s.hot.actors.size;
      }
      s.hot = null;
      for (const os of s.objects.values()) {
        os.firstBadTs = -1;
        os.bad = 0;
        os.conflicts = 0;
        os.throttled = 0;
        os.firstConflictTs = -1;
        os.lastConflictTs = -1;
        os.chainStartTs = -1;
        os.chainConflicts = 0;
        os.closedExcess = 0;
        os.explained = 0;
      }
    }

    /** Whether races with other families explain the object's 409s (see `singleClientMaxConflictsPerForeignWrite`); never when it had 429s. */
    function racedOthers(os: ObjStat): boolean {
      return os.throttled === 0 && os.conflicts - os.explained <= o.singleClientMaxConflictsPerForeignWrite * os.explained + 1;
    }

    /** Forget every object of family `s`. */
    function dropObjects(s: FamilyState): void {
      for (const os of s.objects.values()) unindex(os);
      trackedObjects -= s.objects.size;
      s.objects.clear();
    }

    function close(s: FamilyState): void {
      s.open = false;
      s.ring.clear();
      const f = build(s);
      ctx.alert('close', f);
      ctx.emit(f);
      endHot(s);
      dropObjects(s);
      trackedClients -= s.clients.size;
      s.clients.clear();
    }

    function build(s: FamilyState): Finding {
      const h = s.hot as Hot;
      const fam = s.family;
      const hit: Array<[ObjectRef, ObjStat]> = [];
      for (const os of s.objects.values()) if (os.bad > 0) hit.push([os.obj, os]);
      let excess = h.throttled + h.droppedExcess;
      for (const [, os] of hit) excess += excessOf(os);
      const actors = [...h.actors.entries()].sort((a, b) => b[1].bad - a[1].bad || (a[0].key < b[0].key ? -1 : a[0].key > b[0].key ? 1 : 0));
      const durationMs = Math.max(0, h.to - h.from);
      const objects = hit.length + h.untracked; // untracked objects: at most one each
      const what = h.conflicts >= h.throttled ? '409 Conflict' : '429 TooManyRequests';
      const both = h.conflicts > 0 && h.throttled > 0;

      const signals = ['many-objects'];
      if (h.conflicts > 0) signals.push('conflicts');
      if (h.throttled > 0) signals.push('throttled');
      if (h.actors.size === 1 && h.clients.size > 1) signals.push('shared-identity');

      const metrics: Finding['metrics'] = {
        family: fam.pattern,
        familyBy: fam.by,
        userAgentProduct: fam.product,
        events: h.bad,
        conflicts: h.conflicts,
        throttled: h.throttled,
        objects,
        actors: h.actors.size,
        clients: h.clients.size,
        topObjects: topList(
          hit.map(([obj, os]) => [obj, os.bad] as [ObjectRef, number]),
          objectLabel,
          o.topN,
        ),
        topActors: topList(
          actors.map(([a, as]) => [a, as.bad] as [Actor, number]),
          (a) => a.username,
          o.topN,
        ),
        peakPerSec: h.peak.peak,
        durationMs: Math.round(durationMs),
        requests: h.requests,
        writes: h.writes,
        badShareOfFamilyRequests: ratio(h.bad, h.requests),
        excessRequests: excess,
        ...trafficShare(ctx.series, h.from, h.to, { writes: h.writes, requests: h.requests }),
      };
      const name = fam.product ? `${fam.product} (${fam.pattern})` : fam.pattern;
      return {
        id: `fleet-storm:${shortHash(`${fam.key}\u0001${h.from}`)}`,
        kind: 'fleet-storm',
        severity: h.severity ?? severityOf(h),
        title: `${name}: ${both ? '409 Conflict and 429' : what} on ${int(objects)} objects from ${int(h.clients.size)} clients (${int(h.actors.size)} actors): ${int(h.bad)} in ${formatDurationMs(durationMs)}, peak ${int(h.peak.peak)}/s`,
        actors: actors.slice(0, o.topN).map(([a, as]) => reportActor(a, as.ips, as.fieldManagers)),
        object: null,
        window: { from: iso(h.from), to: iso(h.to) },
        metrics,
        signals,
        evidence: evidenceOf(actors.slice(0, o.topN).map(([, as]) => as)),
        advice: adviceFor(h, fam, excess - h.throttled),
        series: { ...h.series.toReport(), labels: { title: 'Requests of this family and their 409/429 answers across its objects', writes: 'requests/s', conflicts: '409+429/s' } },
      };
    }

    /**
     * Evidence from the actors listed in `actors[]` only: their first bad answers taken in turn
     * (the most affected actor first) up to `evidenceSamples + 1`, then the last bad answer of
     * any of them, in time order; the audit level is that of the earliest sample.
     */
    function evidenceOf(listed: ActorStat[]): Finding['evidence'] {
      const picked: Array<[number, string, string]> = [];
      for (let i = 0; picked.length < o.evidenceSamples + 1; i++) {
        let any = false;
        for (const as of listed) {
          const x = as.samples[i];
          if (x === undefined) continue;
          any = true;
          if (picked.length < o.evidenceSamples + 1) picked.push([x[0], x[1], as.level]);
        }
        if (!any) break;
      }
      let last: [number, string] | null = null;
      for (const as of listed) if (last === null || as.lastTs > last[0]) last = [as.lastTs, as.lastAuditID];
      if (last !== null && !picked.some(([, id]) => id === last[1])) picked.push([last[0], last[1], '']);
      picked.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
      const auditIDs = picked.map(([, id]) => id);
      return {
        auditIDs,
        firstAuditID: auditIDs[0] ?? '',
        lastAuditID: last?.[1] ?? '',
        auditLevel: picked.find(([, , level]) => level !== '')?.[2] ?? '',
        level: 'proven',
      };
    }

    /** Advice for an episode whose 409s cost `conflictExcess` requests beyond per-item backoff. */
    function adviceFor(h: Hot, fam: Family, conflictExcess: number): Advice[] {
      const advice: Advice[] = [];
      if (h.conflicts > 0) {
        advice.push({
          id: 'patch-instead-of-update',
          text: `Members of ${fam.pattern} lose the optimistic-lock race on many objects: write with a patch (merge patch or server-side apply) instead of Update from the cache, and skip writes that change nothing.`,
        });
        // Backing off is the advice only when the 409s came faster than per-item backoff allows.
        if (conflictExcess > 0)
          advice.push({
            id: 'requeue-with-backoff',
            text: 'Return the error and let the workqueue back off per item (5 ms doubling up to 1000 s) instead of retrying faster than that; a fleet retrying in lockstep multiplies every conflict.',
          });
      }
      if (h.throttled > 0) {
        advice.push({
          id: 'spread-the-fleet',
          text: 'The fleet hits API Priority and Fairness limits together: add jitter to periodic work, read from informers (watch) instead of polling lists, and lower the client QPS so members do not all burst at once.',
        });
        advice.push({
          id: 'flowschema',
          text: `Give ${fam.pattern} its own FlowSchema and PriorityLevelConfiguration (distinguisher ByUser) so its bursts queue fairly among its members and do not starve, or get starved by, other clients.`,
        });
      }
      return advice;
    }

    return windowedInstance(o, {
      judge(at: number): void {
        const scarce = trackedObjects >= o.maxObjects / 2;
        for (const s of families.values()) {
          if (evaluate(s, at, scarce)) continue;
          dropObjects(s);
          trackedClients -= s.clients.size;
          if (s.hot !== null) episodeEntries -= s.hot.clients.size + s.hot.actors.size;
          families.delete(s.family.key);
        }
      },
      onRecord(r: RequestRecord): void {
        onRequest(r);
      },
      onAllowlisted(r: RequestRecord): void {
        // A periodic request counts by its 409/429 answer alone: its answers well say nothing of a fleet.
        if ((isConflict(r) || r.code === 429) && r.object !== null) onRequest(r);
      },
      finish(): void {
        for (const s of families.values()) if (s.open) close(s);
        families.clear();
        byName.clear();
        familyCache.clear();
        trackedObjects = 0;
        trackedClients = 0;
        episodeEntries = 0;
        hotFamilies = 0;
      },
      stateSize: () => families.size + trackedObjects + trackedClients + episodeEntries,
    });
  },
});
