/**
 * Request filters from `--namespace`, `--user`, `--resource`, `--verb`, `--since`, `--until`.
 * Decisions per actor and per kind of object are cached, so a filter costs a map lookup per
 * record, not a pattern match.
 */
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';

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

/** Entries a {@link KindMasks} table holds before it starts over (bounded memory on any input). */
export const KIND_MASKS_MAX = 10_000;

/**
 * Per-namespace and per-kind cached decisions (`T`) of a rule set about objects, for decisions
 * that depend on an object's namespace alone or on its group, resource and subresource alone.
 * Kinds are found by {@link ObjectRef.label} and confirmed by their three parts, so two kinds
 * with one label (a resource name with a `.` or `/` in it) never share a decision. A table
 * starts over at {@link KIND_MASKS_MAX} entries.
 */
export class KindMasks<T> {
  private namespaces = new Map<string, T>();
  private kinds = new Map<string, { apiGroup: string; resource: string; subresource: string; value: T }>();

  /** The decision cached for `namespace`, or undefined. */
  namespace(namespace: string): T | undefined {
    return this.namespaces.get(namespace);
  }

  setNamespace(namespace: string, value: T): void {
    if (this.namespaces.size >= KIND_MASKS_MAX) this.namespaces = new Map();
    this.namespaces.set(namespace, value);
  }

  /** The decision cached for `o`'s kind, or undefined. */
  kind(o: ObjectRef): T | undefined {
    const k = this.kinds.get(o.label);
    return k !== undefined && k.resource === o.resource && k.apiGroup === o.apiGroup && k.subresource === o.subresource ? k.value : undefined;
  }

  /** Caches `value` for `o`'s kind, unless another kind holds its label. */
  setKind(o: ObjectRef, value: T): void {
    if (this.kinds.has(o.label)) return;
    if (this.kinds.size >= KIND_MASKS_MAX) this.kinds = new Map();
    this.kinds.set(o.label, { apiGroup: o.apiGroup, resource: o.resource, subresource: o.subresource, value });
  }
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

  // Per interned actor (weak, so it never pins what the normalizer dropped) and per kind.
  const actorOk = new WeakMap<Actor, boolean>();
  const kindOk = new KindMasks<boolean>();
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
      let ok = kindOk.kind(o);
      if (ok === undefined) {
        const names = resourceNames(o);
        ok = resources.some((re) => names.some((n) => re.test(n)));
        kindOk.setKind(o, ok);
      }
      if (!ok) return false;
    }
    return true;
  };
}
