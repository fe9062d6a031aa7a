// HPA status conditions as upstream's setCondition keeps them: a condition is updated in place
// (its lastTransitionTime moves only when the status flips) or appended in first-set order.
import type { ConditionStatus, HorizontalPodAutoscalerCondition } from "../api/types.js";

/** Upstream's three, and Horizon's own `ForeignWriter` (extensions/sync.ts). */
export type ConditionType = "AbleToScale" | "ScalingActive" | "ScalingLimited" | "ForeignWriter";

export function setCondition(
  conditions: HorizontalPodAutoscalerCondition[],
  type: ConditionType,
  status: ConditionStatus,
  reason: string,
  message: string,
  now: string,
): void {
  const existing = conditions.find((c) => c.type === type);
  if (!existing) {
    conditions.push({ type, status, lastTransitionTime: now, reason, message });
    return;
  }
  if (existing.status !== status) existing.lastTransitionTime = now;
  existing.status = status;
  existing.reason = reason;
  existing.message = message;
}

/** Kubernetes metav1.Time: RFC 3339 in UTC with whole seconds. */
export function formatTime(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds !== lastFormatted.seconds) {
    lastFormatted.seconds = seconds;
    lastFormatted.text = new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
  }
  return lastFormatted.text;
}

// Every sync of one tick formats the same instant.
const lastFormatted = { seconds: Number.NaN, text: "" };
