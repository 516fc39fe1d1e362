/**
 * The committed JSON Schema of the report (`schema/report-v1.json`): it is what the zod schema
 * generates, and reports made from the fixtures, the evaluation's cases (every finding kind) and
 * the renderer fixtures are valid against it under ajv (draft 2020-12).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { defaultCases, specFor } from '../../src/eval/evaluate.js';
import { writeLog } from '../../src/generator/generate.js';
import { REPORT_SCHEMA_PATH, reportJsonSchemaText } from '../../src/report/json-schema.js';
import { renderJson } from '../../src/report/json.js';
import type { Report } from '../../src/report/schema.js';
import { cleanReport, copy, hostileReport, report as rendererReport } from './fixture.js';
import { assertValidReport, checkedReports } from '../setup/report-schema.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const now = (): Date => new Date('2026-08-08T19:00:00.000Z');
/** One evaluation case per finding kind, plus a mixed log; seed 2 (randomized names). */
const CASES = ['hotLoop', 'noOpWrites/RequestResponse', 'writeFight', 'createConflictStorm', 'fleetStorm/kubelet', 'throttling', 'mixed/fleet'];

async function committedSchema(): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path.join(ROOT, REPORT_SCHEMA_PATH), 'utf8')) as Record<string, unknown>;
}

describe('schema/report-v1.json', () => {
  it('is the schema generated from ReportSchema (run `npm run schema` after changing src/report/schema.ts)', async () => {
    expect(await readFile(path.join(ROOT, REPORT_SCHEMA_PATH), 'utf8')).toBe(reportJsonSchemaText());
  });
});

describe('JSON reports validate against the committed schema', () => {
  const reports = new Map<string, string>();
  let dir = '';

  beforeAll(async () => {
    reports.set('renderer fixture', renderJson(rendererReport));
    reports.set('renderer fixture without findings', renderJson(cleanReport));
    reports.set('renderer fixture with hostile strings', renderJson(hostileReport()));
    reports.set('fixtures/sample', renderJson(await analyze({ inputs: [path.join(ROOT, 'fixtures/sample/audit.log.gz')] }, { now })));
    reports.set('fixtures/incident', renderJson(await analyze({ inputs: [path.join(ROOT, 'fixtures/incident/payment-core.log')] }, { now })));
    dir = await mkdtemp(path.join(tmpdir(), 'auditstorm-schema-'));
    const cases = defaultCases();
    for (const name of CASES) {
      const c = cases.find((x) => x.name === name);
      if (c === undefined) throw new Error(`no evaluation case ${name}`);
      const file = path.join(dir, `${name.replace(/\W+/g, '_')}.log`);
      await writeLog(file, specFor(c, 2));
      reports.set(`case ${name}`, renderJson(await analyze({ inputs: [file] }, { now })));
    }
  }, 120_000);

  afterAll(async () => {
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  it('every report is valid, and together they hold every finding kind', async () => {
    const validate = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(await committedSchema());
    const kinds = new Set<string>();
    for (const [name, text] of reports) {
      const value = JSON.parse(text) as Report;
      const ok = validate(value);
      expect({ name, errors: ok ? null : validate.errors }).toEqual({ name, errors: null });
      for (const f of [...value.findings, ...value.notes]) kinds.add(f.kind);
    }
    expect(reports.size).toBe(12);
    expect([...kinds].sort()).toEqual(['conflict-storm', 'create-conflict-storm', 'fleet-storm', 'hot-loop', 'no-op-writes', 'throttling', 'write-fight']);
  });

  it('rejects what the zod schema rejects: an unknown severity, an extra field, a missing field, a fractional count', async () => {
    const validate = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(await committedSchema());
    const base = JSON.parse(reports.get('fixtures/sample')!) as Report;
    expect(validate(base)).toBe(true);
    const badSeverity = copy(base) as unknown as { findings: Array<{ severity: string }> };
    badSeverity.findings[0]!.severity = 'urgent';
    expect(validate(badSeverity)).toBe(false);
    expect(validate({ ...copy(base), extra: 1 })).toBe(false);
    const noInput = copy(base) as Partial<Report>;
    delete noInput.input;
    expect(validate(noInput)).toBe(false);
    const fractional = copy(base);
    fractional.input.requests = 1.5;
    expect(validate(fractional)).toBe(false);
  });
});

describe('the suite-wide check (test/setup/validate-reports.ts)', () => {
  it('checks each report analyze builds and each JSON rendering against the committed schema', async () => {
    const before = checkedReports.count;
    const report = await analyze({ inputs: [path.join(ROOT, 'fixtures/incident/payment-core.log')] }, { now });
    expect(checkedReports.count).toBe(before + 1);
    renderJson(report);
    expect(checkedReports.count).toBe(before + 2);
  });

  it('throws on a report the schema rejects', () => {
    const bad = copy(rendererReport) as unknown as { findings: Array<{ severity: string }> };
    bad.findings[0]!.severity = 'urgent';
    expect(() => assertValidReport(bad)).toThrow(/report does not match schema\/report-v1\.json: .*severity/);
  });
});
