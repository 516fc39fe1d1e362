import { describe, expect, it } from 'vitest';
import { StepRing, StepRings } from '../../src/detectors/common.js';

/** The whole ring from the start: what `StepRing` holds once it has grown. */
class WholeRing {
  private readonly slot: number[];
  private readonly counts: number[];
  constructor(
    readonly steps: number,
    readonly width: number,
  ) {
    this.slot = new Array<number>(steps).fill(-1);
    this.counts = new Array<number>(steps * width).fill(0);
  }
  add(bucket: number, i: number, by = 1): void {
    const s = bucket % this.steps;
    if (this.slot[s] !== bucket) {
      this.slot[s] = bucket;
      this.counts.fill(0, s * this.width, (s + 1) * this.width);
    }
    this.counts[s * this.width + i]! += by;
  }
  sum(boundary: number, i: number): number {
    let t = 0;
    for (let s = 0; s < this.steps; s++) {
      const b = this.slot[s]!;
      if (b >= boundary - this.steps && b < boundary) t += this.counts[s * this.width + i]!;
    }
    return t;
  }
  at(bucket: number, i: number): number {
    const s = bucket % this.steps;
    return this.slot[s] === bucket ? this.counts[s * this.width + i]! : 0;
  }
  clear(): void {
    this.slot.fill(-1);
  }
}

/** Deterministic pseudo-random integers in `[0, n)` (mulberry32). */
function rng(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

describe('StepRing', () => {
  it('sums, reads and clears as the whole ring does, before and after it grows', () => {
    const next = rng(26);
    let reads = 0;
    for (const steps of [1, 2, 3, 6, 18]) {
      for (const width of [1, 2, 4]) {
        for (let run = 0; run < 40; run++) {
          const ring = new StepRing(steps, width);
          const whole = new WholeRing(steps, width);
          let bucket = 170_000_000 + next(1000);
          for (let op = 0; op < 30; op++) {
            const k = next(10);
            if (k < 6) {
              bucket += next(4) === 0 ? next(2 * steps + 2) : 0;
              const i = next(width);
              const by = 1 + next(3);
              ring.add(bucket, i, by);
              whole.add(bucket, i, by);
            } else if (k < 9) {
              const boundary = bucket + 1 + next(steps + 2);
              const i = next(width);
              expect(ring.sum(boundary, i)).toBe(whole.sum(boundary, i));
              const b = bucket - next(steps + 2);
              expect(ring.at(b, i)).toBe(whole.at(b, i));
              reads += 2;
            } else {
              ring.clear();
              whole.clear();
            }
          }
        }
      }
    }
    expect(reads).toBe(10_672);
  });

  it('gives a counter as a ring of its own that sums as one fed that counter alone', () => {
    const next = rng(7);
    for (const steps of [1, 3, 6]) {
      for (let run = 0; run < 50; run++) {
        const ring = new StepRing(steps, 3);
        const alone = new WholeRing(steps, 1);
        let bucket = 170_000_000;
        for (let op = 0; op < 12; op++) {
          bucket += next(3);
          const i = next(3);
          ring.add(bucket, i);
          if (i === 1) alone.add(bucket, 0);
        }
        const c = ring.column(1);
        for (let boundary = bucket + 1; boundary <= bucket + steps + 1; boundary++) expect(c.sum(boundary, 0)).toBe(alone.sum(boundary, 0));
        c.add(bucket + 1, 0);
        alone.add(bucket + 1, 0);
        expect(c.sum(bucket + 2, 0)).toBe(alone.sum(bucket + 2, 0));
      }
    }
  });
});

describe('StepRings', () => {
  it('keeps rings as rows that sum and read as whole rings, a freed row coming back empty', () => {
    const next = rng(24);
    const rings = new StepRings(6, 4);
    const live: Array<{ row: number; whole: WholeRing }> = [];
    let bucket = 170_000_000;
    let reads = 0;
    for (let op = 0; op < 20_000; op++) {
      const k = next(20);
      if (k < 2 || live.length === 0) live.push({ row: rings.alloc(), whole: new WholeRing(6, 4) });
      else if (k === 2) rings.free(live.splice(next(live.length), 1)[0]!.row);
      else if (k === 3) bucket += next(3);
      else {
        const { row, whole } = live[next(live.length)]!;
        const i = next(4);
        if (k < 12) {
          rings.add(row, bucket, i);
          whole.add(bucket, i);
        } else if (k < 19) {
          const boundary = bucket + 1 + next(3);
          expect(rings.sum(row, boundary, i)).toBe(whole.sum(boundary, i));
          const b = bucket - next(7);
          expect(rings.at(row, b, i)).toBe(whole.at(b, i));
          reads++;
        } else {
          rings.clear(row);
          whole.clear();
        }
      }
    }
    expect(live.length).toBeGreaterThan(64);
    expect(reads).toBe(7_003);
  });
});
