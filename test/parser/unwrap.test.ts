/** Cloud and collector wrappers → audit events (reference §1.6, §6.2–§6.4; public corpus). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { generateLog } from '../../src/generator/generate.js';
import { toAks, toEksFilterLogEvents, toEksSubscriptionPayload, toGke, toOtlp, toViaq } from '../../src/generator/shapes.js';
import { decodeLine } from '../../src/decoding/decode.js';
import type { AuditEvent } from '../../src/decoding/event.js';
import { decodeSubscriptionPayload, unwrapExportLine, unwrapValue, type UnwrapResult } from '../../src/decoding/unwrap.js';
import { CONFLICT_EVENT, eventLine } from './helpers.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = path.resolve(repoRoot, '../shared/corpus/public');
const corpusPresent = existsSync(CORPUS);

function decoded(line: string): AuditEvent {
  const d = decodeLine(line);
  if (!d.ok) throw new Error(d.reason);
  return d.event;
}

function unwrap(value: unknown): UnwrapResult {
  const r = unwrapValue(value);
  if (r === null) throw new Error('not a wrapper');
  return r;
}

/** The expected result: events decoded from `lines`, nothing bad. */
function expectEvents(r: UnwrapResult | null, shape: string, lines: string[], extra: Partial<UnwrapResult> = {}): void {
  expect(r).toStrictEqual({ shape, events: lines.map(decoded), bad: [], truncated: 0, truncatedRead: 0, skipped: 0, ...extra });
}

const LINE = eventLine();

describe('unwrapValue: not a wrapper', () => {
  it.each([
    ['a bare event', JSON.parse(LINE) as unknown],
    ['null', null],
    ['an array', [JSON.parse(LINE) as unknown]],
    ['a string', LINE],
    ['an unrelated object', { hello: 'world' }],
    ['a plain CloudWatch log line', { message: 'I0701 10:00:00 started', timestamp: 1 }],
  ])('%s → null', (_name, value) => {
    expect(unwrapValue(value)).toBeNull();
  });
});

describe('eventlist', () => {
  it('decodes items and names bad ones', () => {
    const r = unwrapValue({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: [JSON.parse(LINE), { kind: 'Event' }] });
    expect(r).toStrictEqual({
      shape: 'eventlist',
      events: [decoded(LINE)],
      bad: ['EventList items[1]: JSON but not an audit event: no auditID'],
      truncated: 0,
      truncatedRead: 0,
      skipped: 0,
    });
  });
  it('reads an empty list (items omitted) as no events', () => {
    expectEvents(unwrapValue({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {} }), 'eventlist', []);
  });
});

