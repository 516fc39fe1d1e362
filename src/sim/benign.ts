/**
 * Benign look-alikes: normal Kubernetes behaviour that shares a storm's shape (409s, periodic
 * writes, many objects, two writers) but not its cause. Each is written from the mechanism and
 * its default timings (client-go `tools/leaderelection`, `util/retry`, `util/workqueue`;
 * controller-runtime; kube-controller-manager and kubelet defaults; audit-formats.md §4–5), with
 * every parameter drawn through the {@link Sampler}, so the held-out set gets other names and
 * rates. None expects a finding; `acceptable` names the few low notes a careful SRE would accept.
 */
import { nowIso, operator, retryOnConflict, BACKOFFS, WorkQueue, type OperatorSpec, type ReconcileResult } from './actors.js';
import { ref } from './background.js';
import type { Sampler } from './names.js';
import type { SimObject, SimRef } from './store.js';
import type { ScenarioPlan, SimScenario } from './scenarios.js';
import { human, kcm, serviceAccount } from './users.js';
import { MS, SECOND, type SimUser, type World } from './world.js';

const s = (x: number) => x * SECOND;
const nowMs = (w: World) => new Date(w.opts.startMs + w.now / 1000).toISOString();
/** A lease field as the sim writes it (a string), '' when absent. */
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function mk(
  w: World,
  group: string,
  version: string,
  resource: string,
  namespace: string,
  names: string[],
  spec: Record<string, unknown> = {},
  status: Record<string, unknown> = {},
): SimRef[] {
  return names.map((n) => {
    const r = ref(group, version, resource, namespace, n);
    w.store.create(r, spec, status);
    return r;
  });
}
function many(p: Sampler, label: string, n: number): string[] {
  const stem = p.name('apps', label);
  return Array.from({ length: n }, (_, i) => (n === 1 ? stem : `${stem}-${i}`));
}
function spec(base: Partial<OperatorSpec> & Pick<OperatorSpec, 'user' | 'group' | 'version' | 'resource' | 'objects' | 'desired'>): OperatorSpec {
  return { workers: 2, watchDelayUs: 20 * MS, watchOwn: true, target: 'status', verb: 'update', sendRv: true, skipUnchanged: true, onConflict: 'rateLimited', ...base };
}
function plan(p: Sampler, rr: string[], run: ScenarioPlan['run'], nodes?: number): ScenarioPlan {
  return { requestResponse: rr, nodes: nodes ?? p.int('nodes', 8, 30), run };
}
const ip = (w: World) => `10.244.${w.rng.int(1, 60)}.${w.rng.int(2, 250)}`;
const keyOf = (r: SimRef) => `${r.group}/${r.resource}/${r.namespace}/${r.name}`;

/**
 * client-go leader election over a Lease (`tools/leaderelection`): the leader renews every
 * `retryS` (its fast path updates with the resourceVersion it last wrote, falling back to GET +
 * update); followers GET every `retryS`·[1, 2.2) (`wait.JitterUntil`, JitterFactor 1.2) and try to
 * take the lock only when the record has not changed for `leaseS`, or when it was released
 * (holderIdentity ''). Two followers taking an expired lock with the same resourceVersion: one
 * gets 200, the others 409 Conflict. `events` stop the leader (crash, no release), release the
 * lock, or pause it (a GC pause or partition longer than the lease): a paused leader resumes with
 * its fast-path update on the resourceVersion it last wrote, gets 409 because a follower took the
 * lock meanwhile, GETs, sees the new holder and becomes a follower.
 */
function leaderElection(
  w: World,
  lease: SimRef,
  users: SimUser[],
  leaseS: number,
  retryS: number,
  events: Array<{ atUs: number; mode: 'crash' | 'release' | 'pause'; restartAfterUs: number }>,
): void {
  w.store.create(lease, { holderIdentity: '', leaseDurationSeconds: leaseS, renewTime: nowMs(w) });
  const st = users.map(() => ({ alive: true, leader: false, rv: '', observedHolder: '', observedRenew: '', observedAt: 0 }));
  const body = (i: number, holder: string) => ({ holderIdentity: holder, leaseDurationSeconds: leaseS, renewTime: nowMs(w), _id: i });
  const id = (i: number) => `${users[i]?.sourceIP}_${i}`;
  const tryAcquire = (i: number) => {
    const me = st[i] as (typeof st)[number];
    if (!me.alive) return;
    const u = users[i] as SimUser;
    if (me.leader) {
      w.call(u, { verb: 'update', ref: lease, rv: me.rv, body: body(i, id(i)) }, (r) => {
        if (r.object) me.rv = String(r.object.rv);
        else me.leader = false;
      });
      return;
    }
    w.call(u, { verb: 'get', ref: lease }, (g) => {
      if (!g.object || !me.alive) return;
      const holder = text(g.object.spec.holderIdentity);
      const renew = text(g.object.spec.renewTime);
      if (holder !== me.observedHolder || renew !== me.observedRenew) {
        me.observedHolder = holder;
        me.observedRenew = renew;
        me.observedAt = w.now;
      }
      if (holder !== '' && w.now < me.observedAt + s(leaseS)) return;
      w.call(u, { verb: 'update', ref: lease, rv: String(g.object.rv), body: body(i, id(i)) }, (r) => {
        if (r.object) {
          me.rv = String(r.object.rv);
          me.leader = true;
        }
      });
    });
  };
  users.forEach((_, i) => {
    const loop = () => {
      tryAcquire(i);
      const me = st[i] as (typeof st)[number];
      w.at(w.now + (me.leader ? s(retryS) : s(retryS) * (1 + 1.2 * w.rng.next())), loop);
    };
    w.at(w.rng.uniform(0, s(retryS)), loop);
  });
  for (const e of events) {
    w.at(e.atUs, () => {
      const i = st.findIndex((x) => x.leader && x.alive);
      if (i < 0) return;
      const me = st[i] as (typeof st)[number];
      if (e.mode === 'release') w.call(users[i] as SimUser, { verb: 'update', ref: lease, rv: me.rv, body: { holderIdentity: '', leaseDurationSeconds: 1, renewTime: nowMs(w) } });
      me.alive = false;
      if (e.mode !== 'pause') me.leader = false;
      w.at(w.now + e.restartAfterUs, () => {
        me.alive = true;
        if (e.mode !== 'pause') me.rv = '';
        me.observedAt = w.now;
      });
    });
  }
}

