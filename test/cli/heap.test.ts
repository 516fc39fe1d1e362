import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { adaptHeapGrowth, growingPercentAfter, HEAP_FLAG, HEAP_GROWTH, LARGE_HEAP, LARGE_HEAP_FLAG, largeHeapFlag, tuneV8, YOUNG_CAP } from '../../src/cli/heap.js';

describe('tuneV8', () => {
  const all = [HEAP_FLAG, '--max-inlined-bytecode-size-cumulative=320', '--interrupt-budget=400000'];
  it('sets the heap growing factor, the inlining budget and the tier-up budget unless the user chose them', () => {
    expect(HEAP_FLAG).toBe('--heap-growing-percent=100');
    expect(tuneV8([], undefined)).toEqual(all);
    expect(tuneV8(['--heap-growing-percent=50'], undefined)).toEqual([all[1], all[2]]);
    expect(tuneV8([], '--optimize-for-size --max-old-space-size=512')).toEqual([all[1], all[2]]);
    expect(tuneV8(['--max-inlined-bytecode-size-cumulative=920'], undefined)).toEqual([all[0], all[2]]);
    expect(tuneV8(['--interrupt-budget=132000'], undefined)).toEqual([all[0], all[1]]);
    expect(tuneV8(['--heap-growing-percent=50', '--max-inlined-bytecode-size-cumulative=920', '--interrupt-budget=1'], '')).toEqual([]);
  });

  it('gives adaptHeapGrowth --optimize-for-size for a large heap unless the user chose it, its negation or a heap growing percent', () => {
    expect(LARGE_HEAP_FLAG).toBe('--optimize-for-size');
    expect(largeHeapFlag([], undefined)).toBe('--optimize-for-size');
    expect(largeHeapFlag(['--max-old-space-size=512', '--interrupt-budget=1'], '--max-old-space-size=512')).toBe('--optimize-for-size');
    expect(largeHeapFlag(['--optimize-for-size'], undefined)).toBeUndefined();
    expect(largeHeapFlag(['--no-optimize-for-size'], undefined)).toBeUndefined();
    expect(largeHeapFlag([], '--optimize-for-size --max-old-space-size=512')).toBeUndefined();
    expect(largeHeapFlag(['--heap-growing-percent=50'], '')).toBeUndefined();
  });
});

describe('heap growth', () => {
  it('grows by 100 % while the live heap grows by half or more between full collections, else by 25 %', () => {
    expect(HEAP_GROWTH).toEqual({ growing: 100, steady: 25, steadyLarge: 10, steadyBelow: 0.5 });
    const MB = 1e6;
    // The 5× benchmark log's live old generation after its full collections (see HEAP_GROWTH).
    const lives = [11.3, 16.6, 22.5, 25.5, 29.3, 29.1].map((x) => x * MB);
    expect(lives.map((live, k) => growingPercentAfter(k === 0 ? 0 : lives[k - 1]!, live))).toEqual([100, 25, 25, 25, 25, 25]);
    // The 1× log: 11.3 → 19.9 grew by 76 %.
    expect(growingPercentAfter(11.3 * MB, 19.9 * MB)).toBe(100);
    expect(growingPercentAfter(19.9 * MB, 22.1 * MB)).toBe(25);
    // A heap shrinking is steady; exactly half again is growing.
    expect(growingPercentAfter(30 * MB, 20 * MB)).toBe(25);
    expect(growingPercentAfter(20 * MB, 30 * MB)).toBe(100);
    // Steady and large (a log of ever new objects): 10.
    expect(growingPercentAfter(70 * MB, 72 * MB)).toBe(HEAP_GROWTH.steadyLarge);
    expect(HEAP_GROWTH.steadyLarge).toBe(10);
  });

  it('sets the flag after full collections, only when the percent changes', async () => {
    // A full collection on demand (vitest's process was not started with --expose-gc).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const all: string[] = [];
    // Only the heap flags (a test process's heap may pass YOUNG_CAP.liveAboveMb: then the young
    // generation is shrunk too, through the no-op given here).
    const stop = adaptHeapGrowth(
      LARGE_HEAP_FLAG,
      (f) => all.push(f),
      () => undefined,
    );
    const set = {
      get heap(): string[] {
        return all.filter((f) => f.startsWith('--heap-growing'));
      },
    };
    try {
      const turn = (): Promise<void> => new Promise((r) => setTimeout(r, 20));
      gc(); // the first: nothing to compare with, stays at 100
      await turn();
      expect(set.heap).toEqual([]);
      gc(); // nothing allocated in between: steady
      await turn();
      // 25, or 10 when this process's live heap is past YOUNG_CAP.liveAboveMb.
      const old = getHeapSpaceStatistics().find((x) => x.space_name === 'old_space')!.space_used_size;
      const steady = `--heap-growing-percent=${old >= YOUNG_CAP.liveAboveMb * 1024 * 1024 ? HEAP_GROWTH.steadyLarge : HEAP_GROWTH.steady}`;
      expect(set.heap).toEqual([steady]);
      gc(); // steady still: no change
      await turn();
      expect(set.heap).toEqual([steady]);
      // Keep as much again as the old space holds now: growing.
      const used = getHeapSpaceStatistics().find((x) => x.space_name === 'old_space')!.space_used_size;
      const kept = Array.from({ length: Math.ceil(used / 1e6) }, () => Array.from({ length: 20_000 }, (_, k) => ({ k })));
      gc(); // a full collection moves what survives it to the old space
      await turn();
      expect(kept.length).toBeGreaterThan(0);
      expect(set.heap).toEqual([steady, '--heap-growing-percent=100']);
      // --optimize-for-size only with the young generation's cap, once.
      const capped = all.some((f) => f.startsWith('--semi-space'));
      expect(all.filter((f) => f === LARGE_HEAP_FLAG)).toEqual(capped ? [LARGE_HEAP_FLAG] : []);
    } finally {
      stop();
    }
  });
});

