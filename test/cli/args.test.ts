import { describe, expect, it } from 'vitest';
import { parseArgs, type ParsedArgs } from '../../src/cli/args.js';
import { UsageError } from '../../src/errors.js';

async function run(argv: string[]): Promise<ParsedArgs> {
  const r = await parseArgs(argv, '9.9.9');
  if (r.kind !== 'run') throw new Error(`expected a run, got: ${r.text}`);
  return r.args;
}

describe('parseArgs', () => {
  it('parses the default command with nothing', async () => {
    expect(await run([])).toEqual({
      paths: [],
      namespace: [],
      user: [],
      resource: [],
      verb: [],
      code: [],
      out: [],
      noColor: false,
      quiet: false,
    });
  });

  it('takes paths with or without the analyze command, and after --', async () => {
    expect((await run(['a.log', 'b.log.gz'])).paths).toEqual(['a.log', 'b.log.gz']);
    expect((await run(['analyze', 'a.log', 'dir/'])).paths).toEqual(['a.log', 'dir/']);
    expect((await run(['a.log', '--', '-odd.log'])).paths).toEqual(['a.log', '-odd.log']);
    expect((await run(['-'])).paths).toEqual(['-']);
  });

  it('collects repeated and comma-separated filters', async () => {
    const a = await run(['-n', 'shop,billing', '--namespace', 'ops', '--user', 'u1', '--verb', 'update,patch', '--resource', 'deployments.apps', 'x.log']);
    expect(a.namespace).toEqual(['shop', 'billing', 'ops']);
    expect(a.user).toEqual(['u1']);
    expect(a.verb).toEqual(['update', 'patch']);
    expect(a.resource).toEqual(['deployments.apps']);
    expect(a.paths).toEqual(['x.log']);
  });

  it('keeps the last value of a single-valued flag', async () => {
    const a = await run(['--top', '3', '--top', '7', '--format', 'json', '--format', 'markdown']);
    expect(a.top).toBe(7);
    expect(a.format).toBe('markdown');
  });

  it('maps every option', async () => {
    const a = await run([
      '--since',
      '15m',
      '--until',
      '2026-08-08T18:00:00Z',
      '--config',
      'c.yaml',
      '--window',
      '2m',
      '--step',
      '20s',
      '--min-conflicts',
      '30',
      '--min-conflict-ratio',
      '0.5',
      '--format',
      'json',
      '-o',
      'r.json',
      '--out',
      'r.md',
      '--fail-on',
      'high',
      '--top',
      '5',
      '--max-line-length',
      '1024',
      '--no-color',
      '-q',
      '--code',
      '409,4xx',
      '--code',
      '2xx',
    ]);
    expect(a).toEqual({
      paths: [],
      since: '15m',
      until: '2026-08-08T18:00:00Z',
      namespace: [],
      user: [],
      resource: [],
      verb: [],
      code: ['409', '4xx', '2xx'],
      config: 'c.yaml',
      window: '2m',
      step: '20s',
      minConflicts: 30,
      minConflictRatio: 0.5,
      format: 'json',
      out: ['r.json', 'r.md'],
      failOn: 'high',
      top: 5,
      maxLineLength: 1024,
      noColor: true,
      quiet: true,
    });
  });

  it.each([
    [['--bogus'], 'Unknown argument: bogus'],
    [['--colour'], 'Unknown argument: colour'],
    [['--no-such-flag'], 'Unknown argument: no-such-flag'],
    [['--min-conflict', '3'], 'Unknown argument: min-conflict'],
    [['--color'], 'Unknown argument: color'],
    [['--no-quiet'], 'Unknown argument: no-quiet'],
    // Not dot-notation: `--since.x=1` was read as since={x:1}, then as the time "[object Object]".
    [['--since.x=1'], 'Unknown argument: since.x'],
    [['--format', 'xml'], 'Invalid values: Argument: format, Given: "xml", Choices: "text", "json", "markdown", "html"'],
    [['--fail-on', 'severe'], 'Invalid values: Argument: fail-on, Given: "severe", Choices: "info", "low", "medium", "high", "critical"'],
    [['-n'], 'Not enough arguments following: n'],
    [['--since'], 'Not enough arguments following: since'],
    [['--top', 'abc'], '--top: expected a whole number > 0'],
    [['--top', '1.5'], '--top: expected a whole number > 0'],
    [['--max-line-length', '0'], '--max-line-length: expected a whole number > 0'],
    [['--min-conflicts', '0'], '--min-conflicts: expected a whole number > 0'],
    [['--min-conflict-ratio', '2'], '--min-conflict-ratio: expected a number from 0 to 1'],
  ])('rejects %j with a usage error', async (argv, message) => {
    const err = await parseArgs(argv, '9.9.9').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(message);
    expect((err as UsageError).hint).toBe('run `auditstorm --help` for usage');
  });

  it('prints help with the groups and examples', async () => {
    const r = await parseArgs(['--help'], '9.9.9');
    expect(r.kind).toBe('print');
    const text = r.kind === 'print' ? r.text : '';
    for (const heading of ['Input:', 'Filters:', 'Detection:', 'Output:', 'Examples:']) expect(text).toContain(heading);
    for (const flag of [
      '--since',
      '--until',
      '--namespace',
      '--user',
      '--resource',
      '--verb',
      '--config',
      '--window',
      '--step',
      '--min-conflicts',
      '--min-conflict-ratio',
      '--format',
      '--out',
      '--fail-on',
      '--top',
      '--max-line-length',
      '--no-color',
      '--quiet',
      '--version',
    ]) {
      expect(text).toContain(flag);
    }
    expect(text.indexOf('Input:')).toBeLessThan(text.indexOf('Filters:'));
    expect(text.indexOf('Filters:')).toBeLessThan(text.indexOf('Detection:'));
    expect(text.indexOf('Detection:')).toBeLessThan(text.indexOf('Output:'));
    expect((await parseArgs(['-h'], '9.9.9')).kind).toBe('print');
    expect((await parseArgs(['analyze', '--help'], '9.9.9')).kind).toBe('print');
  });

  it('reads an explicit analyze as the default command, and paths named like commands as paths', async () => {
    expect(await run(['analyze', 'a.log', '--top', '3'])).toEqual(await run(['a.log', '--top', '3']));
    for (const name of ['analyze', 'watch', 'serve']) {
      const r = await run(['analyze', name]);
      expect([r.command, r.paths]).toEqual([undefined, [name]]);
    }
    expect((await run(['analyze'])).paths).toEqual([]);
  });

  it('shows the defaults it is given, without applying them', async () => {
    const defaults = { window: '1m', step: '10s', minConflicts: 20, minConflictRatio: 0.3, top: 10, maxLineLength: 1024 };
    const r = await parseArgs(['--help'], '9.9.9', 200, defaults);
    const text = r.kind === 'print' ? r.text : '';
    for (const shown of ['[default: 1m]', '[default: 10s]', '[default: 20]', '[default: 0.3]', '[default: 10]', '[default: 1024]', '[default: text]']) {
      expect(text).toContain(shown);
    }
    expect(await run([])).not.toHaveProperty('top');
    const args = await parseArgs([], '9.9.9', 80, defaults);
    expect(args.kind === 'run' && args.args.window).toBeUndefined();
  });

  it('prints the version', async () => {
    expect(await parseArgs(['--version'], '9.9.9')).toEqual({ kind: 'print', text: '9.9.9\n' });
  });
});

describe('help as a word', () => {
  it('`auditstorm help` prints the help instead of reading stdin', async () => {
    const r = await parseArgs(['help'], '0.0.0');
    expect(r.kind).toBe('print');
    expect(r.kind === 'print' && r.text.includes('Exit codes: 0 success')).toBe(true);
  });
});
