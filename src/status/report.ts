/**
 * The reports of `auditstorm objects` and `auditstorm crd`, and the join of `analyze --objects`.
 * Pure: text in, {@link Report} out (the same model every renderer reads; no audit traffic, so
 * the request counts and summaries are empty and the `objects` or `crd` section is set).
 */
import { InputError } from '../errors.js';
import { VERSION } from '../version.js';
import { SCHEMA_VERSION, severityRank, type Finding, type ObjectRow, type Report } from '../report/schema.js';
import { analyzeCrds, CrdOptionsSchema, type CrdOptions } from './crd.js';
import { asRecord, readObjects } from './input.js';
import { analyzeObjects, ObjectsOptionsSchema, type ObjectsOptions } from './objects.js';

/** One input of the status commands: its name (path or `-`), text and size in bytes. */
export interface StatusInput {
  name: string;
  text: string;
  bytes: number;
  kind: 'file' | 'stdin';
}

function emptyReport(input: StatusInput, format: string, lines: number, bad: { line: number; reason: string }[], generatedAt: string): Report {
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'auditstorm', version: VERSION },
    generatedAt,
    input: {
      sources: [{ name: input.name, kind: input.kind, format, bytes: input.bytes, lines, events: 0, requests: 0, badLines: bad.length, truncated: 0 }],
      lines,
      events: 0,
      requests: 0,
      badLines: bad.length,
      badLineSamples: bad.slice(0, 20).map((b) => ({ source: input.name, line: b.line, reason: b.reason })),
      skipped: { nonFinalStages: 0, duplicates: 0, filtered: 0, overlongLines: 0 },
      truncated: 0,
      sourceErrors: [],
      lateRequests: 0,
      nonResourceRequests: 0,
      allowlisted: [],
      timeRange: null,
    },
    settings: {},
    findings: [],
    notes: [],
    summaries: {
      totals: { requests: 0, writes: 0, conflicts: 0, alreadyExists: 0, throttled: 0 },
      requestsByVerbResourceCode: [],
      topActors: { byRequests: [], byWrites: [], byConflicts: [], byThrottled: [] },
      topObjects: { byWrites: [], byConflicts: [] },
      latency: [],
    },
  };
}

/** Severity desc, kind, object, title: the same input gives the same order. */
function sortFindings(fs: Finding[]): Finding[] {
  const key = (f: Finding): string => (f.object ? `${f.object.namespace}/${f.object.name}/${f.object.apiVersion}` : '');
  return fs.sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || a.kind.localeCompare(b.kind) || key(a).localeCompare(key(b)) || a.title.localeCompare(b.title));
}

/**
 * `auditstorm objects`: read the objects and judge them.
 * @param nowMs `--now` (epoch ms), or null for the newest timestamp in the input
 * @param generatedAt the injected clock, ISO 8601
 * @throws InputError for text that is neither JSON nor YAML, or holds no object; ZodError-free (options parsed by the caller)
 */
export function objectsReport(input: StatusInput, options: Partial<ObjectsOptions>, nowMs: number | null, generatedAt: string): Report {
  const opts = ObjectsOptionsSchema.parse(options);
  const read = readObjects(input.text, input.name);
  const r = analyzeObjects(read.objects, input.name, opts, nowMs);
  const report = emptyReport(input, read.format, read.lines, r.bad, generatedAt);
  report.settings = { objects: opts };
  report.findings = sortFindings(r.findings);
  report.objects = r.section;
  return report;
}

/**
 * `auditstorm crd`: judge the status contract of every CRD in the input.
 * @throws InputError for text that is neither JSON nor YAML, or that holds no
 *   CustomResourceDefinition (a report of "no findings" would read as a clean contract)
 */
export function crdReport(input: StatusInput, options: Partial<CrdOptions>, generatedAt: string): Report {
  const opts = CrdOptionsSchema.parse(options);
  const read = readObjects(input.text, input.name);
  if (!read.objects.some((o) => asRecord(o.value)?.['kind'] === 'CustomResourceDefinition')) {
    const kinds = [...new Set(read.objects.map((o) => asRecord(o.value)?.['kind']).filter((k): k is string => typeof k === 'string'))].sort();
    const seen = read.objects.length === 0 ? 'no object' : `${read.objects.length} other object(s)${kinds.length > 0 ? `, kind ${kinds.slice(0, 3).join(', ')}` : ''}`;
    throw new InputError(`${input.name}: no CustomResourceDefinition in the input (${seen})`, 'give a CRD manifest, or kubectl get crd NAME -o yaml');
  }
  const r = analyzeCrds(read.objects, input.name, opts, Date.parse(generatedAt));
  const report = emptyReport(input, read.format, read.lines, r.bad, generatedAt);
  report.settings = { crd: opts };
  report.findings = sortFindings(r.findings);
  report.crd = r.section;
  return report;
}

