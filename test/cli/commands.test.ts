/**
 * Commands and flags (issue 27): per-command help, `watch --fail-on`, `-o FILE` without a known
 * extension, `--code`, shell completion, the kubectl plugin's name, `--version` and the native
 * scanner's one-time note.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import type { AnalyzeFn } from '../../src/cli/io.js';
import { main, programName, versionText } from '../../src/cli/main.js';
import { NATIVE_NOTE, nativeNoteOnce } from '../../src/cli/native-note.js';
import { createOptions } from '../../src/cli/options.js';
import { DETECTORS } from '../../src/detectors/registry.js';
import { codeMatches, filterByCodes, findingCodes, parseCodes } from '../../src/report/codes.js';
import { ReportSchema, type Finding, type Report } from '../../src/report/schema.js';
import { VERSION } from '../../src/version.js';
import { incidentLines } from '../live/helpers.js';
import { fakeFinding, fakeIO, fakeReport } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'auditstorm-commands-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function help(argv: string[]): Promise<string> {
  const r = await parseArgs(argv, '9.9.9', 120);
  if (r.kind !== 'print') throw new Error('expected help');
  return r.text;
}

/** The long flags a help text lists. */
function flags(text: string): Set<string> {
  return new Set([...text.matchAll(/^\s+(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]!));
}

describe('help per command', () => {
  const global = [
    '--config',
    '--reorder-window',
    '--since',
    '--until',
    '--namespace',
    '--user',
    '--resource',
    '--verb',
    '--code',
    '--window',
    '--step',
    '--min-conflicts',
    '--min-conflict-ratio',
    '--format',
    '--out',
    '--top',
    '--no-color',
    '--quiet',
    '--version',
    '--help',
  ];

  it('analyze lists its own flags and the global ones, none of serve or watch', async () => {
    for (const argv of [['analyze', '--help'], ['--help'], ['help']]) {
      const f = flags(await help(argv));
      expect([...f].sort()).toEqual([...global, '--max-line-length', '--input-format', '--threads', '--objects', '--fail-on'].sort());
    }
    expect(await help(['analyze', '--help'])).toContain('auditstorm a.log --code 409,429');
  });

  it('the command list names every command, the fleet ones included, and no literal $0', async () => {
    const text = (await help(['--help'])).replace(/\s+/g, ' ');
    for (const c of ['metrics', 'objects', 'crd', 'publish', 'worker', 'report']) expect(text).toContain(`see \`auditstorm ${c} --help\``);
    expect(text).not.toContain('$0');
  });

  it('watch lists --from-start and --fail-on, not --threads or the server flags', async () => {
    const text = await help(['watch', '--help']);
    expect([...flags(text)].sort()).toEqual([...global, '--max-line-length', '--input-format', '--from-start', '--fail-on'].sort());
    expect(text).toContain('Exit 1 at the end of the stream');
    const examples = text.slice(text.indexOf('Examples:')).replace(/\s+/g, ' ');
    expect(examples).toContain('CI: exit 1 if a high finding appeared');
    expect(examples).toContain('watch --fail-on high');
    expect(text).not.toContain('auditstorm a.log --code');
  });

  it('serve lists --listen and --tls-*, not --fail-on, --threads or --from-start', async () => {
    const text = await help(['serve', '--help']);
    expect([...flags(text)].sort()).toEqual(
      [...global, '--listen', '--token-file', '--tls-cert', '--tls-key', '--tls-client-ca', '--max-body-bytes', '--metrics-top', '--request-timeout'].sort(),
    );
    expect(text.replace(/\s+/g, ' ')).toContain('auditstorm serve --listen 127.0.0.1:0 -q A free port; only the bound address on stderr');
  });

  it('--reorder-window shows the default each command runs with: 5s in analyze, 1s in watch and serve', async () => {
    for (const [cmd, shown] of [
      ['analyze', '5s'],
      ['watch', '1s'],
      ['serve', '1s'],
    ] as const) {
      const h = fakeIO();
      expect(await main([cmd, '--help'], h)).toBe(0);
      const text = h.stdout.text.replace(/\s+/g, ' ');
      expect(text).toMatch(new RegExp(`--reorder-window How far .*? counted as late \\[string\\] \\[default: ${shown}\\]`));
    }
  });

  it('completion lists only --version and --help, and its shells', async () => {
    const text = await help(['completion', '--help']);
    expect([...flags(text)].sort()).toEqual(['--help', '--version']);
    expect(text).toContain('[choices: "bash", "zsh"]');
  });

  it('kubectl runs the plugin as kubectl-auditstorm: help says kubectl auditstorm', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { symlink } = await import('node:fs/promises');
    const plugin = join(dir, 'kubectl-auditstorm');
    await symlink(join(process.cwd(), 'bin', 'auditstorm.js'), plugin);
    const { stdout } = await promisify(execFile)(process.execPath, [plugin, 'watch', '--help']);
    expect(stdout.split('\n')[0]).toBe('kubectl auditstorm watch [paths..]');
  });

  it('a flag of another command names the command that takes it (exit 2)', async () => {
    for (const [argv, message, hint] of [
      [['a.log', '--listen', '127.0.0.1:1'], '--listen is an option of serve, not of analyze', 'run `auditstorm serve --help` for its options'],
      [['watch', '--tls-key', 'k.pem'], '--tls-key is an option of serve, not of watch', 'run `auditstorm serve --help` for its options'],
      [['serve', '--fail-on', 'high'], '--fail-on is an option of analyze and watch, not of serve', 'run `auditstorm analyze --help` for its options'],
      [['watch', '--threads', '2'], '--threads is an option of analyze, not of watch', 'run `auditstorm analyze --help` for its options'],
      [['a.log', '--from-start'], '--from-start is an option of watch, not of analyze', 'run `auditstorm watch --help` for its options'],
      [['watch', '--bogus'], 'Unknown argument: bogus', 'run `auditstorm watch --help` for usage'],
    ] as const) {
      const io = fakeIO();
      expect(await main([...argv], io)).toBe(2);
      expect(io.stderr.text).toBe(`auditstorm: ${message}\nhint: ${hint}\n`);
    }
  });
});

