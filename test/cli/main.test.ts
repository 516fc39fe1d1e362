import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AnalyzeFn } from '../../src/cli/io.js';
import { commandTypo, main } from '../../src/cli/main.js';
import { exitCodeFor, summaryLine } from '../../src/cli/output.js';
import { ConfigError, InputError } from '../../src/errors.js';
import type { AnalyzeIO } from '../../src/index.js';
import type { AnalyzeOptionsInput } from '../../src/options.js';
import { ReportSchema, type Report, type Severity } from '../../src/report/schema.js';
import { fakeFinding, fakeIO, fakeReport } from './helpers.js';

const ESC = '\u001b';

function returning(report: Report) {
  return vi.fn<AnalyzeFn>(async () => report);
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'auditstorm-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('main: exit codes from --fail-on', () => {
  it.each<[Severity[], Severity | undefined, number]>([
    [[], undefined, 0],
    [['critical'], undefined, 0],
    [[], 'info', 0],
    [['low'], 'medium', 0],
    [['medium'], 'medium', 1],
    [['high'], 'medium', 1],
    [['info', 'low'], 'low', 1],
    [['high', 'medium'], 'critical', 0],
    [['critical'], 'critical', 1],
    [['info'], 'info', 1],
  ])('findings %j, --fail-on %s → %i', async (severities, failOn, code) => {
    const io = fakeIO({ analyze: returning(fakeReport(severities)) });
    const argv = ['audit.log', ...(failOn ? ['--fail-on', failOn] : [])];
    expect(await main(argv, io)).toBe(code);
    expect(io.stderr.text).toBe('');
  });

  it('takes failOn from the config file, and the flag over it', async () => {
    const readFile = async () => 'failOn: high\n';
    const report = fakeReport(['medium']);
    expect(await main(['a.log', '--config', 'c.yaml'], fakeIO({ analyze: returning(report), readFile }))).toBe(0);
    expect(await main(['a.log', '--config', 'c.yaml', '--fail-on', 'low'], fakeIO({ analyze: returning(report), readFile }))).toBe(1);
  });

  it('ignores notes (episodes that were handled well)', async () => {
    const report = { ...fakeReport([]), notes: [fakeFinding('critical')] };
    expect(await main(['a.log', '--fail-on', 'info'], fakeIO({ analyze: returning(report) }))).toBe(0);
  });

  it('exitCodeFor compares by rank', () => {
    expect(exitCodeFor(fakeReport(['high']), 'high')).toBe(1);
    expect(exitCodeFor(fakeReport(['high']), 'critical')).toBe(0);
    expect(exitCodeFor(fakeReport(['high']), undefined)).toBe(0);
  });
});

