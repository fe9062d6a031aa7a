// Shared builders for the embedded-cluster tests: a scenario spec with named overrides, and
// Deployment / StatefulSet / HPA manifests that read as the documentation's examples.

import type { KubeObject } from "../../src/api/types.js";
import type {
  PodLifecycleModel,
  ScenarioSpec,
  TrafficModel,
  UsageModel,
  WorkloadModel,
  WorkloadRef,
} from "../../src/sim/scenario-types.js";

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** Seconds after T0, in epoch milliseconds. */
export const at = (seconds: number) => T0 + seconds * 1000;

/** A bare object of a kind in `default` (uid `uid-<name>`, generation 1). */
export function object(
  kind: string,
  name: string,
  meta: Partial<KubeObject["metadata"]> = {},
  rest: Partial<KubeObject> = {},
): KubeObject {
  return {
    apiVersion: kind === "Deployment" ? "apps/v1" : "v1",
    kind,
    metadata: { name, namespace: "default", uid: `uid-${name}`, generation: 1, ...meta },
    ...rest,
  };
}

export const WEB: WorkloadRef = { namespace: "default", kind: "Deployment", name: "web" };

export function lifecycle(overrides: Partial<PodLifecycleModel> = {}): PodLifecycleModel {
  return {
    schedulingDelayMs: 1000,
    containerStartDelayMs: 2000,
    readinessDelayMs: 5000,
    terminationGracePeriodMs: 30_000,
    startupCpuBurst: null,
    failureProbability: 0,
    ...overrides,
  };
}

export function usage(overrides: Partial<UsageModel> = {}): UsageModel {
  return {
    cpu: { baseMilli: 50, milliPerRps: 10, limitMilli: null },
    memory: { baseBytes: 100_000_000, bytesPerRps: 0 },
    capacityRps: null,
    jitter: 0,
    ...overrides,
  };
}

export function workloadModel(overrides: Partial<WorkloadModel> = {}): WorkloadModel {
  return {
    target: WEB,
    pod: lifecycle(),
    usage: usage(),
    traffic: [{ type: "constant", rps: 0 }] as TrafficModel[],
    ...overrides,
  };
}

export function scenario(overrides: Partial<ScenarioSpec> = {}): ScenarioSpec {
  return {
    name: "test",
    durationMs: 3_600_000,
    seed: 42,
    // Pinned: these tests' expectations were written for v1.34 (tolerance gate off, minReplicas
    // 0 refused); a test of a newer version's behaviour passes its own.
    kubernetesVersion: "1.34",
    controllerFlags: {},
    featureGates: {},
    cluster: { capacityPods: null, metricsResolutionMs: 15_000 },
    workloads: [workloadModel()],
    metrics: { pods: [], object: [], external: [] },
    events: [],
    ...overrides,
  };
}

export function deployment(
  options: {
    name?: string;
    replicas?: number;
    maxSurge?: number | string;
    maxUnavailable?: number | string;
    image?: string;
    cpuRequest?: string;
    minReadySeconds?: number;
    strategy?: "RollingUpdate" | "Recreate";
  } = {},
): KubeObject {
  const name = options.name ?? "web";
  const strategy =
    options.strategy === "Recreate"
      ? { type: "Recreate" }
      : {
          type: "RollingUpdate",
          rollingUpdate: {
            ...(options.maxSurge !== undefined ? { maxSurge: options.maxSurge } : {}),
            ...(options.maxUnavailable !== undefined
              ? { maxUnavailable: options.maxUnavailable }
              : {}),
          },
        };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default" },
    spec: {
      replicas: options.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      strategy,
      ...(options.minReadySeconds !== undefined
        ? { minReadySeconds: options.minReadySeconds }
        : {}),
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: "app",
              image: options.image ?? "nginx:1.27",
              resources: { requests: { cpu: options.cpuRequest ?? "100m" } },
            },
          ],
        },
      },
    },
  };
}

export function statefulSet(
  options: { name?: string; replicas?: number; parallel?: boolean } = {},
): KubeObject {
  const name = options.name ?? "db";
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: "default" },
    spec: {
      replicas: options.replicas ?? 1,
      serviceName: name,
      ...(options.parallel ? { podManagementPolicy: "Parallel" } : {}),
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: "db", image: "postgres:16", resources: { requests: { cpu: "200m" } } },
          ],
        },
      },
    },
  };
}

export function hpa(
  options: { name?: string; target?: string; maxReplicas?: number } = {},
): KubeObject {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: options.name ?? "web", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: options.target ?? "web" },
      minReplicas: 1,
      maxReplicas: options.maxReplicas ?? 10,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
        },
      ],
    },
  };
}
