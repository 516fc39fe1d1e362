import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { createOptions, useColor, useProgress, type TermInfo } from '../../src/cli/options.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { AnalyzeOptionsSchema } from '../../src/options.js';

/** Parse flags, then createOptions with `files` as the only readable files. */
async function opts(argv: string[], files: Record<string, string> = {}, term?: TermInfo) {
  const r = await parseArgs(argv, '0.0.0');
  if (r.kind !== 'run') throw new Error('not a run');
  const readFile = async (path: string) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
    return text;
  };
  return createOptions(r.args, readFile, term ? { term } : {});
}

async function failure(argv: string[], files: Record<string, string> = {}): Promise<Error> {
  const e = await opts(argv, files).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof Error)) throw new Error('expected createOptions to fail');
  return e;
}

const tty: TermInfo = { stdoutIsTTY: true, stderrIsTTY: true, env: {} };

describe('createOptions', () => {
  it('gives minimal options when nothing is set, valid for the core schema', async () => {
    const o = await opts(['audit.log']);
    expect(o.analyze).toEqual({ inputs: ['audit.log'], namespaces: [], users: [], resources: [], verbs: [], detectors: {} });
    expect(AnalyzeOptionsSchema.safeParse(o.analyze).success).toBe(true);
    expect(o.output).toEqual({ format: 'text', stdout: true, outs: [], codes: [], color: false, progress: false, quiet: false });
  });

  it('maps every flag', async () => {
    const o = await opts([
      'a.log',
      'b.log',
      '--since',
      '15m',
      '--until',
      '2026-08-08T18:00:00Z',
      '-n',
      'shop,ops',
      '--user',
      'u',
      '--resource',
      'pods',
      '--verb',
      'update',
      '--window',
      '2m',
      '--step',
      '20s',
      '--min-conflicts',
      '30',
      '--min-conflict-ratio',
      '0.5',
      '--fail-on',
      'high',
      '--top',
      '5',
      '--max-line-length',
      '1024',
    ]);
    expect(o.analyze).toEqual({
      inputs: ['a.log', 'b.log'],
      since: '15m',
      until: '2026-08-08T18:00:00Z',
      namespaces: ['shop', 'ops'],
      users: ['u'],
      resources: ['pods'],
      verbs: ['update'],
      detectors: { 'conflict-storm': { windowMs: 120_000, stepMs: 20_000, minConflicts: 30, minConflictRatio: 0.5 } },
      failOn: 'high',
      top: 5,
      maxLineLength: 1024,
    });
    expect(o.output.failOn).toBe('high');
    expect(AnalyzeOptionsSchema.safeParse(o.analyze).success).toBe(true);
  });

  it('lets flags override the config file, and the config file the defaults', async () => {
    const config = [
      'since: 2h',
      'namespace: [shop, billing]',
      'user: system:serviceaccount:shop:*',
      'failOn: medium',
      'top: 20',
      'maxLineLength: 2048',
      'window: 2m',
      'detectors:',
      '  conflict-storm:',
      '    minConflicts: 30',
      '    minConflictRatio: 0.4',
    ].join('\n');
    const fromFile = await opts(['--config', 'config.yaml'], { 'config.yaml': config });
    expect(fromFile.analyze).toEqual({
      inputs: [],
      since: '2h',
      namespaces: ['shop', 'billing'],
      users: ['system:serviceaccount:shop:*'],
      resources: [],
      verbs: [],
      failOn: 'medium',
      top: 20,
      maxLineLength: 2048,
      detectors: { 'conflict-storm': { minConflicts: 30, minConflictRatio: 0.4, windowMs: 120_000 } },
    });
    expect(fromFile.output.failOn).toBe('medium');

    const flagsWin = await opts(['--config', 'config.yaml', '--since', '30m', '-n', 'ops', '--fail-on', 'critical', '--top', '3', '--window', '30s', '--min-conflicts', '5'], {
      'config.yaml': config,
    });
    expect(flagsWin.analyze).toMatchObject({
      since: '30m',
      namespaces: ['ops'],
      users: ['system:serviceaccount:shop:*'],
      failOn: 'critical',
      top: 3,
      maxLineLength: 2048,
      detectors: { 'conflict-storm': { minConflicts: 5, minConflictRatio: 0.4, windowMs: 30_000 } },
    });
    expect(flagsWin.output.failOn).toBe('critical');
  });

  it('reads JSON config files too', async () => {
    const o = await opts(['--config', 'c.json'], { 'c.json': '{"verb": "update,patch", "step": "20s"}' });
    expect(o.analyze.verbs).toEqual(['update', 'patch']);
    expect(o.analyze.detectors).toEqual({ 'conflict-storm': { stepMs: 20_000 } });
  });

  it('treats an empty config file as no settings', async () => {
    const o = await opts(['--config', 'empty.yaml'], { 'empty.yaml': '# nothing yet\n' });
    expect(o.analyze.detectors).toEqual({});
  });

  describe('config errors', () => {
    it('reports bad YAML with file, line and column', async () => {
      const e = await failure(['--config', 'config.yaml'], { 'config.yaml': 'top: 5\nsince: a: b\n' });
      expect(e).toBeInstanceOf(ConfigError);
      expect(e.message).toBe('config.yaml:2:8: Nested mappings are not allowed in compact mappings');
    });

    it('reports duplicate keys', async () => {
      const e = await failure(['--config', 'config.yaml'], { 'config.yaml': 'top: 5\ntop: 6\n' });
      expect(e.message).toBe('config.yaml:2:1: Map keys must be unique');
    });

    it('reports a wrong type in detector options with the field path', async () => {
      const e = await failure(['--config', 'config.yaml'], {
        'config.yaml': 'detectors:\n  conflict-storm:\n    minConflicts: "30"\n',
      });
      expect(e).toBeInstanceOf(ConfigError);
      expect(e.message).toBe('config.yaml: detectors.conflict-storm.minConflicts: expected number, received string');
    });

    it('reports a wrong type at the top level', async () => {
      const e = await failure(['--config', 'config.yaml'], { 'config.yaml': 'top: ten\n' });
      expect(e.message).toBe('config.yaml: top: expected number, received string');
      const e2 = await failure(['--config', 'config.yaml'], { 'config.yaml': 'top: 2.5\n' });
      expect(e2.message).toBe('config.yaml: top: expected an integer');
      const e3 = await failure(['--config', 'config.yaml'], { 'config.yaml': 'namespace: 7\n' });
      expect(e3.message).toBe('config.yaml: namespace: expected a string or a list of strings');
      const e4 = await failure(['--config', 'config.yaml'], { 'config.yaml': 'failOn: severe\n' });
      expect(e4.message).toBe('config.yaml: failOn: expected one of "info"|"low"|"medium"|"high"|"critical"');
    });

    it('rejects unknown top-level keys', async () => {
      const e = await failure(['--config', 'config.yaml'], { 'config.yaml': 'namespaces: [shop]\n' });
      expect(e).toBeInstanceOf(ConfigError);
      expect(e.message).toBe('config.yaml: unknown key "namespaces"');
      expect((e as ConfigError).hint).toBe(
        'known keys: since, until, namespace, user, resource, verb, code, failOn, top, groupFindings, maxLineLength, threads, reorderWindow, inputFormat, window, step, minConflicts, minConflictRatio, detectors, allowlist, defaultAllowlist',
      );
    });

    it('rejects unknown detector options and unknown detectors', async () => {
      const e = await failure(['--config', 'config.yaml'], { 'config.yaml': 'detectors:\n  conflict-storm:\n    minConflict: 3\n' });
      expect(e.message).toBe('config.yaml: detectors.conflict-storm: unknown key "minConflict"');
      const e2 = await failure(['--config', 'config.yaml'], { 'config.yaml': 'detectors:\n  conflict-storms: {}\n' });
      expect(e2.message).toBe('config.yaml: detectors.conflict-storms: unknown detector');
      expect((e2 as ConfigError).hint).toBe('known detectors: conflict-storm, create-conflict-storm, create-storm, fleet-storm, hot-loop, no-op-writes, throttling, write-fight');
    });

    it('rejects a top level that is not a mapping', async () => {
      const e = await failure(['--config', 'c.yaml'], { 'c.yaml': '- shop\n- ops\n' });
      expect(e.message).toBe('c.yaml: expected a mapping of options (since, namespace, detectors, …), got a list');
    });

    it('rejects bad durations and time bounds', async () => {
      expect((await failure(['--config', 'c.yaml'], { 'c.yaml': 'window: 60\n' })).message).toBe('c.yaml: window: "60" has no unit (did you mean 60s?)');
      expect((await failure(['--config', 'c.yaml'], { 'c.yaml': 'step: 1x\n' })).message).toBe('c.yaml: step: "1x" is not a duration (expected e.g. 90s, 15m, 1h30m)');
      expect((await failure(['--config', 'c.yaml'], { 'c.yaml': 'step: [1s]\n' })).message).toBe('c.yaml: step: expected a duration such as 60s');
      expect((await failure(['--config', 'c.yaml'], { 'c.yaml': 'since: yesterday\n' })).message).toBe(
        'c.yaml: since: "yesterday" is neither an RFC 3339 time (2026-08-08T18:00:00Z) nor a duration (15m, 2h)',
      );
    });

    it('rejects the same setting twice', async () => {
      const e = await failure(['--config', 'c.yaml'], { 'c.yaml': 'window: 2m\ndetectors:\n  conflict-storm:\n    windowMs: 60000\n' });
      expect(e.message).toBe('c.yaml: window: also set as detectors.conflict-storm.windowMs; keep one');
    });

    it('reports a missing config file', async () => {
      const e = await failure(['--config', 'nope.yaml']);
      expect(e).toBeInstanceOf(ConfigError);
      expect(e.message).toBe('nope.yaml: cannot read config file: no such file or directory');
    });
  });

  describe('flag errors', () => {
    it.each([
      [['--window', 'abc'], '--window: "abc" is not a duration (expected e.g. 90s, 15m, 1h30m)'],
      [['--step', '10'], '--step: "10" has no unit (did you mean 10s?)'],
      [['--window', '0s'], '--window: must be longer than 0'],
      [['--since', 'yesterday'], '--since: "yesterday" is neither an RFC 3339 time (2026-08-08T18:00:00Z) nor a duration (15m, 2h)'],
      [['--min-conflicts', '2.5'], '--min-conflicts: expected a whole number > 0'],
      [['--window', '45s'], '--window 45s: --window must be a multiple of --step (10s)'],
      [['-o', 'r.json', '-o', 'r.json'], '--out r.json: given twice'],
    ])('%j → UsageError', async (argv, message) => {
      const e = await failure(argv);
      expect(e).toBeInstanceOf(UsageError);
      expect(e.message).toBe(message);
    });

    it('blames the flag, not the file, for a rule a flag broke', async () => {
      const e = await failure(['--config', 'c.yaml', '--step', '7s'], { 'c.yaml': 'window: 1m\n' });
      expect(e).toBeInstanceOf(UsageError);
      expect(e.message).toBe('--step 7s: --window must be a multiple of --step (7s)');
    });
  });

  describe('outputs', () => {
    it('derives out formats from extensions and keeps stdout off when only files are asked for', async () => {
      const o = await opts(['-o', 'r.json', '-o', 'r.md', '--out', 'r.txt']);
      expect(o.output.outs).toEqual([
        { path: 'r.json', format: 'json' },
        { path: 'r.md', format: 'markdown' },
        { path: 'r.txt', format: 'text' },
      ]);
      expect(o.output.stdout).toBe(false);
      expect(o.output.format).toBe('text');
    });

    it('keeps stdout on when --format is given explicitly', async () => {
      const o = await opts(['-o', 'r.json', '--format', 'markdown']);
      expect(o.output.stdout).toBe(true);
      expect(o.output.format).toBe('markdown');
      expect(o.output.outs).toEqual([{ path: 'r.json', format: 'json' }]);
      const t = await opts(['-o', 'r.json', '--format', 'text']);
      expect(t.output.stdout).toBe(true);
    });

    it('turns colour and progress on for terminals only', async () => {
      expect((await opts([], {}, tty)).output).toMatchObject({ color: true, progress: true });
      expect((await opts(['--no-color', '--quiet'], {}, tty)).output).toMatchObject({ color: false, progress: false, quiet: true });
      expect((await opts([], {}, { ...tty, env: { NO_COLOR: '1' } })).output).toMatchObject({ color: false, progress: true });
    });
  });
});

