import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/report/text.js';
import { displayWidth } from '../../src/report/format.js';
import type { Report } from '../../src/report/schema.js';
import { cleanReport, copy, deepFreeze, hostileReport, report, storm } from './fixture.js';

const plain = (r: Report, width?: number): string => renderText(r, width === undefined ? { color: false, fit: true } : { color: false, fit: true, width });
const lines = (s: string): string[] => s.split('\n');

describe('renderText', () => {
  const out = plain(report);

  it('starts with a header on the input', () => {
    expect(lines(out).slice(0, 7)).toEqual([
      'auditstorm 0.1.0 — retry and write-loop report',
      'Generated       2026-08-08 18:30:00.000 UTC',
      'Time range      2026-08-08 17:00:00.000 → 18:00:00.000 UTC (1h 00m)',
      'Input           2 sources · 1,224,331 lines · 1,224,310 events · 611,877 requests · 2 bad lines',
      'Skipped         610,400 non-final stage events · 12 duplicates · 0 filtered · 1 overlong line',
      'Late            3 requests came later than the reorder window (placed at the stream clock)',
      'Non-resource    4,567 requests without objectRef (in totals only)',
    ]);
    expect(out).toContain(
      '  /var/log/kubernete…udit/audit.log.gz  jsonl   700.0 MiB  1,204,331  1,204,310   601,877          2\n' +
        '  audit-2.log                           jsonl    10.0 MiB     20,000     20,000    10,000          0\n',
    );
  });

  it('shows a finding block: who, what, when, metrics, signals, evidence, advice', () => {
    const block = [
      '#1  HIGH  conflict-storm',
      '    cart-operator updates deployment shop/cart status 14× per success: 409 Conflict storm without',
      '    backoff',
      '    User            system:serviceaccount:shop:cart-operator',
      '    Service account shop/cart-operator',
      '    User agent      manager/v0.0.0 (linux/amd64) kubernetes/$Format',
      '    Source IPs      10.244.1.17, 10.244.2.9',
      '    Field managers  cart-operator',
      '    Object          deployments.apps/status shop/cart',
      '    When            2026-08-08 17:40:00.000 → 17:46:12.500 UTC (6m 13s)',
      '    Metrics',
      '      attempts             4,210',
      '      conflicts            3,912',
      '      successes              298',
      '      conflictRatio        92.9%',
      '      peakWritesPerSec    48.3/s',
      '      peak409PerSec       45.1/s',
      '      attemptsPerSuccess   14.13',
      '      retryGapP50Ms        12 ms',
      '      retryGapP90Ms        39 ms',
      '      backoff               none',
      '      shareOfWrites        41.2%',
      '      durationMs          6m 13s',
      '    Signals         no-backoff, duplicate-replicas',
      '    Evidence        proven, audit level Metadata; grep the audit log for these auditIDs:',
      '                    5d3c1a2e-0f4b-4c3a-9a51-1b2f3e4d5c6a',
      '                    8e7f6a5b-4c3d-4e2f-8a1b-0c9d8e7f6a5b',
      '                    c0ffee00-1234-4abc-8def-0123456789ab',
      '    Advice',
      '      • Wrap the read-modify-write in retry.RetryOnConflict(retry.DefaultRetry, …) so that retries',
      '        re-read the object and back off.',
      '      • Write status with a merge patch or server-side apply instead of an update carrying a stale',
      '        resourceVersion.',
      '      • Two source IPs write the same object: check that only one replica holds the leader lease.',
    ].join('\n');
    expect(out).toContain(`FINDINGS (1: 1 high), most severe first\n=======================================\n\n${block}\n`);
  });

  it('puts findings, notes, summaries and bad lines in that order', () => {
    const at = (s: string): number => out.indexOf(s);
    const order = ['\nFINDINGS', '\n#1  HIGH', '\nNotes (handled well, not storms): 1', '\nSUMMARY', '\nTotals', '\nLatency by verb', '\nBad lines: 2 (2 shown)'];
    const idx = order.map(at);
    expect(idx.every((i) => i >= 0)).toBe(true);
    expect([...idx].sort((a, b) => a - b)).toEqual(idx);
  });

  it('shows notes briefly', () => {
    expect(out).toContain(
      [
        '  • INFO  conflict-storm',
        '    deployment-controller hit 409 Conflict on deployment shop/web but backed off',
        '    system:serviceaccount:kube-system:deployment-controller · deployments.apps shop/web',
        '    2026-08-08 17:10:00.000 → 17:11:00.000 UTC (1m 00s)',
        '    signals: backoff',
      ].join('\n'),
    );
  });

  it('renders aligned summary tables, truncating long cells with …', () => {
    expect(out).toContain(
      [
        'Totals',
        '  Requests  Writes  409 Conflict  409 AlreadyExists  429 Throttled',
        '  --------  ------  ------------  -----------------  -------------',
        '   611,877   9,496         3,924                  7             25',
      ].join('\n'),
    );
    expect(out).toContain(
      [
        'Top actors by requests',
        '  User                      User agent               Requests  Writes  409 Conflict  409 Exists  429',
        '  ------------------------  -----------------------  --------  ------  ------------  ----------  ---',
        '  …ount:shop:cart-operator  manager/v0.0.0 (linux/…   258,420   4,210         3,912           0    0',
        '  …m:deployment-controller  kube-controller-manage…    90,311   1,240            12           0    0',
      ].join('\n'),
    );
    expect(out).toContain('Top actors by 429 Throttled\n  (none)\n');
    expect(out).toContain('  deployments.apps/status shop/cart   4,210         3,912\n');
    expect(out).toContain(
      [
        'Requests by verb × resource × code',
        '  Verb    Resource                 Code  Requests',
        '  ------  -----------------------  ----  --------',
        '  get     deployments.apps          200   250,112',
        '  list    pods                      200   120,004',
        '  get     (non-resource)            200     4,567',
        '  update  deployments.apps/status   409     3,912',
        '  watch   pods                      200     1,204',
        '  update  deployments.apps/status   200       298',
        '  create  events                    429        25',
      ].join('\n'),
    );
    expect(out).toContain(
      [
        'Latency by verb × resource',
        '  Verb    Resource                 Requests   p50    p90    p99     max',
        '  ------  -----------------------  --------  ----  -----  -----  ------',
        '  get     deployments.apps          250,112  1 ms   4 ms  18 ms  412 ms',
        '  update  deployments.apps/status     4,210  6 ms  14 ms  95 ms  1.73 s',
      ].join('\n'),
    );
  });

  it('lists bad-line samples as file:line reason', () => {
    expect(out).toContain(
      '  /var/log/kubernetes/audit/audit.log.gz:88213 invalid JSON: Unexpected end of JSON input\n' +
        '  /var/log/kubernetes/audit/audit.log.gz:1204331 not an audit event: no auditID\n',
    );
  });

  it('says plainly when there are no findings', () => {
    const clean = plain(cleanReport);
    expect(clean).toContain('FINDINGS\n========\n\nNo retry or write loops found in 611,877 requests (1h 00m of audit log).\n');
    expect(clean).toContain('1 busy episode handled well: see Notes.');
    expect(clean).not.toContain('#1 ');
  });

  it('orders findings most severe first', () => {
    const r = copy(report);
    r.findings = [{ ...copy(storm), id: 'm', severity: 'medium', title: 'medium one' }, { ...copy(storm), id: 'c', severity: 'critical', title: 'critical one' }, copy(storm)];
    const text = plain(r);
    const idx = ['#1  CRITICAL  conflict-storm\n    critical one', '#2  HIGH  conflict-storm\n    cart-operator', '#3  MEDIUM  conflict-storm\n    medium one'].map((s) =>
      text.indexOf(s),
    );
    expect(idx.every((i) => i >= 0)).toBe(true);
    expect([...idx].sort((a, b) => a - b)).toEqual(idx);
    expect(text).toContain('FINDINGS (3: 1 critical, 1 high, 1 medium), most severe first');
  });

  it('emits no ANSI codes without color, and coloured severities with it', () => {
    expect(out).not.toContain('\u001b');
    expect(plain(hostileReport())).not.toContain('\u001b');
    const coloured = renderText(report, { color: true, fit: true });
    expect(coloured).toContain('#1  \u001b[1;31mHIGH\u001b[0m  conflict-storm');
    expect(coloured).toContain('\u001b[2mINFO\u001b[0m');
    // eslint-disable-next-line no-control-regex -- the ANSI escape (ESC) is what this strips
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, '')).toBe(out);
  });

  it('strips control characters from user-controlled strings', () => {
    const text = plain(hostileReport());
    expect(text).toContain('    User agent      ua [2J[31mred]0;pwned1m end\n');
    expect(text).toContain('    User            evil|agent `x` <script>alert(1)</script> [link](http://x)\n');
    expect(text).toContain('  /var/log/kubernetes/audit/audit.log.gz:88213 bad [2J[31mred]0;pwned1m  end\n');
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    // eslint-disable-next-line no-control-regex -- the ANSI escape (ESC) is what this strips
    const coloured = renderText(hostileReport(), { color: true, fit: true }).replace(/\u001b\[[0-9;]*m/g, '');
    expect(coloured).not.toContain('\u001b');
  });

  it('fits every line into the width, cutting headers of number columns before digits', () => {
    for (const width of [64, 80, 100, 140]) {
      for (const r of [report, hostileReport()]) {
        const long = lines(plain(r, width)).filter((l) => displayWidth(l) > width);
        expect(long).toEqual([]);
      }
    }
    expect(plain(report, 64)).toContain(
      [
        '  Source    Format       Size      Lines     Events  Reques…  B…',
        '  --------  ------  ---------  ---------  ---------  -------  --',
        '  /var….gz  jsonl   700.0 MiB  1,204,331  1,204,310  601,877   2',
      ].join('\n'),
    );
    // Narrower than the digits: the table overflows rather than hide numbers.
    expect(plain(report, 40)).toContain('  /var….gz  jsonl   700.0 MiB  1,204,331  1,204,310  601,877  2\n');
  });

  it('handles several actors, no object, evidence without samples and huge strings', () => {
    const r = copy(report);
    const f = r.findings[0]!;
    f.actors = [f.actors[0]!, { ...f.actors[0]!, username: 'alice', serviceAccount: null, userAgent: 'a'.repeat(100_000), sourceIPs: [], fieldManagers: [] }];
    f.object = null;
    f.evidence = { auditIDs: [], firstAuditID: 'first-id', lastAuditID: 'last-id', auditLevel: 'Request', level: 'proven' };
    const text = plain(r);
    expect(text).toContain('    Actor 1 of 2\n    User            system:serviceaccount:shop:cart-operator\n');
    expect(text).toContain('    Actor 2 of 2\n    User            alice\n    User agent      aaaa');
    expect(text).toContain('    Object          (none: cluster-wide)\n');
    expect(text).toContain('    Evidence        proven, audit level Request; grep the audit log for these auditIDs:\n                    first-id\n                    last-id\n');
    expect(lines(text).filter((l) => displayWidth(l) > 100)).toEqual([]);
    expect(text.length).toBeLessThan(20_000);
  });

  it('prints metric keys in full, shares as percentages, and wraps long string values at the value column', () => {
    const r = copy(report);
    r.findings[0]!.metrics = {
      events: 1500,
      topObjects: 'pods/status shop/p-12-1(17), pods/status shop/p-24-0(17), pods/status shop/p-14-0(15), pods/status shop/p-06-0(14), pods/status shop/p-40-2(14)',
      peakPerSec: 19,
      badShareOfFamilyRequests: 0.5123,
      throttledShareOfRequests: 0.0133,
      familyBy: 'node',
    };
    expect(plain(r)).toContain(
      [
        '    Metrics',
        '      events                     1,500',
        '      topObjects                pods/status shop/p-12-1(17), pods/status shop/p-24-0(17),',
        '                                pods/status shop/p-14-0(15), pods/status shop/p-06-0(14),',
        '                                pods/status shop/p-40-2(14)',
        '      peakPerSec                19.0/s',
        '      badShareOfFamilyRequests   51.2%',
        '      throttledShareOfRequests    1.3%',
        '      familyBy                    node',
        '    Signals',
      ].join('\n'),
    );
    // Narrow: keys stay whole, the list wraps shorter, no line is wider than asked.
    const narrow = plain(r, 64);
    expect(narrow).toContain('      throttledShareOfRequests    1.3%\n');
    expect(narrow).toContain('      topObjects                pods/status shop/p-12-1(17),\n');
    expect(lines(narrow).filter((l) => displayWidth(l) > 64)).toEqual([]);
  });

  it('is pure: deterministic and does not touch the report', () => {
    const frozen = deepFreeze(copy(report));
    expect(plain(frozen)).toBe(out);
    expect(frozen).toEqual(report);
  });

  it('off a terminal (fit false) prints usernames, userAgents and sources whole, even past the width', () => {
    const full = renderText(report, { color: false, width: 60 });
    expect(full).toContain(
      '  system:serviceaccount:kube-system:deployment-controller  kube-controller-manager/v1.29.4 (linux/amd64) kubernetes/55019c8/system:serviceaccount:kube-system:deployment-controller    90,311',
    );
    expect(full).toContain('  /var/log/kubernetes/audit/audit.log.gz  jsonl');
    expect(full).toContain('    User            system:serviceaccount:shop:cart-operator\n');
    expect(full).toContain('    User agent      manager/v0.0.0 (linux/amd64)\n                    kubernetes/$Format\n');
  });

  it('never breaks the User line mid-word: long usernames stay whole off a terminal and keep their end on one', () => {
    const r = copy(report);
    const long = `system:serviceaccount:${'very-long-namespace-'.repeat(3)}x:olm-operator-serviceaccount`;
    r.findings[0]!.actors[0]!.username = long;
    const userLines = (t: string): string[] => lines(t).filter((l) => l.startsWith('    User '));
    expect(userLines(renderText(r, { color: false, width: 60 }))[0]).toBe(`    User            ${long}`);
    const onTerminal = userLines(renderText(r, { color: false, width: 60, fit: true }))[0]!;
    expect(onTerminal).toBe('    User            …namespace-x:olm-operator-serviceaccount');
    expect(displayWidth(onTerminal)).toBe(60);
  });
});
