/**
 * `auditstorm objects`: reads the objects of `kubectl get <kind> -A -o json` and judges each one's
 * status against its spec and against the standard condition shape. Pure: objects in, rows and
 * findings out; the clock is `--now` or the newest timestamp in the input (never the wall clock),
 * so the same file gives the same report.
 *
 * Domain facts: `metadata.generation` is bumped by the API server on every spec change and
 * `status.observedGeneration` is the generation the controller last acted on (Kubernetes API
 * conventions, "Typical status properties"); the condition shape is `metav1.Condition`
 * (k8s.io/apimachinery/pkg/apis/meta/v1/types.go: `status` one of True/False/Unknown, `reason`
 * matching {@link REASON_PATTERN}, `lastTransitionTime` moved only when `status` changes).
 */
import { z } from 'zod';
import { formatDuration } from '../duration.js';
import type { ObjectRow, ObjectsSection } from '../report/schema.js';
import { asRecord, where, type InputObject } from './input.js';
import { statusFinding, type StatusFinding } from './finding.js';

/** `metav1.Condition.reason`'s validation pattern (apimachinery types.go). */
export const REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** The condition statuses metav1.Condition allows. */
export const CONDITION_STATUSES: readonly string[] = ['True', 'False', 'Unknown'];

/** Options of `auditstorm objects` (config key `objects`); every field has a default. */
export const ObjectsOptionsSchema = z.object({
  /**
   * Condition types read as readiness, first present wins: `Ready` (Knative, Cluster API, Flux,
   * cert-manager), `Healthy` (Crossplane packages), `Available` (Deployment, Argo Rollouts).
   */
  readyConditionTypes: z.array(z.string().min(1)).min(1).default(['Ready', 'Healthy', 'Available']),
  /** A readiness condition `False` at least this long (ms, since its lastTransitionTime) is `stuck`. */
  stuckAfterMs: z
    .number()
    .int()
    .positive()
    .default(30 * 60_000),
  /** A condition whose lastTransitionTime is at most this old (ms) at the clock counts as just changed. */
  churnWindowMs: z.number().int().positive().default(60_000),
  /** `condition-churn` needs at least this many objects with a just-changed condition… */
  churnMinObjects: z.number().int().positive().default(5),
  /** …and at least this share (0..1) of the objects that have conditions. */
  churnMinShare: z.number().min(0).max(1).default(0.5),
  /** `status-lag` when generation − observedGeneration is at least this. */
  lagMinGenerations: z.number().int().positive().default(1),
  /** … and medium (not low) severity from this lag on. */
  lagMediumGenerations: z.number().int().positive().default(3),
});
export type ObjectsOptions = z.infer<typeof ObjectsOptionsSchema>;

/** What {@link analyzeObjects} returns. */
export interface ObjectsResult {
  section: ObjectsSection;
  findings: StatusFinding[];
  /** Items that are not Kubernetes objects (no `metadata.name`): `file:line pointer: reason`. */
  bad: { line: number; reason: string }[];
}

interface Cond {
  type: string | null;
  status: unknown;
  reason: unknown;
  message: unknown;
  lastTransitionTime: unknown;
  observedGeneration: unknown;
}

const TIME_FIELDS = ['lastTransitionTime', 'lastUpdateTime', 'lastProbeTime', 'lastHeartbeatTime'];

function timeMs(v: unknown): number | null {
  if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\dT/.test(v)) return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

/**
 * The clock of a capture: the newest timestamp in it (creationTimestamp, managedFields times,
 * condition times), epoch ms, or null when it has none.
 */
export function newestTimestamp(objects: readonly InputObject[]): number | null {
  let best: number | null = null;
  const see = (v: unknown): void => {
    const t = timeMs(v);
    if (t !== null && (best === null || t > best)) best = t;
  };
  for (const o of objects) {
    const obj = asRecord(o.value);
    const meta = asRecord(obj?.['metadata']);
    see(meta?.['creationTimestamp']);
    const mf = meta?.['managedFields'];
    if (Array.isArray(mf)) for (const m of mf) see(asRecord(m)?.['time']);
    const conds = asRecord(obj?.['status'])?.['conditions'];
    if (Array.isArray(conds)) for (const c of conds) for (const f of TIME_FIELDS) see(asRecord(c)?.[f]);
  }
  return best;
}

