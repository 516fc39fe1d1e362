/**
 * Incident scenarios, continued (real-incidents.md B.1 12–30 and B.2). See scenarios.ts.
 */
import { nowIso, operator, type OperatorSpec } from './actors.js';
import { ref } from './background.js';
import type { Sampler } from './names.js';
import type { SimObject, SimRef } from './store.js';
import type { ScenarioPlan, SimExpected, SimScenario } from './scenarios.js';
import { human, serviceAccount } from './users.js';
import { MS, SECOND, type SimUser, type World } from './world.js';

const s = (x: number) => x * SECOND;
/** The simulated time as an ISO string with milliseconds. */
export const nowMs = (w: World) => new Date(w.opts.startMs + w.now / 1000).toISOString();
/** An expected object with its subresource. */
export const obj = (r: SimRef, subresource = ''): SimExpected['object'] => ({ ref: r, subresource });

/** Create objects on the store before the log starts (not logged). */
export function mk(
  w: World,
  group: string,
  version: string,
  resource: string,
  namespace: string,
  names: string[],
  spec: Record<string, unknown> = { replicas: 1 },
  status: Record<string, unknown> = {},
): SimRef[] {
  return names.map((n) => {
    const r = ref(group, version, resource, namespace, n);
    w.store.create(r, spec, status);
    return r;
  });
}
/** `n` names from one stem of the app pool (`stem-0`…), or the stem alone when `n` is 1. */
export function many(p: Sampler, label: string, n: number): string[] {
  const stem = p.name('apps', label);
  return Array.from({ length: n }, (_, i) => (n === 1 ? stem : `${stem}-${i}`));
}
/** An {@link OperatorSpec} with the defaults of a controller-runtime status writer. */
export function spec(base: Partial<OperatorSpec> & Pick<OperatorSpec, 'user' | 'group' | 'version' | 'resource' | 'objects' | 'desired'>): OperatorSpec {
  return { workers: 2, watchDelayUs: 20 * MS, watchOwn: true, target: 'status', verb: 'update', sendRv: true, skipUnchanged: true, onConflict: 'rateLimited', ...base };
}
/**
 * An operator that updates each of `objects` from its cache with the content it already has, every
 * `periodS` s (its first pass spread over one period), and does not watch its own writes: every
 * update a no-op (knative#13204, otel-operator#3002, VictoriaMetrics#1418).
 */
export function unchangedUpdater(w: World, user: SimUser, group: string, resource: string, objects: SimRef[], periodS: number): void {
  operator(
    w,
    spec({
      user,
      group,
      version: 'v1',
      resource,
      objects,
      target: '',
      watchOwn: false,
      skipUnchanged: false,
      requeueAfterUs: s(periodS),
      spreadStartUs: s(periodS),
      desired: () => ({}),
    }),
  );
}
/** An operator's service account (name from the pool unless given) with a pod IP. */
export function sa(p: Sampler, ns: string, name?: string, product = 'manager', version = 'v0.0.0'): SimUser {
  const n = name ?? p.name('operators', 'operator');
  return serviceAccount(ns, n, product, version, `10.244.${p.rng.int(1, 60)}.${p.rng.int(2, 250)}`);
}
const ltt = (_o: SimObject, w: World) => ({ conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: nowIso(w) }] });
const nodesDefault = (p: Sampler) => p.int('nodes', 8, 30);

/** One-operator scenario helper: builds the plan from a run function. */
export function plan(p: Sampler, rr: string[], run: ScenarioPlan['run'], extra: Partial<ScenarioPlan> = {}): ScenarioPlan {
  return { requestResponse: rr, nodes: nodesDefault(p), run, ...extra };
}

