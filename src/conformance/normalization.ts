// Suite `normalization`: stabilization, policies, clamps, the scale-event store, and whole syncs.
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HPAScalingRules,
} from "../api/types.js";
import type { KubernetesVersion } from "../api/versions.js";
import { type ControllerConfig, defaultControllerConfig } from "../core/config.js";
import type {
  HpaHistory,
  TimestampedRecommendation,
  TimestampedScaleEvent,
} from "../core/history.js";
import {
  clampLegacy,
  clampWithBehavior,
  longestPolicyPeriodSeconds,
  replicasChangePerPeriod,
  resolveRules,
  scaleDownLimit,
  scaleUpLimit,
  stabilizeLegacy,
  stabilizeWithBehavior,
  storeScaleEvent,
} from "../core/normalize.js";
import type { PodView } from "../core/pods.js";
import { usageRatioReplicas } from "../core/replica-calculator.js";
import type { MetricResult } from "../core/sources/types.js";
import { completeSync, decideSync, type SyncInput } from "../core/sync.js";
import { tolerancesFor } from "../core/tolerance.js";
import { at, Differences, fail, NOW, type VectorOutcome } from "./common.js";

interface AgedRecommendation {
  replicas: number;
  ageSeconds: number;
}

interface AgedEvent {
  replicaChange: number;
  ageSeconds: number;
  outdated: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: vectors are heterogeneous JSON, checked per kind.
type Vector = Record<string, any>;

const recommendations = (
  list: AgedRecommendation[] | null | undefined,
): TimestampedRecommendation[] =>
  (list ?? []).map((r) => ({ replicas: r.replicas, timestamp: at(-r.ageSeconds) }));

const events = (list: AgedEvent[] | null | undefined): TimestampedScaleEvent[] =>
  (list ?? []).map((e) => ({
    replicaChange: e.replicaChange,
    timestamp: at(-e.ageSeconds),
    outdated: e.outdated,
  }));

function configOf(v: Vector, version: KubernetesVersion): ControllerConfig {
  const config = defaultControllerConfig(version);
  if (v.downscaleStabilizationWindowSeconds !== undefined) {
    config.downscaleStabilizationWindowMs = v.downscaleStabilizationWindowSeconds * 1000;
  }
  if (v.legacyScaleUpLimitFactor !== undefined)
    config.scaleUpLimitFactor = v.legacyScaleUpLimitFactor;
  if (v.legacyScaleUpLimitMinimum !== undefined)
    config.scaleUpLimitMinimum = v.legacyScaleUpLimitMinimum;
  if (v.controllerTolerance !== undefined) config.tolerance = v.controllerTolerance;
  if (v.featureGateHPAConfigurableTolerance !== undefined) {
    config.featureGates = config.featureGates.with({
      HPAConfigurableTolerance: v.featureGateHPAConfigurableTolerance,
    });
  }
  return config;
}

function rulesOf(v: Vector, direction: "scaleUp" | "scaleDown", fallbackWindow: number) {
  const behavior = v.behavior as HorizontalPodAutoscalerBehavior | null;
  return resolveRules(behavior?.[direction] as HPAScalingRules | undefined, fallbackWindow);
}

export function runNormalization(v: Vector, version: KubernetesVersion): VectorOutcome {
  switch (v.kind) {
    case "legacyConvert":
      return legacyConvert(v, version);
    case "legacyStabilize":
      return legacyStabilize(v);
    case "scaleUpLimit":
    case "scaleDownLimit":
      return limit(v);
    case "behaviorRate":
      return behaviorRate(v);
    case "storeScaleEvent":
      return storeEvent(v);
    case "behaviorStabilize":
      return behaviorStabilize(v);
    case "reconcile":
    case "tolerance":
      return reconcile(v, version);
    default:
      return fail(`unknown normalization kind "${v.kind}"`);
  }
}

function legacyConvert(v: Vector, version: KubernetesVersion): VectorOutcome {
  const config = configOf(v, version);
  const result = clampLegacy({
    currentReplicas: v.currentReplicas,
    desiredReplicas: v.recommendation,
    minReplicas: v.minReplicas,
    maxReplicas: v.maxReplicas,
    scaleUpLimitFactor: config.scaleUpLimitFactor,
    scaleUpLimitMinimum: config.scaleUpLimitMinimum,
  });
  return new Differences()
    .check("replicas", v.expect.replicas, result.replicas)
    .check("conditionReason", v.expect.conditionReason, result.reason)
    .outcome();
}

function legacyStabilize(v: Vector): VectorOutcome {
  const result = stabilizeLegacy(
    recommendations(v.recommendationsHistory),
    v.recommendation,
    v.downscaleStabilizationWindowSeconds * 1000,
    NOW,
  );
  return new Differences()
    .check("stabilizedReplicas", v.expect.stabilizedReplicas, result.stabilized)
    .check(
      "recommendationsLengthAfter",
      v.expect.recommendationsLengthAfter,
      result.recommendations.length,
    )
    .outcome();
}

function limit(v: Vector): VectorOutcome {
  const rules = resolveRules(v.rules, 0);
  const calculate = v.kind === "scaleUpLimit" ? scaleUpLimit : scaleDownLimit;
  const result = calculate(
    v.currentReplicas,
    events(v.scaleUpEvents),
    events(v.scaleDownEvents),
    rules,
    NOW,
  );
  return new Differences().check("limit", v.expect.limit, result.limit).outcome();
}

function behaviorRate(v: Vector): VectorOutcome {
  const fallback = v.downscaleStabilizationWindowSeconds ?? 300;
  const result = clampWithBehavior({
    currentReplicas: v.currentReplicas,
    desiredReplicas: v.recommendation,
    minReplicas: v.minReplicas,
    maxReplicas: v.maxReplicas,
    scaleUp: rulesOf(v, "scaleUp", 0),
    scaleDown: rulesOf(v, "scaleDown", fallback),
    scaleUpEvents: events(v.scaleUpEvents),
    scaleDownEvents: events(v.scaleDownEvents),
    now: NOW,
  });
  return new Differences()
    .check("replicas", v.expect.replicas, result.replicas)
    .check("conditionReason", v.expect.conditionReason, result.reason)
    .outcome();
}

function storeEvent(v: Vector): VectorOutcome {
  const diff = new Differences();
  const previous = events(v.prevEvents);
  diff.check(
    "replicaChangeWithinLast60sBefore",
    v.expect.replicaChangeWithinLast60sBefore,
    replicasChangePerPeriod(60, previous, NOW),
  );
  for (const [direction, next] of [
    ["up", v.newReplicasUp],
    ["down", v.newReplicasDown],
  ] as const) {
    // Without behavior nothing is stored (upstream skips the store entirely).
    const after = v.behaviorPresent
      ? storeScaleEvent(
          previous,
          Math.abs(next - v.prevReplicas),
          longestPolicyPeriodSeconds(v.rules),
          NOW,
        )
      : previous;
    diff.check(
      `eventsAfter (scale ${direction})`,
      v.expect.eventsAfter,
      after.map((e) => ({ replicaChange: e.replicaChange, outdated: e.outdated })),
    );
  }
  return diff.outcome();
}

function behaviorStabilize(v: Vector): VectorOutcome {
  const result = stabilizeWithBehavior({
    recommendations: recommendations(v.recommendationsHistory),
    currentReplicas: v.currentReplicas,
    recommendation: v.recommendation,
    scaleUpWindowSeconds: v.behavior?.scaleUp?.stabilizationWindowSeconds ?? 0,
    scaleDownWindowSeconds:
      v.behavior?.scaleDown?.stabilizationWindowSeconds ??
      v.downscaleStabilizationWindowSeconds ??
      300,
    now: NOW,
  });
  const diff = new Differences().check(
    "stabilizedReplicas",
    v.expect.stabilizedReplicas,
    result.stabilized,
  );
  if (v.expect.recommendationsAfter) {
    diff.check(
      "recommendationsAfter",
      v.expect.recommendationsAfter,
      result.recommendations.map((r) => r.replicas),
    );
  }
  return diff.outcome();
}

/** The failing metric of a partial/total failure, told by the vector's derivation text. */
function failingMetric(v: Vector, index: number): MetricResult {
  const text = String(v.recommendationDerivation ?? "");
  const [type, reason] = /external/i.test(text)
    ? ["External", "FailedGetExternalMetric"]
    : /object/i.test(text) && !/unknown type/i.test(text)
      ? ["Object", "FailedGetObjectMetric"]
      : ["", "InvalidMetricSourceType"];
  const message =
    reason === "InvalidMetricSourceType"
      ? 'unknown metric source type "invalid"'
      : "metric unavailable";
  return {
    ok: false,
    reason,
    message,
    error: message,
    trace: { index, type, reason, error: message },
  };
}

function readyPods(count: number): PodView[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `test-pod-${i}`,
    labels: { name: "test-pod" },
    phase: "Running" as const,
    deleting: false,
    startTime: at(-10000000000),
    ready: { status: "True" as const, lastTransitionTime: at(-10000000000) },
    containers: [],
    restartableInitContainers: [],
    podRequests: null,
  }));
}

