/**
 * The benchmark matrix's logs: the audit log of a simulated cluster, generated from its mechanism
 * (N nodes' kubelets, M namespaces with an operator each, a pod churn driven by the ReplicaSet
 * controller and the scheduler, the Events every step of a pod's life creates) rather than from
 * the storm generator's shapes. Seeded: the same spec writes the same bytes on every machine.
 *
 * Domain facts used (Kubernetes v1.31 defaults): a kubelet renews its node Lease in
 * `kube-node-lease` every 10 s (`nodeLeaseDurationSeconds` 40, renew at a quarter) and reports node
 * status every 10 s (`nodeStatusUpdateFrequency`) as a GET of its Node and a PATCH of
 * `nodes/NAME/status`; pods are created by `replicaset-controller`, bound by `kube-scheduler`
 * (`pods/binding`), their status patched by the kubelet of their node, and each step records a
 * core/v1 Event whose name is the involved object's name, a dot and 16 hex digits (unique names,
 * so each Event is a new object); controllers update `replicasets/status` and `endpointslices`
 * with optimistic concurrency and get 409 Conflict when their copy is stale.
 */
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** What a simulated cluster is and how long it is logged. Rates are per minute of log time. */
export interface ClusterSpec {
  /** PRNG seed. */
  seed: number;
  /** Length of the log, whole minutes. */
  minutes: number;
  /** Nodes, each with a kubelet `system:node:node-I` (one actor per node). */
  nodes: number;
  /** Namespaces `ns-J`, each with 5 Deployments, 5 ConfigMaps and an operator service account (one actor each). */
  namespaces: number;
  /** Pods created (and later deleted) per minute: each brings about 8 new objects (the pod and its Events). */
  podsPerMinute: number;
  /**
   * Requests per minute the log is filled up to with controllers' and operators' reconcile reads
   * (GET/LIST of the namespaces' Deployments, ConfigMaps and pods): hot objects, no new ones.
   * A minute whose other traffic already reaches it gets no reads.
   */
  requestsPerMinute: number;
  /** Audit level: `RequestResponse` adds request and response bodies of about `bodyBytes` to writes and GETs. */
  level: 'Metadata' | 'RequestResponse';
  /** Approximate size of one body at `RequestResponse` (bytes). */
  bodyBytes: number;
}

/** What the generator wrote, counted while writing (the truth the bench's agreement test checks). */
export interface ClusterStats {
  /** Lines (audit events, every stage) written. */
  events: number;
  /** File size (bytes). */
  bytes: number;
  /** Distinct objects (resource, namespace, name, subresource) over the whole log. */
  distinctObjects: number;
  /** Mean over the log's minutes of the distinct objects requested in that minute. */
  distinctObjectsPerMinute: number;
  /** Distinct `user.username`. */
  actors: number;
  /** Events of verb `update` or `patch` answered 409 Conflict. */
  conflicts: number;
}

const SECOND = 1000;
const T0 = Date.parse('2026-06-01T00:00:00Z');
const CONTROLLERS = {
  rs: 'system:serviceaccount:kube-system:replicaset-controller',
  eps: 'system:serviceaccount:kube-system:endpointslice-controller',
  sched: 'system:kube-scheduler',
};
const UA = {
  kubelet: 'kubelet/v1.31.2 (linux/amd64) kubernetes/5864a46',
  kcm: 'kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:kube-system:replicaset-controller',
  eps: 'kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:kube-system:endpointslice-controller',
  sched: 'kube-scheduler/v1.31.2 (linux/amd64) kubernetes/5864a46/scheduler',
  operator: 'app-operator/v2.4.0 (linux/amd64) controller-runtime',
};
const GROUP: Record<string, string> = {
  leases: 'coordination.k8s.io',
  replicasets: 'apps',
  deployments: 'apps',
  endpointslices: 'discovery.k8s.io',
};
const KIND: Record<string, string> = {
  nodes: 'Node',
  pods: 'Pod',
  leases: 'Lease',
  events: 'Event',
  replicasets: 'ReplicaSet',
  deployments: 'Deployment',
  configmaps: 'ConfigMap',
  endpointslices: 'EndpointSlice',
};
const REASONS_START = ['Scheduled', 'Pulled', 'Created', 'Started'];

