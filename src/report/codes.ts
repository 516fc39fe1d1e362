/**
 * `--code`: which findings a report shows, by the HTTP status codes of the responses they are
 * about. The detectors still see every request (a conflict share, a retry gap or a hot loop's
 * rate needs the successful writes too); only the findings, the notes and the rows of the
 * verb × resource × code table are narrowed.
 */
import type { Finding, Report } from './schema.js';

/** A `--code` item: an HTTP status (`409`) or a class (`4xx`), as given (lower case). */
export type CodeItem = string;

/**
 * Checks and normalizes `--code` items: a status from 100 to 599, or a class `1xx`…`5xx`.
 *
 * @returns the items, lower case, without duplicates, in the order given
 * @throws Error with the first item that is neither, e.g. `"40x" is not an HTTP status (409) or class (4xx)`
 */
export function parseCodes(items: readonly string[]): CodeItem[] {
  const out: CodeItem[] = [];
  for (const raw of items) {
    const item = raw.trim().toLowerCase();
    if (!/^[1-5](\d\d|xx)$/.test(item)) throw new Error(`"${raw}" is not an HTTP status (409) or class (4xx)`);
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

/** Whether HTTP status `code` is one of `codes` (a status, or its class). */
export function codeMatches(code: number, codes: readonly CodeItem[]): boolean {
  const s = String(code);
  return codes.some((c) => c === s || (c.endsWith('xx') && s.length === 3 && s[0] === c[0]));
}

/**
 * The response codes a finding is about, by kind: 409 for conflict storms (409 Conflict) and
 * create-conflict storms (409 AlreadyExists), 429 for throttling, 409 and/or 429 for a fleet
 * storm (its `conflicts` and `throttled` metrics), 200 for the writes that succeed too often
 * (hot-loop, no-op-writes, write-fight), 201 for creates of new objects (create-storm). Every kind of `src/detectors/registry.ts` is here (a test
 * checks it); an unknown kind is about no code and is hidden by any `--code`.
 */
export function findingCodes(f: Pick<Finding, 'kind' | 'metrics'>): number[] {
  switch (f.kind) {
    case 'conflict-storm':
    case 'create-conflict-storm':
      return [409];
    case 'throttling':
      return [429];
    case 'fleet-storm': {
      const codes: number[] = [];
      if (typeof f.metrics['conflicts'] === 'number' && f.metrics['conflicts'] > 0) codes.push(409);
      if (typeof f.metrics['throttled'] === 'number' && f.metrics['throttled'] > 0) codes.push(429);
      return codes;
    }
    case 'hot-loop':
    case 'no-op-writes':
    case 'write-fight':
      return [200];
    case 'create-storm':
      return [201];
    default:
      return [];
  }
}

/** What {@link filterByCodes} left out. */
export interface CodeFilterResult {
  report: Report;
  hiddenFindings: number;
  hiddenNotes: number;
}

/**
 * The report with only the findings and notes about one of `codes` (see {@link findingCodes})
 * and only those codes' rows in `summaries.requestsByVerbResourceCode`; `settings.code` records
 * the filter and what it hid (`{ codes, hiddenFindings, hiddenNotes }`). Totals, top tables and
 * series are left whole. An empty `codes` returns the report unchanged.
 */
export function filterByCodes(report: Report, codes: readonly CodeItem[]): CodeFilterResult {
  if (codes.length === 0) return { report, hiddenFindings: 0, hiddenNotes: 0 };
  const keep = (f: Finding): boolean => findingCodes(f).some((c) => codeMatches(c, codes));
  const findings = report.findings.filter(keep);
  const notes = report.notes.filter(keep);
  const hiddenFindings = report.findings.length - findings.length;
  const hiddenNotes = report.notes.length - notes.length;
  return {
    report: {
      ...report,
      settings: { ...report.settings, code: { codes: [...codes], hiddenFindings, hiddenNotes } },
      findings,
      notes,
      summaries: {
        ...report.summaries,
        requestsByVerbResourceCode: report.summaries.requestsByVerbResourceCode.filter((r) => codeMatches(r.code, codes)),
      },
    },
    hiddenFindings,
    hiddenNotes,
  };
}