function reconcile(v: Vector, version: KubernetesVersion): VectorOutcome {
  const config = configOf(v, version);
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "test-hpa", namespace: "test-namespace" },
    spec: {
      scaleTargetRef: { kind: "ReplicationController", name: "test-rc", apiVersion: "v1" },
      minReplicas: v.minReplicas,
      maxReplicas: v.maxReplicas,
      metrics: [],
      behavior: v.behavior ?? null,
    },
    status: {
      currentReplicas: v.currentReplicas,
      desiredReplicas: v.currentReplicas,
      ...(v.lastScaleTimeAgeSeconds !== undefined
        ? { lastScaleTime: new Date(at(-v.lastScaleTimeAgeSeconds)).toISOString() }
        : {}),
    },
  };
  const results: MetricResult[] = [];
  const diff = new Differences();
  let recommendation: number | null = v.recommendation;
  if (v.kind === "tolerance") {
    const tolerances = tolerancesFor(hpa, config);
    const calculated = usageRatioReplicas({
      currentReplicas: v.currentReplicas,
      usageRatio: v.usageRatio,
      pods: readyPods(v.readyPods),
      tolerances,
      version,
    });
    if (!calculated.ok) return diff.note(calculated.error).outcome();
    recommendation = calculated.replicas;
    diff.check("recommendation", v.expect.recommendation, recommendation);
  }
  if (recommendation !== null) {
    results.push({
      ok: true,
      replicas: recommendation,
      description: "cpu resource utilization (percentage of request)",
      status: {
        type: "Resource",
        resource: { name: "cpu", current: { averageUtilization: 0, averageValue: "0" } },
      },
      trace: { index: 0, type: "Resource", proposal: recommendation },
    });
  }
  if (recommendation === null || v.metricsPartialFailure)
    results.push(failingMetric(v, results.length));
  hpa.spec.metrics = results.map(() => ({
    type: "Resource",
    resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
  }));
  const history: HpaHistory = {
    recommendations:
      v.recommendationsHistory === null || v.recommendationsHistory === undefined
        ? null
        : recommendations(v.recommendationsHistory),
    scaleUpEvents: events(v.scaleUpEvents),
    scaleDownEvents: events(v.scaleDownEvents),
  };
  const input: SyncInput = {
    now: NOW,
    hpa,
    scale: v.scaleGetFails
      ? { ok: false, error: "scale subresource unavailable" }
      : {
          ok: true,
          specReplicas: v.currentReplicas,
          statusReplicas: v.scaleStatusReplicas ?? v.currentReplicas,
          selector: "name=test-pod",
        },
    pods: readyPods(v.readyPods ?? v.currentReplicas),
    observations: [],
    metricResults: results,
    history,
    config,
  };
  const decision = decideSync(input);
  const result = completeSync(
    decision,
    decision.rescale
      ? v.scaleUpdateFails
        ? { ok: false, error: "update failed" }
        : { ok: true }
      : null,
  );
  const e = v.expect;
  diff.check("replicas", e.replicas, result.status.desiredReplicas);
  diff.check("scaleUpdated", e.scaleUpdated, result.scaleUpdated);
  if (e.conditions) {
    diff.check(
      "conditions",
      e.conditions,
      (result.status.conditions ?? []).map((c) => ({
        type: c.type,
        status: c.status,
        reason: c.reason,
      })),
    );
  }
  if (e.conditionReason !== undefined) {
    diff.check(
      "conditionReason",
      e.conditionReason,
      result.status.conditions?.find((c) => c.type === "ScalingLimited")?.reason,
    );
  }
  if (e.ableToScaleReason !== undefined) {
    diff.check(
      "ableToScaleReason",
      e.ableToScaleReason,
      result.status.conditions?.find((c) => c.type === "AbleToScale")?.reason,
    );
  }
  if (e.reconcileReturnsError !== undefined)
    diff.check("reconcileReturnsError", e.reconcileReturnsError, result.error !== null);
  if (e.eventCreated !== undefined)
    diff.check("eventCreated", e.eventCreated, result.events.length > 0);
  if (e.event !== undefined) {
    // An expected event is a reason, or an object whose given fields one recorded event matches.
    const wanted: Record<string, unknown> =
      typeof e.event === "string" ? { reason: e.event } : e.event;
    const found = result.events.some((event) =>
      Object.entries(wanted).every(
        ([key, value]) => (event as unknown as Record<string, unknown>)[key] === value,
      ),
    );
    if (!found)
      diff.note(`event: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(result.events)}`);
  }
  return diff.outcome();
}
