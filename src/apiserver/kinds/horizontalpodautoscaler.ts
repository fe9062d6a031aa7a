// autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscaler.
import { setDefaultsHorizontalPodAutoscaler } from "../../api/defaults.js";
import type {
  HorizontalPodAutoscaler,
  KubeObject,
  MetricSpec,
  MetricStatus,
} from "../../api/types.js";
import type { FieldError } from "../../api/validation.js";
import {
  dropDisabledHorizontalPodAutoscalerFields,
  validateHorizontalPodAutoscaler,
  validateHorizontalPodAutoscalerStatusUpdate,
} from "../../api/validation.js";
import { parseExtensions } from "../../core/extensions/annotations.js";
import {
  CONDITION_TIMES,
  CONDITIONS,
  LABEL_SELECTOR_PROTO,
  OBJECT_META_FIELDS,
  OBJECT_META_PROTO,
  OBJECT_META_TIMES,
  root,
} from "./meta.js";
import { AGE, asRecord, col, formatHPAMetrics, int, NAME, since, str } from "./printing.js";
import type { ProtoMessage } from "./proto.js";
import * as pb from "./proto.js";
import {
  atomicList,
  type KindDefinition,
  type KindStrategy,
  type KnownFields,
  type Prepared,
  READ_WRITE,
  S,
  scalars,
  struct,
  zero,
} from "./types.js";

const SCALE_TARGET_REF = zero(scalars("kind", "name", "apiVersion"));
// autoscaling/v2: spec.metrics, currentMetrics and behavior policies are +listType=atomic.
const SCALING_RULES = struct({
  stabilizationWindowSeconds: S,
  selectPolicy: S,
  policies: atomicList,
  tolerance: S,
});

const V2 = root(
  struct(
    {
      scaleTargetRef: SCALE_TARGET_REF,
      minReplicas: S,
      maxReplicas: S,
      metrics: atomicList,
      behavior: struct({ scaleUp: SCALING_RULES, scaleDown: SCALING_RULES }),
    },
    { zero: true },
  ),
  struct(
    {
      observedGeneration: S,
      lastScaleTime: S,
      currentReplicas: S,
      desiredReplicas: S,
      currentMetrics: atomicList,
      conditions: CONDITIONS,
    },
    { zero: true },
  ),
);

const V1 = root(
  struct(
    {
      scaleTargetRef: SCALE_TARGET_REF,
      minReplicas: S,
      maxReplicas: S,
      targetCPUUtilizationPercentage: S,
    },
    { zero: true },
  ),
  zero(
    scalars(
      "observedGeneration",
      "lastScaleTime",
      "currentReplicas",
      "desiredReplicas",
      "currentCPUUtilizationPercentage",
    ),
  ),
);

// Known fields (fieldValidation): spec in full in both versions, status not checked.
const REF_FIELDS: KnownFields = { kind: "any", name: "any", apiVersion: "any" };
const TARGET_FIELDS: KnownFields = {
  type: "any",
  value: "any",
  averageValue: "any",
  averageUtilization: "any",
};
const IDENTIFIER_FIELDS: KnownFields = { name: "any", selector: "any" };
const RULES_FIELDS: KnownFields = {
  stabilizationWindowSeconds: "any",
  selectPolicy: "any",
  policies: [{ type: "any", value: "any", periodSeconds: "any" }],
  tolerance: "any",
};
const V2_FIELDS: KnownFields = {
  apiVersion: "any",
  kind: "any",
  metadata: OBJECT_META_FIELDS,
  spec: {
    scaleTargetRef: REF_FIELDS,
    minReplicas: "any",
    maxReplicas: "any",
    metrics: [
      {
        type: "any",
        object: { describedObject: REF_FIELDS, target: TARGET_FIELDS, metric: IDENTIFIER_FIELDS },
        pods: { metric: IDENTIFIER_FIELDS, target: TARGET_FIELDS },
        resource: { name: "any", target: TARGET_FIELDS },
        containerResource: { name: "any", target: TARGET_FIELDS, container: "any" },
        external: { metric: IDENTIFIER_FIELDS, target: TARGET_FIELDS },
      },
    ],
    behavior: { scaleUp: RULES_FIELDS, scaleDown: RULES_FIELDS },
  },
  status: "any",
};
const V1_FIELDS: KnownFields = {
  apiVersion: "any",
  kind: "any",
  metadata: OBJECT_META_FIELDS,
  spec: {
    scaleTargetRef: REF_FIELDS,
    minReplicas: "any",
    maxReplicas: "any",
    targetCPUUtilizationPercentage: "any",
  },
  status: "any",
};

