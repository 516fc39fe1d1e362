/**
 * The OpenAPI schema of a good `conditions` field as a CRD declares it: a list of
 * `metav1.Condition` (`x-kubernetes-list-type: map` keyed by `type`), as controller-gen writes it.
 */
export const CONDITIONS_SCHEMA = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    properties: {
      type: { type: 'string' },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      reason: { type: 'string' },
      message: { type: 'string' },
      lastTransitionTime: { type: 'string', format: 'date-time' },
      observedGeneration: { type: 'integer', minimum: 0 },
    },
  },
};

/** A CRD whose schema has `.status` without the status subresource: three crd findings (`crd-status-subresource` among them). */
export const WIDGET_CRD_WITHOUT_STATUS_SUBRESOURCE = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.acme.io' },
  spec: {
    group: 'acme.io',
    names: { kind: 'Widget', plural: 'widgets' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { status: { type: 'object' } } } } }],
  },
};
