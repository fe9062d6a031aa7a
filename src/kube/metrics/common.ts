// What the metric-source modules share: the per-query options, the custom metrics API version
// (upstream's AvailableAPIsGetter: the preferred version of custom.metrics.k8s.io from /apis,
// or the first version the client knows; cached and invalidated every sync period), and the
// parsing of MetricValue items of either custom metrics version.
import { milliValueOfJSON } from "../../api/quantity.js";
import { selectorFromLabelSelector } from "../../api/selector.js";
import type { LabelSelector } from "../../api/types.js";
import type { MetricObservation } from "../../core/sources/types.js";
import { type DeadlineOptions, requestJson } from "../api-errors.js";
import type { DiscoveryRestMapper } from "../rest-mapper.js";
import type { KubeClient } from "../types.js";

export const CUSTOM_GROUP = "custom.metrics.k8s.io";
export const EXTERNAL_GROUP = "external.metrics.k8s.io";
export const RESOURCE_GROUP = "metrics.k8s.io";

/** The versions of custom.metrics.k8s.io the client reads, most preferred first. */
export const CUSTOM_VERSIONS = ["v1beta2", "v1beta1"] as const;
export type CustomVersion = (typeof CUSTOM_VERSIONS)[number];

/** Options of one metrics query (the controller's deadline for the sync). */
export type ObserveOptions = DeadlineOptions;

export interface SourceContext {
  client: KubeClient;
  mapper: DiscoveryRestMapper;
  customVersion: CustomMetricsVersion;
  /** Default deadline of each query. */
  timeoutMs: number;
  /** One PodMetrics list per namespace shared by the syncs of a window; absent: upstream's reads. */
  sharedPodMetrics?: SharedPodMetrics;
}

/**
 * `--shared-reads-max-age`: the PodMetrics list of a whole namespace, fetched once and served to
 * every HPA of the namespace synced within `maxAgeMs` (each filters it by its own selector, as
 * the server would). Upstream lists per HPA with its label selector.
 */
export class SharedPodMetrics {
  readonly #lists = new Map<string, { at: number; answer: Promise<unknown> }>();
  constructor(
    readonly maxAgeMs: number,
    readonly now: () => number = Date.now,
  ) {}

  /** The namespace's list younger than maxAge, or `fetch`'s (a failed fetch is not kept). */
  get(namespace: string, fetch: () => Promise<unknown>): Promise<unknown> {
    const now = this.now();
    const kept = this.#lists.get(namespace);
    if (kept && now - kept.at < this.maxAgeMs) return kept.answer;
    const answer = fetch();
    this.#lists.set(namespace, { at: now, answer });
    answer.then(
      (result) => {
        if (!(result as { ok?: boolean }).ok && this.#lists.get(namespace)?.answer === answer)
          this.#lists.delete(namespace);
      },
      () => this.#lists.delete(namespace),
    );
    return answer;
  }
}

export function deadline(context: SourceContext, options: ObserveOptions = {}): DeadlineOptions {
  const out: DeadlineOptions = { timeoutMs: options.timeoutMs ?? context.timeoutMs };
  if (options.signal) out.signal = options.signal;
  return out;
}

export const errorObservation = (error: string): MetricObservation => ({ kind: "error", error });

/**
 * metav1.LabelSelectorAsSelector(...).String() as a query parameter value: a nil or empty
 * selector prints as "" and the parameter is left out (ListOptions' omitempty).
 */
export function selectorParam(
  selector: LabelSelector | null | undefined,
): { ok: true; text: string | undefined } | { ok: false; error: string } {
  const parsed = selectorFromLabelSelector(selector);
  if (!parsed.ok) return parsed;
  return { ok: true, text: parsed.selector.text === "" ? undefined : parsed.selector.text };
}

/** metav1.Time on the wire (RFC 3339) → epoch ms; a missing or zero time is 0. */
export function timeOf(value: unknown): number {
  if (typeof value !== "string" || value === "") return 0;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? 0 : ms;
}

/** A custom-metrics MetricValue, read in the v1beta2 shape whichever version answered. */
export interface MetricValue {
  describedObject: { kind?: string; name?: string; namespace?: string; apiVersion?: string };
  metricName: string;
  timestamp: number;
  /** windowSeconds (v1beta2) or window (v1beta1); undefined when absent. */
  windowSeconds?: number;
  valueMilli: bigint;
}

/** The conversion of either version's item to v1beta2 (`metricName` → `metric.name`, `window` → `windowSeconds`). */
export function readMetricValue(
  version: string,
  item: Record<string, unknown>,
): MetricValue | string {
  const valueMilli = milliValueOfJSON(item.value);
  if (valueMilli === null)
    return `unable to decode MetricValue value ${JSON.stringify(item.value)}`;
  const describedObject = (item.describedObject ?? {}) as MetricValue["describedObject"];
  const metric = (item.metric ?? {}) as { name?: unknown };
  const metricName = version === "v1beta1" ? item.metricName : metric.name;
  const window = version === "v1beta1" ? item.window : item.windowSeconds;
  const out: MetricValue = {
    describedObject,
    metricName: typeof metricName === "string" ? metricName : "",
    timestamp: timeOf(item.timestamp),
    valueMilli,
  };
  if (typeof window === "number") out.windowSeconds = window;
  return out;
}

/**
 * The preferred custom metrics API version, as upstream's apiVersionsFromDiscovery chooses it
 * (the group's preferredVersion when the client knows it, else the first known listed
 * version), cached until invalidated — kube-controller-manager invalidates it every HPA sync
 * period, so a server that starts or stops serving v1beta2 is followed.
 */
export class CustomMetricsVersion {
  readonly #client: KubeClient;
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  #cached: { version: CustomVersion; at: number } | null = null;
  #pending: Promise<{ ok: true; version: CustomVersion } | { ok: false; error: string }> | null =
    null;

  constructor(options: {
    client: KubeClient;
    now?: () => number;
    ttlMs?: number;
    timeoutMs?: number;
  }) {
    this.#client = options.client;
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? 15_000;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  invalidate(): void {
    this.#cached = null;
  }

  async get(): Promise<{ ok: true; version: CustomVersion } | { ok: false; error: string }> {
    const cached = this.#cached;
    if (cached && this.#now() - cached.at < this.#ttlMs)
      return { ok: true, version: cached.version };
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  async #fetch(): Promise<{ ok: true; version: CustomVersion } | { ok: false; error: string }> {
    const answer = await requestJson<{
      groups?: {
        name: string;
        versions?: { groupVersion?: string }[];
        preferredVersion?: { groupVersion?: string };
      }[];
    }>(
      this.#client,
      { method: "GET", path: "/apis" },
      { verb: "get" },
      { timeoutMs: this.#timeoutMs },
    );
    if (!answer.ok) return answer;
    const group = (answer.body.groups ?? []).find((g) => g.name === CUSTOM_GROUP);
    if (!group) return { ok: false, error: `no custom metrics API (${CUSTOM_GROUP}) registered` };
    const known = (groupVersion: string | undefined): CustomVersion | undefined =>
      CUSTOM_VERSIONS.find((v) => `${CUSTOM_GROUP}/${v}` === groupVersion);
    let version = known(group.preferredVersion?.groupVersion);
    if (!version) {
      for (const v of group.versions ?? []) {
        version = known(v.groupVersion);
        if (version) break;
      }
    }
    if (!version) return { ok: false, error: "no known available metric versions found" };
    this.#cached = { version, at: this.#now() };
    return { ok: true, version };
  }
}
