// One sync of one HPA as a value: from the scale, pods, metric observations and the remembered
// history to the replica count, the status to write, the events to record and the next history.
// Upstream: reconcileAutoscaler in pkg/controller/podautoscaler/horizontal.go. The scale update
// itself is I/O, so a sync is two calls: `decideSync`, then `completeSync` with its outcome.

import { parseSelector } from "../api/selector.js";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerCondition,
  HorizontalPodAutoscalerStatus,
  MetricStatus,
} from "../api/types.js";
import { formatTime, setCondition } from "./conditions.js";
import type { ControllerConfig } from "./config.js";
import { type HpaHistory, withLists, withRecommendations } from "./history.js";
import { jsonEqual } from "./json.js";
import {
  clampLegacy,
  clampWithBehavior,
  LIMIT_MESSAGES,
  legacyScaleUpLimit,
  longestPolicyPeriodSeconds,
  resolveRules,
  STABILIZATION_MESSAGES,
  stabilizeLegacy,
  stabilizeWithBehavior,
  storeScaleEvent,
} from "./normalize.js";
import type { PodView } from "./pods.js";
import { metricSourceFor } from "./sources/registry.js";
import type {
  MetricContext,
  MetricObservation,
  MetricResult,
  MetricTrace,
} from "./sources/types.js";
import { tolerancesFor } from "./tolerance.js";
import {
  DECISION_TRACE_VERSION,
  type DecisionTrace,
  type LimitTrace,
  type StabilizationTrace,
  type SyncBranch,
} from "./trace.js";

export type ScaleObservation =
  | { ok: true; specReplicas: number; statusReplicas: number; selector?: string }
  | { ok: false; error: string };

export interface SyncEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

export interface SyncInput {
  /** Epoch milliseconds of this sync. */
  now: number;
  /** The HPA as stored (autoscaling/v2, defaulted), including its current status. */
  hpa: HorizontalPodAutoscaler;
  scale: ScaleObservation;
  /** Pods in the HPA's namespace matching the scale's selector. */
  pods: readonly PodView[];
  /** HPAs ("namespace/name") whose targets select these pods; more than one is ambiguous. */
  selectingHpas?: readonly string[];
  /** One observation per `spec.metrics` entry (only read when metrics are computed). */
  observations: readonly MetricObservation[];
  /**
   * Per-metric results computed elsewhere, used instead of the source modules. For callers
   * that model metrics at the level of proposals (the conformance vectors of the sync).
   */
  metricResults?: readonly MetricResult[];
  history: HpaHistory;
  config: ControllerConfig;
  /**
   * One more proposal in the max over metrics (`horizon.dev/predictive`, docs/extensions.md):
   * absent upstream. It counts only when the metrics gave a recommendation.
   */
  proposal?: { replicas: number; metric: string };
}

export interface SyncDecision {
  input: SyncInput;
  currentReplicas: number;
  desiredReplicas: number;
  /** True when the scale must be updated to `desiredReplicas`. */
  rescale: boolean;
  rescaleReason: string;
  conditions: HorizontalPodAutoscalerCondition[];
  metricStatuses: MetricStatus[] | null;
  events: SyncEvent[];
  history: HpaHistory;
  /** Set when the sync already ended (scale unreadable, metrics failed). */
  finished: { status: HorizontalPodAutoscalerStatus; error: string } | null;
  /** An error to return at the end even when scaling went ahead (some metrics failed). */
  deferredError: string | null;
  trace: DecisionTrace;
}

export interface SyncResult {
  /** The status to write; write it only when `statusChanged`. */
  status: HorizontalPodAutoscalerStatus;
  statusChanged: boolean;
  events: SyncEvent[];
  history: HpaHistory;
  /** The value written to the scale when `scaleUpdated`, else the current replicas. */
  desiredReplicas: number;
  scaleUpdated: boolean;
  /** What the reconcile returns (the HPA is requeued at the sync period either way). */
  error: string | null;
  trace: DecisionTrace;
}

