/**
 * Scenarios: seeded functions that plan the API requests of one kind of cluster activity over a
 * time window (`(rng, params, window) → requests`, see plan.ts). {@link generateLog}
 * (generate.ts) composes them into one log. This module holds the conflict patterns (storm,
 * incident, RetryOnConflict, per-item backoff) and the registry; background.ts the healthy noise.
 *
 * Timing facts used, with sources:
 * - client-go `retry.DefaultRetry` = {Steps 5, 10 ms, Factor 1, Jitter 0.1}, `DefaultBackoff` =
 *   {Steps 4, 10 ms, Factor 5, Jitter 0.1}; the sleep is `d + rand[0,1)·jitter·d`
 *   (`kubernetes/client-go` `util/retry/util.go`, `kubernetes/apimachinery` `pkg/util/wait/backoff.go`).
 * - controller-runtime / workqueue per-item backoff `5ms·2^failures` (capped at 1000 s), reset by
 *   `Forget` on success (`kubernetes/client-go` `util/workqueue/default_rate_limiters.go`,
 *   `kubernetes-sigs/controller-runtime` `pkg/internal/controller/controller.go`).
 * - kubebuilder operators' user agent `manager/v0.0.0 (linux/amd64) kubernetes/$Format`
 *   (`kubernetes/client-go` `rest/config.go`, `pkg/version/base.go` defaults).
 */
import { background, type BackgroundParams } from './background.js';
import type { Micros, Target } from './events.js';
import type { Client } from './events.js';
import { NAMESPACES, OBJECT_NAMES, randomContender, randomWriter } from './names.js';
import { busyController, kubeletStatus, rollout, type BusyControllerParams, type KubeletStatusParams, type RolloutParams } from './healthy.js';
import {
  createConflictStorm,
  createStorm,
  fleetStorm,
  hotLoop,
  noOpWrites,
  throttling,
  transitionTimeReplay,
  writeFight,
  type CreateConflictParams,
  type CreateStormParams,
  type FleetStormParams,
  type HotLoopParams,
  type NoOpWritesParams,
  type ThrottlingParams,
  type TransitionTimeParams,
  type WriteFightParams,
} from './patterns.js';
import {
  MS,
  OPERATOR_UA,
  SECOND,
  conflictEpisode,
  context,
  controllerClient,
  podClients,
  resolve,
  subjectOf,
  trackObject,
  visibleRV,
  watchChain,
  write,
  type CommonParams,
  type Defaults,
  type OperatorParams,
  type PlannedRequest,
  type Scenario,
  type Window,
} from './plan.js';
import type { Rng } from './random.js';

export type { BackgroundParams } from './background.js';
export type { CommonParams, OperatorParams, PlannedRequest, Scenario, TruthActor, TruthKind, TruthObject, Window } from './plan.js';
export { FINDING_KINDS } from './plan.js';
export { background, busyController, createConflictStorm, createStorm, fleetStorm, hotLoop, kubeletStatus, noOpWrites, rollout, throttling, transitionTimeReplay, writeFight };

// ---------------------------------------------------------------------------------------------
// storm / incident

/** Parameters of {@link storm} (and {@link incident}). */
export interface StormParams extends CommonParams {
  operator?: OperatorParams;
  /** The object updated; default a custom resource's `/status`. */
  object?: Target;
  /** Operator pods running the loop at once (each its own source IP). Default 2. */
  replicas?: number;
  /** Target update attempts per second, all replicas together. Default 35 (incident: 90). */
  ratePerSec?: number;
  /** Approximate share of attempts answered 409. Default 0.9 (incident: 0.93). */
  conflictRatio?: number;
  /** Gap between a 409 and the replica's next attempt, ms, uniform in [min, max]. Default [1, 5]. */
  retryGapMs?: [number, number];
  /** Also open the replicas' informer watches on the resource. Default true. */
  watches?: boolean;
}

const STORM_DEFAULTS: Defaults<StormParams> = {
  operator: { namespace: 'featureflag-system', serviceAccount: 'featureflag-controller-manager', deployment: 'featureflag-controller-manager', userAgent: OPERATOR_UA },
  object: { apiGroup: 'platform.example.com', apiVersion: 'v1beta1', resource: 'featureflags', namespace: 'checkout', name: 'checkout-flags', subresource: 'status' },
  replicas: 2,
  ratePerSec: 35,
  conflictRatio: 0.9,
  retryGapMs: [1, 5],
  watches: true,
};

