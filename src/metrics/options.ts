/**
 * Options of `auditstorm metrics`: the `resource-conflicts` thresholds, set in a config file under
 * `detectors.resource-conflicts` (as the audit-log detectors' options are) and documented on
 * `docs/detectors/resource-conflicts.md`. Every field has a default.
 */
import { z } from 'zod';
import { RATE, SHARE, severityOption } from '../detectors/window.js';

/** Finding kind (and config key) of a resource whose 409 share or write rate stands out. */
export const RESOURCE_CONFLICTS = 'resource-conflicts';

export const resourceConflictsOptions = z
  .object({
    /**
     * 409s on updates (PUT, PATCH, APPLY) of one group/resource/subresource needed for a finding,
     * over the time between the scrapes (or since the API server started, for one scrape). A few
     * 409s are optimistic concurrency working as designed.
     */
    minConflicts: z.number().int().positive().default(100),
    /** 409s / updates of the resource (0..1) needed for a finding. */
    minConflictShare: SHARE.default(0.05),
    /**
     * 409s per second on the resource needed for a finding when a rate is known (several scrapes,
     * or one with its time and `process_start_time_seconds`).
     */
    minConflictsPerSec: RATE.default(1),
    /**
     * Writes (POST, PUT, PATCH, DELETE, DELETECOLLECTION, APPLY) per second on one
     * group/resource/subresource that stand out without 409s; needs a rate.
     */
    minWritesPerSec: RATE.default(100),
    /** Share (0..1) of all resource writes the resource must take for a write-rate finding. */
    minWriteShare: SHARE.default(0.3),
    /**
     * Severity: the highest level at which the 409 share of updates, the 409s per second or the
     * writes per second reach the threshold; `low` below them.
     */
    severity: severityOption(
      { conflictShare: SHARE, conflictsPerSec: RATE, writesPerSec: RATE },
      {
        critical: { conflictShare: 0.5, conflictsPerSec: 100, writesPerSec: 2000 },
        high: { conflictShare: 0.25, conflictsPerSec: 10, writesPerSec: 500 },
        medium: { conflictShare: 0.1, conflictsPerSec: 2, writesPerSec: 100 },
      },
    ),
  })
  .strict();

/** Resolved `resource-conflicts` options. */
export type ResourceConflictsOptions = z.output<typeof resourceConflictsOptions>;
