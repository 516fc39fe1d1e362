/**
 * Simulated scenarios: one per incident of shared/reference/real-incidents.md (B.1 1–30 and the
 * B.2 lines with a mechanism of their own) and the benign look-alikes. Each is written from the
 * mechanism the incident describes, as actors with behaviours (src/sim/actors.ts) against the
 * store; the conflicts, gaps and stale resends come out of that, not from a template. Each says
 * what a good tool should report (`expected`), what it may report without being wrong
 * (`acceptable`), what it would report if the log's level kept the evidence (`outOfReach`), and,
 * for patterns no finding kind covers, why (`uncovered`).
 */
import type { FindingKind } from '../generator/plan.js';
import { operator, type OperatorSpec } from './actors.js';
import { ref } from './background.js';
import type { Sampler } from './names.js';
import type { SimObject, SimRef } from './store.js';
import { kcm, serviceAccount } from './users.js';
import { MS, SECOND, type SimUser, type World } from './world.js';

/** An expected (or acceptable) finding: kind, the actors one of which it must name, object or null. */
export interface SimExpected {
  kind: FindingKind;
  actors: SimUser[];
  /** The object (with subresource) or null for actor-level and fleet-wide findings. */
  object: { ref: SimRef; subresource: string } | null;
}

/**
 * A finding a good tool would make if the log held its evidence, and this log does not: the level
 * it was written at leaves out what tells the pattern from a benign one (a status rewritten every
 * few seconds with only a new time in it, at Metadata level, has the shape of an operator
 * recording real progress on a timer). Scored apart: neither found nor missed; a finding matching
 * it is counted as found anyway, never as a false positive.
 */
export interface OutOfReach extends SimExpected {
  /** Why the log cannot show it, in a sentence. */
  why: string;
}

/** What a scenario planted. */
export interface Planted {
  expected: SimExpected[];
  /** Findings a good tool may also report here (neither found nor false positives). */
  acceptable?: SimExpected[];
  /** Expected findings this log cannot support (see {@link OutOfReach}). */
  outOfReach?: OutOfReach[];
}

/**
 * What a scenario plants whose expected finding rests on what the writes contain: `expected` when
 * `inReach` (the log holds the evidence, e.g. bodies are logged), else out of the log's reach for
 * `why` (see {@link OutOfReach}); `acceptable` either way.
 */
export function expectIfInReach(inReach: boolean, expected: SimExpected, acceptable: SimExpected[], why: string): Planted {
  return inReach ? { expected: [expected], acceptable } : { expected: [], acceptable, outOfReach: [{ ...expected, why }] };
}

/** A scenario's plan, drawn from a sampler: audit policy and how to run it. */
export interface ScenarioPlan {
  /** Resources logged at RequestResponse level (`resource` or `resource/subresource`). */
  requestResponse: string[];
  legacyApplyTimestamps?: boolean;
  /** Kubelets in the background. */
  nodes: number;
  /** Simulated minutes of the log. Default {@link SIM_MINUTES} (src/sim/evaluate.ts). */
  minutes?: number;
  run(w: World, bg: { namespaces: string[]; nodes: Array<{ name: string; user: SimUser }> }): Planted;
}

/** A simulated scenario. */
export interface SimScenario {
  name: string;
  /** The incident(s) it comes from, as named in real-incidents.md, or `benign`. */
  source: string;
  description: string;
  benign: boolean;
  /** For patterns no finding kind names: what a good tool should say. */
  uncovered?: string;
  plan(p: Sampler): ScenarioPlan;
}

const BASE_NODES = [8, 30] as const;

function s(x: number): number {
  return x * SECOND;
}

