import { mkdtemp, open, rename, rm, truncate, unlink, writeFile, appendFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileFollower } from '../../src/live/follow.js';
import { until } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'auditstorm-follow-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Collects a follower's text. */
function collect(f: FileFollower): { text: () => string; ended: Promise<void> } {
  const chunks: Buffer[] = [];
  f.stream.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    f.stream.on('end', resolve);
    f.stream.on('error', reject);
  });
  return { text: () => Buffer.concat(chunks).toString('utf8'), ended };
}

describe('FileFollower', () => {
  it('reads appended lines and keeps reading across a lumberjack rotation with gzip', async () => {
    const active = path.join(dir, 'audit.log');
    await writeFile(active, 'old-1\n');
    const f = new FileFollower(active, { pollMs: 20, fromStart: true });
    const out = collect(f);
    await until(() => out.text() === 'old-1\n', 'the existing line');
    await appendFile(active, 'old-2\n');
    await until(() => out.text().endsWith('old-2\n'), 'an appended line');

    // Rotation: the writer holds the old file; it is renamed, gets one last line, a new file is
    // created, and the renamed file is gzipped and deleted (lumberjack with --audit-log-compress).
    const writer = await open(active, 'a');
    const rotated = path.join(dir, 'audit-2026-02-27T14-11-00.000.log');
    await rename(active, rotated);
    await writer.write('old-3\n');
    await writer.close();
    await writeFile(active, 'new-1\n');
    await writeFile(`${rotated}.gz`, gzipSync(await readFile(rotated)));
    await unlink(rotated);
    await appendFile(active, 'new-2\n');
    await until(() => out.text().endsWith('new-2\n'), 'lines of the new file');
    f.stop();
    await out.ended;
    expect(out.text()).toBe('old-1\nold-2\nold-3\nnew-1\nnew-2\n');
    expect(f.rotations).toBe(1);
  });

  it('starts at the end by default, re-reads a truncated file, and waits for a missing one', async () => {
    const active = path.join(dir, 'audit.log');
    const late = new FileFollower(path.join(dir, 'later.log'), { pollMs: 20 });
    const lateOut = collect(late);
    await writeFile(active, 'before\n');
    const f = new FileFollower(active, { pollMs: 20 });
    const out = collect(f);
    await new Promise((r) => setTimeout(r, 100));
    await appendFile(active, 'after\n');
    await until(() => out.text() === 'after\n', 'the line written after start');
    await truncate(active, 0);
    await appendFile(active, 'again\n');
    await until(() => out.text() === 'after\nagain\n', 'the rewritten file');
    await writeFile(path.join(dir, 'later.log'), 'born\n');
    await until(() => lateOut.text() === 'born\n', 'the file created later');
    f.stop();
    late.stop();
    await Promise.all([out.ended, lateOut.ended]);
    expect(f.rotations).toBe(1);
  });
});
