// Resource metrics (cpu, memory) of the whole pod, from metrics.k8s.io.
import type { MetricSpec } from "../../api/types.js";
import { calculateResource, describeResourceMetric, describeTarget } from "./resource-usage.js";
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
    const result = calculateResource(source.name, "", source.target, observed, context);
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
    const description = describeResourceMetric(source, false, result.averageValueTarget);
    return {
      ok: true,
      replicas: result.calculation.replicas,
      description,
      status: { type: "Resource", resource: { name: source.name, current: result.current } },
      trace: {
        index,
        type: "Resource",
        description,
        target: describeTarget(source.target),
        proposal: result.calculation.replicas,
        utilization: result.calculation.utilization,
        current: result.current.averageValue as string,
        calculation: result.calculation.trace,
      },
    };
  },
};

export function errorOf(observation: MetricObservation): string {
  return observation.kind === "error"
    ? observation.error
    : `unexpected ${observation.kind} observation`;
}
