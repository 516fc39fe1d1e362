/**
 * `auditstorm serve`: an HTTP(S) endpoint for kube-apiserver's audit webhook backend
 * (`--audit-webhook-config-file`), feeding a {@link LiveSession}.
 *
 * - `POST` (any path): an `EventList` body (`audit.k8s.io/v1`; also bare events or arrays),
 *   `Content-Encoding: gzip` or identity, streamed through `JsonDocReader` one item at a time, so a
 *   batch is never held whole. 200 once the body is read (items that are not audit events are
 *   counted as bad); 400 with the reason for a body that holds no audit event (not JSON, `{}` or an
 *   empty `items`) or is damaged (cut short, a syntax error, corrupt gzip), 413 over
 *   `maxBodyBytes` (counted after decompression), 415 for another encoding, 401 without the bearer
 *   token, 408 (and the connection closed) for a request not read whole within
 *   `requestTimeoutMs`. Events of a body that turns out bad still count (the API server resends a
 *   failed batch; the engine drops the duplicates by auditID). Bad items are counted and sampled
 *   like bad lines.
 * - `GET /metrics` (Prometheus text), `GET /healthz`, `GET /report` (the current JSON report, open
 *   episodes included with `ongoing: true`), `GET /report.html`; `HEAD` of each answers GET's
 *   headers without the body. With a token, every path but `/healthz` requires it.
 *
 * Request and response bodies are never kept or copied into reports or metrics.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import type { SourceCounts } from '../build-report.js';
import { UsageError } from '../errors.js';
import type { AnalyzeOptionsInput } from '../options.js';
import { JsonDocReader } from '../decoding/formats/json-doc.js';
import type { ValueResult } from '../decoding/formats/values.js';
import { emptyCounts } from '../ingest/read.js';
import type { RequestRecord } from '../decoding/record.js';
import { renderHtml } from '../report/html.js';
import { renderJson } from '../report/json.js';
import type { Report } from '../report/schema.js';
import type { LiveAlert } from './alerts.js';
import { renderMetrics, type ServerCounters } from './metrics.js';
import { LiveSession } from './session.js';
import type { Timers } from './watch.js';

/** TLS material, PEM text. With `clientCa`, clients must present a certificate it signed. */
export interface TlsSettings {
  cert: string;
  key: string;
  clientCa?: string;
}

/** Settings of the endpoint. */
export interface ServeSettings {
  /** Address to listen on; default `127.0.0.1`. */
  host?: string;
  /** Port; 0 picks a free one (see {@link LiveServer.port}). */
  port: number;
  /** Required `Authorization: Bearer <token>` on every path but `/healthz`; none when absent. */
  token?: string;
  tls?: TlsSettings;
  /** Largest body accepted, in bytes after decompression; default 64 MiB. */
  maxBodyBytes?: number;
  /** Actors and objects listed in `/metrics`; default 10. */
  metricsTop?: number;
  /** How often (ms) the stream clock is ticked; default 250. */
  tickMs?: number;
  /**
   * Longest time (ms) a client may take to send a whole request, headers and body; default
   * {@link DEFAULT_REQUEST_TIMEOUT_MS}. A slower one is answered 408 and its connection closed, so
   * slow bodies cannot hold connections (and file descriptors) for Node's default 300 s.
   */
  requestTimeoutMs?: number;
}

/** The outside world of the server. */
export interface ServeIO {
  /** Wall clock, UTC epoch ms (default `Date.now`). */
  now?: () => number;
  timers?: Timers;
  onAlert?: (alert: LiveAlert) => void;
  /** Resident memory in bytes, for `process_resident_memory_bytes` (the CLI passes `process.memoryUsage.rss`). */
  residentMemory?: () => number;
}

