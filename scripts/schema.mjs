// `npm run schema`: writes schema/report-v1.json, the report's JSON Schema generated from the zod
// schema (src/report/json-schema.ts). Run after `npm run build` (the script does both).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REPORT_SCHEMA_PATH, reportJsonSchemaText } from '../dist/report/json-schema.js';

const target = fileURLToPath(new URL(`../${REPORT_SCHEMA_PATH}`, import.meta.url));
writeFileSync(target, reportJsonSchemaText());
process.stdout.write(`wrote ${REPORT_SCHEMA_PATH}\n`);
