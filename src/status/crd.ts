/**
 * `auditstorm crd`: the status contract of each served version of a CustomResourceDefinition
 * (apiextensions.k8s.io/v1, and v1beta1 with its top-level `validation` and `subresources`).
 * Pure: parsed documents in, rows and findings out.
 *
 * Rules and their sources (read, not copied): the status subresource (Kubernetes docs, "Custom
 * resources — Subresources": with it, writes to the main resource ignore status and status writes
 * ignore spec; `metadata.generation` is bumped only on spec changes); conditions as
 * `[]metav1.Condition` with `+listType=map` / `+listMapKey=type` (kube-api-linter's `conditions`
 * rule, KEP-1623); `status.observedGeneration` an int64 with minimum 0 (API conventions, "Typical
 * status properties"; metav1.Condition's own `observedGeneration` has `minimum: 0`); server-side
 * apply list markers (`x-kubernetes-list-type`, "Merge strategy" in the Server-Side Apply docs:
 * a list without one is atomic, owned whole by the last field manager that set it).
 */
import { z } from 'zod';
import type { CrdSection, CrdVersionRow, ReportObject } from '../report/schema.js';
import { asRecord, where, type InputObject } from './input.js';
import { statusFinding, type StatusFinding } from './finding.js';

/** Options of `auditstorm crd` (config key `crd`); every field has a default. */
export const CrdOptionsSchema = z.object({
  /**
   * Spec field names that read as commands (compared lower-case): a field with one of these
   * names, or a boolean whose name starts with one as a camelCase word (`promoteFull`), is an
   * `imperative-field`.
   */
  imperativeFieldNames: z
    .array(z.string().min(1))
    .default(['action', 'command', 'restart', 'trigger', 'abort', 'retry', 'run', 'execute', 'exec', 'promote', 'rollback', 'reset', 'kill', 'cancel', 'redeploy', 'reconcile']),
  /** How many example paths a `ssa-list-markers` finding names. */
  examplePaths: z.number().int().positive().default(5),
});
export type CrdOptions = z.infer<typeof CrdOptionsSchema>;

/** What {@link analyzeCrds} returns. */
export interface CrdResult {
  section: CrdSection;
  findings: StatusFinding[];
  /** CRD documents that could not be read (no versions, no schema): `file:line pointer: reason`. */
  bad: { line: number; reason: string }[];
}

type Schema = Record<string, unknown>;

function props(s: Schema | undefined): Record<string, Schema> {
  const p = asRecord(s?.['properties']);
  const out: Record<string, Schema> = {};
  if (p)
    for (const [k, v] of Object.entries(p)) {
      const r = asRecord(v);
      if (r) out[k] = r;
    }
  return out;
}

const CONDITION_FIELDS = ['type', 'status', 'reason', 'message', 'lastTransitionTime', 'observedGeneration'];

