/** Every simulated scenario: incidents first, then the benign look-alikes. */
import { BENIGN_SCENARIOS } from './benign.js';
import { BENIGN_SCENARIOS_2 } from './benign2.js';
import { INCIDENT_SCENARIOS, type SimScenario } from './scenarios.js';
import { INCIDENT_SCENARIOS_2 } from './scenarios2.js';
import { INCIDENT_SCENARIOS_3 } from './scenarios3.js';
import { INCIDENT_SCENARIOS_4 } from './scenarios4.js';
import { INCIDENT_SCENARIOS_5 } from './scenarios5.js';

/** All scenarios, in report order. */
export const ALL_SCENARIOS: SimScenario[] = [
  ...INCIDENT_SCENARIOS,
  ...INCIDENT_SCENARIOS_2,
  ...INCIDENT_SCENARIOS_3,
  ...INCIDENT_SCENARIOS_4,
  ...INCIDENT_SCENARIOS_5,
  ...BENIGN_SCENARIOS,
  ...BENIGN_SCENARIOS_2,
];
