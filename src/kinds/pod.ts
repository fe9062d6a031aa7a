// core/v1 Pod.

import { defaultPodSpecOfPod } from "../api/pod-defaults.js";
import type { KubeObject } from "../api/types.js";
import { condition, conditions, root } from "./meta.js";
import { CONTAINER_STATUS, POD_SPEC } from "./podspec.js";
import { validatePodSpec, validatePodUpdate } from "./podvalidation.js";
import { AGE, asRecord, col, hasTime, humanDuration, int, NAME, since, text } from "./printing.js";
import {
  applyUnlisted,
  atomicOf,
  DEDUCED,
  deduced,
  i64,
  mapList,
  ptr,
  str,
  struct,
  time,
} from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

const CONTAINER_STATUSES = atomicOf(CONTAINER_STATUS);

/** Every write is defaulted as kube-apiserver's decoder does (SetObjectDefaults_Pod). */
function withPodDefaults(object: KubeObject): KubeObject {
  return { ...object, spec: defaultPodSpecOfPod(object.spec) };
}

// Defaulting first, then validation, as the decoder runs before the strategy upstream.
const POD_STRATEGY: KindStrategy = {
  prepareForCreate: (object) => {
    const defaulted = withPodDefaults(object);
    return checked(defaulted, validatePodSpec(defaulted.spec, "spec"));
  },
  prepareForUpdate: (next, current) => {
    const defaulted = withPodDefaults(next);
    return checked(defaulted, validatePodUpdate(defaulted, current));
  },
};

