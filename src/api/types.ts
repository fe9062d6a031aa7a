// Wire shapes of the `autoscaling` API objects, as they appear in JSON/YAML. Quantities stay in
// their serialized form (string, or a number in hand-written YAML) and are parsed with
// `Quantity.parse` where arithmetic is needed, so objects round-trip unchanged.

/** A serialized resource.Quantity ("100m", "1.5Gi", 3). */
export type QuantityValue = string | number;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [extra: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist" | string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type ConditionStatus = "True" | "False" | "Unknown";

// ---------------------------------------------------------------------------------------------
// autoscaling/v2

export interface CrossVersionObjectReference {
  kind: string;
  name: string;
  apiVersion?: string;
}

export type MetricSourceType = "Object" | "Pods" | "Resource" | "ContainerResource" | "External";

export type MetricTargetType = "Utilization" | "Value" | "AverageValue";

export interface MetricTarget {
  type: MetricTargetType | string;
  value?: QuantityValue;
  averageValue?: QuantityValue;
  averageUtilization?: number;
}

export interface MetricIdentifier {
  name: string;
  selector?: LabelSelector | null;
}

export interface ObjectMetricSource {
  describedObject: CrossVersionObjectReference;
  target: MetricTarget;
  metric: MetricIdentifier;
}

export interface PodsMetricSource {
  metric: MetricIdentifier;
  target: MetricTarget;
}

export interface ResourceMetricSource {
  name: string;
  target: MetricTarget;
}

export interface ContainerResourceMetricSource {
  name: string;
  target: MetricTarget;
  container: string;
}

export interface ExternalMetricSource {
  metric: MetricIdentifier;
  target: MetricTarget;
}

export interface MetricSpec {
  type: MetricSourceType | string;
  object?: ObjectMetricSource;
  pods?: PodsMetricSource;
  resource?: ResourceMetricSource;
  containerResource?: ContainerResourceMetricSource;
  external?: ExternalMetricSource;
}

export type ScalingPolicyType = "Pods" | "Percent";
export type ScalingPolicySelect = "Max" | "Min" | "Disabled";

export interface HPAScalingPolicy {
  type: ScalingPolicyType | string;
  value: number;
  periodSeconds: number;
}

export interface HPAScalingRules {
  stabilizationWindowSeconds?: number | null;
  selectPolicy?: ScalingPolicySelect | string | null;
  policies?: HPAScalingPolicy[] | null;
  /** Alpha in v1.34 behind `HPAConfigurableTolerance` (off by default): the fraction of change ignored. */
  tolerance?: QuantityValue | null;
}

export interface HorizontalPodAutoscalerBehavior {
  scaleUp?: HPAScalingRules | null;
  scaleDown?: HPAScalingRules | null;
}

export interface HorizontalPodAutoscalerSpec {
  scaleTargetRef: CrossVersionObjectReference;
  minReplicas?: number | null;
  maxReplicas: number;
  metrics?: MetricSpec[] | null;
  behavior?: HorizontalPodAutoscalerBehavior | null;
}

export interface MetricValueStatus {
  value?: QuantityValue;
  averageValue?: QuantityValue;
  averageUtilization?: number;
}

export interface ObjectMetricStatus {
  metric: MetricIdentifier;
  current: MetricValueStatus;
  describedObject: CrossVersionObjectReference;
}

export interface PodsMetricStatus {
  metric: MetricIdentifier;
  current: MetricValueStatus;
}

export interface ResourceMetricStatus {
  name: string;
  current: MetricValueStatus;
}

export interface ContainerResourceMetricStatus {
  name: string;
  current: MetricValueStatus;
  container: string;
}

export interface ExternalMetricStatus {
  metric: MetricIdentifier;
  current: MetricValueStatus;
}

export interface MetricStatus {
  /** Upstream writes an entry with an empty type for a metric that failed to compute. */
  type: MetricSourceType | "";
  object?: ObjectMetricStatus;
  pods?: PodsMetricStatus;
  resource?: ResourceMetricStatus;
  containerResource?: ContainerResourceMetricStatus;
  external?: ExternalMetricStatus;
}

export type HorizontalPodAutoscalerConditionType =
  | "ScalingActive"
  | "AbleToScale"
  | "ScalingLimited";

export interface HorizontalPodAutoscalerCondition {
  type: HorizontalPodAutoscalerConditionType | string;
  status: ConditionStatus;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface HorizontalPodAutoscalerStatus {
  observedGeneration?: number;
  lastScaleTime?: string | null;
  currentReplicas?: number;
  desiredReplicas: number;
  currentMetrics?: MetricStatus[] | null;
  conditions?: HorizontalPodAutoscalerCondition[] | null;
}

export interface HorizontalPodAutoscaler {
  apiVersion?: "autoscaling/v2";
  kind?: "HorizontalPodAutoscaler";
  metadata: ObjectMeta;
  spec: HorizontalPodAutoscalerSpec;
  status?: HorizontalPodAutoscalerStatus;
}

// ---------------------------------------------------------------------------------------------
// autoscaling/v1

export interface HorizontalPodAutoscalerSpecV1 {
  scaleTargetRef: CrossVersionObjectReference;
  minReplicas?: number | null;
  maxReplicas: number;
  targetCPUUtilizationPercentage?: number | null;
}

export interface HorizontalPodAutoscalerStatusV1 {
  observedGeneration?: number;
  lastScaleTime?: string | null;
  currentReplicas: number;
  desiredReplicas: number;
  currentCPUUtilizationPercentage?: number | null;
}

export interface HorizontalPodAutoscalerV1 {
  apiVersion?: "autoscaling/v1";
  kind?: "HorizontalPodAutoscaler";
  metadata: ObjectMeta;
  spec: HorizontalPodAutoscalerSpecV1;
  status?: HorizontalPodAutoscalerStatusV1;
}

/** The `autoscaling/v1` Scale subresource. */
export interface Scale {
  apiVersion?: "autoscaling/v1";
  kind?: "Scale";
  metadata: ObjectMeta;
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

// Annotations under which autoscaling/v1 keeps what it cannot represent (upstream names).
export const V1_ANNOTATIONS = {
  metrics: "autoscaling.alpha.kubernetes.io/metrics",
  currentMetrics: "autoscaling.alpha.kubernetes.io/current-metrics",
  conditions: "autoscaling.alpha.kubernetes.io/conditions",
  behavior: "autoscaling.alpha.kubernetes.io/behavior",
  scaleUpTolerance: "autoscaling.alpha.kubernetes.io/scale-up-tolerance",
  scaleDownTolerance: "autoscaling.alpha.kubernetes.io/scale-down-tolerance",
} as const;

/** Any Kubernetes object in its JSON form. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    ownerReferences?: {
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
    }[];
    [extra: string]: unknown;
  };
  spec?: unknown;
  status?: unknown;
  [extra: string]: unknown;
}
