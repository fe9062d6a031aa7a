// Resource and ContainerResource metrics from metrics.k8s.io/v1beta1, as upstream's
// resourceMetricsClient.GetResourceMetric reads them: the PodMetrics list of the namespace
// filtered by the scale's pod selector, each pod's usage (the sum of its containers, or the
// named container's) with the item's timestamp and window; then `resourceObservation`, the
// step shared with the in-process pipeline.
import type { MetricSpec } from "../../api/types.js";
import { parseDuration } from "../../core/duration.js";
import { parseSelector, type Selector, selectorMatches } from "../../core/selector.js";
import { resourceObservation } from "../../core/sources/resource-usage.js";
import type { MetricObservation, PodMetricsItem } from "../../core/sources/types.js";
import { requestJson } from "../api-errors.js";
import {
  deadline,
  errorObservation,
  milliOf,
  type ObserveOptions,
  RESOURCE_GROUP,
  type SourceContext,
  timeOf,
} from "./common.js";

interface PodMetricsList {
  items?: {
    metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
    timestamp?: string;
    window?: string;
    containers?: { name?: string; usage?: Record<string, unknown> }[];
  }[];
}

const PREFIX = "unable to fetch metrics from resource metrics API: ";

const everything = parseSelector("");
if (!everything.ok) throw new Error("the empty selector must parse");
const EVERYTHING: Selector = everything.selector;

/** A PodMetricsList as the items `resourceObservation` takes (usage in milli-units). */
export function podMetricsItems(list: PodMetricsList): PodMetricsItem[] | string {
  const items: PodMetricsItem[] = [];
  for (const raw of list.items ?? []) {
    const window = parseDuration(raw.window ?? "0");
    if (!window.ok) return window.error;
    const containers: PodMetricsItem["containers"] = [];
    for (const c of raw.containers ?? []) {
      const usage: Record<string, number> = {};
      for (const [name, value] of Object.entries(c.usage ?? {})) {
        const milli = milliOf(value);
        if (milli === null) return `unable to decode usage ${name}=${JSON.stringify(value)}`;
        usage[name] = Number(milli);
      }
      containers.push({ name: c.name ?? "", usage });
    }
    items.push({
      name: raw.metadata?.name ?? "",
      timestamp: timeOf(raw.timestamp),
      window: window.ms,
      containers,
    });
  }
  return items;
}

export async function observeResource(
  context: SourceContext,
  namespace: string,
  spec: MetricSpec,
  podSelector: Selector,
  options?: ObserveOptions,
): Promise<MetricObservation> {
  const resource =
    spec.type === "ContainerResource"
      ? (spec.containerResource?.name ?? "")
      : (spec.resource?.name ?? "");
  const container =
    spec.type === "ContainerResource" ? (spec.containerResource?.container ?? "") : "";
  const list = (selector: Selector) => {
    const query: Record<string, string> = {};
    if (selector.text !== "") query.labelSelector = selector.text;
    return requestJson<PodMetricsList>(
      context.client,
      {
        method: "GET",
        path: `/apis/${RESOURCE_GROUP}/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`,
        query,
      },
      { verb: "get", groupResource: `pods.${RESOURCE_GROUP}` },
      deadline(context, options),
    );
  };
  const shared = context.sharedPodMetrics;
  const answer = shared
    ? ((await shared.get(namespace, () => list(EVERYTHING))) as Awaited<ReturnType<typeof list>>)
    : await list(podSelector);
  if (!answer.ok) return errorObservation(`${PREFIX}${answer.error}`);
  const body =
    shared && podSelector.text !== ""
      ? {
          items: (answer.body.items ?? []).filter((item) =>
            selectorMatches(podSelector, item.metadata?.labels ?? {}),
          ),
        }
      : answer.body;
  const items = podMetricsItems(body);
  if (typeof items === "string") return errorObservation(`${PREFIX}${items}`);
  return resourceObservation(items, resource, container);
}
