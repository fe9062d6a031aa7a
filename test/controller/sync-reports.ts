// Sync reports built with the real core (decideSync/completeSync), for the observability tests:
// named inputs in, a SyncObservation as the controller runtime hands it to its onSync hook out.
import type { HorizontalPodAutoscaler, MetricSpec } from "../../src/api/types.js";
import type { SyncObservation } from "../../src/controller/metrics.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { EMPTY_HISTORY } from "../../src/core/history.js";
import { resourceObservation } from "../../src/core/sources/resource-usage.js";
import type { MetricObservation } from "../../src/core/sources/types.js";
import { completeSync, decideSync, type ScaleObservation } from "../../src/core/sync.js";
import { cpuUsage, hpa as hpaBuilder, pods, t } from "../core/builders.js";

export interface ReportInput {
  namespace?: string;
  name?: string;
  /** The scale's spec.replicas (and ready pods); ignored when `scaleError` is set. */
  replicas?: number;
  /** Per-pod cpu usage in millicores (request 100m, target 50% unless `metrics` says otherwise). */
  cpuPerPodMilli?: number;
  metrics?: MetricSpec[];
  /** Observations per metric (default: the cpu usage). */
  observations?: MetricObservation[];
  /** status.currentReplicas before the sync (default `replicas`). */
  previousStatusReplicas?: number;
  scaleError?: string;
  scaleTargetApiVersion?: string;
  minReplicas?: number;
  maxReplicas?: number;
  behavior?: HorizontalPodAutoscaler["spec"]["behavior"];
  /** Legacy downscale stabilization window (default the controller's 5 min). */
  downscaleWindowMs?: number;
  rescaleError?: string;
  statusError?: string;
  thrown?: Error;
  seconds?: number;
  durationMs?: number;
}

export function syncReport(input: ReportInput): SyncObservation {
  const replicas = input.replicas ?? 2;
  const seconds = input.seconds ?? 15;
  const base = hpaBuilder({
    ...(input.metrics ? { metrics: input.metrics } : {}),
    minReplicas: input.minReplicas ?? 1,
    maxReplicas: input.maxReplicas ?? 10,
    ...(input.behavior ? { behavior: input.behavior } : {}),
  });
  const hpa: HorizontalPodAutoscaler = {
    ...base,
    metadata: { name: input.name ?? "web", namespace: input.namespace ?? "default" },
    spec: {
      ...base.spec,
      scaleTargetRef: {
        ...base.spec.scaleTargetRef,
        apiVersion: input.scaleTargetApiVersion ?? "apps/v1",
      },
    },
    status: {
      currentReplicas: input.previousStatusReplicas ?? replicas,
      desiredReplicas: replicas,
    },
  };
  const durationMs = input.durationMs ?? 3;
  const at = t(seconds);
  if (input.thrown) return { hpa, result: null, error: input.thrown, durationMs, at };
  const list = pods(replicas, { cpuRequestMilli: 100 });
  const usage = Object.fromEntries(list.map((p) => [p.name, input.cpuPerPodMilli ?? 50]));
  const scale: ScaleObservation = input.scaleError
    ? { ok: false, error: input.scaleError }
    : { ok: true, specReplicas: replicas, statusReplicas: replicas, selector: "app=web" };
  const config = defaultControllerConfig();
  if (input.downscaleWindowMs !== undefined)
    config.downscaleStabilizationWindowMs = input.downscaleWindowMs;
  const decision = decideSync({
    now: at,
    hpa,
    scale,
    pods: list,
    observations: input.observations ?? [resourceObservation(cpuUsage(usage, at), "cpu")],
    history: EMPTY_HISTORY,
    config,
  });
  const result = completeSync(
    decision,
    decision.rescale
      ? input.rescaleError
        ? { ok: false, error: input.rescaleError }
        : { ok: true }
      : null,
  );
  return { hpa, result, statusError: input.statusError ?? null, durationMs, at };
}
