/**
 * Publish order: the worker applies a cluster's events in the order they were published even when
 * JetStream stored a refused-then-retried publish behind later events of its window (the cause of
 * a fleet report that differed from `analyze` after a 3-node cluster's start-up).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import type { AuditEvent } from '../../src/decoding/event.js';
import { Readable } from 'node:stream';
import { connectFleet, ensureStream, type Fleet } from '../../src/fleet/connect.js';
import { REPORT_BUCKET, STREAM } from '../../src/fleet/names.js';
import { formatOrder, MAX_HELD, OrderBuffer, parseOrder, PublishOrder, type OrderMark } from '../../src/fleet/order.js';
import { publishEvents, publishInputs, PUBLISH_WINDOW, type PublishCounts } from '../../src/fleet/publish.js';
import { readClusterReports } from '../../src/fleet/report.js';
import { FleetWorker } from '../../src/fleet/worker.js';
import { fleetSpecs } from '../../src/generator/fleet.js';
import { generateLog, logText } from '../../src/generator/generate.js';
import type { Report } from '../../src/report/schema.js';
import { Procs, startNats } from './helpers.js';

const HAVE_NATS = spawnSync('nats-server', ['--version']).status === 0;

/** Pushes `[run, window, n]` marks (or `null`) labelled by `n` through one buffer; returns what each push gave. */
function feed(marks: Array<[string, number, number] | null>, buf = new OrderBuffer<string>()): string[][] {
  return marks.map((m, i) => buf.push(m === null ? null : { run: m[0], window: m[1], n: m[2] }, m === null ? `x${i}` : `${m[0]}${m[2]}`));
}

