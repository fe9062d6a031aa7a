// Object metrics: one value describing a Kubernetes object (custom.metrics.k8s.io), against a
// Value target or a per-pod AverageValue target.
import { Quantity } from "../../api/quantity.js";
import { selectorFromLabelSelector } from "../../api/selector.js";
import type { MetricSpec } from "../../api/types.js";
import { versionSwitches } from "../../api/versions.js";
import { perPodReplicas, usageRatioReplicas } from "../replica-calculator.js";
import { identifier } from "./pods.js";
import { errorOf } from "./resource.js";
import { describeTarget } from "./resource-usage.js";
import {
  failure,
  goSelectorString,
  type MetricContext,
  type MetricObservation,
  type MetricResult,
  type MetricSourceModule,
} from "./types.js";

const REASON = "FailedGetObjectMetric";

/** What the Object source does differently by Kubernetes version (docs/versions.md). */
export const objectSourceSwitches = versionSwitches({
  // kubernetes/kubernetes#139029 (v1.37): "unable to get metric %s on %s %s/%s: %w", the
  // object first and the error last; before, the arguments were out of order.
  objectErrorInOrder: "1.37",
});

export const objectSource: MetricSourceModule = {
  compute(
    spec: MetricSpec,
    observation: MetricObservation,
    context: MetricContext,
    index: number,
  ): MetricResult {
    const source = spec.object;
    if (!source) return failure(spec, index, REASON, "object metric source is missing");
    const outer = (error: string) => `failed to get object metric value: ${error}`;
    const selector = selectorFromLabelSelector(source.metric.selector);
    if (!selector.ok) return failure(spec, index, REASON, selector.error, outer(selector.error));
    const name = source.metric.name;
    const ref = source.describedObject;
    // Before v1.37 upstream's message puts the kind where the error belongs and the error last.
    const fetchError = objectSourceSwitches(context.version).objectErrorInOrder
      ? (error: string) =>
          `unable to get metric ${name} on ${ref.kind} ${context.namespace}/${ref.name}: ${error}`
      : (error: string) =>
          `unable to get metric ${name}: ${ref.kind} on ${context.namespace} ${ref.name}/${error}`;
    const target = source.target;
    const status = (current: { value?: string; averageValue?: string }) => ({
      type: "Object" as const,
      object: { describedObject: ref, metric: identifier(source.metric), current },
    });

    if (target.type === "Value" && target.value !== undefined && target.value !== null) {
      if (observation.kind !== "object") {
        const message = fetchError(errorOf(observation));
        return failure(spec, index, REASON, message, outer(message));
      }
      const targetMilli = Quantity.parse(target.value).milliValue();
      const usageRatio = Number(observation.valueMilli) / Number(targetMilli);
      const calculation = usageRatioReplicas({
        currentReplicas: context.specReplicas,
        usageRatio,
        pods: context.pods,
        tolerances: context.tolerances,
        version: context.version,
      });
      if (!calculation.ok)
        return failure(spec, index, REASON, calculation.error, outer(calculation.error));
      const current = Quantity.fromMilli(observation.valueMilli).toString();
      const description = `${ref.kind} metric ${name}`;
      return {
        ok: true,
        replicas: calculation.replicas,
        description,
        status: status({ value: current }),
        trace: traceOf(spec, index, description, calculation.replicas, current, calculation.trace),
      };
    }
    if (
      target.type === "AverageValue" &&
      target.averageValue !== undefined &&
      target.averageValue !== null
    ) {
      if (observation.kind !== "object") {
        const message = fetchError(errorOf(observation));
        return failure(
          spec,
          index,
          REASON,
          message,
          outer(`failed to get ${name} object metric: ${message}`),
        );
      }
      const calculation = perPodReplicas({
        totalMilli: observation.valueMilli,
        targetMilli: Quantity.parse(target.averageValue).milliValue(),
        statusReplicas: context.statusReplicas,
        tolerances: context.tolerances,
      });
      const current = Quantity.fromMilli(calculation.usageMilli).toString();
      // Upstream describes per-pod Object metrics as "external metric ..." (sic).
      const description = `external metric ${name}(${goSelectorString(source.metric.selector)})`;
      return {
        ok: true,
        replicas: calculation.replicas,
        description,
        status: status({ averageValue: current }),
        trace: traceOf(spec, index, description, calculation.replicas, current, calculation.trace),
      };
    }
    const message =
      "invalid object metric source: neither a value target nor an average value target was set";
    return failure(spec, index, REASON, message, outer(message));
  },
};

export function traceOf(
  spec: MetricSpec,
  index: number,
  description: string,
  proposal: number,
  current: string,
  calculation: import("../replica-calculator.js").CalculationTrace,
) {
  const target = spec.object?.target ?? spec.external?.target;
  return {
    index,
    type: spec.type,
    description,
    ...(target ? { target: describeTarget(target) } : {}),
    proposal,
    current,
    calculation,
  };
}