export const pod: KindDefinition<"Pod"> = {
  kind: "Pod",
  resource: "pods",
  singular: "pod",
  description:
    "A Pod is a group of containers scheduled together on one node, sharing network and volumes. Horizon's pods run the workload model, not real processes.",
  group: "",
  versions: [
    {
      version: "v1",
      schema: root(
        "v1.Pod",
        POD_SPEC,
        struct(
          {
            phase: str(undefined, { go: "v1.PodPhase" }),
            conditions: conditions(
              condition("v1.PodCondition", { lastProbeTime: time(), observedGeneration: i64() }),
            ),
            message: str(),
            reason: str(),
            hostIP: str(),
            hostIPs: mapList(["ip"], deduced(struct({ ip: str() }, { go: "v1.HostIP" }))),
            podIP: str(),
            podIPs: mapList(["ip"], deduced(struct({ ip: str() }, { go: "v1.PodIP" }))),
            startTime: time(undefined, ptr),
            initContainerStatuses: CONTAINER_STATUSES,
            containerStatuses: CONTAINER_STATUSES,
            ephemeralContainerStatuses: CONTAINER_STATUSES,
            qosClass: str(undefined, { go: "v1.PodQOSClass" }),
            observedGeneration: i64(),
            // Fields written down after the apply schema: SSA still sees them as undeclared.
            nominatedNodeName: applyUnlisted(str()),
            resize: applyUnlisted(str(undefined, { go: "v1.PodResizeStatus" })),
            resourceClaimStatuses: applyUnlisted(DEDUCED),
          },
          { go: "v1.PodStatus", zero: true },
        ),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status", "log"],
  shortNames: ["po"],
  categories: ["all"],
  returnsDeletedObject: true,
  gcPolicy: "None",
  generation: "spec",
  fieldSelectors: [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  strategy: POD_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
      col("Status", "string", "The aggregate status of the containers in this pod."),
      col(
        "Restarts",
        "string",
        "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
      ),
      AGE,
      col(
        "IP",
        "string",
        "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
        { priority: 1 },
      ),
      col("Node", "string", "NodeName indicates in which node this pod is scheduled.", {
        priority: 1,
      }),
      col(
        "Nominated Node",
        "string",
        "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.",
        { priority: 1 },
      ),
      col(
        "Readiness Gates",
        "string",
        "If specified, all readiness gates will be evaluated for pod readiness.",
        { priority: 1 },
      ),
    ],
    cells: podCells,
    conditions: (obj) => {
      const phase = asRecord(obj.status).phase;
      if (phase === "Succeeded") {
        return [
          {
            type: "Completed",
            status: "True",
            reason: "Succeeded",
            message: "The pod has completed successfully.",
          },
        ];
      }
      if (phase === "Failed") {
        return [
          { type: "Completed", status: "True", reason: "Failed", message: "The pod failed." },
        ];
      }
      return undefined;
    },
  },
};

function podCells(pod: KubeObject, now: number): unknown[] {
  const spec = asRecord(pod.spec);
  const status = asRecord(pod.status);
  const containers = (spec.containers ?? []) as Record<string, unknown>[];
  const initContainers = (spec.initContainers ?? []) as Record<string, unknown>[];
  const conditions = (status.conditions ?? []) as Record<string, unknown>[];
  const restartable = (name: unknown) =>
    initContainers.some((c) => c.name === name && c.restartPolicy === "Always");

  let restarts = 0;
  let restartableRestarts = 0;
  let totalContainers = containers.length;
  let readyContainers = 0;
  let lastRestart = 0;
  let lastRestartableRestart = 0;
  const phase = text(status.phase);
  let reason = text(status.reason) || phase;

  for (const c of conditions) {
    if (c.type === "PodScheduled" && c.reason === "SchedulingGated") reason = "SchedulingGated";
  }
  for (const c of initContainers) if (c.restartPolicy === "Always") totalContainers++;

  const finishedAt = (cs: Record<string, unknown>): number => {
    const t = asRecord(asRecord(cs.lastState).terminated).finishedAt;
    return hasTime(t) ? Date.parse(t as string) : 0;
  };

  let initializing = false;
  const initStatuses = (status.initContainerStatuses ?? []) as Record<string, unknown>[];
  for (const [i, cs] of initStatuses.entries()) {
    restarts += int(cs.restartCount);
    lastRestart = Math.max(lastRestart, finishedAt(cs));
    const isRestartable = restartable(cs.name);
    if (isRestartable) {
      restartableRestarts += int(cs.restartCount);
      lastRestartableRestart = Math.max(lastRestartableRestart, finishedAt(cs));
    }
    const state = asRecord(cs.state);
    const terminated = state.terminated ? asRecord(state.terminated) : undefined;
    const waiting = state.waiting ? asRecord(state.waiting) : undefined;
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (isRestartable && cs.started === true) {
      if (cs.ready === true) readyContainers++;
      continue;
    }
    if (terminated) {
      if (text(terminated.reason) === "") {
        reason =
          int(terminated.signal) !== 0
            ? `Init:Signal:${int(terminated.signal)}`
            : `Init:ExitCode:${int(terminated.exitCode)}`;
      } else reason = `Init:${text(terminated.reason)}`;
    } else if (waiting && text(waiting.reason) !== "" && waiting.reason !== "PodInitializing") {
      reason = `Init:${text(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  const initialized = conditions.some((c) => c.type === "Initialized" && c.status === "True");
  if (!initializing || initialized) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let hasRunning = false;
    const statuses = (status.containerStatuses ?? []) as Record<string, unknown>[];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      restarts += int(cs.restartCount);
      lastRestart = Math.max(lastRestart, finishedAt(cs));
      const state = asRecord(cs.state);
      const terminated = state.terminated ? asRecord(state.terminated) : undefined;
      const waiting = state.waiting ? asRecord(state.waiting) : undefined;
      if (waiting && text(waiting.reason) !== "") reason = text(waiting.reason);
      else if (terminated && text(terminated.reason) !== "") reason = text(terminated.reason);
      else if (terminated) {
        reason =
          int(terminated.signal) !== 0
            ? `Signal:${int(terminated.signal)}`
            : `ExitCode:${int(terminated.exitCode)}`;
      } else if (cs.ready === true && state.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A pod whose containers report Completed but one still runs is shown as running.
    if (reason === "Completed" && hasRunning) {
      reason = conditions.some((c) => c.type === "Ready" && c.status === "True")
        ? "Running"
        : "NotReady";
    }
  }

  const deleting = hasTime(pod.metadata.deletionTimestamp);
  if (deleting && status.reason === "NodeLost") reason = "Unknown";
  else if (deleting && phase !== "Failed" && phase !== "Succeeded") reason = "Terminating";

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestart !== 0) {
    restartsText = `${restarts} (${humanDuration(now - lastRestart)} ago)`;
  }

  const podIPs = (status.podIPs ?? []) as Record<string, unknown>[];
  const podIP = text(podIPs[0]?.ip) || "<none>";
  const nodeName = text(spec.nodeName) || "<none>";
  const nominated = text(status.nominatedNodeName) || "<none>";
  const gates = (spec.readinessGates ?? []) as Record<string, unknown>[];
  let readinessGates = "<none>";
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const gate of gates) {
      const condition = conditions.find((c) => c.type === gate.conditionType);
      if (condition?.status === "True") trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }
  return [
    pod.metadata.name,
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsText,
    since(pod.metadata.creationTimestamp, now),
    podIP,
    nodeName,
    nominated,
    readinessGates,
  ];
}
