/**
 * Named log specs. `sample` and `incident` are the committed fixtures (regenerate with
 * `npm run fixtures`); the others are for ad-hoc runs and benchmarks.
 */
import type { LogSpec } from './generate.js';

/** A preset: a default seed, where its fixture lives (if committed), and its spec for a seed. */
export interface Preset {
  description: string;
  seed: number;
  /** Log path and truth path relative to the repository root, for committed fixtures. */
  fixture?: { log: string; truth: string };
  spec(seed: number): LogSpec;
}

const MINUTE = 60_000;

/** All presets by name. */
export const PRESETS: Record<string, Preset> = {
  sample: {
    description: '10 min, 20 nodes of background, a 3-min conflict storm, a RetryOnConflict writer and a backoff writer (gzip)',
    seed: 20260314,
    fixture: { log: 'fixtures/sample/audit.log.gz', truth: 'fixtures/sample/truth.json' },
    spec: (seed) => ({
      seed,
      start: '2026-03-14T09:00:00Z',
      durationMs: 10 * MINUTE,
      scenarios: [
        { type: 'background', nodes: 20 },
        { type: 'storm', startOffsetMs: 3 * MINUTE, durationMs: 3 * MINUTE, ratePerSec: 30 },
        { type: 'retryOnConflict' },
        { type: 'exponentialBackoff' },
      ],
    }),
  },
  incident: {
    description: 'the payment-core incident: appdeployment-operator /status 409 storm from 2 pods, with background; ResponseComplete stage only (plain JSON lines)',
    seed: 20260227,
    fixture: { log: 'fixtures/incident/payment-core.log', truth: 'fixtures/incident/truth.json' },
    spec: (seed) => ({
      seed,
      start: '2026-02-27T14:10:00Z',
      durationMs: 3 * MINUTE,
      // Only the final stage, as with audit policies that omit RequestReceived: keeps the plain
      // fixture small while the storm still runs at ~40 attempts/s.
      stages: 'final-only',
      scenarios: [
        { type: 'background', nodes: 3, noise: 0.5 },
        { type: 'incident', startOffsetMs: 70_000, durationMs: 20_000, ratePerSec: 40 },
      ],
    }),
  },
  randomized: {
    description: '10 min with every scenario and randomized names, rates and noise: a log no detector has seen',
    seed: 1,
    spec: (seed) => ({
      seed,
      start: '2026-05-02T03:00:00Z',
      durationMs: 10 * MINUTE,
      scenarios: [
        { type: 'background', randomizeNames: true },
        { type: 'storm', startOffsetMs: 2 * MINUTE, durationMs: 4 * MINUTE, randomizeNames: true },
        { type: 'retryOnConflict', randomizeNames: true },
        { type: 'exponentialBackoff', randomizeNames: true },
      ],
    }),
  },
  large: {
    description: '1 hour, 100 nodes, two storms and both healthy retry patterns (~470k lines, ~20 MB gzip), for benchmarks',
    seed: 7,
    spec: (seed) => ({
      seed,
      start: '2026-01-10T00:00:00Z',
      durationMs: 60 * MINUTE,
      scenarios: [
        { type: 'background', nodes: 100, noise: 3 },
        { type: 'storm', startOffsetMs: 10 * MINUTE, durationMs: 15 * MINUTE, ratePerSec: 120 },
        { type: 'incident', startOffsetMs: 35 * MINUTE, durationMs: 10 * MINUTE },
        { type: 'retryOnConflict' },
        { type: 'exponentialBackoff' },
      ],
    }),
  },
};