/** Upstream's `Kind/namespace/name` reference to the scale target, used in errors. */
function targetReference(hpa: HorizontalPodAutoscaler): string {
  const ref = hpa.spec.scaleTargetRef;
  return `${ref.kind}/${hpa.metadata.namespace ?? ""}/${ref.name}`;
}

/** Whether this sync reads metrics, so the controller only fetches them when they count. */
export function needsMetrics(hpa: HorizontalPodAutoscaler, scale: ScaleObservation): boolean {
  if (!scale.ok) return false;
  const minReplicas = hpa.spec.minReplicas ?? 1;
  const current = scale.specReplicas;
  if (current === 0 && minReplicas !== 0) return false;
  return current <= hpa.spec.maxReplicas && current >= minReplicas;
}

/** The stored conditions, shared: setCondition replaces a condition it changes, never edits it. */
function cloneConditions(hpa: HorizontalPodAutoscaler): HorizontalPodAutoscalerCondition[] {
  return hpa.status?.conditions ? hpa.status.conditions.slice() : [];
}

/**
 * A condition this sync set back to what is stored (AbleToScale goes from SucceededGetScale
 * back to ReadyForNewScale at most syncs) becomes the stored object again: the status
 * comparison then stops at its identity, and the stored status keeps its objects.
 */
function keepStoredConditions(
  conditions: HorizontalPodAutoscalerCondition[],
  stored: readonly HorizontalPodAutoscalerCondition[] | null | undefined,
): void {
  if (!stored) return;
  const n = Math.min(conditions.length, stored.length);
  for (let i = 0; i < n; i++) {
    const c = conditions[i]!;
    const s = stored[i]!;
    if (
      c !== s &&
      c.type === s.type &&
      c.status === s.status &&
      c.reason === s.reason &&
      c.message === s.message &&
      c.lastTransitionTime === s.lastTransitionTime
    )
      conditions[i] = s;
  }
}

function newStatus(
  currentReplicas: number,
  desiredReplicas: number,
  metricStatuses: MetricStatus[] | null,
  conditions: HorizontalPodAutoscalerCondition[],
  lastScaleTime: string | null | undefined,
  stored: HorizontalPodAutoscalerStatus | undefined,
): HorizontalPodAutoscalerStatus {
  keepStoredConditions(conditions, stored?.conditions);
  // Upstream rebuilds the status from these fields only (setStatus).
  const status: HorizontalPodAutoscalerStatus = { currentReplicas, desiredReplicas };
  if (lastScaleTime) status.lastScaleTime = lastScaleTime;
  if (metricStatuses && metricStatuses.length > 0) status.currentMetrics = metricStatuses;
  if (conditions.length > 0) status.conditions = conditions;
  return status;
}

