// autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscaler.
import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import type {
  HorizontalPodAutoscaler,
  KubeObject,
  MetricSpec,
  MetricStatus,
} from "../api/types.js";
import type { FieldError } from "../api/validation.js";
import {
  dropDisabledHorizontalPodAutoscalerFields,
  validateHorizontalPodAutoscaler,
  validateHorizontalPodAutoscalerStatusUpdate,
} from "../api/validation.js";
import { annotationFieldIssues } from "../core/extensions/annotations.js";
import { conditions, LABEL_SELECTOR, root } from "./meta.js";
import { AGE, asRecord, col, formatHPAMetrics, int, NAME, since, text } from "./printing.js";
import {
  atomicOf,
  i32,
  i64,
  keep,
  pb,
  ptr,
  qty,
  type SchemaNode,
  str,
  struct,
  time,
  zero,
} from "./schema.js";
import { type KindDefinition, type KindStrategy, type Prepared, READ_WRITE } from "./types.js";

// k8s.io/api/autoscaling/v2. Status messages order their fields differently from the sources
// (ObjectMetricStatus: 1 metric).
const crossVersionRef = (go: string) =>
  struct({ kind: str(1, keep), name: str(2, keep), apiVersion: str(3) }, { go });
const CROSS_VERSION_REF = crossVersionRef("v2.CrossVersionObjectReference");
const METRIC_TARGET = struct(
  {
    type: str(1, { keep: true, go: "v2.MetricTargetType" }),
    value: qty(2, ptr),
    averageValue: qty(3, ptr),
    averageUtilization: i32(4, ptr),
  },
  { go: "v2.MetricTarget" },
);
const METRIC_VALUE_STATUS = struct(
  { value: qty(1, ptr), averageValue: qty(2, ptr), averageUtilization: i32(3, ptr) },
  { go: "v2.MetricValueStatus" },
);
const METRIC_IDENTIFIER = struct(
  { name: str(1, keep), selector: pb(2, LABEL_SELECTOR, ptr) },
  { go: "v2.MetricIdentifier" },
);
const source = (proto: number, go: string, fields: Record<string, SchemaNode>) =>
  struct(fields, { go: `v2.${go}`, proto, ptr: true });
const RESOURCE_NAME = { keep: true, go: "v1.ResourceName" };
const METRIC_TYPE = { keep: true, go: "v2.MetricSourceType" };

const METRIC_SPEC = struct(
  {
    type: str(1, METRIC_TYPE),
    object: source(2, "ObjectMetricSource", {
      describedObject: pb(1, CROSS_VERSION_REF),
      target: pb(2, METRIC_TARGET),
      metric: pb(3, METRIC_IDENTIFIER),
    }),
    pods: source(3, "PodsMetricSource", {
      metric: pb(1, METRIC_IDENTIFIER),
      target: pb(2, METRIC_TARGET),
    }),
    resource: source(4, "ResourceMetricSource", {
      name: str(1, RESOURCE_NAME),
      target: pb(2, METRIC_TARGET),
    }),
    containerResource: source(7, "ContainerResourceMetricSource", {
      name: str(1, RESOURCE_NAME),
      target: pb(2, METRIC_TARGET),
      container: str(3, keep),
    }),
    external: source(5, "ExternalMetricSource", {
      metric: pb(1, METRIC_IDENTIFIER),
      target: pb(2, METRIC_TARGET),
    }),
  },
  { go: "v2.MetricSpec" },
);
const METRIC_STATUS = struct(
  {
    type: str(1, METRIC_TYPE),
    object: source(2, "ObjectMetricStatus", {
      metric: pb(1, METRIC_IDENTIFIER),
      current: pb(2, METRIC_VALUE_STATUS),
      describedObject: pb(3, CROSS_VERSION_REF),
    }),
    pods: source(3, "PodsMetricStatus", {
      metric: pb(1, METRIC_IDENTIFIER),
      current: pb(2, METRIC_VALUE_STATUS),
    }),
    resource: source(4, "ResourceMetricStatus", {
      name: str(1, RESOURCE_NAME),
      current: pb(2, METRIC_VALUE_STATUS),
    }),
    containerResource: source(7, "ContainerResourceMetricStatus", {
      name: str(1, RESOURCE_NAME),
      current: pb(2, METRIC_VALUE_STATUS),
      container: str(3, keep),
    }),
    external: source(5, "ExternalMetricStatus", {
      metric: pb(1, METRIC_IDENTIFIER),
      current: pb(2, METRIC_VALUE_STATUS),
    }),
  },
  { go: "v2.MetricStatus" },
);
// spec.metrics, status.currentMetrics and behavior policies are +listType=atomic.
const SCALING_RULES = struct(
  {
    stabilizationWindowSeconds: i32(3, ptr),
    selectPolicy: str(1, { ptr: true, go: "v2.ScalingPolicySelect" }),
    policies: atomicOf(
      struct(
        {
          type: str(1, { keep: true, go: "v2.HPAScalingPolicyType" }),
          value: i32(2, keep),
          periodSeconds: i32(3, keep),
        },
        { go: "v2.HPAScalingPolicy" },
      ),
      2,
    ),
    tolerance: qty(4, ptr),
  },
  { go: "v2.HPAScalingRules" },
);
const HPA_CONDITION = struct(
  {
    type: str(1, { keep: true, go: "v2.HorizontalPodAutoscalerConditionType" }),
    status: str(2, { keep: true, go: "v1.ConditionStatus" }),
    lastTransitionTime: time(3),
    reason: str(4),
    message: str(5),
  },
  { go: "v2.HorizontalPodAutoscalerCondition" },
);

