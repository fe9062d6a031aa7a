// Scale to zero with activation (`horizon.dev/min-replicas: "0"`, `activation.<metric>`,
// `cooldown-period`; KEDA's semantics): at zero replicas the target is activated, to
// max(1, minReplicas), only when an Object or External metric is strictly above its activation
// value; above zero it goes back to zero once every such metric has stayed at or below its
// activation value for the cooldown period. In between, upstream's algorithm decides.

import { formatDuration } from "../../api/duration.js";
import { Quantity } from "../../api/quantity.js";
import type { HorizontalPodAutoscaler } from "../../api/types.js";
import { setCondition } from "../conditions.js";
import type { ScaleObservation, SyncDecision, SyncInput } from "../sync.js";
import type { ExtensionTrace } from "../trace.js";
import { ACTIVATION_PREFIX, ANNOTATIONS, type ScaleToZero } from "./annotations.js";

interface ActivationValue {
  metric: string;
  /** Milli-units; null when the metric failed. */
  valueMilli: bigint | null;
  activationMilli: bigint;
}

/** The value of each Object and External metric this sync (External values are summed). */
function activationValues(input: SyncInput, zero: ScaleToZero): ActivationValue[] {
  const values: ActivationValue[] = [];
  (input.hpa.spec.metrics ?? []).forEach((spec, index) => {
    const name =
      spec.type === "Object"
        ? spec.object?.metric.name
        : spec.type === "External"
          ? spec.external?.metric.name
          : undefined;
    if (name === undefined) return;
    const observation = input.observations[index];
    let valueMilli: bigint | null = null;
    if (observation?.kind === "object") valueMilli = observation.valueMilli;
    if (observation?.kind === "external")
      valueMilli = observation.valuesMilli.reduce((sum, v) => sum + v, 0n);
    values.push({ metric: name, valueMilli, activationMilli: zero.activations.get(name) ?? 0n });
  });
  return values;
}

const quantity = (milli: bigint) => Quantity.fromMilli(milli).canonical();

function describe(values: readonly ActivationValue[]): string {
  return values
    .map(
      (v) =>
        `${v.metric} ${v.valueMilli === null ? "failed" : quantity(v.valueMilli)} (activation ${quantity(v.activationMilli)})`,
    )
    .join(", ");
}

/** Whether the target is at zero and scale-to-zero applies, so metrics must be read. */
export function atZero(scale: ScaleObservation): boolean {
  return scale.ok && scale.specReplicas === 0;
}

/** At zero, upstream's algorithm must read the metrics: the same HPA with minReplicas 0. */
export function inputAtZero(input: SyncInput): SyncInput {
  const hpa: HorizontalPodAutoscaler = input.hpa;
  if (!atZero(input.scale) || hpa.spec.minReplicas === 0) return input;
  return { ...input, hpa: { ...hpa, spec: { ...hpa.spec, minReplicas: 0 } } };
}

/** Applies activation and cooldown to an upstream decision; returns its trace entry. */
export function applyScaleToZero(
  decision: SyncDecision,
  zero: ScaleToZero,
  minReplicas: number,
  scheduled: boolean,
  nowText: string,
): Omit<ExtensionTrace, "annotation"> | null {
  const { input } = decision;
  if (!input.scale.ok) return null;
  const values = activationValues(input, zero);
  const activeOnes = values.filter(
    (v) => v.valueMilli !== null && v.valueMilli > v.activationMilli,
  );
  const failed = values.some((v) => v.valueMilli === null);
  const previous = input.history.scaleToZero ?? { lastActiveTime: null };
  const current = decision.currentReplicas;
  const upstreamReplicas = decision.finished ? undefined : decision.desiredReplicas;

  if (current === 0) {
    if (activeOnes.length === 0 && !scheduled) {
      decision.history = { ...decision.history, scaleToZero: previous };
      const message = `the target is scaled to zero (${ANNOTATIONS.minReplicas}); it is activated when a metric exceeds its activation value: ${describe(values)}`;
      if (!decision.finished) {
        setCondition(
          decision.conditions,
          "ScalingActive",
          "False",
          "ScaledToZero",
          message,
          nowText,
        );
        decision.rescale = false;
        decision.desiredReplicas = 0;
        decision.trace.rescale = false;
        decision.trace.desiredReplicas = 0;
      }
      return {
        reason: "ScaledToZero",
        message,
        ...(upstreamReplicas !== undefined ? { upstreamReplicas } : {}),
        replicas: 0,
      };
    }
    const replicas = Math.max(1, minReplicas);
    const reason =
      activeOnes.length > 0
        ? `activation: ${describe(activeOnes)}`
        : `a window of ${ANNOTATIONS.schedule} is open`;
    if (decision.finished) {
      decision.deferredError = decision.finished.error;
      decision.finished = null;
      decision.trace.outcome = "unchanged";
    }
    decision.history = { ...decision.history, scaleToZero: { lastActiveTime: input.now } };
    setRescale(decision, replicas, reason);
    return {
      reason: "Activated",
      message: `scaling from zero to ${replicas}: ${reason}${activeOnes.length > 0 ? ` (${activationAnnotations(activeOnes)})` : ""}`,
      ...(upstreamReplicas !== undefined ? { upstreamReplicas } : {}),
      replicas,
    };
  }

  // Above zero: a failed metric counts as active, so an outage never scales to zero; nor does
  // an open schedule window.
  if (activeOnes.length > 0 || failed || scheduled || previous.lastActiveTime === null) {
    decision.history = { ...decision.history, scaleToZero: { lastActiveTime: input.now } };
    return null;
  }
  decision.history = { ...decision.history, scaleToZero: previous };
  const idleMs = input.now - previous.lastActiveTime;
  if (idleMs < zero.cooldownMs) return null;
  const reason = `every metric at or below its activation value for ${formatDuration(idleMs)} (cooldown ${formatDuration(zero.cooldownMs)}): ${describe(values)}`;
  setRescale(decision, 0, reason);
  return {
    reason: "ScaledToZero",
    message: `scaling to zero: ${reason}`,
    ...(upstreamReplicas !== undefined ? { upstreamReplicas } : {}),
    replicas: 0,
  };
}

function activationAnnotations(values: readonly ActivationValue[]): string {
  return values.map((v) => `${ACTIVATION_PREFIX}${v.metric}`).join(", ");
}

function setRescale(decision: SyncDecision, replicas: number, reason: string): void {
  decision.desiredReplicas = replicas;
  decision.rescale = replicas !== decision.currentReplicas;
  decision.rescaleReason = reason;
  decision.trace.desiredReplicas = replicas;
  decision.trace.rescale = decision.rescale;
  decision.trace.rescaleReason = reason;
}
