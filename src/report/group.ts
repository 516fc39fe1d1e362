/**
 * One actor's pattern across many objects is one finding, not hundreds (issue 25, class 10: 317
 * low "suspected no-op-writes" for one node agent's node-status patches, 100 low findings for one
 * controller over 100 objects). Pure: findings in, findings out.
 */
import { shortHash, topList } from '../detectors/common.js';
import { familyOf } from '../detectors/fleet-storm.js';
import type { Actor } from '../decoding/record.js';
import { objectLabel, resourceLabel } from '../labels.js';
import { severityRank, type Finding, type GroupMember, type ReportObject } from './schema.js';

/** Objects named in a group's `topObjects`. */
const TOP_OBJECTS = 5;

/**
 * Findings of one kind, whatever their severity, on at least `minGroup` distinct objects (or
 * actors) with one key (0: never), become one finding per key, as severe as its most severe
 * member (58 `high` conflict storms of one controller on 58 objects are one `high` finding). The
 * key: for a finding about one object, its actor (username and userAgent of its first listed
 * actor); for an actor-level one
 * (no object: throttling), its actor's family as fleet-storm names it (`system:node:*`, a
 * numbered service account), so 236 kubelets throttled alike are one finding. The group:
 * `object` null, `window` spanning them, the members' counts summed (`findings`, `objects`,
 * `actors` counted, `topObjects` / `topActors` naming the busiest by `writes`, else `conflicts`,
 * else `events`, else `throttled`), signals joined, the title's headline, evidence and first
 * actor of the most severe member (the busiest among equals), the advice of every member once;
 * `members` lists every member (id, kind, severity, title, actor, object, window, size, evidence
 * auditIDs).
 * Other findings pass unchanged; the order is kept, a group takes its first member's place.
 * Shares, ratios, rates and durations are not summed (they are left out). Findings of an episode
 * still open (`ongoing`) stay apart.
 * Before that, conflict storms of a fleet storm's members fold into it ({@link foldIntoFleets}),
 * a one-client fleet storm into its client's roll-up of the same 409s ({@link foldOneClientFleets}),
 * a client's per-object conflict storms into its roll-up over their resource ({@link foldIntoRollups}),
 * and one side's own findings on a fought-over object into the write fight ({@link foldIntoFights}).
 */
export function groupFindings(findings: readonly Finding[], minGroup: number): Finding[] {
  if (minGroup <= 0) return [...findings];
  findings = foldIntoFights(foldIntoRollups(foldOneClientFleets(foldIntoFleets(findings, minGroup))));
  const key = (f: Finding): string | null => {
    if (f.ongoing === true) return null;
    const a = f.actors[0];
    if (a === undefined) return null;
    if (f.object !== null) return `${f.kind}\u0001${a.username}\u0001${a.userAgent}`;
    // Actor-level kinds other than fleet storms (themselves families): by family.
    if (f.kind === 'fleet-storm') return null;
    return `${f.kind}\u0002${familyOf({ username: a.username, userAgentProduct: a.userAgentProduct } as Actor).key}`;
  };
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const k = key(f);
    if (k === null) continue;
    const g = groups.get(k);
    if (g === undefined) groups.set(k, [f]);
    else g.push(f);
  }
  const out: Finding[] = [];
  const done = new Set<string>();
  for (const f of findings) {
    const k = key(f);
    const g = k === null ? undefined : groups.get(k);
    if (k === null || g === undefined || distinctUnits(g) < minGroup) {
      out.push(f);
      continue;
    }
    if (done.has(k)) continue;
    done.add(k);
    out.push(groupOf(g));
  }
  return out;
}

/** The family key (as `familyOf` gives it) of a finding's first actor, or null without one. */
function familyKey(f: Finding): string | null {
  const a = f.actors[0];
  return a === undefined ? null : familyOf({ username: a.username, userAgentProduct: a.userAgentProduct } as Actor).key;
}

