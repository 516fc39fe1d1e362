/**
 * The simulator's workqueue against client-go's `util/workqueue`: a delayed add keeps one waiting
 * entry per key, with the earlier ready time (`delaying_queue.go`, `insert` on
 * `waitingEntryByData`), so a loop that returns RequeueAfter on every pass is re-queued once per
 * period, not once per pass.
 */
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../src/sim/actors.js';
import { MS, SECOND, World } from '../../src/sim/world.js';

/** A queue with one worker whose reconciles take no time after the queue's own 0.2–1.5 ms; returns the reconcile times (ms). */
function queue(w: World): { q: WorkQueue; runs: number[] } {
  const runs: number[] = [];
  const q = new WorkQueue(w, 1, 5, 1_000_000, (_key, done) => {
    runs.push(Math.floor(w.now / MS));
    done({ kind: 'ok' });
  });
  return { q, runs };
}

describe('WorkQueue.addAfter (client-go delaying queue)', () => {
  it('keeps one waiting entry per key: three AddAfter(30 s) 100 ms apart reconcile once, 30 s after the first', () => {
    const w = new World({ seed: 1, startMs: 0, durationUs: 60 * SECOND });
    const { q, runs } = queue(w);
    for (const t of [0, 100, 200]) w.at(t * MS, () => q.addAfter('ns/a', 30 * SECOND));
    w.run();
    expect(runs.length).toBe(1);
    expect((runs[0] as number) >= 30_000 && (runs[0] as number) < 30_002).toBe(true);
  });

  it('moves the waiting entry to an earlier ready time, never to a later one', () => {
    const w = new World({ seed: 1, startMs: 0, durationUs: 60 * SECOND });
    const { q, runs } = queue(w);
    w.at(0, () => q.addAfter('ns/a', 30 * SECOND));
    w.at(1_000 * MS, () => q.addAfter('ns/a', 5 * SECOND));
    w.at(2_000 * MS, () => q.addAfter('ns/a', 40 * SECOND));
    w.run();
    expect(runs.length).toBe(1);
    expect((runs[0] as number) >= 6_000 && (runs[0] as number) < 6_002).toBe(true);
  });

  it('takes a new AddAfter once the waiting entry has fired, and keeps keys apart', () => {
    const w = new World({ seed: 1, startMs: 0, durationUs: 60 * SECOND });
    const { q, runs } = queue(w);
    w.at(0, () => q.addAfter('ns/a', 10 * SECOND));
    w.at(0, () => q.addAfter('ns/b', 10 * SECOND));
    w.at(15_000 * MS, () => q.addAfter('ns/a', 10 * SECOND));
    w.run();
    expect(runs.map((t) => Math.floor(t / 1000))).toEqual([10, 10, 25]);
  });
});