describe('OrderBuffer', () => {
  it.each<{ name: string; marks: Array<[string, number, number] | null>; out: string[][] }>([
    {
      name: 'in order: each applied at once',
      marks: [
        ['a', 0, 0],
        ['a', 0, 1],
        ['a', 2, 2],
      ],
      out: [['a0'], ['a1'], ['a2']],
    },
    {
      name: 'the first two refused and retried: held until they come',
      marks: [
        ['a', 0, 2],
        ['a', 0, 3],
        ['a', 0, 0],
        ['a', 0, 1],
        ['a', 4, 4],
      ],
      out: [[], [], ['a0'], ['a1', 'a2', 'a3'], ['a4']],
    },
    {
      name: 'a gap never filled: released when the next window begins',
      marks: [
        ['a', 0, 1],
        ['a', 0, 2],
        ['a', 3, 4],
        ['a', 3, 3],
      ],
      out: [[], [], ['a1', 'a2'], ['a3', 'a4']],
    },
    {
      name: 'the next window overtakes a held one: the held first, then the gap skipped',
      marks: [
        ['a', 0, 0],
        ['a', 0, 2],
        ['a', 3, 3],
      ],
      out: [['a0'], [], ['a2', 'a3']],
    },
    {
      name: 'behind the expected ordinal (a late resend): applied at once',
      marks: [
        ['a', 0, 0],
        ['a', 0, 1],
        ['a', 0, 0],
      ],
      out: [['a0'], ['a1'], ['a0']],
    },
    { name: 'no mark: applied at once, held ones stay held', marks: [['a', 0, 1], null, ['a', 0, 0]], out: [[], ['x1'], ['a0', 'a1']] },
    {
      name: 'two runs: each its own order',
      marks: [
        ['a', 0, 1],
        ['b', 0, 0],
        ['a', 0, 0],
        ['b', 0, 1],
      ],
      out: [[], ['b0'], ['a0', 'a1'], ['b1']],
    },
    {
      name: 'a run first seen mid-stream starts at its window',
      marks: [
        ['a', 512, 512],
        ['a', 512, 514],
        ['a', 512, 513],
      ],
      out: [['a512'], [], ['a513', 'a514']],
    },
    {
      name: 'a copy of a held message is held once',
      marks: [
        ['a', 0, 1],
        ['a', 0, 1],
        ['a', 0, 0],
      ],
      out: [[], [], ['a0', 'a1']],
    },
  ])('$name', ({ marks, out }) => {
    expect(feed(marks)).toEqual(out);
  });

  it('flush gives every held message in order, and the run goes on past them', () => {
    const buf = new OrderBuffer<string>();
    feed(
      [
        ['a', 0, 3],
        ['a', 0, 1],
        ['b', 0, 2],
      ],
      buf,
    );
    expect(buf.held).toBe(3);
    expect(buf.flush()).toEqual(['a1', 'a3', 'b2']);
    expect(buf.held).toBe(0);
    expect(
      feed(
        [
          ['a', 0, 2],
          ['a', 4, 4],
        ],
        buf,
      ),
    ).toEqual([['a2'], ['a4']]);
  });

  it(`holds at most ${MAX_HELD} messages, then applies them in order`, () => {
    const buf = new OrderBuffer<string>();
    const marks: Array<[string, number, number]> = [];
    for (let n = MAX_HELD + 1; n >= 1; n--) marks.push(['a', 0, n]);
    const out = feed(marks, buf);
    expect(out.slice(0, MAX_HELD).every((o) => o.length === 0)).toBe(true);
    expect(out[MAX_HELD]).toEqual(Array.from({ length: MAX_HELD + 1 }, (_, i) => `a${i + 1}`));
    expect(buf.held).toBe(0);
  });

  it('forgets the least recently seen run without held messages past maxRuns', () => {
    const buf = new OrderBuffer<string>(2);
    // a holds a message, so b is forgotten when c comes: b's next message starts it again at its
    // window 0, so b1 waits for a b0 it had applied already (remembered, b1 would be applied).
    expect(
      feed(
        [
          ['a', 0, 1],
          ['b', 0, 0],
          ['c', 0, 0],
          ['b', 0, 1],
        ],
        buf,
      ),
    ).toEqual([[], ['b0'], ['c0'], []]);
    expect(feed([['a', 0, 0]], buf)).toEqual([['a0', 'a1']]);
  });

  it.each<[string, OrderMark | null]>([
    ['r1 0 5', { run: 'r1', window: 0, n: 5 }],
    ['', null],
    ['r1 0', null],
    ['r1 6 5', null],
    ['r1 -1 5', null],
    ['r1 0 x', null],
    [' 0 1', null],
    ['r1 0 1 2', null],
  ])('parses %j', (value, mark) => {
    expect(parseOrder(value)).toEqual(mark);
    if (mark !== null) expect(formatOrder(mark)).toBe(value);
  });
});

