// The controller sees the world only through these ports. The simulator binds them in-process
// to the embedded cluster; `horizon up` and `horizon controller` bind them over HTTP with
// @kubernetes/client-node. One contract suite per port runs against every adapter.

import type { Selector } from "../api/selector.js";
import type {
  CrossVersionObjectReference,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerStatus,
  MetricSpec,
} from "../api/types.js";
import type { PodView } from "../core/pods.js";
import type { MetricObservation } from "../core/sources/types.js";
import type { SyncEvent } from "../core/sync.js";

/**
 * A port answers with a value or a promise of one: in-process adapters answer at once (the
 * simulator's hot path then pays for no promise), HTTP adapters asynchronously.
 */
export type Awaitable<T> = T | Promise<T>;

/** Expected failures are results, not exceptions (Kubernetes API errors carry their Status). */
export type PortResult<T> = { ok: true; value: T } | { ok: false; error: string; status?: number };

export interface ScaleView {
  specReplicas: number;
  statusReplicas: number;
  /** The scale's status.selector (string form); undefined when the target reports none. */
  selector?: string;
  /** For optimistic concurrency on update. */
  resourceVersion?: string;
}

/** The scale subresource of whatever `scaleTargetRef` names. */
export interface ScaleTargetPort {
  getScale(namespace: string, ref: CrossVersionObjectReference): Awaitable<PortResult<ScaleView>>;
  /** Sets spec.replicas; retries on conflict are the adapter's job, as upstream's RetryOnConflict. */
  updateScale(
    namespace: string,
    ref: CrossVersionObjectReference,
    replicas: number,
  ): Awaitable<PortResult<void>>;
}

/** Pods as the controller's informer holds them (parsed once per change). Lists are immutable snapshots: a changed pod set comes as a new array. */
export interface PodsPort {
  listPods(namespace: string, selector: Selector): readonly PodView[];
}

/** One observation per metric spec, as the metrics APIs answer for it. */
export interface MetricsPort {
  observe(namespace: string, spec: MetricSpec, podSelector: Selector): Awaitable<MetricObservation>;
}

export interface HpaStatusPort {
  /** Writes the status subresource (only called when the status changed). */
  updateStatus(
    hpa: HorizontalPodAutoscaler,
    status: HorizontalPodAutoscalerStatus,
  ): Awaitable<PortResult<void>>;
}

export interface EventsPort {
  record(hpa: HorizontalPodAutoscaler, event: SyncEvent, now: number): void;
}

/**
 * The HPAs the controller manages, as an informer holds them (autoscaling/v2, converted by the
 * server). `list()` returns the same array until the set changes.
 */
export interface HpaSource {
  list(): readonly HorizontalPodAutoscaler[];
  /** Called after every add, update (`hpa` is the new object) or delete (`hpa` is null). */
  subscribe(listener: (key: string, hpa: HorizontalPodAutoscaler | null) => void): () => void;
  /**
   * The field managers of the HPA's newest status write (its `status` managedFields entries
   * with the latest time), as last delivered; undefined when the server tracks none.
   */
  statusWriters?(key: string): readonly string[] | undefined;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export interface ControllerPorts {
  scale: ScaleTargetPort;
  pods: PodsPort;
  metrics: MetricsPort;
  status: HpaStatusPort;
  events: EventsPort;
  clock: Clock;
}
