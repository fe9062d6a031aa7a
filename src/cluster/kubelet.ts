// The kubelet's side of the embedded cluster, as data: the Pod object and PodView of a pod
// record at its stage (kwok-style stages: waiting → creating → running → ready; failed;
// terminating), the grace period of a graceful delete, and the stage a restored pod is at.
import type { KubeObject } from "../api/types.js";
import type { PodView } from "../core/pods.js";
import type { PodLifecycleModel, UsageModel } from "./cluster-model.js";
import { DEFAULT_POD_GRACE_SECONDS } from "./gc.js";
import type { PodOwner, PodRecord } from "./model.js";
import { rfc3339, truncateToSecond } from "./time.js";

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

export const NODE_NAME = "horizon-node";

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

/** The Pod object the kubelet writes for the record's stage (spec.nodeName once bound). */
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
  if (lifecycle.startupCpuBurst && pod.workload) pod.workload.bursting.push(pod);
  if (ready?.status !== "True") {
    pod.stage = "running";
    return runningAt + lifecycle.readinessDelayMs;
  }
  pod.stage = "ready";
  pod.readyAt = readyTime;
  const availableAt = readyTime + ownerMinReadyMs(pod.owner);
  pod.available = availableAt <= now;
  return pod.available ? null : availableAt;
}

export function ownerMinReadyMs(owner: PodOwner | null): number {
  const seconds =
    (owner?.obj.spec as { minReadySeconds?: number } | undefined)?.minReadySeconds ?? 0;
  return seconds * 1000;
}

export function podPhase(pod: PodRecord): "Pending" | "Running" | "Failed" {
  if (pod.stage === "failed") return "Failed";
  return pod.runningAt !== null ? "Running" : "Pending";
}

export function podStatus(pod: PodRecord): Record<string, unknown> {
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
