// The embedded cluster on a virtual clock: an object store, the workload controllers
// (Deployment → ReplicaSet → Pod, StatefulSet, DaemonSet, ReplicationController), pod
// lifecycles played as data, load and usage models, and a metrics pipeline like
// metrics-server's. `advanceTo` runs everything due up to a time; the controller talks to it
// through in-process port adapters.
// It plays a ClusterModel and knows nothing of scenarios: src/sim maps a Scenario onto the
// model and applies the scenario's events through the primitives below.

import { defaultPodSpecOfPod } from "../api/pod-defaults.js";
import { withSpecReplicas } from "../api/scale.js";
import { type Selector, selectorMatches } from "../api/selector.js";
import { applyServiceDefaults } from "../api/service-defaults.js";
import { truncateToSecond } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import { applyWorkloadDefaults, prepareJob } from "../api/workload-defaults.js";
import type { InvolvedObject } from "../controller/events/correlator.js";
import type { ControllerPorts } from "../controller/ports.js";
import { jsonEqual } from "../core/json.js";
import type { PodView } from "../core/pods.js";
import { customScalePaths } from "../kinds/custom.js";
import { type AdmissionOptions, admitPod, LIMIT_RANGER_ANNOTATION } from "../registry/admission.js";
import { deleteFromStore } from "../registry/delete.js";
import { quotaStatus } from "../registry/quota.js";
import { noise, randomSuffix, streamSeed } from "../registry/random.js";
import { ObjectStore, type WatchEvent } from "../registry/store.js";
import {
  type ClusterModel,
  type PodLifecycleModel,
  type TrafficModel,
  type UsageModel,
  type WorkloadModel,
  type WorkloadRef,
  workloadKey,
} from "./cluster-model.js";
import type { ControllerContext } from "./controllers/context.js";
import { reconcileCronJob } from "./controllers/cronjob.js";
import { reconcileDaemonSet } from "./controllers/daemonset.js";
import {
  POD_TEMPLATE_HASH,
  reconcileDeployment,
  revisionOf,
  templateHash,
} from "./controllers/deployment.js";
import { reconcileJob } from "./controllers/job.js";
import { podFromTemplate } from "./controllers/pods.js";
import { reconcileReplicaSet } from "./controllers/replicaset.js";
import { CONTROLLER_REVISION_HASH } from "./controllers/revisions.js";
import { reconcileStatefulSet } from "./controllers/statefulset.js";
import { ComponentEventRecorder } from "./events.js";
import { GarbageCollector } from "./gc.js";
import { AskedInOrder } from "./in-order.js";
import {
  DEFAULT_LIFECYCLE,
  DEFAULT_USAGE,
  Kubelet,
  NODE_NAME,
  podView,
  restoreStage,
} from "./kubelet.js";
import { ServiceLoads } from "./load.js";
import { MetricsPipeline } from "./metrics.js";
import {
  PodOwner,
  PodRecord,
  parseTemplate,
  ScrapeRing,
  SelectorEntry,
  type TemplateInfo,
  Workload,
} from "./model.js";
import { ClusterNetwork, type NetworkOptions } from "./network.js";
import { PodLogBook } from "./podlogs.js";
import { createPorts } from "./ports.js";
import { Scheduler } from "./scheduler.js";
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
  /**
   * metadata.managedFields after an in-process write of spec.replicas (the controller's, as
   * kube-controller-manager through scale); given by whoever serves the API (`horizon up`).
   */
  scaleManagedFields?: (current: KubeObject, replicas: number, now: number) => unknown;
  /**
   * Pod and Service addresses, Endpoints and EndpointSlices, and where traffic is served
   * (`horizon up`); without it pods have no IP and nothing is served (the simulator).
   */
  network?: NetworkOptions;
  /**
   * The cluster's own components record their Events (ScalingReplicaSet, SuccessfulCreate,
   * Scheduled, Pulled/Created/Started/Killing…), as a real cluster's do (`horizon up`); off in
   * the simulator, whose outputs are the HPAs' decisions.
   */
  componentEvents?: boolean;
  /** Recent changes the new store keeps for resumed watches (StoreOptions.history). */
  watchHistory?: number;
  /**
   * The seed of each generated-name stream (a ReplicaSet's pods, a Service's EndpointSlice),
   * by the stream's identity. Default: from the model's seed, so equal histories give equal
   * names (the simulator); `horizon up` draws them at random, as upstream's suffixes are.
   */
  nameSeed?: (identity: string) => number;
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

