/**
 * Builders for hand-made RequestRecords in detector and engine tests. Actors and objects are
 * interned here like the Normalizer does, so detectors see shared instances.
 */
import type { Actor, ObjectRef, RequestRecord } from '../../src/decoding/record.js';
import { WRITE_VERBS } from '../../src/decoding/record.js';
import { resourceLabel } from '../../src/labels.js';
import { Engine } from '../../src/engine/engine.js';
import type { Detector } from '../../src/detectors/types.js';
import type { Finding } from '../../src/report/schema.js';

const actors = new Map<string, Actor>();
const objects = new Map<string, ObjectRef>();

/** An interned actor; a `system:serviceaccount:NS:NAME` username fills serviceAccount. */
export function actor(username: string, userAgent = 'manager/v0.0.0 (linux/amd64) kubernetes/$Format'): Actor {
  const key = `${username}\u0000${userAgent}`;
  let a = actors.get(key);
  if (!a) {
    const sa = username.startsWith('system:serviceaccount:') ? username.split(':') : null;
    a = {
      key,
      username,
      userAgent,
      userAgentProduct: userAgent.split('/')[0] ?? '',
      userAgentVersion: '',
      controller: '',
      serviceAccount: sa ? { namespace: sa[2] ?? '', name: sa[3] ?? '' } : null,
    };
    actors.set(key, a);
  }
  return a;
}

/** An interned object. */
export function object(resource: string, namespace: string, name: string, subresource = '', apiGroup = '', apiVersion = 'v1'): ObjectRef {
  const key = `${apiGroup}/${resource}/${namespace}/${name}/${subresource}`;
  let o = objects.get(key);
  if (!o) {
    o = { key, apiGroup, apiVersion, resource, namespace, name, subresource, label: resourceLabel({ apiGroup, resource, subresource }) };
    objects.set(key, o);
  }
  return o;
}

let seq = 0;

/** A record; `t` is the request's receive time in ms, latency 3 ms unless given. */
export function rec(t: number, a: Actor, o: ObjectRef | null, over: Partial<Omit<RequestRecord, 'actor' | 'object'>> = {}): RequestRecord {
  const latencyMs = over.latencyMs ?? 3;
  const verb = over.verb ?? 'update';
  const dryRun = over.dryRun ?? false;
  return {
    auditID: over.auditID ?? `id-${++seq}`,
    ts: t + latencyMs,
    receivedTs: t,
    latencyMs,
    stage: 'ResponseComplete',
    verb,
    isWrite: WRITE_VERBS.has(verb) && !dryRun,
    dryRun,
    actor: a,
    object: o,
    code: over.code ?? 200,
    reason: over.reason ?? (over.code === 409 ? 'Conflict' : ''),
    resourceVersion: over.resourceVersion ?? '',
    fieldManager: over.fieldManager ?? '',
    sourceIP: over.sourceIP ?? '10.0.0.1',
    level: over.level ?? 'Metadata',
    responseResourceVersion: over.responseResourceVersion ?? '',
    body: over.body ?? null,
    // Not computed: the de-duplication hashes the auditID itself.
    idLaneA: 0,
    idLaneB: 0,
    ...over,
    ...(over.ts === undefined ? { ts: t + latencyMs } : {}),
  };
}

/** Run one detector (with options) over records through the real engine. */
export function runDetector(detector: Detector, options: Record<string, unknown>, records: RequestRecord[]): { findings: Finding[]; notes: Finding[]; alerts: string[] } {
  const alerts: string[] = [];
  const engine = new Engine(
    {
      detectors: [{ detector, options: detector.meta.optionsSchema.parse(options) }],
      filter: null,
      reorderWindowMs: 2000,
      seriesStepMs: 10_000,
    },
    { alert: (phase, f) => alerts.push(`${phase} ${f.kind} ${f.object?.name ?? ''}`) },
  );
  for (const r of [...records].sort((x, y) => x.ts - y.ts)) engine.push(r);
  engine.finish();
  return { findings: engine.findings, notes: engine.notes, alerts };
}