/** A request before it is written: `ms` is its stageTimestamp (ms since the log's start). */
interface Req {
  ms: number;
  verb: string;
  resource: string;
  ns: string;
  name: string;
  sub: string;
  code: number;
  user: string;
  ua: string;
  /** `ResponseStarted` then `ResponseComplete` (a watch). */
  watch?: boolean;
}

/** Mulberry32: a small seeded PRNG, uniform in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The file name a spec is cached under in the bench's directory (a hash of every field). */
export function clusterFileName(spec: ClusterSpec): string {
  const key = JSON.stringify([spec.seed, spec.minutes, spec.nodes, spec.namespaces, spec.podsPerMinute, spec.requestsPerMinute, spec.level, spec.bodyBytes, GENERATOR_VERSION]);
  return `cluster-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.log`;
}

/** Bumped when the generator's output changes, so cached logs of an older generator are not reused. */
export const GENERATOR_VERSION = 1;

/**
 * The log of `spec` in `dir` (generated on first use, then reused: the stats are kept beside it
 * as `.json`). Resolves to the path and the stats.
 */
export async function clusterLog(dir: string, spec: ClusterSpec): Promise<{ file: string; stats: ClusterStats }> {
  const file = join(dir, clusterFileName(spec));
  const meta = `${file}.json`;
  if (existsSync(file) && existsSync(meta)) return { file, stats: JSON.parse(readFileSync(meta, 'utf8')) as ClusterStats };
  await mkdir(dir, { recursive: true });
  const stats = await writeCluster(`${file}.part`, spec);
  await rename(`${file}.part`, file);
  await writeFile(meta, JSON.stringify(stats));
  return { file, stats };
}