describe.skipIf(!HAVE_NATS)('publish order through JetStream', () => {
  const procs = new Procs();
  const dir = mkdtempSync(join(tmpdir(), 'auditstorm-order-'));
  afterAll(() => {
    procs.killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first 100 events refused once: stored behind their window, analyzed in publish order, the report equals analyze', async () => {
    // cluster-02 of the generated fleet holds a hot loop from its first second.
    const spec = fleetSpecs(3)[2]!;
    const path = join(dir, 'c.log');
    writeFileSync(path, logText(generateLog(spec.spec)));
    const want = await analyze({ inputs: [path] });
    expect(want.findings.map((f) => f.kind)).toEqual(['hot-loop']);
    const events = readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as AuditEvent);

    const nats = await startNats(procs, join(dir, 'nats'));
    const f = await connectFleet(nats.url, () => {}, 10_000);
    const worker = new FleetWorker({ url: nats.url, id: 'w', analyze: {}, leaseMs: 3000, settleMs: 1500, log: () => {} });
    try {
      const partitions = await ensureStream(f, { partitions: 2, replicas: 1, maxAgeMs: 0 });
      const refused = new Set<string>();
      const js: JetStreamClient = Object.create(f.js) as JetStreamClient;
      js.publish = (subject, data, opts) => {
        const id = opts!.msgID!;
        if (refused.size < 100 && !refused.has(id)) {
          refused.add(id);
          return Promise.reject(new Error('jetstream is not enabled'));
        }
        return f.js.publish(subject, data, opts);
      };
      const counts: PublishCounts = { published: 0, duplicates: 0, badLines: 0, unnamed: 0 };
      await publishEvents({ js, cluster: 'c', partitions, log: () => {}, order: new PublishOrder(), retryForMs: 10_000 }, events, counts);
      expect(counts).toEqual({ published: events.length, duplicates: 0, badLines: 0, unnamed: 0 });

      // The stream holds events 100..255 before 0..99.
      const reader = 'order-test-reader';
      await f.jsm.consumers.add(STREAM, { durable_name: reader, deliver_policy: DeliverPolicy.All, ack_policy: AckPolicy.None });
      const stored: string[] = [];
      const consumer = await f.js.consumers.get(STREAM, reader);
      while (stored.length < PUBLISH_WINDOW) {
        for await (const m of await consumer.fetch({ max_messages: PUBLISH_WINDOW - stored.length, expires: 2000 })) {
          const ev = JSON.parse(m.string()) as AuditEvent;
          stored.push(`${ev.auditID}/${ev.stage}`);
        }
      }
      await f.jsm.consumers.delete(STREAM, reader);
      const published = events.slice(0, PUBLISH_WINDOW).map((e) => `${e.auditID}/${e.stage}`);
      expect(stored).toEqual([...published.slice(100), ...published.slice(0, 100)]);

      await worker.start();
      const got = await settledReport(f, 'c');
      expect(got.input.events).toBe(events.length);
      expect([got.findings, got.notes, got.summaries]).toEqual([want.findings, want.notes, want.summaries]);
    } finally {
      await worker.stop();
      await f.nc.close();
    }
  }, 120_000);

  it("two API servers' logs of one cluster in one publish go out merged in time: the report equals analyze of both", async () => {
    // cluster-02's log dealt line by line to two API servers: each log in time order, together interleaved.
    const lines = logText(generateLog(fleetSpecs(3)[2]!.spec))
      .split('\n')
      .filter((l) => l !== '');
    const paths = [join(dir, 'apiserver-a.log'), join(dir, 'apiserver-b.log')];
    writeFileSync(paths[0]!, lines.filter((_, i) => i % 2 === 0).join('\n') + '\n');
    writeFileSync(paths[1]!, lines.filter((_, i) => i % 2 === 1).join('\n') + '\n');
    const want = await analyze({ inputs: paths });
    expect([want.findings.map((f) => f.kind), want.input.events]).toEqual([['hot-loop'], lines.length]);

    const nats = await startNats(procs, join(dir, 'nats2'));
    const f = await connectFleet(nats.url, () => {}, 10_000);
    const worker = new FleetWorker({ url: nats.url, id: 'w2', analyze: {}, leaseMs: 3000, settleMs: 1500, log: () => {} });
    try {
      const partitions = await ensureStream(f, { partitions: 2, replicas: 1, maxAgeMs: 0 });
      const { counts } = await publishInputs({ js: f.js, cluster: 'two', partitions, log: () => {} }, paths, Readable.from([]), {
        maxLineLength: 1 << 20,
        sniffLines: 20,
        badLineSamples: 5,
      });
      expect(counts.published).toBe(lines.length);
      await worker.start();
      const got = await settledReport(f, 'two');
      expect(got.input.events).toBe(lines.length);
      expect([got.findings, got.notes, got.summaries]).toEqual([want.findings, want.notes, want.summaries]);
    } finally {
      await worker.stop();
      await f.nc.close();
    }
  }, 120_000);
});

/** Polls the report bucket until `cluster`'s report is settled (fails after 60 s); returns it. */
async function settledReport(f: Fleet, cluster: string): Promise<Report> {
  const until = Date.now() + 60_000;
  for (;;) {
    const entries = await readClusterReports(await f.kvm.open(REPORT_BUCKET))
      .then((r) => r.entries)
      .catch(() => []);
    const e = entries.find((x) => x.cluster === cluster);
    if (e?.settled === true) return e.report;
    if (Date.now() > until) throw new Error(`not settled: ${JSON.stringify(e?.report.input)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
