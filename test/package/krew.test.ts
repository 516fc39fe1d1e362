/**
 * The krew plugin manifest (`plugins/auditstorm.yaml`): krew's Plugin kind, named as its file,
 * at the package's version, pointing at the release archive `scripts/krew-archive.sh` builds.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repositoryUrl } from '../../src/docs-link.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Platform {
  selector: { matchExpressions: Array<{ key: string; operator: string; values: string[] }> };
  uri: string;
  sha256: string;
  bin: string;
  files: Array<{ from: string; to: string }>;
}

describe('plugins/auditstorm.yaml', () => {
  const m = parse(readFileSync(path.join(ROOT, 'plugins/auditstorm.yaml'), 'utf8')) as {
    apiVersion: string;
    kind: string;
    metadata: { name: string };
    spec: { version: string; homepage: string; shortDescription: string; description: string; caveats: string; platforms: Platform[] };
  };
  const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

  it('is a krew Plugin named as its file, at the package version', () => {
    expect(m.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(m.kind).toBe('Plugin');
    expect(m.metadata.name).toBe('auditstorm');
    expect(m.spec.version).toBe(`v${version}`);
    expect(m.spec.homepage).toBe(repositoryUrl());
    expect(m.spec.shortDescription.length).toBeLessThanOrEqual(60);
    expect(m.spec.caveats).toContain('Node.js');
  });

  it('installs the release archive for Linux and macOS, with the launcher as bin', () => {
    expect(m.spec.platforms).toHaveLength(1);
    const p = m.spec.platforms[0]!;
    expect(p.selector.matchExpressions).toEqual([{ key: 'os', operator: 'In', values: ['linux', 'darwin'] }]);
    expect(p.uri).toBe(`${repositoryUrl()}/releases/download/v${version}/auditstorm-krew-v${version}.tar.gz`);
    expect(p.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(p.bin).toBe('kubectl-auditstorm');
    expect(p.files.map((f) => f.from)).toEqual(['kubectl-auditstorm', 'package', 'LICENSE']);
  });
});
