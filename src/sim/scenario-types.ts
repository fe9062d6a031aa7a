// The Horizon `Scenario` document (apiVersion horizon.dev/v1alpha1) after parsing: durations in
// milliseconds, quantities in milli-units, every default filled in. The YAML form is documented
// in docs/scenarios.md; `src/sim/scenario.ts` parses and validates it.
import type { KubeObject } from "../api/types.js";
import type { KubernetesVersion } from "../api/versions.js";
import type {
  ExternalMetricModel,
  ObjectMetricModel,
  PodsMetricModel,
  TrafficModel,
  WorkloadModel,
  WorkloadRef,
} from "../cluster/cluster-model.js";

// The models the scenario hands to the embedded cluster are the cluster's own.
export type {
  ExternalMetricModel,
  ObjectMetricModel,
  PodLifecycleModel,
  PodsMetricModel,
  TrafficModel,
  UsageModel,
  WorkloadModel,
  WorkloadRef,
} from "../cluster/cluster-model.js";

export type ScenarioEvent =
  /** Change the pod template (e.g. image, requests) → a rolling update. */
  | { atMs: number; type: "updateTemplate"; workload: WorkloadRef; patch: Record<string, unknown> }
  | { atMs: number; type: "killPods"; workload: WorkloadRef; count: number }
  /** The metrics APIs answer with an error for this long. */
  | {
      atMs: number;
      type: "metricsOutage";
      durationMs: number;
      apis: ("resource" | "custom" | "external")[];
    }
  /** A JSON merge patch applied to an HPA. */
  | {
      atMs: number;
      type: "patchHpa";
      namespace: string;
      name: string;
      patch: Record<string, unknown>;
    }
  /** The controller restarts: its in-memory histories are lost, as upstream's are. */
  | { atMs: number; type: "restartController" }
  /** Replace a workload's traffic from now on. */
  | { atMs: number; type: "setTraffic"; workload: WorkloadRef; traffic: TrafficModel[] }
  /** Scale a workload by hand (kubectl scale). */
  | { atMs: number; type: "scale"; workload: WorkloadRef; replicas: number };

export interface ScenarioSpec {
  name: string;
  durationMs: number;
  seed: number;
  /** The Kubernetes version whose behaviour the run reproduces (src/api/versions.ts). */
  kubernetesVersion: KubernetesVersion;
  /** Controller flags by upstream name (without dashes), e.g. "horizontal-pod-autoscaler-sync-period": "15s". */
  controllerFlags: Record<string, string>;
  featureGates: Record<string, boolean>;
  cluster: {
    /** Pods beyond this many (cluster-wide) stay Pending. null = unlimited. */
    capacityPods: number | null;
    /** metrics-server resolution: how often usage is sampled. */
    metricsResolutionMs: number;
  };
  workloads: WorkloadModel[];
  metrics: {
    pods: PodsMetricModel[];
    object: ObjectMetricModel[];
    external: ExternalMetricModel[];
  };
  events: ScenarioEvent[];
}

/** A parsed scenario file: the Kubernetes manifests plus the Horizon document. */
export interface Scenario {
  spec: ScenarioSpec;
  /** Ordinary manifests to create (HPAs already converted to autoscaling/v2 and defaulted). */
  objects: KubeObject[];
  /** Where each object came from, for error messages: `file:line:column`. */
  sources: Map<KubeObject, string>;
  warnings: string[];
}