/** Defaults of {@link incident}: the appdeployment-operator loop on `payment-core/status`. */
export const INCIDENT_DEFAULTS: Defaults<StormParams> = {
  operator: { namespace: 'appdeployment-system', serviceAccount: 'appdeployment-operator', deployment: 'appdeployment-operator', userAgent: OPERATOR_UA },
  object: { apiGroup: 'infra.company.io', apiVersion: 'v1alpha1', resource: 'appdeployments', namespace: 'default', name: 'payment-core', subresource: 'status' },
  replicas: 2,
  ratePerSec: 90,
  conflictRatio: 0.93,
  retryGapMs: [1, 4],
  watches: true,
};

/** How a storm replay differs from an operator's storm: who writes, and what `randomizeNames` draws. */
interface StormVariant {
  /** The writers (default: `replicas` pods of `operator`). */
  clients?: (rng: Rng) => Client[];
  /** Parameters drawn for `randomizeNames` (default: a random operator, object, replicas and rates). */
  random?: (names: Rng) => Partial<StormParams>;
}

/** A storm scenario whose unset parameters come from `defaults`; `type` labels its truth by default. */
function stormWith(defaults: Defaults<StormParams>, type: string, variant: StormVariant = {}): Scenario<StormParams> {
  const randomOf =
    variant.random ??
    ((names: Rng) => ({ ...randomWriter(names), replicas: names.int(1, 3), ratePerSec: Math.round(names.uniform(20, 150)), conflictRatio: names.uniform(0.75, 0.97) }));
  return (rng, params, w) => {
    const names = rng.fork('names');
    const random: Partial<StormParams> = params.randomizeNames ? randomOf(names) : {};
    const p = resolve(defaults, random, params);
    const ctx = context(rng, w);
    const obj = trackObject(ctx, p.object);
    const clients = variant.clients ? variant.clients(rng) : podClients(rng, p.operator, p.replicas);
    const first = clients[0];
    if (!first) return [];
    const subject = subjectOf(p.name ?? type, 'conflict-storm', first, p.object);
    const refresh = 1 - p.conflictRatio;
    const periodUs = (SECOND * p.replicas) / p.ratePerSec;
    const reps = clients.map((client) => {
      const t0 = w.startUs + rng.uniform(0, periodUs);
      return { client, next: t0, t0, known: obj.rv, attempts: 0 };
    });
    for (;;) {
      const rep = reps.reduce((a, b) => (b.next < a.next ? b : a));
      if (rep.next >= w.endUs - 50 * MS) break;
      // The informer cache catches up now and then; otherwise the replica resends a stale RV.
      if (rng.chance(refresh)) rep.known = visibleRV(obj, rep.next);
      const req = write(ctx, { client: rep.client, verb: 'update', obj, subresource: p.object.subresource, at: rep.next, sentRV: rep.known, subject });
      rep.attempts++;
      const gap = rng.uniform(p.retryGapMs[0], p.retryGapMs[1]) * MS;
      // No backoff after a 409. After a success the loop idles until the next trigger, paced
      // so that the replica averages `ratePerSec / replicas` attempts per second.
      const behind = rep.t0 + rep.attempts * periodUs - req.completedUs;
      rep.next = req.completedUs + (req.responseStatus.code === 409 ? gap : Math.max(gap, behind * rng.uniform(0.7, 1.3)));
    }
    if (p.watches) {
      const collection: Target = { ...p.object, namespace: '', name: '', subresource: '' };
      for (const client of clients) watchChain(ctx, client, collection, w.startUs, w.endUs);
    }
    return ctx.requests;
  };
}

/**
 * A conflict storm: `replicas` pods of one operator (same service account and user agent,
 * different pods and source IPs) update one object's `/status` with a PUT carrying the RV from
 * their informer cache. Most attempts are 409 Conflict; each replica retries a few ms later
 * with no backoff, usually resending the same stale RV, with occasional successes.
 */
export const storm: Scenario<StormParams> = stormWith(STORM_DEFAULTS, 'storm');

/**
 * The incident that started the project: `system:serviceaccount:appdeployment-system:appdeployment-operator`
 * updating `/apis/infra.company.io/v1alpha1/namespaces/default/appdeployments/payment-core/status`
 * from 2 pods, answered 409 Conflict tens of times a second. A {@link storm} with other defaults.
 */
export const incident: Scenario<StormParams> = stormWith(INCIDENT_DEFAULTS, 'incident');

