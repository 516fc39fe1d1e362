/**
 * Every detector, by id. Adding a detector means adding its file and one line here.
 */
import { conflictStorm } from './conflict-storm.js';
import { createConflictStorm } from './create-conflict-storm.js';
import { createStorm } from './create-storm.js';
import { fleetStorm } from './fleet-storm.js';
import { hotLoop } from './hot-loop.js';
import { noOpWrites } from './no-op-writes.js';
import { throttling } from './throttling.js';
import { writeFight } from './write-fight.js';
import type { Detector } from './types.js';

/** All detectors, sorted by id. */
export const DETECTORS: readonly Detector[] = [
  conflictStorm as unknown as Detector,
  createConflictStorm as unknown as Detector,
  createStorm as unknown as Detector,
  fleetStorm as unknown as Detector,
  hotLoop as unknown as Detector,
  noOpWrites as unknown as Detector,
  throttling as unknown as Detector,
  writeFight as unknown as Detector,
];
