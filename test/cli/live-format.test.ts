import { describe, expect, it } from 'vitest';
import { formatStatus, parseListen } from '../../src/cli/live.js';

describe('parseListen', () => {
  it('takes HOST:PORT, [IPv6]:PORT and defaults to 127.0.0.1:8080', () => {
    expect(parseListen(undefined)).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseListen('0.0.0.0:8443')).toEqual({ host: '0.0.0.0', port: 8443 });
    expect(parseListen('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(parseListen(':0')).toEqual({ host: '0.0.0.0', port: 0 });
    expect(() => parseListen('8080')).toThrow(/expected HOST:PORT/);
    expect(() => parseListen('h:70000')).toThrow(/expected HOST:PORT/);
  });
});

describe('formatStatus', () => {
  it('says events/s, events and open episodes by kind', () => {
    const base = { uptimeMs: 1, requestsRead: 0, requests: 0, duplicates: 0, badLines: 0, openedByKind: {}, closedByKind: {}, streamTimeMs: null };
    expect(formatStatus({ ...base, events: 1234567, eventsPerSec: 5210.4, openByKind: { 'conflict-storm': 1, 'hot-loop': 1, throttling: 0 } })).toBe(
      'auditstorm: 5,210 events/s, 1,234,567 events, 2 open episodes (conflict-storm 1, hot-loop 1)',
    );
    expect(formatStatus({ ...base, events: 0, eventsPerSec: 0, openByKind: { 'conflict-storm': 0 } })).toBe('auditstorm: 0 events/s, 0 events, 0 open episodes');
  });
});
