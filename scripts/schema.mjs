// `npm run schema`: writes schema/report-v1.json (the report's JSON Schema) and docs/diff.schema.json, generated from the zod
// schema (src/report/json-schema.ts). Run after `npm run build` (the script does both).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REPORT_SCHEMA_PATH, reportJsonSchemaText } from '../dist/report/json-schema.js';

const target = fileURLToPath(new URL(`../${REPORT_SCHEMA_PATH}`, import.meta.url));
writeFileSync(target, reportJsonSchemaText());
process.stdout.write(`wrote ${REPORT_SCHEMA_PATH}\n`);

// The diff model's JSON Schema (src/diff/schema.ts), which embeds the report's findings.
const { diffJsonSchema } = await import('../dist/diff/schema.js');
writeFileSync(fileURLToPath(new URL('../docs/diff.schema.json', import.meta.url)), `${JSON.stringify(diffJsonSchema(), null, 2)}\n`);
process.stdout.write('wrote docs/diff.schema.json\n');
