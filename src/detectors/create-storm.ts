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
 * **opens** when a busy group's score, weighted by its busy time (steps whose own creates exceed
 * the budget) over `sustainMs` (at most 1), reaches `minExcessCreates`, and **closes** at the first
 * boundary where it is not busy. A loop runs for minutes; one operation's burst (a restore, an
 * install, a backlog drained after an outage) ends within about a minute, before its weighted score
 * opens. The score is kept through a pause (no create) until the budget catches up with it, and
 * forgotten once creates come back within the budget (demand again); a new episode within
 * `sustainMs` of a closed one's last create starts with its busy time: a pausing loop is one loop.
 * Identities as in `common.ts` `Identities` (cert-manager runs three controllers under one service
 * account, each with its own userAgent).
 *
 * Why these defaults: a healthy controller creates an object per piece of demand (one
 * CertificateRequest per issuance or renewal, one Job per CronJob schedule, one ReplicaSet per
 * rollout), so a steady rate above 1/s in one namespace for minutes is not demand. 500 excess
 * creates is more than one burst of a normal operation leaves (a Helm install of a large chart or
 * a restore of a namespace's ConfigMaps: tens to a few hundred objects); weighted by busy time, it
 * is reached in about 129 s at 10 creates/s, 194 s at 5/s and 500 s at 2/s.
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
 * creates, with `namePrefixes` naming the owners); when that one closes, the owner starts afresh
 * (its creates until then were reported).
 *
 * **Revisions.** A static-pod operator's revision controller (openshift/cluster-kube-apiserver-
 * operator#441, #1504) starts a revision whenever an input differs from the latest revision's copy
 * and copies every input into `<input>-N`; an input re-issued every few tens of seconds makes a
 * revision as often: under the namespace budget, and its names end in a number. So per (identity,
 * namespace), across resources, a create named `<base>-N` (N ≤ `maxRevision`; larger numbers are
 * times: CronJob minutes, Argo seconds, Velero YYYYMMDDhhmmss; not of `ordinalResources`, the
 * PersistentVolumeClaims a StatefulSet makes per ordinal) **advances** its base when N is one
 * more than the base's previous create; `minObjectsPerRevision` distinct base names (one name in
 * several resources is one object: Knative names a deploy's five objects alike) reaching one N
 * within `spanMs` count a revision (at most one per `passMs`, and each number once: a retried
 * pass's copies join it), scored as excess revisions against one per `revisionEveryMs` (deploy
 * pace), opening at `minExcessRevisions`. A revision copies all its inputs every time, so a number
 * reached by only some of the episode's bases (a lone advance: StatefulSets' ordinals meeting by
 * chance, a restore's per-name runs) takes one off the score. Helm's release Secrets (`.vN`) are a
 * deploy's, one per upgrade, and not matched. While a namespace episode of the identity on one of
 * the lineage's resources is open, it reports those creates: the revision episode ends without a
 * finding and starts afresh only after it closes, as for owners.
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
  /**
   * Busy time, ms, after which the excess score counts in full, for the namespace and owner looks:
   * below it the score is weighted by busy time / `sustainMs`, so a loop must run for minutes while
   * one operation's burst of under about a minute (a restore, an install, a backlog drained after an
   * outage) ends before it opens (at r creates/s a burst opens after about √(150,000 / (r − 1)) s).
   * 5 min: a loop at 10 creates/s opens after about 129 s, at 5/s after 194 s; a burst of 20 s
   * needs about 7,500 excess creates. 0 turns the weighting off (the score opens alone).
   */
  sustainMs: z.number().int().nonnegative().default(300_000),
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
  /** The revision look (see the file header). */
  revisions: z
    .object({
      /**
       * Distinct base names (across resources) that must reach the same revision number within
       * `spanMs` for it to count as a revision: a revision is a snapshot of a component's inputs
       * (OpenShift's static-pod operators copy 7 to 13 ConfigMaps and Secrets per revision), while a
       * StatefulSet creates one PVC per volumeClaimTemplate per ordinal (one to three). One name in
       * several resources counts once: Knative names a Service's Revision, PodAutoscaler,
       * ServerlessService, Service and Endpoints alike (`<service>-00003`), one object per deploy.
       */
      minObjectsPerRevision: z.number().int().min(2).default(4),
      /**
       * Span, ms, within which the copies of one revision are made: one pass makes them back to back,
       * and client-go's default rate limit (5 QPS, burst 10) lets at least 5 creates through in any
       * second. Sets that advance on their own clocks (the ordinals of two StatefulSets) rarely
       * reach a number within it together.
       */
      spanMs: z.number().int().positive().default(1_000),
      /**
       * Revisions counted at most once per this many ms: a loop makes its next revision on a later
       * pass, while a restore that recreates many numbered copies in name order reaches many numbers
       * within seconds and so counts about once per `passMs`.
       */
      passMs: z.number().int().positive().default(5_000),
      /**
       * One revision per this many ms a controller may make for one namespace: the pace of deploy
       * machinery, which pushes changes at most about every 3 minutes (Argo CD's default
       * `timeout.reconciliation` is 180 s; a CI pipeline takes minutes per run), so a set of
       * revisions advancing faster than that for long is not a deploy. A revision controller's own
       * revision starts a rollout that takes longer still (a kube-apiserver revision rolls out to
       * three masters in about 10 minutes, openshift/cluster-kube-apiserver-operator#870). The
       * budget of the score; an episode closes after this long without a revision.
       */
      revisionEveryMs: z.number().int().positive().default(180_000),
      /**
       * Excess revisions (beyond `revisionEveryMs`) at which an episode opens: more than an install
       * makes while its inputs settle (OpenShift clusters come up at revision 6 to 8,
       * cluster-kube-apiserver-operator#178, cluster-kube-controller-manager-operator#796), half of
       * the 20 that #441's e2e test calls "too much".
       */
      minExcessRevisions: z.number().positive().default(10),
      /**
       * Numbers above this are times, not counters: CronJob Jobs are named by minutes since the epoch
       * (about 2.9e7 in 2026), Argo CronWorkflows by seconds, Velero schedule backups by
       * YYYYMMDDhhmmss; a counter at one revision every 5 s takes 58 days to reach 1e6.
       */
      maxRevision: z.number().int().positive().default(1_000_000),
      /**
       * Resources (`resource` or `resource.apiGroup`) whose numbered names are ordinals of a set, never revisions:
       * a StatefulSet creates one claim per volumeClaimTemplate per ordinal (`<claim>-<sts>-<N>`,
       * with the pod `<sts>-<N>`), so four or more templates advance together as its pods come up;
       * those are the ordinals of a set, not copies of a component's inputs (ConfigMaps, Secrets,
       * ReplicationControllers, Revisions).
       */
      ordinalResources: z.array(z.string()).default(['persistentvolumeclaims']),
    })
    .strict()
    .default({
      minObjectsPerRevision: 4,
      spanMs: 1_000,
      passMs: 5_000,
      revisionEveryMs: 180_000,
      minExcessRevisions: 10,
      maxRevision: 1_000_000,
      ordinalResources: ['persistentvolumeclaims'],
    }),
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
  /** Names remembered (per resource and namespace) to tell a new object from one seen before, the oldest forgotten beyond; also the bases the revision look remembers (further ones are not judged). */
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

