/**
 * V8 tuning for the command line (only `src/cli` touches the process).
 *
 * Heap: auditstorm's live heap is small and bounded (tens of MB; about 100 MB with a million
 * distinct objects), but it allocates fast, and V8's default heap growing lets garbage pile up
 * to three to six times the live heap between full collections. A growing factor of 2
 * (`--heap-growing-percent=100`) kept peak RSS closer to what is live. Measured with
 * `npm run bench` on 2 cores: 1× log 248 → 218 MB, 5× log 358 → 298 MB, 1.2 M distinct objects
 * 890 → 567 MB, for about 10 % more time. A factor of 1.25 (`--heap-growing-percent=25`) holds a
 * long log's peak near a short one's: a short log ends while its live heap still grows (the old
 * generation's live bytes after each full collection of the 1× benchmark log: 11, 20, 22 MB),
 * a long one's live heap holds steady (the 5× log: 11, 17, 23, 26, 29, 29 MB) and what piles up
 * between its full collections is garbage, up to the factor times what is live. In interleaved
 * runs (four rounds, after six with a busier machine): the 5× log's peak RSS 201–206 MB against
 * 216–222 with a factor of 2, the 1× log's 176–184 against 180–187, so the 5× peak 11–15 %
 * above its 1× pair's (18–20 % with 2; 1–26 % in the six busier rounds, 8–15 % with 1.25), the
 * time within the machine's noise; on a log of 1.08 million distinct objects 364–377 MB against
 * 407–414, for 1.02–1.13× the time (three pairs). Growing with the live heap and 1.25 once it
 * held steady (set after each full collection from a `gc` PerformanceObserver) did no better:
 * the flag counts only from the collection after the one that shows the heap steady, and the
 * 5× peak was 201–219 MB.
 *
 * Inlining: an analysis is a few seconds of hot code, and on two cores TurboFan's background
 * compiles compete with the reading thread and the parser thread for them: 220 compiles took
 * 1.3–1.6 s of CPU on the benchmark log (`node --trace-opt`), the large hot functions (line
 * reading, records, detectors, the range reader) 30–45 ms each. Half the cumulative inlining
 * budget (`--max-inlined-bytecode-size-cumulative=320`, default 920) halves that (0.8 s) and
 * costs the optimized code less than it saves: in 12 interleaved runs of the benchmark log's
 * analysis, user CPU 3.15 → 2.95 s, time 0.95× in the median pair.
 *
 * Tier-up: TurboFan was still the largest single user of CPU after that (about 15 % of all
 * samples of a benchmark run, `perf` per thread, with its zones' page faults): 212 compiles. V8
 * optimizes a function once it has run about 132 KB of bytecode (`--interrupt-budget`); at
 * 400,000 only the code that stays hot is compiled (106 compiles, 1.22 → 0.55 s of compile
 * time by `--trace-opt`), and the rest runs as baseline code. Interleaved pairs on the benchmark
 * log: 400,000 0.977× time and 0.967× CPU (10 pairs), 600,000 0.968× and 0.941× (12), but 600,000
 * 1.017× 400,000 and 1,000,000 1.042× it (10 each).
 */
import { setFlagsFromString } from 'node:v8';

/** The V8 flags set by {@link tuneV8}, each with the option names that mean the user chose otherwise. */
export const V8_FLAGS: ReadonlyArray<{ flag: string; unless: readonly string[] }> = [
  { flag: '--heap-growing-percent=25', unless: ['--heap-growing-percent', '--optimize-for-size'] },
  { flag: '--max-inlined-bytecode-size-cumulative=320', unless: ['--max-inlined-bytecode-size-cumulative'] },
  { flag: '--interrupt-budget=400000', unless: ['--interrupt-budget'] },
];

/**
 * Sets each of {@link V8_FLAGS} unless the user chose otherwise (in `execArgv`, as
 * `node --heap-growing-percent=N bin/auditstorm.js …`, or in `nodeOptions`, which may carry
 * `--optimize-for-size`; Node refuses the others there). Call once at startup, before the analysis
 * allocates or its code gets hot (flags are process-wide: worker threads started later follow
 * them). Returns the flags it set.
 */
export function tuneV8(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const set: string[] = [];
  for (const { flag, unless } of V8_FLAGS) {
    const chosen = (s: string): boolean => unless.some((u) => s.includes(u));
    if (execArgv.some(chosen) || (nodeOptions !== undefined && chosen(nodeOptions))) continue;
    setFlagsFromString(flag);
    set.push(flag);
  }
  return set;
}
