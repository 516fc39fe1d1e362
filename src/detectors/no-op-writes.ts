/**
 * `no-op-writes`: one actor keeps writing one object without changing anything that matters.
 * Where `hot-loop` says "too often", this says "for nothing"; an operator that rewrites an
 * identical status on every reconcile is both, and both findings are expected.
 *
 * Per (actor, object incl. subresource) it judges each successful (2xx) update/patch:
 *
 * **Proven** no-ops (`evidence.level: proven`), strongest first:
 * 1. `unchanged-resource-version`: an update answered (RequestResponse level) with the
 *    resourceVersion it sent, or any write answered with the resourceVersion the object was last
 *    seen answering with. kube-apiserver skips byte-identical writes and returns the old
 *    resourceVersion (`kubernetes/apiserver` `pkg/storage/etcd3/store.go` `GuaranteedUpdate`;
 *    reference `audit-formats.md` §4a), and resourceVersions never go back, so equality means
 *    nothing was stored.
 * 2. The same at Metadata level: two successive successful updates by the actor that both sent
 *    resourceVersion R. The second succeeded, so the object was still at R, so the first stored
 *    nothing (§4a "How to detect a no-op in audit data": the precondition is checked before the
 *    write, `registry.Store.Update`). This is equality of resourceVersions, not timing, so it is
 *    proven too; the earlier write is the no-op, credited when the later one is seen.
 * 3. `identical-body` / `timestamp-churn`: at Request level and above, a write whose body digest
 *    (`src/decoding/body.ts`: content without volatile metadata and timestamp fields) equals that of
 *    the actor's previous successful write to the object, with no other successful write to the
 *    object (any subresource) and no 409 for the actor in between. Equal timestamps too:
 *    identical; different: the write only moved timestamps (`churnFields` names which). Such writes do store a new
 *    resourceVersion and wake every watcher, so they are not no-ops to etcd, but they change
 *    nothing a reader acts on.
 *
 * **Changed** (evidence against a no-op): at Metadata level, an update that sends a
 * resourceVersion other than the one the actor's previous successful update sent, with no
 * other successful write to the object and no 409 for the actor in between. Only the previous
 * write can have moved the resourceVersion, so it stored a change (rule 2's converse).
 *
 * **Suspected** (`evidence.level: suspected`), when no body or response is logged: successful
 * writes to a `/status` subresource whose gap to the previous write is within `steadyTolerance`
 * of the gap before it (a timer, e.g. `RequeueAfter`), with no other successful write to the
 * object and no 409 Conflict for this writer in between (either means the object changed under
 * it: a reason to write). Status writers report observed
 * state and have nothing to say on a timer unless something changed; heartbeats belong in
 * Leases. Timing cannot prove it, so suspected findings are capped at `suspectedMaxSeverity`,
 * and any proof of change clears it: a window holding a *changed* write of the pair is never
 * suspected (so updates that send resourceVersions are judged by resourceVersions alone; what
 * stays suspected is what has no such evidence, typically patches without bodies). Writes
 * closer together than `suspectedMinPeriodMs` are left to `hot-loop`, which reports such rates
 * with proof (the writes themselves): a suspected no-op on the same pair would add nothing.
 *
 * Per pair, a ring of `windowMs / stepMs` step counters holds successful writes, proven no-ops,
 * steady writes and changed writes; an **episode** opens at the first step boundary whose window
 * holds at least `minNoOpWrites` proven no-ops making at least `minNoOpShare` of the writes (or,
 * failing that, as many steady writes and no changed write: suspected), and closes at the
 * first boundary where neither holds. It is upgraded from suspected to proven if proven evidence
 * later passes. Objects in `ignoreResources`
 * (Leases: renewing `renewTime` is their purpose) are skipped.
 *
 * **Per identity, per client.** Pairs, windows, episodes and findings belong to one identity
 * (username) and object: controllers of one binary that share a service account and each set
 * their own userAgent are one writer (cert-manager#6714), and the finding breaks its writes down by
 * userAgent (`userAgents`) and names the busiest. The proofs compare a write with the identity's
 * previous write to the object, whichever of its clients sent it: with no other identity's write in
 * between, only that write can have moved the resourceVersion or set the stored body, so the
 * proofs hold across clients as they do within one. Steadiness stays per client (userAgent): a
 * period is one client's timer, and a gap from one client's write to another's measures nothing;
 * any write to the object since the client's own previous write, its identity's other clients'
 * included, clears it as above. Two programs under one username (`system:admin`) are one finding
 * whose breakdown tells them apart.
 *
 * **Actor-level roll-up** (`rollup.ts`): a controller that rewrites each of many objects unchanged
 * on every resync (knative#13204, otel-operator#3002) writes each too rarely for `minNoOpWrites`.
 * Per identity × resource (× subresource) the proven no-ops of objects without an episode of
 * their own are summed and judged with the same window, `minNoOpWrites` and `minNoOpShare`, with
 * at least `rollupMinObjects` objects; only writes that follow the identity's previous write to
 * the object by less than `rollupMaxPeriodMs` (2 min) count, so periodic re-assertion every 3
 * minutes or slower (GitOps server-side apply) stays out. Never suspected.
 *
 * Impact: `excessRequests` = the no-op writes (each could have been skipped), shares of all writes
 * and requests in the episode's steps. Severity: the higher of the rank of the no-op writes'
 * share of all writes and the rank of their rate, against `severity`.
 */