describe('watch --fail-on', () => {
  async function watch(argv: string[]): Promise<{ code: number; io: ReturnType<typeof fakeIO> }> {
    const stdin = new PassThrough();
    stdin.end(incidentLines().join('\n') + '\n');
    const io = fakeIO({ stdin });
    return { code: await main(['watch', ...argv], io), io };
  }

  it('exits 1 at the end of the stream when a finding at or above it appeared, 0 otherwise', async () => {
    const high = await watch(['--fail-on', 'high']);
    expect(high.code).toBe(1);
    expect(high.io.stdout.text).toContain('#1  CRITICAL  conflict-storm');
    // The incident's one finding is a conflict storm: --code 429 hides it, and nothing fails.
    const hidden = await watch(['--fail-on', 'high', '--code', '429', '-q']);
    expect(hidden.code).toBe(0);
    expect(hidden.io.stdout.text).not.toContain('CRITICAL  conflict-storm');
    // Its alerts too: the conflict storm's OPEN line is written without --code, not with it.
    expect(high.io.stdout.text).toMatch(/ OPEN .*conflict-storm/);
    expect(hidden.io.stdout.text).not.toMatch(/ OPEN /);
    expect((await watch([])).code).toBe(0);
  }, 30_000);
});

describe('-o FILE with no known extension', () => {
  it('is written in --format (text when not given); stdout then gets the summary, not the report', async () => {
    const analyze = vi.fn<AnalyzeFn>(async () => fakeReport(['high']));
    const plain = join(dir, 'report');
    const io = fakeIO({ analyze });
    expect(await main(['a.log', '-o', plain, '--format', 'json', '--fail-on', 'high'], io)).toBe(1);
    expect(ReportSchema.parse(JSON.parse(await readFile(plain, 'utf8'))).findings.map((f) => f.severity)).toEqual(['high']);
    expect(io.stdout.text).toBe('');
    expect(io.stderr.text).toBe(`auditstorm: wrote ${plain}: 1 finding (1 high) in 1,234 requests\n`);

    const io2 = fakeIO({ analyze });
    expect(await main(['a.log', '-o', '/dev/null', '--fail-on', 'critical'], io2)).toBe(0);
    expect([io2.stdout.text, io2.stderr.text]).toEqual(['', 'auditstorm: wrote /dev/null: 1 finding (1 high) in 1,234 requests\n']);

    const text = join(dir, 'report-text');
    expect(await main(['a.log', '-o', text, '-q'], fakeIO({ analyze }))).toBe(0);
    expect(await readFile(text, 'utf8')).toContain('fake high storm 0');
  });

  it('keeps the format of a known extension, and stdout the --format when no file took it', async () => {
    const o = await createOptions({
      paths: [],
      namespace: [],
      user: [],
      resource: [],
      verb: [],
      code: [],
      out: ['r.html', 'plain'],
      noColor: false,
      quiet: false,
      format: 'markdown',
    });
    expect([o.output.outs, o.output.stdout]).toEqual([
      [
        { path: 'r.html', format: 'html' },
        { path: 'plain', format: 'markdown' },
      ],
      false,
    ]);
    const o2 = await createOptions({ paths: [], namespace: [], user: [], resource: [], verb: [], code: [], out: ['r.html'], noColor: false, quiet: false, format: 'markdown' });
    expect([o2.output.outs, o2.output.stdout, o2.output.format]).toEqual([[{ path: 'r.html', format: 'html' }], true, 'markdown']);
    const live = await createOptions({
      command: 'watch',
      paths: [],
      namespace: [],
      user: [],
      resource: [],
      verb: [],
      code: [],
      out: ['final'],
      noColor: false,
      quiet: false,
      format: 'ndjson',
      live: { fromStart: false },
    });
    expect([live.output.outs, live.output.stdout]).toEqual([[{ path: 'final', format: 'json' }], true]);
  });
});