/**
 * Replay of a public report: kube-controller-manager's job controller updating one Job's
 * `/status` about 60 times a second, most answered 409 Conflict, because it kept writing with
 * the RV of a stale informer copy (`kubernetes/kubernetes` job controller with tracking
 * finalizers, 1.2x). One writer (`system:serviceaccount:kube-system:job-controller`, user agent
 * suffix `/system:serviceaccount:kube-system:job-controller`) from the control-plane IP.
 */
export const jobControllerReplay: Scenario<StormParams> = stormWith(
  {
    ...STORM_DEFAULTS,
    object: { apiGroup: 'batch', apiVersion: 'v1', resource: 'jobs', namespace: 'data-pipeline', name: 'nightly-etl-29541120', subresource: 'status' },
    replicas: 1,
    ratePerSec: 60,
    conflictRatio: 0.9,
    retryGapMs: [12, 18],
    watches: false,
  },
  'jobControllerReplay',
  {
    clients: (rng) => [controllerClient(rng, 'job-controller')],
    random: (n) => ({
      object: {
        apiGroup: 'batch',
        apiVersion: 'v1',
        resource: 'jobs',
        namespace: n.pick(NAMESPACES),
        name: `${n.pick(OBJECT_NAMES)}-${n.int(29_000_000, 29_999_999)}`,
        subresource: 'status',
      },
      ratePerSec: Math.round(n.uniform(40, 80)),
      conflictRatio: n.uniform(0.8, 0.95),
    }),
  },
);

/**
 * Replay of a public report: a policy engine's background controller whose updates of its own
 * `UpdateRequest` objects conflict every 50–100 ms ("the object has been modified"), retried
 * without backoff from a stale cache, by one or two replicas.
 */
export const policyEngineReplay: Scenario<StormParams> = stormWith(
  {
    operator: {
      namespace: 'kyverno',
      serviceAccount: 'kyverno-background-controller',
      deployment: 'kyverno-background-controller',
      userAgent: 'kyverno/v1.11.4 (linux/amd64) kubernetes/$Format',
    },
    object: { apiGroup: 'kyverno.io', apiVersion: 'v1beta1', resource: 'updaterequests', namespace: 'kyverno', name: 'ur-7xq2k', subresource: 'status' },
    replicas: 1,
    ratePerSec: 14,
    conflictRatio: 0.95,
    retryGapMs: [50, 100],
    watches: true,
  },
  'policyEngineReplay',
  {
    random: (n) => {
      const engine = n.pick(['kyverno', 'gatekeeper', 'policy-engine']);
      return {
        operator: {
          namespace: engine,
          serviceAccount: `${engine}-background-controller`,
          deployment: `${engine}-background-controller`,
          userAgent: `${engine}/v1.${n.int(8, 13)}.${n.int(0, 9)} (linux/amd64) kubernetes/$Format`,
        },
        object: { apiGroup: `${engine}.io`, apiVersion: 'v1beta1', resource: 'updaterequests', namespace: engine, name: `ur-${n.nameSuffix(5)}`, subresource: 'status' },
        replicas: n.int(1, 2),
        ratePerSec: Math.round(n.uniform(10, 18)),
      };
    },
  },
);

// ---------------------------------------------------------------------------------------------
// retryOnConflict / exponentialBackoff

/** A `wait.Backoff` (`kubernetes/apimachinery` `pkg/util/wait/backoff.go`); durations in ms. */
export interface Backoff {
  steps: number;
  durationMs: number;
  factor: number;
  jitter: number;
}

/** client-go `retry.DefaultRetry` (`util/retry/util.go`): 5 attempts, 10 ms apart (+≤10%). */
export const DEFAULT_RETRY: Backoff = { steps: 5, durationMs: 10, factor: 1, jitter: 0.1 };

/** Parameters shared by the two well-behaved writers. */
export interface ContendedWriterParams extends CommonParams {
  writer?: OperatorParams;
  /** The object; the writer updates `subresource`, the contender patches the main resource. */
  object?: Target;
  /** The other writer whose patches make the writer's PUTs conflict. */
  contender?: OperatorParams;
  /** Pause between two logical changes, ms, uniform in [min, max]. */
  intervalMs?: [number, number];
}

/** Parameters of {@link retryOnConflict}. */
export interface RetryOnConflictParams extends ContendedWriterParams {
  /** Probability of 0, 1, 2, … conflicts per call (capped at `backoff.steps - 1`). Default [0.4, 0.4, 0.2]. */
  conflictWeights?: number[];
  /** Default {@link DEFAULT_RETRY}. */
  backoff?: Backoff;
}

