/**
 * `auditstorm objects`, `auditstorm crd` and `analyze --objects`: the real CRDs and captured
 * objects in `../shared/corpus/crds` (see its SOURCES.md; expected findings checked by reading each
 * file), generated inputs with exact findings, the join, and the CLI's exit codes.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONDITIONS_SCHEMA, WIDGET_CRD_WITHOUT_STATUS_SUBRESOURCE } from './condition-schema.js';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Finding, Report } from '../../src/report/schema.js';
import { ReportSchema } from '../../src/report/schema.js';
import { renderReport } from '../../src/report/index.js';
import { crdReport, joinObjects, objectsReport, type StatusInput } from '../../src/status/report.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = path.resolve(repoRoot, '../shared/corpus/crds');
const present = existsSync(CORPUS);
if (!present) console.warn(`auditstorm tests: ${CORPUS} not found; the CRD-corpus tests are skipped (they run where ../shared exists)`);
const NOW = '2026-12-05T00:00:00.000Z';

function input(name: string, text: string): StatusInput {
  return { name, text, bytes: Buffer.byteLength(text), kind: 'file' };
}
function corpus(file: string): StatusInput {
  return input(file, readFileSync(path.join(CORPUS, file), 'utf8'));
}
const brief = (r: Report): string[] => r.findings.map((f) => `${f.kind} ${f.severity} ${f.object?.apiVersion ?? '-'} ${f.signals.join(',')}`);

describe.runIf(present)('crd on the corpus', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['cert-manager__cert-manager__deploy__crds__cert-manager.io_certificates.yaml', [], ['v1 true list-map per-condition 0']],
    [
      'argoproj__argo-rollouts__manifests__crds__rollout-crd.yaml',
      [
        'crd-conditions medium v1alpha1 no-list-type-map,status-not-enum,not-metav1-condition',
        'crd-observed-generation medium v1alpha1 observed-generation-not-integer',
        'ssa-list-markers info v1alpha1 no-list-type',
      ],
      ['v1alpha1 true list other 33'],
    ],
    [
      'fluxcd__kustomize-controller__config__crd__bases__kustomize.toolkit.fluxcd.io_kustomizations.yaml',
      ['crd-conditions medium v1 no-list-type-map', 'crd-observed-generation info v1 observed-generation-no-minimum', 'ssa-list-markers info v1 no-list-type'],
      ['v1 true list integer-no-minimum 9'],
    ],
    [
      'kedacore__keda__config__crd__bases__keda.sh_scaledobjects.yaml',
      [
        'crd-conditions medium v1alpha1 no-list-type-map,no-lastTransitionTime,status-not-enum',
        'crd-observed-generation low v1alpha1 no-observed-generation',
        'ssa-list-markers info v1alpha1 no-list-type',
      ],
      ['v1alpha1 true list none 1'],
    ],
    [
      'kubernetes-sigs__cluster-api__core__config__crd__bases__cluster.x-k8s.io_machines.yaml',
      [
        'crd-conditions medium v1beta1 no-list-type-map,status-not-enum,not-metav1-condition',
        'crd-observed-generation info v1beta1 observed-generation-no-minimum',
        'ssa-list-markers info v1beta1 no-list-type',
        'ssa-list-markers info v1beta2 no-list-type',
      ],
      ['v1beta1 true list integer-no-minimum 1', 'v1beta2 true list-map integer 1'],
    ],
    [
      'prometheus-operator__prometheus-operator__example__prometheus-operator-crd__prometheus.crd.yaml',
      [
        'crd-status-subresource high v1 no-status-subresource',
        'crd-conditions low v1 no-conditions',
        'crd-observed-generation low v1 no-observed-generation',
        'ssa-list-markers info v1 no-list-type',
      ],
      ['v1 false none none 45'],
    ],
    [
      'vmware-tanzu__velero__config__crd__v1__bases__velero.io_deletebackuprequests.yaml',
      ['crd-status-subresource high v1 no-status-subresource', 'crd-conditions low v1 no-conditions', 'crd-observed-generation low v1 no-observed-generation'],
      ['v1 false none none 0'],
    ],
    [
      'zalando__postgres-operator__manifests__postgresql.crd.yaml',
      ['crd-conditions low v1 no-conditions', 'crd-observed-generation low v1 no-observed-generation', 'ssa-list-markers info v1 no-list-type'],
      ['v1 true none none 10'],
    ],
  ];
  it.each(cases)('%s', (file, findings, versions) => {
    const r = crdReport(corpus(file), {}, NOW);
    expect(brief(r)).toEqual(findings);
    expect(r.crd!.versions.map((v) => [v.version, v.statusSubresource, v.conditions, v.observedGeneration, v.atomicObjectLists].join(' '))).toEqual(versions);
    expect(() => ReportSchema.parse(r)).not.toThrow();
  });

  it('the velero Backup CRD has no subresources at all: status writes go through the main resource', () => {
    const r = crdReport(corpus('vmware-tanzu__velero__config__crd__v1__bases__velero.io_backups.yaml'), {}, NOW);
    expect(r.findings[0]!.title).toBe('backups.velero.io v1: the schema has .status but the status subresource is not enabled');
  });

  it('a captured object is not a CRD: an input error naming its kind, not a clean report', () => {
    expect(() => crdReport(corpus('argoproj__argo-rollouts__pkg__kubectl-argo-rollouts__info__testdata__canary__canary-rollout.yaml'), {}, NOW)).toThrow(
      'argoproj__argo-rollouts__pkg__kubectl-argo-rollouts__info__testdata__canary__canary-rollout.yaml: no CustomResourceDefinition in the input (1 other object(s), kind Rollout)',
    );
  });
});

describe.runIf(present)('objects on the corpus', () => {
  it('Rollout canary-demo: observedGeneration is the string "429"; clock from the input', () => {
    const r = objectsReport(corpus('argoproj__argo-rollouts__pkg__kubectl-argo-rollouts__info__testdata__canary__canary-rollout.yaml'), {}, null, NOW);
    expect(brief(r)).toEqual(['status-lag low v1alpha1 observed-generation-not-integer']);
    expect(r.findings[0]!.title).toBe('Rollout jesse-test/canary-demo: status.observedGeneration is a string ("429"), not an integer');
    expect(r.objects!.now).toBe('2019-10-28T04:52:55.000Z');
    expect(r.objects!.rows).toEqual([
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        namespace: 'jesse-test',
        name: 'canary-demo',
        generation: 429,
        observedGeneration: '429',
        observedFrom: 'status',
        readyType: 'Available',
        ready: 'True',
        reason: 'AvailableReason',
        readyForMs: Date.parse('2019-10-28T04:52:55Z') - Date.parse('2019-10-25T06:07:29Z'),
      },
    ]);
  });

  it('Provider: Healthy False, not stuck at its own clock, stuck an hour later', () => {
    const file = 'argoproj__argo-cd__resource_customizations___.crossplane.io_____testdata__provider_degraded.yaml';
    expect(objectsReport(corpus(file), {}, null, NOW).findings).toEqual([]);
    const r = objectsReport(corpus(file), {}, Date.parse('2025-11-22T09:47:52Z'), NOW);
    expect(brief(r)).toEqual(['stuck medium v1 ready-false']);
    expect(r.findings[0]!.title).toBe('Provider upbound-provider-family-azure: Healthy=False (UnhealthyPackageRevision) for 1h');
    expect(r.objects!.rows[0]!.observedGeneration).toBe(3);
    expect(r.objects!.rows[0]!.observedFrom).toBe('condition');
    // The condition's message is never copied into the report.
    expect(renderReport(r, 'json')).not.toContain('minimum availability');
  });
});

/** A generated `kubectl get -o json` List. */
function obj(name: string, gen: number, obs: number | string | undefined, conds: unknown[]): unknown {
  const status: Record<string, unknown> = { conditions: conds };
  if (obs !== undefined) status['observedGeneration'] = obs;
  return { apiVersion: 'apps.example.com/v1', kind: 'AppDeployment', metadata: { name, namespace: 'shop', generation: gen }, status };
}
const ok = (t: string, at = '2026-08-08T18:00:00Z'): unknown => ({ type: 'Ready', status: 'True', reason: 'Reconciled', message: 'ok', lastTransitionTime: at });

