import { describe, expect, it } from 'vitest';
import { decodeLine, recognizeShape } from '../../src/decoding/decode.js';
import type { AuditEvent } from '../../src/decoding/event.js';
import { CONFLICT_EVENT, eventLine } from './helpers.js';

function reason(text: string): string {
  const r = decodeLine(text);
  if (r.ok) throw new Error(`expected a bad line: ${text}`);
  return r.reason;
}

function event(text: string): AuditEvent {
  const r = decodeLine(text);
  if (!r.ok) throw new Error(r.reason);
  return r.event;
}

const INNER = eventLine();

describe('decodeLine: valid events', () => {
  it('decodes a v1 event and sets the parsed times', () => {
    const ev = event(INNER);
    expect(ev.auditID).toBe(CONFLICT_EVENT.auditID);
    expect(ev.stage).toBe('ResponseComplete');
    expect(ev.stageTimeMs).toBe(Date.UTC(2026, 6, 1, 10, 0, 0) + 131.002);
    expect(ev.receivedTimeMs).toBe(Date.UTC(2026, 6, 1, 10, 0, 0) + 123.456);
  });

  it('accepts events without kind and apiVersion (Falco samples)', () => {
    const ev = event(eventLine({ kind: undefined, apiVersion: undefined }));
    expect(ev.verb).toBe('update');
  });

  it('falls back to v1beta1 metadata.creationTimestamp and timestamp', () => {
    const ev = event(
      eventLine({
        apiVersion: 'audit.k8s.io/v1beta1',
        requestReceivedTimestamp: undefined,
        stageTimestamp: undefined,
        metadata: { creationTimestamp: '2018-10-25T14:09:13Z' },
        timestamp: '2018-10-25T14:09:12Z',
      }),
    );
    expect(ev.stageTimeMs).toBe(Date.UTC(2018, 9, 25, 14, 9, 13));
    expect(ev.receivedTimeMs).toBe(Date.UTC(2018, 9, 25, 14, 9, 12));
  });

  it('prefers the micro timestamps over the v1beta1 ones', () => {
    const ev = event(
      eventLine({
        apiVersion: 'audit.k8s.io/v1beta1',
        metadata: { creationTimestamp: '2018-10-25T14:09:13Z' },
        timestamp: '2018-10-25T14:09:12Z',
      }),
    );
    expect(ev.stageTimeMs).toBe(Date.UTC(2026, 6, 1, 10, 0, 0) + 131.002);
    expect(ev.receivedTimeMs).toBe(Date.UTC(2026, 6, 1, 10, 0, 0) + 123.456);
  });

  it('uses timestamp for the stage time of early v1alpha1 events without micro times', () => {
    const ev = event(
      eventLine({
        apiVersion: 'audit.k8s.io/v1alpha1',
        requestReceivedTimestamp: undefined,
        stageTimestamp: undefined,
        timestamp: '2017-07-01T00:00:01Z',
      }),
    );
    expect(ev.stageTimeMs).toBe(Date.UTC(2017, 6, 1, 0, 0, 1));
    expect(ev.receivedTimeMs).toBe(Date.UTC(2017, 6, 1, 0, 0, 1));
  });

  it('treats a missing received time as the stage time', () => {
    const ev = event(eventLine({ requestReceivedTimestamp: undefined }));
    expect(ev.receivedTimeMs).toBe(ev.stageTimeMs);
  });

  it('splits a v1alpha1 objectRef.apiVersion on the last "/"', () => {
    const alpha = (apiVersion: string) => event(eventLine({ apiVersion: 'audit.k8s.io/v1alpha1', objectRef: { resource: 'x', apiVersion } })).objectRef;
    expect(alpha('apps/v1beta1')).toEqual({ resource: 'x', apiGroup: 'apps', apiVersion: 'v1beta1' });
    expect(alpha('rbac.authorization.k8s.io/v1')).toEqual({
      resource: 'x',
      apiGroup: 'rbac.authorization.k8s.io',
      apiVersion: 'v1',
    });
    expect(alpha('v1')).toEqual({ resource: 'x', apiGroup: '', apiVersion: 'v1' });
  });

  it('leaves objectRef.apiVersion alone outside v1alpha1', () => {
    const ev = event(eventLine({ objectRef: { resource: 'x', apiVersion: 'apps/v1' } }));
    expect(ev.objectRef).toEqual({ resource: 'x', apiVersion: 'apps/v1' });
  });

  it('accepts an unknown level that is not a known wrapper', () => {
    expect(event(eventLine({ level: 'Verbose' })).level).toBe('Verbose');
  });
});

