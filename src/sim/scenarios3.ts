/**
 * Incident scenarios, third part: real-incidents.md B.1 items 2 and 20–30, and the B.2 lines
 * whose mechanism no other scenario has (dra-driver#1101, keda#2035, http-add-on#1402,
 * external-secrets#3817, neondatabase/autoscaling#796). Each is written from what the thread says
 * the writers did (who writes what, how often, from which cache and resourceVersion); the store
 * answers 200, 409 Conflict, 409 AlreadyExists or a no-op from that. See scenarios.ts for the
 * `expected` / `acceptable` contract.
 */
import { nowIso, operator } from './actors.js';
import { ref } from './background.js';
import type { SimObject, SimRef } from './store.js';
import { expectIfInReach, type SimScenario } from './scenarios.js';
import { many, mk, nowMs, obj, plan, sa, spec, unchangedUpdater } from './scenarios2.js';
import { human, kcm, serviceAccount } from './users.js';
import { MS, SECOND, type SimUser, type World } from './world.js';

const s = (x: number) => x * SECOND;
const keyOf = (r: SimRef) => `${r.group}/${r.resource}/${r.namespace}/${r.name}`;

/** A user with the same service account and a different client-go user agent (one binary, several controllers). */
function withAgent(u: SimUser, userAgent: string): SimUser {
  return { ...u, userAgent };
}

/** Go map iteration order: the same members in a random order (a real change to the serialized object). */
function shuffled<T>(w: World, xs: readonly T[]): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = w.rng.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * `xs` in a random order other than `current` (when `current` is an order of them): a status whose
 * every write changes the object, as real-incidents.md item 24 documents for zookeeper-operator#389
 * ("an RV increment on every write", "Reconciles endlessly").
 */
function reordered<T>(w: World, xs: readonly T[], current: unknown): T[] {
  const same = (a: T[]) => Array.isArray(current) && current.length === a.length && a.every((x, i) => current[i] === x);
  let out = shuffled(w, xs);
  while (xs.length > 1 && same(out)) out = shuffled(w, xs);
  return out;
}

