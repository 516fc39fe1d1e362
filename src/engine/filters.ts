/**
 * Request filters from `--namespace`, `--user`, `--resource`, `--verb`, `--since`, `--until`.
 * Decisions per actor and per object are cached on the interned instances, so a filter costs a
 * map lookup per record, not a pattern match.
 */
import type { Actor, ObjectRef, RequestRecord } from '../parser/record.js';

/** Resolved filter settings; empty lists mean "no filter". Times are UTC epoch ms. */
export interface FilterSpec {
  namespaces: readonly string[];
  users: readonly string[];
  resources: readonly string[];
  verbs: readonly string[];
  sinceMs?: number | undefined;
  untilMs?: number | undefined;
}

/** Compile a glob with `*` wildcards into an anchored RegExp. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

/**
 * The names a `--resource` pattern may match for an object: `resource`, `resource.group`, and
 * each with `/subresource` (e.g. `deployments`, `deployments.apps`, `deployments/status`,
 * `deployments.apps/status`). A pattern without `/` matches the object and all its subresources.
 */
export function resourceNames(o: ObjectRef): string[] {
  const withGroup = o.apiGroup ? `${o.resource}.${o.apiGroup}` : o.resource;
  const names = [o.resource, withGroup];
  if (o.subresource) names.push(`${o.resource}/${o.subresource}`, `${withGroup}/${o.subresource}`);
  return names;
}

/** Returns a predicate, or `null` when nothing is filtered. */
export function compileFilter(spec: FilterSpec): ((r: RequestRecord) => boolean) | null {
  const ns = spec.namespaces.length ? new Set(spec.namespaces) : null;
  const verbs = spec.verbs.length ? new Set(spec.verbs) : null;
  const users = spec.users.length ? spec.users.map(globToRegExp) : null;
  const resources = spec.resources.length ? spec.resources.map(globToRegExp) : null;
  const since = spec.sinceMs ?? -Infinity;
  const until = spec.untilMs ?? Infinity;
  if (!ns && !verbs && !users && !resources && since === -Infinity && until === Infinity) return null;

  // Per interned actor and object; weak, so they never pin what the normalizer dropped.
  const actorOk = new WeakMap<Actor, boolean>();
  const objectOk = new WeakMap<ObjectRef, boolean>();
  return (r) => {
    if (r.ts < since || r.ts > until) return false;
    if (verbs && !verbs.has(r.verb)) return false;
    if (ns && (r.object === null || !ns.has(r.object.namespace))) return false;
    if (users) {
      let ok = actorOk.get(r.actor);
      if (ok === undefined) {
        ok = users.some((re) => re.test(r.actor.username));
        actorOk.set(r.actor, ok);
      }
      if (!ok) return false;
    }
    if (resources) {
      const o = r.object;
      if (o === null) return false;
      let ok = objectOk.get(o);
      if (ok === undefined) {
        const names = resourceNames(o);
        ok = resources.some((re) => names.some((n) => re.test(n)));
        objectOk.set(o, ok);
      }
      if (!ok) return false;
    }
    return true;
  };
}
