/**
 * The JSON-lines fast path (`src/decoding/fast.ts`) against the full path (`JSON.parse` +
 * `decodeObject` + `Normalizer.normalize`): on every line of the public corpus, every line of the
 * committed fixtures, and seeded fuzzed variants of them (keys reordered at every level, escapes,
 * unicode, whitespace, missing, null, retyped, duplicated and extra fields, cut lines), whenever
 * the fast path answers, the full path gives the same answer and the same record.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeLine } from '../../src/decoding/decode.js';
import { FAST_FALLBACK, FAST_FINAL, FAST_NONFINAL, fastDecode, newFastFields, type FastResult } from '../../src/decoding/fast.js';
import { Normalizer } from '../../src/decoding/normalize.js';
import type { RequestRecord } from '../../src/decoding/record.js';
import { createRng } from '../../src/generator/random.js';
import { CORPUS, corpusLines, incident, mutate, sample, withBodies } from './fuzz-lines.js';

const present = existsSync(CORPUS);
if (!present) console.warn(`auditstorm tests: ${CORPUS} not found; the fast-path corpus test is skipped (it runs where ../shared exists)`);

/** A record as plain data (actor and object by value), comparable across normalizers. */
function plain(r: RequestRecord): unknown {
  return { ...r, actor: { ...r.actor }, object: r.object === null ? null : { ...r.object } };
}

interface Outcome {
  fast: FastResult;
  full: 'final' | 'nonfinal' | 'bad';
}

const fastNorm = new Normalizer();
const fullNorm = new Normalizer();
const fields = newFastFields();

const inPiece = newFastFields();
let pieces = 0;
/** Text around a line in a piece: what follows must never be read as part of the line. */
const AROUND: ReadonlyArray<[string, string]> = [
  ['', ''],
  ['{"kind":"Event"}\n', '\n'],
  ['x\n', '\r\n"ll"}\n'],
  ['', '\n  ,"a":1}]"\\'],
  ['{}\n{}\n', '\n{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata"'],
];

/**
 * Decodes `line` as cut from a piece of text (what the parallel reader's workers do: see
 * `cutLines`), with its bytes when it is ASCII, and checks the answer is the one for the line
 * alone.
 */
function samePiece(line: string, fast: FastResult): void {
  const [before, after] = AROUND[pieces++ % AROUND.length]!;
  const piece = before + line + after;
  // eslint-disable-next-line no-control-regex
  const ascii = /^[\x00-\x7f]*$/.test(piece) ? Buffer.from(piece, 'latin1') : null;
  expect(fastDecode(line, inPiece, piece, before.length, ascii), line).toBe(fast);
  if (fast === FAST_FINAL) expect(inPiece, line).toEqual(fields);
}

/** Decodes `line` both ways and checks they agree whenever the fast path answers. */
function agree(line: string): Outcome {
  const fast = fastDecode(line, fields);
  samePiece(line, fast);
  const d = decodeLine(line);
  const full = !d.ok ? 'bad' : d.event.stage === 'ResponseComplete' || d.event.stage === 'Panic' ? 'final' : 'nonfinal';
  if (fast === FAST_FINAL) {
    expect(full, line).toBe('final');
    const want = fullNorm.normalize((d as { ok: true; event: Parameters<Normalizer['normalize']>[0] }).event)!;
    expect(plain(fastNorm.normalizeFast(fields)), line).toEqual(plain(want));
  } else if (fast === FAST_NONFINAL) {
    expect(full, line).toBe('nonfinal');
  }
  return { fast, full };
}