/** The third batch of incident scenarios. */
export const INCIDENT_SCENARIOS_3: SimScenario[] = [
  {
    name: 'baseline-409-rate',
    source: 'kubernetes/kubernetes#16133',
    benign: true,
    description:
      'a busy cluster at its normal 409 rate: controllers write Deployment status on real pod changes from a watch cache a few ms behind, CI updates specs by GET→PUT; the rare 409 is retried with RetryOnConflict (re-GET) and succeeds. About 0.1–0.5 % of requests are 409; nothing to report',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const user = kcm('deployment-controller');
        const ci = human(p.name('humans', 'ci'), '192.0.2.40');
        const ds = mk(w, 'apps', 'v1', 'deployments', ns, many(p, 'deploy', p.int('deployments', 20, 80)), { replicas: 3, image: 'v1' }, { ready: 3 });
        const podGap = p.num('podChangeGapMs', 300, 1500);
        const pods = ds.flatMap((d) =>
          mk(
            w,
            '',
            'v1',
            'pods',
            ns,
            [0, 1, 2].map((i) => `${d.name}-${w.rng.suffix(5)}${i}`),
            {},
            { ready: true },
          ),
        );
        const podInf = w.informer('', 'pods', 15 * MS);
        const ctl = operator(
          w,
          spec({
            user,
            group: 'apps',
            version: 'v1',
            resource: 'deployments',
            objects: ds,
            watchDelayUs: 15 * MS,
            workers: 5,
            onConflict: 'retryOnConflict',
            generationPredicate: true,
            desired: (o) => ({
              ready: [...podInf.cache.values()].filter((x) => x.ref.name.startsWith(`${o.ref.name}-`) && x.status.ready === true).length,
              observedGeneration: o.generation,
            }),
          }),
        );
        podInf.on((e) => {
          const d = ds.find((x) => e.object.ref.name.startsWith(`${x.name}-`));
          if (d) ctl.queue.add(keyOf(d));
        });
        let i = 0;
        w.every(s(5), podGap * MS, 0.5, () => {
          const pod = pods[i++ % pods.length] as SimRef;
          const node = w.rng.pick(bg.nodes).user;
          w.call(node, { verb: 'patch', ref: pod, subresource: 'status', body: { ready: w.rng.next() < 0.8 } });
        });
        // CI rolls an image every 10–40 s: GET, think, PUT with the resourceVersion it read.
        w.every(s(10), s(p.num('ciPeriodS', 10, 40)), 0.3, () => {
          const d = w.rng.pick(ds);
          const put = (left: number) =>
            w.call(ci, { verb: 'get', ref: d }, (g) => {
              if (!g.object) return;
              const o = g.object;
              w.at(w.now + w.rng.uniform(5, 60) * MS, () =>
                w.call(ci, { verb: 'update', ref: d, rv: String(o.rv), body: { ...o.spec, image: `v${w.rng.int(2, 99)}` } }, (r) => {
                  if (r.code === 409 && left > 0) put(left - 1);
                }),
              );
            });
          put(3);
        });
        return { expected: [] };
      }),
  },
  {
    name: 'certmanager-request-storm',
    source: 'cert-manager/cert-manager#6714',
    benign: false,
    description:
      'after an issuer change the Secret never matches the Certificate: the trigger controller sets Issuing, the request-manager creates a new CertificateRequest (generateName, so only a logged response body names it), the issuer signs it, the issuing controller writes the Secret and clears Issuing, and the trigger fires again; one service account, three userAgents, each under 2 writes/s',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const base = serviceAccount('cert-manager', 'cert-manager', 'cert-manager', 'v1.14.4', '10.244.21.6');
        const ua = (c: string) => withAgent(base, `cert-manager-${c}/v1.14.4 (linux/amd64) cert-manager/f2ab6e0`);
        const trigger = ua('certificates-trigger');
        const requests = ua('certificates-request-manager');
        const issuing = ua('certificates-issuing');
        const issuer = serviceAccount('cert-manager', 'aws-privateca-issuer', 'aws-privateca-issuer', 'v1.2.7', '10.244.21.9');
        const certs = mk(
          w,
          'cert-manager.io',
          'v1',
          'certificates',
          ns,
          many(p, 'cert', p.int('certificates', 1, 3)),
          { issuerRef: 'pca-new', secretName: 'tls' },
          { revision: 1 },
        );
        for (const c of certs) mk(w, '', 'v1', 'secrets', ns, [`${c.name}-tls`], { issuer: 'pca-old' });
        const signMs = p.num('signingMs', 150, 900);
        const delay = p.num('watchDelayMs', 20, 150) * MS;
        const certInf = w.informer('cert-manager.io', 'certificates', delay);
        const crInf = w.informer('cert-manager.io', 'certificaterequests', delay);
        const pending = new Set<string>();
        const fire = (c: SimRef) => {
          const o = certInf.get(c);
          if (!o || o.status.issuing === true || pending.has(c.name)) return;
          pending.add(c.name);
          // Secret's issuer annotation differs from the Certificate's issuerRef: re-issue.
          w.at(w.now + w.rng.uniform(1, 5) * MS, () =>
            w.call(trigger, { verb: 'get', ref: ref('', 'v1', 'secrets', ns, `${c.name}-tls`) }, () =>
              w.call(trigger, { verb: 'patch', ref: c, subresource: 'status', body: { issuing: true, issuingSince: nowMs(w) } }, () => pending.delete(c.name)),
            ),
          );
        };
        certInf.on((e) => {
          const c = certs.find((x) => x.name === e.object.ref.name);
          if (!c) return;
          if (e.object.status.issuing === true) {
            // request-manager: no CertificateRequest for the next revision yet, so create one.
            w.at(w.now + w.rng.uniform(1, 8) * MS, () => {
              const cr = ref('cert-manager.io', 'v1', 'certificaterequests', ns, `${c.name}-${w.rng.suffix(5)}`);
              w.call(requests, { verb: 'create', ref: cr, body: { owner: c.name, revision: (e.object.status.revision as number) + 1 }, generateName: `${c.name}-` });
            });
          } else fire(c);
        });
        crInf.on((e) => {
          if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
          const c = certs.find((x) => x.name === e.object.spec.owner);
          if (!c) return;
          if (e.type === 'ADDED') {
            w.at(w.now + signMs * w.rng.uniform(0.7, 1.3) * MS, () =>
              w.call(issuer, { verb: 'patch', ref: e.object.ref, subresource: 'status', body: { ready: true, certificate: w.rng.suffix(12) } }),
            );
          } else if (e.object.status.ready === true) {
            // issuing: copy the signed certificate into the Secret (still the old issuer annotation) and clear Issuing.
            w.call(issuing, { verb: 'update', ref: ref('', 'v1', 'secrets', ns, `${c.name}-tls`), body: { issuer: 'pca-old', crt: e.object.status.certificate } }, () => {
              const cur = certInf.get(c);
              w.call(issuing, { verb: 'patch', ref: c, subresource: 'status', body: { issuing: null, revision: ((cur?.status.revision as number) ?? 1) + 1 } });
            });
          }
        });
        for (const c of certs) w.at(s(w.rng.uniform(5, 15)), () => fire(c));
        return {
          // An object-creation storm: new CertificateRequests on every pass (create-storm); the Certificates' status churn may show as a hot loop too.
          expected: [{ kind: 'create-storm', actors: [trigger, requests, issuing], object: null }],
          acceptable: [
            { kind: 'hot-loop', actors: [trigger, requests, issuing], object: null },
            { kind: 'conflict-storm', actors: [trigger, requests, issuing], object: null },
            { kind: 'fleet-storm', actors: [trigger, requests, issuing], object: null },
          ],
        };
      }),
  },
  {
    name: 'kyverno-updaterequest-409',
    source: 'kyverno/kyverno#4265, #10049',
    benign: false,
    description:
      'the admission controller creates UpdateRequests; the background controller marks each Pending and then Completed from the same cached copy, so the second status update 409s, the error requeues it (5 ms·2^n), and it 409s again until the watch catches up; dense 409s every 50–100 ms',
    plan: (p) =>
      plan(p, [], (w) => {
        const admission = serviceAccount('kyverno', 'kyverno-admission-controller', 'kyverno', 'v1.11.4', '10.244.30.5', '');
        const background = serviceAccount('kyverno', 'kyverno-background-controller', 'kyverno', 'v1.11.4', '10.244.30.8', '');
        const rate = p.num('updateRequestsPerS', 0.5, 3);
        const delay = p.num('watchDelayMs', 60, 400) * MS;
        const inf = w.informer('kyverno.io', 'updaterequests', delay);
        let n = 0;
        const failures = new Map<string, number>();
        const process = (r: SimRef) => {
          const o = inf.get(r);
          if (!o || o.status.state === 'Completed') return;
          const done = (code: number) => {
            if (code !== 409) {
              failures.delete(r.name);
              w.at(w.now + w.rng.uniform(20, 200) * MS, () => w.call(background, { verb: 'delete', ref: r }));
              return;
            }
            const f = failures.get(r.name) ?? 0;
            failures.set(r.name, f + 1);
            w.at(w.now + Math.min(5 * 2 ** f, 1000) * MS, () => process(r));
          };
          if (o.status.state === 'Pending') {
            w.call(background, { verb: 'update', ref: r, subresource: 'status', rv: String(o.rv), body: { state: 'Completed', handled: nowMs(w) } }, (x) => done(x.code));
            return;
          }
          w.call(background, { verb: 'update', ref: r, subresource: 'status', rv: String(o.rv), body: { state: 'Pending' } }, () =>
            // Generating the resource takes a few ms, then Completed is written from the same cached copy.
            w.at(w.now + w.rng.uniform(5, 40) * MS, () =>
              w.call(background, { verb: 'update', ref: r, subresource: 'status', rv: String(o.rv), body: { state: 'Completed', handled: nowMs(w) } }, (x) => done(x.code)),
            ),
          );
        };
        inf.on((e) => {
          if (e.type === 'ADDED') process(e.object.ref);
        });
        w.every(s(5), SECOND / rate, 0.6, () => {
          const r = ref('kyverno.io', 'v1beta1', 'updaterequests', 'kyverno', `ur-${w.rng.suffix(5)}${n++}`);
          w.call(admission, { verb: 'create', ref: r, body: { policy: 'generate-networkpolicy', trigger: w.rng.suffix(6) }, generateName: 'ur-' });
        });
        return {
          expected: [{ kind: 'conflict-storm', actors: [background], object: null }],
          acceptable: [
            { kind: 'fleet-storm', actors: [background], object: null },
            // kyverno#10049 (real-incidents.md item 21): the admission controller's UpdateRequests are the flood.
            { kind: 'create-storm', actors: [admission], object: null },
          ],
        };
      }),
  },
  {
    name: 'crossplane-crd-update-loop',
    source: 'crossplane/crossplane#2449',
    benign: false,
    description:
      'the package revision controller re-renders and updates its CRDs on every short poll; the served-versions list comes out of a Go map in random order, so about half the updates change the CRD: 1–3 CRDs updated about 0.7–3 times a second each for the whole log',
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['customresourcedefinitions'] : [], (w) => {
        const user = serviceAccount('crossplane-system', 'crossplane', 'crossplane', 'v1.3.0', '10.244.40.3', '');
        const crds = mk(
          w,
          'apiextensions.k8s.io',
          'v1',
          'customresourcedefinitions',
          '',
          many(p, 'crd', p.int('crds', 1, 3)).map((x) => `${x}s.database.aws.crossplane.io`),
          { versions: ['v1alpha1', 'v1beta1'] },
        );
        const poll = p.num('pollS', 0.3, 1.5);
        operator(
          w,
          spec({
            user,
            group: 'apiextensions.k8s.io',
            version: 'v1',
            resource: 'customresourcedefinitions',
            objects: crds,
            target: '',
            watchOwn: false,
            skipUnchanged: false,
            workers: 1,
            requeueAfterUs: s(poll),
            spreadStartUs: s(poll),
            desired: () => ({ versions: shuffled(w, ['v1alpha1', 'v1beta1']) }),
          }),
        );
        return {
          expected: [{ kind: 'hot-loop', actors: [user], object: null }],
          acceptable: [
            { kind: 'no-op-writes', actors: [user], object: null },
            { kind: 'conflict-storm', actors: [user], object: null },
          ],
        };
      }),
  },
  {
    name: 'kubewarden-create-probe',
    source: 'kubewarden/adm-controller#645, #741, #743',
    benign: false,
    description:
      'while its policy server is not ready, the controller requeues every ~0.2 s and each reconcile GETs the ConfigMap, POSTs the Service, Deployment and Secret policy-server-default (409 AlreadyExists), patches the Deployment and ConfigMap, updates the Service, and rewrites the policy status with the same value',
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['clusteradmissionpolicies'] : [], (w) => {
        const ns = 'kubewarden';
        const user = serviceAccount(ns, 'kubewarden-controller', 'manager', 'v1.10.0', '10.244.50.7', '');
        const name = 'policy-server-default';
        const svc = mk(w, '', 'v1', 'services', ns, [name], { port: 8443 })[0] as SimRef;
        const dep = mk(w, 'apps', 'v1', 'deployments', ns, [name], { replicas: 1, image: 'policy-server:v1.10.0' })[0] as SimRef;
        const sec = mk(w, '', 'v1', 'secrets', ns, [name], { cert: 'x' })[0] as SimRef;
        const cm = mk(w, '', 'v1', 'configmaps', ns, [name], { policies: 'p' })[0] as SimRef;
        const pols = mk(
          w,
          'policies.kubewarden.io',
          'v1',
          'clusteradmissionpolicies',
          '',
          many(p, 'policy', p.int('policies', 1, 4)),
          { module: 'registry://x' },
          { policyStatus: 'pending' },
        );
        const requeueMs = p.num('requeueMs', 150, 600);
        const reconcile = () => {
          w.call(user, { verb: 'get', ref: cm }, () =>
            w.call(user, { verb: 'create', ref: svc, body: { port: 8443 } }, () =>
              w.call(user, { verb: 'create', ref: dep, body: { replicas: 1, image: 'policy-server:v1.10.0' } }, () =>
                w.call(user, { verb: 'create', ref: sec, body: { cert: 'x' } }, () =>
                  w.call(user, { verb: 'patch', ref: dep, body: { image: 'policy-server:v1.10.0' } }, () =>
                    w.call(user, { verb: 'patch', ref: cm, body: { policies: 'p' } }, () =>
                      w.call(user, { verb: 'update', ref: svc, body: { port: 8443 } }, () => {
                        for (const pol of pols)
                          w.call(user, { verb: 'update', ref: pol, subresource: 'status', rv: String((w.store.get(pol) as SimObject).rv), body: { policyStatus: 'pending' } });
                        w.at(w.now + requeueMs * w.rng.uniform(0.8, 1.2) * MS, reconcile);
                      }),
                    ),
                  ),
                ),
              ),
            ),
          );
        };
        w.at(s(w.rng.uniform(1, 5)), reconcile);
        return {
          expected: [{ kind: 'create-conflict-storm', actors: [user], object: null }],
          acceptable: [
            { kind: 'no-op-writes', actors: [user], object: null },
            { kind: 'hot-loop', actors: [user], object: null },
          ],
        };
      }),
  },
  {
    name: 'zookeeper-status-reconcile-loop',
    source: 'pravega/zookeeper-operator#389',
    benign: false,
    description:
      'no GenerationChangedPredicate: every status update is a watch event that reconciles the cluster again at once; the members list comes from a map in another order on every pass and a condition carries lastUpdateTime = now, so every write changes the status and the loop never ends; back-to-back updates of zookeeperclusters/status, each a new resourceVersion',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const user = sa(p, ns, 'zookeeper-operator', 'zookeeper-operator', 'v0.2.9');
        const zks = mk(w, 'zookeeper.pravega.io', 'v1beta1', 'zookeeperclusters', ns, many(p, 'zk', p.int('clusters', 1, 3)), { replicas: 5 }, { members: [] });
        operator(
          w,
          spec({
            user,
            group: 'zookeeper.pravega.io',
            version: 'v1beta1',
            resource: 'zookeeperclusters',
            objects: zks,
            watchDelayUs: p.num('watchDelayMs', 5, 60) * MS,
            workers: 1,
            skipUnchanged: false,
            requeueAfterUs: s(30),
            desired: (o) => ({
              members: reordered(
                w,
                [0, 1, 2, 3, 4].map((i) => `${o.ref.name}-${i}`),
                o.status.members,
              ),
              readyReplicas: 5,
              conditions: [{ type: 'PodsReady', status: 'True', lastUpdateTime: nowIso(w) }],
            }),
          }),
        );
        return { expected: [{ kind: 'hot-loop', actors: [user], object: null }], acceptable: [{ kind: 'conflict-storm', actors: [user], object: null }] };
      }),
  },
  {
    name: 'kubeflow-notebook-probe-time',
    source: 'kubeflow/notebooks#1343',
    benign: false,
    description:
      'the notebook controller (one worker) stamps metav1.Now() (second precision) into lastProbeTime and updates notebooks/status unconditionally, without GenerationChangedPredicate; with enough notebooks a pass over the queue takes over a second, so each write lands in a new second, changes the object and re-queues it',
    plan: (p) => {
      const rr = p.chance('requestResponse', 0.5);
      return plan(p, rr ? ['notebooks'] : [], (w, bg) => {
        const ns = bg.namespaces[3] as string;
        const user = serviceAccount('kubeflow', 'notebook-controller-service-account', 'notebook-controller', 'v1.8.0', '10.244.60.2', '');
        const nbs = mk(w, 'kubeflow.org', 'v1', 'notebooks', ns, many(p, 'notebook', p.int('notebooks', 350, 800)), { image: 'jupyter' }, { conditions: [] });
        operator(
          w,
          spec({
            user,
            group: 'kubeflow.org',
            version: 'v1',
            resource: 'notebooks',
            objects: nbs,
            workers: 1,
            skipUnchanged: false,
            spreadStartUs: s(2),
            desired: () => ({ conditions: [{ type: 'Ready', status: 'True', lastProbeTime: nowIso(w) }] }),
          }),
        );
        const loop = { kind: 'hot-loop' as const, actors: [user], object: null };
        const acceptable = [
          { kind: 'no-op-writes' as const, actors: [user], object: null },
          { kind: 'conflict-storm' as const, actors: [user], object: null },
        ];
        return expectIfInReach(
          rr,
          loop,
          acceptable,
          "Metadata level: each notebook's status is rewritten every few seconds by a controller that never rests, each write moving its resourceVersion, which is also what an operator polling hundreds of objects' progress on a RequeueAfter timer writes; only the bodies show that nothing but lastProbeTime changes (hot-loop's opt-in sweep rule reports it as suspected)",
        );
      });
    },
  },
  {
    name: 'keycloak-ltt-hot-loop',
    source: 'Hostzero-GmbH/keycloak-operator#121, #122',
    benign: false,
    description:
      "each of the operator's controllers calls the Keycloak admin API (1–3 s) and then writes its status with lastTransitionTime = now unconditionally; its own status event re-queues the object, so every object is written several times a minute instead of once per 5-minute sync",
    plan: (p) => {
      const rr = p.chance('requestResponse', 0.5);
      return plan(p, rr ? ['keycloakrealms', 'keycloakclients', 'keycloakusers'] : [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const user = sa(p, ns, 'keycloak-operator', 'keycloak-operator', 'v0.4.0');
        const per = p.int('objectsPerKind', 2, 10);
        // Admin API calls (token, realm GET, PUT) of 1–3 s: each write then lands in a new second, so the
        // second-precision lastTransitionTime changes every time and the loop never stops by itself.
        const adminMs = p.num('adminApiMs', 1100, 3000);
        for (const res of ['keycloakrealms', 'keycloakclients', 'keycloakusers']) {
          const os = mk(w, 'keycloak.hostzero.com', 'v1beta1', res, ns, many(p, res, per), { realm: 'main' }, {});
          operator(
            w,
            spec({
              user,
              group: 'keycloak.hostzero.com',
              version: 'v1beta1',
              resource: res,
              objects: os,
              workers: 1,
              skipUnchanged: false,
              reconcileWorkUs: () => adminMs * w.rng.uniform(0.9, 1.1) * MS,
              requeueAfterUs: s(300),
              spreadStartUs: s(5),
              desired: () => ({ conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: nowIso(w) }] }),
            }),
          );
        }
        const loop = { kind: 'hot-loop' as const, actors: [user], object: null };
        const acceptable = [{ kind: 'no-op-writes' as const, actors: [user], object: null }];
        return expectIfInReach(
          rr,
          loop,
          acceptable,
          "Metadata level: each realm's, client's and user's status is rewritten every few seconds, each write moving its resourceVersion, which is also what an operator recording real progress on a RequeueAfter timer writes; only the bodies show that nothing but lastTransitionTime changes",
        );
      });
    },
  },
  {
    name: 'temporal-status-every-10s',
    source: 'temporalio/temporal-worker-controller#415, #557',
    benign: false,
    description:
      'every reconcile rewrites the full WorkerDeployment status (unchanged) and requeues after 10 s: 6 no-op updates a minute per object, 100 objects = 10 writes/s with no new information',
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['workerdeployments'] : [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const user = sa(p, ns, 'temporal-worker-controller', 'temporal-worker-controller', 'v1.0.0');
        const wds = mk(
          w,
          'temporal.io',
          'v1alpha1',
          'workerdeployments',
          ns,
          many(p, 'wd', p.int('workerDeployments', 20, 150)),
          { replicas: 2 },
          { currentVersion: 'v7', conditions: [{ type: 'Ready', status: 'True' }] },
        );
        operator(
          w,
          spec({
            user,
            group: 'temporal.io',
            version: 'v1alpha1',
            resource: 'workerdeployments',
            objects: wds,
            watchOwn: false,
            skipUnchanged: false,
            requeueAfterUs: s(10),
            spreadStartUs: s(10),
            desired: () => ({}),
          }),
        );
        return { expected: [{ kind: 'no-op-writes', actors: [user], object: null }] };
      }),
  },
  {
    name: 'otel-operator-noop-updates',
    source: 'open-telemetry/opentelemetry-operator#3002',
    benign: false,
    description:
      'the operator updates every managed Deployment, ConfigMap and Service every 15–30 s with the content they already have: each update is a no-op (resourceVersion unchanged)',
    plan: (p) =>
      plan(p, p.chance('requestResponse', 0.5) ? ['deployments', 'configmaps', 'services'] : [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const user = serviceAccount('opentelemetry-operator-system', 'opentelemetry-operator', 'manager', 'v0.102.0', '10.244.70.4', '');
        const n = p.int('collectors', 5, 40);
        const period = p.num('periodS', 15, 30);
        for (const [group, res] of [
          ['apps', 'deployments'],
          ['', 'configmaps'],
          ['', 'services'],
        ] as const) {
          const os = mk(
            w,
            group,
            'v1',
            res,
            ns,
            many(p, 'collector', n).map((x) => `${x}-collector`),
            { owner: 'otel' },
          );
          unchangedUpdater(w, user, group, res, os, period);
        }
        return { expected: [{ kind: 'no-op-writes', actors: [user], object: null }] };
      }),
  },
  {
    name: 'rc-status-flap-victim',
    source: 'kubernetes/kubernetes#8625',
    benign: false,
    description:
      'pods land on dead kubelets and are deleted and re-created, so the replication controller rewrites the RC status count several times a second; a CI job doing GET → PUT of the RC spec almost always gets 409 and retries',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const user = kcm('replication-controller');
        const ci = human(p.name('humans', 'ci'), '192.0.2.77');
        const gc = kcm('node-lifecycle-controller');
        const [rc] = mk(w, '', 'v1', 'replicationcontrollers', ns, many(p, 'rc', 1), { replicas: 5, image: 'v1' }, { replicas: 5 });
        const rcRef = rc as SimRef;
        const podInf = w.informer('', 'pods', 30 * MS);
        const ctl = operator(
          w,
          spec({
            user,
            group: '',
            version: 'v1',
            resource: 'replicationcontrollers',
            objects: [rcRef],
            watchDelayUs: 30 * MS,
            workers: 1,
            onConflict: 'retryOnConflict',
            generationPredicate: true,
            desired: () => ({ replicas: [...podInf.cache.values()].filter((x) => x.ref.name.startsWith(`${rcRef.name}-`)).length }),
          }),
        );
        podInf.on((e) => {
          if (e.object.ref.name.startsWith(`${rcRef.name}-`)) ctl.queue.add(keyOf(rcRef));
        });
        const lifeMs = p.num('podLifeMs', 150, 900);
        // The RC controller re-creates a pod; the node lifecycle controller deletes it from the dead node.
        w.every(s(3), lifeMs * MS, 0.5, () => {
          const pod = ref('', 'v1', 'pods', ns, `${rcRef.name}-${w.rng.suffix(5)}`);
          w.call(user, { verb: 'create', ref: pod, body: { nodeName: 'dead-node' }, generateName: `${rcRef.name}-` });
          w.at(w.now + lifeMs * w.rng.uniform(0.5, 1.5) * MS, () => w.call(gc, { verb: 'delete', ref: pod }));
        });
        const thinkMs = p.num('ciThinkMs', 300, 1500);
        const put = () =>
          w.call(ci, { verb: 'get', ref: rcRef }, (g) => {
            const o = g.object as SimObject;
            w.at(w.now + thinkMs * w.rng.uniform(0.8, 1.2) * MS, () =>
              w.call(ci, { verb: 'update', ref: rcRef, rv: String(o.rv), body: { ...o.spec, image: `v${w.rng.int(2, 9)}` } }, (r) => {
                w.at(w.now + (r.code === 409 ? s(1) : s(p.num('ciPeriodS', 5, 20))), put);
              }),
            );
          });
        w.at(s(10), put);
        return {
          expected: [{ kind: 'hot-loop', actors: [user], object: obj(rcRef, 'status') }],
          acceptable: [
            { kind: 'conflict-storm', actors: [ci, user], object: null },
            { kind: 'write-fight', actors: [ci, user], object: null },
          ],
        };
      }),
  },
  {
    name: 'k3s-rancher-conflicts',
    source: 'k3s-io/k3s#1069',
    benign: false,
    description:
      "Rancher's management controllers (one service account, several handlers) update the status of 100 imported clusters from caches fed by kine, whose watch polls the SQL backend (0.5–1.5 s behind): most writes carry a stale resourceVersion and 409, each requeued with the per-item backoff",
    plan: (p) =>
      plan(p, [], (w) => {
        const user = serviceAccount('cattle-system', 'rancher', 'rancher', 'v2.3.0', '10.244.80.2', '');
        const clusters = mk(
          w,
          'management.cattle.io',
          'v3',
          'clusters',
          '',
          Array.from({ length: p.int('clusters', 40, 120) }, (_, i) => `c-${w.rng.suffix(5)}${i}`),
          { imported: true },
          {},
        );
        const delay = p.num('kineWatchDelayMs', 500, 1500) * MS;
        for (const handler of ['cluster-agent-status', 'cluster-provisioner', 'cluster-stats']) {
          operator(
            w,
            spec({
              user,
              group: 'management.cattle.io',
              version: 'v3',
              resource: 'clusters',
              objects: clusters,
              watchDelayUs: delay,
              workers: 5,
              skipUnchanged: false,
              requeueAfterUs: s(p.num('resyncS', 15, 45)),
              spreadStartUs: s(10),
              backoffCapMs: 30_000,
              desired: (_o, w2) => ({ [handler]: nowMs(w2) }),
            }),
          );
        }
        return {
          expected: [{ kind: 'conflict-storm', actors: [user], object: null }],
          acceptable: [
            { kind: 'fleet-storm', actors: [user], object: null },
            { kind: 'hot-loop', actors: [user], object: null },
          ],
        };
      }),
  },
  {
    name: 'dra-daemons-one-object',
    source: 'kubernetes-sigs/dra-driver-nvidia-gpu#1101, #816',
    benign: false,
    description:
      'a per-node daemon on each of up to 18 nodes patches the same CDClique with the resourceVersion of its cache, so all but one of each round get 409; each retries at once after a re-GET, and the APF share of the daemon set throttles some with 429',
    plan: (p) =>
      plan(
        p,
        [],
        (w, bg) => {
          const ns = 'nvidia-dra-driver';
          const daemons = p.int('daemons', 6, 18);
          const [clique] = mk(w, 'resource.nvidia.com', 'v1beta1', 'computedomaincliques', ns, many(p, 'clique', 1), { nodes: {} }, {});
          const cq = clique as SimRef;
          const period = p.num('periodMs', 300, 1500);
          const users = bg.nodes.slice(0, daemons).map((n) => ({
            node: n.name,
            user: { ...serviceAccount(ns, 'compute-domain-daemon', 'compute-domain-daemon', 'v25.3.0', n.user.sourceIP), flow: 'compute-domain-daemon' },
          }));
          w.setApf('compute-domain-daemon', { ratePerSec: daemons * (1000 / period) * 1.5, burst: 20 });
          const inf = w.informer('resource.nvidia.com', 'computedomaincliques', 40 * MS);
          for (const d of users) {
            w.every(s(w.rng.uniform(2, 6)), period * MS, 0.3, () => {
              let tries = 0;
              const go = (o: SimObject | undefined) => {
                if (!o) return;
                w.call(d.user, { verb: 'patch', ref: cq, rv: String(o.rv), body: { nodes: { [d.node]: { ready: true, seen: nowMs(w) } } } }, (r) => {
                  if ((r.code === 409 || r.code === 429) && ++tries < 10) w.call(d.user, { verb: 'get', ref: cq }, (g) => go(g.object));
                });
              };
              go(inf.get(cq));
            });
          }
          const actors = users.map((x) => x.user);
          return {
            expected: [{ kind: 'conflict-storm', actors, object: obj(cq) }],
            acceptable: [
              { kind: 'throttling', actors, object: null },
              { kind: 'hot-loop', actors, object: null },
              { kind: 'fleet-storm', actors, object: null },
              { kind: 'write-fight', actors, object: null },
            ],
          };
        },
        { nodes: Math.max(20, p.int('nodes', 8, 30)) },
      ),
  },
  {
    name: 'keda-two-writers-status',
    source: 'kedacore/keda#2035',
    benign: false,
    description:
      "the KEDA operator and the metrics adapter both update the whole ScaledObject status from their own caches, each with only its own fields: each write erases the other's fields and is its watch event, and a write from a cache that has not seen the other's last one 409s",
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const op = serviceAccount('keda', 'keda-operator', 'keda', 'v2.4.0', '10.244.90.3', '');
        const adapter = serviceAccount('keda', 'keda-metrics-server', 'keda-adapter', 'v2.4.0', '10.244.90.7', '');
        const sos = mk(w, 'keda.sh', 'v1alpha1', 'scaledobjects', ns, many(p, 'so', p.int('scaledObjects', 1, 3)), { maxReplicaCount: 10 }, {});
        const delay = p.num('watchDelayMs', 20, 300) * MS;
        operator(
          w,
          spec({
            user: op,
            group: 'keda.sh',
            version: 'v1alpha1',
            resource: 'scaledobjects',
            objects: sos,
            watchDelayUs: delay,
            desired: () => ({ conditions: [{ type: 'Ready', status: 'True' }], externalMetricNames: undefined, health: undefined }),
          }),
        );
        operator(
          w,
          spec({
            user: adapter,
            group: 'keda.sh',
            version: 'v1alpha1',
            resource: 'scaledobjects',
            objects: sos,
            watchDelayUs: delay,
            requeueAfterUs: s(p.num('metricsPollS', 1, 5)),
            desired: () => ({ externalMetricNames: ['s0-queue-length'], health: { s0: 'Happy' }, conditions: undefined }),
          }),
        );
        return {
          expected: sos.map((r) => ({ kind: 'write-fight' as const, actors: [op, adapter], object: obj(r, 'status') })),
          acceptable: [
            { kind: 'conflict-storm', actors: [op, adapter], object: null },
            { kind: 'hot-loop', actors: [op, adapter], object: null },
          ],
        };
      }),
  },
  {
    name: 'http-add-on-double-savestatus',
    source: 'kedacore/http-add-on#1402, #1408',
    benign: false,
    description:
      "two SaveStatus calls in one reconcile from the same cached copy: the second always 409s; the error requeues the object after 5 ms·2^n, and the first write's own event re-queues it too, for minutes",
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[3] as string;
        const user = serviceAccount('keda', 'keda-http-add-on-operator', 'operator', 'v0.8.0', '10.244.91.4', '');
        const [so] = mk(w, 'http.keda.sh', 'v1alpha1', 'httpscaledobjects', ns, many(p, 'httpso', 1), { hosts: ['a'] }, {});
        operator(
          w,
          spec({
            user,
            group: 'http.keda.sh',
            version: 'v1alpha1',
            resource: 'httpscaledobjects',
            objects: [so as SimRef],
            watchDelayUs: p.num('watchDelayMs', 20, 150) * MS,
            writesPerReconcile: 2,
            skipUnchanged: false,
            desired: (_o, w2) => ({ conditions: [{ type: 'Ready', status: 'True', at: nowMs(w2) }] }),
          }),
        );
        return {
          expected: [{ kind: 'conflict-storm', actors: [user], object: obj(so as SimRef, 'status') }],
          acceptable: [{ kind: 'hot-loop', actors: [user], object: obj(so as SimRef, 'status') }],
        };
      }),
  },
  {
    name: 'eso-secret-fight',
    source: 'external-secrets/external-secrets#3817, #3777',
    benign: false,
    description:
      'external-secrets and a postgres operator both PUT the same Secret with their own content, each from the version the other just wrote (resourceVersion ping-pong); Secrets are logged at Metadata level only',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const eso = serviceAccount('external-secrets', 'external-secrets', 'external-secrets', 'v0.9.11', '10.244.92.2', '');
        const pg = sa(p, ns, 'postgres-operator', 'postgres-operator', 'v1.10.1');
        const [secret] = mk(w, '', 'v1', 'secrets', ns, many(p, 'db-credentials', 1), { password: 'a' });
        const sec = secret as SimRef;
        const delay = p.num('watchDelayMs', 20, 300) * MS;
        operator(
          w,
          spec({
            user: eso,
            group: '',
            version: 'v1',
            resource: 'secrets',
            objects: [sec],
            target: '',
            watchDelayUs: delay,
            requeueAfterUs: s(p.num('refreshS', 10, 60)),
            desired: () => ({ password: 'from-vault', managedBy: 'external-secrets' }),
          }),
        );
        operator(
          w,
          spec({
            user: pg,
            group: '',
            version: 'v1',
            resource: 'secrets',
            objects: [sec],
            target: '',
            watchDelayUs: delay,
            desired: () => ({ password: 'generated', managedBy: 'postgres-operator' }),
          }),
        );
        return {
          expected: [{ kind: 'write-fight', actors: [eso, pg], object: obj(sec) }],
          acceptable: [
            { kind: 'hot-loop', actors: [eso, pg], object: null },
            { kind: 'conflict-storm', actors: [eso, pg], object: null },
          ],
        };
      }),
  },
  {
    name: 'neon-stale-retry-1s',
    source: 'neondatabase/autoscaling#796, kubermatic/kubermatic#4578',
    benign: false,
    description:
      "on 409 the controller sleeps about 1 s and sends the same, unchanged object again (same resourceVersion), forever; the first race with the VM controller's periodic status update turns into a 409 every retry",
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const user = sa(p, ns, 'autoscaler-agent', 'autoscaler-agent', 'v0.20.0');
        const other = kcm('vm-controller', 'system:serviceaccount:kube-system:vm-controller');
        const vms = mk(w, 'vm.neon.tech', 'v1', 'virtualmachines', ns, many(p, 'vm', p.int('vms', 1, 4)), { cpus: 1 }, { phase: 'Running' });
        const retryMs = p.num('retryMs', 500, 2000);
        operator(
          w,
          spec({
            user,
            group: 'vm.neon.tech',
            version: 'v1',
            resource: 'virtualmachines',
            objects: vms,
            watchOwn: false,
            watchDelayUs: 300 * MS,
            requeueAfterUs: s(1),
            onConflict: 'retryStale',
            staleRetryMs: retryMs,
            startUs: s(10),
            spreadStartUs: s(2),
            desired: (_o, w2) => ({ phase: 'Running', scaledAt: nowIso(w2) }),
          }),
        );
        // The VM controller updates each VM's status every 2–4 s from the live object; once the agent's
        // cached copy is older than that, its unchanged resend can never succeed.
        for (const v of vms)
          w.every(s(w.rng.uniform(5, 9)), s(p.num('vmStatusPeriodS', 2, 4)), 0.3, () =>
            w.call(other, {
              verb: 'update',
              ref: v,
              subresource: 'status',
              rv: String((w.store.get(v) as SimObject).rv),
              body: { ...(w.store.get(v) as SimObject).status, node: `n${w.rng.int(1, 9)}` },
            }),
          );
        return { expected: [{ kind: 'conflict-storm', actors: [user], object: null }] };
      }),
  },
];