import { z } from 'zod';
import { changedTimestampFields } from '../decoding/body.js';
import type { Actor, BodyDigest, ObjectRef, RequestRecord } from '../decoding/record.js';
import { isConflict } from '../decoding/record.js';
import type { Advice, Finding, Severity } from '../report/schema.js';
import { SEVERITIES, SeveritySchema } from '../report/schema.js';
import { reportObject } from '../engine/aggregates.js';
import { objectLabel } from '../labels.js';
import { formatDurationMs as formatDuration } from '../report/format.js';
import { BoundedSample } from '../engine/sample.js';
import { KindMasks } from '../engine/filters.js';
import {
  actorName,
  addSourceIP,
  EpisodeSeries,
  firstWritesFor,
  Identities,
  int,
  iso,
  isObjectWrite,
  PairMap,
  ratio,
  reportActor,
  round2,
  shortHash,
  StepRing,
  UserAgentCounts,
} from './common.js';
import { trafficShare, writeShare } from './impact.js';
import type { DetectorContext } from './types.js';
import { defineDetector } from './types.js';
import { Rollup, rollupFields, rollupKey, topObjects, type RollupMember } from './rollup.js';
import { catchUp, evidenceFields, raiseSeverity, RATE, severityFor, severityOption, SHARE, windowedInstance, windowedOptions, windowFields } from './window.js';

export const noOpWritesOptions = windowedOptions({
  /** Sliding window 5 min, step 30 s: long, because a useless write every 30 s is still useless. */
  ...windowFields(300_000, 30_000),
  /** No-op writes in one window needed to open an episode (10 in 5 min: a 30 s timer). */
  minNoOpWrites: z.number().int().positive().default(10),
  /** No-op writes / the actor's successful writes to the object in the window (0..1). */
  minNoOpShare: z.number().min(0).max(1).default(0.5),
  /** Report steady /status writers without body evidence as suspected. */
  suspectSteadyStatusWrites: z.boolean().default(true),
  /** A gap within this fraction of the previous gap is "steady" (0..1). */
  steadyTolerance: z.number().min(0).max(1).default(0.1),
  /**
   * Steady writes closer together than this (ms) are not suspected: at 2/s or faster a pair
   * gains at least one excess write per second on `hot-loop`'s score (its `changeWritesPerSec`
   * budget is 1/s), so `hot-loop` reports it with proof, the writes themselves, once that score
   * reaches its `minExcessWrites`.
   */
  suspectedMinPeriodMs: z.number().nonnegative().default(500),
  /**
   * Resources (`resource[.group]`) whose steady `/status` writes are never suspected: a Node's
   * conditions carry `lastHeartbeatTime`, which the kubelet and node-problem-detector refresh on
   * a timer by API design (core/v1 NodeCondition), so a steady node-status writer is a heartbeat,
   * not a sign of no-op writes. Proven no-ops are still judged.
   */
  suspectedIgnoreResources: z.array(z.string()).default(['nodes']),
  /** Highest severity a suspected finding may get. */
  suspectedMaxSeverity: SeveritySchema.default('low'),
  /** Resources never judged (`resource[.group]`): writers for whom a timestamp is the point. */
  ignoreResources: z.array(z.string()).default(['leases.coordination.k8s.io']),
  /** A pair with an empty window and no write for this long is forgotten, ms. */
  idleMs: z.number().int().positive().default(600_000),
  /** Sample auditIDs kept as evidence, besides the last; distinct source IPs listed per actor. */
  ...evidenceFields(),
  /** The actor-level roll-up (see the file header). */
  ...rollupFields(),
  /**
   * A proven no-op counts in the actor-level roll-up only when its object was written by the
   * identity less than this long before (ms). 2 min: twice the slowest no-op loop in the
   * reference catalogue (VictoriaMetrics#1418 and grafana-operator#808 rewrite Deployments
   * unchanged every minute; otel-operator#3002 every 15–30 s, temporal#415 every 10 s), so a
   * one-minute loop counts with a reconcile's latency and jitter on top; and below the 3-minute
   * period of GitOps re-assertion (Argo CD's refresh, the server-side apply look-alike), which
   * stays out however many objects it covers, as do informer resyncs of hours.
   */
  rollupMaxPeriodMs: z.number().int().positive().default(120_000),
  severity: severityOption(
    {
      /** No-op writes' share of all writes in the episode's window (0..1). */
      share: SHARE,
      /** No-op writes per second over the episode. */
      noOpWritesPerSec: RATE,
    },
    {
      critical: { share: 0.5, noOpWritesPerSec: 20 },
      high: { share: 0.2, noOpWritesPerSec: 5 },
      medium: { share: 0.05, noOpWritesPerSec: 1 },
    },
  ),
});

