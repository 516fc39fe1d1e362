/**
 * The native line scanner (`native/scan.cc`) against the JavaScript fast path it stands in for:
 * on every line of the committed fixtures and the public corpus, on fuzzed variants and on
 * hand-made edge cases, decoded inside an ASCII piece, `fastDecode` gives the same answer and the
 * same fields with the scanner as without it (and fast.test.ts checks the JavaScript path against
 * the full path). Also counts what the scanner itself read, so a scanner that answered nothing
 * could not pass.
 */
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/generator/random.js';
import { FAST_FALLBACK, FAST_FINAL, FAST_NONFINAL, fastDecode, nativeLines, newFastFields, useNativeScanner, type FastResult } from '../../src/decoding/fast.js';
import { NATIVE_ID_ACTOR, NATIVE_IDS, NATIVE_LINE_FINAL, NATIVE_LINE_JS, NATIVE_LINE_MISS, NATIVE_LINE_NONFINAL, nativeScanner } from '../../src/decoding/native.js';
import { work, WorkState, type WorkResult } from '../../src/ingest/work-lines.js';
import { CORPUS, corpusLines, incident, mutate, sample, withBodies } from './fuzz-lines.js';

const built = nativeScanner !== null;
if (!built) {
  console.warn('auditstorm tests: the native scanner (build/Release/auditstorm.node) was not built here (no C++ compiler at install?); its agreement tests are skipped');
}
// `npm install` / `npm ci` build it with node-gyp and go on without it when that fails (no
// compiler, no make). CI's machine has everything: there, a missing scanner is a failure.
it.runIf(process.env.CI === 'true')('the native scanner was built (CI)', () => {
  expect(built).toBe(true);
});

afterAll(() => {
  useNativeScanner(true);
});

/**
 * Lines the scanner itself read (`scan` answered 1), lines `scanLines` answered itself (final and
 * non-final) and lines it left to the per-line path, and ids it was told to keep, counted around
 * its calls.
 */
let scanned = 0;
let batched = 0;
let missed = 0;
let leftOver = 0;
let remembered = 0;
if (nativeScanner !== null) {
  const scan = nativeScanner.scan.bind(nativeScanner);
  const scanLines = nativeScanner.scanLines.bind(nativeScanner);
  const remember = nativeScanner.remember.bind(nativeScanner);
  const n = nativeScanner as {
    scan: (at: number, end: number) => number;
    scanLines: (at: number, end: number, last: boolean, maxLength: number) => number;
    remember: (kind: number, id: number) => number;
  };
  n.scan = (at, end) => {
    const r = scan(at, end);
    scanned += r;
    return r;
  };
  n.scanLines = (at, end, last, maxLength) => {
    const r = scanLines(at, end, last, maxLength);
    for (let k = 0; k < r; k++) {
      const kind = nativeLines[3 * k]!;
      if (kind === NATIVE_LINE_FINAL || kind === NATIVE_LINE_NONFINAL || kind === NATIVE_LINE_MISS) batched++;
      if (kind === NATIVE_LINE_MISS) missed++;
      else if (kind === NATIVE_LINE_JS) leftOver++;
    }
    return r;
  };
  n.remember = (kind, id) => {
    const r = remember(kind, id);
    remembered += r;
    return r;
  };
}

const withNative = newFastFields();
const withoutNative = newFastFields();
let turn = 0;
const BEFORE = ['', '{"kind":"Event"}\n', 'x\r\n'];
const AFTER = ['', '\n', '\r\n"ll"}\\"\n'];

/** Decodes `line` inside an ASCII piece with and without the scanner; they must agree. */
function agree(line: string): FastResult {
  const before = BEFORE[turn % BEFORE.length]!;
  const after = AFTER[Math.floor(turn / BEFORE.length) % AFTER.length]!;
  turn++;
  const piece = before + line + after;
  const bytes = Buffer.from(piece, 'latin1');
  useNativeScanner(false);
  const want = fastDecode(line, withoutNative, piece, before.length, bytes);
  useNativeScanner(true);
  const got = fastDecode(line, withNative, piece, before.length, Buffer.from(piece, 'latin1'));
  expect(got, line).toBe(want);
  if (want === FAST_FINAL) expect(withNative, line).toEqual(withoutNative);
  return got;
}

// eslint-disable-next-line no-control-regex
const isAscii = (l: string): boolean => /^[\x00-\x7f]*$/.test(l);

