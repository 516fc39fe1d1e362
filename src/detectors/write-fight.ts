/**
 * `write-fight`: two or more actors take turns writing the same object (A, B, A, B …), each
 * undoing what the other just wrote. The classic case is an HPA writing `/scale` (spec.replicas)
 * while `kubectl apply` or a GitOps controller re-applies a manifest that pins `replicas`; others
 * are two operators that both claim a label, an annotation or a status condition.
 *
 * **Keys.** State is kept per object *without* its subresource (main, `/scale` and `/status` of
 * one object are one object) and per **field domain**:
 * - `spec`: the main resource and every subresource other than `/status` (`/scale` writes
 *   `spec.replicas`, so main vs `/scale` is a real fight);
 * - `status`: the `/status` subresource.
 * The status subresource ignores changes outside `.status` and the main resource ignores changes
 * to `.status` (`kubernetes/kubernetes` `pkg/registry/<group>/<resource>/strategy.go`: the main
 * strategy's `PrepareForUpdate` restores the old status, the status strategy's restores the old
 * spec; `GetResetFields` says the same to server-side apply), so a controller that updates
 * `/status` in reaction to someone patching spec or labels writes disjoint fields: that is
 * normal reconciliation, not a fight, and does not count. `includeStatusVsMain: true` folds both
 * domains into one. Actors are distinct by username + userAgent (`Actor.key`).
 *
 * **Alternation (flip).** A successful (2xx) write to a domain by an actor other than the one
 * that made the previous successful write to that domain. 409s and other errors change nothing;
 * they are counted (`conflicts`) but never flip.
 *
 * **Episode.** Per (object, domain) a ring of `windowMs / stepMs` step buckets counts successful
 * writes, flips and 409 Conflicts; each actor has its own ring of successful writes. At every
 * step boundary the window ending there is judged: an episode opens when it holds at least
 * `minAlternations` flips and at least two actors with `minWritesPerActor` successful writes
 * each, and (by default) evidence that they undo each other (below), and closes at the first
 * boundary where that no longer holds. Statistics are gathered from
 * the first flip after a window without flips (including the write it overturned).
 *
 * **Impact.** `excessRequests`: every write beyond the first by each actor in the episode. Each
 * side's intent needs one write; every later one only re-asserts it after the other side undid
 * it (the client-go / controller-runtime backoff yardstick of `impact.ts` does not apply: these
 * writes succeed, so nothing backs off). Shares of all writes and requests come from the
 * cluster series (`trafficShare`).
 *
 * **Evidence.** Two actors alternating on one part of an object are not necessarily fighting:
 * co-owners of disjoint fields (a controller updating with RetryOnConflict while a reporter
 * patches its own annotations) alternate just the same, and Metadata-level events do not say
 * which fields a write set. So by default (`requireEvidence`) an episode opens only when the log
 * shows that the writes undo each other:
 * - a **spec-subresource split**: one side writes only `/scale` (spec.replicas) while the other
 *   writes only the main resource (a whole manifest, replicas included): level `suspected`;
 *   not when both sides' request bodies are logged and neither ever re-sends its own earlier
 *   body after the other wrote (the bodies show no one undoing the other);
 * - **reverts**: request bodies are logged (Request level or above) and at least two actors
 *   re-send a body equal to their own previous one after the other side wrote in between: level
 *   `proven`.
 * - a **resourceVersion ping-pong** (`rvPingPong`): each side PUTs right after the other, carrying
 *   the resourceVersion the other's write produced, nearly every time: level `suspected`, and the
 *   finding says that Metadata level cannot show which fields each write set (below).
 * Everything else alternating stays unreported unless `requireEvidence: false`.
 *
 * **resourceVersion ping-pong.** An `update` carries in `objectRef.resourceVersion` the RV its
 * client read (filled at Metadata level; `patch` never carries it: `kubernetes/apiserver`
 * `pkg/audit/request.go`). A *hand-off* is a flip where both the overturned write and the new one
 * are updates and the new one was based on what the overturned one produced: its RV equals the
 * overturned write's response RV when the response is logged (RequestResponse), else differs from
 * the overturned write's own request RV (the object changed since, i.e. the overturned write was
 * no no-op and the new writer read its result), and it was received within `maxReactionMs` of
 * the overturned write's completion. The RV chain alone does not tell a fight from co-owners
 * that each GET-then-PUT their own fields: their PUTs carry each other's RVs just the same. What a
 * fight adds is that *each* side writes *because* the other wrote: every write of both sides
 * follows the other's within watch-and-reconcile latency, in strict A, B, A, B order. Co-owners
 * write when their own inputs change: on their own schedules, so most of their writes come long
 * after the other's; a copier that reacts to a periodic writer reacts on one side only; leader
 * election candidates take over only after a lease expired and then renew many times in a row.
 * So the evidence is that each of the two busiest actors made at least `minHandoffShare` of its
 * writes in the episode as hand-offs. Two co-owners both on timers shorter than `maxReactionMs`
 * and in phase would still pass: the finding says what it rests on and which audit level for the
 * resource would confirm it.
 *
 * Severity: the higher of the rank of the episode's share of all writes and the rank of its
 * peak flips per minute (busiest window), against the `severity` thresholds; `low` below them.
 */