describe('decodeLine: reasons', () => {
  it('names non-JSON lines', () => {
    expect(reason('not json')).toMatch(/^not JSON \(Unexpected token .*\)$/);
    // The message inside is V8's and varies between Node versions.
    expect(reason('{"auditID":"a",')).toMatch(/^not JSON \(.*position 15.*\)$/);
    expect(reason(`${INNER.slice(0, 50)}[Truncated...]`)).toBe('not JSON (cut by CloudWatch: ends with "[Truncated...]")');
    expect(
      reason(
        '2026-07-01T10:00:00.123456Z AUDIT: id="6f1b0c8e" stage="ResponseComplete" ip="10.244.1.17" method="update" user="u" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="x" namespace="shop" uri="/api" response="409"',
      ),
    ).toBe('legacy text audit line (--audit-log-format=legacy): not read yet');
  });

  it('names JSON that is not an object', () => {
    expect(reason('[1,2]')).toBe('JSON but not an audit event: an array');
    expect(reason('42')).toBe('JSON but not an audit event: a number');
    expect(reason('"x"')).toBe('JSON but not an audit event: a string');
    expect(reason('null')).toBe('JSON but not an audit event: null');
  });

  it('names the first missing or wrong required field', () => {
    expect(reason('{}')).toBe('JSON but not an audit event: no auditID');
    expect(reason('{"auditID":5}')).toBe('JSON but not an audit event: auditID is not a string');
    expect(reason(eventLine({ verb: undefined }))).toBe('JSON but not an audit event: no verb');
    expect(reason(eventLine({ requestURI: undefined }))).toBe('JSON but not an audit event: no requestURI');
    expect(reason(eventLine({ kind: 'Pod' }))).toBe('JSON but not an audit event: kind "Pod"');
    expect(reason(eventLine({ apiVersion: 'v1' }))).toBe('JSON but not an audit event: apiVersion "v1" is not audit.k8s.io');
  });

  it('names malformed events', () => {
    expect(reason(eventLine({ stage: 'Done' }))).toBe('malformed audit event: unknown stage "Done"');
    expect(reason(eventLine({ stageTimestamp: 'yesterday' }))).toBe('malformed audit event: stageTimestamp "yesterday" is not an RFC 3339 time');
    expect(reason(eventLine({ requestReceivedTimestamp: 7 }))).toBe('malformed audit event: requestReceivedTimestamp 7 is not an RFC 3339 time');
    expect(reason(eventLine({ stageTimestamp: undefined, requestReceivedTimestamp: undefined }))).toBe('malformed audit event: no stageTimestamp');
    expect(reason(eventLine({ objectRef: 'pods' }))).toBe('malformed audit event: objectRef is not an object');
    expect(reason(eventLine({ objectRef: { name: 3 } }))).toBe('malformed audit event: objectRef.name is not a string');
    expect(reason(eventLine({ responseStatus: { code: '409' } }))).toBe('malformed audit event: responseStatus.code is not a number');
    expect(reason(eventLine({ user: { username: ['a'] } }))).toBe('malformed audit event: user.username is not a string');
    expect(reason(eventLine({ sourceIPs: '10.0.0.1' }))).toBe('malformed audit event: sourceIPs is not an array');
    expect(reason(eventLine({ userAgent: 1 }))).toBe('malformed audit event: userAgent is not a string');
  });

  it('treats null optional objects as absent', () => {
    const ev = event(eventLine({ objectRef: null, responseStatus: null, user: null, sourceIPs: null }));
    expect(ev.objectRef).toBeNull();
  });
});

