/**
 * `create-conflict-storm`: one actor keeps creating objects that already exist, the same names
 * again and again, and gets `409 AlreadyExists` each time: `create` used as an existence probe
 * ("ensure" loops that create first and look later, or that return the AlreadyExists error from
 * Reconcile and so requeue the object to create it again).
 *
 * Only `create` answered 409 with reason `AlreadyExists` counts (`kubernetes/apimachinery`
 * `pkg/api/errors/errors.go` `NewAlreadyExists`); a 409 `Conflict` is an optimistic-lock failure
 * and belongs to `conflict-storm`. `AlreadyExists` is not `errors.IsConflict`, so
 * `retry.RetryOnConflict` does not retry it: repeats come from the caller's own loop or requeue.
 *
 * Per actor a ring of `windowMs / stepMs` step buckets counts create attempts and AlreadyExists
 * answers; per (actor, name) a ring counts AlreadyExists answers. A name is **repeated** in a
 * window when it got at least `minRepeatsPerName` AlreadyExists from the actor. At every step
 * boundary the window ending there is judged: an episode opens when the AlreadyExists answers on
 * repeated names reach `minAlreadyExists`, and closes at the first boundary where they do not.
 * A busy controller that creates many different objects once each (or finds each existing once,
 * after a restart) therefore never opens an episode. Statistics are gathered from the actor's
 * first AlreadyExists after a window without any.
 *
 * **Impact.** `excessRequests`: AlreadyExists creates beyond one per name: one probe per name
 * would have told the actor the object exists (and a cached Get, none). Shares of all writes
 * and requests use the actor's creates in the episode (`trafficShare`).
 *
 * **Per identity.** The actor here is an identity (username): controllers of one binary that
 * share a service account and each set their own userAgent are one creator, and a name probed by
 * two of them is probed twice by the identity. The finding breaks its creates down by userAgent
 * (`userAgents`) and names the busiest. Nothing here is a property of one client's loop (no gaps,
 * no chains), so nothing stays per userAgent; two programs under one username (`system:admin`)
 * are one finding whose breakdown tells them apart. Distinct service accounts sharing a userAgent
 * (kubebuilder's `manager/v0.0.0`) stay distinct identities.
 *
 * This kind counts creates answered AlreadyExists only: a loop that creates a *new* object each
 * time (cert-manager#6714: a new CertificateRequest per pass, 15K and 48K in two clusters) gets
 * 201s and is not reported here.
 *
 * Severity: the higher of the rank of the episode's share of all writes and the rank of its peak
 * AlreadyExists per second, against the `severity` thresholds; `low` below them.
 */
import { z } from 'zod';
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import type { Advice, Finding, Severity } from '../report/schema.js';
import { reportObject } from '../engine/aggregates.js';
import { resourceLabel } from '../labels.js';
import { actorName, EpisodeSeries, EvidenceIDs, Identities, int, iso, median, PeakPerSecond, reportActor, shortHash, StepRing, topList, UserAgentCounts } from './common.js';
import { trafficShare, writeShare } from './impact.js';
import type { DetectorContext } from './types.js';
import { defineDetector } from './types.js';
import { evidenceFields, raiseSeverity, RATE, severityFor, severityOption, SHARE, windowedInstance, windowedOptions, windowFields } from './window.js';

export const createConflictStormOptions = windowedOptions({
  ...windowFields(60_000, 10_000),
  /** AlreadyExists answers on repeated names in one window needed to open an episode. */
  minAlreadyExists: z.number().int().positive().default(20),
  /**
   * AlreadyExists answers for one name in one window that make it a repeated name. 3 a minute:
   * a periodic "ensure" at the controller-runtime default resync (10 h) or even every 30 s
   * stays below it; a create-first loop requeued on error does not.
   */
  minRepeatsPerName: z.number().int().min(2).default(3),
  /** Names tracked per actor; AlreadyExists on further names count in totals only. */
  maxNamesPerActor: z.number().int().positive().default(5000),
  /** Names listed in `topNames`. */
  topNames: z.number().int().positive().default(5),
  /** Sample auditIDs kept as evidence, besides the first and last; distinct source IPs listed per actor. */
  ...evidenceFields(),
  severity: severityOption(
    {
      /** Share of all writes in the episode's window (0..1) at or above which this severity applies. */
      share: SHARE,
      /** Peak AlreadyExists answers per second (1 s buckets) at or above which this severity applies. */
      peakPerSec: RATE,
    },
    {
      critical: { share: 0.5, peakPerSec: 50 },
      high: { share: 0.2, peakPerSec: 10 },
      medium: { share: 0.05, peakPerSec: 2 },
    },
  ),
});