import { z } from 'zod';
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import { isConflict } from '../decoding/record.js';
import type { Advice, Finding, ReportObject, Severity } from '../report/schema.js';
import { objectLabel } from '../labels.js';
import { BoundedSample } from '../engine/sample.js';
import { actorName, EpisodeSeries, EvidenceIDs, firstWritesFor, int, iso, isObjectWrite, reportActor, round2, shortHash, StepRing } from './common.js';
import { trafficShare, writeShare } from './impact.js';
import type { DetectorContext } from './types.js';
import { defineDetector } from './types.js';
import { catchUp, evidenceFields, raiseSeverity, RATE, severityFor, severityOption, SHARE, windowedInstance, windowedOptions, windowFields } from './window.js';

export const writeFightOptions = windowedOptions({
  ...windowFields(60_000, 10_000),
  /**
   * Flips in one window needed to open an episode. 6 a minute: a controller and a human editing
   * the same object now and then flip a few times an hour, a fight flips every resync; an HPA on
   * its default 15 s sync (`--horizontal-pod-autoscaler-sync-period`) against a GitOps controller
   * that reverts `spec.replicas` makes 8 flips a minute (its `/scale` write and the revert per
   * sync), fewer when a sync finds nothing to change.
   */
  minAlternations: z.number().int().positive().default(6),
  /** Successful writes in the window each of at least two actors must make. */
  minWritesPerActor: z.number().int().positive().default(3),
  /** Count `/status` vs main-resource writers as a fight (they write disjoint fields: off by default). */
  includeStatusVsMain: z.boolean().default(false),
  /**
   * Open an episode only on evidence that the writes undo each other: a split where one side
   * writes only a spec subresource (`/scale`) and the other only the main resource, or reverts
   * proven from request bodies. Without it, two actors alternating on the same part of an object
   * may be co-owners of disjoint fields (a controller and a reporter patching its own
   * annotations), which Metadata-level events cannot tell from a fight. `false` reports those
   * too, as `suspected`.
   */
  requireEvidence: z.boolean().default(true),
  /**
   * Count a resourceVersion ping-pong (both sides PUT in turn, each right after the other and on
   * the RV the other produced) as evidence. It is the only evidence Metadata level gives for
   * resources whose bodies are not logged, e.g. Secrets under the usual audit policies.
   */
  rvPingPong: z.boolean().default(true),
  /**
   * Longest time (ms) from the end of one side's write to the receipt of the other side's next
   * write for the latter to count as triggered by it: watch delivery plus one reconcile (read
   * from the informer cache, PUT). 1 s is the Kubernetes p99 latency SLO for a mutating
   * single-object API call (`kubernetes/community` `sig-scalability/slos/api_call_latency.md`);
   * a writer on its own timer lands this close after the other only by chance.
   */
  maxReactionMs: z.number().int().positive().default(1000),
  /**
   * Share (0..1) of each of the two busiest actors' successful writes in the episode that must be
   * hand-offs for a resourceVersion ping-pong. 0.8: nearly every write of both sides is a reaction
   * to the other's; co-owners on their own schedules, one-sided copiers and leader-election
   * renewals stay far below it.
   */
  minHandoffShare: z.number().min(0).max(1).default(0.8),
  /** Actors tracked per (object, domain); writes by further actors count but are not itemised. */
  maxActorsPerObject: z.number().int().min(2).default(8),
  /** Actors listed in a finding (most writes first). */
  maxActorsReported: z.number().int().positive().default(4),
  /** Sample auditIDs kept as evidence, besides the first and last; distinct source IPs listed per actor. */
  ...evidenceFields(),
  severity: severityOption(
    {
      /** Share of all writes in the episode's window (0..1) at or above which this severity applies. */
      share: SHARE,
      /** Flips per minute in the busiest window at or above which this severity applies. */
      flipsPerMin: RATE,
    },
    {
      critical: { share: 0.5, flipsPerMin: 600 },
      high: { share: 0.2, flipsPerMin: 120 },
      medium: { share: 0.05, flipsPerMin: 30 },
    },
  ),
});

