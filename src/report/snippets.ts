/**
 * Short Go snippets for controller-runtime fixes, shown under the advice they illustrate in the
 * Markdown and HTML reports. Keyed by advice id (the detectors' `advice[].id`); the advice text
 * stays the source of truth, a snippet only shows the shape of the fix. Names such as `obj`,
 * `desired` and `r` stand for the reconciler's own; APIs are controller-runtime's
 * (sigs.k8s.io/controller-runtime) and client-go's (k8s.io/client-go/util/retry,
 * k8s.io/apimachinery/pkg/api/equality, k8s.io/apimachinery/pkg/api/meta).
 */

const COMPARE = `// Write only when the computed status differs from the current one.
if equality.Semantic.DeepEqual(obj.Status, desired) {
    return ctrl.Result{}, nil
}
obj.Status = desired
return ctrl.Result{}, r.Status().Update(ctx, obj)`;

const PATCH = `// A merge patch carries no resourceVersion: it cannot 409 on a stale read.
base := obj.DeepCopy()
obj.Status.Phase = desiredPhase
if err := r.Status().Patch(ctx, obj, client.MergeFrom(base)); err != nil {
    return ctrl.Result{}, err
}`;

const CONDITION = `// lastTransitionTime changes only when the condition's status does.
meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{
    Type:    "Ready",
    Status:  metav1.ConditionTrue,
    Reason:  "Reconciled",
    Message: "all replicas ready",
})`;

const RETRY = `// Re-read the object before each attempt; back off between attempts.
err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
    if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
        return err
    }
    obj.Status.Phase = desiredPhase
    return r.Status().Update(ctx, obj)
})`;

const REQUEUE_AFTER = `// Re-check later instead of at once; the period matches how fast the state can change.
return ctrl.Result{RequeueAfter: 30 * time.Second}, nil`;

const PREDICATE = `// Status writes do not bump metadata.generation: ignore the controller's own writes.
return ctrl.NewControllerManagedBy(mgr).
    For(&v1.Widget{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
    Complete(r)`;

const LEADER = `// One active replica at a time.
mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
    LeaderElection:   true,
    LeaderElectionID: "widget-controller.example.com",
})`;

const SNIPPETS: Readonly<Record<string, string>> = {
  'compare-before-write': COMPARE,
  'skip-identical-write': COMPARE,
  'patch-status': PATCH,
  'patch-instead-of-update': PATCH,
  'stable-transition-time': CONDITION,
  'requeue-with-backoff': RETRY,
  'reread-before-retry': RETRY,
  'requeue-after': REQUEUE_AFTER,
  'lengthen-requeue-after': REQUEUE_AFTER,
  'ignore-own-status-updates': PREDICATE,
  'leader-election': LEADER,
};

/**
 * The Go snippet for an advice id, or `null` when that advice has none.
 * @param adviceId an advice's `id` (e.g. `compare-before-write`)
 */
export function adviceSnippet(adviceId: string): string | null {
  return SNIPPETS[adviceId] ?? null;
}
