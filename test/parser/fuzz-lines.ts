/**
 * Audit lines for the fast-path agreement tests (fast.test.ts, native.test.ts): the committed
 * fixtures' lines and a seeded fuzzer of variants.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { Rng } from '../../src/generator/random.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The public corpus (absent in a clone made elsewhere). */
export const CORPUS = path.resolve(repoRoot, '../shared/corpus/public');

/**
 * Every line of every public corpus file, and the compact form of each file that is one JSON
 * document (or an array of them), as a JSON-lines log would hold it. Call only where
 * {@link CORPUS} exists.
 */
export function corpusLines(): string[] {
  const all: string[] = [];
  for (const file of readdirSync(CORPUS).sort()) {
    if (file === 'SOURCES.md') continue;
    const text = readFileSync(path.join(CORPUS, file), 'utf8');
    all.push(...linesOf(text));
    try {
      const doc = JSON.parse(text) as unknown;
      for (const item of Array.isArray(doc) ? doc : [doc]) all.push(JSON.stringify(item));
    } catch {
      /* not one JSON document */
    }
  }
  return all;
}

/** The non-blank lines of `text`, without `\r`. */
export function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
    .filter((l) => l.trim() !== '');
}

/** The lines of fixtures/sample/audit.log.gz. */
export const sample = linesOf(gunzipSync(readFileSync(path.join(repoRoot, 'fixtures/sample/audit.log.gz'))).toString('utf8'));
/** The lines of fixtures/incident/payment-core.log. */
export const incident = linesOf(readFileSync(path.join(repoRoot, 'fixtures/incident/payment-core.log'), 'utf8'));

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
    if (what === 0 && keys.length > 0)
      delete v[pick(rng, keys)]; // missing field
    else if (what === 1 && keys.length > 0)
      v[pick(rng, keys)] = null; // null field
    else if (what === 2)
      v[pick(rng, ['extra', 'username', 'sourceIPs', 'objectRef', 'stage', 'code', 'timestamp', 'metadata'])] = pick<Json>(rng, [
        1,
        'x',
        null,
        [],
        {},
        { username: 'evil', code: 500 },
        ['1.2.3.4'],
      ]); // extra field
    else if (what === 3 && keys.length > 0) {
      const k = pick(rng, keys);
      v[k] = pick<Json>(rng, [0, true, 'str', [v[k] ?? null], { v: v[k] ?? null }]); // retyped
    } else if (what <= 6 && keys.length > 0 && depth < 3) {
      const k = pick(rng, keys);
      v[k] = mutateValue(v[k]!, rng, depth + 1);
    } else if (keys.length > 0) {
      const k = pick(rng, keys);
      if (typeof v[k] === 'string') v[k] = v[k] + pick(rng, ODD_STRINGS); // unicode, quotes
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

/**
 * One fuzzed variant of an audit line: cut short, a byte changed, a member duplicated, or up to
 * three values missing, null, retyped, extended or with odd characters, written with keys
 * reordered, whitespace and escapes (or not; with `keepLayout`, compact and in the line's own
 * member order, as kube-apiserver writes it, but for what was added, which goes last).
 */
export function mutate(line: string, rng: Rng, keepLayout = false): string {
  const kind = rng.int(0, 9);
  if (kind === 0) return line.slice(0, rng.int(1, line.length - 1)); // cut short
  if (kind === 1) {
    // a byte-level change at a random place
    const at = rng.int(0, line.length - 1);
    return line.slice(0, at) + pick(rng, ['"', ',', '}', ']', ':', '\\', 'x', '']) + line.slice(at + 1);
  }
  if (kind === 3) {
    // a duplicated member inside user, objectRef or responseStatus, with another value
    const m = pick(rng, [/"username":"[^"]*"/, /"resource":"[^"]*"/, /"name":"[^"]*"/, /"namespace":"[^"]*"/, /"reason":"[^"]*"/, /"code":\d+/, /"resourceVersion":"[^"]*"/]).exec(
      line,
    );
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
  if (keepLayout) return write(v, rng, false, false, rng.chance(0.4));
  return write(v, rng, rng.chance(0.5), rng.chance(0.3), rng.chance(0.4));
}

/** A condition list as controllers write it: timestamps that change with every write, and others. */
function conditions(rng: Rng, at: string): Json[] {
  const out: Json[] = [];
  for (let k = rng.int(0, 3); k > 0; k--) {
    out.push({
      type: pick(rng, ['Ready', 'Available', 'Progressing', 'Synced']),
      status: pick(rng, ['True', 'False']),
      lastTransitionTime: at,
      lastUpdateTime: at,
      reason: 'R',
      message: rng.chance(0.5) ? 'm "quoted" \\ é' : 'm "quoted" \\',
    });
  }
  return out;
}

/**
 * `line` (a final event with an objectRef) as logged at RequestResponse level: a request body for
 * an update, patch or create (a full object, a merge patch or a JSON patch) and a response object
 * with `metadata.resourceVersion` for a successful request; a create sometimes leaves
 * `objectRef.name` empty, its generated name only in the response. Other lines come back as they are.
 */
export function withBodies(line: string, rng: Rng): string {
  const v = JSON.parse(line) as { [k: string]: Json };
  const ref = v.objectRef as { [k: string]: Json } | undefined;
  if ((v.stage !== 'ResponseComplete' && v.stage !== 'Panic') || ref === undefined || ref === null) return line;
  const at = typeof v.stageTimestamp === 'string' ? v.stageTimestamp : '';
  const name = typeof ref.name === 'string' ? ref.name : 'gen-' + String(rng.int(0, 99_999));
  const meta: { [k: string]: Json } = {
    name,
    namespace: ref.namespace ?? null,
    uid: 'u-' + String(rng.int(0, 999)),
    resourceVersion: String(rng.int(1, 9_999_999)),
    generation: rng.int(1, 9),
  };
  if (rng.chance(0.3)) meta.managedFields = [{ manager: 'm', operation: 'Update', time: at, fieldsV1: { 'f:status': {} } }];
  const object: { [k: string]: Json } = {
    kind: 'Thing',
    apiVersion: 'v1',
    metadata: meta,
    spec: { replicas: rng.int(0, 5) },
    status: { observedGeneration: rng.int(0, 9), conditions: conditions(rng, at) },
  };
  const verb = v.verb;
  if (verb === 'update' || verb === 'create') v.requestObject = object;
  else if (verb === 'patch') {
    v.requestObject = rng.chance(0.3)
      ? [
          { op: 'replace', path: '/status/conditions/0/lastTransitionTime', value: at },
          { op: 'test', path: '/metadata/resourceVersion', value: '5' },
        ]
      : { status: { conditions: conditions(rng, at) } };
  }
  const code = (v.responseStatus as { code?: Json } | undefined)?.code;
  if (code === undefined || (typeof code === 'number' && code < 300)) {
    const response = structuredClone(object);
    (response.metadata as { [k: string]: Json }).resourceVersion = String(rng.int(1, 9_999_999));
    v.responseObject = response;
    if (verb === 'create' && rng.chance(0.5)) delete ref.name;
  }
  if (rng.chance(0.2)) v.requestObject = pick<Json>(rng, [null, 'skipped-too-big-size-object', []]);
  // Where kube-apiserver writes them: after responseStatus, before the timestamps.
  const ordered: { [k: string]: Json } = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'requestObject' || k === 'responseObject') continue;
    if (k === 'requestReceivedTimestamp' || k === 'stageTimestamp') {
      if (v.requestObject !== undefined) ordered.requestObject = v.requestObject;
      if (v.responseObject !== undefined) ordered.responseObject = v.responseObject;
    }
    ordered[k] = x;
  }
  return JSON.stringify(ordered);
}
