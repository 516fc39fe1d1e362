/**
 * The benchmark's serve run (e): a `serve` child is fed a log as EventLists and reports its peak
 * RSS; every event POSTed must be counted once. Uses the built `dist/` (the run spawns it), as
 * `npm test` builds first.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distinctObjectLines, serveChild } from '../../dist/cli/bench.js';
import { removeTempDirs, tempDir } from '../parser/helpers.js';

afterAll(removeTempDirs);

describe('bench run (e): serve fed the distinct-object log', () => {
  it('counts every event of 2,500 posted in batches of 1,000 and reports a peak RSS', async () => {
    const file = join(tempDir(), 'distinct.log');
    writeFileSync(file, [...distinctObjectLines(2500)].join('\n') + '\n');
    const r = await serveChild(file);
    expect(r.events).toBe(2500);
    expect(r.maxRssMb).toBeGreaterThan(10);
    expect(r.ms).toBeGreaterThan(0);
  }, 60_000);
});
