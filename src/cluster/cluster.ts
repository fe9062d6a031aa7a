// The embedded cluster on a virtual clock: an object store, the workload controllers
// (Deployment → ReplicaSet → Pod, StatefulSet, ReplicationController), pod lifecycles played as
// data, load and usage models, and a metrics pipeline like metrics-server's. `advanceTo` runs
// everything due up to a time; the controller talks to it through in-process port adapters.
// It plays a ClusterModel and knows nothing of scenarios: src/sim maps a Scenario onto the
// model and applies the scenario's events through the primitives below.
import type { KubeObject, LabelSelector } from "../api/types.js";
import type { ControllerPorts } from "../controller/ports.js";
import { jsonEqual } from "../core/json.js";
import type { PodView } from "../core/pods.js";
import { type Selector, selectorMatches } from "../core/selector.js";
import {
  type ClusterModel,
  type PodLifecycleModel,
  type TrafficModel,
  type UsageModel,
  type WorkloadModel,
  type WorkloadRef,
  workloadKey,
} from "./cluster-model.js";
import { applyWorkloadDefaults } from "./defaults.js";
import {
  DEFAULT_POD_GRACE_SECONDS,
  deleteFromStore,
  GarbageCollector,
  namespaceTerminating,
} from "./gc.js";
import { TimerHeap } from "./heap.js";
import { ServiceLoads } from "./load.js";
import { MetricsPipeline } from "./metrics.js";
import {
  type PodOwner as Owner,
  PodOwner,
  PodRecord,
  parseTemplate,
  ScrapeRing,
  SelectorEntry,
  type TemplateInfo,
  Workload,
} from "./model.js";
import { createPorts } from "./ports.js";
import {
  hashString,
  noise,
  randomSuffix,
  safeEncode,
  stableStringify,
  streamSeed,
} from "./random.js";
import {
  byCreation,
  compareVictims,
  deletionCostOf,
  newReplicaSetReplicas,
  proportionalSizes,
  type ReplicaSetInfo,
  resolveFenceposts,
  scaleDownOld,
  type VictimInfo,
} from "./rollout.js";
import { ObjectStore, type WatchEvent } from "./store.js";
import { rfc3339, truncateToSecond } from "./time.js";
import { trafficAt } from "./traffic.js";
import { cpuModel, cpuModelUniform, servedPerPod } from "./usage.js";

export interface ClusterOptions {
  model: ClusterModel;
  /** Epoch ms of virtual t = 0. */
  startTime: number;
  /**
   * A store to run on instead of a new empty one (`horizon up --data-dir` restores one from
   * disk); the workload controllers take up the objects it already holds.
   */
  store?: ObjectStore;
}

/** What the timeline samples record for one workload at the current time. */
export interface WorkloadSnapshot {
  demandRps: number;
  servedRps: number;
  specReplicas: number;
  /** Pods that exist and are not terminating (nor failed). */
  pods: number;
  readyPods: number;
  /** Mean CPU usage of ready pods as a percentage of their requests (ratio of sums); null without requests. */
  cpuUtilization: number | null;
  metrics: Record<string, number>;
}

/** For pods of workloads the scenario does not model, and bare pods. */
export const DEFAULT_LIFECYCLE: PodLifecycleModel = {
  schedulingDelayMs: 0,
  containerStartDelayMs: 0,
  readinessDelayMs: 0,
  terminationGracePeriodMs: 0,
  startupCpuBurst: null,
  failureProbability: 0,
};

/** Workloads no scenario models (created by clients of `horizon up`) idle at a small baseline. */
export const DEFAULT_USAGE: UsageModel = {
  cpu: { baseMilli: 5, milliPerRps: 1, limitMilli: null },
  memory: { baseBytes: 32 * 1024 * 1024, bytesPerRps: 0 },
  capacityRps: null,
  jitter: 0,
};

/** Failed pods are collected after this long (upstream's PodGC keeps up to 12,500 terminated pods). */
export const FAILED_POD_TTL_MS = 5 * 60_000;

const NODE_NAME = "horizon-node";
const POD_TEMPLATE_HASH = "pod-template-hash";
const REVISION = "deployment.kubernetes.io/revision";
const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
const CONTROLLER_REVISION_HASH = "controller-revision-hash";
const WORKLOAD_KINDS = new Set([
  "Deployment",
  "StatefulSet",
  "ReplicaSet",
  "ReplicationController",
]);

interface DeploymentSpec {
  replicas?: number;
  paused?: boolean;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  selector?: LabelSelector;
  template?: unknown;
  strategy?: {
    type?: string;
    rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
  };
}

interface PodTimer {
  pod: PodRecord;
  token: number;
}

export class EmbeddedCluster {
  readonly store: ObjectStore;
  readonly model: ClusterModel;
  readonly startTime: number;
  /** The virtual time everything has run up to (epoch ms). */
  now: number;

  readonly #heap = new TimerHeap<PodTimer>();
  /** The runner passes the same ref objects every time: skip building the key. */
  readonly #byRef = new WeakMap<WorkloadRef, Workload>();
  readonly #workloads = new Map<string, Workload>();
  readonly #owners = new Map<string, PodOwner>();
  readonly #pods = new Map<string, PodRecord>();
  readonly #podsByNamespace = new Map<string, Set<PodRecord>>();
  readonly #entries = new Map<string, Map<string, SelectorEntry>>();
  readonly #dirtyWorkloads = new Set<Workload>();
  readonly #dirtyOwners = new Set<PodOwner>();
  readonly #incarnations = new Map<string, number>();
  readonly #waiting: PodRecord[] = [];
  /** Pods others marked for deletion, whose status is still to be written. */
  readonly #markedPods = new Set<PodRecord>();
  #bound = 0;
  #writing = 0;
  #reconciling = false;
  readonly metrics: MetricsPipeline;
  /** The garbage collector and namespace controller (ownerReferences, finalizers, namespace deletion). */
  readonly gc: GarbageCollector;
  /** Load driven at Services (`horizon load`), added to the traffic of the workloads they select. */
  readonly #loads: ServiceLoads;

  constructor(options: ClusterOptions) {
    this.model = options.model;
    this.startTime = options.startTime;
    this.now = options.startTime;
    this.store = options.store ?? new ObjectStore({ now: () => this.now });
    this.#loads = new ServiceLoads(options.startTime);
    this.metrics = new MetricsPipeline(this);
    this.gc = new GarbageCollector({ store: this.store, now: () => this.now });
    this.store.watch((event) => this.#onStoreEvent(event));
    if (options.store) this.#restore();
  }

  /**
   * Takes up a store that already holds objects (`horizon up --data-dir` restarted), as a
   * restarted control plane finds its node's pods still running: workloads, their ReplicaSets
   * and pods are played on from the stage their stored status shows, so nothing unchanged is
   * written again. Terminating pods finish at once, as do pods whose controller is gone.
   */
  #restore(): void {
    const objects = [...this.store.objects()];
    const rank = (o: KubeObject) =>
      o.kind === "Deployment" ? 0 : WORKLOAD_KINDS.has(o.kind) ? 1 : o.kind === "Pod" ? 2 : 3;
    objects.sort((a, b) => rank(a) - rank(b));
    for (const object of objects) {
      if (object.kind === "Pod") this.#restorePod(object);
      else if (object.kind === "ReplicaSet" && this.#restoreReplicaSet(object)) continue;
      else this.#onStoreEvent({ type: "ADDED", object });
    }
  }

  /** A ReplicaSet the deployment controller made joins its Deployment's records. */
  #restoreReplicaSet(object: KubeObject): boolean {
    const ref = object.metadata.ownerReferences?.find((r) => r.controller);
    if (ref?.kind !== "Deployment") return false;
    const namespace = object.metadata.namespace ?? "default";
    const workload = this.#workloads.get(`${namespace}/Deployment/${ref.name}`);
    const hash = object.metadata.labels?.[POD_TEMPLATE_HASH];
    if (!workload || workload.obj.metadata.uid !== ref.uid || hash === undefined) {
      // Its Deployment is gone: the ReplicaSet goes too (the garbage collector's work).
      this.#write(() => this.store.delete("ReplicaSet", namespace, object.metadata.name));
      return true;
    }
    const spec = object.spec as { template?: unknown };
    const owner = new PodOwner(
      "ReplicaSet",
      namespace,
      object.metadata.name,
      object,
      workload,
      parseTemplate(spec.template),
      hash,
      streamSeed(this.model.seed, `names/${namespace}/ReplicaSet/${object.metadata.name}`),
      Date.parse(object.metadata.creationTimestamp ?? "") || truncateToSecond(this.now),
    );
    workload.owners.push(owner);
    workload.revision = Math.max(workload.revision, revisionOf(owner));
    this.#owners.set(owner.key, owner);
    this.#dirtyOwners.add(owner);
    this.#dirtyWorkloads.add(workload);
    return true;
  }

