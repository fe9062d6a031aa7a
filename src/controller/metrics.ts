// The controller's Prometheus metrics. The four HPA metrics carry the names, labels, help texts
// and buckets kube-controller-manager v1.34 registers (pkg/controller/podautoscaler/monitor),
// with its "[ALPHA] " stability prefix, and their label values are derived as upstream's
// reconcileAutoscaler / computeReplicasForMetric derive them. Queue depth and leader status use
// the client-go/component-base names; the rest are Horizon's (`horizon_controller_*`).
import {
  Counter,
  collectDefaultMetrics,
  exponentialBuckets,
  Gauge,
  Histogram,
  Registry,
} from "prom-client";
import type { HorizontalPodAutoscaler } from "../api/types.js";
import type { SyncResult } from "../core/sync.js";
import type { DecisionTrace } from "../core/trace.js";

export type ActionLabel = "scale_up" | "scale_down" | "none";
export type ErrorLabel = "spec" | "internal" | "none";

/** One sync as the controller runtime reports it (its `onSync` hook). */
export interface SyncObservation {
  /** The HPA as handed to the reconcile: its status is the one before this sync. */
  hpa: HorizontalPodAutoscaler;
  /** The sync's result; absent or null when the reconcile threw. */
  result?: SyncResult | null;
  /** The status write's error (ReconcileOutcome.statusError). */
  statusError?: string | null;
  /**
   * Why the reconcile threw, when `result` is null (ignored otherwise: the result and
   * `statusError` carry a finished sync's errors). The runtime's RuntimeSyncReport fits as is.
   */
  error?: unknown;
  /** Wall time of the whole reconcile, milliseconds. */
  durationMs: number;
  /** When the sync started, epoch milliseconds (for the effective sync period). */
  at: number;
  /**
   * Wall time of each metric's computation, index-aligned with `spec.metrics` (upstream times
   * each metric including its metrics-API call). Without it each metric is observed with the
   * whole reconcile's duration, an upper bound.
   */
  metricDurationsMs?: readonly number[];
}

export interface ReconciliationLabels {
  action: ActionLabel;
  error: ErrorLabel;
}

export interface MetricComputationLabels {
  action: ActionLabel;
  error: ErrorLabel;
  metric_type: string;
}

/**
 * Go's schema.ParseGroupVersion fails only on more than one "/" ("", "v1" and "g/v" parse).
 * Its failure is the one reconcile error upstream marks as a spec error (errSpec).
 */
export function isInvalidGroupVersion(apiVersion: string | undefined): boolean {
  return (apiVersion ?? "").split("/").length > 2;
}

/**
 * The reconciliation's labels. Upstream sets `action` only after a successful scale update
 * (scale_up / scale_down by direction), and `error` from the returned error: `spec` only for
 * an unparsable scaleTargetRef.apiVersion (every other error, metric ones included, is wrapped
 * with %v and so loses errSpec), `internal` for any other error, including a failed status
 * write and the error returned after scaling on partially failed metrics.
 */
export function reconciliationLabels(observation: SyncObservation): ReconciliationLabels {
  const result = observation.result ?? null;
  if (result === null) return { action: "none", error: "internal" };
  let action: ActionLabel = "none";
  if (result.scaleUpdated) {
    action = result.desiredReplicas > result.trace.currentReplicas ? "scale_up" : "scale_down";
  }
  let error: ErrorLabel = "none";
  if (result.error !== null) {
    const scaleFailed = result.trace.branch === "scaleUnavailable";
    error =
      scaleFailed && isInvalidGroupVersion(observation.hpa.spec.scaleTargetRef.apiVersion)
        ? "spec"
        : "internal";
  }
  // A failed status write only follows a successful sync upstream (earlier failures return first).
  if (observation.statusError && error === "none") error = "internal";
  return { action, error };
}

/**
 * One label set per metric computed this sync (none when the sync stopped before the metric
 * loop: scale unreadable, out of range, selector invalid or ambiguous). Upstream compares each
 * proposal with the HPA's *previous* status.currentReplicas; a failed metric is `none` /
 * `internal`, or `spec` for an unknown metric source type (the only errSpec metric error).
 */
