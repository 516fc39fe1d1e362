/** Every simulated scenario: incidents first, then the benign look-alikes. */
import { BENIGN_SCENARIOS } from './benign.js';
import { INCIDENT_SCENARIOS, type SimScenario } from './scenarios.js';

/** All scenarios, in report order. */
export const ALL_SCENARIOS: SimScenario[] = [...INCIDENT_SCENARIOS, ...BENIGN_SCENARIOS];
