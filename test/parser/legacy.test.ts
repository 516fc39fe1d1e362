/** Legacy text audit lines (reference §2) → audit events. */
import { describe, expect, it } from 'vitest';
import { legacyLine, toLegacy } from '../../src/generator/shapes.js';
import { decodeLine, type DecodeResult } from '../../src/decoding/decode.js';
import { decodeLegacyLine, isLegacyLine, LegacyDecoder } from '../../src/decoding/legacy.js';
import { CONFLICT_EVENT, eventLine } from './helpers.js';

/** The §2.1 example line (advanced legacy, 1.22+). */
const ADVANCED =
  '2026-07-01T10:00:00.123456Z AUDIT: id="6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21" stage="ResponseComplete" ip="10.244.1.17" ' +
  'method="update" user="system:serviceaccount:shop-system:shop-operator" ' +
  'groups="\\"system:serviceaccounts\\",\\"system:serviceaccounts:shop-system\\",\\"system:authenticated\\"" as="<self>" ' +
  'asgroups="<lookup>" user-agent="manager/v0.0.0 (linux/amd64) kubernetes/$Format" namespace="shop" ' +
  'uri="/apis/apps/v1/namespaces/shop/deployments/web/status" response="409"';

function ok(r: DecodeResult | null): Record<string, unknown> {
  if (r === null || !r.ok) throw new Error(`expected an event, got ${JSON.stringify(r)}`);
  return r.event as unknown as Record<string, unknown>;
}

describe('decodeLegacyLine: advanced legacy line', () => {
  it('decodes the reference example exactly', () => {
    expect(ok(decodeLegacyLine(ADVANCED))).toStrictEqual({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: '6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21',
      stage: 'ResponseComplete',
      requestURI: '/apis/apps/v1/namespaces/shop/deployments/web/status',
      verb: 'update',
      user: {
        username: 'system:serviceaccount:shop-system:shop-operator',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:shop-system', 'system:authenticated'],
      },
      sourceIPs: ['10.244.1.17'],
      userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
      objectRef: { resource: 'deployments', namespace: 'shop', name: 'web', apiGroup: 'apps', apiVersion: 'v1', subresource: 'status' },
      responseStatus: { code: 409 },
      requestReceivedTimestamp: '2026-07-01T10:00:00.123456Z',
      stageTimestamp: '2026-07-01T10:00:00.123456Z',
      stageTimeMs: Date.UTC(2026, 6, 1, 10, 0, 0, 123) + 0.456,
      receivedTimeMs: Date.UTC(2026, 6, 1, 10, 0, 0, 123) + 0.456,
    });
  });

  it('gives an event that decodeLine accepts unchanged', () => {
    const ev = ok(decodeLegacyLine(ADVANCED));
    const again = decodeLine(JSON.stringify(ev));
    expect(again.ok && again.event).toStrictEqual(ev);
  });

  it('reads placeholders as absent: RequestReceived, no user, no ip, no namespace, no user-agent (1.8–1.21)', () => {
    const line =
      '2026-07-01T03:00:00-07:00 AUDIT: id="a1" stage="RequestReceived" ip="<unknown>" method="list" user="<none>" ' +
      'groups="<none>" as="<self>" asgroups="<lookup>" namespace="<none>" uri="/api/v1/nodes?limit=500" response="<deferred>"';
    expect(ok(decodeLegacyLine(line))).toStrictEqual({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'a1',
      stage: 'RequestReceived',
      requestURI: '/api/v1/nodes?limit=500',
      verb: 'list',
      objectRef: { resource: 'nodes', apiVersion: 'v1' },
      requestReceivedTimestamp: '2026-07-01T03:00:00-07:00',
      stageTimestamp: '2026-07-01T03:00:00-07:00',
      stageTimeMs: Date.UTC(2026, 6, 1, 10, 0, 0),
      receivedTimeMs: Date.UTC(2026, 6, 1, 10, 0, 0),
    });
  });

  it('keeps impersonation and undoes Go %q escapes', () => {
    const line =
      '2026-07-01T10:00:00Z AUDIT: id="a\\"2" stage="ResponseComplete" ip="::1" method="get" user="admin" ' +
      'groups="\\"system:masters\\"" as="jane" asgroups="\\"devs\\",\\"qa\\"" user-agent="k\\tctl/\\u00e9\\x41 \\U0001F600" ' +
      'namespace="shop" uri="/api/v1/namespaces/shop/pods/p\\\\1" response="200"';
    const ev = ok(decodeLegacyLine(line));
    expect(ev.auditID).toBe('a"2');
    expect(ev.user).toStrictEqual({ username: 'admin', groups: ['system:masters'] });
    expect(ev.impersonatedUser).toStrictEqual({ username: 'jane', groups: ['devs', 'qa'] });
    expect(ev.userAgent).toBe('k\tctl/éA 😀');
    expect(ev.requestURI).toBe('/api/v1/namespaces/shop/pods/p\\1');
    expect(ev.objectRef).toStrictEqual({ resource: 'pods', namespace: 'shop', name: 'p\\1', apiVersion: 'v1' });
  });

  it('takes the time as the word before " AUDIT: " (a syslog prefix is ignored)', () => {
    const ev = ok(decodeLegacyLine(`Jul  1 10:00:00 master-0 kube-apiserver[42]: ${ADVANCED}`));
    expect(ev.stageTimeMs).toBe(Date.UTC(2026, 6, 1, 10, 0, 0, 123) + 0.456);
  });

  it('reads the 1.7 line (no stage=): <deferred> is RequestReceived, a code the final stage', () => {
    const base =
      '2017-07-01T10:00:00Z AUDIT: id="x" ip="10.0.0.1" method="update" user="u" as="<self>" asgroups="<lookup>" namespace="shop" uri="/api/v1/namespaces/shop/configmaps/c"';
    expect(ok(decodeLegacyLine(`${base} response="<deferred>"`)).stage).toBe('RequestReceived');
    const done = ok(decodeLegacyLine(`${base} response="409"`));
    expect(done.stage).toBe('ResponseComplete');
    expect(done.responseStatus).toStrictEqual({ code: 409 });
    expect(done.user).toStrictEqual({ username: 'u' });
  });
});