/** What an episode of either look tallies: its span (ms), clients, peak, evidence and score. */
interface EpisodeTally {
  from: number;
  to: number;
  ips: Set<string>;
  fieldManagers: Set<string>;
  userAgents: UserAgentCounts;
  peak: PeakPerSecond;
  evidence: EvidenceIDs;
  severity: Severity | null;
  /** Excess beyond the budget (creates, or revisions for the revision look), unrounded. */
  score: number;
  /** `ts` of the previous create (the revision look: of the latest counted revision), ms. */
  lastTs: number;
  series: EpisodeSeries;
}

/** Everything gathered while a group is busy, from its first create after being idle. */
interface Hot extends EpisodeTally {
  creates: number;
  /** Creates that carried a name (not `generateName`). */
  named: number;
  /** Nameless creates whose name was recovered from a later request (see the file header). */
  recovered: number;
  /** Per name prefix (see the file header): creates; beyond `maxNamePrefixes` under `(other)`. */
  prefixes: Map<string, number>;
  /** Per owner of a `generateName`d name (`generatedOwner`): creates; beyond `maxNamePrefixes` under `(other)`. Numbered names have none. */
  owners: Map<string, number>;
  /** Deletes of the resource in the namespace, by anyone. */
  deletes: number;
  /** Busy time, ms: steps whose own creates exceeded the budget, since the score was last 0 (see `sustainMs`). */
  busyMs: number;
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
  /** Busy time of the latest closed episode, ms, which a new episode starting by `carryUntil` (ms) starts with: a loop that paused is still the same loop. */
  carryBusyMs: number;
  carryUntil: number;
}