describe('--code', () => {
  function finding(kind: string, metrics: Finding['metrics'] = {}, i = 0): Finding {
    return { ...fakeFinding('high', i), id: `${kind}/${i}`, kind, metrics };
  }
  function report(findings: Finding[]): Report {
    const r = fakeReport([]);
    return {
      ...r,
      findings,
      summaries: {
        ...r.summaries,
        requestsByVerbResourceCode: [
          { verb: 'update', resource: 'deployments.apps/status', code: 409, count: 40 },
          { verb: 'update', resource: 'deployments.apps/status', code: 200, count: 30 },
          { verb: 'get', resource: 'pods', code: 429, count: 7 },
          { verb: 'get', resource: 'pods', code: 404, count: 2 },
        ],
      },
    };
  }

  it('knows the codes of every kind the registry reports', () => {
    const codes = Object.fromEntries(DETECTORS.map((d) => [d.meta.id, findingCodes({ kind: d.meta.id, metrics: { conflicts: 3, throttled: 0 } })]));
    expect(codes).toEqual({
      'conflict-storm': [409],
      'create-conflict-storm': [409],
      'create-storm': [201],
      'fleet-storm': [409],
      'hot-loop': [200],
      'no-op-writes': [200],
      throttling: [429],
      'write-fight': [200],
    });
    expect(findingCodes({ kind: 'fleet-storm', metrics: { conflicts: 2, throttled: 5 } })).toEqual([409, 429]);
    expect(findingCodes({ kind: 'fleet-storm', metrics: { conflicts: 0, throttled: 5 } })).toEqual([429]);
  });

  it('parses statuses and classes, and rejects anything else', () => {
    expect(parseCodes(['409', '4XX', '409', ' 2xx'])).toEqual(['409', '4xx', '2xx']);
    expect(() => parseCodes(['40x'])).toThrow('"40x" is not an HTTP status (409) or class (4xx)');
    expect(() => parseCodes(['600'])).toThrow('"600" is not an HTTP status');
    expect([codeMatches(429, ['4xx']), codeMatches(409, ['429']), codeMatches(201, ['2xx']), codeMatches(500, ['2xx'])]).toEqual([true, false, true, false]);
  });

  it('keeps the findings, notes and table rows of those codes, and says what it hid', () => {
    const r = report([finding('conflict-storm', {}, 0), finding('throttling', {}, 1), finding('hot-loop', {}, 2), finding('fleet-storm', { conflicts: 0, throttled: 9 }, 3)]);
    r.notes = [finding('conflict-storm', {}, 4)];
    const f = filterByCodes(r, ['429']);
    expect(f.report.findings.map((x) => x.id)).toEqual(['throttling/1', 'fleet-storm/3']);
    expect(f.report.notes).toEqual([]);
    expect(f.report.summaries.requestsByVerbResourceCode.map((x) => x.code)).toEqual([429]);
    expect(f.report.settings['code']).toEqual({ codes: ['429'], hiddenFindings: 2, hiddenNotes: 1 });
    expect([f.hiddenFindings, f.hiddenNotes]).toEqual([2, 1]);
    expect(f.report.summaries.totals).toEqual(r.summaries.totals);
    expect(ReportSchema.safeParse(f.report).success).toBe(true);
    const both = filterByCodes(r, ['409', '2xx']);
    expect(both.report.findings.map((x) => x.id)).toEqual(['conflict-storm/0', 'hot-loop/2']);
    expect(both.report.summaries.requestsByVerbResourceCode.map((x) => x.code)).toEqual([409, 200]);
    expect(filterByCodes(r, []).report).toBe(r);
  });

  it('applies before --fail-on, says on stderr what it hid, and comes from the config file too', async () => {
    const analyze = vi.fn<AnalyzeFn>(async () => report([finding('conflict-storm', {}, 0), finding('throttling', {}, 1)]));
    const io = fakeIO({ analyze });
    expect(await main(['a.log', '--code', '409', '--fail-on', 'high', '--format', 'json'], io)).toBe(1);
    expect((JSON.parse(io.stdout.text) as Report).findings.map((f) => f.kind)).toEqual(['conflict-storm']);
    expect(io.stderr.text).toBe('auditstorm: --code 409: 1 of 2 findings are about other codes and not shown\n');
    const io2 = fakeIO({ analyze, readFile: async () => 'code: [500]\nfailOn: high\n' });
    expect(await main(['a.log', '--config', 'c.yaml', '-q'], io2)).toBe(0);
    expect(io2.stdout.text).toContain('No retry or write loops found');
    const bad = fakeIO({ analyze });
    expect(await main(['a.log', '--code', 'conflict'], bad)).toBe(2);
    expect(bad.stderr.text).toBe('auditstorm: --code: "conflict" is not an HTTP status (409) or class (4xx)\nhint: e.g. --code 409,429 or --code 4xx\n');
  });
});

