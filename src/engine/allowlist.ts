/**
 * Allowlist of legitimate periodic writers. Requests that match a rule still count in totals,
 * summaries and the cluster series, but are not fed to the detectors that judge write rates
 * (or to the detectors a rule names, if it names any), so node heartbeats and leader election
 * renewals never become hot-loop or no-op findings; their 409 and 429 answers are still judged
 * (`DetectorMeta.judges`). How much traffic each rule matched is reported.
 *
 * Matching is decided once per interned actor, verb, namespace and kind of object (bitmasks of
 * the rules whose conditions that side meets, ANDed), so a record costs four map lookups.
 */
import { z } from 'zod';
import type { ObjectRef, RequestRecord } from '../decoding/record.js';
import { globToRegExp, KindMasks, resourceNames } from './filters.js';

/** One rule: every non-empty list must match (globs with `*`). */
export const AllowRuleSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().default(''),
    /** Usernames (globs), e.g. `system:node:*`. */
    users: z.array(z.string()).default([]),
    /** userAgents (globs), e.g. a star then `/leader-election` for every leader-election client. */
    userAgents: z.array(z.string()).default([]),
    /** objectRef namespaces (globs). */
    namespaces: z.array(z.string()).default([]),
    /** Resources as for `--resource`: `leases.coordination.k8s.io`, `nodes/status`, `events` (globs). */
    resources: z.array(z.string()).default([]),
    verbs: z.array(z.string()).default([]),
    /**
     * Detectors (finding kinds) the rule applies to; empty means every detector that judges write
     * rates (hot-loop, no-op-writes, write-fight), never those that judge 409/429 answers.
     */
    detectors: z.array(z.string()).default([]),
  })
  .strict();
export type AllowRule = z.output<typeof AllowRuleSchema>;

/**
 * Writers that are periodic by design. Sources: node leases renewed every 10 s by the kubelet
 * (`kube-node-lease`, KEP-589); leader-election renewals (client-go `tools/leaderelection`,
 * userAgent suffix `/leader-election` set by `rest.AddUserAgent`, about every 2 s); the kubelet's
 * node status updates (`nodes/status`, `--node-status-update-frequency`); Event objects, written
 * by every component as things happen.
 */
export const DEFAULT_ALLOWLIST: readonly AllowRule[] = [
  {
    name: 'node-leases',
    description: 'kubelet heartbeats: Lease objects in kube-node-lease, renewed about every 10 s',
    users: [],
    userAgents: [],
    namespaces: ['kube-node-lease'],
    resources: ['leases.coordination.k8s.io'],
    verbs: [],
    detectors: [],
  },
  {
    name: 'leader-election',
    description: 'leader-election lock renewals (userAgent ending /leader-election), about every 2 s',
    users: [],
    userAgents: ['*/leader-election'],
    namespaces: [],
    resources: [],
    verbs: [],
    detectors: [],
  },
  {
    name: 'kubelet-node-status',
    description: "the kubelet's periodic node status writes",
    users: ['system:node:*'],
    userAgents: [],
    namespaces: [],
    resources: ['nodes/status'],
    verbs: [],
    detectors: [],
  },
  {
    name: 'events',
    description: 'Event objects (core and events.k8s.io), written as things happen',
    users: [],
    userAgents: [],
    namespaces: [],
    resources: ['events', 'events.events.k8s.io'],
    verbs: [],
    detectors: [],
  },
  {
    name: 'kubelet-pod-status',
    description:
      "the kubelet's own pod status updates: it owns pod status and writes it as containers and probes change, not from a reconcile loop (conflicts still count for conflict and fleet storms)",
    users: ['system:node:*'],
    userAgents: [],
    namespaces: [],
    resources: ['pods/status'],
    verbs: [],
    detectors: ['hot-loop', 'no-op-writes'],
  },
];

/** Most actor masks {@link Allowlist} keeps by actor key (an actor's key and mask: about 150 bytes). */
const ACTOR_MASKS_MAX = 20_000;

/** Traffic one rule excluded from detection. */
export interface AllowCount {
  name: string;
  requests: number;
  writes: number;
}

/** Compiled allowlist; `match` returns the index of the first matching rule, or -1. */
export class Allowlist {
  /**
   * An object's mask is its namespace's mask AND its kind's (a rule matches an object when its
   * namespaces and its resources both do), cached per namespace and per kind: a few thousand
   * entries, where a cache per object held one per object in use (tens of thousands).
   */
  private readonly masks = new KindMasks<number>();
  private readonly verbMasks = new Map<string, number>();
  /**
   * Actor masks by `Actor.key`, for actors interned again: the normalizer makes a new instance of
   * an actor unseen for two of its generations (on a log of ever new objects, every few seconds),
   * and each new instance tested every rule's patterns again. At most {@link ACTOR_MASKS_MAX}
   * entries; past that the table starts over.
   */
  private actorMasks = new Map<string, number>();
  /** The verb of the last {@link match} that got that far, and its mask (consecutive records mostly share it). */
  private lastVerb: string | null = null;
  private lastVerbMask = 0;
  private readonly noObjectMask: number;
  private readonly counts: AllowCount[];
  private readonly compiled: Array<{
    users: RegExp[];
    userAgents: RegExp[];
    namespaces: RegExp[];
    resources: RegExp[];
    verbs: Set<string>;
  }>;

