/**
 * Request and response bodies for writes logged at `Request` / `RequestResponse` level: a custom
 * resource (or built-in) object with `status.conditions`, as controller-runtime status writers
 * send it. `metadata.managedFields` is left out, as with the common `omitManagedFields: true`
 * audit policy (audit-formats.md §1.2).
 */
import { microTime, type Micros, type Target } from './events.js';

/** One `metav1.Condition`. `lastTransitionTime` is a `metav1.Time`: RFC 3339, whole seconds. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** `metav1.Time` JSON of a time in µs: `2006-01-02T15:04:05Z` (seconds are truncated). */
export function metaTime(us: Micros): string {
  return `${microTime(us).slice(0, 19)}Z`;
}

/** `FeatureFlag` from `featureflags`: the Kind a resource name most likely belongs to. */
export function kindOf(resource: string): string {
  const singular = resource.endsWith('ies') ? `${resource.slice(0, -3)}y` : resource.replace(/s$/, '');
  return singular.charAt(0).toUpperCase() + singular.slice(1);
}

/** The healthy conditions an operator reports, with the given transition time. */
export function readyConditions(generation: number, transitionUs: Micros): Condition[] {
  const lastTransitionTime = metaTime(transitionUs);
  return [
    { type: 'Ready', status: 'True', observedGeneration: generation, lastTransitionTime, reason: 'ReconcileSucceeded', message: 'all resources are up to date' },
    { type: 'Progressing', status: 'False', observedGeneration: generation, lastTransitionTime, reason: 'Idle', message: 'no changes pending' },
  ];
}

/** What {@link objectWithStatus} needs to know about the object. */
export interface ObjectIdentity {
  target: Target;
  uid: string;
  generation: number;
  creationUs: Micros;
}

/** The whole object as a status writer PUTs it (and as the apiserver returns it). */
export function objectWithStatus(o: ObjectIdentity, resourceVersion: string, conditions: Condition[]): unknown {
  const t = o.target;
  return {
    kind: kindOf(t.resource),
    apiVersion: t.apiGroup ? `${t.apiGroup}/${t.apiVersion}` : t.apiVersion,
    metadata: {
      name: t.name,
      ...(t.namespace ? { namespace: t.namespace } : {}),
      uid: o.uid,
      resourceVersion,
      generation: o.generation,
      creationTimestamp: metaTime(o.creationUs),
    },
    spec: { paused: false },
    status: { observedGeneration: o.generation, conditions },
  };
}