function readCond(v: unknown): Cond | null {
  const c = asRecord(v);
  if (c === undefined) return null;
  return {
    type: typeof c['type'] === 'string' && c['type'] !== '' ? c['type'] : null,
    status: c['status'],
    reason: c['reason'],
    message: c['message'],
    lastTransitionTime: c['lastTransitionTime'],
    observedGeneration: c['observedGeneration'],
  };
}

/** A generation as a number: integers, and strings of digits (what some controllers write). */
function genNumber(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return null;
}

/** The shape problems of one object's conditions, by name (see docs/detectors/condition-shape.md). */
function conditionProblems(conds: unknown): Map<string, number> {
  const p = new Map<string, number>();
  const add = (k: string): void => {
    p.set(k, (p.get(k) ?? 0) + 1);
  };
  if (conds === undefined || conds === null) return p;
  if (!Array.isArray(conds)) {
    add('conditions-not-a-list');
    return p;
  }
  const seen = new Set<string>();
  for (const raw of conds) {
    const c = readCond(raw);
    if (c === null) {
      add('condition-not-an-object');
      continue;
    }
    if (c.type === null) add('missing-type');
    else if (seen.has(c.type)) add('duplicate-type');
    else seen.add(c.type);
    if (typeof c.status !== 'string' || !CONDITION_STATUSES.includes(c.status)) add('status-not-true-false-unknown');
    if (c.reason === undefined || c.reason === null || c.reason === '') add('missing-reason');
    else if (typeof c.reason !== 'string' || !REASON_PATTERN.test(c.reason)) add('reason-not-camelcase');
    if (c.status === 'False' && (typeof c.message !== 'string' || c.message.trim() === '')) add('empty-message-on-false');
    if (c.lastTransitionTime === undefined || c.lastTransitionTime === null || c.lastTransitionTime === '') add('missing-last-transition-time');
    else if (timeMs(c.lastTransitionTime) === null) add('bad-last-transition-time');
  }
  return p;
}

const SHAPE_WORDS: Record<string, string> = {
  'conditions-not-a-list': 'status.conditions is not a list',
  'condition-not-an-object': 'a condition is not an object',
  'missing-type': 'a condition has no type',
  'duplicate-type': 'two conditions share a type (a list-map keyed by type allows one)',
  'status-not-true-false-unknown': 'status is not True, False or Unknown',
  'missing-reason': 'reason is empty',
  'reason-not-camelcase': 'reason is not CamelCase',
  'empty-message-on-false': 'a False condition has no message',
  'missing-last-transition-time': 'lastTransitionTime is missing',
  'bad-last-transition-time': 'lastTransitionTime is not an RFC 3339 time',
};

/**
 * Judge every object.
 *
 * @param objects what {@link readObjects} read
 * @param source the file name, for messages
 * @param options thresholds (parsed {@link ObjectsOptionsSchema})
 * @param nowMs the clock (epoch ms): `--now`; null: the newest timestamp in the input
 * @returns rows (input order), findings (unsorted) and the items that were not objects
 */