/** Writes the log of `spec` to `path` (overwritten) and resolves to what was written. */
export async function writeCluster(path: string, spec: ClusterSpec): Promise<ClusterStats> {
  const rnd = prng(spec.seed);
  const seconds = spec.minutes * 60;
  const buckets: Req[][] = Array.from({ length: seconds }, () => []);
  const at = (ms: number, r: Omit<Req, 'ms'>): void => {
    const s = Math.floor(ms / SECOND);
    if (ms >= 0 && s < seconds) buckets[s]!.push({ ...r, ms });
  };
  const hex = (n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) s += Math.floor(rnd() * 16).toString(16);
    return s;
  };
  const alnum = 'bcdfghjklmnpqrstvwxz2456789';
  const suffix = (n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) s += alnum[Math.floor(rnd() * alnum.length)];
    return s;
  };
  // Each namespace runs 5 Deployments, each with one current ReplicaSet (its pod-template hash fixed).
  const rsHash = Array.from({ length: spec.namespaces * 5 }, () => suffix(10));
  const event = (ms: number, ns: string, involved: string, user: string, ua: string): void =>
    at(ms, { verb: 'create', resource: 'events', ns, name: `${involved}.${hex(16)}`, sub: '', code: 201, user, ua });
  const rsStatus = (ms: number, ns: string, rs: string): void => {
    // The ReplicaSet controller's status write after a change to its pods: 5 % find their copy stale.
    if (rnd() < 0.05) {
      at(ms, { verb: 'update', resource: 'replicasets', ns, name: rs, sub: 'status', code: 409, user: CONTROLLERS.rs, ua: UA.kcm });
      at(ms + 15, { verb: 'get', resource: 'replicasets', ns, name: rs, sub: '', code: 200, user: CONTROLLERS.rs, ua: UA.kcm });
      at(ms + 30, { verb: 'update', resource: 'replicasets', ns, name: rs, sub: 'status', code: 200, user: CONTROLLERS.rs, ua: UA.kcm });
    } else at(ms, { verb: 'update', resource: 'replicasets', ns, name: rs, sub: 'status', code: 200, user: CONTROLLERS.rs, ua: UA.kcm });
  };
  // The EndpointSlice controller's update of the Deployment's slice when a pod becomes ready or goes: 3 % stale.
  const endpoints = (ms: number, ns: string, deploy: string): void => {
    const code = rnd() < 0.03 ? 409 : 200;
    at(ms, { verb: 'update', resource: 'endpointslices', ns, name: `${deploy}-eps`, sub: '', code, user: CONTROLLERS.eps, ua: UA.eps });
  };

  // Pods: created at a steady rate; each lives 30 s to 10 min; every step is a request and most an Event.
  const podGap = (60 * SECOND) / Math.max(spec.podsPerMinute, 1e-9);
  if (spec.podsPerMinute > 0) {
    for (let t = rnd() * podGap; t < seconds * SECOND; t += podGap) {
      const j = Math.floor(rnd() * spec.namespaces);
      const d = Math.floor(rnd() * 5);
      const ns = `ns-${j}`;
      const deploy = `app-${d}`;
      const rs = `${deploy}-${rsHash[j * 5 + d]}`;
      const pod = `${rs}-${suffix(5)}`;
      const node = `node-${Math.floor(rnd() * spec.nodes)}`;
      const kubelet = `system:node:${node}`;
      at(t, { verb: 'create', resource: 'pods', ns, name: pod, sub: '', code: 201, user: CONTROLLERS.rs, ua: UA.kcm });
      event(t + 2, ns, rs, CONTROLLERS.rs, UA.kcm);
      rsStatus(t + 5, ns, rs);
      at(t + 40, { verb: 'create', resource: 'pods', ns, name: pod, sub: 'binding', code: 201, user: CONTROLLERS.sched, ua: UA.sched });
      event(t + 42, ns, pod, CONTROLLERS.sched, UA.sched);
      const up = t + 800 + rnd() * 2000;
      at(up, { verb: 'patch', resource: 'pods', ns, name: pod, sub: 'status', code: 200, user: kubelet, ua: UA.kubelet });
      for (let k = 1; k < REASONS_START.length; k++) event(up + 200 * k, ns, pod, kubelet, UA.kubelet);
      at(up + 1000, { verb: 'patch', resource: 'pods', ns, name: pod, sub: 'status', code: 200, user: kubelet, ua: UA.kubelet });
      endpoints(up + 1100, ns, deploy);
      const end = t + 30 * SECOND + rnd() * 570 * SECOND;
      at(end, { verb: 'delete', resource: 'pods', ns, name: pod, sub: '', code: 200, user: CONTROLLERS.rs, ua: UA.kcm });
      event(end + 2, ns, rs, CONTROLLERS.rs, UA.kcm);
      rsStatus(end + 5, ns, rs);
      event(end + 300, ns, pod, kubelet, UA.kubelet);
      at(end + 400, { verb: 'patch', resource: 'pods', ns, name: pod, sub: 'status', code: 200, user: kubelet, ua: UA.kubelet });
      endpoints(end + 450, ns, deploy);
      at(end + 2000, { verb: 'delete', resource: 'pods', ns, name: pod, sub: '', code: 200, user: kubelet, ua: UA.kubelet });
    }
  }

  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  const format = formatter(spec, rnd);
  const seen = new Set<string>();
  const actors = new Set<string>();
  let minuteSeen = new Set<string>();
  let perMinuteSum = 0;
  let events = 0;
  let bytes = 0;
  let conflicts = 0;
  for (let s = 0; s < seconds; s++) {
    const reqs = buckets[s]!;
    // Kubelets: each node's 10-s loop (GET node, PATCH node status, update its Lease), phase by node; a pod watch every 5 min.
    for (let i = s % 10; i < spec.nodes; i += 10) {
      const node = `node-${i}`;
      const user = `system:node:${node}`;
      const ms = s * SECOND + ((i * 7919) % 997);
      reqs.push({ ms, verb: 'get', resource: 'nodes', ns: '', name: node, sub: '', code: 200, user, ua: UA.kubelet });
      reqs.push({ ms: ms + 3, verb: 'patch', resource: 'nodes', ns: '', name: node, sub: 'status', code: 200, user, ua: UA.kubelet });
      reqs.push({ ms: ms + 1, verb: 'update', resource: 'leases', ns: 'kube-node-lease', name: node, sub: '', code: 200, user, ua: UA.kubelet });
      if ((s + i) % 300 === 0) reqs.push({ ms: ms + 2, verb: 'watch', resource: 'pods', ns: '', name: '', sub: '', code: 200, user, ua: UA.kubelet, watch: true });
    }
    // Reconcile reads fill each second up to the rate: operators GET their Deployments and ConfigMaps, LIST pods.
    const fill = Math.round(spec.requestsPerMinute / 60) - reqs.length;
    for (let k = 0; k < fill; k++) {
      const j = Math.floor(rnd() * spec.namespaces);
      const ns = `ns-${j}`;
      const ms = s * SECOND + rnd() * 999;
      const pick = rnd();
      const user = `system:serviceaccount:${ns}:operator`;
      if (pick < 0.45) reqs.push({ ms, verb: 'get', resource: 'deployments', ns, name: `app-${Math.floor(rnd() * 5)}`, sub: '', code: 200, user, ua: UA.operator });
      else if (pick < 0.9)
        reqs.push({ ms, verb: 'get', resource: 'configmaps', ns, name: `config-${Math.floor(rnd() * 5)}`, sub: '', code: rnd() < 0.02 ? 404 : 200, user, ua: UA.operator });
      else reqs.push({ ms, verb: 'list', resource: 'pods', ns, name: '', sub: '', code: 200, user, ua: UA.operator });
    }
    reqs.sort((a, b) => a.ms - b.ms);
    let chunk = '';
    for (const r of reqs) {
      const lines = format(r);
      chunk += lines;
      events += r.watch === true ? 2 : 1;
      const key = `${r.resource}/${r.ns}/${r.name}/${r.sub}`;
      seen.add(key);
      minuteSeen.add(key);
      actors.add(r.user);
      if (r.code === 409 && (r.verb === 'update' || r.verb === 'patch')) conflicts++;
    }
    bytes += Buffer.byteLength(chunk);
    buckets[s] = [];
    if (!out.write(chunk)) await once(out, 'drain');
    if (s % 60 === 59) {
      perMinuteSum += minuteSeen.size;
      minuteSeen = new Set();
    }
  }
  out.end();
  await once(out, 'finish');
  return {
    events,
    bytes,
    distinctObjects: seen.size,
    distinctObjectsPerMinute: Math.round(perMinuteSum / spec.minutes),
    actors: actors.size,
    conflicts,
  };
}