/** What the revision look gathers from a lineage's first counted revision after being idle. */
interface RevHot extends EpisodeTally {
  /** Copies made in the episode's counted revisions. */
  creates: number;
  revisions: number;
  firstRevision: number;
  lastRevision: number;
  /** Most objects that reached one revision number within `spanMs`. */
  objectsPerRevision: number;
  /** Copies of the latest counted revision. */
  lastCopies: number;
  /** Numbers reached by only some of the episode's bases (see `expireReached`). */
  loneAdvances: number;
  /** Per base (`resource/base`): copies; beyond `maxNamePrefixes` under `(other)`. */
  bases: Map<string, number>;
  /** Per base listed in `bases`: the names of its last two copies (the previous one null until there are two), for the advice. */
  names: Map<string, [string | null, string]>;
  /** Base keys (`apiGroup \0 resource \0 base`) copied in the episode, for counting their deletes. */
  baseKeys: Set<string>;
  /** Resources (`apiGroup \0 resource`) copied in the episode. */
  resources: Map<string, { apiGroup: string; resource: string }>;
  /** Deletes of objects of the episode's bases, by anyone (pruning). */
  deletes: number;
}

/** A create that advanced its base: one revision copy. */
interface Copy {
  r: RequestRecord;
  /** `apiGroup \0 resource \0 base`. */
  baseKey: string;
  /** `resource/base`, as listed in `namePrefixes`. */
  label: string;
  /** The base alone: one name shared by several resources (Knative gives a revision's objects one name) is one object. */
  base: string;
}

/** A number advanced to within `spanMs`: the first advance's `ts`, the copies, and their distinct base names. */
interface Reached {
  from: number;
  copies: Copy[];
  names: Set<string>;
}

/** The revision look's state for one identity in one namespace (see the file header). */
interface Lineage {
  key: string;
  actor: Actor;
  namespace: string;
  /** Per base key (`apiGroup \0 resource \0 base`): the number of its latest create. */
  bases: Map<string, number>;
  /** Per number advanced to within the last `spanMs`: the first advance's `ts`, the copies since, and their distinct bases (across resources). */
  reached: Map<number, Reached>;
  /** Numbers counted as revisions in the episode: a retried pass's copies of one join it and count no new revision. */
  counted: Set<number>;
  /** `ts` of the latest counted revision, ms; -Infinity before any. */
  countedTs: number;
  /** The latest counted revision: its number and the `ts` its span began; later copies within the span join it. */
  countedN: number;
  countedFrom: number;
  lastTs: number;
  hot: RevHot | null;
  open: boolean;
}

/**
 * A name ending in a revision number: `-` and digits (`config-12`, `web-00003`). Helm's release
 * Secrets (`sh.helm.release.v1.<release>.v<N>`) are not matched: Helm makes one per upgrade of a
 * release, by design (a deploy, not a revision controller).
 */
const REVISION_SUFFIX = /-(\d{1,15})$/;

/** `name` split into its base and trailing `-N` (`config-12` → `['config', 12]`, `web-00003` → `['web', 3]`); null when it ends in none. */
export function revisionOf(name: string): [string, number] | null {
  const m = REVISION_SUFFIX.exec(name);
  if (m === null || m.index === 0) return null;
  return [name.slice(0, m.index), Number(m[1])];
}

/** Generated suffixes: `generateName`'s 5 characters, or a counter / revision number. */
const GENERATED_SUFFIX = /-(?:[bcdfghjklmnpqrstvwxz2456789]{5}|\d+)$/;

/** `name` without its generated suffix (`web-7d9f8-x2k4p` → `web-7d9f8`); the name itself when it has none. */
export function namePrefix(name: string): string {
  const m = GENERATED_SUFFIX.exec(name);
  return m === null || m.index === 0 ? name : name.slice(0, m.index);
}

/**
 * `generateName`'s suffix only: `-` + 5 characters of its alphabet (k8s.io/apimachinery/pkg/util/rand),
 * at least one a letter: five digits are a number (`build-44444`), which a random suffix is only
 * once in about 2,000 names ((6/27)^5).
 */