describe('decodeLegacyLine: incident shorthand', () => {
  it('accepts verb=, code= bare and reason=', () => {
    const line =
      '2026-07-01T10:00:00.5Z AUDIT: id="c1" stage="ResponseComplete" verb="update" uri="/apis/example.com/v1/namespaces/ns/widgets/w/status" code=409 reason="Conflict"';
    expect(ok(decodeLegacyLine(line))).toStrictEqual({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'c1',
      stage: 'ResponseComplete',
      requestURI: '/apis/example.com/v1/namespaces/ns/widgets/w/status',
      verb: 'update',
      objectRef: { resource: 'widgets', namespace: 'ns', name: 'w', apiGroup: 'example.com', apiVersion: 'v1', subresource: 'status' },
      responseStatus: { reason: 'Conflict', code: 409 },
      requestReceivedTimestamp: '2026-07-01T10:00:00.5Z',
      stageTimestamp: '2026-07-01T10:00:00.5Z',
      stageTimeMs: Date.UTC(2026, 6, 1, 10, 0, 0, 500),
      receivedTimeMs: Date.UTC(2026, 6, 1, 10, 0, 0, 500),
    });
  });

  it('accepts bare values everywhere and a missing stage with a code', () => {
    const ev = ok(decodeLegacyLine('2026-07-01T10:00:00Z AUDIT: id=c2 verb=patch uri=/api/v1/nodes/n1/status response=200 user=system:node:n1'));
    expect(ev.stage).toBe('ResponseComplete');
    expect(ev.verb).toBe('patch');
    expect(ev.user).toStrictEqual({ username: 'system:node:n1' });
    expect(ev.responseStatus).toStrictEqual({ code: 200 });
    expect(ev.objectRef).toStrictEqual({ resource: 'nodes', name: 'n1', apiVersion: 'v1', subresource: 'status' });
  });

  it('maps an upper-case HTTP method to the verb', () => {
    expect(ok(decodeLegacyLine('2026-07-01T10:00:00Z AUDIT: id=c3 method=GET uri=/api/v1/pods?watch=true response=200')).verb).toBe('watch');
  });
});

