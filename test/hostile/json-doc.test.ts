/**
 * JsonDocReader on damaged EventLists: the counts do not depend on how the bytes arrive, a syntax
 * error that leaves brackets or quotes unbalanced skips only its element, and an over-long value
 * is skipped to the next element of the same document, reported at the element's first line.
 */
import { describe, expect, it } from 'vitest';
import { JsonDocReader } from '../../src/decoding/formats/json-doc.js';

/** An audit event like the tester's (gen.mjs). */
function ev(i: number): Record<string, unknown> {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: `id-${i}`,
    stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/shop/configmaps/cm${i % 5}`,
    verb: 'update',
    user: { username: 'system:serviceaccount:shop:ctl', groups: ['system:authenticated'] },
    sourceIPs: ['10.0.0.1'],
    userAgent: 'ctl/v1',
    objectRef: { resource: 'configmaps', namespace: 'shop', name: `cm${i % 5}`, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: i % 2 ? 409 : 200 },
    requestReceivedTimestamp: new Date(Date.UTC(2026, 1, 27, 14, 10, 0) + i * 100).toISOString(),
    stageTimestamp: new Date(Date.UTC(2026, 1, 27, 14, 10, 0) + i * 100 + 3).toISOString(),
  };
}

const HEAD = '{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[';

/** Feeds `text` in pieces of `chunk` characters; the auditIDs read and the bad items as [line, reason]. */
function read(text: string, chunk: number, max = 16 * 1024 * 1024): { ids: string[]; bad: Array<[number, string]> } {
  const ids: string[] = [];
  const bad: Array<[number, string]> = [];
  const reader = new JsonDocReader(max, (line, r) => {
    for (const e of r.events) ids.push(e.auditID);
    for (const b of r.bad) bad.push([line, b]);
  });
  for (let i = 0; i < text.length; i += chunk) reader.feed(text.slice(i, i + chunk));
  reader.end();
  return { ids, bad };
}

const SIZES = [1, 7, 4096, 32768, 65536, 65537, Number.MAX_SAFE_INTEGER];
const idsBut = (n: number, skipped: number[]) =>
  Array.from({ length: n }, (_, i) => i)
    .filter((i) => !skipped.includes(i))
    .map((i) => `id-${i}`);
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('JsonDocReader: a stray quote in a one-line EventList', () => {
  // `"verb:"update"` is a key `verb:` followed by `update`: an error at `u`. The quotes after it no
  // longer pair up, so the element is skipped up to the next `,{"kind":`, which no string can hold.
  const items = Array.from({ length: 300 }, (_, i) => JSON.stringify(ev(i)));
  const broken = [50, 200, 299];
  for (const i of broken) items[i] = items[i]!.replace('"verb":"update"', '"verb:"update"');
  const text = `${HEAD}${items.join(',')}]}`;

  for (const size of SIZES) {
    it(`fed ${size === Number.MAX_SAFE_INTEGER ? 'whole' : `${size} characters at a time`}: the 297 other items count, each broken one is one bad item`, () => {
      expect(text.length).toBeGreaterThan(2 * 65536);
      const r = read(text, size);
      expect(r.ids).toEqual(idsBut(300, broken));
      expect(r.bad).toEqual(broken.map(() => [1, "not JSON (expected ':'); this element is skipped"]));
    });
  }
});

describe('JsonDocReader: a syntax error that leaves a brace unbalanced', () => {
  const items = Array.from({ length: 300 }, (_, i) => JSON.stringify(ev(i)));
  items[50] = items[50]!.slice(0, -1); // no final `}`
  const lines = `${HEAD}\n${items.join(',\n')}\n]}\n`;
  const pretty = `${JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: Array.from({ length: 300 }, (_, i) => ev(i)) }, null, 2)}\n`;
  // Item 50's closing line `    },` loses its `}`.
  const at = pretty.indexOf('\n    },\n', pretty.indexOf('"auditID": "id-50"'));
  const prettyBroken = `${pretty.slice(0, at)}\n    ,\n${pretty.slice(at + 8)}`;

  for (const size of [1, 7, 4096, 65537, Number.MAX_SAFE_INTEGER]) {
    it(`one item per line and pretty-printed, fed ${size} characters at a time: the 299 others count, one bad item at the element's first line`, () => {
      expect(read(lines, size)).toEqual({
        ids: idsBut(300, [50]),
        bad: [[lineOf(lines, '"auditID":"id-50"'), 'not JSON (expected an object key); this element is skipped']],
      });
      expect(read(prettyBroken, size)).toEqual({
        ids: idsBut(300, [50]),
        bad: [[lineOf(prettyBroken, '"auditID": "id-50"') - 4, 'not JSON (expected an object key); this element is skipped']],
      });
    });
  }

  it('the last item without its `}`: the document still ends there, and the next document counts', () => {
    const last = items.slice(0, 10);
    last[9] = last[9]!.slice(0, -1);
    const r = read(`${HEAD}${last.join(',')}]}\n${JSON.stringify(ev(1000))}\n`, 4096);
    expect(r).toEqual({ ids: [...idsBut(9, []), 'id-1000'], bad: [[1, "not JSON (expected '}'); this element is skipped"]] });
  });
});

describe('JsonDocReader: an over-long value inside a multi-line document', () => {
  const events = Array.from({ length: 8 }, (_, i) => (i === 3 ? { ...ev(i), requestObject: { data: 'x'.repeat(2_000_000) } } : ev(i)));
  const lines = `${HEAD}\n${events.map((e) => JSON.stringify(e)).join(',\n')}\n]}\n`;
  const pretty = `${JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: events }, null, 2)}\n`;
  const oneLine = `${HEAD}${events.map((e) => JSON.stringify(e)).join(',')}]}\n`;

  for (const max of [1_000_000, 2000]) {
    it(`--max-line-length ${max}: the element is skipped, reported at its first line; the 7 others count`, () => {
      const reason = `JSON element longer than ${max} characters (--max-line-length): skipped`;
      for (const size of [65536, 65537, Number.MAX_SAFE_INTEGER]) {
        expect(read(lines, size, max)).toEqual({ ids: idsBut(8, [3]), bad: [[5, reason]] });
        expect(read(pretty, size, max)).toEqual({ ids: idsBut(8, [3]), bad: [[lineOf(pretty, '"auditID": "id-3"') - 4, reason]] });
        expect(read(oneLine, size, max)).toEqual({ ids: idsBut(8, [3]), bad: [[1, reason]] });
      }
    });
  }
});
