/**
 * One generated log (a conflict storm on top of background traffic) written in every input shape
 * (`src/generator/shapes.ts`) must give the same findings and request counts as the JSON lines,
 * each shape detected without a flag. And a storm split across three API servers' logs, slightly
 * out of order, is found once with the single log's totals.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLog, type LogSpec } from '../../src/generator/generate.js';
import {
  toAks,
  toEksFilterLogEvents,
  toEksSubscriptionPayload,
  toEventList,
  toGke,
  toJsonArray,
  toLegacy,
  toOtlp,
  toPrettyDocs,
  toViaq,
  toYamlDocs,
} from '../../src/generator/shapes.js';
import { analyze, type Finding, type Report } from '../../src/index.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderText } from '../../src/report/text.js';

const dir = mkdtempSync(path.join(tmpdir(), 'auditstorm-shapes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixed = { now: () => new Date('2026-01-01T00:00:00Z') };

const SPEC: LogSpec = {
  seed: 42,
  start: '2026-03-14T09:00:00Z',
  durationMs: 3 * 60_000,
  stages: 'final-only',
  scenarios: [
    { type: 'background', nodes: 3 },
    { type: 'storm', startOffsetMs: 30_000, durationMs: 60_000, ratePerSec: 40 },
  ],
};

let lines: string[];
let base: Report;

function write(name: string, text: string | Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** What must be identical across shapes: finding ids, kinds, severities, windows and metrics. */
function findingsOf(r: Report): unknown[] {
  return r.findings.map((f: Finding) => ({ id: f.id, kind: f.kind, severity: f.severity, window: f.window, metrics: f.metrics }));
}

beforeAll(async () => {
  lines = [...generateLog(SPEC).lines];
  base = await analyze({ inputs: [write('audit.log', `${lines.join('\n')}\n`)] }, fixed);
});

