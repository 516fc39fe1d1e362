/**
 * `auditstorm serve --nats URL --cluster NAME`: the audit webhook receiver as a stateless ingest
 * tier. Each `POST` (an `EventList`, bare events or arrays; gzip or identity) is decoded and every
 * event published to the fleet stream; the answer is 200 only once JetStream acknowledged all of
 * them, so the API server resends a batch that was not stored (resends are dropped by message
 * ID). 503 while JetStream does not acknowledge within `--publish-timeout` (default 10 s); 400
 * for a body with no audit event; 413 over 64 MiB; 401 without the bearer token (`--token`).
 * `GET /healthz` answers 200 while the NATS connection is up, 503 otherwise.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { tryParseDuration } from '../duration.js';
import { UsageError } from '../errors.js';
import { connectFleet, ensureStream, type FleetLog } from '../fleet/connect.js';
import { checkClusterName } from '../fleet/partition.js';
import { PublishOrder } from '../fleet/order.js';
import { publishEvents, type PublishCounts } from '../fleet/publish.js';
import { JsonDocReader } from '../decoding/formats/json-doc.js';
import type { AuditEvent } from '../decoding/event.js';
import type { CliIO } from './io.js';
import type { Guarded } from './output.js';

/** Largest body accepted (bytes after decompression), as `serve`. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Runs until a signal; resolves to exit code 0. */
export async function runServeNats(argv: readonly string[], io: CliIO, err: Guarded, log: FleetLog): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        nats: { type: 'string' },
        cluster: { type: 'string' },
        listen: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string' },
        partitions: { type: 'string' },
        replicas: { type: 'string' },
        'publish-timeout': { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (e) {
    throw new UsageError((e as Error).message, 'run `auditstorm serve --nats URL --cluster NAME`; see `auditstorm publish --help`');
  }
  const url = values.nats as string;
  if (typeof values.cluster !== 'string') throw new UsageError('serve --nats: --cluster is required');
  const cluster = checkClusterName(values.cluster);
  // `--listen HOST:PORT` as `serve` takes it, or `--host` and `--port`.
  const listen = typeof values.listen === 'string' ? /^(.*):(\d+)$/.exec(values.listen) : null;
  if (typeof values.listen === 'string' && listen === null) throw new UsageError(`--listen ${values.listen}: expected HOST:PORT, e.g. 127.0.0.1:8443`);
  const host = listen !== null ? listen[1]!.replace(/^\[(.*)\]$/, '$1') : ((values.host as string | undefined) ?? '127.0.0.1');
  const port = Number(listen !== null ? listen[2] : (values.port ?? 8443));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${String(values.port)}: expected 0 to 65535`);
  const partitionsFlag = values.partitions === undefined ? null : Number(values.partitions);
  if (partitionsFlag !== null && (!Number.isInteger(partitionsFlag) || partitionsFlag < 1)) {
    throw new UsageError(`--partitions ${String(values.partitions)}: expected an integer ≥ 1`);
  }
  const replicas = Number(values.replicas ?? 1);
  const timeoutMs = values['publish-timeout'] === undefined ? 10_000 : tryParseDuration(values['publish-timeout'] as string);
  if (timeoutMs === undefined) throw new UsageError(`--publish-timeout ${String(values['publish-timeout'])}: expected a duration such as 10s`);
  const token = values.token as string | undefined;

  const fleet = await connectFleet(url, log, Number.POSITIVE_INFINITY, `auditstorm-serve-${cluster}`);
  let partitions: number | null = null;
  // A fleet set up with other partitions fails here (exit 2), not at each POST; a JetStream not
  // up yet is set up at the first POST.
  try {
    partitions = await ensureStream(fleet, { partitions: partitionsFlag, replicas, maxAgeMs: 24 * 3600_000 });
  } catch (e) {
    if (e instanceof UsageError) {
      await fleet.nc.close().catch(() => {});
      throw e;
    }
    log(`serve: JetStream not ready (${(e as Error).message}); the stream is set up at the first batch`);
  }
  const counts: PublishCounts = { published: 0, duplicates: 0, badLines: 0, unnamed: 0 };
  const order = new PublishOrder();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const send = (status: number, text: string): void => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${text}\n`);
    };
    if (req.method === 'GET' && req.url === '/healthz') {
      send(fleet.nc.isClosed() ? 503 : 200, fleet.nc.isClosed() ? 'nats connection closed' : 'ok');
      return;
    }
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      send(401, 'unauthorized');
      return;
    }
    if (req.method !== 'POST') {
      send(405, 'POST audit events here');
      return;
    }
    const enc = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (enc !== 'identity' && enc !== 'gzip') {
      send(415, `content-encoding ${enc} is not supported (gzip or identity)`);
      return;
    }
    const events: AuditEvent[] = [];
    let bad = 0;
    const reader = new JsonDocReader(MAX_BODY_BYTES, (_line, r) => {
      events.push(...r.events);
      bad += r.bad.length;
    });
    const body: Readable = enc === 'gzip' ? req.pipe(createGunzip()) : req;
    const decoder = new StringDecoder('utf8');
    let bytes = 0;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > MAX_BODY_BYTES) {
          send(413, `body over ${MAX_BODY_BYTES} bytes`);
          req.destroy();
          return;
        }
        reader.feed(decoder.write(chunk));
      }
      reader.feed(decoder.end());
      reader.end();
    } catch (e) {
      send(400, `cannot read the body: ${(e as Error).message}`);
      return;
    }
    if (events.length === 0) {
      send(400, bad > 0 ? `no audit event in the body (${bad} items are not audit events)` : 'no audit event in the body');
      return;
    }
    try {
      if (partitions === null) partitions = await ensureStream(fleet, { partitions: partitionsFlag, replicas, maxAgeMs: 24 * 3600_000 });
      await publishEvents({ js: fleet.js, cluster, partitions, log, retryForMs: timeoutMs, order }, events, counts);
    } catch (e) {
      if (e instanceof UsageError) {
        send(500, e.message);
        return;
      }
      log(`serve: JetStream did not acknowledge a batch of ${events.length} events (${(e as Error).message}): answered 503`);
      send(503, 'JetStream unavailable; resend');
      return;
    }
    counts.badLines += bad;
    send(200, 'ok');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`serve: ${(e as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  await err.write(`auditstorm: serving the audit webhook of cluster ${cluster} on http://${addr.address}:${addr.port}, publishing to ${url}\n`);
  await new Promise<void>((resolve) => {
    const off = io.onSignal?.(() => {
      off?.();
      resolve();
    });
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await fleet.nc.drain().catch(() => {});
  await err.write(`auditstorm: published ${counts.published} events (${counts.duplicates} resends dropped), ${counts.badLines} bad items\n`);
  return 0;
}
