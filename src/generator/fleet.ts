/**
 * A generated fleet for the fleet tests and `npm run bench:fleet`: `clusters` logs of a few
 * minutes each, every one with background traffic and some with a storm (409 conflict storm,
 * hot loop, write fight, throttling or fleet storm), varied by the cluster's index.
 */
import type { LogSpec } from './generate.js';
import type { ScenarioSpec } from './scenarios.js';

const MINUTE = 60_000;

/** The planted scenarios of cluster `i` (0-based): none for every third cluster, else one storm kind. */
function stormsOf(i: number): ScenarioSpec[] {
  switch (i % 6) {
    case 1:
      return [{ type: 'storm', startOffsetMs: MINUTE, durationMs: MINUTE, ratePerSec: 15 }];
    case 2:
      return [{ type: 'hotLoop' }];
    case 4:
      return [{ type: 'writeFight' }];
    case 5:
      return [{ type: 'throttling' }];
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
export function fleetSpecs(clusters: number, seed = 1, minutes = 3, nodes = 3): FleetCluster[] {
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