export function decideSync(input: SyncInput): SyncDecision {
  const { hpa, now } = input;
  const nowText = formatTime(now);
  const conditions = cloneConditions(hpa);
  const events: SyncEvent[] = [];
  const minReplicas = hpa.spec.minReplicas ?? 1;
  const maxReplicas = hpa.spec.maxReplicas;
  let scaleTrace: DecisionTrace["scale"];
  if (input.scale.ok) {
    // Fields assigned in order instead of spread from a temporary object (a spread per sync).
    const ok: { specReplicas: number; statusReplicas: number; selector?: string } = {
      specReplicas: input.scale.specReplicas,
      statusReplicas: input.scale.statusReplicas,
    };
    if (input.scale.selector !== undefined) ok.selector = input.scale.selector;
    scaleTrace = ok;
  } else scaleTrace = { error: input.scale.error };
  const trace: DecisionTrace = {
    version: DECISION_TRACE_VERSION,
    hpa: { namespace: hpa.metadata.namespace ?? "", name: hpa.metadata.name ?? "" },
    time: nowText,
    scale: scaleTrace,
    branch: "metrics",
    minReplicas,
    maxReplicas,
    currentReplicas: 0,
    metrics: [],
    recommendation: null,
    desiredReplicas: 0,
    rescale: false,
    outcome: "unchanged",
  };
  const decision: SyncDecision = {
    input,
    currentReplicas: 0,
    desiredReplicas: 0,
    rescale: false,
    rescaleReason: "",
    conditions,
    metricStatuses: null,
    events,
    history: input.history,
    finished: null,
    deferredError: null,
    trace,
  };

  if (!input.scale.ok) {
    const error = input.scale.error;
    events.push({ type: "Warning", reason: "FailedGetScale", message: error });
    setCondition(
      conditions,
      "AbleToScale",
      "False",
      "FailedGetScale",
      `the HPA controller was unable to get the target's current scale: ${error}`,
      nowText,
    );
    trace.branch = "scaleUnavailable";
    const status = { ...(hpa.status ?? { desiredReplicas: 0 }), conditions };
    const failure = `failed to query scale subresource for ${targetReference(hpa)}: ${error}`;
    decision.finished = { status, error: failure };
    decision.currentReplicas = hpa.status?.currentReplicas ?? 0;
    decision.desiredReplicas = hpa.status?.desiredReplicas ?? 0;
    trace.currentReplicas = decision.currentReplicas;
    trace.desiredReplicas = decision.desiredReplicas;
    trace.outcome = "failed";
    trace.error = failure;
    return decision;
  }

  setCondition(
    conditions,
    "AbleToScale",
    "True",
    "SucceededGetScale",
    "the HPA controller was able to get the target's current scale",
    nowText,
  );
  const currentReplicas = input.scale.specReplicas;
  decision.currentReplicas = currentReplicas;
  trace.currentReplicas = currentReplicas;
  // The first sync after the HPA is seen seeds the history with the current size.
  const history: HpaHistory =
    input.history.recommendations === null
      ? withRecommendations(input.history, [{ replicas: currentReplicas, timestamp: now }])
      : input.history;
  decision.history = history;

  let desiredReplicas = 0;
  let rescaleReason = "";
  let rescale = true;
  let branch: SyncBranch = "metrics";

  if (currentReplicas === 0 && minReplicas !== 0) {
    desiredReplicas = 0;
    rescale = false;
    branch = "scalingDisabled";
    setCondition(
      conditions,
      "ScalingActive",
      "False",
      "ScalingDisabled",
      "scaling is disabled since the replica count of the target is zero",
      nowText,
    );
  } else if (currentReplicas > maxReplicas) {
    branch = "aboveMaxReplicas";
    rescaleReason = "Current number of replicas above Spec.MaxReplicas";
    desiredReplicas = maxReplicas;
  } else if (currentReplicas < minReplicas) {
    branch = "belowMinReplicas";
    rescaleReason = "Current number of replicas below Spec.MinReplicas";
    desiredReplicas = minReplicas;
  } else {
    const metrics = computeMetrics(input, conditions, events, nowText);
    decision.metricStatuses = metrics.statuses;
    trace.metrics = metrics.traces;
    if (metrics.replicas === null) {
      // Every metric failed, or some failed and the rest would scale down: no scaling.
      events.push({
        type: "Warning",
        reason: "FailedComputeMetricsReplicas",
        message: metrics.error!,
      });
      const status = newStatus(
        currentReplicas,
        hpa.status?.desiredReplicas ?? 0,
        metrics.statuses,
        conditions,
        hpa.status?.lastScaleTime,
        hpa.status,
      );
      const error = `failed to compute desired number of replicas based on listed metrics for ${targetReference(hpa)}: ${metrics.error}`;
      decision.finished = { status, error };
      decision.desiredReplicas = status.desiredReplicas;
      trace.branch = "metrics";
      trace.desiredReplicas = status.desiredReplicas;
      trace.outcome = "failed";
      trace.error = error;
      return decision;
    }
    decision.deferredError = metrics.error;
    trace.recommendation = metrics.replicas;
    let rescaleMetric = "";
    if (metrics.replicas > desiredReplicas) {
      desiredReplicas = metrics.replicas;
      rescaleMetric = metrics.metric;
    }
    const proposal = input.proposal;
    if (proposal !== undefined && proposal.replicas > desiredReplicas) {
      desiredReplicas = proposal.replicas;
      rescaleMetric = proposal.metric;
      trace.recommendation = desiredReplicas;
    }
    trace.recommendationMetric = rescaleMetric;
    if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
    if (desiredReplicas < currentReplicas) rescaleReason = "All metrics below target";
    const normalized = hpa.spec.behavior
      ? normalizeWithBehavior(
          decision,
          history,
          currentReplicas,
          desiredReplicas,
          minReplicas,
          nowText,
        )
      : normalizeLegacy(decision, history, currentReplicas, desiredReplicas, minReplicas, nowText);
    desiredReplicas = normalized;
    rescale = desiredReplicas !== currentReplicas;
  }

  trace.branch = branch;
  decision.desiredReplicas = desiredReplicas;
  decision.rescale = rescale;
  decision.rescaleReason = rescaleReason;
  trace.desiredReplicas = desiredReplicas;
  trace.rescale = rescale;
  if (rescaleReason) trace.rescaleReason = rescaleReason;
  return decision;
}