/**
 * Members of a family that a `fleet-storm` finding covers are that finding, not one finding each:
 * one fleet's pattern across its members is one finding with the list of members. A `conflict-storm` finding folds into a fleet storm of more than one actor
 * when its actor is of the fleet's family (`familyOf`: username pattern and userAgent product),
 * its window overlaps the fleet's, it is not more severe, and the fleet covers at least `minGroup`
 * such findings. The fleet storm keeps its own numbers and gains `memberFindings` (how many were
 * folded), `topMemberFindings` (the busiest, by 409s: `username object(conflicts)`) and `members`
 * (each folded finding); its title says so. Folded findings leave the list; the rest keep their order.
 */
function foldIntoFleets(findings: readonly Finding[], minGroup: number): readonly Finding[] {
  const fleets = findings.filter((f) => f.kind === 'fleet-storm' && Number(f.metrics.actors) > 1);
  if (fleets.length === 0) return findings;
  const folded = new Map<Finding, Finding[]>();
  const taken = new Set<Finding>();
  for (const fleet of fleets) {
    const fam = `${String(fleet.metrics.family)}\u0001${fleet.actors[0]?.userAgentProduct ?? ''}`;
    const members = findings.filter(
      (f) =>
        f.kind === 'conflict-storm' &&
        !taken.has(f) &&
        familyKey(f) === fam &&
        f.window.from <= fleet.window.to &&
        f.window.to >= fleet.window.from &&
        severityRank(f.severity) <= severityRank(fleet.severity) &&
        (f.ongoing === true) === (fleet.ongoing === true),
    );
    if (members.length < minGroup) continue;
    for (const m of members) taken.add(m);
    folded.set(fleet, members);
  }
  if (taken.size === 0) return findings;
  return refold(findings, taken, folded, (f, members) => {
    const name = (m: Finding): string => `${m.actors[0]?.username ?? ''}${m.object === null ? '' : ` ${objectLabel(m.object)}`}`;
    const conflicts = (m: Finding): number => Number(m.metrics.conflicts ?? 0);
    const byConflicts = [...members].sort((a, b) => conflicts(b) - conflicts(a) || byText(name(a), name(b)) || byText(a.id, b.id));
    const rows = byConflicts.map((m): [string, number] => [name(m), conflicts(m)]);
    return {
      ...f,
      title: `${f.title}; ${members.length} conflict-storm findings of its members folded in`,
      metrics: {
        ...f.metrics,
        memberFindings: members.length,
        topMemberFindings: rows
          .slice(0, TOP_OBJECTS)
          .map(([l, c]) => `${l}(${c})`)
          .join(', '),
      },
      members: byConflicts.map((m) => memberOf(m, conflicts(m))),
    };
  });
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What a group lists of one member: `count` is its size as the group ranked it. */
function memberOf(f: Finding, count: number): GroupMember {
  return {
    id: f.id,
    kind: f.kind,
    severity: f.severity,
    title: f.title,
    auditIDs: [...f.evidence.auditIDs],
    username: f.actors[0]?.username ?? '',
    object: f.object === null ? null : { ...f.object },
    window: { ...f.window },
    count,
  };
}

/** Share of a one-client fleet storm's 409s a conflict-storm roll-up must hold to be the same storm. */
const SAME_STORM_SHARE = 0.8;

/**
 * A `fleet-storm` of one client (one controller's 409s across many objects) and that controller's
 * `conflict-storm` roll-up over one resource (`object` null) in an overlapping window, holding at
 * least {@link SAME_STORM_SHARE} of the fleet storm's 409s, are one storm told twice (flux2#3689's
 * Kustomizations): the fleet storm folds into the roll-up, which keeps its retry verdicts and
 * advice, takes the more severe of the two severities, and lists the fleet storm in `members`; its
 * title says so. Fleet storms of several clients (the fleet's own finding) stay.
 */
function foldOneClientFleets(findings: readonly Finding[]): readonly Finding[] {
  const fleets = findings.filter((f) => f.kind === 'fleet-storm' && Number(f.metrics.actors) === 1 && Number(f.metrics.clients ?? 1) === 1 && f.ongoing !== true);
  if (fleets.length === 0) return findings;
  const into = new Map<Finding, Finding>();
  const taken = new Set<Finding>();
  for (const fleet of fleets) {
    const user = fleet.actors[0]?.username;
    const rollup = findings.find(
      (f) =>
        f.kind === 'conflict-storm' &&
        f.object === null &&
        f.ongoing !== true &&
        !into.has(f) &&
        f.actors[0]?.username === user &&
        f.window.from <= fleet.window.to &&
        f.window.to >= fleet.window.from &&
        Number(f.metrics.conflicts ?? 0) >= SAME_STORM_SHARE * Number(fleet.metrics.conflicts ?? 0),
    );
    if (rollup === undefined) continue;
    into.set(rollup, fleet);
    taken.add(fleet);
  }
  if (taken.size === 0) return findings;
  return refold(findings, taken, into, (f, fleet) => ({
    ...f,
    severity: severityRank(fleet.severity) > severityRank(f.severity) ? fleet.severity : f.severity,
    title: `${f.title}; the fleet-storm finding on the same 409s folded in`,
    members: [...(f.members ?? []), memberOf(fleet, Number(fleet.metrics.conflicts ?? 0))],
  }));
}

/** Kinds whose detectors roll one identity's objects up into one finding (`object` null, `metrics.resource`). */
const ROLLUP_KINDS: ReadonlySet<string> = new Set(['conflict-storm', 'hot-loop', 'no-op-writes']);

/**
 * A client's episodes on single objects of a resource its roll-up of the same kind covers
 * (`metrics.resource`, comma-separated when it spans several), not more severe and with at least
 * {@link ROLLUP_MIN_OVERLAP} of their span inside the roll-up's window, count the roll-up's writes
 * again (a conflict-storm roll-up over 200 objects beside their 200 episodes; KEDA's status
 * re-stamps as one `no-op-writes` roll-up beside 114 objects' own episodes, whose first writes the
 * roll-up had counted before each object opened its own). They fold into the roll-up's `members`,
 * and its title says how many. Findings of episodes still open stay apart.
 */
function foldIntoRollups(findings: readonly Finding[]): readonly Finding[] {
  const rollups = findings.filter((f) => ROLLUP_KINDS.has(f.kind) && f.object === null && typeof f.metrics.resource === 'string' && f.ongoing !== true);
  const covers = (rollup: Finding, f: Finding): boolean =>
    String(rollup.metrics.resource)
      .split(', ')
      .includes(resourceLabel(f.object as ReportObject));
  return foldEpisodes(
    findings,
    rollups,
    (rollup, f) => f.kind === rollup.kind && f.actors[0]?.username === rollup.actors[0]?.username && covers(rollup, f),
    (f, members) => ({
      ...f,
      title: `${f.title}; ${members.length} ${f.kind} ${members.length === 1 ? 'finding' : 'findings'} on single objects of the same ${f.kind === 'conflict-storm' ? '409s' : 'writes'} folded in`,
      members: [...(f.members ?? []), ...ranked(members)],
    }),
    ROLLUP_MIN_OVERLAP,
  );
}

/**
 * Share of an episode's span that must fall inside a roll-up's window for it to fold in: the
 * roll-up counted what came before the object opened its own episode, so an episode mostly after
 * the roll-up (kubewarden's three 10-minute loops beside a roll-up of their first 2 minutes) is
 * the object's own story, not the roll-up's told again.
 */
const ROLLUP_MIN_OVERLAP = 0.5;

/** Kinds of a fight's side's own findings on the fought-over object that the fight explains. */
const FIGHT_SIDE_KINDS: ReadonlySet<string> = new Set(['hot-loop', 'no-op-writes', 'conflict-storm']);

/**
 * Two writers taking turns on one object each write it again and again, each reacting to the
 * other (external-secrets#3817's Secret): one side's `hot-loop`, `no-op-writes` or
 * `conflict-storm` on that object (any subresource), by one of the `write-fight`'s actors, in an
 * overlapping window and not more severe, is the fight told again from one side. It folds into the
 * fight's `members`, the fight keeps its signals and advice too (each once), and the fight's title
 * says how many. Findings of episodes still open stay apart.
 */
function foldIntoFights(findings: readonly Finding[]): readonly Finding[] {
  const fights = findings.filter((f) => f.kind === 'write-fight' && f.object !== null && f.ongoing !== true);
  const same = (a: ReportObject, b: ReportObject): boolean => a.apiGroup === b.apiGroup && a.resource === b.resource && a.namespace === b.namespace && a.name === b.name;
  return foldEpisodes(
    findings,
    fights,
    (fight, f) => FIGHT_SIDE_KINDS.has(f.kind) && fight.actors.some((a) => a.username === f.actors[0]?.username) && same(f.object as ReportObject, fight.object as ReportObject),
    (f, members) => ({
      ...f,
      title: `${f.title}; ${members.length} ${members.length === 1 ? 'finding' : 'findings'} of one side on the same writes folded in`,
      signals: [...new Set([...f.signals, ...members.flatMap((m) => m.signals)])],
      advice: [...new Map([...f.advice, ...members.flatMap((m) => m.advice)].map((x) => [x.id, x])).values()],
      members: [...(f.members ?? []), ...ranked(members)],
    }),
  );
}

/**
 * Each host (in order) takes the findings about one object that `belongs` to it, not more severe,
 * of episodes no longer open and not taken by an earlier host, whose window overlaps the host's
 * (by at least `minShare` of the finding's own span when it is above 0); `merge` makes the host
 * with what it took. Findings taken leave the list.
 */
function foldEpisodes(
  findings: readonly Finding[],
  hosts: readonly Finding[],
  belongs: (host: Finding, f: Finding) => boolean,
  merge: (host: Finding, members: Finding[]) => Finding,
  minShare = 0,
): readonly Finding[] {
  const folded = new Map<Finding, Finding[]>();
  const taken = new Set<Finding>();
  for (const host of hosts) {
    const members = findings.filter(
      (f) =>
        f.object !== null &&
        f.ongoing !== true &&
        !taken.has(f) &&
        (minShare === 0 || overlapShare(f, host) >= minShare) &&
        f.window.from <= host.window.to &&
        f.window.to >= host.window.from &&
        severityRank(f.severity) <= severityRank(host.severity) &&
        belongs(host, f),
    );
    if (members.length === 0) continue;
    for (const m of members) taken.add(m);
    folded.set(host, members);
  }
  return taken.size === 0 ? findings : refold(findings, taken, folded, merge);
}

/** The share (0..1) of `f`'s window inside `host`'s (1 for an instant inside it). */
function overlapShare(f: Finding, host: Finding): number {
  const from = Date.parse(f.window.from);
  const to = Date.parse(f.window.to);
  const inside = Math.min(to, Date.parse(host.window.to)) - Math.max(from, Date.parse(host.window.from));
  if (to <= from) return inside >= 0 ? 1 : 0;
  return Math.max(0, inside) / (to - from);
}

/** What a host lists of the findings folded into it: largest first (ties by id). */
function ranked(members: readonly Finding[]): GroupMember[] {
  return [...members].sort((a, b) => weight(b) - weight(a) || byText(a.id, b.id)).map((m) => memberOf(m, weight(m)));
}

/** `findings` without the `taken` ones, each host (a key of `hosts`) replaced by `merge` of it and what folded into it; order kept. */
function refold<T>(findings: readonly Finding[], taken: ReadonlySet<Finding>, hosts: ReadonlyMap<Finding, T>, merge: (host: Finding, folded: T) => Finding): Finding[] {
  const out: Finding[] = [];
  for (const f of findings) {
    if (taken.has(f)) continue;
    const folded = hosts.get(f);
    out.push(folded === undefined ? f : merge(f, folded));
  }
  return out;
}

/** The numeric metric that measures a member's size: writes, else conflicts, else events. */
function weight(f: Finding): number {
  for (const m of ['writes', 'conflicts', 'events', 'throttled']) {
    const v = f.metrics[m];
    if (typeof v === 'number') return v;
  }
  return 0;
}

/** Members' sizes ({@link weight}) summed per label. */
function weightsBy(members: readonly Finding[], label: (f: Finding) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of members) out.set(label(f), (out.get(label(f)) ?? 0) + weight(f));
  return out;
}

