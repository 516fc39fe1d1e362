/**
 * Problems found by trying `auditstorm objects`, `crd` and `metrics` as a new user would, on
 * hand-written inputs: each test failed before its fix.
 */
import { describe, expect, it } from 'vitest';
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
        apiVersion: 'apps.acme.io/v1', kind: 'Wid\rget',
        metadata: { name: 'w-\u001b[2J\u0007evil<b>', namespace: 'ns\u202eevil', generation: 2 },
        status: { observedGeneration: 5, conditions: [{ type: 'Ready', status: 'True', reason: 'Bad\u001b]0;t\u0007Reason', message: 'm', lastTransitionTime: '2026-12-06T00:00:00Z' }] },
      },
    ],
  };
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'w\u001b[31m.acme.io' },
    spec: { group: 'acme.io', names: { kind: 'W\u0007' }, versions: [{ name: 'v1\r', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { status: { type: 'object' } } } } }] },
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
