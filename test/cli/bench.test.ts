/**
 * The benchmark's serve run (e): a `serve` child is fed a log as EventLists and reports its peak
 * RSS; every event POSTed must be counted once, and a POST that fails must not go unnoticed. Uses
 * the built `dist/` (the run spawns it), as `npm test` builds first.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distinctObjectLines, postAll, serveChild } from '../../dist/cli/bench.js';
import { removeTempDirs, tempDir } from '../parser/helpers.js';

afterAll(removeTempDirs);

describe('bench run (e): serve fed the distinct-object log', () => {
  it('counts every event of 2,500 posted in batches of 1,000 and reports a peak RSS', async () => {
    const file = join(tempDir(), 'distinct.log');
    writeFileSync(file, [...distinctObjectLines(2500)].join('\n') + '\n');
    const r = await serveChild(file);
    expect(r.events).toBe(2500);
    expect(r.maxRssMb).toBeGreaterThan(10);
    expect(r.ms).toBeGreaterThan(0);
  }, 60_000);

  it('reports a POST answered 408 while the other one in flight was awaited, with the events of the others', async () => {
    // Batch 1 is answered at once, batch 2 with 408 after 200 ms (the client's race has settled
    // on batch 1 by then), batch 3 at once: the events of batches 1 and 3 count, batch 2 fails.
    const file = join(tempDir(), 'three-batches.log');
    writeFileSync(file, [...distinctObjectLines(25)].join('\n') + '\n');
    let n = 0;
    const server: Server = createServer((req, res) => {
      const no = ++n;
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        const items = (JSON.parse(body) as { items: unknown[] }).items.length;
        const answer = (): void => {
          if (no === 2) res.writeHead(408, { connection: 'close' }).end('request timeout\n');
          else res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify({ events: items, badItems: 0 })}\n`);
        };
        if (no === 2) setTimeout(answer, 200);
        else answer();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const r = await postAll(file, (server.address() as AddressInfo).port, 10);
      expect(r.events).toBe(15);
      expect(r.failures).toEqual(['batch 2 of 10 events: serve answered 408: request timeout']);
      expect(r.retries).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('sends a POST again when its connection is reset unread, as the API server does, and counts its events once', async () => {
    // The second request's connection is destroyed unread once (the keep-alive race: the server
    // closing an idle connection as a request arrives on it); its resend is answered.
    const file = join(tempDir(), 'reset.log');
    writeFileSync(file, [...distinctObjectLines(25)].join('\n') + '\n');
    let n = 0;
    const server: Server = createServer((req, res) => {
      if (++n === 2) {
        req.socket.destroy();
        return;
      }
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        const items = (JSON.parse(body) as { items: unknown[] }).items.length;
        res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify({ events: items, badItems: 0 })}\n`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const r = await postAll(file, (server.address() as AddressInfo).port, 10);
      expect(r.events).toBe(25);
      expect(r.failures).toEqual([]);
      expect(r.retries).toHaveLength(1);
      expect(r.retries[0]).toMatch(/^batch 2: fetch failed/);
      expect(n).toBe(4);
    } finally {
      server.close();
    }
  });
});