/** What a group counts toward `minGroup`: distinct objects, or distinct usernames for actor-level findings (a finding per episode, so one object's repeated episodes count once). */
function distinctUnits(members: readonly Finding[]): number {
  return new Set(members.map((f) => (f.object === null ? `\u0001${f.actors[0]?.username ?? ''}` : objectLabel(f.object)))).size;
}

function groupOf(members: Finding[]): Finding {
  const byWeight = [...members].sort((a, b) => weight(b) - weight(a) || byText(a.id, b.id));
  const top = byWeight[0] as Finding;
  // The headline (title, actor, evidence) is the most severe member's, the busiest among equals:
  // a critical storm on one object must not stand behind a busier low one.
  const bySeverity = [...byWeight].sort((a, b) => severityRank(b.severity) - severityRank(a.severity));
  const head = bySeverity[0] as Finding;
  const metrics: Finding['metrics'] = {};
  for (const f of members) {
    for (const [name, v] of Object.entries(f.metrics)) {
      // Sums of counts only: shares, ratios, rates and percentiles of members do not add up.
      if (typeof v !== 'number' || /^share|Share|Ratio|PerSec|P50|P90|Ms$|Per[A-Z]|Growth/.test(name)) continue;
      const was = typeof metrics[name] === 'number' ? metrics[name] : 0;
      // Members without an object (roll-ups over objects) may cover the same objects, and distinct
      // counts (source IPs, actors) of members overlap: the group has at least the largest, not the sum.
      metrics[name] = (f.object === null && /^objects/.test(name)) || /Count$/.test(name) ? Math.max(was, v) : was + v;
    }
  }
  metrics.findings = members.length;
  const byObject = top.object !== null;
  if (byObject) {
    // Per object: one object's episodes at different times are one entry.
    const perObject = weightsBy(byWeight, (f) => (f.object === null ? '' : objectLabel(f.object)));
    metrics.objects = perObject.size;
    metrics.topObjects = topList(perObject, (label) => label, TOP_OBJECTS);
  } else {
    // Per username: the members of one family may be one actor's findings at different times.
    const perActor = weightsBy(byWeight, (f) => f.actors[0]?.username ?? '');
    metrics.actors = perActor.size;
    metrics.topActors = topList(perActor, (user) => user, TOP_OBJECTS);
  }
  const from = members.reduce((m, f) => (f.window.from < m ? f.window.from : m), top.window.from);
  const to = members.reduce((m, f) => (f.window.to > m ? f.window.to : m), top.window.to);
  const severity = members.reduce((s, f) => (severityRank(f.severity) > severityRank(s) ? f.severity : s), top.severity);
  const signals = [...new Set(members.flatMap((f) => f.signals))].sort();
  // Every member's advice, once each, the most severe members' first.
  const advice = [...new Map(bySeverity.flatMap((f) => f.advice.map((a) => [a.id, a] as const))).values()];
  const name = top.actors[0]?.username ?? '';
  const which = head === top ? 'the busiest' : 'the most severe';
  return {
    id: `${top.kind}:group:${shortHash(`${top.kind}\u0001${name}\u0001${top.actors[0]?.userAgent ?? ''}\u0001${from}`)}`,
    kind: top.kind,
    severity,
    title: byObject
      ? `${members.length} ${top.kind} findings of one actor on ${metrics.objects} objects; ${which}: ${head.title}`
      : `${members.length} ${top.kind} findings of one family (${familyOf({ username: name, userAgentProduct: top.actors[0]?.userAgentProduct ?? '' } as Actor).pattern}, ${metrics.actors} actors); ${which}: ${head.title}`,
    actors: head.actors,
    object: null,
    window: { from, to },
    metrics,
    signals,
    evidence: head.evidence,
    advice,
    members: byWeight.map((f) => memberOf(f, weight(f))),
  };
}