export function metricComputationLabels(
  hpa: HorizontalPodAutoscaler,
  trace: DecisionTrace,
): MetricComputationLabels[] {
  const previous = hpa.status?.currentReplicas ?? 0;
  return trace.metrics.map((metric) => {
    const failed = metric.reason !== undefined || metric.proposal === undefined;
    if (failed) {
      return {
        action: "none",
        error: metric.reason === "InvalidMetricSourceType" ? "spec" : "internal",
        metric_type: metric.type,
      };
    }
    const proposal = metric.proposal!;
    const action: ActionLabel =
      proposal > previous ? "scale_up" : proposal < previous ? "scale_down" : "none";
    return { action, error: "none", metric_type: metric.type };
  });
}

/** What an API request hook reports; `status` is the HTTP status, or null when none came back. */
export interface ApiRequestObservation {
  method: string;
  /** The request path, e.g. /apis/apps/v1/namespaces/default/deployments/web/scale. */
  path: string;
  query?: Record<string, unknown>;
  status: number | null;
}

/**
 * Kubernetes verb and resource of a request: GET on a collection is `list` (`watch` with
 * watch=true), on an object `get`; resources are `resource[.group][/subresource]`.
 */
export function apiRequestLabels(request: ApiRequestObservation): {
  verb: string;
  resource: string;
  code: string;
} {
  const parts = request.path.split("?")[0]!.split("/").filter(Boolean);
  let group = "";
  let rest: string[] = [];
  if (parts[0] === "api") rest = parts.slice(2);
  else if (parts[0] === "apis") {
    group = parts[1] ?? "";
    rest = parts.slice(3);
  }
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const resourceName = rest[0];
  let resource = "discovery";
  if (parts[0] !== "api" && parts[0] !== "apis") resource = "other";
  else if (resourceName) {
    resource = group ? `${resourceName}.${group}` : resourceName;
    if (rest[2]) resource += `/${rest[2]}`;
  }
  const named = rest.length >= 2;
  const query = request.query ?? {};
  const watching = query.watch === true || query.watch === "true" || query.watch === "1";
  const method = request.method.toUpperCase();
  const verbs: Record<string, string> = {
    GET: watching ? "watch" : named || resource === "discovery" ? "get" : "list",
    POST: "create",
    PUT: "update",
    PATCH: "patch",
    DELETE: named ? "delete" : "deletecollection",
  };
  return {
    verb: verbs[method] ?? method.toLowerCase(),
    resource,
    // client-go's rest_client_requests_total uses "<error>" when no answer came back.
    code: request.status === null ? "<error>" : String(request.status),
  };
}

export interface ControllerMetricsOptions {
  /** Registry to register into (default: a new one). */
  registry?: Registry;
  /** Node process metrics (prom-client's collectDefaultMetrics). Default true. */
  processMetrics?: boolean;
  /** --horizontal-pod-autoscaler-sync-period, for the effective sync period's buckets. Default 15. */
  syncPeriodSeconds?: number;
  /** Buckets of the effective sync period (seconds); default multiples of the sync period. */
  effectiveSyncPeriodBuckets?: number[];
  /** The lease name of `leader_election_master_status{name}` (--leader-elect-resource-name). */
  leaseName?: string;
}

const HPA_SUBSYSTEM = "horizontal_pod_autoscaler_controller";
// component-base prefixes the help text of every metric with its stability level.
const ALPHA = "[ALPHA] ";
const BETA = "[BETA] ";
const RECONCILE_HELP =
  "The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'. Note that if both spec and internal errors happen during a reconciliation, the first one to occur is reported in `error` label.";
const METRIC_HELP =
  "The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'. The label 'metric_type' corresponds to HPA.spec.metrics[*].type";
const METRIC_DURATION_HELP =
  "The label 'action' should be either 'scale_down', 'scale_up', or 'none'. The label 'error' should be either 'spec', 'internal', or 'none'. The label 'metric_type' corresponds to HPA.spec.metrics[*].type";
/** metrics.ExponentialBuckets(0.001, 2, 15): 1ms … 16.384s. */
const DURATION_BUCKETS = exponentialBuckets(0.001, 2, 15);
/** Effective sync period buckets as multiples of the configured period. */
const PERIOD_FACTORS = [0.5, 0.9, 0.95, 1, 1.02, 1.05, 1.1, 1.25, 1.5, 2, 3, 5];
/** component-base's workqueue buckets: ExponentialBuckets(10e-9, 10, 10), 10 ns … 10 s. */
const QUEUE_BUCKETS = exponentialBuckets(1e-8, 10, 10).map((b) => Number(b.toPrecision(6)));
/** upstream's work queue name (workqueue_depth{name}). */
export const HPA_QUEUE_NAME = "horizontalpodautoscaler";

