// A decision trace (core/trace.ts) as a structured explanation: plain serializable facts —
// the target, each metric's ratio, band, path and pods set aside, the winning metric, the
// stabilization window that held the count, the limit or policy that bounded it, the outcome.
// It decides no wording: text.ts (`horizon explain`) and html.ts (the simulation report, the
// dashboard) render it. See docs/decision-trace.md.
import type { DecisionTrace, ExtensionTrace, LimitTrace, SyncBranch } from "../core/trace.js";

export const EXPLANATION_VERSION = "horizon.dev/explanation/v1";

export interface PodsExplanation {
  /** Pods of the selector, and the ready ones (when the calculation counted pods). */
  count?: number;
  ready?: number;
  /** Pods set aside, by why: not yet ready, without metrics, deleted or failed. */
  unready: string[];
  missing: string[];
  ignored: string[];
}

export interface RatioExplanation {
  usageRatio: number;
  /** The ratio after missing and unready pods were filled in. */
  newUsageRatio?: number;
  /** The tolerance band [1 − scaleDown, 1 + scaleUp]. */
  band: { low: number; high: number };
  tolerances: { scaleDown: number; scaleUp: number };
  /** The replica calculator's path (CalculationTrace.path). */
  path: string;
}

export interface MetricExplanation {
  index: number;
  type: string;
  /** As upstream names it in reasons ("cpu resource utilization (percentage of request)"). */
  description?: string;
  /** Set when the metric gave no proposal. */
  failure?: { reason?: string; error?: string };
  current?: string;
  utilization?: number;
  target?: { type: string; value: string };
  ratio?: RatioExplanation;
  /** With a ratio: the pods it was computed over. */
  pods?: PodsExplanation;
  proposal?: number;
  /** Its proposal is the recommendation (the highest of several). */
  winner: boolean;
}

export interface StabilizationExplanation {
  path: "legacy" | "behavior";
  recommendation: number;
  stabilized: number;
  reason: string;
  /** Which window held the count away from the recommendation (null: it stands). */
  heldBy: "scaleDown" | "scaleUp" | null;
  windowSeconds?: number;
  scaleUpWindowSeconds?: number;
  scaleDownWindowSeconds?: number;
  upRecommendation?: number;
  downRecommendation?: number;
  /** Legacy path: the stored recommendation that held the count. */
  winner?: { replicas: number; ageSeconds: number };
}

export interface LimitExplanation extends LimitTrace {
  /** The count the limits were applied to (after stabilization). */
  from: number | null;
  /** The direction of a rate limit (ScaleUpLimit / ScaleDownLimit). */
  direction?: "scaleUp" | "scaleDown";
}

export interface Explanation {
  version: typeof EXPLANATION_VERSION;
  hpa: { namespace: string; name: string };
  time: string;
  target: { specReplicas: number; statusReplicas: number; selector?: string } | { error: string };
  branch: SyncBranch;
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
  metrics: MetricExplanation[];
  /** Metrics that gave no proposal. */
  failedMetrics: number;
  /** The max over the metrics' proposals (null: none computed, or partial metrics that would scale down). */
  recommendation: { replicas: number; metric?: string } | null;
  stabilization?: StabilizationExplanation;
  limit?: LimitExplanation;
  desiredReplicas: number;
  rescale: boolean;
  rescaleReason?: string;
  /** `horizon.dev/` extension rules that acted, in order (docs/extensions.md). */
  extensions?: ExtensionTrace[];
  outcome: DecisionTrace["outcome"];
  error?: string;
}

function metric(m: DecisionTrace["metrics"][number], winning: string | undefined) {
  const out: MetricExplanation = { index: m.index, type: m.type, winner: false };
  if (m.description !== undefined) out.description = m.description;
  if (m.reason !== undefined || m.error !== undefined || m.proposal === undefined) {
    out.failure = {
      ...(m.reason !== undefined ? { reason: m.reason } : {}),
      ...(m.error !== undefined ? { error: m.error } : {}),
    };
    return out;
  }
  if (m.current !== undefined) out.current = m.current;
  if (m.utilization !== undefined) out.utilization = m.utilization;
  if (m.target) out.target = { ...m.target };
  const c = m.calculation;
  if (c) {
    out.ratio = {
      usageRatio: c.usageRatio,
      band: { low: 1 - c.tolerances.scaleDown, high: 1 + c.tolerances.scaleUp },
      tolerances: { scaleDown: c.tolerances.scaleDown, scaleUp: c.tolerances.scaleUp },
      path: c.path,
    };
    if (c.newUsageRatio !== undefined) out.ratio.newUsageRatio = c.newUsageRatio;
    out.pods = {
      ...(c.podCount !== undefined ? { count: c.podCount } : {}),
      ...(c.readyPodCount !== undefined ? { ready: c.readyPodCount } : {}),
      unready: [...(c.unreadyPods ?? [])],
      missing: [...(c.missingPods ?? [])],
      ignored: [...(c.ignoredPods ?? [])],
    };
  }
  out.proposal = m.proposal;
  out.winner = winning !== undefined && m.description === winning;
  return out;
}

/** The structured explanation of one sync's decision trace. */
export function explain(trace: DecisionTrace): Explanation {
  const metrics = trace.metrics.map((m) =>
    metric(m, trace.recommendation === null ? undefined : trace.recommendationMetric),
  );
  const out: Explanation = {
    version: EXPLANATION_VERSION,
    hpa: { ...trace.hpa },
    time: trace.time,
    target: { ...trace.scale },
    branch: trace.branch,
    minReplicas: trace.minReplicas,
    maxReplicas: trace.maxReplicas,
    currentReplicas: trace.currentReplicas,
    metrics,
    failedMetrics: metrics.filter((m) => m.failure).length,
    recommendation:
      trace.recommendation === null
        ? null
        : {
            replicas: trace.recommendation,
            ...(trace.recommendationMetric !== undefined
              ? { metric: trace.recommendationMetric }
              : {}),
          },
    desiredReplicas: trace.desiredReplicas,
    rescale: trace.rescale,
    outcome: trace.outcome,
  };
  const s = trace.stabilization;
  if (s) {
    let heldBy: StabilizationExplanation["heldBy"] = null;
    if (s.path === "legacy") heldBy = s.stabilized !== s.recommendation ? "scaleDown" : null;
    else if (s.stabilized > s.recommendation) heldBy = "scaleDown";
    else if (s.stabilized < s.recommendation) heldBy = "scaleUp";
    out.stabilization = { ...s, heldBy };
    if (s.winner) out.stabilization.winner = { ...s.winner };
  }
  const l = trace.limit;
  if (l) {
    out.limit = { ...l, from: trace.stabilization?.stabilized ?? trace.recommendation };
    if (l.policies) out.limit.policies = l.policies.map((p) => ({ ...p }));
    if (l.reason === "ScaleUpLimit") out.limit.direction = "scaleUp";
    else if (l.reason === "ScaleDownLimit") out.limit.direction = "scaleDown";
  }
  if (trace.rescaleReason !== undefined) out.rescaleReason = trace.rescaleReason;
  if (trace.extensions) out.extensions = trace.extensions.map((x) => ({ ...x }));
  if (trace.error !== undefined) out.error = trace.error;
  return out;
}