/** A listening server. */
export interface LiveServer {
  readonly session: LiveSession;
  /** The address and port actually bound. */
  readonly host: string;
  readonly port: number;
  /** `http` or `https`. */
  readonly scheme: string;
  /** Counters of the endpoint (live; also in `/metrics`). */
  readonly counters: ServerCounters;
  /** Stops accepting, closes connections, ends the session; resolves to the final report. Idempotent. */
  close(): Promise<Report>;
}

/** Default body limit: the API server's batches stay under `--audit-webhook-truncate-max-batch-size` (10 MiB) when truncation is on. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Default request timeout: a 10 MiB batch on a slow link, with room to spare. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Name of the webhook source in reports and bad-line samples. */
export const WEBHOOK_SOURCE = 'webhook';

/** Reasons of `JsonDocReader` that mean the document itself is damaged, not just one item. */
const BROKEN_DOCUMENT = /^(not JSON \(|JSON input ends inside|JSON document ends early)/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/**
 * Starts the endpoint. Resolves once listening.
 *
 * @throws ConfigError for invalid analysis options; UsageError for a `--since` duration; the
 *   listen error (`EADDRINUSE`, `EACCES`) as a UsageError naming the address
 */
export async function serve(options: AnalyzeOptionsInput, settings: ServeSettings, io: ServeIO = {}): Promise<LiveServer> {
  const now = io.now ?? Date.now;
  const session = new LiveSession(options, io.onAlert ? { now, onAlert: io.onAlert } : { now });
  const stats: SourceCounts = { ...emptyCounts(WEBHOOK_SOURCE, 'eventlist'), kind: 'webhook' };
  session.addSource(stats);
  const counters: ServerCounters = { batches: 0, rejected: {}, itemsReceived: 0, bodyBytes: 0 };
  const maxBody = settings.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const top = settings.metricsTop ?? 10;
  const tokenDigest = settings.token === undefined ? null : digest(settings.token);
  let batchNo = 0;
  /** Connections whose request Node timed out (see `requestTimeoutMs`). */
  const timedOut = new WeakSet<object>();
  /** Connections reading a POST body now: only their timeouts are rejected batches. */
  const posting = new WeakSet<object>();

  const reject = (reason: string): void => {
    counters.rejected[reason] = (counters.rejected[reason] ?? 0) + 1;
  };

  /** Constant-time comparison of the whole Authorization header with the expected one. */
  const authorized = (req: IncomingMessage): boolean => {
    if (tokenDigest === null) return true;
    const got = req.headers.authorization;
    if (typeof got !== 'string') return false;
    // The scheme is case-insensitive (RFC 7235 §2.1); kube-apiserver sends `Bearer`.
    const m = /^bearer +(.*)$/i.exec(got);
    return m !== null && timingSafeEqual(digest(m[1]!), tokenDigest);
  };

  /** Reads one body into the session; returns events and bad items. */
  const readBody = async (req: IncomingMessage): Promise<{ events: number; bad: number }> => {
    const enc = (req.headers['content-encoding'] ?? 'identity').toString().trim().toLowerCase();
    if (enc !== 'identity' && enc !== 'gzip' && enc !== '') {
      throw new HttpError(415, 'unsupported_encoding', `unsupported Content-Encoding "${enc}": send gzip or identity`);
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      throw new HttpError(413, 'too_large', `body of ${declared} bytes is over the limit of ${maxBody} bytes`);
    }
    const batch = ++batchNo;
    const source = `${WEBHOOK_SOURCE} batch ${batch}`;
    let events = 0;
    let bad = 0;
    let records: RequestRecord[] = [];
    let firstBad = '';
    let broken = '';
    const onItem = (line: number, r: ValueResult): void => {
      counters.itemsReceived += r.events.length + r.bad.length;
      stats.lines += r.events.length + r.bad.length;
      for (const ev of r.events) {
        events++;
        stats.events++;
        const rec = session.normalizer.normalize(ev);
        if (rec === null) stats.nonFinalStages++;
        else {
          stats.requests++;
          records.push(rec);
        }
      }
      for (const reason of r.bad) {
        bad++;
        stats.badLines++;
        if (firstBad === '') firstBad = reason;
        if (broken === '' && BROKEN_DOCUMENT.test(reason)) broken = reason;
        session.bad.add(source, line, reason);
      }
      if (r.truncated > 0) stats.truncated += r.truncated;
      if (r.skipped) stats.skippedRecords += r.skipped;
    };
    const reader = new JsonDocReader(session.options.maxLineLength, onItem);
    const body: Readable = enc === 'gzip' ? req.pipe(createGunzip()) : req;
    if (enc === 'gzip') req.on('error', (e) => body.destroy(e));
    const decoder = new StringDecoder('utf8');
    let size = 0;
    let start = true;
    let streamFailed = false;
    const onChunk = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBody) throw new HttpError(413, 'too_large', `body is over the limit of ${maxBody} bytes`);
      let text = decoder.write(chunk);
      if (start) {
        // The reader would wait for the end of a "document" that never starts: say what it is.
        text = text.replace(/^\uFEFF/, '');
        const t = text.trimStart();
        if (t !== '') {
          start = false;
          if (t[0] !== '{' && t[0] !== '[') throw new HttpError(400, 'bad_body', 'body is not JSON: expected an audit.k8s.io EventList');
        }
      }
      reader.feed(text);
      if (records.length > 0) {
        session.push(records);
        records = [];
      }
    };
    try {
      // Events, not `for await`: leaving an async iteration early would destroy the request, and
      // with it the socket the 4xx answer must go out on. After a failure the rest is discarded.
      await new Promise<void>((resolve, rejectBody) => {
        let failed = false;
        body.on('data', (chunk: Buffer) => {
          if (failed) return;
          try {
            onChunk(chunk);
          } catch (e) {
            failed = true;
            if (body !== req) body.destroy();
            req.resume();
            rejectBody(e);
          }
        });
        body.once('end', resolve);
        body.once('error', (e) => {
          failed = true;
          streamFailed = true;
          req.resume();
          rejectBody(e);
        });
      });
    } catch (e) {
      // What was read before the failure counts, as `stats` already does. A body cut short (or its
      // gzip damaged) counts up to the damage: the whole events in the text held back for its line
      // end too, and the cut one as a bad item.
      if (streamFailed) {
        reader.feed(decoder.end());
        reader.end();
      }
      if (records.length > 0) session.push(records);
      if (e instanceof HttpError) throw e;
      const code = (e as { code?: string }).code ?? '';
      if (code.startsWith('Z_')) throw new HttpError(400, 'bad_body', `corrupt gzip body (${(e as Error).message})`);
      throw new HttpError(400, 'bad_body', `body could not be read (${(e as Error).message})`);
    } finally {
      counters.bodyBytes += size;
    }
    reader.feed(decoder.end());
    reader.end();
    if (records.length > 0) session.push(records);
    if (size === 0) throw new HttpError(400, 'bad_body', 'empty body: expected an audit.k8s.io EventList');
    // A cut or garbled body is answered 400 even if some events were read before the damage, so
    // the API server resends the batch (the copies of those events are dropped as duplicates).
    if (broken !== '') throw new HttpError(400, 'bad_body', `body is not a whole JSON document: ${broken}`);
    if (events === 0) {
      throw new HttpError(400, 'bad_body', firstBad === '' ? 'no audit events in the body (an EventList with no items?)' : `no audit events in the body: ${firstBad}`);
    }
    return { events, bad };
  };

  const send = (res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...extra });
    // HEAD: the headers GET would get, no body.
    if (res.req.method === 'HEAD') res.end();
    else res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = (req.url ?? '/').split('?')[0]!;
    if ((req.method === 'GET' || req.method === 'HEAD') && url === '/healthz') return send(res, 200, 'text/plain; charset=utf-8', 'ok\n');
    if (!authorized(req)) {
      if (req.method === 'POST') reject('unauthorized');
      req.resume();
      return send(res, 401, 'text/plain; charset=utf-8', 'unauthorized: send Authorization: Bearer <token>\n', { 'www-authenticate': 'Bearer' });
    }
    if (req.method === 'POST') {
      posting.add(req.socket);
      try {
        const r = await readBody(req);
        counters.batches++;
        return send(res, 200, 'application/json', `${JSON.stringify({ events: r.events, badItems: r.bad })}\n`);
      } catch (e) {
        const err = e instanceof HttpError ? e : new HttpError(400, 'bad_body', (e as Error).message);
        // A timed-out request is counted once, as `timeout`, where Node reports it.
        if (!timedOut.has(req.socket)) reject(err.reason);
        // Unread body bytes must not be taken for the next request on this connection.
        send(res, err.status, 'text/plain; charset=utf-8', `${err.message}\n`, { connection: 'close' });
        return;
      } finally {
        posting.delete(req.socket);
      }
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      req.resume();
      return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed: POST audit events, GET /metrics, /healthz, /report, /report.html\n', { allow: 'GET, HEAD, POST' });
    }
    switch (url) {
      case '/metrics': {
        const input = {
          status: session.status(),
          server: counters,
          actors: session.actorRates.top(top, session.streamNow() ?? now()),
          objects: session.objectRates.top(top, session.streamNow() ?? now()),
          rateSpanMs: session.actorRates.spanMs,
          ...(io.residentMemory ? { residentMemoryBytes: io.residentMemory() } : {}),
        };
        return send(res, 200, 'text/plain; version=0.0.4; charset=utf-8', renderMetrics(input));
      }
      case '/report':
        return send(res, 200, 'application/json', `${renderJson(session.snapshot())}\n`);
      case '/report.html':
        return send(res, 200, 'text/html; charset=utf-8', renderHtml(session.snapshot()));
      default:
        return send(res, 404, 'text/plain; charset=utf-8', 'not found: POST audit events; GET /metrics, /healthz, /report, /report.html\n');
    }
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((e: unknown) => {
      // A bug must not take the server down: answer 500 and go on.
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `internal error: ${(e as Error).message}\n`);
      else res.destroy();
    });
  };

  const requestTimeout = settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const timeouts = {
    requestTimeout,
    headersTimeout: requestTimeout,
    // Node checks the timeouts on this interval (30 s by default), so it bounds how late they fire.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeout / 4))),
  };
  const server: Server = settings.tls
    ? createHttpsServer(
        {
          cert: settings.tls.cert,
          key: settings.tls.key,
          ...(settings.tls.clientCa ? { ca: settings.tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
          ...timeouts,
        },
        listener,
      )
    : createHttpServer(timeouts, listener);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      // An idle connection or slow headers (a probe, a load balancer) is no rejected batch.
      if (posting.has(socket)) reject('timeout');
      timedOut.add(socket);
    }
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
    else socket.destroy();
  });

  const host = settings.host ?? '127.0.0.1';
  await new Promise<void>((resolve, rejectListen) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      rejectListen(new UsageError(`--listen ${host}:${settings.port}: cannot listen (${e.code ?? e.message})`));
    };
    server.once('error', onError);
    server.listen(settings.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;

  const timers = io.timers ?? {
    setInterval: (fn: () => void, ms: number) => setInterval(fn, ms),
    clearInterval: (h: unknown) => clearInterval(h as ReturnType<typeof setInterval>),
  };
  const tick = timers.setInterval(() => session.tick(), settings.tickMs ?? 250);

  let closing: Promise<Report> | null = null;
  return {
    session,
    host: addr.address,
    port: addr.port,
    scheme: settings.tls ? 'https' : 'http',
    counters,
    close(): Promise<Report> {
      closing ??= new Promise<Report>((resolve) => {
        timers.clearInterval(tick);
        server.close(() => resolve(session.finish()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