describe('the young generation on a large live heap', () => {
  /**
   * Runs adaptHeapGrowth with `largeHeap` through a small live heap, then one of
   * YOUNG_CAP.liveAboveMb and more, with a resident set of 100 MB that rises to `laterRssMb`
   * at the fourth full collection; the flags it set after each full collection and the
   * low-memory collections asked for.
   */
  async function run(largeHeap: string | undefined, laterRssMb: number): Promise<{ steps: string[][]; lowMemory: number }> {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const set: string[] = [];
    const steps: string[][] = [];
    let lowMemory = 0;
    let young = 32 * 1024 * 1024;
    let kept: unknown[] = [];
    let rss = 100;
    const stop = adaptHeapGrowth(
      largeHeap,
      (f) => set.push(f),
      () => {
        lowMemory++;
        young = 2 * 1024 * 1024;
      },
      () => young,
      () => rss * 1024 * 1024,
    );
    const step = async (): Promise<void> => {
      gc();
      await new Promise((r) => setTimeout(r, 20));
      steps.push(set.filter((f) => !f.startsWith('--heap-growing')));
      set.length = 0;
    };
    try {
      await step(); // small: nothing
      // Hold YOUNG_CAP.liveAboveMb more in the old space: arrays of 1,000 small integers (8 KB
      // each, small enough for the old space; larger ones go to the large-object space).
      kept = Array.from({ length: (YOUNG_CAP.liveAboveMb + 8) * 128 }, () => new Array<number>(1000).fill(1));
      await step(); // large: the young generation is shrunk (and the large-heap flag set)
      young = 2 * YOUNG_CAP.semiSpaceMb * 1024 * 1024;
      await step(); // grown back to the cap: growth stops
      young = 32 * 1024 * 1024;
      rss = laterRssMb;
      await step(); // the young generation never again, whatever its size; the large-heap flag once the resident set is at the budget
      await step();
      expect(kept.length).toBe((YOUNG_CAP.liveAboveMb + 8) * 128);
    } finally {
      stop();
    }
    return { steps, lowMemory };
  }

  it('is shrunk once a full collection leaves YOUNG_CAP.liveAboveMb, then held at the cap; --optimize-for-size is set once, when the resident set reaches LARGE_HEAP.rssAboveMb', async () => {
    expect(LARGE_HEAP.rssAboveMb).toBe(224);
    const { steps, lowMemory } = await run(LARGE_HEAP_FLAG, LARGE_HEAP.rssAboveMb);
    expect(steps).toEqual([[], [`--semi-space-growth-factor=${YOUNG_CAP.semiSpaceMb}`], ['--semi-space-growth-factor=1'], ['--optimize-for-size'], []]);
    expect(lowMemory).toBe(1);
  });

  it('sets no large-heap flag while the resident set stays under LARGE_HEAP.rssAboveMb, however large the live heap', async () => {
    const { steps } = await run(LARGE_HEAP_FLAG, LARGE_HEAP.rssAboveMb - 1);
    expect(steps).toEqual([[], [`--semi-space-growth-factor=${YOUNG_CAP.semiSpaceMb}`], ['--semi-space-growth-factor=1'], [], []]);
  });

  it('sets no large-heap flag when the user chose the heap tuning (largeHeapFlag gave undefined)', async () => {
    const { steps, lowMemory } = await run(largeHeapFlag(['--optimize-for-size'], undefined), 1000);
    expect(steps).toEqual([[], [`--semi-space-growth-factor=${YOUNG_CAP.semiSpaceMb}`], ['--semi-space-growth-factor=1'], [], []]);
    expect(lowMemory).toBe(1);
  });
});

