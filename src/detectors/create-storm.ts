/**
 * `create-storm`: one identity keeps creating *new* objects of one resource in one namespace, far
 * faster and for far longer than any demand explains: a loop that has lost track of what it made
 * and makes it again on every pass. The creates succeed (201), so no 409 ever shows it; only the
 * count does. Sources (`real-incidents.md`): cert-manager#6714, a mismatched Certificate and
 * Secret made cert-manager create a new CertificateRequest on every pass (15K and 48K in two
 * clusters, "bringing Kubernetes to its knees"); kyverno#10049, UpdateRequests created (and
 * deleted) in a flood, over a million log lines a day.
 *
 * Only successful (2xx), non-dry-run `create`s of a resource itself count: creates on a
 * subresource are actions (`pods/eviction`, `pods/binding`, `serviceaccounts/token`), and the
 * resources in `ignoreResources` are either never stored (TokenReview, SubjectAccessReview and
 * their kin, created per request by authenticating proxies and webhooks) or created as the
 * workload itself (Pods: rollouts, Jobs and batch systems create thousands by design, and at
 * create time the log cannot tell a scale-up from a replacement loop). Events are allowlisted
 * by default (`src/engine/allowlist.ts`). A create answered 409 AlreadyExists is
 * `create-conflict-storm`'s.
 *
 * Per (identity, apiGroup/resource, namespace) a group keeps a ring of `windowMs / stepMs` step
 * buckets of creates and, while busy, a score of **excess creates**, as `hot-loop` scores writes:
 * each create adds 1 and takes off the budget earned since the previous create
 * (`createsPerSec` × the gap; the score never goes below 0). At a steady rate r for T s the score
 * is about (r − createsPerSec) × T: continuous in rate and duration, with no hold time. A group is
 * **busy** while its window holds more than `createsPerSec × windowMs` creates; an episode
 * **opens** when a busy group's score reaches `minExcessCreates`, and **closes** at the first
 * boundary where it is not busy. Identities as in `common.ts` `Identities` (cert-manager runs three
 * controllers under one service account, each with its own userAgent).
 *
 * Why these defaults: a healthy controller creates an object per piece of demand (one
 * CertificateRequest per issuance or renewal, one Job per CronJob schedule, one ReplicaSet per
 * rollout), so a steady rate above 1/s in one namespace for minutes is not demand. 500 excess
 * creates is more than one burst of a normal operation leaves (a Helm install of a large chart or
 * a restore of a namespace's ConfigMaps: tens to a few hundred objects) and is reached in about
 * 2 min at 5 creates/s and 9 min at 2/s.
 *
 * **Per owner.** A loop need not be fast to be a loop: cert-manager#6714 made about one
 * CertificateRequest a second per Certificate, under the namespace budget with one to three
 * Certificates, yet a healthy controller makes one per issuance, days apart. So creates whose name
 * ends in a `generateName` suffix (`-` + 5 characters of its alphabet) are also grouped per
 * **owner**, the name without that suffix (identity, resource, namespace, owner), and scored the
 * same way with the smaller per-owner budget (`perOwner`): many new objects for one owner within
 * minutes is the controller deciding on every pass that the owner needs one. Names ending in a
 * number are not grouped per owner: they are members of a set (StatefulSet PVCs `data-web-0`…
 * `data-web-199`, one per ordinal, never made twice) or one per schedule or revision (a CronJob's
 * Jobs), so a scale-up or a schedule is demand. An owner's episode opens only while its
 * namespace group has none, and ends without a finding when that one opens (it reports the
 * creates, with `namePrefixes` naming the owners).
 *
 * Names: with `generateName` the audit objectRef has no name (`audit-formats.md`); the parser
 * takes it from the logged response body (RequestResponse level). At Metadata and Request level
 * the name is **recovered** from the first get, update or patch that names a new object (a name
 * with a `generateName` suffix not named before) of the same resource and namespace within
 * `nameRecoveryMs`: a new object is soon written by name (its status, an issuer signing it). It
 * goes to the oldest nameless create waiting there, which is then counted in its owner group.
 * Deletes are not used (a cleanup removes old objects). Names are remembered only for resources
 * that had a nameless create (bounded by `maxSeenNames`). `namePrefixes` lists the names with their generated
 * suffix (`-` + 5 characters, or `-` + digits) removed, which usually names the owner the objects
 * are made for. `deletes`: deletes of the same resource in the namespace, by anyone, during the
 * episode (created and deleted again is churn; created and never deleted piles up in etcd).
 *
 * Severity: the higher of the rank of the episode's share of all writes and the rank of its mean
 * creates per second, against `severity`, capped by excess creates (`severityExcess`) as
 * `hot-loop` caps it.
 */