// Protobuf field numbers.
// k8s.io/api/autoscaling/v2
const CROSS_VERSION_REF_PROTO: ProtoMessage = {
  1: pb.str("kind", { keep: true }),
  2: pb.str("name", { keep: true }),
  3: pb.str("apiVersion"),
};
const METRIC_TARGET_PROTO: ProtoMessage = {
  1: pb.str("type", { keep: true }),
  2: pb.f("value", "quantity", pb.ptr),
  3: pb.f("averageValue", "quantity", pb.ptr),
  4: pb.i32("averageUtilization", pb.ptr),
};
const METRIC_VALUE_STATUS_PROTO: ProtoMessage = {
  1: pb.f("value", "quantity", pb.ptr),
  2: pb.f("averageValue", "quantity", pb.ptr),
  3: pb.i32("averageUtilization", pb.ptr),
};
const METRIC_IDENTIFIER_PROTO: ProtoMessage = {
  1: pb.str("name", { keep: true }),
  2: pb.msg("selector", LABEL_SELECTOR_PROTO, pb.ptr),
};
const METRIC_SPEC_PROTO: ProtoMessage = {
  1: pb.str("type", { keep: true }),
  2: pb.msg(
    "object",
    {
      1: pb.msg("describedObject", CROSS_VERSION_REF_PROTO),
      2: pb.msg("target", METRIC_TARGET_PROTO),
      3: pb.msg("metric", METRIC_IDENTIFIER_PROTO),
    },
    pb.ptr,
  ),
  3: pb.msg(
    "pods",
    { 1: pb.msg("metric", METRIC_IDENTIFIER_PROTO), 2: pb.msg("target", METRIC_TARGET_PROTO) },
    pb.ptr,
  ),
  4: pb.msg(
    "resource",
    { 1: pb.str("name", { keep: true }), 2: pb.msg("target", METRIC_TARGET_PROTO) },
    pb.ptr,
  ),
  5: pb.msg(
    "external",
    { 1: pb.msg("metric", METRIC_IDENTIFIER_PROTO), 2: pb.msg("target", METRIC_TARGET_PROTO) },
    pb.ptr,
  ),
  7: pb.msg(
    "containerResource",
    {
      1: pb.str("name", { keep: true }),
      2: pb.msg("target", METRIC_TARGET_PROTO),
      3: pb.str("container", { keep: true }),
    },
    pb.ptr,
  ),
};
// Status messages order their fields differently from the sources (ObjectMetricStatus: 1 metric).
const METRIC_STATUS_PROTO: ProtoMessage = {
  1: pb.str("type", { keep: true }),
  2: pb.msg(
    "object",
    {
      1: pb.msg("metric", METRIC_IDENTIFIER_PROTO),
      2: pb.msg("current", METRIC_VALUE_STATUS_PROTO),
      3: pb.msg("describedObject", CROSS_VERSION_REF_PROTO),
    },
    pb.ptr,
  ),
  3: pb.msg(
    "pods",
    {
      1: pb.msg("metric", METRIC_IDENTIFIER_PROTO),
      2: pb.msg("current", METRIC_VALUE_STATUS_PROTO),
    },
    pb.ptr,
  ),
  4: pb.msg(
    "resource",
    { 1: pb.str("name", { keep: true }), 2: pb.msg("current", METRIC_VALUE_STATUS_PROTO) },
    pb.ptr,
  ),
  5: pb.msg(
    "external",
    {
      1: pb.msg("metric", METRIC_IDENTIFIER_PROTO),
      2: pb.msg("current", METRIC_VALUE_STATUS_PROTO),
    },
    pb.ptr,
  ),
  7: pb.msg(
    "containerResource",
    {
      1: pb.str("name", { keep: true }),
      2: pb.msg("current", METRIC_VALUE_STATUS_PROTO),
      3: pb.str("container", { keep: true }),
    },
    pb.ptr,
  ),
};
const SCALING_RULES_PROTO: ProtoMessage = {
  1: pb.str("selectPolicy", pb.ptr),
  2: pb.list("policies", {
    1: pb.str("type", { keep: true }),
    2: pb.i32("value", { keep: true }),
    3: pb.i32("periodSeconds", { keep: true }),
  }),
  3: pb.i32("stabilizationWindowSeconds", pb.ptr),
  4: pb.f("tolerance", "quantity", pb.ptr),
};
const HPA_CONDITION_PROTO: ProtoMessage = {
  1: pb.str("type", { keep: true }),
  2: pb.str("status", { keep: true }),
  3: pb.f("lastTransitionTime", "time"),
  4: pb.str("reason"),
  5: pb.str("message"),
};
const HPA_V2_PROTO: ProtoMessage = {
  1: pb.msg("metadata", OBJECT_META_PROTO),
  2: pb.msg("spec", {
    1: pb.msg("scaleTargetRef", CROSS_VERSION_REF_PROTO),
    2: pb.i32("minReplicas", pb.ptr),
    3: pb.i32("maxReplicas", { keep: true }),
    4: pb.list("metrics", METRIC_SPEC_PROTO),
    5: pb.msg(
      "behavior",
      {
        1: pb.msg("scaleUp", SCALING_RULES_PROTO, pb.ptr),
        2: pb.msg("scaleDown", SCALING_RULES_PROTO, pb.ptr),
      },
      pb.ptr,
    ),
  }),
  3: pb.msg("status", {
    1: pb.f("observedGeneration", "int64", pb.ptr),
    2: pb.f("lastScaleTime", "time", pb.ptr),
    3: pb.i32("currentReplicas"),
    4: pb.i32("desiredReplicas", { keep: true }),
    5: pb.list("currentMetrics", METRIC_STATUS_PROTO),
    6: pb.list("conditions", HPA_CONDITION_PROTO),
  }),
};

