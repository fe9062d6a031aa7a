// Resource and ContainerResource metrics from metrics.k8s.io/v1beta1, as upstream's
// resourceMetricsClient.GetResourceMetric reads them: the PodMetrics list of the namespace
// filtered by the scale's pod selector, each pod's usage (the sum of its containers, or the
// named container's) with the item's timestamp and window; then `resourceObservation`, the
// step shared with the in-process pipeline.

import { milliValueOfJSON } from "../../api/quantity.js";
import type { MetricSpec } from "../../api/types.js";
import { type ParsedDuration, parseDuration } from "../../core/duration.js";
import { parseSelector, type Selector, selectorMatches } from "../../core/selector.js";
import { resourceObservation } from "../../core/sources/resource-usage.js";
import type { MetricObservation, PodMetricsItem } from "../../core/sources/types.js";
import { requestJson } from "../api-errors.js";
import {
  deadline,
  errorObservation,
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

// Every item of a list carries one of a few windows ("15s"): each is parsed once.
const windows = new Map<string, ParsedDuration>();
function windowOf(text: string): ParsedDuration {
  let window = windows.get(text);
  if (window === undefined) {
    window = parseDuration(text);
    if (windows.size >= 256) windows.clear();
    windows.set(text, window);
  }
  return window;
}

/** One PodMetrics item as `resourceObservation` takes it (usage in milli-units), or the error. */
function podMetricsItem(raw: RawPodMetrics): PodMetricsItem | string {
  const window = windowOf(raw.window ?? "0");
  if (!window.ok) return window.error;
  const containers: PodMetricsItem["containers"] = [];
  for (const c of raw.containers ?? []) {
    const usage: Record<string, number> = {};
    for (const [name, value] of Object.entries(c.usage ?? {})) {
      const milli = milliValueOfJSON(value);
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

/** How an item's usage values are laid out: shared by the items with the same containers. */
interface UsageLayout {
  containers: { name: string; resources: string[] }[];
}

/** A label set as items carry it, with its `key=value` pairs (the index's keys). */
interface LabelSet {
  labels: Record<string, string>;
  pairs: string[];
}

/** The same labels (keys, values and order: the label set's pairs keep that order). */
function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(b);
  let i = 0;
  for (const key in a) {
    if (keys[i] !== key || a[key] !== b[key]) return false;
    i++;
  }
  return i === keys.length;
}

/** The containers have the layout's names and resources, in its order. */
function fitsLayout(layout: UsageLayout, containers: PodMetricsItem["containers"]): boolean {
  if (layout.containers.length !== containers.length) return false;
  for (let i = 0; i < containers.length; i++) {
    const expected = layout.containers[i]!;
    const container = containers[i]!;
    if (expected.name !== container.name) return false;
    let j = 0;
    for (const resource in container.usage) {
      if (expected.resources[j] !== resource) return false;
      j++;
    }
    if (j !== expected.resources.length) return false;
  }
  return true;
}

/**
 * A namespace's whole PodMetrics list, shared by its HPAs: each item parsed once, filed under
 * each of its `key=value` labels, so an HPA's selector reads only the items that carry one of its
 * required labels (in list order, as the server would filter), not the namespace's every pod.
 * Held for the shared reads' max age, so it is kept compact: label sets and container layouts
 * shared between items (a ReplicaSet's pods carry the same), numbers in flat columns; an HPA's
 * items are made again when it selects them.
 */
export class IndexedPodMetrics {
  readonly #names: string[] = [];
  readonly #labels: Record<string, string>[] = [];
  readonly #timestamps: number[] = [];
  readonly #windows: number[] = [];
  readonly #layouts: UsageLayout[] = [];
  /** Where each item's usage values start in #values. */
  readonly #offsets: number[] = [];
  readonly #values: number[] = [];
  /** Items that did not decode: their error, by position. */
  readonly #errors = new Map<number, string>();
  readonly #byLabel = new Map<string, number[]>();

  constructor(list: PodMetricsList) {
    const labelSets = new Map<string, LabelSet>();
    const layouts = new Map<string, UsageLayout>();
    const none: UsageLayout = { containers: [] };
    // The list comes sorted by name, so a ReplicaSet's pods are neighbours: the previous item's
    // label set and layout are tried first, without building a key.
    let lastSet: LabelSet | null = null;
    let lastLayout: UsageLayout | null = null;
    for (const raw of list.items ?? []) {
      const at = this.#names.length;
      const rawLabels = raw.metadata?.labels ?? {};
      let set: LabelSet | undefined =
        lastSet !== null && sameLabels(lastSet.labels, rawLabels) ? lastSet : undefined;
      if (set === undefined) {
        const labelsKey = JSON.stringify(rawLabels);
        set = labelSets.get(labelsKey);
        if (set === undefined) {
          const pairs: string[] = [];
          for (const key in rawLabels) pairs.push(`${key}=${rawLabels[key]}`);
          set = { labels: rawLabels, pairs };
          labelSets.set(labelsKey, set);
        }
      }
      lastSet = set;
      this.#labels.push(set.labels);
      for (const pair of set.pairs) {
        const filed = this.#byLabel.get(pair);
        if (filed) filed.push(at);
        else this.#byLabel.set(pair, [at]);
      }
      this.#offsets.push(this.#values.length);
      const item = podMetricsItem(raw);
      if (typeof item === "string") {
        this.#names.push("");
        this.#timestamps.push(0);
        this.#windows.push(0);
        this.#layouts.push(none);
        this.#errors.set(at, item);
        continue;
      }
      this.#names.push(item.name);
      this.#timestamps.push(item.timestamp);
      this.#windows.push(item.window);
      for (const c of item.containers) {
        for (const resource in c.usage) this.#values.push(c.usage[resource]!);
      }
      let layout: UsageLayout | undefined =
        lastLayout !== null && fitsLayout(lastLayout, item.containers) ? lastLayout : undefined;
      if (layout === undefined) {
        const layoutKey = JSON.stringify(
          item.containers.map((c) => [c.name, Object.keys(c.usage)]),
        );
        layout = layouts.get(layoutKey);
        if (layout === undefined) {
          layout = {
            containers: item.containers.map((c) => ({
              name: c.name,
              resources: Object.keys(c.usage),
            })),
          };
          layouts.set(layoutKey, layout);
        }
      }
      lastLayout = layout;
      this.#layouts.push(layout);
    }
  }

  /** The item at `at` as podMetricsItem made it, or its error. */
  #item(at: number): PodMetricsItem | string {
    const error = this.#errors.get(at);
    if (error !== undefined) return error;
    let next = this.#offsets[at]!;
    const containers = this.#layouts[at]!.containers.map((c) => {
      const usage: Record<string, number> = {};
      for (const resource of c.resources) usage[resource] = this.#values[next++]!;
      return { name: c.name, usage };
    });
    return {
      name: this.#names[at]!,
      timestamp: this.#timestamps[at]!,
      window: this.#windows[at]!,
      containers,
    };
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
    const consider = (at: number) => {
      if (!selectorMatches(selector, this.#labels[at]!)) return undefined;
      const item = this.#item(at);
      if (typeof item === "string") return item;
      items.push(item);
      return undefined;
    };
    if (candidates === null) {
      for (let at = 0; at < this.#names.length; at++) {
        const error = consider(at);
        if (error !== undefined) return error;
      }
    } else {
      for (const at of candidates) {
        const error = consider(at);
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