describe('completion', () => {
  it("prints yargs' bash or zsh script, and answers its requests", async () => {
    const bash = fakeIO();
    expect(await main(['completion', 'bash'], bash)).toBe(0);
    expect(bash.stdout.text).toContain('complete -o bashdefault -o default -F _auditstorm_yargs_completions auditstorm');
    expect(bash.stdout.text).toContain('auditstorm --get-yargs-completions');
    const zsh = fakeIO();
    expect(await main(['completion', 'zsh'], zsh)).toBe(0);
    expect(zsh.stdout.text.split('\n')[0]).toBe('#compdef auditstorm');
    // Without a shell named: $SHELL decides.
    const fromEnv = fakeIO({ env: { SHELL: '/usr/bin/zsh' } });
    expect(await main(['completion'], fromEnv)).toBe(0);
    expect(fromEnv.stdout.text).toBe(zsh.stdout.text);
    const fish = fakeIO();
    expect(await main(['completion', 'fish'], fish)).toBe(2);
    expect(fish.stderr.text).toBe('auditstorm: completion fish: expected bash or zsh\nhint: e.g. auditstorm completion bash >> ~/.bashrc\n');

    const commands = fakeIO();
    expect(await main(['--get-yargs-completions', 'auditstorm', 'w'], commands)).toBe(0);
    expect(commands.stdout.text).toBe('analyze\nwatch\nserve\ndiff\nmetrics\nobjects\ncrd\npublish\nworker\nreport\ncompletion\n');
    const watchFlags = fakeIO();
    expect(await main(['--get-yargs-completions', 'auditstorm', 'watch', '--'], watchFlags)).toBe(0);
    const offered = watchFlags.stdout.text.split('\n');
    expect(offered).toContain('--from-start');
    expect(offered).toContain('-n');
    expect(offered).not.toContain('--n');
    expect(offered).not.toContain('--listen');
  });

  it('completes the flags of diff, metrics, objects and crd, and their --format and --fail-on values', async () => {
    const ask = async (...words: string[]): Promise<string[]> => {
      const io = fakeIO();
      expect(await main(['--get-yargs-completions', 'auditstorm', ...words], io)).toBe(0);
      return io.stdout.text.split('\n').filter((w) => w.startsWith('--'));
    };
    const own = ['--fail-on', '--format', '--out', '--no-color', '--quiet'];
    expect(await ask('metrics', '--')).toEqual(['--version', '--help', ...own, '--interval', '--config']);
    expect(await ask('objects', '--')).toEqual(['--version', '--help', ...own, '--now', '--stuck-after', '--churn-window', '--churn-min-objects']);
    expect(await ask('crd', '--')).toEqual(['--version', '--help', ...own]);
    const diff = await ask('diff', '--');
    expect(['--tolerance', '--fail-on', '--since', '--window', '--format'].filter((f) => !diff.includes(f))).toEqual([]);
    expect(diff).not.toContain('--listen');
    const values = fakeIO();
    expect(await main(['--get-yargs-completions', 'auditstorm', 'crd', '--format', ''], values)).toBe(0);
    expect(values.stdout.text).toBe('text\njson\nmarkdown\nhtml\n');
  });
});

