/**
 * The simulator's store answers writes as kube-apiserver does (audit-formats.md §4a, §4b):
 * a stale resourceVersion gets 409 Conflict even when the content is identical, create of an
 * existing name gets 409 AlreadyExists, a no-op update or patch keeps the resourceVersion and
 * emits no watch event, an update without resourceVersion is unconditional for built-in types
 * and 422 for custom resources.
 */
import { describe, expect, it } from 'vitest';
import { SimStore, type ChangeEvent, type SimRef } from '../../src/sim/store.js';

const cm: SimRef = { group: '', version: 'v1', resource: 'configmaps', namespace: 'ns', name: 'a' };
const cr: SimRef = { group: 'example.io', version: 'v1', resource: 'widgets', namespace: 'ns', name: 'w' };

function store(): { s: SimStore; events: ChangeEvent[] } {
  const s = new SimStore(100);
  const events: ChangeEvent[] = [];
  s.onChange((e) => events.push(e));
  return { s, events };
}

describe('SimStore', () => {
  it('gives each change the next cluster-wide resourceVersion', () => {
    const { s } = store();
    expect(s.create(cm, { x: 1 }).object?.rv).toBe(100);
    expect(s.create(cr, { y: 1 }).object?.rv).toBe(101);
    expect(s.update(cm, '', '100', { x: 2 }).object?.rv).toBe(102);
    expect(s.currentRv).toBe(102);
  });

  it('answers a stale resourceVersion with 409 Conflict and leaves the object alone', () => {
    const { s, events } = store();
    s.create(cm, { x: 1 });
    s.update(cm, '', '100', { x: 2 });
    const before = events.length;
    expect(s.update(cm, '', '100', { x: 3 })).toEqual({ code: 409, reason: 'Conflict', changed: false });
    expect(s.patch(cm, '', '100', { x: 3 })).toEqual({ code: 409, reason: 'Conflict', changed: false });
    expect(s.get(cm)?.spec).toEqual({ x: 2 });
    expect(s.get(cm)?.rv).toBe(101);
    expect(events.length).toBe(before);
  });

  it('checks the precondition before the no-op comparison: an identical update with a stale resourceVersion is 409', () => {
    const { s } = store();
    s.create(cm, { x: 1 });
    s.update(cm, '', '100', { x: 2 });
    expect(s.update(cm, '', '100', { x: 2 }).code).toBe(409);
  });

  it('answers create of an existing name with 409 AlreadyExists', () => {
    const { s } = store();
    s.create(cm, { x: 1 });
    expect(s.create(cm, { x: 9 })).toEqual({ code: 409, reason: 'AlreadyExists', changed: false });
    expect(s.get(cm)?.spec).toEqual({ x: 1 });
  });

  it('keeps the resourceVersion and emits no event on a no-op update or patch', () => {
    const { s, events } = store();
    s.create(cm, { x: 1, y: { z: 2 } });
    const n = events.length;
    const u = s.update(cm, '', '100', { y: { z: 2 }, x: 1 });
    expect([u.code, u.changed, u.object?.rv, u.object?.generation]).toEqual([200, false, 100, 1]);
    const p = s.patch(cm, '', '', { y: { z: 2 } });
    expect([p.code, p.changed, p.object?.rv]).toEqual([200, false, 100]);
    expect(events.length).toBe(n);
  });

  it('bumps generation on a spec change but not on a status change', () => {
    const { s } = store();
    s.create(cr, { a: 1 });
    const st = s.update(cr, 'status', '100', { ready: true });
    expect([st.object?.rv, st.object?.generation, st.object?.spec]).toEqual([101, 1, { a: 1 }]);
    const sp = s.update(cr, '', '101', { a: 2 });
    expect([sp.object?.rv, sp.object?.generation, sp.object?.status]).toEqual([102, 2, { ready: true }]);
  });

  it('applies an update without resourceVersion to a built-in type, and answers 422 for a custom resource', () => {
    const { s } = store();
    s.create(cm, { x: 1 });
    s.create(cr, { a: 1 });
    expect(s.update(cm, '', '', { x: 5 }).object?.rv).toBe(102);
    expect(s.update(cr, '', '', { a: 5 })).toEqual({ code: 422, reason: 'Invalid', changed: false });
  });

  it('never changes an object it handed out', () => {
    const { s } = store();
    const first = s.create(cm, { x: 1 }).object;
    s.update(cm, '', '100', { x: 2 });
    expect([first?.rv, first?.spec]).toEqual([100, { x: 1 }]);
  });

  it('rewrites managedFields time on an identical apply in a new second only in the legacy mode (kubernetes#121404)', () => {
    const { s } = store();
    s.apply(cm, { x: 1 });
    expect(s.apply(cm, { x: 1 }).object?.rv).toBe(100);
    expect(s.apply(cm, { x: 1 }, 7).object?.rv).toBe(101);
    expect(s.apply(cm, { x: 1 }, 7).object?.rv).toBe(101);
    expect(s.apply(cm, { x: 1 }, 8).object?.rv).toBe(102);
  });
});
