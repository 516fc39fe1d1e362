/**
 * Framing: detection from the first bytes, JSON documents streamed element by element, YAML
 * documents, base64 subscription payloads, CloudWatch truncation, bad items with their lines.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { detectFraming } from '../../src/decoding/formats/detect.js';
import { peek } from '../../src/ingest/peek.js';
import { toEksFilterLogEvents, toEksSubscriptionPayload, toOtlp } from '../../src/generator/shapes.js';
import { CONFLICT_EVENT, DEFAULT_READ, eventLine, readStdin } from './helpers.js';

const ev = (auditID: string, extra: Record<string, unknown> = {}) => ({ ...CONFLICT_EVENT, auditID, ...extra });
const pretty = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

describe('detectFraming', () => {
  const cases: [string, string, boolean][] = [
    [`${eventLine()}\n${eventLine()}\n`, 'jsonl', false],
    [eventLine(), 'jsonl', true], // one line, whole input
    [eventLine(), 'json', false], // one line longer than the peek: stream it as a document
    [`ip-10-0-1-2 ${eventLine()}\n`, 'jsonl', false],
    [`2026-07-01T10:00:00.131002Z ${eventLine().slice(0, 50)}[Truncated...]\n`, 'jsonl', false],
    [`{"broken\n${eventLine()}\n`, 'jsonl', false], // a bad first line in JSON lines
    [pretty(CONFLICT_EVENT), 'json', true],
    ['[\n  {\n', 'json', false],
    [`\ufeff\n\n{\n  "kind": "EventList",\n`, 'json', false],
    ['# licence\n\ninsertId: abc\nlabels:\n', 'yaml', false],
    ['---\nkind: Event\n', 'yaml', true],
    ['- kind: Event\n  auditID: x\n', 'yaml', true],
    ['2026-07-01T10:00:00.123456Z AUDIT: id="6f1b" stage="ResponseComplete" ip="1.2.3.4" method="get"\n', 'legacy', true],
    [`${gzipSync('{}').toString('base64')}\n`, 'base64', true],
    ['<!DOCTYPE html>\n<html>\n', 'jsonl', true],
    ['# Title\n\nSome prose.\n', 'jsonl', true],
    ['', 'jsonl', true],
  ];
  it.each(cases)('%j → %s', (head, framing, atEnd) => {
    expect(detectFraming(head, atEnd)).toBe(framing);
  });
});

describe('peek', () => {
  it('gives back every byte, in order, after looking at the head', async () => {
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 1000) chunks.push(bytes.subarray(i, i + 1000));
    const p = await peek(Readable.from(chunks), 64 * 1024);
    expect(p.atEnd).toBe(false);
    expect(p.head.length).toBe(66_000); // whole chunks until at least 64 KiB
    const all: Buffer[] = [];
    for await (const c of p.stream) all.push(c as Buffer);
    expect(Buffer.concat(all).equals(bytes)).toBe(true);
  });
});

describe('JSON documents', () => {
  it('gives the same result for chunks of 1, 7 and 65536 bytes', async () => {
    const input = pretty({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: [ev('a'), ev('b'), { nope: 1 }, ev('c')] });
    const [one, seven, big] = (await Promise.all([1, 7, 65536].map((n) => readStdin(input, DEFAULT_READ, n)))) as [
      Awaited<ReturnType<typeof readStdin>>,
      Awaited<ReturnType<typeof readStdin>>,
      Awaited<ReturnType<typeof readStdin>>,
    ];
    expect(seven).toEqual(one);
    expect(big).toEqual(one);
    expect(one.records.map((r) => r.auditID)).toEqual(['a', 'b', 'c']);
    expect(one.stats[0]).toMatchObject({ format: 'eventlist', events: 3, requests: 3, badLines: 1 });
  });

  it('samples a bad item with the line where it starts; every valid item still counts', async () => {
    const items = [ev('a'), { kind: 'Event', auditID: 'x' }, ev('c')];
    const text = pretty({ kind: 'EventList', items });
    // The item's "{" is two lines above its "auditID" key (after "kind"): 0-based index - 1 = 1-based line.
    const line = text.split('\n').findIndex((l) => l.includes('"auditID": "x"')) - 1;
    const r = await readStdin(text);
    expect(r.records.map((x) => x.auditID)).toEqual(['a', 'c']);
    expect(r.bad).toEqual([{ source: '<stdin>', line, reason: 'JSON but not an audit event: no stage' }]);
  });

  it('reads several pretty-printed documents and arrays one after another', async () => {
    const r = await readStdin(pretty(ev('a')) + pretty([ev('b'), ev('c')]) + pretty(ev('d')));
    expect(r.records.map((x) => x.auditID)).toEqual(['a', 'b', 'c', 'd']);
    expect(r.stats[0]!.format).toBe('json-array');
  });

  it('reports a syntax error once and resumes at the next document', async () => {
    const broken = pretty(ev('a')).replace('"verb": "update",', '"verb": "update" oops');
    const text = pretty(ev('z')) + broken + pretty(ev('b'));
    const r = await readStdin(text);
    expect(r.records.map((x) => x.auditID)).toEqual(['z', 'b']);
    expect(r.bad).toHaveLength(1);
    expect(r.bad[0]!.reason).toMatch(/^not JSON \(.*\); the rest of this document is skipped$/);
    expect(r.bad[0]!.line).toBe(text.split('\n').findIndex((l) => l.includes('oops')) + 1);
  });

  it('skips an element longer than maxLineLength and reads the others', async () => {
    const huge = ev('huge', { requestObject: { pad: 'p'.repeat(5000) } });
    const r = await readStdin(pretty([ev('a'), huge, ev('b')]), { maxLineLength: 3000, sniffLines: 10 });
    expect(r.records.map((x) => x.auditID)).toEqual(['a', 'b']);
    expect(r.bad.map((b) => b.reason)).toEqual(['JSON element longer than 3000 characters: skipped']);
  });

  it('says when a document is cut short', async () => {
    const text = pretty([ev('a'), ev('b')]);
    const r = await readStdin(text.slice(0, text.lastIndexOf('\n  {') + 1)); // up to element b's "{"
    expect(r.records.map((x) => x.auditID)).toEqual(['a']);
    expect(r.bad.map((b) => b.reason)).toEqual(['JSON document ends early (cut short?)']);
  });

  it('streams the events[] of a pretty-printed aws logs filter-log-events output, counting truncated messages', async () => {
    const lines = [eventLine({ auditID: 'a' }), eventLine({ auditID: 'b', requestObject: { pad: 'x'.repeat(3000) } }), eventLine({ auditID: 'c' })];
    const doc = JSON.stringify(JSON.parse(toEksFilterLogEvents(lines, { truncateAt: 2000 })), null, 4);
    const r = await readStdin(doc);
    // b is cut inside its requestObject (after the timestamps): read leniently, still truncated.
    expect(r.records.map((x) => x.auditID)).toEqual(['a', 'b', 'c']);
    expect(r.stats[0]).toMatchObject({ format: 'eks', events: 3, badLines: 0, truncated: 1, truncatedRead: 1 });
  });

  it('streams OTLP logRecords', async () => {
    const doc = pretty(JSON.parse(toOtlp([eventLine({ auditID: 'a' }), eventLine({ auditID: 'b' })], { batchSize: 10 })));
    const r = await readStdin(doc);
    expect(r.records.map((x) => x.auditID)).toEqual(['a', 'b']);
    expect(r.stats[0]!.format).toBe('otlp');
  });
});

describe('CloudWatch truncation on JSON lines', () => {
  it('counts a line cut at [Truncated...] as truncated, not bad', async () => {
    const cut = `2026-07-01T10:00:00.131002Z ${eventLine({ auditID: 'cut' }).slice(0, 80)}[Truncated...]`;
    const r = await readStdin(`${eventLine({ auditID: 'a' })}\n${cut}\n`);
    expect(r.stats[0]).toMatchObject({ events: 1, badLines: 0, truncated: 1 });
  });
});

describe('base64 subscription payloads', () => {
  it('reads one payload per line, and a payload wrapped over several lines', async () => {
    const lines = ['a', 'b', 'c'].map((id) => eventLine({ auditID: id }));
    const perLine = toEksSubscriptionPayload(lines, { batchSize: 2 });
    const r = await readStdin(perLine);
    expect(r.records.map((x) => x.auditID)).toEqual(['a', 'b', 'c']);
    expect(r.stats[0]).toMatchObject({ format: 'eks', badLines: 0 });
    const one = toEksSubscriptionPayload(lines).trim();
    const wrapped = `${one.match(/.{1,76}/g)!.join('\n')}\n`;
    const w = await readStdin(wrapped);
    expect(w.records.map((x) => x.auditID)).toEqual(['a', 'b', 'c']);
  });
});

describe('YAML documents', () => {
  it('reads each document, samples a bad one with its first line', async () => {
    const text = [
      '# exported',
      '---',
      ...Object.entries(ev('a')).map(([k, v]) => `${k}: ${JSON.stringify(v)}`),
      '---',
      'kind: Event',
      'auditID: [unclosed',
      '---',
      ...Object.entries(ev('b')).map(([k, v]) => `${k}: ${JSON.stringify(v)}`),
      '',
    ].join('\n');
    const r = await readStdin(text);
    expect(r.records.map((x) => x.auditID)).toEqual(['a', 'b']);
    expect(r.stats[0]).toMatchObject({ format: 'yaml', events: 2, badLines: 1 });
    expect(r.bad[0]!.line).toBe(text.split('\n').indexOf('auditID: [unclosed'));
    expect(r.bad[0]!.reason).toMatch(/^not YAML \(/);
  });
});

describe('syntax errors inside streamed documents', () => {
  const items = ['e0', 'e1', 'e2', 'e3', 'e4', 'e5'].map((id) => JSON.stringify(ev(id), null, 2));
  const broken = items.map((t, i) => (i === 2 ? t.replace('"verb": "update",', '"verb": "update" "oops": 1,') : t));
  const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('skips the broken element of an EventList and reads the rest, for any chunk size', async () => {
    const text = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[\n${broken.join(',\n')}\n]}\n`;
    for (const size of [1, 7, 65536]) {
      const r = await readStdin(text, DEFAULT_READ, size);
      expect(r.records.map((x) => x.auditID)).toEqual(['e0', 'e1', 'e3', 'e4', 'e5']);
      expect(r.bad).toEqual([{ source: '<stdin>', line: lineOf(text, '"auditID": "e2"') - 4, reason: "not JSON (expected ','); this element is skipped" }]);
      expect(r.stats[0]).toMatchObject({ format: 'eventlist', events: 5, badLines: 1 });
    }
  });

  it('the same in a top-level array (format json-array), at the last element, and in a nested OTLP logRecords', async () => {
    const arr = await readStdin(`[\n${broken.join(',\n')}\n]\n`);
    expect([arr.records.map((x) => x.auditID), arr.stats[0]!.format, arr.stats[0]!.badLines]).toEqual([['e0', 'e1', 'e3', 'e4', 'e5'], 'json-array', 1]);
    const last = await readStdin(`[\n${[...items.slice(0, 5), broken[2]!].join(',\n')}\n]\n${pretty(ev('after'))}`);
    expect(last.records.map((x) => x.auditID)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'after']);
    expect(last.bad.map((b) => b.reason)).toEqual(["not JSON (expected ','); this element is skipped"]);
    const otlp = pretty(
      JSON.parse(
        toOtlp(
          ['a', 'b', 'c'].map((auditID) => eventLine({ auditID })),
          { batchSize: 10 },
        ),
      ),
    ).replace(/("body": \{\n\s+"stringValue": "[^\n]*"auditID\\":\\"b\\"[^\n]*")/, '$1 oops');
    const o = await readStdin(otlp);
    expect([o.records.map((x) => x.auditID), o.bad.map((b) => b.reason)]).toEqual([['a', 'c'], ["not JSON (expected ','); this element is skipped"]]);
  });

  it('pretty documents: skips the rest of the broken document only', async () => {
    const r = await readStdin(`${broken.join('\n')}\n`);
    expect(r.records.map((x) => x.auditID)).toEqual(['e0', 'e1', 'e3', 'e4', 'e5']);
    expect(r.bad.map((b) => b.reason)).toEqual(["not JSON (expected ','); the rest of this document is skipped"]);
  });

  it('an element whose brackets never balance is skipped up to the next element, which counts', async () => {
    const open = items.map((t, i) => (i === 2 ? t.replace('"verb": "update",', '"verb": "update" [[[,') : t));
    const r = await readStdin(`[\n${open.join(',\n')}\n]\n`);
    expect(r.records.map((x) => x.auditID)).toEqual(['e0', 'e1', 'e3', 'e4', 'e5']);
    expect(r.bad.map((b) => b.reason)).toEqual(["not JSON (expected ','); this element is skipped"]);
  });

  it('a one-line document longer than 64 KiB is read in pieces; an error in one of its elements skips that element only', async () => {
    const many = Array.from({ length: 1500 }, (_, i) => ev(`x${i}`, { requestObject: { pad: 'p'.repeat(1000) } }));
    const line = JSON.stringify({ kind: 'EventList', items: many });
    expect(line.length).toBeGreaterThan(2 * 1024 * 1024);
    const ok = await readStdin(`${line}\n${JSON.stringify(ev('next'))}\n`);
    expect([ok.records.length, ok.bad]).toEqual([1501, []]);
    const bad = await readStdin(`${line.replace('"auditID":"x1400"', '"auditID":"x1400" oops')}\n${pretty(ev('next'))}`);
    expect(bad.records.map((r) => r.auditID)).toEqual([...many.filter((e) => e.auditID !== 'x1400').map((e) => e.auditID), 'next']);
    expect(bad.bad.map((b) => [b.line, b.reason])).toEqual([[1, "not JSON (expected ','); this element is skipped"]]);
  });
});

describe('wrapper items: indexes, skipped records, formats', () => {
  it('names the real index of a bad item in a streamed events[] and skips non-audit streams', async () => {
    const events = [0, 1, 2, 3, 4].map((i) => ({ logStreamName: 'kube-apiserver-audit-x', timestamp: 1, message: eventLine({ auditID: `a${i}` }) }));
    events.push({ logStreamName: 'kube-apiserver-audit-x', timestamp: 1, message: 'not json' });
    events.push({ logStreamName: 'authenticator-x', timestamp: 1, message: 'time="2026-07-01T10:00:00Z" level=info msg="access granted"' });
    const r = await readStdin(pretty({ events }));
    expect(r.records).toHaveLength(5);
    expect(r.bad.map((b) => b.reason)).toEqual([`CloudWatch events[5]: not JSON (Unexpected token 'o', "not json" is not valid JSON)`]);
    expect(r.stats[0]).toMatchObject({ format: 'eks', events: 5, badLines: 1, skippedRecords: 1 });
  });

  it('a subscription file with only a CONTROL_MESSAGE is eks, with one skipped record', async () => {
    const ctl = {
      messageType: 'CONTROL_MESSAGE',
      owner: 'CloudwatchLogs',
      logGroup: '',
      logStream: '',
      subscriptionFilters: [],
      logEvents: [{ id: '', timestamp: 1, message: 'CWL CONTROL MESSAGE: Checking health of destination Firehose.' }],
    };
    const r = await readStdin(`${gzipSync(JSON.stringify(ctl)).toString('base64')}\n`);
    expect(r.stats[0]).toMatchObject({ format: 'eks', events: 0, badLines: 0, skippedRecords: 1 });
  });

  it('skips non-Kubernetes records of an OTLP audit resource (auditd, text) and names OTLP indexes', async () => {
    const lr = (body: string) => ({ timeUnixNano: '1', body: { stringValue: body }, attributes: [] });
    const doc = {
      resourceLogs: [
        { resource: { attributes: [{ key: 'log_type', value: { stringValue: 'application' } }] }, scopeLogs: [{ logRecords: [lr('hello')] }] },
        {
          resource: { attributes: [{ key: 'log_type', value: { stringValue: 'audit' } }] },
          scopeLogs: [
            { logRecords: [lr(eventLine({ auditID: 'a' })), lr('{"type":"SYSCALL","msg":"audit(123)"}'), lr('type=SYSCALL msg=audit(1)'), lr('{"kind":"Event","auditID":"x"}')] },
          ],
        },
      ],
    };
    const r = await readStdin(pretty(doc));
    expect(r.records.map((x) => x.auditID)).toEqual(['a']);
    expect(r.bad.map((b) => b.reason)).toEqual(['OTLP resourceLogs[1].scopeLogs[0].logRecords[3]: JSON but not an audit event: no stage']);
    expect(r.stats[0]).toMatchObject({ format: 'otlp', events: 1, badLines: 1, skippedRecords: 3 });
  });

  it('a forced --input-format that does not fit says so and suggests dropping it', async () => {
    const doc = pretty([ev('a'), ev('b')]);
    await expect(readStdin(doc, { ...DEFAULT_READ, inputFormat: 'jsonl' })).rejects.toThrow(
      /^"<stdin>" was read as jsonl \(--input-format jsonl\), but none of its first \d+ non-blank lines is an audit event .*It looks like json/,
    );
    await expect(readStdin(doc, { ...DEFAULT_READ, inputFormat: 'jsonl' })).rejects.toMatchObject({
      hint: 'Drop --input-format to detect the format of each file (or use --input-format json for the input).',
    });
  });
});

describe('YAML merge keys', () => {
  it('resolves <<: *anchor in objectRef (the anchor wins over what the URL would give)', async () => {
    const doc = (id: string) =>
      `---\nkind: Event\napiVersion: audit.k8s.io/v1\nlevel: Metadata\nauditID: ${id}\nstage: ResponseComplete\n` +
      `requestURI: /apis/apps/v1/namespaces/shop/deployments/web/status\nverb: update\n` +
      `base: &b {resource: deployments, namespace: shop, name: anchored, apiGroup: apps, apiVersion: v1}\n` +
      `objectRef:\n  <<: *b\n  subresource: status\nresponseStatus: {code: 409, reason: Conflict}\n` +
      `requestReceivedTimestamp: "2026-07-01T10:00:00.000000Z"\nstageTimestamp: "2026-07-01T10:00:00.001000Z"\n`;
    const r = await readStdin(doc('m1') + doc('m2'));
    expect(r.records.map((x) => [x.auditID, x.object?.resource, x.object?.name, x.object?.subresource])).toEqual([
      ['m1', 'deployments', 'anchored', 'status'],
      ['m2', 'deployments', 'anchored', 'status'],
    ]);
  });
});