describe('as a kubectl plugin', () => {
  it('is named kubectl auditstorm when run as kubectl-auditstorm', () => {
    expect(programName('/usr/local/bin/kubectl-auditstorm')).toBe('kubectl auditstorm');
    expect(programName('C:\\bin\\kubectl-auditstorm.exe')).toBe('kubectl auditstorm');
    expect(programName('/usr/lib/node_modules/auditstorm/bin/auditstorm.js')).toBe('auditstorm');
    expect(programName(undefined)).toBe('auditstorm');
  });

  it('says kubectl auditstorm in help, hints and messages', async () => {
    const h = fakeIO({ program: 'kubectl auditstorm' });
    expect(await main(['serve', '--help'], h)).toBe(0);
    expect(h.stdout.text.split('\n')[0]).toBe('kubectl auditstorm serve');
    expect(h.stdout.text.replace(/\s+/g, ' ')).toContain('Examples: kubectl auditstorm serve --listen');
    for (const [argv, text] of [
      [['--bogus'], 'auditstorm: Unknown argument: bogus\nhint: run `kubectl auditstorm --help` for usage\n'],
      [
        ['wach', 'x.log'],
        'auditstorm: "wach" is neither a file nor a command\nhint: did you mean `kubectl auditstorm watch`? (commands: analyze, the default, watch, serve, diff, metrics, objects, crd, publish, worker, report, completion, help)\n',
      ],
      [['a.log', '--listen', ':1'], 'auditstorm: --listen is an option of serve, not of analyze\nhint: run `kubectl auditstorm serve --help` for its options\n'],
      [
        ['watch', 'a.log', 'b.log'],
        'auditstorm: watch follows one input: a file, or "-" for stdin\nhint: run one watch per log, or pipe them together: tail -F a.log b.log | kubectl auditstorm watch\n',
      ],
    ] as const) {
      const io = fakeIO({ program: 'kubectl auditstorm' });
      expect(await main([...argv], io)).toBe(2);
      expect(io.stderr.text).toBe(text);
    }
  });

  it('says kubectl auditstorm in the help of diff, metrics, objects and crd', async () => {
    for (const [cmd, first, example] of [
      ['diff', 'kubectl auditstorm diff BEFORE AFTER [options]', '  kubectl auditstorm diff before.json after.log --fail-on high'],
      ['metrics', 'kubectl auditstorm metrics SCRAPE [SCRAPE2 ...] [options]', '  kubectl get --raw /metrics | kubectl auditstorm metrics -'],
      ['objects', 'kubectl auditstorm objects FILE|- [options]', '  kubectl get appdeployments -A -o json | kubectl auditstorm objects -'],
      ['crd', 'kubectl auditstorm crd FILE|- [options]', '  kubectl get crd appdeployments.example.com -o yaml | kubectl auditstorm crd -'],
    ] as const) {
      const io = fakeIO({ program: 'kubectl auditstorm' });
      expect(await main([cmd, '--help'], io)).toBe(0);
      const lines = io.stdout.text.split('\n');
      expect([lines[0], lines.includes(example)]).toEqual([first, true]);
      // The scrape-time header is a fixed string, not the program's name.
      expect(io.stdout.text).not.toMatch(/kubectl kubectl|# kubectl auditstorm-scrape-time/);
    }
  });
});

describe('--version and the native scanner', () => {
  it('--version says whether the native line scanner is in use', async () => {
    for (const nativeScanner of [true, false]) {
      const io = fakeIO({ nativeScanner });
      expect(await main(['--version'], io)).toBe(0);
      expect(io.stdout.text).toBe(`${versionText(nativeScanner)}\n`);
    }
    expect(versionText(true)).toBe(`${VERSION} (native line scanner: in use)`);
    expect(versionText(false)).toBe(`${VERSION} (native line scanner: not built; every line is read in JavaScript: same results, slower)`);
  });

  it('a scanner that was not built is said once per version, on the first run', async () => {
    const cache = join(dir, 'cache');
    const analyze = vi.fn<AnalyzeFn>(async () => fakeReport());
    const first = fakeIO({ analyze, nativeScanner: false, env: { XDG_CACHE_HOME: cache } });
    expect(await main(['a.log'], first)).toBe(0);
    expect(first.stderr.text).toBe(NATIVE_NOTE);
    const second = fakeIO({ analyze, nativeScanner: false, env: { XDG_CACHE_HOME: cache } });
    expect(await main(['a.log'], second)).toBe(0);
    expect(second.stderr.text).toBe('');
    expect(await readdir(join(cache, 'auditstorm'))).toEqual([`native-scanner-note-${VERSION}`]);
    // Not with -q, not when it was built, and a new version says it again.
    const quiet = fakeIO({ analyze, nativeScanner: false, env: { XDG_CACHE_HOME: join(dir, 'other') } });
    expect(await main(['a.log', '-q'], quiet)).toBe(0);
    expect(quiet.stderr.text).toBe('');
    const built = fakeIO({ analyze, nativeScanner: true, env: { XDG_CACHE_HOME: join(dir, 'other') } });
    expect(await main(['a.log'], built)).toBe(0);
    expect(built.stderr.text).toBe('');
    expect(await nativeNoteOnce({ XDG_CACHE_HOME: cache }, '9.9.9')).toBe(NATIVE_NOTE);
    expect(await nativeNoteOnce({ HOME: join(dir, 'home') }, VERSION)).toBe(NATIVE_NOTE);
    expect(await readdir(join(dir, 'home', '.cache', 'auditstorm'))).toEqual([`native-scanner-note-${VERSION}`]);
    expect(await nativeNoteOnce({}, VERSION)).toBeNull();
  });
});
