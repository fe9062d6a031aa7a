// Resource and ContainerResource metrics from metrics.k8s.io/v1beta1, as upstream's
// resourceMetricsClient.GetResourceMetric reads them: the PodMetrics list of the namespace
// filtered by the scale's pod selector, each pod's usage (the sum of its containers, or the
// named container's) with the item's timestamp and window; then `resourceObservation`, the
// step shared with the in-process pipeline.

import { milliNumberOfJSON } from "../../api/quantity.js";
import type { MetricSpec } from "../../api/types.js";
import { type ParsedDuration, parseDuration } from "../../core/duration.js";
import type { PodSamples } from "../../core/replica-calculator.js";
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
type RawContainer = NonNullable<RawPodMetrics["containers"]>[number];

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

/**
 * Appends one item's usage values (milli-units, container by container in their order) to
 * `values`; returns its window in ms, or the error that keeps it from decoding.
 */
function readUsage(raw: RawPodMetrics, values: number[]): number | string {
  const window = windowOf(raw.window ?? "0");
  if (!window.ok) return window.error;
  for (const c of raw.containers ?? []) {
    const usage = c.usage ?? {};
    for (const name in usage) {
      const milli = milliNumberOfJSON(usage[name]);
      if (milli === null) return `unable to decode usage ${name}=${JSON.stringify(usage[name])}`;
      values.push(milli);
    }
  }
  return window.ms;
}

