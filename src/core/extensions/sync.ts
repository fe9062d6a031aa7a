// A sync with Horizon's opt-in extensions: upstream's decision (core/sync.ts, unchanged), then
// the rules of the HPA's `horizon.dev/` annotations over it. Without such an annotation both
// calls are exactly upstream's, so the conformance vectors and every existing HPA see no change.

import { formatDuration } from "../../api/duration.js";
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition } from "../../api/types.js";
import { formatTime, setCondition, updateCondition } from "../conditions.js";
import { jsonEqual } from "../json.js";
import {
  completeSync,
  decideSync,
  needsMetrics,
  type RescaleOutcome,
  type ScaleObservation,
  type SyncDecision,
  type SyncEvent,
  type SyncInput,
  type SyncResult,
} from "../sync.js";
import type { ExtensionTrace } from "../trace.js";
import {
  ANNOTATION_PREFIX,
  ANNOTATIONS,
  type Extensions,
  extensionsOf,
  hasKnownAnnotations,
} from "./annotations.js";
import { applyFallback } from "./fallback.js";
import { configWithKnobs } from "./knobs.js";
import { PREDICTIVE_CONDITION, planPredictive, reportPredictive } from "./predictive.js";
import { hasOpenReports, reportKnobs, reportRemoved, reportSchedule } from "./reports.js";
import { scheduledFloor } from "./schedule.js";
import { applyScaleToZero, atZero, inputAtZero } from "./zero.js";

export interface ExtendedDecision extends SyncDecision {
  /** Set while paused: the AbleToScale condition the sync ends with, whatever it wrote. */
  pausedCondition?: HorizontalPodAutoscalerCondition;
}

function addTrace(decision: SyncDecision, entry: ExtensionTrace): void {
  decision.trace.extensions = [...(decision.trace.extensions ?? []), entry];
}

/** Whether the sync reads metrics: upstream's rule, and at zero when the HPA may activate. */
export function needsExtendedMetrics(
  hpa: HorizontalPodAutoscaler,
  scale: ScaleObservation,
): boolean {
  if (extensionsOf(hpa).extensions?.scaleToZero && atZero(scale)) return true;
  return needsMetrics(hpa, scale);
}

/** Upstream's decision, then the extensions' rules over it. */
export function decideExtendedSync(input: SyncInput): ExtendedDecision {
  const parsed = extensionsOf(input.hpa);
  if (parsed.extensions === null && parsed.errors.length === 0) {
    if (!hasOpenReports(input.history) && input.history.predictive === undefined) {
      return decideSync(input);
    }
    const decision = decideSync(input);
    reportRemoved(decision);
    forgetPredictive(decision);
    return decision;
  }
  const knobs = parsed.extensions ? configWithKnobs(parsed.extensions.knobs, input.config) : null;
  let upstreamInput = knobs && knobs.trace.length > 0 ? { ...input, config: knobs.config } : input;
  const schedule = parsed.extensions?.schedule
    ? scheduledFloor(parsed.extensions.schedule, input.now)
    : null;
  const specMin = input.hpa.spec.minReplicas ?? 1;
  if (schedule && schedule.floor > specMin) {
    const hpa = upstreamInput.hpa;
    upstreamInput = {
      ...upstreamInput,
      hpa: { ...hpa, spec: { ...hpa.spec, minReplicas: schedule.floor } },
    };
  }
  if (parsed.extensions?.scaleToZero) upstreamInput = inputAtZero(upstreamInput);
  const predictive = parsed.extensions?.predictive ?? null;
  let decision: ExtendedDecision;
  if (predictive) {
    // The reactive decision teaches the model this sync's demand; its forecast is then one
    // more proposal in upstream's max over metrics.
    const reactive = decideSync(upstreamInput);
    const plan = planPredictive(predictive, reactive, input.history.predictive);
    // A proposal at or below the metrics' max changes nothing: no second decision then.
    const raises =
      plan.proposal !== null && plan.proposal.replicas > (reactive.trace.recommendation ?? 0);
    decision = raises ? decideSync({ ...upstreamInput, proposal: plan.proposal! }) : reactive;
    decision.history = { ...decision.history, predictive: plan.memory };
    const entry = reportPredictive(
      decision,
      plan,
      reactive.desiredReplicas,
      ANNOTATIONS.predictive,
      formatTime(input.now),
    );
    addTrace(decision, entry);
  } else {
    decision = decideSync(upstreamInput);
    if (input.history.predictive !== undefined) forgetPredictive(decision);
  }
  if (schedule) {
    addTrace(decision, {
      annotation: ANNOTATIONS.schedule,
      reason: schedule.floor > 0 ? "ScheduleActive" : "ScheduleInactive",
      message:
        schedule.floor > 0
          ? `minReplicas ${Math.max(schedule.floor, specMin)} during the window (spec: ${specMin}): ${schedule.text}`
          : `no window open: ${schedule.text}`,
      // The floor as a count only where it raised spec.minReplicas.
      ...(schedule.floor > specMin ? { replicas: schedule.floor } : {}),
    });
  }
  for (const entry of knobs?.trace ?? []) addTrace(decision, entry);
  const nowText = formatTime(input.now);
  if (schedule) reportSchedule(decision, schedule, specMin, nowText);
  if (parsed.extensions) reportKnobs(decision, parsed.extensions.knobs, knobs?.trace ?? []);
  for (const warning of parsed.warnings) {
    const message = `${warning.annotation}: ${warning.message}`;
    decision.events.push({ type: "Warning", reason: "UnknownAnnotation", message });
    addTrace(decision, { annotation: warning.annotation, reason: "UnknownAnnotation", message });
  }
  if (parsed.extensions === null) {
    rejectInvalid(decision, parsed.errors, nowText);
    return decision;
  }
  applyRules(decision, parsed.extensions, specMin, schedule?.floor ?? 0, nowText);
  return decision;
}

