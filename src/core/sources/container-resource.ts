// ContainerResource metrics: one named container's usage and requests, from metrics.k8s.io.
import type { MetricSpec } from "../../api/types.js";
import { errorOf } from "./resource.js";
import { calculateResource, describeResourceMetric, describeTarget } from "./resource-usage.js";
import {
  failure,
  type MetricContext,
  type MetricObservation,
  type MetricResult,
  type MetricSourceModule,
} from "./types.js";

export const containerResourceSource: MetricSourceModule = {
  compute(
    spec: MetricSpec,
    observation: MetricObservation,
    context: MetricContext,
    index: number,
  ): MetricResult {
    const source = spec.containerResource;
    if (!source) {
      return failure(
        spec,
        index,
        "FailedGetContainerResourceMetric",
        "container resource metric source is missing",
      );
    }
    const observed =
      observation.kind === "resource" ? observation.samples : { error: errorOf(observation) };
    const result = calculateResource(
      source.name,
      source.container,
      source.target,
      observed,
      context,
    );
    if (!result.ok) {
      return failure(
        spec,
        index,
        "FailedGetContainerResourceMetric",
        result.error,
        `failed to get ${source.container} container metric value: ${result.error}`,
      );
    }
    const description = describeResourceMetric(source, true, result.averageValueTarget);
    return {
      ok: true,
      replicas: result.calculation.replicas,
      description,
      status: {
        type: "ContainerResource",
        containerResource: {
          name: source.name,
          container: source.container,
          current: result.current,
        },
      },
      trace: {
        index,
        type: "ContainerResource",
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
