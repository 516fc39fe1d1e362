/**
 * The JSON-lines fast path (`src/parser/fast.ts`) against the full path (`JSON.parse` +
 * `decodeObject` + `Normalizer.normalize`): on every line of the public corpus, every line of the
 * committed fixtures, and seeded fuzzed variants of them (keys reordered at every level, escapes,
 * unicode, whitespace, missing, null, retyped, duplicated and extra fields, cut lines), whenever
 * the fast path answers, the full path gives the same answer and the same record.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeLine } from '../../src/parser/decode.js';
import { FAST_FALLBACK, FAST_FINAL, FAST_NONFINAL, fastDecode, newFastFields, type FastResult } from '../../src/parser/fast.js';
import { Normalizer } from '../../src/parser/normalize.js';
import type { RequestRecord } from '../../src/parser/record.js';
import { createRng, type Rng } from '../../src/generator/random.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = path.resolve(repoRoot, '../shared/corpus/public');
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

function linesOf(text: string): string[] {
  return text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).filter((l) => l.trim() !== '');
}

const sample = linesOf(gunzipSync(readFileSync(path.join(repoRoot, 'fixtures/sample/audit.log.gz'))).toString('utf8'));
const incident = linesOf(readFileSync(path.join(repoRoot, 'fixtures/incident/payment-core.log'), 'utf8'));

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
    for (const file of readdirSync(CORPUS).sort()) {
      if (file === 'SOURCES.md') continue;
      const text = readFileSync(path.join(CORPUS, file), 'utf8');
      const all = linesOf(text);
      // Single pretty-printed documents: also their compact form, as a JSON-lines log would hold it.
      try {
        const doc = JSON.parse(text) as unknown;
        const items = Array.isArray(doc) ? doc : [doc];
        for (const item of items) all.push(JSON.stringify(item));
      } catch {
        /* not one JSON document */
      }
      for (const line of all) {
        lines++;
        if (agree(line).fast !== FAST_FALLBACK) answered++;
      }
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
      [ev('"requestObject":{"a":1},'), FAST_FALLBACK],
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
});

// ---- the fuzzer ----

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[rng.int(0, xs.length - 1)]!;
}

function shuffle<T>(rng: Rng, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

const ODD_STRINGS = ['é', 'ü-ñ', '日本', '\u{1F600}', 'a"b', 'a\\b', '</script>', '\u2028', 'x&y=1', ''];

/** Changes one value somewhere in `v` (in place where it is an object). */
function mutateValue(v: Json, rng: Rng, depth: number): Json {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    const what = rng.int(0, 9);
    if (what === 0 && keys.length > 0) delete v[pick(rng, keys)]; // missing field
    else if (what === 1 && keys.length > 0) v[pick(rng, keys)] = null; // null field
    else if (what === 2) v[pick(rng, ['extra', 'username', 'sourceIPs', 'objectRef', 'stage', 'code', 'timestamp', 'metadata'])] = pick<Json>(rng, [1, 'x', null, [], {}, { username: 'evil', code: 500 }, ['1.2.3.4']]); // extra field
    else if (what === 3 && keys.length > 0) {
      const k = pick(rng, keys);
      v[k] = pick<Json>(rng, [0, true, 'str', [v[k] ?? null], { v: v[k] ?? null }]); // retyped
    } else if (what <= 6 && keys.length > 0 && depth < 3) {
      const k = pick(rng, keys);
      v[k] = mutateValue(v[k]!, rng, depth + 1);
    } else if (keys.length > 0) {
      const k = pick(rng, keys);
      if (typeof v[k] === 'string') v[k] = (v[k] as string) + pick(rng, ODD_STRINGS); // unicode, quotes
    }
    return v;
  }
  if (typeof v === 'string') return v + pick(rng, ODD_STRINGS);
  if (Array.isArray(v)) return rng.chance(0.5) ? [] : [...v, pick<Json>(rng, ['x', 1, null])];
  return v;
}

/** Serializes with keys in random order at every level (or not), and optional whitespace. */
function write(v: Json, rng: Rng, reorder: boolean, spaces: boolean, escapeAll: boolean): string {
  const sp = (): string => (spaces && rng.chance(0.3) ? pick(rng, [' ', '\t', '  ', '\r\n'.slice(0, 1)]) : '');
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'string' && escapeAll) return escapeString(v, rng);
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${sp()}${v.map((x) => write(x, rng, reorder, spaces, escapeAll)).join(`${sp()},${sp()}`)}${sp()}]`;
  const keys = Object.keys(v);
  if (reorder) shuffle(rng, keys);
  return `{${sp()}${keys.map((k) => `${JSON.stringify(k)}${sp()}:${sp()}${write(v[k]!, rng, reorder, spaces, escapeAll)}`).join(`${sp()},${sp()}`)}${sp()}}`;
}

/** A JSON string literal with some characters written as `\uXXXX` or `\/` escapes. */
function escapeString(s: string, rng: Rng): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '/' && rng.chance(0.5)) out += '\\/';
    else if (c < 0x10000 && rng.chance(0.2)) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += JSON.stringify(ch).slice(1, -1);
  }
  return out + '"';
}

/** One fuzzed variant of an audit line. */
function mutate(line: string, rng: Rng): string {
  const kind = rng.int(0, 9);
  if (kind === 0) return line.slice(0, rng.int(1, line.length - 1)); // cut short
  if (kind === 1) {
    // a byte-level change at a random place
    const at = rng.int(0, line.length - 1);
    return line.slice(0, at) + pick(rng, ['"', ',', '}', ']', ':', '\\', 'x', '']) + line.slice(at + 1);
  }
  if (kind === 3) {
    // a duplicated member inside user, objectRef or responseStatus, with another value
    const m = pick(rng, [/"username":"[^"]*"/, /"resource":"[^"]*"/, /"name":"[^"]*"/, /"namespace":"[^"]*"/, /"reason":"[^"]*"/, /"code":\d+/, /"resourceVersion":"[^"]*"/]).exec(line);
    if (m) {
      const dup = m[0].replace(/:("?)([^"]*)("?)$/, ':$1dup$2$3').replace(/:dup(\d)/, ':9$1');
      return rng.chance(0.5) ? line.replace(m[0], `${m[0]},${dup}`) : line.replace(m[0], `${dup},${m[0]}`);
    }
  }
  if (kind === 2) {
    // a duplicated member
    const m = /"(verb|stage|auditID|userAgent|objectRef|user|responseStatus|stageTimestamp)":("[^"]*"|\{[^{}]*\})/.exec(line);
    if (m) return line.replace('{', `{${m[0]},`);
  }
  const v = JSON.parse(line) as Json;
  const edits = rng.int(0, 3);
  for (let e = 0; e < edits; e++) mutateValue(v, rng, 0);
  return write(v, rng, rng.chance(0.5), rng.chance(0.3), rng.chance(0.4));
}