interface MetricsOutcome {
  /** null: the sync must not scale (see `error`). */
  replicas: number | null;
  metric: string;
  statuses: MetricStatus[];
  traces: MetricTrace[];
  error: string | null;
}

function computeMetrics(
  input: SyncInput,
  conditions: HorizontalPodAutoscalerCondition[],
  events: SyncEvent[],
  nowText: string,
): MetricsOutcome {
  const { hpa, config } = input;
  const scale = input.scale as Extract<ScaleObservation, { ok: true }>;
  const specs = hpa.spec.metrics ?? [];
  const outcome: MetricsOutcome = {
    replicas: null,
    metric: "",
    statuses: [],
    traces: [],
    error: null,
  };

  const selectorText = scale.selector ?? "";
  if (selectorText === "") {
    events.push({ type: "Warning", reason: "SelectorRequired", message: "selector is required" });
    setCondition(
      conditions,
      "ScalingActive",
      "False",
      "InvalidSelector",
      "the HPA target's scale is missing a selector",
      nowText,
    );
    outcome.error = "selector is required";
    return outcome;
  }
  const parsed = parseSelector(selectorText);
  if (!parsed.ok) {
    const message = `couldn't convert selector into a corresponding internal selector object: ${parsed.error}`;
    events.push({ type: "Warning", reason: "InvalidSelector", message });
    setCondition(conditions, "ScalingActive", "False", "InvalidSelector", message, nowText);
    outcome.error = message;
    return outcome;
  }
  if (input.selectingHpas && input.selectingHpas.length > 1) {
    const message = `pods by selector ${selectorText} are controlled by multiple HPAs: [${input.selectingHpas.join(" ")}]`;
    events.push({ type: "Warning", reason: "AmbiguousSelector", message });
    setCondition(conditions, "ScalingActive", "False", "AmbiguousSelector", message, nowText);
    outcome.error = message;
    return outcome;
  }

  const context: MetricContext = {
    specReplicas: scale.specReplicas,
    statusReplicas: scale.statusReplicas,
    namespace: hpa.metadata.namespace ?? "",
    pods: input.pods,
    tolerances: tolerancesFor(hpa, config),
    // The config holds both settings under their names: no object per sync.
    readiness: config,
    podLevelResources: config.featureGates.enabled("PodLevelResources"),
    now: input.now,
    version: config.featureGates.version,
  };

  let replicas = 0;
  let invalidCount = 0;
  let firstInvalid: { reason: string; message: string; error: string } | null = null;
  // A loop, not forEach: no closure per sync.
  for (let index = 0; index < specs.length; index++) {
    const spec = specs[index]!;
    const source = metricSourceFor(spec.type);
    const observation = input.observations[index] ?? { kind: "error", error: "no observation" };
    const precomputed = input.metricResults?.[index];
    const result = precomputed
      ? precomputed
      : source
        ? source.compute(spec, observation, context, index)
        : (() => {
            const message = `unknown metric source type "${spec.type}"`;
            return {
              ok: false as const,
              reason: "InvalidMetricSourceType",
              message,
              error: message,
              trace: { index, type: spec.type, reason: "InvalidMetricSourceType", error: message },
            };
          })();
    // Upstream leaves a zero-valued status entry for a metric that failed.
    const status: MetricStatus = result.ok ? result.status : { type: "" };
    // The first entry as a literal of one: a push onto [] makes room for 17.
    if (index === 0) {
      outcome.statuses = [status];
      outcome.traces = [result.trace];
    } else {
      outcome.statuses.push(status);
      outcome.traces.push(result.trace);
    }
    if (!result.ok) {
      events.push({ type: "Warning", reason: result.reason, message: result.message });
      if (firstInvalid === null) firstInvalid = result;
      invalidCount++;
      continue;
    }
    if (replicas === 0 || result.replicas > replicas) {
      replicas = result.replicas;
      outcome.metric = result.description;
    }
  }

  const invalid = firstInvalid as { reason: string; message: string; error: string } | null;
  if (invalid) {
    outcome.error = `invalid metrics (${invalidCount} invalid out of ${specs.length}), first error is: ${invalid.error}`;
  }
  if (invalid && (invalidCount >= specs.length || replicas < scale.specReplicas)) {
    setCondition(
      conditions,
      "ScalingActive",
      "False",
      invalid.reason,
      `the HPA was unable to compute the replica count: ${invalid.message}`,
      nowText,
    );
    return outcome;
  }
  if (specs.length === 0) {
    // No metric at all counts as every metric failing (0 of 0) upstream.
    outcome.error = "invalid metrics (0 invalid out of 0), first error is: <nil>";
    return outcome;
  }
  setCondition(
    conditions,
    "ScalingActive",
    "True",
    "ValidMetricFound",
    validMetricMessage(outcome.metric),
    nowText,
  );
  outcome.replicas = replicas;
  return outcome;
}