/** The §6.2 minimal example (a 409 Conflict on a status update). */
const GKE_EXAMPLE = {
  insertId: '6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21',
  logName: 'projects/acme-prod/logs/cloudaudit.googleapis.com%2Factivity',
  operation: { id: '6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21', producer: 'k8s.io', first: true, last: true },
  protoPayload: {
    '@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
    authenticationInfo: { principalEmail: 'system:serviceaccount:shop-system:shop-operator' },
    authorizationInfo: [{ granted: true, permission: 'io.k8s.apps.v1.deployments.status.update', resource: 'apps/v1/namespaces/shop/deployments/web/status' }],
    methodName: 'io.k8s.apps.v1.deployments.status.update',
    requestMetadata: { callerIp: '10.244.1.17', callerSuppliedUserAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format' },
    resourceName: 'apps/v1/namespaces/shop/deployments/web/status',
    serviceName: 'k8s.io',
    status: { code: 10, message: 'Conflict' },
    response: {
      '@type': 'core.k8s.io/v1.Status',
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
    },
  },
  resource: { type: 'k8s_cluster', labels: { project_id: 'acme-prod', location: 'us-central1', cluster_name: 'prod-1' } },
  timestamp: '2026-07-01T10:00:00.131002Z',
  receiveTimestamp: '2026-07-01T10:00:05.412345678Z',
  labels: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
};

const T = Date.UTC(2026, 6, 1, 10, 0, 0, 131) + 0.002;

describe('gke', () => {
  it('maps the reference example exactly', () => {
    expect(unwrap(structuredClone(GKE_EXAMPLE))).toStrictEqual({
      shape: 'gke',
      events: [
        {
          kind: 'Event',
          apiVersion: 'audit.k8s.io/v1',
          level: 'Metadata',
          auditID: '6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21',
          stage: 'ResponseComplete',
          requestURI: '/apis/apps/v1/namespaces/shop/deployments/web/status',
          verb: 'update',
          user: { username: 'system:serviceaccount:shop-system:shop-operator' },
          sourceIPs: ['10.244.1.17'],
          userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
          objectRef: { resource: 'deployments', namespace: 'shop', name: 'web', apiGroup: 'apps', apiVersion: 'v1', subresource: 'status' },
          responseStatus: { metadata: {}, code: 409, reason: 'Conflict' },
          requestReceivedTimestamp: '2026-07-01T10:00:00.131002Z',
          stageTimestamp: '2026-07-01T10:00:00.131002Z',
          annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
          stageTimeMs: T,
          receivedTimeMs: T,
        },
      ],
      bad: [],
      truncated: 0,
      truncatedRead: 0,
      skipped: 0,
    });
  });

  const withStatus = (status: unknown, methodName = 'io.k8s.apps.v1.deployments.status.update', response?: unknown): unknown => {
    const e = structuredClone(GKE_EXAMPLE) as Record<string, unknown> & { protoPayload: Record<string, unknown> };
    e.protoPayload.status = status;
    e.protoPayload.methodName = methodName;
    if (response === undefined) delete e.protoPayload.response;
    else e.protoPayload.response = response;
    return e;
  };
  const statusOf = (v: unknown): unknown => unwrap(v).events[0]?.responseStatus;

  it.each([
    [{ code: 0 }, 'io.k8s.apps.v1.deployments.status.update', { metadata: {}, code: 200 }],
    [undefined, 'io.k8s.apps.v1.deployments.status.update', { metadata: {}, code: 200 }],
    [{ code: 0 }, 'io.k8s.core.v1.pods.create', { metadata: {}, code: 201 }],
    [{ code: 3 }, 'x.update', { metadata: {}, code: 400 }],
    [{ code: 4 }, 'x.update', { metadata: {}, code: 504 }],
    [{ code: 5 }, 'x.update', { metadata: {}, code: 404 }],
    [{ code: 6 }, 'x.create', { metadata: {}, code: 409, reason: 'AlreadyExists' }],
    // Only a create can be AlreadyExists: gRPC 6 on a write is a reason-less 409 (IsConflict).
    [{ code: 6 }, 'x.update', { metadata: {}, code: 409 }],
    [{ code: 6 }, 'x.patch', { metadata: {}, code: 409 }],
    [{ code: 6, message: 'Conflict' }, 'x.update', { metadata: {}, code: 409, reason: 'Conflict' }],
    [{ code: 7, message: 'Forbidden' }, 'x.update', { metadata: {}, code: 403, reason: 'Forbidden' }],
    [{ code: 8 }, 'x.update', { metadata: {}, code: 429 }],
    [{ code: 10 }, 'x.update', { metadata: {}, code: 409 }],
    [{ code: 10, message: 'Conflict' }, 'x.update', { metadata: {}, code: 409, reason: 'Conflict' }],
    [{ code: 10, message: 'the object has been modified' }, 'x.update', { metadata: {}, code: 409 }],
    [{ code: 13 }, 'x.update', { metadata: {}, code: 500 }],
    [{ code: 14 }, 'x.update', { metadata: {}, code: 503 }],
    [{ code: 16 }, 'x.update', { metadata: {}, code: 401 }],
    [{ code: 99 }, 'x.update', { metadata: {}, code: 500 }],
  ])('status %j of %s → %j', (status, method, expected) => {
    expect(statusOf(withStatus(status, method))).toStrictEqual(expected);
  });

  it('prefers a Kubernetes Status in response over the gRPC code', () => {
    const r = withStatus({ code: 10 }, 'io.k8s.core.v1.serviceaccounts.create', { '@type': 'core.k8s.io/v1.Status', kind: 'Status', reason: 'AlreadyExists', code: 409 });
    expect(statusOf(r)).toStrictEqual({ metadata: {}, code: 409, reason: 'AlreadyExists' });
  });

  it('takes the auditID from insertId without operation, and a first-only entry as ResponseStarted', () => {
    const e = structuredClone(GKE_EXAMPLE) as Record<string, unknown>;
    delete e.operation;
    e.insertId = 'ins-1';
    expect(unwrap(e).events[0]?.auditID).toBe('ins-1');
    const started = structuredClone(GKE_EXAMPLE);
    started.operation.last = false;
    expect(unwrap(started).events[0]?.stage).toBe('ResponseStarted');
  });

  it('maps cluster-scoped, namespace and list resourceNames', () => {
    const ref = (resourceName: string, methodName: string): [string | undefined, unknown] => {
      const e = withStatus({ code: 0 }, methodName);
      (e as { protoPayload: Record<string, unknown> }).protoPayload.resourceName = resourceName;
      const ev = unwrap(e).events[0];
      return [ev?.requestURI, ev?.objectRef];
    };
    expect(ref('core/v1/nodes/node-1/status', 'io.k8s.core.v1.nodes.status.patch')).toStrictEqual([
      '/api/v1/nodes/node-1/status',
      { resource: 'nodes', name: 'node-1', apiVersion: 'v1', subresource: 'status' },
    ]);
    expect(ref('core/v1/namespaces/shop', 'io.k8s.core.v1.namespaces.get')).toStrictEqual([
      '/api/v1/namespaces/shop',
      { resource: 'namespaces', namespace: 'shop', name: 'shop', apiVersion: 'v1' },
    ]);
    expect(ref('core/v1/namespaces/default/pods', 'io.k8s.core.v1.pods.list')).toStrictEqual([
      '/api/v1/namespaces/default/pods',
      { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
    ]);
    expect(ref('rbac.authorization.k8s.io/v1/clusterroles/admin', 'io.k8s.authorization.rbac.v1.clusterroles.update')).toStrictEqual([
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin',
      { resource: 'clusterroles', name: 'admin', apiGroup: 'rbac.authorization.k8s.io', apiVersion: 'v1' },
    ]);
    expect(ref('apps/v1/namespaces/shop/deployments/web', 'io.k8s.apps.v1.deployments.create')).toStrictEqual([
      '/apis/apps/v1/namespaces/shop/deployments',
      { resource: 'deployments', namespace: 'shop', name: 'web', apiGroup: 'apps', apiVersion: 'v1' },
    ]);
    expect(ref('openapi/v3/apis/apps/v1', 'io.k8s.get')).toStrictEqual(['/openapi/v3/apis/apps/v1', undefined]);
  });

  it('fills uid and resourceVersion from an object request body, as LogRequestObject does', () => {
    const e = withStatus({ code: 0 }, 'io.k8s.coordination.v1.leases.update') as { protoPayload: Record<string, unknown> };
    e.protoPayload.resourceName = 'coordination.k8s.io/v1/namespaces/kube-system/leases/l';
    e.protoPayload.request = { '@type': 'coordination.k8s.io/v1.Lease', kind: 'Lease', metadata: { name: 'l', uid: 'u-1', resourceVersion: '42' } };
    const ev = unwrap(e).events[0];
    expect(ev?.level).toBe('Request');
    expect(ev?.objectRef).toStrictEqual({
      resource: 'leases',
      namespace: 'kube-system',
      name: 'l',
      uid: 'u-1',
      apiGroup: 'coordination.k8s.io',
      apiVersion: 'v1',
      resourceVersion: '42',
    });
    expect(ev?.requestObject).toStrictEqual({ kind: 'Lease', metadata: { name: 'l', uid: 'u-1', resourceVersion: '42' } });
  });

  it('skips entries of other services and reports broken ones', () => {
    const other = { ...structuredClone(GKE_EXAMPLE), protoPayload: { ...GKE_EXAMPLE.protoPayload, serviceName: 'container.googleapis.com' } };
    expect(unwrapValue(other)).toStrictEqual({ shape: 'gke', events: [], bad: [], truncated: 0, truncatedRead: 0, skipped: 1 });
    const noMethod = structuredClone(GKE_EXAMPLE) as { protoPayload: Record<string, unknown> };
    delete noMethod.protoPayload.methodName;
    expect(unwrap(noMethod).bad).toStrictEqual(['GKE entry: no protoPayload.methodName']);
    const badTime = { ...structuredClone(GKE_EXAMPLE), timestamp: 'now' };
    expect(unwrap(badTime).bad).toStrictEqual(['GKE entry: timestamp is not an RFC 3339 time']);
  });
});

describe('eks', () => {
  const cw = { logStreamName: 'kube-apiserver-audit-0a1b', timestamp: 1782900000131, ingestionTime: 1782900003456, eventId: '3857', message: LINE };

  it('reads a single CloudWatch event', () => {
    expectEvents(unwrapValue(cw), 'eks', [LINE]);
  });
  it('reads FilterLogEvents output, counting truncated messages apart', () => {
    const cut = LINE.slice(0, 200) + '[Truncated...]';
    expect(unwrapValue({ events: [cw, { ...cw, message: cut }, { ...cw, message: '{"kind":' }], searchedLogStreams: [] })).toStrictEqual({
      shape: 'eks',
      events: [decoded(LINE)],
      bad: ['CloudWatch events[2]: not JSON (Unexpected end of JSON input)'],
      truncated: 1,
      truncatedRead: 0,
      skipped: 0,
    });
  });
  it('reads a subscription DATA_MESSAGE and skips a CONTROL_MESSAGE', () => {
    const data = {
      messageType: 'DATA_MESSAGE',
      owner: '1',
      logGroup: '/aws/eks/c/cluster',
      logStream: 'kube-apiserver-audit-1',
      subscriptionFilters: ['f'],
      logEvents: [{ id: '1', timestamp: 1, message: LINE }],
    };
    expectEvents(unwrapValue(data), 'eks', [LINE]);
    expect(unwrapValue({ messageType: 'CONTROL_MESSAGE', logEvents: [{ id: '', timestamp: 1, message: 'CWL CONTROL MESSAGE: Checking health of destination' }] })).toStrictEqual({
      shape: 'eks',
      events: [],
      bad: [],
      truncated: 0,
      truncatedRead: 0,
      skipped: 1,
    });
    const b64 = gzipSync(Buffer.from(JSON.stringify(data))).toString('base64');
    expect(decodeSubscriptionPayload(b64)).toStrictEqual(data);
    expectEvents(unwrapValue({ awslogs: { data: b64 } }), 'eks', [LINE]);
  });
  it('says which step of a subscription payload failed', () => {
    expect(() => decodeSubscriptionPayload('not base64!')).toThrow('CloudWatch subscription payload: not base64');
    expect(() => decodeSubscriptionPayload(Buffer.from('plain').toString('base64'))).toThrow(/^CloudWatch subscription payload: not gzip/);
    expect(() => decodeSubscriptionPayload(gzipSync(Buffer.from('{')).toString('base64'))).toThrow(/^CloudWatch subscription payload: not JSON/);
  });
  it('reads a Logs Insights row and S3 export lines', () => {
    expectEvents(unwrapValue({ '@timestamp': '2026-07-01 10:00:00.131', '@message': LINE }), 'eks', [LINE]);
    expectEvents(unwrapExportLine(`2026-07-01T10:00:00.131Z ${LINE}`), 'eks', [LINE]);
    expect(unwrapExportLine(`2026-07-01T10:00:00.131Z ${LINE.slice(0, 100)}[Truncated...]`)).toStrictEqual({
      shape: 'eks',
      events: [],
      bad: [],
      truncated: 1,
      truncatedRead: 0,
      skipped: 0,
    });
    expect(unwrapExportLine(LINE)).toBeNull();
    expect(unwrapExportLine('2026-07-01T10:00:00.131Z plain text')).toBeNull();
  });
});

describe('aks', () => {
  const record = (log: unknown, category = 'kube-audit'): Record<string, unknown> => ({
    time: '2026-07-01T10:00:00.1542310Z',
    resourceId: '/SUBSCRIPTIONS/0/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/AKS',
    category,
    operationName: 'Microsoft.ContainerService/managedClusters/diagnosticLogs/Read',
    properties: { log, stream: 'stdout', pod: 'kube-apiserver-1', containerID: '4f1c' },
  });
  it('reads records with string and object logs, and skips other categories', () => {
    expect(unwrapValue({ records: [record(LINE + '\n'), record(JSON.parse(LINE), 'kube-audit-admin'), record('{}', 'guard'), record('nope')] })).toStrictEqual({
      shape: 'aks',
      events: [decoded(LINE), decoded(LINE)],
      bad: ['AKS records[3]: not JSON (Unexpected token \'o\', "nope" is not valid JSON)'],
      truncated: 0,
      truncatedRead: 0,
      skipped: 1,
    });
  });
  it('reads a single record and an AzureDiagnostics row (log_s)', () => {
    expectEvents(unwrapValue(record(LINE)), 'aks', [LINE]);
    expectEvents(unwrapValue({ Category: 'kube-audit', log_s: LINE, pod_s: 'kube-apiserver-1' }), 'aks', [LINE]);
    expect(unwrapValue({ Category: 'cluster-autoscaler', log_s: 'I0701 scale up' })).toStrictEqual({
      shape: 'aks',
      events: [],
      bad: [],
      truncated: 0,
      truncatedRead: 0,
      skipped: 1,
    });
  });
});

describe('viaq', () => {
  it('drops the ViaQ fields and restores the level', () => {
    const viaq = {
      ...(JSON.parse(eventLine({ level: 'default' })) as Record<string, unknown>),
      '@timestamp': '2026-07-01T10:00:00.2Z',
      timestamp: '2026-07-01T10:00:00.2Z',
      hostname: 'master-0',
      k8s_audit_level: 'Metadata',
      log_type: 'audit',
      log_source: 'kubeAPI',
      openshift: { cluster_id: 'c' },
    };
    expectEvents(unwrapValue(viaq), 'viaq', [LINE]);
  });
  it('reports a k8s_audit_level that is not a string', () => {
    expect(unwrapValue({ ...(JSON.parse(LINE) as object), k8s_audit_level: 3 })).toStrictEqual({
      shape: 'viaq',
      events: [],
      bad: ['ViaQ record: k8s_audit_level is not a string'],
      truncated: 0,
      truncatedRead: 0,
      skipped: 0,
    });
  });
});

describe('otlp', () => {
  const rec = (line: string, type?: string): Record<string, unknown> => ({
    timeUnixNano: '1782900000131002000',
    body: { stringValue: line },
    attributes: type === undefined ? [] : [{ key: 'log_type', value: { stringValue: type } }],
  });
  it('reads every log record of every scope, skipping other log types', () => {
    const value = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'openshift.log.type', value: { stringValue: 'audit' } }] },
          scopeLogs: [{ scope: {}, logRecords: [rec(LINE), rec('app log', 'application')] }],
        },
        { scopeLogs: [{ logRecords: [rec(LINE), { body: { kvlistValue: {} } }] }] },
      ],
    };
    expect(unwrapValue(value)).toStrictEqual({
      shape: 'otlp',
      events: [decoded(LINE), decoded(LINE)],
      bad: ['OTLP resourceLogs[1].scopeLogs[0].logRecords[1]: body is not a stringValue'],
      truncated: 0,
      truncatedRead: 0,
      skipped: 1,
    });
  });
  it('reads a lone log record (a streamed logRecords element)', () => {
    expectEvents(unwrapValue(rec(LINE)), 'otlp', [LINE]);
  });
});

