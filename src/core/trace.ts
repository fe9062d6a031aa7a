// The decision trace: why one sync decided what it did. Versioned and documented
// (docs/decision-trace.md); the simulator's JSON, its reports and the controller's explain
// endpoint all carry this type.
import type { CalculationTrace } from "./replica-calculator.js";
import type { MetricTrace } from "./sources/types.js";

export const DECISION_TRACE_VERSION = "horizon.dev/decision-trace/v1";

export type SyncBranch =
  /** The scale subresource could not be read. */
  | "scaleUnavailable"
  /** Target at 0 replicas with minReplicas > 0: autoscaling is off. */
  | "scalingDisabled"
  | "aboveMaxReplicas"
  | "belowMinReplicas"
  | "metrics";

export interface StabilizationTrace {
  path: "legacy" | "behavior";
  recommendation: number;
  stabilized: number;
  reason: string;
  /** Legacy: the downscale window. Behavior: both windows. */
  windowSeconds?: number;
  scaleUpWindowSeconds?: number;
  scaleDownWindowSeconds?: number;
  /** Behavior path: lowest recent recommendation (up window) and highest (down window). */
  upRecommendation?: number;
  downRecommendation?: number;
  /** Legacy path: the stored recommendation that held the value up. */
  winner?: { replicas: number; ageSeconds: number };
}

export interface LimitTrace {
  reason: string;
  message: string;
  /** The bound that applied, if any. */
  limit?: number;
  /** Legacy path: max(factor × current, minimum). */
  legacyScaleUpLimit?: number;
  /** Behavior path: the policy proposals of the direction being scaled. */
  selectPolicy?: string;
  policies?: {
    type: string;
    value: number;
    periodSeconds: number;
    periodStartReplicas: number;
    proposal: number;
  }[];
  policyLimit?: number;
}

/** One `horizon.dev/` extension rule that acted on this sync (docs/extensions.md). */
export interface ExtensionTrace {
  /** The annotation behind it, e.g. `horizon.dev/paused`. */
  annotation: string;
  /** The condition or Event reason it reported, e.g. `Paused`, `DryRun`. */
  reason: string;
  message: string;
  /** What upstream's algorithm decided before the rule, and what the rule made of it. */
  upstreamReplicas?: number;
  replicas?: number;
}

export interface DecisionTrace {
  version: typeof DECISION_TRACE_VERSION;
  hpa: { namespace: string; name: string };
  /** RFC 3339 time of the sync. */
  time: string;
  scale: { specReplicas: number; statusReplicas: number; selector?: string } | { error: string };
  branch: SyncBranch;
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
  metrics: MetricTrace[];
  /** The max over valid metric proposals (null when metrics were not computed or all failed). */
  recommendation: number | null;
  /** The metric whose proposal won, as upstream names it in the rescale reason. */
  recommendationMetric?: string;
  stabilization?: StabilizationTrace;
  limit?: LimitTrace;
  desiredReplicas: number;
  rescale: boolean;
  rescaleReason?: string;
  /** Extension rules that acted (absent without `horizon.dev/` annotations). */
  extensions?: ExtensionTrace[];
  /** How the sync ended: scaled, unchanged, or the error it returned. */
  outcome: "scaled" | "unchanged" | "failed";
  error?: string;
}

export type { CalculationTrace, MetricTrace };
