/**
 * The native line scanner (`native/scan.cc`) against the JavaScript fast path it stands in for:
 * on every line of the committed fixtures and the public corpus, on fuzzed variants and on
 * hand-made edge cases, decoded inside an ASCII piece, `fastDecode` gives the same answer and the
 * same fields with the scanner as without it (and fast.test.ts checks the JavaScript path against
 * the full path). Also counts what the scanner itself read, so a scanner that answered nothing
 * could not pass.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/generator/random.js';
import { FAST_FALLBACK, FAST_FINAL, FAST_NONFINAL, fastDecode, newFastFields, useNativeScanner, type FastResult } from '../../src/parser/fast.js';
import { nativeScanner } from '../../src/parser/native.js';
import { CORPUS, incident, linesOf, mutate, sample } from './fuzz-lines.js';

const built = nativeScanner !== null;
if (!built) {
  console.warn('auditstorm tests: the native scanner (build/Release/auditstorm.node) was not built here (no C++ compiler at install?); its agreement tests are skipped');
}
// `npm install` / `npm ci` build it with node-gyp wherever a C++ compiler is on the PATH (CI's
// machine has one): there, a missing scanner is a failure, not a skip.
it('the native scanner was built wherever a C++ compiler is at hand', () => {
  const compiler = spawnSync('c++', ['--version'], { stdio: 'ignore' }).status === 0;
  expect(built).toBe(compiler);
});

afterAll(() => {
  useNativeScanner(true);
});

/** Lines the scanner itself read (answered 1), counted around its `scan`. */
let scanned = 0;
if (nativeScanner !== null) {
  const scan = nativeScanner.scan.bind(nativeScanner);
  (nativeScanner as { scan: (at: number, end: number) => number }).scan = (at, end) => {
    const r = scan(at, end);
    scanned += r;
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
    for (const file of readdirSync(CORPUS).sort()) {
      if (file === 'SOURCES.md') continue;
      const text = readFileSync(path.join(CORPUS, file), 'utf8');
      const all = linesOf(text);
      try {
        const doc = JSON.parse(text) as unknown;
        for (const item of Array.isArray(doc) ? doc : [doc]) all.push(JSON.stringify(item));
      } catch {
        /* not one JSON document */
      }
      for (const line of all) {
        if (!isAscii(line)) continue;
        lines++;
        agree(line);
      }
    }
    expect(lines).toBeGreaterThan(100);
    expect(scanned - before).toBeGreaterThan(0);
  });

  it('on 30,000 fuzzed variants of fixture lines, half of them in kube-apiserver\'s layout', () => {
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
    expect({ ...seen, scanned: scanned - before }).toEqual({ ascii: 24_794, escaped: 14_731, final: 6_206, nonfinal: 3_609, fallback: 14_979, scanned: 4_541 });
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
      [ev('').replace('"code":200', '"code":-0'), FAST_FINAL, false],
      [ev('').replace('"code":200', '"code":0200'), FAST_FALLBACK, false],
      [ev('').replace('"code":200', '"code":1234567890'), FAST_FINAL, false],
      [ev('').replace('"code":200', '"code":"200"'), FAST_FALLBACK, false],
      [ev('').replace('"level":"Metadata"', '"level":"Met\\u0061data"'), FAST_FINAL, false],
      [ev('').replace('"level":"Metadata"', '"level":"Everything"'), FAST_FALLBACK, false],
      [ev('').replace(',"sourceIPs"', ',"impersonatedUser":{"username":"x","groups":[]},"sourceIPs"'), FAST_FINAL, true],
      [ev(',"impersonatedUser":{"username":"x"}'), FAST_FINAL, false], // out of kube-apiserver's order: JavaScript
      [ev(',"userAgent":"k"').replace('"name":"p"', '"name":"p","uid":"u-1"'), FAST_FINAL, true],
      [ev('').replace('"resource":"pods",', ''), FAST_FALLBACK, false],
      [ev('').replace('"code":200}', '"code":200},"requestObject":{"a":[1,{"b":null}]}'), FAST_FALLBACK, true], // a body: the full path
      [ev('', 'RequestReceived').replace('"code":200}', '"code":200},"requestObject":{"a":1}'), FAST_NONFINAL, true],
      [ev('').replace('"code":200}', '"code":200},"requestObject":null'), FAST_FINAL, true],
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
});
