/**
 * Actors of the simulated cluster and their behaviours, written from how client-go and
 * controller-runtime work (not from audit-log templates):
 * - {@link WorkQueue}: client-go's workqueue (a key is queued once while dirty, never processed by
 *   two workers at once, at most one delayed entry per key) with the per-item exponential rate limiter
 *   (`ItemExponentialFailureRateLimiter`: base·2^failures, capped; defaults 5 ms and 1000 s);
 * - {@link operator}: a controller reconciling objects from its informer cache, triggered by watch
 *   events (optionally filtered by a GenerationChangedPredicate), RequeueAfter and resync, writing
 *   with update / merge patch / server-side apply, and handling a 409 by requeue, rate-limited
 *   requeue, RetryOnConflict (DefaultRetry or DefaultBackoff, re-GET before each retry) or a
 *   retry of the same stale object;
 * - {@link retryOnConflict}: client-go `retry.RetryOnConflict` timings (audit-formats.md §7).
 */
import type { SimObject, SimRef } from './store.js';
import { MS, type SimResponse, type SimUser, type World, type Informer } from './world.js';

/** client-go `retry.DefaultRetry` and `retry.DefaultBackoff` (audit-formats.md): steps, first sleep ms, factor, jitter. */
export const BACKOFFS = {
  DefaultRetry: { steps: 5, durationMs: 10, factor: 1, jitter: 0.1 },
  DefaultBackoff: { steps: 4, durationMs: 10, factor: 5, jitter: 0.1 },
} as const;

/** A client-go wait.Backoff. */
export interface Backoff {
  steps: number;
  durationMs: number;
  factor: number;
  jitter: number;
}

/**
 * `retry.RetryOnConflict(backoff, fn)`: run `attempt` (which calls `done(conflict)`) up to
 * `steps` times, sleeping `d + rand·jitter·d` between attempts, d growing by `factor`; `finish`
 * gets true when an attempt did not conflict.
 */
export function retryOnConflict(w: World, b: Backoff, attempt: (done: (conflict: boolean) => void) => void, finish: (ok: boolean) => void): void {
  let step = 0;
  let d = b.durationMs;
  const go = () => {
    attempt((conflict) => {
      step++;
      if (!conflict) return finish(true);
      if (step >= b.steps) return finish(false);
      const sleep = (d + w.rng.next() * b.jitter * d) * MS;
      d *= b.factor;
      w.at(w.now + sleep, go);
    });
  };
  go();
}

/** Result of one reconcile, as controller-runtime reads it. */
export type ReconcileResult = { kind: 'ok'; requeueAfterUs?: number } | { kind: 'error' } | { kind: 'requeueNow' };

/** client-go workqueue with the per-item exponential failure rate limiter. */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  /** Ready time (µs) of each key's one waiting entry (see {@link addAfter}). */
  private readonly waiting = new Map<string, number>();
  private active = 0;
  constructor(
    private readonly w: World,
    private readonly workers: number,
    private readonly baseMs: number,
    private readonly capMs: number,
    private readonly reconcile: (key: string, done: (r: ReconcileResult) => void) => void,
  ) {}
  /** Queue `key` unless it is already waiting. */
  add(key: string): void {
    if (this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.kick();
  }
  /**
   * Queue `key` after `us`. Like client-go's delaying queue (`waitingEntryByData`), a key has at
   * most one waiting entry, and a second AddAfter only moves it to an earlier ready time: a
   * reconcile that returns RequeueAfter on every pass is re-queued once per period, not per pass.
   */
  addAfter(key: string, us: number): void {
    if (us <= 0) return this.add(key);
    const readyAt = this.w.now + us;
    const waiting = this.waiting.get(key);
    if (waiting !== undefined && waiting <= readyAt) return;
    this.waiting.set(key, readyAt);
    this.w.at(readyAt, () => {
      // A timer whose entry was moved earlier (and has fired, or will) does nothing.
      if (this.waiting.get(key) !== readyAt) return;
      this.waiting.delete(key);
      this.add(key);
    });
  }
  /** Queue `key` after base·2^failures (capped), and count the failure. */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, Math.min(this.baseMs * 2 ** n, this.capMs) * MS);
  }
  private kick(): void {
    while (this.active < this.workers && this.queue.length > 0) {
      const key = this.queue.shift() as string;
      this.dirty.delete(key);
      this.processing.add(key);
      this.active++;
      // Reconcile work before the first request: 0.2–1.5 ms of CPU.
      this.w.at(this.w.now + this.w.rng.uniform(200, 1500), () =>
        this.reconcile(key, (r) => {
          this.processing.delete(key);
          this.active--;
          if (r.kind === 'error') this.addRateLimited(key);
          else if (r.kind === 'requeueNow') this.add(key);
          else {
            this.failures.delete(key);
            if (r.requeueAfterUs !== undefined) this.addAfter(key, r.requeueAfterUs);
          }
          if (this.dirty.has(key) && !this.queue.includes(key)) this.queue.push(key);
          this.kick();
        }),
      );
    }
  }
}

