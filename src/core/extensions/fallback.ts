// Fallback on metric failure (`horizon.dev/fallback-replicas`; the semantics of KEP-5679 and
// KEDA's fallback): after K consecutive syncs in which a metric failed, the HPA scales to
// max(current, N) (or exactly N in `static` mode) instead of freezing; the first sync with every
// metric healthy ends it.
import { setCondition } from "../conditions.js";
import type { FallbackState } from "../history.js";
import type { SyncDecision } from "../sync.js";
import { ANNOTATIONS, type Fallback } from "./annotations.js";

const NO_FAILURES: FallbackState = { failures: 0, active: false };

/** Whether this sync computed metrics and at least one failed (or none could be computed). */
function metricsFailed(decision: SyncDecision): boolean {
  return (
    decision.finished !== null ||
    decision.deferredError !== null ||
    decision.trace.metrics.some((m) => m.reason !== undefined || m.proposal === undefined)
  );
}

/** Applies the fallback to an upstream decision; returns the trace entry when it acted. */
export function applyFallback(
  decision: SyncDecision,
  fallback: Fallback,
  nowText: string,
): { reason: string; message: string; upstreamReplicas?: number; replicas?: number } | null {
  const previous = decision.input.history.fallback ?? NO_FAILURES;
  // Syncs that read no metrics (scale unreadable, target out of range) neither count nor reset.
  if (!decision.input.scale.ok || decision.trace.branch !== "metrics") {
    decision.history = { ...decision.history, fallback: previous };
    return null;
  }
  const failed = metricsFailed(decision);
  const failures = failed ? previous.failures + 1 : 0;
  const active = failures >= fallback.failureThreshold;
  decision.history = { ...decision.history, fallback: { failures, active } };
  if (!active) {
    if (!previous.active) return null;
    const message = `every metric is healthy again: the fallback of ${ANNOTATIONS.fallbackReplicas} ended`;
    decision.events.push({ type: "Normal", reason: "FallbackEnded", message });
    return { reason: "FallbackEnded", message };
  }

  const { currentReplicas } = decision;
  const { minReplicas, maxReplicas } = decision.trace;
  const upstreamReplicas = decision.finished ? undefined : decision.desiredReplicas;
  let wanted =
    fallback.mode === "static" ? fallback.replicas : Math.max(currentReplicas, fallback.replicas);
  // Healthy metrics that ask for more still get it (upstream scales up on partial metrics).
  if (fallback.mode !== "static" && upstreamReplicas !== undefined)
    wanted = Math.max(wanted, upstreamReplicas);
  const replicas = Math.min(maxReplicas, Math.max(minReplicas, wanted));
  const bounded = replicas !== wanted ? ` (bounded by minReplicas/maxReplicas from ${wanted})` : "";
  const message = `${failures} consecutive syncs with failed metrics (threshold ${fallback.failureThreshold}): fallback to ${replicas} replicas (${ANNOTATIONS.fallbackReplicas}: ${fallback.replicas}, mode ${fallback.mode})${bounded}`;
  setCondition(decision.conditions, "ScalingActive", "False", "FallbackActive", message, nowText);
  if (!previous.active)
    decision.events.push({ type: "Warning", reason: "FallbackActive", message });
  if (decision.finished) {
    // The metrics' failure is still the sync's error; the fallback scales anyway.
    decision.deferredError = decision.finished.error;
    decision.finished = null;
    decision.trace.outcome = "unchanged";
  }
  decision.desiredReplicas = replicas;
  decision.rescale = replicas !== currentReplicas;
  decision.rescaleReason = `fallback after ${failures} syncs with failed metrics`;
  decision.trace.desiredReplicas = replicas;
  decision.trace.rescale = decision.rescale;
  decision.trace.rescaleReason = decision.rescaleReason;
  return {
    reason: "FallbackActive",
    message,
    ...(upstreamReplicas !== undefined ? { upstreamReplicas } : {}),
    replicas,
  };
}