export type WriteFightOptions = z.output<typeof writeFightOptions>;

/** The last successful write to a domain. */
interface LastWrite {
  actor: Actor;
  ts: number;
  auditID: string;
  level: string;
  subresource: string;
  fieldManager: string;
  sourceIP: string;
  content: string;
  verb: string;
  /** `objectRef.resourceVersion` the client sent (update), `''` if none. */
  rv: string;
  /** The response's resourceVersion when logged (RequestResponse), else `''`. */
  responseRv: string;
}

/** What one actor did during an episode. */
interface MemberStats {
  actor: Actor;
  attempts: number;
  writes: number;
  conflicts: number;
  flips: number;
  fieldManagers: Set<string>;
  /** Subresources written (`main` for the main resource). */
  subresources: Set<string>;
  verbs: Set<string>;
  ips: Set<string>;
  lastContent: string;
  reverts: number;
  /** Successful writes whose request body was logged (Request level or above). */
  bodies: number;
  /** Flips that were resourceVersion hand-offs (see `rvPingPong`). */
  handoffs: number;
}

interface Hot {
  from: number;
  to: number;
  flips: number;
  attempts: number;
  writes: number;
  conflicts: number;
  lastFlipTs: number;
  flipGaps: BoundedSample;
  /** Reaction times (ms) of the hand-offs: overturned write's completion to the next write's receipt. */
  reactions: BoundedSample;
  handoffs: number;
  peakWindowFlips: number;
  members: Map<Actor, MemberStats>;
  evidence: EvidenceIDs;
  severity: Severity | null;
  /** Write attempts of all actors and 409 Conflicts per bucket, for the report. */
  series: EpisodeSeries;
}

interface Fight {
  key: string;
  object: ReportObject;
  /** 0: spec (main and non-status subresources), 1: status. */
  domain: 0 | 1;
  last: LastWrite | null;
  /** Per step: 0 successful writes, 1 flips, 2 409 Conflicts. */
  ring: StepRing;
  /**
   * Per actor: successful writes per step; `null` while every successful write was by
   * `last.actor` (most objects have one writer), whose ring is then `ring`'s counter `W_OK`.
   */
  writers: Map<Actor, StepRing> | null;
  lastWriteTs: number;
  hot: Hot | null;
  open: boolean;
  /** Its rank among the fights of other object shards (`ShardPlacement.birth`; 0 when not sharded). */
  born: number;
}

const W_OK = 0;
const W_FLIP = 1;
const W_CONFLICT = 2;

function sub(o: ObjectRef): string {
  return o.subresource === '' ? 'main' : o.subresource;
}

