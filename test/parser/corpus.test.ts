/**
 * The public audit samples in `../shared/corpus/public` (see its SOURCES.md). Expected counts were
 * computed independently (a Python script over the raw files), not by this parser.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { isConflict, type RequestRecord } from '../../src/parser/record.js';
import { resolveInputs } from '../../src/parser/sources.js';
import { readChains, type ReadResult } from './helpers.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = path.resolve(repoRoot, '../shared/corpus/public');
const present = existsSync(CORPUS);
// vitest shows only a count of skipped tests: say why, once, where a person will see it.
if (!present) console.warn(`auditstorm tests: ${CORPUS} not found; the public-corpus tests are skipped (they run where ../shared exists)`);

async function read(file: string): Promise<ReadResult> {
  const chains = await resolveInputs([path.join(CORPUS, file)], { stdin: Readable.from([]) });
  return readChains(chains, { maxLineLength: 16 * 1024 * 1024, sniffLines: 1000 });
}

function tally(records: RequestRecord[], key: (r: RequestRecord) => string | number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) out[key(r)] = (out[key(r)] ?? 0) + 1;
  return out;
}

/** JSON-lines files of audit events: [file, bytes, lines, events, requests, badLines, nonFinalStages]. */
const AUDIT_FILES: [string, number, number, number, number, number, number][] = [
  ['liggitt__audit2rbac__testdata__demo.log', 22129, 37, 37, 37, 0, 0],
  ['elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-audit.log', 5061, 5, 3, 3, 2, 0],
  ['falcosecurity__falco__test__trace_files__k8s_audit__attach_pod.json', 848, 1, 1, 0, 0, 1],
  ['falcosecurity__falco__test__trace_files__k8s_audit__create_configmap_sensitive_values.json', 9904, 6, 6, 6, 0, 0],
  ['falcosecurity__falco__test__trace_files__k8s_audit__create_nginx_pod_privileged.json', 3356, 1, 1, 1, 0, 0],
  ['falcosecurity__falco__test__trace_files__k8s_audit__modify_cluster_role_node_problem_detector.json', 3421, 1, 1, 1, 0, 0],
  ['openshift__cluster-logging-operator__test__functional__filters__apiaudit__testdata__audit.log', 14257, 5, 5, 5, 0, 0],
  ['openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log', 810980, 100, 100, 92, 0, 8],
];

const PRETTY_EVENT = 'a pretty-printed (multi-line) JSON audit event';
/** Files that are not JSON lines of events: [file, non-blank lines sniffed, what it looks like]. */
const REJECTED: [string, number, string][] = [
  ['GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_1.yaml', 251, 'YAML'],
  ['GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_2.yaml', 95, 'YAML'],
  ['GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_3.yaml', 85, 'YAML'],
  ['GoogleCloudPlatform__khi__test__logs__oss__test-log.yaml', 104, 'YAML'],
  ['SOURCES.md', 28, 'JSON or text that is not audit events'],
  ['afcollins__kube-audit-log-tool__single-event.json', 39, PRETTY_EVENT],
  [
    'elastic__integrations__packages__gcp__data_stream__audit___dev__test__pipeline__test-k8s-nonmatching-resourcename.log',
    1,
    'GKE Cloud Logging entry (protoPayload)',
  ],
  [
    'elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-kube-audit.log',
    1,
    'AKS diagnostic record (properties.log)',
  ],
  [
    'openshift__cluster-logging-operator__hack__logsamples__otlp_audit_kube.json',
    401,
    'OpenTelemetry (OTLP) log export (resourceLogs), pretty-printed',
  ],
  ['openshift__cluster-logging-operator__hack__logsamples__raw_audit_kubernetes.json', 46, PRETTY_EVENT],
  ['openshift__cluster-logging-operator__hack__logsamples__raw_audit_openshift.json', 28, PRETTY_EVENT],
  [
    'openshift__cluster-logging-operator__hack__logsamples__viaq_audit_kubernetes.json',
    46,
    'OpenShift Logging ViaQ record (k8s_audit_level), pretty-printed',
  ],
  ['openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__log5607_sample.json', 50, PRETTY_EVENT],
];