export type NoOpWritesOptions = z.output<typeof noOpWritesOptions>;

/** The object a write lands on, across subresources (they share one resourceVersion). */
interface ObjState {
  /** Successful update/patch writes seen, by anyone, to any subresource. */
  okWrites: number;
  /** resourceVersion of the last successful write's logged response; `''` when unknown. */
  knownRV: string;
  /** Pairs referring to this state. */
  refs: number;
}

interface Hot {
  from: number;
  to: number;
  /** Successful writes since `from`, and as of `to`. */
  writes: number;
  toWrites: number;
  noOps: number;
  unchangedRV: number;
  identical: number;
  timestampOnly: number;
  steady: number;
  churn: Set<string>;
  gaps: BoundedSample;
  auditIDs: string[];
  lastAuditID: string;
  /** Audit level of the last evidence. */
  level: string;
  ips: Set<string>;
  ipSeen: Set<string> | null;
  ipCount: number;
  fieldManagers: Set<string>;
  /** Writes per userAgent of the identity, marked as of `toWrites`. */
  userAgents: UserAgentCounts;
  proven: boolean;
  severity: Severity | null;
  /**
   * Per bucket: line 0 writes up to `toWrites`, 1 proven no-ops, 2 steady writes, 3 writes after
   * `toWrites` (moved into line 0 when a later write counts), for the report.
   */
  series: EpisodeSeries;
}

/** Timing of one client (userAgent) of an identity on one object, for steadiness. */
interface Clock {
  /** `requestReceivedTimestamp` of the client's previous successful write, ms, or -1. */
  prevReceived: number;
  /** Gap before that write, ms, or -1. */
  prevGap: number;
  /** `obj.okWrites` right after that write (-1 after a 409 for the client). */
  objSeq: number;
}

/** An identity's roll-up on one resource, with the kinds of proof of its no-ops. */
class NoOpRollup extends Rollup {
  unchangedRV = 0;
  identical = 0;
  timestampOnly = 0;
  churn = new Set<string>();

  override reset(): void {
    super.reset();
    this.unchangedRV = 0;
    this.identical = 0;
    this.timestampOnly = 0;
    this.churn = new Set();
  }
}

interface Pair extends RollupMember {
  roll: NoOpRollup | null;
  /** The actor standing for the identity (see `Identities`). */
  actor: Actor;
  object: ObjectRef;
  obj: ObjState;
  objKey: string;
  /** Per step: 0 successful writes, 1 proven no-ops, 2 steady writes, 3 writes proven to have changed the object. */
  ring: StepRing;
  lastWriteTs: number;
  /** The identity's previous successful write, by any of its clients. */
  prevTs: number;
  prevActor: Actor;
  prevBody: BodyDigest | null;
  prevAuditID: string;
  prevLevel: string;
  /** resourceVersion the previous successful write sent, if it was an update; else `''`. */
  prevUpdateRV: string;
  /** The previous write was already counted as a no-op. */
  prevMarked: boolean;
  /** `obj.okWrites` right after the previous write. */
  objSeq: number;
  /** Timing of the client `actor`, and of the identity's other clients (made on first need). */
  clock: Clock;
  clocks: Map<Actor, Clock> | null;
  hot: Hot | null;
  open: boolean;
  /** Its rank among the pairs of other object shards (`ShardPlacement.birth`; 0 when not sharded). */
  born: number;
}

type Mark = 'rv' | 'identical' | 'timestamps' | null;

/** Lines of a roll-up's ring: writes counted, proven no-ops. */
const R_WRITE = 0;
const R_NOOP = 1;

const N_WRITE = 0;
const N_NOOP = 1;
const N_STEADY = 2;
const N_CHANGED = 3;

/** Lines of `Hot.series`. */
const S_WRITE = 0;
const S_NOOP = 1;
const S_STEADY = 2;
const S_PENDING = 3;

