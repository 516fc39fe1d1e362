/**
 * Incident scenarios, fifth part (issue 25): the B.2 lines of real-incidents.md that had no
 * scenario of their own: operator-sdk#1069, longhorn#183, mongodb-kubernetes-operator#575,
 * argo-cd#6108, evenfire#598, kuberay#745 with secret-agent#182 (a benign look-alike), and
 * cluster-kube-apiserver-operator#441 with cluster-version-operator#107. Each is written from what
 * the thread says the writers did (who writes what, how often, from which cache and
 * resourceVersion); the store answers 200, 409 Conflict, 409 AlreadyExists or a no-op from that.
 * See scenarios.ts for the `expected` / `acceptable` contract.
 */
import { nowIso, operator, WorkQueue, type ReconcileResult } from './actors.js';
import { ref } from './background.js';
import { canonical, type SimObject, type SimRef } from './store.js';
import type { SimExpected, SimScenario } from './scenarios.js';
import { many, mk, nowMs, obj, plan, sa, spec } from './scenarios2.js';
import { kcm, serviceAccount } from './users.js';
import { MS, SECOND, type SimUser } from './world.js';

const s = (x: number) => x * SECOND;
const keyOf = (r: SimRef) => `${r.group}/${r.resource}/${r.namespace}/${r.name}`;

