/**
 * The parsers this folder frames for, written alongside it: `../unwrap.ts` (`unwrapValue`: one
 * JSON value → the audit events of a GKE, EKS, AKS, OpenShift ViaQ or OTLP wrapper) and
 * `../legacy.ts` (legacy text lines). Imported through here so the framing code names one seam.
 */
import type { AuditEvent } from '../event.js';

export { unwrapValue } from '../unwrap.js';
export { LegacyDecoder, isLegacyLine } from '../legacy.js';

/** Events found in one unit (line, element, document), as `unwrapValue` returns them. */
export interface Unwrapped {
  /** Where they came from: `event` (bare), `eventlist`, or a wrapper (`gke`, `eks`, `aks`, `viaq`, `otlp`). */
  shape: string;
  events: AuditEvent[];
  /** One reason per item that is not an audit event. */
  bad: string[];
  /** Items cut by CloudWatch (`[Truncated...]`): counted apart, not as bad. */
  truncated: number;
  /** Of `truncated`, those read leniently from their prefix (their events are in `events`). */
  truncatedRead?: number;
  /** Items that are not audit events by design (other categories, services, streams, log types). */
  skipped?: number;
}
