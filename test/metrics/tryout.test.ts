/**
 * Found by trying `auditstorm metrics` on hand-written scrapes: counters that fall between two
 * scrapes of one process (no process_start_time_seconds to tell) are counted from 0 and said so.
 */
import { describe, expect, it } from 'vitest';
import { WANTED } from '../../src/metrics/analyze.js';
import { parseExposition } from '../../src/metrics/exposition.js';
import { buildMetricsReport, type ScrapeInput } from '../../src/metrics/report.js';

function scrape(source: string, time: string, put409: number, put200: number): ScrapeInput {
  const text = [
    `# auditstorm-scrape-time: ${time}`,
    '# TYPE apiserver_request_total counter',
    `apiserver_request_total{code="409",group="apps.acme.io",resource="widgets",subresource="status",verb="PUT"} ${put409}`,
    `apiserver_request_total{code="200",group="apps.acme.io",resource="widgets",subresource="status",verb="PUT"} ${put200}`,
    'apiserver_request_total{code="200",group="",resource="pods",subresource="",verb="GET"} 5',
    '',
  ].join('\n');
  return { source, kind: 'file', bytes: text.length, exposition: parseExposition(text, { want: (n) => WANTED.has(n) }) };
}

describe('falling counters without process_start_time_seconds', () => {
  it('count from 0 and are named in a warning', () => {
    const r = buildMetricsReport([scrape('a.txt', '2026-12-06T01:00:00Z', 100, 100), scrape('b.txt', '2026-12-06T01:00:10Z', 50, 20)], {
      now: new Date('2026-12-06T02:00:00Z'),
      version: '0.0.0-test',
    });
    const m = r.apiserverMetrics!;
    expect(m.resources.find((q) => q.resource === 'widgets')).toMatchObject({ requests: 70, code409: 50 });
    expect(m.warnings).toContain(
      'b.txt: 2 apiserver_request_total series fell below their value in a.txt: counted from 0 as after a restart; if the two scrapes reached different API server replicas, the numbers between them are wrong',
    );
  });
  it('rising counters give no such warning', () => {
    const r = buildMetricsReport([scrape('a.txt', '2026-12-06T01:00:00Z', 100, 100), scrape('b.txt', '2026-12-06T01:00:10Z', 150, 120)], {
      now: new Date('2026-12-06T02:00:00Z'),
      version: '0.0.0-test',
    });
    expect(r.apiserverMetrics!.warnings.filter((w) => w.includes('fell below'))).toEqual([]);
  });
});
