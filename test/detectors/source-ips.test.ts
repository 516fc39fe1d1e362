import { describe, expect, it } from 'vitest';
import { addSourceIP, MAX_COUNTED_SOURCE_IPS, type SourceIPState } from '../../src/detectors/common.js';

describe('addSourceIP', () => {
  it('counts each distinct IP once, lists the first maxListed, and stops counting at MAX_COUNTED_SOURCE_IPS', () => {
    const h: SourceIPState = { ips: new Set(), ipSeen: null, ipCount: 0 };
    for (let round = 0; round < 3; round++) for (let i = 0; i < 20; i++) addSourceIP(h, `10.0.0.${i}`, 16);
    expect([h.ipCount, h.ips.size, h.ipSeen?.size]).toEqual([20, 16, 4]);
    expect([...h.ips].at(-1)).toBe('10.0.0.15');
    for (let i = 0; i < 5000; i++) addSourceIP(h, `10.1.${i >> 8}.${i & 255}`, 16);
    expect([MAX_COUNTED_SOURCE_IPS, h.ipCount, h.ips.size, h.ipSeen?.size]).toEqual([4096, 4096, 16, 4080]);
  });
});
