/**
 * Turning one parsed JSON or YAML value into audit events: a bare event, an `EventList`, an array
 * of values, or a cloud wrapper (handed to `unwrapValue`). Used by every framing (JSON lines,
 * JSON documents, YAML, base64 payloads).
 */
import { decodeObject, type DecodeResult } from '../decode.js';
import type { AuditEvent } from '../event.js';
import { unwrapValue, type Unwrapped } from './peers.js';

/** Events found in one value. `shape` names where they came from (see {@link BARE}). */
export type ValueResult = Unwrapped;

/** Shape of bare audit events (not wrapped). */
export const BARE = 'event';
/** Shape of events read from an `EventList`'s `items`. */
export const EVENTLIST = 'eventlist';

/** Containers whose elements a JSON document reader streams one at a time. */
export type Container = 'array' | 'items' | 'records' | 'events' | 'logEvents' | 'logRecords';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function one(shape: string, event: AuditEvent): ValueResult {
  return { shape, events: [event], bad: [], truncated: 0 };
}

function failed(reason: string): ValueResult {
  return { shape: '', events: [], bad: [reason], truncated: 0 };
}

/** Appends `from` into `into` (shape: the first non-empty one that gave events, else kept). */
function merge(into: ValueResult, from: ValueResult): void {
  for (const e of from.events) into.events.push(e);
  for (const b of from.bad) into.bad.push(b);
  into.truncated += from.truncated;
  if (from.truncatedRead) into.truncatedRead = (into.truncatedRead ?? 0) + from.truncatedRead;
  if (from.skipped) into.skipped = (into.skipped ?? 0) + from.skipped;
  if (into.shape === '' && from.events.length > 0) into.shape = from.shape;
}

/**
 * Events in `value`: the value itself if it is an audit event; the `items` of an `EventList`;
 * each element of an array (recursively); else whatever `unwrapValue` finds in a cloud wrapper.
 * `decoded` is the result of `decodeObject(value)` when the caller already has it. Never throws.
 */
export function eventsOfValue(value: unknown, decoded?: DecodeResult): ValueResult {
  const d = decoded ?? decodeObject(value);
  if (d.ok) return one(BARE, d.event);
  if (Array.isArray(value)) return eventsOfArray(value);
  if (isObject(value) && value.kind === 'EventList' && Array.isArray(value.items)) {
    const out: ValueResult = { shape: EVENTLIST, events: [], bad: [], truncated: 0 };
    for (const item of value.items) {
      const r = decodeObject(item);
      if (r.ok) out.events.push(r.event);
      else out.bad.push(`EventList item: ${r.reason}`);
    }
    return out;
  }
  const wrapped = unwrapValue(value);
  if (wrapped !== null) return wrapped;
  return failed(d.reason);
}

const EMPTY_ARRAY = 'JSON but not an audit event: an empty array';

/**
 * {@link eventsOfValue} of an array: its elements in order, arrays among them walked in place
 * with an explicit stack (an array nested 100,000 deep must not exhaust the call stack).
 */
function eventsOfArray(root: unknown[]): ValueResult {
  if (root.length === 0) return failed(EMPTY_ARRAY);
  const out: ValueResult = { shape: '', events: [], bad: [], truncated: 0 };
  const arrays: unknown[][] = [root];
  const next: number[] = [0];
  while (arrays.length > 0) {
    const top = arrays.length - 1;
    const a = arrays[top]!;
    const k = next[top]!;
    if (k === a.length) {
      arrays.pop();
      next.pop();
      continue;
    }
    next[top] = k + 1;
    const el = a[k];
    if (!Array.isArray(el)) merge(out, eventsOfValue(el));
    else if (el.length === 0) out.bad.push(EMPTY_ARRAY);
    else {
      arrays.push(el);
      next.push(0);
    }
  }
  return out;
}

/**
 * Events in one element of a streamed container. The element is handed to `unwrapValue` inside a
 * one-element copy of its container (`{"records":[el]}`, `{"logEvents":[el], messageType}`, …),
 * so the unwrapper sees the shape it knows; `head` holds the document's fields read before the
 * container (e.g. `messageType`). Items of an `EventList` and elements of a top-level array are
 * tried as bare events first. `at` is the element's index path in the document (OTLP: resourceLogs,
 * scopeLogs, logRecords indexes), so bad-item reasons name the real index.
 */
export function eventsOfElement(container: Container, element: unknown, head: Record<string, unknown>, at: readonly number[] = []): ValueResult {
  if (container === 'array' || container === 'items') {
    const d = decodeObject(element);
    if (d.ok) return one(container === 'items' && head.kind === 'EventList' ? EVENTLIST : BARE, d.event);
    return eventsOfValue(element, d);
  }
  let wrapper: Record<string, unknown>;
  switch (container) {
    case 'logRecords':
      wrapper = { resourceLogs: [{ scopeLogs: [{ logRecords: [element] }] }] };
      break;
    default:
      wrapper = { ...head, [container]: [element] };
  }
  const r = unwrapValue(wrapper, at);
  if (r !== null) return r;
  return eventsOfValue(element);
}
