/**
 * The simulated cluster: a time-ordered scheduler (µs since the log start), the {@link SimStore},
 * API Priority and Fairness as a per-user token bucket, informers whose caches lag the store by a
 * watch delay, and the audit backend that records every request as audit.k8s.io/v1 Event JSON
 * lines (stage ResponseComplete; RequestReceived too for a share of requests).
 */
import { canonical, refKey, SimStore, type ChangeEvent, type SimObject, type SimRef, type WriteResult } from './store.js';
import { SimRng } from './rng.js';

/** Who sends requests: username, groups, userAgent and source IP, as the audit event records them. */
export interface SimUser {
  username: string;
  groups: string[];
  userAgent: string;
  sourceIP: string;
  /** APF flow the user's requests are counted in (default: the username). */
  flow?: string;
}

/** A request to the simulated API server. */
export interface SimRequest {
  verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';
  ref: SimRef;
  subresource?: '' | 'status';
  /** Precondition resourceVersion sent with update/patch; `''` for none. */
  rv?: string;
  /** Body: the full spec or status for update/create, the patch for patch/apply. */
  body?: Record<string, unknown>;
  /** Patch type: merge (default) or server-side apply. */
  patchType?: 'merge' | 'apply';
  /** `fieldManager` query parameter. */
  fieldManager?: string;
  /**
   * For a create: the client sent `metadata.generateName` (this prefix) and the server chose
   * `ref.name`. The audit event then has no `objectRef.name` (`audit-formats.md` §1); only a
   * logged response body (RequestResponse level) names the object.
   */
  generateName?: string;
}

/** What the client sees. */
export interface SimResponse {
  code: number;
  reason: string;
  object?: SimObject;
  objects?: SimObject[];
}

/** µs constants. */
export const MS = 1000;
export const SECOND = 1_000_000;

interface Job {
  at: number;
  seq: number;
  fn: () => void;
}

/** APF: each user's share in requests/s and burst; a user without one is never throttled. */
export interface ApfShare {
  ratePerSec: number;
  burst: number;
}

/**
 * A shared informer for one resource: a cache that receives the store's changes `delayUs` late
 * (watch delay), and handlers called when the cache changes.
 */
export class Informer {
  readonly cache = new Map<string, SimObject>();
  private readonly handlers: Array<(e: ChangeEvent) => void> = [];
  constructor(
    private readonly world: World,
    readonly group: string,
    readonly resource: string,
    readonly delayUs: number,
  ) {
    for (const o of world.store.list(group, resource)) this.cache.set(refKey(o.ref), o);
    world.store.onChange((e) => {
      if (e.object.ref.group !== group || e.object.ref.resource !== resource) return;
      world.at(world.now + delayUs, () => this.deliver(e));
    });
  }
  private deliver(e: ChangeEvent): void {
    const k = refKey(e.object.ref);
    if (e.type === 'DELETED') this.cache.delete(k);
    else {
      const have = this.cache.get(k);
      if (have && have.rv >= e.object.rv) return;
      this.cache.set(k, e.object);
    }
    for (const h of this.handlers) h(e);
  }
  /** Register a handler for cache changes (ADDED, MODIFIED, DELETED). */
  on(fn: (e: ChangeEvent) => void): void {
    this.handlers.push(fn);
  }
  /** The cached object (shared with the store, not to be mutated), or undefined. */
  get(ref: SimRef): SimObject | undefined {
    return this.cache.get(refKey(ref));
  }
  /** Overwrite the cached object (what argo-rollouts' `writeBackToInformer` did). */
  writeBack(o: SimObject): void {
    this.cache.set(refKey(o.ref), o);
  }
}

/** Options of a {@link World}. */
export interface WorldOptions {
  seed: number;
  /** Log start, epoch ms (UTC). */
  startMs: number;
  /** Simulated length, µs. */
  durationUs: number;
  /** Resources logged at RequestResponse level, as `resource` or `resource/subresource`. */
  requestResponse?: string[];
  /** Model the managedFields-time bump of identical applies (kubernetes/kubernetes#121404). */
  legacyApplyTimestamps?: boolean;
  /** Share of requests that also get a RequestReceived event (0..1). Default 0.05. */
  requestReceivedShare?: number;
}

/** Kinds of the resources the simulator uses, for 409 messages and bodies. */
const KINDS: Record<string, string> = {
  pods: 'Pod',
  nodes: 'Node',
  leases: 'Lease',
  events: 'Event',
  configmaps: 'ConfigMap',
  persistentvolumeclaims: 'PersistentVolumeClaim',
  secrets: 'Secret',
  services: 'Service',
  deployments: 'Deployment',
  statefulsets: 'StatefulSet',
  replicasets: 'ReplicaSet',
  jobs: 'Job',
  cronjobs: 'CronJob',
  horizontalpodautoscalers: 'HorizontalPodAutoscaler',
  endpointslices: 'EndpointSlice',
  replicationcontrollers: 'ReplicationController',
  customresourcedefinitions: 'CustomResourceDefinition',
};

