import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/report/markdown.js';
import { cleanReport, copy, deepFreeze, hostileReport, report, storm } from './fixture.js';
import { tables, unescapedPipes } from './markdown-util.js';

describe('renderMarkdown', () => {
  const md = renderMarkdown(report);

  it('opens with a title and a one-sentence verdict', () => {
    expect(md.split('\n').slice(0, 5)).toEqual([
      '# auditstorm: 1 finding (1 high)',
      '',
      '**Verdict:** 1 finding (1 high) in 611,877 requests over 2026-08-08 17:00:00.000 → 18:00:00.000 UTC (1h 00m); most severe: **HIGH** conflict-storm: cart-operator updates deployment shop/cart status 14× per success: 409 Conflict storm without backoff',
      '',
      '_auditstorm 0.1.0, generated 2026-08-08 18:30:00.000 UTC_',
    ]);
  });

  it('writes What / Who / When / Impact / Fix / Evidence per finding', () => {
    expect(md).toContain(
      [
        '## 1. HIGH conflict-storm: cart-operator updates deployment shop/cart status 14× per success: 409 Conflict storm without backoff',
        '',
        '- **What:** `deployments.apps/status shop/cart` (API version `v1`)',
        '- **Who:** `system:serviceaccount:shop:cart-operator` (service account `shop/cart-operator`); user agent `manager/v0.0.0 (linux/amd64) kubernetes/$Format`; source IPs `10.244.1.17`, `10.244.2.9`; field managers `cart-operator`',
        '- **When:** 2026-08-08 17:40:00.000 → 17:46:12.500 UTC (6m 13s)',
        '- **Signals:** `no-backoff`, `duplicate-replicas`',
        '',
        '**Impact**',
        '',
        '| Metric | Value |',
        '| --- | ---: |',
        '| attempts | 4,210 |',
        '| conflicts | 3,912 |',
        '| successes | 298 |',
        '| conflictRatio | 92.9% |',
        '| peakWritesPerSec | 48.3/s |',
        '| peak409PerSec | 45.1/s |',
        '| attemptsPerSuccess | 14.13 |',
        '| retryGapP50Ms | 12 ms |',
        '| retryGapP90Ms | 39 ms |',
        '| backoff | none |',
        '| shareOfWrites | 41.2% |',
        '| durationMs | 6m 13s |',
        '',
        '**Fix**',
        '',
        '- Wrap the read-modify-write in retry.RetryOnConflict(retry.DefaultRetry, …) so that retries re-read the object and back off.',
        '- Write status with a merge patch or server-side apply instead of an update carrying a stale resourceVersion.',
        '- Two source IPs write the same object: check that only one replica holds the leader lease.',
        '',
        '**Evidence** (proven, audit level `Metadata`; grep the audit log for these auditIDs): `5d3c1a2e-0f4b-4c3a-9a51-1b2f3e4d5c6a`, `8e7f6a5b-4c3d-4e2f-8a1b-0c9d8e7f6a5b`, `c0ffee00-1234-4abc-8def-0123456789ab`',
      ].join('\n'),
    );
  });

  it('adds notes and the summary tables', () => {
    expect(md).toContain(
      '## Notes (handled well, not storms)\n\n- **INFO** conflict-storm: deployment-controller hit 409 Conflict on deployment shop/web but backed off (`system:serviceaccount:kube-system:deployment-controller` on `deployments.apps shop/web`, 2026-08-08 17:10:00.000 → 17:11:00.000 UTC (1m 00s))\n',
    );
    expect(md).toContain(
      '### Totals\n\n| Requests | Writes | 409 Conflict | 409 AlreadyExists | 429 Throttled |\n| ---: | ---: | ---: | ---: | ---: |\n| 611,877 | 9,496 | 3,924 | 7 | 25 |\n',
    );
    expect(md).toContain('| system:serviceaccount:shop:cart-operator | manager/v0.0.0 (linux/amd64) kubernetes/\\$Format | 258,420 | 4,210 | 3,912 | 0 | 0 |');
    expect(md).toContain('### Top actors by 429 Throttled\n\n_None._\n');
    expect(md).toContain('| list | pods | 200 | 120,004 |\n| get | (non-resource) | 200 | 4,567 |\n| update | deployments.apps/status | 409 | 3,912 |\n');
    expect(md).toContain('| update | deployments.apps/status | 4,210 | 6 ms | 14 ms | 95 ms | 1.73 s |');
    expect(md).toContain('| /var/log/kubernetes/audit/audit.log.gz | 88213 | invalid JSON: Unexpected end of JSON input |');
    const order = ['## 1. HIGH', '## Notes', '## Summary', '### Totals', '### Latency', '## Input', '### Bad lines'].map((s) => md.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(md.endsWith('|\n')).toBe(true);
  });

  it('says plainly when there are no findings', () => {
    const clean = renderMarkdown(cleanReport);
    expect(
      clean.startsWith(
        '# auditstorm: no retry or write loops found\n\n**Verdict:** no retry or write loops found in 611,877 requests over 2026-08-08 17:00:00.000 → 18:00:00.000 UTC (1h 00m).\n',
      ),
    ).toBe(true);
    expect(clean).not.toContain('## 1.');
  });

  it('orders findings most severe first', () => {
    const r = copy(report);
    r.findings = [
      { ...copy(storm), severity: 'low', title: 'low one' },
      { ...copy(storm), severity: 'critical', title: 'critical one' },
    ];
    const out = renderMarkdown(r);
    expect(out).toContain('# auditstorm: 2 findings (1 critical, 1 low)');
    expect(out.indexOf('## 1. CRITICAL conflict-storm: critical one')).toBeGreaterThan(0);
    expect(out.indexOf('## 2. LOW conflict-storm: low one')).toBeGreaterThan(out.indexOf('## 1. CRITICAL'));
  });

  describe('with hostile strings', () => {
    const evil = renderMarkdown(hostileReport());

    it('keeps every table row at the right number of cells', () => {
      const all = [...tables(md), ...tables(evil)];
      expect(all.length).toBeGreaterThan(10);
      for (const t of all) {
        const want = unescapedPipes(t[0]!);
        expect(t[1]).toMatch(/^\| (---:?)( \| ---:?)* \|$/);
        expect(want).toBe(t[1]!.split('|').length - 1);
        for (const row of t) expect(unescapedPipes(row)).toBe(want);
      }
    });

    it('escapes cells and inline text', () => {
      expect(evil).toContain(
        '| evil\\|agent \\`x\\` &lt;script&gt;alert(1)&lt;/script&gt; \\[link\\](http\\://x) | ua \\[2J\\[31mred\\]0;pwned1m  end | 258,420 | 4,210 | 3,912 | 0 | 0 |',
      );
      expect(evil).toContain('| deployments.apps/status shop/cart\\|evil | 4,210 | 3,912 |');
      expect(evil).toContain('## 1. HIGH conflict-storm: title evil\\|agent \\`x\\` &lt;script&gt;alert(1)&lt;/script&gt; \\[link\\](http\\://x)\n');
      expect(evil).toContain('**Fix**\n\n- \\- evil\\|agent \\`x\\` &lt;script&gt;alert(1)&lt;/script&gt; \\[link\\](http\\://x)\n');
      expect(evil).toContain('| /var/log/kubernetes/audit/audit.log.gz | 88213 | bad \\[2J\\[31mred\\]0;pwned1m  end |');
    });

    it('puts identifiers in code spans with a long enough fence', () => {
      expect(evil).toContain('- **Who:** ``evil|agent `x` <script>alert(1)</script> [link](http://x)`` (service account `shop/cart-operator`)');
      expect(evil).toContain('- **What:** `deployments.apps/status shop/cart|evil` (API version `v1`)');
      expect(evil).toContain('these auditIDs): ```id`with``ticks```\n');
    });

    it('lets no raw HTML, line break or control character through', () => {
      const outsideCode = evil.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, '');
      expect(outsideCode).not.toMatch(/<script|<\/script/);
      expect(evil.split('\n').filter((l) => l.startsWith('[link]'))).toEqual([]);
      // eslint-disable-next-line no-control-regex
      expect(evil).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    });
  });

  it('lists several actors and handles a finding without object or auditIDs', () => {
    const r = copy(report);
    const f = r.findings[0]!;
    f.actors = [f.actors[0]!, { ...f.actors[0]!, username: 'alice', serviceAccount: null, sourceIPs: [], fieldManagers: [] }];
    f.object = null;
    f.evidence = { auditIDs: [], firstAuditID: '', lastAuditID: '', auditLevel: 'Metadata', level: 'proven' };
    const out = renderMarkdown(r);
    expect(out).toContain(
      '- **What:** no single object (cluster-wide)\n- **Who:**\n  - `system:serviceaccount:shop:cart-operator` (service account `shop/cart-operator`); user agent',
    );
    expect(out).toContain('\n  - `alice`; user agent `manager/v0.0.0 (linux/amd64) kubernetes/$Format`\n');
    expect(out).toContain('**Evidence** (proven, audit level `Metadata`): no auditIDs recorded\n');
  });

  it('is pure: deterministic and does not touch the report', () => {
    const frozen = deepFreeze(copy(report));
    expect(renderMarkdown(frozen)).toBe(md);
    expect(frozen).toEqual(report);
  });
});
