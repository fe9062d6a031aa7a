// The controller's MetricsPort over the Kubernetes metrics APIs: one module per metric source
// (resource.ts for Resource and ContainerResource, pods.ts, object.ts, external.ts) in a
// registry the compiler checks against the MetricSpec types, as upstream's REST metrics client
// composes its resource, custom and external clients. Every query takes a deadline.

import type { Selector } from "../../api/selector.js";
import type { MetricSourceType, MetricSpec } from "../../api/types.js";
import type { MetricsPort } from "../../controller/ports.js";
import type { MetricObservation } from "../../core/sources/types.js";
import { DiscoveryRestMapper } from "../rest-mapper.js";
import type { KubeClient } from "../types.js";
import {
  CustomMetricsVersion,
  type ObserveOptions,
  SharedPodMetrics,
  type SourceContext,
} from "./common.js";
import { observeExternal } from "./external.js";
import { observeObject } from "./object.js";
import { observePods } from "./pods.js";
import { observeResource } from "./resource.js";

export type { ObserveOptions } from "./common.js";

type KubeMetricSource = (
  context: SourceContext,
  namespace: string,
  spec: MetricSpec,
  podSelector: Selector,
  options?: ObserveOptions,
) => Promise<MetricObservation>;

/** One entry per metric source type (a missing or extra type is a compile error). */
export const KUBE_METRIC_SOURCES: Record<MetricSourceType, KubeMetricSource> = {
  Resource: observeResource,
  ContainerResource: observeResource,
  Pods: observePods,
  Object: (context, namespace, spec, _selector, options) =>
    observeObject(context, namespace, spec, options),
  External: (context, namespace, spec, _selector, options) =>
    observeExternal(context, namespace, spec, options),
};

export interface KubeMetricsOptions {
  client: KubeClient;
  /** Shared with the scale adapter (one discovery cache); made from `client` when absent. */
  mapper?: DiscoveryRestMapper;
  /** Default deadline of each query (default 30s; 0: none). */
  timeoutMs?: number;
  /** How long the custom metrics API version is trusted (default 15s, the sync period). */
  customVersionTtlMs?: number;
  /** `--shared-reads-max-age` (0 or absent: each HPA lists its own pod metrics, as upstream). */
  sharedPodMetricsMaxAgeMs?: number;
  now?: () => number;
}

export class KubeMetricsPort implements MetricsPort {
  readonly context: SourceContext;

  constructor(options: KubeMetricsOptions) {
    const mapper = options.mapper ?? new DiscoveryRestMapper({ client: options.client });
    this.context = {
      client: options.client,
      mapper,
      customVersion: new CustomMetricsVersion({
        client: options.client,
        ...(options.now ? { now: options.now } : {}),
        ...(options.customVersionTtlMs !== undefined ? { ttlMs: options.customVersionTtlMs } : {}),
      }),
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(options.sharedPodMetricsMaxAgeMs
        ? { sharedPodMetrics: new SharedPodMetrics(options.sharedPodMetricsMaxAgeMs, options.now) }
        : {}),
    };
  }

  /** One observation per metric spec; `options` carries the sync's deadline. */
  observe(
    namespace: string,
    spec: MetricSpec,
    podSelector: Selector,
    options?: ObserveOptions,
  ): Promise<MetricObservation> {
    const source = KUBE_METRIC_SOURCES[spec.type as MetricSourceType];
    if (!source) {
      return Promise.resolve({
        kind: "error",
        error: `unknown metric source type "${spec.type}"`,
      });
    }
    return source(this.context, namespace, spec, podSelector, options);
  }
}