/** The annotation is gone: its condition and its models go too. */
function forgetPredictive(decision: SyncDecision): void {
  const { predictive: _models, ...rest } = decision.history;
  decision.history = rest;
  const index = decision.conditions.findIndex((c) => c.type === PREDICTIVE_CONDITION);
  if (index >= 0) decision.conditions.splice(index, 1);
}

/** Invalid annotations: no scaling (what they asked for is unknown), reported by name. */
function rejectInvalid(
  decision: ExtendedDecision,
  errors: readonly { annotation: string; message: string }[],
  nowText: string,
): void {
  const message = `invalid horizon.dev annotations, not scaling: ${errors
    .map((e) => `${e.annotation}: ${e.message}`)
    .join("; ")}`;
  decision.events.push({ type: "Warning", reason: "InvalidAnnotation", message });
  for (const error of errors) {
    addTrace(decision, {
      annotation: error.annotation,
      reason: "InvalidAnnotation",
      message: error.message,
    });
  }
  if (!decision.input.scale.ok) return;
  setUnableToScale(decision, "InvalidAnnotation", message, nowText);
  holdCurrent(decision);
  if (decision.finished === null) decision.deferredError = message;
}

/** No scale write this sync: the target stays at its current count. */
function holdCurrent(decision: SyncDecision): void {
  decision.rescale = false;
  decision.desiredReplicas = decision.currentReplicas;
  decision.trace.rescale = false;
  decision.trace.desiredReplicas = decision.currentReplicas;
}

function applyRules(
  decision: ExtendedDecision,
  extensions: Extensions,
  specMinReplicas: number,
  scheduledFloor: number,
  nowText: string,
): void {
  if (extensions.scaleToZero) {
    const entry = applyScaleToZero(
      decision,
      extensions.scaleToZero,
      Math.max(specMinReplicas, scheduledFloor),
      scheduledFloor > 0,
      nowText,
    );
    if (entry) addTrace(decision, { annotation: ANNOTATIONS.minReplicas, ...entry });
  }
  if (extensions.fallback) {
    const entry = applyFallback(decision, extensions.fallback, nowText);
    if (entry) addTrace(decision, { annotation: ANNOTATIONS.fallbackReplicas, ...entry });
  }
  if (!decision.input.scale.ok) return;
  if (extensions.pausedReplicas !== null) holdPaused(decision, extensions.pausedReplicas, nowText);
  else if (extensions.paused) pause(decision, nowText);
  else if (extensions.dryRun) dryRun(decision);
}

function upstreamOutcome(decision: SyncDecision): string {
  return decision.finished
    ? `upstream's algorithm could not decide (${decision.finished.error})`
    : decision.rescale
      ? `the HPA would scale from ${decision.currentReplicas} to ${decision.desiredReplicas}`
      : `the HPA would stay at ${decision.currentReplicas}`;
}

/**
 * Sets AbleToScale False over what upstream's decision set this sync: its transition time is
 * measured against the condition as stored, not against upstream's intermediate True.
 */