export { templateHash } from "./controllers/deployment.js";
export { DEFAULT_LIFECYCLE, DEFAULT_USAGE, FAILED_POD_TTL_MS } from "./kubelet.js";

/** The controller of each pod owner, as its Events name it. */
const CONTROLLER_COMPONENTS: Record<PodOwner["kind"], string> = {
  ReplicaSet: "replicaset-controller",
  ReplicationController: "replication-controller",
  StatefulSet: "statefulset-controller",
  DaemonSet: "daemonset-controller",
  Job: "job-controller",
};

const WORKLOAD_KINDS = new Set([
  "Deployment",
  "StatefulSet",
  "DaemonSet",
  "Job",
  "ReplicaSet",
  "ReplicationController",
]);

export class EmbeddedCluster {
  readonly store: ObjectStore;
  readonly model: ClusterModel;
  /** The seed of a generated-name stream by its identity (ClusterOptions.nameSeed). */
  readonly nameSeed: (identity: string) => number;
  readonly startTime: number;
  /** The virtual time everything has run up to (epoch ms). */
  now: number;

  /** The runner passes the same ref objects every time: skip building the key. */
  readonly #byRef = new WeakMap<WorkloadRef, Workload>();
  readonly #workloads = new Map<string, Workload>();
  readonly #owners = new Map<string, PodOwner>();
  readonly #pods = new Map<string, PodRecord>();
  readonly #podsByNamespace = new Map<string, Set<PodRecord>>();
  readonly #entries = new Map<string, Map<string, SelectorEntry>>();
  readonly #dirtyWorkloads = new Set<Workload>();
  /** Deployments to look at again at their progress deadline (requeueStuckDeployment). */
  readonly #progressChecks = new Map<Workload, number>();
  readonly #dirtyOwners = new Set<PodOwner>();
  /** CronJobs (`namespace/name`) to reconcile, and when each must look again. */
  readonly #dirtyCronJobs = new Set<string>();
  readonly #cronChecks = new Map<string, number>();
  /** Owners with more pods to create or delete than one sync does: taken up at the next advance. */
  readonly #deferredOwners = new Set<PodOwner>();
  #advances = 0;
  /** How often each gone pod's `namespace/name` was created (a pod's record keeps its own). */
  readonly #incarnations = new Map<string, number>();
  #writing = 0;
  #reconciling = false;
  readonly metrics: MetricsPipeline;
  /** The garbage collector and namespace controller (ownerReferences, finalizers, namespace deletion). */
  readonly gc: GarbageCollector;
  /** The containers' logs (`kubectl logs`). */
  readonly logs = new PodLogBook();
  /** The admission plugins its pods go through beside the ones every cluster has. */
  readonly admission: AdmissionOptions = { serviceAccounts: false };
  readonly #scaleManagedFields: ClusterOptions["scaleManagedFields"];
  /** Addresses, endpoints and the pod network; null without ClusterOptions.network. */
  readonly network: ClusterNetwork | null;
  /** Pods listen and answer (a PodNetwork is bound): load is real requests, not annotations. */
  readonly #servesTraffic: boolean;
  /** Load driven at Services (`horizon load`), added to the traffic of the workloads they select. */
  readonly #loads: ServiceLoads;

  /** What the workload controllers (controllers/*.ts) see of the cluster. */
  readonly #controllers: ControllerContext;
  readonly #scheduler: Scheduler;
  readonly #events: ComponentEventRecorder | null;
  readonly #kubelet: Kubelet;

