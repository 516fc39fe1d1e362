/**
 * Connecting to NATS and setting up the fleet's JetStream objects: the `AUDITSTORM` stream, the
 * fleet settings (`partitions`) and the key-value buckets (leases, workers, checkpoints, reports).
 */
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { InputError, UsageError } from '../errors.js';
import { CHECKPOINT_BUCKET, LEASE_BUCKET, META_BUCKET, REPORT_BUCKET, STREAM, STREAM_SUBJECTS, WORKER_BUCKET } from './names.js';

/** A connection with its JetStream handles. */
export interface Fleet {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  kvm: Kvm;
}

/** Where `stderr` messages of the fleet commands go (one line each, no newline). */
export type FleetLog = (line: string) => void;

/** Backoff (ms) before retry `attempt` (0-based): 250 ms doubling to 5 s. */
export function backoffMs(attempt: number): number {
  return Math.min(5000, 250 * 2 ** Math.min(attempt, 5));
}

/** Resolves after `ms` (ms). */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Connects to the NATS servers of `url` (comma-separated `nats://host:port` list), reconnecting
 * for ever once connected (every reconnect and disconnect is said through `log`).
 * @param retryForMs how long to retry the first connection (ms); 0 tries once
 * @throws InputError when no server answered within `retryForMs`
 */
export async function connectFleet(url: string, log: FleetLog, retryForMs = 0, name = 'auditstorm'): Promise<Fleet> {
  const servers = url
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (servers.length === 0) throw new UsageError('--nats: give a NATS server URL, e.g. nats://127.0.0.1:4222');
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    let nc: NatsConnection | undefined;
    try {
      const conn = await connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 500, timeout: 2000 });
      nc = conn;
      void (async () => {
        for await (const s of conn.status()) {
          if (s.type === 'disconnect' || s.type === 'reconnect') log(`nats: ${s.type} ${'server' in s ? String(s.server) : ''}`.trimEnd());
        }
      })();
      const jsm = await jetstreamManager(conn, { timeout: 5000 });
      return { nc: conn, js: jetstream(conn, { timeout: 5000 }), jsm, kvm: new Kvm(conn) };
    } catch (err) {
      // A connection whose JetStream did not answer would reconnect for ever and keep the process alive.
      await nc?.close().catch(() => {});
      const waited = Date.now() - started;
      if (waited >= retryForMs)
        throw new InputError(`cannot reach JetStream at ${url}: ${(err as Error).message}`, 'is nats-server running with JetStream on (-js, or jetstream {} in its config)?');
      const wait = backoffMs(attempt);
      log(`nats: cannot reach ${url} (${(err as Error).message}); retrying in ${wait} ms`);
      await sleep(wait);
    }
  }
}

/**
 * Runs `fn`, retrying it with backoff (said through `log`) while it fails for up to `forMs` ms:
 * a JetStream API call fails for a few seconds while a cluster elects a new leader.
 * @throws UsageError from `fn` at once; any other error of `fn` once `forMs` has passed
 */
export async function retrying<T>(what: string, fn: () => Promise<T>, log: FleetLog, forMs: number): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof UsageError || Date.now() - started >= forMs) throw err;
      const wait = backoffMs(attempt);
      log(`${what}: ${(err as Error).message}; retrying in ${wait} ms`);
      await sleep(wait);
    }
  }
}

/** Settings of the stream, used when `publish` or `serve --nats` creates it. */
export interface StreamSettings {
  /**
   * Partitions of the fleet (all publishers must agree; stored in the meta bucket), or `null`
   * (no `--partitions` given) for the fleet's count, {@link DEFAULT_PARTITIONS} for a new fleet.
   */
  partitions: number | null;
  /** Stream and bucket replicas: 1 on a single server, 3 on a cluster. */
  replicas: number;
  /** Longest time an event is kept (ms); bounds what a worker replays when it takes a partition over. 0: no limit. */
  maxAgeMs: number;
}

const NANOS_PER_MS = 1_000_000;

/** Partitions of a fleet set up without `--partitions`. */
export const DEFAULT_PARTITIONS = 16;

/** The de-duplication window of the stream (ms): a resend within it is dropped by message ID. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

/**
 * Creates the stream and the fleet settings when missing, and returns the fleet's partition count.
 * @throws UsageError when the fleet already has another partition count than a given `settings.partitions`
 */
export async function ensureStream(f: Fleet, settings: StreamSettings): Promise<number> {
  try {
    await f.jsm.streams.info(STREAM);
  } catch (err) {
    if (!/stream not found/i.test((err as Error).message)) throw err;
    await f.jsm.streams.add({
      name: STREAM,
      subjects: [STREAM_SUBJECTS],
      num_replicas: settings.replicas,
      duplicate_window: DUPLICATE_WINDOW_MS * NANOS_PER_MS,
      max_age: settings.maxAgeMs * NANOS_PER_MS,
    });
  }
  const meta = await f.kvm.create(META_BUCKET, { replicas: settings.replicas, history: 1 });
  const given = settings.partitions;
  if (given === null) {
    const existing = await fleetPartitions(f);
    if (existing !== null) return existing;
  }
  const value = String(given ?? DEFAULT_PARTITIONS);
  try {
    await meta.create('partitions', value);
  } catch {
    // Someone created it first: it must agree.
  }
  const stored = await fleetPartitions(f);
  if (given === null) {
    if (stored === null) throw new Error('the fleet settings could not be read back');
    return stored;
  }
  if (stored !== given) {
    throw new UsageError(`--partitions ${given}: this fleet's stream has ${stored} partitions`, `drop --partitions or give --partitions ${stored}`);
  }
  return stored;
}

/** The fleet's partition count, or `null` when no publisher has set the fleet up yet. */
export async function fleetPartitions(f: Fleet): Promise<number | null> {
  let meta: KV;
  try {
    meta = await f.kvm.open(META_BUCKET);
    const e = await meta.get('partitions');
    if (e === null || e.operation !== 'PUT') return null;
    const n = Number(e.string());
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/** The buckets a worker uses; `leaseMs` is the time an unrenewed lease or worker entry lives. */
export async function workerBuckets(f: Fleet, replicas: number, leaseMs: number): Promise<{ leases: KV; workers: KV; checkpoints: KV; reports: KV }> {
  return {
    leases: await f.kvm.create(LEASE_BUCKET, { replicas, history: 1, ttl: leaseMs }),
    workers: await f.kvm.create(WORKER_BUCKET, { replicas, history: 1, ttl: leaseMs }),
    checkpoints: await f.kvm.create(CHECKPOINT_BUCKET, { replicas, history: 1 }),
    reports: await f.kvm.create(REPORT_BUCKET, { replicas, history: 1 }),
  };
}