describe('useColor', () => {
  const term = (stdoutIsTTY: boolean, env: Record<string, string | undefined> = {}): TermInfo => ({ stdoutIsTTY, stderrIsTTY: false, env });
  it.each([
    ['a terminal', term(true), false, true],
    ['not a terminal', term(false), false, false],
    ['--no-color', term(true), true, false],
    ['NO_COLOR=1', term(true, { NO_COLOR: '1' }), false, false],
    ['NO_COLOR=0 (any non-empty value)', term(true, { NO_COLOR: '0' }), false, false],
    ['NO_COLOR empty', term(true, { NO_COLOR: '' }), false, true],
    ['FORCE_COLOR=0', term(true, { FORCE_COLOR: '0' }), false, false],
    ['FORCE_COLOR=1 on a pipe', term(false, { FORCE_COLOR: '1' }), false, false],
    ['FORCE_COLOR=1 on a terminal', term(true, { FORCE_COLOR: '1' }), false, true],
  ])('%s', (_name, t, flag, expected) => {
    expect(useColor(t, flag)).toBe(expected);
  });
});

describe('useProgress', () => {
  it('needs a terminal on stderr and no --quiet', () => {
    expect(useProgress({ stdoutIsTTY: false, stderrIsTTY: true, env: {} }, false)).toBe(true);
    expect(useProgress({ stdoutIsTTY: true, stderrIsTTY: false, env: {} }, false)).toBe(false);
    expect(useProgress({ stdoutIsTTY: true, stderrIsTTY: true, env: {} }, true)).toBe(false);
  });
});

