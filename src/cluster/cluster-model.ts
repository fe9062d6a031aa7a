// What the embedded cluster plays besides its objects: per workload a pod lifecycle, a usage
// model and traffic; the custom and external metrics it serves; capacity, the metrics-server
// resolution and the seed of every random stream. Durations in milliseconds. The simulator maps
// a Scenario onto it (src/sim/cluster.ts); `horizon up` without a scenario uses an empty one.
import type { LabelSelector } from "../api/types.js";

/** `kind/name` of a workload in a namespace, e.g. {kind: "Deployment", name: "web"}. */
export interface WorkloadRef {
  namespace: string;
  kind: "Deployment" | "StatefulSet" | "ReplicaSet" | "ReplicationController";
  name: string;
}

/** Requests per second over time. Several models on one workload add up. */
export type TrafficModel =
  | { type: "constant"; rps: number }
  /** rps = the last step whose `at` has passed (before the first: `initial`). */
  | { type: "step"; initial: number; steps: { atMs: number; rps: number }[] }
  /** Linear from `from` at `startMs` to `to` at `endMs`, flat outside. */
  | { type: "ramp"; from: number; to: number; startMs: number; endMs: number }
  /** base + amplitude × sin(2π (t − phase) / period); "diurnal" is a sine with a 24 h period. */
  | { type: "sine"; base: number; amplitude: number; periodMs: number; phaseMs: number }
  /** `peak` during [atMs, atMs + durationMs), `base` otherwise. */
  | { type: "spike"; base: number; peak: number; atMs: number; durationMs: number }
  /**
   * A recorded trace: points (time, rps), linearly interpolated, held flat after the end; with
   * `holdMs`, each point's rate holds for that long (or to the next point) and time no point
   * covers is 0. `offsetMs`: the trace time at t=0.
   */
  | {
      type: "replay";
      points: { atMs: number; rps: number }[];
      source: string;
      holdMs?: number;
      offsetMs?: number;
    };

export interface PodLifecycleModel {
  /** Pending before being scheduled (when capacity allows). */
  schedulingDelayMs: number;
  /** From scheduled to containers running (status.startTime is set at scheduling). */
  containerStartDelayMs: number;
  /** From running to Ready (the readiness probe's initialDelaySeconds by default). */
  readinessDelayMs: number;
  /** Graceful termination: a deleting pod stays (not ready, not serving) this long. */
  terminationGracePeriodMs: number;
  /** Extra CPU for this long after the container starts. */
  startupCpuBurst: { milli: number; durationMs: number } | null;
  /** Probability that a new pod fails at start (phase Failed; its controller replaces it). */
  failureProbability: number;
}

export interface UsageModel {
  /** CPU per pod = baseMilli + milliPerRps × served rps (+ startup burst), capped at the limit. */
  cpu: { baseMilli: number; milliPerRps: number; limitMilli: number | null };
  /** Memory per pod = baseBytes + bytesPerRps × served rps. */
  memory: { baseBytes: number; bytesPerRps: number };
  /** Requests per second one ready pod can serve; demand beyond is unserved. null = unlimited. */
  capacityRps: number | null;
  /** Relative noise on each usage sample (seeded per pod), e.g. 0.05 for ±5%. */
  jitter: number;
}

export interface WorkloadModel {
  target: WorkloadRef;
  pod: PodLifecycleModel;
  usage: UsageModel;
  traffic: TrafficModel[];
}

/** A per-pod custom metric (Pods source): each pod's served requests/s over a rate window. */
export interface PodsMetricModel {
  name: string;
  namespace: string;
  workload: WorkloadRef;
  /** The `rate(...[window])` window. */
  rateWindowMs: number;
}

/** An Object metric: requests/s reaching a described object (an Ingress in front of a workload). */
export interface ObjectMetricModel {
  name: string;
  namespace: string;
  describedObject: { apiVersion: string; kind: string; name: string };
  workload: WorkloadRef;
  rateWindowMs: number;
}

/** An External metric: a queue's length, from arrivals minus what the workload's pods serve. */
export interface ExternalMetricModel {
  name: string;
  namespace: string;
  selector: LabelSelector | null;
  arrivals: TrafficModel[];
  servedBy: WorkloadRef;
  /** Messages per second one ready pod processes. */
  serviceRatePerPod: number;
  initialLength: number;
}

export interface ClusterModel {
  /** Seed of every random stream (pods, names, scrape phase, …). */
  seed: number;
  /** Pods beyond this many (cluster-wide) stay Pending. null = unlimited. */
  capacityPods: number | null;
  /** metrics-server resolution: how often usage is sampled. */
  metricsResolutionMs: number;
  workloads: WorkloadModel[];
  metrics: {
    pods: PodsMetricModel[];
    object: ObjectMetricModel[];
    external: ExternalMetricModel[];
  };
}

export function workloadKey(ref: WorkloadRef): string {
  return `${ref.namespace}/${ref.kind}/${ref.name}`;
}