  /** A stored pod, played on from the stage its status shows. */
  #restorePod(object: KubeObject): void {
    const namespace = object.metadata.namespace ?? "default";
    const ref = object.metadata.ownerReferences?.find((r) => r.controller);
    const owner = ref ? this.#owners.get(`${namespace}/${ref.kind}/${ref.name}`) : undefined;
    const orphaned =
      ref !== undefined &&
      ["ReplicaSet", "StatefulSet", "ReplicationController"].includes(ref.kind) &&
      (!owner || owner.obj.metadata.uid !== ref.uid);
    if (object.metadata.deletionTimestamp !== undefined || orphaned) {
      this.#write(() => this.store.delete("Pod", namespace, object.metadata.name));
      return;
    }
    const played = owner && owner.obj.metadata.uid === ref?.uid ? owner : null;
    const workload = played?.workload ?? null;
    const revisionLabel = object.metadata.labels?.[CONTROLLER_REVISION_HASH];
    const revision =
      played?.kind === "StatefulSet"
        ? (revisionLabel?.slice(played.name.length + 1) ?? "")
        : (played?.templateHash ?? "");
    const ordinal =
      played?.kind === "StatefulSet"
        ? Number(object.metadata.name.slice(played.name.length + 1))
        : -1;
    const record = this.#newPodRecord(
      object,
      played,
      workload,
      parseTemplate({ metadata: object.metadata, spec: object.spec }),
      workload?.lifecycle ?? DEFAULT_LIFECYCLE,
      workload?.usage ?? DEFAULT_USAGE,
      Number.isInteger(ordinal) ? ordinal : -1,
      revision,
      Date.parse(object.metadata.creationTimestamp ?? "") || truncateToSecond(this.now),
    );
    const due = this.#restoreStage(record, object);
    record.view = this.#buildView(record);
    if (played) played.pods.add(record);
    this.#track(record, namespace);
    this.#countStage(record, null);
    if (played) this.#dirtyOwners.add(played);
    if (due !== null) this.#schedulePodTimer(record, Math.max(this.now, due));
  }

  /** Sets a restored pod's stage and timestamps from its stored status; when its next stage is due. */
  #restoreStage(pod: PodRecord, object: KubeObject): number | null {
    const status = (object.status ?? {}) as {
      phase?: string;
      startTime?: string;
      conditions?: { type?: string; status?: string; lastTransitionTime?: string }[];
      containerStatuses?: {
        state?: { running?: { startedAt?: string }; terminated?: { finishedAt?: string } };
      }[];
    };
    const time = (text: string | undefined) => {
      const ms = Date.parse(text ?? "");
      return Number.isFinite(ms) ? ms : null;
    };
    const state = status.containerStatuses?.[0]?.state;
    const lifecycle = pod.lifecycle;
    if (status.phase === "Failed") {
      pod.stage = "failed";
      pod.scheduledAt = time(status.startTime);
      pod.failedAt = time(state?.terminated?.finishedAt) ?? this.now;
      pod.readyCondition = {
        status: "False",
        time:
          time(status.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime) ??
          truncateToSecond(this.now),
      };
      return pod.failedAt + FAILED_POD_TTL_MS;
    }
    const scheduledAt = time(status.startTime);
    if (scheduledAt === null) {
      // Not bound yet: the scheduler takes it up again (capacity permitting).
      pod.stage = "waiting";
      return pod.createdAt + lifecycle.schedulingDelayMs;
    }
    pod.bound = true;
    this.#bound++;
    pod.scheduledAt = scheduledAt;
    const ready = status.conditions?.find((c) => c.type === "Ready");
    const readyTime = time(ready?.lastTransitionTime) ?? truncateToSecond(scheduledAt);
    pod.readyCondition = { status: ready?.status === "True" ? "True" : "False", time: readyTime };
    const runningAt = time(state?.running?.startedAt);
    if (runningAt === null) {
      pod.stage = "creating";
      return scheduledAt + lifecycle.containerStartDelayMs;
    }
    pod.runningAt = runningAt;
    if (lifecycle.startupCpuBurst && pod.workload) pod.workload.bursting.push(pod);
    if (ready?.status !== "True") {
      pod.stage = "running";
      return runningAt + lifecycle.readinessDelayMs;
    }
    pod.stage = "ready";
    pod.readyAt = readyTime;
    const availableAt = readyTime + ownerMinReadyMs(pod.owner);
    pod.available = availableAt <= this.now;
    return pod.available ? null : availableAt;
  }

  // ---------------------------------------------------------------------------------------
  // Public API

  /** Creates a manifest (defaulted as the API server would); workload controllers react at once. */
  create(object: KubeObject): void {
    this.store.create(applyWorkloadDefaults(object));
    this.#reconcile();
  }

  /** Runs everything due up to `t` (epoch ms): pod stages, controllers, metrics scrapes. */
  advanceTo(t: number): void {
    for (;;) {
      const next = Math.min(this.#heap.peekAt(), this.metrics.nextScrapeAt);
      if (next > t) break;
      if (next > this.now) this.now = next;
      while (this.#heap.peekAt() <= next) {
        const timer = this.#heap.pop()!;
        const { pod, token } = timer.value;
        if (pod.token === token) this.#podTimer(pod);
      }
      this.#reconcile();
      if (this.metrics.nextScrapeAt <= next) this.metrics.scrape(this.metrics.nextScrapeAt);
    }
    if (t > this.now) this.now = t;
  }

  /**
   * Lets the workload controllers react now to writes others made through the store (the API
   * server's clients), instead of at the next due timer.
   */
  reconcile(): void {
    this.#reconcile();
  }

  /** The next virtual time at which something is due, or Infinity. */
  nextDueTime(): number {
    return Math.min(this.#heap.peekAt(), this.metrics.nextScrapeAt);
  }

  /** Writes an object as a client would (store.update); workload controllers react at once. */
  update(object: KubeObject): KubeObject {
    const updated = this.store.update(object);
    this.#reconcile();
    return updated;
  }

  /** Replaces a modelled workload's traffic from now on (Services' loads still add to it). */
  setTraffic(ref: WorkloadRef, traffic: TrafficModel[]): void {
    const workload = this.#workloads.get(workloadKey(ref));
    if (!workload) return;
    workload.traffic = traffic;
    this.#applyLoads(workload);
  }

  /** Deletes pods as a controller does (graceful, default DeleteOptions); controllers react. */
  deletePods(pods: readonly PodRecord[]): void {
    for (const pod of pods) this.#deletePod(pod);
    this.#reconcile();
  }

  /** In-process adapters of the controller's ports. */
  ports(): Omit<ControllerPorts, "clock"> {
    return createPorts(this);
  }

  snapshot(ref: WorkloadRef): WorkloadSnapshot {
    let workload = this.#byRef.get(ref);
    if (!workload || this.#workloads.get(workload.key) !== workload) {
      workload = this.#workloads.get(workloadKey(ref));
      if (workload) this.#byRef.set(ref, workload);
    }
    if (!workload) {
      return {
        demandRps: 0,
        servedRps: 0,
        specReplicas: 0,
        pods: 0,
        readyPods: 0,
        cpuUtilization: null,
        metrics: {},
      };
    }
    const t = this.now;
    const demand = trafficAt(workload.traffic, t - this.startTime);
    const ready = workload.readyCount();
    const perPod = servedPerPod(demand, ready, workload.usage.capacityRps);
    // Every ready pod serves the same share; only pods in their startup burst use more.
    const uniform = cpuModelUniform(workload.usage, perPod);
    let usage = 0;
    let requests = 0;
    for (const owner of workload.owners) {
      const request = owner.template.cpuRequestMilli;
      if (request === null || owner.ready === 0) continue;
      usage += uniform * owner.ready;
      requests += request * owner.ready;
    }
    const bursting = workload.bursting;
    if (bursting.length > 0) {
      const burst = workload.lifecycle.startupCpuBurst;
      let kept = 0;
      for (const pod of bursting) {
        if (pod.stage === "gone" || !burst || t >= pod.runningAt! + burst.durationMs) continue;
        bursting[kept++] = pod;
        if (pod.isReady && pod.template.cpuRequestMilli !== null)
          usage += cpuModel(pod, perPod, t) - uniform;
      }
      bursting.length = kept;
    }
    return {
      demandRps: demand,
      servedRps: perPod * ready,
      specReplicas: ((workload.obj.spec as { replicas?: number }).replicas ?? 1) as number,
      pods: workload.activeCount(),
      readyPods: ready,
      cpuUtilization: requests > 0 ? (usage * 100) / requests : null,
      metrics: this.metrics.workloadMetrics(workload),
    };
  }

  // ---------------------------------------------------------------------------------------
  // Read access for the ports and the metrics pipeline

  workload(namespace: string, kind: string, name: string): Workload | undefined {
    return this.#workloads.get(`${namespace}/${kind}/${name}`);
  }

  workloads(): IterableIterator<Workload> {
    return this.#workloads.values();
  }

  workloadOf(ref: WorkloadRef): Workload | undefined {
    return this.#workloads.get(workloadKey(ref));
  }

  /** The pods of a namespace matching a selector, kept as a live index entry. */
  selectorEntry(namespace: string, selector: Selector): SelectorEntry {
    let byText = this.#entries.get(namespace);
    if (!byText) {
      byText = new Map();
      this.#entries.set(namespace, byText);
    }
    let entry = byText.get(selector.text);
    if (!entry) {
      entry = new SelectorEntry(namespace, selector);
      for (const pod of this.#podsByNamespace.get(namespace) ?? []) {
        if (selectorMatches(selector, pod.view.labels)) {
          entry.members.add(pod);
          pod.entries.push(entry);
        }
      }
      byText.set(selector.text, entry);
    }
    return entry;
  }

  listPods(namespace: string, selector: Selector): readonly PodView[] {
    return this.selectorEntry(namespace, selector).podViews();
  }

  /** Set by the API server: metadata.managedFields after a write of spec.replicas through scale. */
  scaleManagedFields: ((current: KubeObject, replicas: number) => unknown) | null = null;

  /** Sets spec.replicas of a scalable workload (scale subresource / kubectl scale). */
  scaleWorkload(
    namespace: string,
    kind: string,
    name: string,
    replicas: number,
  ): KubeObject | undefined {
    const current = this.store.get(kind, namespace, name);
    if (!current) return undefined;
    // The API server's field ownership of spec.replicas (server-side apply's scale handler).
    const managedFields = this.scaleManagedFields?.(current, replicas);
    const updated = this.#write(() =>
      this.store.update({
        ...current,
        metadata: {
          ...current.metadata,
          resourceVersion: undefined,
          ...(managedFields !== undefined ? { managedFields } : {}),
        },
        spec: { ...(current.spec as object), replicas },
      }),
    );
    this.#workloadChanged(updated);
    this.#reconcile();
    return updated;
  }

  // ---------------------------------------------------------------------------------------
  // Store events written by others (the API server later): keep the records in step

  #onStoreEvent(event: WatchEvent): void {
    if (this.#writing > 0) return;
    const object = event.object;
    if (WORKLOAD_KINDS.has(object.kind)) {
      if (event.type === "DELETED") this.#workloadDeleted(object);
      else this.#workloadChanged(object);
    } else if (object.kind === "Pod") {
      const namespace = object.metadata.namespace ?? "default";
      const existing = this.#pods.get(`${namespace}/${object.metadata.name}`);
      if (event.type === "DELETED" && existing) this.#forgetPod(existing);
      else if (event.type === "ADDED" && !existing) this.#adoptBarePod(object);
      else if (event.type === "MODIFIED" && existing) {
        existing.obj = object;
        if (object.metadata.deletionTimestamp) this.#podMarked(existing, object);
      }
    } else if (object.kind === "Service") {
      if (this.#loads.update(event.type, object)) {
        for (const workload of this.#workloads.values()) this.#applyLoads(workload);
      }
    }
  }

  /** The workload's traffic: its own models plus the loads of the Services selecting its pods. */
  #applyLoads(workload: Workload): void {
    const template = (workload.obj.spec as { template?: { metadata?: { labels?: object } } })
      ?.template;
    const labels = (template?.metadata?.labels ?? {}) as Record<string, string>;
    workload.traffic = this.#loads.withLoads(workload.traffic, workload.namespace, labels);
  }

  #workloadChanged(object: KubeObject): void {
    const kind = object.kind as Workload["kind"];
    const namespace = object.metadata.namespace ?? "default";
    // ReplicaSets a Deployment owns (or owned, when orphaned) are the Deployment's records.
    const played = this.#owners.get(`${namespace}/${kind}/${object.metadata.name}`);
    if (
      kind === "ReplicaSet" &&
      (object.metadata.ownerReferences?.some((r) => r.controller) ||
        played?.workload.kind === "Deployment")
    ) {
      const owner = played;
      if (owner) {
        owner.obj = object;
        this.#dirtyOwners.add(owner);
      }
      return;
    }
    const key = `${namespace}/${kind}/${object.metadata.name}`;
    let workload = this.#workloads.get(key);
    if (!workload) {
      workload = this.#newWorkload(kind, namespace, object);
      this.#workloads.set(key, workload);
    }
    workload.obj = object;
    const spec = object.spec as DeploymentSpec;
    if (kind === "Deployment") {
      workload.templateHash = templateHash(spec.template);
    } else {
      let owner = workload.owners[0];
      if (!owner) {
        owner = new PodOwner(
          kind,
          namespace,
          object.metadata.name,
          object,
          workload,
          parseTemplate(spec.template),
          templateHash(spec.template),
          streamSeed(this.model.seed, `names/${key}`),
          Date.parse(object.metadata.creationTimestamp ?? "") || this.now,
        );
        workload.owners.push(owner);
        this.#owners.set(key, owner);
      } else {
        owner.obj = object;
        const hash = templateHash(spec.template);
        if (hash !== owner.templateHash) {
          owner.templateHash = hash;
          owner.template = parseTemplate(spec.template);
        }
      }
      this.#dirtyOwners.add(owner);
    }
    this.#dirtyWorkloads.add(workload);
    this.#applyLoads(workload);
  }

  #newWorkload(kind: Workload["kind"], namespace: string, object: KubeObject): Workload {
    const name = object.metadata.name;
    const model: WorkloadModel | undefined = this.model.workloads.find(
      (w) => w.target.kind === kind && w.target.name === name && w.target.namespace === namespace,
    );
    const workload = new Workload(
      kind,
      namespace,
      name,
      object,
      model?.pod ?? DEFAULT_LIFECYCLE,
      model?.usage ?? DEFAULT_USAGE,
      model?.traffic ?? [],
      new ScrapeRing(this.metrics.ringSize),
      streamSeed(this.model.seed, `workload/${namespace}/${kind}/${name}`),
    );
    this.metrics.attach(workload);
    return workload;
  }

  /**
   * A workload left the store: its records go, but not its ReplicaSets or pods, which the
   * garbage collector deletes through their ownerReferences (or keeps, when orphaned).
   */
  #workloadDeleted(object: KubeObject): void {
    const namespace = object.metadata.namespace ?? "default";
    const key = `${namespace}/${object.kind}/${object.metadata.name}`;
    const owner = this.#owners.get(key);
    if (owner) {
      this.#owners.delete(key);
      this.#dirtyOwners.delete(owner);
      const owners = owner.workload.owners;
      if (owners.includes(owner)) owners.splice(owners.indexOf(owner), 1);
      if (this.#workloads.get(owner.workload.key) === owner.workload)
        this.#dirtyWorkloads.add(owner.workload);
    }
    const workload = this.#workloads.get(key);
    if (!workload) return;
    this.#workloads.delete(key);
    this.#dirtyWorkloads.delete(workload);
  }

  // ---------------------------------------------------------------------------------------
  // Controllers

  #reconcile(): void {
    if (this.#reconciling) return;
    this.#reconciling = true;
    try {
      for (let round = 0; round < 100; round++) {
        // The garbage collector's deletes and the pods' deletion marks come first.
        this.gc.process();
        this.#flushMarkedPods();
        if (this.#dirtyWorkloads.size === 0 && this.#dirtyOwners.size === 0 && !this.gc.pending)
          break;
        const workloads = [...this.#dirtyWorkloads];
        this.#dirtyWorkloads.clear();
        for (const workload of workloads) {
          // A deleted Deployment's records may still be referenced by its (orphaned) ReplicaSets.
          if (this.#workloads.get(workload.key) !== workload) continue;
          if (workload.kind === "Deployment") this.#reconcileDeployment(workload);
        }
        const owners = [...this.#dirtyOwners];
        this.#dirtyOwners.clear();
        for (const owner of owners) {
          if (this.#owners.get(owner.key) !== owner) continue;
          if (owner.kind === "StatefulSet") this.#reconcileStatefulSet(owner);
          else this.#reconcileReplicaSet(owner);
        }
      }
    } finally {
      this.#reconciling = false;
    }
  }

  /** The deployment controller's sync: scaling event → proportional scale, else a rollout step. */
  #reconcileDeployment(workload: Workload): void {
    const spec = workload.obj.spec as DeploymentSpec;
    const replicas = spec.replicas ?? 1;
    const rolling = spec.strategy?.type !== "Recreate";
    const fence = resolveFenceposts(
      spec.strategy?.rollingUpdate?.maxSurge,
      spec.strategy?.rollingUpdate?.maxUnavailable,
      replicas,
    );
    const maxSurge = rolling ? fence.surge : 0;
    const maxUnavailable = rolling && replicas > 0 ? Math.min(fence.unavailable, replicas) : 0;
    const params = { replicas, maxSurge, maxUnavailable };
    const annotations = {
      [DESIRED_REPLICAS]: String(replicas),
      [MAX_REPLICAS]: String(replicas + maxSurge),
    };

    // FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's.
    let newRs = workload.owners.find((o) => o.templateHash === workload.templateHash) ?? null;
    const olds = workload.owners.filter((o) => o !== newRs);
    // A Deployment being deleted only has its status synced (syncStatusOnly); nothing new can
    // be created in a terminating namespace.
    if (
      workload.obj.metadata.deletionTimestamp ||
      namespaceTerminating(this.store, workload.namespace)
    ) {
      this.#writeDeploymentStatus(workload, newRs);
      return;
    }

    const scalingEvent = workload.owners.some((o) => {
      if (o.specReplicas === 0) return false;
      const desired = o.obj.metadata.annotations?.[DESIRED_REPLICAS];
      return desired !== undefined && Number(desired) !== replicas;
    });
    if (spec.paused || scalingEvent) {
      this.#scaleDeployment(workload, newRs, olds, params, annotations);
    } else if (!rolling) {
      // Recreate: old ReplicaSets to zero, and the new one only once no old pod is left.
      let oldPods = false;
      for (const old of olds) {
        if (old.specReplicas > 0) this.#scaleReplicaSet(old, 0, annotations, false);
        for (const pod of old.pods) if (pod.stage !== "failed") oldPods = true;
      }
      if (!oldPods) {
        if (!newRs) newRs = this.#createReplicaSet(workload, replicas, annotations);
        else if (newRs.specReplicas !== replicas)
          this.#scaleReplicaSet(newRs, replicas, annotations, false);
      }
    } else {
      const allSpec = workload.owners.reduce((n, o) => n + o.specReplicas, 0);
      if (!newRs) {
        newRs = this.#createReplicaSet(
          workload,
          newReplicaSetReplicas(params, allSpec, 0),
          annotations,
        );
      } else if (newRs.specReplicas > replicas) {
        this.#scaleReplicaSet(newRs, replicas, annotations, false);
      } else if (newRs.specReplicas < replicas) {
        const size = newReplicaSetReplicas(params, allSpec, newRs.specReplicas);
        if (size !== newRs.specReplicas) this.#scaleReplicaSet(newRs, size, annotations, false);
      }
      const sizes = scaleDownOld(
        params,
        rsInfo(newRs),
        olds.map((o) => rsInfo(o)!),
      );
      for (const old of olds) {
        const size = sizes.get(old.name)!;
        if (size !== old.specReplicas) this.#scaleReplicaSet(old, size, annotations, false);
      }
    }
    this.#cleanupDeployment(workload, spec.revisionHistoryLimit ?? 10, newRs);
    this.#writeDeploymentStatus(workload, newRs);
  }

  /** The deployment controller's `scale`: resize the active ReplicaSets proportionally. */
  #scaleDeployment(
    workload: Workload,
    newRs: PodOwner | null,
    olds: PodOwner[],
    params: { replicas: number; maxSurge: number },
    annotations: Record<string, string>,
  ): void {
    const all = newRs ? [...olds, newRs] : [...olds];
    const active = all.filter((o) => o.specReplicas > 0);
    if (active.length <= 1) {
      // FindActiveOrLatest: the only active one, else the new one, else the newest old one.
      const newestOld = [...olds].sort((a, b) => byCreation(rsInfo(b)!, rsInfo(a)!))[0];
      const target = active[0] ?? newRs ?? newestOld;
      if (target && target.specReplicas !== params.replicas) {
        this.#scaleReplicaSet(target, params.replicas, annotations, false);
      }
      return;
    }
    const saturated =
      newRs !== null &&
      newRs.obj.metadata.annotations?.[DESIRED_REPLICAS] === String(params.replicas) &&
      newRs.available === params.replicas &&
      newRs.specReplicas === params.replicas;
    if (saturated) {
      for (const old of olds)
        if (old.specReplicas > 0) this.#scaleReplicaSet(old, 0, annotations, false);
      return;
    }
    if ((workload.obj.spec as DeploymentSpec).strategy?.type === "Recreate") return;
    const status = workload.obj.status as { replicas?: number } | undefined;
    const sizes = proportionalSizes({
      replicas: params.replicas,
      maxSurge: params.maxSurge,
      statusReplicas: status?.replicas ?? 0,
      active: active.map((o) => rsInfo(o)!),
    });
    for (const owner of active)
      this.#scaleReplicaSet(owner, sizes.get(owner.name)!, annotations, true);
  }

  #createReplicaSet(
    workload: Workload,
    replicas: number,
    annotations: Record<string, string>,
  ): PodOwner {
    const d = workload.obj;
    const spec = d.spec as DeploymentSpec;
    const template = (spec.template ?? {}) as { metadata?: KubeObject["metadata"]; spec?: unknown };
    const hash = workload.templateHash;
    const labels = { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const selector: LabelSelector = {
      ...(spec.selector ?? {}),
      matchLabels: { ...(spec.selector?.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash },
    };
    const rsTemplate = { ...template, metadata: { ...(template.metadata ?? {}), labels } };
    const name = `${workload.name}-${hash}`;
    const adopted = this.#adoptReplicaSet(workload, name);
    if (adopted) return adopted;
    workload.revision = Math.max(workload.revision, ...workload.owners.map(revisionOf)) + 1;
    const object = this.#write(() =>
      this.store.create({
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          name,
          namespace: workload.namespace,
          labels,
          annotations: { ...annotations, [REVISION]: String(workload.revision) },
          ownerReferences: [
            {
              apiVersion: "apps/v1",
              kind: "Deployment",
              name: workload.name,
              uid: d.metadata.uid ?? "",
              controller: true,
              blockOwnerDeletion: true,
            } as NonNullable<KubeObject["metadata"]["ownerReferences"]>[number],
          ],
        },
        spec: {
          replicas,
          minReadySeconds: spec.minReadySeconds ?? 0,
          selector,
          template: rsTemplate,
        },
      }),
    );
    const owner = new PodOwner(
      "ReplicaSet",
      workload.namespace,
      name,
      object,
      workload,
      parseTemplate(rsTemplate),
      hash,
      streamSeed(this.model.seed, `names/${workload.namespace}/ReplicaSet/${name}`),
      Date.parse(object.metadata.creationTimestamp ?? "") || truncateToSecond(this.now),
    );
    workload.owners.push(owner);
    this.#owners.set(owner.key, owner);
    this.#dirtyOwners.add(owner);
    return owner;
  }

  /**
   * A ReplicaSet of this template left by an orphaning delete joins the re-created Deployment
   * (the ControllerRefManager's adoption) instead of a second one being created.
   */
  #adoptReplicaSet(workload: Workload, name: string): PodOwner | null {
    const key = `${workload.namespace}/ReplicaSet/${name}`;
    const owner = this.#owners.get(key);
    const stored = this.store.get("ReplicaSet", workload.namespace, name);
    if (!owner || !stored || stored.metadata.deletionTimestamp) return null;
    const standalone = this.#workloads.get(key);
    if (standalone && standalone !== workload) {
      this.#workloads.delete(key);
      this.#dirtyWorkloads.delete(standalone);
    }
    const ref = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: workload.name,
      uid: workload.obj.metadata.uid ?? "",
      controller: true,
      blockOwnerDeletion: true,
    } as NonNullable<KubeObject["metadata"]["ownerReferences"]>[number];
    owner.obj = this.#write(() =>
      this.store.update({
        ...stored,
        metadata: { ...stored.metadata, resourceVersion: undefined, ownerReferences: [ref] },
      }),
    );
    if (!workload.owners.includes(owner)) workload.owners.push(owner);
    this.#dirtyOwners.add(owner);
    return owner;
  }

  #scaleReplicaSet(
    owner: PodOwner,
    replicas: number,
    annotations: Record<string, string>,
    updateAnnotations: boolean,
  ): void {
    const current = owner.obj.metadata.annotations ?? {};
    const annotate =
      current[DESIRED_REPLICAS] !== annotations[DESIRED_REPLICAS] ||
      current[MAX_REPLICAS] !== annotations[MAX_REPLICAS];
    if (owner.specReplicas === replicas && !(updateAnnotations && annotate)) return;
    const object = owner.obj;
    owner.obj = this.#write(() =>
      this.store.update({
        ...object,
        metadata: {
          ...object.metadata,
          resourceVersion: undefined,
          annotations: { ...current, ...annotations },
        },
        spec: { ...(object.spec as object), replicas },
      }),
    );
    this.#dirtyOwners.add(owner);
  }

  /** Old ReplicaSets beyond revisionHistoryLimit go once they are empty. */
  #cleanupDeployment(workload: Workload, limit: number, newRs: PodOwner | null): void {
    const olds = workload.owners.filter((o) => o !== newRs);
    const excess = olds.length - limit;
    if (excess <= 0) return;
    olds.sort((a, b) => byCreation(rsInfo(a)!, rsInfo(b)!));
    let removed = 0;
    for (const old of olds) {
      if (removed >= excess) break;
      if (old.specReplicas !== 0 || old.pods.size !== 0) continue;
      this.#write(() => this.store.delete("ReplicaSet", old.namespace, old.name));
      this.#owners.delete(old.key);
      workload.owners.splice(workload.owners.indexOf(old), 1);
      removed++;
    }
  }

  #writeDeploymentStatus(workload: Workload, newRs: PodOwner | null): void {
    let replicas = 0;
    let ready = 0;
    let available = 0;
    let specTotal = 0;
    for (const owner of workload.owners) {
      replicas += owner.active;
      ready += owner.ready;
      available += owner.available;
      specTotal += owner.specReplicas;
    }
    const status = {
      observedGeneration: workload.obj.metadata.generation ?? 1,
      replicas,
      updatedReplicas: newRs?.active ?? 0,
      readyReplicas: ready,
      availableReplicas: available,
      unavailableReplicas: Math.max(0, specTotal - available),
    };
    this.#writeStatus(workload, status);
  }

  #writeStatus(target: { obj: KubeObject }, status: unknown): void {
    if (jsonEqual(target.obj.status, status)) return;
    const { kind, metadata } = target.obj;
    target.obj = this.#write(() =>
      this.store.updateStatus(kind, metadata.namespace ?? "default", metadata.name, status),
    );
  }

  /** The ReplicaSet / ReplicationController controller: create or delete pods to match spec.replicas. */
  #reconcileReplicaSet(owner: PodOwner): void {
    const desired = owner.specReplicas;
    // One being deleted manages no replicas; a terminating namespace takes no new pods.
    const deleting = owner.obj.metadata.deletionTimestamp !== undefined;
    const diff = deleting ? 0 : owner.active - desired;
    if (diff < 0) {
      if (!namespaceTerminating(this.store, owner.namespace))
        for (let i = 0; i < -diff; i++) this.#createPod(owner, -1);
    } else if (diff > 0) {
      const active = [...owner.pods].filter((p) => p.active);
      const now = this.now;
      const ranked = active.map((pod) => ({ pod, info: victimInfo(pod) }));
      ranked.sort((a, b) => compareVictims(a.info, b.info, now));
      for (let i = 0; i < diff; i++) this.#deletePod(ranked[i]!.pod);
    }
    const before = owner.obj.status as
      | { availableReplicas?: number; replicas?: number }
      | undefined;
    this.#writeStatus(owner, {
      replicas: owner.active,
      fullyLabeledReplicas: owner.active,
      readyReplicas: owner.ready,
      availableReplicas: owner.available,
      observedGeneration: owner.obj.metadata.generation ?? 1,
    });
    const after = owner.obj.status;
    if (owner.workload.kind === "Deployment" && before !== after) {
      this.#dirtyWorkloads.add(owner.workload);
    }
  }

  /**
   * The StatefulSet controller: pods `name-0..N-1`; with OrderedReady, pod N is created only
   * once pods 0..N-1 are Running and Ready, and scale-down removes the highest ordinal first,
   * one at a time. A changed template replaces pods from the highest ordinal down.
   */
  #reconcileStatefulSet(owner: PodOwner): void {
    const spec = owner.obj.spec as {
      replicas?: number;
      podManagementPolicy?: string;
      updateStrategy?: { type?: string };
    };
    const replicas = spec.replicas ?? 1;
    const parallel = spec.podManagementPolicy === "Parallel";
    // A StatefulSet being deleted manages no pods; a terminating namespace takes no new ones.
    const manage =
      owner.obj.metadata.deletionTimestamp === undefined &&
      !namespaceTerminating(this.store, owner.namespace);
    const byOrdinal = new Map<number, PodRecord>();
    for (const pod of owner.pods) {
      if (pod.stage === "failed") {
        // A failed pod is deleted and recreated (upstream's StatefulSet does the same).
        this.#removePod(pod);
        continue;
      }
      byOrdinal.set(pod.ordinal, pod);
    }
    let healthy = true;
    for (let ordinal = 0; ordinal < replicas; ordinal++) {
      const pod = byOrdinal.get(ordinal);
      if (!pod) {
        if ((healthy || parallel) && manage) this.#createPod(owner, ordinal);
        healthy = false;
        if (!parallel) break;
        continue;
      }
      if (!pod.isReady) {
        healthy = false;
        if (!parallel) break;
      }
    }
    const condemned = [...byOrdinal.values()]
      .filter((p) => p.ordinal >= replicas)
      .sort((a, b) => b.ordinal - a.ordinal);
    if (!manage) {
      // Left to the garbage collector.
    } else if (parallel) {
      for (const pod of condemned) if (pod.active) this.#deletePod(pod);
    } else if (condemned.length > 0 && healthy) {
      const terminating = condemned.some((p) => p.stage === "terminating");
      if (!terminating) this.#deletePod(condemned[0]!);
    }
    if (manage && condemned.length === 0 && healthy && spec.updateStrategy?.type !== "OnDelete") {
      const outdated = [...byOrdinal.values()]
        .filter((p) => p.ordinal < replicas && p.revision !== owner.templateHash)
        .sort((a, b) => b.ordinal - a.ordinal);
      const busy = [...byOrdinal.values()].some((p) => p.stage === "terminating");
      if (outdated.length > 0 && !busy) this.#deletePod(outdated[0]!);
    }
    let ready = 0;
    let current = 0;
    let available = 0;
    for (const pod of owner.pods) {
      if (pod.isReady) ready++;
      if (pod.available && pod.isReady) available++;
      if (pod.revision === owner.templateHash) current++;
    }
    this.#writeStatus(owner, {
      observedGeneration: owner.obj.metadata.generation ?? 1,
      replicas: owner.pods.size,
      readyReplicas: ready,
      currentReplicas: current,
      updatedReplicas: current,
      availableReplicas: available,
      currentRevision: `${owner.name}-${owner.templateHash}`,
      updateRevision: `${owner.name}-${owner.templateHash}`,
      collisionCount: 0,
    });
  }

  // ---------------------------------------------------------------------------------------
  // Pods

  #createPod(owner: PodOwner, ordinal: number): PodRecord {
    const namespace = owner.namespace;
    let name: string;
    if (owner.kind === "StatefulSet") name = `${owner.name}-${ordinal}`;
    else {
      do name = `${owner.name}-${randomSuffix(owner.names)}`;
      while (this.#pods.has(`${namespace}/${name}`));
    }
    const template = owner.template;
    const labels: Record<string, string> = { ...template.metadata.labels };
    if (owner.kind === "StatefulSet") {
      labels[CONTROLLER_REVISION_HASH] = `${owner.name}-${owner.templateHash}`;
      labels["statefulset.kubernetes.io/pod-name"] = name;
      labels["apps.kubernetes.io/pod-index"] = String(ordinal);
    }
    const metadata: KubeObject["metadata"] = {
      name,
      namespace,
      labels,
      ownerReferences: [
        {
          apiVersion: owner.kind === "ReplicationController" ? "v1" : "apps/v1",
          kind: owner.kind,
          name: owner.name,
          uid: owner.obj.metadata.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        } as NonNullable<KubeObject["metadata"]["ownerReferences"]>[number],
      ],
    };
    if (owner.kind !== "StatefulSet") metadata.generateName = `${owner.name}-`;
    if (template.metadata.annotations) metadata.annotations = template.metadata.annotations;
    const workload = owner.workload;
    return this.#registerPod(
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata,
        spec: template.spec,
        status: { phase: "Pending" },
      },
      owner,
      workload,
      template,
      workload.lifecycle,
      workload.usage,
      ordinal,
      owner.templateHash,
    );
  }

  /** A Pod manifest created directly: played with the default lifecycle, no traffic. */
  #adoptBarePod(object: KubeObject): void {
    const namespace = object.metadata.namespace ?? "default";
    const record = this.#newPodRecord(
      object,
      null,
      null,
      parseTemplate({ metadata: object.metadata, spec: object.spec }),
      DEFAULT_LIFECYCLE,
      DEFAULT_USAGE,
      -1,
      "",
    );
    this.#track(record, namespace);
    this.#schedulePodTimer(record, this.now + record.lifecycle.schedulingDelayMs);
  }

  #registerPod(
    object: KubeObject,
    owner: PodOwner,
    workload: Workload,
    template: TemplateInfo,
    lifecycle: PodLifecycleModel,
    usage: UsageModel,
    ordinal: number,
    revision: string,
  ): PodRecord {
    const stored = this.#write(() => this.store.create(object));
    const record = this.#newPodRecord(
      stored,
      owner,
      workload,
      template,
      lifecycle,
      usage,
      ordinal,
      revision,
    );
    owner.pods.add(record);
    this.#track(record, owner.namespace);
    this.#countStage(record, null);
    this.#schedulePodTimer(record, this.now + lifecycle.schedulingDelayMs);
    return record;
  }

  #newPodRecord(
    object: KubeObject,
    owner: PodOwner | null,
    workload: Workload | null,
    template: TemplateInfo,
    lifecycle: PodLifecycleModel,
    usage: UsageModel,
    ordinal: number,
    revision: string,
    createdAt = truncateToSecond(this.now),
  ): PodRecord {
    const namespace = object.metadata.namespace ?? "default";
    const identity = `${namespace}/${object.metadata.name}`;
    const incarnation = (this.#incarnations.get(identity) ?? 0) + 1;
    this.#incarnations.set(identity, incarnation);
    const seed = streamSeed(this.model.seed, `pod/${identity}#${incarnation}`);
    const willFail =
      lifecycle.failureProbability > 0 && noise(seed, 0, 7) < lifecycle.failureProbability;
    const record = new PodRecord(
      namespace,
      object.metadata.name,
      owner,
      workload,
      template,
      lifecycle,
      usage,
      seed,
      willFail,
      createdAt,
      ordinal,
      revision,
    );
    record.obj = object;
    record.view = this.#buildView(record);
    return record;
  }

  #track(record: PodRecord, namespace: string): void {
    this.#pods.set(record.key, record);
    let set = this.#podsByNamespace.get(namespace);
    if (!set) {
      set = new Set();
      this.#podsByNamespace.set(namespace, set);
    }
    set.add(record);
    const entries = this.#entries.get(namespace);
    if (entries) {
      for (const entry of entries.values()) {
        if (selectorMatches(entry.selector, record.view.labels)) {
          entry.members.add(record);
          entry.views = null;
          record.entries.push(entry);
        }
      }
    }
  }

  #schedulePodTimer(pod: PodRecord, at: number): void {
    pod.token++;
    this.#heap.push(at, { pod, token: pod.token });
  }

  /** A pod's due transition. */
  #podTimer(pod: PodRecord): void {
    const now = this.now;
    switch (pod.stage) {
      case "waiting":
        if (this.#hasCapacity()) this.#bind(pod);
        else {
          this.#setStage(pod, "unschedulable");
          this.#waiting.push(pod);
        }
        break;
      case "creating":
        if (pod.willFail) {
          pod.failedAt = now;
          this.#setStage(pod, "failed");
          this.#release(pod);
          this.#schedulePodTimer(pod, now + FAILED_POD_TTL_MS);
        } else {
          pod.runningAt = now;
          if (pod.lifecycle.startupCpuBurst && pod.workload) pod.workload.bursting.push(pod);
          this.#setStage(pod, "running");
          this.#schedulePodTimer(pod, now + pod.lifecycle.readinessDelayMs);
        }
        break;
      case "running": {
        pod.readyAt = now;
        pod.readyCondition = { status: "True", time: truncateToSecond(now) };
        const minReady = ownerMinReadyMs(pod.owner);
        pod.available = minReady <= 0;
        this.#setStage(pod, "ready");
        if (minReady > 0) this.#schedulePodTimer(pod, now + minReady);
        break;
      }
      case "ready":
        // minReadySeconds elapsed: the pod now counts as available.
        this.#changeCounts(pod, () => {
          pod.available = true;
        });
        break;
      case "terminating":
      case "failed":
        this.#removePod(pod);
        break;
      default:
        break;
    }
  }

  #hasCapacity(): boolean {
    const capacity = this.model.capacityPods;
    return capacity === null || this.#bound < capacity;
  }

  #bind(pod: PodRecord): void {
    const now = this.now;
    pod.bound = true;
    this.#bound++;
    pod.scheduledAt = now;
    pod.readyCondition = { status: "False", time: truncateToSecond(now) };
    this.#setStage(pod, "creating");
    this.#schedulePodTimer(pod, now + pod.lifecycle.containerStartDelayMs);
  }

  #release(pod: PodRecord): void {
    if (!pod.bound) return;
    pod.bound = false;
    this.#bound--;
    // The scheduler binds waiting pods (first come, first served) as capacity frees up.
    while (this.#waiting.length > 0 && this.#hasCapacity()) {
      const next = this.#waiting.shift()!;
      if (next.stage === "unschedulable") this.#bind(next);
    }
  }

  /**
   * A controller's graceful deletion (default DeleteOptions): an unbound or failed pod goes at
   * once (as the API server deletes unscheduled pods); a bound one gets its deletionTimestamp,
   * stops being ready and serving, and disappears after the termination grace period.
   */
  #deletePod(pod: PodRecord): void {
    if (pod.stage === "terminating" || pod.stage === "gone") return;
    if (!pod.bound || pod.stage === "failed") {
      this.#removePod(pod);
      return;
    }
    const now = this.now;
    const grace = this.#graceMs(pod);
    pod.obj = {
      ...pod.obj,
      metadata: {
        ...pod.obj.metadata,
        deletionTimestamp: rfc3339(now + grace),
        deletionGracePeriodSeconds: Math.round(grace / 1000),
      },
    };
    this.#startTerminating(pod);
    this.#setStage(pod, "terminating");
    if (grace <= 0) this.#removePod(pod);
    else this.#schedulePodTimer(pod, now + grace);
  }

  /**
   * The grace a controller's delete gives: the scenario's model for the workloads it models
   * (the pod template's terminationGracePeriodSeconds, or its own default), else the pod's
   * terminationGracePeriodSeconds as the API server defaults it (30 s).
   */
  #graceMs(pod: PodRecord): number {
    if (pod.lifecycle !== DEFAULT_LIFECYCLE) return pod.lifecycle.terminationGracePeriodMs;
    const seconds = (pod.obj.spec as { terminationGracePeriodSeconds?: unknown } | undefined)
      ?.terminationGracePeriodSeconds;
    return typeof seconds === "number" && seconds >= 0
      ? seconds * 1000
      : DEFAULT_POD_GRACE_SECONDS * 1000;
  }

  #startTerminating(pod: PodRecord): void {
    const now = this.now;
    pod.deletingAt = now;
    if (pod.readyCondition?.status === "True") {
      pod.readyCondition = { status: "False", time: truncateToSecond(now) };
    }
  }

  /**
   * A client (or the garbage collector) marked a pod for deletion: it terminates until its
   * deletionTimestamp, then the kubelet's final delete removes it. A zero grace period leaves
   * the removal to the API server (or to whoever removes the pod's finalizers). The pod's
   * status is written later (#flushMarkedPods): a store listener must not write.
   */
  #podMarked(pod: PodRecord, object: KubeObject): void {
    if (pod.stage === "gone") return;
    const first = pod.stage !== "terminating";
    if (first) {
      this.#startTerminating(pod);
      this.#changeCounts(pod, () => {
        pod.stage = "terminating";
      });
      pod.view = this.#buildView(pod);
      for (const entry of pod.entries) entry.views = null;
      if (pod.owner) this.#dirtyOwners.add(pod.owner);
      this.#markedPods.add(pod);
    }
    const grace = object.metadata.deletionGracePeriodSeconds;
    if (typeof grace === "number" && grace > 0) {
      const deadline = Date.parse(object.metadata.deletionTimestamp ?? "");
      const at = first ? this.now + grace * 1000 : Math.max(this.now, deadline);
      this.#schedulePodTimer(pod, Number.isFinite(at) ? at : this.now);
    } else {
      pod.token++;
    }
  }

  /** Writes the status of pods marked by others (not ready, containers stopping). */
  #flushMarkedPods(): void {
    if (this.#markedPods.size === 0) return;
    const pods = [...this.#markedPods];
    this.#markedPods.clear();
    for (const pod of pods) {
      if (pod.stage === "gone" || !this.store.get("Pod", pod.namespace, pod.name)) continue;
      const object = this.#podObject(pod);
      pod.obj = this.#write(() => this.store.update(object));
    }
  }

  /**
   * The kubelet's final delete (grace period 0): the pod leaves the store, unless finalizers
   * keep it there (marked) until they are removed.
   */
  #removePod(pod: PodRecord): void {
    if (pod.stage === "gone") return;
    const current = this.store.get("Pod", pod.namespace, pod.name);
    if (current) {
      this.#write(() =>
        deleteFromStore(this.store, current, { gracePeriodSeconds: 0 }, this.now, "None"),
      );
    }
    this.#forgetPod(pod);
  }

  /** Drops a pod from every record (it has left the store). */
  #forgetPod(pod: PodRecord): void {
    if (pod.stage === "gone") return;
    this.#changeCounts(pod, () => {
      pod.stage = "gone";
    });
    pod.token++;
    this.#release(pod);
    this.#pods.delete(pod.key);
    this.#podsByNamespace.get(pod.namespace)?.delete(pod);
    for (const entry of pod.entries) {
      entry.members.delete(pod);
      entry.views = null;
    }
    pod.entries = [];
    if (pod.owner) {
      pod.owner.pods.delete(pod);
      this.#dirtyOwners.add(pod.owner);
      // Recreate waits for old pods to be gone, not only terminating.
      if (pod.owner.workload.kind === "Deployment") this.#dirtyWorkloads.add(pod.owner.workload);
    }
    this.#reconcile();
  }

  /** Moves a pod to a stage: counts, the stored object and the cached view follow. */
  #setStage(pod: PodRecord, stage: PodRecord["stage"]): void {
    this.#changeCounts(pod, () => {
      pod.stage = stage;
    });
    const object = this.#podObject(pod);
    if (this.store.get("Pod", pod.namespace, pod.name)) {
      pod.obj = this.#write(() => this.store.update(object));
    }
    pod.view = this.#buildView(pod);
    for (const entry of pod.entries) entry.views = null;
    if (pod.owner) this.#dirtyOwners.add(pod.owner);
  }

  #countStage(
    pod: PodRecord,
    previous: { active: boolean; ready: boolean; available: boolean } | null,
  ): void {
    const owner = pod.owner;
    if (!owner) return;
    const now = {
      active: pod.active,
      ready: pod.active && pod.isReady,
      available: pod.active && pod.isReady && pod.available,
    };
    owner.active += Number(now.active) - Number(previous?.active ?? false);
    owner.ready += Number(now.ready) - Number(previous?.ready ?? false);
    owner.available += Number(now.available) - Number(previous?.available ?? false);
  }

  #changeCounts(pod: PodRecord, change: () => void): void {
    const before = {
      active: pod.active,
      ready: pod.active && pod.isReady,
      available: pod.active && pod.isReady && pod.available,
    };
    change();
    this.#countStage(pod, before);
    if (
      pod.owner &&
      (before.ready !== pod.isReady ||
        before.available !== pod.available ||
        before.active !== pod.active)
    ) {
      this.#dirtyOwners.add(pod.owner);
    }
  }

  #podObject(pod: PodRecord): KubeObject {
    const base = pod.obj;
    // The deletion mark (deletionTimestamp, grace) is already on the object.
    const metadata: KubeObject["metadata"] = { ...base.metadata, resourceVersion: undefined };
    let spec = base.spec;
    if (pod.bound && (spec as { nodeName?: string }).nodeName !== NODE_NAME) {
      spec = { ...(spec as object), nodeName: NODE_NAME };
    }
    return { ...base, metadata, spec, status: podStatus(pod) };
  }

  #buildView(pod: PodRecord): PodView {
    const ready = pod.readyCondition;
    return {
      name: pod.name,
      labels: (pod.obj.metadata.labels ?? {}) as Record<string, string>,
      phase: podPhase(pod),
      deleting: pod.deletingAt !== null,
      startTime: pod.scheduledAt === null ? null : truncateToSecond(pod.scheduledAt),
      ready: ready ? { status: ready.status, lastTransitionTime: ready.time } : null,
      containers: pod.template.containers,
      restartableInitContainers: pod.template.restartableInitContainers,
      podRequests: pod.template.podRequests,
    };
  }

  #write<T>(action: () => T): T {
    this.#writing++;
    try {
      return action();
    } finally {
      this.#writing--;
    }
  }
}

