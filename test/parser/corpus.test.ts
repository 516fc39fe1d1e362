/**
 * The public audit samples in `../shared/corpus/public` (see its SOURCES.md), every one of them,
 * whatever its shape. Expected counts were computed independently (python3 over the raw files),
 * not by this parser.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { isConflict, type RequestRecord } from '../../src/decoding/record.js';
import { resolveInputs } from '../../src/ingest/sources.js';
import { idLanes, LANES } from '../../src/decoding/hash.js';
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

/**
 * Every file, whatever its shape: [file, bytes, lines, events, requests, badLines, nonFinalStages,
 * format]. Counted by hand and with python3 (json, yaml.BaseLoader) over the raw files: events
 * inside wrappers (GKE entries, AKS records, OTLP bodies, ViaQ) count one each; requests here are
 * final-stage events before de-duplication; lines as `wc -l`, plus one for a last line without a
 * newline.
 */
const FILES: [string, number, number, number, number, number, number, string][] = [
  // YAML (KHI test logs): three GKE LogEntries and one native Event, one document each.
  ['GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_1.yaml', 8847, 252, 1, 1, 0, 0, 'gke'],
  ['GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_2.yaml', 3225, 96, 1, 1, 0, 0, 'gke'],
  ['GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_3.yaml', 3189, 86, 1, 1, 0, 0, 'gke'],
  ['GoogleCloudPlatform__khi__test__logs__oss__test-log.yaml', 3398, 105, 1, 1, 0, 0, 'yaml'],
  // Pretty-printed single events (JSON documents).
  ['afcollins__kube-audit-log-tool__single-event.json', 1163, 39, 1, 1, 0, 0, 'json-docs'],
  ['openshift__cluster-logging-operator__hack__logsamples__raw_audit_kubernetes.json', 1489, 46, 1, 1, 0, 0, 'json-docs'],
  ['openshift__cluster-logging-operator__hack__logsamples__raw_audit_openshift.json', 784, 28, 1, 1, 0, 0, 'json-docs'],
  ['openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__log5607_sample.json', 1873, 50, 1, 1, 0, 0, 'json-docs'],
  // Wrappers: one GKE entry; one AKS record; a pretty-printed ViaQ record; OTLP with 3 bodies
  // (ResponseStarted watch, two ResponseComplete gets).
  ['elastic__integrations__packages__gcp__data_stream__audit___dev__test__pipeline__test-k8s-nonmatching-resourcename.log', 1100, 1, 1, 1, 0, 0, 'gke'],
  ['elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-kube-audit.log', 1499, 1, 1, 1, 0, 0, 'aks'],
  ['openshift__cluster-logging-operator__hack__logsamples__viaq_audit_kubernetes.json', 1396, 47, 1, 1, 0, 0, 'viaq'],
  ['openshift__cluster-logging-operator__hack__logsamples__otlp_audit_kube.json', 16556, 401, 3, 2, 0, 1, 'otlp'],
  // JSON lines. The elastic file mixes 3 native events, 1 GKE entry and 1 AKS record.
  ['liggitt__audit2rbac__testdata__demo.log', 22129, 37, 37, 37, 0, 0, 'jsonl'],
  ['elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-audit.log', 5061, 5, 5, 5, 0, 0, 'jsonl'],
  ['falcosecurity__falco__test__trace_files__k8s_audit__attach_pod.json', 848, 1, 1, 0, 0, 1, 'jsonl'],
  ['falcosecurity__falco__test__trace_files__k8s_audit__create_configmap_sensitive_values.json', 9904, 6, 6, 6, 0, 0, 'jsonl'],
  ['falcosecurity__falco__test__trace_files__k8s_audit__create_nginx_pod_privileged.json', 3356, 1, 1, 1, 0, 0, 'jsonl'],
  ['falcosecurity__falco__test__trace_files__k8s_audit__modify_cluster_role_node_problem_detector.json', 3421, 1, 1, 1, 0, 0, 'jsonl'],
  ['openshift__cluster-logging-operator__test__functional__filters__apiaudit__testdata__audit.log', 14257, 5, 5, 5, 0, 0, 'jsonl'],
  ['openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log', 810980, 100, 100, 92, 0, 8, 'jsonl'],
];
const AUDIT_FILES = FILES; // indexes below refer to this table

