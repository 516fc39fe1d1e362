/**
 * How objects are named everywhere in reports: the way kubectl names resources.
 */

/**
 * `resource[.group][/subresource]`, e.g. `deployments.apps/status`, `pods/log`,
 * `leases.coordination.k8s.io`; the core group adds no suffix.
 */
export function resourceLabel(o: { apiGroup: string; resource: string; subresource: string }): string {
  const base = o.apiGroup ? `${o.resource}.${o.apiGroup}` : o.resource;
  return o.subresource ? `${base}/${o.subresource}` : base;
}

/**
 * `resourceLabel namespace/name`, e.g. `deployments.apps/status shop/web`; cluster-scoped
 * objects have no namespace part, collections (no name) show `namespace/*`.
 */
export function objectLabel(o: { apiGroup: string; resource: string; subresource: string; namespace: string; name: string }): string {
  const where = o.name !== '' ? (o.namespace !== '' ? `${o.namespace}/${o.name}` : o.name) : o.namespace !== '' ? `${o.namespace}/*` : '';
  return where === '' ? resourceLabel(o) : `${resourceLabel(o)} ${where}`;
}