/** How an {@link operator} handles a 409 Conflict on its write. */
export type ConflictHandling =
  /** Return the error: rate-limited requeue (5 ms·2^n, capped). */
  | 'rateLimited'
  /** Requeue at once without backoff (the error ignored, `Requeue: true`). */
  | 'requeueNow'
  /** RetryOnConflict(DefaultRetry): GET the live object, recompute, PUT again. */
  | 'retryOnConflict'
  /** Sleep `staleRetryMs` and send the same object (same resourceVersion) again, forever. */
  | 'retryStale';

/** Parameters of an {@link operator}. */
export interface OperatorSpec {
  user: SimUser;
  /** Resource written: group, version, resource. */
  group: string;
  version: string;
  resource: string;
  /** The objects it owns (created by the scenario). */
  objects: SimRef[];
  workers: number;
  /** Informer watch delay, µs. */
  watchDelayUs: number;
  /** Reconcile on own-resource watch events. */
  watchOwn: boolean;
  /** GenerationChangedPredicate: ignore events that do not change metadata.generation. */
  generationPredicate?: boolean;
  /** RequeueAfter on success (µs), or none. */
  requeueAfterUs?: number;
  /** The status (or spec) it wants, from the cached object and the time. */
  desired: (o: SimObject, w: World) => Record<string, unknown>;
  /** Write the `status` subresource or the main resource (spec). */
  target: 'status' | '';
  verb: 'update' | 'patch' | 'apply';
  /** Send the cached resourceVersion as precondition (update always does; a patch may). */
  sendRv: boolean;
  /** Skip the write when the desired state equals the cached one. */
  skipUnchanged: boolean;
  /** Writes per reconcile from the same cached copy (2: http-add-on's double SaveStatus). */
  writesPerReconcile?: number;
  onConflict: ConflictHandling;
  staleRetryMs?: number;
  /** Workqueue rate limiter base and cap, ms. Default 5 and 1000 000 (client-go). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Put its own write's response into the cache `writeBackDelayUs` after it (argo-rollouts' writeBackToInformer). */
  writeBackDelayUs?: number;
  /** SSA field manager. */
  fieldManager?: string;
  /** GET the live object at the start of every reconcile (instead of reading the cache). */
  getLive?: boolean;
  /** Spread the first reconcile of each object uniformly over this many µs after `startUs`. Default 0. */
  spreadStartUs?: number;
  /** Start reconciling at this time (µs). Default 0. */
  startUs?: number;
  /** Time a reconcile spends before its write (calls to an external API), µs, drawn per reconcile. Default none. */
  reconcileWorkUs?: () => number;
}