// -----------------------------------------------------------------------------------------
// Helpers

/** The pod-template-hash: a hash of the template, in upstream's safe alphabet. */
export function templateHash(template: unknown): string {
  return safeEncode(String(hashString(stableStringify(template ?? {}))));
}

function revisionOf(owner: Owner): number {
  const value = Number(owner.obj.metadata.annotations?.[REVISION]);
  return Number.isFinite(value) ? value : 0;
}

function rsInfo(owner: PodOwner | null): ReplicaSetInfo | null {
  if (!owner) return null;
  const annotation = Number(owner.obj.metadata.annotations?.[MAX_REPLICAS]);
  return {
    name: owner.name,
    created: owner.created,
    specReplicas: owner.specReplicas,
    availableReplicas: owner.available,
    maxReplicasAnnotation: Number.isInteger(annotation) ? annotation : null,
  };
}

function ownerMinReadyMs(owner: PodOwner | null): number {
  const seconds =
    (owner?.obj.spec as { minReadySeconds?: number } | undefined)?.minReadySeconds ?? 0;
  return seconds * 1000;
}

function victimInfo(pod: PodRecord): VictimInfo {
  return {
    uid: pod.obj.metadata.uid ?? "",
    assigned: pod.bound,
    phase: podPhase(pod),
    ready: pod.isReady,
    deletionCost: deletionCostOf(pod.obj.metadata.annotations),
    readySince: pod.readyCondition?.status === "True" ? pod.readyCondition.time : null,
    restarts: 0,
    created: pod.createdAt,
  };
}