describe('a condition set on an older generation than status.observedGeneration', () => {
  const cond = (type: string, observedGeneration: number): unknown => ({ ...(ok(type) as object), type, observedGeneration });
  it('is one low status-lag finding per object naming the stale conditions; current ones and a lagging status give none of it', () => {
    const list = {
      kind: 'List',
      items: [
        obj('stale', 6, 6, [cond('Ready', 6), cond('Synced', 4), cond('Healthy', 5)]),
        obj('current', 6, 6, [cond('Ready', 6), cond('Synced', 6)]),
        obj('lagging', 6, 5, [cond('Ready', 5)]),
      ],
    };
    const r = objectsReport(input('conds.json', JSON.stringify(list)), {}, null, NOW);
    expect(r.findings.map((f) => `${f.kind} ${f.severity} ${f.object?.name ?? '-'} ${f.signals.join(',')}`)).toEqual([
      'status-lag low lagging observed-generation-behind',
      'status-lag low stale condition-observed-generation-behind',
    ]);
    const f = r.findings[1]!;
    expect(f.title).toBe('AppDeployment shop/stale: status.observedGeneration is 6, but conditions Synced (4), Healthy (5) were set on an older generation');
    expect(f.metrics).toEqual({ generation: 6, observedGeneration: 6, lag: 2, staleConditions: 2 });
  });
});

