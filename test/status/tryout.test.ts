/**
 * Problems found by trying `auditstorm objects`, `crd` and `metrics` as a new user would, on
 * hand-written inputs: each test failed before its fix.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CONDITIONS_SCHEMA, WIDGET_CRD_WITHOUT_STATUS_SUBRESOURCE } from './condition-schema.js';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { renderReport } from '../../src/report/index.js';
import { crdReport, objectsReport, type StatusInput } from '../../src/status/report.js';

const NOW = '2026-12-06T01:00:00.000Z';
function input(name: string, text: string): StatusInput {
  return { name, text, bytes: Buffer.byteLength(text), kind: 'file' };
}
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

describe('control characters from the input never reach the output', () => {
  const evil = {
    kind: 'List',
    items: [
      {
        apiVersion: 'apps.acme.io/v1',
        kind: 'Wid\rget',
        metadata: { name: 'w-\u001b[2J\u0007evil<b>', namespace: 'ns\u202eevil', generation: 2 },
        status: {
          observedGeneration: 5,
          conditions: [{ type: 'Ready', status: 'True', reason: 'Bad\u001b]0;t\u0007Reason', message: 'm', lastTransitionTime: '2026-12-06T00:00:00Z' }],
        },
      },
    ],
  };
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'w\u001b[31m.acme.io' },
    spec: {
      group: 'acme.io',
      names: { kind: 'W\u0007' },
      versions: [{ name: 'v1\r', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { status: { type: 'object' } } } } }],
    },
  };
  for (const format of ['text', 'markdown', 'html'] as const) {
    it(`objects, ${format}`, () => {
      const out = renderReport(objectsReport(input('o\u001b[1m.json', JSON.stringify(evil)), {}, null, NOW), format);
      expect(out).not.toMatch(CONTROL);
      expect(out).toContain('[2J');
      if (format === 'html') expect(out).toContain('evil&lt;b&gt;');
    });
    it(`crd, ${format}`, () => {
      const out = renderReport(crdReport(input('c.yaml', JSON.stringify(crd)), {}, NOW), format);
      expect(out).not.toMatch(CONTROL);
      expect(out).toContain(format === 'markdown' ? 'w\\[31m.acme.io' : 'w[31m.acme.io');
    });
  }
});

describe('objects and crd in Markdown and HTML, as analyze renders them', () => {
  const report = crdReport(input('c.yaml', JSON.stringify(WIDGET_CRD_WITHOUT_STATUS_SUBRESOURCE)), {}, NOW);
  const docs = 'https://github.com/auditstorm/auditstorm/blob/main/docs/detectors/crd-status-subresource.md';
  it('Markdown: one top-level heading, and each finding links its docs page', () => {
    const md = renderReport(report, 'markdown');
    expect(md.split('\n').filter((l) => /^# /.test(l))).toEqual(['# auditstorm crd: 3 findings in c.yaml']);
    expect(md).toContain(`  - Docs: <${docs}>`);
  });
  it('HTML: a Content-Security-Policy that loads nothing, and each finding links its docs page', () => {
    const html = renderReport(report, 'html');
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1]?.replaceAll('&#39;', "'");
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'$/);
    expect(html).toContain(`<a href="${docs}">docs</a>`);
  });
});

function io(stdin: Buffer | string = ''): { io: CliIO; out: () => string; err: () => string } {
  const o = new PassThrough();
  const e = new PassThrough();
  let so = '';
  let se = '';
  o.on('data', (d) => (so += String(d)));
  e.on('data', (d) => (se += String(d)));
  return {
    io: { stdin: Readable.from([stdin]), stdout: o, stderr: e, env: {}, isTTY: { stdin: false, stdout: false, stderr: false }, now: () => new Date(NOW), nativeScanner: true },
    out: () => so,
    err: () => se,
  };
}

const lagging = JSON.stringify({
  kind: 'List',
  items: [
    {
      apiVersion: 'apps.acme.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'a', generation: 9 },
      status: { observedGeneration: 7, conditions: [{ type: 'Ready', status: 'True', reason: 'Reconciled', message: 'ok', lastTransitionTime: '2026-12-06T00:00:00Z' }] },
    },
  ],
});

const goodCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.apps.acme.io' },
  spec: {
    group: 'apps.acme.io',
    names: { kind: 'Widget', plural: 'widgets' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
              status: { type: 'object', properties: { observedGeneration: { type: 'integer', format: 'int64', minimum: 0 }, conditions: CONDITIONS_SCHEMA } },
            },
          },
        },
      },
    ],
  },
};

describe('objects and crd CLI, as the README shows them', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'auditstorm-tryout-'));
  it('-o with a name without a known extension is written in --format (text if none), as for analyze', async () => {
    const file = path.join(dir, 'w.json');
    writeFileSync(file, lagging);
    const a = io();
    expect(await main(['objects', file, '-o', path.join(dir, 'report'), '--format', 'json', '--fail-on', 'low'], a.io)).toBe(1);
    expect((JSON.parse(readFileSync(path.join(dir, 'report'), 'utf8')) as { findings: { kind: string }[] }).findings.map((f) => f.kind)).toEqual(['status-lag']);
    expect(await main(['objects', file, '-o', '/dev/null', '--fail-on', 'high'], io().io)).toBe(0);
    const crdFile = path.join(dir, 'crd.yaml');
    writeFileSync(crdFile, JSON.stringify(goodCrd));
    expect(await main(['crd', crdFile, '-o', path.join(dir, 'crd-report')], io().io)).toBe(0);
    expect(readFileSync(path.join(dir, 'crd-report'), 'utf8')).toMatch(/^auditstorm crd: no findings in /);
  });
  it('a gzipped capture is read like the plain one (file and stdin); a broken gzip is an input error', async () => {
    const gz = path.join(dir, 'w.json.gz');
    writeFileSync(gz, gzipSync(lagging));
    const a = io();
    expect(await main(['objects', gz, '--format', 'json'], a.io)).toBe(0);
    expect((JSON.parse(a.out()) as { findings: { kind: string; title: string }[] }).findings.map((f) => f.title)).toEqual([
      'Widget a/w: status describes generation 7, spec is at 9 (2 behind); Ready=True',
    ]);
    const b = io(gzipSync(lagging));
    expect(await main(['objects', '-'], b.io)).toBe(0);
    expect(b.out()).toContain('a/w   Widget  9    7');
    const cut = path.join(dir, 'cut.json.gz');
    writeFileSync(cut, gzipSync(lagging).subarray(0, 20));
    const c = io();
    expect(await main(['objects', cut], c.io)).toBe(2);
    expect(c.err()).toMatch(/^auditstorm: .*cut\.json\.gz: not a readable gzip file: /);
  });
});

describe('input errors', () => {
  it('crd on a file without a CustomResourceDefinition is an input error, not a clean report', async () => {
    const a = io(lagging);
    expect(await main(['crd', '-'], a.io)).toBe(2);
    expect(a.err()).toBe('auditstorm: -: no CustomResourceDefinition in the input (1 other object(s), kind Widget)\nhint: give a CRD manifest, or kubectl get crd NAME -o yaml\n');
    const b = io('# only a comment\n---\n');
    expect(await main(['crd', '-'], b.io)).toBe(2);
    expect(b.err()).toContain('-: no CustomResourceDefinition in the input (no object)');
    // A CRD among other documents is judged; the others are counted.
    const c = io(`${JSON.stringify(goodCrd)}\n---\n${lagging}\n`);
    expect(await main(['crd', '-', '--format', 'json'], c.io)).toBe(0);
    expect((JSON.parse(c.out()) as { crd: { otherDocuments: number; versions: unknown[] } }).crd.otherDocuments).toBe(1);
  });
  it('a JSON error without a position from V8 still names the line and column of the bad token', async () => {
    const text = `{\n "kind": "List",\n "items": [\n  {"metadata": {"name": x}}\n ]\n}\n`;
    const a = io(text);
    expect(await main(['objects', '-'], a.io)).toBe(2);
    expect(a.err()).toMatch(/^auditstorm: -:4:25: not valid JSON: Unexpected token 'x'/);
    const b = io('{"items": [1 2]}');
    expect(await main(['objects', '-'], b.io)).toBe(2);
    expect(b.err()).toMatch(/^auditstorm: -:1:14: not valid JSON: /);
  });
  it('an error message quoting the input carries no control character to the terminal', async () => {
    const a = io('{"a": \u001b[2J\u0007}');
    expect(await main(['objects', '-'], a.io)).toBe(2);
    expect(a.err()).toMatch(/^auditstorm: -:1:7: not valid JSON: /);
    expect(a.err()).not.toMatch(CONTROL);
    const b = io('foo\u001b[31m\u0007 1 2 3\n');
    expect(await main(['metrics', '-'], b.io)).toBe(2);
    expect(b.err()).toMatch(/^auditstorm: -:1: not Prometheus text exposition: /);
    expect(b.err()).not.toMatch(CONTROL);
  });
});

describe('status-lag: observedGeneration of the wrong JSON type', () => {
  const o = (name: string, obs: unknown): unknown => ({
    apiVersion: 'x.io/v1',
    kind: 'Foo',
    metadata: { name, namespace: 'n', generation: 2 },
    status: { observedGeneration: obs },
  });
  it('a fraction, a boolean or an object is "not an integer", not missing', () => {
    const r = objectsReport(input('odd.json', JSON.stringify({ kind: 'List', items: [o('frac', 1.5), o('bool', true), o('obj', { v: 2 }), o('ok', 2)] })), {}, null, NOW);
    expect(r.findings.map((f) => `${f.kind} ${f.severity} ${f.signals.join(',')} ${f.title}`)).toEqual([
      'status-lag low observed-generation-not-integer Foo n/bool: status.observedGeneration is a boolean ("true"), not an integer',
      'status-lag low observed-generation-not-integer Foo n/frac: status.observedGeneration is 1.5, not an integer',
      'status-lag low observed-generation-not-integer Foo n/obj: status.observedGeneration is an object ("{\\"v\\":2}"), not an integer',
    ]);
  });
});

describe('crd --help', () => {
  it('every example names a file or stdin (a directory is an input error)', async () => {
    const a = io();
    expect(await main(['crd', '--help'], a.io)).toBe(0);
    const examples = a
      .out()
      .split('Examples:')[1]!
      .split('\n')
      .filter((l) => l.includes('auditstorm crd'));
    expect(examples.length).toBe(3);
    for (const l of examples) expect(l).toMatch(/auditstorm crd (-|\S+\.ya?ml)(\s|$)/);
  });
});

describe('YAML with a key twice', () => {
  it('two manifests joined without --- are an input error naming the line, not one CRD silently lost', () => {
    const one = (name: string): string => `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${name}\n`;
    expect(() => crdReport(input('joined.yaml', one('a.acme.io') + one('b.acme.io')), {}, NOW)).toThrow(/^joined\.yaml:5:1: not valid YAML: Map keys must be unique/);
  });
});