export class ControllerMetrics {
  readonly registry: Registry;
  readonly reconciliationsTotal: Counter<"action" | "error">;
  readonly reconciliationDuration: Histogram<"action" | "error">;
  readonly metricComputationTotal: Counter<"action" | "error" | "metric_type">;
  readonly metricComputationDuration: Histogram<"action" | "error" | "metric_type">;
  readonly queueDepth: Gauge<"name">;
  readonly queueAdds: Counter<"name">;
  readonly queueDuration: Histogram<"name">;
  readonly workDuration: Histogram<"name">;
  readonly queueRetries: Counter<"name">;
  readonly effectiveSyncPeriod: Histogram;
  readonly apiRequests: Counter<"verb" | "resource" | "code">;
  readonly leaderStatus: Gauge<"name">;
  readonly managedHpas: Gauge;
  readonly syncsInFlight: Gauge;
  readonly fallbackActive: Gauge<"namespace" | "name">;
  private readonly lastSync = new Map<string, number>();
  private readonly leaseName: string;
  private queueDepthSource: (() => number) | null = null;

  constructor(options: ControllerMetricsOptions = {}) {
    const registry = options.registry ?? new Registry();
    this.registry = registry;
    const registers = [registry];
    this.leaseName = options.leaseName ?? "horizon-controller";
    this.reconciliationsTotal = new Counter({
      name: `${HPA_SUBSYSTEM}_reconciliations_total`,
      help: `${ALPHA}Number of reconciliations of HPA controller. ${RECONCILE_HELP}`,
      labelNames: ["action", "error"],
      registers,
    });
    this.reconciliationDuration = new Histogram({
      name: `${HPA_SUBSYSTEM}_reconciliation_duration_seconds`,
      help: `${ALPHA}The time(seconds) that the HPA controller takes to reconcile once. ${RECONCILE_HELP}`,
      labelNames: ["action", "error"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.metricComputationTotal = new Counter({
      name: `${HPA_SUBSYSTEM}_metric_computation_total`,
      help: `${ALPHA}Number of metric computations. ${METRIC_HELP}`,
      labelNames: ["action", "error", "metric_type"],
      registers,
    });
    this.metricComputationDuration = new Histogram({
      name: `${HPA_SUBSYSTEM}_metric_computation_duration_seconds`,
      help: `${ALPHA}The time(seconds) that the HPA controller takes to calculate one metric. ${METRIC_DURATION_HELP}`,
      labelNames: ["action", "error", "metric_type"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    const self = this;
    this.queueDepth = new Gauge({
      name: "workqueue_depth",
      help: `${BETA}Current depth of workqueue`,
      labelNames: ["name"],
      registers,
      collect() {
        if (self.queueDepthSource) this.set({ name: HPA_QUEUE_NAME }, self.queueDepthSource());
      },
    });
    this.queueAdds = new Counter({
      name: "workqueue_adds_total",
      help: `${BETA}Total number of adds handled by workqueue`,
      labelNames: ["name"],
      registers,
    });
    this.queueDuration = new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: `${BETA}How long in seconds an item stays in workqueue before being requested.`,
      labelNames: ["name"],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.workDuration = new Histogram({
      name: "workqueue_work_duration_seconds",
      help: `${BETA}How long in seconds processing an item from workqueue takes.`,
      labelNames: ["name"],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.queueRetries = new Counter({
      name: "workqueue_retries_total",
      help: `${BETA}Total number of retries handled by workqueue`,
      labelNames: ["name"],
      registers,
    });
    const period = options.syncPeriodSeconds ?? 15;
    this.effectiveSyncPeriod = new Histogram({
      name: "horizon_controller_effective_sync_period_seconds",
      help: "Time between two consecutive syncs of one HPA (the configured sync period plus queueing delay).",
      buckets:
        options.effectiveSyncPeriodBuckets ??
        PERIOD_FACTORS.map((factor) => Number((factor * period).toFixed(6))),
      registers,
    });
    this.apiRequests = new Counter({
      name: "horizon_controller_api_requests_total",
      help: "Kubernetes API requests made by the controller, by verb, resource and HTTP status code ('<error>' when no answer came back).",
      labelNames: ["verb", "resource", "code"],
      registers,
    });
    this.leaderStatus = new Gauge({
      name: "leader_election_master_status",
      help: `${ALPHA}Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.`,
      labelNames: ["name"],
      registers,
    });
    this.managedHpas = new Gauge({
      name: "horizon_controller_hpas",
      help: "HorizontalPodAutoscalers the controller manages (those matching --hpa-selector).",
      registers,
    });
    this.syncsInFlight = new Gauge({
      name: "horizon_controller_syncs_in_flight",
      help: "Syncs running now (at most --concurrent-horizontal-pod-autoscaler-syncs).",
      registers,
    });
    this.fallbackActive = new Gauge({
      name: "horizontal_pod_autoscaler_fallback_active",
      help: "1 while an HPA's horizon.dev/fallback-replicas is in force (its metrics failed for fallback-failure-threshold syncs in a row), else 0; only HPAs with a fallback.",
      labelNames: ["namespace", "name"],
      registers,
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  }

  /** Records one sync; returns the labels it used (for logs and tests). */
  recordSync(observation: SyncObservation): {
    reconciliation: ReconciliationLabels;
    metrics: MetricComputationLabels[];
  } {
    const reconciliation = reconciliationLabels(observation);
    const seconds = Math.max(0, observation.durationMs) / 1000;
    this.reconciliationsTotal.inc({ ...reconciliation });
    this.reconciliationDuration.observe({ ...reconciliation }, seconds);
    const result = observation.result ?? null;
    const metrics = result ? metricComputationLabels(observation.hpa, result.trace) : [];
    metrics.forEach((labels, i) => {
      const index = result!.trace.metrics[i]!.index;
      const ms = observation.metricDurationsMs?.[index] ?? observation.durationMs;
      this.metricComputationTotal.inc({ ...labels });
      this.metricComputationDuration.observe({ ...labels }, Math.max(0, ms) / 1000);
    });
    const namespace = observation.hpa.metadata.namespace ?? "default";
    const name = observation.hpa.metadata.name ?? "";
    const fallback = result?.history.fallback;
    if (fallback) this.fallbackActive.set({ namespace, name }, fallback.active ? 1 : 0);
    else if (result) this.fallbackActive.remove({ namespace, name });
    const key = `${namespace}/${name}`;
    const last = this.lastSync.get(key);
    if (last !== undefined && observation.at >= last) {
      this.effectiveSyncPeriod.observe((observation.at - last) / 1000);
    }
    this.lastSync.set(key, observation.at);
    return { reconciliation, metrics };
  }

  /** The HPA was deleted: its next sync (if it comes back) starts a new period series. */
  forget(namespace: string, name: string): void {
    this.lastSync.delete(`${namespace}/${name}`);
    this.fallbackActive.remove({ namespace, name });
  }

  /** The work queue's length, read at every scrape. */
  setQueueDepthSource(source: () => number): void {
    this.queueDepthSource = source;
  }

  setQueueDepth(depth: number): void {
    this.queueDepth.set({ name: HPA_QUEUE_NAME }, depth);
  }

  recordQueueAdd(): void {
    this.queueAdds.inc({ name: HPA_QUEUE_NAME });
  }

  /**
   * Hooks for the work queue (WorkQueueMetrics of workqueue.ts): depth, adds, time waiting,
   * time processing, retries (AddRateLimited calls), as client-go's workqueue reports them.
   */
  workQueueHooks(): {
    added(depth: number): void;
    taken(queuedMs: number, depth: number): void;
    finished(workMs: number): void;
    retried(): void;
  } {
    const name = { name: HPA_QUEUE_NAME };
    return {
      added: (depth) => {
        this.queueAdds.inc(name);
        this.queueDepth.set(name, depth);
      },
      taken: (queuedMs, depth) => {
        this.queueDuration.observe(name, Math.max(0, queuedMs) / 1000);
        this.queueDepth.set(name, depth);
      },
      finished: (workMs) => this.workDuration.observe(name, Math.max(0, workMs) / 1000),
      retried: () => this.queueRetries.inc(name),
    };
  }

  setLeader(leading: boolean): void {
    this.leaderStatus.set({ name: this.leaseName }, leading ? 1 : 0);
  }

  setSyncsInFlight(count: number): void {
    this.syncsInFlight.set(count);
  }

  setManagedHpas(count: number): void {
    this.managedHpas.set(count);
  }

  /** The API client's hook: one call per request answered (or failed). */
  recordApiRequest(request: ApiRequestObservation): void {
    this.apiRequests.inc(apiRequestLabels(request));
  }

  /** The exposition text (Prometheus text format 0.0.4). */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
