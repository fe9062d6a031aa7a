// Resource and ContainerResource metrics from metrics.k8s.io/v1beta1, as upstream's
// resourceMetricsClient.GetResourceMetric reads them: the PodMetrics list of the namespace
// filtered by the scale's pod selector, each pod's usage (the sum of its containers, or the
// named container's) with the item's timestamp and window; then `resourceObservation`, the
// step shared with the in-process pipeline.

import { type ParsedDuration, parseDuration } from "../../api/duration.js";
import { milliNumberOfJSON } from "../../api/quantity.js";
import { parseSelector, type Selector, selectorMatches } from "../../api/selector.js";
import type { MetricSpec } from "../../api/types.js";
import type { PodSamples } from "../../core/replica-calculator.js";
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

/** A label set as items carry it, and the items that carry it (a chain through `next`). */
interface LabelSet {
  labels: Record<string, string>;
  first: number;
  last: number;
  count: number;
}

/** The same labels (keys, values and order: a label set is keyed by its JSON). */
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
 * Usage values as items are decoded, copied into an index's column at once; emptied only now and
 * then (emptying an array drops its backing store, so once per item would allocate one per item).
 */
const scratch: number[] = [];

const NO_SETS: readonly number[] = [];

/**
 * A namespace's whole PodMetrics list, shared by its HPAs: each item decoded once and filed by
 * label set, and each set under each of its `key=value` labels, so an HPA's selector reads only
 * the items one of its required labels allows (in list order, as the server would filter), not
 * the namespace's every pod. Held for the shared reads' max age, long enough to reach the old
 * generation, so it is kept in few objects: numbers in typed columns (outside the heap), names in
 * one string, label sets and container layouts shared between items (a ReplicaSet's pods carry
 * the same); each HPA's samples are read from the columns without making its items.
 */
export class IndexedPodMetrics {
  readonly #count: number;
  /** The items' names, one after another; item i's ends at #nameEnds[i]. */
  readonly #names: string;
  readonly #nameEnds: Int32Array;
  readonly #sets: LabelSet[] = [];
  readonly #setOf: Int32Array;
  /** The next item of the same label set (-1: none). */
  readonly #next: Int32Array;
  readonly #timestamps: Float64Array;
  readonly #windows: Float64Array;
  readonly #layouts: UsageLayout[] = [];
  readonly #layoutOf: Int32Array;
  /** Where each item's usage values start in #values. */
  readonly #offsets: Int32Array;
  readonly #values: Float64Array;
  /** Items that did not decode: their error, by position. */
  readonly #errors = new Map<number, string>();
  /** Label key → value → the label sets carrying it (one, or several). */
  readonly #byLabel = new Map<string, Map<string, number | number[]>>();

