/**
 * Turning decoded audit events into interned {@link RequestRecord}s.
 *
 * Field meanings are those documented in `record.ts`; facts about stages, long-running requests,
 * query parameters and user agents come from the reference `audit-formats.md` (§1.3, §3, §5.4).
 */
import { digestBody, responseName, responseResourceVersion } from './body.js';
import type { AuditEvent } from './event.js';
import type { FastFields } from './fast.js';
import { WRITE_VERBS, type Actor, type BodyDigest, type FinalStage, type ObjectRef, type RequestRecord, type ServiceAccountRef } from './record.js';
import { flattened, fresh, StringPool } from './fresh.js';
import { idLanes, LANES } from './hash.js';
import { resourceLabel } from '../labels.js';

/**
 * Long-running verbs and subresources of kube-apiserver's `BasicLongRunningRequestCheck`
 * (`kubernetes/apiserver` `pkg/server/filters/longrunning.go`; reference §1.3).
 */
const LONG_RUNNING_VERBS: ReadonlySet<string> = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES: ReadonlySet<string> = new Set(['attach', 'exec', 'log', 'portforward', 'proxy']);

/** Whether requests to `subresource` of any object are long-running (see {@link LONG_RUNNING_SUBRESOURCES}). */
export function isLongRunningSubresource(subresource: string): boolean {
  return subresource !== '' && LONG_RUNNING_SUBRESOURCES.has(subresource);
}

const SA_PREFIX = 'system:serviceaccount:';
/** client-go's user agent: `<product>/<version> (<os>/<arch>) kubernetes/<commit>[/<suffix>]`. */
const UA_COMMIT_MARK = ' kubernetes/';

/**
 * Parses `system:serviceaccount:<namespace>:<name>`, the username of a service-account token
 * (`kubernetes/apiserver` `pkg/authentication/serviceaccount/util.go`, `MakeUsername`). Returns
 * `null` for anything else, including the group `system:serviceaccounts:<ns>`.
 */
export function parseServiceAccount(username: string): ServiceAccountRef | null {
  if (!username.startsWith(SA_PREFIX)) return null;
  const colon = username.indexOf(':', SA_PREFIX.length);
  if (colon === -1) return null;
  const namespace = username.slice(SA_PREFIX.length, colon);
  const name = username.slice(colon + 1);
  if (namespace === '' || name === '' || name.includes(':')) return null;
  return { namespace, name };
}

/** The parts of a user agent an {@link Actor} keeps. */
export interface UserAgentParts {
  /** Text before the first `/` of the first word, e.g. `kube-controller-manager`; `''` if empty. */
  product: string;
  /** Text after that `/` up to the first space, e.g. `v1.29.0`; `''` if none. */
  version: string;
  /**
   * The suffix after `kubernetes/<commit>/` (what `rest.AddUserAgent` appends, reference §5.4),
   * e.g. `deployment-controller`, `leader-election`; for `system:serviceaccount:NS:NAME` the NAME.
   */
  controller: string;
}

/**
 * Splits a user agent as client-go's `buildUserAgent` builds it (reference §5.4). Any string is
 * accepted; missing parts are `''`.
 */
export function parseUserAgent(ua: string): UserAgentParts {
  const space = ua.indexOf(' ');
  const word = space === -1 ? ua : ua.slice(0, space);
  const slash = word.indexOf('/');
  const product = slash === -1 ? word : word.slice(0, slash);
  const version = slash === -1 ? '' : word.slice(slash + 1);
  let controller = '';
  const mark = ua.indexOf(UA_COMMIT_MARK);
  if (mark !== -1) {
    const suffixSlash = ua.indexOf('/', mark + UA_COMMIT_MARK.length);
    if (suffixSlash !== -1) {
      const suffix = ua.slice(suffixSlash + 1);
      controller = parseServiceAccount(suffix)?.name ?? suffix;
    }
  }
  return { product, version, controller };
}

/**
 * Value of query parameter `key` (given with its `=`, e.g. `fieldManager=`) in a requestURI whose
 * `?` is at `query`; the first occurrence wins, as Go's `url.Values.Get`. Percent-escapes and `+`
 * are decoded as Go's `url.QueryUnescape`; a malformed escape leaves the raw value. `''` if absent.
 */