// The message per metric description, so that an unchanged condition holds the very string
// the stored status holds (the status comparison then compares no characters). Bounded: the
// descriptions are the HPAs' metrics, and a controller whose HPAs change forever starts over.
const validMetricMessages = new Map<string, string>();
// The last description asked for and its message: HPAs of one metric ask for the same one
// (the sources intern their descriptions), answered without hashing and comparing it.
let lastValidMetric: string | null = null;
let lastValidMessage = "";

function validMetricMessage(metric: string): string {
  if (metric === lastValidMetric) return lastValidMessage;
  let message = validMetricMessages.get(metric);
  if (message === undefined) {
    if (validMetricMessages.size >= 1024) validMetricMessages.clear();
    message = `the HPA was able to successfully calculate a replica count from ${metric}`;
    validMetricMessages.set(metric, message);
  }
  lastValidMetric = metric;
  lastValidMessage = message;
  return message;
}

function normalizeLegacy(
  decision: SyncDecision,
  history: HpaHistory,
  currentReplicas: number,
  recommendation: number,
  minReplicas: number,
  nowText: string,
): number {
  const { config, now, hpa } = decision.input;
  const stabilization = stabilizeLegacy(
    history.recommendations ?? [],
    recommendation,
    config.downscaleStabilizationWindowMs,
    now,
  );
  decision.history = withRecommendations(history, stabilization.recommendations);
  const stabilized = stabilization.stabilized !== recommendation;
  const stabilizationReason = stabilized ? "ScaleDownStabilized" : "ReadyForNewScale";
  setCondition(
    decision.conditions,
    "AbleToScale",
    "True",
    stabilizationReason,
    stabilized
      ? STABILIZATION_MESSAGES.ScaleDownStabilized
      : STABILIZATION_MESSAGES.ReadyForNewScale,
    nowText,
  );
  const clamp = clampLegacy({
    currentReplicas,
    desiredReplicas: stabilization.stabilized,
    minReplicas,
    maxReplicas: hpa.spec.maxReplicas,
    scaleUpLimitFactor: config.scaleUpLimitFactor,
    scaleUpLimitMinimum: config.scaleUpLimitMinimum,
  });
  // Read once, and by name for the usual reason: a keyed load by a varying key is a
  // megamorphic lookup in optimized code.
  const limitText =
    clamp.reason === "DesiredWithinRange"
      ? LIMIT_MESSAGES.DesiredWithinRange
      : LIMIT_MESSAGES[clamp.reason];
  setCondition(
    decision.conditions,
    "ScalingLimited",
    clamp.replicas === stabilization.stabilized ? "False" : "True",
    clamp.reason,
    limitText,
    nowText,
  );
  // Optional fields are assigned in the traces' key order, not spread from temporary objects.
  const stabilizationTrace: StabilizationTrace = {
    path: "legacy",
    recommendation,
    stabilized: stabilization.stabilized,
    reason: stabilizationReason,
    windowSeconds: config.downscaleStabilizationWindowMs / 1000,
  };
  if (stabilization.winner) {
    stabilizationTrace.winner = {
      replicas: stabilization.winner.replicas,
      ageSeconds: (now - stabilization.winner.timestamp) / 1000,
    };
  }
  decision.trace.stabilization = stabilizationTrace;
  const limitTrace: LimitTrace = { reason: clamp.reason, message: limitText };
  if (clamp.limit !== undefined) limitTrace.limit = clamp.limit;
  limitTrace.legacyScaleUpLimit = legacyScaleUpLimit(
    currentReplicas,
    config.scaleUpLimitFactor,
    config.scaleUpLimitMinimum,
  );
  decision.trace.limit = limitTrace;
  return clamp.replicas;
}

