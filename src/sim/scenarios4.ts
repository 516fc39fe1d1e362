/**
 * Incident scenarios, fourth part: B.2 lines of real-incidents.md whose mechanism earlier parts
 * only resembled (cluster-api#3395, machine-controller-manager#293, gatekeeper#502,
 * actions-runner-controller#1643, strimzi#9176, emqx-operator#998, VictoriaMetrics#1418 with
 * grafana-operator#808). Each is written from what the thread says the writers did (who writes
 * what, how often, from which cache and resourceVersion); the store answers 200, 409 or a no-op
 * from that. See scenarios.ts for the `expected` / `acceptable` contract.
 */
import { nowIso, operator, WorkQueue, type ReconcileResult } from './actors.js';
import { ref } from './background.js';
import { canonical, type SimObject, type SimRef } from './store.js';
import { expectIfInReach, type SimScenario } from './scenarios.js';
import { many, mk, obj, plan, sa, spec, unchangedUpdater } from './scenarios2.js';
import { human, serviceAccount } from './users.js';
import { MS, SECOND } from './world.js';

const s = (x: number) => x * SECOND;
const keyOf = (r: SimRef) => `${r.group}/${r.resource}/${r.namespace}/${r.name}`;

/** A condition as the cluster-api `conditions` package compares them (`hasSameState`: all but the time). */
interface CapiCondition {
  type: string;
  status: string;
  severity: string;
  reason: string;
  message: string;
  lastTransitionTime?: string;
}
const sameState = (a: CapiCondition | undefined, b: CapiCondition): boolean =>
  a !== undefined && a.type === b.type && a.status === b.status && a.severity === b.severity && a.reason === b.reason && a.message === b.message;
const readyOf = (o: SimObject): CapiCondition | undefined => (o.status.conditions as CapiCondition[] | undefined)?.find((c) => c.type === 'Ready');

