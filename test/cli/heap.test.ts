import { describe, expect, it } from 'vitest';
import { tuneV8 } from '../../src/cli/heap.js';

describe('tuneV8', () => {
  const all = ['--heap-growing-percent=25', '--max-inlined-bytecode-size-cumulative=320', '--interrupt-budget=400000'];
  it('sets the heap growing factor, the inlining budget and the tier-up budget unless the user chose them', () => {
    expect(tuneV8([], undefined)).toEqual(all);
    expect(tuneV8(['--heap-growing-percent=50'], undefined)).toEqual([all[1], all[2]]);
    expect(tuneV8([], '--optimize-for-size --max-old-space-size=512')).toEqual([all[1], all[2]]);
    expect(tuneV8(['--max-inlined-bytecode-size-cumulative=920'], undefined)).toEqual([all[0], all[2]]);
    expect(tuneV8(['--interrupt-budget=132000'], undefined)).toEqual([all[0], all[1]]);
    expect(tuneV8(['--heap-growing-percent=50', '--max-inlined-bytecode-size-cumulative=920', '--interrupt-budget=1'], '')).toEqual([]);
  });
});
