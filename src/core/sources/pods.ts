// Pods metrics: a per-pod custom metric (custom.metrics.k8s.io) against an average target.
import { Quantity } from "../../api/quantity.js";
import { selectorFromLabelSelector } from "../../api/selector.js";
import type { MetricSpec } from "../../api/types.js";
import { plainMetricReplicas, sampleCount } from "../replica-calculator.js";
import { errorOf } from "./resource.js";
import { describeTarget, targetMilli } from "./resource-usage.js";
import {
  failure,
  type MetricContext,
  type MetricObservation,
  type MetricResult,
  type MetricSourceModule,
} from "./types.js";

const REASON = "FailedGetPodsMetric";

export const podsSource: MetricSourceModule = {
  compute(
    spec: MetricSpec,
    observation: MetricObservation,
    context: MetricContext,
    index: number,
  ): MetricResult {
    const source = spec.pods;
    if (!source) return failure(spec, index, REASON, "pods metric source is missing");
    const wrap = (message: string) =>
      failure(spec, index, REASON, message, `failed to get pods metric value: ${message}`);
    const selector = selectorFromLabelSelector(source.metric.selector);
    if (!selector.ok) return wrap(selector.error);
    if (source.target.averageValue === undefined || source.target.averageValue === null) {
      return wrap("invalid pods metric source: an average value target was not set");
    }
    const name = source.metric.name;
    if (observation.kind !== "pods")
      return wrap(`unable to get metric ${name}: ${errorOf(observation)}`);
    if (sampleCount(observation.samples) === 0) {
      return wrap(`unable to get metric ${name}: no metrics returned from custom metrics API`);
    }
    const calculation = plainMetricReplicas({
      currentReplicas: context.specReplicas,
      pods: context.pods,
      samples: observation.samples,
      resource: "",
      tolerances: context.tolerances,
      readiness: context.readiness,
      now: context.now,
      targetMilli: targetMilli(source.target, "averageValue"),
    });
    if (!calculation.ok) return wrap(calculation.error);
    const current = Quantity.fromMilli(calculation.rawValueMilli).toString();
    const description = `pods metric ${name}`;
    return {
      ok: true,
      replicas: calculation.replicas,
      description,
      status: {
        type: "Pods",
        pods: { metric: identifier(source.metric), current: { averageValue: current } },
      },
      trace: {
        index,
        type: "Pods",
        description,
        target: describeTarget(source.target),
        proposal: calculation.replicas,
        current,
        calculation: calculation.trace,
      },
    };
  },
};

/** Status carries the spec's metric identifier, with no selector key when it had none. */
export function identifier(metric: { name: string; selector?: unknown }) {
  return metric.selector ? { name: metric.name, selector: metric.selector } : { name: metric.name };
}