/** Kubelet-owned pod conditions kept by a strategic merge patch of another condition type. */
const POD_CONDITIONS = [
  { type: 'Initialized', status: 'True', lastTransitionTime: '2026-07-01T06:12:40Z' },
  { type: 'Ready', status: 'True', lastTransitionTime: '2026-07-01T06:13:02Z' },
  { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-07-01T06:13:02Z' },
  { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-07-01T06:12:38Z' },
];

/** The fourth batch of incident scenarios. */
export const INCIDENT_SCENARIOS_4: SimScenario[] = [
  {
    name: 'capi-kcp-rollout-condition-conflicts',
    source: 'kubernetes-sigs/cluster-api#3395',
    benign: true,
    description:
      'a KubeadmControlPlane rollout (spec.version changed): the KCP controller reconciles on every Machine and KCP event from its informer cache and saves through cluster-api\'s patch helper: a merge patch of the status fields, then the conditions from a cached GET with an optimistic-lock patch (409 → retry after 100–200 ms, 5 tries), and the client-side error "condition Ready was modified by a different process" (no request; the error requeues with backoff) when the cache had the previous reconcile\'s Ready (new message, lastTransitionTime a few seconds later) and the reconcile started before it did. The thread reports "several" such errors over a rollout of a few machines: a few 409s and requeues a minute at most, each resolved at the next try, under conflict-storm\'s 20 a minute at 30 % and hot-loop\'s 1 change a second; nothing to report',
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['kubeadmcontrolplanes'] : [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const kcpUser = serviceAccount('capi-kubeadm-control-plane-system', 'capi-kubeadm-control-plane-manager', 'manager', 'v0.3.9', '10.244.33.4', '');
        const capiUser = serviceAccount('capi-system', 'capi-manager', 'manager', 'v0.3.9', '10.244.33.7', '');
        const admin = human(p.name('humans', 'admin'), '192.0.2.61');
        // Control planes have an odd number of replicas: 1, 3 or 5.
        const drawn = p.int('replicasDraw', 1, 5);
        const replicas = drawn % 2 === 0 ? drawn + 1 : drawn;
        const name = `${p.name('apps', 'cluster')}-control-plane`;
        const group = 'controlplane.cluster.x-k8s.io';
        const mgroup = 'cluster.x-k8s.io';
        const long = new Date(w.opts.startMs - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
        const [kcp] = mk(
          w,
          group,
          'v1alpha3',
          'kubeadmcontrolplanes',
          ns,
          [name],
          { replicas, version: 'v1.18.6' },
          {
            replicas,
            updatedReplicas: replicas,
            readyReplicas: replicas,
            conditions: [{ type: 'Ready', status: 'True', severity: '', reason: '', message: '', lastTransitionTime: long }],
          },
        );
        const kcpRef = kcp as SimRef;
        mk(
          w,
          mgroup,
          'v1alpha3',
          'machines',
          ns,
          Array.from({ length: replicas }, () => `${name}-${w.rng.suffix(5)}`),
          { version: 'v1.18.6', owner: name },
          { phase: 'Running', nodeRef: 'set' },
        );
        const delay = p.num('watchDelayMs', 20, 200) * MS;
        const provisionS = p.num('provisionS', 30, 150);
        const joinS = p.num('joinS', 10, 60);
        const kcpInf = w.informer(group, 'kubeadmcontrolplanes', delay);
        const machInf = w.informer(mgroup, 'machines', delay);
        const mine = (o: SimObject) => o.spec.owner === name;
        const key = keyOf(kcpRef);
        let pending: { name: string; created: boolean } | null = null;

        // The KCP reconcile: compute status and the Ready condition from the caches, act (scale up one
        // machine, or remove one outdated once all are running), then the patch helper's writes.
        const reconcile = (_k: string, done: (r: ReconcileResult) => void) => {
          const before = kcpInf.get(kcpRef);
          if (!before) return done({ kind: 'ok' });
          const ms = [...machInf.cache.values()].filter(mine);
          const want = before.spec.version as string;
          const upToDate = ms.filter((m) => m.spec.version === want);
          const outdated = ms.filter((m) => m.spec.version !== want);
          const running = ms.filter((m) => m.status.phase === 'Running');
          const rolling = outdated.length > 0;
          const cond: CapiCondition = rolling
            ? {
                type: 'Ready',
                status: 'False',
                severity: 'Warning',
                reason: 'RollingUpdateInProgress',
                message: `Rolling ${ms.length} replicas with outdated spec (${upToDate.length} replicas up to date)`,
              }
            : { type: 'Ready', status: 'True', severity: '', reason: '', message: '' };
          const old = readyOf(before);
          // conditions.Set: lastTransitionTime moves whenever the state (message included) changes.
          const after: CapiCondition = old && sameState(old, cond) ? old : { ...cond, lastTransitionTime: nowIso(w) };
          // Act only once the cache shows the previous create or delete (a controller that did not would scale twice).
          const wait = pending;
          if (wait !== null && ms.some((m) => m.ref.name === wait.name) === wait.created) pending = null;
          if (rolling && pending === null && running.length === ms.length) {
            if (ms.length > replicas) {
              const victim = outdated[0] as SimObject;
              pending = { name: victim.ref.name, created: false };
              w.call(kcpUser, { verb: 'delete', ref: victim.ref });
            } else {
              const m = ref(mgroup, 'v1alpha3', 'machines', ns, `${name}-${w.rng.suffix(5)}`);
              pending = { name: m.name, created: true };
              w.call(kcpUser, { verb: 'create', ref: m, body: { version: want, owner: name } });
            }
          }
          const result: ReconcileResult = rolling ? { kind: 'ok', requeueAfterUs: s(20) } : { kind: 'ok' };
          const fields = { replicas: ms.length, updatedReplicas: upToDate.length, readyReplicas: running.length };
          const statusChanged =
            fields.replicas !== before.status.replicas || fields.updatedReplicas !== before.status.updatedReplicas || fields.readyReplicas !== before.status.readyReplicas;
          const conditions = () => {
            if (old && canonical(old) === canonical(after)) return done(result);
            let tries = 0;
            const attempt = () => {
              const latest = kcpInf.get(kcpRef) as SimObject;
              const lc = readyOf(latest);
              if (canonical(lc) !== canonical(old)) {
                // Someone (the previous reconcile) changed Ready since `before`: fine if it already says what we want.
                if (lc && sameState(lc, after)) return done(result);
                return done({ kind: 'error' });
              }
              w.call(kcpUser, { verb: 'patch', ref: kcpRef, subresource: 'status', rv: String(latest.rv), body: { conditions: [after] } }, (r) => {
                if (r.code === 409 && ++tries < 5) return w.at(w.now + w.rng.uniform(100, 200) * MS, attempt);
                done(r.code < 300 ? result : { kind: 'error' });
              });
            };
            attempt();
          };
          if (statusChanged) w.call(kcpUser, { verb: 'patch', ref: kcpRef, subresource: 'status', body: fields }, conditions);
          else conditions();
        };
        const q = new WorkQueue(w, 1, 5, 1_000_000, reconcile);
        kcpInf.on((e) => {
          if (e.object.ref.name === name) q.add(key);
        });
        // The machine controller provisions each new Machine; each phase is a status patch, a Machine event for KCP.
        machInf.on((e) => {
          if (!mine(e.object)) return;
          q.add(key);
          if (e.type !== 'ADDED' || e.object.status.phase !== undefined) return;
          const m = e.object.ref;
          const phase = (at: number, body: Record<string, unknown>) =>
            w.at(at, () => {
              if (w.store.get(m)) w.call(capiUser, { verb: 'patch', ref: m, subresource: 'status', body });
            });
          const t0 = w.now + w.rng.uniform(1, 3) * SECOND;
          const t1 = t0 + provisionS * w.rng.uniform(0.8, 1.2) * SECOND;
          phase(t0, { phase: 'Provisioning', bootstrapReady: true });
          phase(t1, { phase: 'Provisioned', infrastructureReady: true });
          phase(t1 + joinS * w.rng.uniform(0.8, 1.2) * SECOND, { phase: 'Running', nodeRef: 'set' });
        });
        w.at(s(p.num('rolloutStartS', 20, 90)), () => w.call(admin, { verb: 'patch', ref: kcpRef, body: { version: 'v1.18.8' } }));
        return {
          expected: [],
          acceptable: [{ kind: 'conflict-storm', actors: [kcpUser], object: null }],
        };
      }),
  },
  {
    name: 'mcm-machine-node-conditions',
    source: 'gardener/machine-controller-manager#293',
    benign: false,
    description:
      "machine-controller-manager copies each Node's conditions into its Machine's status: every kubelet status heartbeat (a new lastHeartbeatTime) is a Node event, and the machine controller updates machines/status with the copied conditions from its cache; one write per machine per heartbeat, for every machine of the fleet, changing nothing but heartbeat times",
    plan: (p) => {
      const rr = p.chance('requestResponse', 0.5);
      return plan(
        p,
        rr ? ['machines'] : [],
        (w, bg) => {
          const ns = `shoot--${p.name('apps', 'project')}--prod`;
          const user = serviceAccount(ns, 'machine-controller-manager', 'machine-controller-manager', 'v0.33.0', `10.244.${p.rng.int(1, 60)}.${p.rng.int(2, 250)}`, '');
          const nodeInf = w.informer('', 'nodes', p.num('watchDelayMs', 20, 200) * MS);
          const byNode = new Map<string, SimRef>();
          const machines = bg.nodes.map((n, i) => {
            const node = w.store.get(ref('', 'v1', 'nodes', '', n.name)) as SimObject;
            const [m] = mk(
              w,
              'machine.sapcloud.io',
              'v1alpha1',
              'machines',
              ns,
              [`${ns.slice(7)}-worker-z1-${w.rng.suffix(5)}-${i}`],
              { class: 'm5.large', nodeName: n.name },
              { conditions: node.status.conditions, currentStatus: { phase: 'Running' } },
            );
            byNode.set(n.name, m as SimRef);
            return m as SimRef;
          });
          const ctl = operator(
            w,
            spec({
              user,
              group: 'machine.sapcloud.io',
              version: 'v1alpha1',
              resource: 'machines',
              objects: machines,
              workers: 5,
              watchOwn: false,
              desired: (o) => ({ conditions: nodeInf.get(ref('', 'v1', 'nodes', '', o.spec.nodeName as string))?.status.conditions ?? [] }),
            }),
          );
          nodeInf.on((e) => {
            const m = byNode.get(e.object.ref.name);
            if (m && e.type === 'MODIFIED') ctl.queue.add(keyOf(m));
          });
          const noOps = { kind: 'no-op-writes' as const, actors: [user], object: null };
          const acceptable = [{ kind: 'hot-loop' as const, actors: [user], object: null }];
          return expectIfInReach(
            rr,
            noOps,
            acceptable,
            "Metadata level: each Machine's status is updated once per heartbeat of its Node, each update sending a new resourceVersion, so the log shows every write storing a change, as a controller mirroring real Node conditions would; only the bodies show that nothing but heartbeat times changes",
          );
        },
        { nodes: p.int('fleetNodes', 50, 300) },
      );
    },
  },
  {
    name: 'gatekeeper-reimport-victim-409',
    source: 'open-policy-agent/gatekeeper#502',
    benign: true,
    uncovered:
      "the deploy tool's 409s come from another writer: gatekeeper rewrites every ConstraintTemplate every few seconds (a new generation each time). A good tool would name gatekeeper as the source of the resourceVersion churn on the objects whose updates 409; no finding kind covers spec rewrites below one a second per object that each change the object",
    description:
      "gatekeeper re-imports its ConstraintTemplates in an endless loop (one import of 150–600 ms after another), and each import updates the template from its cache with a re-rendered spec (a new generation): every template is rewritten every few seconds. A deploy tool updating one template (GET, render, PUT with the resourceVersion it read, up to 3 retries with a fresh GET) meets 409 whenever an import landed in between. The victim is not the culprit: its 409s are a few per deploy, under conflict-storm; the culprit writes each template under once a second with a real change each time, under hot-loop's change budget. Nothing a detector is documented to report; a finding naming gatekeeper is acceptable, one blaming the deploy tool is not",
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['constrainttemplates'] : [], (w) => {
        const user = serviceAccount('gatekeeper-system', 'gatekeeper-admin', 'gatekeeper', 'v3.1.0-beta.7', '10.244.41.6', '');
        const deployer = human(p.name('humans', 'deployer'), '192.0.2.90');
        const group = 'templates.gatekeeper.sh';
        const kinds = [
          'k8spspprivilegedcontainer',
          'k8srequiredlabels',
          'k8sallowedrepos',
          'k8scontainerlimits',
          'k8sblocknodeport',
          'k8spsphostnamespace',
          'k8spspcapabilities',
          'k8spspvolumetypes',
        ];
        const n = p.int('templates', 4, 20);
        const names = Array.from({ length: n }, (_, i) => (i < kinds.length ? (kinds[i] as string) : `${kinds[i % kinds.length] as string}v${Math.floor(i / kinds.length) + 1}`));
        const tpls = mk(w, group, 'v1beta1', 'constrainttemplates', '', names, { rego: 'v1', targets: ['admission.k8s.gatekeeper.sh'] }, { created: true });
        const inf = w.informer(group, 'constrainttemplates', p.num('watchDelayMs', 20, 200) * MS);
        const importMs = p.num('importMs', 150, 600);
        let i = 0;
        let rendered = 0;
        const importNext = () => {
          const t = tpls[i++ % tpls.length] as SimRef;
          const o = inf.get(t);
          // Each import renders the template anew and finds a difference (#467: "difference in spec found, updating").
          if (o) w.call(user, { verb: 'update', ref: t, rv: String(o.rv), body: { ...o.spec, rendered: ++rendered } });
          w.at(w.now + importMs * w.rng.uniform(0.8, 1.2) * MS, importNext);
        };
        w.at(s(w.rng.uniform(1, 3)), importNext);
        const thinkMs = p.num('deployThinkMs', 300, 3000);
        const target = tpls[0] as SimRef;
        const deploy = (left: number) =>
          w.call(deployer, { verb: 'get', ref: target }, (g) => {
            const o = g.object as SimObject;
            w.at(w.now + thinkMs * w.rng.uniform(0.7, 1.3) * MS, () =>
              w.call(deployer, { verb: 'update', ref: target, rv: String(o.rv), body: { ...o.spec, rego: `v${w.rng.int(2, 99)}` } }, (r) => {
                if (r.code === 409 && left > 0) deploy(left - 1);
              }),
            );
          });
        w.every(s(w.rng.uniform(10, 30)), s(p.num('deployPeriodS', 20, 120)), 0.3, () => deploy(3));
        return {
          expected: [],
          acceptable: [
            { kind: 'hot-loop', actors: [user], object: null },
            { kind: 'write-fight', actors: [user, deployer], object: null },
          ],
        };
      }),
  },
  {
    name: 'arc-webhook-update-loop',
    source: 'actions/actions-runner-controller#1643',
    benign: false,
    description:
      "the RunnerDeployment controller updates its RunnerReplicaSet whenever the stored template differs from the one it renders; the manager's own mutating webhook, called on every UPDATE, rewrites a template field with a value it derives anew on each call, so every update stores a spec the controller did not send (a new generation), its watch event re-queues the controller, and the two never agree: generation 50,597 in a few hours",
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['runnerreplicasets'] : [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const user = serviceAccount('actions-runner-system', 'actions-runner-controller', 'manager', 'v0.25.0', '10.244.52.3', '');
        const group = 'actions.summerwind.dev';
        const rss = mk(
          w,
          group,
          'v1alpha1',
          'runnerreplicasets',
          ns,
          many(p, 'runners', p.int('runnerReplicaSets', 1, 3)).map((x) => `${x}-${w.rng.suffix(5)}`),
          { replicas: 2, template: { image: 'summerwind/actions-runner:v2.294.0', webhookField: 'initial' } },
        );
        const template = { image: 'summerwind/actions-runner:v2.294.0' };
        operator(
          w,
          spec({
            user,
            group,
            version: 'v1alpha1',
            resource: 'runnerreplicasets',
            objects: rss,
            target: '',
            workers: 1,
            watchDelayUs: p.num('watchDelayMs', 100, 600) * MS,
            // The controller's template has no webhookField, so the cached one always differs; what the
            // update stores is the controller's template as the webhook mutates it (a value of its own).
            skipUnchanged: false,
            spreadStartUs: s(2),
            desired: () => ({ replicas: 2, template: { ...template, webhookField: w.rng.suffix(8) } }),
          }),
        );
        return {
          expected: rss.map((r) => ({ kind: 'hot-loop' as const, actors: [user], object: obj(r) })),
          acceptable: [
            { kind: 'no-op-writes', actors: [user], object: null },
            { kind: 'conflict-storm', actors: [user], object: null },
          ],
        };
      }),
  },
  {
    name: 'strimzi-kafka-status-ltt-loop',
    source: 'strimzi/strimzi-kafka-operator#9176',
    benign: false,
    description:
      'the cluster operator reconciles each Kafka (GET, a few seconds of checks on its StrimziPodSets, Services and Secrets), then replaces kafkas/status with the Ready condition\'s lastTransitionTime = now; the status change is a watch event that the operator takes as a modified Kafka ("Kafka CR was modified") and reconciles again: resourceVersion and lastTransitionTime change every few seconds, for as long as it runs',
    plan: (p) => {
      const rr = p.chance('requestResponse', 0.5);
      return plan(p, rr ? ['kafkas'] : [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const user = serviceAccount(ns, 'strimzi-cluster-operator', 'strimzi-cluster-operator', '0.37.0', `10.244.${p.rng.int(1, 60)}.${p.rng.int(2, 250)}`, '');
        const kafkas = mk(
          w,
          'kafka.strimzi.io',
          'v1beta2',
          'kafkas',
          ns,
          many(p, 'kafka', p.int('kafkas', 1, 3)),
          { replicas: 3, version: '3.5.1' },
          { observedGeneration: 1, clusterId: 'isVkwSVdR7W2DtC0uuwAGQ', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-07-01T07:00:00Z' }] },
        );
        const reconcileMs = p.num('reconcileMs', 1000, 8000);
        operator(
          w,
          spec({
            user,
            group: 'kafka.strimzi.io',
            version: 'v1beta2',
            resource: 'kafkas',
            objects: kafkas,
            workers: kafkas.length,
            getLive: true,
            reconcileWorkUs: () => reconcileMs * w.rng.uniform(0.8, 1.2) * MS,
            requeueAfterUs: s(120),
            spreadStartUs: s(5),
            desired: (o) => ({ observedGeneration: o.generation, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: nowIso(w) }] }),
          }),
        );
        const loop = { kind: 'hot-loop' as const, actors: [user], object: null };
        const acceptable = [{ kind: 'no-op-writes' as const, actors: [user], object: null }];
        return expectIfInReach(
          rr,
          loop,
          acceptable,
          "Metadata level: each Kafka's status is replaced every few seconds after a reconcile's reads, each write moving its resourceVersion, which is also what an operator recording real progress on a RequeueAfter timer writes; only the bodies show that nothing but lastTransitionTime changes",
        );
      });
    },
  },
  {
    name: 'emqx-pod-condition-every-second',
    source: 'emqx/emqx-operator#998',
    benign: false,
    description:
      "while it runs, the EMQX operator requeues its EMQX every second and patches each core pod's status with its readiness-gate condition, lastTransitionTime = now each time (fixed by #1000, \"don't always change lastTransitionTime of pod condition\"): each core pod's resourceVersion changes every second. With pod status bodies logged that is a proven timestamp-only re-stamp, a hot-loop; at Metadata level only the steady one-second patches show, which no-op-writes reports as suspected",
    plan: (p) => {
      const rr = p.chance('requestResponse', 0.5);
      return plan(p, rr ? ['pods/status'] : [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const user = serviceAccount('emqx-operator-system', 'emqx-operator-controller-manager', 'manager', '2.2.7', '10.244.57.12', '');
        const stem = `${p.name('apps', 'emqx')}-core-${w.rng.suffix(10)}`;
        const pods = mk(
          w,
          '',
          'v1',
          'pods',
          ns,
          Array.from({ length: p.int('corePods', 1, 5) }, (_, i) => `${stem}-${i}`),
          { nodeName: 'n' },
          { phase: 'Running', conditions: [...POD_CONDITIONS, { type: 'apps.emqx.io/on-serving', status: 'True', lastTransitionTime: '2026-07-01T06:14:00Z' }] },
        );
        operator(
          w,
          spec({
            user,
            group: '',
            version: 'v1',
            resource: 'pods',
            objects: pods,
            watchOwn: false,
            verb: 'patch',
            sendRv: false,
            requeueAfterUs: s(p.num('requeueS', 0.5, 2)),
            spreadStartUs: s(1),
            desired: (o) => ({
              conditions: [
                ...((o.status.conditions as Array<{ type: string }>) ?? []).filter((c) => c.type !== 'apps.emqx.io/on-serving'),
                { type: 'apps.emqx.io/on-serving', status: 'True', lastTransitionTime: nowIso(w) },
              ],
            }),
          }),
        );
        return rr
          ? { expected: [{ kind: 'hot-loop', actors: [user], object: null }], acceptable: [{ kind: 'no-op-writes', actors: [user], object: null }] }
          : { expected: [{ kind: 'no-op-writes', actors: [user], object: null }], acceptable: [{ kind: 'hot-loop', actors: [user], object: null }] };
      });
    },
  },
  {
    name: 'operator-noop-workload-updates',
    source: 'VictoriaMetrics/operator#1418, grafana/grafana-operator#808',
    benign: false,
    description:
      'the operator finds a difference between the Deployments and StatefulSets it renders and the stored ones on every reconcile (every minute, or more often) and updates them from its cache with the content they already have: each update is a no-op (resourceVersion and generation unchanged), the next one sends the same resourceVersion',
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['deployments', 'statefulsets'] : [], (w, bg) => {
        const ns = bg.namespaces[3] as string;
        const grafana = p.chance('grafanaOperator', 0.5);
        const user = grafana ? sa(p, ns, 'grafana-operator-controller-manager', 'manager', 'v4.4.1') : sa(p, ns, 'vm-operator', 'manager', 'v0.55.0');
        const n = p.int('workloads', 4, 16);
        const period = p.num('periodS', 20, 90);
        const stem = grafana ? 'grafana' : 'vm';
        const kinds: Array<[string, string[]]> = grafana
          ? [['deployments', many(p, 'grafana', n).map((x) => `${stem}-${x}`)]]
          : [
              ['deployments', many(p, 'vmagent', Math.ceil(n / 2)).map((x) => `vmagent-${x}`)],
              ['statefulsets', many(p, 'vmstorage', Math.floor(n / 2)).map((x) => `vmstorage-${x}`)],
            ];
        for (const [res, names] of kinds) {
          const os = mk(w, 'apps', 'v1', res, ns, names, { replicas: 1, template: { image: `${stem}:v1` } });
          unchangedUpdater(w, user, 'apps', res, os, period);
        }
        return { expected: [{ kind: 'no-op-writes', actors: [user], object: null }] };
      }),
  },
];