function normalizeWithBehavior(
  decision: SyncDecision,
  history: HpaHistory,
  currentReplicas: number,
  recommendation: number,
  minReplicas: number,
  nowText: string,
): number {
  const { config, now, hpa } = decision.input;
  const behavior = hpa.spec.behavior!;
  // A scale-down window left unset falls back to the controller's flag.
  const scaleUp = resolveRules(behavior.scaleUp, 0);
  const scaleDown = resolveRules(behavior.scaleDown, config.downscaleStabilizationWindowMs / 1000);
  const stabilization = stabilizeWithBehavior({
    recommendations: history.recommendations ?? [],
    currentReplicas,
    recommendation,
    scaleUpWindowSeconds: scaleUp.stabilizationWindowSeconds,
    scaleDownWindowSeconds: scaleDown.stabilizationWindowSeconds,
    now,
  });
  decision.history = withRecommendations(history, stabilization.recommendations);
  setCondition(
    decision.conditions,
    "AbleToScale",
    "True",
    stabilization.reason,
    STABILIZATION_MESSAGES[stabilization.reason],
    nowText,
  );
  const clamp = clampWithBehavior({
    currentReplicas,
    desiredReplicas: stabilization.stabilized,
    minReplicas,
    maxReplicas: hpa.spec.maxReplicas,
    scaleUp,
    scaleDown,
    scaleUpEvents: history.scaleUpEvents,
    scaleDownEvents: history.scaleDownEvents,
    now,
  });
  const limitText = LIMIT_MESSAGES[clamp.reason];
  setCondition(
    decision.conditions,
    "ScalingLimited",
    clamp.replicas === stabilization.stabilized ? "False" : "True",
    clamp.reason,
    limitText,
    nowText,
  );
  decision.trace.stabilization = {
    path: "behavior",
    recommendation,
    stabilized: stabilization.stabilized,
    reason: stabilization.reason,
    scaleUpWindowSeconds: scaleUp.stabilizationWindowSeconds,
    scaleDownWindowSeconds: scaleDown.stabilizationWindowSeconds,
    upRecommendation: stabilization.upRecommendation,
    downRecommendation: stabilization.downRecommendation,
  };
  const limitTrace: LimitTrace = { reason: clamp.reason, message: limitText };
  if (clamp.limit !== undefined) limitTrace.limit = clamp.limit;
  if (clamp.policyLimit) {
    limitTrace.selectPolicy = clamp.policyLimit.selectPolicy;
    limitTrace.policies = clamp.policyLimit.proposals;
    limitTrace.policyLimit = clamp.policyLimit.limit;
  }
  decision.trace.limit = limitTrace;
  return clamp.replicas;
}

export type RescaleOutcome = { ok: true } | { ok: false; error: string };