  /** @throws RangeError for more than 31 rules (masks are 32-bit). */
  constructor(readonly rules: readonly AllowRule[]) {
    if (rules.length > 31) throw new RangeError(`at most 31 allowlist rules, got ${rules.length}`);
    this.compiled = rules.map((r) => ({
      users: r.users.map(globToRegExp),
      userAgents: r.userAgents.map(globToRegExp),
      namespaces: r.namespaces.map(globToRegExp),
      resources: r.resources.map(globToRegExp),
      verbs: new Set(r.verbs),
    }));
    this.counts = rules.map((r) => ({ name: r.name, requests: 0, writes: 0 }));
    this.noObjectMask = this.maskOf((c) => c.namespaces.length === 0 && c.resources.length === 0);
  }

  private maskOf(pred: (c: Allowlist['compiled'][number]) => boolean): number {
    let m = 0;
    this.compiled.forEach((c, i) => {
      if (pred(c)) m |= 1 << i;
    });
    return m;
  }

  /**
   * Bitmask of the rules a detector obeys (bit `i` = rule `i`): rules scoped to other detectors
   * are left out, and rules naming no detector bind only detectors judging write rates. AND it with {@link match} to decide whether that detector sees a record.
   */
  scopeFor(detectorId: string, judges: 'write-rate' | 'errors' = 'write-rate'): number {
    let m = 0;
    this.rules.forEach((r, i) => {
      if (r.detectors.length === 0 ? judges === 'write-rate' : r.detectors.includes(detectorId)) m |= 1 << i;
    });
    return m;
  }

  /** True (and counted) when a rule for every detector, or any rule, matches `r`. */
  excludes(r: RequestRecord): boolean {
    return this.match(r) !== 0;
  }

  /**
   * Bitmask of the rules matching `r` (0 for none); a match is counted once, for the first rule.
   */
  match(r: RequestRecord): number {
    if (this.compiled.length === 0) return 0;
    // Rule masks cached on the interned actor and object (`allowMask`): they live as long as the
    // normalizer keeps the value interned, so the cache never pins values the run no longer sees.
    const actor = r.actor;
    if (actor.allowOwner !== this) {
      let mask = this.actorMasks.get(actor.key);
      if (mask === undefined) {
        const { username, userAgent } = actor;
        mask = this.maskOf(
          (c) => (c.users.length === 0 || c.users.some((re) => re.test(username))) && (c.userAgents.length === 0 || c.userAgents.some((re) => re.test(userAgent))),
        );
        if (this.actorMasks.size >= ACTOR_MASKS_MAX) this.actorMasks = new Map();
        this.actorMasks.set(actor.key, mask);
      }
      actor.allowMask = mask;
      actor.allowOwner = this;
    }
    const a = actor.allowMask!;
    if (a === 0) return 0;
    let v = this.lastVerbMask;
    if (r.verb !== this.lastVerb) {
      // The closure captures this block's `verb`, not `r`: a closure over a parameter makes V8
      // allocate the call's context at every call, where this block's is allocated only when a
      // verb changes.
      const verb = r.verb;
      v = this.verbMasks.get(verb) ?? -1;
      if (v === -1) {
        v = this.maskOf((c) => c.verbs.size === 0 || c.verbs.has(verb));
        this.verbMasks.set(verb, v);
      }
      this.lastVerb = verb;
      this.lastVerbMask = v;
    }
    let o = this.noObjectMask;
    const obj = r.object;
    if (obj !== null) {
      if (obj.allowOwner !== this) {
        obj.allowMask = this.objectMask(obj);
        obj.allowOwner = this;
      }
      o = obj.allowMask!;
    }
    const m = a & v & o;
    if (m === 0) return 0;
    const c = this.counts[31 - Math.clz32(m & -m)] as AllowCount;
    c.requests++;
    if (r.isWrite) c.writes++;
    return m;
  }

  /** The rules whose namespaces and resources match `obj` (cached per namespace and per kind). */
  private objectMask(obj: ObjectRef): number {
    const masks = this.masks;
    let ns = masks.namespace(obj.namespace);
    if (ns === undefined) {
      ns = this.maskOf((c) => c.namespaces.length === 0 || c.namespaces.some((re) => re.test(obj.namespace)));
      masks.setNamespace(obj.namespace, ns);
    }
    let kind = masks.kind(obj);
    if (kind === undefined) {
      const names = resourceNames(obj);
      kind = this.maskOf((c) => c.resources.length === 0 || c.resources.some((re) => names.some((n) => re.test(n))));
      masks.setKind(obj, kind);
    }
    return ns & kind;
  }

  /** Traffic excluded per rule, in rule order. */
  excluded(): AllowCount[] {
    return this.counts.map((c) => ({ ...c }));
  }
}