function kindOf(resource: string): string {
  return KINDS[resource] ?? resource.replace(/s$/, '').replace(/^./, (c) => c.toUpperCase());
}

/** The simulated cluster. Actors call {@link World.call}; the continuation runs at response time. */
export class World {
  readonly store = new SimStore();
  readonly rng: SimRng;
  now = 0;
  private seq = 0;
  private readonly heap: Job[] = [];
  private readonly lines: Array<{ t: number; line: string }> = [];
  private readonly apf = new Map<string, ApfShare & { tokens: number; last: number }>();
  private readonly rr: Set<string>;
  private readonly rrShare: number;
  private readonly informers = new Map<string, Informer>();
  /** Count of requests by code (for the summary). */
  readonly codes = new Map<number, number>();
  /** Per `username \0 objectKey/subresource`: writes, 409 Conflict, AlreadyExists, 429, no-op writes. */
  readonly stats = new Map<string, { writes: number; conflicts: number; alreadyExists: number; throttled: number; noOps: number }>();

  constructor(readonly opts: WorldOptions) {
    this.rng = new SimRng(opts.seed);
    this.rr = new Set(opts.requestResponse ?? []);
    this.rrShare = opts.requestReceivedShare ?? 0.05;
  }

  /** Run `fn` at time `t` µs (not before now). */
  at(t: number, fn: () => void): void {
    const job = { at: Math.max(t, this.now), seq: this.seq++, fn };
    const h = this.heap;
    h.push(job);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const a = h[p] as Job;
      if (a.at < job.at || (a.at === job.at && a.seq < job.seq)) break;
      h[i] = a;
      i = p;
    }
    h[i] = job;
  }

  /** Run `fn` every `periodUs` (with ± jitter share) from `firstUs` until the end. */
  every(firstUs: number, periodUs: number, jitter: number, fn: () => void): void {
    const tick = (t: number) => {
      this.at(t, () => {
        fn();
        tick(this.now + periodUs * (1 + this.rng.uniform(-jitter, jitter)));
      });
    };
    tick(firstUs);
  }

  private pop(): Job | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        const x = (k: number) => h[k] as Job;
        const less = (a: Job, b: Job) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
        if (l < h.length && less(x(l), m === i ? last : x(m))) m = l;
        if (r < h.length && less(x(r), m === i ? last : x(m))) m = r;
        if (m === i) break;
        h[i] = x(m);
        i = m;
      }
      h[i] = last;
    }
    return top;
  }

  /** Run until the end of the log. */
  run(): void {
    for (;;) {
      const j = this.pop();
      if (!j || j.at >= this.opts.durationUs) break;
      this.now = j.at;
      j.fn();
    }
  }

  /** The shared informer of a resource with the given watch delay (one per resource and delay). */
  informer(group: string, resource: string, delayUs: number): Informer {
    const k = `${group}/${resource}/${delayUs}`;
    let i = this.informers.get(k);
    if (!i) {
      i = new Informer(this, group, resource, delayUs);
      this.informers.set(k, i);
    }
    return i;
  }

  /** Give an APF flow (a username or {@link SimUser.flow}) a share: requests beyond it get 429. */
  setApf(username: string, share: ApfShare): void {
    this.apf.set(username, { ...share, tokens: share.burst, last: 0 });
  }

  private admitted(username: string): boolean {
    const b = this.apf.get(username);
    if (!b) return true;
    b.tokens = Math.min(b.burst, b.tokens + ((this.now - b.last) / SECOND) * b.ratePerSec);
    b.last = this.now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /**
   * Send a request now; the store applies it at once, the audit event is written, and `then`
   * runs when the response arrives (after a latency of a few ms).
   */
  call(user: SimUser, req: SimRequest, then?: (res: SimResponse) => void): void {
    const received = this.now;
    const latency = this.latencyUs(req.verb);
    let res: SimResponse;
    if (!this.admitted(user.flow ?? user.username)) res = { code: 429, reason: 'TooManyRequests' };
    else res = this.apply(req);
    this.codes.set(res.code, (this.codes.get(res.code) ?? 0) + 1);
    this.count(user, req, res);
    this.audit(user, req, res, received, received + latency);
    if (then) this.at(received + latency, () => then(res));
  }

  private count(user: SimUser, req: SimRequest, res: SimResponse): void {
    const write = req.verb === 'create' || req.verb === 'update' || req.verb === 'patch' || req.verb === 'delete';
    if (!write && res.code !== 429) return;
    const k = `${user.username}\u0000${refKey(req.ref)}/${req.subresource ?? ''}`;
    let st = this.stats.get(k);
    if (!st) this.stats.set(k, (st = { writes: 0, conflicts: 0, alreadyExists: 0, throttled: 0, noOps: 0 }));
    if (write) st.writes++;
    if (res.reason === 'Conflict') st.conflicts++;
    if (res.reason === 'AlreadyExists') st.alreadyExists++;
    if (res.code === 429) st.throttled++;
    if (write && res.code === 200 && res.object && this.lastRv.get(refKey(req.ref)) === res.object.rv) st.noOps++;
    if (res.object) this.lastRv.set(refKey(req.ref), res.object.rv);
  }
  private readonly lastRv = new Map<string, number>();

  private latencyUs(verb: string): number {
    const mean = verb === 'list' ? 12 : verb === 'get' ? 1.5 : 4;
    return Math.round((0.4 + Math.min(this.rng.exp(mean), 8 * mean)) * MS);
  }

  private apply(req: SimRequest): SimResponse {
    const s = this.store;
    const sub = req.subresource ?? '';
    const rv = req.rv ?? '';
    let w: WriteResult;
    switch (req.verb) {
      case 'get': {
        const o = s.get(req.ref);
        return o ? { code: 200, reason: '', object: o } : { code: 404, reason: 'NotFound' };
      }
      case 'list':
        return { code: 200, reason: '', objects: s.list(req.ref.group, req.ref.resource, req.ref.namespace || undefined) };
      case 'watch':
        return { code: 200, reason: '' };
      case 'create':
        w = s.create(req.ref, req.body ?? {});
        break;
      case 'update':
        w = s.update(req.ref, sub, rv, req.body ?? {});
        break;
      case 'patch':
        w =
          req.patchType === 'apply'
            ? s.apply(req.ref, req.body ?? {}, this.opts.legacyApplyTimestamps ? Math.floor(this.now / SECOND) : undefined)
            : s.patch(req.ref, sub, rv, req.body ?? {});
        break;
      case 'delete':
        w = s.delete(req.ref);
        break;
    }
    return w.object ? { code: w.code, reason: w.reason, object: w.object } : { code: w.code, reason: w.reason };
  }

  private uri(req: SimRequest): string {
    const r = req.ref;
    const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
    const ns = r.namespace ? `/namespaces/${r.namespace}` : '';
    const named = req.verb !== 'list' && req.verb !== 'watch' && req.verb !== 'create';
    let p = `${base}${ns}/${r.resource}${named ? `/${r.name}` : ''}${named && req.subresource ? `/${req.subresource}` : ''}`;
    const q: string[] = [];
    if (req.verb === 'watch') q.push('allowWatchBookmarks=true', `resourceVersion=${this.store.currentRv}`, 'watch=true');
    if (req.verb === 'list') q.push('limit=500', 'resourceVersion=0');
    if (req.fieldManager) q.push(`fieldManager=${encodeURIComponent(req.fieldManager)}`);
    if (req.patchType === 'apply') q.push('force=true');
    if (q.length) p += `?${q.join('&')}`;
    return p;
  }

  private timeSecond = NaN;
  private timePrefix = '';
  /** RFC 3339 with microseconds of simulated time `us` (the second's prefix is cached: most calls share it). */
  private time(us: number): string {
    const total = this.opts.startMs * 1000 + us;
    const sec = Math.floor(total / 1_000_000);
    if (sec !== this.timeSecond) {
      this.timeSecond = sec;
      this.timePrefix = new Date(sec * 1000).toISOString().slice(0, 19);
    }
    return `${this.timePrefix}.${String(Math.floor(total - sec * 1_000_000)).padStart(6, '0')}Z`;
  }

  private readonly userJson = new WeakMap<SimUser, string>();
  /** The `user`, `sourceIPs` and `userAgent` members of a user's events, serialized once per user object. */
  private userPart(user: SimUser): string {
    let j = this.userJson.get(user);
    if (j === undefined) {
      j = `"user":${JSON.stringify({ username: user.username, groups: user.groups })},"sourceIPs":${JSON.stringify([user.sourceIP])},"userAgent":${JSON.stringify(user.userAgent)}`;
      this.userJson.set(user, j);
    }
    return j;
  }

  private audit(user: SimUser, req: SimRequest, res: SimResponse, received: number, completed: number): void {
    const r = req.ref;
    const sub = req.subresource ?? '';
    const resKey = sub ? `${r.resource}/${sub}` : r.resource;
    const write = req.verb === 'create' || req.verb === 'update' || req.verb === 'patch' || req.verb === 'delete';
    const level = write && (this.rr.has(resKey) || this.rr.has(r.resource)) ? 'RequestResponse' : 'Metadata';
    const objectRef: Record<string, unknown> = { resource: r.resource };
    if (r.namespace) objectRef.namespace = r.namespace;
    const generated = req.verb === 'create' && req.generateName !== undefined;
    if (r.name && req.verb !== 'list' && req.verb !== 'watch' && !generated) objectRef.name = r.name;
    if (r.group) objectRef.apiGroup = r.group;
    objectRef.apiVersion = r.version;
    // The API server fills objectRef.resourceVersion from the request object on update (a 409
    // keeps the one the client sent); never on patch, whose body it logs only as patch bytes
    // (audit-formats.md, LogRequestPatch), even when the patch carries metadata.resourceVersion.
    if (req.verb === 'update' && req.rv) objectRef.resourceVersion = req.rv;
    if (sub && write) objectRef.subresource = sub;
    const status: Record<string, unknown> = { metadata: {}, code: res.code };
    if (res.code >= 400) {
      status.status = 'Failure';
      status.reason = res.reason;
      const what = `${r.resource}${r.group ? `.${r.group}` : ''}`;
      if (res.reason === 'Conflict')
        status.message = `Operation cannot be fulfilled on ${what} "${r.name}": the object has been modified; please apply your changes to the latest version and try again`;
      else if (res.reason === 'AlreadyExists') status.message = `${what} "${r.name}" already exists`;
      else if (res.code === 429) status.message = 'Too many requests, please try again later.';
      else if (res.reason === 'Invalid')
        status.message = `${kindOf(r.resource)}.${r.group} "${r.name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`;
      else status.message = `${what} "${r.name}" not found`;
    }
    let bodies = '';
    if (level === 'RequestResponse' && req.body) {
      const meta: Record<string, unknown> = generated ? { generateName: req.generateName } : { name: r.name };
      if (r.namespace) meta.namespace = r.namespace;
      if (req.rv) meta.resourceVersion = req.rv;
      const body =
        req.verb === 'patch'
          ? { metadata: req.rv ? { resourceVersion: req.rv } : undefined, ...(sub === 'status' ? { status: req.body } : { spec: req.body }) }
          : {
              kind: kindOf(r.resource),
              apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
              metadata: meta,
              ...(sub === 'status' ? { status: req.body } : { spec: req.body }),
            };
      let response: unknown;
      if (res.object) {
        const o = res.object;
        response = {
          kind: kindOf(r.resource),
          apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
          metadata: {
            name: r.name,
            generateName: generated ? req.generateName : undefined,
            namespace: r.namespace || undefined,
            uid: o.uid,
            resourceVersion: String(o.rv),
            generation: o.generation,
          },
          spec: o.spec,
          status: o.status,
        };
      } else response = { kind: 'Status', apiVersion: 'v1', ...status };
      bodies = `,"requestObject":${canonical(body)},"responseObject":${JSON.stringify(response)}`;
    }
    const auditID = this.rng.uuid();
    const head = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"${level}","auditID":"${auditID}",`;
    const tail = `"requestURI":${JSON.stringify(this.uri(req))},"verb":"${req.verb}",${this.userPart(user)},"objectRef":${JSON.stringify(objectRef)}`;
    const receivedAt = this.time(received);
    if (this.rng.next() < this.rrShare) {
      this.lines.push({ t: received, line: `${head}"stage":"RequestReceived",${tail},"requestReceivedTimestamp":"${receivedAt}","stageTimestamp":"${receivedAt}"}` });
    }
    this.lines.push({
      t: completed,
      line: `${head}"stage":"ResponseComplete",${tail},"responseStatus":${JSON.stringify(status)}${bodies},"requestReceivedTimestamp":"${receivedAt}","stageTimestamp":"${this.time(completed)}","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}`,
    });
  }

  /** The audit log: JSON lines sorted by stageTimestamp, each ending in a newline. */
  auditLog(): string {
    return this.auditChunks(Infinity).join('');
  }

  /**
   * The audit log as chunks of whole lines of about `chunkChars` characters each (sorted by
   * stageTimestamp, each line ending in a newline), to stream into `analyze` without one large string.
   */
  auditChunks(chunkChars = 1 << 20): string[] {
    const sorted = this.lines.slice().sort((a, b) => a.t - b.t);
    const out: string[] = [];
    let buf: string[] = [];
    let size = 0;
    for (const x of sorted) {
      buf.push(x.line, '\n');
      size += x.line.length + 1;
      if (size >= chunkChars) {
        out.push(buf.join(''));
        buf = [];
        size = 0;
      }
    }
    if (buf.length > 0) out.push(buf.join(''));
    return out;
  }

  /** Number of audit lines so far. */
  get lineCount(): number {
    return this.lines.length;
  }
}
