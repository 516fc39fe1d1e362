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
export const DETECTORS: readonly Detector[] = [conflictStorm, createConflictStorm, createStorm, fleetStorm, hotLoop, noOpWrites, throttling, writeFight];
