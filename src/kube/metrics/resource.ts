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

type RawPodMetrics = NonNullable<PodMetricsList["items"]>[number];

/** One PodMetrics item as `resourceObservation` takes it (usage in milli-units), or the error. */
function podMetricsItem(raw: RawPodMetrics): PodMetricsItem | string {
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
  return {
    name: raw.metadata?.name ?? "",
    timestamp: timeOf(raw.timestamp),
    window: window.ms,
    containers,
  };
}

/** A PodMetricsList's items, or the first item's error. */
export function podMetricsItems(list: PodMetricsList): PodMetricsItem[] | string {
  const items: PodMetricsItem[] = [];
  for (const raw of list.items ?? []) {
    const item = podMetricsItem(raw);
    if (typeof item === "string") return item;
    items.push(item);
  }
  return items;
}

interface IndexedEntry {
  labels: Record<string, string>;
  item: PodMetricsItem | string;
}

/**
 * A namespace's whole PodMetrics list, shared by its HPAs: each item parsed once, filed under
 * each of its `key=value` labels, so an HPA's selector reads only the items that carry one of its
 * required labels (in list order, as the server would filter), not the namespace's every pod.
 */
class IndexedPodMetrics {
  readonly #entries: IndexedEntry[] = [];
  readonly #byLabel = new Map<string, number[]>();

  constructor(list: PodMetricsList) {
    for (const raw of list.items ?? []) {
      const labels = raw.metadata?.labels ?? {};
      const at = this.#entries.push({ labels, item: podMetricsItem(raw) }) - 1;
      for (const key in labels) {
        const pair = `${key}=${labels[key]}`;
        const filed = this.#byLabel.get(pair);
        if (filed) filed.push(at);
        else this.#byLabel.set(pair, [at]);
      }
    }
  }

  /** The selector's items in list order, or the first one's error. */
  select(selector: Selector): PodMetricsItem[] | string {
    // The smallest set of candidates an equality requirement allows (none: every item).
    let candidates: number[] | null = null;
    for (const r of selector.requirements) {
      if (r.operator !== "=" && !(r.operator === "in" && r.values.length === 1)) continue;
      const filed = this.#byLabel.get(`${r.key}=${r.values[0]}`) ?? [];
      if (candidates === null || filed.length < candidates.length) candidates = filed;
    }
    const items: PodMetricsItem[] = [];
    const consider = (entry: IndexedEntry) => {
      if (!selectorMatches(selector, entry.labels)) return undefined;
      if (typeof entry.item === "string") return entry.item;
      items.push(entry.item);
      return undefined;
    };
    if (candidates === null) {
      for (const entry of this.#entries) {
        const error = consider(entry);
        if (error !== undefined) return error;
      }
    } else {
      for (const at of candidates) {
        const error = consider(this.#entries[at]!);
        if (error !== undefined) return error;
      }
    }
    return items;
  }
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
  let items: PodMetricsItem[] | string;
  if (shared) {
    const indexed = (await shared.get(namespace, async () => {
      const answer = await list(EVERYTHING);
      return answer.ok ? { ok: true, index: new IndexedPodMetrics(answer.body) } : answer;
    })) as { ok: true; index: IndexedPodMetrics } | { ok: false; error: string };
    if (!indexed.ok) return errorObservation(`${PREFIX}${indexed.error}`);
    items = indexed.index.select(podSelector);
  } else {
    const answer = await list(podSelector);
    if (!answer.ok) return errorObservation(`${PREFIX}${answer.error}`);
    items = podMetricsItems(answer.body);
  }
  if (typeof items === "string") return errorObservation(`${PREFIX}${items}`);
  return resourceObservation(items, resource, container);
}
