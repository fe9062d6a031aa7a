// How the dashboard (and the report) shows an HPA's conditions: upstream's three always, in
// order, then any other condition the status carries (Horizon's own `ForeignWriter`, another
// controller's). Each gets a state for its colour: ok (as wished), warn, bad, paused (held on
// purpose by an annotation), unknown (not reported), other (a type whose healthy status is not
// known here). Reasons set by Horizon's extensions (docs/extensions.md) name the chip, so a
// paused or scheduled HPA reads as such rather than as a failure. Pure: no DOM.
import type { HorizontalPodAutoscalerCondition } from "../api/types.js";

export type ConditionState = "ok" | "warn" | "bad" | "paused" | "unknown" | "other";

export interface ConditionChip {
  type: string;
  /** The chip's text. */
  short: string;
  state: ConditionState;
  /** The condition in words (tooltip, screen readers). */
  words: string;
}

const KNOWN: { type: string; short: string; good: "True" | "False"; always: boolean }[] = [
  { type: "AbleToScale", short: "able", good: "True", always: true },
  { type: "ScalingActive", short: "active", good: "True", always: true },
  { type: "ScalingLimited", short: "limited", good: "False", always: true },
  // Horizon yields an HPA another controller writes too (docs/extensions.md).
  { type: "ForeignWriter", short: "foreign writer", good: "False", always: false },
];

/** The extensions' reasons on upstream's conditions: the chip's text and state. */
const EXTENSION_REASONS: Record<string, { short: string; state: ConditionState }> = {
  Paused: { short: "paused", state: "paused" },
  InvalidAnnotation: { short: "bad annotation", state: "bad" },
  FallbackActive: { short: "fallback", state: "warn" },
  ScheduledMinimum: { short: "scheduled", state: "warn" },
};

/** The state of one condition (a type and status; the reason names an extension's variant). */
export function conditionState(type: string, status?: string, reason?: string): ConditionState {
  if (status === undefined || status === "Unknown") return "unknown";
  const variant = reason === undefined ? undefined : EXTENSION_REASONS[reason];
  if (variant) return variant.state;
  const known = KNOWN.find((k) => k.type === type);
  if (!known) return "other";
  if (status === known.good) return "ok";
  return known.good === "False" ? "warn" : "bad";
}

function chip(type: string, short: string, c: HorizontalPodAutoscalerCondition): ConditionChip {
  const reason = c.reason ?? "";
  return {
    type,
    short: EXTENSION_REASONS[reason]?.short ?? short,
    state: conditionState(type, c.status, reason),
    words: `${type} ${c.status}: ${reason}${c.message ? ` (${c.message})` : ""}`,
  };
}

/** The chips of a status's conditions: the three always, then every other one present. */
export function conditionChips(conditions: readonly HorizontalPodAutoscalerCondition[]) {
  const chips: ConditionChip[] = [];
  for (const known of KNOWN) {
    const c = conditions.find((x) => x.type === known.type);
    if (c) chips.push(chip(known.type, known.short, c));
    else if (known.always) {
      chips.push({
        type: known.type,
        short: known.short,
        state: "unknown",
        words: `${known.type}: not reported yet`,
      });
    }
  }
  for (const c of conditions) {
    if (!KNOWN.some((k) => k.type === c.type)) chips.push(chip(c.type, c.type, c));
  }
  return chips;
}
