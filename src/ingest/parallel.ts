/**
 * The parallel JSON-lines reader: runs of whole lines (`frameLines`) are cut and fast-decoded on
 * worker threads (`worker.ts` → `work-lines.ts`) while this thread reads the next bytes and turns
 * the previous answers into records; answers are consumed in input order, so the records, line
 * numbers and bad-line samples are those of the single-threaded reader (`read.ts` checks both on
 * the same files in `test/parser/parallel.test.ts`).
 *
 * gzip is already inflated off this thread (node's zlib streams run on the libuv pool). Workers
 * are started per member and only for files large enough to repay their start (≈ 30 ms each).
 */
import { fstatSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Frame } from './lines.js';
import type { ReadOptions } from './options.js';
import type { SourceSpec } from './sources.js';
import { internTimestampFields } from '../decoding/body.js';
import { newFastFields, type FastFields } from '../decoding/fast.js';
import { nativeScanner } from '../decoding/native.js';
import { isLongRunningSubresource, type Normalizer } from '../decoding/normalize.js';
import type { Actor, ObjectRef, RequestRecord } from '../decoding/record.js';
import { InputError, describeFsError } from '../errors.js';
import { setImmediate as turn } from 'node:timers/promises';
import { claimRange, FLAG_BODY, NUMBER_FIELDS, NUMBER_LANES, STRING_FIELDS, workRange, WorkState, type RangeRequest, type WorkRequest, type WorkResult } from './work-lines.js';

/** Default {@link ReadOptions.parallel}: files from 64 MB; workers: cores − 1, at least 1. */
export const PARALLEL_DEFAULTS = { minBytes: 64 * 1024 * 1024, workers: Math.max(1, availableParallelism() - 1) };

/** Runs in flight per worker: enough to keep it busy while this thread consumes answers. */
const DEPTH = 4;
/**
 * Ranges in flight per worker when the workers have the native scanner ({@link decodeRanges}):
 * they then decode faster than this thread consumes. This thread learns of answers (and posts new
 * ranges) only between its batches, so a worker with little queued runs dry while this thread
 * is busy; 32 ranges of {@link RANGE_BYTES} (32 MB of the file out at once) keep both threads
 * busy (see docs/performance.md, "Records moved from code comments").
 */
const RANGE_DEPTH = 32;
/**
 * Bytes of answers per worker given out at once, at most, as {@link answerBytes} estimates them:
 * {@link decodeRanges} gives out fewer than {@link RANGE_DEPTH} ranges when answers are large
 * (where every line names a new object, each object's definition comes along), so the answers
 * waiting serialized in the ports do not grow resident memory. Such logs make the main thread
 * the slower side, so a shorter queue costs it no time.
 */
const ANSWER_BUDGET = 4 * 1024 * 1024;

/**
 * About the bytes `run` takes as a message: its typed arrays, and its strings at one byte a
 * character plus a few bytes of header each.
 */
export function answerBytes(run: WorkResult): number {
  let n =
    run.kinds.byteLength + run.numbers.byteLength + 3 * (run.strings.length + run.actors.length + run.objects.length + run.words.length + run.fallback.length + run.bodies.length);
  for (const list of [run.strings, run.actors, run.objects, run.words, run.fallback, run.bodies]) for (let i = 0; i < list.length; i++) n += list[i]!.length;
  return n;
}

/** Ranges {@link decodeRanges} consumes at most before it lets the event loop turn (see there). */
const TURN_EVERY = 16;
/** Entries of this thread's own dictionaries (see {@link decodeRanges}) before they start over. */
const HELP_DICTIONARY_LIMIT = 4_000;

/** Worker threads to use for `spec` (0: read it on this thread). */
export function parallelWorkers(spec: SourceSpec, opts: ReadOptions): number {
  const p = opts.parallel ?? PARALLEL_DEFAULTS;
  if (p.workers <= 0 || spec.kind === 'stdin' || spec.bytes < p.minBytes) return 0;
  return p.workers;
}