/** Lists of objects under `s` without `x-kubernetes-list-type` (paths like `.spec.ports[]`). */
function atomicLists(s: Schema, path: string, out: string[], depth = 0): void {
  if (depth > 64) return;
  if (s['type'] === 'array') {
    const items = asRecord(s['items']);
    if (items && (items['type'] === 'object' || asRecord(items['properties']) !== undefined) && s['x-kubernetes-list-type'] === undefined) out.push(path);
    if (items) atomicLists(items, `${path}[]`, out, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(props(s))) atomicLists(v, `${path}.${k}`, out, depth + 1);
  const ap = asRecord(s['additionalProperties']);
  if (ap) atomicLists(ap, `${path}.*`, out, depth + 1);
}

/** camelCase words of a field name, lower-case: `promoteFull` → `['promote', 'full']`. */
function words(name: string): string[] {
  return name
    .split(/(?=[A-Z])|[_-]/)
    .map((w) => w.toLowerCase())
    .filter((w) => w !== '');
}

interface Version {
  name: string;
  storage: boolean;
  schema: Schema | undefined;
  subresources: Schema | undefined;
}

/** The served versions of a CRD, v1 or v1beta1 (per-version fields falling back to the top-level ones). */
function servedVersions(spec: Schema): Version[] {
  const topSchema = asRecord(asRecord(spec['validation'])?.['openAPIV3Schema']);
  const topSub = asRecord(spec['subresources']);
  const list = Array.isArray(spec['versions']) ? spec['versions'] : [];
  const out: Version[] = [];
  for (const raw of list) {
    const v = asRecord(raw);
    if (!v || typeof v['name'] !== 'string' || v['served'] === false) continue;
    out.push({
      name: v['name'],
      storage: v['storage'] === true,
      schema: asRecord(asRecord(v['schema'])?.['openAPIV3Schema']) ?? topSchema,
      subresources: asRecord(v['subresources']) ?? topSub,
    });
  }
  if (list.length === 0 && typeof spec['version'] === 'string') out.push({ name: spec['version'], storage: true, schema: topSchema, subresources: topSub });
  return out;
}

/**
 * Judge every CRD in the input; other documents are counted in `otherDocuments`.
 *
 * @param objects what {@link readObjects} read
 * @param source the file name, for messages
 * @param options parsed {@link CrdOptionsSchema}
 * @param at the report's instant (epoch ms) for the findings' window
 */
export function analyzeCrds(objects: readonly InputObject[], source: string, options: CrdOptions, at: number): CrdResult {
  const versions: CrdVersionRow[] = [];
  const findings: StatusFinding[] = [];
  const bad: { line: number; reason: string }[] = [];
  let other = 0;
  const imperative = new Set(options.imperativeFieldNames.map((n) => n.toLowerCase()));
  for (const o of objects) {
    const doc = asRecord(o.value);
    if (doc?.['kind'] !== 'CustomResourceDefinition') {
      other++;
      continue;
    }
    const crdName = asRecord(doc['metadata'])?.['name'];
    const spec = asRecord(doc['spec']);
    const group = typeof spec?.['group'] === 'string' ? spec['group'] : '';
    const kind = asRecord(spec?.['names'])?.['kind'];
    if (typeof crdName !== 'string' || spec === undefined || typeof kind !== 'string') {
      bad.push({ line: o.line, reason: `${where(source, o)}: a CustomResourceDefinition without metadata.name, spec or spec.names.kind; skipped` });
      continue;
    }
    const served = servedVersions(spec);
    if (served.length === 0) {
      bad.push({ line: o.line, reason: `${where(source, o, '/spec/versions')}: ${crdName} serves no version; skipped` });
      continue;
    }
    for (const v of served) {
      const ref: ReportObject = { apiGroup: group, apiVersion: v.name, resource: kind, namespace: '', name: crdName, subresource: '' };
      const label = `${crdName} ${v.name}`;
      const root = v.schema;
      const status = props(root)['status'];
      const specSchema = props(root)['spec'];
      const hasStatus = status !== undefined;
      const statusSubresource = asRecord(v.subresources?.['status']) !== undefined;
      const statusProps = props(status);
      const conds = statusProps['conditions'];
      const condItems = asRecord(conds?.['items']);
      const condProps = props(condItems);
      const hasCondObsGen = condProps['observedGeneration'] !== undefined;

      // Status subresource.
      if (hasStatus && !statusSubresource) {
        findings.push(
          statusFinding({
            kind: 'crd-status-subresource',
            severity: 'high',
            at,
            object: ref,
            title: `${label}: the schema has .status but the status subresource is not enabled`,
            metrics: { version: v.name },
            signals: ['no-status-subresource'],
            advice: [
              {
                id: 'enable-status-subresource',
                text: 'Add `subresources: {status: {}}` (kubebuilder: +kubebuilder:subresource:status) and write status with UpdateStatus/Patch on /status. Without it every status write is a write of the whole object: it can overwrite spec, and a controller that watches its own objects re-reconciles after each of its status writes, a self-triggering loop.',
              },
            ],
          }),
        );
      }

      // Conditions.
      let condState: CrdVersionRow['conditions'] = 'none';
      if (conds !== undefined) {
        const signals: string[] = [];
        if (conds['type'] !== 'array' || condItems === undefined || Object.keys(condProps).length === 0) {
          condState = 'other';
          signals.push('conditions-not-a-list-of-objects');
        } else {
          const listType = conds['x-kubernetes-list-type'];
          const keys = conds['x-kubernetes-list-map-keys'];
          const keyed = listType === 'map' && Array.isArray(keys) && keys.length === 1 && keys[0] === 'type';
          condState = keyed ? 'list-map' : 'list';
          if (listType !== 'map') signals.push('no-list-type-map');
          else if (!keyed) signals.push('list-map-keys-not-type');
          for (const f of ['type', 'status', 'reason', 'message', 'lastTransitionTime']) if (condProps[f] === undefined) signals.push(`no-${f}`);
          const req = Array.isArray(condItems['required']) ? condItems['required'] : [];
          if (!req.includes('type') || !req.includes('status')) signals.push('type-status-not-required');
          const en = condProps['status']?.['enum'];
          if (condProps['status'] !== undefined && !(Array.isArray(en) && en.length === 3 && CONDITION_STATUSES_SET.every((s) => en.includes(s)))) signals.push('status-not-enum');
          const extra = Object.keys(condProps)
            .filter((k) => !CONDITION_FIELDS.includes(k))
            .sort();
          if (extra.length > 0) signals.push('not-metav1-condition');
          if (signals.length > 0) {
            const severe = signals.includes('no-list-type-map') || signals.includes('list-map-keys-not-type') || signals.includes('no-type') || signals.includes('no-status');
            findings.push(
              statusFinding({
                kind: 'crd-conditions',
                severity: severe ? 'medium' : 'low',
                at,
                object: ref,
                title: `${label}: status.conditions ${describeCondSignals(signals, conds, extra)}`,
                metrics: { listType: typeof listType === 'string' ? listType : null, extraFields: extra.join(',') || null },
                signals,
                advice: [
                  {
                    id: 'metav1-condition-list-map',
                    text: "Declare `Conditions []metav1.Condition` with +listType=map and +listMapKey=type (and patchStrategy=merge, patchMergeKey=type): each condition is then its own server-side-apply entry, so two writers setting different condition types do not replace each other's, and the schema enforces status True/False/Unknown and a CamelCase reason.",
                  },
                ],
              }),
            );
          }
        }
      } else if (hasStatus) {
        findings.push(
          statusFinding({
            kind: 'crd-conditions',
            severity: 'low',
            at,
            object: ref,
            title: `${label}: status has no conditions`,
            metrics: {},
            signals: ['no-conditions'],
            advice: [
              {
                id: 'add-conditions',
                text: 'Add status.conditions ([]metav1.Condition, a list-map keyed by type) with a Ready (or Available) condition: kubectl wait --for=condition=Ready, kstatus and GitOps tools read readiness from it.',
              },
            ],
          }),
        );
      }

      // observedGeneration.
      let obsState: CrdVersionRow['observedGeneration'] = 'none';
      const obs = statusProps['observedGeneration'];
      if (obs !== undefined) {
        if (obs['type'] !== 'integer') {
          obsState = 'other';
          findings.push(
            statusFinding({
              kind: 'crd-observed-generation',
              severity: 'medium',
              at,
              object: ref,
              title: `${label}: status.observedGeneration is declared as ${typeof obs['type'] === 'string' ? obs['type'] : 'an untyped field'}, not an integer`,
              metrics: { type: typeof obs['type'] === 'string' ? obs['type'] : null },
              signals: ['observed-generation-not-integer'],
              advice: [
                {
                  id: 'observed-generation-int64',
                  text: 'Declare observedGeneration as an int64 with minimum 0 (`type: integer`, `format: int64`, `minimum: 0`): readers compare it with metadata.generation as numbers.',
                },
              ],
            }),
          );
        } else if (typeof obs['minimum'] !== 'number' || obs['minimum'] < 0) {
          obsState = 'integer-no-minimum';
          findings.push(
            statusFinding({
              kind: 'crd-observed-generation',
              severity: 'info',
              at,
              object: ref,
              title: `${label}: status.observedGeneration is an integer without minimum 0`,
              metrics: {},
              signals: ['observed-generation-no-minimum'],
              advice: [
                {
                  id: 'observed-generation-minimum',
                  text: "Add `minimum: 0` (+kubebuilder:validation:Minimum=0), as metav1.Condition's observedGeneration has: a negative value never describes a generation.",
                },
              ],
            }),
          );
        } else obsState = 'integer';
      } else if (hasStatus) {
        obsState = hasCondObsGen ? 'per-condition' : 'none';
        if (!hasCondObsGen) {
          findings.push(
            statusFinding({
              kind: 'crd-observed-generation',
              severity: 'low',
              at,
              object: ref,
              title: `${label}: status has no observedGeneration (neither top-level nor in conditions)`,
              metrics: {},
              signals: ['no-observed-generation'],
              advice: [
                {
                  id: 'observed-generation',
                  text: 'Add status.observedGeneration (int64, minimum 0), set to metadata.generation after a successful reconcile, so readers can tell whether status describes the current spec.',
                },
              ],
            }),
          );
        }
      }

      // Imperative spec fields (direct properties of spec).
      for (const [name, f] of Object.entries(props(specSchema)).sort((a, b) => a[0].localeCompare(b[0]))) {
        const w = words(name);
        const exact = imperative.has(name.toLowerCase());
        const verbBool = f['type'] === 'boolean' && w.length > 0 && imperative.has(w[0]!);
        if (!exact && !verbBool) continue;
        findings.push(
          statusFinding({
            kind: 'crd-imperative-field',
            severity: 'low',
            at,
            object: ref,
            title: `${label}: spec.${name}${f['type'] === 'boolean' ? ' (boolean)' : ''} reads as a command, not a desired state`,
            metrics: { field: `spec.${name}`, type: typeof f['type'] === 'string' ? f['type'] : null },
            signals: ['imperative-spec-field'],
            advice: [
              {
                id: 'declarative-alternative',
                text: 'Spec says what should be, status what is: replace a command field with a desired state the controller converges to (a replica count, a paused flag, a version) or, for one-off actions, a value the controller compares with one it records in status (e.g. spec.restartedAt vs status.lastRestartedAt, as kubectl rollout restart uses an annotation timestamp). A command field must be reset by someone, and the controller and the user then fight over it.',
              },
            ],
          }),
        );
      }

      // Server-side apply list markers.
      const lists: string[] = [];
      if (specSchema) atomicLists(specSchema, '.spec', lists);
      if (status) atomicLists(status, '.status', lists);
      const unmarked = lists.filter((p) => p !== '.status.conditions');
      if (unmarked.length > 0) {
        findings.push(
          statusFinding({
            kind: 'ssa-list-markers',
            severity: 'info',
            at,
            object: ref,
            title: `${label}: ${unmarked.length} list${unmarked.length === 1 ? '' : 's'} of objects without x-kubernetes-list-type, e.g. ${unmarked.slice(0, options.examplePaths).join(', ')}`,
            metrics: { lists: unmarked.length },
            signals: ['no-list-type'],
            advice: [
              {
                id: 'ssa-list-type',
                text: "Mark each list of objects +listType=map with +listMapKey (a field that names the item), or +listType=atomic on purpose: without a marker the list is atomic, so with server-side apply the last field manager that sets it owns it whole and two writers replace each other's items.",
              },
            ],
          }),
        );
      }

      versions.push({
        crd: crdName,
        kind,
        version: v.name,
        storage: v.storage,
        hasStatus,
        statusSubresource,
        conditions: condState,
        observedGeneration: obsState,
        atomicObjectLists: unmarked.length,
      });
    }
  }
  return { section: { versions, otherDocuments: other }, findings, bad };
}

const CONDITION_STATUSES_SET = ['True', 'False', 'Unknown'];

function describeCondSignals(signals: string[], conds: Schema, extra: string[]): string {
  const parts: string[] = [];
  if (signals.includes('conditions-not-a-list-of-objects')) return 'is not a list of condition objects';
  if (signals.includes('no-list-type-map')) {
    const lt = conds['x-kubernetes-list-type'];
    parts.push(typeof lt === 'string' ? `is x-kubernetes-list-type: ${lt}, not map` : 'has no x-kubernetes-list-type: map');
  }
  if (signals.includes('list-map-keys-not-type')) parts.push('is a list-map not keyed by [type]');
  const missing = signals.filter((s) => s.startsWith('no-') && s !== 'no-list-type-map').map((s) => s.slice(3));
  if (missing.length > 0) parts.push(`items lack ${missing.join(', ')}`);
  if (signals.includes('type-status-not-required')) parts.push('type and status are not both required');
  if (signals.includes('status-not-enum')) parts.push('status is not an enum of True, False, Unknown');
  if (extra.length > 0) parts.push(`items are not metav1.Condition (extra ${extra.join(', ')})`);
  return parts.join('; ');
}
