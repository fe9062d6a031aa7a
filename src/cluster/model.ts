// The embedded cluster's in-memory records: pods with their lifecycle stage and timestamps, the
// controllers that own them (ReplicaSet, ReplicationController, StatefulSet), and the workloads
// the scenario models (their traffic, usage and the metrics pipeline's per-scrape values).
import { DEFAULT_RUN_DURATION_MS, type JobRun, jobRunOf } from "../api/job-run.js";
import { defaultPodOnlySpec } from "../api/pod-defaults.js";
import { type PodQosClass, podQosClass } from "../api/pod-qos.js";
import type { CrossVersionObjectReference, KubeObject } from "../api/types.js";
import { type ContainerRequests, type PodView, podViewFromObject } from "../core/pods.js";
import type { SampleColumns } from "../core/replica-calculator.js";
import { Random } from "../registry/random.js";
import type {
  ObjectMetricModel,
  PodLifecycleModel,
  PodsMetricModel,
  TrafficModel,
  UsageModel,
} from "./cluster-model.js";

/**
 * Where a pod is in its life (kwok-style stages): waiting out its scheduling delay, waiting for
 * capacity, bound with containers being created, running (not yet ready), ready, succeeded (a
 * Job's pod whose containers exited 0), failed, terminating (deletionTimestamp set), gone.
 */
export type Stage =
  | "waiting"
  | "unschedulable"
  | "creating"
  | "running"
  | "ready"
  | "succeeded"
  | "failed"
  | "terminating"
  | "gone";

/**
 * A pod template parsed once: its pods' spec, the requests the HPA reads and the container names
 * metrics report.
 */
export interface TemplateInfo {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
  containers: ContainerRequests[];
  restartableInitContainers: ContainerRequests[];
  podRequests: Record<string, number> | null;
  containerNames: string[];
  /** The containers' images, in order (the kubelet's container statuses name them). */
  containerImages: string[];
  /** status.qosClass of its pods. */
  qosClass: PodQosClass;
  /** Σ cpu requests of the containers (milli); null when a container has none. */
  cpuRequestMilli: number | null;
  /**
   * From running to Ready for pods no scenario models: the longest readiness probe
   * initialDelaySeconds of the containers (0 without one, as the kubelet starts probing at once).
   */
  readinessDelayMs: number;
  /** How a Job's pod made from it runs and ends (its annotations; defaults where they are bad). */
  jobRun: JobRun;
}

interface RawTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

export function parseTemplate(template: unknown): TemplateInfo {
  const raw = (template ?? {}) as RawTemplate;
  // The spec of the Pods made from it, as the API server defaults a Pod (requests from limits).
  const spec = defaultPodOnlySpec(raw.spec ?? {});
  const view = podViewFromObject({ spec: spec as never });
  let cpu: number | null = 0;
  for (const c of view.containers) {
    const request = c.requests.cpu;
    if (request === undefined) cpu = null;
    else if (cpu !== null) cpu += request;
  }
  if (view.containers.length === 0) cpu = null;
  const metadata: TemplateInfo["metadata"] = { labels: raw.metadata?.labels ?? {} };
  if (raw.metadata?.annotations) metadata.annotations = raw.metadata.annotations;
  let readinessSeconds = 0;
  for (const c of (spec.containers ?? []) as {
    readinessProbe?: { initialDelaySeconds?: unknown };
  }[]) {
    const delay = c?.readinessProbe?.initialDelaySeconds;
    if (typeof delay === "number" && delay > readinessSeconds) readinessSeconds = delay;
  }
  const run = jobRunOf(raw.metadata?.annotations);
  return {
    metadata,
    spec,
    readinessDelayMs: readinessSeconds * 1000,
    jobRun: run.ok ? run.run : { runDurationMs: DEFAULT_RUN_DURATION_MS, exitCode: 0 },
    containers: view.containers,
    restartableInitContainers: view.restartableInitContainers,
    podRequests: view.podRequests,
    containerNames: view.containers.map((c) => c.name),
    containerImages: ((spec.containers ?? []) as { image?: unknown }[]).map((c) =>
      typeof c?.image === "string" ? c.image : "",
    ),
    qosClass: podQosClass(spec),
    cpuRequestMilli: view.podRequests?.cpu ?? cpu,
  };
}