/** Create objects on the store before the log starts (not logged). */
function objects(
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

function names(p: Sampler, label: string, n: number): string[] {
  const stem = p.name('apps', label);
  return Array.from({ length: n }, (_, i) => (n === 1 ? stem : `${stem}-${i}`));
}

function opSpec(base: Partial<OperatorSpec> & Pick<OperatorSpec, 'user' | 'group' | 'version' | 'resource' | 'objects' | 'desired'>): OperatorSpec {
  return { workers: 2, watchDelayUs: 20 * MS, watchOwn: true, target: 'status', verb: 'update', sendRv: true, skipUnchanged: true, onConflict: 'rateLimited', ...base };
}

const obj = (r: SimRef, subresource = ''): SimExpected['object'] => ({ ref: r, subresource });
const nowMs = (w: World) => new Date(w.opts.startMs + w.now / 1000).toISOString();

function operatorUser(p: Sampler, ns: string, label = 'operator'): SimUser {
  const op = p.name('operators', label);
  return serviceAccount(ns, op, 'manager', 'v0.0.0', `10.244.${p.rng.int(1, 60)}.${p.rng.int(2, 250)}`);
}

/** Pods that change: a kubelet patches one of `pods` every `gapUs` (± half). */
function podChurn(w: World, pods: SimRef[], node: SimUser, gapUs: number, startUs: number): void {
  let i = 0;
  w.every(startUs, gapUs, 0.5, () => {
    const pod = pods[i++ % pods.length] as SimRef;
    w.call(node, { verb: 'patch', ref: pod, subresource: 'status', body: { ready: w.rng.next() < 0.5, probe: i } });
  });
}

/** The incident scenarios. */
export const INCIDENT_SCENARIOS: SimScenario[] = [
  {
    name: 'job-self-conflict',
    source: 'kubernetes/kubernetes#16134',
    benign: false,
    description: 'job controller writes jobs/status from an informer cache that has not seen its own last write; on 409 it requeues at once',
    plan: (p) => {
      const jobs = p.int('jobs', 1, 2);
      const podGapMs = p.num('podChangeGapMs', 20, 200);
      const delayMs = p.num('watchDelayMs', 30, 250);
      return {
        requestResponse: [],
        nodes: p.int('nodes', ...BASE_NODES),
        run: (w, bg) => {
          const ns = bg.namespaces[0] as string;
          const user = kcm('job-controller');
          const js = objects(w, 'batch', 'v1', 'jobs', ns, names(p, 'job', jobs), { parallelism: 50 }, { active: 0 });
          const pods = js.flatMap((j) =>
            objects(
              w,
              '',
              'v1',
              'pods',
              ns,
              Array.from({ length: 20 }, (_, i) => `${j.name}-${w.rng.suffix(5)}${i}`),
              {},
              { ready: false },
            ),
          );
          const podInf = w.informer('', 'pods', delayMs * MS);
          const ctl = operator(
            w,
            opSpec({
              user,
              group: 'batch',
              version: 'v1',
              resource: 'jobs',
              objects: js,
              watchDelayUs: delayMs * MS,
              workers: 5,
              onConflict: 'requeueNow',
              desired: (o) => ({ active: [...podInf.cache.values()].filter((x) => x.ref.name.startsWith(`${o.ref.name}-`) && x.status.ready === true).length }),
            }),
          );
          podInf.on((e) => {
            const j = js.find((x) => e.object.ref.name.startsWith(`${x.name}-`));
            if (j) ctl.queue.add(`batch/jobs/${ns}/${j.name}`);
          });
          podChurn(w, pods, (bg.nodes[0] as { user: SimUser }).user, podGapMs * MS, s(20));
          return { expected: [{ kind: 'conflict-storm', actors: [user], object: null }] };
        },
      };
    },
  },
  {
    name: 'node-patch-conflicts-fleet',
    source: 'kubernetes/kubernetes#46851',
    benign: false,
    description: 'every kubelet patches nodes/status with the resourceVersion of a lagging cache while node-problem-detector patches conditions; 5 tries per sync, all stale',
    plan: (p) => {
      const n = p.int('nodes', 100, 400);
      const npdPeriod = p.num('npdPeriodS', 2, 8);
      return {
        requestResponse: [],
        nodes: n,
        run: (w, bg) => {
          const npd = serviceAccount('kube-system', 'node-problem-detector', 'node-problem-detector', 'v0.8.19', '10.20.0.30');
          const kubeletCache = w.informer('', 'nodes', s(3));
          const users: SimUser[] = [];
          for (const node of bg.nodes) {
            const r = ref('', 'v1', 'nodes', '', node.name);
            users.push(node.user);
            w.every(s(w.rng.uniform(10, 30)), s(npdPeriod), 0.2, () =>
              w.call({ ...npd, sourceIP: node.user.sourceIP }, { verb: 'patch', ref: r, subresource: 'status', body: { npd: nowMs(w) } }),
            );
            w.every(s(w.rng.uniform(20, 30)), s(10), 0.05, () => {
              let tries = 0;
              const go = () => {
                const cached = kubeletCache.get(r);
                w.call(node.user, { verb: 'patch', ref: r, subresource: 'status', rv: cached ? String(cached.rv) : '', body: { heartbeat: nowMs(w) } }, (res) => {
                  if (res.code === 409 && ++tries < 5) go();
                });
              };
              go();
            });
          }
          return { expected: [{ kind: 'fleet-storm', actors: users, object: null }], acceptable: [{ kind: 'conflict-storm', actors: users, object: null }] };
        },
      };
    },
  },
  {
    name: 'node-stale-watch-cache',
    source: 'kubernetes/kubernetes#58002',
    benign: false,
    description: 'one kubelet whose watch cache is stuck: every 10 s node-status sync patches with a stale resourceVersion, 5 tries, all 409, indefinitely',
    plan: (p) => {
      const retries = p.int('tries', 3, 5);
      return {
        requestResponse: [],
        nodes: p.int('nodes', ...BASE_NODES),
        run: (w, bg) => {
          const node = bg.nodes[1] as { name: string; user: SimUser };
          const r = ref('', 'v1', 'nodes', '', node.name);
          const stuck = w.store.get(r) as SimObject;
          w.every(s(15), s(10), 0.02, () => {
            let tries = 0;
            const go = () =>
              w.call(node.user, { verb: 'patch', ref: r, subresource: 'status', rv: String(stuck.rv), body: { heartbeat: nowMs(w) } }, (res) => {
                if (res.code === 409 && ++tries < retries) go();
              });
            go();
          });
          return { expected: [{ kind: 'conflict-storm', actors: [node.user], object: obj(r, 'status') }] };
        },
      };
    },
  },
  {
    name: 'node-status-apf-429',
    source: 'kubernetes/kubernetes#47899, #60589',
    benign: false,
    description: 'kubelets and node-problem-detector write pod and node status faster than the system-nodes APF share: 429s across the fleet',
    plan: (p) => {
      const n = p.int('nodes', 100, 400);
      const perNode = p.num('writesPerNodePerS', 0.4, 1.5);
      const share = p.num('apfShareOfDemand', 0.3, 0.8);
      return {
        requestResponse: [],
        nodes: n,
        run: (w, bg) => {
          w.setApf('system-nodes', { ratePerSec: n * perNode * share, burst: 50 });
          const users: SimUser[] = [];
          for (const node of bg.nodes) {
            users.push(node.user);
            const pods = objects(w, '', 'v1', 'pods', bg.namespaces[0] as string, [`${p.pool.apps[0]}-${node.name}`], {}, {});
            w.every(s(w.rng.uniform(20, 22)), s(1 / perNode), 0.5, () =>
              w.call(node.user, { verb: 'update', ref: pods[0] as SimRef, subresource: 'status', body: { t: nowMs(w) } }),
            );
          }
          return { expected: [{ kind: 'throttling', actors: users, object: null }], acceptable: [{ kind: 'fleet-storm', actors: users, object: null }] };
        },
      };
    },
  },
  {
    name: 'hpa-self-trigger-loop',
    source: 'kubernetes/kubernetes#42715',
    benign: false,
    description: 'HPA controller posts status, sees its own update, fetches new (changed) metrics and posts again',
    plan: (p) => {
      const delay = p.num('watchDelayMs', 20, 200);
      return {
        requestResponse: [],
        nodes: p.int('nodes', ...BASE_NODES),
        run: (w, bg) => {
          const user = kcm('horizontal-pod-autoscaler');
          const [h] = objects(w, 'autoscaling', 'v2', 'horizontalpodautoscalers', bg.namespaces[1] as string, names(p, 'hpa', 1), { maxReplicas: 10 }, { currentCPU: 50 });
          operator(
            w,
            opSpec({
              user,
              group: 'autoscaling',
              version: 'v2',
              resource: 'horizontalpodautoscalers',
              objects: [h as SimRef],
              watchDelayUs: delay * MS,
              desired: (o) => ({ currentCPU: ((o.status.currentCPU as number) + w.rng.int(1, 9)) % 100 }),
              startUs: s(20),
            }),
          );
          return { expected: [{ kind: 'hot-loop', actors: [user], object: obj(h as SimRef, 'status') }] };
        },
      };
    },
  },
  {
    name: 'hpa-unchanged-every-sync',
    source: 'kubernetes/kubernetes#47077',
    benign: false,
    description: 'HPA controller writes every HPA status every 15 s sync even when nothing changed (RequestResponse on horizontalpodautoscalers)',
    plan: (p) => {
      const hpas = p.int('hpas', 30, 200);
      return {
        requestResponse: ['horizontalpodautoscalers'],
        nodes: p.int('nodes', ...BASE_NODES),
        run: (w, bg) => {
          const user = kcm('horizontal-pod-autoscaler');
          const hs = objects(w, 'autoscaling', 'v2', 'horizontalpodautoscalers', bg.namespaces[0] as string, names(p, 'hpa', hpas), { maxReplicas: 10 }, { currentCPU: 50 });
          operator(
            w,
            opSpec({
              user,
              group: 'autoscaling',
              version: 'v2',
              resource: 'horizontalpodautoscalers',
              objects: hs,
              watchOwn: false,
              skipUnchanged: false,
              requeueAfterUs: s(15),
              desired: () => ({}),
              startUs: s(5),
            }),
          );
          return { expected: [{ kind: 'no-op-writes', actors: [user], object: null }] };
        },
      };
    },
  },
  {
    name: 'endpointslice-resync-burst',
    source: 'kubernetes/kubernetes#108231',
    benign: false,
    description: 'endpointslice controller rewrites every (empty) EndpointSlice unchanged at each resync (RequestResponse on endpointslices)',
    plan: (p) => {
      const n = p.int('slices', 300, 1500);
      const period = p.num('resyncS', 40, 100);
      return {
        requestResponse: ['endpointslices'],
        nodes: p.int('nodes', ...BASE_NODES),
        run: (w, bg) => {
          const user = kcm('endpointslice-controller');
          const sl = bg.namespaces.flatMap((ns, i) =>
            objects(
              w,
              'discovery.k8s.io',
              'v1',
              'endpointslices',
              ns,
              Array.from({ length: Math.ceil(n / bg.namespaces.length) }, (_, k) => `${p.pool.apps[k % p.pool.apps.length]}-${i}${k}-${w.rng.suffix(5)}`),
              { endpoints: [] },
            ),
          );
          operator(
            w,
            opSpec({
              user,
              group: 'discovery.k8s.io',
              version: 'v1',
              resource: 'endpointslices',
              objects: sl,
              target: '',
              watchOwn: false,
              skipUnchanged: false,
              workers: 5,
              requeueAfterUs: s(period),
              desired: () => ({}),
              startUs: s(20),
            }),
          );
          return { expected: [{ kind: 'no-op-writes', actors: [user], object: null }] };
        },
      };
    },
  },
  {
    name: 'ssa-apply-every-second',
    source: 'kubernetes/kubernetes#121404, #124605',
    benign: false,
    description:
      'an operator server-side-applies an identical object on every reconcile; the server (before the fix) rewrites managedFields time once per new second, so each apply self-triggers',
    plan: (p) => {
      const rr = p.chance('requestResponse', 0.7);
      return {
        requestResponse: rr ? ['configmaps'] : [],
        legacyApplyTimestamps: true,
        nodes: p.int('nodes', ...BASE_NODES),
        run: (w, bg) => {
          const ns = bg.namespaces[2] as string;
          const user = operatorUser(p, ns);
          const cms = objects(w, '', 'v1', 'configmaps', ns, names(p, 'cm', 2), { data: 'x' });
          const periodS = p.num('requeueAfterS', 0.5, 4);
          operator(
            w,
            opSpec({
              user,
              group: '',
              version: 'v1',
              resource: 'configmaps',
              objects: cms,
              target: '',
              verb: 'apply',
              skipUnchanged: false,
              requeueAfterUs: s(periodS),
              desired: () => ({ data: 'x' }),
              fieldManager: user.username.split(':').pop(),
            }),
          );
          const loop = { kind: 'hot-loop' as const, actors: [user], object: null };
          if (rr) return { expected: [{ kind: 'no-op-writes', actors: [user], object: null }], acceptable: [loop] };
          // Once a second or slower, a Metadata-level log shows what a controller applying a real change on a timer shows.
          return expectIfInReach(
            periodS < 1,
            loop,
            [],
            'Metadata level: each ConfigMap is applied every second or more slowly, each apply moving its resourceVersion, which is also what a controller applying a real change on a timer writes; only the bodies show that nothing but the managedFields time changes',
          );
        },
      };
    },
  },
  {
    name: 'cronjob-blind-status-update',
    source: 'kubernetes/kubernetes#100473',
    benign: false,
    description: 'cronjob controller updates every CronJob status on each 10 s check without comparing (RequestResponse on cronjobs)',
    plan: (p) => {
      const n = p.int('cronjobs', 20, 120);
      return {
        requestResponse: ['cronjobs'],
        nodes: p.int('nodes', ...BASE_NODES),
        run: (w, bg) => {
          const user = kcm('cronjob-controller');
          const cj = objects(
            w,
            'batch',
            'v1',
            'cronjobs',
            bg.namespaces[0] as string,
            names(p, 'cron', n),
            { schedule: '0 * * * *' },
            { lastScheduleTime: '2026-07-01T07:00:00Z' },
          );
          operator(
            w,
            opSpec({ user, group: 'batch', version: 'v1', resource: 'cronjobs', objects: cj, watchOwn: false, skipUnchanged: false, requeueAfterUs: s(10), desired: () => ({}) }),
          );
          return { expected: [{ kind: 'no-op-writes', actors: [user], object: null }] };
        },
      };
    },
  },
  {
    name: 'rc-retry-get-put',
    source: 'kubernetes/kubernetes#79277',
    benign: false,
    description: 'replication controller writes status from a lagging cache under pod churn; on 409 RetryOnConflict GETs and PUTs again (409 → GET → PUT triplets)',
    plan: (p) => {
      const rcs = p.int('rcs', 10, 40);
      const podGapMs = p.num('podChangeGapMs', 10, 60);
      return {
        requestResponse: [],
        nodes: p.int('nodes', ...BASE_NODES),
        run: (w, bg) => {
          const ns = bg.namespaces[1] as string;
          const user = kcm('replication-controller');
          const rc = objects(w, '', 'v1', 'replicationcontrollers', ns, names(p, 'rc', rcs), { replicas: 3 }, { ready: 0 });
          const pods = rc.flatMap((r) =>
            objects(
              w,
              '',
              'v1',
              'pods',
              ns,
              [0, 1, 2].map((i) => `${r.name}-${w.rng.suffix(5)}${i}`),
              {},
              {},
            ),
          );
          const podInf = w.informer('', 'pods', 80 * MS);
          const ctl = operator(
            w,
            opSpec({
              user,
              resource: 'replicationcontrollers',
              group: '',
              version: 'v1',
              objects: rc,
              watchDelayUs: 80 * MS,
              workers: 5,
              onConflict: 'retryOnConflict',
              desired: (o) => ({ ready: [...podInf.cache.values()].filter((x) => x.ref.name.startsWith(`${o.ref.name}-`) && x.status.ready === true).length }),
            }),
          );
          podInf.on((e) => {
            const r = rc.find((x) => e.object.ref.name.startsWith(`${x.name}-`));
            if (r) ctl.queue.add(`/replicationcontrollers/${ns}/${r.name}`);
          });
          podChurn(w, pods, (bg.nodes[0] as { user: SimUser }).user, podGapMs * MS, s(20));
          // One controller meeting 409s across many objects is fleet-storm's (minClients 1). A retry whose
          // fresh GET already holds the status it computes stores nothing: a proven no-op, true if reported.
          return {
            expected: [{ kind: 'fleet-storm', actors: [user], object: null }],
            acceptable: [
              { kind: 'conflict-storm', actors: [user], object: null },
              { kind: 'no-op-writes', actors: [user], object: null },
            ],
          };
        },
      };
    },
  },
  {
    name: 'flux-status-patch-409',
    source: 'fluxcd/flux2#3689',
    benign: false,
    description:
      'kustomize-controller (96 workers) patches Kustomization status twice per reconcile with an optimistic lock from the same cached copy; the second patch 409s, rate-limited requeue',
    plan: (p) => {
      const n = p.int('kustomizations', 200, 800);
      const interval = p.num('intervalS', 20, 90);
      return {
        requestResponse: [],
        nodes: p.int('nodes', ...BASE_NODES),
        run: (w) => {
          const user = serviceAccount('flux-system', 'kustomize-controller', 'kustomize-controller', 'v0.32.0', '10.244.7.21', '');
          const ks = objects(w, 'kustomize.toolkit.fluxcd.io', 'v1beta2', 'kustomizations', 'flux-system', names(p, 'ks', n), { interval: '1m' }, {});
          operator(
            w,
            opSpec({
              user,
              group: 'kustomize.toolkit.fluxcd.io',
              version: 'v1beta2',
              resource: 'kustomizations',
              objects: ks,
              verb: 'patch',
              sendRv: true,
              workers: 96,
              writesPerReconcile: 2,
              watchOwn: false,
              requeueAfterUs: s(interval),
              spreadStartUs: s(interval),
              desired: (_o, w) => ({ lastHandledReconcileAt: nowMs(w) }),
            }),
          );
          // One controller meeting 409s across many objects is fleet-storm's (minClients 1). A retry whose
          // fresh GET already holds the status it computes stores nothing: a proven no-op, true if reported.
          return {
            expected: [{ kind: 'fleet-storm', actors: [user], object: null }],
            acceptable: [
              { kind: 'conflict-storm', actors: [user], object: null },
              { kind: 'no-op-writes', actors: [user], object: null },
            ],
          };
        },
      };
    },
  },
];
