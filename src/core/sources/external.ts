// External metrics: series from outside the cluster (external.metrics.k8s.io), summed, against
// a Value target or a per-pod AverageValue target.
import { Quantity } from "../../api/quantity.js";
import { selectorFromLabelSelector } from "../../api/selector.js";
import type { MetricSpec } from "../../api/types.js";
import { addInt64Saturating } from "../int.js";
import { perPodReplicas, usageRatioReplicas } from "../replica-calculator.js";
import { traceOf } from "./object.js";
import { identifier } from "./pods.js";
import { errorOf } from "./resource.js";
import {
  failure,
  goSelectorString,
  type MetricContext,
  type MetricObservation,
  type MetricResult,
  type MetricSourceModule,
} from "./types.js";

const REASON = "FailedGetExternalMetric";

export const externalSource: MetricSourceModule = {
  compute(
    spec: MetricSpec,
    observation: MetricObservation,
    context: MetricContext,
    index: number,
  ): MetricResult {
    const source = spec.external;
    if (!source) return failure(spec, index, REASON, "external metric source is missing");
    const name = source.metric.name;
    const fail = (message: string) =>
      failure(
        spec,
        index,
        REASON,
        message,
        `failed to get ${name} external metric value: failed to get ${name} external metric: ${message}`,
      );
    const target = source.target;
    const perPod = target.averageValue !== undefined && target.averageValue !== null;
    if (!perPod && (target.value === undefined || target.value === null)) {
      const message =
        "invalid external metric source: neither a value target nor an average value target was set";
      return failure(
        spec,
        index,
        REASON,
        message,
        `failed to get ${name} external metric value: ${message}`,
      );
    }
    const selector = selectorFromLabelSelector(source.metric.selector);
    if (!selector.ok) return fail(selector.error);
    if (observation.kind !== "external") {
      return fail(
        `unable to get external metric ${context.namespace}/${name}/${goSelectorString(source.metric.selector)}: ${errorOf(observation)}`,
      );
    }
    // The sum of all series, capped at MaxInt64 rather than wrapping.
    let total = 0n;
    for (const value of observation.valuesMilli) total = addInt64Saturating(total, value);
    const description = `external metric ${name}(${goSelectorString(source.metric.selector)})`;
    const status = (current: { value?: string; averageValue?: string }) => ({
      type: "External" as const,
      external: { metric: identifier(source.metric), current },
    });
    if (perPod) {
      const calculation = perPodReplicas({
        totalMilli: total,
        targetMilli: Quantity.parse(target.averageValue!).milliValue(),
        statusReplicas: context.statusReplicas,
        tolerances: context.tolerances,
      });
      const current = Quantity.fromMilli(calculation.usageMilli).toString();
      return {
        ok: true,
        replicas: calculation.replicas,
        description,
        status: status({ averageValue: current }),
        trace: traceOf(spec, index, description, calculation.replicas, current, calculation.trace),
      };
    }
    const usageRatio = Number(total) / Number(Quantity.parse(target.value!).milliValue());
    const calculation = usageRatioReplicas({
      currentReplicas: context.specReplicas,
      usageRatio,
      pods: context.pods,
      tolerances: context.tolerances,
      version: context.version,
    });
    if (!calculation.ok) return fail(calculation.error);
    const current = Quantity.fromMilli(total).toString();
    return {
      ok: true,
      replicas: calculation.replicas,
      description,
      status: status({ value: current }),
      trace: traceOf(spec, index, description, calculation.replicas, current, calculation.trace),
    };
  },
};