describe('main: what reaches analyze', () => {
  it('passes the built options, stdin and the clock, and no progress callback off a terminal', async () => {
    const analyze = returning(fakeReport());
    const io = fakeIO({ analyze });
    expect(await main(['a.log', '-n', 'shop', '--window', '2m'], io)).toBe(0);
    expect(analyze).toHaveBeenCalledTimes(1);
    const [options, aio] = analyze.mock.calls[0] as [AnalyzeOptionsInput, AnalyzeIO];
    expect(options).toMatchObject({ inputs: ['a.log'], namespaces: ['shop'], detectors: { 'conflict-storm': { windowMs: 120_000 } } });
    expect(aio.stdin).toBeUndefined(); // a file input: stdin is not handed over
    expect(aio.now?.().toISOString()).toBe('2026-08-08T19:00:00.000Z');
    expect(aio.onProgress).toBeUndefined();
  });

  it('hands stdin over when it is an input', async () => {
    for (const argv of [[], ['-'], ['a.log', '-']]) {
      const analyze = returning(fakeReport());
      const io = fakeIO({ analyze });
      expect(await main(argv, io)).toBe(0);
      const [options, aio] = analyze.mock.calls[0] as [AnalyzeOptionsInput, AnalyzeIO];
      expect(options.inputs).toEqual(argv);
      expect(aio.stdin).toBe(io.stdin);
    }
  });

  it('draws progress on a terminal stderr and erases it before the report', async () => {
    const analyze = vi.fn<AnalyzeFn>(async (_o, aio) => {
      aio?.onProgress?.({ bytesRead: 5e6, bytesTotal: 1e7, events: 1000, requests: 500, elapsedMs: 300 });
      aio?.onProgress?.({ bytesRead: 1e7, bytesTotal: 1e7, events: 2000, requests: 1000, elapsedMs: 600 });
      return fakeReport();
    });
    const io = fakeIO({ analyze, isTTY: { stdin: false, stdout: false, stderr: true } });
    expect(await main(['a.log'], io)).toBe(0);
    expect(io.stderr.chunks).toEqual([
      `\rreading 5.0 MB of 10.0 MB (50%) · 16.7 MB/s · 3.3k events/s · 500 requests${ESC}[K`,
      `\rreading 10.0 MB of 10.0 MB (100%) · 16.7 MB/s · 3.3k events/s · 1.0k requests${ESC}[K`,
      `\r${ESC}[K`,
    ]);
  });

  it('shows no progress with --quiet', async () => {
    const analyze = returning(fakeReport());
    const io = fakeIO({ analyze, isTTY: { stdin: false, stdout: false, stderr: true } });
    await main(['a.log', '-q'], io);
    expect((analyze.mock.calls[0] as [AnalyzeOptionsInput, AnalyzeIO])[1].onProgress).toBeUndefined();
  });

  it('refuses to wait for a log typed on a terminal', async () => {
    const analyze = returning(fakeReport());
    const io = fakeIO({ analyze, isTTY: { stdin: true, stdout: true, stderr: true } });
    expect(await main([], io)).toBe(2);
    expect(analyze).not.toHaveBeenCalled();
    expect(io.stderr.text).toBe(
      'auditstorm: no input: give audit log files or directories, or pipe a log into stdin\n' +
        'hint: e.g. auditstorm /var/log/kubernetes/audit.log, or zcat audit.log.gz | auditstorm\n',
    );
  });
});