/**
 * The worker script. Under `dist/` it sits beside this module; when this module runs from the
 * TypeScript sources (vitest), the built one in `dist/ingest/` is used (`npm test` builds first).
 */
function workerPath(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts') ? fileURLToPath(new URL('../../dist/ingest/worker.js', import.meta.url)) : fileURLToPath(new URL('./worker.js', import.meta.url));
}

/** What a {@link Pool} hands a request's answer to, or its failure. */
interface Waiter {
  resolve(r: WorkResult): void;
  reject(e: Error): void;
}

/**
 * Fixed pool of worker threads answering {@link WorkRequest}s. Each worker answers on a port of
 * its own, which this thread reads when its event loop turns ({@link run}'s answers) or, after
 * {@link quiet}, only when it wants the next answer ({@link receive}; {@link decodeRanges}): a
 * range's answer is then taken in when it is due, whatever the event loop does, and a worker's
 * requests are refilled as soon as one is consumed, so a worker does not run out of requests
 * while this thread is busy.
 */
class Pool {
  private readonly workers: Worker[] = [];
  private readonly ports: MessagePort[] = [];
  /** What waits for each request's answer: a run's promise, or a range's callback (see {@link runRange}). */
  private readonly waiting = new Map<number, Waiter>();
  private failure: Error | null = null;
  private next = 0;
  private id = 0;
  /**
   * Range claims, shared with the workers (see `claimRange`): one slot per range request open at
   * once (given out and not consumed) and one more, so a slot is reused only for a request given
   * out after the one before it in the slot was consumed.
   */
  readonly claims: Int32Array;
  private slot = 0;
  /**
   * Answers posted, counted by the workers (shared): what {@link arrival} waits on once the
   * ports' listeners are off ({@link quiet}).
   */
  private readonly posted: Int32Array;
  /** {@link posted} as {@link receive} last read it. */
  private seen = 0;
  /** Each port's `'message'` listener, for {@link quiet}. */
  private readonly listeners: Array<(r: WorkResult) => void> = [];

