/**
 * The layering of ARCHITECTURE.md, checked on the import statements of `src/`: decoding is pure
 * (no input or output, nothing from the layers after it), only `src/cli` and the entry points
 * read `process`, and no module imports itself through others (no import cycles).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

/** Per module (path relative to src/), the specifiers it imports, with `import type` ones marked. */
const MODULES = new Map<string, { specs: string[]; relative: string[] }>();
for (const f of tsFiles(SRC)) {
  const text = readFileSync(f, 'utf8');
  const specs: string[] = [];
  for (const m of text.matchAll(IMPORT)) specs.push((m[1] ?? m[2])!);
  const rel = specs.filter((s) => s.startsWith('.')).map((s) => normalize(relative(SRC, join(dirname(f), s.replace(/\.js$/, '.ts')))));
  MODULES.set(relative(SRC, f), { specs, relative: rel });
}

describe('layers of src/', () => {
  it('reads every module (the import pattern finds imports)', () => {
    expect(MODULES.size).toBeGreaterThan(100);
    expect(MODULES.get('decoding/decode.ts')!.relative).toEqual(['decoding/time.ts', 'decoding/event.ts', 'decoding/uri.ts']);
  });

  it('decoding imports nothing from ingest, the engine, detectors, reports, live, fleet or cli, and does no I/O', () => {
    const bad: string[] = [];
    for (const [m, { specs, relative: rel }] of MODULES) {
      if (!m.startsWith('decoding/')) continue;
      for (const r of rel) if (!/^(decoding\/|labels\.ts$)/.test(r)) bad.push(`${m} → ${r}`);
      for (const s of specs) if (/^node:(fs|fs\/promises|net|http|https|worker_threads|child_process|stream|readline)$/.test(s)) bad.push(`${m} → ${s}`);
    }
    expect(bad).toEqual([]);
  });

  it('only src/cli touches process.argv, process.exit and process.exitCode', () => {
    const bad = [...MODULES.keys()].filter((m) => !m.startsWith('cli/') && /process\.(argv|exit\b|exitCode)/.test(readFileSync(join(SRC, m), 'utf8')));
    expect(bad).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (m: string): void => {
      state.set(m, 'open');
      stack.push(m);
      for (const d of MODULES.get(m)?.relative ?? []) {
        if (state.get(d) === 'open') cycles.push([...stack.slice(stack.indexOf(d)), d].join(' → '));
        else if (!state.has(d) && MODULES.has(d)) visit(d);
      }
      stack.pop();
      state.set(m, 'done');
    };
    for (const m of [...MODULES.keys()].sort()) if (!state.has(m)) visit(m);
    expect(cycles).toEqual([]);
  });
});