  constructor(list: PodMetricsList) {
    const items = list.items ?? [];
    const count = items.length;
    this.#count = count;
    this.#nameEnds = new Int32Array(count);
    this.#setOf = new Int32Array(count);
    this.#next = new Int32Array(count).fill(-1);
    this.#timestamps = new Float64Array(count);
    this.#windows = new Float64Array(count);
    this.#layoutOf = new Int32Array(count);
    this.#offsets = new Int32Array(count);
    let values = new Float64Array(Math.max(16, count * 2));
    const names: string[] = [];
    let nameEnd = 0;
    const setsByJson = new Map<string, number>();
    const layoutsByJson = new Map<string, number>();
    const none: UsageLayout = { containers: [] };
    // The list comes sorted by name, so a ReplicaSet's pods are neighbours: the previous item's
    // label set and layout are tried first, without building a key.
    let lastSet = -1;
    let lastLayout = -1;
    // The items of one list mostly carry one timestamp: each text is parsed once in a row.
    let lastTimestamp: string | undefined;
    let lastTime: number | null = null;
    let used = 0;
    for (let at = 0; at < count; at++) {
      const raw = items[at]!;
      const rawLabels = raw.metadata?.labels ?? {};
      let setId = lastSet >= 0 && sameLabels(this.#sets[lastSet]!.labels, rawLabels) ? lastSet : -1;
      if (setId < 0) {
        const labelsKey = JSON.stringify(rawLabels);
        setId = setsByJson.get(labelsKey) ?? -1;
        if (setId < 0) {
          setId = this.#sets.length;
          this.#sets.push({ labels: rawLabels, first: at, last: at, count: 0 });
          setsByJson.set(labelsKey, setId);
          this.#file(rawLabels, setId);
        }
      }
      lastSet = setId;
      const set = this.#sets[setId]!;
      if (set.count > 0) this.#next[set.last] = at;
      set.last = at;
      set.count++;
      this.#setOf[at] = setId;
      const name = raw.metadata?.name ?? "";
      names.push(name);
      nameEnd += name.length;
      this.#nameEnds[at] = nameEnd;
      this.#offsets[at] = used;
      if (scratch.length > 4096) scratch.length = 0;
      const first = scratch.length;
      const window = readUsage(raw, scratch);
      if (typeof window === "string") {
        this.#layoutOf[at] = this.#layoutIndex(none, layoutsByJson, "[]");
        this.#errors.set(at, window);
        continue;
      }
      const decoded = scratch.length - first;
      if (used + decoded > values.length) {
        const grown = new Float64Array(Math.max(values.length * 2, used + decoded));
        grown.set(values);
        values = grown;
      }
      for (let i = first; i < scratch.length; i++) values[used++] = scratch[i]!;
      if (lastTime === null || raw.timestamp !== lastTimestamp) {
        lastTimestamp = raw.timestamp;
        lastTime = timeOf(raw.timestamp);
      }
      this.#timestamps[at] = lastTime;
      this.#windows[at] = window;
      const containers = raw.containers ?? [];
      let layoutId =
        lastLayout >= 0 && fitsLayout(this.#layouts[lastLayout]!, containers) ? lastLayout : -1;
      if (layoutId < 0) {
        const shape = containers.map((c) => ({
          name: c.name ?? "",
          resources: Object.keys(c.usage ?? {}),
        }));
        layoutId = this.#layoutIndex({ containers: shape }, layoutsByJson, JSON.stringify(shape));
      }
      lastLayout = layoutId;
      this.#layoutOf[at] = layoutId;
    }
    this.#values = values.length > used * 2 ? values.slice(0, used) : values;
    this.#names = names.join("");
  }

  /** Files a new label set under each of its labels. */
  #file(labels: Record<string, string>, setId: number): void {
    for (const key in labels) {
      const value = labels[key]!;
      let byValue = this.#byLabel.get(key);
      if (byValue === undefined) {
        byValue = new Map();
        this.#byLabel.set(key, byValue);
      }
      const filed = byValue.get(value);
      if (filed === undefined) byValue.set(value, setId);
      else if (typeof filed === "number") byValue.set(value, [filed, setId]);
      else filed.push(setId);
    }
  }

  #layoutIndex(layout: UsageLayout, byJson: Map<string, number>, json: string): number {
    let id = byJson.get(json);
    if (id === undefined) {
      id = this.#layouts.length;
      this.#layouts.push(layout);
      byJson.set(json, id);
    }
    return id;
  }

  /**
   * The item at `at`'s usage of `resource` as usageByPod reads it: the sum over its containers
   * (undefined when one lacks it, or it has none), or the first container named `container`'s.
   */
  #usage(at: number, resource: string, container: string): number | undefined {
    let next = this.#offsets[at]!;
    const containers = this.#layouts[this.#layoutOf[at]!]!.containers;
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

  /** The label sets carrying `key=value`. */
  #setsWith(key: string, value: string): readonly number[] | number {
    return this.#byLabel.get(key)?.get(value) ?? NO_SETS;
  }

  /** The items of several label sets, in list order. */
  #itemsOf(sets: readonly number[]): number[] {
    const out: number[] = [];
    for (const id of sets) {
      for (let at = this.#sets[id]!.first; at >= 0; at = this.#next[at]!) out.push(at);
    }
    return out.sort((a, b) => a - b);
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
    let candidates: readonly number[] | number | null = null;
    let fewest = 0;
    for (const r of selector.requirements) {
      if (r.operator !== "=" && !(r.operator === "in" && r.values.length === 1)) continue;
      const sets = this.#setsWith(r.key, r.values[0]!);
      let items = 0;
      if (typeof sets === "number") items = this.#sets[sets]!.count;
      else for (const id of sets) items += this.#sets[id]!.count;
      if (candidates === null || items < fewest) {
        candidates = sets;
        fewest = items;
      }
    }
    // One label set (the usual case) is walked along its chain; several are merged.
    const chain = typeof candidates === "number" ? candidates : -1;
    const chosen =
      candidates === null || chain >= 0 ? null : this.#itemsOf(candidates as readonly number[]);
    const samples: PodSamples = new Map();
    let items = 0;
    const count = chain >= 0 ? fewest : chosen === null ? this.#count : chosen.length;
    for (let i = 0, at = chain >= 0 ? this.#sets[chain]!.first : 0; i < count; i++) {
      if (chain < 0) at = chosen === null ? i : chosen[i]!;
      else if (i > 0) at = this.#next[at]!;
      if (!selectorMatches(selector, this.#sets[this.#setOf[at]!]!.labels)) continue;
      const error = this.#errors.get(at);
      if (error !== undefined) return error;
      items++;
      const value = this.#usage(at, resource, container);
      if (value !== undefined) {
        const sample = { value, timestamp: this.#timestamps[at]!, window: this.#windows[at]! };
        const name = this.#names.slice(at === 0 ? 0 : this.#nameEnds[at - 1]!, this.#nameEnds[at]);
        samples.set(name, sample);
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