  /**
   * @param maxLength the longest line (UTF-16 units): a worker holds a few runs of lines and one such line.
   * @param open range requests (`runRange`) open at once at most: given out and not yet consumed.
   */
  constructor(n: number, maxLength: number, open = 0) {
    this.claims = new Int32Array(new SharedArrayBuffer(4 * (open + 1)));
    this.posted = new Int32Array(new SharedArrayBuffer(4));
    // A worker's live heap is its dictionaries and the run at hand (a few MB): a small old
    // generation keeps V8 from letting garbage pile up, and what it allocates is short-lived (a
    // run's lines and answers), which a 4 MB young generation holds (docs/performance.md).
    const oldMb = 64 + Math.ceil((4 * maxLength) / (1024 * 1024));
    for (let i = 0; i < n; i++) {
      const { port1, port2 } = new MessageChannel();
      const w = new Worker(workerPath(), {
        resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: oldMb },
        workerData: { answers: port2, claims: this.claims, posted: this.posted },
        transferList: [port2],
      });
      const listener = (r: WorkResult): void => this.deliver(r, i);
      port1.on('message', listener);
      this.listeners.push(listener);
      // Only the requests in flight keep the process alive, as the worker's own channel did.
      port1.unref();
      w.on('error', (e: Error) => this.fail(e));
      w.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`a parser thread exited with code ${code}`));
      });
      this.workers.push(w);
      this.ports.push(port1);
    }
  }

  /** Takes in worker `i`'s answer `r`: hands it to what waits for it. */
  private deliver(r: WorkResult, i: number): void {
    r.worker = i;
    const p = this.waiting.get(r.id);
    this.waiting.delete(r.id);
    p?.resolve(r);
  }

  /**
   * Takes the ports' listeners off: from now on an answer is taken in only by {@link receive}, and
   * until then waits in its port's queue, still serialized, outside this thread's heap. Taken in
   * as they arrived, the answers a worker is ahead by (up to {@link RANGE_DEPTH} ranges) would sit
   * in this thread's heap through young-generation collections.
   */
  quiet(): void {
    for (let i = 0; i < this.ports.length; i++) this.ports[i]!.off('message', this.listeners[i]!);
  }

  /**
   * Takes in worker `worker`'s answers, in the order it posted them, up to and including request
   * `id`'s, or as many as have arrived. True when `id`'s is in.
   */
  receive(worker: number, id: number): boolean {
    this.seen = Atomics.load(this.posted, 0);
    const port = this.ports[worker]!;
    for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
      const r = m.message as WorkResult;
      this.deliver(r, worker);
      if (r.id === id) return true;
    }
    return false;
  }

  /**
   * Resolves when a worker has posted an answer since the last {@link receive}, or after 100 ms
   * (the event loop turns meanwhile, so a worker's `error` or `exit` is seen). Rejects with a
   * worker's error.
   */
  async arrival(): Promise<void> {
    this.throwFailure();
    const w = Atomics.waitAsync(this.posted, 0, this.seen, 100);
    if (w.async) await w.value;
    // A worker may have failed while this waited.
    this.throwFailure();
  }

  private throwFailure(): void {
    if (this.failure !== null) throw this.failure;
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const p of this.waiting.values()) p.reject(e);
    this.waiting.clear();
  }

  run(bytes: Buffer, atEnd: boolean, first: number, maxLength: number): Promise<WorkResult> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.id++;
    // Transfer the bytes when they own their memory; otherwise send a copy.
    const own = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length && !(bytes.buffer instanceof SharedArrayBuffer);
    const data = own ? new Uint8Array(bytes.buffer, 0, bytes.length) : new Uint8Array(bytes);
    const req: WorkRequest = { id, bytes: data, atEnd, first, maxLength };
    return this.post(req, [data.buffer]);
  }

  /**
   * Has a worker read and decode the lines starting in `[start, end)` of the open file `fd`,
   * unless this thread claims the range first with {@link steal} (the answer is then `skipped`);
   * `done` is called with the answer when {@link receive} takes it in. `claim` receives the
   * request's id, claim slot and worker. A worker's failure is thrown here or by {@link arrival}.
   *
   * A callback, not a promise: a range is given out about one young-generation cycle before it
   * is due, so what holds its answer (a promise resolved with it, the pending range) has often
   * been promoted by then, and an old object, even a dead one, keeps what it points to alive
   * through every scavenge until the next full collection.
   */
  runRange(fd: number, start: number, end: number, maxLength: number, claim: { id: number; slot: number; worker: number }, done: (r: WorkResult) => void): void {
    if (this.failure !== null) throw this.failure;
    const id = this.id++;
    const slot = this.slot;
    this.slot = (slot + 1) % this.claims.length;
    Atomics.store(this.claims, slot, id + 1);
    claim.id = id;
    claim.slot = slot;
    claim.worker = this.next;
    const req: RangeRequest = { id, fd, start, end, maxLength, claim: slot };
    this.send(req, [], { resolve: done, reject: () => {} });
  }

  /** Claims the range of request `id` in `slot` for this thread; false when a worker has it already. */
  steal(id: number, slot: number): boolean {
    return claimRange(this.claims, slot, id, false);
  }

  /** Posts `req` to the next worker; its answer will go to `waiter`. */
  private send(req: WorkRequest | RangeRequest, transfer: ArrayBuffer[], waiter: Waiter): void {
    const w = this.workers[this.next]!;
    this.next = (this.next + 1) % this.workers.length;
    this.waiting.set(req.id, waiter);
    w.postMessage(req, transfer);
  }

  /** {@link send}, the answer as a promise. */
  private post(req: WorkRequest | RangeRequest, transfer: ArrayBuffer[]): Promise<WorkResult> {
    return new Promise((resolve, reject) => this.send(req, transfer, { resolve, reject }));
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    for (const p of this.ports) p.close();
  }
}