describe.skipIf(!present)(`public corpus (${present ? CORPUS : `skipped: ${CORPUS} not found`})`, () => {
  it('covers every file in the corpus', () => {
    const listed = [...FILES.map((f) => f[0]), 'SOURCES.md'].sort();
    expect(readdirSync(CORPUS).sort()).toEqual(listed);
  });

  it.each(FILES)('%s', async (file, bytes, lines, events, requests, badLines, nonFinalStages, format) => {
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
        format,
        truncated: 0,
        truncatedRead: 0,
        skippedRecords: 0,
        // No line of the corpus is taken for the API server's own log.
        logLines: 0,
      },
    ]);
    expect(r.records).toHaveLength(requests);
  });

  it('rejects SOURCES.md (Markdown) with a description', async () => {
    let error: unknown;
    try {
      await read('SOURCES.md');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InputError);
    const message = (error as InputError).message;
    expect(message).toContain(`"${path.join(CORPUS, 'SOURCES.md')}" does not look like a kube-apiserver audit log: none of its first 28 non-blank lines is an audit event`);
    expect(message.endsWith('It looks like: JSON or text that is not audit events.')).toBe(true);
  });

  it('reads the GKE entry and the AKS record of the mixed elastic file (lines 4 and 5)', async () => {
    const r = await read(FILES[13]![0]);
    expect(r.bad).toEqual([]);
    expect(tally(r.records, (x) => x.actor.username)).toEqual({
      'system:serviceaccounts:default:default': 1,
      'system:serviceaccount:kube-system:elastic-agent': 2,
      'system:gke-master-healthcheck': 1,
      aksService: 1,
    });
  });

  it('audit2rbac demo: v1beta1-era timestamps only, seconds precision', async () => {
    const r = await read(AUDIT_FILES[12]![0]);
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
    const [rec] = (await read(AUDIT_FILES[16]![0])).records;
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
    // generateName: objectRef has no name; the logged response body names the pod.
    expect(rec!.object?.key).toBe('/pods/default/nginx-deployment-5cdcc99dbf-rgw6z/');
  });

  it('OpenShift 4.12 capture: codes, verbs, AlreadyExists 409s, fieldManager', async () => {
    const r = await read(AUDIT_FILES[19]![0]);
    const recs = r.records;
    expect(tally(recs, (x) => x.code)).toEqual({ 200: 66, 201: 15, 403: 4, 404: 3, 409: 4 });
    expect(tally(recs, (x) => x.verb)).toEqual({ create: 23, delete: 2, get: 48, list: 2, patch: 7, update: 4, watch: 6 });
    expect(
      tally(
        recs.filter((x) => x.code === 409),
        (x) => x.reason,
      ),
    ).toEqual({ AlreadyExists: 4 });
    expect(recs.filter(isConflict)).toHaveLength(0);
    expect(recs.filter((x) => x.latencyMs === -1)).toHaveLength(6);
    expect(recs.filter((x) => x.isWrite)).toHaveLength(36);
    expect(new Set(recs.map((x) => x.actor)).size).toBe(19);
    expect(new Set(recs.map((x) => x.object)).size).toBe(69);
    expect(recs.filter((x) => x.actor.serviceAccount !== null)).toHaveLength(80);
    expect(
      tally(
        recs.filter((x) => x.fieldManager !== ''),
        (x) => x.fieldManager,
      ),
    ).toEqual({
      'cluster-network-operator/operconfig': 6,
    });
    const conflict = recs.find((x) => x.code === 409)!;
    idLanes('a1a00d83-31ed-4497-9891-deb0ef90de0e');
    const [idLaneA, idLaneB] = LANES;
    expect({ ...conflict, actor: conflict.actor.key, object: conflict.object?.key }).toEqual({
      idLaneA,
      idLaneB,
      auditID: 'a1a00d83-31ed-4497-9891-deb0ef90de0e',
      ts: Date.UTC(2023, 5, 12, 13, 30, 26) + 159.342,
      receivedTs: Date.UTC(2023, 5, 12, 13, 30, 26) + 155.054,
      latencyMs: 4.288,
      stage: 'ResponseComplete',
      verb: 'create',
      isWrite: true,
      dryRun: false,
      actor: 'system:serviceaccount:openshift-operator-lifecycle-manager:olm-operator-serviceaccount\u0000catalog/v0.0.0 (linux/amd64) kubernetes/$Format',
      object: '/serviceaccounts/openshift-marketplace/redhat-operators/',
      code: 409,
      reason: 'AlreadyExists',
      resourceVersion: '',
      fieldManager: '',
      sourceIP: '10.128.0.52',
      level: 'RequestResponse',
      responseResourceVersion: '',
      body: null,
    });
  });
});
