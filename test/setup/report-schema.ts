/**
 * The committed report schema (`schema/report-v1.json`) compiled once per test file, and a check
 * that throws with ajv's errors when a report does not match it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

let validate: ValidateFunction | undefined;

/** Reports checked so far in this test file (the setup's own test reads it). */
export const checkedReports = { count: 0 };

/**
 * Throws an Error naming the first schema errors when `value` is not a valid report.
 * @param value a Report as an object, or its JSON parsed
 */
export function assertValidReport(value: unknown): void {
  if (validate === undefined) {
    const schema = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../schema/report-v1.json'), 'utf8')) as Record<string, unknown>;
    validate = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
  }
  // Through JSON, as a reader of `--format json` sees it (undefined fields dropped).
  const plain = JSON.parse(JSON.stringify(value)) as unknown;
  checkedReports.count++;
  if (!validate(plain)) throw new Error(`report does not match schema/report-v1.json: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
}
