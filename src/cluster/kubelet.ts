// The kubelet of the embedded cluster's node: pod lifecycles played as data (kwok-style stages:
// waiting → creating → running → ready → available; failed; terminating) on a timer heap, the
// Pod object and PodView of a record at its stage, graceful and final deletes, and the stage a
// restored pod is at.

import { createHash } from "node:crypto";
import { rfc3339, truncateToSecond } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import type { PodView } from "../core/pods.js";
import { DEFAULT_POD_GRACE_SECONDS, deleteFromStore } from "../registry/delete.js";
import type { ObjectStore } from "../registry/store.js";
import type { PodLifecycleModel, UsageModel } from "./cluster-model.js";
import { TimerHeap } from "./heap.js";
import type { PodOwner, PodRecord } from "./model.js";
import type { Scheduler } from "./scheduler.js";

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

/** Upstream kubelet's container restart back-off: 10 s, doubling, at most 5 minutes. */
export const CRASH_BACKOFF_INITIAL_MS = 10_000;
export const CRASH_BACKOFF_MAX_MS = 300_000;

/** The kubelet's Events of a container it starts (the image is always present here). */
function containerStarted(c: { name: string; image: string }): [string, string][] {
  return [
    ["Pulled", `Container image "${c.image}" already present on machine`],
    ["Created", `Created container: ${c.name}`],
    ["Started", `Started container ${c.name}`],
  ];
}

/** The scheduler's word for a pod the one full node cannot take. */
const UNSCHEDULABLE =
  "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";

/** Failed pods are collected after this long (upstream's PodGC keeps up to 12,500 terminated pods). */
export const FAILED_POD_TTL_MS = 5 * 60_000;

export const NODE_NAME = "horizon-node";
/** Where pods and the kubelet are reachable: this machine's loopback (pods listen on 127/8). */
export const NODE_INTERNAL_IP = "127.0.0.1";

/** The node's labels (what a pod's nodeSelector is matched against). */
export const NODE_LABELS: Readonly<Record<string, string>> = {
  "kubernetes.io/hostname": NODE_NAME,
  "kubernetes.io/os": "linux",
  "kubernetes.io/arch": "amd64",
};

/**
 * The grace a controller's delete gives: the scenario's model for the workloads it models
 * (the pod template's terminationGracePeriodSeconds, or its own default), else the pod's
 * terminationGracePeriodSeconds as the API server defaults it (30 s).
 */
export function graceMs(pod: PodRecord): number {
  if (pod.lifecycle !== DEFAULT_LIFECYCLE) return pod.lifecycle.terminationGracePeriodMs;
  const seconds = (pod.obj.spec as { terminationGracePeriodSeconds?: unknown } | undefined)
    ?.terminationGracePeriodSeconds;
  return typeof seconds === "number" && seconds >= 0
    ? seconds * 1000
    : DEFAULT_POD_GRACE_SECONDS * 1000;
}

/** A modelled workload's readiness delay, else its pod template's readiness probe's. */
function readinessDelayMs(pod: PodRecord): number {
  return pod.lifecycle === DEFAULT_LIFECYCLE
    ? pod.template.readinessDelayMs
    : pod.lifecycle.readinessDelayMs;
}

/**
 * The Pod object the kubelet writes for the record's stage (spec.nodeName once bound). Written
 * `throughStatus`: neither the binding nor a status write bumps the pod's generation.
 */
export function podObject(pod: PodRecord): KubeObject {
  const base = pod.obj;
  // The deletion mark (deletionTimestamp, grace) is already on the object.
  const metadata: KubeObject["metadata"] = { ...base.metadata, resourceVersion: undefined };
  let spec = base.spec;
  if (pod.bound && (spec as { nodeName?: string }).nodeName !== NODE_NAME) {
    spec = { ...(spec as object), nodeName: NODE_NAME };
  }
  return { ...base, metadata, spec, status: podStatus(pod) };
}