/**
 * Range requests a pool of `workers` threads has open at once at most (given out and not yet
 * consumed): {@link RANGE_DEPTH} each with the native scanner, {@link DEPTH} without.
 */
function openRanges(workers: number): number {
  return workers * (nativeScanner === null ? DEPTH : RANGE_DEPTH);
}

/**
 * Decodes `frames` on `workers` threads. Yields, in input order, one {@link WorkResult} per run
 * of lines, or `null` for an over-long line that was skipped while reading (the next line).
 * Throws what the input throws (after the runs framed before it: a gzip cut short still yields
 * every line that decoded), or a worker's error. Stops the workers when done or abandoned.
 */
export async function* decodeInParallel(frames: AsyncIterable<Frame>, workers: number, maxLength: number): AsyncGenerator<WorkResult | null> {
  const pool = new Pool(workers, maxLength, 0);
  const queue: Array<Promise<WorkResult> | null> = [];
  let started = false; // whether a line was framed yet: only the member's first line may carry a BOM
  const input = frames[Symbol.asyncIterator]();
  try {
    let failure: { err: unknown } | null = null;
    for (;;) {
      let next: IteratorResult<Frame>;
      try {
        next = await input.next();
      } catch (err) {
        failure = { err }; // thrown once the runs before it are handed on
        break;
      }
      if (next.done === true) break;
      const frame = next.value;
      if (frame.bytes === null) queue.push(null);
      else {
        const p = pool.run(frame.bytes, frame.atEnd, started ? 2 : 1, maxLength);
        p.catch(() => {}); // observed when consumed
        queue.push(p);
      }
      started = true;
      while (queue.length >= workers * DEPTH) yield await queue.shift()!;
    }
    while (queue.length > 0) yield await queue.shift()!;
    if (failure !== null) throw failure.err;
  } finally {
    try {
      await input.return?.();
    } finally {
      await pool.close();
    }
  }
}

/** One answer of {@link decodeRanges}: a range's run, and the file offset it was read up to. */
export interface RangeRun {
  run: WorkResult;
  offset: number;
}

/**
 * Bytes of a file per {@link RangeRequest}: 1 MB. With {@link RANGE_DEPTH} 32 of them out per
 * worker, the two threads keep each other busy better than with smaller ranges, for about 10 MB
 * more peak RSS; without the native scanner the size makes no difference (see
 * docs/performance.md, "Records moved from code comments").
 */
export const RANGE_BYTES = 1024 * 1024;

/**
 * A range being decoded: its answer once known (a worker's, or this thread's when it claimed the
 * range first), cleared when consumed.
 */
interface PendingRange {
  run: WorkResult | undefined;
  /** Whether it was given to a worker (else this thread decoded it: no workers). */
  given: boolean;
  offset: number;
  /** Where the range starts. */
  start: number;
  /** Its request id, claim slot and worker (see `Pool.runRange`), for a range given to a worker. */
  id: number;
  slot: number;
  worker: number;
}

/** Ranges given out and not consumed yet, in file order, and where the next one starts. */
interface GivenRanges {
  queue: PendingRange[];
  /** Where the next range not given out yet starts. */
  start: number;
  /** Ranges of {@link queue} given to the workers (in flight, or answered and waiting in a port). */
  count: number;
}

/**
 * Gives `pool`'s workers ranges of `rangeBytes` of the file open as `fd` (`bytes` long) from
 * `given.start` on, each answered into its {@link PendingRange} at the end of `given.queue`,
 * until `limit` are given out and not consumed, or the file's end.
 */
function giveRanges(pool: Pool, fd: number, bytes: number, rangeBytes: number, maxLength: number, limit: number, given: GivenRanges): void {
  while (given.count < limit && given.start < bytes) {
    const start = given.start;
    const end = Math.min(bytes, start + rangeBytes);
    const pending: PendingRange = { run: undefined, given: true, offset: end, start, id: -1, slot: -1, worker: -1 };
    pool.runRange(fd, start, end, maxLength, pending, (r) => {
      if (r.skipped !== true) pending.run = r;
    });
    given.queue.push(pending);
    given.count++;
    given.start = end;
  }
}