// k8s.io/api/autoscaling/v1
const HPA_V1_PROTO: ProtoMessage = {
  1: pb.msg("metadata", OBJECT_META_PROTO),
  2: pb.msg("spec", {
    1: pb.msg("scaleTargetRef", CROSS_VERSION_REF_PROTO),
    2: pb.i32("minReplicas", pb.ptr),
    3: pb.i32("maxReplicas", { keep: true }),
    4: pb.i32("targetCPUUtilizationPercentage", pb.ptr),
  }),
  3: pb.msg("status", {
    1: pb.f("observedGeneration", "int64", pb.ptr),
    2: pb.f("lastScaleTime", "time", pb.ptr),
    3: pb.i32("currentReplicas", { keep: true }),
    4: pb.i32("desiredReplicas", { keep: true }),
    5: pb.i32("currentCPUUtilizationPercentage", pb.ptr),
  }),
};

const asHpa = (object: KubeObject) => object as unknown as HorizontalPodAutoscaler;
const asObject = (hpa: HorizontalPodAutoscaler) => hpa as unknown as KubeObject;

/**
 * Horizon's `horizon.dev/` annotations (docs/extensions.md): malformed or contradictory values
 * are field errors naming the annotation; unknown keys are warnings, as kube-apiserver warns of
 * unknown fields.
 */
function checkExtensions(hpa: HorizontalPodAutoscaler, errors: FieldError[]): Prepared {
  const parsed = parseExtensions(hpa.metadata.annotations, hpa.spec);
  for (const e of parsed.errors) {
    errors.push({
      type: "FieldValueInvalid",
      field: `metadata.annotations[${e.annotation}]`,
      badValue: hpa.metadata.annotations?.[e.annotation] ?? "",
      detail: e.message,
    });
  }
  if (errors.length > 0) return { ok: false, errors };
  const warnings = parsed.warnings.map(
    (w) => `metadata.annotations[${w.annotation}]: ${w.message}`,
  );
  return warnings.length > 0
    ? { ok: true, value: asObject(hpa), warnings }
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
  group: "autoscaling",
  versions: [
    { version: "v2", apply: V2, knownFields: V2_FIELDS, protobuf: HPA_V2_PROTO },
    { version: "v1", apply: V1, knownFields: V1_FIELDS, protobuf: HPA_V1_PROTO },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  shortNames: ["hpa"],
  categories: ["all"],
  gcPolicy: "None",
  // autoscaling/v2 (v1 has no conditions field; the same paths hold).
  times: {
    metadata: OBJECT_META_TIMES,
    status: { lastScaleTime: "*Time", conditions: CONDITION_TIMES },
  },
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
        `${str(ref.kind)}/${str(ref.name)}`,
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