describe('allowlist in the config file', () => {
  it('passes extra rules and defaultAllowlist to the analysis', async () => {
    const { analyze } = await opts(['--config', 'c.yaml'], {
      'c.yaml': 'defaultAllowlist: false\nallowlist:\n  - name: my-heartbeat\n    users: ["system:serviceaccount:ops:beat"]\n    resources: [configmaps]\n',
    });
    expect(analyze.defaultAllowlist).toBe(false);
    expect(analyze.allowlist).toEqual([
      { name: 'my-heartbeat', description: '', users: ['system:serviceaccount:ops:beat'], userAgents: [], namespaces: [], resources: ['configmaps'], verbs: [], detectors: [] },
    ]);
  });
});

describe('conflict-storm thresholds at the top of the config file', () => {
  it('minConflicts and minConflictRatio map to detectors.conflict-storm; flags still win', async () => {
    const { analyze } = await opts(['--config', 'c.yaml', '--min-conflicts', '7'], { 'c.yaml': 'minConflicts: 30\nminConflictRatio: 0.6\n' });
    expect(analyze.detectors).toEqual({ 'conflict-storm': { minConflicts: 7, minConflictRatio: 0.6 } });
  });

  it('--fail-on is case-insensitive', async () => {
    const { output } = await opts(['x.log', '--fail-on', 'CRITICAL']);
    expect(output.failOn).toBe('critical');
  });
});

describe('--reorder-window', () => {
  it('takes a duration from the flag or the config file', async () => {
    expect((await opts(['x.log', '--reorder-window', '30s'])).analyze.reorderWindowMs).toBe(30_000);
    expect((await opts(['--config', 'c.yaml'], { 'c.yaml': 'reorderWindow: 1m\n' })).analyze.reorderWindowMs).toBe(60_000);
  });
});
