/**
 * The parallel JSON-lines reader (`src/ingest/parallel.ts`, worker threads) gives what the
 * single-threaded reader gives: the same records in the same order, the same per-source counts
 * and the same bad-line samples, on the fixtures, the public corpus's JSON-lines files and a file
 * made of every awkward thing (BOM, CRLF, blank, over-long, bad, legacy and wrapped lines).
 */
import { closeSync, existsSync, openSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/decoding/record.js';
import { resolveInputs } from '../../src/ingest/sources.js';
import { Normalizer } from '../../src/decoding/normalize.js';
import { BadLineLog, readChain } from '../../src/ingest/read.js';
import { decodeRanges } from '../../src/ingest/parallel.js';
import { claimRange } from '../../src/ingest/work-lines.js';
import { InputError } from '../../src/errors.js';
import { eventLine, readChains, removeTempDirs, tempDir, type ReadResult } from './helpers.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = path.resolve(repoRoot, '../shared/corpus/public');
const present = existsSync(CORPUS);
if (!present) console.warn(`auditstorm tests: ${CORPUS} not found; the parallel-reader corpus test is skipped (it runs where ../shared exists)`);

afterAll(removeTempDirs);

function plain(r: RequestRecord): unknown {
  return { ...r, actor: { ...r.actor }, object: r.object === null ? null : { ...r.object } };
}

async function both(file: string, maxLineLength = 16 * 1024 * 1024, workers = 1, rangeBytes?: number): Promise<[ReadResult, ReadResult]> {
  const read = async (n: number): Promise<ReadResult> =>
    readChains(await resolveInputs([file], { stdin: Readable.from([]) }), {
      maxLineLength,
      sniffLines: 1000,
      parallel: { workers: n, minBytes: 0, ...(rangeBytes === undefined ? {} : { rangeBytes }) },
    });
  return [await read(0), await read(workers)];
}

function expectSame([one, par]: [ReadResult, ReadResult]): void {
  expect(par.stats).toEqual(one.stats);
  expect(par.badCount).toBe(one.badCount);
  expect(par.bad).toEqual(one.bad);
  expect(par.records.length).toBe(one.records.length);
  expect(par.records.map(plain)).toEqual(one.records.map(plain));
}

describe('parallel reader', () => {
  it('reads the committed fixtures as the single-threaded reader does', async () => {
    for (const f of ['fixtures/sample/audit.log.gz', 'fixtures/incident/payment-core.log']) {
      const r = await both(path.join(repoRoot, f));
      expectSame(r);
      expect(r[1].records.length).toBeGreaterThan(1000);
    }
  });

  it('reads a file of awkward lines as the single-threaded reader does', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'awkward.log');
    const rc = (id: string, extra: Record<string, unknown> = {}): string => eventLine({ auditID: id, ...extra });
    const get = (id: string, objectRef: Record<string, string>): string => rc(id, { verb: 'get', objectRef, responseStatus: { metadata: {}, code: 200 } });
    const lines = [
      '\ufeff' + rc('bom'),
      rc('crlf') + '\r',
      '',
      '   ',
      rc('long', { userAgent: 'x'.repeat(3000) }),
      '{"kind":"Event", broken',
      'master-0 ' + rc('prefixed'),
      JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: [JSON.parse(rc('in-list'))] }),
      rc('reordered').replace('{"kind":"Event",', '{').replace(/}$/, ',"kind":"Event"}'),
      // What a record keeps of its requestURI is derived where the line is read.
      rc('fm', { requestURI: '/api/v1/namespaces/a/pods/b?fieldManager=m%C3%BCller&dryRun=All' }),
      rc('fm-escaped', { requestURI: '/api/v1/namespaces/a/pods/b?x=1&fieldManager=kubectl' }).replace('?x=1&', '?x=1\\u0026'),
      rc('dry', { requestURI: '/api/v1/namespaces/a/pods/b?dryRun=All' }),
      // Long-running (no latency) by its subresource, which the reading thread knows by the object's id.
      rc('log', {
        requestURI: '/api/v1/namespaces/a/pods/b/log',
        verb: 'get',
        objectRef: { resource: 'pods', namespace: 'a', name: 'b', apiVersion: 'v1', subresource: 'log' },
        responseStatus: { metadata: {}, code: 200 },
      }),
      // Two objects whose keys are the same ('a/b/c/log' both ways): each record's object has the
      // parts its own request named, in both readers.
      get('slash-sub', { resource: 'pods', namespace: 'a', name: 'b', apiVersion: 'v1', subresource: 'c/log' }),
      get('slash-name', { resource: 'pods', namespace: 'a', name: 'b/c', apiVersion: 'v1', subresource: 'log' }),
      // One HorizontalPodAutoscaler read as autoscaling/v1 and v2: each record's object has its own apiVersion.
      get('hpa-v2', { resource: 'horizontalpodautoscalers', namespace: 'a', name: 'web', apiGroup: 'autoscaling', apiVersion: 'v2' }),
      get('hpa-v1', { resource: 'horizontalpodautoscalers', namespace: 'a', name: 'web', apiGroup: 'autoscaling', apiVersion: 'v1' }),
      // RequestResponse level: what a record keeps of the bodies comes back from the workers.
      rc('rr-update', {
        level: 'RequestResponse',
        verb: 'update',
        requestURI: '/api/v1/namespaces/a/pods/b/status',
        objectRef: { resource: 'pods', namespace: 'a', name: 'b', apiVersion: 'v1', subresource: 'status' },
        responseStatus: { metadata: {}, code: 200 },
        requestObject: { metadata: { name: 'b', resourceVersion: '5' }, status: { conditions: [{ type: 'Ready', lastTransitionTime: '2026-07-01T10:00:00Z' }] } },
        responseObject: { metadata: { name: 'b', resourceVersion: '6' }, status: { phase: 'Running' } },
      }),
      rc('rr-create', {
        level: 'RequestResponse',
        verb: 'create',
        requestURI: '/api/v1/namespaces/a/pods',
        objectRef: { resource: 'pods', namespace: 'a', apiVersion: 'v1' },
        responseStatus: { metadata: {}, code: 201 },
        requestObject: { metadata: { generateName: 'web-' } },
        responseObject: { metadata: { name: 'web-x7k2p', resourceVersion: '7' } },
      }),
      rc('rr-get', {
        level: 'RequestResponse',
        verb: 'get',
        requestURI: '/api/v1/namespaces/a/pods/b',
        objectRef: { resource: 'pods', namespace: 'a', name: 'b', apiVersion: 'v1' },
        responseStatus: { metadata: {}, code: 200 },
        responseObject: { kind: 'Pod', metadata: { name: 'b', resourceVersion: '8' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      }),
      rc('last-without-newline'),
    ];
    // Many copies with fresh IDs, so the file spans many runs and workers' answers interleave.
    const body: string[] = [];
    for (let k = 0; k < 400; k++) for (const l of lines) body.push(k === 0 ? l : l.replaceAll('"auditID":"', `"auditID":"${k}-`).replace('\ufeff', ''));
    // A legacy text line among JSON lines is read as one (kube-apiserver's `--audit-log-format=legacy`).
    body.splice(
      2000,
      0,
      '2026-07-01T10:00:00.123456Z AUDIT: id="6f1b2c3d-0000-4000-8000-000000000001" stage="ResponseComplete" ip="10.0.0.1" method="update" user="u" groups="" as="<self>" asgroups="<lookup>" namespace="ns" uri="/api/v1/namespaces/ns/configmaps/c" response="409"',
    );
    // Lines far past what the limit allows (3 bytes per character) are skipped while read,
    // also when they run across many ranges.
    for (const at of [100, 2500, 3900]) body.splice(at, 0, rc(`huge-${at}`, { userAgent: 'y'.repeat(40_000) }));
    writeFileSync(file, body.join('\n'));
    // Plain files are read by the workers in byte ranges: also with ranges so small that they
    // cut lines (and the over-long ones) everywhere, and with two workers taking turns.
    for (const [workers, rangeBytes] of [
      [2, 97],
      [3, 1000],
      [1, 4096],
    ] as const) {
      expectSame(await both(file, 2048, workers, rangeBytes));
    }
    // The reading thread decodes ranges itself while the workers are busy; with no workers it
    // decodes all of them, and must answer exactly what workers answer.
    const runs = async (workers: number, bytes = statSync(file).size): Promise<unknown[]> => {
      const out: unknown[] = [];
      const fd = openSync(file, 'r');
      try {
        for await (const { run, offset } of decodeRanges(file, fd, bytes, workers, 2048, 97)) {
          out.push({ offset, lines: run.lines, kinds: [...run.kinds], strings: run.strings, fallback: run.fallback, bodies: run.bodies });
        }
      } finally {
        closeSync(fd);
      }
      return out;
    };
    const alone = await runs(0);
    expect(alone.length).toBe(Math.ceil(statSync(file).size / 97));
    expect(alone).toEqual(await runs(1));
    // A file that grew after it was opened (here: known as 1,000 bytes) is read on to its end:
    // the same lines, in ranges cut elsewhere.
    const flat = (xs: unknown[]) => {
      const rs = xs as Array<{ offset: number; lines: number; kinds: number[]; strings: string[]; fallback: string[]; bodies: unknown[] }>;
      return {
        offset: rs.at(-1)!.offset,
        lines: rs.reduce((n, r) => n + r.lines, 0),
        kinds: rs.flatMap((r) => r.kinds),
        strings: rs.flatMap((r) => r.strings),
        fallback: rs.flatMap((r) => r.fallback),
        bodies: rs.flatMap((r) => r.bodies),
      };
    };
    expect(flat(await runs(1, 1000))).toEqual(flat(alone));
    const r = await both(file, 2048);
    expectSame(r);
    expect(r[1].stats[0]!.overlongLines).toBe(403);
    const s = r[1].stats[0]!;
    expect(s.format).toBe('jsonl');
    expect([s.lines, s.events, s.requests, s.badLines, s.overlongLines]).toEqual([8404, 6801, 6801, 400, 403]);
    const byId = new Map(r[1].records.map((x) => [x.auditID, x]));
    expect([byId.get('fm')!.fieldManager, byId.get('fm')!.dryRun]).toEqual(['müller', true]);
    expect([byId.get('fm-escaped')!.fieldManager, byId.get('fm-escaped')!.dryRun, byId.get('fm-escaped')!.isWrite]).toEqual(['kubectl', false, true]);
    expect([byId.get('7-dry')!.fieldManager, byId.get('7-dry')!.dryRun, byId.get('7-dry')!.isWrite]).toEqual(['', true, false]);
    expect([byId.get('log')!.latencyMs, byId.get('7-log')!.latencyMs, byId.get('7-log')!.object!.subresource]).toEqual([-1, -1, 'log']);
    expect(byId.get('7-dry')!.latencyMs).toBeGreaterThan(0);
    // The same key from other parts (a `/` in the name): `slash-name` asked for the long-running `log`.
    const [v2, v1] = [byId.get('hpa-v2')!.object!, byId.get('hpa-v1')!.object!];
    expect([v2.apiVersion, v1.apiVersion, v1.key]).toEqual(['v2', 'v1', v2.key]);
    const [sub, name] = [byId.get('slash-sub')!, byId.get('slash-name')!];
    expect([sub.object!.subresource, sub.latencyMs > 0, name.object!.subresource, name.latencyMs, name.object!.key]).toEqual(['c/log', true, 'log', -1, sub.object!.key]);
    expect(r[1].bad[0]).toEqual({ source: file, line: 5, reason: 'line longer than 2048 characters (--max-line-length): skipped' });
    expect(r[1].bad[1]!.line).toBe(6);
    expect(r[1].records[0]!.auditID).toBe('bom');
    // Every RequestResponse line was read fast (none fell back), with what it keeps of its bodies.
    expect(r[1].records.filter((x) => x.level === 'RequestResponse').length).toBe(1200);
    const rr = ['rr-update', '7-rr-update', 'rr-create', 'rr-get'].map((id) => byId.get(id)!);
    expect(rr.map((x) => [x.responseResourceVersion, x.body === null ? null : x.body.timestampFields, x.object!.name])).toEqual([
      ['6', ['lastTransitionTime'], 'b'],
      ['6', ['lastTransitionTime'], 'b'],
      ['7', null, 'web-x7k2p'],
      ['8', null, 'b'],
    ]);
    expect(rr[0]!.body!.content).toBe(rr[1]!.body!.content);
    expect(rr[0]!.body!.timestampFields).toBe(rr[1]!.body!.timestampFields); // one shared list
  });

  it('starts a worker dictionary over on its own when it fills: 45,000 objects written by two actors', async () => {
    // Past 20,000 entries the worker's largest dictionary, its objects', starts over (twice here)
    // while its actor and word dictionaries keep their ids: every record must still get its own
    // object and actor.
    const dir = tempDir();
    const file = path.join(dir, 'objects.log');
    const body: string[] = [];
    for (let i = 0; i < 45_000; i++) {
      body.push(
        eventLine({
          auditID: `id-${i}`,
          user: { username: i % 2 === 0 ? 'system:node:a' : 'system:node:b' },
          objectRef: { resource: 'pods', namespace: 'ns', name: `pod-${i}`, apiVersion: 'v1', subresource: 'status' },
        }),
      );
    }
    writeFileSync(file, body.join('\n') + '\n');
    const r = await both(file);
    expectSame(r);
    const records = r[1].records;
    expect(records.length).toBe(45_000);
    expect(records.filter((x, i) => x.object?.name !== `pod-${i}` || x.actor.username !== (i % 2 === 0 ? 'system:node:a' : 'system:node:b'))).toEqual([]);
  });

  it('decodes a range here only when it claims it before the worker does, and reads what a worker reads', async () => {
    // The claim protocol: a slot holds id + 1 while the request is open; one side swaps it out.
    const claims = new Int32Array(new SharedArrayBuffer(16));
    claims[0] = 7 + 1;
    expect(claimRange(claims, 0, 7, false)).toBe(true); // this thread first
    expect(claimRange(claims, 0, 7, true)).toBe(false); // the worker then skips it
    expect(claims[0]).toBe(0);
    claims[1] = 8 + 1;
    expect(claimRange(claims, 1, 8, true)).toBe(true); // the worker first
    expect(claimRange(claims, 1, 8, false)).toBe(false); // this thread then waits for its answer
    expect(claims[1]).toBe(-9);
    // A stale request (its slot given to a newer one) claims nothing.
    claims[2] = 4096 + 9 + 1;
    expect(claimRange(claims, 2, 9, true)).toBe(false);
    expect(claims[2]).toBe(4106);
    // While the worker starts, this thread claims the ranges as they come due (the first at
    // once); once the worker's answers come in time, it hands over. Either way the same runs,
    // none twice, none lost.
    const file = path.join(tempDir(), 'audit.log');
    writeFileSync(
      file,
      Array.from({ length: 20_000 }, (_, k) => eventLine({ auditID: `id-${k}`, objectRef: { resource: 'pods', namespace: 'ns', name: `p-${k % 300}` } })).join('\n') + '\n',
    );
    const size = statSync(file).size;
    const read = async (workers: number): Promise<{ by: number[]; ids: string[] }> => {
      const by: number[] = [];
      const ids: string[] = [];
      const fd = openSync(file, 'r');
      try {
        for await (const { run } of decodeRanges(file, fd, size, workers, 4096, 16 * 1024)) {
          by.push(run.worker!);
          for (let k = 0; k < run.strings.length; k += 2) ids.push(run.strings[k]!);
          // A slow consumer until the worker's first answer: the worker gets ahead meanwhile.
          if (workers > 0 && !by.includes(0)) await new Promise((resolve) => setTimeout(resolve, 2));
        }
      } finally {
        closeSync(fd);
      }
      return { by, ids };
    };
    const { by, ids } = await read(1);
    expect(ids).toEqual(Array.from({ length: 20_000 }, (_, k) => `id-${k}`));
    expect(ids).toEqual((await read(0)).ids);
    expect(by.length).toBe(Math.ceil(size / (16 * 1024)));
    expect(by[0]).toBe(1); // claimed here: the worker cannot have started yet
    expect(by.filter((w) => w === 0).length).toBeGreaterThan(0);
  });

  it('has a claim slot for every range out at once, however many workers (65: 4,160 out)', async () => {
    // Slots were once a fixed 4,096: with 65 workers a new request took the slot of one still
    // open, neither side could claim that one, and the reader waited for it forever.
    const file = path.join(tempDir(), 'audit.log');
    writeFileSync(file, Array.from({ length: 2000 }, (_, k) => eventLine({ auditID: `id-${k}` })).join('\n') + '\n');
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    const ids: string[] = [];
    let ranges = 0;
    try {
      for await (const { run } of decodeRanges(file, fd, size, 65, 4096, 200)) {
        ranges++;
        for (let k = 0; k < run.strings.length; k += 2) ids.push(run.strings[k]!);
      }
    } finally {
      closeSync(fd);
    }
    expect(ranges).toBe(Math.ceil(size / 200));
    expect(ranges).toBeGreaterThan(65 * 64);
    expect(ids).toEqual(Array.from({ length: 2000 }, (_, k) => `id-${k}`));
  }, 60_000);

  it('lets the event loop turn at least every 16 ranges it consumes, answers at hand or not', async () => {
    // V8 keeps every WeakRef target read (the normalizer's previous generation) alive until the
    // event loop turns; a reader that only ever ran microtasks grew past 1 GB on a log of a
    // million distinct objects. The first ranges are decoded here, with no wait in between.
    const file = path.join(tempDir(), 'audit.log');
    writeFileSync(file, Array.from({ length: 300 }, (_, k) => eventLine({ auditID: `id-${k}` })).join('\n') + '\n');
    const size = statSync(file).size;
    let ticks = 0;
    let on = true;
    const tick = (): void => {
      ticks++;
      if (on) setImmediate(tick);
    };
    setImmediate(tick);
    const seen: number[] = [];
    const fd = openSync(file, 'r');
    try {
      for await (const r of decodeRanges(file, fd, size, 1, 4096, 300)) {
        void r;
        seen.push(ticks);
      }
    } finally {
      on = false;
      closeSync(fd);
    }
    expect(seen.length).toBe(Math.ceil(size / 300));
    expect(seen.length).toBeGreaterThan(100);
    for (let k = 16; k < seen.length; k++) expect(seen[k]!, `range ${k}`).toBeGreaterThan(seen[k - 16]!);
  });

  it('rejects a file whose first lines are not audit events as the single-threaded reader does, counting over-long lines in order', async () => {
    const dir = tempDir();
    const event = eventLine({ auditID: 'e' });
    const write = (name: string, head: string[]): string => {
      const file = path.join(dir, name);
      writeFileSync(file, [...head, ...Array.from({ length: 50 }, () => event)].join('\n') + '\n');
      return file;
    };
    const garbage = Array.from({ length: 999 }, (_, k) => `garbage ${k}`);
    // 999 bad lines and an over-long one: its first 1000 lines hold no event.
    const rejected = write('rejected.log', [...garbage, 'x'.repeat(5000)]);
    // 998 bad lines, an event, then an over-long one: accepted.
    const accepted = write('accepted.log', [...garbage.slice(1), event, 'x'.repeat(5000)]);
    const opts = (workers: number) => ({ maxLineLength: 4096, sniffLines: 1000, parallel: { workers, minBytes: 0, rangeBytes: 4096 } });
    for (const workers of [0, 1]) {
      await expect(readChains(await resolveInputs([rejected], { stdin: Readable.from([]) }), opts(workers))).rejects.toThrow(
        'none of its first 1000 non-blank lines is an audit event',
      );
      const ok = await readChains(await resolveInputs([accepted], { stdin: Readable.from([]) }), opts(workers));
      expect([ok.stats[0]!.badLines, ok.stats[0]!.overlongLines, ok.records.length]).toEqual([998, 1, 51]);
    }
  });

  it('says which file a worker could not read', async () => {
    // A directory opens, but does not read: EISDIR, as a worker (or this thread) meets it.
    const fd = openSync(tempDir(), 'r');
    try {
      for (const workers of [0, 1]) {
        const read = async (): Promise<void> => {
          for await (const _ of decodeRanges('audit.log', fd, 1000, workers, 1024, 100)) void _;
        };
        await expect(read()).rejects.toThrow(InputError);
        await expect(read()).rejects.toThrow('Cannot read "audit.log": is a directory.');
      }
    } finally {
      closeSync(fd);
    }
  });

  it('reads through the descriptor it opened: a file renamed and replaced meanwhile is still the one read', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'audit.log');
    writeFileSync(file, Array.from({ length: 300 }, (_, k) => eventLine({ auditID: `old-${k}` })).join('\n') + '\n');
    const [chain] = await resolveInputs([file], { stdin: Readable.from([]) });
    const read = readChain(chain!, new Normalizer(), { maxLineLength: 1 << 20, sniffLines: 1000, parallel: { workers: 1, minBytes: 0, rangeBytes: 1000 } }, new BadLineLog(10));
    const ids: string[] = [];
    for await (const batch of read.batches) {
      if (ids.length === 0) {
        // Rotated while being read: renamed, and a new file in its place.
        renameSync(file, file + '.1');
        writeFileSync(file, eventLine({ auditID: 'new' }) + '\n');
      }
      ids.push(...batch.map((r) => r.auditID));
    }
    expect(ids.length).toBe(300);
    expect(ids[299]).toBe('old-299');
  });

  it.skipIf(!present)('reads every JSON-lines file of the public corpus as the single-threaded reader does', async () => {
    let files = 0;
    for (const f of readdirSync(CORPUS).sort()) {
      if (!f.endsWith('.log')) continue;
      files++;
      expectSame(await both(path.join(CORPUS, f)));
    }
    expect(files).toBeGreaterThanOrEqual(5);
  });
});