export const noOpWrites = defineDetector({
  meta: {
    id: 'no-op-writes',
    description: 'One actor writes one object again and again without changing it (unchanged resourceVersion, identical bodies, or only timestamps changed).',
    optionsSchema: noOpWritesOptions,
    judges: 'write-rate',
    // Pairs and objects are per object; the identity table, the held first writes and the roll-ups, which span objects, are shared by the shards, and the roll-ups judged by the cross instance.
    byObject: 'objects+cross',
  },
  create(ctx: DetectorContext<NoOpWritesOptions>) {
    const o = ctx.options;
    /** `all` when not sharded; else what this instance judges (see `ShardPlacement.role`). */
    const role = ctx.placement?.role ?? 'all';
    const shared = ctx.placement ? ctx.placement.shared.bind(ctx.placement) : <T>(_name: string, make: () => T): T => make();
    const n = o.windowMs / o.stepMs;
    const ignored = new Set(o.ignoreResources);
    /** Whether a kind is in `ignoreResources`, cached per kind (the name built per write was this detector's largest cost). */
    const ignoredKinds = new KindMasks<boolean>();
    const unsuspected = new Set(o.suspectedIgnoreResources);
    /** Whether a kind is in `suspectedIgnoreResources`, cached per kind. */
    const unsuspectedKinds = new KindMasks<boolean>();
    function isUnsuspected(ob: ObjectRef): boolean {
      if (unsuspected.size === 0) return false;
      let no = unsuspectedKinds.kind(ob);
      if (no === undefined) {
        no = unsuspected.has(ob.apiGroup ? `${ob.resource}.${ob.apiGroup}` : ob.resource);
        unsuspectedKinds.setKind(ob, no);
      }
      return no;
    }
    /** Live (object, actor) pairs; `evaluate` says when one is idle and can go. */
    const pairs = new PairMap<Pair>();
    /** The pairs of every object shard, for the roll-ups' busiest objects (this instance's alone when not sharded). */
    const allPairs = shared('pairs', (): Array<PairMap<Pair>> => []);
    if (role !== 'cross') allPairs.push(pairs);
    /** Every pair of the detector (of every shard). */
    function* everyPair(): Generator<Pair> {
      for (const m of allPairs) yield* m;
    }
    /** Roll-ups by identity × resource (`rollupKey`). */
    const rollups = shared('rollups', () => new Map<string, NoOpRollup>());
    /** The boundary judged last. */
    let judged = -Infinity;
    /** Pairs are keyed by identity (username), not by username + userAgent. */
    const identities = shared('identities', () => new Identities());
    const objects = new Map<string, ObjState>();
    /**
     * First successful writes of objects (across subresources, by `objKey`) no pair holds, while
     * one write cannot open an episode. A pair with one write is dropped once a window and
     * `idleMs` passed.
     */
    // One table for every object shard: held writes take room in the order of all objects' writes.
    const firstWrites = shared('firstWrites', () => firstWritesFor<string>(ctx, o.minNoOpWrites >= 2, Math.max(o.windowMs + o.stepMs, o.idleMs) + o.stepMs, (k) => k));

    /** The key of the object a write lands on, across subresources. */
    function objKeyOf(ob: ObjectRef): string {
      return ob.subresource === '' ? ob.key : ob.key.slice(0, ob.key.length - ob.subresource.length);
    }

    /** The pair of a write that was held (`first`, if any), made now and judged up to `nowTs`. */
    function promote(first: RequestRecord | undefined, nowTs: number): void {
      if (first === undefined) return;
      onWrite(first);
      const p = pairs.get(first.object as ObjectRef, identities.of(first.actor)) as Pair;
      if (!catchUp(o, first.ts, nowTs, (b) => evaluate(p, b))) pairs.delete(p);
    }

    /** Updates and patches of one named object that persist, outside `ignoreResources`. */
    function isWatched(r: RequestRecord): boolean {
      if (!isObjectWrite(r)) return false;
      const ob = r.object as ObjectRef;
      if (ignored.size === 0) return true;
      let no = ignoredKinds.kind(ob);
      if (no === undefined) {
        no = ignored.has(ob.apiGroup ? `${ob.resource}.${ob.apiGroup}` : ob.resource);
        ignoredKinds.setKind(ob, no);
      }
      return !no;
    }

    /** The timing of `r`'s client in its pair. */
    function clockOf(p: Pair, a: Actor): Clock {
      if (a === p.actor) return p.clock;
      p.clocks ??= new Map();
      let c = p.clocks.get(a);
      if (c === undefined) {
        c = { prevReceived: -1, prevGap: -1, objSeq: p.obj.okWrites };
        p.clocks.set(a, c);
      }
      return c;
    }

    function pairOf(r: RequestRecord): Pair {
      const ob = r.object as ObjectRef;
      const who = identities.of(r.actor);
      const known = pairs.get(ob, who);
      if (known !== undefined) return known;
      const objKey = objKeyOf(ob);
      let obj = objects.get(objKey);
      if (obj === undefined) {
        obj = { okWrites: 0, knownRV: '', refs: 0 };
        objects.set(objKey, obj);
      }
      obj.refs++;
      return pairs.add({
        actor: who,
        object: ob,
        obj,
        objKey,
        ring: new StepRing(n, 4),
        lastWriteTs: r.ts,
        prevTs: -1,
        prevActor: who,
        prevBody: null,
        prevAuditID: '',
        prevLevel: '',
        prevUpdateRV: '',
        prevMarked: false,
        objSeq: obj.okWrites,
        clock: { prevReceived: -1, prevGap: -1, objSeq: obj.okWrites },
        clocks: null,
        hot: null,
        open: false,
        roll: rollupOf(who, ob, r.ts),
        rollGen: -1,
        rolled: 0,
        born: ctx.placement?.birth() ?? 0,
      });
    }

    /** The roll-up of `who` on `ob`'s resource, made on first need; null when the roll-up is off. */
    function rollupOf(who: Actor, ob: ObjectRef, ts: number): NoOpRollup | null {
      if (o.rollupMinObjects === 0) return null;
      const key = rollupKey(who, ob);
      let g = rollups.get(key);
      if (g === undefined) {
        g = new NoOpRollup(key, who, ob, n, 2, o, ts);
        rollups.set(key, g);
      }
      return g;
    }

    function newHot(r: RequestRecord, from = r.ts): Hot {
      return {
        from,
        to: r.ts,
        writes: 0,
        toWrites: 0,
        noOps: 0,
        unchangedRV: 0,
        identical: 0,
        timestampOnly: 0,
        steady: 0,
        churn: new Set(),
        gaps: new BoundedSample(),
        auditIDs: [],
        lastAuditID: r.auditID,
        level: r.level,
        ips: new Set(),
        ipSeen: null,
        ipCount: 0,
        fieldManagers: new Set(),
        userAgents: new UserAgentCounts(),
        proven: false,
        severity: null,
        series: new EpisodeSeries(o.stepMs, undefined, 4),
      };
    }

    /** A proven no-op (write `auditID` at `ts`, of kind `mark`), seen at record `r`, into the hot state. */
    function noOp(p: Pair, r: RequestRecord, mark: Exclude<Mark, null>, auditID: string, level: string, ts: number): void {
      if (p.hot === null) {
        p.hot = newHot(r, ts);
        // The episode starts at the earlier write credited (rule 2): it is one of its writes.
        if (auditID !== r.auditID) {
          p.hot.writes = 1;
          p.hot.toWrites = 1;
          p.hot.userAgents.add(p.prevActor);
          p.hot.userAgents.mark();
          p.hot.series.bump(ts, S_WRITE);
        }
      }
      const h = p.hot;
      h.noOps++;
      h.series.bump(ts, S_NOOP);
      if (mark === 'rv') h.unchangedRV++;
      else if (mark === 'identical') h.identical++;
      else h.timestampOnly++;
      if (h.auditIDs.length < o.evidenceSamples && !h.auditIDs.includes(auditID)) h.auditIDs.push(auditID);
      h.lastAuditID = auditID;
      h.level = level;
      h.to = Math.max(h.to, ts);
    }

    function onWrite(r: RequestRecord): void {
      const p = pairOf(r);
      const obj = p.obj;
      p.lastWriteTs = r.ts;
      const b = Math.floor(r.ts / o.stepMs);
      p.ring.add(b, N_WRITE);

      const intervening = obj.okWrites !== p.objSeq;
      const clock = clockOf(p, r.actor);
      const gap = clock.prevReceived >= 0 ? Math.max(0, r.receivedTs - clock.prevReceived) : -1;
      let found = 0;

      // Metadata level: this update succeeded with the RV the previous one sent.
      if (r.verb === 'update' && r.resourceVersion !== '' && r.resourceVersion === p.prevUpdateRV && !p.prevMarked) {
        noOp(p, r, 'rv', p.prevAuditID, p.prevLevel, p.prevTs);
        found++;
      } else if (r.verb === 'update' && r.resourceVersion !== '' && p.prevUpdateRV !== '' && !intervening) {
        // It sent another RV, and nobody else wrote in between: the previous update stored a change.
        p.ring.add(b, N_CHANGED);
      }
      let mark: Mark = null;
      let churn: string[] = [];
      const rrv = r.responseResourceVersion;
      if (rrv !== '' && ((r.verb === 'update' && rrv === r.resourceVersion) || rrv === obj.knownRV)) mark = 'rv';
      else if (r.body !== null && p.prevBody !== null && !intervening && r.body.content === p.prevBody.content) {
        churn = changedTimestampFields(p.prevBody, r.body);
        mark = churn.length > 0 ? 'timestamps' : 'identical';
      }
      if (mark !== null) {
        noOp(p, r, mark, r.auditID, r.level, r.ts);
        for (const f of churn) p.hot?.churn.add(f);
        found++;
      }
      p.ring.add(b, N_NOOP, found);

      // The object has no episode of its own and was written again within rollupMaxPeriodMs:
      // the write, and its no-ops, count in the identity's roll-up on the resource.
      const g = p.roll;
      if (g !== null && !p.open && p.prevTs >= 0 && r.ts - p.prevTs < o.rollupMaxPeriodMs) {
        g.write(r, false);
        // A held first write older than the window judged last would take a live step's slot.
        if (b >= judged - n) {
          g.ring.add(b, R_WRITE);
          g.ring.add(b, R_NOOP, found);
        }
        if (found > 0) {
          // Rule 2 credits the previous write; the others this one.
          const credited = mark === null;
          g.contribute(p, found, credited ? p.prevAuditID : r.auditID, credited ? p.prevLevel : r.level);
          g.unchangedRV += found - (mark !== null ? 1 : 0) + (mark === 'rv' ? 1 : 0);
          if (mark === 'identical') g.identical++;
          else if (mark === 'timestamps') {
            g.timestampOnly++;
            for (const f of churn) g.churn.add(f);
          }
        }
      }

      const steady =
        o.suspectSteadyStatusWrites &&
        mark === null &&
        r.body === null &&
        p.object.subresource === 'status' &&
        !isUnsuspected(p.object) &&
        obj.okWrites === clock.objSeq &&
        gap >= 0 &&
        gap >= o.suspectedMinPeriodMs &&
        clock.prevGap >= 0 &&
        Math.abs(gap - clock.prevGap) <= o.steadyTolerance * clock.prevGap;
      if (steady) {
        p.ring.add(b, N_STEADY);
        if (p.hot === null) p.hot = newHot(r);
        const h = p.hot;
        h.steady++;
        h.series.bump(r.ts, S_STEADY);
        if (!h.proven) {
          if (h.auditIDs.length < o.evidenceSamples) h.auditIDs.push(r.auditID);
          h.lastAuditID = r.auditID;
          h.level = r.level;
        }
        h.to = r.ts;
      }

      const h = p.hot;
      if (h !== null) {
        h.writes++;
        h.userAgents.add(r.actor);
        h.series.bump(r.ts, S_PENDING);
        if (found > 0 || steady) {
          h.toWrites = h.writes;
          h.userAgents.mark();
          h.series.move(S_PENDING, S_WRITE);
        }
        if (gap >= 0) h.gaps.add(gap);
        if (r.fieldManager) h.fieldManagers.add(r.fieldManager);
        addSourceIP(h, r.sourceIP, o.maxSourceIPs);
      }

      obj.okWrites++;
      obj.knownRV = rrv;
      p.objSeq = obj.okWrites;
      clock.objSeq = obj.okWrites;
      clock.prevReceived = r.receivedTs;
      clock.prevGap = gap;
      p.prevTs = r.ts;
      p.prevActor = r.actor;
      p.prevBody = r.body;
      p.prevAuditID = r.auditID;
      p.prevLevel = r.level;
      p.prevUpdateRV = r.verb === 'update' ? r.resourceVersion : '';
      p.prevMarked = mark !== null;
    }

    /** Judge the window ending at `boundary * stepMs` for one pair. Returns false to drop it. */
    function evaluate(p: Pair, boundary: number): boolean {
      const w = p.ring.sum(boundary, N_WRITE);
      const nz = p.ring.sum(boundary, N_NOOP);
      const st = p.ring.sum(boundary, N_STEADY);
      const changed = p.ring.sum(boundary, N_CHANGED);
      const proven = nz >= o.minNoOpWrites && nz >= o.minNoOpShare * w;
      // Proof that the pair's writes change the object clears suspicion (not proven no-ops).
      const suspected = changed === 0 && st >= o.minNoOpWrites && st >= o.minNoOpShare * w;
      const h = p.hot;
      if (p.open) {
        if (proven || suspected) {
          const hh = h as Hot;
          const upgrade = proven && !hh.proven;
          if (upgrade) hh.proven = true;
          const sev = severityOf(hh);
          // Proof replaces the suspected (capped) severity, whichever ranks higher.
          if (upgrade) hh.severity = sev;
          if (upgrade || raiseSeverity(hh, sev)) ctx.alert('update', build(p));
          return true;
        }
        close(p);
      } else if (h !== null && (proven || suspected)) {
        p.open = true;
        p.roll?.withdraw(p);
        h.proven = proven;
        h.severity = severityOf(h);
        ctx.alert('open', build(p));
        return true;
      } else if (nz === 0 && (st === 0 || changed > 0)) {
        p.hot = null;
      }
      const end = boundary * o.stepMs;
      if (w === 0 && p.hot === null && end - p.lastWriteTs > o.idleMs) {
        if (--p.obj.refs === 0) objects.delete(p.objKey);
        return false;
      }
      return true;
    }

    function close(p: Pair): void {
      p.open = false;
      p.ring.clear();
      const f = build(p);
      ctx.alert('close', f);
      ctx.emit(f, p.born);
      p.hot = null;
    }

    /** Judge the window ending at `boundary * stepMs` for one roll-up (proven no-ops only). Returns false to drop it. */
    function evaluateRollup(g: NoOpRollup, boundary: number): boolean {
      const w = g.ring.sum(boundary, R_WRITE);
      const nz = g.ring.sum(boundary, R_NOOP);
      const proven = nz >= o.minNoOpWrites && nz >= o.minNoOpShare * w;
      if (g.open) {
        if (proven) {
          if (raiseSeverity(g, rollupSeverity(g))) ctx.alert('update', buildRollup(g));
          return true;
        }
        closeRollup(g);
      } else if (g.busy && proven && g.objects >= o.rollupMinObjects) {
        g.open = true;
        g.severity = rollupSeverity(g);
        ctx.alert('open', buildRollup(g));
        return true;
      } else if (g.busy && nz === 0) g.reset();
      return !(w === 0 && !g.busy && boundary * o.stepMs - g.lastTs > o.idleMs);
    }

    function closeRollup(g: NoOpRollup): void {
      const f = buildRollup(g);
      ctx.alert('close', f);
      ctx.emit(f);
      g.ring.clear();
      g.reset();
    }

    function rollupSeverity(g: NoOpRollup): Severity {
      const count = Math.round(g.score);
      const d = g.to - g.from;
      return severityFor(o.severity, { share: writeShare(ctx.series, g.from, g.to, count), noOpWritesPerSec: d > 0 ? count / (d / 1000) : 0 });
    }

    /** The actor-level finding of a roll-up: no object, the resource and its objects with most no-ops instead. */
    function buildRollup(g: NoOpRollup): Finding {
      const count = Math.round(g.score);
      const durationMs = Math.max(0, g.to - g.from);
      const churn = [...g.churn].sort();
      const signals = ['many-objects'];
      if (g.unchangedRV > 0) signals.push('unchanged-resource-version');
      if (g.identical > 0) signals.push('identical-body');
      if (g.timestampOnly > 0) signals.push('timestamp-churn');
      const metrics: Finding['metrics'] = {
        resource: g.resource,
        objects: g.objects,
        topObjects: topObjects(g, everyPair(), objectLabel, o.rollupTopObjects),
        writes: g.writes,
        noOpWrites: count,
        noOpShare: ratio(Math.min(count, g.writes), g.writes),
        unchangedRVWrites: g.unchangedRV,
        identicalWrites: g.identical,
        timestampOnlyWrites: g.timestampOnly,
        churnFields: churn.join(','),
        durationMs: Math.round(durationMs),
        noOpWritesPerSec: durationMs > 0 ? round2(count / (durationMs / 1000)) : null,
        excessRequests: count,
        ...trafficShare(ctx.series, g.from, g.to, count),
      };
      const how: string[] = [];
      if (g.unchangedRV > 0) how.push(`${int(g.unchangedRV)} left resourceVersion unchanged`);
      if (g.identical > 0) how.push(`${int(g.identical)} sent an identical body`);
      if (g.timestampOnly > 0) how.push(`${int(g.timestampOnly)} changed only ${churn.join(', ')}`);
      const status = g.sample.subresource === 'status';
      return {
        id: `no-op-writes:${shortHash(`${g.key}\u0001${g.from}`)}`,
        kind: 'no-op-writes',
        severity: g.severity ?? rollupSeverity(g),
        title: `${actorName(g.actor)} rewrote ${int(g.objects)} ${g.resource} objects ${int(g.writes)} times in ${formatDuration(Math.round(durationMs))} and ${int(count)} changed nothing: ${how.join('; ')}`,
        actors: [reportActor(g.actor, g.ips, g.fieldManagers)],
        object: null,
        window: { from: iso(g.from), to: iso(g.to) },
        metrics,
        signals,
        evidence: g.evidence.evidence('proven'),
        advice: [
          {
            id: 'compare-before-write',
            text: `Compare the desired ${status ? 'status' : 'object'} with the current one and skip the write when they are equal (equality.Semantic.DeepEqual, or controllerutil.CreateOrPatch, which sends nothing when the mutate function changed nothing): ${int(g.objects)} objects are rewritten unchanged on every pass.`,
          },
        ],
        series: {
          ...g.series.toReport(g.to),
          labels: { title: 'Writes of this actor on this resource (objects without an episode of their own)', writes: 'writes/s', conflicts: '409s/s' },
        },
      };
    }

    function noOpCount(h: Hot): number {
      return h.proven ? h.noOps : h.steady;
    }

    function severityOf(h: Hot): Severity {
      const count = noOpCount(h);
      const d = h.to - h.from;
      const rate = d > 0 ? count / (d / 1000) : 0;
      let sev = severityFor(o.severity, { share: writeShare(ctx.series, h.from, h.to, count), noOpWritesPerSec: rate });
      if (!h.proven && SEVERITIES.indexOf(sev) > SEVERITIES.indexOf(o.suspectedMaxSeverity)) sev = o.suspectedMaxSeverity;
      return sev;
    }

    function build(p: Pair): Finding {
      const h = p.hot as Hot;
      const count = noOpCount(h);
      const durationMs = Math.max(0, h.to - h.from);
      const p50 = h.gaps.percentile(50);
      const churn = [...h.churn].sort();
      const signals: string[] = [];
      if (h.proven) {
        if (h.unchangedRV > 0) signals.push('unchanged-resource-version');
        if (h.identical > 0) signals.push('identical-body');
        if (h.timestampOnly > 0) signals.push('timestamp-churn');
      } else signals.push('steady-period', 'no-body-logged');

      const metrics: Finding['metrics'] = {
        writes: h.toWrites,
        noOpWrites: count,
        noOpShare: ratio(count, h.toWrites),
        unchangedRVWrites: h.unchangedRV,
        identicalWrites: h.identical,
        timestampOnlyWrites: h.timestampOnly,
        steadyWrites: h.steady,
        churnFields: churn.join(','),
        durationMs: Math.round(durationMs),
        writePeriodP50Ms: p50 === null ? null : round2(p50),
        noOpWritesPerSec: durationMs > 0 ? round2(count / (durationMs / 1000)) : null,
        excessRequests: count,
        ...trafficShare(ctx.series, h.from, h.to, count),
        // Several clients of one identity (its userAgents), with their writes.
        ...h.userAgents.report(true),
      };

      const auditIDs = [...h.auditIDs];
      if (!auditIDs.includes(h.lastAuditID)) auditIDs.push(h.lastAuditID);
      const named = h.userAgents.top(p.actor, true);
      const who = actorName(named);
      const what = objectLabel(p.object);
      const span = formatDuration(Math.round(durationMs));
      let title: string;
      if (h.proven) {
        const how: string[] = [];
        if (h.unchangedRV > 0) how.push(`${int(h.unchangedRV)} left resourceVersion unchanged`);
        if (h.identical > 0) how.push(`${int(h.identical)} sent an identical body`);
        if (h.timestampOnly > 0) how.push(`${int(h.timestampOnly)} changed only ${churn.join(', ')}`);
        title = `${who} wrote ${what} ${int(h.toWrites)} times in ${span} and ${int(count)} changed nothing: ${how.join('; ')}`;
      } else {
        const every = p50 === null ? '' : ` every ${formatDuration(Math.round(p50))}`;
        title = `${who} writes ${what}${every} with no sign of change (suspected: ${int(count)} of ${int(h.toWrites)} writes evenly spaced, no request bodies logged)`;
      }
      return {
        id: `no-op-writes:${shortHash(`${p.actor.key}\u0001${p.object.key}\u0001${h.from}`)}`,
        kind: 'no-op-writes',
        severity: h.severity ?? severityOf(h),
        title,
        actors: [reportActor(named, h.ips, h.fieldManagers)],
        object: reportObject(p.object),
        window: { from: iso(h.from), to: iso(h.to) },
        metrics,
        signals,
        evidence: {
          auditIDs,
          firstAuditID: auditIDs[0] as string,
          lastAuditID: h.lastAuditID,
          auditLevel: h.level,
          level: h.proven ? 'proven' : 'suspected',
        },
        advice: adviceFor(p, h, churn),
        series: {
          ...h.series.toReport(Infinity, S_WRITE, h.proven ? S_NOOP : S_STEADY, true),
          labels: { title: 'Writes and no-op writes of this actor on this object', writes: 'writes/s', conflicts: h.proven ? 'no-op writes/s' : 'suspected no-op writes/s' },
        },
      };
    }

    function adviceFor(p: Pair, h: Hot, churn: string[]): Advice[] {
      const status = p.object.subresource === 'status';
      const advice: Advice[] = [
        {
          id: 'compare-before-write',
          text: `Compare the desired ${status ? 'status' : 'object'} with the current one and skip the write when they are equal (equality.Semantic.DeepEqual, or controllerutil.CreateOrPatch, which sends nothing when the mutate function changed nothing).`,
        },
      ];
      if (h.proven && h.unchangedRV + h.identical > 0) {
        advice.push({
          id: 'skip-identical-write',
          text: 'The API server stored nothing for these writes (byte-identical, resourceVersion unchanged), yet each cost a request, admission, validation and an etcd read: check for equality in the client instead.',
        });
      }
      if (churn.length > 0) {
        advice.push({
          id: 'stable-transition-time',
          text: `Only ${churn.join(', ')} changed between writes: set conditions with meta.SetStatusCondition (lastTransitionTime changes only when the condition's status does), and do not stamp time.Now() into status on every reconcile. Each such write bumps resourceVersion and wakes every watcher, the writer included.`,
        });
      }
      if (!h.proven) {
        advice.push({
          id: 'log-request-bodies',
          text: `To prove or clear this, log ${p.object.resource}${p.object.apiGroup ? `.${p.object.apiGroup}` : ''}/${p.object.subresource} at level RequestResponse for a while (an audit policy rule for this resource): auditstorm then compares bodies and resourceVersions.`,
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
        if (!isWatched(r)) return;
        const ok = r.code >= 200 && r.code < 300;
        if (!ok && !isConflict(r)) return;
        const ob = r.object as ObjectRef;
        const who = identities.of(r.actor);
        if (firstWrites !== null && pairs.get(ob, who) === undefined) {
          const objKey = objKeyOf(ob);
          if (!objects.has(objKey)) {
            // A successful write of an object without pairs is held until the object's next one.
            const first = ok ? firstWrites.take(objKey, r) : firstWrites.release(objKey);
            if (ok && first === undefined) return;
            promote(first ?? undefined, r.ts);
          }
        }
        if (ok) onWrite(r);
        else {
          // Someone changed the object under this writer: its next write is not comparable.
          const p = pairs.get(ob, who);
          if (p !== undefined) {
            p.objSeq = -1;
            clockOf(p, r.actor).objSeq = -1;
          }
        }
      },
      finish(): void {
        for (const p of pairs) if (p.open) close(p);
        objects.clear();
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
