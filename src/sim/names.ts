/**
 * Name pools and the parameter sampler. The tuning set draws names from pool A and each numeric
 * parameter from the middle half of its plausible range; the held-out set draws names from pool B
 * and each parameter from the outer quarters (below or above the tuning range), with other seeds.
 * So held-out logs share no object, namespace or operator name and no rate with the tuning logs.
 */
import { SimRng } from './rng.js';

/** Names a scenario draws from. Component names fixed by an incident (kubelet, istiod) are not pooled. */
export interface NamePool {
  namespaces: string[];
  operators: string[];
  apps: string[];
  humans: string[];
  nodePrefix: string[];
}

/** Pool A (tuning). */
export const POOL_A: NamePool = {
  namespaces: ['payments', 'checkout', 'search', 'ledger', 'identity', 'catalog', 'orders'],
  operators: ['acme-operator', 'orbit-controller', 'tidal-manager', 'harbor-sync', 'quartz-operator'],
  apps: ['api', 'worker', 'frontend', 'cache', 'gateway', 'billing-svc', 'reporter'],
  humans: ['alice@example.com', 'bob@example.com', 'ci-deployer'],
  nodePrefix: ['ip-10-0-', 'worker-a-'],
};

/** Pool B (held out): no name in common with pool A. */
export const POOL_B: NamePool = {
  namespaces: ['inventory', 'analytics', 'notifications', 'auth-system', 'streaming', 'warehouse', 'media'],
  operators: ['nimbus-operator', 'keel-controller', 'lattice-manager', 'fjord-sync', 'cobalt-operator'],
  apps: ['ingest', 'scheduler-svc', 'portal', 'queue', 'proxy', 'thumbnailer', 'indexer'],
  humans: ['dana@corp.example', 'eli@corp.example', 'release-bot'],
  nodePrefix: ['gke-pool-1-', 'aks-nodepool1-'],
};

/** Which part of each range a sampler draws from. */
export type RangePart = 'middle' | 'outer';

/**
 * Draws a scenario's parameters: `num(name, lo, hi)` from [lo, hi] (the plausible range), restricted
 * to its middle half (`middle`) or to one of its outer quarters (`outer`, each draw picks low or
 * high). Every draw is recorded in {@link Sampler.drawn} for the report.
 */
export class Sampler {
  readonly rng: SimRng;
  readonly drawn: Record<string, number | string> = {};
  constructor(
    seed: number,
    readonly part: RangePart,
    readonly pool: NamePool,
  ) {
    this.rng = new SimRng(seed * 7919 + 17);
  }
  /** A number in the chosen part of [lo, hi]. */
  num(name: string, lo: number, hi: number): number {
    const span = hi - lo;
    let x: number;
    if (this.part === 'middle') x = lo + span * this.rng.uniform(0.25, 0.75);
    else x = this.rng.next() < 0.5 ? lo + span * this.rng.uniform(0, 0.25) : lo + span * this.rng.uniform(0.75, 1);
    this.drawn[name] = Math.round(x * 1000) / 1000;
    return x;
  }
  /** An integer in the chosen part of [lo, hi]. */
  int(name: string, lo: number, hi: number): number {
    const x = Math.round(this.num(name, lo, hi));
    this.drawn[name] = x;
    return x;
  }
  /** A name from the pool's list. */
  name(list: keyof NamePool, label: string): string {
    const v = this.rng.pick(this.pool[list]);
    this.drawn[label] = v;
    return v;
  }
  /** True with probability `p` (mixes: audit level, handling). */
  chance(name: string, p: number): boolean {
    const v = this.rng.next() < p;
    this.drawn[name] = String(v);
    return v;
  }
}
