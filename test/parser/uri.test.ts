/** Request URIs → objectRef and verb, against reference §3 (kube-apiserver's RequestInfo). */
import { describe, expect, it } from 'vitest';
import { objectRefFromURI, requestInfo, verbFromLegacyMethod } from '../../src/decoding/uri.js';

describe('objectRefFromURI', () => {
  const cases: [string, string | undefined, unknown][] = [
    ['/api/v1/namespaces/shop/pods/web-0', 'get', { resource: 'pods', namespace: 'shop', name: 'web-0', apiVersion: 'v1' }],
    ['/apis/apps/v1/namespaces/shop/deployments/web', 'update', { resource: 'deployments', namespace: 'shop', name: 'web', apiGroup: 'apps', apiVersion: 'v1' }],
    [
      '/apis/apps/v1/namespaces/shop/deployments/web/status',
      'update',
      { resource: 'deployments', namespace: 'shop', name: 'web', apiGroup: 'apps', apiVersion: 'v1', subresource: 'status' },
    ],
    [
      '/apis/apps/v1/namespaces/shop/deployments/web/scale',
      'patch',
      { resource: 'deployments', namespace: 'shop', name: 'web', apiGroup: 'apps', apiVersion: 'v1', subresource: 'scale' },
    ],
    ['/api/v1/namespaces/shop/pods/web-0/binding', 'create', { resource: 'pods', namespace: 'shop', name: 'web-0', apiVersion: 'v1', subresource: 'binding' }],
    ['/api/v1/namespaces/shop/pods/web-0/log?follow=true', 'get', { resource: 'pods', namespace: 'shop', name: 'web-0', apiVersion: 'v1', subresource: 'log' }],
    // cluster-scoped
    ['/api/v1/nodes/node-1/status', 'patch', { resource: 'nodes', name: 'node-1', apiVersion: 'v1', subresource: 'status' }],
    ['/apis/rbac.authorization.k8s.io/v1/clusterroles/admin', 'get', { resource: 'clusterroles', name: 'admin', apiGroup: 'rbac.authorization.k8s.io', apiVersion: 'v1' }],
    [
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/foos.example.com',
      'update',
      { resource: 'customresourcedefinitions', name: 'foos.example.com', apiGroup: 'apiextensions.k8s.io', apiVersion: 'v1' },
    ],
    // the Namespace object itself: namespace = name
    ['/api/v1/namespaces/shop', 'get', { resource: 'namespaces', namespace: 'shop', name: 'shop', apiVersion: 'v1' }],
    ['/api/v1/namespaces/shop/status', 'update', { resource: 'namespaces', namespace: 'shop', name: 'shop', apiVersion: 'v1', subresource: 'status' }],
    ['/api/v1/namespaces/shop/finalize', 'update', { resource: 'namespaces', namespace: 'shop', name: 'shop', apiVersion: 'v1', subresource: 'finalize' }],
    ['/api/v1/namespaces', 'list', { resource: 'namespaces', apiVersion: 'v1' }],
    // collections; the query is ignored
    ['/apis/apps/v1/namespaces/shop/deployments?limit=500&resourceVersion=0', 'list', { resource: 'deployments', namespace: 'shop', apiGroup: 'apps', apiVersion: 'v1' }],
    [
      '/api/v1/namespaces/shop/pods?allowWatchBookmarks=true&resourceVersion=48100&timeoutSeconds=412&watch=true',
      'watch',
      { resource: 'pods', namespace: 'shop', apiVersion: 'v1' },
    ],
    ['/api/v1/namespaces/shop/pods', 'create', { resource: 'pods', namespace: 'shop', apiVersion: 'v1' }],
    ['/api/v1/namespaces/shop/pods?dryRun=All&fieldManager=kubectl-create', 'create', { resource: 'pods', namespace: 'shop', apiVersion: 'v1' }],
    ['/apis/apps/v1/namespaces/shop/deployments', 'deletecollection', { resource: 'deployments', namespace: 'shop', apiGroup: 'apps', apiVersion: 'v1' }],
    ['/apis/apps/v1/deployments?limit=500', 'list', { resource: 'deployments', apiGroup: 'apps', apiVersion: 'v1' }],
    // a single-object read names the object from the field selector
    ['/api/v1/namespaces/shop/configmaps?fieldSelector=metadata.name%3Dfoo&watch=true', 'watch', { resource: 'configmaps', namespace: 'shop', name: 'foo', apiVersion: 'v1' }],
    ['/api/v1/namespaces/shop/configmaps?fieldSelector=metadata.name%3D%3Dfoo', undefined, { resource: 'configmaps', namespace: 'shop', name: 'foo', apiVersion: 'v1' }],
    ['/api/v1/namespaces/shop/configmaps?fieldSelector=metadata.name%21%3Dfoo', 'list', { resource: 'configmaps', namespace: 'shop', apiVersion: 'v1' }],
    ['/api/v1/namespaces/shop/configmaps?fieldSelector=metadata.name%3Dfoo', 'deletecollection', { resource: 'configmaps', namespace: 'shop', apiVersion: 'v1' }],
    // custom resources
    [
      '/apis/example.com/v1alpha1/namespaces/shop/widgets/w1/status',
      'update',
      { resource: 'widgets', namespace: 'shop', name: 'w1', apiGroup: 'example.com', apiVersion: 'v1alpha1', subresource: 'status' },
    ],
    // the legacy /watch/ and /proxy/ prefixes
    ['/api/v1/watch/namespaces/shop/pods', 'watch', { resource: 'pods', namespace: 'shop', apiVersion: 'v1' }],
    ['/api/v1/watch/namespaces/shop/pods/web-0', 'watch', { resource: 'pods', namespace: 'shop', name: 'web-0', apiVersion: 'v1' }],
    ['/apis/apps/v1/watch/deployments', 'watch', { resource: 'deployments', apiGroup: 'apps', apiVersion: 'v1' }],
    ['/api/v1/proxy/namespaces/shop/pods/web-0/metrics', 'proxy', { resource: 'pods', namespace: 'shop', name: 'web-0', apiVersion: 'v1' }],
    ['/api/v1/namespaces/shop/pods/web-0/proxy/metrics', 'get', { resource: 'pods', namespace: 'shop', name: 'web-0', apiVersion: 'v1', subresource: 'proxy' }],
    // a trailing slash and escapes in a segment
    ['/api/v1/namespaces/shop/pods/web-0/', 'get', { resource: 'pods', namespace: 'shop', name: 'web-0', apiVersion: 'v1' }],
    ['/api/v1/namespaces/shop/configmaps/a%3Ab', 'get', { resource: 'configmaps', namespace: 'shop', name: 'a:b', apiVersion: 'v1' }],
  ];
  it.each(cases)('%s (%s)', (uri, verb, expected) => {
    expect(objectRefFromURI(uri, verb)).toStrictEqual(expected);
  });

  it.each([
    '/healthz',
    '/readyz?verbose',
    '/metrics',
    '/version',
    '/openapi/v2',
    '/api',
    '/api/v1',
    '/apis',
    '/apis/apps',
    '/apis/apps/v1',
    '/apis/apps/v1/',
    '/api/v1/watch',
    '/',
    '',
    '/HNAP1',
  ])('non-resource %s → null', (uri) => {
    expect(objectRefFromURI(uri)).toBeNull();
  });
});