describe('every shape gives the findings of the JSON lines', () => {
  it('the JSON lines have one conflict storm', () => {
    expect(base.input.sources[0]!.format).toBe('jsonl');
    expect(base.findings.map((f) => f.kind)).toContain('conflict-storm');
    expect(base.input.requests).toBe(lines.length);
  });

  // [file name, text, expected format]. Names do not say the shape: detection reads the bytes.
  const shapes: Array<[string, () => string | Buffer, string]> = [
    ['eventlist.log', () => toEventList(lines), 'eventlist'],
    ['eventlist-batches.log', () => toEventList(lines, { batchSize: 400 }), 'eventlist'],
    ['eventlist.log.gz', () => gzipSync(toEventList(lines)), 'eventlist'],
    ['array.log', () => toJsonArray(lines), 'json-array'],
    ['pretty.log', () => toPrettyDocs(lines), 'json-docs'],
    ['yaml.log', () => toYamlDocs(lines), 'yaml'],
    ['eks-filter.log', () => toEksFilterLogEvents(lines), 'eks'],
    ['eks-subscription.log', () => toEksSubscriptionPayload(lines), 'eks'],
    ['aks.log', () => toAks(lines), 'aks'],
    ['viaq.log', () => toViaq(lines), 'viaq'],
    ['otlp.log', () => toOtlp(lines), 'otlp'],
  ];

  it.each(shapes)('%s', async (name, text, format) => {
    const r = await analyze({ inputs: [write(name, text())] }, fixed);
    expect(r.input.sources.map((s) => [s.format, s.badLines, s.truncated])).toEqual([[format, 0, 0]]);
    expect([r.input.events, r.input.requests]).toEqual([base.input.events, base.input.requests]);
    expect(findingsOf(r)).toEqual(findingsOf(base));
    expect(r.summaries.totals).toEqual(base.summaries.totals);
  });

  it('a forced --input-format reads the same; a wrong one rejects the file', async () => {
    const file = write('forced.json', toEventList(lines));
    for (const inputFormat of ['json', 'yaml'] as const) {
      // YAML is a superset of JSON: a JSON document read as YAML gives the same events (slowly).
      const r = await analyze({ inputs: [file], inputFormat }, fixed);
      expect([r.input.sources[0]!.format, findingsOf(r)]).toEqual(['eventlist', findingsOf(base)]);
    }
    const jsonl = write('forced.log', `${lines.join('\n')}\n`);
    expect(findingsOf(await analyze({ inputs: [jsonl], inputFormat: 'json' }, fixed))).toEqual(findingsOf(base));
    // A forced format that does not fit is named, with the advice to drop the flag.
    for (const inputFormat of ['legacy', 'jsonl'] as const) {
      await expect(analyze({ inputs: [file], inputFormat }, fixed)).rejects.toMatchObject({
        message: expect.stringMatching(
          new RegExp(`was read as ${inputFormat} \\(--input-format ${inputFormat}\\), but none of its first 1000 non-blank lines is an audit event .*It looks like json`),
        ),
        hint: `Drop --input-format to detect the format of each file (or use --input-format json for ${file}).`,
      });
    }
  });

  it('GKE entries: same requests; the storm is found with the same totals', async () => {
    // GKE's LogEntry keeps only the stage time (latency 0) and no resourceVersion (toGke's table),
    // so metrics that need those may differ; the storm, its object, actor and counts may not.
    const r = await analyze({ inputs: [write('gke.log', toGke(lines))] }, fixed);
    expect(r.input.sources[0]!.format).toBe('gke');
    expect(r.input.requests).toBe(base.input.requests);
    const storm = (x: Report) => x.findings.filter((f) => f.kind === 'conflict-storm');
    expect(storm(r).map((f) => [f.id, f.metrics.attempts, f.metrics.conflicts])).toEqual(storm(base).map((f) => [f.id, f.metrics.attempts, f.metrics.conflicts]));
  });

  it('GKE entries with gRPC 6 (not 10) on the conflicting updates: still a Conflict storm', async () => {
    // Which gRPC code GKE gives a 409 is unverified (reference §6.2): 6 on an update is not AlreadyExists.
    const text = toGke(lines);
    const code6 = text
      .split('\n')
      .map((l) => {
        if (!l.includes('"status":{"code":10')) return l;
        const e = JSON.parse(l) as { protoPayload: Record<string, unknown> };
        e.protoPayload.status = { code: 6 };
        delete e.protoPayload.response;
        return JSON.stringify(e);
      })
      .join('\n');
    expect(code6).not.toBe(text);
    const r = await analyze({ inputs: [write('gke6.log', code6)] }, fixed);
    const gke = await analyze({ inputs: [write('gke10.log', text)] }, fixed);
    const storm = (x: Report) => x.findings.filter((f) => f.kind === 'conflict-storm').map((f) => [f.id, f.severity, f.metrics.attempts, f.metrics.conflicts]);
    expect(storm(r)).toHaveLength(1);
    expect(storm(r)).toEqual(storm(gke));
    expect(r.findings.filter((f) => f.kind === 'create-conflict-storm')).toEqual([]);
  });

  it('EKS messages cut by CloudWatch: read from their prefix, the storm found with the JSON lines totals, and the report says so', async () => {
    // Cut at 1,500 characters every message still has its code and times (at 1,000 most lose
    // responseStatus: those are counted, not read, as their outcome is unknown).
    const long = lines.filter((l) => l.length > 1500).length;
    const r = await analyze({ inputs: [write('eks-cut.log', toEksFilterLogEvents(lines, { truncateAt: 1500 }))] }, fixed);
    expect(long).toBe(2147);
    expect([r.input.truncated, r.input.truncatedRead, r.input.badLines]).toEqual([long, long, 0]);
    expect([r.input.events, r.input.requests]).toEqual([base.input.events, base.input.requests]);
    const storm = (x: Report) => x.findings.filter((f) => f.kind === 'conflict-storm').map((f) => [f.id, f.metrics.attempts, f.metrics.conflicts]);
    expect(storm(r)).toEqual(storm(base));
    expect(r.findings.map((f) => f.kind)).not.toContain('hot-loop');
    const n = long.toLocaleString('en-US');
    const note = `${n} events cut by CloudWatch ([Truncated...]); ${n} read from the part before the cut (no bodies; fields after the cut missing)`;
    expect(renderText(r, { width: 400, color: false })).toContain(`Truncated       ${note}`);
    const md = renderMarkdown(r);
    expect(md).toContain(`- Truncated: ${n} events cut by CloudWatch (`);
    expect(md).toContain(`; ${n} read from the part before the cut (no bodies; fields after the cut missing)`);
  });

  it('legacy text: same requests; the storm is still found by code 409 and timing', async () => {
    // Legacy lines have no resourceVersion, no reason (a 409 is Conflict or AlreadyExists) and no
    // stage time (every stage carries the received time): reference §2. So the storm is found
    // with the same attempts and 409s, but not with identical metrics (latencies, stale-cache).
    const r = await analyze({ inputs: [write('legacy.log', toLegacy(lines))] }, fixed);
    expect(r.input.sources[0]!.format).toBe('legacy');
    expect(r.input.requests).toBe(base.input.requests);
    const storm = (x: Report) => x.findings.filter((f) => f.kind === 'conflict-storm');
    expect(storm(r)).toHaveLength(storm(base).length);
    expect(storm(r).map((f) => [f.object?.name, f.actors[0]?.username, f.metrics.attempts])).toEqual(
      storm(base).map((f) => [f.object?.name, f.actors[0]?.username, f.metrics.attempts]),
    );
  });
});

describe('a storm split across three API servers', () => {
  it('is found once, with the totals of the single log', async () => {
    // Round-robin-ish: each request goes to one of three servers; each file is then locally
    // disordered by swapping neighbours (as a log written from several goroutines is).
    const parts: string[][] = [[], [], []];
    lines.forEach((l, i) => parts[(i * 7 + (i >> 3)) % 3]!.push(l));
    const ts = (l: string): number => Date.parse((JSON.parse(l) as { stageTimestamp: string }).stageTimestamp);
    let swapped = 0;
    for (const p of parts) {
      for (let i = 0; i + 1 < p.length; i += 5) {
        if (ts(p[i + 1]!) - ts(p[i]!) > 500) continue; // slightly: within the 2 s reorder window
        [p[i], p[i + 1]] = [p[i + 1]!, p[i]!];
        swapped++;
      }
    }
    expect(swapped).toBeGreaterThan(100);
    const files = parts.map((p, i) => write(`apiserver-${i}.log`, `${p.join('\n')}\n`));
    const r = await analyze({ inputs: files }, fixed);
    expect(r.input.sources.map((s) => s.requests)).toEqual(parts.map((p) => p.length));
    expect(r.input.requests).toBe(base.input.requests);
    expect(r.input.lateRequests).toBe(0);
    expect(findingsOf(r)).toEqual(findingsOf(base));
    expect(r.findings.filter((f) => f.kind === 'conflict-storm')).toHaveLength(1);
  });
});