/** One PodMetrics item as `resourceObservation` takes it (usage in milli-units), or the error. */
function podMetricsItem(raw: RawPodMetrics): PodMetricsItem | string {
  const values: number[] = [];
  const window = readUsage(raw, values);
  if (typeof window === "string") return window;
  let next = 0;
  const containers: PodMetricsItem["containers"] = [];
  for (const c of raw.containers ?? []) {
    const usage: Record<string, number> = {};
    for (const name in c.usage ?? {}) usage[name] = values[next++]!;
    containers.push({ name: c.name ?? "", usage });
  }
  return {
    name: raw.metadata?.name ?? "",
    timestamp: timeOf(raw.timestamp),
    window,
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
function fitsLayout(layout: UsageLayout, containers: RawContainer[]): boolean {
  if (layout.containers.length !== containers.length) return false;
  for (let i = 0; i < containers.length; i++) {
    const expected = layout.containers[i]!;
    const container = containers[i]!;
    if (expected.name !== (container.name ?? "")) return false;
    let j = 0;
    for (const resource in container.usage ?? {}) {
      if (expected.resources[j] !== resource) return false;
      j++;
    }
    if (j !== expected.resources.length) return false;
  }
  return true;
}

/**
 * A namespace's whole PodMetrics list, shared by its HPAs: each item decoded once, filed under
 * each of its `key=value` labels, so an HPA's selector reads only the items that carry one of its
 * required labels (in list order, as the server would filter), not the namespace's every pod.
 * Held for the shared reads' max age, so it is kept compact: label sets and container layouts
 * shared between items (a ReplicaSet's pods carry the same), numbers in flat columns, from which
 * each HPA's samples are read without making its items.
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
    // The items of one list mostly carry one timestamp: each text is parsed once in a row.
    let lastTimestamp: string | undefined;
    let lastTime: number | null = null;
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
      const offset = this.#values.length;
      this.#offsets.push(offset);
      const window = readUsage(raw, this.#values);
      if (typeof window === "string") {
        this.#values.length = offset;
        this.#names.push("");
        this.#timestamps.push(0);
        this.#windows.push(0);
        this.#layouts.push(none);
        this.#errors.set(at, window);
        continue;
      }
      this.#names.push(raw.metadata?.name ?? "");
      if (lastTime === null || raw.timestamp !== lastTimestamp) {
        lastTimestamp = raw.timestamp;
        lastTime = timeOf(raw.timestamp);
      }
      this.#timestamps.push(lastTime);
      this.#windows.push(window);
      const containers = raw.containers ?? [];
      let layout: UsageLayout | undefined =
        lastLayout !== null && fitsLayout(lastLayout, containers) ? lastLayout : undefined;
      if (layout === undefined) {
        const shape = containers.map((c) => ({
          name: c.name ?? "",
          resources: Object.keys(c.usage ?? {}),
        }));
        const layoutKey = JSON.stringify(shape);
        layout = layouts.get(layoutKey);
        if (layout === undefined) {
          layout = { containers: shape };
          layouts.set(layoutKey, layout);
        }
      }
      lastLayout = layout;
      this.#layouts.push(layout);
    }
  }

  /**
   * The item at `at`'s usage of `resource` as usageByPod reads it: the sum over its containers
   * (undefined when one lacks it, or it has none), or the first container named `container`'s.
   */
  #usage(at: number, resource: string, container: string): number | undefined {
    let next = this.#offsets[at]!;
    const containers = this.#layouts[at]!.containers;
    if (container !== "") {
      for (const c of containers) {
        if (c.name === container) {
          const index = c.resources.indexOf(resource);
          return index < 0 ? undefined : this.#values[next + index];
        }
        next += c.resources.length;
      }
      return undefined;
    }
    if (containers.length === 0) return undefined;
    let sum = 0;
    for (const c of containers) {
      const index = c.resources.indexOf(resource);
      if (index < 0) return undefined;
      sum += this.#values[next + index]!;
      next += c.resources.length;
    }
    return sum;
  }

  /**
   * What `resourceObservation` makes of the items the selector selects, in list order (how many
   * there are, and each pod's usage of the resource), or the first one's decoding error.
   */
  usage(
    selector: Selector,
    resource: string,
    container: string,
  ): { items: number; samples: PodSamples } | string {
    // The smallest set of candidates an equality requirement allows (none: every item).
    let candidates: number[] | null = null;
    for (const r of selector.requirements) {
      if (r.operator !== "=" && !(r.operator === "in" && r.values.length === 1)) continue;
      const filed = this.#byLabel.get(`${r.key}=${r.values[0]}`) ?? [];
      if (candidates === null || filed.length < candidates.length) candidates = filed;
    }
    const samples: PodSamples = new Map();
    let items = 0;
    const count = candidates === null ? this.#names.length : candidates.length;
    for (let i = 0; i < count; i++) {
      const at = candidates === null ? i : candidates[i]!;
      if (!selectorMatches(selector, this.#labels[at]!)) continue;
      const error = this.#errors.get(at);
      if (error !== undefined) return error;
      items++;
      const value = this.#usage(at, resource, container);
      if (value !== undefined) {
        const sample = { value, timestamp: this.#timestamps[at]!, window: this.#windows[at]! };
        samples.set(this.#names[at]!, sample);
      }
    }
    return { items, samples };
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
  if (shared) {
    const indexed = (await shared.get(namespace, async () => {
      const answer = await list(EVERYTHING);
      return answer.ok ? { ok: true, index: new IndexedPodMetrics(answer.body) } : answer;
    })) as { ok: true; index: IndexedPodMetrics } | { ok: false; error: string };
    if (!indexed.ok) return errorObservation(`${PREFIX}${indexed.error}`);
    const selected = indexed.index.usage(podSelector, resource, container);
    if (typeof selected === "string") return errorObservation(`${PREFIX}${selected}`);
    // No item at all is the metrics client's error, worded in one place.
    if (selected.items === 0) return resourceObservation([], resource, container);
    return { kind: "resource", samples: selected.samples };
  }
  const answer = await list(podSelector);
  if (!answer.ok) return errorObservation(`${PREFIX}${answer.error}`);
  const items = podMetricsItems(answer.body);
  if (typeof items === "string") return errorObservation(`${PREFIX}${items}`);
  return resourceObservation(items, resource, container);
}