/** Lower-case plural forms a resource name may take for a kind (`Policy` → `policies`). */
function resourceNames(kind: string): string[] {
  const k = kind.toLowerCase();
  const out = [k, `${k}s`, `${k}es`];
  if (k.endsWith('y')) out.push(`${k.slice(0, -1)}ies`);
  return out;
}

/** The sentence of a finding's `objectStatus.text`: what the object's status says about a storm of `rate` writes/s. */
export function objectStatusText(row: ObjectRow, f: Finding): string {
  const gen = row.generation;
  const obs =
    typeof row.observedGeneration === 'number'
      ? row.observedGeneration
      : row.observedGeneration !== null && /^\d+$/.test(row.observedGeneration)
        ? Number(row.observedGeneration)
        : null;
  const ready = row.ready === null ? 'no readiness condition' : `${row.readyType} ${row.ready}${row.reason !== null ? ` (${row.reason})` : ''}`;
  const m = f.metrics;
  const w = m['writes'];
  const d = m['durationMs'];
  const rateRaw = m['meanWritesPerSec'] ?? m['noOpWritesPerSec'] ?? (typeof w === 'number' && typeof d === 'number' && d > 0 ? Math.round((w * 100_000) / d) / 100 : null);
  const rate = typeof rateRaw === 'number' ? `${rateRaw} times/s` : 'this often';
  const head = `generation ${gen ?? '-'}, observedGeneration ${row.observedGeneration === null ? '-' : String(row.observedGeneration)}, ${ready}`;
  if (gen !== null && obs !== null && obs === gen && row.ready === 'True')
    return `${head}: observedGeneration == generation and ${row.readyType} True: the controller had nothing to do, yet wrote ${rate}`;
  if (gen !== null && obs !== null && obs < gen) return `${head}: status is ${gen - obs} generation(s) behind the spec: the writes are not getting the reconcile through`;
  if (row.ready === 'False') return `${head}: the controller reports it cannot converge, and retries by writing`;
  if (obs === null) return `${head}: no observedGeneration, so status cannot say whether the writes changed anything`;
  return head;
}

const JOINED_KINDS = new Set(['conflict-storm', 'hot-loop', 'no-op-writes', 'write-fight']);

/**
 * `analyze LOG --objects FILE`: give each storm finding (conflict-storm, hot-loop, no-op-writes,
 * write-fight) on an object present in the capture an `objectStatus`. Objects match on API group,
 * namespace, name and the finding's resource being a plural of the object's kind.
 * @returns a new report; the number of findings joined
 * @throws InputError when the capture cannot be read
 */
export function joinObjects(report: Report, capture: StatusInput): { report: Report; joined: number } {
  const read = readObjects(capture.text, capture.name);
  const { section } = analyzeObjects(read.objects, capture.name, ObjectsOptionsSchema.parse({}), null);
  let joined = 0;
  const findings = report.findings.map((f) => {
    const o = f.object;
    if (o === null || !JOINED_KINDS.has(f.kind)) return f;
    const row = section.rows.find((r) => {
      const group = r.apiVersion.includes('/') ? r.apiVersion.slice(0, r.apiVersion.lastIndexOf('/')) : '';
      return group === o.apiGroup && r.namespace === o.namespace && r.name === o.name && resourceNames(r.kind).includes(o.resource.toLowerCase());
    });
    if (row === undefined) return f;
    joined++;
    return {
      ...f,
      objectStatus: {
        source: capture.name,
        kind: row.kind,
        generation: row.generation,
        observedGeneration: row.observedGeneration,
        readyType: row.readyType,
        ready: row.ready,
        reason: row.reason,
        text: objectStatusText(row, f),
      },
    };
  });
  return { report: { ...report, findings }, joined };
}