describe.runIf(built)('native scanner agrees with the JavaScript fast path', () => {
  it('reads every line of the committed fixtures itself, with the same answers', () => {
    const all = [...sample, ...incident];
    const before = scanned;
    const tally = { final: 0, nonfinal: 0, fallback: 0 };
    for (const line of all) {
      const r = agree(line);
      if (r === FAST_FINAL) tally.final++;
      else if (r === FAST_NONFINAL) tally.nonfinal++;
      else tally.fallback++;
    }
    // kube-apiserver's own layout, ASCII: the scanner reads every one of them.
    expect(scanned - before).toBe(all.length);
    expect(tally).toEqual({
      final: all.filter((l) => l.includes('"stage":"ResponseComplete"')).length,
      nonfinal: all.filter((l) => l.includes('"stage":"RequestReceived"') || l.includes('"stage":"ResponseStarted"')).length,
      fallback: 0,
    });
  });

  it.skipIf(!existsSync(CORPUS))('on every ASCII line of every public corpus file', () => {
    let lines = 0;
    const before = scanned;
    for (const line of corpusLines()) {
      if (!isAscii(line)) continue;
      lines++;
      agree(line);
    }
    expect(lines).toBeGreaterThan(100);
    expect(scanned - before).toBeGreaterThan(0);
  });

  it("on 30,000 fuzzed variants of fixture lines, half of them in kube-apiserver's layout", () => {
    const rng = createRng('native-scanner-fuzz');
    const base = [...sample.slice(0, 3000), ...incident.slice(0, 1000)];
    const before = scanned;
    const seen = { ascii: 0, escaped: 0, final: 0, nonfinal: 0, fallback: 0 };
    for (let k = 0; k < 30_000; k++) {
      const line = mutate(base[rng.int(0, base.length - 1)]!, rng, k % 2 === 0);
      if (!isAscii(line)) continue;
      seen.ascii++;
      if (line.includes('\\')) seen.escaped++;
      const r = agree(line);
      if (r === FAST_FINAL) seen.final++;
      else if (r === FAST_NONFINAL) seen.nonfinal++;
      else seen.fallback++;
    }
    // Seeded: the same variants every run. The scanner reads nearly a fifth of them itself
    // (escaped strings among them) and leaves the rest to JavaScript; every outcome is exercised.
    expect({ ...seen, scanned: scanned - before }).toEqual({ ascii: 24_794, escaped: 14_731, final: 6_203, nonfinal: 3_609, fallback: 14_982, scanned: 4_541 });
  });

  it("on 10,000 fuzzed variants of lines logged at RequestResponse level, half in kube-apiserver's layout", () => {
    const rng = createRng('native-scanner-bodies');
    const base = [...sample.slice(0, 2000), ...incident.slice(0, 500)].map((l) => withBodies(l, rng)).filter((l) => l.includes('Object":'));
    const before = scanned;
    const seen = { ascii: 0, final: 0, digested: 0, responseRv: 0, nonfinal: 0, fallback: 0 };
    for (let k = 0; k < 10_000; k++) {
      const line = k % 4 === 0 ? base[k % base.length]! : mutate(base[rng.int(0, base.length - 1)]!, rng, k % 2 === 0);
      if (!isAscii(line)) continue;
      seen.ascii++;
      const r = agree(line);
      if (r === FAST_FINAL) {
        seen.final++;
        if (withNative.body !== null) seen.digested++;
        if (withNative.responseResourceVersion !== '') seen.responseRv++;
      } else if (r === FAST_NONFINAL) seen.nonfinal++;
      else seen.fallback++;
    }
    // Seeded: the same variants every run; the scanner reads most of the unchanged lines itself.
    expect({ ...seen, scanned: scanned - before }).toEqual({ ascii: 4616, final: 2525, digested: 1800, responseRv: 1696, nonfinal: 0, fallback: 2091, scanned: 1742 });
  });

  it('on hand-made edge cases, reading the ones it is sure of', () => {
    const ev = (extra: string, stage = 'ResponseComplete'): string =>
      `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"${stage}","requestURI":"/api/v1/namespaces/ns/pods/p?a=1\\u0026b=2","verb":"get","user":{"username":"u","groups":["g"]},"sourceIPs":["10.0.0.1","::1"]${extra},"objectRef":{"resource":"pods","namespace":"ns","name":"p","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:00:00.001000Z"}`;
    // [line, answer, whether the scanner reads it itself]
    const cases: Array<[string, FastResult, boolean]> = [
      [ev(''), FAST_FINAL, true],
      [ev('', 'RequestReceived'), FAST_NONFINAL, true],
      [ev('', 'ResponseStarted'), FAST_NONFINAL, true],
      [ev('', 'Panic'), FAST_FINAL, true],
      [ev('', 'Unknown'), FAST_FALLBACK, false],
      [ev(',"userAgent":"caf\\u00e9 \\"q\\" \\/ \\\\ \\b\\f\\n\\r\\t"'), FAST_FINAL, true],
      [ev(',"userAgent":"bad \\x escape"'), FAST_FALLBACK, false],
      [ev(',"userAgent":"bad \\u00g1 escape"'), FAST_FALLBACK, false],
      [ev(',"userAgent":"ends in a backslash \\'), FAST_FALLBACK, false],
      [ev(',"userAgent":"tab\tand \\n escape"'), FAST_FALLBACK, false], // JSON.parse rejects the raw tab
      [ev(',"userAgent":"tab\tonly"'), FAST_FINAL, true], // not looked for without escapes (as in JavaScript)
      [ev(',"userAgent":null'), FAST_FALLBACK, false],
      [ev('').replace('"groups":["g"]', `"groups":${'['.repeat(70)}${']'.repeat(70)}`), FAST_FINAL, false], // deeper than the scanner goes
      [ev('').replace('"groups":["g"]', `"groups":${'['.repeat(20)}1${']'.repeat(20)}`), FAST_FINAL, true],
      [ev('').replace('"groups":["g"]', '"groups":["g"],"username":"v"'), FAST_FALLBACK, false],
      [ev('').replace('"groups":["g"]', '"gro\\u0075ps":["g"]'), FAST_FALLBACK, false], // an escaped key: the full path
      [ev('').replace('"code":200', '"code":409,"reason":"Conflict","message":"the object has been modified: \\"p\\""'), FAST_FINAL, true],
      [ev('').replace('"code":200', '"code":200,"code":409'), FAST_FALLBACK, false],
      [ev('').replace('"code":200', '"code":2.0e2'), FAST_FINAL, false], // not a plain integer: JavaScript
      [ev('').replace('"code":200', '"code":-0'), FAST_FALLBACK, false], // not an HTTP status: the full path calls it bad
      [ev('').replace('"code":200', '"code":0200'), FAST_FALLBACK, false],
      [ev('').replace('"code":200', '"code":1234567890'), FAST_FALLBACK, false],
      [ev('').replace('"code":200', '"code":1000'), FAST_FALLBACK, false],
      [ev('').replace('"code":200', '"code":99'), FAST_FALLBACK, false],
      [ev('').replace('"code":200', '"code":"200"'), FAST_FALLBACK, false],
      [ev('').replace('"level":"Metadata"', '"level":"Met\\u0061data"'), FAST_FINAL, false],
      [ev('').replace('"level":"Metadata"', '"level":"Everything"'), FAST_FALLBACK, false],
      [ev('').replace(',"sourceIPs"', ',"impersonatedUser":{"username":"x","groups":[]},"sourceIPs"'), FAST_FINAL, true],
      [ev(',"impersonatedUser":{"username":"x"}'), FAST_FINAL, false], // out of kube-apiserver's order: JavaScript
      [ev(',"userAgent":"k"').replace('"name":"p"', '"name":"p","uid":"u-1"'), FAST_FINAL, true],
      [ev('').replace('"resource":"pods",', ''), FAST_FALLBACK, false],
      [ev('').replace('"code":200}', '"code":200},"requestObject":{"a":[1,{"b":null}]}'), FAST_FINAL, true], // a final event's body: read again in JavaScript
      [ev('', 'RequestReceived').replace('"code":200}', '"code":200},"requestObject":{"a":1}'), FAST_NONFINAL, true],
      [ev('').replace('"code":200}', '"code":200},"requestObject":null'), FAST_FINAL, true],
      [ev('').replace('"code":200}', '"code":200},"responseObject":{"metadata":{"name":"p","resourceVersion":"\\u0039"},"spec":{}}'), FAST_FINAL, true],
      [ev('').replace('"code":200}', '"code":200},"responseObject":{"metadata":{"resourceVersion":"1"},"metadata":[]}'), FAST_FINAL, true],
      [ev('').replace('"verb":"get"', '"verb":"update"').replace('"code":200}', '"code":200},"requestObject":{"status":{"t":"2026-01-01T00:00:00Z"}}'), FAST_FINAL, true],
      // A create named only by its response: read again in JavaScript, which names the object.
      [
        ev('').replace('"verb":"get"', '"verb":"create"').replace(',"name":"p"', '').replace('"code":200}', '"code":201},"responseObject":{"metadata":{"name":"p-x1"}}'),
        FAST_FINAL,
        true,
      ],
      [ev('').replace('"code":200}', '"code":200},"responseObject":{"meta\\u0064ata":{}}'), FAST_FALLBACK, false], // an escaped key
      [ev('').replace('"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z"', '"requestReceivedTimestamp":null'), FAST_FINAL, true],
      [ev('').replace('2026-01-01T00:00:00.001000Z', '2026-02-30T00:00:00Z'), FAST_FALLBACK, true], // read, then judged in JavaScript
      [ev('').slice(0, -1) + ',"annotations":{"k":"v\\"w","n":-1.5e+3,"t":true,"f":false,"z":null}}', FAST_FINAL, true],
      [ev('').slice(0, -1), FAST_FALLBACK, false],
      [ev('') + ' ', FAST_FINAL, false], // whitespace after: JavaScript
      [ev('').replace('"verb":"get"', '"verb":"get","verb":"list"'), FAST_FALLBACK, false],
    ];
    for (const [line, want, itself] of cases) {
      const before = scanned;
      expect(agree(line), line).toBe(want);
      expect(scanned - before, line).toBe(itself ? 1 : 0);
    }
  });

  it('reads times to the same value as parseTimestamp, and leaves the ones it cannot read to it', () => {
    const line = sample.find((l) => l.includes('"stage":"ResponseComplete"') && l.includes('"requestReceivedTimestamp":"'))!;
    const rng = createRng('native-times');
    const times = [
      '2026-06-01T00:00:00.000003Z',
      '2026-06-01T00:00:00Z',
      '2026-06-01t23:59:59.999999z',
      '2026-06-01 12:00:00.5Z',
      '2024-02-29T00:00:00.123456789Z',
      '2024-02-29T00:00:00.1234567891234Z',
      '2023-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2000-02-29T00:00:00Z',
      '2026-06-01T00:00:60Z',
      '2026-06-01T24:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-06-01T00:00:00.Z',
      '2026-06-01T00:00:00+02:00',
      '2026-06-01T00:00:00.25-05:30',
      '2026-06-01T00:00:00+2:00',
      '2026-06-01T00:00:00+24:00',
      '2026-06-01T00:00:00+02:60',
      '2026-06-01T00:00:00',
      '2026-06-01T00:00:00ZZ',
      '0001-01-01T00:00:00Z',
      '0099-12-31T23:59:59.999Z',
      '2199-12-31T23:59:59.999999Z',
      '2200-01-01T00:00:00Z',
      '1999-12-31T23:59:59Z',
      'not a time at all, no',
      '2026-06-01T00:00:00.00000\\u0033Z',
      '',
    ];
    for (let k = 0; k < 400; k++) {
      // Random valid-looking ones too: every field, fraction length and zone.
      const p2 = (v: number): string => String(v).padStart(2, '0');
      const frac = rng.chance(0.8) ? '.' + String(rng.int(0, 999_999_999)).padStart(9, '0').slice(0, rng.int(1, 9)) : '';
      const zone = rng.chance(0.7) ? 'Z' : `${rng.chance(0.5) ? '+' : '-'}${p2(rng.int(0, 23))}:${p2(rng.int(0, 59))}`;
      times.push(`${rng.int(2000, 2199)}-${p2(rng.int(1, 12))}-${p2(rng.int(1, 31))}T${p2(rng.int(0, 23))}:${p2(rng.int(0, 59))}:${p2(rng.int(0, 60))}${frac}${zone}`);
    }
    const stage = /"stageTimestamp":"[^"]*"/;
    const received = /"requestReceivedTimestamp":"[^"]*"/;
    const answers = { final: 0, fallback: 0 };
    for (const t of times) {
      for (const variant of [line.replace(stage, `"stageTimestamp":"${t}"`), line.replace(received, `"requestReceivedTimestamp":"${t}"`)]) {
        if (agree(variant) === FAST_FINAL) answers.final++;
        else answers.fallback++;
      }
    }
    // Valid times give records (a received time after the stage time is clamped, not an error).
    expect(answers).toEqual({ final: 820, fallback: 38 });
  });

  it('keeps what it read within the line, whatever the piece holds around it', () => {
    const line = sample.find((l) => l.includes('"stage":"ResponseComplete"'))!;
    // The same line cut short inside a piece whose next bytes would complete it.
    const cut = line.slice(0, -2);
    const piece = cut + line.slice(-2) + '\n';
    const f = newFastFields();
    const before = scanned;
    expect(fastDecode(cut, f, piece, 0, Buffer.from(piece, 'latin1'))).toBe(FAST_FALLBACK);
    expect(fastDecode(line, f, piece, 0, Buffer.from(piece, 'latin1'))).toBe(FAST_FINAL);
    expect(scanned - before).toBe(1);
  });

  it('gives a decoder the same answers, ids and dictionary entries with its cache as without it', () => {
    // Runs of fixture lines and fuzzed variants in kube-apiserver's layout (escaped values among
    // them, and non-ASCII lines, whose pieces are read in JavaScript with the same dictionaries),
    // decoded one after the other by one decoder, as a worker decodes its runs; then again.
    const rng = createRng('native-dictionary');
    const lines = [...sample.slice(0, 1500), ...incident.slice(0, 500)];
    for (let k = 0; lines.length < 5000; k++) {
      const line = mutate(lines[rng.int(0, 1999)]!, rng, true);
      if (isAscii(line)) lines.push(line);
    }
    // One piece read in JavaScript (not ASCII), in the middle, with values the scanner saw before and after.
    lines.splice(
      2500,
      0,
      '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"é","stage":"ResponseComplete","requestURI":"/","verb":"get","user":{"username":"ü"},"stageTimestamp":"2026-01-01T00:00:00Z"}',
      ...sample.slice(0, 100),
    );
    lines.push(
      '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"é","stage":"ResponseComplete","requestURI":"/","verb":"get","user":{"username":"ü"},"stageTimestamp":"2026-01-01T00:00:00Z"}',
    );
    const text = Buffer.from(lines.join('\n') + '\n', 'utf8');
    const runs: Buffer[] = [];
    for (let at = 0; at < text.length;) {
      let end = text.indexOf(10, Math.min(text.length - 1, at + 200_000));
      if (end === -1) end = text.length - 1;
      runs.push(text.subarray(at, end + 1));
      at = end + 1;
    }
    const decodeAll = (state: WorkState, first: number): WorkResult[] =>
      runs.map((bytes, k) => work({ id: k, bytes, atEnd: k === runs.length - 1, first: k === 0 ? first : 2, maxLength: 1 << 20 }, state));
    const js = new WorkState();
    const cached = new WorkState();
    useNativeScanner(false);
    const want = [...decodeAll(js, 1), ...decodeAll(js, 2)];
    useNativeScanner(true);
    const before = { scanned, batched, leftOver, remembered, missed };
    const firstPass = decodeAll(cached, 1);
    const afterFirst = { scanned, batched, leftOver, remembered, missed };
    const got = [...firstPass, ...decodeAll(cached, 2)];
    expect(got).toEqual(want);
    // Each distinct value read natively was looked up once, then kept; the second pass over the
    // same lines (same dictionaries) found them all in the cache.
    // The scanner read 2,764 lines each time, most in whole pieces (`scanLines`), the first time
    // 132 of them with a value new to the dictionary (`NATIVE_LINE_MISS`: JavaScript cut the new
    // values out of the piece, looked them up and had the scanner remember them, without reading
    // the line again), and on the per-line path the lines with an escaped auditID,
    // resourceVersion or requestURI (44).
    expect({ scanned: afterFirst.scanned - before.scanned, batched: afterFirst.batched - before.batched, missed: afterFirst.missed - before.missed }).toEqual({
      scanned: 44,
      batched: 2_720,
      missed: 132,
    });
    expect({ scanned: scanned - afterFirst.scanned, batched: batched - afterFirst.batched, missed: missed - afterFirst.missed }).toEqual({
      scanned: 44,
      batched: 2_720,
      missed: 0,
    });
    expect([afterFirst.leftOver - before.leftOver, leftOver - afterFirst.leftOver]).toEqual([2_274, 2_274]);
    expect(afterFirst.remembered - before.remembered).toBe(205);
    expect(remembered).toBe(afterFirst.remembered);
    // A new member (`first` 1) starts the dictionaries and their cache over: the same answers again.
    useNativeScanner(false);
    const wantAgain = decodeAll(js, 1);
    useNativeScanner(true);
    expect(decodeAll(cached, 1)).toEqual(wantAgain);
    expect(remembered - afterFirst.remembered).toBe(205);
  });

  it('starts the largest dictionary over on its own when they hold more than their limit, with its cache', () => {
    // Dictionaries of at most 50 entries together, and 600 lines: the scanner's cache forgets only
    // the ids of the dictionary that starts over, so its answers stay those of the JavaScript path.
    const decodeAll = (name: (i: number) => string, user: (i: number) => string): { got: WorkResult[]; state: WorkState } => {
      const lines: string[] = [];
      for (let i = 0; i < 600; i++) {
        lines.push(
          JSON.stringify({
            kind: 'Event',
            apiVersion: 'audit.k8s.io/v1',
            level: 'Metadata',
            auditID: `a-${i}`,
            stage: 'ResponseComplete',
            requestURI: `/api/v1/namespaces/ns/pods/${name(i)}/status`,
            verb: 'patch',
            user: { username: user(i) },
            sourceIPs: [`10.0.0.${i % 3}`],
            userAgent: 'kubelet/v1.31.0',
            objectRef: { resource: 'pods', namespace: 'ns', name: name(i), apiVersion: 'v1', subresource: 'status' },
            responseStatus: { metadata: {}, code: 200 },
            requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z',
            stageTimestamp: '2026-01-01T00:00:00.001000Z',
          }),
        );
      }
      const runs: Buffer[] = [];
      for (let k = 0; k < lines.length; k += 40) runs.push(Buffer.from(lines.slice(k, k + 40).join('\n') + '\n', 'utf8'));
      const each = (state: WorkState): WorkResult[] =>
        runs.map((bytes, k) => work({ id: k, bytes, atEnd: k === runs.length - 1, first: k === 0 ? 1 : 1 + 40 * k, maxLength: 1 << 20 }, state));
      useNativeScanner(false);
      const want = each(new WorkState(false, 50));
      useNativeScanner(true);
      const state = new WorkState(false, 50);
      const got = each(state);
      expect(got).toEqual(want);
      return { got, state };
    };
    const defined = (got: WorkResult[], field: 'actors' | 'objects', width: number): number => got.map((r) => r[field].length / width).reduce((a, b) => a + b);
    // 600 objects of 2 actors (3 source IPs): past 50 entries together the largest dictionary
    // starts over before the next run, here the objects' after every second run of 40, 7 times
    // after the first run's start, which started all three; the 2 actors are defined once.
    const objects = decodeAll(
      (i) => `p-${i}`,
      (i) => `system:node:n${i % 2}`,
    );
    expect([objects.state.actorEpoch, objects.state.objectEpoch, objects.state.wordEpoch]).toEqual([1, 8, 1]);
    expect([defined(objects.got, 'actors', 2), defined(objects.got, 'objects', 6)]).toEqual([2, 600]);
    // 600 actors writing 2 objects: the actors' dictionary is the one that starts over.
    const actors = decodeAll(
      (i) => `p-${i % 2}`,
      (i) => `system:node:n${i}`,
    );
    expect([actors.state.actorEpoch, actors.state.objectEpoch, actors.state.wordEpoch]).toEqual([8, 1, 1]);
    expect([defined(actors.got, 'actors', 2), defined(actors.got, 'objects', 6)]).toEqual([600, 2]);
  });

  it('reads whole pieces as the per-line path reads their lines, however they are cut', () => {
    // Runs of kube-apiserver lines mixed with what cutLines treats specially: CRLF, a lone CR,
    // blank and whitespace-only lines, prefixed lines, lines past maxLength, a missing last
    // newline, 3,000 empty lines in a row (past the 1,024 lines one scanLines call answers), and
    // URIs with and without the query parameters a record keeps.
    const rng = createRng('native-pieces');
    const finals = sample.filter((l) => l.includes('"stage":"ResponseComplete"')).slice(0, 400);
    const others = sample.filter((l) => !l.includes('"stage":"ResponseComplete"')).slice(0, 200);
    const withQuery = finals
      .slice(0, 40)
      .map((l, k) =>
        l.replace(/"requestURI":"([^"?]*)(\?[^"]*)?"/, k % 2 === 0 ? '"requestURI":"$1?fieldManager=kubectl-edit&dryRun=All"' : '"requestURI":"$1?dryRun=None&fieldManager=a%2Bb"'),
      );
    const panic = finals[3]!.replace('"stage":"ResponseComplete"', '"stage":"Panic"');
    const dryRunOnly = finals[4]!.replace(/"requestURI":"([^"?]*)(\?[^"]*)?"/, '"requestURI":"$1?dryRun=All"');
    const specials = ['', ' ', '\t  ', '\r', 'host-1 ' + finals[0]!, 'not json', '{"kind":"Event"}', finals[1]! + '\r', '\r' + finals[2]!, panic, dryRunOnly];
    const parts: string[] = [];
    for (let k = 0; k < 2_000; k++) {
      const r = rng.int(0, 9);
      if (r < 5) parts.push(finals[rng.int(0, finals.length - 1)]!);
      else if (r < 7) parts.push(others[rng.int(0, others.length - 1)]!);
      else if (r < 8) parts.push(withQuery[rng.int(0, withQuery.length - 1)]!);
      else parts.push(specials[rng.int(0, specials.length - 1)]!);
      if (k === 1_000) for (let e = 0; e < 3_000; e++) parts.push(e % 2 === 0 ? '' : '\r');
    }
    const text = Buffer.from(parts.join('\n'), 'latin1'); // no newline after the last line
    const decode = (state: WorkState, maxLength: number): WorkResult[] => {
      const out: WorkResult[] = [];
      for (let at = 0, id = 0; at < text.length; id++) {
        let end = text.indexOf(10, Math.min(text.length - 1, at + 150_000));
        end = end === -1 ? text.length : end + 1;
        out.push(work({ id, bytes: text.subarray(at, end), atEnd: end === text.length, first: at === 0 ? 1 : 2, maxLength }, state));
        at = end;
      }
      return out;
    };
    for (const maxLength of [1 << 20, 700]) {
      useNativeScanner(false);
      const want = decode(new WorkState(), maxLength);
      useNativeScanner(true);
      const before = { batched, leftOver };
      const got = decode(new WorkState(), maxLength);
      expect(got).toEqual(want);
      expect(got.reduce((a, r) => a + r.lines, 0)).toBe(parts.length);
      // Most events were answered in whole pieces, the specials and first sightings line by line;
      // with maxLength 700 most events are over-long (answered as such, counted in neither).
      const counts = { batched: batched - before.batched, leftOver: leftOver - before.leftOver };
      expect(counts).toEqual(maxLength === 700 ? { batched: 40, leftOver: 131 } : { batched: 1_724, leftOver: 199 });
    }
  });

  it('stays safe when its handles are let go of, its output is written, or its piece moves away', () => {
    const n = nativeScanner!;
    const line = sample.find((l) => l.includes('"stage":"ResponseComplete"'))!;
    const out = new Int32Array(n.outputSize);
    const times = new Float64Array(2);
    // The scanner's own output arrays (fast.ts's) are set again at the end.
    try {
      expect(n.setOutput(out, times)).toBe(1);
      // A dictionary in use is held by the scanner, even when JavaScript drops its handle.
      n.useDict(n.newDict());
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      gc();
      const piece = Buffer.allocUnsafeSlow(line.length); // a buffer of its own (a pooled one cannot be transferred)
      piece.write(line, 'latin1');
      n.setPiece(piece);
      expect(n.scan(0, piece.length)).toBe(1);
      expect(out[NATIVE_IDS + NATIVE_ID_ACTOR]).toBe(-1);
      // What `remember` keeps comes from the scanner's copy of the line's offsets, not `out`.
      out.fill(1e8);
      expect(n.remember(NATIVE_ID_ACTOR, 7)).toBe(1);
      expect(n.scan(0, piece.length)).toBe(1);
      expect(out[NATIVE_IDS + NATIVE_ID_ACTOR]).toBe(7);
      // A piece whose buffer was transferred is not read.
      structuredClone(piece.buffer, { transfer: [piece.buffer] });
      expect(n.scan(0, line.length)).toBe(0);
      expect(n.scanLines(0, line.length, true, 1 << 20)).toBe(0);
      expect(n.setPiece(null)).toBe(0);
      expect(n.scan(0, 1)).toBe(0);
    } finally {
      n.useDict(null);
      useNativeScanner(false);
      useNativeScanner(true);
    }
  });
});