function queryParam(uri: string, query: number, key: string): string {
  for (let at = uri.indexOf(key, query + 1); at !== -1; at = uri.indexOf(key, at + 1)) {
    const before = uri.charCodeAt(at - 1);
    if (before !== 63 && before !== 38) continue; // '?' '&'
    const start = at + key.length;
    const amp = uri.indexOf('&', start);
    const raw = amp === -1 ? uri.slice(start) : uri.slice(start, amp);
    if (raw.indexOf('%') === -1 && raw.indexOf('+') === -1) return raw;
    try {
      return decodeURIComponent(raw.replaceAll('+', ' '));
    } catch {
      return raw;
    }
  }
  return '';
}

/** What a record keeps of its requestURI (see {@link uriFacts}). */
export interface UriFacts {
  /** The `fieldManager` query parameter, `''` if none. */
  fieldManager: string;
  /** Whether it asks for `dryRun=All`. */
  dryRun: boolean;
}

/**
 * Fills `out` with what a record keeps of `uri` and returns it (a reused object: nothing is
 * allocated per request). The workers of the parallel reader derive these where they read the
 * line, so the URI itself never travels (`work-lines.ts`).
 */
export function uriFacts(uri: string, out: UriFacts): UriFacts {
  const query = uri.indexOf('?');
  out.fieldManager = query === -1 ? '' : queryParam(uri, query, 'fieldManager=');
  out.dryRun = query !== -1 && queryParam(uri, query, 'dryRun=') === 'All';
  return out;
}

/**
 * Generations let go whose objects' keys are remembered (as hashes) to tell an object made again
 * (see {@link Normalizer}'s `regretted`): values recurring within 4 + 2 generations grow them.
 */
const DROPPED_GENERATIONS = 4;
/** Stream time one generation of interned actors and objects lasts (see {@link Normalizer}): 15 min. */
export const INTERN_GENERATION_MS = 15 * 60_000;
/** Interned values below which a generation is kept open. */
export const INTERN_GENERATION_MIN = 10_000;
/**
 * Interned values at which a generation is closed whatever its age: at most twice this many
 * are held strongly (with their summaries' entries), so it bounds the interning's share of the
 * heap on a log of ever new objects (20,000: about 10 MB less live heap than 50,000 on a million
 * distinct objects, the same findings on the benchmark log and the evaluation).
 */
export const INTERN_GENERATION_MAX = 20_000;
/**
 * The longest userAgent an actor keeps (UTF-16 code units), and what replaces the rest: the
 * limit and suffix kube-apiserver applies to the audit event's userAgent (1,024 bytes,
 * `...TRUNCATED`; k8s.io/apiserver/pkg/audit/request.go `maybeTruncateUserAgent`). Only one
 * longer than the limit plus the suffix is cut, so a real log's userAgents never are (a forged
 * or corrupt log's would make each actor, and each worker's dictionary, hold megabytes).
 */
export const MAX_USER_AGENT_LENGTH = 1024;
const USER_AGENT_TRUNCATED = '...TRUNCATED';

/** `userAgent` as an actor keeps it: cut as {@link MAX_USER_AGENT_LENGTH} says when longer than the limit plus the suffix. */
export function cappedUserAgent(userAgent: string): string {
  return userAgent.length > MAX_USER_AGENT_LENGTH + USER_AGENT_TRUNCATED.length ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) + USER_AGENT_TRUNCATED : userAgent;
}
/**
 * How far a generation's size may grow past `generationMax` (×8: 160,000 values with the
 * defaults) when the values in use recur more slowly than two generations hold them (a
 * 5,000-node cluster's Leases and Nodes every 10 s): see {@link Normalizer}.
 */
export const INTERN_GENERATION_GROWTH = 8;
/**
 * Distinct API groups, versions, resources, namespaces and subresources kept as one shared copy
 * each (see {@link Normalizer.internObject}); past this the table starts over, so input with
 * endless distinct namespaces costs a copy per object again, never unbounded memory.
 */
export const SHARED_PARTS_MAX = 10_000;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The final stage as a constant string: a stage read from input may be a slice of it. */
function keptStage(stage: FinalStage): FinalStage {
  return stage === 'Panic' ? 'Panic' : 'ResponseComplete';
}