/** A reconciling controller (see the module comment). Returns its informer and queue. */
export function operator(w: World, s: OperatorSpec): { informer: Informer; queue: WorkQueue } {
  const inf = w.informer(s.group, s.resource, s.watchDelayUs);
  const mine = new Set(s.objects.map((r) => `${r.group}/${r.resource}/${r.namespace}/${r.name}`));
  const refs = new Map(s.objects.map((r) => [`${r.group}/${r.resource}/${r.namespace}/${r.name}`, r]));
  const write = (o: SimObject, body: Record<string, unknown>, then: (r: SimResponse) => void) => {
    const sub = s.target;
    if (s.verb === 'apply') w.call(s.user, { verb: 'patch', ref: o.ref, patchType: 'apply', fieldManager: s.fieldManager ?? s.user.userAgent.split('/')[0], body }, then);
    else w.call(s.user, { verb: s.verb, ref: o.ref, subresource: sub, rv: s.verb === 'update' || s.sendRv ? String(o.rv) : '', body }, then);
  };
  const reconcile = (key: string, done: (r: ReconcileResult) => void) => {
    if (s.getLive) {
      w.call(s.user, { verb: 'get', ref: refs.get(key) as SimRef }, (g) => (g.object ? body(g.object, key, done) : done({ kind: 'ok' })));
      return;
    }
    const o = inf.get(refs.get(key) as SimRef);
    if (!o) return done({ kind: 'ok' });
    body(o, key, done);
  };
  const body = (o: SimObject, key: string, done: (r: ReconcileResult) => void) => {
    const okResult: ReconcileResult = s.requeueAfterUs !== undefined ? { kind: 'ok', requeueAfterUs: s.requeueAfterUs } : { kind: 'ok' };
    const current = s.target === 'status' ? o.status : o.spec;
    const want = { ...current, ...s.desired(o, w) };
    if (s.skipUnchanged && JSON.stringify(want) === JSON.stringify(current)) return done(okResult);
    if (s.reconcileWorkUs) {
      const o2 = o;
      const work = s.reconcileWorkUs();
      w.at(w.now + work, () => writeAll(o2, want, key, done, okResult));
      return;
    }
    writeAll(o, want, key, done, okResult);
  };
  const writeAll = (o: SimObject, want: Record<string, unknown>, key: string, done: (r: ReconcileResult) => void, okResult: ReconcileResult) => {
    const n = s.writesPerReconcile ?? 1;
    let i = 0;
    const next = () => {
      const body = i === 0 ? want : { ...want, ...s.desired(o, w) };
      write(o, body, (res) => {
        i++;
        if (res.code === 409) return conflict(o, key, done);
        if (res.code >= 400) return done({ kind: 'error' });
        if (s.writeBackDelayUs !== undefined && res.object) {
          const obj = res.object;
          w.at(w.now + s.writeBackDelayUs, () => inf.writeBack(obj));
        }
        if (i < n) return next();
        done(okResult);
      });
    };
    next();
  };
  const conflict = (o: SimObject, key: string, done: (r: ReconcileResult) => void) => {
    switch (s.onConflict) {
      case 'rateLimited':
        return done({ kind: 'error' });
      case 'requeueNow':
        return done({ kind: 'requeueNow' });
      case 'retryOnConflict': {
        return retryOnConflict(
          w,
          BACKOFFS.DefaultRetry,
          (d) => {
            const attempt = (live: SimObject) => write(live, { ...(s.target === 'status' ? live.status : live.spec), ...s.desired(live, w) }, (r) => d(r.code === 409));
            w.call(s.user, { verb: 'get', ref: o.ref }, (g) => (g.object ? attempt(g.object) : d(false)));
          },
          (ok) => done(ok ? { kind: 'ok' } : { kind: 'error' }),
        );
      }
      case 'retryStale': {
        const again = () =>
          write(o, { ...(s.target === 'status' ? o.status : o.spec), ...s.desired(o, w) }, (r) => {
            if (r.code === 409) w.at(w.now + (s.staleRetryMs ?? 1000) * MS, again);
            else done({ kind: 'ok' });
          });
        return w.at(w.now + (s.staleRetryMs ?? 1000) * MS, again);
      }
    }
  };
  const q = new WorkQueue(w, s.workers, s.backoffBaseMs ?? 5, s.backoffCapMs ?? 1_000_000, reconcile);
  if (s.watchOwn) {
    const seenGeneration = new Map<string, number>();
    inf.on((e) => {
      const k = `${e.object.ref.group}/${e.object.ref.resource}/${e.object.ref.namespace}/${e.object.ref.name}`;
      if (!mine.has(k) || e.type === 'DELETED') return;
      const before = seenGeneration.get(k);
      seenGeneration.set(k, e.object.generation);
      // GenerationChangedPredicate: a status-only change keeps metadata.generation.
      if (s.generationPredicate && e.type === 'MODIFIED' && before === e.object.generation) return;
      q.add(k);
    });
  }
  // The controller started before the log: its first reconciles are spread over `spreadStartUs`.
  for (const k of mine) w.at((s.startUs ?? 0) + w.rng.uniform(0, s.spreadStartUs ?? 0), () => q.add(k));
  return { informer: inf, queue: q };
}

/** An ISO time of the simulated clock with second precision (what `metav1.Now()` serializes to). */
export function nowIso(w: World): string {
  return new Date(w.opts.startMs + Math.floor(w.now / 1000)).toISOString().replace(/\.\d+Z$/, 'Z');
}