describe('decodeLegacyLine: bad lines', () => {
  const cases: [string, string][] = [
    ['AUDIT: id="x"', 'malformed legacy audit line: not a legacy audit line (no " AUDIT: ")'],
    ['yesterday AUDIT: id="x" stage="ResponseComplete" method="get" uri="/x" response="200"', 'malformed legacy audit line: time "yesterday" is not an RFC 3339 time'],
    [
      '1999-12-31T23:59:59Z AUDIT: id="x" stage="ResponseComplete" method="get" uri="/x" response="200"',
      'malformed legacy audit line: time "1999-12-31T23:59:59Z" is implausible (before 2000 or after 2199)',
    ],
    ['2026-07-01T10:00:00Z AUDIT: id="x stage="ResponseComplete"', 'malformed legacy audit line: no "=" after "ResponseComplete""'],
    ['2026-07-01T10:00:00Z AUDIT: id="x', 'malformed legacy audit line: id= has an unterminated or malformed quoted value'],
    ['2026-07-01T10:00:00Z AUDIT: id="x\\q"', 'malformed legacy audit line: id= has an unterminated or malformed quoted value'],
    ['2026-07-01T10:00:00Z AUDIT: stage="ResponseComplete" method="get" uri="/x" response="200"', 'malformed legacy audit line: no id'],
    ['2026-07-01T10:00:00Z AUDIT: id="x" stage="ResponseComplete" method="get" response="200"', 'malformed legacy audit line: no uri'],
    ['2026-07-01T10:00:00Z AUDIT: id="x" stage="ResponseComplete" uri="/x" response="200"', 'malformed legacy audit line: no method or verb'],
    ['2026-07-01T10:00:00Z AUDIT: id="x" stage="Done" method="get" uri="/x" response="200"', 'malformed legacy audit line: unknown stage "Done"'],
    ['2026-07-01T10:00:00Z AUDIT: id="x" stage="ResponseComplete" method="get" uri="/x" response="OK"', 'malformed legacy audit line: response "OK" is not a number'],
    [
      '2026-07-01T10:00:00Z AUDIT: id="x" ip="1.2.3.4" method="GET" user="u" as="<self>" asgroups="<lookup>" namespace="<none>" uri="/api/v1/pods"',
      'pre-1.12 basic audit line (two lines per request): it needs its other line; read with LegacyDecoder',
    ],
    ['2026-07-01T10:00:00Z AUDIT: id="x" response="200"', 'pre-1.12 basic audit line (two lines per request): it needs its other line; read with LegacyDecoder'],
  ];
  it.each(cases)('%s', (line, reason) => {
    expect(decodeLegacyLine(line)).toStrictEqual({ ok: false, reason });
  });
});

describe('isLegacyLine', () => {
  it('recognises legacy lines only', () => {
    expect(isLegacyLine(ADVANCED)).toBe(true);
    expect(isLegacyLine('2026-07-01T10:00:00Z AUDIT: id="x" response="200"')).toBe(true);
    expect(isLegacyLine(eventLine())).toBe(false);
    expect(isLegacyLine('AUDIT: id="x"')).toBe(false);
  });
});

describe('LegacyDecoder: pre-1.12 basic format', () => {
  const request = (id: string, time: string, method: string, uri: string): string =>
    `${time} AUDIT: id="${id}" ip="10.0.0.9" method="${method}" user="system:serviceaccount:kube-system:ctrl" ` +
    `groups="\\"system:serviceaccounts\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" namespace="shop" uri="${uri}"`;
  const response = (id: string, time: string, code: number): string => `${time} AUDIT: id="${id}" response="${code}"`;

  it('joins a request line and its response line into one ResponseComplete event', () => {
    const d = new LegacyDecoder();
    expect(d.decode(request('r1', '2018-03-01T10:00:00.1Z', 'PUT', '/api/v1/namespaces/shop/configmaps/c'))).toBeNull();
    expect(d.pendingCount).toBe(1);
    expect(ok(d.decode(response('r1', '2018-03-01T10:00:00.104Z', 409)))).toStrictEqual({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'r1',
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/shop/configmaps/c',
      verb: 'update',
      user: { username: 'system:serviceaccount:kube-system:ctrl', groups: ['system:serviceaccounts', 'system:authenticated'] },
      sourceIPs: ['10.0.0.9'],
      objectRef: { resource: 'configmaps', namespace: 'shop', name: 'c', apiVersion: 'v1' },
      responseStatus: { code: 409 },
      requestReceivedTimestamp: '2018-03-01T10:00:00.1Z',
      stageTimestamp: '2018-03-01T10:00:00.104Z',
      stageTimeMs: Date.UTC(2018, 2, 1, 10, 0, 0, 104),
      receivedTimeMs: Date.UTC(2018, 2, 1, 10, 0, 0, 100),
    });
    expect(d.pendingCount).toBe(0);
    expect(d.finish()).toBe(0);
  });

  it('joins interleaved requests by id and maps methods to verbs', () => {
    const d = new LegacyDecoder();
    expect(d.decode(request('a', '2018-03-01T10:00:00Z', 'GET', '/api/v1/namespaces/shop/pods?watch=true'))).toBeNull();
    expect(d.decode(request('b', '2018-03-01T10:00:01Z', 'DELETE', '/api/v1/namespaces/shop/pods'))).toBeNull();
    expect(d.decode(request('c', '2018-03-01T10:00:02Z', 'POST', '/api/v1/namespaces/shop/pods'))).toBeNull();
    const b = ok(d.decode(response('b', '2018-03-01T10:00:01.5Z', 200)));
    const c = ok(d.decode(response('c', '2018-03-01T10:00:02.5Z', 201)));
    const a = ok(d.decode(response('a', '2018-03-01T10:05:00Z', 200)));
    expect([a.verb, b.verb, c.verb]).toStrictEqual(['watch', 'deletecollection', 'create']);
    expect(c.objectRef).toStrictEqual({ resource: 'pods', namespace: 'shop', apiVersion: 'v1' });
  });

  it('reports a response without its request as a bad line', () => {
    expect(new LegacyDecoder().decode(response('zz', '2018-03-01T10:00:00Z', 200))).toStrictEqual({
      ok: false,
      reason: 'basic audit response line without its request line (id "zz")',
    });
  });

  it('holds at most maxPending requests, dropping the oldest, and counts the unanswered', () => {
    const d = new LegacyDecoder(2);
    for (const id of ['1', '2', '3']) expect(d.decode(request(id, '2018-03-01T10:00:00Z', 'GET', '/api/v1/namespaces/shop/pods/p'))).toBeNull();
    expect(d.pendingCount).toBe(2);
    expect(d.unanswered).toBe(1);
    expect(d.decode(response('1', '2018-03-01T10:00:01Z', 200))).toStrictEqual({
      ok: false,
      reason: 'basic audit response line without its request line (id "1")',
    });
    expect(ok(d.decode(response('3', '2018-03-01T10:00:01Z', 200))).verb).toBe('get');
    expect(d.finish()).toBe(2);
    expect(d.pendingCount).toBe(0);
  });

  it('decodes advanced lines as decodeLegacyLine does', () => {
    expect(new LegacyDecoder().decode(ADVANCED)).toStrictEqual(decodeLegacyLine(ADVANCED));
  });

  it('rejects a bad maxPending', () => {
    expect(() => new LegacyDecoder(0)).toThrow(RangeError);
  });
});

