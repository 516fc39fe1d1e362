import { describe, expect, it } from 'vitest';
import { distinguishActors } from '../../src/report/actor-names.js';
import type { ReportActor } from '../../src/report/schema.js';

const sa = (namespace: string, name: string): ReportActor => ({
  username: `system:serviceaccount:${namespace}:${name}`,
  userAgent: 'manager/v0.0.0',
  userAgentProduct: 'manager',
  controller: '',
  serviceAccount: { namespace, name },
  sourceIPs: [],
  fieldManagers: [],
});

describe('distinguishActors', () => {
  it('names same-named service accounts in different namespaces namespace/name, leaves unique ones short', () => {
    const out = distinguishActors([
      { title: 'controller-manager retries 409 Conflict on featureflags.platform.example.com/status checkout/flags', actors: [sa('checkout', 'controller-manager')] },
      { title: 'controller-manager retries 409 Conflict on widgets.example.com/status a/b', actors: [sa('widgets-system', 'controller-manager')] },
      { title: 'controller-manager wrote configmaps kube-system/x 900 times', actors: [sa('kube-system', 'controller-manager')] },
      { title: 'cart-operator wrote deployments.apps/status shop/cart 14 times', actors: [sa('shop', 'cart-operator')] },
    ]);
    expect(out.map((f) => f.title)).toEqual([
      'checkout/controller-manager retries 409 Conflict on featureflags.platform.example.com/status checkout/flags',
      'widgets-system/controller-manager retries 409 Conflict on widgets.example.com/status a/b',
      'kube-system/controller-manager wrote configmaps kube-system/x 900 times',
      'cart-operator wrote deployments.apps/status shop/cart 14 times',
    ]);
  });

  it('tells the two sides of one fight apart, in actor order, without touching object names', () => {
    const [f] = distinguishActors([{ title: 'manager and manager fight over deployments.apps x/manager', actors: [sa('a', 'manager'), sa('b', 'manager')] }]);
    expect(f!.title).toBe('a/manager and b/manager fight over deployments.apps x/manager');
  });
});
