/**
 * Hostile decoding: values no kube-apiserver writes, or writes only at its limits, must end as a
 * decoded event or one counted bad line with its reason — never as an internal error that ends
 * the run, and never at the cost of the valid events around them.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { serve, type LiveServer } from '../../src/live/serve.js';
import { digestBody } from '../../src/decoding/body.js';
import { useNativeScanner } from '../../src/decoding/fast.js';
import { nativeScanner } from '../../src/decoding/native.js';
import { resolveInputs } from '../../src/ingest/sources.js';
import { ReportSchema, type Report } from '../../src/report/schema.js';
import { fakeIO } from '../cli/helpers.js';
import { DEFAULT_READ, eventLine, readChains, removeTempDirs, tempDir, type ReadResult } from '../parser/helpers.js';

afterAll(removeTempDirs);

const NO_STDIN = { stdin: Readable.from([]) };

/** JSON text of a value `depth` containers deep: objects and arrays in turn, a number inside. */
function nestedText(depth: number): string {
  const half = depth / 2;
  return '{"a":['.repeat(half) + '1' + ']}'.repeat(half);
}

/** A JSON line of the conflict event with `member` (raw JSON text) inserted where kube-apiserver writes bodies. */
function lineWith(auditID: string, member: string): string {
  const line = eventLine({ auditID, level: 'RequestResponse' });
  const at = line.indexOf(',"requestReceivedTimestamp"');
  return `${line.slice(0, at)},${member}${line.slice(at)}`;
}

/** Two valid events around `middle`. */
function around(middle: string): string {
  return `${eventLine({ auditID: 'before' })}\n${middle}\n${eventLine({ auditID: 'after' })}\n`;
}