function setUnableToScale(
  decision: SyncDecision,
  reason: string,
  message: string,
  nowText: string,
): HorizontalPodAutoscalerCondition {
  setCondition(decision.conditions, "AbleToScale", "False", reason, message, nowText);
  const stored = decision.input.hpa.status?.conditions?.find((c) => c.type === "AbleToScale");
  if (stored?.status === "False") {
    return updateCondition(decision.conditions, "AbleToScale", {
      lastTransitionTime: stored.lastTransitionTime,
    })!;
  }
  return decision.conditions.find((c) => c.type === "AbleToScale")!;
}

/** Paused in AbleToScale; a Normal Event `Paused` when the pause begins (not at every sync). */
function setPaused(decision: ExtendedDecision, message: string, nowText: string): void {
  const stored = decision.input.hpa.status?.conditions?.find((c) => c.type === "AbleToScale");
  if (stored?.reason !== "Paused")
    decision.events.push({ type: "Normal", reason: "Paused", message });
  decision.pausedCondition = { ...setUnableToScale(decision, "Paused", message, nowText) };
}

function pause(decision: ExtendedDecision, nowText: string): void {
  const upstreamReplicas = decision.finished ? undefined : decision.desiredReplicas;
  const message = `scaling is paused by ${ANNOTATIONS.paused}; ${upstreamOutcome(decision)}`;
  setPaused(decision, message, nowText);
  holdCurrent(decision);
  addTrace(decision, {
    annotation: ANNOTATIONS.paused,
    reason: "Paused",
    message,
    ...(upstreamReplicas !== undefined ? { upstreamReplicas } : {}),
    replicas: decision.currentReplicas,
  });
}

function holdPaused(decision: ExtendedDecision, replicas: number, nowText: string): void {
  const upstreamReplicas = decision.finished ? undefined : decision.desiredReplicas;
  const message = `scaling is paused by ${ANNOTATIONS.pausedReplicas}, holding the target at ${replicas}; ${upstreamOutcome(decision)}`;
  setPaused(decision, message, nowText);
  if (decision.finished) {
    // A hold does not depend on metrics: their failure is reported, the hold goes on.
    decision.deferredError = decision.finished.error;
    decision.finished = null;
    decision.trace.outcome = "unchanged";
  }
  decision.desiredReplicas = replicas;
  decision.rescale = replicas !== decision.currentReplicas;
  decision.rescaleReason = `held at ${replicas} by ${ANNOTATIONS.pausedReplicas}`;
  decision.trace.desiredReplicas = replicas;
  decision.trace.rescale = decision.rescale;
  decision.trace.rescaleReason = decision.rescaleReason;
  addTrace(decision, {
    annotation: ANNOTATIONS.pausedReplicas,
    reason: "Paused",
    message,
    ...(upstreamReplicas !== undefined ? { upstreamReplicas } : {}),
    replicas,
  });
}

function dryRun(decision: ExtendedDecision): void {
  if (decision.finished || !decision.rescale) {
    addTrace(decision, {
      annotation: ANNOTATIONS.dryRun,
      reason: "DryRun",
      message: `dry run: ${upstreamOutcome(decision)}`,
      replicas: decision.currentReplicas,
    });
    return;
  }
  const upstreamReplicas = decision.desiredReplicas;
  const message = `dry run (${ANNOTATIONS.dryRun}): would scale from ${decision.currentReplicas} to ${upstreamReplicas}; reason: ${decision.rescaleReason}`;
  decision.events.push({ type: "Normal", reason: "DryRun", message });
  holdCurrent(decision);
  addTrace(decision, {
    annotation: ANNOTATIONS.dryRun,
    reason: "DryRun",
    message,
    upstreamReplicas,
    replicas: decision.currentReplicas,
  });
}

/** Whether the HPA has a `horizon.dev/` annotation that changes what Horizon does. */
export function hasExtensions(hpa: HorizontalPodAutoscaler): boolean {
  return hasKnownAnnotations(hpa.metadata.annotations);
}

/** Another HPA controller writing the same HPA, as the controller's detector saw it lately. */
export interface ForeignWriter {
  /** The detector's evidence. */
  message: string;
  /** How long Horizon yields after the latest evidence. */
  holdMs: number;
}

/** Horizon's own condition type: the other controller keeps it, as it keeps any it does not set. */
export const FOREIGN_WRITER_CONDITION = "ForeignWriter";

