/**
 * Advice messages shared by detectors whose evidence depends on the audit level.
 * Audit levels (None < Metadata < Request < RequestResponse) are the kube-apiserver audit
 * policy's; only Request and above record the request body, so only they show what a write changed.
 */
import type { Advice } from '../report/schema.js';

/** Audit levels that record request bodies. */
const BODY_LEVELS = new Set(['Request', 'RequestResponse']);

/**
 * The lastTransitionTime advice when the log can show it (`level` records bodies), else advice
 * on how to confirm it: the audit policy rule that logs this resource's writes at Request level.
 * @param level the audit level of the finding's evidence (`Metadata`, `Request`, …)
 * @param object the written object (`apiGroup`, `resource`, `subresource`)
 * @param text the advice to give when the bodies are there
 */
export function transitionTimeAdvice(level: string, object: { apiGroup: string; resource: string; subresource: string }, text: string): Advice {
  if (BODY_LEVELS.has(level)) return { id: 'stable-transition-time', text };
  const resource = object.subresource ? `${object.resource}/${object.subresource}` : object.resource;
  return {
    id: 'confirm-with-request-level',
    text:
      `This log is at ${level || 'an unknown'} level, so it does not show what each write changed. To see whether a timestamp such as a condition's lastTransitionTime ` +
      `changes on every write, add an audit policy rule that logs these writes at Request level: level: Request, verbs: ["update", "patch"], ` +
      `resources: [{group: "${object.apiGroup}", resources: ["${resource}"]}].`,
  };
}
