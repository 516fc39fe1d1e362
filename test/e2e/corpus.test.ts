/**
 * analyze() over every public audit-log file in ../shared/corpus/public (read in place, never
 * copied): every file, whatever its shape, gives exact counts and its detected format; SOURCES.md
 * (not audit data) is rejected with an InputError that says what it looks like.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyze, InputError } from '../../src/index.js';

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/corpus/public');
const present = existsSync(CORPUS);
// vitest shows only a count of skipped tests: say why, once, where a person will see it.
if (!present) console.warn(`auditstorm tests: ${CORPUS} not found; the public-corpus tests are skipped (they run where ../shared exists)`);

/**
 * Every file, whatever its shape: lines, events, requests, bad lines, duplicates, first request
 * time, format. Computed with python3 over the raw files (json; yaml.BaseLoader for the YAML).
 */
const FILES: Record<string, [number, number, number, number, number, string | null, string]> = {
  // YAML: three GKE LogEntries (KHI test logs; sanitised timestamps) and one native Event.
  'GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_1.yaml': [252, 1, 1, 0, 0, '2024-01-01T01:00:00.000Z', 'gke'],
  'GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_2.yaml': [96, 1, 1, 0, 0, '2024-01-01T01:00:00.000Z', 'gke'],
  'GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_3.yaml': [86, 1, 1, 0, 0, '2024-01-01T01:00:00.000Z', 'gke'],
  'GoogleCloudPlatform__khi__test__logs__oss__test-log.yaml': [105, 1, 1, 0, 0, '2025-04-01T13:33:59.457Z', 'yaml'],
  // Pretty-printed single events.
  'afcollins__kube-audit-log-tool__single-event.json': [39, 1, 1, 0, 0, '2023-09-01T15:37:02.757Z', 'json-docs'],
  'openshift__cluster-logging-operator__hack__logsamples__raw_audit_kubernetes.json': [46, 1, 1, 0, 0, '2024-07-02T17:01:26.370Z', 'json-docs'],
  'openshift__cluster-logging-operator__hack__logsamples__raw_audit_openshift.json': [28, 1, 1, 0, 0, '2024-07-02T17:02:26.406Z', 'json-docs'],
  'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__log5607_sample.json': [50, 1, 1, 0, 0, '2024-05-29T13:24:55.110Z', 'json-docs'],
  // Wrappers. OTLP: a ResponseStarted watch (no request) and two gets.
  'elastic__integrations__packages__gcp__data_stream__audit___dev__test__pipeline__test-k8s-nonmatching-resourcename.log': [1, 1, 1, 0, 0, '2021-04-23T14:47:07.535Z', 'gke'],
  'elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-kube-audit.log': [1, 1, 1, 0, 0, '2025-10-07T16:19:19.647Z', 'aks'],
  'openshift__cluster-logging-operator__hack__logsamples__viaq_audit_kubernetes.json': [47, 1, 1, 0, 0, '2023-10-18T17:32:47.413Z', 'viaq'],
  'openshift__cluster-logging-operator__hack__logsamples__otlp_audit_kube.json': [401, 3, 2, 0, 0, '2024-12-19T19:19:54.827Z', 'otlp'],
  // JSON lines.
  'liggitt__audit2rbac__testdata__demo.log': [37, 37, 37, 0, 0, '2017-09-11T19:55:05.000Z', 'jsonl'],
  // Lines 2 and 3 are the same event (same auditID, same times): counted once. Line 4 is a GKE
  // entry and line 5 an AKS record (same auditID as line 1, another time): both read.
  'elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-audit.log': [5, 5, 4, 0, 1, '2025-03-04T06:22:18.822Z', 'jsonl'],
  // One ResponseStarted event of an attach: no request.
  'falcosecurity__falco__test__trace_files__k8s_audit__attach_pod.json': [1, 1, 0, 0, 0, null, 'jsonl'],
  'falcosecurity__falco__test__trace_files__k8s_audit__create_configmap_sensitive_values.json': [6, 6, 6, 0, 0, '2018-10-26T09:51:20.717Z', 'jsonl'],
  'falcosecurity__falco__test__trace_files__k8s_audit__create_nginx_pod_privileged.json': [1, 1, 1, 0, 0, '2018-10-25T14:09:12.581Z', 'jsonl'],
  'falcosecurity__falco__test__trace_files__k8s_audit__modify_cluster_role_node_problem_detector.json': [1, 1, 1, 0, 0, '2018-10-26T14:11:51.039Z', 'jsonl'],
  'openshift__cluster-logging-operator__test__functional__filters__apiaudit__testdata__audit.log': [5, 5, 5, 0, 0, '2023-06-12T13:30:25.757Z', 'jsonl'],
  // 100 events: 92 ResponseComplete, 8 ResponseStarted.
  'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log': [100, 100, 92, 0, 0, '2023-06-12T13:30:25.757Z', 'jsonl'],
};

describe.skipIf(!present)(present ? `public corpus (${CORPUS})` : `public corpus: SKIPPED, ${CORPUS} is absent (a clone outside the workspace)`, () => {
  it('covers every file in the corpus', () => {
    expect(readdirSync(CORPUS).sort()).toEqual([...Object.keys(FILES), 'SOURCES.md'].sort());
  });

  it.each(Object.entries(FILES))('%s: exact counts', async (file, [lines, events, requests, bad, dups, from, format]) => {
    const r = await analyze({ inputs: [path.join(CORPUS, file)] }, { now: () => new Date(0) });
    expect(r.input.sources.map((s) => s.format)).toEqual([format]);
    expect([r.input.lines, r.input.events, r.input.requests, r.input.badLines, r.input.skipped.duplicates]).toEqual([lines, events, requests, bad, dups]);
    expect(r.input.timeRange?.from ?? null).toBe(from);
    expect(r.findings).toEqual([]);
  });

  it('the OpenShift capture: its four 409s are AlreadyExists, not Conflict', async () => {
    const file = 'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log';
    const r = await analyze({ inputs: [path.join(CORPUS, file)] }, { now: () => new Date(0) });
    expect(r.summaries.totals).toEqual({ requests: 92, writes: 36, conflicts: 0, alreadyExists: 4, throttled: 0 });
  });

  it('SOURCES.md is rejected with a description, no crash', async () => {
    const err = await analyze({ inputs: [path.join(CORPUS, 'SOURCES.md')] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toContain('does not look like a kube-apiserver audit log');
    expect((err as InputError).message).toContain('It looks like: JSON or text that is not audit events.');
  });
});