export type CreateConflictStormOptions = z.output<typeof createConflictStormOptions>;

interface NameState {
  /** The object (the first instance seen of its key). */
  obj: ObjectRef;
  ring: StepRing;
  lastTs: number;
  /** AlreadyExists answers in the current episode. */
  episode: number;
}

interface Hot {
  from: number;
  to: number;
  creates: number;
  alreadyExists: number;
  /** AlreadyExists on names beyond `maxNamesPerActor` (not itemised). */
  untracked: number;
  succeeded: number;
  otherErrors: number;
  peak: PeakPerSecond;
  ips: Set<string>;
  fieldManagers: Set<string>;
  /** Creates per userAgent of the identity. */
  userAgents: UserAgentCounts;
  evidence: EvidenceIDs;
  severity: Severity | null;
  /** The actor's creates and 409 AlreadyExists per bucket, for the report. */
  series: EpisodeSeries;
}

interface ActorState {
  /** The actor standing for the identity (see `Identities`). */
  actor: Actor;
  /** Per step: 0 creates, 1 AlreadyExists. */
  ring: StepRing;
  /** By object key (`ObjectRef.key`). */
  names: Map<string, NameState>;
  lastTs: number;
  hot: Hot | null;
  open: boolean;
}

const C_CREATE = 0;
const C_EXISTS = 1;

/** A create of a named object answered 409 AlreadyExists (generateName collisions have no name). */
function isAlreadyExists(r: RequestRecord): boolean {
  return r.code === 409 && r.reason === 'AlreadyExists' && r.object !== null && r.object.name !== '';
}

