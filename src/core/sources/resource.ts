// Resource metrics (cpu, memory) of the whole pod, from metrics.k8s.io.
import type {
  MetricSpec,
  MetricStatus,
  MetricValueStatus,
  ResourceMetricSource,
} from "../../api/types.js";
import {
  calculateResource,
  describeResourceMetric,
  describeTarget,
  type TargetMemo,
  targetMemo,
} from "./resource-usage.js";
import {
  failure,
  type MetricContext,
  type MetricObservation,
  type MetricResult,
  type MetricSourceModule,
} from "./types.js";

export const resourceSource: MetricSourceModule = {
  compute(
    spec: MetricSpec,
    observation: MetricObservation,
    context: MetricContext,
    index: number,
  ): MetricResult {
    const source = spec.resource;
    if (!source)
      return failure(spec, index, "FailedGetResourceMetric", "resource metric source is missing");
    const observed =
      observation.kind === "resource" ? observation.samples : { error: errorOf(observation) };
    // One lookup of what is remembered of the target, for every step below.
    const memo = targetMemo(source.target);
    const result = calculateResource(source.name, "", source.target, observed, context, memo);
    if (!result.ok) {
      const message = result.error;
      return failure(
        spec,
        index,
        "FailedGetResourceMetric",
        message,
        `failed to get ${source.name} resource metric value: ${message}`,
      );
    }
    const description = describeResourceMetric(source, false, result.averageValueTarget, memo);
    return {
      ok: true,
      replicas: result.calculation.replicas,
      description,
      status: resourceStatus(source, result.current, memo),
      trace: {
        index,
        type: "Resource",
        description,
        target: describeTarget(source.target, memo),
        proposal: result.calculation.replicas,
        utilization: result.calculation.utilization,
        current: result.current.averageValue as string,
        calculation: result.calculation.trace,
      },
    };
  },
};

// Each metric's last status (kept in its target's memo): an unchanged metric (most syncs) is
// the very object the stored status holds once written (the store keeps the written status),
// so the status comparison stops at its identity instead of walking three objects of each. The
// values are kept beside it, so that telling an unchanged metric reads one object, not the three.
interface LastStatus {
  status: MetricStatus;
  name: string;
  averageValue: MetricValueStatus["averageValue"];
  averageUtilization: MetricValueStatus["averageUtilization"];
  value: MetricValueStatus["value"];
}

/** `{ type: "Resource", resource: { name, current } }`, the last one while it is equal. */
function resourceStatus(
  source: ResourceMetricSource,
  current: MetricValueStatus,
  memo: TargetMemo,
): MetricStatus {
  const last = memo.status as LastStatus | null;
  if (
    last !== null &&
    last.name === source.name &&
    last.averageValue === current.averageValue &&
    last.averageUtilization === current.averageUtilization &&
    last.value === current.value
  )
    return last.status;
  const status: MetricStatus = { type: "Resource", resource: { name: source.name, current } };
  const next: LastStatus = {
    status,
    name: source.name,
    averageValue: current.averageValue,
    averageUtilization: current.averageUtilization,
    value: current.value,
  };
  memo.status = next;
  return status;
}

export function errorOf(observation: MetricObservation): string {
  return observation.kind === "error"
    ? observation.error
    : `unexpected ${observation.kind} observation`;
}
