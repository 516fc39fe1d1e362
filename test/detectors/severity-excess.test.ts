import { describe, expect, it } from 'vitest';
import { capByExcess, severityExcessOption } from '../../src/detectors/window.js';
import { createStormOptions } from '../../src/detectors/create-storm.js';
import { hotLoopOptions } from '../../src/detectors/hot-loop.js';
import { conflictStormOptions } from '../../src/detectors/conflict-storm.js';

describe('severityExcess: one option and one cap for every detector that weighs what an episode cost', () => {
  it.each([
    // [rated, excess, thresholds, capped]
    ['critical', 999, { high: 1000, critical: 3000 }, 'medium'],
    ['critical', 1000, { high: 1000, critical: 3000 }, 'high'],
    ['critical', 3000, { high: 1000, critical: 3000 }, 'critical'],
    ['low', 5000, { high: 1000, critical: 3000 }, 'low'],
    // Without `medium` the floor is medium; with it, below it is low.
    ['high', 0, { high: 1000, critical: 3000 }, 'medium'],
    ['high', 199, { medium: 200, high: 1000, critical: 3000 }, 'low'],
    ['high', 200, { medium: 200, high: 1000, critical: 3000 }, 'medium'],
  ] as const)('%s with %d excess under %j: %s', (rated, excess, t, capped) => {
    expect(capByExcess(rated, excess, t)).toBe(capped);
  });

  it('the option: defaults, each number on its own, unknown keys rejected, medium only where given', () => {
    const two = severityExcessOption({ high: 1000, critical: 3000 });
    expect(two.parse(undefined)).toEqual({ high: 1000, critical: 3000 });
    expect(two.parse({ high: 10 })).toEqual({ high: 10, critical: 3000 });
    expect(two.safeParse({ medium: 5 }).success).toBe(false);
    expect(two.safeParse({ high: -1 }).success).toBe(false);
    const three = severityExcessOption({ medium: 200, high: 1000, critical: 3000 });
    expect(three.parse({})).toEqual({ medium: 200, high: 1000, critical: 3000 });
  });

  it('hot-loop and create-storm resolve the same severityExcess; conflict-storm adds medium', () => {
    expect(hotLoopOptions.parse({}).severityExcess).toEqual({ high: 1000, critical: 3000 });
    expect(createStormOptions.parse({}).severityExcess).toEqual({ high: 1000, critical: 3000 });
    expect(conflictStormOptions.parse({}).severityExcess).toEqual({ medium: 200, high: 1000, critical: 3000 });
  });
});