describe.skipIf(!corpusPresent)('public corpus', () => {
  const read = (file: string): string => readFileSync(path.join(CORPUS, file), 'utf8');
  const lines = (file: string): unknown[] =>
    read(file)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as unknown);
  /** The parts of an event that normalization reads, bodies left out. */
  const brief = (e: AuditEvent): unknown => [
    e.auditID,
    e.stage,
    e.level,
    e.verb,
    e.requestURI,
    e.user?.username,
    e.sourceIPs?.[0],
    e.objectRef ?? null,
    e.responseStatus?.code,
    e.responseStatus?.reason,
    e.stageTimeMs,
    e.receivedTimeMs,
  ];

  it('GKE YAML (khi): pods create by the replicaset-controller', () => {
    const r = unwrap(YAML.parse(read('GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_1.yaml')));
    expect([r.shape, r.bad, r.truncated, r.skipped]).toStrictEqual(['gke', [], 0, 0]);
    expect(r.events.map(brief)).toStrictEqual([
      [
        '85371f7c-2383-4041-96e8-dad63d2d1990',
        'ResponseComplete',
        'RequestResponse',
        'create',
        '/api/v1/namespaces/1-2-deployment-update/pods',
        'system:serviceaccount:kube-system:replicaset-controller',
        '172.16.0.3',
        { resource: 'pods', namespace: '1-2-deployment-update', name: 'nginx-deployment-surge-8655b4b8c5-xf5f4', apiVersion: 'v1' },
        201,
        undefined,
        Date.UTC(2024, 0, 1, 1),
        Date.UTC(2024, 0, 1, 1),
      ],
    ]);
    expect(r.events[0]?.userAgent).toBe('kube-controller-manager/v1.28.14 (linux/amd64) kubernetes/a4ef1a6/system:serviceaccount:kube-system:replicaset-controller');
    expect((r.events[0] as unknown as { annotations: Record<string, string> }).annotations['pod-security.kubernetes.io/enforce-policy']).toBe('privileged:latest');
    expect((r.events[0]?.responseObject as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe('15465');
  });

  it.each([
    ['GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_2.yaml', 'c7842d26-11fe-446a-b985-b2b67ddbab09'],
    ['GoogleCloudPlatform__khi__test__logs__k8s_audit__container_recorder_test_1_3.yaml', '7bf65423-5d85-43a0-aaf7-30a2ce7475df'],
  ])('GKE YAML (khi) %s: kubelet pods/status patch', (file, id) => {
    const r = unwrap(YAML.parse(read(file)));
    expect([r.shape, r.bad, r.truncated, r.skipped]).toStrictEqual(['gke', [], 0, 0]);
    expect(r.events.map(brief)).toStrictEqual([
      [
        id,
        'ResponseComplete',
        'Request',
        'patch',
        '/api/v1/namespaces/1-2-deployment-update/pods/nginx-deployment-surge-8655b4b8c5-xf5f4/status',
        'system:node:gke-sample-cluster-default-abcdefgh-abcd',
        '10.146.0.7',
        { resource: 'pods', namespace: '1-2-deployment-update', name: 'nginx-deployment-surge-8655b4b8c5-xf5f4', apiVersion: 'v1', subresource: 'status' },
        200,
        undefined,
        Date.UTC(2024, 0, 1, 1),
        Date.UTC(2024, 0, 1, 1),
      ],
    ]);
    expect(Object.keys(r.events[0]?.requestObject as object)).toStrictEqual(['metadata', 'status']);
  });

  it('a bare Event in YAML (khi oss) is not a wrapper', () => {
    expect(unwrapValue(YAML.parse(read('GoogleCloudPlatform__khi__test__logs__oss__test-log.yaml')))).toBeNull();
  });

  it('GKE JSON (elastic gcp): anonymous non-resource get, PERMISSION_DENIED → 403', () => {
    const values = lines('elastic__integrations__packages__gcp__data_stream__audit___dev__test__pipeline__test-k8s-nonmatching-resourcename.log');
    expect(values).toHaveLength(1);
    const r = unwrap(values[0]);
    expect([r.shape, r.bad, r.truncated, r.skipped]).toStrictEqual(['gke', [], 0, 0]);
    expect(r.events.map(brief)).toStrictEqual([
      [
        'k8s-nonmatch-0001',
        'ResponseComplete',
        'Metadata',
        'get',
        '/HNAP1',
        'system:anonymous',
        '192.168.1.1',
        null,
        403,
        undefined,
        Date.UTC(2021, 3, 23, 14, 47, 7, 535) + 0.383,
        Date.UTC(2021, 3, 23, 14, 47, 7, 535) + 0.383,
      ],
    ]);
    expect(r.events[0]?.responseObject).toBeUndefined();
  });

  it('mixed elastic kubernetes file: 3 bare events, 1 GKE readyz entry, 1 AKS record with an object log', () => {
    const values = lines('elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-audit.log');
    const results = values.map((v) => unwrapValue(v));
    expect(results.slice(0, 3)).toStrictEqual([null, null, null]);
    const gke = results[3];
    const aks = results[4];
    expect([gke?.shape, gke?.events.length, gke?.bad, aks?.shape, aks?.events.length, aks?.bad]).toStrictEqual(['gke', 1, [], 'aks', 1, []]);
    expect(gke?.events.map(brief)).toStrictEqual([
      [
        '1234abcd',
        'ResponseComplete',
        'Metadata',
        'get',
        '/readyz',
        'system:gke-master-healthcheck',
        '67.43.156.1',
        null,
        200,
        undefined,
        Date.UTC(2025, 6, 13, 8, 38, 39, 127) + 0.266,
        Date.UTC(2025, 6, 13, 8, 38, 39, 127) + 0.266,
      ],
    ]);
    expect(aks?.events.map(brief)).toStrictEqual([
      [
        'abcde12345',
        'ResponseComplete',
        'Metadata',
        'update',
        '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/elastic-agent-cluster-test',
        'aksService',
        '67.43.156.1',
        {
          resource: 'leases',
          namespace: 'kube-system',
          name: 'elastic-agent-cluster-test',
          uid: '12345678',
          apiGroup: 'coordination.k8s.io',
          apiVersion: 'v1',
          resourceVersion: '12345678',
        },
        200,
        undefined,
        Date.UTC(2025, 8, 30, 6, 23, 35, 101) + 0.182,
        Date.UTC(2025, 8, 30, 6, 23, 35, 91) + 0.134,
      ],
    ]);
  });

  it('AKS kube-audit record with a string log (elastic)', () => {
    const values = lines('elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-kube-audit.log');
    expect(values).toHaveLength(1);
    const r = unwrap(values[0]);
    expect([r.shape, r.bad, r.truncated, r.skipped]).toStrictEqual(['aks', [], 0, 0]);
    expect(r.events.map(brief)).toStrictEqual([
      [
        'ad26f7bc-f1c6-4097-90f1-e0924e12f257',
        'ResponseComplete',
        'Metadata',
        'update',
        '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubelet-serving-csr-approver',
        'aksService',
        '172.31.51.172',
        {
          resource: 'leases',
          namespace: 'kube-system',
          name: 'kubelet-serving-csr-approver',
          uid: '14be99f8-ebb7-47b9-a194-43e63d9386af',
          apiGroup: 'coordination.k8s.io',
          apiVersion: 'v1',
          resourceVersion: '93076016',
        },
        200,
        undefined,
        Date.UTC(2025, 9, 7, 16, 19, 19, 647) + 0.762,
        Date.UTC(2025, 9, 7, 16, 19, 19, 643) + 0.609,
      ],
    ]);
    expect(r.events[0]?.userAgent).toBe('approver/v0.0.0 (linux/amd64) kubernetes/$Format/leader-election');
  });

  it('OpenShift ViaQ record: level restored from k8s_audit_level, ViaQ fields gone', () => {
    const r = unwrap(JSON.parse(read('openshift__cluster-logging-operator__hack__logsamples__viaq_audit_kubernetes.json')));
    expect([r.shape, r.bad, r.truncated, r.skipped]).toStrictEqual(['viaq', [], 0, 0]);
    expect(r.events.map(brief)).toStrictEqual([
      [
        '0aa7d5c9-1afd-4fc4-920c-e5d9e0b7befa',
        'ResponseComplete',
        'Metadata',
        'watch',
        '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas?allowWatchBookmarks=true&resourceVersion=75731&timeout=8m33s&timeoutSeconds=513&watch=true',
        'system:apiserver',
        '::1',
        { apiGroup: 'flowcontrol.apiserver.k8s.io', apiVersion: 'v1beta3', resource: 'flowschemas' },
        200,
        undefined,
        Date.UTC(2023, 9, 18, 17, 32, 47, 413) + 0.483,
        Date.UTC(2023, 9, 18, 17, 24, 14, 412) + 0.707,
      ],
    ]);
    const ev = r.events[0] as unknown as Record<string, unknown>;
    for (const f of ['@timestamp', 'timestamp', 'hostname', 'k8s_audit_level', 'log_type', 'log_source', 'openshift', 'source_type', 'tag']) expect(ev).not.toHaveProperty(f);
  });

  it('OTLP (OpenShift): 3 events', () => {
    const r = unwrap(JSON.parse(read('openshift__cluster-logging-operator__hack__logsamples__otlp_audit_kube.json')));
    expect([r.shape, r.bad, r.truncated, r.skipped]).toStrictEqual(['otlp', [], 0, 0]);
    expect(r.events.map((e) => [e.auditID, e.stage, e.verb, e.responseStatus?.code])).toStrictEqual([
      ['90aab58a-d0c7-4c4c-9cba-b28799b9cd7d', 'ResponseStarted', 'watch', 200],
      ['5d313e2b-0db0-4df4-a799-74c36bfbef61', 'ResponseComplete', 'get', 200],
      ['4e7a95f1-d2a2-4ff5-89f7-6a2d592b37e7', 'ResponseComplete', 'get', 200],
    ]);
  });

  it.each([
    'openshift__cluster-logging-operator__hack__logsamples__raw_audit_kubernetes.json',
    'openshift__cluster-logging-operator__hack__logsamples__raw_audit_openshift.json',
    'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__log5607_sample.json',
    'afcollins__kube-audit-log-tool__single-event.json',
  ])('pretty-printed bare event %s is not a wrapper', (file) => {
    expect(unwrapValue(JSON.parse(read(file)))).toBeNull();
  });
});

describe('writers round trip (src/generator/shapes.ts)', () => {
  const log = generateLog({
    seed: 7,
    start: '2026-03-14T09:00:00Z',
    durationMs: 40_000,
    scenarios: [
      { type: 'background', nodes: 2 },
      { type: 'storm', startOffsetMs: 5_000, durationMs: 20_000, ratePerSec: 5 },
    ],
  });
  // Plus one watch's three stages (the generated watches outlast this short log).
  const watch = {
    auditID: 'w-1',
    verb: 'watch',
    requestURI: '/api/v1/namespaces/shop/pods?allowWatchBookmarks=true&resourceVersion=48100&timeoutSeconds=412&watch=true',
    objectRef: { resource: 'pods', namespace: 'shop', apiVersion: 'v1' },
    requestReceivedTimestamp: '2026-03-14T09:00:01.000001Z',
  };
  const LINES = [
    ...log.lines,
    eventLine({ ...watch, stage: 'RequestReceived', responseStatus: undefined, annotations: undefined, stageTimestamp: '2026-03-14T09:00:01.000001Z' }),
    eventLine({ ...watch, stage: 'ResponseStarted', responseStatus: { metadata: {}, code: 200 }, stageTimestamp: '2026-03-14T09:00:01.004210Z' }),
    eventLine({ ...watch, stage: 'ResponseComplete', responseStatus: { metadata: {}, code: 200 }, stageTimestamp: '2026-03-14T09:06:53.006870Z' }),
  ];
  const events = LINES.map(decoded);
  const valuesOf = (text: string): unknown[] =>
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as unknown);
  const collect = (values: unknown[]): UnwrapResult => {
    const out: UnwrapResult = { shape: 'eks', events: [], bad: [], truncated: 0, truncatedRead: 0, skipped: 0 };
    for (const v of values) {
      const r = unwrap(v);
      out.shape = r.shape;
      out.events.push(...r.events);
      out.bad.push(...r.bad);
      out.truncated += r.truncated;
      out.truncatedRead += r.truncatedRead;
      out.skipped += r.skipped;
    }
    return out;
  };

  it('the generated log has conflicts, creates and several stages', () => {
    expect(LINES.length).toBeGreaterThan(100);
    expect(events.some((e) => e.responseStatus?.reason === 'Conflict')).toBe(true);
    expect(events.some((e) => e.verb === 'create' && e.stage === 'ResponseComplete')).toBe(true);
    expect(new Set(events.map((e) => e.stage))).toStrictEqual(new Set(['RequestReceived', 'ResponseComplete', 'ResponseStarted']));
  });

  it.each([
    ['eks FilterLogEvents', 'eks', (l: string[]) => valuesOf(toEksFilterLogEvents(l))],
    ['eks subscription', 'eks', (l: string[]) => toEksSubscriptionPayload(l, { batchSize: 50 }).trimEnd().split('\n').map(decodeSubscriptionPayload)],
    ['aks', 'aks', (l: string[]) => valuesOf(toAks(l, { batchSize: 30 }))],
    ['viaq', 'viaq', (l: string[]) => valuesOf(toViaq(l))],
    ['otlp', 'otlp', (l: string[]) => valuesOf(toOtlp(l, { batchSize: 40 }))],
  ])('%s gives back every event unchanged', (_name, shape, write) => {
    expect(collect(write(LINES))).toStrictEqual({ shape, events, bad: [], truncated: 0, truncatedRead: 0, skipped: 0 });
  });

  it('eks with truncateAt counts long messages as truncated and reads them from the prefix', () => {
    const long = LINES.filter((l) => l.length > 1200).length;
    const r = collect(valuesOf(toEksFilterLogEvents(LINES, { truncateAt: 1200 })));
    expect(long).toBe(127);
    // A cut message is read when auditID, stage, verb, URI, a time and (final stages) the code
    // or reason came before the cut; the others are only counted.
    expect([r.events.length, r.truncated, r.truncatedRead, r.bad]).toStrictEqual([LINES.length, long, 127, []]);
    const key = (e: AuditEvent) => [e.auditID, e.stage, e.verb, e.requestURI, e.user?.username, e.objectRef?.name, e.responseStatus?.code];
    const byId = new Map(events.map((e) => [`${e.auditID}/${e.stage}`, e]));
    expect(r.events.map(key)).toStrictEqual(r.events.map((e) => key(byId.get(`${e.auditID}/${e.stage}`)!)));
    expect(r.events.filter((e) => e.truncated === true)).toHaveLength(127);
  });

  it('gke keeps what a LogEntry carries', () => {
    const r = collect(valuesOf(toGke(LINES)));
    expect([r.shape, r.bad, r.truncated, r.skipped]).toStrictEqual(['gke', [], 0, 0]);
    const expected = events.filter((e) => e.stage !== 'RequestReceived');
    expect(r.events).toHaveLength(expected.length);
    const path = (uri: string): string => uri.split('?')[0] ?? '';
    const keep = (e: AuditEvent, gke: boolean): unknown => {
      const ref = e.objectRef ? { ...e.objectRef } : null;
      if (ref && !gke) {
        // Only a non-patch request body carries uid and resourceVersion through GKE.
        const body = e.requestObject as { metadata?: { uid?: string; resourceVersion?: string } } | undefined;
        if (e.verb === 'patch' || body?.metadata?.uid === undefined) delete ref.uid;
        if (e.verb === 'patch' || body?.metadata?.resourceVersion === undefined) delete ref.resourceVersion;
      }
      const code = e.responseStatus?.code ?? 0;
      return {
        auditID: e.auditID,
        stage: e.stage,
        verb: e.verb,
        path: path(e.requestURI),
        user: e.user?.username,
        ip: e.sourceIPs?.[0],
        ua: e.userAgent,
        ref,
        code: !gke && code < 400 ? (e.verb === 'create' ? 201 : 200) : code,
        reason: code >= 400 ? e.responseStatus?.reason : undefined,
        ts: e.stageTimeMs,
        requestObject: e.verb === 'patch' && Array.isArray(e.requestObject) ? undefined : e.requestObject,
      };
    };
    expect(r.events.map((e) => keep(e, true))).toStrictEqual(expected.map((e) => keep(e, false)));
    expect(r.events.every((e) => e.receivedTimeMs === e.stageTimeMs)).toBe(true);
  });

  it('gke writes the reference shape for a 409 Conflict', () => {
    const [entry] = valuesOf(toGke([JSON.stringify(CONFLICT_EVENT)])) as Array<Record<string, unknown> & { protoPayload: Record<string, unknown> }>;
    expect(entry?.protoPayload.methodName).toBe('io.k8s.apps.v1.deployments.status.update');
    expect(entry?.protoPayload.resourceName).toBe('apps/v1/namespaces/shop/deployments/web/status');
    expect(entry?.protoPayload.status).toStrictEqual({ code: 10, message: 'Conflict' });
    expect(entry?.operation).toStrictEqual({ first: true, id: CONFLICT_EVENT.auditID, last: true, producer: 'k8s.io' });
  });
});
