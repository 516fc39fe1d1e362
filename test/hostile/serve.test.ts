/**
 * Hostile webhook bodies and clients for `auditstorm serve`: every valid event of a damaged batch
 * counts once, in `/report`, `/metrics` and the final report alike.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { renderMetrics } from '../../src/live/metrics.js';
import { serve, type LiveServer } from '../../src/live/serve.js';
import { JsonDocReader } from '../../src/decoding/formats/json-doc.js';
import { ReportSchema, type Report } from '../../src/report/schema.js';
import { fakeIO } from '../cli/helpers.js';
import { incidentLines, until } from '../live/helpers.js';

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One HTTP request on loopback. */
function call(port: number, method: string, urlPath: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path: urlPath, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const servers: LiveServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(settings: Partial<Parameters<typeof serve>[1]> = {}): Promise<LiveServer> {
  const s = await serve({}, { port: 0, tickMs: 50, ...settings });
  servers.push(s);
  return s;
}

/** An EventList of `items` (JSON texts), on one line as kube-apiserver sends it. */
function eventList(items: readonly string[]): string {
  return `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${items.join(',')}]}`;
}

/**
 * The read counters of `/metrics` and the report so far (requests counted after de-duplication wait
 * in the reorder queue until the stream clock passes them, so they are checked in the final report).
 */
async function counts(port: number): Promise<{ metrics: Record<string, number>; report: Report }> {
  const metrics: Record<string, number> = {};
  for (const line of (await call(port, 'GET', '/metrics')).body.split('\n')) {
    const m = /^(auditstorm_(?:events_parsed|parse_errors|requests_read)_total) (\d+)$/.exec(line);
    if (m) metrics[m[1]!] = Number(m[2]);
  }
  return { metrics, report: ReportSchema.parse(JSON.parse((await call(port, 'GET', '/report')).body)) };
}

describe('serve: a damaged batch keeps its valid events', () => {
  const lines = incidentLines().slice(0, 400);

  for (const at of [50, 200, 300]) {
    it(`a syntax error at item ${at} of 400: the 399 others count once, in /report, /metrics and the final report`, async () => {
      const s = await start();
      const items = lines.map((l, i) => (i === at ? '{"kind":"Event","auditID":,"verb":"update"}' : l));
      const r = await call(s.port, 'POST', '/audit', eventList(items), { 'content-type': 'application/json' });
      expect(r.status).toBe(400);
      expect(r.body).toBe('body is not a whole JSON document: not JSON (expected a value); this element is skipped\n');
      const first = await counts(s.port);
      expect(first.metrics).toEqual({
        auditstorm_events_parsed_total: 399,
        auditstorm_parse_errors_total: 1,
        auditstorm_requests_read_total: 399,
      });
      expect(first.report.input.sources[0]).toMatchObject({ name: 'webhook', events: 399, requests: 399, badLines: 1 });
      expect(first.report.input.badLineSamples.map((b) => [b.source, b.line, b.reason])).toEqual([['webhook batch 1', 1, 'not JSON (expected a value); this element is skipped']]);
      // The API server sends the batch again, repaired: only the missing event is new.
      expect((await call(s.port, 'POST', '/audit', eventList(lines))).status).toBe(200);
      const again = await counts(s.port);
      expect(again.metrics).toEqual({ auditstorm_events_parsed_total: 799, auditstorm_parse_errors_total: 1, auditstorm_requests_read_total: 799 });
      const final = await s.close();
      expect([final.input.requests, final.input.skipped.duplicates, final.input.badLines]).toEqual([400, 399, 1]);
    });
  }

  it('a gzip body cut short: every event whole before the cut counts, the cut one is a bad item', async () => {
    const s = await start();
    const body = eventList(lines);
    const gz = gzipSync(body);
    const cut = gz.subarray(0, Math.floor(gz.length / 2));
    // The events that end inside the text the cut gzip still holds.
    const text = gunzipSync(cut, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
    let whole = 0;
    let end = body.indexOf('[') + 1;
    for (const l of lines) {
      end += l.length;
      if (end > text.length) break;
      whole++;
      end++; // the comma
    }
    expect(whole).toBe(157);
    const r = await call(s.port, 'POST', '/audit', cut, { 'content-encoding': 'gzip' });
    expect(r).toMatchObject({ status: 400, body: 'corrupt gzip body (unexpected end of file)\n' });
    const c = await counts(s.port);
    expect(c.metrics).toEqual({
      auditstorm_events_parsed_total: 157,
      auditstorm_parse_errors_total: 1,
      auditstorm_requests_read_total: 157,
    });
    expect(c.report.input.sources[0]).toMatchObject({ name: 'webhook', events: 157, requests: 157, badLines: 1 });
    expect(c.report.input.badLineSamples.map((b) => b.reason)).toEqual(['JSON document ends early (cut short?)']);
    expect((await call(s.port, 'POST', '/audit', gz, { 'content-encoding': 'gzip' })).status).toBe(200);
    const final = await s.close();
    expect([final.input.requests, final.input.skipped.duplicates]).toEqual([400, 157]);
  });

  it('a small batch (one piece) with a syntax error at item 3 of 10 keeps the other 9', async () => {
    const s = await start();
    const items = lines.slice(0, 10).map((l, i) => (i === 3 ? l.replace('"verb":', '"verb" ') : l));
    expect(eventList(items).length).toBeLessThan(64 * 1024);
    const r = await call(s.port, 'POST', '/audit', eventList(items));
    expect(r).toMatchObject({ status: 400, body: "body is not a whole JSON document: not JSON (expected ':'); this element is skipped\n" });
    const final = await s.close();
    expect([final.input.requests, final.input.badLines]).toEqual([9, 1]);
  });
});

describe('JsonDocReader: syntax errors in a one-line batch longer than 64 KiB', () => {
  /** Feeds `text` in pieces of `chunk` characters; the auditIDs read and the bad items as [line, reason]. */
  function read(text: string, chunk: number): { ids: string[]; bad: Array<[number, string]> } {
    const ids: string[] = [];
    const bad: Array<[number, string]> = [];
    const reader = new JsonDocReader(16 * 1024 * 1024, (line, r) => {
      for (const e of r.events) ids.push(e.auditID);
      for (const b of r.bad) bad.push([line, b]);
    });
    for (let i = 0; i < text.length; i += chunk) reader.feed(text.slice(i, i + chunk));
    reader.end();
    return { ids, bad };
  }

  // userAgents holding what a scanner blind to strings would take for element ends and commas.
  const event = (i: number): string => JSON.stringify({ ...JSON.parse(incidentLines()[0]!), auditID: `a${i}`, userAgent: `tricky\\"},{"x":[1,2],"y":"${i}\\` });
  const items = Array.from({ length: 600 }, (_, i) => event(i));
  const broken = new Set([0, 3, 150, 151, 420, 599]);
  const damaged = items.map((t, i) => (broken.has(i) ? t.replace('"verb":', '"verb" ') : t));
  const want = items.map((_, i) => `a${i}`).filter((_, i) => !broken.has(i));

  for (const chunk of [1000, 16 * 1024, 1 << 20]) {
    it(`an EventList and a bare array, fed ${chunk} characters at a time: every other element counts, each broken one is a bad item`, () => {
      const list = read(`${eventList(damaged)}\n`, chunk);
      expect(list.ids).toEqual(want);
      expect(list.bad).toEqual([...broken].map(() => [1, "not JSON (expected ':'); this element is skipped"]));
      const array = read(`[${damaged.join(',')}]\n${event(1000)}\n`, chunk);
      expect(array.ids).toEqual([...want, 'a1000']);
      expect(array.bad.length).toBe(6);
      expect(read(`${eventList(items)}\n`, chunk)).toEqual({ ids: items.map((_, i) => `a${i}`), bad: [] });
    });
  }

  it("an error in the EventList's own fields skips the rest of that document, and reading goes on at the next line", () => {
    const text = `${eventList(items).replace('"metadata":{}', '"metadata":{"x" 1}')}\n${event(1000)}\n`;
    expect(read(text, 16 * 1024)).toEqual({ ids: ['a1000'], bad: [[1, "not JSON (expected ':'); the rest of this document is skipped"]] });
  });
});

describe('serve: /metrics label values from hostile usernames', () => {
  it('strips ESC, BEL and other control bytes: no byte below 0x20 but the line ends, and the user is still named', async () => {
    const s = await start();
    const evil = 'mallory\u001b[31m\u0007\u009b2J\u202e';
    const items = incidentLines()
      .slice(0, 40)
      .map((l) => {
        const e = JSON.parse(l) as { user: { username: string } };
        e.user.username = evil;
        return JSON.stringify(e);
      });
    expect((await call(s.port, 'POST', '/audit', eventList(items))).status).toBe(200);
    const text = (await call(s.port, 'GET', '/metrics')).body;
    const controls = [...text].filter((c) => c !== '\n' && (c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f)));
    expect(controls).toEqual([]);
    const user = text.split('\n').filter((l) => l.startsWith('auditstorm_actor_writes_per_second{'));
    expect(user.map((l) => l.replace(/ [0-9.]+$/, ''))).toEqual(['auditstorm_actor_writes_per_second{user="mallory[31m2J"}']);
  });

  it('users whose names differ only in control characters get one sample, so the scrape stays valid', () => {
    const text = renderMetrics({
      status: { uptimeMs: 0, events: 0, requestsRead: 0, requests: 0, duplicates: 0, badLines: 0, openByKind: {}, openedByKind: {}, closedByKind: {}, streamTimeMs: null },
      server: { batches: 0, rejected: {}, itemsReceived: 0, bodyBytes: 0 },
      actors: [
        { key: 'bob\u0007', writesPerSec: 3, conflictsPerSec: 2 },
        { key: 'bob', writesPerSec: 1, conflictsPerSec: 1 },
        { key: 'carol', writesPerSec: 1, conflictsPerSec: 0 },
      ],
      objects: [],
      rateSpanMs: 60_000,
    });
    expect(text.split('\n').filter((l) => l.startsWith('auditstorm_actor_conflicts_per_second{'))).toEqual([
      'auditstorm_actor_conflicts_per_second{user="bob"} 2',
      'auditstorm_actor_conflicts_per_second{user="carol"} 0',
    ]);
  });
});

describe('serve: HEAD', () => {
  it('HEAD /healthz needs no token and answers like GET without a body; HEAD of the other paths too', async () => {
    const s = await start({ token: 't0ken' });
    const auth = { authorization: 'Bearer t0ken' };
    const health = await call(s.port, 'HEAD', '/healthz');
    expect([health.status, health.headers['content-length'], health.body]).toEqual([200, '3', '']);
    expect((await call(s.port, 'HEAD', '/metrics')).status).toBe(401);
    for (const path of ['/metrics', '/report', '/report.html']) {
      const get = await call(s.port, 'GET', path, undefined, auth);
      const head = await call(s.port, 'HEAD', path, undefined, auth);
      expect([path, head.status, head.headers['content-type'], head.body]).toEqual([path, 200, get.headers['content-type'], '']);
    }
    expect((await call(s.port, 'HEAD', '/nope', undefined, auth)).status).toBe(404);
    expect((await call(s.port, 'PUT', '/metrics', undefined, auth)).headers['allow']).toBe('GET, HEAD, POST');
  });
});

describe('serve: slow request bodies', () => {
  /**
   * A connection that sends a POST's headers and the start of an EventList holding one whole event
   * (`auditID` `slow-<n>`), then a space every 100 ms; resolves when the server ends it.
   */
  function trickle(port: number, n: number): { done: Promise<{ ms: number; reply: string }>; socket: Socket } {
    const head = `{"kind":"EventList","items":[${JSON.stringify({ ...JSON.parse(incidentLines()[0]!), auditID: `slow-${n}` })},`;
    const t0 = Date.now();
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    let timer: ReturnType<typeof setInterval> | undefined;
    socket.on('connect', () => {
      socket.write('POST /audit HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n' + head);
      timer = setInterval(() => socket.writable && socket.write(' '), 100);
    });
    socket.on('data', (d: Buffer) => (reply += d.toString('latin1')));
    const done = new Promise<{ ms: number; reply: string }>((resolve) => {
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ ms: Date.now() - t0, reply });
      });
      socket.on('error', () => undefined);
    });
    return { done, socket };
  }

  it('a body trickled slower than --request-timeout is answered 408 and closed; /healthz answers meanwhile', async () => {
    const s = await start({ requestTimeoutMs: 500 });
    const slow = Array.from({ length: 50 }, (_, n) => trickle(s.port, n));
    await new Promise((r) => setTimeout(r, 200));
    const health = await call(s.port, 'GET', '/healthz');
    expect([health.status, health.body]).toEqual([200, 'ok\n']);
    const ends = await Promise.all(slow.map((c) => c.done));
    for (const e of ends) {
      expect(e.reply.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
      // Closed after the timeout, well before Node's default 300 s (margin for a loaded machine).
      expect(e.ms).toBeGreaterThanOrEqual(450);
      expect(e.ms).toBeLessThan(5000);
    }
    // The server sees each connection end a little after the client does.
    await until(() => s.session.status().badLines === 50, 'the 50 cut bodies to be counted');
    const m = (await call(s.port, 'GET', '/metrics')).body.split('\n');
    expect(m.filter((l) => l.startsWith('auditstorm_batches_rejected_total'))).toEqual(['auditstorm_batches_rejected_total{reason="timeout"} 50']);
    // Each request is settled: the whole event it sent counts, the cut document is a bad item.
    expect(m).toContain('auditstorm_events_parsed_total 50');
    expect(m).toContain('auditstorm_parse_errors_total 50');
    // A batch sent in time is still read.
    const ok = await call(s.port, 'POST', '/audit', eventList(incidentLines().slice(0, 5)));
    expect(ok).toMatchObject({ status: 200, body: '{"events":5,"badItems":0}\n' });
  });
});