import { z } from 'zod';
import type { Actor, RequestRecord } from '../decoding/record.js';
import type { Advice, Finding, Severity } from '../report/schema.js';
import { formatDurationMs as formatDuration } from '../report/format.js';
import { actorName, EpisodeSeries, EvidenceIDs, Identities, int, iso, PeakPerSecond, reportActor, round2, shortHash, StepRing, topList, UserAgentCounts } from './common.js';
import { trafficShare, writeShare } from './impact.js';
import type { DetectorContext } from './types.js';
import { defineDetector } from './types.js';
import {
  capByExcess,
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

export const createStormOptions = windowedOptions({
  ...windowFields(60_000, 10_000),
  /**
   * Creates per second (per identity, resource and namespace) that demand may explain: the budget
   * taken off the score for each second between creates.
   */
  createsPerSec: z.number().nonnegative().default(1),
  /** Excess creates (beyond the `createsPerSec` budget) at which an episode opens. */
  minExcessCreates: z.number().positive().default(500),
  /** The per-owner look (see the file header). */
  perOwner: z
    .object({
      /** Creates per second one owner (a `generateName` prefix) may get: a change every 10 s; the budget of its score. */
      ownerCreatesPerSec: z.number().nonnegative().default(0.1),
      /** Excess creates for one owner (beyond `ownerCreatesPerSec`) at which its episode opens. */
      ownerMinExcessCreates: z.number().positive().default(100),
    })
    .strict()
    .default({ ownerCreatesPerSec: 0.1, ownerMinExcessCreates: 100 }),
  /** Excess creates below which severity is capped: under `high`, at most `medium`; under `critical`, at most `high`. */
  severityExcess: severityExcessOption({ high: 1_000, critical: 3_000 }),
  /**
   * Resources (`resource` or `resource.apiGroup`) whose creates are not judged: never stored
   * (reviews created per request) or created as the workload itself (Pods).
   */
  ignoreResources: z
    .array(z.string())
    .default([
      'pods',
      'tokenreviews.authentication.k8s.io',
      'selfsubjectreviews.authentication.k8s.io',
      'subjectaccessreviews.authorization.k8s.io',
      'selfsubjectaccessreviews.authorization.k8s.io',
      'localsubjectaccessreviews.authorization.k8s.io',
      'selfsubjectrulesreviews.authorization.k8s.io',
    ]),
  /**
   * How long after a nameless create (`generateName` at Metadata or Request level) a request that
   * names a new object of the same resource and namespace may give it its name, ms (see the file
   * header). 0 turns the recovery off.
   */
  nameRecoveryMs: z.number().int().nonnegative().default(60_000),
  /** Names remembered (per resource and namespace) to tell a new object from one seen before; the oldest are forgotten beyond. */
  maxSeenNames: z.number().int().positive().default(100_000),
  /** Groups (identity, resource, namespace) tracked at once; creates of further groups are not judged until some go idle. */
  maxGroups: z.number().int().positive().default(20_000),
  /** Name prefixes counted per episode; further ones are summed under `(other)`. */
  maxNamePrefixes: z.number().int().positive().default(100),
  /** Name prefixes listed in `namePrefixes`. */
  topNamePrefixes: z.number().int().positive().default(5),
  /** Sample auditIDs kept as evidence, besides the first and last; distinct source IPs listed per actor. */
  ...evidenceFields(),
  severity: severityOption(
    {
      /** Share of all writes in the episode's window (0..1) at or above which this severity applies. */
      share: SHARE,
      /** Mean creates per second over the episode at or above which this severity applies. */
      meanPerSec: RATE,
    },
    {
      critical: { share: 0.5, meanPerSec: 20 },
      high: { share: 0.2, meanPerSec: 5 },
      medium: { share: 0.05, meanPerSec: 1 },
    },
  ),
});

export type CreateStormOptions = z.output<typeof createStormOptions>;

/** Everything gathered while a group is busy, from its first create after being idle. */
interface Hot {
  from: number;
  to: number;
  creates: number;
  /** Creates that carried a name (not `generateName`). */
  named: number;
  /** Nameless creates whose name was recovered from a later request (see the file header). */
  recovered: number;
  /** Per name prefix (see the file header): creates; beyond `maxNamePrefixes` under `(other)`. */
  prefixes: Map<string, number>;
  deletes: number;
  ips: Set<string>;
  fieldManagers: Set<string>;
  userAgents: UserAgentCounts;
  peak: PeakPerSecond;
  evidence: EvidenceIDs;
  severity: Severity | null;
  /** Excess creates beyond the budget, unrounded. */
  score: number;
  /** `ts` of the previous create, ms. */
  lastTs: number;
  series: EpisodeSeries;
}

/** A nameless create waiting for a request that names the object it made. */
interface Pending {
  /** Key of its namespace group. */
  key: string;
  who: Actor;
  r: RequestRecord;
}

interface Group {
  key: string;
  /** The actor standing for the identity (see `Identities`). */
  actor: Actor;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  namespace: string;
  /** Name without its `generateName` suffix for a per-owner group; null for the namespace group. */
  owner: string | null;
  /** Key of the namespace group an owner group belongs to (itself for a namespace group). */
  parentKey: string;
  /** Per step: creates. */
  ring: StepRing;
  lastTs: number;
  hot: Hot | null;
  open: boolean;
}

/** Generated suffixes: `generateName`'s 5 characters, or a counter / revision number. */
const GENERATED_SUFFIX = /-(?:[bcdfghjklmnpqrstvwxz2456789]{5}|\d+)$/;

/** `name` without its generated suffix (`web-7d9f8-x2k4p` → `web-7d9f8`); the name itself when it has none. */
export function namePrefix(name: string): string {
  const m = GENERATED_SUFFIX.exec(name);
  return m === null || m.index === 0 ? name : name.slice(0, m.index);
}

/** `generateName`'s suffix only: `-` + 5 characters of its alphabet (k8s.io/apimachinery/pkg/util/rand). */
const GENERATE_NAME_SUFFIX = /-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

/** The owner a `generateName`d `name` was made for (`web-tls-x2k4p` → `web-tls`); null for any other name. */
export function generatedOwner(name: string): string | null {
  const m = GENERATE_NAME_SUFFIX.exec(name);
  return m === null || m.index === 0 ? null : name.slice(0, m.index);
}

export const createStorm = defineDetector({
  meta: {
    id: 'create-storm',
    description:
      'One identity creates new objects of one resource in one namespace at a sustained rate no demand explains: a loop that makes the same thing again on every pass (201s, no 409).',
    optionsSchema: createStormOptions,
    judges: 'write-rate',
  },
  create(ctx: DetectorContext<CreateStormOptions>) {
    const o = ctx.options;
    const n = o.windowMs / o.stepMs;
    const windowSec = o.windowMs / 1000;
    const ignored = new Set(o.ignoreResources);
    const groups = new Map<string, Group>();
    /** Busy groups per `apiGroup/resource/namespace`, for counting deletes. */
    const hotByKind = new Map<string, Set<Group>>();
    const identities = new Identities();
    /** Resources (`apiGroup \0 resource`) that had a nameless create: names are remembered only for these. */
    const tracked = new Set<string>();
    /** Names seen per resource and namespace (`kindKey \0 name`), oldest first. */
    const seen = new Set<string>();
    /** Nameless creates waiting for their name, per `kindKey`, oldest first. */
    const pending = new Map<string, Pending[]>();
    /** `ts` of the latest record, ms. */
    let latestTs = -Infinity;

    function isIgnored(group: string, resource: string): boolean {
      return ignored.has(group === '' ? resource : `${resource}.${group}`);
    }

    function newHot(r: RequestRecord): Hot {
      return {
        from: r.ts,
        to: r.ts,
        creates: 0,
        named: 0,
        recovered: 0,
        prefixes: new Map(),
        deletes: 0,
        ips: new Set(),
        fieldManagers: new Set(),
        userAgents: new UserAgentCounts(),
        peak: new PeakPerSecond(),
        evidence: new EvidenceIDs(o.evidenceSamples + 1),
        severity: null,
        score: 0,
        lastTs: r.ts,
        series: new EpisodeSeries(o.stepMs),
      };
    }

    function kindKey(apiGroup: string, resource: string, namespace: string): string {
      return `${apiGroup}\u0000${resource}\u0000${namespace}`;
    }

    function onCreate(r: RequestRecord): void {
      const obj = r.object;
      if (obj === null || obj.subresource !== '' || isIgnored(obj.apiGroup, obj.resource)) return;
      const who = identities.of(r.actor);
      const kk = kindKey(obj.apiGroup, obj.resource, obj.namespace);
      const key = `${who.key}\u0001${kk}`;
      count(key, null, key, who, r, obj.name, false);
      if (obj.name === '') {
        if (o.nameRecoveryMs > 0) awaitName(kk, key, who, r);
      } else {
        if (tracked.has(resourceKey(obj.apiGroup, obj.resource))) see(`${kk}\u0000${obj.name}`);
        const owner = generatedOwner(obj.name);
        if (owner !== null) count(`${key}\u0002${owner}`, owner, key, who, r, obj.name, false);
      }
    }

    function resourceKey(apiGroup: string, resource: string): string {
      return `${apiGroup}\u0000${resource}`;
    }

    /** Remember a nameless create of `kk` until a request names the object it made. */
    function awaitName(kk: string, key: string, who: Actor, r: RequestRecord): void {
      const obj = r.object as NonNullable<RequestRecord['object']>;
      tracked.add(resourceKey(obj.apiGroup, obj.resource));
      let q = pending.get(kk);
      if (q === undefined) pending.set(kk, (q = []));
      if (q.length >= o.maxSeenNames) q.shift();
      q.push({ key, who, r });
    }

    /** Mark `nameKey` seen; false when it was seen before. The oldest names go beyond `maxSeenNames`. */
    function see(nameKey: string): boolean {
      if (seen.has(nameKey)) return false;
      if (seen.size >= o.maxSeenNames) seen.delete(seen.values().next().value as string);
      seen.add(nameKey);
      return true;
    }

    /**
     * A get or write naming an object of a resource that had nameless creates: the first request
     * naming a new object with a `generateName` suffix gives its name to the oldest nameless create
     * of its resource and namespace made within `nameRecoveryMs` before it.
     */
    function onNamed(r: RequestRecord): void {
      const obj = r.object as NonNullable<RequestRecord['object']>;
      const kk = kindKey(obj.apiGroup, obj.resource, obj.namespace);
      if (!see(`${kk}\u0000${obj.name}`)) return;
      const q = pending.get(kk);
      if (q === undefined) return;
      while (q.length > 0 && (q[0] as Pending).r.ts < r.ts - o.nameRecoveryMs) q.shift();
      const owner = generatedOwner(obj.name);
      if (owner !== null && q.length > 0) {
        const c = q.shift() as Pending;
        const parent = groups.get(c.key);
        // The namespace group lists the recovered name's prefix when the create is in its episode.
        if (parent?.hot && parent.hot.from <= c.r.ts) addPrefix(parent.hot, obj.name, true);
        count(`${c.key}\u0002${owner}`, owner, c.key, c.who, c.r, obj.name, true);
      }
      if (q.length === 0) pending.delete(kk);
    }

    /** Budget (creates/s) and excess creates to open, of a namespace or an owner group. */
    function budgetOf(g: Group): number {
      return g.owner === null ? o.createsPerSec : o.perOwner.ownerCreatesPerSec;
    }

    function minExcessOf(g: Group): number {
      return g.owner === null ? o.minExcessCreates : o.perOwner.ownerMinExcessCreates;
    }

    /**
     * Count create `r`, of the object named `name` ('' when nameless), in group `key` (made if new
     * and room is left); `recovered` when the name came from a later request.
     */
    function count(key: string, owner: string | null, parentKey: string, who: Actor, r: RequestRecord, name: string, recovered: boolean): void {
      const obj = r.object as NonNullable<RequestRecord['object']>;
      const kk = kindKey(obj.apiGroup, obj.resource, obj.namespace);
      let g = groups.get(key);
      if (g === undefined) {
        if (groups.size >= o.maxGroups) return;
        g = {
          key,
          actor: who,
          apiGroup: obj.apiGroup,
          apiVersion: obj.apiVersion,
          resource: obj.resource,
          namespace: obj.namespace,
          owner,
          parentKey,
          ring: new StepRing(n, 1),
          lastTs: r.ts,
          hot: null,
          open: false,
        };
        groups.set(key, g);
      }
      g.lastTs = Math.max(g.lastTs, r.ts);
      // A recovered create may be older than the ring's window: it counts in the oldest step held.
      g.ring.add(Math.max(Math.floor(r.ts / o.stepMs), Math.floor(latestTs / o.stepMs) - n + 1), 0);
      if (g.hot === null) {
        g.hot = newHot(r);
        let set = hotByKind.get(kk);
        if (set === undefined) hotByKind.set(kk, (set = new Set()));
        set.add(g);
      }
      const h = g.hot;
      h.score = Math.max(0, h.score + 1 - (Math.max(0, r.ts - h.lastTs) / 1000) * budgetOf(g));
      h.lastTs = Math.max(h.lastTs, r.ts);
      h.creates++;
      h.to = Math.max(h.to, r.ts);
      if (name !== '') addPrefix(h, name, recovered);
      if (r.sourceIP && h.ips.size < o.maxSourceIPs) h.ips.add(r.sourceIP);
      if (r.fieldManager) h.fieldManagers.add(r.fieldManager);
      h.userAgents.add(r.actor);
      h.peak.add(r.ts);
      h.evidence.add(r.auditID, r.level);
      h.series.add(r.ts, false);
    }

    /** Count `name`'s prefix in `h`, as a logged or a recovered name. */
    function addPrefix(h: Hot, name: string, recovered: boolean): void {
      if (recovered) h.recovered++;
      else h.named++;
      const prefix = namePrefix(name);
      const label = h.prefixes.has(prefix) || h.prefixes.size < o.maxNamePrefixes ? prefix : '(other)';
      h.prefixes.set(label, (h.prefixes.get(label) ?? 0) + 1);
    }

    function onDelete(r: RequestRecord): void {
      const obj = r.object;
      if (obj === null || obj.subresource !== '') return;
      const set = hotByKind.get(kindKey(obj.apiGroup, obj.resource, obj.namespace));
      if (set !== undefined) for (const g of set) (g.hot as Hot).deletes++;
    }

    function busy(g: Group, boundary: number): boolean {
      return g.ring.sum(boundary, 0) > budgetOf(g) * windowSec;
    }

    /** Judge the window ending at `boundary * stepMs` for one group. Returns false to drop it. */
    function evaluate(g: Group, boundary: number): boolean {
      const h = g.hot;
      const isBusy = busy(g, boundary);
      if (g.open) {
        if (isBusy) {
          if (raiseSeverity(h as Hot, severityOf(h as Hot))) ctx.alert('update', build(g));
          return true;
        }
        close(g);
      } else if (h !== null && isBusy && h.score >= minExcessOf(g) && !(g.owner !== null && groups.get(g.parentKey)?.open === true)) {
        g.open = true;
        h.severity = severityOf(h);
        if (g.owner === null) coverOwners(g);
        ctx.alert('open', build(g));
        return true;
      } else if (h !== null && !isBusy && boundary * o.stepMs - h.to >= o.windowMs) {
        // A whole window without the busy rate since the last create: the next one starts afresh.
        forget(g);
      }
      return !(g.hot === null && boundary * o.stepMs - g.lastTs >= o.windowMs);
    }

    /**
     * Namespace group `parent` opened: its creates are reported there, so its owner groups' open
     * episodes end without a finding (their live `open` alert gets a `close`) and start afresh.
     */
    function coverOwners(parent: Group): void {
      for (const g of groups.values()) {
        if (g.owner === null || g.parentKey !== parent.key || !g.open) continue;
        g.open = false;
        g.ring.clear();
        ctx.alert('close', build(g));
        forget(g);
      }
    }

    function forget(g: Group): void {
      hotByKind.get(kindKey(g.apiGroup, g.resource, g.namespace))?.delete(g);
      g.hot = null;
    }

    function close(g: Group): void {
      g.open = false;
      g.ring.clear();
      const f = build(g);
      ctx.alert('close', f);
      ctx.emit(f);
      forget(g);
    }

    function meanRate(h: Hot): number {
      const d = h.to - h.from;
      return d > 0 ? (h.creates - 1) / (d / 1000) : 0;
    }

    function severityOf(h: Hot): Severity {
      const by = severityFor(o.severity, { share: writeShare(ctx.series, h.from, h.to, h.creates), meanPerSec: meanRate(h) });
      return capByExcess(by, h.score, o.severityExcess);
    }

    function resourceOf(g: Group): string {
      return g.apiGroup === '' ? g.resource : `${g.resource}.${g.apiGroup}`;
    }

    function build(g: Group): Finding {
      const h = g.hot as Hot;
      const durationMs = Math.max(0, h.to - h.from);
      const where = g.namespace === '' ? 'cluster-wide' : `in namespace ${g.namespace}`;
      const topPrefix = [...h.prefixes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))[0];
      const signals = ['new-object-per-pass'];
      if (h.deletes === 0) signals.push('piling-up');
      else if (h.deletes >= h.creates / 2) signals.push('churn');
      if (topPrefix !== undefined && topPrefix[0] !== '(other)' && topPrefix[1] >= h.creates / 2) signals.push('one-owner');

      const metrics: Finding['metrics'] = {
        creates: h.creates,
        namedCreates: h.named,
        recoveredNames: h.recovered,
        namePrefixes: topList(h.prefixes, (p) => p, o.topNamePrefixes),
        deletes: h.deletes,
        resource: resourceOf(g),
        namespace: g.namespace,
        ...(g.owner === null ? {} : { owner: g.owner }),
        durationMs: Math.round(durationMs),
        meanCreatesPerSec: durationMs > 0 ? round2(meanRate(h)) : null,
        peakCreatesPerSec: h.peak.peak,
        // Creates beyond the budget over the episode: what demand could have asked for.
        excessRequests: Math.max(0, h.creates - (Math.floor((durationMs / 1000) * budgetOf(g)) + 1)),
        excessCreates: Math.round(h.score),
        ...trafficShare(ctx.series, h.from, h.to, h.creates),
        ...h.userAgents.report(),
      };
      const named = h.userAgents.top(g.actor);
      return {
        id: `create-storm:${shortHash(`${g.key}\u0001${h.from}`)}`,
        kind: 'create-storm',
        severity: h.severity ?? severityOf(h),
        title: `${actorName(named)} created ${int(h.creates)} new ${resourceOf(g)}${g.owner === null ? '' : ` for one owner (${g.owner}-…)`} ${where} in ${formatDuration(Math.round(durationMs))} (${round2(meanRate(h))}/s, peak ${int(h.peak.peak)}/s)`,
        actors: [reportActor(named, h.ips, h.fieldManagers)],
        object: null,
        window: { from: iso(h.from), to: iso(h.to) },
        metrics,
        signals,
        evidence: h.evidence.evidence('proven'),
        advice: adviceFor(g, h, signals, topPrefix?.[0] ?? null),
        series: { ...h.series.toReport(h.to), labels: { title: 'Creates of this identity', writes: 'creates/s', conflicts: '' } },
      };
    }

    function adviceFor(g: Group, h: Hot, signals: string[], prefix: string | null): Advice[] {
      const advice: Advice[] = [
        {
          id: 'find-existing-first',
          text: `Before creating, look up what was already made for the owner (a label or owner-reference index on the informer cache) and create only what is missing: ${int(h.creates)} ${resourceOf(g)} in ${formatDuration(Math.round(h.to - h.from))} is one per pass, not one per change.`,
        },
        {
          id: 'deterministic-name',
          text: 'Derive the name from the owner (and a revision) instead of generateName: a repeated create then gets 409 AlreadyExists, which stops the duplicate, instead of a new object.',
        },
      ];
      if (signals.includes('one-owner') && prefix !== null) {
        advice.push({
          id: 'check-owner',
          text: `Most of them are named ${prefix}-…: read that owner's status and conditions for why the controller decides on every pass that a new one is needed (cert-manager#6714: a Certificate whose Secret no longer matched it).`,
        });
      }
      if (signals.includes('piling-up')) {
        advice.push({
          id: 'clean-up',
          text: `None were deleted in the episode: they stay in etcd and in every list and watch of ${resourceOf(g)}. After fixing the loop, delete the surplus (select them by owner or label).`,
        });
      }
      return advice;
    }

    return windowedInstance(o, {
      judge(at: number): void {
        for (const [k, g] of groups) if (!evaluate(g, at)) groups.delete(k);
        for (const [kk, q] of pending) {
          while (q.length > 0 && (q[0] as Pending).r.ts < at * o.stepMs - o.nameRecoveryMs) q.shift();
          if (q.length === 0) pending.delete(kk);
        }
      },
      onRecord(r: RequestRecord): void {
        if (r.ts > latestTs) latestTs = r.ts;
        if (r.dryRun) return;
        if (r.verb === 'create' && r.code >= 200 && r.code < 300) onCreate(r);
        else if (r.verb === 'delete' && hotByKind.size > 0 && r.code >= 200 && r.code < 300) onDelete(r);
        else if (
          tracked.size > 0 &&
          (r.verb === 'get' || r.verb === 'update' || r.verb === 'patch') &&
          r.object !== null &&
          r.object.name !== '' &&
          tracked.has(resourceKey(r.object.apiGroup, r.object.resource))
        )
          onNamed(r);
      },
      finish(): void {
        tracked.clear();
        seen.clear();
        pending.clear();
        for (const g of groups.values()) if (g.open) close(g);
        groups.clear();
        hotByKind.clear();
        identities.clear();
      },
      stateSize: () => groups.size,
    });
  },
});