/** The pod as the controller's PodsPort shows it (cached on the record). */
export function podView(pod: PodRecord): PodView {
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

/**
 * Sets a restored pod's stage and timestamps from its stored status (the kubelet finding its
 * pods after a restart); returns when its next stage is due, or null.
 */
export function restoreStage(pod: PodRecord, object: KubeObject, now: number): number | null {
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
  if (status.phase === "Succeeded" || (status.phase === "Failed" && isJobPod(pod))) {
    // A Job's finished pod stays, holding no place on the node, until its Job goes.
    pod.stage = status.phase === "Succeeded" ? "succeeded" : "failed";
    pod.scheduledAt = time(status.startTime);
    pod.completesAt = time(state?.terminated?.finishedAt) ?? now;
    if (pod.stage === "failed") pod.failedAt = pod.completesAt;
    pod.readyCondition = {
      status: "False",
      time:
        time(status.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime) ??
        truncateToSecond(now),
    };
    return null;
  }
  if (status.phase === "Failed") {
    pod.stage = "failed";
    pod.scheduledAt = time(status.startTime);
    pod.failedAt = time(state?.terminated?.finishedAt) ?? now;
    pod.readyCondition = {
      status: "False",
      time:
        time(status.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime) ??
        truncateToSecond(now),
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
  if (isJobPod(pod)) pod.completesAt = runningAt + pod.template.jobRun.runDurationMs;
  if (lifecycle.startupCpuBurst && pod.workload) pod.workload.bursting.push(pod);
  if (ready?.status !== "True") {
    pod.stage = "running";
    return Math.min(runningAt + readinessDelayMs(pod), pod.completesAt ?? Infinity);
  }
  pod.stage = "ready";
  pod.readyAt = readyTime;
  const availableAt = readyTime + ownerMinReadyMs(pod.owner);
  pod.available = availableAt <= now;
  if (pod.completesAt !== null) return pod.completesAt;
  return pod.available ? null : availableAt;
}

export function ownerMinReadyMs(owner: PodOwner | null): number {
  const seconds =
    (owner?.obj.spec as { minReadySeconds?: number } | undefined)?.minReadySeconds ?? 0;
  return seconds * 1000;
}

export function podPhase(pod: PodRecord): "Pending" | "Running" | "Succeeded" | "Failed" {
  if (pod.stage === "failed") return "Failed";
  if (pod.stage === "succeeded") return "Succeeded";
  return pod.runningAt !== null ? "Running" : "Pending";
}

/** A Job's pod: its containers exit after the template's run duration. */
function isJobPod(pod: PodRecord): boolean {
  return pod.owner?.kind === "Job";
}

/**
 * The image as the container runtime reports it once the container exists: a Docker reference
 * in full (`nginx` → `docker.io/library/nginx:latest`).
 */
export function runtimeImageName(image: string): string {
  let name = RUNTIME_IMAGE_NAMES.get(image);
  if (name === undefined) {
    name = fullImageName(image);
    // One string per image, not one per pod (a bounded cache: images are few).
    if (RUNTIME_IMAGE_NAMES.size < 10_000) RUNTIME_IMAGE_NAMES.set(image, name);
  }
  return name;
}

const RUNTIME_IMAGE_NAMES = new Map<string, string>();

function fullImageName(image: string): string {
  const slash = image.indexOf("/");
  const first = slash < 0 ? "" : image.slice(0, slash);
  let name = image;
  if (slash < 0 || (!first.includes(".") && !first.includes(":") && first !== "localhost")) {
    name = `docker.io/${image.includes("/") ? image : `library/${image}`}`;
  }
  const last = name.slice(name.lastIndexOf("/") + 1);
  return last.includes(":") || last.includes("@") ? name : `${name}:latest`;
}

// Parts every pod's status shares (frozen: one object for all of them).
const NODE_HOST_IPS = Object.freeze([Object.freeze({ ip: NODE_INTERNAL_IP })]);
const NO_LAST_STATE = Object.freeze({});

/** The scheme of the container IDs this node's runtime reports (`<type>://<id>`). */
const CONTAINER_RUNTIME = "horizon";

/** A container's ID: the same for one run of it, a new one on each restart. */
function containerId(pod: PodRecord, container: string, restarts: number): string {
  const id = createHash("sha256")
    .update(`${pod.obj.metadata.uid ?? pod.name}/${container}/${restarts}`)
    .digest("hex");
  return `${CONTAINER_RUNTIME}://${id}`;
}

/** The IDs of the pod's containers' first runs (kept on the record: every status names them). */
function containerIds(pod: PodRecord): string[] {
  pod.containerIds ??= pod.template.containerNames.map((name) => containerId(pod, name, 0));
  return pod.containerIds;
}

/**
 * The pod's status as the kubelet writes it (with the PodObservedGenerationTracking and
 * PodReadyToStartContainersCondition gates of v1.34 on): the generation it saw, on the status
 * and on each condition it owns.
 */
export function podStatus(pod: PodRecord): Record<string, unknown> {
  const phase = podPhase(pod);
  // Every stored pod has one (1 at create); the kubelet only sees stored pods.
  const observed = pod.obj.metadata.generation ?? 1;
  const qosClass = pod.template.qosClass;
  if (pod.scheduledAt === null) {
    const status: Record<string, unknown> = { phase: "Pending", qosClass };
    if (pod.stage === "unschedulable") {
      status.conditions = [
        {
          type: "PodScheduled",
          observedGeneration: observed,
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
  const crash = pod.crashLoop;
  const notReady =
    ready.status === "False"
      ? {
          reason:
            pod.stage === "failed"
              ? "PodFailed"
              : pod.stage === "succeeded"
                ? "PodCompleted"
                : "ContainersNotReady",
          ...(crash ? { message: `containers with unready status: [${crash.container}]` } : {}),
        }
      : {};
  const containerReady = ready.status === "True";
  const containerStatuses = pod.template.containerNames.map((name, index) => {
    if (crash?.container === name && pod.stage !== "failed") {
      return crashedContainerStatus(pod, crash, containerReady);
    }
    let state: Record<string, unknown>;
    if (pod.stage === "succeeded" || (pod.stage === "failed" && isJobPod(pod))) {
      // A Job's container ran its course and exited with the template's code.
      const exitCode = pod.template.jobRun.exitCode;
      state = {
        terminated: {
          exitCode,
          reason: exitCode === 0 ? "Completed" : "Error",
          startedAt: rfc3339(pod.runningAt ?? pod.scheduledAt!),
          finishedAt: rfc3339(pod.completesAt ?? pod.scheduledAt!),
        },
      };
    } else if (pod.stage === "failed") {
      state = {
        terminated: {
          exitCode: 1,
          reason: "Error",
          finishedAt: rfc3339(pod.failedAt ?? pod.scheduledAt!),
        },
      };
    } else if (pod.runningAt !== null) state = { running: { startedAt: rfc3339(pod.runningAt) } };
    else state = { waiting: { reason: "ContainerCreating" } };
    const image = pod.template.containerImages[index] ?? "";
    const created = pod.runningAt !== null;
    return {
      name,
      state,
      lastState: NO_LAST_STATE,
      ready: containerReady,
      restartCount: 0,
      // No image digests here: imageID stays empty, as for a container not yet created.
      image: created ? runtimeImageName(image) : image,
      imageID: "",
      ...(created ? { containerID: containerIds(pod)[index] } : {}),
      started: created && pod.stage !== "failed" && pod.stage !== "succeeded",
    };
  });
  // The sandbox exists from binding until the pod's containers are done for good.
  const ended =
    pod.stage === "succeeded" || pod.stage === "failed"
      ? (pod.completesAt ?? pod.failedAt ?? pod.scheduledAt)
      : null;
  return {
    observedGeneration: observed,
    phase,
    conditions: [
      {
        type: "PodReadyToStartContainers",
        observedGeneration: observed,
        status: ended === null ? "True" : "False",
        lastProbeTime: null,
        lastTransitionTime: ended === null ? scheduled : rfc3339(truncateToSecond(ended)),
      },
      {
        type: "Initialized",
        observedGeneration: observed,
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: scheduled,
      },
      {
        type: "Ready",
        observedGeneration: observed,
        status: ready.status,
        lastProbeTime: null,
        lastTransitionTime: readyTime,
        ...notReady,
      },
      {
        type: "ContainersReady",
        observedGeneration: observed,
        status: ready.status,
        lastProbeTime: null,
        lastTransitionTime: readyTime,
        ...notReady,
      },
      {
        type: "PodScheduled",
        observedGeneration: observed,
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: scheduled,
      },
    ],
    hostIP: NODE_INTERNAL_IP,
    hostIPs: NODE_HOST_IPS,
    ...(pod.ip !== null ? { podIP: pod.ip, podIPs: [{ ip: pod.ip }] } : {}),
    startTime: scheduled,
    containerStatuses,
    qosClass,
  };
}

/** A restarted container's status: waiting out its back-off, or running again; its last exit. */
function crashedContainerStatus(
  pod: PodRecord,
  crash: NonNullable<PodRecord["crashLoop"]>,
  ready: boolean,
): Record<string, unknown> {
  const backingOff = crash.backOffMs !== null;
  const uid = pod.obj.metadata.uid ?? "";
  return {
    name: crash.container,
    ready: ready && !backingOff,
    restartCount: crash.restarts,
    image: runtimeImageName(
      pod.template.containerImages[pod.template.containerNames.indexOf(crash.container)] ?? "",
    ),
    imageID: "",
    containerID: containerId(pod, crash.container, crash.restarts),
    started: !backingOff,
    state: backingOff
      ? {
          waiting: {
            reason: "CrashLoopBackOff",
            message: `back-off ${crash.backOffMs! / 1000}s restarting failed container=${crash.container} pod=${pod.name}_${pod.namespace}(${uid})`,
          },
        }
      : { running: { startedAt: rfc3339(crash.startedAt) } },
    lastState: {
      terminated: {
        exitCode: 1,
        reason: "Error",
        message: crash.message,
        startedAt: rfc3339(crash.startedAt),
        finishedAt: rfc3339(crash.finishedAt),
      },
    },
  };
}

/** What the kubelet uses of the cluster: store, clock, scheduler and the pod records' counts. */
export interface KubeletHost {
  readonly store: ObjectStore;
  /** The virtual time everything has run up to (epoch ms). */
  readonly now: number;
  readonly scheduler: Scheduler;
  /** A write by the cluster itself: its store listener does not react to it. */
  write<T>(action: () => T): T;
  /** Runs `change` on the pod; its owner's active / ready / available counts follow. */
  changeCounts(pod: PodRecord, change: () => void): void;
  /** The owner's controller runs again. */
  ownerChanged(owner: PodOwner): void;
  /** The pod has left the store: it leaves every record. */
  forgetPod(pod: PodRecord): void;
  /** A bound pod gets its address (when the cluster has a network). */
  assignPodIp(pod: PodRecord): void;
  /** The pod's containers started or stopped (the network serves them). */
  podChanged(pod: PodRecord): void;
  /** A line a container of the pod wrote to its log now. */
  log(pod: PodRecord, container: string, text: string): void;
  /** An Event about the pod (or one of its containers) from the scheduler or the kubelet. */
  event(
    pod: PodRecord,
    component: "kubelet" | "default-scheduler",
    reason: string,
    message: string,
    options?: { container?: string; warning?: boolean },
  ): void;
}

interface PodTimer {
  pod: PodRecord;
  token: number;
}

export class Kubelet {
  readonly #host: KubeletHost;
  readonly #heap = new TimerHeap<PodTimer>();
  /** Pods others marked for deletion, whose status is still to be written. */
  readonly #markedPods = new Set<PodRecord>();

  constructor(host: KubeletHost) {
    this.#host = host;
  }

  /** When the next pod transition is due (Infinity when none). */
  nextDue(): number {
    return this.#heap.peekAt();
  }

  /** Runs every pod transition due at or before `t`. */
  runDue(t: number): void {
    while (this.#heap.peekAt() <= t) {
      const timer = this.#heap.pop();
      if (!timer) break;
      const { pod, token } = timer.value;
      if (pod.token === token) this.#podTimer(pod);
    }
  }

  /** The pod's next stage is due at `at` (a later call replaces the timer). */
  schedule(pod: PodRecord, at: number): void {
    pod.token++;
    this.#heap.push(at, { pod, token: pod.token });
  }

  /** A pod's due transition. */
  #podTimer(pod: PodRecord): void {
    const now = this.#host.now;
    switch (pod.stage) {
      case "waiting":
        if (this.#host.scheduler.hasCapacity()) this.#bind(pod);
        else {
          this.#setStage(pod, "unschedulable");
          this.#host.scheduler.wait(pod);
          this.#host.event(pod, "default-scheduler", "FailedScheduling", UNSCHEDULABLE, {
            warning: true,
          });
        }
        break;
      case "creating":
        if (pod.willFail) {
          pod.failedAt = now;
          this.#setStage(pod, "failed");
          this.release(pod);
          this.schedule(pod, now + FAILED_POD_TTL_MS);
        } else {
          pod.runningAt = now;
          if (isJobPod(pod)) pod.completesAt = now + pod.template.jobRun.runDurationMs;
          if (pod.lifecycle.startupCpuBurst && pod.workload) pod.workload.bursting.push(pod);
          this.#setStage(pod, "running");
          this.#containerEvents(pod, containerStarted);
          this.#startupLines(pod);
          this.schedule(pod, Math.min(now + readinessDelayMs(pod), pod.completesAt ?? Infinity));
        }
        break;
      case "running": {
        if (pod.crashLoop && pod.crashLoop.backOffMs !== null) {
          this.#restartContainer(pod);
          break;
        }
        if (pod.completesAt !== null && now >= pod.completesAt) {
          this.#containersExited(pod);
          break;
        }
        pod.readyAt = now;
        pod.readyCondition = { status: "True", time: truncateToSecond(now) };
        const minReady = ownerMinReadyMs(pod.owner);
        pod.available = minReady <= 0;
        this.#setStage(pod, "ready");
        if (pod.completesAt !== null) this.schedule(pod, pod.completesAt);
        else if (minReady > 0) this.schedule(pod, now + minReady);
        break;
      }
      case "ready":
        if (pod.completesAt !== null && now >= pod.completesAt) {
          this.#containersExited(pod);
          break;
        }
        // minReadySeconds elapsed: the pod now counts as available.
        this.#host.changeCounts(pod, () => {
          pod.available = true;
        });
        break;
      case "terminating":
      case "failed":
        this.removePod(pod);
        break;
      default:
        break;
    }
  }

  /**
   * A Job's pod ran its course: its containers exit with the template's code (0: Succeeded, else
   * Failed), it is no longer Ready and frees its place on the node; it stays until its Job goes.
   */
  #containersExited(pod: PodRecord): void {
    const now = this.#host.now;
    const failed = pod.template.jobRun.exitCode !== 0;
    if (failed) pod.failedAt = now;
    pod.readyCondition = { status: "False", time: truncateToSecond(now) };
    this.#host.changeCounts(pod, () => {
      pod.available = false;
    });
    this.#setStage(pod, failed ? "failed" : "succeeded");
    this.release(pod);
  }

  /**
   * A container could not start (its port is already in use): it exits with an error and the
   * kubelet restarts it after a back-off, the pod not Ready meanwhile (CrashLoopBackOff), so it
   * leaves the Service's endpoints.
   */
  containerFailed(pod: PodRecord, container: string, message: string): void {
    if (pod.stage !== "running" && pod.stage !== "ready") return;
    if (pod.crashLoop && pod.crashLoop.backOffMs !== null) return;
    const now = this.#host.now;
    const restarts = pod.crashLoop?.restarts ?? 0;
    const backOffMs = Math.min(CRASH_BACKOFF_INITIAL_MS * 2 ** restarts, CRASH_BACKOFF_MAX_MS);
    pod.crashLoop = {
      container,
      message,
      restarts,
      startedAt: pod.crashLoop?.startedAt ?? pod.runningAt ?? now,
      finishedAt: now,
      backOffMs,
    };
    this.#host.changeCounts(pod, () => {
      pod.readyAt = null;
      pod.available = false;
    });
    pod.readyCondition = { status: "False", time: truncateToSecond(now) };
    this.#setStage(pod, "running");
    this.schedule(pod, now + backOffMs);
    this.#host.event(
      pod,
      "kubelet",
      "BackOff",
      `Back-off restarting failed container ${container} in pod ${pod.name}_${pod.namespace}(${pod.obj.metadata.uid ?? ""})`,
      { container, warning: true },
    );
  }

  /** The back-off is over: the container starts again, and is Ready after the usual delay. */
  #restartContainer(pod: PodRecord): void {
    const now = this.#host.now;
    const crash = pod.crashLoop!;
    crash.restarts++;
    crash.backOffMs = null;
    crash.startedAt = now;
    this.#setStage(pod, "running");
    this.#containerEvents(pod, (c) => (c.name === crash.container ? containerStarted(c) : []));
    this.#startupLines(pod, crash.container);
    this.schedule(pod, now + pod.lifecycle.readinessDelayMs);
  }

  /** The app model's first line in each started container's log (or in the one restarted). */
  #startupLines(pod: PodRecord, only?: string): void {
    const spec = pod.obj.spec as
      | { containers?: { name?: string; ports?: { containerPort?: number }[] }[] }
      | undefined;
    for (const c of spec?.containers ?? []) {
      const name = c.name ?? "";
      if (only !== undefined && name !== only) continue;
      // The text built here, not an array made by `map` (holey when optimized code makes it,
      // packed when the interpreter does: its readers deoptimized).
      let ports = "";
      for (const p of c.ports ?? []) ports += `${ports === "" ? "" : ", "}:${p.containerPort}`;
      this.#host.log(
        pod,
        name,
        ports !== "" ? `${pod.name}: listening on ${ports}` : `${pod.name}: started`,
      );
    }
  }

  /** The scheduler binds the pod: the kubelet starts creating its containers. */
  #bind(pod: PodRecord): void {
    const now = this.#host.now;
    this.#host.scheduler.bind(pod);
    this.#host.assignPodIp(pod);
    pod.scheduledAt = now;
    pod.readyCondition = { status: "False", time: truncateToSecond(now) };
    this.#setStage(pod, "creating");
    this.schedule(pod, now + pod.lifecycle.containerStartDelayMs);
    this.#host.event(
      pod,
      "default-scheduler",
      "Scheduled",
      `Successfully assigned ${pod.namespace}/${pod.name} to ${NODE_NAME}`,
    );
  }

  /** Events about each of the pod's containers (reason, message), from the kubelet. */
  #containerEvents(
    pod: PodRecord,
    events: (container: { name: string; image: string }) => [string, string][],
  ): void {
    const spec = pod.obj.spec as { containers?: { name?: string; image?: string }[] } | undefined;
    for (const c of spec?.containers ?? []) {
      const container = { name: c.name ?? "", image: c.image ?? "" };
      for (const [reason, message] of events(container)) {
        this.#host.event(pod, "kubelet", reason, message, { container: container.name });
      }
    }
  }

  /** The pod frees its place on the node; waiting pods bind. */
  release(pod: PodRecord): void {
    this.#host.scheduler.release(pod, (next) => this.#bind(next));
  }

  /**
   * A controller's graceful deletion (default DeleteOptions): an unbound or failed pod goes at
   * once (as the API server deletes unscheduled pods); a bound one gets its deletionTimestamp,
   * stops being ready and serving, and disappears after the termination grace period.
   */
  deletePod(pod: PodRecord): void {
    if (pod.stage === "terminating" || pod.stage === "gone") return;
    if (!pod.bound || pod.stage === "failed") {
      this.removePod(pod);
      return;
    }
    const now = this.#host.now;
    const grace = graceMs(pod);
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
    if (grace <= 0) this.removePod(pod);
    else this.schedule(pod, now + grace);
  }

  #startTerminating(pod: PodRecord): void {
    const now = this.#host.now;
    pod.deletingAt = now;
    if (pod.runningAt !== null && pod.stage !== "failed") {
      this.#containerEvents(pod, (c) => [["Killing", `Stopping container ${c.name}`]]);
    }
    if (pod.readyCondition?.status === "True") {
      pod.readyCondition = { status: "False", time: truncateToSecond(now) };
    }
  }

  /**
   * A client (or the garbage collector) marked a pod for deletion: it terminates until its
   * deletionTimestamp, then the kubelet's final delete removes it. A zero grace period leaves
   * the removal to the API server (or to whoever removes the pod's finalizers). The pod's
   * status is written later (flushMarkedPods): a store listener must not write.
   */
  podMarked(pod: PodRecord, object: KubeObject): void {
    if (pod.stage === "gone") return;
    const first = pod.stage !== "terminating";
    if (first) {
      this.#startTerminating(pod);
      this.#host.changeCounts(pod, () => {
        pod.stage = "terminating";
      });
      pod.view = podView(pod);
      for (const entry of pod.entries) entry.views = null;
      if (pod.owner) this.#host.ownerChanged(pod.owner);
      this.#markedPods.add(pod);
    }
    const grace = object.metadata.deletionGracePeriodSeconds;
    if (typeof grace === "number" && grace > 0) {
      const deadline = Date.parse(object.metadata.deletionTimestamp ?? "");
      const at = first ? this.#host.now + grace * 1000 : Math.max(this.#host.now, deadline);
      this.schedule(pod, Number.isFinite(at) ? at : this.#host.now);
    } else {
      pod.token++;
    }
  }

  /** Writes the status of pods marked by others (not ready, containers stopping). */
  flushMarkedPods(): void {
    if (this.#markedPods.size === 0) return;
    const pods = [...this.#markedPods];
    this.#markedPods.clear();
    for (const pod of pods) {
      if (pod.stage === "gone" || !this.#host.store.get("Pod", pod.namespace, pod.name)) continue;
      const object = podObject(pod);
      pod.obj = this.#host.write(() => this.#host.store.update(object, { throughStatus: true }));
    }
  }

  /**
   * The kubelet's final delete (grace period 0): the pod leaves the store, unless finalizers
   * keep it there (marked) until they are removed.
   */
  removePod(pod: PodRecord): void {
    if (pod.stage === "gone") return;
    const current = this.#host.store.get("Pod", pod.namespace, pod.name);
    if (current) {
      this.#host.write(() =>
        deleteFromStore(
          this.#host.store,
          current,
          { gracePeriodSeconds: 0 },
          this.#host.now,
          "None",
        ),
      );
    }
    this.#host.forgetPod(pod);
  }

  /** Moves a pod to a stage: counts, the stored object and the cached view follow. */
  #setStage(pod: PodRecord, stage: PodRecord["stage"]): void {
    this.#host.changeCounts(pod, () => {
      pod.stage = stage;
    });
    const object = podObject(pod);
    if (this.#host.store.get("Pod", pod.namespace, pod.name)) {
      pod.obj = this.#host.write(() => this.#host.store.update(object, { throughStatus: true }));
    }
    pod.view = podView(pod);
    for (const entry of pod.entries) entry.views = null;
    if (pod.owner) this.#host.ownerChanged(pod.owner);
    this.#host.podChanged(pod);
  }
}
