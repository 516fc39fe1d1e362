/**
 * analyze() over every public audit-log file in ../shared/corpus/public (read in place, never
 * copied). JSON-lines files must give exact counts; files of other shapes are rejected with an
 * InputError that says what they look like, and nothing else may be thrown.
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

/** lines, events, requests, bad lines, duplicates, first request time. */
const JSON_LINES: Record<string, [number, number, number, number, number, string | null]> = {
  'liggitt__audit2rbac__testdata__demo.log': [37, 37, 37, 0, 0, '2017-09-11T19:55:05.000Z'],
  // Lines 2 and 3 are the same event (same auditID, same times): counted once. Line 4 is a GKE
  // entry and line 5 an AKS record: bad lines until those shapes are read.
  'elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-audit.log': [5, 3, 2, 2, 1, '2025-03-04T06:22:18.822Z'],
  // One ResponseStarted event of an attach: no request.
  'falcosecurity__falco__test__trace_files__k8s_audit__attach_pod.json': [1, 1, 0, 0, 0, null],
  'falcosecurity__falco__test__trace_files__k8s_audit__create_configmap_sensitive_values.json': [6, 6, 6, 0, 0, '2018-10-26T09:51:20.717Z'],
  'falcosecurity__falco__test__trace_files__k8s_audit__create_nginx_pod_privileged.json': [1, 1, 1, 0, 0, '2018-10-25T14:09:12.581Z'],
  'falcosecurity__falco__test__trace_files__k8s_audit__modify_cluster_role_node_problem_detector.json': [1, 1, 1, 0, 0, '2018-10-26T14:11:51.039Z'],
  'openshift__cluster-logging-operator__test__functional__filters__apiaudit__testdata__audit.log': [5, 5, 5, 0, 0, '2023-06-12T13:30:25.757Z'],
  // 100 events: 92 ResponseComplete, 8 ResponseStarted.
  'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log': [100, 100, 92, 0, 0, '2023-06-12T13:30:25.757Z'],
};

describe.skipIf(!present)(present ? `public corpus (${CORPUS})` : `public corpus: SKIPPED, ${CORPUS} is absent (a clone outside the workspace)`, () => {
  it.each(Object.entries(JSON_LINES))('%s: exact counts', async (file, [lines, events, requests, bad, dups, from]) => {
    const r = await analyze({ inputs: [path.join(CORPUS, file)] }, { now: () => new Date(0) });
    expect([r.input.lines, r.input.events, r.input.requests, r.input.badLines, r.input.skipped.duplicates]).toEqual([
      lines,
      events,
      requests,
      bad,
      dups,
    ]);
    expect(r.input.timeRange?.from ?? null).toBe(from);
    expect(r.findings).toEqual([]);
  });

  it('the OpenShift capture: its four 409s are AlreadyExists, not Conflict', async () => {
    const file = 'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log';
    const r = await analyze({ inputs: [path.join(CORPUS, file)] }, { now: () => new Date(0) });
    expect(r.summaries.totals).toEqual({ requests: 92, writes: 36, conflicts: 0, alreadyExists: 4, throttled: 0 });
  });

  const others = present ? readdirSync(CORPUS).filter((f) => !(f in JSON_LINES)).sort() : [];
  it.each(others)('%s: rejected with a description, no crash', async (file) => {
    const err = await analyze({ inputs: [path.join(CORPUS, file)] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toContain('does not look like a kube-apiserver audit log');
    expect((err as InputError).message).toContain('It looks like:');
  });
});

