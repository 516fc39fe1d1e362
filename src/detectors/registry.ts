/**
 * Every detector, by id. Adding a detector means adding its file and one line here.
 */
import { conflictStorm } from './conflict-storm.js';
import type { Detector } from './types.js';

/** All detectors, sorted by id. */
export const DETECTORS: readonly Detector[] = [conflictStorm as unknown as Detector];
