import { describe, expect, it } from 'vitest';
import { tuneV8 } from '../../src/cli/heap.js';

describe('tuneV8', () => {
  const both = ['--heap-growing-percent=100', '--max-inlined-bytecode-size-cumulative=320'];
  it('sets the heap growing factor and the inlining budget unless the user chose them', () => {
    expect(tuneV8([], undefined)).toEqual(both);
    expect(tuneV8(['--heap-growing-percent=50'], undefined)).toEqual([both[1]]);
    expect(tuneV8([], '--optimize-for-size --max-old-space-size=512')).toEqual([both[1]]);
    expect(tuneV8(['--max-inlined-bytecode-size-cumulative=920'], undefined)).toEqual([both[0]]);
    expect(tuneV8(['--heap-growing-percent=50', '--max-inlined-bytecode-size-cumulative=920'], '')).toEqual([]);
  });
});