export interface CrashLoop {
  container: string;
  /** Why its last start failed (the termination message). */
  message: string;
  /** Restarts so far (containerStatuses.restartCount). */
  restarts: number;
  /** When the last (re)start began and ended. */
  startedAt: number;
  finishedAt: number;
  /** Waiting out the back-off before the next restart (CrashLoopBackOff), not running. */
  backOffMs: number | null;
}

export class PodRecord {
  stage: Stage = "waiting";
  obj!: KubeObject;
  view!: PodView;
  /** Bound to the (single, virtual) node: counts against the cluster's pod capacity. */
  bound = false;
  /** The pod's address (from bind until it leaves), when the cluster has a network. */
  ip: string | null = null;
  scheduledAt: number | null = null;
  runningAt: number | null = null;
  readyAt: number | null = null;
  deletingAt: number | null = null;
  failedAt: number | null = null;
  /** When a Job's pod's containers exit (run duration after they start); null for others. */
  completesAt: number | null = null;
  /** Ready for the owner's minReadySeconds. */
  available = false;
  /** The Ready condition as written (second precision). */
  readyCondition: { status: "True" | "False"; time: number } | null = null;
  /**
   * A container that could not start (its port already in use on `horizon up`'s pod network)
   * and the kubelet's restarts of it with back-off; null while it runs as it should.
   */
  crashLoop: CrashLoop | null = null;
  /** Its containers' IDs once they exist (the kubelet's container statuses). */
  containerIds: string[] | null = null;
  /** Only the timer carrying the current token fires. */
  token = 0;
  /** Selector-index entries this pod belongs to. */
  entries: SelectorEntry[] = [];
  /** metrics.k8s.io item cache: the scrape it was built for. */
  itemBuffer: import("../core/sources/types.js").PodMetricsItem | null = null;
  /** Usage at the latest scrape (milli-units), computed once per scrape. */
  usageScrape = -1;
  hasUsage = false;
  cpuMilli = 0;
  memoryMilli = 0;
  /** Ready since before `t` and not terminating: served the whole window ending now. */
  servingThrough(from: number): boolean {
    return this.readyAt !== null && this.readyAt <= from && this.deletingAt === null;
  }
  /** Pods-metric rate cache: the scrape and window it was computed for. */
  rateScrape = -1;
  rateWindow = 0;
  rate: number | null = null;
  /** `namespace/name`, made once (it keys the cluster's maps). */
  readonly key: string;
  /** How often the name was created, this pod included (it seeds the pod's stream). */
  incarnation = 1;

  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly owner: PodOwner | null,
    readonly workload: Workload | null,
    readonly template: TemplateInfo,
    readonly lifecycle: PodLifecycleModel,
    readonly usage: UsageModel,
    /** The pod's own random stream (jitter, failure). */
    readonly seed: number,
    readonly willFail: boolean,
    readonly createdAt: number,
    /** StatefulSet ordinal, -1 otherwise. */
    readonly ordinal: number,
    /** The owner's template hash / revision this pod was created from. */
    readonly revision: string,
  ) {
    this.key = `${namespace}/${name}`;
  }

  /** Counts toward its controller's replicas: not terminating, failed nor succeeded. */
  get active(): boolean {
    return (
      this.stage !== "failed" &&
      this.stage !== "succeeded" &&
      this.stage !== "terminating" &&
      this.stage !== "gone"
    );
  }

  get isReady(): boolean {
    return this.stage === "ready";
  }

  /** Containers running at `t` (a scrape at `t` sees it). */
  containersRunningAt(t: number): boolean {
    return (
      this.runningAt !== null &&
      this.runningAt < t &&
      (this.failedAt === null || this.failedAt > t) &&
      (this.completesAt === null || this.completesAt > t)
    );
  }

  /** Ready and not terminating at `t`: the Service sends it traffic. */
  servingAt(t: number): boolean {
    return (
      this.readyAt !== null &&
      this.readyAt <= t &&
      (this.deletingAt === null || this.deletingAt > t) &&
      (this.completesAt === null || this.completesAt > t)
    );
  }
}