describe('fast path agrees with the full path', () => {
  it('on every line of the committed fixtures, reading all of them itself', () => {
    const tally = { final: 0, nonfinal: 0, fallback: 0 };
    for (const line of [...sample, ...incident]) {
      const { fast } = agree(line);
      if (fast === FAST_FINAL) tally.final++;
      else if (fast === FAST_NONFINAL) tally.nonfinal++;
      else tally.fallback++;
    }
    // The fixtures are kube-apiserver-shaped Metadata-level lines: every one is read fast.
    const all = [...sample, ...incident];
    expect(tally).toEqual({
      final: all.filter((l) => l.includes('"stage":"ResponseComplete"')).length,
      nonfinal: all.filter((l) => l.includes('"stage":"RequestReceived"') || l.includes('"stage":"ResponseStarted"')).length,
      fallback: 0,
    });
    expect(tally.final + tally.nonfinal).toBe(sample.length + incident.length);
  });

  it.skipIf(!present)('on every line of every public corpus file', () => {
    let lines = 0;
    let answered = 0;
    for (const line of corpusLines()) {
      lines++;
      if (agree(line).fast !== FAST_FALLBACK) answered++;
    }
    expect(lines).toBeGreaterThan(100);
    expect(answered).toBeGreaterThan(0);
  });

  it('on 20,000 fuzzed variants of fixture lines', () => {
    const rng = createRng('fast-path-fuzz');
    const base = [...sample.slice(0, 3000), ...incident.slice(0, 1000)];
    const seen = { fastAnswered: 0, fullBad: 0, fallback: 0 };
    for (let k = 0; k < 20_000; k++) {
      const line = mutate(base[rng.int(0, base.length - 1)]!, rng);
      const o = agree(line);
      if (o.fast !== FAST_FALLBACK) seen.fastAnswered++;
      else seen.fallback++;
      if (o.full === 'bad') seen.fullBad++;
    }
    // Both outcomes are exercised: many variants stay fast, many fall back, some are bad lines.
    expect(seen.fastAnswered).toBeGreaterThan(2000);
    expect(seen.fallback).toBeGreaterThan(2000);
    expect(seen.fullBad).toBeGreaterThan(500);
  });

  it('on the lines of two pieces with the same text, one after the other', () => {
    // What a backslash is searched for once per piece must not carry over to the next piece.
    const final = sample.filter((l) => l.includes('"stage":"ResponseComplete"'));
    const escaped = final[0]!.replace('"auditID":"', '"auditID":"\\u0041');
    const plainLine = final[1]!;
    const text = escaped + '\n' + plainLine + '\n';
    const want = newFastFields();
    expect(fastDecode(escaped, want)).toBe(FAST_FINAL);
    expect(want.auditID.startsWith('A')).toBe(true);
    for (const piece of [text, (' ' + text).slice(1)]) {
      const got = newFastFields();
      expect(fastDecode(escaped, got, piece, 0, Buffer.from(piece, 'latin1'))).toBe(FAST_FINAL);
      expect(got.auditID).toBe(want.auditID);
      expect(fastDecode(plainLine, got, piece, escaped.length + 1, Buffer.from(piece, 'latin1'))).toBe(FAST_FINAL);
    }
  });

  it('on hand-made edge cases', () => {
    const ev = (extra: string, stage = 'ResponseComplete'): string =>
      `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"${stage}","requestURI":"/api/v1/namespaces/ns/pods/p","verb":"get","user":{"username":"u"},${extra}"objectRef":{"resource":"pods","namespace":"ns","name":"p","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:00:00.001000Z"}`;
    const cases: Array<[string, FastResult]> = [
      [ev(''), FAST_FINAL],
      [ev('', 'RequestReceived'), FAST_NONFINAL],
      [ev('"x":{"user":{"username":"evil"},"sourceIPs":["6.6.6.6"]},'), FAST_FINAL],
      [ev('"userAgent":"caf\\u00e9 \\"q\\" \\/",'), FAST_FINAL],
      [ev('"userAgent":"\u00e9\u{1F600}",'), FAST_FINAL],
      [ev('"userAgent":"bad \\x escape",'), FAST_FALLBACK],
      [ev('"userAgent":null,'), FAST_FALLBACK],
      [ev('"verb":"list",'), FAST_FALLBACK], // a duplicated key: JSON.parse keeps the last
      [ev('').replace('"username":"u"', '"username":"u","groups":[],"username":"v"'), FAST_FALLBACK],
      [ev('').replace('"user":{"username":"u"}', '"user":{"groups":["g"],"username":"u","username":"v"}'), FAST_FALLBACK],
      [ev('').replace('"name":"p"', '"name":"p","name":"q"'), FAST_FALLBACK],
      [ev('').replace('"code":200', '"code":200,"code":409'), FAST_FALLBACK],
      [ev('"n":01,'), FAST_FALLBACK],
      [ev('"n":-1.5e+3,'), FAST_FINAL],
      [ev('"n":[1,],'), FAST_FALLBACK],
      [ev('').slice(0, -1), FAST_FALLBACK],
      [ev('') + 'x', FAST_FALLBACK],
      [ev('').replace('"audit.k8s.io/v1"', '"audit.k8s.io/v1beta1"'), FAST_FALLBACK],
      [ev('').replace('"resource":"pods",', ''), FAST_FALLBACK],
      [ev('"requestObject":{"a":1},'), FAST_FINAL], // a get's request body: skipped
      [ev('"requestObject":{"a":1},', 'RequestReceived'), FAST_NONFINAL],
      [ev('"requestObject":null,'), FAST_FINAL],
      [ev('').replace('"code":200', '"code":"200"'), FAST_FALLBACK],
      [ev('').replace('2026-01-01T00:00:00.001000Z', '1999-01-01T00:00:00Z'), FAST_FALLBACK],
      [ev('').replace('"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z"', '"requestReceivedTimestamp":null'), FAST_FINAL],
      [' \t' + ev('') + ' ', FAST_FINAL],
    ];
    for (const [line, want] of cases) {
      expect(agree(line).fast, line).toBe(want);
    }
  });

  it('on logged bodies: what a record keeps of them is read, the rest skipped', () => {
    const ev = (verb: string, bodies: string, name = '"name":"p",'): string =>
      `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns/pods/p/status","verb":"${verb}","user":{"username":"u"},"objectRef":{"resource":"pods","namespace":"ns",${name}"apiVersion":"v1","subresource":"status"},"responseStatus":{"metadata":{},"code":200},${bodies}"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:00:00.001000Z"}`;
    const status = '{"status":{"conditions":[{"type":"Ready","lastTransitionTime":"2026-01-01T00:00:00Z"}],"n":[1,2.5,null,true]}}';
    const response = '{"kind":"Pod","metadata":{"name":"p","resourceVersion":"42","uid":"x"},"spec":{"a":{"b":[{}]}}}';
    // Each case: the line, the fast answer, and the record's responseResourceVersion, whether it has a body digest, and its object's name.
    const cases: Array<[string, FastResult, string, boolean, string]> = [
      [ev('update', `"requestObject":${status},"responseObject":${response},`), FAST_FINAL, '42', true, 'p'],
      [ev('patch', `"requestObject":[{"op":"replace","path":"/status/x","value":"2026-01-01T00:00:00Z"}],`), FAST_FINAL, '', true, 'p'],
      [ev('patch', '"requestObject":"skipped-too-big-size-object",'), FAST_FINAL, '', false, 'p'],
      [ev('get', `"responseObject":${response},`), FAST_FINAL, '42', false, 'p'],
      [ev('get', `"requestObject":${status},"responseObject":[1],`), FAST_FINAL, '', false, 'p'], // a get's request body is not digested
      [ev('create', `"requestObject":${status},"responseObject":${response},`, ''), FAST_FINAL, '42', false, 'p'], // named by the response
      [ev('create', `"responseObject":{"metadata":{"name":7}},`, ''), FAST_FINAL, '', false, ''],
      // A later duplicate of a key wins, as in JSON.parse: the second metadata has no resourceVersion.
      [ev('get', '"responseObject":{"metadata":{"resourceVersion":"1"},"metadata":{"name":"q"}},'), FAST_FINAL, '', false, 'p'],
      [ev('get', '"responseObject":{"metadata":{"resourceVersion":"1","resourceVersion":2}},'), FAST_FINAL, '', false, 'p'],
      [ev('get', '"responseObject":{"metadata":{"resourceVersion":"\\u0031\\"2"}},'), FAST_FINAL, '1"2', false, 'p'],
      [ev('get', '"responseObject":{"metadata":null},'), FAST_FINAL, '', false, 'p'],
      [ev('get', '"responseObject":{"meta\\u0064ata":{"resourceVersion":"1"}},'), FAST_FALLBACK, '', false, ''], // an escaped key: the full path
      [ev('update', '"requestObject":{"a":"raw \\u0001 escaped is fine"},'), FAST_FINAL, '', true, 'p'],
      [ev('update', '"requestObject":{"a":"raw \u0001 control"},'), FAST_FALLBACK, '', false, ''], // JSON.parse rejects it: a bad line
      [ev('update', '"requestObject":{"a":[1,}]},'), FAST_FALLBACK, '', false, ''],
      [ev('update', '"requestObject":{"a":1},"requestObject":{"a":2},'), FAST_FALLBACK, '', false, ''],
    ];
    for (const [line, want, rrv, digested, name] of cases) {
      expect(agree(line).fast, line).toBe(want);
      if (want !== FAST_FINAL) continue;
      const r = fastNorm.normalizeFast(fields);
      expect([r.responseResourceVersion, r.body !== null, r.object?.name], line).toEqual([rrv, digested, name]);
    }
  });

  it('reads a raw control character inside a skipped body as the event it holds (the one known difference)', () => {
    // JSON.parse rejects a raw U+0000–U+001F inside a string; the fast path does not look for them
    // in strings it skips or copies (fast.ts), in a body as anywhere else. kube-apiserver escapes them.
    const line = (body: string): string =>
      `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns/configmaps/c","verb":"get","user":{"username":"u"},"objectRef":{"resource":"configmaps","namespace":"ns","name":"c","apiVersion":"v1"},"responseStatus":{"code":200},${body},"requestReceivedTimestamp":"2026-12-06T10:00:00.000000Z","stageTimestamp":"2026-12-06T10:00:00.001000Z"}`;
    const skipped = line('"responseObject":{"data":{"k":"a\tb"},"metadata":{"resourceVersion":"7"}}');
    const f = newFastFields();
    expect([fastDecode(skipped, f), f.responseResourceVersion, decodeLine(skipped).ok]).toEqual([FAST_FINAL, '7', false]);
    // An update's request body is parsed alone, so there JSON.parse decides: the full path counts it bad.
    const parsed = line('"requestObject":{"k":"a\tb"}').replace('"verb":"get"', '"verb":"update"');
    expect([fastDecode(parsed, f), decodeLine(parsed).ok]).toEqual([FAST_FALLBACK, false]);
  });

  it('on 10,000 fuzzed variants of lines logged at RequestResponse level', () => {
    const rng = createRng('fast-path-bodies');
    const base = [...sample.slice(0, 2000), ...incident.slice(0, 500)].map((l) => withBodies(l, rng)).filter((l) => l.includes('Object":'));
    const seen = { base: base.length, fastAnswered: 0, digested: 0, responseRv: 0, fullBad: 0, fallback: 0 };
    for (let k = 0; k < 10_000; k++) {
      const line = k % 4 === 0 ? base[k % base.length]! : mutate(base[rng.int(0, base.length - 1)]!, rng);
      const o = agree(line);
      if (o.fast === FAST_FINAL) {
        const r = fastNorm.normalizeFast(fields);
        if (r.body !== null) seen.digested++;
        if (r.responseResourceVersion !== '') seen.responseRv++;
      }
      if (o.fast !== FAST_FALLBACK) seen.fastAnswered++;
      else seen.fallback++;
      if (o.full === 'bad') seen.fullBad++;
    }
    // Seeded: the same variants every run. Over half are read fast, most of those with a digest or
    // a response resourceVersion; every outcome is exercised.
    expect(seen).toEqual({ base: 1490, fastAnswered: 5454, digested: 3884, responseRv: 3886, fullBad: 3011, fallback: 4546 });
  });
});
