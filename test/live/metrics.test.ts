import { describe, expect, it } from 'vitest';
import { escapeLabelValue, renderMetrics } from '../../src/live/metrics.js';
import { RecentRates } from '../../src/live/rates.js';
import type { LiveStatus } from '../../src/live/session.js';

const status: LiveStatus = {
  uptimeMs: 12_500,
  events: 1000,
  requestsRead: 995,
  requests: 990,
  duplicates: 5,
  badLines: 3,
  openByKind: { 'conflict-storm': 1, 'hot-loop': 0 },
  openedByKind: { 'conflict-storm': 2, 'hot-loop': 0 },
  closedByKind: { 'conflict-storm': 1, 'hot-loop': 0 },
  streamTimeMs: 1_772_201_480_250,
};

describe('renderMetrics', () => {
  it('writes the Prometheus text format with escaped, bounded labels', () => {
    const text = renderMetrics({
      status,
      server: { batches: 4, rejected: { bad_body: 2, unauthorized: 1 }, itemsReceived: 1003, bodyBytes: 123456 },
      actors: [{ key: 'evil"user\\\nname', writesPerSec: 25.5, conflictsPerSec: 20 }],
      objects: [{ key: 'appdeployments.infra.company.io/status\u0000default\u0000payment-core', writesPerSec: 14.3, conflictsPerSec: 1 / 3 }],
      rateSpanMs: 60_000,
      residentMemoryBytes: 104857600,
    });
    const lines = text.split('\n');
    expect(lines).toContain('# TYPE auditstorm_open_episodes gauge');
    expect(lines).toContain('auditstorm_open_episodes{kind="conflict-storm"} 1');
    expect(lines).toContain('auditstorm_open_episodes{kind="hot-loop"} 0');
    expect(lines).toContain('auditstorm_events_received_total 1003');
    expect(lines).toContain('auditstorm_events_parsed_total 1000');
    expect(lines).toContain('auditstorm_parse_errors_total 3');
    expect(lines).toContain('auditstorm_requests_read_total 995');
    expect(lines).toContain('auditstorm_requests_total 990');
    expect(lines).toContain('auditstorm_duplicate_requests_total 5');
    expect(lines).toContain('auditstorm_batches_rejected_total{reason="bad_body"} 2');
    expect(lines).toContain('auditstorm_actor_writes_per_second{user="evil\\"user\\\\\\nname"} 25.5');
    expect(lines).toContain('auditstorm_object_conflicts_per_second{resource="appdeployments.infra.company.io/status",namespace="default",name="payment-core"} 0.333333');
    expect(lines).toContain('auditstorm_stream_time_seconds 1772201480.25');
    expect(lines).toContain('process_resident_memory_bytes 104857600');
    expect(text.endsWith('\n')).toBe(true);
    // Every sample line is `name{labels} value` with a numeric value.
    for (const l of lines.filter((x) => x !== '' && !x.startsWith('#'))) expect(l).toMatch(/^[a-z_]+(\{.*\})? -?[0-9.e+]+$/);
  });

  it('escapes backslash, quote and newline', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
  });
});

describe('RecentRates', () => {
  it('rates over the last minute, top by 409 rate, ignoring too-old writes', () => {
    const r = new RecentRates(10_000, 6, 100);
    const t0 = 1_000_000_000_000;
    for (let i = 0; i < 120; i++) r.add('storm', t0 + i * 500, i % 4 !== 0); // 2 writes/s, 3/4 of them 409
    for (let i = 0; i < 60; i++) r.add('busy', t0 + i * 1000, false);
    r.add('storm', t0 - 600_000, true); // a resent old batch must not wipe newer buckets
    const top = r.top(10, t0 + 59_999);
    expect(top.map((x) => [x.key, x.writesPerSec, x.conflictsPerSec])).toEqual([
      ['storm', 2, 1.5],
      ['busy', 1, 0],
    ]);
    r.sweep(t0 + 200_000);
    expect(r.size).toBe(0);
  });

  it('tracks at most maxKeys keys', () => {
    const r = new RecentRates(10_000, 6, 3);
    for (let i = 0; i < 10; i++) r.add(`k${i}`, 1000, false);
    expect(r.size).toBe(3);
    expect(r.untracked).toBe(7);
  });

  it("gives a swept key's slot to a new key without its counts, and keeps counts across growth", () => {
    const r = new RecentRates(10_000, 6, 2);
    const t0 = 1_000_000_000_000;
    for (let i = 0; i < 30; i++) r.add('a', t0 + i * 100, true);
    r.add('b', t0 + 50_000, false);
    r.sweep(t0 + 61_000); // a's last write is out of the span ending there, b's is not
    expect(r.size).toBe(1);
    r.add('c', t0 + 61_000, false); // a's slot, its 30 conflicts in the same ring position
    expect(r.untracked).toBe(0);
    expect(r.top(10, t0 + 61_000).map((x) => [x.key, x.writesPerSec * 60, x.conflictsPerSec * 60])).toEqual([
      ['b', 1, 0],
      ['c', 1, 0],
    ]);
    const big = new RecentRates(10_000, 6, 1000);
    for (let k = 0; k < 200; k++) for (let j = 0; j <= k % 7; j++) big.add(`k${k}`, t0 + j, k % 2 === 0);
    const top = big.top(1000, t0 + 1);
    expect(top).toHaveLength(200);
    expect(top.find((x) => x.key === 'k0')?.conflictsPerSec).toBe(1 / 60);
    expect(top.find((x) => x.key === 'k6')?.conflictsPerSec).toBe(7 / 60);
    expect(top.find((x) => x.key === 'k199')?.writesPerSec).toBe(4 / 60);
    expect(top.find((x) => x.key === 'k199')?.conflictsPerSec).toBe(0);
  });
});