/** Finishes a sync once the scale update (if any) has been attempted. */
export function completeSync(
  decision: SyncDecision,
  rescaleOutcome: RescaleOutcome | null,
): SyncResult {
  const { hpa, now } = decision.input;
  const nowText = formatTime(now);
  const events = [...decision.events];
  const trace = decision.trace;
  const original = hpa.status ?? { desiredReplicas: 0 };
  if (decision.finished) {
    return syncResult(
      decision.finished.status,
      original,
      events,
      decision.history,
      decision.desiredReplicas,
      false,
      decision.finished.error,
      trace,
    );
  }

  const { currentReplicas, desiredReplicas, rescaleReason } = decision;
  if (decision.rescale) {
    const outcome = rescaleOutcome ?? { ok: false, error: "the scale update was not attempted" };
    if (!outcome.ok) {
      events.push({
        type: "Warning",
        reason: "FailedRescale",
        message: `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${outcome.error}`,
      });
      setCondition(
        decision.conditions,
        "AbleToScale",
        "False",
        "FailedUpdateScale",
        `the HPA controller was unable to update the target scale: ${outcome.error}`,
        nowText,
      );
      const status = newStatus(
        currentReplicas,
        original.desiredReplicas,
        decision.metricStatuses,
        decision.conditions,
        original.lastScaleTime,
        hpa.status,
      );
      const error = `failed to rescale ${targetReference(hpa)}: ${outcome.error}`;
      trace.outcome = "failed";
      trace.error = error;
      return syncResult(
        status,
        original,
        events,
        decision.history,
        original.desiredReplicas,
        false,
        error,
        trace,
      );
    }
    setCondition(
      decision.conditions,
      "AbleToScale",
      "True",
      "SucceededRescale",
      `the HPA controller was able to update the target scale to ${desiredReplicas}`,
      nowText,
    );
    events.push({
      type: "Normal",
      reason: "SuccessfulRescale",
      message: `New size: ${desiredReplicas}; reason: ${rescaleReason}`,
    });
    const history = recordScaleEvent(decision, currentReplicas, desiredReplicas);
    const status = newStatus(
      currentReplicas,
      desiredReplicas,
      decision.metricStatuses,
      decision.conditions,
      nowText,
      hpa.status,
    );
    trace.outcome = "scaled";
    if (decision.deferredError) trace.error = decision.deferredError;
    return syncResult(
      status,
      original,
      events,
      history,
      desiredReplicas,
      true,
      decision.deferredError,
      trace,
    );
  }
  const status = newStatus(
    currentReplicas,
    currentReplicas,
    decision.metricStatuses,
    decision.conditions,
    original.lastScaleTime,
    hpa.status,
  );
  trace.desiredReplicas = currentReplicas;
  if (decision.deferredError) trace.error = decision.deferredError;
  return syncResult(
    status,
    original,
    events,
    decision.history,
    currentReplicas,
    false,
    decision.deferredError,
    trace,
  );
}

/** completeSync's result (a function, not a closure made at every sync). */
function syncResult(
  status: HorizontalPodAutoscalerStatus,
  original: HorizontalPodAutoscalerStatus,
  events: SyncEvent[],
  history: HpaHistory,
  desiredReplicas: number,
  scaleUpdated: boolean,
  error: string | null,
  trace: DecisionTrace,
): SyncResult {
  return {
    status,
    statusChanged: !statusEqual(status, original),
    events,
    history,
    desiredReplicas,
    scaleUpdated,
    error,
    trace,
  };
}

/**
 * jsonEqual of a new status and the stored one, comparing first what changes from sync to sync
 * (the replica counts, then the metrics' values) so that a changed status is told apart
 * without walking the rest; equal so far, the whole comparison decides.
 */