  constructor(options: ClusterOptions) {
    this.model = options.model;
    const seed = options.model.seed;
    this.nameSeed = options.nameSeed ?? ((identity) => streamSeed(seed, identity));
    this.startTime = options.startTime;
    this.now = options.startTime;
    this.#scaleManagedFields = options.scaleManagedFields;
    this.store =
      options.store ?? new ObjectStore({ now: () => this.now, history: options.watchHistory });
    this.#loads = new ServiceLoads(options.startTime);
    this.#events = options.componentEvents ? new ComponentEventRecorder(this.store) : null;
    this.metrics = new MetricsPipeline(this);
    this.gc = new GarbageCollector({ store: this.store, now: () => this.now });
    this.#controllers = this.#controllerContext();
    this.#scheduler = new Scheduler(this.model.capacityPods);
    this.#kubelet = this.#newKubelet();
    this.#servesTraffic = options.network?.pods !== undefined;
    this.network = options.network
      ? new ClusterNetwork(options.network, {
          store: this.store,
          nameSeed: this.nameSeed,
          now: () => this.now,
          write: (action) => this.#write(action),
        })
      : null;
    this.store.watch((event) => this.#onStoreEvent(event));
    // The network's controllers see every write, the cluster's own included.
    if (this.network) this.store.watch((event) => this.network!.observe(event));
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
      this.nameSeed(`names/${namespace}/ReplicaSet/${object.metadata.name}`),
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
      ["ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController"].includes(
        ref.kind,
      ) &&
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
        : played?.kind === "DaemonSet"
          ? (revisionLabel ?? "")
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
    const due = restoreStage(record, object, this.now);
    this.#scheduler.restoreBound(record);
    this.network?.restorePodIp(record, object);
    record.view = podView(record);
    if (played) played.pods.add(record);
    this.#track(record, namespace);
    this.#countStage(record, null);
    if (played) this.#dirtyOwners.add(played);
    if (due !== null) this.#kubelet.schedule(record, Math.max(this.now, due));
    this.network?.podChanged(record);
  }

  // ---------------------------------------------------------------------------------------
  // Public API

  /** Creates a manifest (defaulted as the API server would); workload controllers react at once. */
  create(object: KubeObject): void {
    let created = withApiDefaults(object);
    if (created.kind === "Service" && this.network) {
      const prepared = this.network.prepareService(created, undefined);
      if (!prepared.ok)
        throw new Error(
          `service ${created.metadata.name}: ${prepared.errors[0]!.field}: ${prepared.errors[0]!.detail}`,
        );
      created = prepared.value;
    }
    this.store.create(created);
    this.#reconcile();
  }

  /** Runs everything due up to `t` (epoch ms): pod stages, controllers, metrics scrapes. */
  advanceTo(t: number): void {
    this.#advances++;
    if (this.#deferredOwners.size > 0) {
      for (const owner of this.#deferredOwners) this.#dirtyOwners.add(owner);
      this.#deferredOwners.clear();
      this.#reconcile();
    }
    for (;;) {
      const next = this.nextDueTime();
      if (next > t) break;
      if (next > this.now) this.now = next;
      this.#kubelet.runDue(next);
      for (const [workload, at] of this.#progressChecks) {
        if (at > next) continue;
        this.#progressChecks.delete(workload);
        this.#dirtyWorkloads.add(workload);
      }
      for (const [key, at] of this.#cronChecks) {
        if (at > next) continue;
        this.#cronChecks.delete(key);
        this.#dirtyCronJobs.add(key);
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
    let due = Math.min(this.#kubelet.nextDue(), this.metrics.nextScrapeAt);
    for (const at of this.#progressChecks.values()) due = Math.min(due, at);
    for (const at of this.#cronChecks.values()) due = Math.min(due, at);
    return due;
  }

  /** Writes an object as a client would (store.update); workload controllers react at once. */
  update(object: KubeObject): KubeObject {
    const updated = this.store.update(withApiDefaults(object));
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
    for (const pod of pods) this.#kubelet.deletePod(pod);
    this.#reconcile();
  }

  /**
   * A pod answered a request on the pod network (`horizon up`): its workload's usage follows
   * the rate its pods really serve, measured at each metrics scrape.
   */
  recordServed(podKey: string): void {
    const workload = this.#pods.get(podKey)?.workload;
    if (workload) workload.servedTotal++;
  }

  /** A line a pod's container wrote to its log now (`horizon up`'s access lines). */
  podLogLine(podKey: string, container: string, text: string): void {
    if (this.#pods.has(podKey)) this.logs.append(podKey, container, this.now, text);
  }

  /**
   * A container of a pod could not serve its port on the pod network (`horizon up`: the address
   * is in use): the kubelet restarts it with back-off, the pod is not Ready meanwhile, and a
   * Warning Event on the pod says why.
   */
  containerFailed(podKey: string, container: string, message: string): void {
    const pod = this.#pods.get(podKey);
    if (!pod) return;
    this.network?.podFailed(podKey, `Error: container ${container}: ${message}`);
    this.#kubelet.containerFailed(pod, container, message);
    this.#reconcile();
  }

  /** In-process adapters of the controller's ports. */
  ports(): Omit<ControllerPorts, "clock"> {
    return createPorts(this);
  }

  snapshot(ref: WorkloadRef): WorkloadSnapshot {
    let workload = this.#byRef.get(ref);
    if (!workload || workload.removed) {
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
      specReplicas: workload.specReplicas(),
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
    // A sync asks twice in a row (its pods, then its metrics); entries are never replaced.
    const last = this.#lastEntry;
    if (last !== null && this.#lastSelector === selector && last.namespace === namespace) {
      return last;
    }
    // Syncs ask in the same order round after round (HPAs in key order).
    let entry = this.#entriesInOrder.get(selector, namespace);
    if (entry === undefined) {
      entry = this.#selectorEntry(namespace, selector);
      this.#entriesInOrder.set(selector, namespace, entry, this.#entryCount);
    }
    this.#lastSelector = selector;
    this.#lastEntry = entry;
    return entry;
  }

  #lastSelector: Selector | null = null;
  #lastEntry: SelectorEntry | null = null;
  readonly #entriesInOrder = new AskedInOrder<Selector, string, SelectorEntry>();
  #entryCount = 0;

  #selectorEntry(namespace: string, selector: Selector): SelectorEntry {
    let byText = this.#entries.get(namespace);
    if (!byText) {
      byText = new Map();
      this.#entries.set(namespace, byText);
    }
    let entry = byText.get(selector.text);
    if (!entry) {
      entry = new SelectorEntry(namespace, selector);
      this.#entryCount++;
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

  /**
   * Sets spec.replicas of a scalable workload (scale subresource / kubectl scale); the scale
   * endpoint gives the managedFields of its write, in-process writes get the cluster's own.
   */
  scaleWorkload(
    namespace: string,
    kind: string,
    name: string,
    replicas: number,
    write?: { managedFields: unknown },
  ): KubeObject | undefined {
    const current = this.store.get(kind, namespace, name);
    if (!current) return undefined;
    // The API server's field ownership of spec.replicas (server-side apply's scale handler).
    const managedFields = write
      ? write.managedFields
      : this.#scaleManagedFields?.(current, replicas, this.now);
    const updated = this.#write(() =>
      this.store.update({
        ...current,
        metadata: {
          ...current.metadata,
          resourceVersion: undefined,
          ...(managedFields !== undefined ? { managedFields } : {}),
        },
        // A custom resource's replicas are at its CRD's specReplicasPath (under .spec).
        spec: withSpecReplicas(current, replicas, customScalePaths(kind)).spec,
      }),
    );
    // A custom resource is its operator's to act on (here: whoever watches it).
    if (WORKLOAD_KINDS.has(kind)) this.#workloadChanged(updated);
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
      if (object.kind === "Job") this.#cronJobOf(object);
    } else if (object.kind === "CronJob") {
      const key = `${object.metadata.namespace ?? "default"}/${object.metadata.name}`;
      if (event.type === "DELETED") this.#cronChecks.delete(key);
      else this.#dirtyCronJobs.add(key);
    } else if (object.kind === "Pod") {
      const namespace = object.metadata.namespace ?? "default";
      const existing = this.#pods.get(`${namespace}/${object.metadata.name}`);
      if (event.type === "DELETED" && existing) this.#forgetPod(existing);
      else if (event.type === "ADDED" && !existing) this.#adoptBarePod(object);
      else if (event.type === "MODIFIED" && existing) {
        existing.obj = object;
        if (object.metadata.deletionTimestamp) this.#kubelet.podMarked(existing, object);
      }
    } else if (object.kind === "Service" && !this.#servesTraffic) {
      // Where pods serve real traffic (`horizon up`'s listeners) the annotation is not read.
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

  /** A Job of a CronJob changed: its CronJob's controller looks again. */
  #cronJobOf(job: KubeObject): void {
    const ref = job.metadata.ownerReferences?.find((r) => r.controller && r.kind === "CronJob");
    if (ref) this.#dirtyCronJobs.add(`${job.metadata.namespace ?? "default"}/${ref.name}`);
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
    const spec = object.spec as { template?: unknown };
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
          this.nameSeed(`names/${key}`),
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
    workload.removed = true;
    this.#dirtyWorkloads.delete(workload);
    this.#progressChecks.delete(workload);
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
        this.#kubelet.flushMarkedPods();
        if (
          this.#dirtyWorkloads.size === 0 &&
          this.#dirtyOwners.size === 0 &&
          this.#dirtyCronJobs.size === 0 &&
          !this.gc.pending
        )
          break;
        const workloads = [...this.#dirtyWorkloads];
        this.#dirtyWorkloads.clear();
        for (const workload of workloads) {
          // A deleted Deployment's records may still be referenced by its (orphaned) ReplicaSets.
          if (this.#workloads.get(workload.key) !== workload) continue;
          if (workload.kind === "Deployment") reconcileDeployment(this.#controllers, workload);
          // The others' controllers (a Job's deadline or back-off) run over their pod owner.
          else for (const owner of workload.owners) this.#dirtyOwners.add(owner);
        }
        const owners = [...this.#dirtyOwners];
        this.#dirtyOwners.clear();
        for (const owner of owners) {
          if (this.#owners.get(owner.key) !== owner) continue;
          if (owner.kind === "StatefulSet") reconcileStatefulSet(this.#controllers, owner);
          else if (owner.kind === "DaemonSet") reconcileDaemonSet(this.#controllers, owner);
          else if (owner.kind === "Job") {
            const before = owner.obj.status;
            reconcileJob(this.#controllers, owner);
            if (owner.obj.status !== before) this.#cronJobOf(owner.obj);
          } else reconcileReplicaSet(this.#controllers, owner);
        }
        const cronJobs = [...this.#dirtyCronJobs];
        this.#dirtyCronJobs.clear();
        for (const key of cronJobs) {
          const [namespace = "", name = ""] = key.split("/");
          const cronJob = this.store.get("CronJob", namespace, name);
          if (!cronJob) continue;
          const wake = reconcileCronJob(this.#controllers, cronJob);
          if (wake === null) this.#cronChecks.delete(key);
          else this.#cronChecks.set(key, wake);
        }
      }
      // Endpoints and quota usage follow the pods as the controllers left them.
      this.network?.sync();
      for (const quota of this.store.list("ResourceQuota")) {
        this.#writeStatus({ obj: quota }, quotaStatus(this.store, quota));
      }
    } finally {
      this.#reconciling = false;
    }
  }

  #newKubelet(): Kubelet {
    const cluster = this;
    return new Kubelet({
      store: this.store,
      get now() {
        return cluster.now;
      },
      scheduler: this.#scheduler,
      write: (action) => this.#write(action),
      changeCounts: (pod, change) => this.#changeCounts(pod, change),
      ownerChanged: (owner) => {
        this.#dirtyOwners.add(owner);
      },
      forgetPod: (pod) => this.#forgetPod(pod),
      assignPodIp: (pod) => this.network?.assignPodIp(pod),
      podChanged: (pod) => this.network?.podChanged(pod),
      log: (pod, container, text) => this.logs.append(pod.key, container, this.now, text),
      event: (pod, component, reason, message, options = {}) =>
        this.#event(
          { component, ...(component === "kubelet" ? { host: NODE_NAME } : {}) },
          {
            ...referenceOf(pod.obj),
            ...(options.container ? { fieldPath: `spec.containers{${options.container}}` } : {}),
          },
          reason,
          message,
          options.warning ? "Warning" : "Normal",
        ),
    });
  }

  #controllerContext(): ControllerContext {
    const cluster = this;
    return {
      store: this.store,
      get now() {
        return cluster.now;
      },
      nameSeed: this.nameSeed,
      get advance() {
        return cluster.#advances;
      },
      write: (action) => this.#write(action),
      writeStatus: (target, status) => this.#writeStatus(target, status),
      ownerByKey: (key) => this.#owners.get(key),
      addOwner: (owner) => {
        this.#owners.set(owner.key, owner);
        this.#dirtyOwners.add(owner);
      },
      removeOwner: (owner) => {
        this.#owners.delete(owner.key);
      },
      ownerChanged: (owner) => {
        this.#dirtyOwners.add(owner);
      },
      ownerDeferred: (owner) => {
        this.#deferredOwners.add(owner);
      },
      workloadChanged: (workload) => {
        this.#dirtyWorkloads.add(workload);
      },
      progressCheck: (workload, at) => {
        if (at === null) this.#progressChecks.delete(workload);
        else this.#progressChecks.set(workload, at);
      },
      dropStandalone: (key, workload) => {
        const standalone = this.#workloads.get(key);
        if (standalone && standalone !== workload) {
          this.#workloads.delete(key);
          standalone.removed = true;
          this.#dirtyWorkloads.delete(standalone);
        }
      },
      event: (object, component, reason, message, type = "Normal") =>
        this.#event({ component }, referenceOf(object), reason, message, type),
      createAsClient: (object) => this.store.create(object),
      deleteAsClient: (object) => {
        const current = this.store.get(
          object.kind,
          object.metadata.namespace ?? "",
          object.metadata.name,
        );
        if (current)
          deleteFromStore(
            this.store,
            current,
            { propagationPolicy: "Background" },
            this.now,
            "DeleteDependents",
          );
      },
      createPod: (owner, ordinal) => this.#createPod(owner, ordinal),
      deletePod: (pod) => this.#kubelet.deletePod(pod),
      removePod: (pod) => this.#kubelet.removePod(pod),
    };
  }

  /** A component's Event (with componentEvents on), through its recorder's correlator. */
  #event(
    source: { component: string; host?: string },
    ref: InvolvedObject,
    reason: string,
    message: string,
    type: "Normal" | "Warning" = "Normal",
  ): void {
    const events = this.#events;
    if (!events) return;
    this.#write(() => events.record(source, ref, { type, reason, message }, this.now));
  }

  #writeStatus(target: { obj: KubeObject }, status: unknown): void {
    if (jsonEqual(target.obj.status, status)) return;
    const { kind, metadata } = target.obj;
    target.obj = this.#write(() =>
      this.store.updateStatus(kind, metadata.namespace ?? "default", metadata.name, status),
    );
  }

  // ---------------------------------------------------------------------------------------
  // Pods

  #createPod(owner: PodOwner, ordinal: number): PodRecord | null {
    const namespace = owner.namespace;
    let name: string;
    if (owner.kind === "StatefulSet") name = `${owner.name}-${ordinal}`;
    else {
      do name = `${owner.name}-${randomSuffix(owner.names)}`;
      while (this.#pods.has(`${namespace}/${name}`));
    }
    const workload = owner.workload;
    // The API server's admission, as for any client's pod.
    const object = podFromTemplate(owner, name, ordinal);
    const admitted = admitPod(this.store, object, this.admission);
    if (!admitted.ok) {
      // Upstream names a generateName pod by its prefix; the controller tries again later.
      const shown = owner.kind === "StatefulSet" ? name : `${owner.name}-`;
      const error = `pods "${shown}" is forbidden: ${admitted.reason}`;
      const message =
        owner.kind === "StatefulSet"
          ? `create Pod ${name} in StatefulSet ${owner.name} failed error: ${error}`
          : `Error creating: ${error}`;
      this.#event(
        { component: CONTROLLER_COMPONENTS[owner.kind] },
        referenceOf(owner.obj),
        "FailedCreate",
        message,
        "Warning",
      );
      this.#deferredOwners.add(owner);
      return null;
    }
    // LimitRanger's defaults are the pod's requests: the usage model and the HPA read them.
    const limitRanged =
      admitted.pod.metadata.annotations?.[LIMIT_RANGER_ANNOTATION] !==
      object.metadata.annotations?.[LIMIT_RANGER_ANNOTATION];
    const template = limitRanged
      ? parseTemplate({ metadata: owner.template.metadata, spec: admitted.pod.spec })
      : owner.template;
    // The API server's status of a new pod: Pending, with the QoS class of its (admitted) spec.
    const status = { phase: "Pending", qosClass: template.qosClass };
    return this.#registerPod(
      { ...admitted.pod, status },
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
    this.#kubelet.schedule(record, this.now + record.lifecycle.schedulingDelayMs);
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
    this.#kubelet.schedule(record, this.now + lifecycle.schedulingDelayMs);
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
    const incarnation =
      (this.#pods.get(identity)?.incarnation ?? this.#incarnations.get(identity) ?? 0) + 1;
    this.#incarnations.delete(identity);
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
    record.incarnation = incarnation;
    record.obj = object;
    record.view = podView(record);
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
          entry.records = null;
          record.entries.push(entry);
        }
      }
    }
  }

  /** Drops a pod from every record (it has left the store). */
  #forgetPod(pod: PodRecord): void {
    if (pod.stage === "gone") return;
    this.#changeCounts(pod, () => {
      pod.stage = "gone";
    });
    this.network?.podChanged(pod);
    pod.token++;
    this.#kubelet.release(pod);
    this.#pods.delete(pod.key);
    this.#incarnations.set(pod.key, pod.incarnation);
    this.logs.forget(pod.key);
    this.#podsByNamespace.get(pod.namespace)?.delete(pod);
    for (const entry of pod.entries) {
      entry.members.delete(pod);
      entry.views = null;
      entry.records = null;
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

  #write<T>(action: () => T): T {
    this.#writing++;
    try {
      return action();
    } finally {
      this.#writing--;
    }
  }
}

/** The defaulting kube-apiserver applies to every write of these kinds. */
function withApiDefaults(object: KubeObject): KubeObject {
  if (object.kind === "Service") return applyServiceDefaults(object);
  if (object.kind === "Pod") return { ...object, spec: defaultPodSpecOfPod(object.spec) };
  // A Job given with its uid gets the selector its create would generate.
  if (object.kind === "Job") return prepareJob(object);
  return applyWorkloadDefaults(object);
}

/** ref.GetReference of a stored object. */
function referenceOf(object: KubeObject): InvolvedObject {
  return {
    kind: object.kind,
    apiVersion: object.apiVersion,
    namespace: object.metadata.namespace,
    name: object.metadata.name,
    uid: object.metadata.uid,
    resourceVersion: object.metadata.resourceVersion,
  };
}
