/**
 * V8 tuning for the command line (only `src/cli` touches the process).
 *
 * Heap: the live heap is small and bounded, but the analysis allocates fast and V8's default heap
 * growing lets garbage pile up to several times the live heap between full collections, so
 * {@link tuneV8} starts with a growing factor of 2 and {@link adaptHeapGrowth} lowers it once the
 * live heap holds steady. A live heap of {@link YOUNG_CAP}`.liveAboveMb` or more (logs in which
 * events keep naming new objects) also gets a capped young generation, and once the resident set
 * nears the 256 MB target (issue 24, {@link LARGE_HEAP}) V8's {@link LARGE_HEAP_FLAG}: memory
 * bought with CPU that logs staying under that never pay.
 *
 * Compiler: on two cores TurboFan's background compiles compete with the reading thread and the
 * parser thread, so {@link tuneV8} halves the cumulative inlining budget and raises the tier-up
 * budget: fewer, hotter functions are optimized, and the analysis takes less time and CPU.
 *
 * The measured runs behind each value: docs/performance.md ("V8 flags of the command line", "The
 * heap growth policy" and, for how the policy reads the live heap, "Cost flat in cardinality: fifth
 * pass, the heap policy's reading").
 */
import { Session } from 'node:inspector';
import { PerformanceObserver } from 'node:perf_hooks';
import { GCProfiler, getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The heap flag {@link tuneV8} sets (see {@link adaptHeapGrowth}). */
export const HEAP_FLAG = '--heap-growing-percent=100';

/**
 * The flag {@link adaptHeapGrowth} sets once, when the resident set reaches
 * {@link LARGE_HEAP}`.rssAboveMb` at the full collection that caps the young generation or a later
 * one: V8 then favours memory over speed, for more CPU (docs/performance.md, "Fifth pass" and
 * "Sixth pass").
 */
export const LARGE_HEAP_FLAG = '--optimize-for-size';

/** Options whose presence in `execArgv` or `NODE_OPTIONS` means the user chose the heap's tuning: then {@link LARGE_HEAP_FLAG} is not set. */
const LARGE_HEAP_UNLESS: readonly string[] = ['--optimize-for-size', '--no-optimize-for-size', '--heap-growing-percent'];

/** The V8 flags set by {@link tuneV8}, each with the option names that mean the user chose otherwise. */
export const V8_FLAGS: ReadonlyArray<{ flag: string; unless: readonly string[] }> = [
  { flag: HEAP_FLAG, unless: ['--heap-growing-percent', '--optimize-for-size'] },
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
    if (userChose(unless, execArgv, nodeOptions)) continue;
    setFlagsFromString(flag);
    set.push(flag);
  }
  return set;
}

/** Whether one of the options `unless` is in `execArgv` or `nodeOptions`. */
function userChose(unless: readonly string[], execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const chosen = (s: string): boolean => unless.some((u) => s.includes(u));
  return execArgv.some(chosen) || (nodeOptions !== undefined && chosen(nodeOptions));
}

/**
 * The flag for {@link adaptHeapGrowth} to set on a large live heap: {@link LARGE_HEAP_FLAG}, or
 * `undefined` when the user chose `--optimize-for-size` (or its negation) or a heap growing percent
 * in `execArgv` or `nodeOptions` (as for {@link tuneV8}).
 */
export function largeHeapFlag(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  return userChose(LARGE_HEAP_UNLESS, execArgv, nodeOptions) ? undefined : LARGE_HEAP_FLAG;
}

/**
 * Heap growing percent while the live heap still grows ({@link HEAP_FLAG}'s 100: a full
 * collection of a growing heap finds little garbage, so fewer of them), and once it holds steady,
 * that is grew by less than `steadyBelow` (a fraction) since the full collection before: then what
 * piles up between full collections is garbage alone, and 25 % bounds it.
 * `steadyLarge` (10) applies once the steady live heap is at least `YOUNG_CAP.liveAboveMb`: only
 * logs of ever new objects come there. The values were chosen on measured runs: docs/performance.md,
 * "The heap growth policy".
 */
export const HEAP_GROWTH = { growing: 100, steady: 25, steadyLarge: 10, steadyBelow: 0.5 } as const;

/**
 * The heap growing percent after a full collection that left `live` bytes in the old space, the
 * one before having left `previous` (0: none yet): see {@link HEAP_GROWTH}.
 */
export function growingPercentAfter(previous: number, live: number): number {
  if (!(previous > 0 && live < previous * (1 + HEAP_GROWTH.steadyBelow))) return HEAP_GROWTH.growing;
  return live >= YOUNG_CAP.liveAboveMb * 1024 * 1024 ? HEAP_GROWTH.steadyLarge : HEAP_GROWTH.steady;
}

/**
 * The young generation once the live heap is large: when a full collection leaves at least
 * `liveAboveMb` in the old space, the young generation (V8's default: two semi-spaces of up to
 * 16 MB, 32 MB resident) is shrunk once and then kept at semi-spaces of `semiSpaceMb` (one
 * growth step from 1 MB; the observer hears of collections late, so it may grow past that before
 * it is stopped).
 *
 * Why: on a log in which every event names a new object the live heap is 70–110 MB and the
 * young generation's 32 MB is a third of what the heap costs above it (peak RSS ≤ 256 MB is the
 * target, issue 24); on ordinary logs the main thread's live heap stays at 27–33 MB (the
 * benchmark's 1× and 5× logs), where a smaller young generation costs time (docs/performance.md),
 * so they keep V8's. 48 MB lies between the two. V8 has no setting for the young generation's size
 * after start, but it reads `--semi-space-growth-factor` each time it grows it, and a low-memory
 * notification (the inspector's `HeapProfiler.collectGarbage`) shrinks it to its initial size.
 */