/** Formats requests as JSON lines (one, or two for a watch) in the `audit.k8s.io/v1` shape. */
function formatter(spec: ClusterSpec, rnd: () => number): (r: Req) => string {
  let seq = 0;
  const seedHex = (spec.seed >>> 0).toString(16).padStart(8, '0');
  const bodies = spec.level === 'RequestResponse';
  // A body's bulk: conditions and labels repeated to about `bodyBytes` (the name and namespace are put in front per request).
  const conditions: string[] = [];
  let bulk = '';
  for (let k = 0; bulk.length < spec.bodyBytes - 200; k++) {
    conditions.push(
      `{"type":"Condition${k}","status":"True","lastHeartbeatTime":"2026-06-01T00:00:00Z","lastTransitionTime":"2026-05-30T11:02:17Z","reason":"Reason${k}","message":"condition ${k} holds for this object (${'x'.repeat(40)})"}`,
    );
    bulk = `"status":{"conditions":[${conditions.join(',')}]}`;
  }
  let secondKey = -1;
  let secondIso = '';
  const stamp = (ms: number): string => {
    const s = Math.floor(ms / SECOND);
    if (s !== secondKey) {
      secondKey = s;
      secondIso = new Date(T0 + s * SECOND).toISOString().slice(0, 19);
    }
    const micros = Math.floor((ms - s * SECOND) * 1000);
    return `${secondIso}.${String(micros).padStart(6, '0')}Z`;
  };
  return (r) => {
    const group = GROUP[r.resource];
    const apiVersion = group === undefined ? 'v1' : `${group}/v1`;
    const base = group === undefined ? '/api/v1' : `/apis/${group}/v1`;
    const nsPath = r.ns === '' ? '' : `/namespaces/${r.ns}`;
    const named = r.name !== '' && r.verb !== 'create' ? `/${r.name}` : '';
    const subPath = r.sub === '' ? '' : r.verb === 'create' ? `/${r.name}/${r.sub}` : `/${r.sub}`;
    let uri = `${base}${nsPath}/${r.resource}${named}${subPath}`;
    if (r.verb === 'list') uri += '?limit=500&resourceVersion=0';
    else if (r.verb === 'watch') uri += `?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3D${r.user.slice(12)}&resourceVersion=${1000 + (seq % 9000)}&watch=true`;
    const objectRef =
      `{"resource":"${r.resource}"` +
      (r.ns === '' ? '' : `,"namespace":"${r.ns}"`) +
      (r.name === '' ? '' : `,"name":"${r.name}"`) +
      `,"apiGroup":"${group ?? ''}","apiVersion":"v1"` +
      (r.sub === '' ? '' : `,"subresource":"${r.sub}"`) +
      '}';
    const status =
      r.code === 409
        ? `{"metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on ${r.resource}${group === undefined ? '' : `.${group}`} \\"${r.name}\\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"${r.name}","group":"${group ?? ''}","kind":"${r.resource}"},"code":409}`
        : r.code === 404
          ? `{"metadata":{},"status":"Failure","message":"${r.resource} \\"${r.name}\\" not found","reason":"NotFound","details":{"name":"${r.name}","kind":"${r.resource}"},"code":404}`
          : `{"metadata":{},"code":${r.code}}`;
    const received = stamp(Math.max(0, r.ms - 1 - rnd() * 8));
    const done = stamp(r.ms);
    const node = r.user.startsWith('system:node:') ? Number(r.user.slice(17)) : -1;
    const ip = node >= 0 ? `10.${(node >> 16) & 255}.${(node >> 8) & 255}.${node & 255}` : '10.96.0.10';
    const groups = node >= 0 ? '["system:nodes","system:authenticated"]' : '["system:serviceaccounts","system:authenticated"]';
    const head = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"${spec.level}","auditID":"${seedHex}-0000-4000-8000-${(seq++).toString(16).padStart(12, '0')}"`;
    const who = `,"requestURI":"${uri}","verb":"${r.verb}","user":{"username":"${r.user}","groups":${groups}},"sourceIPs":["${ip}"],"userAgent":"${r.ua}","objectRef":${objectRef}`;
    const tail = `,"annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}\n`;
    if (r.watch === true) {
      const started = `${head},"stage":"ResponseStarted"${who},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"${received}","stageTimestamp":"${done}"${tail}`;
      return `${started}${head.slice(0, -13)}${(seq++).toString(16).padStart(12, '0')}","stage":"ResponseComplete"${who},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"${received}","stageTimestamp":"${done}"${tail}`;
    }
    let body = '';
    if (bodies && r.verb !== 'list' && r.verb !== 'watch') {
      const obj = `{"kind":"${KIND[r.resource] ?? 'Object'}","apiVersion":"${apiVersion}","metadata":{"name":"${r.name}"${r.ns === '' ? '' : `,"namespace":"${r.ns}"`},"resourceVersion":"${100000 + seq}","uid":"${seedHex}-1111-4000-8000-${seq.toString(16).padStart(12, '0')}"},${bulk}}`;
      const write = r.verb === 'create' || r.verb === 'update' || r.verb === 'patch';
      if (write) body += `,"requestObject":${r.verb === 'patch' ? `{${bulk}}` : obj}`;
      if (r.code < 300) body += `,"responseObject":${obj}`;
    }
    return `${head},"stage":"ResponseComplete"${who},"responseStatus":${status}${body},"requestReceivedTimestamp":"${received}","stageTimestamp":"${done}"${tail}`;
  };
}
