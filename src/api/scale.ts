// The scale subresource of a workload object (autoscaling/v1 Scale), as upstream's scale
// registries derive it from Deployments, ReplicaSets, StatefulSets and ReplicationControllers;
// shared by the embedded API server's /scale, the in-process ports and the controller's
// informer-backed scale reads.
import { selectorFromLabelSelector } from "../core/selector.js";
import type { KubeObject, LabelSelector } from "./types.js";

export interface WorkloadScale {
  specReplicas: number;
  statusReplicas: number;
  /** status.selector: `<none>` selects everything; "" is an RC without a selector. */
  selector: string;
  resourceVersion?: string;
}

/** metav1.FormatLabelSelector: `<error>` when invalid, `<none>` when it selects everything. */
export function formatLabelSelector(selector: LabelSelector | null | undefined): string {
  const parsed = selectorFromLabelSelector(selector);
  if (!parsed.ok) return "<error>";
  return parsed.selector.text === "" ? "<none>" : parsed.selector.text;
}

/** The scale subresource of a workload object. */
export function scaleOf(object: KubeObject): WorkloadScale {
  const spec = (object.spec ?? {}) as { replicas?: number; selector?: unknown };
  const status = (object.status ?? {}) as { replicas?: number };
  let selector: string;
  if (object.kind === "ReplicationController") {
    // An RC's selector is a plain map: labels.SelectorFromSet(...).String().
    const map = (spec.selector ?? {}) as Record<string, string>;
    selector = formatLabelSelector({ matchLabels: map });
    if (selector === "<none>") selector = "";
  } else {
    selector = formatLabelSelector(spec.selector as LabelSelector | undefined);
  }
  const view: WorkloadScale = {
    specReplicas: spec.replicas ?? 1,
    statusReplicas: status.replicas ?? 0,
    selector,
  };
  if (object.metadata.resourceVersion !== undefined)
    view.resourceVersion = object.metadata.resourceVersion;
  return view;
}
