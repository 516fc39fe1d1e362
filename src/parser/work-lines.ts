/**
 * The work of the parallel JSON-lines reader's threads (`parallel.ts`, `worker.ts`): a run of
 * whole lines in, per line what the fast path made of it out. Runs {@link cutLines} and {@link fastDecode}
 * exactly as the single-threaded reader does; lines the fast path leaves to the full path are sent
 * back as text, so everything stateful (bad-line samples, sniffing, legacy pairs, wrappers) stays
 * on the main thread, in line order.
 */
import { FAST_FALLBACK, FAST_FINAL, fastDecode, newFastFields, type FastFields } from './fast.js';
import { cutLines } from './lines.js';

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
export const STRING_FIELDS = [
  'auditID',
  'requestURI',
  'verb',
  'username',
  'userAgent',
  'sourceIP',
  'level',
  'resource',
  'namespace',
  'name',
  'apiGroup',
  'apiVersion',
  'resourceVersion',
  'subresource',
  'reason',
] as const satisfies ReadonlyArray<keyof FastFields>;
/** Numbers of one final record in `numbers`: stageTimeMs, receivedTimeMs, code, flags (1 Panic, 2 objectRef). */
export const NUMBER_FIELDS = 4;

/** What a worker answers for one {@link WorkRequest}. */
export interface WorkResult {
  id: number;
  lines: number;
  kinds: Uint8Array;
  /** The strings of every final record, concatenated; `lengths` cuts them. */
  strings: string;
  lengths: Uint32Array;
  numbers: Float64Array;
  fallback: string[];
}

/** Decodes one run (exported for tests; the worker calls it per message). */
export function work(req: WorkRequest): WorkResult {
  const bytes = Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength);
  const kinds: number[] = [];
  const parts: string[] = [];
  const lengths: number[] = [];
  const numbers: number[] = [];
  const fallback: string[] = [];
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
      numbers.push(f.stageTimeMs, f.receivedTimeMs, f.code, (f.stage === 'Panic' ? 1 : 0) | (f.hasObjectRef ? 2 : 0));
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
  };
}
