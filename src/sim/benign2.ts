/**
 * Benign look-alikes of a revision loop (`create-storm`'s revision look): normal Kubernetes
 * behaviour that creates objects whose names end in a number, one more than the last, by one
 * identity in one namespace. Each is written from the mechanism and its default behaviour
 * (kube-controller-manager's statefulset and cronjob controllers, Helm 3's release storage,
 * Velero's restore), with every parameter drawn through the Sampler, as in benign.ts. None
 * expects a finding.
 */
import { nowIso } from './actors.js';
import { ref } from './background.js';
import type { SimRef } from './store.js';
import type { SimScenario } from './scenarios.js';
import { many, mk, plan } from './scenarios2.js';
import { human, kcm, serviceAccount } from './users.js';
import { SECOND, type SimUser, type World } from './world.js';

const s = (x: number) => x * SECOND;
/** The latest resourceVersion of `r` as an update precondition ('' when it does not exist). */
const rvOf = (w: World, r: SimRef) => String(w.store.get(r)?.rv ?? '');

/** The benign look-alikes of numbered revisions. */
export const BENIGN_SCENARIOS_2: SimScenario[] = [
  {
    name: 'benign-statefulset-scale-up',
    source: 'kube-controller-manager statefulset controller: OrderedReady scale-up, one PVC per volumeClaimTemplate per ordinal (`<claim>-<sts>-<ordinal>`)',
    benign: true,
    description:
      'one to four StatefulSets in one namespace are scaled up together; for each new ordinal the statefulset controller creates a PVC per volumeClaimTemplate (one to three) and the pod, and waits until the pod is Ready before the next ordinal (OrderedReady), so the ordinals of every claim advance by one every pod start, for as long as the scale-up lasts',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const sc = kcm('statefulset-controller');
        const n = p.int('statefulsets', 1, 4);
        const claims = ['data', 'wal', 'logs'].slice(0, p.int('claimTemplates', 1, 3));
        const from = p.int('fromReplicas', 1, 10);
        const to = from + p.int('addedReplicas', 20, 200);
        const readyS = p.num('podReadyS', 5, 40);
        const stss = mk(w, 'apps', 'v1', 'statefulsets', ns, many(p, 'db', n), { replicas: to, podManagementPolicy: 'OrderedReady' }, { replicas: from, readyReplicas: from });
        const node = bg.nodes[0] as { user: SimUser };
        for (const sts of stss) {
          const step = (i: number) => {
            if (i >= to) return;
            for (const c of claims) w.call(sc, { verb: 'create', ref: ref('', 'v1', 'persistentvolumeclaims', ns, `${c}-${sts.name}-${i}`), body: { storage: '10Gi' } });
            const pod = ref('', 'v1', 'pods', ns, `${sts.name}-${i}`);
            w.call(sc, { verb: 'create', ref: pod, body: { statefulSet: sts.name } });
            // Volume provisioning, image pull and the readiness probe: the next ordinal waits for Ready.
            w.at(w.now + s(readyS * w.rng.uniform(0.7, 1.3)), () => {
              w.call(node.user, {
                verb: 'patch',
                ref: pod,
                subresource: 'status',
                body: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: nowIso(w) }] },
              });
              w.at(w.now + s(w.rng.uniform(0.05, 0.3)), () => {
                w.call(sc, { verb: 'update', ref: sts, subresource: 'status', rv: rvOf(w, sts), body: { replicas: i + 1, readyReplicas: i + 1 } });
                step(i + 1);
              });
            });
          };
          w.at(s(w.rng.uniform(5, 8)), () => step(from));
        }
        return { expected: [] };
      }),
  },
  {
    name: 'benign-cronjobs-every-minute',
    source: 'kube-controller-manager cronjob controller (CronJobControllerV2): a Job per schedule named `<cronjob>-<scheduled minutes since the epoch>`, history limits',
    benign: true,
    description:
      "10 to 50 CronJobs in one namespace scheduled every minute for the whole log: at each minute the cronjob controller creates every CronJob's Job (the same number, one more than the minute before), updates lastScheduleTime and deletes the Job beyond successfulJobsHistoryLimit (3); the job controller creates each Job's pod and writes its status",
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[2] as string;
        const cc = kcm('cronjob-controller');
        const jc = kcm('job-controller');
        const node = bg.nodes[0] as { user: SimUser };
        const cjs = mk(w, 'batch', 'v1', 'cronjobs', ns, many(p, 'minutely', p.int('cronjobs', 10, 50)), { schedule: '* * * * *', successfulJobsHistoryLimit: 3 }, {});
        const runS = p.num('jobRunS', 3, 40);
        const minutes = Math.floor(w.opts.durationUs / 60_000_000);
        const history = new Map<string, SimRef[]>();
        for (let m = 1; m < minutes; m++) {
          const sched = Math.floor(w.opts.startMs / 60_000) + m;
          // The controller's queue works through every CronJob due at the minute within a second or two.
          cjs.forEach((cj, k) =>
            w.at(s(m * 60 + 0.05 + k * w.rng.uniform(0.01, 0.05)), () => {
              const job = ref('batch', 'v1', 'jobs', ns, `${cj.name}-${sched}`);
              w.call(cc, { verb: 'create', ref: job, body: { parallelism: 1 } });
              w.call(cc, { verb: 'update', ref: cj, subresource: 'status', rv: rvOf(w, cj), body: { lastScheduleTime: nowIso(w), active: [job.name] } });
              const done = history.get(cj.name) ?? [];
              history.set(cj.name, done);
              w.at(w.now + s(w.rng.uniform(0.05, 0.5)), () => {
                const pod = ref('', 'v1', 'pods', ns, `${job.name}-${w.rng.suffix(5)}`);
                w.call(jc, { verb: 'create', ref: pod, body: { job: job.name }, generateName: `${job.name}-` });
                w.call(jc, { verb: 'update', ref: job, subresource: 'status', rv: rvOf(w, job), body: { active: 1, startTime: nowIso(w) } });
                w.at(w.now + s(runS * w.rng.uniform(0.7, 1.3)), () => {
                  w.call(node.user, { verb: 'patch', ref: pod, subresource: 'status', body: { phase: 'Succeeded' } });
                  w.at(w.now + s(0.1), () => {
                    w.call(jc, { verb: 'update', ref: job, subresource: 'status', rv: rvOf(w, job), body: { active: 0, succeeded: 1, completionTime: nowIso(w) } });
                    done.push(job);
                    const old = done.length > 3 ? done.shift() : undefined;
                    if (old) w.call(cc, { verb: 'delete', ref: old });
                  });
                });
              });
            }),
          );
        }
        return { expected: [] };
      }),
  },
  {
    name: 'benign-restore-burst',
    source: 'Velero restore (resources in priority order, items in name order, client QPS-limited); Helm install of a large chart',
    benign: true,
    description:
      "Velero restores a namespace that holds numbered revision copies (5 to 15 inputs of a component, each with every kept revision `<input>-N`) and a few hundred other ConfigMaps and Secrets, in name order at its client's QPS; a CI deployer installs a Helm chart with hundreds of numbered ConfigMaps (`<release>-dashboard-0`…) in seconds; both are one burst each",
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[0] as string;
        const velero = serviceAccount('velero', 'velero', 'velero-server', 'v1.13.0', '10.244.40.9', '76670e9');
        const ci = human('ci-deployer', '10.0.99.12');
        const component = p.name('apps', 'component');
        // The component's inputs: the first two are Secrets, the rest ConfigMaps.
        const inputs = Array.from({ length: p.int('revisionInputs', 5, 15) }, (_, i): [string, string] => [
          i < 2 ? 'secrets' : 'configmaps',
          `${component}-input-${String.fromCharCode(97 + i)}`,
        ]);
        const kept = p.int('keptRevisions', 5, 30);
        const firstKept = p.int('firstKeptRevision', 1, 200);
        const plain = p.int('plainObjects', 100, 400);
        const qps = p.num('restoreQps', 10, 100);
        const items: Array<[string, string]> = [];
        for (const [res, input] of inputs) for (let r = firstKept; r < firstKept + kept; r++) items.push([res, `${input}-${r}`]);
        for (let i = 0; i < plain; i++) items.push([i % 4 === 0 ? 'secrets' : 'configmaps', `${component}-cfg-${w.rng.suffix(6)}`]);
        // Velero restores Secrets before ConfigMaps, each in the order the API listed them (by name).
        items.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] === 'secrets' ? -1 : 1));
        const restoreAt = s(w.rng.uniform(30, 240));
        items.forEach(([res, name], i) => w.at(restoreAt + s(i / qps), () => w.call(velero, { verb: 'create', ref: ref('', 'v1', res, ns, name), body: { restored: true } })));
        const release = p.name('apps', 'release');
        const chart = p.int('chartConfigMaps', 100, 400);
        const installAt = s(w.rng.uniform(60, 420));
        const chartQps = p.num('helmQps', 20, 100);
        for (let i = 0; i < chart; i++) {
          w.at(installAt + s(i / chartQps), () =>
            w.call(ci, { verb: 'create', ref: ref('', 'v1', 'configmaps', bg.namespaces[3] as string, `${release}-dashboard-${i}`), body: { json: '{}' } }),
          );
        }
        w.at(installAt + s(chart / chartQps + 0.2), () =>
          w.call(ci, { verb: 'create', ref: ref('', 'v1', 'secrets', bg.namespaces[3] as string, `sh.helm.release.v1.${release}.v1`), body: { status: 'deployed' } }),
        );
        return { expected: [] };
      }),
  },
  {
    name: 'benign-helm-upgrades',
    source:
      'Helm 3 release storage: one Secret `sh.helm.release.v1.<release>.v<N>` per revision, the previous one marked superseded, history beyond --history-max (10) deleted; helmfile upgrading its releases in parallel',
    benign: true,
    description:
      'a CI pipeline deploys 3 to 20 Helm releases of one namespace with helmfile on every merge, a few minutes apart (a pipeline run builds and tests first); each release upgrade creates the next release Secret (all releases were installed together, so they share revision numbers), marks the previous one superseded, deletes the one beyond history-max and patches its Deployment',
    plan: (p) =>
      plan(p, [], (w, bg) => {
        const ns = bg.namespaces[1] as string;
        const ci = serviceAccount('ci', 'helm-deployer', 'Helm', 'v3.14.2', '10.244.51.3', 'c309b6f');
        const releases = many(p, 'rel', p.int('releases', 3, 20));
        const start = p.int('startRevision', 2, 40);
        const gapS = p.num('deployGapS', 120, 600);
        const deps = mk(w, 'apps', 'v1', 'deployments', ns, releases, { replicas: 2, image: 'app:0' });
        const secret = (rel: string, v: number) => ref('', 'v1', 'secrets', ns, `sh.helm.release.v1.${rel}.v${v}`);
        const revision = new Map<string, number>();
        releases.forEach((rel) => {
          revision.set(rel, start);
          for (let v = Math.max(1, start - 9); v <= start; v++) w.store.create(secret(rel, v), { status: v === start ? 'deployed' : 'superseded' });
        });
        let build = 0;
        w.every(s(w.rng.uniform(20, gapS)), s(gapS), 0.4, () => {
          build++;
          releases.forEach((rel, i) =>
            w.at(w.now + s(w.rng.uniform(0.2, 3)), () => {
              const v = (revision.get(rel) as number) + 1;
              revision.set(rel, v);
              w.call(ci, { verb: 'get', ref: secret(rel, v - 1) });
              w.call(ci, { verb: 'create', ref: secret(rel, v), body: { status: 'pending-upgrade' } }, () => {
                w.call(ci, { verb: 'patch', ref: deps[i] as SimRef, body: { image: `app:${build}` } });
                w.call(ci, { verb: 'update', ref: secret(rel, v - 1), rv: rvOf(w, secret(rel, v - 1)), body: { status: 'superseded' } });
                w.at(w.now + s(w.rng.uniform(1, 5)), () => {
                  w.call(ci, { verb: 'update', ref: secret(rel, v), rv: rvOf(w, secret(rel, v)), body: { status: 'deployed' } });
                  if (w.store.get(secret(rel, v - 10))) w.call(ci, { verb: 'delete', ref: secret(rel, v - 10) });
                });
              });
            }),
          );
        });
        return { expected: [] };
      }),
  },
];
