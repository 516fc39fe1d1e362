/**
 * `auditstorm metrics` through `main`: exit codes, --fail-on, --format and -o files, stdin and
 * gzip, --interval, --config thresholds, help, and bad input named by file and line.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { METRICS_HELP } from '../../src/cli/metrics.js';
import { ReportSchema, type Report } from '../../src/report/schema.js';
import { scrapeText, stormScrapes } from '../metrics/scrape.js';
import { fakeIO } from './helpers.js';

/** A JSON report read back, typed for the assertions (the schema test validates the shape). */
const asReport = (text: string) => JSON.parse(text) as Report;

let dir: string;
const p = (name: string): string => join(dir, name);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'auditstorm-metrics-'));
  const [a, b] = stormScrapes();
  writeFileSync(p('m1.txt'), scrapeText(a));
  writeFileSync(p('m2.txt.gz'), gzipSync(scrapeText(b)));
  const [c, d] = stormScrapes({ headers: false });
  writeFileSync(p('n1.txt'), scrapeText(c));
  writeFileSync(p('n2.txt'), scrapeText(d));
  writeFileSync(p('bad-time.txt'), `# auditstorm-scrape-time: 2026-13-01T00:00:00Z\n${scrapeText(c)}`);
  writeFileSync(p('audit.log'), '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata"}\n');
  writeFileSync(p('empty.txt'), '');
  writeFileSync(p('config.yaml'), 'detectors:\n  resource-conflicts:\n    minConflicts: 5000\n    minWritesPerSec: 1000\n');
  writeFileSync(p('bad-config.yaml'), 'detectors:\n  resource-conflicts:\n    minConflictShare: 3\n');
});

