// `horizon demo`: the exact decision core on a built-in sample, stepped on a virtual clock.
// One Deployment's pods share a CPU load that steps up and back down; every 15 s the HPA
// (autoscaling/v2, cpu 50%) syncs and Horizon prints what upstream would decide and why.
// Pods are modelled as ready as soon as they exist; the embedded cluster adds lifecycles.
import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import { formatDuration } from "../api/duration.js";
import type { HorizontalPodAutoscaler } from "../api/types.js";
import { defaultControllerConfig } from "../core/config.js";
import { EMPTY_HISTORY, type HpaHistory } from "../core/history.js";
import type { PodView } from "../core/pods.js";
import { resourceObservation } from "../core/sources/resource-usage.js";
import type { PodMetricsItem } from "../core/sources/types.js";
import { type SyncResult, syncOnce } from "../core/sync.js";

export const SAMPLE_HPA: HorizontalPodAutoscaler = {
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web", namespace: "default" },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
      },
    ],
  },
};

const REQUEST_MILLI = 200;
const START = Date.UTC(2026, 0, 1, 12, 0, 0);

/** Total CPU demand of the workload (millicores) at `seconds` into the demo. */
function demandMilli(seconds: number): number {
  if (seconds < 60) return 150;
  if (seconds < 240) return 900;
  return 150;
}

function podsFor(replicas: number, start: number): PodView[] {
  return Array.from({ length: replicas }, (_, i) => ({
    name: `web-${i}`,
    labels: { app: "web" },
    phase: "Running" as const,
    deleting: false,
    startTime: start - 600_000,
    ready: { status: "True" as const, lastTransitionTime: start - 600_000 },
    containers: [{ name: "app", requests: { cpu: REQUEST_MILLI } }],
    restartableInitContainers: [],
    podRequests: null,
  }));
}

export interface DemoStep {
  seconds: number;
  result: SyncResult;
}

export function runDemo(durationSeconds = 660): DemoStep[] {
  const config = defaultControllerConfig();
  let hpa = setDefaultsHorizontalPodAutoscaler(SAMPLE_HPA);
  let history: HpaHistory = EMPTY_HISTORY;
  let replicas = 2;
  const steps: DemoStep[] = [];
  for (let seconds = 15; seconds <= durationSeconds; seconds += config.syncPeriodMs / 1000) {
    const now = START + seconds * 1000;
    const pods = podsFor(replicas, START);
    const perPod = Math.round(demandMilli(seconds) / replicas);
    const items: PodMetricsItem[] = pods.map((pod) => ({
      name: pod.name,
      timestamp: now - 5_000,
      window: 15_000,
      containers: [{ name: "app", usage: { cpu: perPod } }],
    }));
    const result = syncOnce({
      now,
      hpa,
      scale: { ok: true, specReplicas: replicas, statusReplicas: replicas, selector: "app=web" },
      pods,
      observations: [resourceObservation(items, "cpu")],
      history,
      config,
    });
    history = result.history;
    hpa = { ...hpa, status: result.status };
    if (result.scaleUpdated) replicas = result.desiredReplicas;
    steps.push({ seconds, result });
  }
  return steps;
}

export function printDemo(steps: DemoStep[], print: (line: string) => void): void {
  print("Horizon demo: HPA web (cpu 50% of 200m, min 2, max 10), default controller flags");
  print("Load: 150m total, 900m from 1m0s to 4m0s, then 150m again. One sync every 15s.\n");
  print("  time    current  cpu   proposal  desired  decision");
  for (const { seconds, result } of steps) {
    const t = result.trace;
    const metric = t.metrics[0];
    const utilization = metric?.utilization !== undefined ? `${metric.utilization}%` : "-";
    const limited =
      t.limit && t.limit.reason !== "DesiredWithinRange" ? ` (${t.limit.reason})` : "";
    const why = result.scaleUpdated
      ? `scaled: ${t.rescaleReason}${limited}`
      : t.stabilization?.reason === "ScaleDownStabilized"
        ? `held by the ${formatDuration((t.stabilization.windowSeconds ?? 0) * 1000)} downscale stabilization window`
        : "no change";
    print(
      `  ${formatDuration(seconds * 1000).padEnd(7)} ${String(t.currentReplicas).padStart(7)}  ${utilization.padStart(4)}  ${String(t.recommendation ?? "-").padStart(8)}  ${String(result.desiredReplicas).padStart(7)}  ${why}`,
    );
  }
  const lastScale = [...steps].reverse().find((s) => s.result.scaleUpdated);
  if (lastScale) {
    print(`\nDecision trace of the last rescale (t=${formatDuration(lastScale.seconds * 1000)}):`);
    print(JSON.stringify(lastScale.result.trace, null, 2));
  }
}