/**
 * Decodes the regular file open as `fd` (`bytes` long when it was opened; a file still growing is
 * read on to its size when the first `bytes` are done, as often as it grew; the caller keeps `fd`
 * open until this ends) in ranges of `rangeBytes` that `workers` threads read themselves
 * (`workRange`), so this thread reads nothing while they keep up. Yields one {@link RangeRun}
 * per range, in file order; lines, kinds and samples are those of {@link decodeInParallel} on
 * the same bytes. `workers: 0` decodes everything here (tests).
 *
 * When the range due next has no answer yet and no worker has started on it, this thread claims
 * it (`claimRange`) and decodes it itself (with dictionaries of its own, answering as worker
 * number `workers`); the worker then answers `skipped`. That happens mostly at the start, while
 * a worker starts: this thread starts its detectors at once, and hands over to the workers as
 * soon as their answers come in time, rather than decoding a fixed number of ranges while a
 * worker that is done with its own waits. Otherwise this thread waits for the next answer.
 * Throws {@link InputError} when the file cannot be read, or a worker's error.
 */
export async function* decodeRanges(name: string, fd: number, bytes: number, workers: number, maxLength: number, rangeBytes = RANGE_BYTES): AsyncGenerator<RangeRun> {
  const fail = (err: unknown): InputError => new InputError(`Cannot read "${name}": ${describeFsError(err)}.`, undefined, { cause: err });
  // This thread's dictionaries, for the ranges it claims as they come due. Smaller than a
  // worker's: this thread decodes few ranges, and each entry it keeps is a second copy of what
  // the workers' dictionaries hold, so it adds to peak RSS.
  const stolen = new WorkState(true, HELP_DICTIONARY_LIMIT);
  const limit = openRanges(workers);
  const pool = new Pool(workers, maxLength, limit);
  const g: GivenRanges = { queue: [], start: 0, count: 0 };
  const queue = g.queue;
  try {
    pool.quiet();
    let sinceTurn = 0; // ranges consumed since the event loop last turned
    // Ranges given out at once: `limit`, or fewer when the workers' answers are large (ANSWER_BUDGET).
    let out = limit;
    let largest = 0; // the largest answer of a worker consumed in the last 16
    let sinceLargest = 0;
    for (;;) {
      // At most `out` ranges given out and not yet consumed (in flight, or answered and waiting
      // in a port's queue).
      giveRanges(pool, fd, bytes, rangeBytes, maxLength, out, g);
      if (queue.length === 0 && g.start >= bytes) {
        // A file still being written: read on to its end now, as a stream would.
        const now = fstatSync(fd).size;
        if (now <= bytes) break;
        bytes = now;
        continue;
      }
      const head = queue[0];
      if (head !== undefined && head.run === undefined && head.given) {
        if (pool.receive(head.worker, head.id)) {
          // Not expected: a worker skips only a range this thread claimed (and then has decoded).
          if (head.run === undefined) throw new Error(`range ${head.id} was claimed by no one`);
        } else if (pool.steal(head.id, head.slot)) {
          // Due next, not answered, and no worker started on it: this thread's.
          head.run = workRange({ id: -1, fd, start: head.start, end: head.offset, maxLength, claim: -1 }, stolen);
          head.run.worker = workers;
        }
      }
      if (head !== undefined && head.run !== undefined && ++sinceTurn >= TURN_EVERY) {
        // This thread could go on in microtasks alone for the whole file; the event loop must
        // turn now and then: V8 keeps every WeakRef target read (the normalizer's actors of
        // closed generations) alive until it does.
        sinceTurn = 0;
        await turn();
      }
      if (head !== undefined && head.run !== undefined) {
        queue.shift();
        if (head.given) g.count--;
        const run = head.run;
        // An old pending range must not keep the answer alive (see `Pool.runRange`).
        head.run = undefined;
        if (run.worker! < workers && nativeScanner !== null) {
          const b = answerBytes(run);
          if (b >= largest || ++sinceLargest >= 16) {
            largest = b;
            sinceLargest = 0;
          }
          out = Math.max(workers * DEPTH, Math.min(limit, workers * Math.floor(ANSWER_BUDGET / Math.max(1, largest))));
        }
        if (run.error !== undefined) throw fail(Object.assign(new Error(run.error.message), { code: run.error.code }));
        yield { run, offset: head.offset };
      } else if (workers === 0 && g.start < bytes) {
        // No workers (tests): every range is this thread's.
        const start = g.start;
        const end = Math.min(bytes, start + rangeBytes);
        const run = workRange({ id: -1, fd, start, end, maxLength, claim: -1 }, stolen);
        run.worker = workers;
        queue.push({ run, given: false, offset: end, start, id: -1, slot: -1, worker: -1 });
        g.start = end;
      } else if (head !== undefined) {
        await pool.arrival();
      }
    }
  } finally {
    await pool.close();
  }
}

