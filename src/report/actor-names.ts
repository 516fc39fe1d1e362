/**
 * Titles that tell actors apart. Detectors name an actor by its short service-account name
 * (`controller-manager`); when one short name stands for service accounts in several namespaces
 * in the same report, each finding's title gets the `namespace/name` form instead.
 */
import type { Finding } from './schema.js';

/** Escape a string for use inside a RegExp. */
function reEscape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Adds the service accounts of `f`'s actors to `byShort` (short name → `namespace/name`s seen).
 * @param byShort the map to grow (modified)
 */
export function noteActors(byShort: Map<string, Set<string>>, f: Pick<Finding, 'actors'>): void {
  for (const a of f.actors) {
    const sa = a.serviceAccount;
    if (!sa || sa.name === '') continue;
    let set = byShort.get(sa.name);
    if (set === undefined) byShort.set(sa.name, (set = new Set()));
    set.add(`${sa.namespace}/${sa.name}`);
  }
}

/**
 * `f` with its title naming each service account as `namespace/name` where `byShort` (see
 * {@link noteActors}) holds several service accounts of that short name. The short name is
 * replaced where it stands as a whole word (not already after `/`); a finding with several actors
 * replaces occurrences in actor order.
 * @returns `f` itself when nothing changed, else a copy with the new title
 */
export function distinguishTitle<T extends Pick<Finding, 'title' | 'actors'>>(f: T, byShort: ReadonlyMap<string, ReadonlySet<string>>): T {
  let title = f.title;
  let from = 0;
  for (const a of f.actors) {
    const sa = a.serviceAccount;
    if (!sa || (byShort.get(sa.name)?.size ?? 0) < 2) continue;
    const re = new RegExp(`(^|[^\\w/.:-])${reEscape(sa.name)}(?![\\w/-])`, 'g');
    re.lastIndex = from;
    const m = re.exec(title);
    if (m === null) continue;
    const at = m.index + m[1]!.length;
    const full = `${sa.namespace}/${sa.name}`;
    title = title.slice(0, at) + full + title.slice(at + sa.name.length);
    from = at + full.length;
  }
  return title === f.title ? f : { ...f, title };
}

/**
 * Rewrite titles so that service accounts sharing a short name read `namespace/name`
 * ({@link distinguishTitle}). Findings whose short names are unique in the set are returned
 * unchanged.
 * @param findings findings and notes of one report (not modified)
 * @returns new findings in the same order, titles rewritten where needed
 */
export function distinguishActors<T extends Pick<Finding, 'title' | 'actors'>>(findings: readonly T[]): T[] {
  const byShort = new Map<string, Set<string>>();
  for (const f of findings) noteActors(byShort, f);
  return findings.map((f) => distinguishTitle(f, byShort));
}