export const YOUNG_CAP = { liveAboveMb: 48, semiSpaceMb: 4 } as const;

/**
 * The resident set size (MB of 2^20 bytes) from which {@link adaptHeapGrowth} sets the large-heap
 * flag, once the young generation is capped (at the same full collection or a later one): 7/8 of
 * the 256 MB peak RSS the project holds to (issue 24). The flag costs CPU, so it waits until
 * memory, not the live heap alone, says it is needed: busy clusters' logs can reach the young
 * generation's cap with RSS well short of the target (docs/performance.md, "Sixth pass").
 */
export const LARGE_HEAP = { rssAboveMb: 224 } as const;

/** Bytes in a MB. */
const MB = 1024 * 1024;

/** The young generation's size in bytes now (V8's new space: both semi-spaces). */
function youngBytes(): number {
  return getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Asks V8 for a low-memory collection (full collections that also shrink the young generation),
 * through an in-process inspector session; does nothing where Node has no inspector.
 */
export function lowMemoryCollection(): void {
  try {
    const session = new Session();
    session.connect();
    // Disconnected on a later turn: disconnecting inside the answer's callback hung the process.
    session.post('HeapProfiler.collectGarbage', () => setImmediate(() => session.disconnect()));
  } catch {
    // No inspector in this build of Node: the young generation keeps its size.
  }
}

/**
 * The old space's bytes in use as each full collection left it, read back in order: `read()` gives
 * those (bytes) of the full collections since its last call, oldest first (a `GCProfiler`'s records), and
 * `stop()` ends the recording. The old space's use when the observer runs is no measure of the
 * live heap: the observer runs after the main thread's current task, up to seconds later, and
 * scavenges have promoted more into the old space since.
 */
export interface FullCollections {
  read(): number[];
  stop(): void;
}

/** {@link FullCollections} of this thread's heap, recorded from now on. */
export function recordFullCollections(): FullCollections {
  const profiler = new GCProfiler();
  profiler.start();
  return {
    read(): number[] {
      const left: number[] = [];
      for (const s of profiler.stop()?.statistics ?? []) {
        if (s.gcType !== 'MarkSweepCompact') continue;
        left.push(s.afterGC.heapSpaceStatistics.find((x) => x.spaceName === 'old_space')?.spaceUsedSize ?? 0);
      }
      profiler.start();
      return left;
    },
    stop(): void {
      profiler.stop();
    },
  };
}

/**
 * Adapts V8's `--heap-growing-percent` after each full collection ({@link growingPercentAfter}),
 * for a run whose heap flag {@link tuneV8} set (it returned {@link HEAP_FLAG}): a long log's peak
 * RSS then stays near a short one's. V8 reads the flag when it sets the next collection's limit,
 * so a change counts from the full collection after the one that showed it. Each full collection
 * is judged by the old space it left ({@link FullCollections}), not by the old space when the
 * observer runs.
 * When a full collection first leaves {@link YOUNG_CAP}`.liveAboveMb` in the old space, it caps
 * the young generation, once; at that full collection or a later one, the first time the resident
 * set is at {@link LARGE_HEAP}`.rssAboveMb` or more when the observer hears of it, it sets
 * `largeHeap` (from {@link largeHeapFlag}; `undefined`: none), once.
 * Process-wide: the parser threads' heaps follow it too. `setFlags`, `lowMemory`, `youngSize`,
 * `residentSize` (bytes) and `collections` are for tests. Returns the function that stops it; the
 * observer does not keep the process alive.
 */
export function adaptHeapGrowth(
  largeHeap: string | undefined,
  setFlags: (flags: string) => void = setFlagsFromString,
  lowMemory: () => void = lowMemoryCollection,
  youngSize: () => number = youngBytes,
  residentSize: () => number = () => process.memoryUsage.rss(),
  collections: FullCollections = recordFullCollections(),
): () => void {
  let previous = 0;
  let largeSet = largeHeap === undefined;
  let current: number = HEAP_GROWTH.growing;
  /** The young generation: V8's own, shrunk and growing back to the cap, or held at the cap (see {@link YOUNG_CAP}). */
  let young: 'free' | 'shrunk' | 'capped' = 'free';
  const observer = new PerformanceObserver(() => {
    if (young === 'shrunk' && youngSize() >= 2 * YOUNG_CAP.semiSpaceMb * MB) {
      setFlags('--semi-space-growth-factor=1');
      young = 'capped';
    }
    // Any entry wakes it: the records may run ahead of the entries (a collection recorded but not
    // yet announced), and each is judged once, on the first call that reads it.
    for (const live of collections.read()) {
      const next = growingPercentAfter(previous, live);
      previous = live;
      if (next !== current) {
        setFlags(`--heap-growing-percent=${next}`);
        current = next;
      }
      if (young === 'free' && live >= YOUNG_CAP.liveAboveMb * MB) {
        // Once only: from the initial semi-space (1 MB) one growth step reaches the cap. A
        // low-memory collection is several full ones, too costly to repeat (docs/performance.md).
        setFlags(`--semi-space-growth-factor=${YOUNG_CAP.semiSpaceMb}`);
        lowMemory();
        young = 'shrunk';
      }
      // At once when the resident set is already there: the observer may hear of the next full
      // collection seconds later.
      if (!largeSet && young !== 'free' && residentSize() >= LARGE_HEAP.rssAboveMb * MB) {
        setFlags(largeHeap!);
        largeSet = true;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    collections.stop();
  };
}
