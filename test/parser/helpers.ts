/** Builders and readers shared by the parser tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Normalizer } from '../../src/decoding/normalize.js';
import type { ReadOptions } from '../../src/ingest/options.js';
import { BadLineLog, readChain, type SourceStats } from '../../src/ingest/read.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { resolveInputs, type SourceChain } from '../../src/ingest/sources.js';
import type { BadLineSample } from '../../src/report/schema.js';

/** The 409 example of reference §1.7, as an object. */
export const CONFLICT_EVENT = {
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: '6f1b0c8e-2f7d-4a43-9a55-0d7c3c8b9e21',
  stage: 'ResponseComplete',
  requestURI: '/apis/apps/v1/namespaces/shop/deployments/web/status',
  verb: 'update',
  user: {
    username: 'system:serviceaccount:shop-system:shop-operator',
    uid: '3c1e5d7a-1111-4a2b-8c9d-000000000001',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:shop-system', 'system:authenticated'],
  },
  sourceIPs: ['10.244.1.17'],
  userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
  objectRef: {
    resource: 'deployments',
    namespace: 'shop',
    name: 'web',
    uid: 'b0a1c2d3-3333-4a2b-8c9d-000000000003',
    apiGroup: 'apps',
    apiVersion: 'v1',
    resourceVersion: '48213',
    subresource: 'status',
  },
  responseStatus: { metadata: {}, status: 'Failure', reason: 'Conflict', code: 409 },
  requestReceivedTimestamp: '2026-07-01T10:00:00.123456Z',
  stageTimestamp: '2026-07-01T10:00:00.131002Z',
  annotations: { 'authorization.k8s.io/decision': 'allow' },
};

/** One JSON line: {@link CONFLICT_EVENT} with top-level fields replaced (`undefined` removes). */
export function eventLine(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...CONFLICT_EVENT, ...overrides });
}

export const DEFAULT_READ: ReadOptions = { maxLineLength: 16 * 1024 * 1024, sniffLines: 1000 };

/** Everything a chain read produced. */
export interface ReadResult {
  records: RequestRecord[];
  stats: SourceStats[];
  badCount: number;
  bad: BadLineSample[];
}

/** Reads all chains with one normalizer. */
export async function readChains(chains: SourceChain[], opts: ReadOptions = DEFAULT_READ): Promise<ReadResult> {
  const normalizer = new Normalizer();
  const badLog = new BadLineLog(100);
  const records: RequestRecord[] = [];
  const stats: SourceStats[] = [];
  for (const chain of chains) {
    const read = readChain(chain, normalizer, opts, badLog);
    for await (const batch of read.batches) records.push(...batch);
    stats.push(...read.stats);
  }
  return { records, stats, badCount: badLog.count, bad: badLog.samples() };
}

/** Splits bytes into chunks of `size` (the last may be shorter). */
export function chunks(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** Reads `input` fed as stdin in chunks of `chunkSize` bytes. */
export async function readStdin(input: string | Buffer, opts: ReadOptions = DEFAULT_READ, chunkSize = 65536): Promise<ReadResult> {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  const chains = await resolveInputs([], { stdin: Readable.from(chunks(bytes, chunkSize)) });
  return readChains(chains, opts);
}

const tempDirs: string[] = [];

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'auditstorm-parser-'));
  tempDirs.push(dir);
  return dir;
}

/** Removes the directories made by {@link tempDir}. */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
