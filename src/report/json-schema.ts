/**
 * The JSON Schema (draft 2020-12) of the JSON report, generated from the zod schema
 * (`ReportSchema`, `src/report/schema.ts`) with `z.toJSONSchema`. The committed copy is
 * `schema/report-v1.json` (`npm run schema` writes it; a test fails when it differs from this).
 */
import { z } from 'zod';
import { repositoryUrl } from '../docs-link.js';
import { ReportSchema, SCHEMA_VERSION } from './schema.js';

/** Path of the committed schema, relative to the package root. */
export const REPORT_SCHEMA_PATH = `schema/report-v${SCHEMA_VERSION}.json`;

/**
 * The report's JSON Schema as an object: the output shape of `ReportSchema` (what `--format json`
 * writes), objects closed (`additionalProperties: false`), with `$id` the raw file in the
 * package's repository. Deterministic: the same zod schema gives the same object.
 */
export function reportJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(ReportSchema, { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: `${repositoryUrl()}/raw/main/${REPORT_SCHEMA_PATH}`,
    title: `auditstorm report, schemaVersion ${SCHEMA_VERSION}`,
    description:
      'The JSON report of auditstorm (analyze --format json, watch/serve final reports, serve GET /report). Times are UTC ISO 8601 strings with millisecond precision, rates per second, durations in milliseconds. Generated from src/report/schema.ts by npm run schema.',
    ...rest,
  };
}

/** {@link reportJsonSchema} as the committed file's text: 2-space JSON with a trailing newline. */
export function reportJsonSchemaText(): string {
  return `${JSON.stringify(reportJsonSchema(), null, 2)}\n`;
}
