/**
 * The API server's own log among audit events (`kubectl logs kube-apiserver-… | auditstorm watch`
 * with `--audit-log-path=-`): klog text and JSON-logging lines are skipped and counted as
 * `input.skipped.logLines`, not as bad lines; a file of nothing else is not an audit log.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { isJsonLogRecord, isKlogLine } from '../../src/decoding/server-log.js';
import { logLinesNote, readerNote } from '../../src/report/input-notes.js';
import type { Report } from '../../src/report/schema.js';
import { fakeIO, fakeReport } from '../cli/helpers.js';
import { incidentLines } from '../live/helpers.js';

/** Lines as kube-apiserver v1.31 writes them to stderr (klog header: Lmmdd hh:mm:ss.uuuuuu threadid file:line]). */
const KLOG = [
  'I1205 17:11:57.123456       1 flags.go:64] FLAG: --audit-log-path="-"',
  'W1205 17:11:57.223456       1 authentication.go:439] AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false.',
  'E1205 17:12:03.000001      17 watcher.go:123] "Unhandled Error" err="context canceled" logger="UnhandledError"',
  'I1205 17:12:04.998877       1 controller.go:615] quota admission added evaluator for: leases.coordination.k8s.io',
];
/** grpc's line while etcd is down: a ` {` with no `"` before it, the shape of a `host {…}` prefix. */
const KLOG_GRPC =
  'W1205 17:12:05.000002       1 logging.go:59] [core] [Channel #1 SubChannel #2] grpc: addrConn.createTransport failed to connect to {Addr: "127.0.0.1:2379", ServerName: "127.0.0.1", }. Err: connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:2379: connect: connection refused"';
const JSON_LOG = '{"ts":1733419917123.456,"caller":"app/server.go:167","msg":"Version: v1.31.0","v":0}';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'auditstorm-server-log-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('server log lines', () => {
  it('recognizes klog text and JSON-logging records, and nothing else', () => {
    for (const l of KLOG) expect([l, isKlogLine(l)]).toEqual([l, true]);
    expect(isKlogLine('F0101 00:00:00.000000 12345 main.go:1] fatal')).toBe(true);
    for (const l of [
      'I1305 17:11:57.123456       1 flags.go:64] month 13',
      'I1205 17:11:57.123       1 flags.go:64] milliseconds only',
      'Info: I1205 17:11:57.123456 1 flags.go:64] not at the start',
      '2026-07-01T10:00:00.123456Z AUDIT: id="6f1b" stage="ResponseComplete" ip="10.0.0.1" method="update"',
      'Flag --insecure-port has been deprecated',
      incidentLines()[0]!,
    ]) {
      expect([l, isKlogLine(l)]).toEqual([l, false]);
    }
    expect(isJsonLogRecord(JSON.parse(JSON_LOG))).toBe(true);
    expect(isJsonLogRecord(JSON.parse(incidentLines()[0]!))).toBe(false);
    expect(isJsonLogRecord({ ts: 1, msg: 'x', kind: 'Event' })).toBe(false);
    expect(isJsonLogRecord([1])).toBe(false);
  });

  it('analyze: skipped and counted apart from bad lines; the events around them all count', async () => {
    const events = incidentLines();
    const mixed = [KLOG[0], KLOG[1], ...events.slice(0, 100), KLOG[2], '{not json', ...events.slice(100), JSON_LOG, KLOG[3]].join('\n') + '\n';
    const path = join(dir, 'kubectl-logs.log');
    await writeFile(path, mixed);
    const io = fakeIO();
    expect(await main([path, '--format', 'json'], io)).toBe(0);
    const r = JSON.parse(io.stdout.text) as Report;
    expect(r.input.skipped.logLines).toBe(5);
    expect([r.input.badLines, r.input.events, r.input.lines]).toEqual([1, events.length, events.length + 6]);
    expect(r.input.badLineSamples).toEqual([{ source: path, line: 104, reason: expect.stringMatching(/JSON/) }]);
    expect(r.input.sources[0]!.badLines).toBe(1);
  });

  it('analyze: a klog line holding ` {` (grpc dialing etcd, or a JSON value at its end) is server log, not a bad line', async () => {
    const events = incidentLines();
    const klogJson = 'I1205 17:12:06.000003       1 genericapiserver.go:55] config {"qps":5}';
    const path = join(dir, 'kubectl-logs-grpc.log');
    await writeFile(path, [KLOG_GRPC, ...events.slice(0, 10), klogJson, ...events.slice(10)].join('\n') + '\n');
    const io = fakeIO();
    expect(await main([path, '--format', 'json'], io)).toBe(0);
    const r = JSON.parse(io.stdout.text) as Report;
    expect([r.input.skipped.logLines, r.input.badLines, r.input.events]).toEqual([2, 0, events.length]);
  });

  it('watch -: the same from a pipe, in the final report', async () => {
    const stdin = new PassThrough();
    stdin.end([KLOG[0], ...incidentLines(), KLOG[2]].join('\n') + '\n');
    const io = fakeIO({ stdin });
    expect(await main(['watch', '--format', 'ndjson'], io)).toBe(0);
    const last = JSON.parse(io.stdout.text.trim().split('\n').pop()!) as { type: string; report: Report };
    expect([last.type, last.report.input.skipped.logLines, last.report.input.badLines]).toEqual(['report', 2, 0]);
  }, 30_000);

  it('watch -: a stream of nothing but the server log warns which flag is missing, then ends with exit 2', async () => {
    const stdin = new PassThrough();
    stdin.write(KLOG.slice(0, 2).join('\n') + '\n');
    const io = fakeIO({ stdin });
    const done = main(['watch'], io);
    for (let i = 0; i < 100 && !io.stderr.text.includes('no audit event yet'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(io.stderr.text).toBe(
      "auditstorm: warning: no audit event yet: 2 lines of the API server's own log (klog) so far, skipped; kubectl logs shows audit events only when the API server writes them to stdout (--audit-log-path=-)\n",
    );
    stdin.end(KLOG[2] + '\n');
    expect(await done).toBe(2);
    expect(io.stderr.text).toContain('auditstorm: "<stdin>" holds 3 lines of the API server\'s own log (klog) and no audit event\n');
  }, 30_000);

  it('a file of the server log and no audit event is not an audit log, and says which flag is missing (exit 2)', async () => {
    const path = join(dir, 'apiserver-stderr.log');
    await writeFile(path, KLOG.join('\n') + '\n');
    const io = fakeIO();
    expect(await main([path], io)).toBe(2);
    expect(io.stderr.text).toBe(
      `auditstorm: "${path}" holds 4 lines of the API server's own log (klog) and no audit event\n` +
        'hint: kubectl logs shows audit events only when the API server writes them to stdout (--audit-log-path=-); else read the file given to --audit-log-path\n',
    );
  });

  it("the report's input section says them, and which reader read the lines", () => {
    const input = fakeReport().input;
    expect([logLinesNote(input), readerNote(input)]).toEqual([null, null]);
    expect(logLinesNote({ ...input, skipped: { ...input.skipped, logLines: 3 } })).toBe(
      "3 lines of the API server's own log (klog) among the events (kubectl logs): not audit events, skipped",
    );
    expect(readerNote({ ...input, nativeScanner: true })).toBe('native line scanner (native/scan.cc)');
    expect(readerNote({ ...input, nativeScanner: false })).toBe('JavaScript only: the native line scanner was not built (same results, slower)');
  });
});
