/**
 * A generated fleet for the fleet tests and `npm run bench:fleet`: `clusters` logs of a few
 * minutes each, every one with background traffic and most with a storm (see `stormsOf`).
 */
import type { LogSpec } from './generate.js';
import type { ScenarioSpec } from './scenarios.js';

const MINUTE = 60_000;

/**
 * The planted scenarios of cluster `i` (0-based): none for every sixth cluster, else one storm
 * kind (409 conflict storm, hot loop, fleet storm, write fight, throttling), at rates low enough
 * that a 20-cluster fleet stays a few tens of thousands of events.
 */
function stormsOf(i: number): ScenarioSpec[] {
  switch (i % 6) {
    case 1:
      return [{ type: 'storm', startOffsetMs: 30_000, durationMs: 45_000, ratePerSec: 6 }];
    case 2:
      return [{ type: 'hotLoop', ratePerSec: 10 }];
    case 3:
      return [{ type: 'fleetStorm', members: 12 }];
    case 4:
      return [{ type: 'writeFight' }];
    case 5:
      return [{ type: 'throttling', floodPerSec: 12, startOffsetMs: 15_000, durationMs: 60_000 }];
    default:
      return [];
  }
}

/** One generated cluster: its name (`cluster-00`, …) and its log spec. */
export interface FleetCluster {
  name: string;
  spec: LogSpec;
}

/**
 * The fleet: `clusters` clusters named `cluster-NN`, logs of `minutes` minutes from
 * 2026-04-01T10:00:00Z with `nodes` nodes of background each.
 */
export function fleetSpecs(clusters: number, seed = 1, minutes = 2, nodes = 2): FleetCluster[] {
  return Array.from({ length: clusters }, (_, i) => ({
    name: `cluster-${String(i).padStart(2, '0')}`,
    spec: {
      seed: seed * 1000 + i,
      start: '2026-04-01T10:00:00Z',
      durationMs: minutes * MINUTE,
      scenarios: [{ type: 'background', nodes }, ...stormsOf(i)],
    },
  }));
}