function fileOf(name: string, text: string): string {
  const file = join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

async function readFile(file: string, opts = DEFAULT_READ): Promise<ReadResult> {
  return readChains(await resolveInputs([file], NO_STDIN), opts);
}

const scanners = nativeScanner === null ? [false] : [true, false];

describe('deep nesting', () => {
  afterEach(() => {
    useNativeScanner(true);
  });

  for (const depth of [6000, 10_000, 100_000]) {
    for (const field of ['requestObject', 'responseObject', 'metadata']) {
      for (const native of scanners) {
        it(`reads a ${field} nested ${depth} deep among valid lines (native scanner ${native ? 'on' : 'off'})`, async () => {
          useNativeScanner(native);
          const deep = nestedText(depth);
          const r = await readFile(fileOf('deep.log', around(lineWith('deep', `"${field}":${deep}`))));
          expect(r.badCount).toBe(0);
          expect(r.stats.map((s) => [s.lines, s.events, s.requests])).toEqual([[3, 3, 3]]);
          expect(r.records.map((x) => x.auditID)).toEqual(['before', 'deep', 'after']);
          // An update's requestObject is digested whole, at any depth.
          const body = r.records[1]!.body;
          if (field === 'requestObject') expect(body).toEqual(digestBody(JSON.parse(deep)));
          else expect(body).toBeNull();
        });
      }
    }
  }

  it('reads a 100,000-deep requestObject on the parallel reader', async () => {
    const deep = nestedText(100_000);
    const file = fileOf('deep.log', around(lineWith('deep', `"requestObject":${deep}`)));
    const r = await readFile(file, { ...DEFAULT_READ, parallel: { workers: 1, minBytes: 0 } });
    expect([r.badCount, r.records.length, r.stats[0]!.events]).toEqual([0, 3, 3]);
    expect(r.records[1]!.body).toEqual(digestBody(JSON.parse(deep)));
  });

  it('digests deep bodies in linear time, content as the recursive walk did', () => {
    // Contents as the recursive walk gave them (it reached about 4,000 levels); timestamps deeper
    // than 256 levels are stamped with a path hash kept level by level.
    const expected: Record<number, [string, string, string, string]> = {
      300: ['bb4671062eb82d84', 'bc4d87dd8c4d79ac4fb37131a971e6c5', 'c75a2afc8ef904b5', '8e40a143ceca309132619c0be024f736'],
      1000: ['0395f0620e8b05e4', '3ed5426f4d433f6eb171c47114a5b714', '7cf00abf80fe93a5', 'c89d5b95d8a88e296bc21308d6bc3139'],
      3000: ['102494020a6e249d', 'daebb0d473547048837d62b6daa4cf86', '5db832f8cb395732', '6bcb5d0444db4f60bcfe29bc0d5d6eb1'],
      100_000: ['6b353ab082402181', '152a2b0df48f5c36711ccc50c73f1e33', '887bfc5247bd365e', '30f2795ccf30034e494531bb3b51ea7b'],
    };
    for (const [depth, [content, timestamps, patchContent, patchTimestamps]] of Object.entries(expected)) {
      const d = Number(depth);
      expect(digestBody(deepObject(d))).toEqual({ content, timestamps, timestampFields: ['lastTransitionTime', 'observedTime'] });
      expect(digestBody(deepPatch(d))).toEqual({
        content: patchContent,
        timestamps: patchTimestamps,
        timestampFields: ['lastTransitionTime', 'observedTime'],
      });
    }
    // Only a timestamp deep down changed: same content, other timestamps.
    const a = digestBody(deepObject(100_000))!;
    const b = deepObject(100_000);
    let v = b.data as Record<string, unknown>;
    for (let k = 0; k < 50_000; k += 2) v = (v[`k${k % 7}`] as unknown[])[0] as Record<string, unknown>;
    v.lastTransitionTime = 'changed';
    const digest = digestBody(b)!;
    expect(digest.content).toBe(a.content);
    expect(digest.timestamps).not.toBe(a.timestamps);
    // The same timestamp one level up (another path) is another stamp.
    delete v.lastTransitionTime;
    (b.data as Record<string, unknown>).lastTransitionTime = 'changed';
    expect(digestBody(b)!.timestamps).not.toBe(digest.timestamps);
  });

  it('reads deep values in JSON documents: an array, an EventList, arrays in arrays', async () => {
    const deep = nestedText(100_000);
    const events = [eventLine({ auditID: 'before' }), lineWith('deep', `"requestObject":${deep},"responseObject":${deep}`), eventLine({ auditID: 'after' })];
    const array = await readFile(fileOf('array.json', `[\n${events.join(',\n')}\n]\n`));
    expect([array.badCount, array.records.map((x) => x.auditID), array.stats[0]!.format]).toEqual([0, ['before', 'deep', 'after'], 'json-array']);
    const list = await readFile(fileOf('list.json', `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[${events.join(',')}]}`));
    expect([list.badCount, list.records.map((x) => x.auditID), list.stats[0]!.format]).toEqual([0, ['before', 'deep', 'after'], 'eventlist']);
    // A line holding an event 100,000 arrays down, and one of nothing but empty arrays.
    const inner = `${'['.repeat(100_000)}${eventLine({ auditID: 'inner' })}${']'.repeat(100_000)}`;
    const lines = await readFile(fileOf('arrays.log', around(`${inner}\n${'['.repeat(100_000)}${']'.repeat(100_000)}`)));
    expect(lines.records.map((x) => x.auditID)).toEqual(['before', 'inner', 'after']);
    expect(lines.bad).toEqual([{ source: expect.stringContaining('arrays.log'), line: 3, reason: 'JSON but not an audit event: an empty array' }]);
    expect(lines.badCount).toBe(1);
  });

  it('names a deep value in a reason without stringifying it', async () => {
    const line = eventLine({ auditID: 'deep' }).replace('"kind":"Event"', `"kind":${nestedText(100_000)}`);
    const r = await readFile(fileOf('kind.log', around(line)));
    expect(r.records.map((x) => x.auditID)).toEqual(['before', 'after']);
    expect(r.badCount).toBe(1);
    expect(r.bad[0]!.reason).toBe('JSON but not an audit event: kind an object nested too deeply to show');
  });

  it('counts a YAML document nested past the yaml parser as one bad document', async () => {
    const doc = (id: string) =>
      `kind: Event\napiVersion: audit.k8s.io/v1\nlevel: Request\nauditID: ${id}\nstage: ResponseComplete\n` +
      `requestURI: /api/v1/namespaces/ns/configmaps/cm\nverb: update\nobjectRef: {resource: configmaps, namespace: ns, name: cm, apiVersion: v1}\n` +
      `responseStatus: {code: 200}\nstageTimestamp: "2026-07-01T10:00:00.131002Z"\n`;
    const text = `${doc('before')}---\n${doc('deep')}requestObject: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n---\n${doc('after')}`;
    const r = await readFile(fileOf('deep.yaml', text));
    expect(r.records.map((x) => x.auditID)).toEqual(['before', 'after']);
    expect(r.bad.map((b) => [b.line, b.reason])).toEqual([[12, 'YAML document nested too deeply to read (collections inside collections, hundreds deep)']]);
    expect(r.badCount).toBe(1);
  });

  it('analyze --format json reports the deep lines of a file', async () => {
    const deep = nestedText(100_000);
    const file = fileOf('deep.log', around([lineWith('r', `"requestObject":${deep}`), lineWith('s', `"responseObject":${deep}`), lineWith('m', `"metadata":${deep}`)].join('\n')));
    const io = fakeIO();
    expect(await main(['analyze', file, '--format', 'json', '--threads', '0'], io)).toBe(0);
    const input = (JSON.parse(io.stdout.text) as { input: { lines: number; events: number; requests: number; badLines: number } }).input;
    expect([input.lines, input.events, input.requests, input.badLines]).toEqual([5, 5, 5, 0]);
    expect(io.stderr.text).not.toContain('internal error');
  });

  describe('serve', () => {
    const servers: LiveServer[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    it('takes an EventList whose item nests 100,000 deep', async () => {
      const s = await serve({}, { port: 0, tickMs: 50 }, { onAlert: () => {}, residentMemory: () => 42 });
      servers.push(s);
      const deep = nestedText(100_000);
      const items = [eventLine({ auditID: 'before' }), lineWith('deep', `"requestObject":${deep},"responseObject":${deep}`), eventLine({ auditID: 'after' })];
      const body = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[${items.join(',')}]}`;
      const res = await fetch(`http://127.0.0.1:${s.port}/audit`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect([res.status, await res.text()]).toEqual([200, '{"events":3,"badItems":0}\n']);
    });
  });
});

/** A value `depth` levels deep: objects and arrays in turn, with timestamp fields and scalars at every level. */
function nested(depth: number): unknown {
  let v: unknown = { leaf: 'x', observedTime: [{ t: 1 }] };
  for (let k = depth - 1; k >= 0; k--) {
    v = k % 2 === 0 ? { [`k${k % 7}`]: v, lastTransitionTime: `2026-03-14T09:00:${String(k % 60).padStart(2, '0')}Z`, n: k } : [v, k, true, null];
  }
  return v;
}

/** A ConfigMap with a deep `data` and a deep timestamp value (volatile metadata at the top). */
function deepObject(depth: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'ns', resourceVersion: '5', managedFields: [{ manager: 'm' }] },
    data: nested(depth),
    status: { conditions: [{ type: 'Ready', lastTransitionTime: nested(depth) }] },
  };
}