function statusEqual(
  status: HorizontalPodAutoscalerStatus,
  stored: HorizontalPodAutoscalerStatus,
): boolean {
  if (status === stored) return true;
  if (
    status.currentReplicas !== stored.currentReplicas ||
    status.desiredReplicas !== stored.desiredReplicas
  )
    return false;
  const metrics = status.currentMetrics;
  const storedMetrics = stored.currentMetrics;
  if (metrics && storedMetrics && metrics.length === storedMetrics.length) {
    for (let i = 0; i < metrics.length; i++) {
      const m = metrics[i]!;
      const s = storedMetrics[i]!;
      // An unchanged metric is mostly the stored object itself (see resource.ts).
      if (m === s) continue;
      // Resource metrics' values directly; any other shape is left to the whole comparison.
      const current = m.resource?.current;
      const storedCurrent = s.resource?.current;
      if (
        current &&
        storedCurrent &&
        (current.averageValue !== storedCurrent.averageValue ||
          current.averageUtilization !== storedCurrent.averageUtilization)
      )
        return false;
    }
  }
  return statusFieldsEqual(status, stored);
}

/**
 * jsonEqual(status, stored) field by field: a walk of the status reads the stored status by
 * each key in turn, a keyed load that is megamorphic in optimized code (ten per sync where the
 * status did not change, 1.1% of bench:sim's instructions); the status's fields read by name
 * are not. A status with another field than these (the stored status copied) goes to jsonEqual.
 */
function statusFieldsEqual(
  status: HorizontalPodAutoscalerStatus,
  stored: HorizontalPodAutoscalerStatus,
): boolean {
  // Keys holding undefined count as absent, as in jsonEqual.
  const count = definedKeys(status);
  if (count !== definedKeys(stored)) return false;
  let known = 0;
  if (status.observedGeneration !== undefined) {
    known++;
    if (!same(status.observedGeneration, stored.observedGeneration)) return false;
  }
  if (status.lastScaleTime !== undefined) {
    known++;
    if (!same(status.lastScaleTime, stored.lastScaleTime)) return false;
  }
  if (status.currentReplicas !== undefined) {
    known++;
    if (!same(status.currentReplicas, stored.currentReplicas)) return false;
  }
  if (status.desiredReplicas !== undefined) {
    known++;
    if (!same(status.desiredReplicas, stored.desiredReplicas)) return false;
  }
  if (status.currentMetrics !== undefined) {
    known++;
    if (!sameList(status.currentMetrics, stored.currentMetrics)) return false;
  }
  if (status.conditions !== undefined) {
    known++;
    if (!sameList(status.conditions, stored.conditions)) return false;
  }
  // Every defined key of the status equal in the stored one, and as many defined keys in both:
  // the same keys. A key of another name is compared by jsonEqual.
  return known === count || jsonEqual(status, stored);
}

/** jsonEqual, without a call for identical values. */
function same(a: unknown, b: unknown): boolean {
  return a === b || jsonEqual(a, b);
}

/** jsonEqual of two lists (a new one of the stored objects, mostly) without a call per list. */
function sameList(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return jsonEqual(a, b);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !jsonEqual(a[i], b[i])) return false;
  return true;
}

/** The keys of an object not holding undefined (a walk reading only the object itself). */
function definedKeys(object: object): number {
  let count = 0;
  const record = object as Record<string, unknown>;
  for (const key in record) if (record[key] !== undefined) count++;
  return count;
}

/** Scale events are only kept on the behavior path, where policies read them. */
function recordScaleEvent(decision: SyncDecision, previous: number, next: number): HpaHistory {
  const { hpa, now } = decision.input;
  const behavior = hpa.spec.behavior;
  const history = decision.history;
  if (!behavior) return history;
  if (next > previous) {
    return withLists(
      history,
      history.recommendations,
      storeScaleEvent(
        history.scaleUpEvents,
        next - previous,
        longestPolicyPeriodSeconds(behavior.scaleUp),
        now,
      ),
      history.scaleDownEvents,
    );
  }
  return withLists(
    history,
    history.recommendations,
    history.scaleUpEvents,
    storeScaleEvent(
      history.scaleDownEvents,
      previous - next,
      longestPolicyPeriodSeconds(behavior.scaleDown),
      now,
    ),
  );
}

/** A whole sync for callers whose scale update cannot fail (tests, what-if runs). */
export function syncOnce(input: SyncInput): SyncResult {
  const decision = decideSync(input);
  return completeSync(decision, decision.rescale ? { ok: true } : null);
}