describe("the policy's reading of the live heap", () => {
  const MiB = 1024 * 1024;
  /**
   * Runs adaptHeapGrowth with the old space each full collection left given by `steps` (MB, in the
   * order recorded) and the resident set (MB) at each step, while the old space really holds
   * `keptMb` more; the flags it set at each step, the low-memory collections asked for, and
   * whether stopping it stopped the recording.
   */
  async function scripted(steps: Array<{ lives: number[]; rssMb: number }>, keptMb = 0): Promise<{ flags: string[][]; lowMemory: number; stopped: boolean }> {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const set: string[] = [];
    const flags: string[][] = [];
    let lowMemory = 0;
    let recorded: number[] = [];
    let rss = 0;
    let stopped = false;
    const stop = adaptHeapGrowth(
      LARGE_HEAP_FLAG,
      (f) => set.push(f),
      () => lowMemory++,
      () => 2 * 1024 * 1024,
      () => rss * MiB,
      {
        read: () => recorded.splice(0),
        stop: () => {
          stopped = true;
        },
      },
    );
    // Arrays of 1,000 small integers (8 KB each) land in the old space.
    const kept = Array.from({ length: keptMb * 128 }, () => new Array<number>(1000).fill(1));
    try {
      for (const { lives, rssMb } of steps) {
        recorded = lives.map((x) => x * MiB);
        rss = rssMb;
        gc();
        await new Promise((r) => setTimeout(r, 20));
        flags.push(set.splice(0));
      }
      expect(kept.length).toBe(keptMb * 128);
    } finally {
      stop();
    }
    return { flags, lowMemory, stopped };
  }

  it('judges a full collection by the old space it left, not by the old space when the observer runs', async () => {
    // The old space holds YOUNG_CAP.liveAboveMb and more when the observer reads it, but the full
    // collections left 30 MB: no cap.
    const { flags, lowMemory, stopped } = await scripted(
      [
        { lives: [30], rssMb: 100 },
        { lives: [31], rssMb: 100 },
      ],
      YOUNG_CAP.liveAboveMb + 8,
    );
    expect(flags).toEqual([[], ['--heap-growing-percent=25']]);
    expect(lowMemory).toBe(0);
    expect(stopped).toBe(true);
  });

  it('judges every full collection recorded since the observer last ran, in order', async () => {
    const { flags, lowMemory } = await scripted([
      { lives: [20], rssMb: 100 },
      // 20 → 21 steady (25), 21 → 40 grown by more than half (100).
      { lives: [21, 40], rssMb: 100 },
      // 40 → 50 steady and at YOUNG_CAP.liveAboveMb or more: 10, and the young generation's cap.
      { lives: [50], rssMb: 100 },
      { lives: [], rssMb: 100 },
    ]);
    expect(flags).toEqual([
      [],
      ['--heap-growing-percent=25', '--heap-growing-percent=100'],
      ['--heap-growing-percent=10', `--semi-space-growth-factor=${YOUNG_CAP.semiSpaceMb}`],
      [],
    ]);
    expect(lowMemory).toBe(1);
  });

  it('sets --optimize-for-size at the full collection that caps the young generation when the resident set is at LARGE_HEAP.rssAboveMb then; the resident set alone caps nothing', async () => {
    const alone = await scripted([
      { lives: [20], rssMb: 100 },
      { lives: [20], rssMb: LARGE_HEAP.rssAboveMb + 10 },
    ]);
    expect(alone.flags).toEqual([[], ['--heap-growing-percent=25']]);
    expect(alone.lowMemory).toBe(0);
    const at = await scripted([
      { lives: [20], rssMb: 100 },
      { lives: [YOUNG_CAP.liveAboveMb], rssMb: LARGE_HEAP.rssAboveMb },
      { lives: [YOUNG_CAP.liveAboveMb], rssMb: LARGE_HEAP.rssAboveMb + 10 },
    ]);
    // 20 → 48 grew by more than half: 100, unchanged.
    expect(at.flags).toEqual([[], [`--semi-space-growth-factor=${YOUNG_CAP.semiSpaceMb}`, LARGE_HEAP_FLAG], ['--heap-growing-percent=10']]);
    expect(at.lowMemory).toBe(1);
    const under = await scripted([
      { lives: [20], rssMb: 100 },
      { lives: [YOUNG_CAP.liveAboveMb], rssMb: LARGE_HEAP.rssAboveMb - 1 },
      { lives: [YOUNG_CAP.liveAboveMb], rssMb: LARGE_HEAP.rssAboveMb - 1 },
      { lives: [YOUNG_CAP.liveAboveMb], rssMb: LARGE_HEAP.rssAboveMb },
    ]);
    expect(under.flags).toEqual([[], [`--semi-space-growth-factor=${YOUNG_CAP.semiSpaceMb}`], ['--heap-growing-percent=10'], [LARGE_HEAP_FLAG]]);
  });
});