/** A JSON patch: an optimistic-lock test, and deep values for a content path and a timestamp path. */
function deepPatch(depth: number): unknown[] {
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: '5' },
    { op: 'replace', path: '/spec/x', value: nested(depth) },
    { op: 'replace', path: '/status/lastTransitionTime', value: nested(depth) },
  ];
}

/** `responseStatus.code` values that are not an integer HTTP status, as JSON text and as the reason shows them. */
const BAD_CODES: ReadonlyArray<[string, string]> = [
  ['1.5', '1.5'],
  ['1e300', '1e+300'],
  ['1e400', 'Infinity'],
  ['-1', '-1'],
  ['-409', '-409'],
  ['0', '0'],
  ['99', '99'],
  ['1000', '1000'],
  ['4294967296', '4294967296'],
];

/** The conflict event with `responseStatus.code` as the raw JSON `code`. */
function codeLine(auditID: string, code: string): string {
  return eventLine({ auditID }).replace('"code":409', `"code":${code}`);
}

/** Valid lines (two of them with codes spelled unusually) around one line per bad code. */
function codesLog(): string {
  const bad = BAD_CODES.map(([code], k) => codeLine(`bad-${k}`, code));
  return around([...bad, codeLine('float', '409.0'), codeLine('exponent', '4.09e2')].join('\n'));
}