/** The benign scenarios: expected no finding. */
export const BENIGN_SCENARIOS: SimScenario[] = [
  {
    name: 'benign-leader-election-failover',
    source: 'client-go tools/leaderelection (LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s)',
    benign: true,
    description:
      'replicas of an operator (and kube-controller-manager instances) elect a leader on a Lease; the leader crashes, releases the lock or pauses past the lease a few times; a paused leader that resumes gets one 409 and steps down',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const op = p.name('operators', 'operator');
        const n = p.int('candidates', 2, 5);
        const users = Array.from({ length: n }, (_, i) => ({
          ...serviceAccount(ns, op, 'manager', 'v0.0.0', `10.244.${20 + i}.${p.rng.int(2, 250)}`),
          userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format/leader-election',
        }));
        const failovers = p.int('failovers', 2, 5);
        const modes = ['pause', 'crash', 'release'] as const;
        const events = Array.from({ length: failovers }, (_, k) => {
          const mode = modes[k % 3] as (typeof modes)[number];
          return { atUs: s(20 + (k * 200) / failovers + w.rng.uniform(0, 10)), mode, restartAfterUs: s(mode === 'pause' ? w.rng.uniform(17, 25) : w.rng.uniform(10, 30)) };
        });
        leaderElection(w, ref('coordination.k8s.io', 'v1', 'leases', ns, `${op}-lock`), users, 15, 2, events);
        // kube-controller-manager's own standby instances race the same way.
        const kcmUsers = [0, 1, 2].map((i) => ({
          ...kcm('kube-controller-manager'),
          username: 'system:kube-controller-manager',
          userAgent: `kube-controller-manager/v1.30.4 (linux/amd64) kubernetes/a51b3b7/leader-election`,
          sourceIP: `10.20.0.${4 + i}`,
        }));
        leaderElection(w, ref('coordination.k8s.io', 'v1', 'leases', 'kube-system', 'cloud-controller-manager'), kcmUsers, 15, 2, [
          { atUs: s(p.num('kcmFailoverS', 60, 180)), mode: 'pause', restartAfterUs: s(p.num('kcmPauseS', 16, 30)) },
        ]);
        return { expected: [] };
      }),
  },
  {
    name: 'benign-kubelet-fleet-10s',
    source: 'kubelet --node-status-update-frequency 10 s, node Lease renewed every 10 s (KEP-589)',
    benign: true,
    description: 'several hundred kubelets patch nodes/status every 10 s with a new lastHeartbeatTime (a real change) and renew their Leases; no conflicts',
    plan: (p) => {
      const n = p.int('nodes', 300, 700);
      return {
        requestResponse: [],
        nodes: n,
        run: (w, bg) => {
          for (const node of bg.nodes) {
            const r = ref('', 'v1', 'nodes', '', node.name);
            w.every(w.rng.uniform(0, s(10)), s(10), 0.02, () =>
              w.call(node.user, { verb: 'patch', ref: r, subresource: 'status', body: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: nowIso(w) }] } }),
            );
          }
          return { expected: [] };
        },
      };
    },
  },
  {
    name: 'benign-npd-conditions',
    source: 'node-problem-detector k8s exporter: checks every 1 s, patches on a condition change, heartbeat every 5 min (--k8s-exporter-heartbeat-period)',
    benign: true,
    description:
      'node-problem-detector on every node patches its node conditions only when one changes, plus a forced heartbeat every few minutes; a handful of real condition flips',
    plan: (p) => {
      const n = p.int('nodes', 100, 500);
      const heartbeat = p.num('heartbeatS', 120, 300);
      return {
        requestResponse: [],
        nodes: n,
        run: (w, bg) => {
          const npd = serviceAccount('kube-system', 'node-problem-detector', 'node-problem-detector', 'v0.8.19', '10.20.0.30');
          for (const node of bg.nodes) {
            const r = ref('', 'v1', 'nodes', '', node.name);
            const u = { ...npd, sourceIP: node.user.sourceIP };
            let flips = 0;
            w.every(w.rng.uniform(0, s(heartbeat)), s(heartbeat), 0.05, () =>
              w.call(u, { verb: 'patch', ref: r, subresource: 'status', body: { npd: { KernelDeadlock: 'False', heartbeat: nowIso(w) } } }),
            );
            if (w.rng.next() < 0.05)
              w.at(w.rng.uniform(s(10), s(200)), () =>
                w.call(u, { verb: 'patch', ref: r, subresource: 'status', body: { npd: { FrequentContainerdRestart: ++flips % 2 ? 'True' : 'False', transition: nowIso(w) } } }),
              );
          }
          return { expected: [] };
        },
      };
    },
  },
  {
    name: 'benign-hpa-15s',
    source: 'kube-controller-manager --horizontal-pod-autoscaler-sync-period 15 s; status written only on change (kubernetes/kubernetes#47078)',
    benign: true,
    description: 'the HPA controller syncs every HPA every 15 s and writes status only when the metric or replica count changed (RequestResponse on HPAs)',
    plan: (p) =>
      plan(p, ['horizontalpodautoscalers'], (w, bg) => {
        const user = kcm('horizontal-pod-autoscaler');
        const hs = mk(
          w,
          'autoscaling',
          'v2',
          'horizontalpodautoscalers',
          bg.namespaces[0] as string,
          many(p, 'hpa', p.int('hpas', 20, 200)),
          { maxReplicas: 10 },
          { currentCPU: 50, desiredReplicas: 3 },
        );
        const changeP = p.num('changeShare', 0.1, 0.6);
        operator(
          w,
          spec({
            user,
            group: 'autoscaling',
            version: 'v2',
            resource: 'horizontalpodautoscalers',
            objects: hs,
            watchOwn: false,
            requeueAfterUs: s(15),
            spreadStartUs: s(15),
            desired: (o, w2) => (w2.rng.next() < changeP ? { currentCPU: w2.rng.int(30, 90), lastScaleTime: nowIso(w2) } : { currentCPU: o.status.currentCPU }),
          }),
        );
        return { expected: [] };
      }),
  },
  {
    name: 'benign-deployment-rollout',
    source: 'kube-controller-manager deployment and replicaset controllers (RollingUpdate maxSurge 25 %, maxUnavailable 25 %)',
    benign: true,
    description:
      'rolling updates of a few Deployments: the deployment controller scales the new ReplicaSet up and the old one down, the ReplicaSet controller creates and deletes pods and writes readyReplicas, kubelets mark pods ready; every status write is a real change',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const dc = kcm('deployment-controller');
        const rsc = kcm('replicaset-controller');
        const deps = many(p, 'deploy', p.int('deployments', 2, 6));
        const replicas = p.int('replicas', 10, 60);
        const readyS = p.num('podReadyS', 3, 15);
        const delayMs = p.num('watchDelayMs', 5, 40);
        const surge = Math.max(1, Math.ceil(replicas * 0.25));
        const depRefs = mk(w, 'apps', 'v1', 'deployments', ns, deps, { replicas, image: 'v1' }, { updatedReplicas: replicas, readyReplicas: replicas });
        const oldRs = deps.map((d) => ref('apps', 'v1', 'replicasets', ns, `${d}-${w.rng.suffix(10)}`));
        const newRs = deps.map((d) => ref('apps', 'v1', 'replicasets', ns, `${d}-${w.rng.suffix(10)}`));
        const ready = new Map<string, number>();
        oldRs.forEach((r) => {
          w.store.create(r, { replicas }, { readyReplicas: replicas });
          ready.set(r.name, replicas);
        });
        const rsInf = w.informer('apps', 'replicasets', delayMs * MS);
        const rsCtl = operator(
          w,
          spec({
            user: rsc,
            group: 'apps',
            version: 'v1',
            resource: 'replicasets',
            objects: [...oldRs, ...newRs],
            workers: 5,
            watchDelayUs: delayMs * MS,
            desired: (o) => ({ readyReplicas: Math.min(ready.get(o.ref.name) ?? 0, Number(o.spec.replicas ?? 0)), replicas: o.spec.replicas }),
          }),
        );
        const depCtl = operator(
          w,
          spec({
            user: dc,
            group: 'apps',
            version: 'v1',
            resource: 'deployments',
            objects: depRefs,
            workers: 5,
            watchDelayUs: delayMs * MS,
            generationPredicate: true,
            desired: (o) => {
              const i = deps.indexOf(o.ref.name);
              const nr = rsInf.get(newRs[i] as SimRef);
              const or = rsInf.get(oldRs[i] as SimRef);
              const up = Number(nr?.status.readyReplicas ?? 0);
              const old = Number(or?.status.readyReplicas ?? 0);
              return { updatedReplicas: Number(nr?.spec.replicas ?? 0), readyReplicas: up + old, availableReplicas: up + old };
            },
          }),
        );
        // Pods of a ReplicaSet: the replicaset controller creates them, the kubelet marks them ready `readyS` later.
        const scale = (rs: SimRef, to: number, from: number) => {
          for (let k = from; k < to; k++) {
            const pod = ref('', 'v1', 'pods', ns, `${rs.name}-${w.rng.suffix(5)}`);
            w.call(rsc, { verb: 'create', ref: pod, body: { ownerRef: rs.name }, generateName: `${rs.name}-` });
            const node = bg.nodes[w.rng.int(0, bg.nodes.length - 1)] as { user: SimUser };
            w.at(w.now + s(readyS * w.rng.uniform(0.6, 1.4)), () =>
              w.call(node.user, { verb: 'patch', ref: pod, subresource: 'status', body: { phase: 'Running', ready: true } }, () => {
                ready.set(rs.name, (ready.get(rs.name) ?? 0) + 1);
                rsCtl.queue.add(keyOf(rs));
              }),
            );
          }
          if (to < from) {
            ready.set(rs.name, Math.min(ready.get(rs.name) ?? 0, to));
            for (let k = to; k < from; k++) w.call(rsc, { verb: 'delete', ref: ref('', 'v1', 'pods', ns, `${rs.name}-${w.rng.suffix(5)}`) });
          }
        };
        // The deployment controller's rollout step on every ReplicaSet status change.
        rsInf.on((e) => {
          const i =
            newRs.findIndex((r) => r.name === e.object.ref.name) >= 0 ? newRs.findIndex((r) => r.name === e.object.ref.name) : oldRs.findIndex((r) => r.name === e.object.ref.name);
          if (i < 0) return;
          const dRef = depRefs[i] as SimRef;
          depCtl.queue.add(keyOf(dRef));
          const nr = rsInf.get(newRs[i] as SimRef);
          const or = rsInf.get(oldRs[i] as SimRef);
          if (!nr || !or) return;
          const want = Number(nr.spec.replicas);
          const readyNew = Number(nr.status.readyReplicas ?? 0);
          if (readyNew >= want && want < replicas) {
            const next = Math.min(replicas, want + surge);
            w.call(dc, { verb: 'update', ref: nr.ref, rv: String(nr.rv), body: { ...nr.spec, replicas: next } }, (r) => {
              if (r.code === 200) scale(nr.ref, next, want);
            });
          }
          const oldWant = Math.max(0, replicas - readyNew);
          if (Number(or.spec.replicas) > oldWant)
            w.call(dc, { verb: 'update', ref: or.ref, rv: String(or.rv), body: { ...or.spec, replicas: oldWant } }, (r) => {
              if (r.code === 200) scale(or.ref, oldWant, Number(or.spec.replicas));
            });
        });
        // Rollouts start at spread times: a new template creates the new ReplicaSet with `surge` replicas.
        deps.forEach((_, i) =>
          w.at(s(20 + w.rng.uniform(0, 120)), () => {
            w.call(dc, { verb: 'update', ref: depRefs[i] as SimRef, rv: String((w.store.get(depRefs[i] as SimRef) as SimObject).rv), body: { replicas, image: 'v2' } });
            w.call(dc, { verb: 'create', ref: newRs[i] as SimRef, body: { replicas: surge } }, () => scale(newRs[i] as SimRef, surge, 0));
          }),
        );
        // Status writes from a cache a few ms behind the controller's own last write 409 now and then
        // (the kubernetes#16134 mechanism, short, requeued with backoff): a low note is fair.
        return { expected: [], acceptable: [{ kind: 'conflict-storm', actors: [dc, rsc], object: null }] };
      }),
  },
  {
    name: 'benign-cert-manager-renewal',
    source: 'cert-manager certificate lifecycle (renewBefore, one CertificateRequest per issuance)',
    benign: true,
    description:
      'cert-manager renews a batch of Certificates: each gets an Issuing condition, one CertificateRequest created, approved and signed, the Secret updated, and a Ready status; three controllers share one service account',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const base = serviceAccount('cert-manager', 'cert-manager', 'cert-manager', 'v1.14.4', '10.244.30.7', '');
        const ua = (c: string) => ({ ...base, userAgent: `cert-manager-${c}/v1.14.4 (linux/amd64) cert-manager/${'f'.repeat(7)}` });
        const trig = ua('certificates-trigger');
        const issuing = ua('certificates-issuing');
        const req = ua('certificaterequests-issuer-acme');
        const appr = ua('certificaterequests-approver');
        const n = p.int('certificates', 10, 80);
        const certs = mk(w, 'cert-manager.io', 'v1', 'certificates', ns, many(p, 'cert', n), { secretName: 'tls' }, { conditions: [{ type: 'Ready', status: 'True' }] });
        const secrets = mk(
          w,
          '',
          'v1',
          'secrets',
          ns,
          certs.map((c) => `${c.name}-tls`),
          { data: 'old' },
        );
        const window = p.num('renewalWindowS', 30, 200);
        certs.forEach((c, i) =>
          w.at(s(10 + w.rng.uniform(0, window)), () => {
            const cr = ref('cert-manager.io', 'v1', 'certificaterequests', ns, `${c.name}-${w.rng.suffix(5)}`);
            w.call(trig, { verb: 'patch', ref: c, subresource: 'status', body: { conditions: [{ type: 'Issuing', status: 'True', lastTransitionTime: nowIso(w) }] } });
            w.at(w.now + s(w.rng.uniform(0.2, 1)), () => w.call(req, { verb: 'create', ref: cr, body: { issuerRef: 'letsencrypt' }, generateName: `${c.name}-` }));
            w.at(w.now + s(w.rng.uniform(1.2, 2)), () =>
              w.call(appr, { verb: 'patch', ref: cr, subresource: 'status', body: { conditions: [{ type: 'Approved', status: 'True' }] } }),
            );
            w.at(w.now + s(w.rng.uniform(5, 30)), () => {
              w.call(req, { verb: 'patch', ref: cr, subresource: 'status', body: { certificate: 'signed', conditions: [{ type: 'Ready', status: 'True' }] } });
              w.at(w.now + s(w.rng.uniform(0.2, 1)), () =>
                w.call(issuing, { verb: 'update', ref: secrets[i] as SimRef, rv: String((w.store.get(secrets[i] as SimRef) as SimObject).rv), body: { data: 'new' } }),
              );
              w.at(w.now + s(w.rng.uniform(1.2, 2)), () =>
                w.call(issuing, {
                  verb: 'patch',
                  ref: c,
                  subresource: 'status',
                  body: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: nowIso(w) }], notAfter: '2026-10-01T00:00:00Z' },
                }),
              );
            });
          }),
        );
        return { expected: [] };
      }),
  },
  {
    name: 'benign-gitops-ssa-3min',
    source: 'flux kustomize-controller: server-side apply of every object each interval; identical applies are no-ops (audit-formats.md §4a, kubernetes#121404 fixed)',
    benign: true,
    description:
      'a GitOps controller server-side-applies hundreds of objects every 3 minutes; nothing changed, so the apiserver keeps every resourceVersion (RequestResponse on configmaps)',
    plan: (p) =>
      plan(p, ['configmaps'], (w, bg) => {
        const user = serviceAccount('flux-system', 'kustomize-controller', 'kustomize-controller', 'v1.3.0', '10.244.7.21', '');
        const n = p.int('objects', 150, 600);
        const interval = p.num('intervalS', 150, 210);
        const kinds: Array<[string, string, string]> = [
          ['', 'v1', 'configmaps'],
          ['apps', 'v1', 'deployments'],
          ['', 'v1', 'services'],
        ];
        for (const [g, v, res] of kinds) {
          const objs = bg.namespaces.flatMap((ns) => mk(w, g, v, res, ns, many(p, res, Math.ceil(n / 3 / bg.namespaces.length)), { data: 'x' }));
          operator(
            w,
            spec({
              user,
              group: g,
              version: v,
              resource: res,
              objects: objs,
              target: '',
              verb: 'apply',
              fieldManager: 'kustomize-controller',
              watchOwn: false,
              skipUnchanged: false,
              workers: 4,
              requeueAfterUs: s(interval),
              spreadStartUs: s(20),
              startUs: s(w.rng.uniform(0, 60)),
              desired: () => ({ data: 'x' }),
            }),
          );
        }
        return { expected: [] };
      }),
  },
  {
    name: 'benign-cronjobs',
    source: 'kube-controller-manager cronjob controller (CronJobControllerV2), job controller',
    benign: true,
    description:
      'CronJobs scheduled every minute or few: the cronjob controller creates a Job per schedule (unique name by scheduled time) and updates lastScheduleTime, the job controller creates pods and writes Job status as they finish',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const cc = kcm('cronjob-controller');
        const jc = kcm('job-controller');
        const n = p.int('cronjobs', 5, 40);
        const cjs = mk(w, 'batch', 'v1', 'cronjobs', ns, many(p, 'cron', n), { schedule: '*/1 * * * *' }, {});
        cjs.forEach((cj) => {
          const everyMin = w.rng.pick([1, 1, 2, 5]);
          for (let m = 1; m < 4; m++) {
            if (m % everyMin) continue;
            w.at(s(m * 60 + w.rng.uniform(0, 2)), () => {
              const sched = Math.floor((w.opts.startMs + m * 60_000) / 60_000);
              const job = ref('batch', 'v1', 'jobs', ns, `${cj.name}-${sched}`);
              w.call(cc, { verb: 'create', ref: job, body: { parallelism: 1 } });
              w.call(cc, { verb: 'update', ref: cj, subresource: 'status', rv: String((w.store.get(cj) as SimObject).rv), body: { lastScheduleTime: nowIso(w) } });
              const pod = ref('', 'v1', 'pods', ns, `${job.name}-${w.rng.suffix(5)}`);
              w.at(w.now + s(w.rng.uniform(0.05, 0.5)), () => {
                w.call(jc, { verb: 'create', ref: pod, body: { job: job.name }, generateName: `${job.name}-` });
                w.call(jc, { verb: 'update', ref: job, subresource: 'status', rv: String(w.store.get(job)?.rv ?? ''), body: { active: 1, startTime: nowIso(w) } });
              });
              w.at(w.now + s(w.rng.uniform(5, 40)), () => {
                const node = bg.nodes[0] as { user: SimUser };
                w.call(node.user, { verb: 'patch', ref: pod, subresource: 'status', body: { phase: 'Succeeded' } });
                w.at(w.now + s(0.1), () =>
                  w.call(jc, {
                    verb: 'update',
                    ref: job,
                    subresource: 'status',
                    rv: String(w.store.get(job)?.rv ?? ''),
                    body: { active: 0, succeeded: 1, completionTime: nowIso(w) },
                  }),
                );
              });
            });
          }
        });
        return { expected: [] };
      }),
  },
  {
    name: 'benign-startup-resync-burst',
    source: 'controller-runtime startup: initial list, every object reconciled once, 409 → rate-limited requeue (5 ms·2^n)',
    benign: true,
    description:
      'an operator restarts: its informer lists every object and it reconciles all of them within seconds; a few status writes race a second writer and get 409, requeued with backoff, then succeed; after that it is quiet',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const user = serviceAccount(ns, p.name('operators', 'operator'), 'manager', 'v0.0.0', ip(w));
        const other = serviceAccount(ns, 'status-reporter', 'reporter', 'v0.0.0', ip(w));
        const n = p.int('objects', 40, 200);
        const start = s(p.num('restartS', 30, 150));
        const objs = mk(w, 'apps.example.com', 'v1', 'widgets', ns, many(p, 'widget', n), { size: 1 }, { observedGeneration: 0 });
        const ctl = operator(
          w,
          spec({
            user,
            group: 'apps.example.com',
            version: 'v1',
            resource: 'widgets',
            objects: objs,
            workers: p.int('workers', 2, 8),
            watchDelayUs: 30 * MS,
            generationPredicate: true,
            startUs: start,
            spreadStartUs: s(1),
            desired: (o) => ({ observedGeneration: o.generation, phase: 'Ready' }),
          }),
        );
        void ctl;
        // Another component updates a few of the same objects' status right then (a real change).
        for (const o of objs.slice(0, Math.max(2, Math.floor(n / 20))))
          w.at(start + w.rng.uniform(0, s(1)), () => w.call(other, { verb: 'patch', ref: o, subresource: 'status', body: { reported: nowIso(w) } }));
        return { expected: [], acceptable: [{ kind: 'conflict-storm', actors: [user], object: null }] };
      }),
  },
  {
    name: 'benign-two-writers-minutes-apart',
    source: 'kubectl apply by a person and a CI job on one Deployment, minutes apart',
    benign: true,
    description:
      'a CI deployer changes the image and a person scales the replicas of the same Deployment, each a few minutes apart; each write carries the resourceVersion the other produced, but they are minutes apart',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const ci = human(p.name('humans', 'ci'), '192.0.2.20');
        const me = human('oncall@example.net', '192.0.2.21');
        const [d] = mk(w, 'apps', 'v1', 'deployments', ns, many(p, 'app', 1), { replicas: 3, image: 'v1' });
        const gap = p.num('gapS', 40, 110);
        let k = 0;
        w.every(s(10), s(gap), 0.3, () => {
          const u = k++ % 2 ? me : ci;
          w.call(
            u,
            { verb: 'get', ref: d as SimRef },
            (g) =>
              g.object &&
              w.call(u, {
                verb: 'update',
                ref: d as SimRef,
                rv: String(g.object.rv),
                body: u === ci ? { ...g.object.spec, image: `v${k}` } : { ...g.object.spec, replicas: 3 + (k % 4) },
              }),
          );
        });
        return { expected: [] };
      }),
  },
  {
    name: 'benign-endpointslice-rollout',
    source: 'kube-controller-manager endpointslice controller (100 endpoints per slice, --endpointslice-updates-batch-period 0)',
    benign: true,
    description: 'a large Service rolls its pods: the endpointslice controller rewrites the slices as endpoints become ready and go away; every write is a real change',
    plan: (p) =>
      plan(p, ['endpointslices'], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const user = kcm('endpointslice-controller');
        const endpoints = p.int('endpoints', 300, 1500);
        const slices = mk(
          w,
          'discovery.k8s.io',
          'v1',
          'endpointslices',
          ns,
          Array.from({ length: Math.ceil(endpoints / 100) }, () => `${p.pool.apps[0]}-${w.rng.suffix(5)}`),
          { endpoints: [] },
        );
        const dur = p.num('rolloutS', 60, 180);
        const changes = endpoints * 2;
        for (let k = 0; k < changes; k++) {
          w.at(s(20) + s(dur) * (k / changes) * w.rng.uniform(0.95, 1.05), () => {
            const sl = slices[w.rng.int(0, slices.length - 1)] as SimRef;
            const cur = w.store.get(sl) as SimObject;
            w.call(user, {
              verb: 'update',
              ref: sl,
              rv: String(cur.rv),
              body: { endpoints: [...((cur.spec.endpoints as string[]) ?? []).slice(-99), `10.${w.rng.int(0, 255)}.${w.rng.int(0, 255)}.${w.rng.int(1, 254)}`] },
            });
          });
        }
        return { expected: [] };
      }),
  },
  {
    name: 'benign-retry-on-conflict-handled',
    source: 'client-go retry.RetryOnConflict(DefaultBackoff: 4 steps, 10 ms ×5, jitter 0.1), GET before each retry',
    benign: true,
    description: 'a controller updates an object another writer really changes every few seconds; when its update 409s it GETs and retries with DefaultBackoff and succeeds',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const user = serviceAccount(ns, p.name('operators', 'operator'), 'manager', 'v0.0.0', ip(w));
        const other = kcm('horizontal-pod-autoscaler');
        const objs = mk(w, 'apps', 'v1', 'deployments', ns, many(p, 'svc', p.int('objects', 2, 8)), { replicas: 2, annotations: {} });
        const otherGap = p.num('otherWriterGapS', 2, 10);
        const ownGap = p.num('ownWriteGapS', 5, 20);
        for (const o of objs) {
          w.every(w.rng.uniform(0, s(otherGap)), s(otherGap), 0.5, () => w.call(other, { verb: 'patch', ref: o, body: { replicas: w.rng.int(2, 9) } }));
          const cache = w.informer('apps', 'deployments', 300 * MS);
          w.every(w.rng.uniform(0, s(ownGap)), s(ownGap), 0.5, () => {
            let first = true;
            retryOnConflict(
              w,
              BACKOFFS.DefaultBackoff,
              (d) => {
                const put = (cur: SimObject) =>
                  w.call(user, { verb: 'update', ref: o, rv: String(cur.rv), body: { ...cur.spec, annotations: { checked: nowIso(w) } } }, (r) => d(r.code === 409));
                if (first) {
                  first = false;
                  const c = cache.get(o);
                  if (c) return put(c);
                }
                w.call(user, { verb: 'get', ref: o }, (g) => (g.object ? put(g.object) : d(false)));
              },
              () => undefined,
            );
          });
        }
        return { expected: [] };
      }),
  },
  {
    name: 'benign-baseline-409-rate',
    source: 'kubernetes/kubernetes#16133: 1,174 409s in 444,821 requests (0.26 %), "visible, but not very dangerous"',
    benign: true,
    description:
      'a busy cluster: many controllers write status of many objects from informer caches while other writers touch the same objects; a fraction of a percent of requests are 409, spread over actors and objects, each retried once with backoff',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ops = p.int('controllers', 4, 10);
        const per = p.int('objectsPerController', 20, 80);
        const gap = p.num('changeGapS', 5, 30);
        const burst = p.num('burstShare', 0.001, 0.004);
        for (let c = 0; c < ops; c++) {
          const ns = bg.namespaces[c % bg.namespaces.length] as string;
          const user = serviceAccount(ns, `${p.pool.operators[c % p.pool.operators.length]}-${c}`, 'manager', 'v0.0.0', ip(w));
          const objs = mk(
            w,
            'example.com',
            'v1',
            `things${c}`,
            ns,
            Array.from({ length: per }, (_, i) => `${p.pool.apps[i % p.pool.apps.length]}-${c}-${i}`),
            { gen: 0 },
            {},
          );
          const ctl = operator(
            w,
            spec({
              user,
              group: 'example.com',
              version: 'v1',
              resource: `things${c}`,
              objects: objs,
              watchDelayUs: w.rng.uniform(20, 200) * MS,
              generationPredicate: true,
              desired: (o) => ({ observedGeneration: o.generation, ready: true }),
            }),
          );
          void ctl;
          const editor = serviceAccount(ns, 'config-sync', 'config-sync', 'v1.17.0', ip(w));
          // Edits sometimes come in pairs (apply, then label) a few hundred ms apart: a pair that lands
          // between the controller's cache read and its status write makes that write 409.
          const edit = (o: SimRef) => w.call(editor, { verb: 'patch', ref: o, body: { gen: w.rng.int(0, 1e6) } });
          for (const o of objs)
            w.every(w.rng.uniform(0, s(gap)), s(gap), 0.9, () => {
              edit(o);
              if (w.rng.next() < burst) w.at(w.now + w.rng.uniform(5, 300) * MS, () => edit(o));
            });
        }
        return { expected: [] };
      }),
  },
  {
    name: 'benign-requeue-backoff-resolves',
    source: 'controller-runtime: Reconcile returns an error → AddRateLimited (5 ms·2^n, cap 1000 s); success calls Forget',
    benign: true,
    description:
      'an operator waits for a Secret that does not exist yet: each reconcile GETs it (404) and returns an error, requeued with exponential backoff; after the Secret appears it reconciles once and writes status once',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const user = serviceAccount(ns, p.name('operators', 'operator'), 'manager', 'v0.0.0', ip(w));
        const n = p.int('objects', 1, 10);
        const objs = mk(w, 'db.example.com', 'v1', 'databases', ns, many(p, 'db', n), { secret: 'creds' }, { phase: 'Pending' });
        const appearS = p.num('secretAppearsS', 20, 150);
        for (const o of objs) {
          const sec = ref('', 'v1', 'secrets', ns, `${o.name}-creds`);
          const q = new WorkQueue(w, 1, 5, 1_000_000, (_k, done: (r: ReconcileResult) => void) => {
            w.call(user, { verb: 'get', ref: sec }, (g) => {
              if (!g.object) return done({ kind: 'error' });
              const cur = w.store.get(o) as SimObject;
              w.call(user, { verb: 'update', ref: o, subresource: 'status', rv: String(cur.rv), body: { phase: 'Ready' } }, (r) =>
                done(r.code === 409 ? { kind: 'error' } : { kind: 'ok' }),
              );
            });
          });
          w.at(s(w.rng.uniform(5, 15)), () => q.add(keyOf(o)));
          w.at(s(appearS + w.rng.uniform(0, 20)), () => w.call(human(p.pool.humans[0] as string, '192.0.2.30'), { verb: 'create', ref: sec, body: { data: 'x' } }));
        }
        return { expected: [] };
      }),
  },
  {
    name: 'benign-job-progress',
    source:
      'kube-controller-manager job controller: status written as pods finish (a hot-loop look-alike with real changes); pod events enqueue the Job after syncJobBatchPeriod (1 s, `enqueueSyncJobBatched` in pkg/controller/job/job_controller.go)',
    benign: true,
    description:
      'a large parallel Job: pods finish at a few per second for a couple of minutes and the job controller writes jobs/status on each sync that finds the succeeded count risen, at most about once a second as pod events within the batch period share one sync',
    plan: (p) =>
      plan(p, ['jobs'], (w, bg) => {
        const ns = bg.namespaces[3] as string;
        const jc = kcm('job-controller');
        const [job] = mk(w, 'batch', 'v1', 'jobs', ns, many(p, 'batch', 1), { parallelism: 100 }, { succeeded: 0 });
        const rate = p.num('podsPerS', 0.5, 4);
        const dur = p.num('durationS', 60, 200);
        let done = 0;
        const ctl = operator(
          w,
          spec({ user: jc, group: 'batch', version: 'v1', resource: 'jobs', objects: [job as SimRef], watchOwn: false, desired: () => ({ succeeded: done }) }),
        );
        w.every(s(20), s(1 / rate), 0.8, () => {
          if (w.now < s(20 + dur)) {
            done++;
            ctl.queue.addAfter(keyOf(job as SimRef), s(1));
          }
        });
        return { expected: [] };
      }),
  },
  {
    name: 'benign-create-existing-once',
    source: 'operator startup "ensure" of default objects: create, AlreadyExists, then get (once per object)',
    benign: true,
    description:
      'two replicas of an operator start and each ensures its default ConfigMaps and Services exist by creating them; every create after the first is AlreadyExists, once per object per start, then never again',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const op = p.name('operators', 'operator');
        const users = [0, 1].map(() => serviceAccount(ns, op, 'manager', 'v0.0.0', ip(w)));
        const names = many(p, 'default', p.int('objects', 5, 30));
        mk(w, '', 'v1', 'configmaps', ns, names, { data: 'x' });
        users.forEach((u, i) =>
          w.at(s(p.num(`start${i}S`, 20, 200)), () =>
            names.forEach((n, k) =>
              w.at(w.now + k * s(0.02), () => {
                const r = ref('', 'v1', 'configmaps', ns, n);
                w.call(u, { verb: 'create', ref: r, body: { data: 'x' } }, (res) => {
                  if (res.code === 409) w.call(u, { verb: 'get', ref: r });
                });
              }),
            ),
          ),
        );
        return { expected: [] };
      }),
  },
  {
    name: 'benign-bulk-apply-throttled',
    source: 'APF: 429 with Retry-After (1–32 s since 1.28); client-go retries 429 after Retry-After, up to 10 times (audit-formats.md §4c)',
    benign: true,
    description:
      'a CI job applies a few hundred objects at once; its APF flow admits only part of the burst, the rest get 429 and are retried after Retry-After 1 s, and everything is created within seconds',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const ci = human(p.name('humans', 'ci'), '192.0.2.40');
        const n = p.int('objects', 100, 500);
        const qps = p.num('apfSharePerS', 10, 40);
        w.setApf(ci.username, { ratePerSec: qps, burst: Math.round(qps * 2) });
        const at = s(p.num('startS', 30, 180));
        for (let k = 0; k < n; k++) {
          const r = ref('', 'v1', 'configmaps', ns, `${p.pool.apps[k % p.pool.apps.length]}-cfg-${k}`);
          let tries = 0;
          const send = () =>
            w.call(ci, { verb: 'create', ref: r, body: { data: 'x' } }, (res) => {
              if (res.code === 429 && ++tries <= 10) w.at(w.now + s(1) + w.rng.uniform(0, 50) * MS, send);
            });
          w.at(at + k * (s(1) / 50), send);
        }
        return { expected: [], acceptable: [{ kind: 'throttling', actors: [ci], object: null }] };
      }),
  },
  {
    name: 'benign-ci-pipelineruns',
    source: 'Tekton Triggers and Pipelines (EventListener TriggerTemplates with generateName, child TaskRuns named <pipelinerun>-<task>), a pruner keeping recent runs',
    benign: true,
    description:
      'a busy CI namespace: webhook events make an EventListener create PipelineRuns with generateName (one prefix per repository and trigger), the pipelines controller writes their status and creates one TaskRun per task in turn, a dashboard reads runs by name, and a pruner deletes the oldest runs (the garbage collector their TaskRuns)',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const listener = serviceAccount(ns, 'tekton-triggers-sa', 'eventlistenersink', 'v0.0.0', ip(w));
        const pipelines = serviceAccount('tekton-pipelines', 'tekton-pipelines-controller', 'controller', 'v0.0.0', ip(w));
        const pruner = serviceAccount('tekton-pipelines', 'tekton-pruner', 'tkn', 'v0.37.0', ip(w));
        const dashboard = serviceAccount('tekton-pipelines', 'tekton-dashboard', 'dashboard', 'v0.0.0', ip(w));
        const gc = kcm('generic-garbage-collector');
        const repos = many(p, 'repo', p.int('repositories', 4, 30));
        const perMin = p.num('pipelineRunsPerMin', 1, 12);
        const tasks = ['fetch', 'lint', 'build', 'test', 'scan', 'push'].slice(0, p.int('tasks', 2, 6));
        const taskS = p.num('taskS', 8, 60);
        const prRes = (name: string) => ref('tekton.dev', 'v1', 'pipelineruns', ns, name);
        const trRes = (name: string) => ref('tekton.dev', 'v1', 'taskruns', ns, name);
        // A few repositories get most events (a monorepo, a busy service): index ⌊n·u²⌋.
        const repo = () => repos[Math.floor(repos.length * w.rng.next() ** 2)] as string;
        const runName = () => `${repo()}-${w.rng.pick(['push', 'pr'])}-${w.rng.suffix(5)}`;
        // Runs finished before the log, oldest first, with their TaskRuns.
        const done: string[] = [];
        for (let k = p.int('keptRuns', 50, 300); k > 0; k--) {
          const name = runName();
          w.store.create(prRes(name), { pipelineRef: 'ci' }, { conditions: [{ type: 'Succeeded', status: 'True' }] });
          for (const t of tasks) w.store.create(trRes(`${name}-${t}`), { taskRef: t }, { conditions: [{ type: 'Succeeded', status: 'True' }] });
          done.push(name);
        }
        const inf = w.informer('tekton.dev', 'pipelineruns', p.num('watchDelayMs', 10, 150) * MS);
        const status = (r: SimRef, body: Record<string, unknown>) =>
          w.call(pipelines, { verb: 'update', ref: r, subresource: 'status', rv: String(w.store.get(r)?.rv ?? ''), body });
        // The pipelines controller: status Running, then each task's TaskRun in turn.
        const runTask = (pr: SimRef, i: number) => {
          if (i >= tasks.length) {
            status(pr, { conditions: [{ type: 'Succeeded', status: 'True', lastTransitionTime: nowIso(w) }], completionTime: nowIso(w) });
            done.push(pr.name);
            return;
          }
          const tr = trRes(`${pr.name}-${tasks[i] as string}`);
          w.call(pipelines, { verb: 'create', ref: tr, body: { taskRef: tasks[i], pipelineRun: pr.name } }, () => {
            w.call(pipelines, { verb: 'create', ref: ref('', 'v1', 'pods', ns, `${tr.name}-pod`), body: { taskRun: tr.name } });
            status(tr, { conditions: [{ type: 'Succeeded', status: 'Unknown', reason: 'Running' }], podName: `${tr.name}-pod` });
            status(pr, { conditions: [{ type: 'Succeeded', status: 'Unknown', reason: 'Running' }], childReferences: i + 1 });
          });
          w.at(w.now + s(taskS * w.rng.uniform(0.5, 1.5)), () => {
            status(tr, { conditions: [{ type: 'Succeeded', status: 'True', lastTransitionTime: nowIso(w) }] });
            runTask(pr, i + 1);
          });
        };
        inf.on((e) => {
          if (e.type !== 'ADDED') return;
          const pr = e.object.ref;
          w.at(w.now + w.rng.uniform(2, 30) * MS, () => {
            status(pr, { conditions: [{ type: 'Succeeded', status: 'Unknown', reason: 'Running' }], startTime: nowIso(w) });
            runTask(pr, 0);
          });
        });
        // Webhook events (Poisson); a push may start the push and the pr pipeline of a repository at once.
        const event = () => {
          const n = w.rng.next() < 0.2 ? 2 : 1;
          for (let k = 0; k < n; k++) {
            const name = runName();
            const prefix = name.slice(0, -5);
            w.call(listener, { verb: 'create', ref: prRes(name), body: { pipelineRef: 'ci' }, generateName: prefix });
          }
          w.at(w.now + s(w.rng.exp(60 / perMin)), event);
        };
        w.at(s(w.rng.exp(60 / perMin)), event);
        // The dashboard opens a run now and then: a recent one, or an old one from the list.
        w.every(s(w.rng.uniform(2, 8)), s(p.num('dashboardReadS', 3, 20)), 0.5, () => {
          const name = w.rng.pick(done);
          w.call(dashboard, { verb: 'get', ref: prRes(name) });
        });
        // The pruner keeps the newest runs: every interval it lists them and deletes the oldest
        // finished ones beyond what it keeps; the garbage collector deletes their TaskRuns.
        const keep = done.length;
        w.every(s(w.rng.uniform(10, 60)), s(p.num('pruneIntervalS', 30, 120)), 0.1, () => {
          w.call(pruner, { verb: 'list', ref: prRes('') }, () => {
            while (done.length > keep) {
              const name = done.shift() as string;
              w.call(pruner, { verb: 'delete', ref: prRes(name) });
              for (const t of tasks) w.at(w.now + w.rng.uniform(50, 800) * MS, () => w.call(gc, { verb: 'delete', ref: trRes(`${name}-${t}`) }));
            }
          });
        });
        return { expected: [] };
      }),
  },
  {
    name: 'benign-daemonset-rollout',
    source: 'kube-controller-manager daemonset controller (RollingUpdate maxUnavailable), kubelets writing pod status on real transitions',
    benign: true,
    description:
      'a DaemonSet rolls over hundreds of nodes in batches: the controller deletes and creates one pod per node, each kubelet patches its pod status twice (Running, Ready), and the controller updates the DaemonSet status as pods become ready (on a 409 it GETs the live object and retries, as storeDaemonSetStatus does)',
    plan: (p) => {
      const n = p.int('nodes', 100, 400);
      const maxUnavailable = p.int('maxUnavailable', 5, 40);
      const delayMs = p.num('watchDelayMs', 5, 40);
      return {
        requestResponse: [],
        nodes: n,
        run: (w, bg) => {
          const ds = kcm('daemon-set-controller');
          const ns = 'kube-system';
          const name = `${p.name('apps', 'daemonset')}-agent`;
          const [dsRef] = mk(w, 'apps', 'v1', 'daemonsets', ns, [name], { image: 'v1' }, { numberReady: n, updatedNumberScheduled: 0 });
          let updated = 0;
          let next = 0;
          const ctl = operator(
            w,
            spec({
              user: ds,
              group: 'apps',
              version: 'v1',
              resource: 'daemonsets',
              objects: [dsRef as SimRef],
              watchOwn: false,
              watchDelayUs: delayMs * MS,
              onConflict: 'retryOnConflict',
              desired: () => ({ updatedNumberScheduled: updated, numberReady: n - (next - updated) }),
            }),
          );
          const startPod = () => {
            if (next >= bg.nodes.length) return;
            const node = bg.nodes[next++] as { name: string; user: SimUser };
            const pod = ref('', 'v1', 'pods', ns, `${name}-${w.rng.suffix(5)}`);
            w.call(ds, { verb: 'delete', ref: ref('', 'v1', 'pods', ns, `${name}-old-${node.name}`) });
            w.call(ds, { verb: 'create', ref: pod, body: { nodeName: node.name }, generateName: `${name}-` });
            ctl.queue.add(keyOf(dsRef as SimRef));
            w.at(w.now + s(w.rng.uniform(1, 4)), () => w.call(node.user, { verb: 'patch', ref: pod, subresource: 'status', body: { phase: 'Running' } }));
            w.at(w.now + s(w.rng.uniform(5, 12)), () =>
              w.call(node.user, { verb: 'patch', ref: pod, subresource: 'status', body: { phase: 'Running', ready: true } }, () => {
                updated++;
                ctl.queue.add(keyOf(dsRef as SimRef));
                startPod();
              }),
            );
          };
          w.at(s(20), () => {
            for (let k = 0; k < maxUnavailable; k++) startPod();
          });
          // Its status writes from a cache a few ms behind its own last write 409 now and then
          // (the kubernetes#16134 mechanism, short and each retried once after a GET): a low note is fair.
          // A retry writes its status onto the live copy without comparing, so when the write it raced
          // already stored that status it changes nothing: a proven no-op note is fair too.
          return {
            expected: [],
            acceptable: [
              { kind: 'conflict-storm', actors: [ds], object: { ref: dsRef as SimRef, subresource: 'status' } },
              { kind: 'no-op-writes', actors: [ds], object: { ref: dsRef as SimRef, subresource: 'status' } },
            ],
          };
        },
      };
    },
  },
  {
    name: 'benign-many-rollouts',
    source: 'kube-controller-manager deployment controller (RollingUpdate maxSurge 25 %, maxUnavailable 25 %, 5 workers): a cluster-wide image bump',
    benign: true,
    description:
      "dozens of Deployments roll at once (one image bumped in all of them): as each new pod becomes ready the old ReplicaSet loses one and a new pod starts, and the deployment controller updates each Deployment's status on every such change (a real change: the counts move); each rollout ends when its last pod is ready, and the controller goes quiet",
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const dc = kcm('deployment-controller');
        const n = p.int('deployments', 20, 120);
        const maxReplicas = p.int('maxReplicas', 4, 40);
        const readyS = p.num('podReadyS', 5, 60);
        const names = many(p, 'deploy', n);
        const replicas = names.map(() => w.rng.int(2, maxReplicas));
        const refs = mk(w, 'apps', 'v1', 'deployments', ns, names, { image: 'v1' }, { updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0 });
        const st = replicas.map((r) => ({ replicas: r, started: 0, ready: 0 }));
        const ctl = operator(
          w,
          spec({
            user: dc,
            group: 'apps',
            version: 'v1',
            resource: 'deployments',
            objects: refs,
            workers: 5,
            watchDelayUs: 20 * MS,
            generationPredicate: true,
            desired: (o) => {
              const d = st[names.indexOf(o.ref.name)] as (typeof st)[number];
              return { updatedReplicas: d.started, readyReplicas: d.replicas, availableReplicas: d.replicas - (d.started - d.ready) };
            },
          }),
        );
        // One new pod: ready `readyS`·[0.5, 1.5) later, when an old one goes and the next new one
        // starts; the controller syncs the Deployment once per such change.
        const startPod = (i: number) => {
          const d = st[i] as (typeof st)[number];
          if (d.started >= d.replicas) return;
          d.started++;
          w.at(w.now + s(readyS * w.rng.uniform(0.5, 1.5)), () => {
            d.ready++;
            startPod(i);
            ctl.queue.add(keyOf(refs[i] as SimRef));
          });
        };
        // The bump reaches every Deployment within a minute (a GitOps sync or a script).
        const at = s(p.num('bumpAtS', 20, 200));
        st.forEach((d, i) =>
          w.at(at + w.rng.uniform(0, s(60)), () => {
            for (let k = 0; k < Math.max(1, Math.ceil(d.replicas * 0.25)); k++) startPod(i);
            ctl.queue.add(keyOf(refs[i] as SimRef));
          }),
        );
        return { expected: [] };
      }),
  },
  {
    name: 'benign-batch-jobs-progress',
    source: 'kube-controller-manager job controller: a Job is synced at most once per syncJobBatchPeriod (1 s) after its pods change, and its status written when a count changes',
    benign: true,
    description:
      "a batch cluster runs dozens of large Jobs at once, each keeping `parallelism` pods busy for minutes to hours: every pod that finishes is replaced, and the job controller writes each Job's status (succeeded, active, ready) on each change, every few seconds for as long as the Job runs; each write is a real change, at irregular gaps (pods finish independently)",
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['jobs'] : [], (w, bg) => {
        const ns = bg.namespaces[3] as string;
        const jc = kcm('job-controller');
        const n = p.int('jobs', 10, 60);
        const parallelism = p.int('parallelism', 20, 200);
        const podS = p.num('podDurationS', 60, 300);
        const names = many(p, 'batch', n);
        const refs = mk(w, 'batch', 'v1', 'jobs', ns, names, { parallelism, completions: 100_000 }, { succeeded: 0, active: 0, ready: 0 });
        const st = names.map(() => ({ succeeded: 0, active: 0, ready: 0 }));
        const ctl = operator(
          w,
          spec({
            user: jc,
            group: 'batch',
            version: 'v1',
            resource: 'jobs',
            objects: refs,
            workers: 5,
            watchOwn: false,
            desired: (o) => ({ ...st[names.indexOf(o.ref.name)] }),
          }),
        );
        const sync = (i: number) => ctl.queue.addAfter(keyOf(refs[i] as SimRef), s(1));
        // One pod slot: start a pod, ready a few seconds later, done after its run, then the next.
        const slot = (i: number) => {
          const j = st[i] as (typeof st)[number];
          j.active++;
          sync(i);
          w.at(w.now + s(w.rng.uniform(2, 8)), () => {
            j.ready++;
            sync(i);
          });
          w.at(w.now + s(podS * w.rng.uniform(0.5, 1.5)), () => {
            j.active--;
            j.ready--;
            j.succeeded++;
            sync(i);
            slot(i);
          });
        };
        // The Jobs were started before the log, at different times: their pods are out of step.
        st.forEach((_, i) => {
          for (let k = 0; k < parallelism; k++) w.at(w.rng.uniform(0, s(podS)), () => slot(i));
        });
        return { expected: [] };
      }),
  },
  {
    name: 'benign-polling-lastsync',
    source: 'controller-runtime RequeueAfter polling of an external system (30–60 s is the common choice), GenerationChangedPredicate, status.lastSyncTime stamped on every pass',
    benign: true,
    description:
      'an operator polls an external system for each of hundreds of objects every 30–60 s (RequeueAfter) and records status.lastSyncTime on every pass, a real change; its own status writes do not re-trigger it (GenerationChangedPredicate); Metadata level, the level the sweep rule judges (with bodies, re-stamping faster than every 5 min is excess by the timestamp rules of hot-loop and no-op-writes)',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const user = serviceAccount(ns, p.name('operators', 'operator'), 'manager', 'v0.0.0', ip(w));
        const period = p.num('requeueAfterS', 30, 60);
        const objs = mk(w, 'sync.example.com', 'v1', 'externalrecords', ns, many(p, 'record', p.int('objects', 100, 600)), { source: 'api' }, { phase: 'Synced' });
        operator(
          w,
          spec({
            user,
            group: 'sync.example.com',
            version: 'v1',
            resource: 'externalrecords',
            objects: objs,
            workers: 2,
            generationPredicate: true,
            requeueAfterUs: s(period),
            spreadStartUs: s(period),
            reconcileWorkUs: () => w.rng.uniform(20, 200) * MS,
            desired: () => ({ phase: 'Synced', lastSyncTime: nowIso(w) }),
          }),
        );
        return { expected: [] };
      }),
  },
  {
    name: 'benign-backlog-drain',
    source: "controller-runtime after a restart or an outage of its external API: the workqueue holds every object, one or two workers drain it at the external API's pace",
    benign: true,
    description:
      'an operator comes back after its cloud API was down: hundreds of objects need provisioning, each reconcile calls the API (0.2–1 s), writes status Provisioning, and a RequeueAfter pass later writes Ready; for many minutes it writes status at a steady few per second, but each object only twice',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const user = serviceAccount(ns, p.name('operators', 'operator'), 'manager', 'v0.0.0', ip(w));
        const n = p.int('objects', 300, 1500);
        const apiMs = p.num('apiMs', 200, 1000);
        const objs = mk(w, 'infra.example.com', 'v1', 'buckets', ns, many(p, 'bucket', n), { size: 1 }, { phase: 'Pending' });
        const passes = new Map<string, number>();
        operator(
          w,
          spec({
            user,
            group: 'infra.example.com',
            version: 'v1',
            resource: 'buckets',
            objects: objs,
            workers: p.int('workers', 1, 3),
            generationPredicate: true,
            requeueAfterUs: s(p.num('requeueAfterS', 20, 60)),
            startUs: s(p.num('restartS', 10, 60)),
            reconcileWorkUs: () => apiMs * w.rng.uniform(0.7, 1.3) * MS,
            desired: (o) => {
              const k = o.ref.name;
              const seen = (passes.get(k) ?? 0) + 1;
              passes.set(k, seen);
              return { phase: seen === 1 ? 'Provisioning' : 'Ready' };
            },
          }),
        );
        return { expected: [] };
      }),
  },
];
