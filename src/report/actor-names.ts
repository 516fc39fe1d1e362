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
 * Rewrite titles so that service accounts sharing a short name read `namespace/name`.
 * The short name is replaced where it stands as a whole word (not already after `/`); a finding
 * with several actors replaces occurrences in actor order. Findings whose short names are unique
 * in the set are returned unchanged.
 * @param findings findings and notes of one report (not modified)
 * @returns new findings in the same order, titles rewritten where needed
 */
export function distinguishActors<T extends Pick<Finding, 'title' | 'actors'>>(findings: readonly T[]): T[] {
  const byShort = new Map<string, Set<string>>();
  for (const f of findings) {
    for (const a of f.actors) {
      const sa = a.serviceAccount;
      if (!sa || sa.name === '') continue;
      let set = byShort.get(sa.name);
      if (set === undefined) byShort.set(sa.name, (set = new Set()));
      set.add(`${sa.namespace}/${sa.name}`);
    }
  }
  return findings.map((f) => {
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
  });
}
