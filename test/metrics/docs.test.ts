/**
 * `docs/detectors/resource-conflicts.md` is written by hand (the kind does not go through the
 * detector registry): its options table must name every option of `resourceConflictsOptions`
 * with its default, and nothing else.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resourceConflictsOptions } from '../../src/metrics/options.js';

const PAGE = readFileSync(path.resolve(import.meta.dirname, '../../docs/detectors/resource-conflicts.md'), 'utf8');

/** Every leaf option as `[dotted key, default]`. */
function leaves(value: unknown, prefix = ''): Array<[string, unknown]> {
  if (typeof value !== 'object' || value === null) return [[prefix, value]];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, prefix === '' ? k : `${prefix}.${k}`));
}

describe('docs/detectors/resource-conflicts.md', () => {
  it('lists every option with its default, and no other', () => {
    const expected = leaves(resourceConflictsOptions.parse({}));
    expect(expected.length).toBe(14);
    const rows = [...PAGE.matchAll(/^\| `([a-zA-Z.]+)` \| [^|]+ \| `([^`]+)` \|/gm)].map((m) => [m[1]!, JSON.parse(m[2]!) as unknown]);
    expect(rows).toEqual(expected);
  });
});