describe('decodeLine: known non-event shapes', () => {
  const cases: [string, unknown][] = [
    ['GKE Cloud Logging entry (protoPayload): not read yet', { insertId: 'x', protoPayload: { serviceName: 'k8s.io', methodName: 'io.k8s.core.v1.pods.create' } }],
    ['EKS CloudWatch record (message holds an event): not read yet', { logStreamName: 'kube-apiserver-audit-0a1b', timestamp: 1782900000131, message: INNER }],
    ['EKS CloudWatch Logs export (events[]): not read yet', { events: [{ message: INNER }] }],
    ['EKS CloudWatch subscription record (logEvents[]): not read yet', { messageType: 'DATA_MESSAGE', logEvents: [{ id: '1', message: INNER }] }],
    ['CloudWatch Logs Insights row (@message): not read yet', { '@timestamp': 'x', '@message': INNER }],
    ['AKS diagnostic records (records[].properties.log): not read yet', { records: [{ category: 'kube-audit', properties: { log: INNER } }] }],
    ['AKS diagnostic record (properties.log): not read yet', { category: 'kube-audit-admin', properties: { log: CONFLICT_EVENT } }],
    ['AKS Log Analytics AzureDiagnostics row (log_s): not read yet', { Category: 'kube-audit', log_s: INNER }],
    ['audit EventList document (webhook batch, items[]): not read yet', { kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: [CONFLICT_EVENT] }],
    [
      'OpenShift Logging ViaQ record (k8s_audit_level): not read yet',
      { ...CONFLICT_EVENT, level: 'default', k8s_audit_level: 'Metadata', log_type: 'audit', hostname: 'ip-10-0-1-2' },
    ],
    ['OpenTelemetry (OTLP) log export (resourceLogs): not read yet', { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: INNER } }] }] }] }],
  ];
  it.each(cases)('%s', (expected, value) => {
    expect(reason(JSON.stringify(value))).toBe(expected);
  });

  it('reads a ViaQ record once its level is restored (the hint works)', () => {
    const viaq = { ...CONFLICT_EVENT, level: 'default', k8s_audit_level: 'Metadata', log_type: 'audit' };
    const hint = recognizeShape(viaq)?.hint;
    expect(hint).toBe("Restore the audit level first: jq -c '.level = .k8s_audit_level' FILE");
    expect(event(JSON.stringify({ ...viaq, level: viaq.k8s_audit_level })).level).toBe('Metadata');
  });

  it('recognizes nothing in a plain event or a non-object', () => {
    expect(recognizeShape(CONFLICT_EVENT)).toBeUndefined();
    expect(recognizeShape([CONFLICT_EVENT])).toBeUndefined();
    expect(recognizeShape(undefined)).toBeUndefined();
  });
});

describe('decodeLine: implausible times', () => {
  it('rejects stage times before 2000 or after 2199 as bad lines', () => {
    expect(reason(eventLine({ stageTimestamp: '9999-12-31T23:59:59.999999Z' }))).toBe(
      'malformed audit event: stageTimestamp "9999-12-31T23:59:59.999999Z" is implausible (before 2000 or after 2199)',
    );
    expect(reason(eventLine({ stageTimestamp: '1970-01-01T00:00:00Z' }))).toContain('is implausible');
  });
  it("treats Go's zero time (or a received time after the stage) as unknown: the stage time", () => {
    const stage = event(eventLine()).stageTimeMs;
    expect(stage).toBe(Date.UTC(2026, 6, 1, 10, 0, 0, 131) + 0.002);
    expect(event(eventLine({ requestReceivedTimestamp: '0001-01-01T00:00:00Z' })).receivedTimeMs).toBe(stage);
    expect(event(eventLine({ requestReceivedTimestamp: '2026-07-01T10:00:01.000000Z' })).receivedTimeMs).toBe(stage);
  });
});

describe('decodeLine: objectRef completed from a resource URL', () => {
  it('fills the fields of an objectRef without resource from requestURI; present fields win', () => {
    const ev = event(eventLine({ objectRef: { subresource: 'status', resourceVersion: '7' } }));
    expect(ev.objectRef).toStrictEqual({
      subresource: 'status',
      resourceVersion: '7',
      resource: 'deployments',
      namespace: 'shop',
      name: 'web',
      apiGroup: 'apps',
      apiVersion: 'v1',
    });
  });
  it('leaves an objectRef with resource, and a non-resource URL, alone', () => {
    expect(event(eventLine({ objectRef: { resource: 'pods' } })).objectRef).toStrictEqual({ resource: 'pods' });
    expect(event(eventLine({ requestURI: '/healthz', objectRef: { name: 'x' } })).objectRef).toStrictEqual({ name: 'x' });
  });
});