/** The second half of the incident scenarios. */
export const INCIDENT_SCENARIOS_2: SimScenario[] = [
  {
    name: 'prometheus-status-409-loop',
    source: 'prometheus-operator/prometheus-operator#5610',
    benign: false,
    description: 'operator updates prometheuses/status twice per sync from one cached copy; the second 409s; its own first write re-triggers the sync (~200 ms cycle)',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const user = serviceAccount(ns, 'prometheus-operator', 'PrometheusOperator', 'v0.68.0', '10.244.9.3', '');
        const [r] = mk(w, 'monitoring.coreos.com', 'v1', 'prometheuses', ns, many(p, 'prom', 1));
        operator(
          w,
          spec({
            user,
            group: 'monitoring.coreos.com',
            version: 'v1',
            resource: 'prometheuses',
            objects: [r as SimRef],
            watchDelayUs: p.num('watchDelayMs', 100, 300) * MS,
            writesPerReconcile: 2,
            skipUnchanged: false,
            desired: (_o, w2) => ({ updated: nowMs(w2) }),
          }),
        );
        return {
          expected: [{ kind: 'conflict-storm', actors: [user], object: obj(r as SimRef, 'status') }],
          acceptable: [{ kind: 'hot-loop', actors: [user], object: obj(r as SimRef, 'status') }],
        };
      }),
  },
  {
    name: 'console-get-update-loop',
    source: 'openshift/console-operator#843, #848',
    benign: false,
    description: 'console-operator GETs consoles/cluster every ~0.2–0.5 s and rewrites its status with lastTransitionTime = now (RequestResponse on consoles)',
    plan: (p) =>
      plan(p, ['consoles'], (w) => {
        const user = serviceAccount('openshift-console-operator', 'console-operator', 'console', 'v0.0.0', '10.128.0.41');
        const [r] = mk(w, 'operator.openshift.io', 'v1', 'consoles', '', ['cluster']);
        operator(
          w,
          spec({
            user,
            group: 'operator.openshift.io',
            version: 'v1',
            resource: 'consoles',
            objects: [r as SimRef],
            getLive: true,
            watchOwn: false,
            requeueAfterUs: s(p.num('requeueS', 0.15, 0.6)),
            desired: ltt,
          }),
        );
        // One write a second at most (status timestamps have 1 s precision), each proven timestamp-only: #848's fix is the no-op one.
        return {
          expected: [{ kind: 'no-op-writes', actors: [user], object: obj(r as SimRef, 'status') }],
          acceptable: [{ kind: 'hot-loop', actors: [user], object: obj(r as SimRef, 'status') }],
        };
      }),
  },
  {
    name: 'kas-operator-occasional-409',
    source: 'openshift/cluster-kube-apiserver-operator#1621',
    benign: false,
    description:
      'an operator whose status write sometimes races its own previous write: a few 409s per hour, retried once; a good tool reports nothing (50–100 per CI run was the bug, 5 after)',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const user = serviceAccount('openshift-kube-apiserver-operator', 'kube-apiserver-operator', 'cluster-kube-apiserver-operator', 'v0.0.0', '10.128.0.12');
        const [r] = mk(w, 'operator.openshift.io', 'v1', 'kubeapiservers', '', ['cluster']);
        void bg;
        operator(
          w,
          spec({
            user,
            group: 'operator.openshift.io',
            version: 'v1',
            resource: 'kubeapiservers',
            objects: [r as SimRef],
            watchOwn: false,
            writesPerReconcile: 2,
            skipUnchanged: false,
            requeueAfterUs: s(p.num('periodS', 20, 90)),
            desired: (_o, w2) => ({ observed: nowMs(w2) }),
          }),
        );
        return { expected: [] };
      }),
  },
  {
    name: 'credentials-error-flip-loop',
    source: 'openshift/cloud-credential-operator#54',
    benign: false,
    description: 'on every sync error the operator flips a condition (message and lastTransitionTime) in status, which re-triggers the sync',
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['credentialsrequests'] : [], (w, bg) => {
        const user = serviceAccount('openshift-cloud-credential-operator', 'cloud-credential-operator', 'cloud-credential-operator', 'v0.0.0', '10.128.0.33');
        const rs = mk(w, 'cloudcredential.openshift.io', 'v1', 'credentialsrequests', bg.namespaces[0] as string, many(p, 'creds', p.int('requests', 1, 3)));
        operator(
          w,
          spec({
            user,
            group: 'cloudcredential.openshift.io',
            version: 'v1',
            resource: 'credentialsrequests',
            objects: rs,
            watchDelayUs: p.num('watchDelayMs', 20, 200) * MS,
            desired: (_o: SimObject, w2: World) => ({
              conditions: [
                {
                  type: 'CredentialsProvisionFailure',
                  status: 'True',
                  message: JSON.stringify(_o.status).includes('Throttling') ? 'AWS error RequestLimitExceeded' : 'AWS error Throttling',
                  lastTransitionTime: nowIso(w2),
                },
              ],
            }),
          }),
        );
        return { expected: [{ kind: 'hot-loop', actors: [user], object: null }] };
      }),
  },
  {
    name: 'knative-multi-kind-conflicts',
    source: 'knative/serving#6164',
    benign: false,
    description: 'knative controller writes status of several CRDs from a cache that lags its own writes; two writes per reconcile, so 409s spread over kinds and objects',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const user = serviceAccount('knative-serving', 'controller', 'controller', 'v0.11.0', '10.244.5.8', '');
        const per = p.int('objectsPerKind', 10, 60);
        const period = p.num('resyncS', 5, 30);
        for (const res of ['podautoscalers', 'configurations', 'routes', 'ingresses']) {
          const group = res === 'podautoscalers' ? 'autoscaling.internal.knative.dev' : res === 'ingresses' ? 'networking.internal.knative.dev' : 'serving.knative.dev';
          const os = mk(w, group, 'v1alpha1', res, ns, many(p, res, per));
          operator(
            w,
            spec({
              user,
              group,
              version: 'v1alpha1',
              resource: res,
              objects: os,
              workers: 4,
              writesPerReconcile: 2,
              watchOwn: false,
              skipUnchanged: false,
              requeueAfterUs: s(period),
              spreadStartUs: s(period),
              desired: (_o, w2) => ({ observedAt: nowMs(w2) }),
            }),
          );
        }
        // One controller meeting 409s across many objects is fleet-storm's (minClients 1).
        return { expected: [{ kind: 'fleet-storm', actors: [user], object: null }], acceptable: [{ kind: 'conflict-storm', actors: [user], object: null }] };
      }),
  },
  {
    name: 'knative-always-update-deployment',
    source: 'knative/serving#13204',
    benign: false,
    description: 'revision reconciler updates every Deployment on every resync although nothing changed (RequestResponse on deployments)',
    plan: (p) =>
      plan(p, ['deployments'], (w, bg) => {
        const user = serviceAccount('knative-serving', 'controller', 'controller', 'v1.10.0', '10.244.5.8', '');
        const ds = mk(w, 'apps', 'v1', 'deployments', bg.namespaces[2] as string, many(p, 'rev', p.int('revisions', 20, 150)), { replicas: 1, template: 'x' });
        unchangedUpdater(w, user, 'apps', 'deployments', ds, p.num('resyncS', 10, 60));
        return { expected: [{ kind: 'no-op-writes', actors: [user], object: null }] };
      }),
  },
  {
    name: 'istio-two-revisions-fight',
    source: 'istio/istio#52105',
    benign: false,
    description: 'two istiod revisions each write the whole HTTPRoute status with only their own parent entry; each write triggers the other',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const a = serviceAccount('istio-system', 'istiod-canary', 'pilot-discovery', '1.27.0', '10.244.11.4', '');
        const b = serviceAccount('istio-system', 'istiod', 'pilot-discovery', '1.27.1', '10.244.12.7', '');
        const routes = mk(w, 'gateway.networking.k8s.io', 'v1', 'httproutes', ns, many(p, 'route', p.int('routes', 1, 3)));
        const delay = p.num('watchDelayMs', 20, 400) * MS;
        for (const [u, rev] of [
          [a, 'canary'],
          [b, 'stable'],
        ] as const) {
          operator(
            w,
            spec({
              user: u,
              group: 'gateway.networking.k8s.io',
              version: 'v1',
              resource: 'httproutes',
              objects: routes,
              watchDelayUs: delay,
              desired: () => ({ parents: [{ controllerName: `istio.io/gateway-controller-${rev}`, accepted: true }] }),
              startUs: s(rev === 'canary' ? 30 : 0),
            }),
          );
        }
        return {
          expected: routes.map((r) => ({ kind: 'write-fight' as const, actors: [a, b], object: obj(r, 'status') })),
          acceptable: [
            { kind: 'conflict-storm', actors: [a, b], object: null },
            { kind: 'hot-loop', actors: [a, b], object: null },
          ],
        };
      }),
  },
  {
    name: 'argo-writeback-stale-cache',
    source: 'argoproj/argo-rollouts#4073, #1904, #3080',
    benign: false,
    description:
      'after its own write the controller writes the response back into its informer after a delay, overwriting a newer version that a user wrote meanwhile; every requeue then 409s with the same resourceVersion',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const user = serviceAccount('argo-rollouts', 'argo-rollouts', 'argo-rollouts', 'v1.6.0', '10.244.14.2', '');
        const me = human(p.name('humans', 'human'), '192.0.2.10');
        const [r] = mk(w, 'argoproj.io', 'v1alpha1', 'rollouts', ns, many(p, 'rollout', 1), { image: 'v1' }, { phase: 'Healthy' });
        const rr = r as SimRef;
        const cap = p.num('backoffCapMs', 500, 3000);
        operator(
          w,
          spec({
            user,
            group: 'argoproj.io',
            version: 'v1alpha1',
            resource: 'rollouts',
            objects: [rr],
            watchDelayUs: 30 * MS,
            watchOwn: false,
            requeueAfterUs: s(p.num('requeueS', 0.5, 2)),
            backoffCapMs: cap,
            writeBackDelayUs: 200 * MS,
            desired: (_o, w2) => ({ heartbeat: nowIso(w2) }),
          }),
        );
        // The user changes the spec 50–150 ms after the controller's write: the controller's delayed write-back then hides it.
        w.store.onChange((e) => {
          if (e.object.ref.name === rr.name && e.object.ref.resource === 'rollouts' && e.object.spec.image === 'v1' && w.now > s(20) && !done) {
            done = true;
            w.at(w.now + w.rng.uniform(50, 150) * MS, () => w.call(me, { verb: 'update', ref: rr, rv: String((w.store.get(rr) as SimObject).rv), body: { image: 'v2' } }));
          }
        });
        let done = false;
        return { expected: [{ kind: 'conflict-storm', actors: [user], object: obj(rr, 'status') }] };
      }),
  },
];