describe('objects on generated input', () => {
  const list = {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      obj('good', 4, 4, [ok('Ready', '2026-08-08T10:00:00Z')]),
      obj('behind', 9, 5, [ok('Ready', '2026-08-08T11:00:00Z')]),
      obj('ahead', 2, 3, [ok('Ready', '2026-08-08T12:00:00Z')]),
      obj('nogen', 1, undefined, [ok('Ready', '2026-08-08T13:00:00Z')]),
      obj('shape', 1, 1, [
        { status: 'Yes', reason: 'not camel', lastTransitionTime: '2026-08-08T18:00:00Z' },
        { type: 'Synced', status: 'False', reason: 'Failed', message: '', lastTransitionTime: '2026-08-08T18:00:00Z' },
      ]),
      { metadata: {} },
    ],
  };
  it('gives exactly these findings', () => {
    const r = objectsReport(input('gen.json', JSON.stringify(list, null, 1)), {}, null, NOW);
    expect(r.findings.map((f) => `${f.kind} ${f.severity} ${f.object?.name ?? '-'} ${f.signals.join(',')}`)).toEqual([
      'status-lag high ahead observed-generation-ahead',
      'condition-shape medium shape empty-message-on-false,missing-type,reason-not-camelcase,status-not-true-false-unknown',
      'status-lag medium behind observed-generation-behind',
      'status-lag low - observed-generation-missing',
    ]);
    expect(r.findings[3]!.title).toBe('AppDeployment: no observedGeneration (in status or the readiness condition) on 1 of 5 objects: shop/nogen');
    expect(r.input.badLines).toBe(1);
    expect(r.input.badLineSamples[0]!.reason).toBe('gen.json:1 /items/5: not a Kubernetes object (no metadata.name); skipped');
  });

  it('condition-churn: 5 of 6 objects changed a condition within the last minute', () => {
    const items = [0, 1, 2, 3, 4].map((i) => obj(`o${i}`, 1, 1, [ok('Ready', `2026-08-08T18:00:${String(10 + i * 10)}Z`)]));
    items.push(obj('old', 1, 1, [ok('Ready', '2026-08-08T10:00:00Z')]));
    const r = objectsReport(input('churn.yaml', items.map((o) => JSON.stringify(o)).join('\n---\n')), {}, null, NOW);
    expect(brief(r)).toEqual(['condition-churn medium - clock-from-input']);
    expect(r.findings[0]!.metrics).toEqual({ objects: 6, recentObjects: 5, share: 0.8333, churnWindowMs: 60_000 });
    // Below the threshold: a lower minimum share is not enough when churnMinObjects is raised.
    expect(objectsReport(input('churn.yaml', items.map((o) => JSON.stringify(o)).join('\n---\n')), { churnMinObjects: 6 }, null, NOW).findings).toEqual([]);
  });

  it('bad input names the line', () => {
    expect(() => objectsReport(input('x.json', '{\n "a": 1,\n}'), {}, null, NOW)).toThrow(/^x\.json:3:1: not valid JSON/);
    expect(() => objectsReport(input('x.yaml', 'a: [1\nb: 2\n'), {}, null, NOW)).toThrow(/^x\.yaml:\d+:\d+: not valid YAML/);
  });
});