const V2 = root(
  "v2.HorizontalPodAutoscaler",
  struct(
    {
      scaleTargetRef: pb(1, zero(CROSS_VERSION_REF)),
      minReplicas: i32(2, ptr),
      maxReplicas: i32(3, keep),
      metrics: atomicOf(METRIC_SPEC, 4),
      behavior: struct(
        { scaleUp: pb(1, SCALING_RULES, ptr), scaleDown: pb(2, SCALING_RULES, ptr) },
        { go: "v2.HorizontalPodAutoscalerBehavior", proto: 5, ptr: true },
      ),
    },
    { go: "v2.HorizontalPodAutoscalerSpec", zero: true, proto: 2 },
  ),
  struct(
    {
      observedGeneration: i64(1, ptr),
      lastScaleTime: time(2, ptr),
      currentReplicas: i32(3),
      desiredReplicas: i32(4, keep),
      currentMetrics: atomicOf(METRIC_STATUS, 5),
      conditions: pb(6, conditions(HPA_CONDITION)),
    },
    { go: "v2.HorizontalPodAutoscalerStatus", zero: true, proto: 3 },
  ),
);

// k8s.io/api/autoscaling/v1
const V1 = root(
  "v1.HorizontalPodAutoscaler",
  struct(
    {
      scaleTargetRef: pb(1, zero(crossVersionRef("v1.CrossVersionObjectReference"))),
      minReplicas: i32(2, ptr),
      maxReplicas: i32(3, keep),
      targetCPUUtilizationPercentage: i32(4, ptr),
    },
    { go: "v1.HorizontalPodAutoscalerSpec", zero: true, proto: 2 },
  ),
  struct(
    {
      observedGeneration: i64(1, ptr),
      lastScaleTime: time(2, ptr),
      currentReplicas: i32(3, keep),
      desiredReplicas: i32(4, keep),
      currentCPUUtilizationPercentage: i32(5, ptr),
    },
    { go: "v1.HorizontalPodAutoscalerStatus", zero: true, proto: 3 },
  ),
);

// The spec is a Go struct, not a pointer: a body without one decodes as its zero value.
const asHpa = (object: KubeObject) =>
  ({ ...object, spec: object.spec ?? {} }) as unknown as HorizontalPodAutoscaler;
const asObject = (hpa: HorizontalPodAutoscaler) => hpa as unknown as KubeObject;

/**
 * Horizon's `horizon.dev/` annotations (docs/extensions.md): malformed or contradictory values
 * are field errors naming the annotation; unknown keys are warnings, as kube-apiserver warns of
 * unknown fields.
 */
function checkExtensions(hpa: HorizontalPodAutoscaler, errors: FieldError[]): Prepared {
  const issues = annotationFieldIssues(hpa);
  errors.push(...issues.errors);
  if (errors.length > 0) return { ok: false, errors };
  return issues.warnings.length > 0
    ? { ok: true, value: asObject(hpa), warnings: issues.warnings }
    : { ok: true, value: asObject(hpa) };
}

/**
 * The HPA strategy (pkg/registry/autoscaling/horizontalpodautoscaler): fields of disabled gates
 * dropped, v2 defaults, full-object validation (ObjectMeta included); a create's status is
 * cleared, since only the controller writes it.
 */
const HPA_STRATEGY: KindStrategy = {
  validatesMetadata: true,
  prepareForCreate(object, { featureGates }) {
    let hpa = dropDisabledHorizontalPodAutoscalerFields(asHpa(object), undefined, featureGates);
    hpa = setDefaultsHorizontalPodAutoscaler(hpa);
    hpa.status = { desiredReplicas: 0 } as HorizontalPodAutoscaler["status"];
    return checkExtensions(hpa, validateHorizontalPodAutoscaler(hpa, { featureGates }));
  },
  prepareForUpdate(next, current, { featureGates }) {
    const old = asHpa(current);
    let hpa = dropDisabledHorizontalPodAutoscalerFields(asHpa(next), old, featureGates);
    hpa = setDefaultsHorizontalPodAutoscaler(hpa);
    return checkExtensions(hpa, validateHorizontalPodAutoscaler(hpa, { featureGates, old }));
  },
  validateStatusUpdate: (next, current) =>
    validateHorizontalPodAutoscalerStatusUpdate(asHpa(next), asHpa(current)),
};

export const horizontalPodAutoscaler: KindDefinition<"HorizontalPodAutoscaler"> = {
  kind: "HorizontalPodAutoscaler",
  resource: "horizontalpodautoscalers",
  singular: "horizontalpodautoscaler",
  description:
    "A HorizontalPodAutoscaler scales a workload's replicas between minReplicas and maxReplicas so that the metrics it names stay near their targets.",
  group: "autoscaling",
  versions: [
    { version: "v2", schema: V2, protobuf: true },
    { version: "v1", schema: V1, protobuf: true },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  shortNames: ["hpa"],
  categories: ["all"],
  gcPolicy: "None",
  fieldSelectors: [],
  strategy: HPA_STRATEGY,
  printer: {
    columns: [
      NAME,
      col(
        "Reference",
        "string",
        "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
      ),
      col(
        "Targets",
        "string",
        "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.",
      ),
      col(
        "MinPods",
        "string",
        "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
      ),
      col(
        "MaxPods",
        "string",
        "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
      ),
      col(
        "Replicas",
        "string",
        "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
      ),
      AGE,
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const ref = asRecord(spec.scaleTargetRef);
      const min = spec.minReplicas;
      return [
        obj.metadata.name,
        `${text(ref.kind)}/${text(ref.name)}`,
        formatHPAMetrics(
          spec.metrics as MetricSpec[] | undefined,
          status.currentMetrics as MetricStatus[] | undefined,
        ),
        typeof min === "number" ? String(min) : "<unset>",
        int(spec.maxReplicas),
        int(status.currentReplicas),
        since(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};
