/**
 * Hostile config files: a YAML alias bomb ("billion laughs") or a document nested past the yaml
 * parser is a config error naming the file (exit 2), not an internal error with a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/options.js';
import { ConfigError } from '../../src/errors.js';
import { removeTempDirs, tempDir } from '../parser/helpers.js';

afterAll(removeTempDirs);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LOG = join(ROOT, 'fixtures', 'incident', 'payment-core.log');

/** Nine levels of anchors, each a list of nine aliases of the one before: 9⁹ strings once expanded. */
function aliasBomb(): string {
  const names = 'abcdefghi';
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let k = 1; k < names.length; k++) {
    const prev = `*${names[k - 1]}`;
    lines.push(`${names[k]}: &${names[k]} [${Array(9).fill(prev).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}

const BOMB_MESSAGE = 'its YAML aliases expand to more than 100 nodes (anchors referencing anchors)';
const BOMB_HINT = 'the config file must be YAML or JSON; write repeated values out instead of nesting aliases';

function configFile(text: string): string {
  const file = join(tempDir(), 'bomb.yaml');
  writeFileSync(file, text);
  return file;
}

/** `node bin/auditstorm.js analyze --config FILE` on the incident log (the built CLI). */
function analyzeWith(config: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'auditstorm.js'), 'analyze', '--config', config, LOG], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('config file', () => {
  it('an alias bomb is a config error naming the file (CLI, exit 2, no stack trace)', () => {
    const file = configFile(aliasBomb());
    const r = analyzeWith(file);
    expect(r).toEqual({ status: 2, stdout: '', stderr: `auditstorm: ${file}: ${BOMB_MESSAGE}\nhint: ${BOMB_HINT}\n` });
  });

  it('an alias bomb is a ConfigError from loadConfig', async () => {
    const err = await loadConfig('bomb.yaml', () => Promise.resolve(aliasBomb())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect([(err as ConfigError).message, (err as ConfigError).hint]).toEqual([`bomb.yaml: ${BOMB_MESSAGE}`, BOMB_HINT]);
  });

  it('a config nested past the yaml parser is a config error naming the file', () => {
    const file = configFile(`window: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
    const r = analyzeWith(file);
    expect(r).toEqual({
      status: 2,
      stdout: '',
      stderr: `auditstorm: ${file}: nested too deeply to read (collections inside collections, hundreds deep)\nhint: the config file must be YAML or JSON\n`,
    });
  });

  it('aliases a config file reasonably uses still resolve', async () => {
    const text = 'window: &w 2m\nstep: 10s\nnamespace: &ns [shop, payments]\ndetectors:\n  conflict-storm: &storm\n    minConflicts: 5\n  hot-loop: {}\nuser: *ns\n';
    const config = await loadConfig('ok.yaml', () => Promise.resolve(text));
    expect([config.window, config.namespace, config.user, config.detectors]).toEqual([
      '2m',
      ['shop', 'payments'],
      ['shop', 'payments'],
      { 'conflict-storm': { minConflicts: 5 }, 'hot-loop': {} },
    ]);
  });
});