/** A controller that owns pods: ReplicaSet, ReplicationController, StatefulSet, DaemonSet or Job. */
export class PodOwner {
  readonly pods = new Set<PodRecord>();
  active = 0;
  ready = 0;
  available = 0;
  template: TemplateInfo;
  templateHash: string;
  readonly names: Random;
  /** `namespace/Kind/name`, made once (it keys the cluster's maps). */
  readonly key: string;

  constructor(
    readonly kind: "ReplicaSet" | "ReplicationController" | "StatefulSet" | "DaemonSet" | "Job",
    readonly namespace: string,
    readonly name: string,
    public obj: KubeObject,
    readonly workload: Workload,
    template: TemplateInfo,
    templateHash: string,
    nameSeed: number,
    /** creationTimestamp, epoch ms (second precision). */
    readonly created: number,
  ) {
    this.template = template;
    this.templateHash = templateHash;
    this.names = new Random(nameSeed);
    this.key = `${namespace}/${kind}/${name}`;
  }

  get specReplicas(): number {
    return ((this.obj.spec as { replicas?: number } | undefined)?.replicas ?? 1) as number;
  }
}

/** The per-scrape values of one workload, kept in a ring for rate windows. */
export class ScrapeRing {
  readonly time: Float64Array;
  readonly demand: Float64Array;
  readonly perPodServed: Float64Array;
  readonly ready: Float64Array;
  /** Σ perPodServed since the workload's first scrape (for O(1) window averages). */
  readonly cumServed: Float64Array;
  /** The first scrape that saw the workload. */
  first = -1;

  constructor(readonly size: number) {
    this.cumServed = new Float64Array(size);
    this.time = new Float64Array(size);
    this.demand = new Float64Array(size);
    this.perPodServed = new Float64Array(size);
    this.ready = new Float64Array(size);
  }
}

export class Workload {
  /** Requests its pods answered on the pod network (`horizon up`), and the count at the last scrape. */
  servedTotal = 0;
  servedAtScrape = 0;
  /**
   * Its traffic models are being sent to its pods as real requests (`horizon up`: the scenario's
   * traffic, traffic-http.ts): what they answer is its demand, so the models are not added to it.
   */
  trafficSent = false;
  readonly owners: PodOwner[] = [];
  templateHash = "";
  /** Last revision number given to a ReplicaSet (deployment.kubernetes.io/revision). */
  revision = 0;
  readonly podsMetrics: PodsMetricModel[] = [];
  readonly objectMetrics: ObjectMetricModel[] = [];
  lastScrape = -1;
  /** The per-pod share served at lastScrape (its ring slot's, read here with the scrape index). */
  lastShare = 0;
  /** Pods that started recently enough to be in their startup CPU burst (pruned lazily). */
  readonly bursting: PodRecord[] = [];
  /** workloadMetrics cache: the scrape it was computed for. */
  metricsScrape = -1;
  metricsCache: Record<string, number> = {};
  /** `namespace/Kind/name`, made once (it keys the cluster's maps). */
  readonly key: string;
  /** No longer the cluster's workload of its key (deleted, or replaced by its Deployment's). */
  removed = false;