/**
 * Another controller (the built-in one) drives this HPA too: rather than fight over the scale
 * with a controller that ignores the annotations, write none; the trace says what was not done.
 */
export function yieldToForeignWriter(decision: ExtendedDecision, message: string): void {
  if (!decision.input.scale.ok) return;
  delete decision.pausedCondition;
  const upstreamReplicas = decision.finished ? undefined : decision.desiredReplicas;
  const text = `${message}; Horizon does not write the scale of this HPA while another controller does`;
  holdCurrent(decision);
  addTrace(decision, {
    annotation: ANNOTATION_PREFIX,
    reason: "ForeignWriter",
    message: text,
    ...(upstreamReplicas !== undefined ? { upstreamReplicas } : {}),
    replicas: decision.currentReplicas,
  });
}

/**
 * A sync that yielded: instead of its own status (which the other controller would overwrite,
 * and this one overwrite back at every sync), the stored status with the ForeignWriter
 * condition set, a status that then stays steady; one Warning Event as the yield starts.
 */
export function yieldedResult(
  result: SyncResult,
  hpa: HorizontalPodAutoscaler,
  writer: ForeignWriter,
  now: number,
  starting: boolean,
): SyncResult {
  const stored = hpa.status ?? { desiredReplicas: 0 };
  const conditions = (stored.conditions ?? []).map((c) => ({ ...c }));
  setCondition(
    conditions,
    FOREIGN_WRITER_CONDITION,
    "True",
    "AnotherControllerWrites",
    "another HPA controller writes this HPA too and ignores its horizon.dev annotations: Horizon writes neither its scale nor its status while it does; disable the built-in controller (kube-controller-manager --controllers=*,-horizontalpodautoscaling) or exclude this HPA with --hpa-selector",
    formatTime(now),
  );
  const status = { ...stored, conditions };
  const events: SyncEvent[] = starting
    ? [
        {
          type: "Warning",
          reason: "ForeignWriter",
          message: `${writer.message}; Horizon stops writing the scale and the status of this HPA, whose horizon.dev annotations the other controller ignores, until ${formatDuration(writer.holdMs)} pass without its writes`,
        },
      ]
    : [];
  return {
    ...result,
    status,
    statusChanged: !jsonEqual(status, stored),
    events,
  };
}

/**
 * A sync that does not yield: the ForeignWriter condition goes (with it, or without
 * annotations, the status is Horizon's alone again), and a yield that ends says so once.
 */
export function resumedResult(
  result: SyncResult,
  hpa: HorizontalPodAutoscaler,
  yieldEnded: boolean,
): SyncResult {
  const conditions = result.status.conditions ?? [];
  const kept = conditions.filter((c) => c.type !== FOREIGN_WRITER_CONDITION);
  let out = result;
  if (kept.length !== conditions.length) {
    const { conditions: _all, ...rest } = result.status;
    const status = kept.length > 0 ? { ...rest, conditions: kept } : rest;
    out = {
      ...result,
      status,
      statusChanged: !jsonEqual(status, hpa.status ?? { desiredReplicas: 0 }),
    };
  }
  if (!yieldEnded) return out;
  return {
    ...out,
    events: [
      ...out.events,
      {
        type: "Normal",
        reason: "ForeignWriterGone",
        message:
          "no other HPA controller has written this HPA lately: Horizon writes its scale and status again",
      },
    ],
  };
}

/** Upstream's completion; a paused HPA ends with its Paused condition even after a hold's write. */
export function completeExtendedSync(
  decision: ExtendedDecision,
  rescaleOutcome: RescaleOutcome | null,
): SyncResult {
  const result = completeSync(decision, rescaleOutcome);
  const paused = decision.pausedCondition;
  // A failed hold keeps upstream's FailedUpdateScale.
  if (!paused || (decision.rescale && !result.scaleUpdated)) return result;
  // The hold's own write sets SucceededRescale; the HPA stays paused, since before this sync.
  const conditions = (result.status.conditions ?? []).map((c) =>
    c.type === "AbleToScale" ? { ...paused } : c,
  );
  const status = { ...result.status, conditions };
  return {
    ...result,
    status,
    statusChanged: !jsonEqual(status, decision.input.hpa.status ?? { desiredReplicas: 0 }),
  };
}

/** A whole extended sync for callers whose scale update cannot fail (tests, what-if runs). */
export function syncExtendedOnce(input: SyncInput): SyncResult {
  const decision = decideExtendedSync(input);
  return completeExtendedSync(decision, decision.rescale ? { ok: true } : null);
}