/** What this thread knows of one worker's ids (see `work-lines.ts`). */
interface Dictionary {
  /** The epochs of the worker's dictionaries these ids are of (`WorkResult.actorEpoch`, …). */
  actorEpoch: number;
  objectEpoch: number;
  wordEpoch: number;
  actorDefs: string[];
  /**
   * Objects the worker defined in this epoch of its object dictionary. An object is defined in
   * the answer that first uses it, and made then (it is never looked up again by id after a
   * generation closes, as actors are), so its definition is read from that answer, not copied.
   */
  objectCount: number;
  /** Verbs, source IPs, levels and reasons by id. */
  words: string[];
  /** Interned actors by id, cached until the normalizer closes a generation. */
  actors: Array<Actor | undefined>;
  /**
   * Objects by id, made at their first use (`Normalizer.newObject`): the worker's dictionary
   * already defines each object and `apiVersion` once per epoch of it, so no second lookup by key
   * is made here.
   */
  objects: Array<ObjectRef | undefined>;
  /**
   * By object id, 1 when the object's subresource is long-running (`isLongRunningSubresource`),
   * set with `objects`: a record needs only that of its object when it is made, and a dense array
   * of small integers is read where the object itself would be a cache miss.
   */
  longRunning: number[];
}

/**
 * Turns the final records of worker answers back into {@link RequestRecord}s, in line order:
 * {@link begin} an answer, then {@link record} for each of its `LINE_FINAL` lines and
 * {@link fallback} for each `LINE_FALLBACK` one. Actors are interned through the normalizer at
 * their first use in line order, as the single-threaded reader interns them, and looked up again
 * after the normalizer closes a generation, so actors in use stay interned (detectors key actors
 * by instance). Objects are made once per definition (their state goes by key).
 */
export class RunDecoder {
  private readonly dicts: Dictionary[] = [];
  private readonly fields: FastFields = newFastFields();
  private generation: number;
  private run: WorkResult | null = null;
  private dict: Dictionary | null = null;
  private si = 0; // into strings
  private ni = 0; // into numbers
  private fi = 0; // into fallback
  private bi = 0; // into bodies
  /** The id of the answer's first object definition (`run.objects`). */
  private objectBase = 0;

  constructor(private readonly normalizer: Normalizer) {
    this.generation = normalizer.generation;
  }

