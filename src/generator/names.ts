/**
 * Name pools for `randomizeNames`: operators, API groups, kinds, namespaces, object and node
 * names, so tests can generate logs with known patterns but names no detector has seen.
 */
import { OPERATOR_UA, type OperatorParams } from './plan.js';
import type { Target } from './events.js';
import type { Rng } from './random.js';

const KIND_PREFIXES = ['app', 'cache', 'tenant', 'feature', 'db', 'gateway', 'backup', 'cert', 'stream', 'edge', 'quota', 'mesh'];
const KIND_SUFFIXES = ['deployment', 'cluster', 'policy', 'flag', 'instance', 'route', 'plan', 'bundle', 'topic', 'binding', 'pool'];
const GROUP_PREFIXES = ['infra', 'platform', 'apps', 'ops', 'data', 'mesh', 'core'];
const GROUP_DOMAINS = ['company.io', 'example.com', 'acme.dev', 'contoso.net', 'initech.io', 'globex.cloud'];
const CR_VERSIONS = ['v1alpha1', 'v1beta1', 'v1', 'v2beta1'];
/** Namespaces of randomized objects and workloads. */
export const NAMESPACES = ['default', 'payments', 'checkout', 'team-a', 'prod', 'staging', 'platform', 'search'];
/** Base names of randomized objects and workloads. */
export const OBJECT_NAMES = ['payment-core', 'orders-api', 'ledger', 'search-index', 'edge-gw', 'session-store', 'billing', 'inventory', 'notifier'];
/** Built-in resources operators also hot-write (core group ones have no `.group` in 409 messages). */
const BUILTIN_TARGETS: Array<Pick<Target, 'apiGroup' | 'apiVersion' | 'resource' | 'subresource'>> = [
  { apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', subresource: 'status' },
  { apiGroup: '', apiVersion: 'v1', resource: 'configmaps', subresource: '' },
  { apiGroup: '', apiVersion: 'v1', resource: 'services', subresource: 'status' },
];

/** A random operator and the object it writes. */
export function randomWriter(rng: Rng): { operator: OperatorParams; object: Target } {
  const kind = rng.pick(KIND_PREFIXES) + rng.pick(KIND_SUFFIXES);
  const project = rng.chance(0.5) ? kind : `${kind}-${rng.pick(['operator', 'controller'])}`;
  const saNamespace = rng.pick([`${kind}-system`, 'operators', `${project}`, 'platform-system']);
  const serviceAccount = rng.pick([`${project}`, `${kind}-controller-manager`, 'controller-manager']);
  const version = `${rng.int(0, 3)}.${rng.int(0, 20)}.${rng.int(0, 9)}`;
  const ua = rng.pick([OPERATOR_UA, `${project}/v0.0.0 (linux/amd64) kubernetes/$Format`, `${project}/v${version} (linux/arm64) kubernetes/$Format`, `${project}/${version}`]);
  const builtin = rng.chance(0.15) ? rng.pick(BUILTIN_TARGETS) : undefined;
  const object: Target = {
    ...(builtin ?? {
      apiGroup: `${rng.pick(GROUP_PREFIXES)}.${rng.pick(GROUP_DOMAINS)}`,
      apiVersion: rng.pick(CR_VERSIONS),
      resource: `${kind}s`,
      subresource: rng.chance(0.75) ? 'status' : '',
    }),
    namespace: rng.pick(NAMESPACES),
    name: rng.chance(0.5) ? rng.pick(OBJECT_NAMES) : `${rng.pick(OBJECT_NAMES)}-${rng.nameSuffix(3)}`,
  };
  return { operator: { namespace: saNamespace, serviceAccount, deployment: project, userAgent: ua }, object };
}

/** A random second writer of the same object (another controller or tool). */
export function randomContender(rng: Rng, writer: OperatorParams): OperatorParams {
  const name = rng.pick(['autoscaler', 'usage-reporter', 'sync-agent', 'policy-controller', 'label-injector']);
  return { namespace: writer.namespace, serviceAccount: name, deployment: name, userAgent: `${name}/v0.${rng.int(1, 9)}.${rng.int(0, 9)} (linux/amd64) kubernetes/$Format` };
}

/**
 * Provider-style node names for node `i` with IP `ip`: style 0 EKS (`ip-10-0-1-20.ec2.internal`),
 * 1 GKE, 2 AKS, 3 kubeadm (`worker-01`). `pool` is 8 hex digits shared by the cluster's nodes.
 */
export function nodeName(style: number, i: number, ip: string, rng: Rng, pool: string): string {
  switch (style) {
    case 1:
      return `gke-prod-default-pool-${pool}-${rng.nameSuffix(4)}`;
    case 2:
      return `aks-nodepool1-${String(parseInt(pool, 16) % 1e8).padStart(8, '0')}-vmss${i.toString(36).padStart(6, '0')}`;
    case 3:
      return `worker-${String(i + 1).padStart(2, '0')}`;
    default:
      return `ip-${ip.replaceAll('.', '-')}.ec2.internal`;
  }
}
