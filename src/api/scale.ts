// The scale subresource of a workload object (autoscaling/v1 Scale), as upstream's scale
// registries derive it from Deployments, ReplicaSets, StatefulSets and ReplicationControllers;
// shared by the embedded API server's /scale, the in-process ports and the controller's
// informer-backed scale reads.
import { selectorFromLabelSelector } from "./selector.js";
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

/** A custom resource's scale subresource: where its replicas and selector are (`.spec.replicas`). */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

const pathParts = (path: string) => path.replace(/^\./, "").split(".");

function valueAt(object: unknown, path: string): unknown {
  let cur = object;
  for (const part of pathParts(path)) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The object with `replicas` written at its scale's spec replicas path (spec.replicas by default). */
export function withSpecReplicas(
  object: KubeObject,
  replicas: number,
  paths?: ScalePaths,
): KubeObject {
  const parts = pathParts(paths?.specReplicasPath ?? ".spec.replicas");
  const write = (node: unknown, i: number): Record<string, unknown> => {
    const base =
      typeof node === "object" && node !== null && !Array.isArray(node)
        ? (node as Record<string, unknown>)
        : {};
    const key = parts[i]!;
    return { ...base, [key]: i === parts.length - 1 ? replicas : write(base[key], i + 1) };
  };
  return write(object, 0) as unknown as KubeObject;
}

/**
 * The scale subresource of a workload object, or of a custom resource by its CRD's paths
 * (upstream: a missing replicas value reads as 0, the selector only when it is a string).
 */
export function scaleOf(object: KubeObject, paths?: ScalePaths): WorkloadScale {
  if (paths) {
    const spec = valueAt(object, paths.specReplicasPath);
    const status = valueAt(object, paths.statusReplicasPath);
    const selector = paths.labelSelectorPath ? valueAt(object, paths.labelSelectorPath) : undefined;
    const view: WorkloadScale = {
      specReplicas: typeof spec === "number" ? spec : 0,
      statusReplicas: typeof status === "number" ? status : 0,
      selector: typeof selector === "string" ? selector : "",
    };
    if (object.metadata.resourceVersion !== undefined)
      view.resourceVersion = object.metadata.resourceVersion;
    return view;
  }
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
