// `npm run bench:core`: the median time of one full sync decision (decide + complete), from the
// view the controller holds: pods parsed once into PodViews, metrics as the metrics client
// hands them to the calculator (per-pod samples).
import type { HorizontalPodAutoscaler, MetricSpec } from "../src/api/types.js";
import { defaultControllerConfig } from "../src/core/config.js";
import { syncExtendedOnce } from "../src/core/extensions/sync.js";
import { EMPTY_HISTORY, type HpaHistory } from "../src/core/history.js";
import type { PodView } from "../src/core/pods.js";
import { resourceObservation } from "../src/core/sources/resource-usage.js";
import type { MetricObservation, PodMetricsItem } from "../src/core/sources/types.js";
import { type SyncInput, syncOnce } from "../src/core/sync.js";

const NOW = Date.UTC(2026, 0, 1, 12);

// Frozen, as the controller's pods port hands its cached lists (src/kube/pods.ts) from sync to
// sync while the pods stay the same.
function makePods(count: number): readonly PodView[] {
  const pods: PodView[] = Array.from({ length: count }, (_, i) => ({
    name: `web-${i}`,
    labels: { app: "web" },
    phase: "Running" as const,
    deleting: false,
    startTime: NOW - 3_600_000,
    ready: { status: "True" as const, lastTransitionTime: NOW - 3_500_000 },
    containers: [{ name: "app", requests: { cpu: 200, memory: 256_000_000_000 } }],
    restartableInitContainers: [],
    podRequests: null,
  }));
  return Object.freeze(pods);
}

function resourceItems(pods: readonly PodView[]): PodMetricsItem[] {
  return pods.map((p, i) => ({
    name: p.name,
    timestamp: NOW - 10_000,
    window: 15_000,
    containers: [{ name: "app", usage: { cpu: 120 + (i % 40), memory: 200_000_000_000 + i } }],
  }));
}

const cpu: MetricSpec = {
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
};
const memory: MetricSpec = {
  type: "Resource",
  resource: { name: "memory", target: { type: "AverageValue", averageValue: "250Mi" } },
};
const rps: MetricSpec = {
  type: "Pods",
  pods: {
    metric: { name: "http_requests_per_second" },
    target: { type: "AverageValue", averageValue: "10" },
  },
};
const queue: MetricSpec = {
  type: "External",
  external: {
    metric: { name: "queue_messages_ready", selector: { matchLabels: { queue: "jobs" } } },
    target: { type: "AverageValue", averageValue: "30" },
  },
};

function scenario(podCount: number, metrics: MetricSpec[]): SyncInput {
  const pods = makePods(podCount);
  // The metrics client turns the metrics.k8s.io list into per-pod samples once per fetch, as
  // upstream's does before its calculator runs.
  const items = resourceItems(pods);
  const samplesByResource = {
    cpu: resourceObservation(items, "cpu"),
    memory: resourceObservation(items, "memory"),
  };
  const observations: MetricObservation[] = metrics.map((m) => {
    if (m.type === "Resource") return samplesByResource[m.resource!.name as "cpu" | "memory"];
    if (m.type === "Pods") {
      return {
        kind: "pods",
        samples: new Map(
          pods.map((p, i) => [
            p.name,
            { value: 9_000 + i, timestamp: NOW - 30_000, window: 60_000 },
          ]),
        ),
      };
    }
    return { kind: "external", valuesMilli: [BigInt(podCount) * 29_000n], timestamp: NOW };
  });
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "web", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: 1,
      maxReplicas: 5000,
      metrics,
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: "Max",
          policies: [
            { type: "Pods", value: 4, periodSeconds: 15 },
            { type: "Percent", value: 100, periodSeconds: 15 },
          ],
        },
        scaleDown: {
          selectPolicy: "Max",
          policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
        },
      },
    },
    status: { currentReplicas: podCount, desiredReplicas: podCount },
  };
  const history: HpaHistory = {
    ...EMPTY_HISTORY,
    recommendations: Array.from({ length: 20 }, (_, i) => ({
      replicas: podCount,
      timestamp: NOW - i * 15_000,
    })),
  };
  return {
    now: NOW,
    hpa,
    scale: { ok: true, specReplicas: podCount, statusReplicas: podCount, selector: "app=web" },
    pods,
    observations,
    history,
    config: defaultControllerConfig(),
  };
}

function medianMicros(input: SyncInput, sync: (input: SyncInput) => unknown = syncOnce): number {
  const batch = 200;
  const samples: number[] = [];
  for (let warm = 0; warm < 2_000; warm++) sync(input);
  const deadline = performance.now() + 1_500;
  while (samples.length < 15 || (performance.now() < deadline && samples.length < 400)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) sync(input);
    samples.push(Number(process.hrtime.bigint() - start) / batch / 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/** The same HPA with horizon.dev/ annotations: a schedule, a fallback and two knobs. */
function annotated(input: SyncInput): SyncInput {
  const hpa = input.hpa;
  const annotations = {
    "horizon.dev/schedule": '[{"cron": "0 8 * * 1-5", "duration": "10h", "minReplicas": 2}]',
    "horizon.dev/fallback-replicas": "6",
    "horizon.dev/tolerance": "0.05",
    "horizon.dev/downscale-stabilization": "1m",
  };
  return { ...input, hpa: { ...hpa, metadata: { ...hpa.metadata, annotations } } };
}

const cases: {
  name: string;
  input: SyncInput;
  targetMicros: number | undefined;
  sync?: (input: SyncInput) => unknown;
}[] = [
  { name: "1 Resource metric, 10 pods", input: scenario(10, [cpu]), targetMicros: 5 },
  { name: "1 Resource metric, 100 pods", input: scenario(100, [cpu]), targetMicros: undefined },
  // Issue #17's goal: the sums over pods (~1 µs per 100 pods) and little else per pod.
  { name: "1 Resource metric, 1,000 pods", input: scenario(1000, [cpu]), targetMicros: 20 },
  {
    name: "4 metrics, 100 pods",
    input: scenario(100, [cpu, memory, rps, queue]),
    targetMicros: 40,
  },
  {
    name: "extended, no annotation, 10 pods",
    input: scenario(10, [cpu]),
    targetMicros: undefined,
    sync: syncExtendedOnce,
  },
  {
    name: "extended, 4 annotations, 10 pods",
    input: annotated(scenario(10, [cpu])),
    targetMicros: undefined,
    sync: syncExtendedOnce,
  },
];

console.log(`bench:core — median of one full sync decision (node ${process.version})`);
for (const c of cases) {
  const micros = medianMicros(c.input, c.sync);
  const target =
    c.targetMicros === undefined
      ? ""
      : `  (target ≤ ${c.targetMicros} µs: ${micros <= c.targetMicros ? "met" : "MISSED"})`;
  console.log(`  ${c.name.padEnd(30)} ${micros.toFixed(2).padStart(8)} µs${target}`);
}