const BAD_CODE_REASONS = BAD_CODES.map(([, shown]) => `malformed audit event: responseStatus.code ${shown} is not an integer HTTP status (100–999)`);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('status codes', () => {
  afterEach(() => {
    useNativeScanner(true);
  });

  for (const native of scanners) {
    it(`counts a code that is not an integer HTTP status as a bad line (native scanner ${native ? 'on' : 'off'})`, async () => {
      useNativeScanner(native);
      const r = await readFile(fileOf('codes.log', codesLog()));
      expect(r.bad.map((b) => [b.line, b.reason])).toEqual(BAD_CODE_REASONS.map((reason, k) => [k + 2, reason]));
      expect(r.badCount).toBe(BAD_CODES.length);
      expect(r.records.map((x) => [x.auditID, x.code])).toEqual([
        ['before', 409],
        ['float', 409],
        ['exponent', 409],
        ['after', 409],
      ]);
      expect([r.stats[0]!.lines, r.stats[0]!.events]).toEqual([13, 4]);
    });
  }

  it('analyze --format json and -o x.json write schema-valid reports', async () => {
    const file = fileOf('codes.log', codesLog());
    const out = join(tempDir(), 'x.json');
    const io = fakeIO();
    expect(await main(['analyze', file, '--format', 'json', '-o', out], io)).toBe(0);
    expect(io.stderr.text).not.toContain('internal error');
    for (const text of [io.stdout.text, readFileSync(out, 'utf8')]) {
      const report = ReportSchema.parse(JSON.parse(text));
      expect([report.input.events, report.input.requests, report.input.badLines]).toEqual([4, 4, BAD_CODES.length]);
      expect(report.input.badLineSamples.map((b) => b.reason)).toEqual(BAD_CODE_REASONS);
      expect(report.summaries.requestsByVerbResourceCode).toEqual([{ verb: 'update', resource: 'deployments.apps/status', code: 409, count: 4 }]);
    }
  });

  it('watch prints a schema-valid final report (the built CLI)', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'auditstorm.js'), 'watch', '--format', 'ndjson', '-'], { cwd: ROOT, stdio: 'pipe' });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    child.stdin.end(codesLog());
    expect([await exit, err]).toEqual([0, '']);
    const last = JSON.parse(out.trimEnd().split('\n').at(-1)!) as { type: string; report: unknown };
    expect(last.type).toBe('report');
    const report = ReportSchema.parse(last.report);
    expect([report.input.events, report.input.badLines]).toEqual([4, BAD_CODES.length]);
  }, 30_000);

  describe('serve', () => {
    const servers: LiveServer[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    it('counts such items as bad and serves a schema-valid /report', async () => {
      const s = await serve({}, { port: 0, tickMs: 50 }, { onAlert: () => {}, residentMemory: () => 42 });
      servers.push(s);
      const items = codesLog().trimEnd().split('\n');
      const body = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[${items.join(',')}]}`;
      const url = `http://127.0.0.1:${s.port}`;
      const res = await fetch(`${url}/audit`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect([res.status, await res.text()]).toEqual([200, `{"events":4,"badItems":${BAD_CODES.length}}\n`]);
      const report = await fetch(`${url}/report`);
      expect(report.status).toBe(200);
      const parsed: Report = ReportSchema.parse(await report.json());
      expect([parsed.input.events, parsed.input.badLines]).toEqual([4, BAD_CODES.length]);
    });
  });
});
