import { describe, expect, it } from 'vitest';
import { warningsFor } from '../../src/cli/output.js';
import { fakeReport } from './helpers.js';

describe('warningsFor: requests later than the reorder window', () => {
  it.each([
    [99, 1234, 0],
    [100, 10_001, 0],
    [100, 10_000, 1],
    [42_678, 73_121, 1],
  ])('%i late of %i requests: %i warning', (late, requests, warnings) => {
    const report = fakeReport([], requests);
    report.input.lateRequests = late;
    const out = warningsFor(report);
    expect(out).toHaveLength(warnings);
    if (warnings === 1)
      expect(out[0]).toMatch(
        new RegExp(`^${late.toLocaleString('en-US')} of ${requests.toLocaleString('en-US')} requests came later than the reorder window .* raise --reorder-window$`),
      );
  });
});
