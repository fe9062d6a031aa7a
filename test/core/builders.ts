// Shared example builders for core tests (named fields, defaults that read as a healthy pod).
import type { HorizontalPodAutoscaler, MetricSpec } from "../../src/api/types.js";
import type { PodView } from "../../src/core/pods.js";
import type { PodMetricsItem } from "../../src/core/sources/types.js";

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** Seconds after T0, in epoch milliseconds. */
export const t = (seconds: number) => T0 + seconds * 1000;

export function pod(
  overrides: Partial<PodView> & { name: string; cpuRequestMilli?: number },
): PodView {
  const { cpuRequestMilli = 100, ...rest } = overrides;
  return {
    labels: { app: "web" },
    phase: "Running",
    deleting: false,
    startTime: t(-3600),
    ready: { status: "True", lastTransitionTime: t(-3500) },
    containers: [{ name: "app", requests: { cpu: cpuRequestMilli } }],
    restartableInitContainers: [],
    podRequests: null,
    ...rest,
  };
}

export function pods(
  count: number,
  overrides: Partial<PodView> & { cpuRequestMilli?: number } = {},
): PodView[] {
  return Array.from({ length: count }, (_, i) => pod({ name: `web-${i}`, ...overrides }));
}

/** metrics.k8s.io items: one `app` container per pod with the given cpu usage. */
export function cpuUsage(usageByPod: Record<string, number>, now: number): PodMetricsItem[] {
  return Object.entries(usageByPod).map(([name, milli]) => ({
    name,
    timestamp: now - 10_000,
    window: 30_000,
    containers: [{ name: "app", usage: { cpu: milli } }],
  }));
}

export const cpuUtilization = (averageUtilization: number): MetricSpec => ({
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization } },
});

export function hpa(
  overrides: Partial<HorizontalPodAutoscaler["spec"]> = {},
): HorizontalPodAutoscaler {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "web", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [cpuUtilization(50)],
      ...overrides,
    },
  };
}