  /** Starts on the next answer (answers must come in input order). */
  begin(run: WorkResult): void {
    const w = run.worker ?? 0;
    let d = this.dicts[w];
    if (d === undefined) {
      d = {
        actorEpoch: run.actorEpoch,
        objectEpoch: run.objectEpoch,
        wordEpoch: run.wordEpoch,
        actorDefs: [],
        objectCount: 0,
        words: [],
        actors: [],
        objects: [],
        longRunning: [],
      };
      this.dicts[w] = d;
    }
    if (d.actorEpoch !== run.actorEpoch) {
      d.actorEpoch = run.actorEpoch;
      d.actorDefs = [];
      d.actors = [];
    }
    if (d.objectEpoch !== run.objectEpoch) {
      d.objectEpoch = run.objectEpoch;
      d.objectCount = 0;
      d.objects = [];
      d.longRunning = [];
    }
    if (d.wordEpoch !== run.wordEpoch) {
      d.wordEpoch = run.wordEpoch;
      d.words = [];
    }
    for (const s of run.actors) d.actorDefs.push(s);
    this.objectBase = d.objectCount;
    d.objectCount += run.objects.length / 6;
    for (const s of run.words) d.words.push(s);
    this.run = run;
    this.dict = d;
    this.si = this.ni = this.fi = this.bi = 0;
  }

  /** The record of the answer's next final line. */
  record(): RequestRecord {
    const { strings, numbers } = this.run!;
    const d = this.dict!;
    const f = this.fields;
    // STRING_FIELDS and WORD_FIELDS in order, spelled out (keyed stores cost more).
    const si = this.si;
    f.auditID = strings[si]!;
    f.resourceVersion = strings[si + 1]!;
    this.si = si + STRING_FIELDS.length;
    const ni = this.ni;
    f.stageTimeMs = numbers[ni]!;
    f.receivedTimeMs = numbers[ni + 1]!;
    f.code = numbers[ni + 2]!;
    const flags = numbers[ni + 3]!;
    f.stage = (flags & 1) !== 0 ? 'Panic' : 'ResponseComplete';
    f.dryRun = (flags & 2) !== 0;
    if ((flags & FLAG_BODY) !== 0) {
      const b = this.run!.bodies;
      const bi = this.bi;
      f.responseResourceVersion = b[bi] as string;
      const content = b[bi + 1] as string;
      f.body = content === '' ? null : { content, timestamps: b[bi + 2] as string, timestampFields: internTimestampFields(b[bi + 3] as readonly string[]) };
      this.bi = bi + 4;
    } else {
      f.responseResourceVersion = '';
      f.body = null;
    }
    const actorId = numbers[ni + 4]!;
    const objectId = numbers[ni + 5]!;
    const words = d.words;
    f.verb = words[numbers[ni + 6]!]!;
    f.sourceIP = words[numbers[ni + 7]!]!;
    f.level = words[numbers[ni + 8]!]!;
    f.reason = words[numbers[ni + 9]!]!;
    f.fieldManager = words[numbers[ni + 10]!]!;
    this.ni += NUMBER_FIELDS;
    const n = this.normalizer;
    if (this.generation !== n.generation) {
      this.generation = n.generation;
      for (const x of this.dicts) if (x !== undefined) x.actors = [];
    }
    let actor = d.actors[actorId];
    if (actor === undefined) {
      const a = d.actorDefs;
      actor = d.actors[actorId] = n.internActor(a[2 * actorId]!, a[2 * actorId + 1]!);
    }
    let object: ObjectRef | null = null;
    let longRunning = false;
    if (objectId >= 0) {
      object = d.objects[objectId] ?? null;
      if (object === null) {
        const o = this.run!.objects;
        const b = 6 * (objectId - this.objectBase);
        if (b < 0 || b >= o.length) throw new Error(`parser thread answer: object ${objectId} is used before the answer that defines it`);
        // The name is one per object; the other parts are few, kept once.
        object = d.objects[objectId] = n.newObject(n.part(o[b]!), n.part(o[b + 1]!), n.part(o[b + 2]!), o[b + 3]!, n.part(o[b + 4]!), n.part(o[b + 5]!));
        d.longRunning[objectId] = isLongRunningSubresource(object.subresource) ? 1 : 0;
      }
      longRunning = d.longRunning[objectId] === 1;
    }
    return n.normalizeInterned(this.fields, actor, object, true, longRunning, numbers[ni + NUMBER_LANES], numbers[ni + NUMBER_LANES + 1]);
  }

  /** The text of the answer's next fall-back line. */
  fallback(): string {
    return this.run!.fallback[this.fi++]!;
  }
}
