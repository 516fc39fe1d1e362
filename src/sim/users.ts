/**
 * Users as kube-apiserver authenticates them: service accounts (`system:serviceaccount:NS:NAME`),
 * kube-controller-manager's per-controller service accounts (`--use-service-account-credentials`,
 * user agent suffixed with the account, audit-formats.md §5), kubelets (`system:node:NAME`, group
 * `system:nodes`) and humans. User agents follow client-go's `buildUserAgent`.
 */
import type { SimUser } from './world.js';

/** Kubernetes version and short commit in control-plane user agents. */
export const KUBE = { version: 'v1.30.4', commit: 'a51b3b7' } as const;

/** A pod's service account with a client-go user agent `product/version (linux/amd64) kubernetes/commit`. */
export function serviceAccount(ns: string, name: string, product: string, version: string, ip: string, commit = '$Format'): SimUser {
  return {
    username: `system:serviceaccount:${ns}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
    userAgent: `${product}/${version} (linux/amd64) kubernetes/${commit}`,
    sourceIP: ip,
  };
}

/** A kube-controller-manager controller using its own service account in kube-system. */
export function kcm(account: string, suffix = ''): SimUser {
  return {
    username: `system:serviceaccount:kube-system:${account}`,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    userAgent: `kube-controller-manager/${KUBE.version} (linux/amd64) kubernetes/${KUBE.commit}/${suffix || `system:serviceaccount:kube-system:${account}`}`,
    sourceIP: '10.20.0.4',
  };
}

/** A control-plane component with its own user (kube-scheduler, kube-controller-manager) and optional UA suffix. */
export function component(username: string, product: string, suffix: string): SimUser {
  return {
    username,
    groups: ['system:authenticated'],
    userAgent: `${product}/${KUBE.version} (linux/amd64) kubernetes/${KUBE.commit}${suffix ? `/${suffix}` : ''}`,
    sourceIP: '10.20.0.4',
  };
}

/** The kubelet of node `name` at `ip`. */
export function kubelet(name: string, ip: string): SimUser {
  return {
    username: `system:node:${name}`,
    groups: ['system:nodes', 'system:authenticated'],
    userAgent: `kubelet/${KUBE.version} (linux/amd64) kubernetes/${KUBE.commit}`,
    sourceIP: ip,
    flow: 'system-nodes',
  };
}

/** A person or CI job using kubectl. */
export function human(name: string, ip: string): SimUser {
  return { username: name, groups: ['system:authenticated', 'developers'], userAgent: 'kubectl/v1.30.2 (linux/amd64) kubernetes/3968350', sourceIP: ip };
}
