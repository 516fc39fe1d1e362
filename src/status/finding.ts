/**
 * Findings of `auditstorm objects` and `auditstorm crd` in the report's one {@link Finding}
 * shape: no actors (nothing here names a writer), no auditIDs (no audit log was read), the
 * window a single instant (the capture's clock). `object.resource` holds the object's `kind`
 * (a capture names kinds, not resources) and, for CRD findings, `object.name` the CRD's name and
 * `object.apiVersion` the version judged.
 */
import { shortHash } from '../detectors/common.js';
import { detectorDocsUrl } from '../docs-link.js';
import type { Advice, Finding, ReportObject, Severity } from '../report/schema.js';

/** A finding of the status commands (a plain {@link Finding}). */
export type StatusFinding = Finding;

/** What {@link statusFinding} needs. `at`: the instant (epoch ms) the finding is about. */
export interface StatusFindingInput {
  kind: string;
  severity: Severity;
  title: string;
  object: ReportObject | null;
  at: number;
  metrics: Record<string, number | string | boolean | null>;
  signals: string[];
  advice: Advice[];
}

/** Build a finding; the id hashes kind, object and title so it is stable across runs. */
export function statusFinding(f: StatusFindingInput): StatusFinding {
  const o = f.object;
  const key = o === null ? '' : `${o.apiGroup}/${o.apiVersion}/${o.resource}/${o.namespace}/${o.name}`;
  const t = new Date(f.at).toISOString();
  return {
    id: `${f.kind}-${shortHash(`${f.kind}|${key}|${f.title}`)}`,
    kind: f.kind,
    severity: f.severity,
    title: f.title,
    actors: [],
    object: o,
    window: { from: t, to: t },
    metrics: f.metrics,
    signals: f.signals,
    evidence: { auditIDs: [], firstAuditID: '', lastAuditID: '', auditLevel: '', level: 'proven' },
    advice: f.advice,
    docs: detectorDocsUrl(f.kind),
  };
}
