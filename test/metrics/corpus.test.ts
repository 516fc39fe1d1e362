/**
 * The four real kube-apiserver scrapes in `../shared/corpus/metrics` (Kubernetes 1.19, 1.24, 1.28,
 * 1.35; see its SOURCES.md). Expected values were counted by hand with grep and awk over the raw
 * files, not by this code, e.g. for 1.19:
 *   grep '^apiserver_request_total{' F | grep 'group="apps",resource="deployments",.*subresource="status",verb="PUT"' | awk '{s+=$NF} END {print s}'
 * and the 1.35 pods/status PATCH p99 from its buckets summed over labels (62 ≤ 5 ms, 77 ≤ 25 ms,
 * 78 ≤ 50 ms: 25 + 25 × (0.99 × 78 − 77) / 1 = 30.5 ms).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readScrape } from '../../src/metrics/read.js';
import { buildMetricsReport } from '../../src/metrics/report.js';
import { ReportSchema } from '../../src/report/schema.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = path.resolve(repoRoot, '../shared/corpus/metrics');
const present = existsSync(CORPUS);
if (!present) console.warn(`auditstorm tests: ${CORPUS} not found; the metrics-corpus tests are skipped (they run where ../shared exists)`);

function file(version: string): string {
  const name = readdirSync(CORPUS).find((f) => f.includes(`__${version}__`));
  if (name === undefined) throw new Error(`no scrape of ${version} in ${CORPUS}`);
  return path.join(CORPUS, name);
}

/**
 * [version, lines, sample lines, requests, non-resource, writes, 409 on PUT/PATCH/APPLY, 409 on POST,
 * deployments.apps/status PUT requests, of them 409, APF (priority level, flow schema) pairs].
 */
const EXPECTED: Array<[string, number, number, number, number, number, number, number, number, number, number]> = [
  ['1_19', 11600, 11410, 2607, 328, 1089, 17, 4, 36, 8, 0],
  ['1_24', 12451, 12307, 1948, 142, 961, 12, 6, 32, 6, 9],
  ['1_28', 12170, 12024, 2193, 307, 988, 11, 4, 32, 7, 10],
  ['1_35', 12901, 12775, 1873, 236, 992, 15, 4, 34, 6, 8],
];

describe.skipIf(!present)('real kube-apiserver scrapes (1.19 to 1.35)', () => {
  for (const [version, lines, samples, requests, nonResource, writes, conflicts, alreadyExists, deployStatus, deployStatus409, apf] of EXPECTED) {
    it(`${version}: totals, one resource's 409s, APF rows; no finding in a quiet test cluster`, async () => {
      const scrape = await readScrape(file(version));
      expect([scrape.exposition.lines, scrape.exposition.sampleLines, scrape.exposition.badLines]).toEqual([lines, samples, 0]);
      const report = ReportSchema.parse(buildMetricsReport([scrape], { now: new Date(0), version: 'test' }));
      const m = report.apiserverMetrics!;
      expect(m.totals).toEqual({ requests, writes, conflicts, alreadyExists, throttled: 0, nonResource });
      const row = m.resources.find((r) => r.group === 'apps' && r.resource === 'deployments' && r.subresource === 'status' && r.verb === 'PUT')!;
      expect([row.requests, row.code409]).toEqual([deployStatus, deployStatus409]);
      expect(m.priorityLevels.length).toBe(apf);
      expect(m.inflight).toEqual([
        { kind: 'mutating', current: 1, max: 1 },
        { kind: 'readOnly', current: 1, max: 1 },
      ]);
      expect(report.findings).toEqual([]);
      expect(m.basis).toBe('totals');
    });
  }

  it('1.19: contentType is summed away; process start and version come from the uncut tail', async () => {
    const report = buildMetricsReport([await readScrape(file('1_19'))], { now: new Date(0), version: 'test' });
    const m = report.apiserverMetrics!;
    expect(m.scrapes[0]).toMatchObject({ processStart: '2023-05-31T02:15:46.010Z', kubernetesVersion: 'v1.19.16', time: null });
    // pods POST: five series over code and contentType (3 + 24 + 1 + 3 + 1), counted by hand.
    const pods = m.resources.find((r) => r.group === '' && r.resource === 'pods' && r.subresource === '' && r.verb === 'POST')!;
    expect([pods.requests, pods.code409]).toEqual([32, 3]);
    expect(m.warnings).toContain('no API Priority and Fairness series (apiserver_flowcontrol_*): APF off, or the scrape predates it');
  });

  it('1.35: pods/status PATCH latency as histogram_quantile gives it; WATCH has none', async () => {
    const m = buildMetricsReport([await readScrape(file('1_35'))], { now: new Date(0), version: 'test' }).apiserverMetrics!;
    const patch = m.resources.find((r) => r.resource === 'pods' && r.subresource === 'status' && r.verb === 'PATCH')!;
    expect(patch).toMatchObject({ requests: 78, latencyCount: 78, p50Ms: 3.1, p90Ms: 15.9, p99Ms: 30.5 });
    const watch = m.resources.find((r) => r.resource === 'pods' && r.subresource === '' && r.verb === 'WATCH')!;
    expect(watch).toMatchObject({ requests: 20, latencyCount: 0, p99Ms: null });
    // The queue-wait histogram of workload-high/kube-system-service-accounts: 490 waits, all ≤ 5 ms.
    expect(m.priorityLevels[0]).toMatchObject({ priorityLevel: 'workload-high', flowSchema: 'kube-system-service-accounts', rejected: 0, waitCount: 490 });
  });
});