export function analyzeObjects(objects: readonly InputObject[], source: string, options: ObjectsOptions, nowMs: number | null): ObjectsResult {
  const fromInput = nowMs === null;
  const now = nowMs ?? newestTimestamp(objects);
  const rows: ObjectRow[] = [];
  const findings: StatusFinding[] = [];
  const bad: { line: number; reason: string }[] = [];
  const missingObs = new Map<string, { n: number; of: number; names: string[] }>();
  const recent: string[] = [];
  let withConditions = 0;
  for (const o of objects) {
    const obj = asRecord(o.value);
    const meta = asRecord(obj?.['metadata']);
    const name = meta?.['name'];
    if (obj === undefined || typeof name !== 'string' || name === '') {
      bad.push({ line: o.line, reason: `${where(source, o)}: not a Kubernetes object (${obj === undefined ? 'not a mapping' : 'no metadata.name'}); skipped` });
      continue;
    }
    const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
    const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
    const namespace = typeof meta?.['namespace'] === 'string' ? meta['namespace'] : '';
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
    const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
    const ref = { apiGroup: group, apiVersion: version, resource: kind, namespace, name, subresource: '' };
    const label = `${kind || 'object'} ${namespace === '' ? name : `${namespace}/${name}`}`;
    const status = asRecord(obj['status']);
    const condsRaw = status?.['conditions'];
    const conds = Array.isArray(condsRaw) ? condsRaw.map(readCond).filter((c): c is Cond => c !== null) : [];
    if (conds.length > 0) withConditions++;

    const readyType = options.readyConditionTypes.find((t) => conds.some((c) => c.type === t)) ?? null;
    const readyCond = readyType === null ? undefined : conds.find((c) => c.type === readyType);
    const ready = readyCond && typeof readyCond.status === 'string' ? readyCond.status : null;
    const reason = readyCond && typeof readyCond.reason === 'string' && readyCond.reason !== '' ? readyCond.reason : null;
    const readyAt = readyCond ? timeMs(readyCond.lastTransitionTime) : null;
    const readyForMs = readyAt !== null && now !== null ? Math.max(0, now - readyAt) : null;

    const genRaw = meta?.['generation'];
    const generation = typeof genRaw === 'number' && Number.isInteger(genRaw) ? genRaw : null;
    const statusObs = status?.['observedGeneration'];
    let observedGeneration: number | string | null = null;
    let observedFrom: 'status' | 'condition' | null = null;
    // JSON type of the value found (a boolean or object is present but wrong, not missing).
    let obsType: string | null = null;
    const present = (v: unknown): boolean => v !== undefined && v !== null;
    const found = present(statusObs) ? statusObs : readyCond && present(readyCond.observedGeneration) ? readyCond.observedGeneration : undefined;
    if (found !== undefined) {
      observedGeneration = typeof found === 'number' || typeof found === 'string' ? found : JSON.stringify(found);
      observedFrom = present(statusObs) ? 'status' : 'condition';
      obsType = Array.isArray(found) ? 'list' : typeof found;
    }
    rows.push({ apiVersion, kind, namespace, name, generation, observedGeneration, observedFrom, readyType, ready, reason, readyForMs });
    const at = now ?? 0;

    // status-lag: observedGeneration missing (aggregated per kind), not an integer, behind, ahead.
    if (generation !== null) {
      const kindKey = `${apiVersion} ${kind}`;
      const m = missingObs.get(kindKey) ?? { n: 0, of: 0, names: [] };
      m.of++;
      if (observedGeneration === null) {
        m.n++;
        if (m.names.length < 3) m.names.push(namespace === '' ? name : `${namespace}/${name}`);
      }
      missingObs.set(kindKey, m);
      const obs = genNumber(observedGeneration);
      const field = observedFrom === 'status' ? 'status.observedGeneration' : `the ${readyType ?? ''} condition's observedGeneration`;
      if (obsType !== null && !(typeof observedGeneration === 'number' && Number.isInteger(observedGeneration))) {
        findings.push(
          statusFinding({
            kind: 'status-lag',
            severity: 'low',
            at,
            object: ref,
            title:
              typeof observedGeneration === 'number'
                ? `${label}: ${field} is ${observedGeneration}, not an integer`
                : `${label}: ${field} is ${/^[aeiou]/.test(obsType) ? 'an' : 'a'} ${obsType} (${JSON.stringify(String(observedGeneration).slice(0, 20))}), not an integer`,
            metrics: { generation, observedGeneration: obs, lag: obs === null ? null : generation - obs },
            signals: ['observed-generation-not-integer'],
            advice: [
              {
                id: 'observed-generation-int64',
                text: 'Declare observedGeneration as an integer (int64, minimum 0) and copy metadata.generation into it as a number: clients such as kstatus and Argo CD compare it numerically.',
              },
            ],
          }),
        );
      }
      if (obs !== null && obs > generation) {
        findings.push(
          statusFinding({
            kind: 'status-lag',
            severity: 'high',
            at,
            object: ref,
            title: `${label}: ${field} ${obs} is ahead of metadata.generation ${generation}`,
            metrics: { generation, observedGeneration: obs, lag: generation - obs },
            signals: ['observed-generation-ahead'],
            advice: [
              {
                id: 'observed-generation-from-object',
                text: "Set observedGeneration from the generation of the object the reconcile read (not a counter, not another object's): a value ahead of generation means status no longer says which spec it describes.",
              },
            ],
          }),
        );
      } else if (obs !== null && generation - obs >= options.lagMinGenerations) {
        const lag = generation - obs;
        findings.push(
          statusFinding({
            kind: 'status-lag',
            severity: lag >= options.lagMediumGenerations ? 'medium' : 'low',
            at,
            object: ref,
            title: `${label}: status describes generation ${obs}, spec is at ${generation} (${lag} behind)${ready !== null ? `; ${readyType}=${ready}` : ''}`,
            metrics: { generation, observedGeneration: obs, lag },
            signals: ['observed-generation-behind'],
            advice: [
              {
                id: 'reconcile-behind',
                text: 'The controller has not finished reconciling the newest spec: look for 409 Conflicts or errors on this object in the audit log (auditstorm analyze), and set observedGeneration only after a successful reconcile.',
              },
            ],
          }),
        );
      }
      // A condition set on an older generation than status.observedGeneration says (metav1.Condition:
      // "if .metadata.generation is currently 12, but .status.conditions[x].observedGeneration is 9,
      // the condition is out of date"), while status itself claims the current spec.
      if (observedFrom === 'status' && obs === generation) {
        const stale = conds.filter(
          (c) => typeof c.observedGeneration === 'number' && Number.isInteger(c.observedGeneration) && generation - c.observedGeneration >= options.lagMinGenerations,
        );
        if (stale.length > 0) {
          const oldest = Math.min(...stale.map((c) => c.observedGeneration as number));
          const names = stale.map((c) => `${c.type ?? '(no type)'} (${c.observedGeneration as number})`).join(', ');
          findings.push(
            statusFinding({
              kind: 'status-lag',
              severity: 'low',
              at,
              object: ref,
              title: `${label}: status.observedGeneration is ${obs}, but ${stale.length === 1 ? 'condition' : 'conditions'} ${names} ${stale.length === 1 ? 'was' : 'were'} set on an older generation`,
              metrics: { generation, observedGeneration: obs, lag: generation - oldest, staleConditions: stale.length },
              signals: ['condition-observed-generation-behind'],
              advice: [
                {
                  id: 'condition-observed-generation',
                  text: "Set every condition's observedGeneration to metadata.generation whenever the reconcile sets status.observedGeneration (meta.SetStatusCondition with ObservedGeneration: obj.GetGeneration()): a condition left on an older generation speaks for a spec that no longer exists, and kstatus and Argo CD read it so.",
                },
              ],
            }),
          );
        }
      }
    }

    // condition-shape
    const problems = conditionProblems(condsRaw);
    if (problems.size > 0) {
      const names = [...problems.keys()].sort();
      const serious = names.some((n) => ['conditions-not-a-list', 'condition-not-an-object', 'missing-type', 'duplicate-type', 'status-not-true-false-unknown'].includes(n));
      const metrics: Record<string, number> = { conditions: Array.isArray(condsRaw) ? condsRaw.length : 0 };
      for (const n of names) metrics[n] = problems.get(n)!;
      findings.push(
        statusFinding({
          kind: 'condition-shape',
          severity: serious ? 'medium' : 'low',
          at,
          object: ref,
          title: `${label}: ${names.map((n) => SHAPE_WORDS[n] ?? n).join('; ')}`,
          metrics,
          signals: names,
          advice: [
            {
              id: 'metav1-condition',
              text: 'Use metav1.Condition and meta.SetStatusCondition: type, status True/False/Unknown, a CamelCase reason, a message saying why, and lastTransitionTime moved only when status changes.',
            },
          ],
        }),
      );
    }

    // condition-churn (counted here, judged after the loop)
    if (
      now !== null &&
      conds.some((c) => {
        const t = timeMs(c.lastTransitionTime);
        return t !== null && now - t <= options.churnWindowMs;
      })
    )
      recent.push(namespace === '' ? name : `${namespace}/${name}`);

    // stuck
    if (ready === 'False' && readyForMs !== null && readyForMs >= options.stuckAfterMs) {
      findings.push(
        statusFinding({
          kind: 'stuck',
          severity: 'medium',
          at,
          object: ref,
          title: `${label}: ${readyType}=False${reason !== null ? ` (${reason})` : ''} for ${formatDuration(readyForMs)}`,
          metrics: { readyFalseForMs: readyForMs, stuckAfterMs: options.stuckAfterMs, generation, observedGeneration: genNumber(observedGeneration) },
          signals: ['ready-false'],
          advice: [
            {
              id: 'stuck-object',
              text: "The controller reports it cannot make progress: read the condition's message (kubectl describe) and the controller's log; if status also lags the spec, the controller may not be reconciling this object at all.",
            },
          ],
        }),
      );
    }
  }

  for (const [kindKey, m] of [...missingObs].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (m.n === 0) continue;
    const [apiVersion = '', kind = ''] = kindKey.split(' ');
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
    findings.push(
      statusFinding({
        kind: 'status-lag',
        severity: 'low',
        at: now ?? 0,
        object:
          m.n === 1 && m.of === 1
            ? {
                apiGroup: group,
                apiVersion: apiVersion.slice(apiVersion.lastIndexOf('/') + 1),
                resource: kind,
                namespace: m.names[0]!.includes('/') ? m.names[0]!.split('/')[0]! : '',
                name: m.names[0]!.split('/').pop()!,
                subresource: '',
              }
            : null,
        title: `${kind || 'object'}: no observedGeneration (in status or the readiness condition) on ${m.n} of ${m.of} objects${m.n > 1 ? `, e.g. ${m.names.join(', ')}` : `: ${m.names[0]}`}`,
        metrics: { objects: m.of, missing: m.n },
        signals: ['observed-generation-missing'],
        advice: [
          {
            id: 'observed-generation',
            text: 'Without status.observedGeneration nobody (kubectl wait, kstatus, Argo CD, Flux) can tell whether status describes the current spec: set it to metadata.generation at the end of a successful reconcile.',
          },
        ],
      }),
    );
  }

  if (now !== null && recent.length >= options.churnMinObjects && withConditions > 0 && recent.length / withConditions >= options.churnMinShare) {
    findings.push(
      statusFinding({
        kind: 'condition-churn',
        severity: 'medium',
        at: now,
        object: null,
        title: `${recent.length} of ${withConditions} objects had a condition change state in the ${formatDuration(options.churnWindowMs)} before ${new Date(now).toISOString()}, e.g. ${recent.slice(0, 3).join(', ')}`,
        metrics: {
          objects: withConditions,
          recentObjects: recent.length,
          share: Math.round((recent.length / withConditions) * 10_000) / 10_000,
          churnWindowMs: options.churnWindowMs,
        },
        signals: [fromInput ? 'clock-from-input' : 'clock-from-flag'],
        advice: [
          {
            id: 'condition-churn',
            text: "lastTransitionTime should move only when a condition's status changes: use meta.SetStatusCondition (it keeps the time when status is unchanged) and do not put changing text (timestamps, counters) in status, or every reconcile writes and triggers the next.",
          },
        ],
      }),
    );
  }

  return { section: { now: now === null ? null : new Date(now).toISOString(), clock: nowMs !== null ? 'flag' : now !== null ? 'input' : 'none', rows }, findings, bad };
}