export const writeFight = defineDetector({
  meta: {
    id: 'write-fight',
    description: 'Two or more actors alternately overwrite the same object (A, B, A, B …), e.g. an HPA writing /scale against kubectl apply or GitOps.',
    optionsSchema: writeFightOptions,
    judges: 'write-rate',
    // Every fight is one object's; the table of held first writes, which spans objects, is shared by the shards (and counted by the cross instance).
    byObject: 'objects+cross',
  },
  create(ctx: DetectorContext<WriteFightOptions>) {
    const o = ctx.options;
    /** `all` when not sharded; else what this instance judges (see `ShardPlacement.role`). */
    const role = ctx.placement?.role ?? 'all';
    const shared = ctx.placement ? ctx.placement.shared.bind(ctx.placement) : <T>(_name: string, make: () => T): T => make();
    const n = o.windowMs / o.stepMs;
    const fights = new Map<string, Fight>();
    /** The fight key of each object (its domain is fixed by its subresource and the options): built once, not per write. */
    const fightKeys = new WeakMap<ObjectRef, string>();

    /**
     * First writes of objects no fight holds: one write has no flip. A fight with one write is
     * dropped once its window is empty and a window passed.
     */
    // One table for every object shard: held writes take room in the order of all objects' writes.
    const firstWrites = shared('firstWrites', () => firstWritesFor<string>(ctx, true, 2 * o.windowMs + 2 * o.stepMs, (k) => k));

    function keyOf(obj: ObjectRef): string {
      let key = fightKeys.get(obj);
      if (key === undefined) {
        const domain = obj.subresource === 'status' && !o.includeStatusVsMain ? 1 : 0;
        key = `${obj.apiGroup}/${obj.resource}/${obj.namespace}/${obj.name}/#${domain}`;
        fightKeys.set(obj, key);
      }
      return key;
    }

    function fightOf(r: RequestRecord): Fight {
      const obj = r.object as ObjectRef;
      const domain: 0 | 1 = obj.subresource === 'status' && !o.includeStatusVsMain ? 1 : 0;
      const key = keyOf(obj);
      let f = fights.get(key);
      if (f === undefined) {
        f = {
          key,
          object: { apiGroup: obj.apiGroup, apiVersion: obj.apiVersion, resource: obj.resource, namespace: obj.namespace, name: obj.name, subresource: '' },
          domain,
          last: null,
          ring: new StepRing(n, 3),
          writers: null,
          lastWriteTs: r.ts,
          hot: null,
          open: false,
          born: ctx.placement?.birth() ?? 0,
        };
        fights.set(key, f);
      }
      return f;
    }

    function memberOf(h: Hot, a: Actor): MemberStats | null {
      let m = h.members.get(a);
      if (m === undefined) {
        if (h.members.size >= o.maxActorsPerObject) return null;
        m = {
          actor: a,
          attempts: 0,
          writes: 0,
          conflicts: 0,
          flips: 0,
          fieldManagers: new Set(),
          subresources: new Set(),
          verbs: new Set(),
          ips: new Set(),
          lastContent: '',
          reverts: 0,
          bodies: 0,
          handoffs: 0,
        };
        h.members.set(a, m);
      }
      return m;
    }

    /** Start an episode at a flip: the overturned write is its first write. */
    function newHot(prev: LastWrite): Hot {
      const h: Hot = {
        from: prev.ts,
        to: prev.ts,
        flips: 0,
        attempts: 1,
        writes: 1,
        conflicts: 0,
        lastFlipTs: -1,
        flipGaps: new BoundedSample(),
        reactions: new BoundedSample(),
        handoffs: 0,
        peakWindowFlips: 0,
        members: new Map(),
        evidence: new EvidenceIDs(o.evidenceSamples + 1),
        severity: null,
        series: new EpisodeSeries(o.stepMs),
      };
      h.series.add(prev.ts, false);
      const m = memberOf(h, prev.actor) as MemberStats;
      m.attempts = 1;
      m.writes = 1;
      if (prev.fieldManager) m.fieldManagers.add(prev.fieldManager);
      m.subresources.add(prev.subresource);
      if (prev.sourceIP) m.ips.add(prev.sourceIP);
      m.lastContent = prev.content;
      if (prev.content !== '') m.bodies = 1;
      h.evidence.add(prev.auditID, prev.level);
      return h;
    }

    /**
     * Reaction time (ms) when `r` is a resourceVersion hand-off from `prev` (see `rvPingPong`),
     * else -1.
     */
    function handoffOf(prev: LastWrite, r: RequestRecord): number {
      if (r.verb !== 'update' || prev.verb !== 'update' || r.resourceVersion === '' || prev.rv === '') return -1;
      const reaction = r.receivedTs - prev.ts;
      if (reaction > o.maxReactionMs) return -1;
      if (prev.responseRv !== '') return r.resourceVersion === prev.responseRv ? Math.max(0, reaction) : -1;
      // Without the response RV a write received before the other completed cannot have read its result.
      return reaction >= 0 && r.resourceVersion !== prev.rv ? reaction : -1;
    }

    function onWrite(r: RequestRecord): void {
      const f = fightOf(r);
      const ok = r.code >= 200 && r.code < 300;
      const conflict = isConflict(r);
      const b = Math.floor(r.ts / o.stepMs);
      f.lastWriteTs = r.ts;
      const prev = f.last;
      const flip = ok && prev !== null && prev.actor !== r.actor;
      const reaction = flip ? handoffOf(prev, r) : -1;
      if (ok) {
        if (f.writers === null && prev !== null && prev.actor !== r.actor) f.writers = new Map([[prev.actor, f.ring.column(W_OK)]]);
        f.ring.add(b, W_OK);
        const writers = f.writers;
        if (writers !== null) {
          let wr = writers.get(r.actor);
          if (wr === undefined && writers.size < o.maxActorsPerObject) {
            wr = new StepRing(n, 1);
            writers.set(r.actor, wr);
          }
          wr?.add(b, 0);
        }
      }
      if (conflict) f.ring.add(b, W_CONFLICT);
      if (flip) {
        f.ring.add(b, W_FLIP);
        if (f.hot === null) f.hot = newHot(prev);
      }
      const h = f.hot;
      if (h !== null) {
        h.attempts++;
        if (ok) h.writes++;
        if (conflict) h.conflicts++;
        h.series.add(r.ts, conflict);
        const m = memberOf(h, r.actor);
        if (m !== null) {
          m.attempts++;
          if (ok) m.writes++;
          if (conflict) m.conflicts++;
          if (r.fieldManager) m.fieldManagers.add(r.fieldManager);
          m.subresources.add(sub(r.object as ObjectRef));
          m.verbs.add(r.verb);
          if (r.sourceIP && m.ips.size < o.maxSourceIPs) m.ips.add(r.sourceIP);
          if (ok && r.body !== null) {
            m.bodies++;
            if (flip && m.lastContent !== '' && m.lastContent === r.body.content) m.reverts++;
            m.lastContent = r.body.content;
          }
          if (flip) m.flips++;
          if (reaction >= 0) m.handoffs++;
        }
        if (reaction >= 0) {
          h.handoffs++;
          h.reactions.add(reaction);
        }
        if (flip) {
          h.flips++;
          if (h.lastFlipTs >= 0) h.flipGaps.add(r.ts - h.lastFlipTs);
          h.lastFlipTs = r.ts;
          h.to = r.ts;
          h.evidence.add(r.auditID, r.level);
        }
      }
      if (ok) {
        // Overwritten in place: nothing keeps a fight's last write but the fight (`newHot` copies it).
        const last =
          prev ?? (f.last = { actor: r.actor, ts: 0, auditID: '', level: '', subresource: '', fieldManager: '', sourceIP: '', content: '', verb: '', rv: '', responseRv: '' });
        last.actor = r.actor;
        last.ts = r.ts;
        last.auditID = r.auditID;
        last.level = r.level;
        last.subresource = sub(r.object as ObjectRef);
        last.fieldManager = r.fieldManager;
        last.sourceIP = r.sourceIP;
        last.content = r.body?.content ?? '';
        last.verb = r.verb;
        last.rv = r.resourceVersion;
        last.responseRv = r.responseResourceVersion;
      }
    }

    function severityOf(h: Hot): Severity {
      const share = writeShare(ctx.series, h.from, h.to, h.attempts);
      return severityFor(o.severity, { share, flipsPerMin: (h.peakWindowFlips * 60_000) / o.windowMs });
    }

    /** Judge the window ending at `boundary * stepMs`. Returns false when the fight can be dropped. */
    function evaluate(f: Fight, boundary: number): boolean {
      const flips = f.ring.sum(boundary, W_FLIP);
      let writers = 0;
      if (f.writers === null) {
        if (f.last !== null && f.ring.sum(boundary, W_OK) >= o.minWritesPerActor) writers++;
      } else
        for (const [a, wr] of f.writers) {
          const w = wr.sum(boundary, 0);
          if (w >= o.minWritesPerActor) writers++;
          else if (w === 0 && f.last?.actor !== a) f.writers.delete(a);
        }
      const h = f.hot;
      const passes = flips >= o.minAlternations && writers >= 2 && (!o.requireEvidence || (h !== null && evidenced(h)));
      if (h !== null && flips > h.peakWindowFlips) h.peakWindowFlips = flips;
      if (f.open) {
        if (passes) {
          if (raiseSeverity(h as Hot, severityOf(h as Hot))) ctx.alert('update', build(f));
          return true;
        }
        close(f);
      } else if (passes && h !== null) {
        f.open = true;
        h.severity = severityOf(h);
        ctx.alert('open', build(f));
        return true;
      } else if (flips === 0) {
        f.hot = null;
      }
      const end = boundary * o.stepMs;
      const empty = f.ring.sum(boundary, W_OK) === 0 && f.ring.sum(boundary, W_CONFLICT) === 0;
      return !(empty && f.hot === null && end - f.lastWriteTs > o.windowMs);
    }

    function close(f: Fight): void {
      f.open = false;
      // The next episode must be earned by new flips, not by this one's tail still in the window.
      f.ring.clear();
      if (f.writers !== null) for (const wr of f.writers.values()) wr.clear();
      const fd = build(f);
      ctx.alert('close', fd);
      ctx.emit(fd, f.born);
      f.hot = null;
    }

    function ranked(h: Hot): MemberStats[] {
      return [...h.members.values()].sort((a, b) => b.writes - a.writes || b.attempts - a.attempts || (a.actor.key < b.actor.key ? -1 : a.actor.key > b.actor.key ? 1 : 0));
    }

    /** The subresource one side writes exclusively while another side writes only other parts, or null. */
    function splitOf(members: MemberStats[]): { split: boolean; which: string | null } {
      const [a, b] = members;
      if (a === undefined || b === undefined) return { split: false, which: null };
      const overlap = [...a.subresources].some((s) => b.subresources.has(s));
      if (overlap) return { split: false, which: null };
      const subs = [...a.subresources, ...b.subresources].filter((s) => s !== 'main').sort();
      return { split: true, which: subs.length > 0 ? subs.join(',') : null };
    }

    /** True when the two busiest actors ping-pong the resourceVersion (see `rvPingPong`). */
    function pingPong(members: MemberStats[]): boolean {
      if (!o.rvPingPong) return false;
      const [a, b] = members;
      if (a === undefined || b === undefined) return false;
      return [a, b].every((m) => m.handoffs > 0 && m.handoffs >= o.minHandoffShare * m.writes);
    }

    /** True when the episode shows that the writes undo each other (see `requireEvidence`). */
    function evidenced(h: Hot): boolean {
      const members = ranked(h);
      if (members.filter((m) => m.reverts > 0).length >= 2) return true;
      if (pingPong(members)) return true;
      const { split, which } = splitOf(members);
      if (!split || which === null || bodiesShowNoRevert(members)) return false;
      return o.includeStatusVsMain || which.split(',').some((x) => x !== 'status');
    }

    /**
     * The two busiest actors' request bodies were logged for every successful write and neither
     * re-sent its own earlier body after the other wrote: the bodies, which Metadata level lacks,
     * show that no side puts back what the other changed (a GitOps apply that does not set
     * `spec.replicas` beside an HPA's `/scale` writes), so the subresource split is no evidence.
     */
    function bodiesShowNoRevert(members: MemberStats[]): boolean {
      const [a, b] = members;
      return a !== undefined && b !== undefined && a.writes > 0 && b.writes > 0 && a.bodies === a.writes && b.bodies === b.writes && a.reverts === 0 && b.reverts === 0;
    }

    function build(f: Fight): Finding {
      const h = f.hot as Hot;
      const members = ranked(h);
      const { split, which } = splitOf(members);
      const durationMs = Math.max(0, h.to - h.from);
      const share = trafficShare(ctx.series, h.from, h.to, h.attempts);
      const p50 = h.flipGaps.percentile(50);
      const p90 = h.flipGaps.percentile(90);
      let excess = 0;
      for (const m of members) excess += Math.max(0, m.attempts - 1);
      const reverters = members.filter((m) => m.reverts > 0).length;
      const rvPing = pingPong(members);
      const name = (m: MemberStats): string => actorName(m.actor);
      const reaction50 = h.reactions.percentile(50);

      const signals = ['alternating-writers'];
      if (split) signals.push('subresource-split');
      if (split && which === 'scale') signals.push('scale-vs-spec');
      if (f.domain === 1) signals.push('status-fight');
      if (reverters >= 2) signals.push('reverts');
      if (rvPing) signals.push('rv-ping-pong');
      if (h.conflicts > 0) signals.push('conflicts');

      const metrics: Finding['metrics'] = {
        alternations: h.flips,
        actorCount: members.length,
        writes: h.writes,
        attempts: h.attempts,
        conflicts: h.conflicts,
        durationMs: Math.round(durationMs),
        flipPeriodP50Ms: p50 === null ? null : round2(p50),
        flipPeriodP90Ms: p90 === null ? null : round2(p90),
        peakFlipsPerMin: round2((h.peakWindowFlips * 60_000) / o.windowMs),
        writesPerActor: members.map((m) => `${name(m)}(${m.writes})`).join(', '),
        fieldManagersPerActor: members.map((m) => `${name(m)}: ${[...m.fieldManagers].sort().join('|') || '-'}`).join('; '),
        subresourcesPerActor: members.map((m) => `${name(m)}: ${[...m.subresources].sort().join('|')}`).join('; '),
        subresourceSplit: split,
        splitSubresource: which,
        domain: f.domain === 1 ? 'status' : 'spec',
        reverts: members.reduce((s, m) => s + m.reverts, 0),
        rvHandoffs: h.handoffs,
        handoffsPerActor: members.map((m) => `${name(m)}(${m.handoffs}/${m.writes})`).join(', '),
        handoffReactionP50Ms: reaction50 === null ? null : round2(reaction50),
        // What the episode was judged a fight on (`requireEvidence`), strongest first.
        evidenceBasis: reverters >= 2 ? 'reverts' : split && which !== null ? 'subresource-split' : rvPing ? 'rv-ping-pong' : 'none',
        excessRequests: excess,
        ...share,
      };

      const shown = members.slice(0, o.maxActorsReported);
      const period = p50 === null ? '' : `, flips a median ${round2(p50 / 1000)} s apart`;
      const who = shown.slice(0, 2).map(name).join(' and ') + (members.length > 2 ? ` (+${members.length - 2})` : '');
      const what = objectLabel(f.object);
      const evidence = h.evidence.evidence(reverters >= 2 ? 'proven' : 'suspected');
      const splitText = split && which !== null ? ` (${which} vs main)` : rvPing ? ' (resourceVersion ping-pong)' : '';
      return {
        id: `write-fight:${shortHash(`${f.key}\u0001${h.from}`)}`,
        kind: 'write-fight',
        severity: h.severity ?? severityOf(h),
        title: `${who} take turns overwriting ${f.domain === 1 ? 'the status of ' : ''}${what}${splitText}: ${int(h.flips)} flips in ${int(Math.round(durationMs / 1000))} s${period}`,
        actors: shown.map((m) => reportActor(m.actor, m.ips, m.fieldManagers)),
        object: { ...f.object },
        window: { from: iso(h.from), to: iso(h.to) },
        metrics,
        signals,
        evidence,
        advice: adviceFor(f, members, split, which, rvPing && reverters < 2 && !(split && which !== null), reaction50, evidence.auditLevel),
        series: { ...h.series.toReport(), labels: { title: 'Writes of all fighting actors and 409s on this object', writes: 'writes/s', conflicts: '409/s' } },
      };
    }

    /**
     * `rvOnly`: the episode rests on the resourceVersion ping-pong alone, so the advice says what
     * that shows, what Metadata level cannot show, and what would confirm it.
     */
    function adviceFor(f: Fight, members: MemberStats[], split: boolean, which: string | null, rvOnly: boolean, reaction50: number | null, auditLevel: string): Advice[] {
      const advice: Advice[] = [];
      const what = objectLabel(f.object);
      const [a, b] = members.map((m) => actorName(m.actor));
      if (rvOnly) {
        const [ma, mb] = members as [MemberStats, MemberStats];
        const resource = f.object.apiGroup === '' ? f.object.resource : `${f.object.resource}.${f.object.apiGroup}`;
        const secret = f.object.apiGroup === '' && f.object.resource === 'secrets';
        const latency = reaction50 === null ? '' : ` a median ${round2(reaction50)} ms`;
        advice.push({
          id: 'confirm-rv-ping-pong',
          text:
            `This rests on the resourceVersion ping-pong alone: ${int(ma.handoffs)} of ${a}'s ${int(ma.writes)} writes and ${int(mb.handoffs)} of ${b}'s ${int(mb.writes)} were PUTs sent${latency} after the other's write, each on the resourceVersion that write produced. ` +
            (auditLevel === 'Metadata'
              ? 'Metadata level does not show which fields each write set, so co-owners of disjoint fields writing on fast timers would look the same. '
              : `The ${auditLevel}-level bodies show no side re-sending its own earlier body, so the sides may write disjoint fields. `) +
            (secret
              ? `To confirm, compare metadata.managedFields of the Secret between writes (kubectl get secret ${f.object.name} -n ${f.object.namespace} -o yaml --show-managed-fields): the two field managers taking the same keys from each other is the fight. A Request-level audit rule for secrets would prove it from the bodies but writes the Secret's data into the audit log.`
              : `To confirm, log writes to ${resource} at Request level (an audit policy rule with level: Request for that resource, verbs update and patch): bodies each side re-sends after the other wrote are then reported as proven reverts.`),
        });
      }
      if (split && which === 'scale') {
        const scaler = members.find((m) => m.subresources.has('scale'));
        const other = members.find((m) => m !== scaler);
        advice.push({
          id: 'one-owner-for-replicas',
          text: `${scaler ? actorName(scaler.actor) : a} sets spec.replicas through /scale while ${other ? actorName(other.actor) : b} writes the whole object back with its own replicas: remove spec.replicas from the manifest (template, Helm values, Kustomize) that ${other ? actorName(other.actor) : b} applies, so only the autoscaler sets it. With server-side apply, stop sending the field so the autoscaler's field manager keeps it.`,
        });
      }
      if (f.domain === 1) {
        advice.push({
          id: 'one-status-writer',
          text: `${a} and ${b} both write the status of ${what}: only the owning controller should write status; others should report through their own conditions (distinct condition types, written with a patch) or their own objects.`,
        });
      } else {
        advice.push({
          id: 'one-owner-per-field',
          text: `${a} and ${b} both set the same fields of ${what}, each undoing the other: decide which one owns them and make the other stop writing them (read them, or exclude them from what it applies).`,
        });
      }
      advice.push({
        id: 'server-side-apply-without-force',
        text: 'Write with server-side apply, a distinct field manager per controller and force=false: a second manager claiming an owned field then gets 409 FieldManagerConflict and the fight becomes visible instead of silently flipping the value.',
      });
      const gitops = members.some((m) =>
        /argocd|kustomize-controller|helm-controller|flux/i.test(`${m.actor.userAgentProduct} ${m.actor.username} ${[...m.fieldManagers].join(' ')}`),
      );
      if (gitops) {
        advice.push({
          id: 'gitops-ignore-differences',
          text: 'A GitOps controller is one side: exclude the fields the other controller owns from sync (Argo CD ignoreDifferences with RespectIgnoreDifferences=true; Flux: drop them from the Kustomization or patch them out) so each sync stops reverting them.',
        });
      }
      return advice;
    }

    return windowedInstance(o, {
      judge(at: number): void {
        for (const f of fights.values()) if (!evaluate(f, at)) fights.delete(f.key);
        firstWrites?.expire(at * o.stepMs);
      },
      onRecord(r: RequestRecord): void {
        // Writes that can overwrite another client's fields.
        if (!isObjectWrite(r)) return;
        const key = keyOf(r.object as ObjectRef);
        if (firstWrites !== null && !fights.has(key)) {
          const first = firstWrites.take(key, r);
          if (first === undefined) return;
          if (first !== null) {
            onWrite(first);
            const f = fights.get(key) as Fight;
            if (!catchUp(o, first.ts, r.ts, (b) => evaluate(f, b))) fights.delete(key);
          }
        }
        onWrite(r);
      },
      finish(): void {
        for (const f of fights.values()) if (f.open) close(f);
        fights.clear();
        firstWrites?.clear();
      },
      stateSize: () => fights.size + (role === 'objects' ? 0 : (firstWrites?.size ?? 0)),
    });
  },
});
