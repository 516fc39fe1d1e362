/** Benign look-alikes (see scenarios.ts). */
import type { SimScenario } from './scenarios.js';

/** The benign scenarios: expected no finding. */
export const BENIGN_SCENARIOS: SimScenario[] = [];
