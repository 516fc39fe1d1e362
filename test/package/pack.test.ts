/**
 * What `npm pack` ships (package.json `files`): what a user runs and reads, nothing of the
 * developer tools. Reads the dist/ of the last `npm run build` (`npm test` builds first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DETECTORS } from '../../src/detectors/registry.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Relative specifiers a module loads: static and dynamic imports, and `new URL('./x.js', …)` (worker files). */
function localImports(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    out.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!)));
  }
  return out;
}

/** Every file reachable from `entries` through {@link localImports}, package-relative. */
function reachable(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    if (f.endsWith('.js') && existsSync(path.join(ROOT, f))) todo.push(...localImports(f));
  }
  return seen;
}

describe('npm pack', () => {
  let files: string[] = [];
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; main: string; types: string };

  beforeAll(() => {
    // --ignore-scripts: `prepare` would build again; the suite runs after a build.
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path).sort();
  }, 60_000);

  it('ships the entry points, the native sources, the schema, the licence, the README and a page per finding kind', () => {
    const wanted = [
      ...Object.values(pkg.bin).map((b) => path.posix.normalize(b)),
      pkg.main,
      pkg.types,
      'binding.gyp',
      'native/scan.cc',
      'schema/report-v1.json',
      'LICENSE',
      'README.md',
      'package.json',
      ...DETECTORS.map((d) => `docs/detectors/${d.meta.id}.md`),
    ];
    expect(wanted.filter((f) => !files.includes(f))).toEqual([]);
  });

  it('ships every module the CLI, its worker threads and the public API load', () => {
    const needed = [...reachable(['bin/auditstorm.js', pkg.main])];
    expect(needed.length).toBeGreaterThan(50);
    expect(needed.filter((f) => !files.includes(f))).toEqual([]);
  });

  it('ships none of the generator, the evaluation and its simulator, the benchmark or other developer tools', () => {
    const dev = files.filter((f) => /^dist\/(generator|eval|sim|bench)\//.test(f) || /^dist\/cli\/(bench|eval|generate|dev-tool)\./.test(f));
    expect(dev).toEqual([]);
    expect(files.filter((f) => /^(src|test|fixtures|scripts|build|\.ci)\//.test(f))).toEqual([]);
  });

  it('ships no source map whose sources are not shipped', () => {
    const broken: string[] = [];
    for (const map of files.filter((f) => f.endsWith('.map'))) {
      const m = JSON.parse(readFileSync(path.join(ROOT, map), 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
      if (m.sourcesContent !== undefined && m.sourcesContent.length === m.sources.length) continue;
      for (const s of m.sources) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(map), s));
        if (!files.includes(target)) broken.push(`${map} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