describe.skipIf(!present)(`public corpus (${present ? CORPUS : `skipped: ${CORPUS} not found`})`, () => {
  it('covers every file in the corpus', () => {
    const listed = [...AUDIT_FILES.map((f) => f[0]), ...REJECTED.map((f) => f[0])].sort();
    expect(readdirSync(CORPUS).sort()).toEqual(listed);
  });

  it.each(AUDIT_FILES)('%s', async (file, bytes, lines, events, requests, badLines, nonFinalStages) => {
    const r = await read(file);
    expect(r.stats).toEqual([
      {
        name: path.join(CORPUS, file),
        kind: 'file',
        bytes,
        bytesRead: bytes,
        lines,
        events,
        requests,
        badLines,
        overlongLines: 0,
        nonFinalStages,
      },
    ]);
    expect(r.records).toHaveLength(requests);
  });

  it.each(REJECTED)('%s is rejected as %s', async (file, sniffed, what) => {
    let error: unknown;
    try {
      await read(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InputError);
    const message = (error as InputError).message;
    const none = sniffed === 1 ? 'its first non-blank line is not' : `none of its first ${sniffed} non-blank lines is`;
    expect(message).toContain(
      `"${path.join(CORPUS, file)}" does not look like a kube-apiserver audit log: ${none} an audit event`,
    );
    expect(message.endsWith(`It looks like: ${what}.`)).toBe(true);
  });

  it('names the wrappers in the mixed elastic file as bad lines 4 and 5', async () => {
    const r = await read(AUDIT_FILES[1]![0]);
    expect(r.bad.map((b) => [b.line, b.reason])).toEqual([
      [4, 'GKE Cloud Logging entry (protoPayload): not read yet'],
      [5, 'AKS diagnostic record (properties.log): not read yet'],
    ]);
    expect(tally(r.records, (x) => x.actor.username)).toEqual({
      'system:serviceaccounts:default:default': 1,
      'system:serviceaccount:kube-system:elastic-agent': 2,
    });
    expect(r.records.filter((x) => x.actor.serviceAccount !== null)).toHaveLength(2);
  });

  it('audit2rbac demo: v1beta1-era timestamps only, seconds precision', async () => {
    const r = await read(AUDIT_FILES[0]![0]);
    expect(tally(r.records, (x) => x.code)).toEqual({ 200: 26, 403: 11 });
    expect(tally(r.records, (x) => x.verb)).toEqual({ get: 23, list: 14 });
    expect(r.records.filter((x) => x.object === null)).toHaveLength(23);
    expect(new Set(r.records.map((x) => x.object)).size).toBe(7); // 6 objects + null
    expect(new Set(r.records.map((x) => x.actor)).size).toBe(1);
    expect(r.records.every((x) => x.latencyMs === 0)).toBe(true);
    expect(r.records[0]!.ts).toBe(Date.UTC(2017, 8, 11, 19, 55, 5));
    expect(r.records.at(-1)!.ts).toBe(Date.UTC(2017, 8, 11, 20, 29, 4));
  });

  it('falco v1beta1 pod create by the replicaset-controller', async () => {
    const [rec] = (await read(AUDIT_FILES[4]![0])).records;
    expect(rec).toMatchObject({
      ts: Date.UTC(2018, 9, 25, 14, 9, 12) + 581.541,
      receivedTs: Date.UTC(2018, 9, 25, 14, 9, 12) + 572.676,
      latencyMs: 8.865,
      verb: 'create',
      isWrite: true,
      code: 201,
      sourceIP: '::1',
      level: 'RequestResponse',
    });
    expect(rec!.actor.serviceAccount).toEqual({ namespace: 'kube-system', name: 'replicaset-controller' });
    expect(rec!.actor.userAgent).toBe('');
    expect(rec!.object?.key).toBe('/pods/default//');
  });

  it('OpenShift 4.12 capture: codes, verbs, AlreadyExists 409s, fieldManager', async () => {
    const r = await read(AUDIT_FILES[7]![0]);
    const recs = r.records;
    expect(tally(recs, (x) => x.code)).toEqual({ 200: 66, 201: 15, 403: 4, 404: 3, 409: 4 });
    expect(tally(recs, (x) => x.verb)).toEqual({ create: 23, delete: 2, get: 48, list: 2, patch: 7, update: 4, watch: 6 });
    expect(tally(recs.filter((x) => x.code === 409), (x) => x.reason)).toEqual({ AlreadyExists: 4 });
    expect(recs.filter(isConflict)).toHaveLength(0);
    expect(recs.filter((x) => x.latencyMs === -1)).toHaveLength(6);
    expect(recs.filter((x) => x.isWrite)).toHaveLength(36);
    expect(new Set(recs.map((x) => x.actor)).size).toBe(19);
    expect(new Set(recs.map((x) => x.object)).size).toBe(69);
    expect(recs.filter((x) => x.actor.serviceAccount !== null)).toHaveLength(80);
    expect(tally(recs.filter((x) => x.fieldManager !== ''), (x) => x.fieldManager)).toEqual({
      'cluster-network-operator/operconfig': 6,
    });
    const conflict = recs.find((x) => x.code === 409)!;
    expect({ ...conflict, actor: conflict.actor.key, object: conflict.object?.key }).toEqual({
      auditID: 'a1a00d83-31ed-4497-9891-deb0ef90de0e',
      ts: Date.UTC(2023, 5, 12, 13, 30, 26) + 159.342,
      receivedTs: Date.UTC(2023, 5, 12, 13, 30, 26) + 155.054,
      latencyMs: 4.288,
      stage: 'ResponseComplete',
      verb: 'create',
      isWrite: true,
      dryRun: false,
      actor:
        'system:serviceaccount:openshift-operator-lifecycle-manager:olm-operator-serviceaccount\u0000catalog/v0.0.0 (linux/amd64) kubernetes/$Format',
      object: '/serviceaccounts/openshift-marketplace/redhat-operators/',
      code: 409,
      reason: 'AlreadyExists',
      resourceVersion: '',
      fieldManager: '',
      sourceIP: '10.128.0.52',
      level: 'RequestResponse',
      requestURI: '/api/v1/namespaces/openshift-marketplace/serviceaccounts',
      responseResourceVersion: '',
      body: null,
    });
  });
});
