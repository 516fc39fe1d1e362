/**
 * The sentences every diff renderer shares: the verdict counts, the headline, one line per run.
 */
import { formatInt, formatWindow } from '../report/format.js';
import { VERDICTS, type DiffReport, type DiffRun } from './schema.js';

/** `1 new, 2 fixed`: the counts in verdict order (worse, new, same, better, fixed), zeros left out; `no findings in either run`. */
export function countsLine(d: DiffReport): string {
  const parts = VERDICTS.filter((v) => d.counts[v] > 0).map((v) => `${d.counts[v]} ${v}`);
  return parts.length === 0 ? 'no findings in either run' : parts.join(', ');
}

/** One line about a run: `before.json (report): 10m 00s, 10,198 requests, 1 finding`. */
export function runLine(r: DiffRun): string {
  const range = r.timeRange ? formatWindow(r.timeRange.from, r.timeRange.to) : 'no time range';
  return `${r.name} (${r.from}): ${range}, ${formatInt(r.requests)} requests, ${r.findings} finding${r.findings === 1 ? '' : 's'}`;
}

/** The headline: what a reader must know first. */
export function headline(d: DiffReport): string {
  const bad = d.counts.worse + d.counts.new;
  if (d.findings.length === 0) return 'No findings in either run.';
  if (bad === 0) return d.counts.same === 0 ? 'Every finding of BEFORE is fixed or better; nothing new.' : 'Nothing new or worse; some findings are unchanged.';
  return `${bad} finding${bad === 1 ? ' is' : 's are'} new or worse.`;
}
