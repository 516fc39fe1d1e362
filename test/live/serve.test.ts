import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ReportSchema } from '../../src/report/schema.js';
import type { LiveAlert } from '../../src/live/alerts.js';
import { serve, type LiveServer } from '../../src/live/serve.js';
import { eventLists, incidentLines, STORM, until } from './helpers.js';

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One HTTP request on loopback. */
function call(
  port: number,
  method: string,
  urlPath: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
  opts: { tls?: { ca: string; cert?: string; key?: string }; agent?: Agent; chunked?: boolean } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const o = {
      host: '127.0.0.1',
      port,
      method,
      path: urlPath,
      headers: { ...headers, ...(body !== undefined && !opts.chunked ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      ...(opts.agent ? { agent: opts.agent } : {}),
    };
    const onRes = (res: import('node:http').IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    };
    const req = opts.tls
      ? httpsRequest({ ...o, ca: opts.tls.ca, ...(opts.tls.cert ? { cert: opts.tls.cert, key: opts.tls.key } : {}), servername: 'localhost' }, onRes)
      : httpRequest(o, onRes);
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

const servers: LiveServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(settings: Partial<Parameters<typeof serve>[1]> = {}, alerts: LiveAlert[] = []): Promise<LiveServer> {
  const s = await serve({}, { port: 0, tickMs: 50, ...settings }, { onAlert: (a) => alerts.push(a), residentMemory: () => 42 });
  servers.push(s);
  return s;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

describe('serve', () => {
  it('takes EventList batches (plain and gzip), alerts on the storm and shows it in /metrics and /report', async () => {
    const alerts: LiveAlert[] = [];
    const s = await start({}, alerts);
    expect(s.host).toBe('127.0.0.1');
    const bodies = eventLists(incidentLines());
    expect(bodies.length).toBe(3);
    expect(await call(s.port, 'POST', '/audit', bodies[0], JSON_HEADERS)).toMatchObject({ status: 200, body: '{"events":400,"badItems":0}\n' });
    // The storm opens in the second batch (gzip, as a proxy might send it).
    const gz = await call(s.port, 'POST', '/audit', gzipSync(bodies[1]!), { ...JSON_HEADERS, 'content-encoding': 'gzip' });
    expect(gz.status).toBe(200);
    await until(() => alerts.some((a) => a.phase === 'open'), 'the open alert');
    const open = alerts.find((a) => a.phase === 'open')!;
    expect([open.finding.kind, open.finding.id, open.finding.actors[0]!.username]).toEqual([STORM.kind, STORM.id, STORM.user]);

    const metrics = await call(s.port, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const m = metrics.body.split('\n');
    expect(m).toContain('auditstorm_episodes_opened_total{kind="conflict-storm"} 1');
    expect(m).toContain('auditstorm_events_parsed_total 800');
    expect(m).toContain('auditstorm_batches_total 2');
    expect(m).toContain('process_resident_memory_bytes 42');
    const actorLine = m.find((l) => l.startsWith(`auditstorm_actor_conflicts_per_second{user="${STORM.user}"}`));
    expect(actorLine).toBeDefined();
    expect(Number(actorLine!.split(' ')[1])).toBeGreaterThan(5);
    expect(m.find((l) => l.startsWith('auditstorm_object_conflicts_per_second{'))).toContain(
      'resource="appdeployments.infra.company.io/status",namespace="default",name="payment-core"',
    );

    const report = ReportSchema.parse(JSON.parse((await call(s.port, 'GET', '/report')).body));
    // The second batch ends inside the storm (14:11:2x): the episode is still open.
    expect(report.findings.map((f) => [f.id, f.ongoing])).toEqual([[STORM.id, true]]);
    expect(m).toContain('auditstorm_open_episodes{kind="conflict-storm"} 1');
    const html = await call(s.port, 'GET', '/report.html');
    expect(html.status).toBe(200);
    expect(html.body.slice(0, 15).toLowerCase()).toBe('<!doctype html>');
    expect(html.body).toContain('<span class="kind">conflict-storm</span> <span class="muted">(ongoing)</span>');

    expect((await call(s.port, 'POST', '/audit', bodies[2], JSON_HEADERS)).status).toBe(200);
    // The API server sends a batch again after a timeout: /metrics counts what the report counts.
    expect((await call(s.port, 'POST', '/audit', bodies[0], JSON_HEADERS)).status).toBe(200);
    const again = (await call(s.port, 'GET', '/metrics')).body.split('\n');
    expect(again).toContain('auditstorm_requests_read_total 1584');
    expect(again).toContain('auditstorm_duplicate_requests_total 400');
    const counted = ReportSchema.parse(JSON.parse((await call(s.port, 'GET', '/report')).body)).input.requests;
    expect(again).toContain(`auditstorm_requests_total ${counted}`);
    const final = await s.close();
    expect(final.input.skipped.duplicates).toBe(400);
    expect(final.findings.map((f) => [f.kind, f.id, f.actors[0]!.username])).toEqual([[STORM.kind, STORM.id, STORM.user]]);
    expect(final.input.requests).toBe(1184);
    expect(final.input.sources[0]).toMatchObject({ name: 'webhook', kind: 'webhook', events: 1584 }); // read, the copy included
    expect(alerts.map((a) => a.phase)).toEqual(['open', 'close']);
  });

  it('answers 4xx with a reason to bad bodies and keeps serving', async () => {
    const s = await start({ maxBodyBytes: 10_000 });
    const cases: Array<[string, string | Buffer, Record<string, string>, number, RegExp]> = [
      ['not JSON', 'hello', {}, 400, /body is not JSON/],
      ['empty', '', {}, 400, /empty body/],
      ['an EventList without items', '{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[]}', {}, 400, /no audit events in the body/],
      ['a JSON object that is not audit data', '{"hello":"world"}', {}, 400, /no audit events in the body: /],
      ['a document cut short', '{"kind":"EventList","items":[{"kind":"Event"', {}, 400, /body is not a whole JSON document: JSON document ends early/],
      ['a batch cut after some whole events', eventLists(incidentLines().slice(0, 3))[0]!.slice(0, 2500), {}, 400, /body is not a whole JSON document/],
      ['corrupt gzip', Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]), { 'content-encoding': 'gzip' }, 400, /corrupt gzip body|could not be read/],
      ['another encoding', '{}', { 'content-encoding': 'br' }, 415, /unsupported Content-Encoding "br"/],
      ['too large (declared)', 'x'.repeat(20_000), {}, 413, /over the limit of 10000 bytes/],
      ['too large (gzip bomb)', gzipSync(Buffer.alloc(200_000, 32)), { 'content-encoding': 'gzip' }, 413, /over the limit of 10000 bytes/],
    ];
    for (const [what, body, headers, status, reason] of cases) {
      const r = await call(s.port, 'POST', '/audit', body, headers);
      expect([what, r.status]).toEqual([what, status]);
      expect(r.body).toMatch(reason);
      expect(r.body.length).toBeLessThan(300); // a reason, not an echo of the body
    }
    // Still serving, and good batches still count.
    expect((await call(s.port, 'GET', '/healthz')).body).toBe('ok\n');
    const good = eventLists(incidentLines().slice(0, 4))[0]!;
    expect(good.length).toBeLessThan(10_000);
    expect((await call(s.port, 'POST', '/', good, JSON_HEADERS)).status).toBe(200);
    const m = (await call(s.port, 'GET', '/metrics')).body.split('\n');
    expect(m).toContain('auditstorm_batches_rejected_total{reason="bad_body"} 7');
    expect(m).toContain('auditstorm_batches_rejected_total{reason="too_large"} 2');
    expect(m).toContain('auditstorm_batches_rejected_total{reason="unsupported_encoding"} 1');
    // The 2 events read before the cut count; the good batch's copies of them are duplicates.
    expect(m).toContain('auditstorm_events_parsed_total 6');
    expect((await call(s.port, 'DELETE', '/report')).status).toBe(405);
    expect((await call(s.port, 'GET', '/nope')).status).toBe(404);
    // A body with some bad items is accepted; the bad ones are counted, not echoed.
    const mixed = JSON.stringify({ kind: 'EventList', items: [JSON.parse(incidentLines()[20]!), { kind: 'Event', secret: 'hunter2' }] });
    const r = await call(s.port, 'POST', '/', mixed, JSON_HEADERS);
    expect(r).toMatchObject({ status: 200, body: '{"events":1,"badItems":1}\n' });
    const report = await s.close();
    expect(JSON.stringify(report)).not.toContain('hunter2');
    expect(report.input.badLines).toBeGreaterThan(0);
    expect(report.input.skipped.duplicates).toBe(2);
    expect(report.input.requests).toBe(5);
  });

  it('requires the bearer token when one is set (401 when missing or wrong)', async () => {
    const s = await start({ token: 's3cret-token' });
    const body = eventLists(incidentLines().slice(0, 5))[0]!;
    const missing = await call(s.port, 'POST', '/audit', body, JSON_HEADERS);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    expect((await call(s.port, 'POST', '/audit', body, { ...JSON_HEADERS, authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await call(s.port, 'POST', '/audit', body, { ...JSON_HEADERS, authorization: 'Bearer s3cret-token-and-more' })).status).toBe(401);
    expect((await call(s.port, 'GET', '/metrics')).status).toBe(401);
    expect((await call(s.port, 'GET', '/report')).status).toBe(401);
    expect((await call(s.port, 'GET', '/healthz')).status).toBe(200);
    expect((await call(s.port, 'POST', '/audit', body, { ...JSON_HEADERS, authorization: 'Basic s3cret-token' })).status).toBe(401);
    expect((await call(s.port, 'POST', '/audit', body, { ...JSON_HEADERS, authorization: 'Bearer s3cret-token' })).status).toBe(200);
    // The scheme is case-insensitive (RFC 7235).
    expect((await call(s.port, 'POST', '/audit', body, { ...JSON_HEADERS, authorization: 'bearer s3cret-token' })).status).toBe(200);
    const m = await call(s.port, 'GET', '/metrics', undefined, { authorization: 'Bearer s3cret-token' });
    expect(m.body.split('\n')).toContain('auditstorm_batches_rejected_total{reason="unauthorized"} 4');
    expect(m.body.split('\n')).toContain('auditstorm_events_parsed_total 10');
  });

  describe('TLS with client certificates', () => {
    let dir: string | null = null;
    afterAll(() => {
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
    });

    let hasOpenssl = true;
    try {
      execFileSync('openssl', ['version'], { stdio: 'pipe' });
    } catch {
      hasOpenssl = false;
      console.warn('SKIPPED: the TLS test needs the openssl command to make a throwaway CA and certificates; install openssl to run it');
    }

    it.skipIf(!hasOpenssl)('serves HTTPS and accepts only clients with a certificate signed by the CA', async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'auditstorm-tls-'));
      const d = dir;
      const ssl = (...args: string[]): void => {
        execFileSync('openssl', args, { cwd: d, stdio: 'pipe' });
      };
      // A throwaway CA, a server certificate for localhost/127.0.0.1 and a client certificate.
      ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=auditstorm test CA');
      for (const who of ['server', 'client']) {
        ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${who}.key`, '-out', `${who}.csr`, '-subj', `/CN=${who === 'server' ? 'localhost' : 'kube-apiserver'}`);
        const ext = path.join(d, `${who}.ext`);
        execFileSync('sh', ['-c', `printf '%s\\n' "${who === 'server' ? 'subjectAltName=DNS:localhost,IP:127.0.0.1' : 'extendedKeyUsage=clientAuth'}" > ${ext}`]);
        ssl('x509', '-req', '-in', `${who}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${who}.crt`, '-days', '1', '-extfile', ext);
      }
      const read = (f: string): string => readFileSync(path.join(d, f), 'utf8');
      const s = await start({ tls: { cert: read('server.crt'), key: read('server.key'), clientCa: read('ca.crt') } });
      expect(s.scheme).toBe('https');
      const body = eventLists(incidentLines().slice(0, 3))[0]!;
      const ok = await call(s.port, 'POST', '/audit', body, JSON_HEADERS, { tls: { ca: read('ca.crt'), cert: read('client.crt'), key: read('client.key') } });
      expect(ok).toMatchObject({ status: 200, body: '{"events":3,"badItems":0}\n' });
      await expect(call(s.port, 'POST', '/audit', body, JSON_HEADERS, { tls: { ca: read('ca.crt') } })).rejects.toThrow();
      expect(s.session.status().events).toBe(3);
    });
  });
});