describe('serve: connections that time out without a POST', () => {
  it('an idle connection and a GET with slow headers get 408 and are not rejected batches', async () => {
    const s = await start({ requestTimeoutMs: 300 });
    const ended = (send: string): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect(s.port, '127.0.0.1');
        let reply = '';
        socket.on('connect', () => send !== '' && socket.write(send));
        socket.on('data', (d: Buffer) => (reply += d.toString('latin1')));
        socket.on('close', () => resolve(reply));
        socket.on('error', () => undefined);
      });
    const [idle, slowGet] = await Promise.all([ended(''), ended('GET /metrics HTTP/1.1\r\nhost: x\r\n')]);
    expect([idle.split('\r\n')[0], slowGet.split('\r\n')[0]]).toEqual(['HTTP/1.1 408 Request Timeout', 'HTTP/1.1 408 Request Timeout']);
    const m = (await call(s.port, 'GET', '/metrics')).body.split('\n');
    expect(m.filter((l) => l.startsWith('auditstorm_batches_rejected_total'))).toEqual([]);
    expect(m).toContain('auditstorm_batches_total 0');
  });
});

describe('serve --request-timeout', () => {
  it('is a duration handed to the server (300ms: a trickled body gets 408); 0s or no unit is a usage error', async () => {
    let stop: (() => void) | null = null;
    const io = fakeIO({ onSignal: (h) => ((stop = h), () => undefined) });
    const run = main(['serve', '--listen', '127.0.0.1:0', '--request-timeout', '300ms'], io);
    await until(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(io.stderr.text), 'the server to listen');
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(io.stderr.text)![1]);
    const t0 = Date.now();
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n{'));
      let got = '';
      socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
      socket.on('close', () => resolve(got));
      socket.on('error', () => undefined);
    });
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(Date.now() - t0).toBeLessThan(5000);
    stop!();
    expect(await run).toBe(0);
    for (const [value, msg] of [
      ['0s', '--request-timeout 0s: must be longer than 0'],
      ['30', '--request-timeout: "30" has no unit (did you mean 30s?)'],
    ]) {
      const bad = fakeIO();
      expect(await main(['serve', '--listen', '127.0.0.1:0', '--request-timeout', value!], bad)).toBe(2);
      expect(bad.stderr.text).toContain(msg);
    }
  });
});