export const createConflictStorm = defineDetector({
  meta: {
    id: 'create-conflict-storm',
    description: 'One actor keeps creating the same names and gets 409 AlreadyExists: create used as an existence probe.',
    optionsSchema: createConflictStormOptions,
    judges: 'errors',
  },
  create(ctx: DetectorContext<CreateConflictStormOptions>) {
    const o = ctx.options;
    const n = o.windowMs / o.stepMs;
    /** States by identity (the actor `identities` gives), not by username + userAgent. */
    const actors = new Map<Actor, ActorState>();
    const identities = new Identities();

    function stateOf(who: Actor, r: RequestRecord): ActorState {
      let s = actors.get(who);
      if (s === undefined) {
        s = { actor: who, ring: new StepRing(n, 2), names: new Map(), lastTs: r.ts, hot: null, open: false };
        actors.set(who, s);
      }
      return s;
    }

    function newHot(r: RequestRecord): Hot {
      return {
        from: r.ts,
        to: r.ts,
        creates: 0,
        alreadyExists: 0,
        untracked: 0,
        succeeded: 0,
        otherErrors: 0,
        peak: new PeakPerSecond(),
        ips: new Set(),
        fieldManagers: new Set(),
        userAgents: new UserAgentCounts(),
        evidence: new EvidenceIDs(o.evidenceSamples + 1),
        severity: null,
        series: new EpisodeSeries(o.stepMs),
      };
    }

    function onCreate(r: RequestRecord): void {
      const exists = isAlreadyExists(r);
      const who = identities.of(r.actor);
      let s = actors.get(who);
      // Actors are tracked from their first AlreadyExists: plain creates alone never matter.
      if (s === undefined && !exists) return;
      s ??= stateOf(who, r);
      const b = Math.floor(r.ts / o.stepMs);
      s.lastTs = r.ts;
      s.ring.add(b, C_CREATE);
      if (exists && s.hot === null) s.hot = newHot(r);
      const h = s.hot;
      let ns: NameState | undefined;
      if (exists) {
        s.ring.add(b, C_EXISTS);
        const obj = r.object as ObjectRef;
        ns = s.names.get(obj.key);
        if (ns === undefined && s.names.size < o.maxNamesPerActor) {
          ns = { obj, ring: new StepRing(n, 1), lastTs: r.ts, episode: 0 };
          s.names.set(obj.key, ns);
        }
        if (ns !== undefined) {
          ns.ring.add(b, 0);
          ns.lastTs = r.ts;
        }
      }
      if (h === null) return;
      h.creates++;
      h.userAgents.add(r.actor);
      h.series.add(r.ts, exists);
      if (r.sourceIP && h.ips.size < o.maxSourceIPs) h.ips.add(r.sourceIP);
      if (r.fieldManager) h.fieldManagers.add(r.fieldManager);
      if (exists) {
        h.alreadyExists++;
        if (ns !== undefined) ns.episode++;
        else h.untracked++;
        h.peak.add(r.ts);
        h.to = r.ts;
        h.evidence.add(r.auditID, r.level);
      } else if (r.code >= 200 && r.code < 300) h.succeeded++;
      else h.otherErrors++;
    }

    /** AlreadyExists on repeated names in the window ending at `boundary`; drops idle names. */
    function repeatedIn(s: ActorState, boundary: number): number {
      let total = 0;
      const start = (boundary - n) * o.stepMs;
      for (const [key, ns] of s.names) {
        const c = ns.ring.sum(boundary, 0);
        if (c >= o.minRepeatsPerName) total += c;
        else if (c === 0 && ns.episode === 0 && ns.lastTs < start) s.names.delete(key);
      }
      return total;
    }

    function severityOf(h: Hot): Severity {
      return severityFor(o.severity, { share: writeShare(ctx.series, h.from, h.to, h.creates), peakPerSec: h.peak.peak });
    }

    /** Judge the window ending at `boundary * stepMs` for one actor. Returns false to drop it. */
    function evaluate(s: ActorState, boundary: number): boolean {
      const repeated = repeatedIn(s, boundary);
      const passes = repeated >= o.minAlreadyExists;
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
      } else if (s.ring.sum(boundary, C_EXISTS) === 0 && s.hot !== null) {
        s.hot = null;
        for (const ns of s.names.values()) ns.episode = 0;
      }
      const end = boundary * o.stepMs;
      return !(s.hot === null && s.ring.sum(boundary, C_CREATE) === 0 && end - s.lastTs > o.windowMs);
    }

    function close(s: ActorState): void {
      s.open = false;
      s.ring.clear();
      for (const ns of s.names.values()) ns.ring.clear();
      const f = build(s);
      ctx.alert('close', f);
      ctx.emit(f);
      s.hot = null;
      for (const ns of s.names.values()) ns.episode = 0;
    }

    function build(s: ActorState): Finding {
      const h = s.hot as Hot;
      const hit: Array<[ObjectRef, number]> = [];
      for (const ns of s.names.values()) if (ns.episode > 0) hit.push([ns.obj, ns.episode]);
      hit.sort((a, b) => b[1] - a[1] || (a[0].key < b[0].key ? -1 : a[0].key > b[0].key ? 1 : 0));
      const top = hit[0]?.[0] ?? null;
      const distinct = hit.length;
      const repeats = median(hit.map(([, c]) => c));
      const durationMs = Math.max(0, h.to - h.from);
      // Beyond one AlreadyExists per name; untracked names are assumed hit once each.
      const excess = Math.max(0, h.alreadyExists - h.untracked - distinct);
      const label = (obj: ObjectRef): string => (obj.namespace ? `${obj.namespace}/${obj.name}` : obj.name);
      const resources = [...new Set(hit.map(([obj]) => resourceLabel(obj)))].sort();

      const signals = ['create-as-probe'];
      if (h.succeeded === 0) signals.push('never-created');
      if (repeats !== null && repeats >= 10) signals.push('hot-requeue');

      const metrics: Finding['metrics'] = {
        creates: h.creates,
        alreadyExists: h.alreadyExists,
        created: h.succeeded,
        otherErrors: h.otherErrors,
        distinctNames: distinct + (h.untracked > 0 ? h.untracked : 0),
        namesTruncated: h.untracked > 0,
        topNames: topList(hit, label, o.topNames),
        resources: resources.join(', '),
        repeatsPerNameP50: repeats,
        repeatsPerNameMax: hit[0]?.[1] ?? null,
        durationMs: Math.round(durationMs),
        peakAlreadyExistsPerSec: h.peak.peak,
        excessRequests: excess,
        ...trafficShare(ctx.series, h.from, h.to, h.creates),
        // Several clients of one identity (its userAgents), with their creates.
        ...h.userAgents.report(),
      };
      const named = h.userAgents.top(s.actor);
      const who = actorName(named);
      return {
        id: `create-conflict-storm:${shortHash(`${s.actor.key}\u0001${h.from}`)}`,
        kind: 'create-conflict-storm',
        severity: h.severity ?? severityOf(h),
        title: `${who} creates objects that already exist: ${int(h.alreadyExists)} × 409 AlreadyExists on ${int(distinct)} ${distinct === 1 ? 'name' : 'names'} (median ${repeats ?? 0} each), peak ${int(h.peak.peak)}/s`,
        actors: [reportActor(named, h.ips, h.fieldManagers)],
        object: top === null ? null : reportObject(top),
        window: { from: iso(h.from), to: iso(h.to) },
        metrics,
        signals,
        evidence: h.evidence.evidence('proven'),
        advice: adviceFor(h, distinct, repeats),
        series: { ...h.series.toReport(), labels: { title: 'Creates and 409 AlreadyExists of this actor', writes: 'creates/s', conflicts: 'AlreadyExists/s' } },
      };
    }

    function adviceFor(h: Hot, distinct: number, repeats: number | null): Advice[] {
      const advice: Advice[] = [
        {
          id: 'get-before-create',
          text: `Look before creating: Get the object from the informer cache (a lister or the controller-runtime client) and create only on NotFound. ${int(distinct)} names were created ${repeats ?? 0} times each (median) although they existed.`,
        },
        {
          id: 'already-exists-is-success',
          text: 'Treat AlreadyExists as success (apierrors.IsAlreadyExists(err) → carry on, or update the existing object): returning it from Reconcile requeues the object and sends the same create again.',
        },
        {
          id: 'server-side-apply',
          text: 'Or replace create-then-update with one server-side apply (client.Patch(ctx, obj, client.Apply, client.FieldOwner("…"))): it creates or updates in one idempotent request.',
        },
      ];
      if (h.succeeded === 0 && h.alreadyExists > 0) {
        advice.push({
          id: 'check-ownership',
          text: 'None of these creates succeeded: if another controller or a previous release owns these names, adopt the existing objects (owner references) instead of recreating them.',
        });
      }
      return advice;
    }

    return windowedInstance(o, {
      judge(at: number): void {
        for (const s of actors.values()) if (!evaluate(s, at)) actors.delete(s.actor);
      },
      onRecord(r: RequestRecord): void {
        if (r.verb === 'create' && !r.dryRun && r.object !== null) onCreate(r);
      },
      onAllowlisted(r: RequestRecord): void {
        // Periodic creates (Events) are judged by their AlreadyExists answers and, once those made
        // the actor a state, its other creates.
        if (r.verb === 'create' && !r.dryRun && r.object !== null && (r.code === 409 || actors.has(identities.of(r.actor)))) onCreate(r);
      },
      finish(): void {
        for (const s of actors.values()) if (s.open) close(s);
        actors.clear();
        identities.clear();
      },
      stateSize: () => actors.size,
    });
  },
});
