// The view of a pod the algorithm needs, parsed once when the pod changes (not on every sync).
import { Quantity } from "../api/quantity.js";

export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";

export interface ContainerRequests {
  name: string;
  /** Resource name → request in milli-units (Quantity.milliValue()). Absent = no request. */
  requests: Record<string, number>;
}

export interface PodView {
  name: string;
  labels: Record<string, string>;
  phase: PodPhase;
  /** A deletion timestamp is set. */
  deleting: boolean;
  /** status.startTime in epoch milliseconds; null when unset. */
  startTime: number | null;
  /** The Ready condition; null when the pod has none. */
  ready: { status: "True" | "False" | "Unknown"; lastTransitionTime: number } | null;
  containers: ContainerRequests[];
  /** Init containers with restartPolicy Always (sidecars); plain init containers never count. */
  restartableInitContainers: ContainerRequests[];
  /** spec.resources.requests (pod-level resources), milli-units; null when unset. */
  podRequests: Record<string, number> | null;
}

interface RawContainer {
  name?: string;
  restartPolicy?: string;
  resources?: { requests?: Record<string, string | number> };
}

interface RawPod {
  metadata?: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string | null };
  spec?: {
    containers?: RawContainer[];
    initContainers?: RawContainer[];
    resources?: { requests?: Record<string, string | number> };
  };
  status?: {
    phase?: string;
    startTime?: string | null;
    conditions?: { type: string; status: string; lastTransitionTime?: string | null }[];
  };
}

// Go's zero time (0001-01-01T00:00:00Z): what an unset lastTransitionTime means upstream.
const GO_ZERO = new Date("0001-01-01T00:00:00Z").getTime();

function parseRequests(raw: Record<string, string | number> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [resource, value] of Object.entries(raw ?? {})) {
    out[resource] = Number(Quantity.parse(value).milliValue());
  }
  return out;
}

function parseTime(text: string | null | undefined): number | null {
  if (!text) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

// The same string for every pod (JSON.parse makes one per pod: 100,000 pods held 100,000
// copies of "Running" and of "True").
const PHASES = new Map<string, PodPhase>(
  (["Pending", "Running", "Succeeded", "Failed", "Unknown"] as const).map((p) => [p, p]),
);
const CONDITION_STATUSES = new Map<string, "True" | "False" | "Unknown">(
  (["True", "False", "Unknown"] as const).map((s) => [s, s]),
);

function internPhase(phase: string | null | undefined): PodPhase {
  if (phase === undefined || phase === null) return "Pending";
  return PHASES.get(phase) ?? (phase as PodPhase);
}

/** Builds the algorithm's view of a core/v1 Pod object. */
export function podViewFromObject(pod: RawPod): PodView {
  const readyCondition = pod.status?.conditions?.find((c) => c.type === "Ready");
  return {
    name: pod.metadata?.name ?? "",
    labels: pod.metadata?.labels ?? {},
    phase: internPhase(pod.status?.phase),
    deleting: Boolean(pod.metadata?.deletionTimestamp),
    startTime: parseTime(pod.status?.startTime),
    ready: readyCondition
      ? {
          status: (CONDITION_STATUSES.get(readyCondition.status) ?? readyCondition.status) as
            | "True"
            | "False"
            | "Unknown",
          lastTransitionTime: parseTime(readyCondition.lastTransitionTime) ?? GO_ZERO,
        }
      : null,
    containers: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name ?? "",
      requests: parseRequests(c.resources?.requests),
    })),
    restartableInitContainers: (pod.spec?.initContainers ?? [])
      .filter((c) => c.restartPolicy === "Always")
      .map((c) => ({ name: c.name ?? "", requests: parseRequests(c.resources?.requests) })),
    podRequests: pod.spec?.resources?.requests ? parseRequests(pod.spec.resources.requests) : null,
  };
}

/** Upstream's podutil.IsPodReady: a Ready condition with status True. */
export function isPodReady(pod: PodView): boolean {
  return pod.ready?.status === "True";
}