describe('toLegacy round trip', () => {
  it('writes EventString exactly and reads back what the line carries', () => {
    const line = legacyLine(CONFLICT_EVENT);
    expect(line).toBe(
      '2026-07-01T10:00:00.123456Z AUDIT: id="6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21" stage="ResponseComplete" ip="10.244.1.17" ' +
        'method="update" user="system:serviceaccount:shop-system:shop-operator" ' +
        'groups="\\"system:serviceaccounts\\",\\"system:serviceaccounts:shop-system\\",\\"system:authenticated\\"" as="<self>" ' +
        'asgroups="<lookup>" user-agent="manager/v0.0.0 (linux/amd64) kubernetes/$Format" namespace="shop" ' +
        'uri="/apis/apps/v1/namespaces/shop/deployments/web/status" response="409"',
    );
    expect(line).toBe(ADVANCED);
  });

  it('trims the fraction as RFC3339Nano and writes <deferred> for RequestReceived', () => {
    const text = toLegacy([
      eventLine({ stage: 'RequestReceived', responseStatus: undefined, requestReceivedTimestamp: '2026-07-01T10:00:00.120000Z' }),
      eventLine({ requestReceivedTimestamp: '2026-07-01T10:00:01.000000Z', user: { username: '' }, sourceIPs: [] }),
    ]);
    const [first, second] = text.split('\n');
    expect(first).toMatch(/^2026-07-01T10:00:00\.12Z AUDIT: .* response="<deferred>"$/);
    expect(second).toMatch(/^2026-07-01T10:00:01Z AUDIT: id="[^"]+" stage="ResponseComplete" ip="<unknown>" method="update" user="<none>" groups="<none>" /);
    expect(ok(decodeLegacyLine(first ?? '')).stage).toBe('RequestReceived');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('quotes like Go strconv.Quote and reads it back', () => {
    const ua = 'we"ird\\agent\t\u0001\u00a0é😀';
    const text = toLegacy([eventLine({ userAgent: ua })]);
    expect(text).toContain('user-agent="we\\"ird\\\\agent\\t\\x01\\u00a0é😀"');
    expect(ok(decodeLegacyLine(text.trimEnd())).userAgent).toBe(ua);
  });

  it('keeps verb, URI, user and groups, ip, user agent, code and received time; loses RV, uid, reason and stage time', () => {
    const original = decodeLine(eventLine());
    const back = ok(decodeLegacyLine(toLegacy([eventLine()]).trimEnd()));
    if (!original.ok) throw new Error('fixture');
    const o = original.event;
    expect(back.verb).toBe(o.verb);
    expect(back.requestURI).toBe(o.requestURI);
    expect(back.user).toStrictEqual({ username: o.user?.username, groups: CONFLICT_EVENT.user.groups });
    expect(back.sourceIPs).toStrictEqual(o.sourceIPs);
    expect(back.userAgent).toBe(o.userAgent);
    expect(back.responseStatus).toStrictEqual({ code: 409 });
    expect(back.objectRef).toStrictEqual({ resource: 'deployments', namespace: 'shop', name: 'web', apiGroup: 'apps', apiVersion: 'v1', subresource: 'status' });
    expect(back.receivedTimeMs).toBe(o.receivedTimeMs);
    expect(back.stageTimeMs).toBe(o.receivedTimeMs);
  });
});
