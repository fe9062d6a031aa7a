// What the per-HPA knobs and the schedule say outside the trace: in the conditions, where an
// upstream condition reports what they changed (the tolerance and initialization periods behind
// ValidMetricFound, the window behind ScaleDownStabilized, a scheduled floor as ScalingLimited
// `ScheduledMinimum`), and in Events, once per change (a window opens or closes, a knob starts
// or stops overriding its flag), as the history remembers what was last reported.

import { formatDuration } from "../../api/duration.js";
import type { HorizontalPodAutoscaler } from "../../api/types.js";
import { setCondition, updateCondition } from "../conditions.js";
import type { HpaHistory } from "../history.js";
import type { SyncDecision } from "../sync.js";
import type { ExtensionTrace } from "../trace.js";
import { ANNOTATIONS, type Knobs } from "./annotations.js";
import type { ScheduledFloor } from "./schedule.js";

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/** The knobs that change how a metric's replica count is computed, as a condition says them. */
function metricKnobs(knobs: Knobs): string[] {
  const parts: string[] = [];
  if (knobs.tolerance !== null) parts.push(`tolerance ${knobs.tolerance}`);
  if (knobs.scaleUpTolerance !== null) parts.push(`scale-up tolerance ${knobs.scaleUpTolerance}`);
  if (knobs.scaleDownTolerance !== null)
    parts.push(`scale-down tolerance ${knobs.scaleDownTolerance}`);
  if (knobs.cpuInitializationPeriodMs !== null)
    parts.push(`cpu-initialization-period ${formatDuration(knobs.cpuInitializationPeriodMs)}`);
  if (knobs.initialReadinessDelayMs !== null)
    parts.push(`initial-readiness-delay ${formatDuration(knobs.initialReadinessDelayMs)}`);
  return parts;
}

/** Whether the HPA's scale-down window is the controller flag's (so the knob's). */
function downscaleWindowFromFlag(hpa: HorizontalPodAutoscaler): boolean {
  const behavior = hpa.spec.behavior;
  return !behavior || behavior.scaleDown?.stabilizationWindowSeconds == null;
}

/**
 * The knobs in the conditions this sync set, and an Event when the overrides differ from the
 * ones last reported (`overrides`: the trace's Override entries).
 */
export function reportKnobs(
  decision: SyncDecision,
  knobs: Knobs,
  overrides: readonly ExtensionTrace[],
): void {
  const { trace } = decision;
  const metricParts = metricKnobs(knobs);
  // ValidMetricFound is set afresh only when this sync computed a recommendation.
  if (metricParts.length > 0 && trace.recommendation !== null) {
    const active = decision.conditions.find((c) => c.type === "ScalingActive");
    if (active?.reason === "ValidMetricFound" && active.status === "True") {
      updateCondition(decision.conditions, "ScalingActive", {
        message: `${active.message} (per-HPA ${metricParts.join(", ")}: horizon.dev annotations)`,
      });
    }
  }
  if (
    knobs.downscaleStabilizationWindowMs !== null &&
    trace.stabilization?.reason === "ScaleDownStabilized" &&
    downscaleWindowFromFlag(decision.input.hpa)
  ) {
    const able = decision.conditions.find((c) => c.type === "AbleToScale");
    if (able?.reason === "ScaleDownStabilized") {
      updateCondition(decision.conditions, "AbleToScale", {
        message: `${able.message} (a window of ${formatDuration(knobs.downscaleStabilizationWindowMs)} from ${ANNOTATIONS.downscaleStabilization})`,
      });
    }
  }
  const text = overrides.map((o) => `${o.annotation}: ${o.message}`).join("; ");
  const previous = decision.input.history.overrides ?? "";
  decision.history = { ...decision.history, overrides: text };
  if (text === previous) return;
  decision.events.push({
    type: "Normal",
    reason: "Override",
    message:
      text === ""
        ? "no per-HPA overrides any more: the controller's flags apply to this HPA again"
        : `per-HPA overrides of controller flags: ${text}`,
  });
}