/** Parameters of {@link exponentialBackoff}. */
export interface ExponentialBackoffParams extends ContendedWriterParams {
  /** Probability that a reconcile runs into a burst of contender writes. Default 0.35. */
  burstProbability?: number;
  /** Most conflicts in one burst (conflicts are 1 + Poisson-ish, capped). Default 6. */
  maxConflicts?: number;
  /** Per-item backoff base, ms. Default 5 (controller-runtime / workqueue). */
  baseDelayMs?: number;
  /** Per-item backoff cap, ms. Default 1 000 000 (1000 s). */
  maxDelayMs?: number;
}

const RETRY_DEFAULTS: Defaults<RetryOnConflictParams> = {
  writer: {
    namespace: 'quota-system',
    serviceAccount: 'tenantquota-controller',
    deployment: 'tenantquota-controller',
    userAgent: 'tenantquota-controller/v1.8.2 (linux/amd64) kubernetes/$Format',
  },
  object: { apiGroup: 'platform.example.com', apiVersion: 'v1beta1', resource: 'tenantquotas', namespace: 'team-a', name: 'team-a-quota', subresource: 'status' },
  contender: { namespace: 'quota-system', serviceAccount: 'usage-reporter', deployment: 'usage-reporter', userAgent: 'usage-reporter/v0.0.0 (linux/amd64) kubernetes/$Format' },
  intervalMs: [1000, 2000],
  conflictWeights: [0.4, 0.4, 0.2],
  backoff: DEFAULT_RETRY,
};

const BACKOFF_DEFAULTS: Defaults<ExponentialBackoffParams> = {
  writer: { namespace: 'cache-system', serviceAccount: 'cachecluster-controller-manager', deployment: 'cachecluster-controller-manager', userAgent: OPERATOR_UA },
  object: { apiGroup: 'cache.acme.dev', apiVersion: 'v1', resource: 'cacheclusters', namespace: 'prod', name: 'session-store', subresource: 'status' },
  contender: {
    namespace: 'cache-system',
    serviceAccount: 'cachecluster-autoscaler',
    deployment: 'cachecluster-autoscaler',
    userAgent: 'cachecluster-autoscaler/v0.4.1 (linux/amd64) kubernetes/$Format',
  },
  intervalMs: [1500, 4000],
  burstProbability: 0.35,
  maxConflicts: 6,
  baseDelayMs: 5,
  maxDelayMs: 1_000_000,
};

/** With `randomizeNames`: a random writer, object and contender; else nothing. */
function randomContended(rng: Rng, params: CommonParams): Partial<ContendedWriterParams> {
  if (!params.randomizeNames) return {};
  const names = rng.fork('names');
  const { operator, object } = randomWriter(names);
  return { writer: operator, object, contender: randomContender(names, operator) };
}

/** Set up a contended writer's clients, object and subjects from resolved parameters. */
function contendedSetup(rng: Rng, w: Window, p: Defaults<ContendedWriterParams> & ContendedWriterParams, type: string) {
  const ctx = context(rng, w);
  const [writer] = podClients(rng, p.writer, 1);
  const [contender] = podClients(rng, p.contender, 1);
  if (!writer || !contender) throw new Error('unreachable: podClients(…, 1) returns one client');
  const label = p.name ?? type;
  const mainTarget = { ...p.object, subresource: '' };
  return {
    ctx,
    obj: trackObject(ctx, p.object),
    writer,
    contender,
    writerSubject: subjectOf(label, 'benign', writer, p.object),
    contenderSubject: subjectOf(label, 'benign', contender, mainTarget),
  };
}

/**
 * A writer using client-go `retry.RetryOnConflict(retry.DefaultRetry, fn)` where `fn` GETs the
 * object and PUTs its `/status`. A contender patches the object between GET and PUT now and
 * then, so some calls meet 1–2 conflicts; each is retried after ~10 ms (+≤10% jitter) with a
 * fresh GET and a new RV, and every call ends in success. Calls repeat every 1–2 s.
 */
export const retryOnConflict: Scenario<RetryOnConflictParams> = (rng, params, w) => {
  const p = resolve<RetryOnConflictParams>(RETRY_DEFAULTS, randomContended(rng, params), params);
  const { ctx, obj, writer, contender, writerSubject, contenderSubject } = contendedSetup(rng, w, p, 'retryOnConflict');
  const { backoff } = p;
  const delayUs = (i: number): Micros => backoff.durationMs * backoff.factor ** i * (1 + rng.uniform(0, backoff.jitter)) * MS;
  for (let t = w.startUs + rng.uniform(0, p.intervalMs[1]) * MS; t < w.endUs - SECOND;) {
    const conflicts = Math.min(rng.weighted(p.conflictWeights), backoff.steps - 1);
    const end = conflictEpisode(ctx, {
      writer,
      writerSubject,
      obj,
      subresource: p.object.subresource,
      contender,
      contenderSubject,
      contenderQuery: { fieldManager: p.contender.deployment },
      at: t,
      conflicts,
      delayUs,
      readFirst: true,
    });
    t = end + rng.uniform(p.intervalMs[0], p.intervalMs[1]) * MS;
  }
  return ctx.requests;
};

