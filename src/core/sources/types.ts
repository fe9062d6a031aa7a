// One shape for every metric source: what the metrics port observed for one metric spec goes
// in, a replica proposal (or a typed failure with its upstream reason) comes out.
import type { LabelSelector, MetricSpec, MetricStatus } from "../../api/types.js";
import type { KubernetesVersion } from "../../api/versions.js";
import type { PodView } from "../pods.js";
import type { CalculationTrace, ReadinessSettings, Samples } from "../replica-calculator.js";
import type { Tolerances } from "../tolerance.js";

/** A metrics.k8s.io PodMetrics item: usage per container, milli-units. */
export interface PodMetricsItem {
  name: string;
  timestamp: number;
  window: number;
  containers: { name: string; usage: Record<string, number> }[];
}

/**
 * What the metrics port returned for one metric spec. Resource metrics arrive as the metrics
 * client hands them to upstream's calculator: per-pod samples of the spec's resource (see
 * `resourceObservation`), keyed by pod name or as columns aligned with the pods port's list.
 */
export type MetricObservation =
  | { kind: "resource"; samples: Samples }
  | { kind: "pods"; samples: Samples }
  | { kind: "object"; valueMilli: bigint; timestamp: number }
  | { kind: "external"; valuesMilli: bigint[]; timestamp: number }
  /** The metrics API call failed; `error` is the client's message. */
  | { kind: "error"; error: string };

export interface MetricContext {
  /** The scale's spec.replicas. */
  specReplicas: number;
  /** The scale's status.replicas (per-pod Object/External targets divide by it). */
  statusReplicas: number;
  namespace: string;
  /** Pods matching the scale target's selector. */
  pods: readonly PodView[];
  tolerances: Tolerances;
  readiness: ReadinessSettings;
  podLevelResources: boolean;
  now: number;
  /** The Kubernetes version reproduced: the calculator's version switches read it. */
  version: KubernetesVersion;
}

export interface MetricTrace {
  index: number;
  type: string;
  /** The metric as upstream names it in reasons ("cpu resource utilization (percentage of request)"). */
  description?: string;
  target?: { type: string; value: string };
  proposal?: number;
  /** Utilization percentage (Resource/ContainerResource Utilization). */
  utilization?: number;
  /** The usage written to status, canonical Quantity form. */
  current?: string;
  calculation?: CalculationTrace;
  /** Failure reason and message (FailedGetResourceMetric, ...). */
  reason?: string;
  error?: string;
}

export type MetricResult =
  | {
      ok: true;
      replicas: number;
      description: string;
      status: MetricStatus;
      trace: MetricTrace;
    }
  | {
      ok: false;
      /** ScalingActive reason and Warning event reason (FailedGetResourceMetric, ...). */
      reason: string;
      /** The message of the per-metric event and of the ScalingActive condition. */
      message: string;
      /** The error this metric contributes to "invalid metrics (...), first error is: ...". */
      error: string;
      trace: MetricTrace;
    };

export interface MetricSourceModule {
  compute(
    spec: MetricSpec,
    observation: MetricObservation,
    context: MetricContext,
    index: number,
  ): MetricResult;
}

export function failure(
  spec: MetricSpec,
  index: number,
  reason: string,
  message: string,
  error: string = message,
): MetricResult {
  return {
    ok: false,
    reason,
    message,
    error,
    trace: { index, type: spec.type, reason, error: message },
  };
}

/**
 * Go's `%+v` of a *metav1.LabelSelector (its generated String()), which upstream puts in the
 * descriptions of External and per-pod Object metrics.
 */
export function goSelectorString(selector: LabelSelector | null | undefined): string {
  if (!selector) return "nil";
  const labels = Object.keys(selector.matchLabels ?? {})
    .sort()
    .map((key) => `${key}: ${selector.matchLabels![key]},`)
    .join("");
  const expressions = (selector.matchExpressions ?? [])
    .map(
      (e) =>
        `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(" ")}],},`,
    )
    .join("");
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}