/** When the floor in force ends: the latest closing of the open windows that set it. */
function floorUntil(schedule: ScheduledFloor): number | null {
  let until: number | null = null;
  for (const s of schedule.states) {
    if (s.closesAt === undefined || s.window.minReplicas !== schedule.floor) continue;
    until = Math.max(until ?? 0, s.closesAt);
  }
  return until;
}

/** The next opening of any window, for the message of a closing. */
function nextOpening(schedule: ScheduledFloor): number | null {
  const next = schedule.states.map((s) => s.nextAt).filter((at): at is number => at !== null);
  return next.length > 0 ? Math.min(...next) : null;
}

/**
 * A floor raised by the schedule in the conditions, the rescale reason and the trace's limit
 * (upstream's wording with the schedule named), and an Event when the floor in force changes.
 */
export function reportSchedule(
  decision: SyncDecision,
  schedule: ScheduledFloor,
  specMinReplicas: number,
  nowText: string,
): void {
  const { trace } = decision;
  const raised = schedule.floor > specMinReplicas ? schedule.floor : null;
  const until = floorUntil(schedule);
  const window =
    until !== null ? `a window of ${ANNOTATIONS.schedule} open until ${iso(until)}` : "";
  if (raised !== null && trace.branch === "belowMinReplicas") {
    decision.rescaleReason = `Current number of replicas below the scheduled minReplicas ${raised} (${ANNOTATIONS.schedule})`;
    trace.rescaleReason = decision.rescaleReason;
  }
  if (raised !== null && trace.limit?.reason === "TooFewReplicas") {
    const message = `the desired replica count is less than the scheduled minimum replica count ${raised} (${window})`;
    setCondition(
      decision.conditions,
      "ScalingLimited",
      "True",
      "ScheduledMinimum",
      message,
      nowText,
    );
    trace.limit = { ...trace.limit, reason: "ScheduledMinimum", message };
  }

  const previous = decision.input.history.scheduledFloor;
  decision.history = { ...decision.history, scheduledFloor: schedule.floor };
  // The first sync seen reports an open window only (memory is lost on restart, as upstream's).
  if (previous === schedule.floor || (previous === undefined && schedule.floor === 0)) return;
  if (schedule.floor > 0) {
    const effect =
      raised !== null
        ? `minReplicas is ${raised} (spec: ${specMinReplicas})`
        : `its minReplicas ${schedule.floor} is not above spec.minReplicas ${specMinReplicas}`;
    decision.events.push({
      type: "Normal",
      reason: "ScheduleActive",
      message: `${window}: ${effect}`,
    });
    return;
  }
  const next = nextOpening(schedule);
  decision.events.push({
    type: "Normal",
    reason: "ScheduleInactive",
    message: `no window of ${ANNOTATIONS.schedule} is open: minReplicas is ${specMinReplicas} again${next !== null ? `; next window at ${iso(next)}` : ""}`,
  });
}

/**
 * The annotations are gone: upstream's sync, plus one Event for each report that was in force
 * (an open window, knob overrides), so the change back to upstream's behaviour is visible.
 */
export function reportRemoved(decision: SyncDecision): void {
  const { history } = decision.input;
  const specMin = decision.input.hpa.spec.minReplicas ?? 1;
  if (history.scheduledFloor) {
    decision.events.push({
      type: "Normal",
      reason: "ScheduleInactive",
      message: `${ANNOTATIONS.schedule} was removed: minReplicas is ${specMin} again`,
    });
  }
  if (history.overrides) {
    decision.events.push({
      type: "Normal",
      reason: "Override",
      message: "no per-HPA overrides any more: the controller's flags apply to this HPA again",
    });
  }
  const { scheduledFloor: _floor, overrides: _overrides, ...rest } = decision.history;
  decision.history = rest;
}

/** Whether an HPA without annotations still has reports to close (see reportRemoved). */
export function hasOpenReports(history: HpaHistory): boolean {
  return Boolean(history.scheduledFloor) || Boolean(history.overrides);
}