function podPhase(pod: PodRecord): "Pending" | "Running" | "Failed" {
  if (pod.stage === "failed") return "Failed";
  return pod.runningAt !== null ? "Running" : "Pending";
}

function podStatus(pod: PodRecord): Record<string, unknown> {
  const phase = podPhase(pod);
  if (pod.scheduledAt === null) {
    const status: Record<string, unknown> = { phase: "Pending" };
    if (pod.stage === "unschedulable") {
      status.conditions = [
        {
          type: "PodScheduled",
          status: "False",
          lastProbeTime: null,
          lastTransitionTime: rfc3339(pod.createdAt + pod.lifecycle.schedulingDelayMs),
          reason: "Unschedulable",
          message: "0/1 nodes are available: 1 Too many pods.",
        },
      ];
    }
    return status;
  }
  const scheduled = rfc3339(pod.scheduledAt);
  const ready = pod.readyCondition ?? {
    status: "False" as const,
    time: truncateToSecond(pod.scheduledAt),
  };
  const readyTime = rfc3339(ready.time);
  const notReady =
    ready.status === "False"
      ? { reason: pod.stage === "failed" ? "PodFailed" : "ContainersNotReady" }
      : {};
  const containerReady = ready.status === "True";
  const containerStatuses = pod.template.containerNames.map((name) => {
    let state: Record<string, unknown>;
    if (pod.stage === "failed") {
      state = {
        terminated: {
          exitCode: 1,
          reason: "Error",
          finishedAt: rfc3339(pod.failedAt ?? pod.scheduledAt!),
        },
      };
    } else if (pod.runningAt !== null) state = { running: { startedAt: rfc3339(pod.runningAt) } };
    else state = { waiting: { reason: "ContainerCreating" } };
    return {
      name,
      ready: containerReady,
      restartCount: 0,
      started: pod.runningAt !== null && pod.stage !== "failed",
      state,
    };
  });
  return {
    phase,
    conditions: [
      { type: "Initialized", status: "True", lastProbeTime: null, lastTransitionTime: scheduled },
      {
        type: "Ready",
        status: ready.status,
        lastProbeTime: null,
        lastTransitionTime: readyTime,
        ...notReady,
      },
      {
        type: "ContainersReady",
        status: ready.status,
        lastProbeTime: null,
        lastTransitionTime: readyTime,
        ...notReady,
      },
      { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: scheduled },
    ],
    hostIP: "10.0.0.1",
    startTime: scheduled,
    containerStatuses,
  };
}