  constructor(
    readonly kind:
      | "Deployment"
      | "StatefulSet"
      | "DaemonSet"
      | "ReplicaSet"
      | "ReplicationController",
    readonly namespace: string,
    readonly name: string,
    public obj: KubeObject,
    public lifecycle: PodLifecycleModel,
    public usage: UsageModel,
    public traffic: TrafficModel[],
    readonly ring: ScrapeRing,
    readonly seed: number,
  ) {
    this.key = `${namespace}/${kind}/${name}`;
  }

  #replicasOf: KubeObject | null = null;
  #replicas = 0;

  /**
   * spec.replicas (1 when unset), read from the object only after it was replaced: the objects'
   * specs have many shapes (a megamorphic load), and the sample of every workload at every
   * metric resolution asked for it.
   */
  specReplicas(): number {
    const obj = this.obj;
    if (obj !== this.#replicasOf) {
      this.#replicas = ((obj.spec as { replicas?: number }).replicas ?? 1) as number;
      this.#replicasOf = obj;
    }
    return this.#replicas;
  }

  readyCount(): number {
    let n = 0;
    for (const owner of this.owners) n += owner.ready;
    return n;
  }

  activeCount(): number {
    let n = 0;
    for (const owner of this.owners) n += owner.active;
    return n;
  }
}

/** The pods of one namespace matching one selector, kept up to date as pods come and go. */
/**
 * What the usage model reads of each member of a selector entry, in columns aligned with its
 * pod list (`views`), and the members' usage at scrape `scrape` (MetricsPipeline).
 */
export interface EntryUsage {
  views: readonly PodView[];
  /**
   * Per pod, contiguous: runningAt, failedAt, completesAt, readyAt, deletingAt (NaN: null) and
   * its seed (USAGE_STRIDE numbers): a scrape reads one run of memory per pod, not six arrays.
   */
  pods: Float64Array;
  /** Runs of consecutive members that share a workload, usage model, burst and containers. */
  runs: UsageRun[];
  /** Each member's class at `classesAt` (see metrics.ts), the same until `classesUntil`. */
  classes: Uint8Array;
  classesAt: number;
  classesUntil: number;
  /** The scrape the timestamps below are of; and the cpu and memory values. */
  scrape: number;
  cpuScrape: number;
  memoryScrape: number;
  /** How many members the scrape saw running (with containers or not). */
  scraped: number;
  /** The members' whole-pod usage as the Resource metrics' samples (they share the times). */
  cpu: SampleColumns;
  memory: SampleColumns;
}

/** Numbers per pod in EntryUsage.pods. */
export const USAGE_STRIDE = 6;

/** Members [start, end) of an entry whose usage is computed with the same model. */
export interface UsageRun {
  end: number;
  workload: Workload | null;
  usage: UsageModel;
  burst: PodLifecycleModel["startupCpuBurst"];
  /** The pods have containers (none: they report no metric). */
  containers: boolean;
}

export class SelectorEntry {
  readonly members = new Set<PodRecord>();
  views: readonly PodView[] | null = null;
  /** `members` as an array for the metrics' loops; null after the membership changed. */
  records: PodRecord[] | null = null;
  /** The metrics pipeline's sample columns per metric, refilled at each observation. */
  readonly columns = new Map<string, SampleColumns>();
  /** The metrics pipeline's usage of the members, for the list `views` was. */
  usage: EntryUsage | null = null;

  constructor(
    readonly namespace: string,
    readonly selector: import("../api/selector.js").Selector,
  ) {}

  memberList(): readonly PodRecord[] {
    this.records ??= [...this.members];
    return this.records;
  }

  /** The members' views, frozen: the calculator then trusts its per-list cache without a check. */
  podViews(): readonly PodView[] {
    if (this.views === null) {
      const views: PodView[] = [];
      for (const pod of this.members) views.push(pod.view);
      this.views = Object.freeze(views);
    }
    return this.views;
  }
}

/** `namespace/Kind/name` of a scale target. */
export function refKey(namespace: string, ref: CrossVersionObjectReference): string {
  return `${namespace}/${ref.kind}/${ref.name}`;
}
