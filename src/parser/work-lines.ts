/**
 * The work of the parallel JSON-lines reader's threads (`parallel.ts`, `worker.ts`): a run of
 * whole lines in, per line what the fast path made of it out. Runs {@link cutLines} and {@link fastDecode}
 * exactly as the single-threaded reader does; lines the fast path leaves to the full path are sent
 * back as text, so everything stateful (bad-line samples, sniffing, legacy pairs, wrappers) stays
 * on the main thread, in line order.
 */
import { FAST_FALLBACK, FAST_FINAL, fastDecode, newFastFields, type FastFields } from './fast.js';
import { cutLines } from './lines.js';
import { fresh } from './fresh.js';

/** A run of lines to decode (see `Frame` in `lines.ts`). */
export interface WorkRequest {
  id: number;
  bytes: Uint8Array;
  atEnd: boolean;
  /** Number of the run's first line (1-based within the member). */
  first: number;
  maxLength: number;
}

/** Per line of a run, in order. */
export const LINE_NONE = 0; // blank
export const LINE_FINAL = 1; // a final-stage event read fast: its fields are next in `strings`/`numbers`
export const LINE_NONFINAL = 2; // a valid non-final event
export const LINE_FALLBACK = 3; // for the full path: its text is next in `fallback`
export const LINE_OVERLONG = 4; // longer than maxLength

/** Strings of one final record in `strings`, in this order. */
export const STRING_FIELDS = ['auditID', 'requestURI', 'resourceVersion'] as const satisfies ReadonlyArray<keyof FastFields>;
/** Strings of one final record given as ids of the worker's string dictionary (few distinct values), in `numbers` after the ids of actor and object. */
export const WORD_FIELDS = ['verb', 'sourceIP', 'level', 'reason'] as const satisfies ReadonlyArray<keyof FastFields>;
/**
 * Numbers of one final record in `numbers`: stageTimeMs, receivedTimeMs, code, flags (1 Panic),
 * actor id, object id (-1: no objectRef), then one word id per {@link WORD_FIELDS}. Ids index
 * this worker's dictionaries (see {@link WorkResult.actors}).
 */
export const NUMBER_FIELDS = 6 + WORD_FIELDS.length;
/** Entries a worker's dictionaries hold before it starts new ones (a new `epoch`). */
export const DICTIONARY_LIMIT = 20_000;

/** What a worker answers for one {@link WorkRequest}. */
export interface WorkResult {
  id: number;
  /** Which worker answered (set by the pool): dictionaries are per worker. */
  worker?: number;
  lines: number;
  kinds: Uint8Array;
  /** The strings of every final record, concatenated; `lengths` cuts them. */
  strings: string;
  lengths: Uint32Array;
  numbers: Float64Array;
  fallback: string[];
  /** Dictionary epoch: ids of an earlier epoch are void. */
  epoch: number;
  /** Actors first seen in this run, in id order: username, userAgent, username, … */
  actors: string[];
  /** Objects first seen in this run, in id order: apiGroup, resource, namespace, name, subresource, apiVersion, … */
  objects: string[];
  /** Words (verbs, source IPs, levels, reasons) first seen in this run, in id order. */
  words: string[];
}


// The worker's dictionaries (one thread, one reader at a time: see parallel.ts).
let epoch = 0;
/** username → userAgent → actor id. */
let actorIds = new Map<string, Map<string, number>>();
let actorCount = 0;
/** name → the objects of that name (most names have one). */
let objectIds = new Map<string, Array<{ id: number; apiGroup: string; resource: string; namespace: string; subresource: string }>>();
let objectCount = 0;
let wordIds = new Map<string, number>();

/** Decodes one run (exported for tests; the worker calls it per message). */
export function work(req: WorkRequest): WorkResult {
  const bytes = Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength);
  const kinds: number[] = [];
  const parts: string[] = [];
  const lengths: number[] = [];
  const numbers: number[] = [];
  const fallback: string[] = [];
  const actors: string[] = [];
  const objects: string[] = [];
  const words: string[] = [];
  const word = (s: string): number => {
    let id = wordIds.get(s);
    if (id === undefined) {
      id = wordIds.size;
      wordIds.set(fresh(s), id);
      words.push(s);
    }
    return id;
  };
  if (req.first === 1 || actorCount + objectCount + wordIds.size > DICTIONARY_LIMIT) {
    // A new member (its reader knows nothing yet), or full dictionaries.
    epoch++;
    actorIds = new Map();
    objectIds = new Map();
    actorCount = 0;
    objectCount = 0;
    wordIds = new Map();
  }
  const f = newFastFields();
  let next = req.first;
  const lines = cutLines(bytes, req.atEnd, req.first, req.maxLength, (no, text) => {
    while (next < no) {
      kinds.push(LINE_NONE);
      next++;
    }
    next = no + 1;
    if (text === null) {
      kinds.push(LINE_OVERLONG);
      return;
    }
    const r = fastDecode(text, f);
    if (r === FAST_FALLBACK) {
      kinds.push(LINE_FALLBACK);
      fallback.push(text);
    } else if (r === FAST_FINAL) {
      kinds.push(LINE_FINAL);
      for (const k of STRING_FIELDS) {
        const s = f[k];
        parts.push(s);
        lengths.push(s.length);
      }
      // Looked up by the fields themselves: a key string per record (built, then hashed) cost
      // more than all the rest of the record here.
      let byAgent = actorIds.get(f.username);
      if (byAgent === undefined) actorIds.set(fresh(f.username), (byAgent = new Map()));
      let actor = byAgent.get(f.userAgent);
      if (actor === undefined) {
        actor = actorCount++;
        byAgent.set(fresh(f.userAgent), actor);
        actors.push(f.username, f.userAgent);
      }
      let object = -1;
      if (f.hasObjectRef) {
        let named = objectIds.get(f.name);
        if (named === undefined) objectIds.set(fresh(f.name), (named = []));
        for (let k = 0; k < named.length; k++) {
          const o = named[k]!;
          if (o.resource === f.resource && o.namespace === f.namespace && o.apiGroup === f.apiGroup && o.subresource === f.subresource) {
            object = o.id;
            break;
          }
        }
        if (object === -1) {
          object = objectCount++;
          named.push({ id: object, apiGroup: fresh(f.apiGroup), resource: fresh(f.resource), namespace: fresh(f.namespace), subresource: fresh(f.subresource) });
          objects.push(f.apiGroup, f.resource, f.namespace, f.name, f.subresource, f.apiVersion);
        }
      }
      numbers.push(f.stageTimeMs, f.receivedTimeMs, f.code, f.stage === 'Panic' ? 1 : 0, actor, object);
      for (const k of WORD_FIELDS) numbers.push(word(f[k]));
    } else kinds.push(LINE_NONFINAL);
  });
  while (next < req.first + lines) {
    kinds.push(LINE_NONE);
    next++;
  }
  return {
    id: req.id,
    lines,
    kinds: Uint8Array.from(kinds),
    strings: parts.join(''),
    lengths: Uint32Array.from(lengths),
    numbers: Float64Array.from(numbers),
    fallback,
    epoch,
    actors,
    objects,
    words,
  };
}