describe('crd on generated input', () => {
  const crd = (status: unknown, spec: unknown, subresources?: unknown): string =>
    JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'apps.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'App' },
        versions: [
          { name: 'v1', served: true, storage: true, ...(subresources ? { subresources } : {}), schema: { openAPIV3Schema: { type: 'object', properties: { spec, status } } } },
          { name: 'v0', served: false, storage: false },
        ],
      },
    });
  it('a good contract gives no finding', () => {
    const r = crdReport(
      input(
        'good.json',
        crd(
          { type: 'object', properties: { conditions: CONDITIONS_SCHEMA, observedGeneration: { type: 'integer', format: 'int64', minimum: 0 } } },
          { type: 'object', properties: { replicas: { type: 'integer' } } },
          { status: {} },
        ),
      ),
      {},
      NOW,
    );
    expect(r.findings).toEqual([]);
    expect(r.crd!.versions).toEqual([
      {
        crd: 'apps.example.com',
        kind: 'App',
        version: 'v1',
        storage: true,
        hasStatus: true,
        statusSubresource: true,
        conditions: 'list-map',
        observedGeneration: 'integer',
        atomicObjectLists: 0,
      },
    ]);
  });
  it('commands in spec, an unmarked list, no subresource', () => {
    const spec = {
      type: 'object',
      properties: {
        restart: { type: 'boolean' },
        promoteFull: { type: 'boolean' },
        runPolicy: { type: 'string' },
        targets: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    };
    const r = crdReport(
      input('bad.json', crd({ type: 'object', properties: { conditions: CONDITIONS_SCHEMA, observedGeneration: { type: 'integer', minimum: 0 } } }, spec)),
      {},
      NOW,
    );
    expect(r.findings.map((f) => `${f.kind} ${f.severity} ${f.title}`)).toEqual([
      'crd-status-subresource high apps.example.com v1: the schema has .status but the status subresource is not enabled',
      'crd-imperative-field low apps.example.com v1: spec.promoteFull (boolean) reads as a command, not a desired state',
      'crd-imperative-field low apps.example.com v1: spec.restart (boolean) reads as a command, not a desired state',
      'ssa-list-markers info apps.example.com v1: 1 list of objects without x-kubernetes-list-type, e.g. .spec.targets',
    ]);
  });
});

describe('analyze --objects join', () => {
  const storm = (resource: string): Finding => ({
    id: 'hot-loop-1',
    kind: 'hot-loop',
    severity: 'high',
    title: 'hot loop',
    actors: [],
    object: { apiGroup: 'apps.example.com', apiVersion: 'v1', resource, namespace: 'shop', name: 'good', subresource: 'status' },
    window: { from: NOW, to: NOW },
    metrics: { meanWritesPerSec: 82 },
    signals: [],
    evidence: { auditIDs: [], firstAuditID: '', lastAuditID: '', auditLevel: 'Metadata', level: 'proven' },
    advice: [],
  });
  const capture = JSON.stringify({ kind: 'List', items: [obj('good', 4, 4, [ok('Ready')])] });
  const base = objectsReport(input('x.json', capture), {}, null, NOW);
  it('says the controller had nothing to do, in every renderer', () => {
    const { report, joined } = joinObjects({ ...base, objects: undefined, findings: [storm('appdeployments'), { ...storm('other'), id: 'x' }] }, input('objs.json', capture));
    expect(joined).toBe(1);
    const line =
      'generation 4, observedGeneration 4, Ready True (Reconciled): observedGeneration == generation and Ready True: the controller had nothing to do, yet wrote 82 times/s';
    expect(report.findings[0]!.objectStatus?.text).toBe(line);
    expect(report.findings[1]!.objectStatus).toBeUndefined();
    expect(renderReport(report, 'text')).toContain(`Object status   ${line.slice(0, 40)}`);
    expect(renderReport(report, 'markdown')).toContain('**Object status:** generation 4, observedGeneration 4, Ready True (Reconciled)');
    expect(renderReport(report, 'html')).toContain('<h4>Object status</h4>');
    expect((JSON.parse(renderReport(report, 'json')) as Report).findings[0]!.objectStatus?.generation).toBe(4);
  });
});

function io(stdin = ''): { io: CliIO; out: () => string; err: () => string } {
  const o = new PassThrough();
  const e = new PassThrough();
  let so = '';
  let se = '';
  o.on('data', (d) => (so += String(d)));
  e.on('data', (d) => (se += String(d)));
  return {
    io: { stdin: Readable.from([stdin]), stdout: o, stderr: e, env: {}, isTTY: { stdin: false, stdout: false, stderr: false }, now: () => new Date(NOW), nativeScanner: true },
    out: () => so,
    err: () => se,
  };
}

