// HPA status conditions as upstream's setCondition keeps them: a condition is updated in place
// (its lastTransitionTime moves only when the status flips) or appended in first-set order.
import type { ConditionStatus, HorizontalPodAutoscalerCondition } from "../api/types.js";

/** Upstream's three, and Horizon's own `ForeignWriter` (extensions/sync.ts). */
export type ConditionType =
  | "AbleToScale"
  | "ScalingActive"
  | "ScalingLimited"
  | "ForeignWriter"
  | "PredictiveActive";

export function setCondition(
  conditions: HorizontalPodAutoscalerCondition[],
  type: ConditionType,
  status: ConditionStatus,
  reason: string,
  message: string,
  now: string,
): void {
  // A loop, not find: no closure per call (four calls per sync).
  for (let i = 0; i < conditions.length; i++) {
    const existing = conditions[i]!;
    if (existing.type !== type) continue;
    // Copy on write: the list starts as the stored status's conditions (shared, never changed
    // in place), so a condition left as stored stays the very stored object and the status
    // comparison stops at its identity.
    if (existing.status === status && existing.reason === reason && existing.message === message)
      return;
    // A literal in the order Kubernetes encodes a condition (a spread copy was five times slower).
    conditions[i] = {
      type,
      status,
      lastTransitionTime: existing.status === status ? existing.lastTransitionTime : now,
      reason,
      message,
    };
    return;
  }
  conditions.push({ type, status, lastTransitionTime: now, reason, message });
}

/**
 * Changes fields of the condition of this type, if any, as `setCondition` does: a new object
 * in its place, never the shared one in place.
 */
export function updateCondition(
  conditions: HorizontalPodAutoscalerCondition[],
  type: ConditionType,
  change: Partial<HorizontalPodAutoscalerCondition>,
): HorizontalPodAutoscalerCondition | undefined {
  for (let i = 0; i < conditions.length; i++) {
    const existing = conditions[i]!;
    if (existing.type !== type) continue;
    const next = { ...existing, ...change };
    conditions[i] = next;
    return next;
  }
  return undefined;
}

/** Kubernetes metav1.Time: RFC 3339 in UTC with whole seconds. */
export function formatTime(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds === lastFormatted.seconds) return lastFormatted.text;
  // A Date and toISOString per sync showed in profiles of one-HPA runs (a new second at every
  // sync): the day's prefix is formatted once, the time of day by hand.
  const day = Math.floor(seconds / 86_400);
  if (day !== lastFormatted.day) {
    const iso = new Date(day * 86_400_000).toISOString();
    lastFormatted.day = day;
    lastFormatted.prefix = iso.slice(0, iso.indexOf("T") + 1);
  }
  const s = seconds - day * 86_400;
  const text = `${lastFormatted.prefix}${TWO_DIGITS[Math.floor(s / 3600)]}:${TWO_DIGITS[Math.floor(s / 60) % 60]}:${TWO_DIGITS[s % 60]}Z`;
  lastFormatted.seconds = seconds;
  lastFormatted.text = text;
  return text;
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));

// Every sync of one tick formats the same instant, and every instant of a day the same date.
const lastFormatted = { seconds: Number.NaN, text: "", day: Number.NaN, prefix: "" };
