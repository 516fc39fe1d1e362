/**
 * Background traffic every scenario runs inside: kubelets renewing their node Leases every 10 s
 * and patching node status, leader-election renewals of kube-controller-manager and
 * kube-scheduler every 2 s, pod churn (ReplicaSet controller creates and deletes pods, kubelets
 * patch their status), Events with unique names, and reads (get, list, watch) by operators.
 * Intervals: kubelet `nodeLeaseDurationSeconds`/4 ≈ 10 s, leader election `RetryPeriod` 2 s
 * (audit-formats.md §5; client-go `leaderelection`).
 */
import { component, kcm, kubelet, serviceAccount } from './users.js';
import type { Sampler } from './names.js';
import { MS, SECOND, type SimUser, type World } from './world.js';
import type { SimRef } from './store.js';

/** Ref helper: core group when `group` is ''. */
export function ref(group: string, version: string, resource: string, namespace: string, name: string): SimRef {
  return { group, version, resource, namespace, name };
}

/** Node names and users of a background with `n` nodes. */
export function nodes(p: Sampler, n: number): Array<{ name: string; user: SimUser }> {
  const prefix = p.name('nodePrefix', 'nodePrefix');
  return Array.from({ length: n }, (_, i) => {
    const name = `${prefix}${10 + Math.floor(i / 250)}-${i % 250}`;
    return { name, user: kubelet(name, `10.${1 + Math.floor(i / 250)}.${i % 250}.${10 + (i % 7)}`) };
  });
}

/** Renew `lease` every `periodUs` from the last response's resourceVersion (never stale). */
export function renewLease(w: World, user: SimUser, lease: SimRef, periodUs: number, startUs: number, stopUs = Infinity): void {
  let rv = '';
  const tick = () => {
    if (w.now >= stopUs) return;
    const body = { holderIdentity: user.username, renewTime: new Date(w.opts.startMs + w.now / 1000).toISOString(), leaseDurationSeconds: 40 };
    const go = () =>
      w.call(user, { verb: 'update', ref: lease, rv, body }, (r) => {
        if (r.object) rv = String(r.object.rv);
        else if (r.code === 409)
          w.call(user, { verb: 'get', ref: lease }, (g) => {
            if (g.object) rv = String(g.object.rv);
          });
      });
    if (rv === '')
      w.call(user, { verb: 'get', ref: lease }, (g) => {
        if (g.object) {
          rv = String(g.object.rv);
          go();
        }
      });
    else go();
    w.at(w.now + periodUs * (1 + w.rng.uniform(-0.02, 0.02)), tick);
  };
  w.at(startUs, tick);
}

/**
 * Start background traffic over `namespaces` with `nodeCount` kubelets; returns the node list.
 * Objects it needs exist before the log starts (created on the store directly, not logged).
 */
export function background(w: World, p: Sampler, nodeCount: number, namespaces: string[]): Array<{ name: string; user: SimUser }> {
  const ns = nodes(p, nodeCount);
  const s = w.store;
  for (const n of ns) {
    s.create(ref('', 'v1', 'nodes', '', n.name), { podCIDR: '10.244.0.0/24' }, { conditions: [{ type: 'Ready', status: 'True' }] });
    s.create(ref('coordination.k8s.io', 'v1', 'leases', 'kube-node-lease', n.name), { holderIdentity: n.name });
    renewLease(w, n.user, ref('coordination.k8s.io', 'v1', 'leases', 'kube-node-lease', n.name), 10 * SECOND, w.rng.uniform(0, 10) * SECOND);
    // Node status: reported every nodeStatusReportFrequency (5 min) or on change; a minute here.
    w.every(w.rng.uniform(0, 60) * SECOND, 60 * SECOND, 0.1, () =>
      w.call(n.user, {
        verb: 'patch',
        ref: ref('', 'v1', 'nodes', '', n.name),
        subresource: 'status',
        body: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: new Date(w.opts.startMs + w.now / 1000).toISOString() }] },
      }),
    );
  }
  for (const [name, user] of [
    ['kube-controller-manager', component('system:kube-controller-manager', 'kube-controller-manager', 'leader-election')],
    ['kube-scheduler', component('system:kube-scheduler', 'kube-scheduler', 'leader-election')],
  ] as const) {
    s.create(ref('coordination.k8s.io', 'v1', 'leases', 'kube-system', name), { holderIdentity: name });
    renewLease(w, user, ref('coordination.k8s.io', 'v1', 'leases', 'kube-system', name), 2 * SECOND, w.rng.uniform(0, 2) * SECOND);
  }
  const rs = kcm('replicaset-controller');
  const eventers = [kcm('deployment-controller'), component('system:kube-scheduler', 'kube-scheduler', ''), rs];
  const readers = [
    serviceAccount('monitoring', 'prometheus', 'prometheus', 'v2.53.0', '10.244.3.17'),
    serviceAccount('kube-system', 'coredns', 'coredns', 'v1.11.1', '10.244.1.5'),
    serviceAccount('argocd', 'argocd-application-controller', 'argocd-application-controller', 'v2.11.3', '10.244.2.9'),
  ];
  // Pod churn: a pod every ~3 s, Running ~2 s later, deleted 1–3 min later.
  w.every(w.rng.uniform(0, 3) * SECOND, 3 * SECOND, 0.5, () => {
    const nsName = w.rng.pick(namespaces);
    const owner = `${p.rng.pick(p.pool.apps)}-${w.rng.suffix(9)}-`;
    const pod = ref('', 'v1', 'pods', nsName, `${owner}${w.rng.suffix(5)}`);
    const node = w.rng.pick(ns);
    w.call(rs, { verb: 'create', ref: pod, body: { nodeName: node.name }, generateName: owner });
    w.at(w.now + w.rng.uniform(1, 3) * SECOND, () => w.call(node.user, { verb: 'patch', ref: pod, subresource: 'status', body: { phase: 'Running' } }));
    w.at(w.now + w.rng.uniform(60, 180) * SECOND, () => w.call(rs, { verb: 'delete', ref: pod }));
  });
  // Events with unique names (`<object>.<16 hex>`), several a second.
  w.every(0, 400 * MS, 0.6, () => {
    const e = ref(
      '',
      'v1',
      'events',
      w.rng.pick(namespaces),
      `${w.rng.pick(p.pool.apps)}-${w.rng.suffix(5)}.${Math.floor(w.rng.next() * 2 ** 48)
        .toString(16)
        .padStart(12, '0')}${w.rng.int(1000, 9999)}`,
    );
    w.call(w.rng.pick(eventers), { verb: 'create', ref: e, body: { reason: 'Scheduled' } });
  });
  // Reads: gets of configmaps/secrets, lists, and watch (re)starts.
  w.every(0, 120 * MS, 0.8, () => {
    const u = w.rng.pick(readers);
    const nsName = w.rng.pick(namespaces);
    const x = w.rng.next();
    if (x < 0.6) w.call(u, { verb: 'get', ref: ref('', 'v1', w.rng.next() < 0.5 ? 'configmaps' : 'secrets', nsName, `${w.rng.pick(p.pool.apps)}-config`) });
    else if (x < 0.9) w.call(u, { verb: 'list', ref: ref('', 'v1', 'pods', nsName, '') });
    else w.call(u, { verb: 'watch', ref: w.rng.next() < 0.5 ? ref('', 'v1', 'pods', '', '') : ref('apps', 'v1', 'deployments', '', '') });
  });
  return ns;
}
