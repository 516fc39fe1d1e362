/**
 * The benchmark matrix of issue 26 (`npm run bench`): its cluster-log generator counts what it
 * writes, and the quick matrix has every log read whole by auditstorm, the naive baseline and
 * DuckDB (exact event counts equal to the generator's). Timings are not checked. Uses the built
 * `dist/` (the matrix spawns it), as `npm test` builds first.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCluster, type ClusterSpec } from '../../dist/bench/cluster.js';
import { matrixCells, type MatrixRow } from '../../dist/bench/matrix.js';
import { removeTempDirs, tempDir } from '../parser/helpers.js';

afterAll(removeTempDirs);

const run = promisify(execFile);
const BENCH = join(import.meta.dirname, '../../dist/cli/bench.js');

const SMALL: ClusterSpec = { seed: 3, minutes: 2, nodes: 20, namespaces: 4, podsPerMinute: 30, requestsPerMinute: 1200, level: 'Metadata', bodyBytes: 3000 };

interface Line {
  verb: string;
  stage: string;
  user: { username: string };
  objectRef: { resource: string; namespace?: string; name?: string; subresource?: string };
  responseStatus: { code: number };
  stageTimestamp: string;
  requestObject?: unknown;
  responseObject?: unknown;
}

function parse(file: string): { raw: string[]; events: Line[] } {
  const raw = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  return { raw, events: raw.map((l) => JSON.parse(l) as Line) };
}

describe('cluster log generator', () => {
  it('writes what its stats say: events, bytes, actors, objects, 409s on update/patch; in time order; the same bytes for the same spec', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.log');
    const stats = await writeCluster(a, SMALL);
    const { raw, events } = parse(a);
    expect(events.length).toBe(stats.events);
    expect(readFileSync(a).length).toBe(stats.bytes);
    expect(new Set(events.map((e) => e.user.username)).size).toBe(stats.actors);
    const key = (e: Line): string => `${e.objectRef.resource}/${e.objectRef.namespace ?? ''}/${e.objectRef.name ?? ''}/${e.objectRef.subresource ?? ''}`;
    expect(new Set(events.map(key)).size).toBe(stats.distinctObjects);
    expect(events.filter((e) => e.responseStatus.code === 409 && (e.verb === 'update' || e.verb === 'patch')).length).toBe(stats.conflicts);
    // 20 kubelets, 4 operators, the ReplicaSet and EndpointSlice controllers and the scheduler.
    expect(stats.actors).toBe(27);
    // Every kubelet: GET node, PATCH status and a Lease update every 10 s for 2 minutes.
    expect(events.filter((e) => e.verb === 'update' && e.objectRef.resource === 'leases').length).toBe(20 * 12);
    expect(events.filter((e) => e.verb === 'patch' && e.objectRef.subresource === 'status' && e.objectRef.resource === 'nodes').length).toBe(20 * 12);
    // Events with unique names: each created once.
    const eventNames = events.filter((e) => e.objectRef.resource === 'events').map((e) => e.objectRef.name);
    expect(eventNames.length).toBeGreaterThan(100);
    expect(new Set(eventNames).size).toBe(eventNames.length);
    const times = events.map((e) => e.stageTimestamp);
    expect(times).toEqual([...times].sort());
    expect(raw.every((l) => !l.includes('requestObject'))).toBe(true);
    const b = join(dir, 'b.log');
    await writeCluster(b, SMALL);
    expect(readFileSync(b).equals(readFileSync(a))).toBe(true);
  });

  it('adds request and response bodies of several KB at RequestResponse level', async () => {
    const file = join(tempDir(), 'rr.log');
    await writeCluster(file, { ...SMALL, level: 'RequestResponse', bodyBytes: 4000 });
    const { raw, events } = parse(file);
    const patches = raw.filter((_, i) => events[i]!.verb === 'patch');
    expect(patches.length).toBeGreaterThan(0);
    for (const l of patches) expect(l.length).toBeGreaterThan(2 * 3800);
    expect(events.filter((e) => e.verb === 'get' && e.responseStatus.code === 200).every((e) => e.responseObject !== undefined && e.requestObject === undefined)).toBe(true);
  });
});

describe('npm run bench --quick', () => {
  it('reads every log of the matrix whole with auditstorm, the naive baseline and DuckDB, and prints a row per log', async () => {
    const dir = tempDir();
    const { stdout } = await run(process.execPath, [BENCH, '--quick', '--json', '--dir', dir], { maxBuffer: 1 << 24 }).catch((err: { code: number; stdout: string }) => {
      // Exit 1: a target missed (timings are not this test's business); anything else fails.
      if (err.code !== 1) throw err;
      return { stdout: err.stdout };
    });
    const rows = JSON.parse(stdout) as MatrixRow[];
    expect(rows.map((r) => r.cell)).toEqual(['obj-1k', 'obj-10k', 'obj-100k', 'actors-1k', 'actors-10k', 'rr-10k', 'long-5x']);
    expect(rows.map((r) => r.cell)).toEqual(matrixCells(true).map((c) => c.name));
    for (const r of rows) {
      expect(r.runs).toBe(1);
      expect(r.median.auditstorm.events).toBe(r.log.events);
      expect(r.median.naive.events).toBe(r.log.events);
      expect(r.median.duckdb.events).toBe(r.log.events);
      expect(r.median.auditstorm.maxRssMb).toBeGreaterThan(10);
      expect(r.median.auditstorm.cpuUs).toBeGreaterThan(0);
      expect(Object.keys(r.pass).sort()).toEqual(['cpu', 'duckdb', 'naive', 'rss']);
    }
    const byName = new Map(rows.map((r) => [r.cell, r]));
    // The 5× log is 5 minutes of obj-10k's cluster.
    expect(byName.get('long-5x')!.log.events).toBeGreaterThan(4.5 * byName.get('obj-10k')!.log.events);
    // Cardinality grows along the matrix's axes.
    expect(byName.get('obj-100k')!.log.distinctObjectsPerMinute).toBeGreaterThan(byName.get('obj-1k')!.log.distinctObjectsPerMinute * 10);
    expect(byName.get('actors-10k')!.log.actors).toBeGreaterThan(byName.get('actors-1k')!.log.actors * 5);
    // The logs are reused from the cache on the next run (same file names), so `--only` finds them.
    const again = await run(process.execPath, [BENCH, '--quick', '--json', '--only', 'obj-1k', '--dir', dir]).catch((err: { code: number; stdout: string }) => {
      if (err.code !== 1) throw err;
      return { stdout: err.stdout };
    });
    const one = JSON.parse(again.stdout) as MatrixRow[];
    expect(one.map((r) => r.cell)).toEqual(['obj-1k']);
    expect(one[0]!.log).toEqual(byName.get('obj-1k')!.log);
  }, 240_000);

  it('answers an unknown cell with exit 2 and the cells it has', async () => {
    const err = (await run(process.execPath, [BENCH, '--quick', '--only', 'nope', '--dir', tempDir()]).then(
      () => undefined,
      (e: unknown) => e,
    )) as { code: number; stderr: string };
    expect(err.code).toBe(2);
    expect(err.stderr).toContain('no cell named nope; cells: obj-1k, obj-10k, obj-100k, actors-1k, actors-10k, rr-10k, long-5x');
  });
});