/** Rounds ms to whole microseconds (the audit log's resolution) to drop float noise. */
function roundMicros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * Builds {@link RequestRecord}s from decoded events, interning actors (by
 * `username + '\0' + userAgent`) and objects (by {@link ObjectRef.key}) so equal values share one
 * instance while they are in use, in generations (see the constructor).
 * - An **object** is held by the current and the previous generation, strongly; one unseen for two
 *   generations is let go and, seen again, made again: a new instance with the same key. State
 *   kept per object (detectors, summaries) goes by the key, never by the instance, so it is not
 *   split; a generation closes by dropping a map, with no pass over the objects held and no
 *   weak reference per object, so an object seen once (an Event with a unique name) costs one
 *   map entry.
 * - An **actor** unseen for two generations is dropped once nothing else holds it, and one that
 *   something holds (a detector's state keyed by the instance) keeps its instance.
 * So a log of millions of distinct objects keeps flat memory. An object made again keeps the
 * `apiVersion` of the request that made it; its parts other than the name are shared between
 * instances ({@link part}). User agents are parsed once per interned actor. Never throws on a
 * decoded event.
 */
export class Normalizer {
  /** The verb of the last record built, and whether it writes (`WRITE_VERBS`) and is long-running. */
  private lastVerb = '';
  private lastVerbWrites = false;
  private lastVerbLongRunning = false;
  /** Reused by {@link uriFacts} for each record. */
  private readonly query: UriFacts = { fieldManager: '', dryRun: false };
  private actors = new Map<string, Actor>();
  private objects = new Map<string, ObjectRef>();
  /**
   * The closed generations' actors, held weakly, by key, each with the number of the last
   * generation it was in: an actor nothing else holds goes at the next collection, while one a
   * detector's state holds keeps its instance however long it is idle. Entries whose actor went
   * are removed as each generation closes.
   */
  private oldActors = new Map<string, OldActor>();
  /** The previous generation's objects (held strongly; found there, an object is promoted to the current one). */
  private prevObjects = new Map<string, ObjectRef>();
  /**
   * Per generation let go, the latest first, at most {@link DROPPED_GENERATIONS}: hashes
   * ({@link tailHash}) of the keys of the objects it let go, in an open-addressing table
   * (load ≤ 0.5), to count the objects made again (`regretted`).
   */
  private dropped: Int32Array[] = [];
  /**
   * Values the current generation found in the previous one (`promoted`), and values that
   * generations of this size let go: made again after they were dropped, or found only because
   * something held them (`regretted`). Only the generations' size depends on these.
   */
  private promoted = 0;
  private regretted = 0;
  /**
   * Objects made by {@link newObject} in the current generation: they count in its size as
   * interned ones do, so the generations close as often whichever reader made the objects, and
   * the actors they hold stay as few.
   */
  private made = 0;
  /** The size at which the current generation closes (see the constructor). */
  private limit: number;
  /** One copy of each few-valued object part (group, version, resource, namespace, subresource). */
  private readonly parts = new StringPool(SHARED_PARTS_MAX);
  private generationStartMs = Number.NaN;
  /**
   * Bumped whenever a generation closes. Callers that cache interned values outside the
   * normalizer (the parallel reader) drop their caches then, so every value in use is looked up
   * again and stays interned.
   */
  generation = 0;

  /**
   * @param generationMs stream time (ms of `stageTimestamp`) a generation of interned values
   *   lasts: an actor or object not seen for two generations is dropped, so memory follows the
   *   objects in use, not every object ever seen. Detectors evict idle state well within that.
   * @param generationMin a generation is not closed while it holds fewer values (small logs never rotate)
   * @param generationMax a generation is closed when it holds this many values, however young: a
   *   log with hundreds of thousands of new objects an hour (pod churn, generated names) keeps at
   *   most 2 × this many objects strongly; an object that stays idle through two such generations
   *   gets a new instance (an actor only if nothing holds it). When the values a generation let go (see `regretted`) are
   *   at least a quarter of those it did not find in the previous one (the values in use recur
   *   more slowly than two generations last, so each would be made again every time), the next
   *   generation may hold four times as many, up to `generationMax × growth`; when fewer than 1
   *   in 16 of its values came from earlier generations, it goes back to half, down to
   *   `generationMax`. A log of ever new objects stays at `generationMax`.
   * @param growth see `generationMax` ({@link INTERN_GENERATION_GROWTH})
   */
  constructor(
    private readonly generationMs = INTERN_GENERATION_MS,
    private readonly generationMin = INTERN_GENERATION_MIN,
    private readonly generationMax = INTERN_GENERATION_MAX,
    private readonly growth = INTERN_GENERATION_GROWTH,
  ) {
    this.limit = generationMax;
  }

  /** The size at which the current generation closes: `generationMax` up to `generationMax × growth`. */
  get generationLimit(): number {
    return this.limit;
  }

  /** Distinct actors interned in the current and the previous generation. */
  get actorCount(): number {
    let old = 0;
    for (const [key, e] of this.oldActors) if (e.ref.deref() !== undefined && !this.actors.has(key)) old++;
    return this.actors.size + old;
  }

  /** Distinct objects interned in the current and the previous generation. */
  get objectCount(): number {
    let old = 0;
    for (const key of this.prevObjects.keys()) if (!this.objects.has(key)) old++;
    return this.objects.size + old;
  }

  /** Closes the generation when it is `generationMs` old (and holds `generationMin`) or full. */
  private maybeRotate(ts: number): void {
    const size = this.objects.size + this.actors.size + this.made;
    const old = !(ts - this.generationStartMs < this.generationMs);
    if (!old && size < this.limit) return;
    if (size >= this.limit || size >= this.generationMin) {
      if (this.regretted > 0 && this.regretted * 4 >= size - this.promoted) this.limit = Math.min(this.limit * 4, this.generationMax * this.growth);
      else if ((this.promoted + this.regretted) * 16 < size) this.limit = Math.max(this.limit / 2, this.generationMax);
      this.promoted = 0;
      this.regretted = 0;
      this.made = 0;
      const closing = this.generation;
      if (this.prevObjects.size > 0) {
        this.dropped.unshift(droppedKeys(this.prevObjects, this.objects));
        if (this.dropped.length > DROPPED_GENERATIONS) this.dropped.pop();
      }
      this.prevObjects = this.objects;
      for (const a of this.actors.values()) {
        const e = this.oldActors.get(a.key);
        if (e !== undefined && e.ref.deref() === a) e.generation = closing;
        else this.oldActors.set(a.key, { ref: new WeakRef(a), generation: closing });
      }
      // Entries of earlier generations stay while something holds their value (a detector's
      // state, a queued record): state keyed by an instance must not split in two.
      sweep(this.oldActors, closing);
      this.generation++;
      this.objects = new Map();
      this.actors = new Map();
    }
    this.generationStartMs = ts;
  }

  /**
   * The request record of a final-stage event (`ResponseComplete`, `Panic`); `null` for
   * `RequestReceived` and `ResponseStarted`, which add no request. Times are UTC epoch ms.
   */
  normalize(ev: AuditEvent): RequestRecord | null {
    const stage = ev.stage;
    if (stage !== 'ResponseComplete' && stage !== 'Panic') return null;
    const ref = ev.objectRef;
    const status = ev.responseStatus;
    // Copies (`fresh`): a legacy text line's values are slices of the line, and through it of
    // the piece of input it was cut from (JSON.parse's strings are copies already; copying them
    // again costs little on this slow path).
    const query = uriFacts(ev.requestURI, this.query);
    const responseObject = ev.responseObject;
    const requestObject = ev.requestObject;
    let name = ref?.name ?? '';
    // A create with generateName leaves objectRef.name empty (audit-formats.md §1); at
    // RequestResponse level the response body carries the generated name, so the object is named.
    if (name === '' && ev.verb === 'create' && responseObject !== undefined && responseObject !== null) name = responseName(responseObject);
    const object = ref ? this.internObject(ref.apiGroup ?? '', ref.resource ?? '', ref.namespace ?? '', name, ref.subresource ?? '', ref.apiVersion ?? '') : null;
    return this.build(
      fresh(ev.auditID),
      keptStage(stage),
      fresh(query.fieldManager),
      query.dryRun,
      fresh(ev.verb),
      ev.stageTimeMs,
      ev.receivedTimeMs,
      this.internActor(ev.user?.username ?? '', ev.userAgent ?? ''),
      object,
      object !== null && isLongRunningSubresource(object.subresource),
      fresh(ref?.resourceVersion ?? ''),
      status?.code ?? 0,
      fresh(status?.reason ?? ''),
      fresh(ev.sourceIPs?.[0] ?? ''),
      fresh(ev.level ?? ''),
      // Bodies exist only at Request/RequestResponse level: Metadata events pay two property reads.
      responseObject !== undefined && responseObject !== null ? responseResourceVersion(responseObject) : '',
      requestObject !== undefined && requestObject !== null && (ev.verb === 'update' || ev.verb === 'patch') ? digestBody(requestObject) : null,
      0,
      0,
    );
  }

  /**
   * The record of a final-stage event read by the JSON-lines fast path (`fast.ts`): the same
   * record {@link normalize} gives for the event the fields came from (the fast path hands over
   * what the record keeps of logged bodies: `responseResourceVersion`, `body`, and a create's
   * generated name in `name`).
   */
  normalizeFast(f: FastFields): RequestRecord {
    const object = f.hasObjectRef ? this.internObject(f.apiGroup, f.resource, f.namespace, f.name, f.subresource, f.apiVersion) : null;
    return this.normalizeInterned(f, this.internActor(f.username, f.userAgent), object);
  }

  /**
   * As {@link normalizeFast}, with the actor and object already interned (from
   * {@link internActor} / {@link internObject} in this generation); `f`'s actor and object fields
   * are not read. `kept`: `f`'s strings are already copies that pin nothing (see `fresh`), as the
   * parallel reader's are; otherwise every one the record keeps is copied here (a slice of 13+
   * characters — `ResponseComplete`, `RequestResponse`, a long source IP — would keep the whole
   * 64 KB piece it was cut from alive for as long as a detector holds the record or the value).
   * `objectLongRunning`: whether `object`'s subresource is long-running
   * ({@link isLongRunningSubresource}), for a caller that knows it without reading the object
   * (whose first read for this record would be a cache miss here and another one when the
   * detectors read it). `idLaneA`, `idLaneB`: the auditID's hash lanes when the caller has them
   * (`RequestRecord.idLaneA`; both 0: computed here).
   */
  normalizeInterned(
    f: FastFields,
    actor: Actor,
    object: ObjectRef | null,
    kept = false,
    objectLongRunning = object !== null && isLongRunningSubresource(object.subresource),
    idLaneA = 0,
    idLaneB = 0,
  ): RequestRecord {
    if (kept) {
      return this.build(
        f.auditID,
        f.stage,
        f.fieldManager,
        f.dryRun,
        f.verb,
        f.stageTimeMs,
        f.receivedTimeMs,
        actor,
        object,
        objectLongRunning,
        f.resourceVersion,
        f.code,
        f.reason,
        f.sourceIP,
        f.level,
        f.responseResourceVersion,
        f.body,
        idLaneA,
        idLaneB,
      );
    }
    const query = uriFacts(f.requestURI, this.query);
    return this.build(
      fresh(f.auditID),
      keptStage(f.stage),
      fresh(query.fieldManager),
      query.dryRun,
      fresh(f.verb),
      f.stageTimeMs,
      f.receivedTimeMs,
      actor,
      object,
      objectLongRunning,
      fresh(f.resourceVersion),
      f.code,
      fresh(f.reason),
      fresh(f.sourceIP),
      fresh(f.level),
      f.responseResourceVersion === '' ? '' : fresh(f.responseResourceVersion),
      f.body,
      idLaneA,
      idLaneB,
    );
  }

  private build(
    auditID: string,
    stage: FinalStage,
    fieldManager: string,
    dryRun: boolean,
    verb: string,
    stageTimeMs: number,
    receivedTimeMs: number,
    actor: Actor,
    object: ObjectRef | null,
    objectLongRunning: boolean,
    resourceVersion: string,
    code: number,
    reason: string,
    sourceIP: string,
    level: string,
    responseResourceVersion: string,
    body: BodyDigest | null,
    idLaneA: number,
    idLaneB: number,
  ): Mutable<RequestRecord> {
    this.maybeRotate(stageTimeMs);
    if ((idLaneA | idLaneB) === 0) {
      idLanes(auditID);
      idLaneA = LANES[0]!;
      idLaneB = LANES[1]!;
    }
    if (verb !== this.lastVerb) {
      // Consecutive records mostly share their verb: two set lookups per verb, not per record.
      this.lastVerb = verb;
      this.lastVerbWrites = WRITE_VERBS.has(verb);
      this.lastVerbLongRunning = LONG_RUNNING_VERBS.has(verb);
    }
    const longRunning = this.lastVerbLongRunning || objectLongRunning;
    return {
      auditID,
      ts: stageTimeMs,
      receivedTs: receivedTimeMs,
      latencyMs: longRunning ? -1 : Math.max(0, roundMicros(stageTimeMs - receivedTimeMs)),
      stage,
      verb,
      isWrite: !dryRun && this.lastVerbWrites,
      dryRun,
      actor,
      object,
      code,
      reason,
      resourceVersion,
      fieldManager,
      sourceIP,
      level,
      responseResourceVersion,
      body,
      idLaneA,
      idLaneB,
    };
  }

  /**
   * The interned actor of `username` + `userAgent` (see {@link normalizeInterned}), the
   * userAgent cut as {@link cappedUserAgent} says.
   */
  internActor(username: string, userAgent: string): Actor {
    userAgent = cappedUserAgent(userAgent);
    const key = `${username}\u0000${userAgent}`;
    let actor = this.actors.get(key);
    if (actor !== undefined) return actor;
    const old = this.oldActors.get(key);
    if (old !== undefined) {
      // One of an earlier generation than the previous one was let go by the generations' size
      // (made again, or found only because something held it).
      if (old.generation < this.generation - 1) this.regretted++;
      else this.promoted++;
      if ((actor = old.ref.deref()) !== undefined) this.actors.set(actor.key, actor);
    }
    if (actor === undefined) {
      // Cut from the flat key: the parts are slices, and slices of the input would keep the
      // piece of it they were cut from alive for as long as the actor is interned.
      const keptKey = flattened(key);
      const keptUser = keptKey.slice(0, username.length);
      const keptAgent = keptKey.slice(username.length + 1);
      const ua = parseUserAgent(keptAgent);
      actor = {
        key: keptKey,
        username: keptUser,
        userAgent: keptAgent,
        userAgentProduct: ua.product,
        userAgentVersion: ua.version,
        controller: ua.controller,
        serviceAccount: parseServiceAccount(keptUser),
        summaryMemo: undefined,
        allowOwner: undefined,
        allowMask: undefined,
      };
      this.actors.set(actor.key, actor); // not `key`: a key made of slices would keep their chunk alive
    }
    return actor;
  }

  /**
   * The shared copy of an object part (`''` as is): tens of thousands of interned objects name a
   * few groups, resources and namespaces; a copy of each per object held 3.5 MB of strings on
   * the benchmark's 5× log (a heap snapshot: 13.2 → 9.7 MB of strings with the parallel reader's
   * definitions shared too). Used by that reader (`parallel.ts`) for its dictionaries' copies.
   */
  part(s: string): string {
    return this.parts.get(s);
  }

  /**
   * The interned object (see {@link normalizeInterned}) with the parts this request named: an
   * interned instance of another `apiVersion` (HorizontalPodAutoscalers are read as
   * `autoscaling/v1` and `v2`), or whose key is the same from other parts (a `/` in a part), is
   * replaced by a new one with the same key. So what a record's object says never depends on which
   * request came first in a generation, or in a parser thread's dictionary (`work-lines.ts`
   * defines an object per parts and `apiVersion` too).
   */
  internObject(apiGroup: string, resource: string, namespace: string, name: string, subresource: string, apiVersion: string): ObjectRef {
    const key = `${apiGroup}/${resource}/${namespace}/${name}/${subresource}`;
    let object = this.objects.get(key);
    if (object !== undefined) {
      if (sameParts(object, apiGroup, resource, namespace, subresource, apiVersion)) return object;
    } else {
      object = this.prevObjects.get(key);
      if (object !== undefined) {
        this.promoted++;
        if (sameParts(object, apiGroup, resource, namespace, subresource, apiVersion)) {
          this.objects.set(object.key, object);
          return object;
        }
      }
    }
    // The name is cut from the flat key (see `flattened`): no copy of its own.
    let keptKey: string;
    if (object !== undefined) keptKey = object.key;
    else {
      keptKey = flattened(key);
      if (this.dropped.length > 0 && takeDropped(this.dropped, keptKey)) this.regretted++;
    }
    object = this.madeObject(keptKey, this.part(apiGroup), this.part(resource), this.part(namespace), name.length, this.part(subresource), this.part(apiVersion));
    this.objects.set(object.key, object);
    return object;
  }

  /**
   * A new object, not interned, for a caller whose own dictionary gives one definition per object
   * and `apiVersion` (the parallel reader's: `work-lines.ts`), so it makes each object once per
   * definition without a lookup here. The parts other than `name` must be this normalizer's
   * shared copies ({@link part}). Per-object state goes by `key`, so two instances of one object
   * share it.
   */
  newObject(apiGroup: string, resource: string, namespace: string, name: string, subresource: string, apiVersion: string): ObjectRef {
    this.made++;
    return this.madeObject(flattened(`${apiGroup}/${resource}/${namespace}/${name}/${subresource}`), apiGroup, resource, namespace, name.length, subresource, apiVersion);
  }

  /** The object of flat key `keptKey` whose name is `nameLength` long, from shared parts. */
  private madeObject(keptKey: string, apiGroup: string, resource: string, namespace: string, nameLength: number, subresource: string, apiVersion: string): ObjectRef {
    const nameAt = apiGroup.length + resource.length + namespace.length + 3;
    return {
      key: keptKey,
      apiGroup,
      apiVersion,
      resource,
      namespace,
      name: keptKey.slice(nameAt, nameAt + nameLength),
      subresource,
      label: this.label(apiGroup, resource, subresource),
      summaryMemo: undefined,
      allowOwner: undefined,
      allowMask: undefined,
    };
  }

  // The label of the last new object's group, resource and subresource: new objects come in
  // runs of one kind (pods, Events), so one string is made per run, not per object.
  private labelGroup = '';
  private labelResource = '';
  private labelSubresource = '';
  private lastLabel = '';

  /** The shared copy of `resourceLabel` of these shared parts. */
  private label(apiGroup: string, resource: string, subresource: string): string {
    if (resource !== this.labelResource || apiGroup !== this.labelGroup || subresource !== this.labelSubresource || this.lastLabel === '') {
      this.labelGroup = apiGroup;
      this.labelResource = resource;
      this.labelSubresource = subresource;
      this.lastLabel = this.part(resourceLabel({ apiGroup, resource, subresource }));
    }
    return this.lastLabel;
  }
}

/** Whether `o` has these parts (its key being that of these parts and a name). */
function sameParts(o: ObjectRef, apiGroup: string, resource: string, namespace: string, subresource: string, apiVersion: string): boolean {
  return o.apiVersion === apiVersion && o.resource === resource && o.namespace === namespace && o.subresource === subresource && o.apiGroup === apiGroup;
}

/**
 * The table of the keys of `closing` (the generation let go) that `next` does not hold (those
 * were promoted), as {@link Normalizer}'s `dropped` says: at least 16 slots and twice as many as
 * `closing` holds, so every probe run ends at an empty slot.
 */
function droppedKeys(closing: Map<string, ObjectRef>, next: Map<string, ObjectRef>): Int32Array {
  let size = 16;
  while (size < closing.size * 2) size *= 2;
  const table = new Int32Array(size);
  const mask = size - 1;
  for (const key of closing.keys()) {
    if (next.has(key)) continue;
    const h = tailHash(key);
    let i = h & mask;
    while (table[i] !== 0) i = (i + 1) & mask;
    table[i] = h;
  }
  return table;
}

/**
 * An odd 30-bit FNV-1a hash of `key`'s length and last 32 characters (where keys of one resource
 * differ: the name and subresource), for `droppedKeys`: a collision only miscounts an object as
 * made again, which sizes the generations and changes no record.
 */
function tailHash(key: string): number {
  let h = 0x811c9dc5 ^ key.length;
  for (let i = Math.max(0, key.length - 32); i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h & 0x3fffffff) | 1;
}

/** Whether `key`'s hash is in one of `tables` (see `droppedKeys`); a hash found is taken out, so a key counts once. */
function takeDropped(tables: readonly Int32Array[], key: string): boolean {
  const h = tailHash(key);
  for (const table of tables) {
    const mask = table.length - 1;
    for (let i = h & mask; table[i] !== 0; i = (i + 1) & mask) {
      if (table[i] === h) {
        // A tombstone (hashes are positive), so later entries of the run stay reachable.
        table[i] = -1;
        return true;
      }
    }
  }
  return false;
}

/** Removes the entries of generations before `closing` whose value went. */
function sweep(entries: Map<string, OldActor>, closing: number): void {
  for (const [key, e] of entries) if (e.generation < closing && e.ref.deref() === undefined) entries.delete(key);
}

/** An actor of a closed generation: its instance if still alive (an actor is made again from its key alone). */
interface OldActor {
  ref: WeakRef<Actor>;
  /** The number (`Normalizer.generation`) of the last generation it was in. */
  generation: number;
}
