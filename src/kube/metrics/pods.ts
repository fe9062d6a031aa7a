// Pods metrics from custom.metrics.k8s.io, as upstream's customMetricsClient.GetRawMetric reads
// them: GetForObjects(Pod) at the preferred API version,
// /namespaces/NS/pods/*/METRIC?labelSelector=POD-SELECTOR&metricLabelSelector=METRIC-SELECTOR,
// one sample per described pod (value in milli-units, the item's timestamp, and its window —
// one minute when the server gives none).

import type { Selector } from "../../api/selector.js";
import type { MetricSpec } from "../../api/types.js";
import type { PodSample } from "../../core/replica-calculator.js";
import type { MetricObservation } from "../../core/sources/types.js";
import { requestJson } from "../api-errors.js";
import { groupKindString, groupResourceString } from "../rest-mapper.js";
import {
  CUSTOM_GROUP,
  deadline,
  errorObservation,
  type ObserveOptions,
  readMetricValue,
  type SourceContext,
  selectorParam,
} from "./common.js";

export const CUSTOM_PREFIX = "unable to fetch metrics from custom metrics API: ";

/** metricServerDefaultMetricWindow: the window of an item without one. */
const DEFAULT_WINDOW_MS = 60_000;

/** custom_metrics' qualResourceForKind: the mapper's resource of a kind, `plural.group`. */
export async function qualifiedResource(
  context: SourceContext,
  group: string,
  kind: string,
): Promise<{ ok: true; resource: string } | { ok: false; error: string }> {
  const found = await context.mapper.mappings(group, kind);
  if (!found.ok) {
    return {
      ok: false,
      error: `unable to map kind ${groupKindString(group, kind)} to resource: ${found.error}`,
    };
  }
  return { ok: true, resource: groupResourceString(found.mappings[0]!) };
}

export async function observePods(
  context: SourceContext,
  namespace: string,
  spec: MetricSpec,
  podSelector: Selector,
  options?: ObserveOptions,
): Promise<MetricObservation> {
  const metric = spec.pods?.metric;
  const name = metric?.name ?? "";
  const metricSelector = selectorParam(metric?.selector);
  if (!metricSelector.ok) return errorObservation(metricSelector.error);
  const version = await context.customVersion.get();
  if (!version.ok) return errorObservation(`${CUSTOM_PREFIX}${version.error}`);
  const resource = await qualifiedResource(context, "", "Pod");
  if (!resource.ok) return errorObservation(`${CUSTOM_PREFIX}${resource.error}`);
  const query: Record<string, string> = {};
  if (podSelector.text !== "") query.labelSelector = podSelector.text;
  if (metricSelector.text !== undefined) query.metricLabelSelector = metricSelector.text;
  const answer = await requestJson<{ items?: Record<string, unknown>[] }>(
    context.client,
    {
      method: "GET",
      path: `/apis/${CUSTOM_GROUP}/${version.version}/namespaces/${encodeURIComponent(namespace)}/${resource.resource}/*/${encodeURIComponent(name)}`,
      query,
    },
    { verb: "get", groupResource: `${resource.resource}.${CUSTOM_GROUP}`, name: "*" },
    deadline(context, options),
  );
  if (!answer.ok) return errorObservation(`${CUSTOM_PREFIX}${answer.error}`);
  const samples = new Map<string, PodSample>();
  for (const item of answer.body.items ?? []) {
    const value = readMetricValue(version.version, item);
    if (typeof value === "string") return errorObservation(`${CUSTOM_PREFIX}${value}`);
    samples.set(value.describedObject.name ?? "", {
      value: Number(value.valueMilli),
      timestamp: value.timestamp,
      window: value.windowSeconds !== undefined ? value.windowSeconds * 1000 : DEFAULT_WINDOW_MS,
    });
  }
  // An empty list: the pods source reports "no metrics returned from custom metrics API".
  return { kind: "pods", samples };
}