describe('main: stdout', () => {
  it('renders text by default, without colour off a terminal', async () => {
    const io = fakeIO({ analyze: returning(fakeReport(['high'])) });
    expect(await main(['a.log'], io)).toBe(0);
    expect(io.stdout.text).toContain('fake high storm 0');
    expect(io.stdout.text).not.toContain(ESC);
    expect(io.stdout.text.endsWith('\n')).toBe(true);
  });

  it('off a terminal prints identities whole, wrapping prose at $COLUMNS; on a terminal fits its width', async () => {
    const report = fakeReport(['high']);
    const ua = 'flag-controller-manager/v1.30.2-with-a-rather-long-build-suffix (linux/amd64) kubernetes/$Format';
    report.findings[0]!.actors[0]!.username = 'system:serviceaccount:openshift-operator-lifecycle-manager:olm-operator-serviceaccount';
    report.findings[0]!.actors[0]!.userAgent = ua;
    report.summaries.topActors.byRequests = [
      { username: report.findings[0]!.actors[0]!.username, userAgent: ua, requests: 9, writes: 1, conflicts: 0, alreadyExists: 0, throttled: 0 },
    ];
    const piped = fakeIO({ analyze: returning(report), env: { COLUMNS: '200' } });
    expect(await main(['a.log'], piped)).toBe(0);
    expect(piped.stdout.text).toContain('    User            system:serviceaccount:openshift-operator-lifecycle-manager:olm-operator-serviceaccount\n');
    expect(piped.stdout.text).toContain(`    User agent      ${ua}\n`);
    expect(piped.stdout.text).toContain(`  system:serviceaccount:openshift-operator-lifecycle-manager:olm-operator-serviceaccount  ${ua}`);
    const tty = fakeIO({ analyze: returning(report), isTTY: { stdin: false, stdout: true, stderr: false }, columns: { stdout: 80 }, env: { NO_COLOR: '1' } });
    expect(await main(['a.log'], tty)).toBe(0);
    expect(tty.stdout.text).toContain('    User            …hift-operator-lifecycle-manager:olm-operator-serviceaccount\n');
    expect(tty.stdout.text).toContain('    User agent      flag-controller-manager/v1.30.2-with-a-rather-long-build-su…\n');
    expect(Math.max(...tty.stdout.text.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(80);
  });

  it('uses colour on a terminal unless NO_COLOR, FORCE_COLOR=0 or --no-color', async () => {
    const tty = { stdin: false, stdout: true, stderr: false };
    const run = async (argv: string[], env: Record<string, string> = {}) => {
      const io = fakeIO({ analyze: returning(fakeReport(['high'])), isTTY: tty, env });
      await main(['a.log', ...argv], io);
      return io.stdout.text;
    };
    expect(await run([])).toContain(ESC);
    expect(await run([], { NO_COLOR: '1' })).not.toContain(ESC);
    expect(await run([], { FORCE_COLOR: '0' })).not.toContain(ESC);
    expect(await run(['--no-color'])).not.toContain(ESC);
  });

  it('writes JSON with --format json', async () => {
    const report = fakeReport(['low']);
    const io = fakeIO({ analyze: returning(report) });
    expect(await main(['a.log', '--format', 'json'], io)).toBe(0);
    expect(ReportSchema.parse(JSON.parse(io.stdout.text))).toEqual(report);
  });

  it('prints help and version on stdout', async () => {
    const help = fakeIO();
    expect(await main(['--help'], help)).toBe(0);
    expect(help.stdout.text).toContain('Filters:');
    const version = fakeIO();
    expect(await main(['--version'], version)).toBe(0);
    expect(version.stdout.text).toMatch(/^\d+\.\d+\.\d+.*\n$/);
  });

  it('stops writing quietly when stdout is closed (EPIPE), keeping the exit code', async () => {
    let writes = 0;
    const stdout = new Writable({
      write(_chunk, _enc, cb) {
        writes++;
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' }));
      },
    });
    const io = fakeIO({ analyze: returning(fakeReport(['high'])), stdout: stdout });
    expect(await main(['a.log'], io)).toBe(0);
    expect(writes).toBe(1);
    expect(io.stderr.text).toBe('');
    const io2 = fakeIO({ analyze: returning(fakeReport(['high'])), stdout: new Writable({ write: (_c, _e, cb) => cb(new Error('EPIPE')) }) });
    expect(await main(['a.log', '--fail-on', 'high'], io2)).toBe(1);
  });
});

describe('main: --out files', () => {
  it('writes each file in its format, a summary on stderr and nothing on stdout', async () => {
    const report = fakeReport(['high', 'medium', 'medium']);
    const json = join(dir, 'r.json');
    const md = join(dir, 'r.md');
    const io = fakeIO({ analyze: returning(report) });
    expect(await main(['a.log', '-o', json, '--out', md], io)).toBe(0);
    expect(ReportSchema.parse(JSON.parse(await readFile(json, 'utf8')))).toEqual(report);
    expect(await readFile(md, 'utf8')).toContain('fake high storm 0');
    expect(io.stdout.text).toBe('');
    expect(io.stderr.text).toBe(`auditstorm: wrote ${json}, ${md}: 3 findings (1 high, 2 medium) in 1,234 requests\n`);
  });

  it('also writes stdout when --format is explicit, and no summary', async () => {
    const io = fakeIO({ analyze: returning(fakeReport()) });
    expect(await main(['a.log', '-o', join(dir, 'x.txt'), '--format', 'text'], io)).toBe(0);
    expect(io.stdout.text).not.toBe('');
    expect(io.stderr.text).toBe('');
  });

  it('prints no summary with --quiet', async () => {
    const io = fakeIO({ analyze: returning(fakeReport()) });
    expect(await main(['a.log', '-o', join(dir, 'q.json'), '-q'], io)).toBe(0);
    expect(io.stderr.text).toBe('');
  });

  it('fails before the analysis when the directory is missing', async () => {
    const analyze = returning(fakeReport());
    const io = fakeIO({ analyze });
    const path = join(dir, 'no-such-dir', 'r.json');
    expect(await main(['a.log', '-o', path], io)).toBe(2);
    expect(analyze).not.toHaveBeenCalled();
    expect(io.stderr.text).toBe(
      `auditstorm: --out ${path}: directory ${join(dir, 'no-such-dir')} does not exist\n` + 'hint: create the directory first; auditstorm does not create directories\n',
    );
  });

  it('refuses a directory as an out file', async () => {
    const io = fakeIO({ analyze: returning(fakeReport()) });
    const path = join(dir, 'sub.json');
    await import('node:fs/promises').then((fs) => fs.mkdir(path));
    expect(await main(['a.log', '-o', path], io)).toBe(2);
    expect(io.stderr.text).toBe(`auditstorm: --out ${path}: is a directory\n`);
  });

  it('summaryLine says when there are no findings', () => {
    expect(summaryLine(fakeReport([], 10), ['a.json'])).toBe('auditstorm: wrote a.json: no findings in 10 requests\n');
    expect(summaryLine(fakeReport(['low'], 10), ['a.json'])).toBe('auditstorm: wrote a.json: 1 finding (1 low) in 10 requests\n');
  });
});

describe('main: errors', () => {
  it('prints usage errors with a hint and exits 2', async () => {
    const io = fakeIO({ analyze: returning(fakeReport()) });
    expect(await main(['--bogus'], io)).toBe(2);
    expect(io.stderr.text).toBe('auditstorm: Unknown argument: bogus\nhint: run `auditstorm --help` for usage\n');
    expect(io.stdout.text).toBe('');
  });

  it('says a mistyped command is neither a file nor a command, before reading anything', async () => {
    const analyze = vi.fn<AnalyzeFn>(async () => fakeReport());
    for (const [word, command] of [
      ['analz', 'analyze'],
      ['wach', 'watch'],
      ['servve', 'serve'],
      ['dif', 'diff'],
      ['hepl', 'help'],
    ] as const) {
      const io = fakeIO({ analyze });
      expect(await main([word, 'a.log'], io)).toBe(2);
      expect(io.stderr.text).toBe(
        `auditstorm: "${word}" is neither a file nor a command\nhint: did you mean \`auditstorm ${command}\`? (commands: analyze, the default, watch, serve, diff, metrics, objects, crd, publish, worker, report, completion, help)\n`,
      );
    }
    expect(analyze).not.toHaveBeenCalled();
    // Paths that look like paths, or are far from any command, are read as inputs.
    expect(commandTypo('audit.log')).toBeNull();
    expect(commandTypo('./watch')).toBeNull();
    expect(commandTypo('kube-apiserver-audit')).toBeNull();
    expect(commandTypo('-')).toBeNull();
  });

  it('prints config errors from the file', async () => {
    const io = fakeIO({ analyze: returning(fakeReport()), readFile: async () => 'detectors:\n  conflict-storm:\n    minConflicts: "30"\n' });
    expect(await main(['a.log', '--config', 'config.yaml'], io)).toBe(2);
    expect(io.stderr.text).toBe('auditstorm: config.yaml: detectors.conflict-storm.minConflicts: expected number, received string\n');
  });

  it('prints errors thrown by analyze', async () => {
    const io = fakeIO({
      analyze: vi.fn<AnalyzeFn>(async () => {
        throw new InputError('nope.log: no such file or directory', 'check the path');
      }),
    });
    expect(await main(['nope.log'], io)).toBe(2);
    expect(io.stderr.text).toBe('auditstorm: nope.log: no such file or directory\nhint: check the path\n');

    const io2 = fakeIO({ analyze: vi.fn<AnalyzeFn>(async () => Promise.reject(new ConfigError('detectors.x: unknown detector'))) });
    expect(await main(['a.log'], io2)).toBe(2);
    expect(io2.stderr.text).toBe('auditstorm: detectors.x: unknown detector\n');
  });

  it('names the path of a raw file-system error', async () => {
    const err = Object.assign(new Error("ENOENT: no such file or directory, open 'x.log'"), { code: 'ENOENT', path: 'x.log' });
    const io = fakeIO({ analyze: vi.fn<AnalyzeFn>(async () => Promise.reject(err)) });
    expect(await main(['x.log'], io)).toBe(2);
    expect(io.stderr.text).toBe('auditstorm: x.log: no such file or directory\n');
  });

  it('shows bugs with their stack', async () => {
    const io = fakeIO({ analyze: vi.fn<AnalyzeFn>(async () => Promise.reject(new TypeError('boom'))) });
    expect(await main(['a.log'], io)).toBe(2);
    expect(io.stderr.text).toMatch(/^auditstorm: internal error: TypeError: boom\n\s+at /);
    expect(io.stderr.text).toContain('hint: this is a bug in auditstorm');
  });
});