/** The fifth batch of incident scenarios (one benign look-alike among them). */
export const INCIDENT_SCENARIOS_5: SimScenario[] = [
  {
    name: 'helm-operator-upgrade-loop',
    source: 'operator-framework/operator-sdk#1069',
    benign: false,
    description:
      "the Helm operator reconciles its custom resource on every watch event, renders the chart (a template value differs on every render) and upgrades the release: a GET and a patch of the Deployment (a new pod template, so its pod restarts) and an update of the CR's status with the new release revision; that status write is the CR's next watch event (no predicate), so it upgrades again as soon as the watch delivers it, several times a second",
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['deployments', 'appservices'] : [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const user = sa(p, ns, undefined, 'helm-operator', 'v0.4.0');
        const [cr] = mk(w, 'apps.example.com', 'v1alpha1', 'appservices', ns, many(p, 'appservice', 1), { chart: 'app', replicas: 1 }, { release: { revision: 1 } });
        const crRef = cr as SimRef;
        const [dep] = mk(w, 'apps', 'v1', 'deployments', ns, [crRef.name], { replicas: 1, template: { annotations: { rendered: 'r0' } } }, { observedGeneration: 1 });
        const depRef = dep as SimRef;
        const renderMs = p.num('renderMs', 50, 400);
        const inf = w.informer('apps.example.com', 'appservices', p.num('watchDelayMs', 10, 150) * MS);
        const rs = kcm('replicaset-controller');
        const dc = kcm('deployment-controller');
        const depInf = w.informer('apps', 'deployments', 20 * MS);
        let pod: SimRef | null = null;
        // The deployment controller records each new template; the replicaset controller replaces the pod.
        depInf.on((e) => {
          if (e.type !== 'MODIFIED' || e.object.ref.name !== depRef.name || e.object.status.observedGeneration === e.object.generation) return;
          w.call(dc, { verb: 'update', ref: depRef, subresource: 'status', rv: String(e.object.rv), body: { observedGeneration: e.object.generation } });
          const old = pod;
          const next = ref('', 'v1', 'pods', ns, `${depRef.name}-${w.rng.suffix(9)}-${w.rng.suffix(5)}`);
          pod = next;
          w.call(rs, { verb: 'create', ref: next, body: { nodeName: w.rng.pick(bg.nodes).name }, generateName: `${depRef.name}-` });
          if (old) w.call(rs, { verb: 'delete', ref: old });
        });
        const q = new WorkQueue(w, 1, 5, 1_000_000, (_key, done: (r: ReconcileResult) => void) => {
          const o = inf.get(crRef);
          if (!o) return done({ kind: 'ok' });
          w.at(w.now + renderMs * w.rng.uniform(0.8, 1.2) * MS, () =>
            w.call(user, { verb: 'get', ref: depRef }, () =>
              w.call(user, { verb: 'patch', ref: depRef, body: { template: { annotations: { rendered: w.rng.suffix(8) } } } }, () => {
                const release = o.status.release as { revision: number };
                w.call(
                  user,
                  { verb: 'update', ref: crRef, subresource: 'status', rv: String(o.rv), body: { release: { revision: release.revision + 1, deployedAt: nowMs(w) } } },
                  (r) => done(r.code === 409 ? { kind: 'error' } : { kind: 'ok' }),
                );
              }),
            ),
          );
        });
        inf.on((e) => {
          if (e.object.ref.name === crRef.name) q.add(keyOf(crRef));
        });
        w.at(s(w.rng.uniform(1, 5)), () => q.add(keyOf(crRef)));
        return {
          expected: [
            { kind: 'hot-loop', actors: [user], object: obj(crRef, 'status') },
            { kind: 'hot-loop', actors: [user], object: obj(depRef) },
          ],
          acceptable: [
            { kind: 'conflict-storm', actors: [user], object: null },
            // Victims: the deployment controller records every new template, several a second.
            { kind: 'hot-loop', actors: [dc], object: null },
            { kind: 'conflict-storm', actors: [dc], object: null },
          ],
        };
      }),
  },
  {
    name: 'longhorn-probe-time-conflicts',
    source: 'longhorn/longhorn#183',
    benign: false,
    description:
      'every longhorn-manager (one per node, one service account) runs a node controller that syncs every Longhorn Node: it stamps the Ready condition\'s lastProbeTime with now (second precision) and updates the whole object from its cache when that changed it; every update and every 30 s resync (OnUpdate on re-list) enqueues the node in every manager, so the managers race on each node about once a second and the losers get 409, re-queued with the per-item backoff (longhorn-manager 9838a5f stopped the stamping: "it caused too many conflicts")',
    plan: (p) => {
      const managers = p.int('managers', 3, 12);
      return plan(
        p,
        [],
        (w, bg) => {
          const ns = 'longhorn-system';
          const group = 'longhorn.rancher.io';
          const hosts = bg.nodes.slice(0, managers);
          const nodes = mk(
            w,
            group,
            'v1alpha1',
            'nodes',
            ns,
            hosts.map((h) => h.name),
            { allowScheduling: true, conditions: { Ready: { type: 'Ready', status: 'True', lastProbeTime: '', lastTransitionTime: '2026-06-30T10:00:00Z' } } },
          );
          const delayMs = p.num('watchDelayMs', 20, 300);
          const users = hosts.map((h) => serviceAccount(ns, 'longhorn-service-account', 'longhorn-manager', 'v0.3.0', h.user.sourceIP.replace(/^10\.\d+\./, '10.42.'), ''));
          hosts.forEach((_h, i) => {
            const user = users[i] as SimUser;
            const inf = w.informer(group, 'nodes', delayMs * w.rng.uniform(0.7, 1.3) * MS);
            const byKey = new Map(nodes.map((n) => [keyOf(n), n]));
            const q = new WorkQueue(w, 2, 5, 1_000_000, (key, done: (r: ReconcileResult) => void) => {
              const o = inf.get(byKey.get(key) as SimRef);
              if (!o) return done({ kind: 'ok' });
              const conds = o.spec.conditions as Record<string, Record<string, unknown>>;
              const next = { ...o.spec, conditions: { ...conds, Ready: { ...conds.Ready, lastProbeTime: nowIso(w) } } };
              // `reflect.DeepEqual(existingNode, node)`: no update within the same second.
              if (canonical(next) === canonical(o.spec)) return done({ kind: 'ok' });
              w.call(user, { verb: 'update', ref: o.ref, rv: String(o.rv), body: next }, (r) => done(r.code === 409 ? { kind: 'error' } : { kind: 'ok' }));
            });
            // enqueueNode is AddRateLimited for every event, as in the controller.
            inf.on((e) => {
              if (e.type !== 'DELETED' && byKey.has(keyOf(e.object.ref))) q.addRateLimited(keyOf(e.object.ref));
            });
            w.every(s(w.rng.uniform(0, 30)), s(30), 0, () => {
              for (const n of nodes) q.addRateLimited(keyOf(n));
            });
          });
          return {
            expected: [{ kind: 'conflict-storm', actors: users, object: null }],
            acceptable: [
              { kind: 'fleet-storm', actors: users, object: null },
              { kind: 'hot-loop', actors: users, object: null },
              { kind: 'no-op-writes', actors: users, object: null },
            ],
          };
        },
        { nodes: Math.max(managers, p.int('nodes', 8, 30)) },
      );
    },
  },
  {
    name: 'mongodb-credentials-loop',
    source: 'mongodb/mongodb-kubernetes-operator#575',
    benign: false,
    description:
      "each reconcile of the MongoDBCommunity resource regenerates the SCRAM credentials (a new salt) and the automation config, updating both Secrets, re-applies the StatefulSet and writes the resource's status (unchanged); the operator watches its Secrets, so its own Secret writes queue the resource again: only the operator's service account touches the resource, over and over (#575 shows the symptom; the per-pass credential regeneration is what the same operator's #651 log shows)",
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['mongodbcommunity'] : [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const user = serviceAccount(ns, 'mongodb-kubernetes-operator', 'mongodb-kubernetes-operator', 'v0.6.0', `10.244.${p.rng.int(1, 60)}.${p.rng.int(2, 250)}`, '');
        const name = p.name('apps', 'mongodb');
        const [cr] = mk(
          w,
          'mongodbcommunity.mongodb.com',
          'v1',
          'mongodbcommunity',
          ns,
          [name],
          { members: 3, version: '4.2.6' },
          { phase: 'Running', mongoUri: `mongodb://${name}-0` },
        );
        const crRef = cr as SimRef;
        const scram = mk(w, '', 'v1', 'secrets', ns, [`${name}-admin-scram-credentials`], { salt: 'a' })[0] as SimRef;
        const config = mk(w, '', 'v1', 'secrets', ns, [`${name}-config`], { version: 1 })[0] as SimRef;
        const sts = mk(w, 'apps', 'v1', 'statefulsets', ns, [name], { replicas: 3, image: 'mongo:4.2.6' })[0] as SimRef;
        const scramMs = p.num('scramMs', 100, 600);
        const secrets = w.informer('', 'secrets', p.num('watchDelayMs', 10, 150) * MS);
        const crs = w.informer('mongodbcommunity.mongodb.com', 'mongodbcommunity', 20 * MS);
        const q = new WorkQueue(w, 1, 5, 1_000_000, (_key, done: (r: ReconcileResult) => void) => {
          const o = crs.get(crRef);
          const cfg = secrets.get(config);
          if (!o || !cfg) return done({ kind: 'ok' });
          w.call(user, { verb: 'get', ref: ref('', 'v1', 'services', ns, `${name}-svc`) }, () =>
            // SCRAM-SHA-1 and SCRAM-SHA-256 keys from a fresh salt: the Secret changes every time.
            w.at(w.now + scramMs * w.rng.uniform(0.8, 1.2) * MS, () =>
              w.call(user, { verb: 'update', ref: scram, body: { salt: w.rng.suffix(16) } }, () =>
                w.call(user, { verb: 'update', ref: config, body: { version: (cfg.spec.version as number) + 1 } }, () =>
                  w.call(user, { verb: 'update', ref: sts, body: { replicas: 3, image: 'mongo:4.2.6' } }, () =>
                    w.call(user, { verb: 'update', ref: crRef, subresource: 'status', rv: String(o.rv), body: { ...o.status } }, (r) =>
                      done(r.code === 409 ? { kind: 'error' } : { kind: 'ok' }),
                    ),
                  ),
                ),
              ),
            ),
          );
        });
        secrets.on((e) => {
          if (e.object.ref.namespace === ns && (e.object.ref.name === scram.name || e.object.ref.name === config.name)) q.add(keyOf(crRef));
        });
        w.at(s(w.rng.uniform(1, 5)), () => q.add(keyOf(crRef)));
        return {
          expected: [
            // The resource itself: the same status rewritten on every pass (what the thread's jq showed).
            { kind: 'no-op-writes', actors: [user], object: obj(crRef, 'status') },
            // What drives the loop: the credentials Secret rewritten with a new salt on every pass.
            { kind: 'hot-loop', actors: [user], object: obj(scram) },
          ],
          acceptable: [
            { kind: 'hot-loop', actors: [user], object: null },
            { kind: 'no-op-writes', actors: [user], object: null },
            { kind: 'conflict-storm', actors: [user], object: null },
          ],
        };
      }),
  },
  {
    name: 'argocd-amplified-by-status-churn',
    source: 'argoproj/argo-cd#6108',
    benign: false,
    description:
      "KEDA patches each ScaledObject's status.lastActiveTime on every polling interval and kubernetes-external-secrets rewrites each ExternalSecret's status.lastSync on every poll: status writes that change only a timestamp, each a watch event for Argo CD's application-controller, which refreshes the owning Application (CPU) but patches it only on its 3-minute resync; the writers to report are the two status re-stampers, not Argo CD",
    plan: (p) => {
      const bodies = p.chance('requestResponse', 0.5);
      return plan(p, bodies ? ['scaledobjects/status', 'externalsecrets/status'] : [], (w, bg) => {
        const keda = serviceAccount('keda', 'keda-operator', 'keda', 'v2.4.0', '10.244.90.3', '');
        const kes = serviceAccount('kubernetes-external-secrets', 'kubernetes-external-secrets', 'kubernetes-external-secrets', '8.3.0', '10.244.93.4', '');
        const argo = serviceAccount('argocd', 'argocd-application-controller', 'argocd-application-controller', 'v2.0.5', '10.244.2.9', '');
        const apps = many(p, 'app', p.int('applications', 100, 250));
        const sos = bg.namespaces.flatMap((ns, i) =>
          mk(w, 'keda.sh', 'v1alpha1', 'scaledobjects', ns, many(p, `so${i}`, p.int(`scaledObjects${i}`, 5, 40)), { pollingInterval: 30 }, {}),
        );
        const ess = bg.namespaces.flatMap((ns, i) =>
          mk(w, 'kubernetes-client.io', 'v1', 'externalsecrets', ns, many(p, `es${i}`, p.int(`externalSecrets${i}`, 5, 30)), { backendType: 'secretsManager' }, {}),
        );
        const kedaPoll = p.num('kedaPollS', 5, 40);
        const kesPoll = p.num('kesPollS', 10, 60);
        for (const so of sos)
          w.every(s(w.rng.uniform(0, kedaPoll)), s(kedaPoll), 0.05, () =>
            w.call(keda, { verb: 'patch', ref: so, subresource: 'status', body: { lastActiveTime: nowIso(w), conditions: [{ type: 'Active', status: 'True' }] } }),
          );
        // The poller GETs the ExternalSecret and PUTs its status with the resourceVersion it read.
        for (const es of ess)
          w.every(s(w.rng.uniform(0, kesPoll)), s(kesPoll), 0.05, () =>
            w.call(kes, { verb: 'get', ref: es }, (g) => {
              if (!g.object) return;
              const o = g.object;
              w.at(w.now + w.rng.uniform(50, 400) * MS, () =>
                w.call(kes, { verb: 'update', ref: es, subresource: 'status', rv: String(o.rv), body: { lastSync: nowIso(w), status: 'SUCCESS', observedGeneration: 1 } }),
              );
            }),
          );
        // Argo CD: one status patch per Application per 3-minute resync (reconciledAt); its refreshes on each event are in-process.
        const appRefs = mk(w, 'argoproj.io', 'v1alpha1', 'applications', 'argocd', apps, { project: 'default' }, { sync: 'Synced' });
        for (const a of appRefs) w.every(s(w.rng.uniform(0, 180)), s(180), 0.05, () => w.call(argo, { verb: 'patch', ref: a, body: { reconciledAt: nowIso(w) } }));
        const writers = [keda, kes];
        const noted: SimExpected[] = [
          ...writers.map((u) => ({ kind: 'no-op-writes' as const, actors: [u], object: null })),
          ...writers.map((u) => ({ kind: 'hot-loop' as const, actors: [u], object: null })),
        ];
        // With status bodies the re-stamped timestamps are proven; at Metadata level a timer's status writes look like any poller's.
        return bodies ? { expected: writers.map((u) => ({ kind: 'no-op-writes' as const, actors: [u], object: null })), acceptable: noted } : { expected: [], acceptable: noted };
      });
    },
  },
  {
    name: 'evenfire-create-probe-pass',
    source: 'evenfire-ai/evenfire#598',
    benign: false,
    description:
      'every reconcile pass POSTs each managed object first and reads the 409 AlreadyExists as "it exists"; only then does it GET, compare, and PUT the few that drifted: thousands of futile creates an hour, about 90 % of its writes',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const user = serviceAccount('evenfire-system', 'hcc-controller', 'hcc', 'v0.9.0', '10.244.71.8', '');
        const kinds: Array<[string, string, string]> = [
          ['', 'v1', 'configmaps'],
          ['', 'v1', 'services'],
          ['apps', 'v1', 'deployments'],
          ['', 'v1', 'serviceaccounts'],
          ['networking.k8s.io', 'v1', 'networkpolicies'],
        ];
        const perNs = p.int('objectsPerNamespace', 8, 40);
        const objs = bg.namespaces.flatMap((ns, i) => {
          const [g, v, r] = kinds[i % kinds.length] as [string, string, string];
          const [g2, v2, r2] = kinds[(i + 2) % kinds.length] as [string, string, string];
          return [...mk(w, g, v, r, ns, many(p, `hcc${i}`, perNs), { rev: 1 }), ...mk(w, g2, v2, r2, ns, many(p, `hcc${i}b`, perNs), { rev: 1 })];
        });
        const passS = p.num('passS', 5, 30);
        const drift = p.num('driftShare', 0.01, 0.08);
        const pass = () => {
          let i = 0;
          const next = () => {
            const o = objs[i++];
            if (!o) return void w.at(w.now + s(passS) * w.rng.uniform(0.9, 1.1), pass);
            const desired = { rev: 1 + (w.rng.next() < drift ? w.rng.int(2, 9) : 0) };
            w.call(user, { verb: 'create', ref: o, body: desired }, (c) => {
              if (c.code !== 409) return next();
              w.call(user, { verb: 'get', ref: o }, (g) => {
                const cur = g.object as SimObject;
                if (canonical(cur.spec) === canonical(desired)) return next();
                w.call(user, { verb: 'update', ref: o, rv: String(cur.rv), body: desired }, () => next());
              });
            });
          };
          next();
        };
        w.at(s(w.rng.uniform(1, 5)), pass);
        return {
          expected: [{ kind: 'create-conflict-storm', actors: [user], object: null }],
          acceptable: [{ kind: 'no-op-writes', actors: [user], object: null }],
        };
      }),
  },
  {
    name: 'kuberay-routine-status-409',
    source: 'ray-project/kuberay#745, ForgeRock/secret-agent#182',
    benign: true,
    description:
      'routine 409s on status updates, as both threads describe them ("sometimes"): the KubeRay operator updates a RayCluster\'s status from its cache after the autoscaler scaled it and its worker pods came and went, and the secret-agent updates its SecretAgentConfiguration\'s status after generating Secrets; now and then the update races a change its cache has not seen yet, gets 409, and the re-queued reconcile succeeds',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const ray = serviceAccount('ray-system', 'kuberay-operator', 'kuberay-operator', 'v0.3.0', '10.244.94.2', '');
        const autoscaler = serviceAccount(ns, 'ray-autoscaler', 'ray-autoscaler', 'v2.1.0', `10.244.95.${p.rng.int(2, 250)}`, '');
        const delay = p.num('watchDelayMs', 5, 60) * MS;
        const clusters = mk(
          w,
          'ray.io',
          'v1alpha1',
          'rayclusters',
          ns,
          many(p, 'raycluster', p.int('rayClusters', 3, 20)),
          { workers: 2 },
          { availableWorkerReplicas: 2, state: 'ready' },
        );
        const podInf = w.informer('', 'pods', delay);
        const ctl = operator(
          w,
          spec({
            user: ray,
            group: 'ray.io',
            version: 'v1alpha1',
            resource: 'rayclusters',
            objects: clusters,
            watchDelayUs: delay,
            generationPredicate: true,
            desired: (o) => ({
              availableWorkerReplicas: [...podInf.cache.values()].filter((x) => x.ref.name.startsWith(`${o.ref.name}-worker-`) && x.status.phase === 'Running').length,
              desiredWorkerReplicas: o.spec.workers,
            }),
          }),
        );
        const workers = new Map<string, SimRef[]>(clusters.map((c) => [c.name, []]));
        // The operator creates or deletes worker pods to match spec.workers; kubelets report them Running.
        const scale = (c: SimRef, want: number) => {
          const have = workers.get(c.name) as SimRef[];
          while (have.length < want) {
            const pod = ref('', 'v1', 'pods', ns, `${c.name}-worker-${w.rng.suffix(5)}`);
            have.push(pod);
            const node = w.rng.pick(bg.nodes);
            w.call(ray, { verb: 'create', ref: pod, body: { nodeName: node.name }, generateName: `${c.name}-worker-` }, () =>
              w.at(w.now + w.rng.uniform(2, 10) * SECOND, () => w.call(node.user, { verb: 'patch', ref: pod, subresource: 'status', body: { phase: 'Running' } })),
            );
          }
          while (have.length > want) w.call(ray, { verb: 'delete', ref: have.pop() as SimRef });
        };
        podInf.on((e) => {
          const c = clusters.find((x) => e.object.ref.namespace === ns && e.object.ref.name.startsWith(`${x.name}-worker-`));
          if (c) ctl.queue.add(keyOf(c));
        });
        for (const c of clusters) w.at(s(w.rng.uniform(0, 3)), () => scale(c, 2));
        // The autoscaler scales each cluster now and then; the operator's spec watch follows.
        const crInf = w.informer('ray.io', 'rayclusters', delay);
        crInf.on((e) => {
          const c = clusters.find((x) => x.name === e.object.ref.name);
          if (c && e.type === 'MODIFIED') scale(c, e.object.spec.workers as number);
        });
        const scaleGapS = p.num('scaleGapS', 30, 180);
        for (const c of clusters)
          w.every(s(w.rng.uniform(5, scaleGapS)), s(scaleGapS), 0.5, () =>
            w.call(autoscaler, { verb: 'patch', ref: c, body: { workers: Math.max(1, Math.min(8, (workers.get(c.name) as SimRef[]).length + w.rng.pick([-2, -1, 1, 2]))) } }),
          );
        // secret-agent: a SecretAgentConfiguration whose Secrets are regenerated every few minutes; the
        // status update after writing them races the Secrets' own events now and then.
        const agent = serviceAccount('secret-agent-system', 'secret-agent-manager', 'manager', 'v1.1.0', '10.244.96.3', '');
        const sacNs = bg.namespaces[3] as string;
        const [sac] = mk(w, 'secret-agent.secrets.forgerock.io', 'v1alpha1', 'secretagentconfigurations', sacNs, ['forgerock-sac'], { secrets: 6 }, { totalManagedObjects: 6 });
        const sacRef = sac as SimRef;
        const secretNames = many(p, 'ds-secrets', 6);
        mk(w, '', 'v1', 'secrets', sacNs, secretNames, { v: 0 });
        const sacInf = w.informer('secret-agent.secrets.forgerock.io', 'secretagentconfigurations', delay);
        const rotateS = p.num('rotateS', 60, 240);
        const secInf = w.informer('', 'secrets', delay);
        let rotateDue = false;
        // A tick regenerates the Secrets and then records it; a reconcile queued by the Secrets' own
        // events finds them present and only writes the status it holds (the same, unless its copy is old).
        const sacQueue = new WorkQueue(w, 1, 5, 1_000_000, (_key, done: (r: ReconcileResult) => void) => {
          const o = sacInf.get(sacRef);
          if (!o) return done({ kind: 'ok' });
          const gen = (o.status.generated as number | undefined) ?? 0;
          const rotate = rotateDue;
          rotateDue = false;
          let i = 0;
          const writeNext = () => {
            const n = rotate ? secretNames[i++] : undefined;
            if (n === undefined)
              return w.call(
                agent,
                {
                  verb: 'update',
                  ref: sacRef,
                  subresource: 'status',
                  rv: String(o.rv),
                  body: rotate ? { ...o.status, generated: gen + 1, lastRotation: nowIso(w) } : { ...o.status },
                },
                (r) => done(r.code === 409 ? { kind: 'error' } : { kind: 'ok' }),
              );
            w.call(agent, { verb: 'update', ref: ref('', 'v1', 'secrets', sacNs, n), body: { v: gen + 1 } }, writeNext);
          };
          writeNext();
        });
        secInf.on((e) => {
          if (e.object.ref.namespace === sacNs && secretNames.includes(e.object.ref.name)) sacQueue.add(keyOf(sacRef));
        });
        w.every(s(w.rng.uniform(10, rotateS)), s(rotateS), 0.3, () => {
          rotateDue = true;
          sacQueue.add(keyOf(sacRef));
        });
        return { expected: [] };
      }),
  },
  {
    name: 'openshift-revision-hot-loop',
    source: 'openshift/cluster-kube-apiserver-operator#441, openshift/cluster-version-operator#107',
    benign: false,
    description:
      "a static-pod operator's revision controller starts a new revision whenever an input differs from the latest revision's copy; one input (the localhost-recovery token Secret) is re-issued every few tens of seconds, so a revision follows each time: revision-status-N and a numbered copy of every input ConfigMap and Secret, the operator status' latestAvailableRevision, an installer pod per master, and the ClusterOperator's Progressing condition flapping True and False; no revision is pruned",
    plan: (p) =>
      plan(
        p,
        [],
        (w) => {
          const ns = 'openshift-kube-apiserver';
          const user = serviceAccount('openshift-kube-apiserver-operator', 'kube-apiserver-operator', 'cluster-kube-apiserver-operator', 'v0.0.0', '10.128.0.12', '');
          const tokens = kcm('tokens-controller', 'system:serviceaccount:kube-system:tokens-controller');
          const cmInputs = [
            'kube-apiserver-pod',
            'config',
            'kube-apiserver-cert-syncer-kubeconfig',
            'oauth-metadata',
            'bound-sa-token-signing-certs',
            'etcd-serving-ca',
            'kubelet-serving-ca',
            'sa-token-signing-certs',
            'kube-apiserver-audit-policies',
          ];
          const secretInputs = ['etcd-client', 'localhost-recovery-serving-certkey', 'localhost-recovery-client-token'];
          mk(w, '', 'v1', 'configmaps', ns, cmInputs, { data: 'x' });
          mk(w, '', 'v1', 'secrets', ns, secretInputs, { token: 't0' });
          const [kas] = mk(w, 'operator.openshift.io', 'v1', 'kubeapiservers', '', ['cluster'], {}, { latestAvailableRevision: 7, nodeStatuses: {} });
          const [co] = mk(w, 'config.openshift.io', 'v1', 'clusteroperators', '', ['kube-apiserver'], {}, { conditions: [{ type: 'Progressing', status: 'False' }] });
          const kasRef = kas as SimRef;
          const coRef = co as SimRef;
          const masters = ['master-0', 'master-1', 'master-2'];
          const tokenRef = ref('', 'v1', 'secrets', ns, 'localhost-recovery-client-token');
          const secInf = w.informer('', 'secrets', p.num('watchDelayMs', 20, 200) * MS);
          const kasInf = w.informer('operator.openshift.io', 'kubeapiservers', 30 * MS);
          const installS = p.num('installerS', 20, 60);
          let revision = 7;
          let copied = 't0';
          let busy = false;
          const setProgressing = (status: 'True' | 'False', rev: number) =>
            w.call(user, {
              verb: 'update',
              ref: coRef,
              subresource: 'status',
              rv: String((w.store.get(coRef) as SimObject).rv),
              body: {
                conditions: [
                  {
                    type: 'Progressing',
                    status,
                    message:
                      status === 'True' ? `NodeInstallerProgressing: 3 nodes are progressing to revision ${rev}` : `NodeInstallerProgressing: 3 nodes are at revision ${rev}`,
                    lastTransitionTime: nowIso(w),
                  },
                ],
              },
            });
          const writeStatus = (patch: Record<string, unknown>) => {
            const o = kasInf.get(kasRef) as SimObject;
            w.call(user, { verb: 'update', ref: kasRef, subresource: 'status', rv: String(o.rv), body: { ...o.status, ...patch } });
          };
          // The installer controller rolls the latest revision out one master at a time.
          const install = (rev: number, i: number) => {
            const m = masters[i];
            if (m === undefined) return setProgressing('False', rev);
            w.call(user, { verb: 'create', ref: ref('', 'v1', 'pods', ns, `installer-${rev}-${m}`), body: { nodeName: m } }, () =>
              w.at(w.now + s(installS) * w.rng.uniform(0.8, 1.2), () => {
                if (rev !== revision) return;
                writeStatus({ nodeStatuses: { ...((kasInf.get(kasRef) as SimObject).status.nodeStatuses as object), [m]: rev } });
                install(rev, i + 1);
              }),
            );
          };
          const newRevision = () => {
            const tok = secInf.get(tokenRef);
            if (busy || !tok || tok.spec.token === copied) return;
            busy = true;
            const rev = revision + 1;
            const names: Array<[string, string]> = [
              ['configmaps', 'revision-status'],
              ...cmInputs.map((n): [string, string] => ['configmaps', n]),
              ...secretInputs.map((n): [string, string] => ['secrets', n]),
            ];
            let i = 0;
            const next = () => {
              const item = names[i++];
              if (!item) {
                revision = rev;
                copied = tok.spec.token as string;
                busy = false;
                writeStatus({ latestAvailableRevision: rev });
                setProgressing('True', rev);
                install(rev, 0);
                return;
              }
              w.call(user, { verb: 'create', ref: ref('', 'v1', item[0], ns, `${item[1]}-${rev}`), body: { revision: rev } }, next);
            };
            next();
          };
          secInf.on((e) => {
            if (e.object.ref.namespace === ns && e.object.ref.name === tokenRef.name) newRevision();
          });
          const tokenGapS = p.num('tokenGapS', 5, 60);
          w.every(s(w.rng.uniform(2, 8)), s(tokenGapS), 0.3, () => w.call(tokens, { verb: 'update', ref: tokenRef, body: { token: w.rng.suffix(24) } }));
          return {
            expected: [{ kind: 'create-storm', actors: [user], object: null }],
            acceptable: [
              { kind: 'hot-loop', actors: [user], object: null },
              { kind: 'no-op-writes', actors: [user], object: null },
              { kind: 'conflict-storm', actors: [user], object: null },
            ],
          };
        },
        // A revision loop shows at the revision pace: #441's e2e bar of 20 revisions takes 30 minutes at one a minute.
        { minutes: 30 },
      ),
  },
];
