// autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscaler.
import { CONDITION_TIMES, CONDITIONS, OBJECT_META_TIMES, root } from "./meta.js";
import { atomicList, type KindDefinition, READ_WRITE, S, scalars, struct, zero } from "./types.js";

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

export const horizontalPodAutoscaler: KindDefinition<"HorizontalPodAutoscaler"> = {
  kind: "HorizontalPodAutoscaler",
  resource: "horizontalpodautoscalers",
  singular: "horizontalpodautoscaler",
  group: "autoscaling",
  versions: [
    { version: "v2", apply: V2 },
    { version: "v1", apply: V1 },
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
};