async function run(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const over: Parameters<typeof fakeIO>[0] = {};
  if (stdin !== undefined) {
    const s = new PassThrough();
    s.end(stdin);
    over.stdin = s;
  }
  const io = fakeIO(over);
  const code = await main(['metrics', ...args], io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('auditstorm metrics', () => {
  it('two scrapes (one gzipped) with the 409 storm: the finding; --fail-on critical exits 1, 0 without', async () => {
    const r = await run([p('m1.txt'), p('m2.txt.gz'), '--format', 'json', '--fail-on', 'critical']);
    expect([r.code, r.stderr]).toEqual([1, '']);
    const report = ReportSchema.parse(JSON.parse(r.stdout));
    expect(report.findings.map((f) => [f.kind, f.severity, f.metrics['conflicts'], f.metrics['conflictsPerSec']])).toEqual([['resource-conflicts', 'critical', 2400, 80]]);
    expect(report.input.sources.map((s) => [s.kind, s.format])).toEqual([
      ['file', 'prometheus'],
      ['gzip', 'prometheus'],
    ]);
    expect((await run([p('m1.txt'), p('m2.txt.gz')])).code).toBe(0);
  });

  it('--format that goes to an -o file with no known extension is not also printed on stdout, as for analyze', async () => {
    const r = await run([p('m1.txt'), p('m2.txt.gz'), '-q', '--format', 'json', '-o', p('report')]);
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(JSON.parse(readFileSync(p('report'), 'utf8'))).toMatchObject({ schemaVersion: 1 });
    const both = await run([p('m1.txt'), p('m2.txt.gz'), '-q', '--format', 'json', '-o', p('report.md')]);
    expect([both.stdout.startsWith('{'), readFileSync(p('report.md'), 'utf8').startsWith('# auditstorm metrics')]).toEqual([true, true]);
  });

  it('an --out file given twice is a usage error, as for analyze', async () => {
    const r = await run([p('m1.txt'), p('m2.txt.gz'), '-o', p('twice.json'), '-o', p('twice.json')]);
    expect([r.code, r.stderr]).toEqual([2, `auditstorm: --out ${p('twice.json')}: given twice\n`]);
  });

  it('--fail-on takes the severity in any case, as analyze, objects and crd do', async () => {
    const r = await run([p('m1.txt'), p('m2.txt.gz'), '-q', '-o', '/dev/null', '--fail-on', 'HIGH']);
    expect([r.code, r.stderr]).toEqual([1, '']);
  });

  it('--interval for scrapes without time lines; without it, exit 2 with the shell line to add them', async () => {
    const ok = await run([p('n1.txt'), p('n2.txt'), '--interval', '30s', '--format', 'json']);
    expect(ok.code).toBe(0);
    expect(asReport(ok.stdout).findings[0]!.metrics.conflictsPerSec).toBe(80);
    const bad = await run([p('n1.txt'), p('n2.txt')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'auditstorm: 2 scrapes but no times: rates need the time between them\n' +
        'hint: add the line when scraping: { echo "# auditstorm-scrape-time: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; kubectl get --raw /metrics; } > scrape-1.txt, or give --interval 30s for scrapes taken that far apart\n',
    );
  });

  it('reads stdin for -', async () => {
    const r = await run(['-', '--format', 'json'], scrapeText(stormScrapes()[1]));
    expect(r.code).toBe(0);
    const report = asReport(r.stdout);
    expect(report.apiserverMetrics!.basis).toBe('totals');
    expect(report.input.sources[0]!.kind).toBe('stdin');
    expect(report.findings[0]!.metrics.conflicts).toBe(2600);
  });

  it('-o writes each file in its format and prints a summary on stderr', async () => {
    const r = await run([p('m1.txt'), p('m2.txt.gz'), '-o', p('out.md'), '-o', p('out.html'), '-o', p('out.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`auditstorm: wrote ${p('out.md')}, ${p('out.html')}, ${p('out.json')}: 1 finding (1 critical) in 3,348 requests\n`);
    expect(readFileSync(p('out.md'), 'utf8').startsWith('# auditstorm metrics: 1 finding (1 critical)\n')).toBe(true);
    expect(readFileSync(p('out.html'), 'utf8')).toContain('<h2>kube-apiserver metrics</h2>');
    expect(ReportSchema.parse(JSON.parse(readFileSync(p('out.json'), 'utf8'))).apiserverMetrics!.totals.requests).toBe(3348);
  });

  it('--config sets the thresholds; a bad value is exit 2 naming the key', async () => {
    const r = await run([p('m1.txt'), p('m2.txt.gz'), '--config', p('config.yaml'), '--format', 'json']);
    expect(asReport(r.stdout).findings).toEqual([]);
    const bad = await run([p('m1.txt'), '--config', p('bad-config.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^auditstorm: .*bad-config\.yaml: detectors\.resource-conflicts\.minConflictShare: /);
  });

  it('analyze accepts the same config file: detectors.resource-conflicts is checked, not an unknown detector', async () => {
    const sample = join(import.meta.dirname, '../../fixtures/sample/audit.log.gz');
    const ok = fakeIO();
    expect(await main([sample, '--config', p('config.yaml'), '--format', 'json'], ok)).toBe(0);
    expect(ok.stderr.text).toBe('');
    const plain = fakeIO();
    await main([sample, '--format', 'json'], plain);
    // The same findings as without the config (the metrics thresholds do not touch analyze).
    expect(asReport(ok.stdout.text).findings).toEqual(asReport(plain.stdout.text).findings);
    expect(asReport(ok.stdout.text).findings.length).toBe(1);
    const bad = fakeIO();
    expect(await main([sample, '--config', p('bad-config.yaml')], bad)).toBe(2);
    expect(bad.stderr.text).toBe(`auditstorm: ${p('bad-config.yaml')}: detectors.resource-conflicts.minConflictShare: expected number to be <=1\n`);
  });

  it('bad input: exit 2 with file and line', async () => {
    const time = await run([p('bad-time.txt')]);
    expect(time.code).toBe(2);
    expect(time.stderr.split('\n')[0]).toBe(`auditstorm: ${p('bad-time.txt')}:1: scrape time "2026-13-01T00:00:00Z" is not an ISO 8601 UTC time such as 2026-12-05T20:00:00Z`);
    const audit = await run([p('audit.log')]);
    expect(audit.code).toBe(2);
    expect(audit.stderr.split('\n')[0]).toBe(`auditstorm: ${p('audit.log')}:1: not Prometheus text exposition: expected a metric name`);
    const empty = await run([p('empty.txt')]);
    expect(empty.stderr.split('\n')[0]).toBe(`auditstorm: ${p('empty.txt')}: no apiserver_request_total samples: not a kube-apiserver /metrics scrape`);
    const missing = await run([p('nope.txt')]);
    expect([missing.code, missing.stderr]).toEqual([2, `auditstorm: ${p('nope.txt')}: cannot read: no such file or directory\n`]);
  });

  it('a malformed line is a warning and a counted bad line, not an error', async () => {
    writeFileSync(p('m2-bad.txt'), `${scrapeText(stormScrapes()[1])}apiserver_request_total{code="200"} x\n`);
    const r = await run([p('m1.txt'), p('m2-bad.txt'), '--format', 'json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`auditstorm: warning: ${p('m2-bad.txt')}: 1 malformed line skipped (see Bad lines in the report)\n`);
    expect(asReport(r.stdout).input.badLines).toBe(1);
  });

  it('usage errors exit 2; --help prints the command help; the main help lists the command', async () => {
    expect(await run([])).toMatchObject({
      code: 2,
      stderr: 'auditstorm: metrics needs at least one scrape: a file, a .gz file, or - for stdin\nhint: e.g. kubectl get --raw /metrics | auditstorm metrics -\n',
    });
    expect((await run([p('m1.txt'), '--window', '1m'])).stderr).toBe("auditstorm: metrics: Unknown option '--window'\nhint: run `auditstorm metrics --help` for usage\n");
    expect((await run([p('m1.txt'), '--format', 'pdf'])).code).toBe(2);
    expect((await run([p('m1.txt'), '--interval', 'soon'])).code).toBe(2);
    expect(await run(['--help'])).toEqual({ code: 0, stdout: METRICS_HELP, stderr: '' });
    const io = fakeIO();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.stdout.text).toContain('metrics <scrapes..>');
    const typo = fakeIO();
    expect(await main(['metrcs', 'm1.txt'], typo)).toBe(2);
    expect(typo.stderr.text.split('\n')[1]).toBe(
      'hint: did you mean `auditstorm metrics`? (commands: analyze, the default, watch, serve, diff, metrics, objects, crd, publish, worker, report, completion, help)',
    );
  });
});