describe('verbFromLegacyMethod', () => {
  const cases: [string, string, string][] = [
    ['POST', '/api/v1/namespaces/shop/pods', 'create'],
    ['GET', '/api/v1/namespaces/shop/pods/web-0', 'get'],
    ['HEAD', '/api/v1/namespaces/shop/pods/web-0', 'get'],
    ['GET', '/api/v1/namespaces/shop/pods', 'list'],
    ['GET', '/api/v1/namespaces/shop/pods?watch=true', 'watch'],
    ['GET', '/api/v1/namespaces/shop/pods?watch=1', 'watch'],
    ['GET', '/api/v1/namespaces/shop/pods?watch=', 'watch'],
    ['GET', '/api/v1/namespaces/shop/pods?watch=false', 'list'],
    ['GET', '/api/v1/namespaces/shop/pods?watch=FALSE', 'list'],
    ['GET', '/api/v1/namespaces/shop/pods?watch=0', 'list'],
    ['GET', '/api/v1/namespaces/shop/pods?fieldSelector=metadata.name%3Dweb-0', 'list'],
    ['GET', '/api/v1/watch/namespaces/shop/pods', 'watch'],
    ['GET', '/api/v1/proxy/nodes/node-1/stats', 'proxy'],
    ['PUT', '/apis/apps/v1/namespaces/shop/deployments/web/status', 'update'],
    ['PATCH', '/apis/apps/v1/namespaces/shop/deployments/web', 'patch'],
    ['DELETE', '/api/v1/namespaces/shop/pods/web-0', 'delete'],
    ['DELETE', '/api/v1/namespaces/shop/pods', 'deletecollection'],
    ['DELETE', '/api/v1/namespaces/shop', 'delete'],
    ['OPTIONS', '/api/v1/namespaces/shop/pods/web-0', ''],
    // non-resource: the lower-cased method
    ['GET', '/healthz', 'get'],
    ['POST', '/apis', 'post'],
    ['HEAD', '/version', 'head'],
  ];
  it.each(cases)('%s %s → %s', (method, uri, verb) => {
    expect(verbFromLegacyMethod(method, uri)).toBe(verb);
  });
});

describe('requestInfo', () => {
  it('reports a resource request in full', () => {
    expect(requestInfo('/apis/apps/v1/namespaces/shop/deployments/web/status?timeout=10s', 'PUT')).toStrictEqual({
      isResourceRequest: true,
      verb: 'update',
      apiGroup: 'apps',
      apiVersion: 'v1',
      namespace: 'shop',
      resource: 'deployments',
      name: 'web',
      subresource: 'status',
    });
  });
  it('reports a non-resource request with the lower-cased method', () => {
    expect(requestInfo('/apis/apps/v1', 'GET')).toStrictEqual({
      isResourceRequest: false,
      verb: 'get',
      apiGroup: '',
      apiVersion: '',
      namespace: '',
      resource: '',
      name: '',
      subresource: '',
    });
  });
});