describe('CLI', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'auditstorm-status-'));
  const file = path.join(dir, 'objs.json');
  const crdFile = path.join(dir, 'widgets.json');
  writeFileSync(crdFile, JSON.stringify(WIDGET_CRD_WITHOUT_STATUS_SUBRESOURCE));
  writeFileSync(file, JSON.stringify({ kind: 'List', items: [obj('behind', 9, 5, [ok('Ready')])] }));
  it('objects: exit 1 at --fail-on medium, 0 at high; the table is printed', async () => {
    const a = io();
    expect(await main(['objects', file, '--fail-on', 'medium'], a.io)).toBe(1);
    expect(a.out()).toContain('shop/behind  AppDeployment  9    5        Ready=True  Reconciled  0s');
    expect(await main(['objects', file, '--fail-on', 'high'], io().io)).toBe(0);
  });
  it('objects from stdin as JSON', async () => {
    const a = io(readFileSync(file, 'utf8'));
    expect(await main(['objects', '-', '--format', 'json'], a.io)).toBe(0);
    expect((JSON.parse(a.out()) as Report).findings.map((f) => f.kind)).toEqual(['status-lag']);
  });
  it('bad input and usage give 2 with a message', async () => {
    const a = io('{"items": [');
    expect(await main(['objects', '-'], a.io)).toBe(2);
    expect(a.err()).toMatch(/^auditstorm: -:1:\d+: not valid JSON/);
    const b = io();
    expect(await main(['crd'], b.io)).toBe(2);
    expect(b.err()).toContain('crd takes one input');
    const c = io();
    expect(await main(['objects', file, '--now', 'yesterday'], c.io)).toBe(2);
  });
  it('analyze --objects with a capture that is not JSON: exit 2, the message names the flag, the file, line and column', async () => {
    const bad = path.join(dir, 'cut.json');
    writeFileSync(bad, '{"kind": "List", "items": [{"kind": "Foo",');
    const a = io();
    expect(await main(['analyze', '--objects', bad, path.join(import.meta.dirname, '../../fixtures/sample/audit.log.gz')], a.io)).toBe(2);
    expect(a.err().split('\n')[0]).toBe(`auditstorm: --objects ${bad}:1:43: not valid JSON: Expected double-quoted property name`);
  });
  it('analyze --objects - reads the capture from stdin (the log is a file); both on stdin is a usage error', async () => {
    const appDeployment = {
      apiVersion: 'infra.company.io/v1',
      kind: 'AppDeployment',
      metadata: { name: 'payment-core', namespace: 'default', generation: 4 },
      status: { observedGeneration: 4, conditions: [ok('Ready')] },
    };
    const capture = JSON.stringify({ kind: 'List', items: [appDeployment] });
    const log = path.join(import.meta.dirname, '../../fixtures/incident/payment-core.log');
    const a = io(capture);
    expect(await main(['analyze', log, '--objects', '-', '--format', 'json', '-q'], a.io)).toBe(0);
    const r = JSON.parse(a.out()) as Report;
    expect(r.findings.filter((f) => f.objectStatus !== undefined).map((f) => [f.kind, f.object?.name, f.objectStatus?.generation])).toEqual([
      ['conflict-storm', 'payment-core', 4],
    ]);
    const b = io(capture);
    expect(await main(['analyze', '-', '--objects', '-'], b.io)).toBe(2);
    expect(b.err()).toBe('auditstorm: --objects -: stdin is already the audit log\nhint: save the kubectl get output to a file and give --objects FILE\n');
  });
  it('--format that goes to an -o file with no known extension (/dev/null) is not also printed on stdout, as for analyze', async () => {
    const a = io();
    expect(await main(['crd', crdFile, '--format', 'json', '-o', '/dev/null', '--fail-on', 'high'], a.io)).toBe(1);
    expect(a.out()).toBe('');
    expect(a.err()).toBe('auditstorm: wrote /dev/null: 3 finding(s)\n');
    const b = io();
    expect(await main(['objects', file, '--format', 'json', '-o', path.join(dir, 'o.md'), '-q'], b.io)).toBe(0);
    expect((JSON.parse(b.out()) as Report).findings.map((f) => f.kind)).toEqual(['status-lag']);
  });
  it('an --out file given twice (also as ./name) is a usage error, as for analyze', async () => {
    const out = path.join(dir, 'twice.json');
    const rel = path.relative(process.cwd(), out);
    const a = io();
    expect(await main(['objects', file, '-o', out, '-o', out], a.io)).toBe(2);
    expect(a.err()).toBe(`auditstorm: --out ${out}: given twice\n`);
    const b = io();
    expect(await main(['objects', file, '-o', out, '-o', `./${rel}`], b.io)).toBe(2);
    expect(b.err()).toBe(`auditstorm: --out ./${rel}: given twice\n`);
  });
  it('help', async () => {
    const a = io();
    expect(await main(['crd', '--help'], a.io)).toBe(0);
    expect(a.out()).toContain('auditstorm crd FILE|- [options]');
    const b = io();
    expect(await main(['--help'], b.io)).toBe(0);
    expect(b.out()).toContain('--objects');
  });
});
