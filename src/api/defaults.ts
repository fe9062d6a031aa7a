// API defaulting of autoscaling/v2 HorizontalPodAutoscaler, with the semantics of upstream
// pkg/apis/autoscaling/v2/defaults.go (SetDefaults_HorizontalPodAutoscaler,
// GenerateHPAScaleUpRules / GenerateHPAScaleDownRules). Functions return new objects and never
// mutate their input.

import { isRecord } from "./json.js";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HorizontalPodAutoscalerSpec,
  HPAScalingPolicy,
  HPAScalingRules,
  MetricSpec,
} from "./types.js";

/** `autoscaling.DefaultCPUUtilization`: the metric used when `spec.metrics` is empty. */
export const DEFAULT_CPU_UTILIZATION = 80;
export const DEFAULT_MIN_REPLICAS = 1;

// Scale up: at most +4 pods or +100 % every 15 s, no stabilization (repeats the legacy rate).
export const DEFAULT_SCALE_UP_STABILIZATION_WINDOW_SECONDS = 0;
export const DEFAULT_SCALE_UP_LIMIT_MINIMUM_PODS = 4;
export const DEFAULT_SCALE_UP_LIMIT_PERCENT = 100;
export const DEFAULT_SCALE_UP_PERIOD_SECONDS = 15;
// Scale down: up to 100 % every 15 s. The window stays unset so the controller's
// --horizontal-pod-autoscaler-downscale-stabilization flag (300 s by default) applies.
export const DEFAULT_SCALE_DOWN_LIMIT_PERCENT = 100;
export const DEFAULT_SCALE_DOWN_PERIOD_SECONDS = 15;
export const DEFAULT_SELECT_POLICY = "Max";

export const DEFAULT_SCALE_UP_RULES: Readonly<HPAScalingRules> = Object.freeze({
  stabilizationWindowSeconds: DEFAULT_SCALE_UP_STABILIZATION_WINDOW_SECONDS,
  selectPolicy: DEFAULT_SELECT_POLICY,
  policies: Object.freeze([
    Object.freeze({
      type: "Pods",
      value: DEFAULT_SCALE_UP_LIMIT_MINIMUM_PODS,
      periodSeconds: DEFAULT_SCALE_UP_PERIOD_SECONDS,
    }),
    Object.freeze({
      type: "Percent",
      value: DEFAULT_SCALE_UP_LIMIT_PERCENT,
      periodSeconds: DEFAULT_SCALE_UP_PERIOD_SECONDS,
    }),
  ]) as HPAScalingPolicy[],
});

export const DEFAULT_SCALE_DOWN_RULES: Readonly<HPAScalingRules> = Object.freeze({
  selectPolicy: DEFAULT_SELECT_POLICY,
  policies: Object.freeze([
    Object.freeze({
      type: "Percent",
      value: DEFAULT_SCALE_DOWN_LIMIT_PERCENT,
      periodSeconds: DEFAULT_SCALE_DOWN_PERIOD_SECONDS,
    }),
  ]) as HPAScalingPolicy[],
});

function copyPolicies(policies: readonly HPAScalingPolicy[]): HPAScalingPolicy[] {
  return policies.map((p) => ({ ...p }));
}

// copyHPAScalingRules upstream: start from the defaults and overwrite each field the user set (a
// JSON null is Go nil, i.e. unset). `policies` is replaced as a whole list, and an explicitly
// empty list is kept (it then fails validation).
function fillRules(
  defaults: Readonly<HPAScalingRules>,
  user: HPAScalingRules | null | undefined,
): HPAScalingRules {
  const out: HPAScalingRules = {};
  const window = user?.stabilizationWindowSeconds ?? defaults.stabilizationWindowSeconds;
  if (window !== undefined && window !== null) out.stabilizationWindowSeconds = window;
  out.selectPolicy = user?.selectPolicy ?? defaults.selectPolicy;
  out.policies = copyPolicies(user?.policies ?? defaults.policies ?? []);
  // No default tolerance is written: the controller falls back to its flag.
  if (user?.tolerance !== undefined && user.tolerance !== null) out.tolerance = user.tolerance;
  return out;
}

/** GenerateHPAScaleUpRules: the scale-up defaults overwritten by what `rules` sets. */
export function generateScaleUpRules(rules?: HPAScalingRules | null): HPAScalingRules {
  return fillRules(DEFAULT_SCALE_UP_RULES, rules);
}

/** GenerateHPAScaleDownRules: the scale-down defaults overwritten by what `rules` sets. */
export function generateScaleDownRules(rules?: HPAScalingRules | null): HPAScalingRules {
  return fillRules(DEFAULT_SCALE_DOWN_RULES, rules);
}

function defaultMetrics(): MetricSpec[] {
  return [
    {
      type: "Resource",
      resource: {
        name: "cpu",
        target: { type: "Utilization", averageUtilization: DEFAULT_CPU_UTILIZATION },
      },
    },
  ];
}

/** SetDefaults_HorizontalPodAutoscalerBehavior: a present behavior gets both directions filled. */
export function setDefaultsBehavior(
  behavior: HorizontalPodAutoscalerBehavior | null | undefined,
): HorizontalPodAutoscalerBehavior | null | undefined {
  // An absent behavior stays absent: the controller then uses its legacy (pre-behavior) path.
  if (behavior === undefined || behavior === null) return behavior;
  return {
    scaleUp: generateScaleUpRules(behavior.scaleUp),
    scaleDown: generateScaleDownRules(behavior.scaleDown),
  };
}

/** Defaults a spec: minReplicas 1, CPU 80 % when there are no metrics, behavior directions. */
export function setDefaultsHorizontalPodAutoscalerSpec(
  spec: HorizontalPodAutoscalerSpec,
): HorizontalPodAutoscalerSpec {
  const out: HorizontalPodAutoscalerSpec = structuredClone(spec);
  if (out.minReplicas === undefined || out.minReplicas === null) {
    out.minReplicas = DEFAULT_MIN_REPLICAS;
  }
  if (!out.metrics || out.metrics.length === 0) out.metrics = defaultMetrics();
  if (out.behavior !== undefined && out.behavior !== null) {
    out.behavior = setDefaultsBehavior(out.behavior);
  }
  return out;
}

/** SetDefaults_HorizontalPodAutoscaler, returning a new object. */
export function setDefaultsHorizontalPodAutoscaler(
  hpa: HorizontalPodAutoscaler,
): HorizontalPodAutoscaler {
  const out = structuredClone(hpa);
  out.spec = setDefaultsHorizontalPodAutoscalerSpec(hpa.spec);
  return out;
}

/**
 * Entry point for the conformance runner's `behaviorDefaulting` suite: defaults one direction's
 * rules object (absent keys are unset). The result omits `stabilizationWindowSeconds` when it
 * stays unset (scale-down), which the vectors write as `null`.
 */
export function defaultScalingRulesForConformance(
  direction: "scaleUp" | "scaleDown",
  input: unknown,
): HPAScalingRules {
  if (input !== undefined && input !== null && !isRecord(input)) {
    throw new TypeError(`scaling rules must be an object, got ${JSON.stringify(input)}`);
  }
  const rules = (input ?? null) as HPAScalingRules | null;
  if (direction === "scaleUp") return generateScaleUpRules(rules);
  if (direction === "scaleDown") return generateScaleDownRules(rules);
  throw new TypeError(`unknown direction ${JSON.stringify(direction)}`);
}