/**
 * A controller-runtime reconciler that PUTs `/status` with the RV from its informer cache and,
 * on 409, returns the error: the workqueue requeues the object after 5, 10, 20, 40, … ms
 * (`5ms·2^n`), and a success resets the backoff. Conflicts come in bursts while a contender
 * (an autoscaler applying the main resource) writes repeatedly.
 */
export const exponentialBackoff: Scenario<ExponentialBackoffParams> = (rng, params, w) => {
  const p = resolve<ExponentialBackoffParams>(BACKOFF_DEFAULTS, randomContended(rng, params), params);
  const { ctx, obj, writer, contender, writerSubject, contenderSubject } = contendedSetup(rng, w, p, 'exponentialBackoff');
  // Per-item delay plus the worker's pick-up time.
  const delayUs = (i: number): Micros => (Math.min(p.baseDelayMs * 2 ** i, p.maxDelayMs) + rng.uniform(0.05, 0.5)) * MS;
  for (let t = w.startUs + rng.uniform(0, p.intervalMs[1]) * MS; t < w.endUs - 2 * SECOND;) {
    const conflicts = rng.chance(p.burstProbability) ? Math.min(1 + Math.floor(rng.exponential(1.5)), p.maxConflicts) : 0;
    const end = conflictEpisode(ctx, {
      writer,
      writerSubject,
      obj,
      subresource: p.object.subresource,
      contender,
      contenderSubject,
      contenderQuery: { fieldManager: p.contender.deployment, force: 'true' },
      at: t,
      conflicts,
      delayUs,
      readFirst: false,
    });
    t = end + rng.uniform(p.intervalMs[0], p.intervalMs[1]) * MS;
  }
  return ctx.requests;
};

// ---------------------------------------------------------------------------------------------
// Registry

/** One entry of a log spec: a scenario type and its parameters. */
export type ScenarioSpec =
  | ({ type: 'background' } & BackgroundParams)
  | ({ type: 'storm' } & StormParams)
  | ({ type: 'incident' } & StormParams)
  | ({ type: 'retryOnConflict' } & RetryOnConflictParams)
  | ({ type: 'exponentialBackoff' } & ExponentialBackoffParams)
  | ({ type: 'hotLoop' } & HotLoopParams)
  | ({ type: 'noOpWrites' } & NoOpWritesParams)
  | ({ type: 'writeFight' } & WriteFightParams)
  | ({ type: 'createConflictStorm' } & CreateConflictParams)
  | ({ type: 'createStorm' } & CreateStormParams)
  | ({ type: 'fleetStorm' } & FleetStormParams)
  | ({ type: 'throttling' } & ThrottlingParams)
  | ({ type: 'rollout' } & RolloutParams)
  | ({ type: 'busyController' } & BusyControllerParams)
  | ({ type: 'kubeletStatus' } & KubeletStatusParams)
  | ({ type: 'jobControllerReplay' } & StormParams)
  | ({ type: 'policyEngineReplay' } & StormParams)
  | ({ type: 'transitionTimeReplay' } & TransitionTimeParams);

/** Every scenario type. */
export type ScenarioType = ScenarioSpec['type'];

/** Every scenario by type. */
const SCENARIOS: { [T in ScenarioType]: Scenario<Omit<Extract<ScenarioSpec, { type: T }>, 'type'>> } = {
  background,
  storm,
  incident,
  retryOnConflict,
  exponentialBackoff,
  hotLoop,
  noOpWrites,
  writeFight,
  createConflictStorm,
  createStorm,
  fleetStorm,
  throttling,
  rollout,
  busyController,
  kubeletStatus,
  jobControllerReplay,
  policyEngineReplay,
  transitionTimeReplay,
};

/** The scenario types, in registry order. */
export const SCENARIO_TYPES = Object.keys(SCENARIOS) as ScenarioType[];

/** Run the scenario a spec names. */
export function runScenario(rng: Rng, spec: ScenarioSpec, window: Window): PlannedRequest[] {
  return (SCENARIOS[spec.type] as Scenario<ScenarioSpec>)(rng, spec, window);
}