const GENERATE_NAME_SUFFIX = /-(?=[2456789]{0,4}[bcdfghjklmnpqrstvwxz])[bcdfghjklmnpqrstvwxz2456789]{5}$/;

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
    const stepSec = o.stepMs / 1000;
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
    const ro = o.revisions;
    /** `revisions.ordinalResources`, as `resource` or `resource.apiGroup`. */
    const revIgnored = new Set(ro.ordinalResources);
    /** A lineage with no revision for this long is idle (one revision's budget), ms. */
    const revisionIdleMs = ro.revisionEveryMs;
    /** The revision look's lineages, per `identity \u0003 namespace`. */
    const lineages = new Map<string, Lineage>();
    /** Lineages with an episode, per namespace, for counting deletes. */
    const hotLineagesByNs = new Map<string, Set<Lineage>>();
    /** Bases remembered over all lineages (bounded by `maxSeenNames`). */
    let lineageBases = 0;

    function isIgnored(group: string, resource: string): boolean {
      return ignored.has(group === '' ? resource : `${resource}.${group}`);
    }

    /** What either look's episode tallies, empty, for an episode starting at `from` (ms). */
    function newTally(from: number): EpisodeTally {
      return {
        from,
        to: from,
        ips: new Set(),
        fieldManagers: new Set(),
        userAgents: new UserAgentCounts(),
        peak: new PeakPerSecond(),
        evidence: new EvidenceIDs(o.evidenceSamples + 1),
        severity: null,
        score: 0,
        lastTs: from,
        series: new EpisodeSeries(o.stepMs),
      };
    }

    /** Count create `r` in an episode's tally: its client, field manager, peak, evidence and series. */
    function tallyCreate(h: EpisodeTally, r: RequestRecord): void {
      if (r.sourceIP && h.ips.size < o.maxSourceIPs) h.ips.add(r.sourceIP);
      if (r.fieldManager) h.fieldManagers.add(r.fieldManager);
      h.userAgents.add(r.actor);
      h.peak.add(r.ts);
      h.evidence.add(r.auditID, r.level);
      h.series.add(r.ts, false);
    }

    function newHot(r: RequestRecord, busyMs: number): Hot {
      return { ...newTally(r.ts), creates: 0, named: 0, recovered: 0, prefixes: new Map(), owners: new Map(), deletes: 0, busyMs };
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
        onNumbered(who, r);
      }
    }

    /**
     * The revision look (see the file header): a named create whose name ends in a number advances
     * its base when the number is one more than the base's previous create by this identity in this
     * namespace; `minObjectsPerRevision` bases reaching one number within `spanMs` count a revision
     * (at most one per `passMs`).
     */
    function onNumbered(who: Actor, r: RequestRecord): void {
      const obj = r.object as NonNullable<RequestRecord['object']>;
      const rev = revisionOf(obj.name);
      if (rev === null || rev[1] > ro.maxRevision || revIgnored.has(obj.apiGroup === '' ? obj.resource : `${obj.resource}.${obj.apiGroup}`)) return;
      const [base, n] = rev;
      const lkey = `${who.key}\u0003${obj.namespace}`;
      let l = lineages.get(lkey);
      if (l === undefined) {
        if (lineages.size >= o.maxGroups) return;
        l = {
          key: lkey,
          actor: who,
          namespace: obj.namespace,
          bases: new Map(),
          reached: new Map(),
          counted: new Set(),
          countedTs: -Infinity,
          countedN: -1,
          countedFrom: -Infinity,
          lastTs: r.ts,
          hot: null,
          open: false,
        };
        lineages.set(lkey, l);
      }
      l.lastTs = Math.max(l.lastTs, r.ts);
      const baseKey = `${obj.apiGroup}\u0000${obj.resource}\u0000${base}`;
      const prev = l.bases.get(baseKey);
      if (prev === undefined) {
        if (lineageBases >= o.maxSeenNames) return;
        lineageBases++;
      }
      l.bases.set(baseKey, n);
      if (prev !== n - 1) return;
      const copy: Copy = { r, baseKey, label: `${resourceLabel(obj.apiGroup, obj.resource)}/${base}`, base };
      if (l.hot !== null && n === l.countedN && r.ts - l.countedFrom <= ro.spanMs) {
        // A late copy of the revision just counted.
        l.hot.objectsPerRevision = Math.max(l.hot.objectsPerRevision, ++l.hot.lastCopies);
        addCopy(l.hot, copy);
        return;
      }
      if (l.hot !== null && l.counted.has(n)) {
        // A retried pass's copy of a revision already counted: a copy, not a new revision.
        addCopy(l.hot, copy);
        return;
      }
      expireReached(l, r.ts);
      let e = l.reached.get(n);
      if (e === undefined) l.reached.set(n, (e = { from: r.ts, copies: [], names: new Set() }));
      if (e.copies.length < o.maxSeenNames) {
        e.copies.push(copy);
        e.names.add(base);
      }
      if (e.names.size >= ro.minObjectsPerRevision && r.ts - l.countedTs >= ro.passMs) {
        countRevision(l, r.ts, n, e);
        l.reached.delete(n);
      }
    }

    /**
     * Forget the numbers of `l` reached more than `spanMs` before `now`. One reached by fewer than
     * `minObjectsPerRevision` bases, some of them the episode's, is a lone advance: those bases grow
     * on their own clock (a StatefulSet's next ordinal), not as copies of one snapshot, and it takes
     * one revision off the score.
     */
    function expireReached(l: Lineage, now: number): void {
      for (const [k, e] of l.reached) {
        if (now - e.from <= ro.spanMs) continue;
        l.reached.delete(k);
        const h = l.hot;
        if (h !== null && e.names.size < ro.minObjectsPerRevision && e.copies.some((c) => h.baseKeys.has(c.baseKey))) {
          h.loneAdvances++;
          h.score = Math.max(0, h.score - 1);
        }
      }
    }

    /** Count revision `n` of lineage `l` at `ts`, reached by the copies of `e`. */
    function countRevision(l: Lineage, ts: number, n: number, e: Reached): void {
      if (l.hot === null) {
        l.hot = newRevHot(e.from, n);
        let set = hotLineagesByNs.get(l.namespace);
        if (set === undefined) hotLineagesByNs.set(l.namespace, (set = new Set()));
        set.add(l);
      }
      const h = l.hot;
      h.score = Math.max(0, h.score + 1 - Math.max(0, ts - h.lastTs) / ro.revisionEveryMs);
      h.lastTs = ts;
      h.revisions++;
      h.lastRevision = Math.max(h.lastRevision, n);
      h.lastCopies = e.copies.length;
      h.objectsPerRevision = Math.max(h.objectsPerRevision, e.copies.length);
      for (const c of e.copies) addCopy(h, c);
      l.countedTs = ts;
      l.countedN = n;
      l.countedFrom = e.from;
      if (l.counted.size >= o.maxSeenNames) l.counted.delete(l.counted.values().next().value as number);
      l.counted.add(n);
    }

    function newRevHot(from: number, n: number): RevHot {
      return {
        ...newTally(from),
        creates: 0,
        revisions: 0,
        firstRevision: n,
        lastRevision: n,
        objectsPerRevision: 0,
        lastCopies: 0,
        loneAdvances: 0,
        bases: new Map(),
        names: new Map(),
        baseKeys: new Set(),
        resources: new Map(),
        deletes: 0,
      };
    }

    function addCopy(h: RevHot, c: Copy): void {
      const r = c.r;
      const obj = r.object as NonNullable<RequestRecord['object']>;
      h.creates++;
      h.from = Math.min(h.from, r.ts);
      h.to = Math.max(h.to, r.ts);
      const label = countLabel(h.bases, c.label);
      if (label === c.label) h.names.set(label, [h.names.get(label)?.[1] ?? null, obj.name]);
      if (h.baseKeys.size < o.maxSeenNames) h.baseKeys.add(c.baseKey);
      h.resources.set(resourceKey(obj.apiGroup, obj.resource), { apiGroup: obj.apiGroup, resource: obj.resource });
      tallyCreate(h, r);
    }

    /** Judge lineage `l` at the step boundary `boundary`. Returns false to drop it. */
    function evaluateLineage(l: Lineage, boundary: number): boolean {
      const now = boundary * o.stepMs;
      expireReached(l, now);
      const h = l.hot;
      if (h !== null && lineageCovered(l, h)) {
        // A namespace episode of the identity on one of its resources is open and reports these
        // creates: the revision episode ends without a finding for as long as it stays open.
        if (l.open) ctx.alert('close', buildLineage(l));
        forgetLineage(l);
      } else if (h !== null) {
        if (l.open) {
          if (now - h.lastTs >= revisionIdleMs) closeLineage(l);
          else if (raiseSeverity(h, revSeverityOf(h))) ctx.alert('update', buildLineage(l));
        } else if (h.score >= ro.minExcessRevisions) {
          l.open = true;
          h.severity = revSeverityOf(h);
          ctx.alert('open', buildLineage(l));
        } else if (now - h.lastTs >= revisionIdleMs) forgetLineage(l);
      }
      if (l.hot === null && now - l.lastTs >= revisionIdleMs) {
        lineageBases -= l.bases.size;
        return false;
      }
      return true;
    }

    /** Whether a namespace group of `l`'s identity, namespace and one of its resources is open (it reports those creates). */
    function lineageCovered(l: Lineage, h: RevHot): boolean {
      for (const k of h.resources.keys()) if (groups.get(`${l.actor.key}\u0001${k}\u0000${l.namespace}`)?.open === true) return true;
      return false;
    }

    /** Namespace group `parent` opened: a lineage copying its resource ends without a finding, as owners do. */
    function coverLineages(parent: Group): void {
      const l = lineages.get(`${parent.actor.key}\u0003${parent.namespace}`);
      if (l?.hot == null || !l.hot.resources.has(resourceKey(parent.apiGroup, parent.resource))) return;
      if (l.open) ctx.alert('close', buildLineage(l));
      forgetLineage(l);
    }

    function forgetLineage(l: Lineage): void {
      hotLineagesByNs.get(l.namespace)?.delete(l);
      l.hot = null;
      l.open = false;
      l.reached.clear();
      l.counted.clear();
      l.countedN = -1;
    }

    function closeLineage(l: Lineage): void {
      const f = buildLineage(l);
      ctx.alert('close', f);
      ctx.emit(f);
      forgetLineage(l);
    }

    function revSeverityOf(h: RevHot): Severity {
      const by = severityFor(o.severity, { share: writeShare(ctx.series, h.from, h.to, h.creates), meanPerSec: rateOf(h.creates, h.from, h.to) });
      // Excess copies: the excess revisions times the copies each made.
      return capByExcess(by, (h.score * h.creates) / Math.max(1, h.revisions), o.severityExcess);
    }

    function resourceKey(apiGroup: string, resource: string): string {
      return `${apiGroup}\u0000${resource}`;
    }

    function resourceLabel(apiGroup: string, resource: string): string {
      return apiGroup === '' ? resource : `${resource}.${apiGroup}`;
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
          carryBusyMs: 0,
          carryUntil: -Infinity,
        };
        groups.set(key, g);
      }
      g.lastTs = Math.max(g.lastTs, r.ts);
      // A recovered create may be older than the ring's window: it counts in the oldest step held.
      g.ring.add(Math.max(Math.floor(r.ts / o.stepMs), Math.floor(latestTs / o.stepMs) - n + 1), 0);
      if (g.hot === null) {
        g.hot = newHot(r, r.ts <= g.carryUntil ? g.carryBusyMs : 0);
        let set = hotByKind.get(kk);
        if (set === undefined) hotByKind.set(kk, (set = new Set()));
        set.add(g);
      }
      const h = g.hot;
      h.score = Math.max(0, h.score + 1 - (Math.max(0, r.ts - h.lastTs) / 1000) * budgetOf(g));
      // The budget caught up with every create: whatever ran before was demand, not a loop.
      if (h.score === 0) h.busyMs = 0;
      h.lastTs = Math.max(h.lastTs, r.ts);
      h.creates++;
      h.to = Math.max(h.to, r.ts);
      if (name !== '') addPrefix(h, name, recovered);
      tallyCreate(h, r);
    }

    /** Count `name`'s prefix in `h`, as a logged or a recovered name. */
    function addPrefix(h: Hot, name: string, recovered: boolean): void {
      if (recovered) h.recovered++;
      else h.named++;
      countLabel(h.prefixes, namePrefix(name));
      const owner = generatedOwner(name);
      if (owner !== null) countLabel(h.owners, owner);
    }

    /** Counts `key` in `counts`, or under `(other)` once `maxNamePrefixes` keys are held; returns the label counted. */
    function countLabel(counts: Map<string, number>, key: string): string {
      const label = counts.has(key) || counts.size < o.maxNamePrefixes ? key : '(other)';
      counts.set(label, (counts.get(label) ?? 0) + 1);
      return label;
    }

    function onDelete(r: RequestRecord): void {
      const obj = r.object;
      if (obj === null || obj.subresource !== '') return;
      const ls = hotLineagesByNs.get(obj.namespace);
      const rev = ls === undefined ? null : revisionOf(obj.name);
      if (ls !== undefined && rev !== null) {
        const baseKey = `${obj.apiGroup}\u0000${obj.resource}\u0000${rev[0]}`;
        for (const l of ls) if ((l.hot as RevHot).baseKeys.has(baseKey)) (l.hot as RevHot).deletes++;
      }
      const set = hotByKind.get(kindKey(obj.apiGroup, obj.resource, obj.namespace));
      if (set !== undefined) for (const g of set) (g.hot as Hot).deletes++;
    }

    function busy(g: Group, boundary: number): boolean {
      return g.ring.sum(boundary, 0) > budgetOf(g) * windowSec;
    }

    /** The score that opens an episode: the excess weighted by busy time / `sustainMs` (at most 1), or the excess alone when `sustainMs` is 0. */
    function sustainedScore(h: Hot): number {
      return o.sustainMs > 0 ? h.score * Math.min(1, h.busyMs / o.sustainMs) : h.score;
    }

    /** The score left at `now` (ms) once the budget since the last create is taken off: while above 0 the hot state is kept. */
    function residual(g: Group, h: Hot, now: number): number {
      return h.score - (Math.max(0, now - h.lastTs) / 1000) * budgetOf(g);
    }

    /**
     * The step before `boundary` holds creates, none beyond the budget: the group is back to demand
     * (a backlog drained after an outage, then the usual trickle), so an earlier burst's excess is
     * history; a pause (no create) is not demand.
     */
    function demandOnly(g: Group, boundary: number): boolean {
      const last = g.ring.at(boundary - 1, 0);
      return last > 0 && last <= budgetOf(g) * stepSec;
    }

    /** Judge the window ending at `boundary * stepMs` for one group. Returns false to drop it. */
    function evaluate(g: Group, boundary: number): boolean {
      const h = g.hot;
      const isBusy = busy(g, boundary);
      const now = boundary * o.stepMs;
      // Busy time grows by the steps whose own creates exceed the budget.
      if (h !== null && g.ring.at(boundary - 1, 0) > budgetOf(g) * stepSec) h.busyMs += o.stepMs;
      if (g.open) {
        if (isBusy) {
          if (raiseSeverity(h as Hot, severityOf(h as Hot))) ctx.alert('update', build(g));
          return true;
        }
        close(g);
      } else if (h !== null && isBusy && sustainedScore(h) >= minExcessOf(g) && !(g.owner !== null && groups.get(g.parentKey)?.open === true)) {
        g.open = true;
        h.severity = severityOf(h);
        if (g.owner === null) {
          coverOwners(g);
          coverLineages(g);
        }
        ctx.alert('open', build(g));
        return true;
      } else if (h !== null && !isBusy && ((now - h.to >= o.windowMs && residual(g, h, now) <= 0) || demandOnly(g, boundary))) {
        // A whole window without the busy rate since the last create, and the budget has caught up
        // with the excess, or creates within the budget after a burst: demand again, so the next
        // create starts afresh. A loop that pauses (no create at all) keeps its score.
        forget(g);
      }
      return !(g.hot === null && now - g.lastTs >= o.windowMs && now > g.carryUntil);
    }

    /**
     * Namespace group `parent` opened or closed: the creates its owner groups counted so far are
     * reported in its episode, so their open episodes end without a finding (their live `open`
     * alert gets a `close`) and every one starts afresh (else an owner whose creates went on
     * through the namespace episode would report them again once it closed).
     */
    function coverOwners(parent: Group): void {
      for (const g of groups.values()) {
        if (g.owner === null || g.parentKey !== parent.key || g.hot === null) continue;
        g.ring.clear();
        if (g.open) {
          g.open = false;
          ctx.alert('close', build(g));
        }
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
      const h = g.hot as Hot;
      g.carryBusyMs = h.busyMs;
      g.carryUntil = h.lastTs + o.sustainMs;
      const f = build(g);
      ctx.alert('close', f);
      ctx.emit(f);
      forget(g);
      if (g.owner === null) coverOwners(g);
    }

    function meanRate(h: Hot): number {
      return rateOf(h.creates, h.from, h.to);
    }

    /** Creates per second between the first and the last of `creates`; 0 over no time. */
    function rateOf(creates: number, from: number, to: number): number {
      const d = to - from;
      return d > 0 ? (creates - 1) / (d / 1000) : 0;
    }

    function severityOf(h: Hot): Severity {
      const by = severityFor(o.severity, { share: writeShare(ctx.series, h.from, h.to, h.creates), meanPerSec: meanRate(h) });
      return capByExcess(by, h.score, o.severityExcess);
    }

    function resourceOf(g: Group): string {
      return resourceLabel(g.apiGroup, g.resource);
    }

    function buildLineage(l: Lineage): Finding {
      const h = l.hot as RevHot;
      const durationMs = Math.max(0, h.to - h.from);
      const where = l.namespace === '' ? 'cluster-wide' : `in namespace ${l.namespace}`;
      const resources = [...h.resources.values()].map((x) => resourceLabel(x.apiGroup, x.resource)).sort();
      const signals = ['new-revision-per-pass', h.deletes === 0 ? 'piling-up' : 'pruned'];
      const gapMs = h.revisions > 1 ? durationMs / (h.revisions - 1) : null;
      const metrics: Finding['metrics'] = {
        creates: h.creates,
        revisions: h.revisions,
        firstRevision: h.firstRevision,
        lastRevision: h.lastRevision,
        objectsPerRevision: h.objectsPerRevision,
        loneAdvances: h.loneAdvances,
        bases: h.baseKeys.size,
        namePrefixes: topList(h.bases, (p) => p, o.topNamePrefixes),
        deletes: h.deletes,
        resource: resources.join(', '),
        namespace: l.namespace,
        durationMs: Math.round(durationMs),
        meanRevisionGapMs: gapMs === null ? null : Math.round(gapMs),
        meanCreatesPerSec: durationMs > 0 ? round2(Math.min(rateOf(h.creates, h.from, h.to), h.peak.peak)) : null,
        peakCreatesPerSec: h.peak.peak,
        // The copies of the revisions beyond the budget's (one per `revisionEveryMs` over the episode).
        excessRequests: Math.round(Math.max(0, h.revisions - (Math.floor(durationMs / ro.revisionEveryMs) + 1)) * (h.creates / Math.max(1, h.revisions))),
        excessRevisions: Math.round(h.score),
        ...trafficShare(ctx.series, h.from, h.to, h.creates),
        ...h.userAgents.report(),
      };
      const named = h.userAgents.top(l.actor);
      const every = gapMs === null ? '' : `, one every ${formatDuration(Math.round(gapMs))}`;
      const advice: Advice[] = [
        {
          id: 'revision-trigger',
          text: `Compare two successive copies (${successiveCopies(h)}) and find the input that differs every time: a revision controller starts a revision whenever an input differs from the latest revision's copy, so an input re-issued on every pass makes a revision on every pass (openshift/cluster-kube-apiserver-operator#1504: the localhost-recovery token). Compare content, not metadata.`,
        },
      ];
      if (h.deletes === 0) {
        advice.push({
          id: 'clean-up',
          text: `No copy was deleted in the episode: revisions ${h.firstRevision}–${h.lastRevision} stay in etcd and in every list and watch of ${resources.join(' and ')}. After fixing the loop, prune the old revisions (the controller's revision limits).`,
        });
      }
      return {
        id: `create-storm:${shortHash(`${l.key}\u0001${h.from}`)}`,
        kind: 'create-storm',
        severity: h.severity ?? revSeverityOf(h),
        title: `${actorName(named)} made ${int(h.revisions)} numbered revisions (${h.firstRevision}–${h.lastRevision}) of ${int(h.objectsPerRevision)} objects ${where} in ${formatDuration(Math.round(durationMs))}${every}: ${int(h.creates)} new ${resources.join(' and ')}`,
        actors: [reportActor(named, h.ips, h.fieldManagers)],
        object: null,
        window: { from: iso(h.from), to: iso(h.to) },
        metrics,
        signals,
        evidence: h.evidence.evidence('proven'),
        advice,
        series: { ...h.series.toReport(h.to), labels: { title: 'Revision copies of this identity', writes: 'creates/s', conflicts: '' } },
      };
    }

    /** The names of the last two copies of the base with the most copies, as created (`configmaps config-00026 and config-00027`). */
    function successiveCopies(h: RevHot): string {
      const top = [...h.bases].filter(([label]) => h.names.has(label)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))[0];
      if (top === undefined) return 'of one input';
      const [prev, last] = h.names.get(top[0]) as [string | null, string];
      const resource = top[0].slice(0, top[0].indexOf('/'));
      return prev === null ? `${resource} ${last} and the copy before it` : `${resource} ${prev} and ${last}`;
    }

    function build(g: Group): Finding {
      const h = g.hot as Hot;
      const durationMs = Math.max(0, h.to - h.from);
      const where = g.namespace === '' ? 'cluster-wide' : `in namespace ${g.namespace}`;
      // One owner: most names are one owner's `generateName`; numbered names (a restore's
      // `app-config-0001…`, a StatefulSet's ordinals) are not one owner's, whatever their prefix.
      const topOwner = [...h.owners].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))[0];
      const signals = ['new-object-per-pass'];
      if (h.deletes === 0) signals.push('piling-up');
      else if (h.deletes >= h.creates / 2) signals.push('churn');
      if (topOwner !== undefined && topOwner[0] !== '(other)' && topOwner[1] >= h.creates / 2) signals.push('one-owner');

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
        meanCreatesPerSec: durationMs > 0 ? round2(Math.min(meanRate(h), h.peak.peak)) : null,
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
        advice: adviceFor(g, h, signals, topOwner?.[0] ?? null),
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
        for (const [k, l] of lineages) if (!evaluateLineage(l, at)) lineages.delete(k);
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
        for (const l of lineages.values()) if (l.open) closeLineage(l);
        groups.clear();
        hotByKind.clear();
        lineages.clear();
        hotLineagesByNs.clear();
        lineageBases = 0;
        identities.clear();
      },
      stateSize: () => groups.size + lineages.size,
    });
  },
});
