/**
 * The per-kind pages `docs/detectors/<kind>.md`: one per built-in detector, each with the options
 * table generated from the detector's options schema (`npm run docs:detectors` rewrites it), so a
 * page whose options drifted from the code fails here; and every finding links to its page.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { DETECTORS } from '../../src/detectors/registry.js';
import { detectorDocsUrl, repositoryUrl } from '../../src/docs-link.js';
import { BEGIN, END, optionsTable, pagePath, withTable } from '../../scripts/detector-docs.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('docs/detectors pages', () => {
  for (const d of DETECTORS) {
    it(`${d.meta.id}: the options table is what the options schema generates (run \`npm run docs:detectors\`)`, async () => {
      const page = await readFile(path.join(ROOT, pagePath(d.meta.id)), 'utf8');
      expect(page.startsWith(`# \`${d.meta.id}\`\n`)).toBe(true);
      expect(page).toBe(withTable(page, optionsTable(d)));
      // Every option of the schema has its row, with its default.
      const defaults = d.meta.optionsSchema.parse({}) as Record<string, unknown>;
      for (const [key, value] of Object.entries(defaults)) {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) expect(page).toContain(`| \`${key}\` |`);
      }
    });
  }

  it('the table names each option with its default (hot-loop)', () => {
    const hot = DETECTORS.find((d) => d.meta.id === 'hot-loop')!;
    const table = optionsTable(hot);
    expect(table).toContain('| `minExcessWrites` | number > 0 | `500` |');
    expect(table).toContain('| `severityExcess.critical` | number ≥ 0 | `3000` |');
    expect(table).toContain('| `changeWritesPerSec` | number ≥ 0 | `1` | Writes per second (per object) a healthy controller may make');
  });

  it('a page with a stale table is rewritten, one without markers is refused', () => {
    const stale = `# x\n\n${BEGIN}\n| old |\n${END}\n`;
    expect(withTable(stale, 'new')).toBe(`# x\n\n${BEGIN}\nnew\n${END}\n`);
    expect(() => withTable('# x\n', 'new')).toThrow('no options markers');
  });
});

describe('docs links', () => {
  it('derive from the repository package.json names', () => {
    expect(repositoryUrl('git+https://github.com/o/r.git')).toBe('https://github.com/o/r');
    expect(repositoryUrl({ url: 'https://example.org/o/r/' })).toBe('https://example.org/o/r');
    expect(() => repositoryUrl({})).toThrow('names no repository');
    expect(detectorDocsUrl('hot-loop')).toBe(`${repositoryUrl()}/blob/main/docs/detectors/hot-loop.md`);
  });

  it('every finding and note of the sample carries the link to its kind page', async () => {
    const report = await analyze({ inputs: [path.join(ROOT, 'fixtures/sample/audit.log.gz')] }, { now: () => new Date(0) });
    const all = [...report.findings, ...report.notes];
    expect(all.length).toBe(4);
    expect(all.map((f) => f.docs)).toEqual(all.map(() => `${repositoryUrl()}/blob/main/docs/detectors/conflict-storm.md`));
  });
});
