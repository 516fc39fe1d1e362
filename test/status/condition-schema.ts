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
