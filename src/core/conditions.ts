// HPA status conditions as upstream's setCondition keeps them: a condition is updated in place
// (its lastTransitionTime moves only when the status flips) or appended in first-set order.
import type { ConditionStatus, HorizontalPodAutoscalerCondition } from "../api/types.js";

export type ConditionType = "AbleToScale" | "ScalingActive" | "ScalingLimited";

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

/** Structural equality of JSON-shaped values (status objects), stopping at the first difference. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  // Keys holding undefined count as absent, as in JSON.
  let leftKeys = 0;
  for (const key in left) {
    if (left[key] === undefined) continue;
    leftKeys++;
    if (!jsonEqual(left[key], right[key])) return false;
  }
  let rightKeys = 0;
  for (const key in right) if (right[key] !== undefined) rightKeys++;
  return leftKeys === rightKeys;
}
