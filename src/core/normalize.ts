// Normalization of a metric recommendation into the replica count to apply: stabilization,
// rate limits and the min/max clamp, on the legacy path (no `behavior`) and the behavior path.
import type { HPAScalingPolicy, HPAScalingRules } from "../api/types.js";
import {
  isWithin,
  recordReusingStale,
  type TimestampedRecommendation,
  type TimestampedScaleEvent,
} from "./history.js";
import { int32, MAX_INT32, MIN_INT32 } from "./int.js";

export type LimitReason =
  | "DesiredWithinRange"
  | "TooManyReplicas"
  | "TooFewReplicas"
  | "ScaleUpLimit"
  | "ScaleDownLimit";

export const LIMIT_MESSAGES: Record<LimitReason, string> = {
  DesiredWithinRange: "the desired count is within the acceptable range",
  TooManyReplicas: "the desired replica count is more than the maximum replica count",
  TooFewReplicas: "the desired replica count is less than the minimum replica count",
  ScaleUpLimit: "the desired replica count is increasing faster than the maximum scale rate",
  ScaleDownLimit: "the desired replica count is decreasing faster than the maximum scale rate",
};

export type StabilizationReason = "ReadyForNewScale" | "ScaleDownStabilized" | "ScaleUpStabilized";

export const STABILIZATION_MESSAGES: Record<StabilizationReason, string> = {
  ReadyForNewScale: "recommended size matches current size",
  ScaleDownStabilized:
    "recent recommendations were higher than current one, applying the highest recent recommendation",
  ScaleUpStabilized:
    "recent recommendations were lower than current one, applying the lowest recent recommendation",
};

// ---------------------------------------------------------------------------------------------
// Legacy path

export interface LegacyStabilization {
  stabilized: number;
  recommendations: TimestampedRecommendation[];
  /** The stored recommendation that raised the value, if any. */
  winner: TimestampedRecommendation | null;
}

/** The highest recommendation within the downscale window (only ever raises the value). */
export function stabilizeLegacy(
  recommendations: readonly TimestampedRecommendation[],
  recommendation: number,
  windowMs: number,
  now: number,
): LegacyStabilization {
  let stabilized = recommendation;
  let winner: TimestampedRecommendation | null = null;
  // One pass finds the highest recommendation in the window and the last stale slot, which
  // the new one overwrites (recordReusingStale's rule, without a second pass and a closure).
  let staleIndex = -1;
  for (let i = 0; i < recommendations.length; i++) {
    const rec = recommendations[i]!;
    if (!isWithin(rec.timestamp, windowMs, now)) staleIndex = i;
    else if (rec.replicas > stabilized) {
      stabilized = rec.replicas;
      winner = rec;
    }
  }
  const next = recommendations.slice();
  const entry = { replicas: recommendation, timestamp: now };
  if (staleIndex >= 0) next[staleIndex] = entry;
  else next.push(entry);
  return { stabilized, recommendations: next, winner };
}

export interface ClampResult {
  replicas: number;
  reason: LimitReason;
  /** The bound that applied (the legacy scale-up cap, a policy limit, min or max). */
  limit?: number;
}

/** The legacy scale-up cap: max(factor × current, minimum), truncated to int32. */
export function legacyScaleUpLimit(
  currentReplicas: number,
  factor: number,
  minimum: number,
): number {
  return Math.trunc(Math.max(factor * currentReplicas, minimum));
}

/** The legacy clamp: min first, then the lower of max and the scale-up cap. */
export function clampLegacy(input: {
  currentReplicas: number;
  desiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  scaleUpLimitFactor: number;
  scaleUpLimitMinimum: number;
}): ClampResult {
  const cap = legacyScaleUpLimit(
    input.currentReplicas,
    input.scaleUpLimitFactor,
    input.scaleUpLimitMinimum,
  );
  // Two values, not a tuple: no array per sync.
  const capped = input.maxReplicas > cap;
  const upper = capped ? cap : input.maxReplicas;
  const upperReason: LimitReason = capped ? "ScaleUpLimit" : "TooManyReplicas";
  if (input.desiredReplicas < input.minReplicas) {
    return { replicas: input.minReplicas, reason: "TooFewReplicas", limit: input.minReplicas };
  }
  if (input.desiredReplicas > upper) return { replicas: upper, reason: upperReason, limit: upper };
  return { replicas: input.desiredReplicas, reason: "DesiredWithinRange" };
}

// ---------------------------------------------------------------------------------------------
// Behavior path

/** A direction's rules after defaulting, with the scale-down window resolved from the flag. */
export interface ResolvedRules {
  stabilizationWindowSeconds: number;
  selectPolicy: string;
  policies: readonly HPAScalingPolicy[];
}

export function resolveRules(
  rules: HPAScalingRules | null | undefined,
  fallbackWindowSeconds: number,
): ResolvedRules {
  return {
    stabilizationWindowSeconds: rules?.stabilizationWindowSeconds ?? fallbackWindowSeconds,
    selectPolicy: rules?.selectPolicy ?? "Max",
    policies: rules?.policies ?? [],
  };
}

export interface BehaviorStabilization {
  stabilized: number;
  /** Lowest recommendation in the scale-up window, highest in the scale-down window. */
  upRecommendation: number;
  downRecommendation: number;
  reason: StabilizationReason;
  recommendations: TimestampedRecommendation[];
}

/**
 * Scale-ups go only as far as the lowest recommendation in the scale-up window, scale-downs only
 * as far as the highest in the scale-down window. An entry outside both windows is stale.
 */
export function stabilizeWithBehavior(input: {
  recommendations: readonly TimestampedRecommendation[];
  currentReplicas: number;
  recommendation: number;
  scaleUpWindowSeconds: number;
  scaleDownWindowSeconds: number;
  now: number;
}): BehaviorStabilization {
  const { now } = input;
  const upMs = input.scaleUpWindowSeconds * 1000;
  const downMs = input.scaleDownWindowSeconds * 1000;
  let upRecommendation = input.recommendation;
  let downRecommendation = input.recommendation;
  for (const rec of input.recommendations) {
    if (isWithin(rec.timestamp, upMs, now))
      upRecommendation = Math.min(rec.replicas, upRecommendation);
    if (isWithin(rec.timestamp, downMs, now))
      downRecommendation = Math.max(rec.replicas, downRecommendation);
  }
  let stabilized = input.currentReplicas;
  if (stabilized < upRecommendation) stabilized = upRecommendation;
  if (stabilized > downRecommendation) stabilized = downRecommendation;
  const recommendations = recordReusingStale(
    input.recommendations,
    { replicas: input.recommendation, timestamp: now },
    (rec) => !isWithin(rec.timestamp, upMs, now) && !isWithin(rec.timestamp, downMs, now),
  );
  let reason: StabilizationReason = "ReadyForNewScale";
  if (stabilized !== input.recommendation) {
    reason =
      input.recommendation >= input.currentReplicas ? "ScaleUpStabilized" : "ScaleDownStabilized";
  }
  return { stabilized, upRecommendation, downRecommendation, reason, recommendations };
}

/** Sum of the changes younger than the period. */
export function replicasChangePerPeriod(
  periodSeconds: number,
  events: readonly TimestampedScaleEvent[],
  now: number,
): number {
  let sum = 0;
  for (const event of events)
    if (isWithin(event.timestamp, periodSeconds * 1000, now)) sum += event.replicaChange;
  return int32(sum);
}

export interface PolicyProposal {
  type: string;
  value: number;
  periodSeconds: number;
  /** current − scale-ups in the period + scale-downs in the period. */
  periodStartReplicas: number;
  proposal: number;
}

export interface PolicyLimit {
  limit: number;
  proposals: PolicyProposal[];
  selectPolicy: string;
}

function policyLimit(
  direction: "up" | "down",
  currentReplicas: number,
  scaleUpEvents: readonly TimestampedScaleEvent[],
  scaleDownEvents: readonly TimestampedScaleEvent[],
  rules: ResolvedRules,
  now: number,
): PolicyLimit {
  const proposals: PolicyProposal[] = [];
  if (rules.selectPolicy === "Disabled") {
    return { limit: currentReplicas, proposals, selectPolicy: rules.selectPolicy };
  }
  // Max picks the biggest change: the highest ceiling up, the lowest floor down; Min the reverse.
  const wantsHighest = (direction === "up") === (rules.selectPolicy !== "Min");
  let limit = wantsHighest ? MIN_INT32 : MAX_INT32;
  for (const policy of rules.policies) {
    const added = replicasChangePerPeriod(policy.periodSeconds, scaleUpEvents, now);
    const deleted = replicasChangePerPeriod(policy.periodSeconds, scaleDownEvents, now);
    const periodStartReplicas = int32(currentReplicas - added + deleted);
    let proposal = periodStartReplicas;
    if (policy.type === "Pods") {
      proposal = int32(
        direction === "up"
          ? periodStartReplicas + policy.value
          : periodStartReplicas - policy.value,
      );
    } else if (policy.type === "Percent") {
      proposal =
        direction === "up"
          ? // Rounded up so that a small percentage can still add a pod.
            Math.ceil(periodStartReplicas * (1 + policy.value / 100))
          : Math.trunc(periodStartReplicas * (1 - policy.value / 100));
    }
    proposals.push({
      type: policy.type,
      value: policy.value,
      periodSeconds: policy.periodSeconds,
      periodStartReplicas,
      proposal,
    });
    limit = wantsHighest ? Math.max(limit, proposal) : Math.min(limit, proposal);
  }
  return { limit, proposals, selectPolicy: rules.selectPolicy };
}

export function scaleUpLimit(
  currentReplicas: number,
  scaleUpEvents: readonly TimestampedScaleEvent[],
  scaleDownEvents: readonly TimestampedScaleEvent[],
  rules: ResolvedRules,
  now: number,
): PolicyLimit {
  return policyLimit("up", currentReplicas, scaleUpEvents, scaleDownEvents, rules, now);
}

export function scaleDownLimit(
  currentReplicas: number,
  scaleUpEvents: readonly TimestampedScaleEvent[],
  scaleDownEvents: readonly TimestampedScaleEvent[],
  rules: ResolvedRules,
  now: number,
): PolicyLimit {
  return policyLimit("down", currentReplicas, scaleUpEvents, scaleDownEvents, rules, now);
}

export interface BehaviorClamp extends ClampResult {
  policyLimit?: PolicyLimit;
}

/**
 * Rate limits and the clamp on the stabilized value. Scale-ups only consult max and the
 * scale-up policies, scale-downs only min and the scale-down policies.
 */
export function clampWithBehavior(input: {
  currentReplicas: number;
  desiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  scaleUp: ResolvedRules;
  scaleDown: ResolvedRules;
  scaleUpEvents: readonly TimestampedScaleEvent[];
  scaleDownEvents: readonly TimestampedScaleEvent[];
  now: number;
}): BehaviorClamp {
  const { currentReplicas: current, desiredReplicas: desired } = input;
  if (desired > current) {
    const policy = scaleUpLimit(
      current,
      input.scaleUpEvents,
      input.scaleDownEvents,
      input.scaleUp,
      input.now,
    );
    const limit = Math.max(policy.limit, current);
    const [ceiling, reason]: [number, LimitReason] =
      input.maxReplicas > limit ? [limit, "ScaleUpLimit"] : [input.maxReplicas, "TooManyReplicas"];
    if (desired > ceiling)
      return { replicas: ceiling, reason, limit: ceiling, policyLimit: policy };
    return { replicas: desired, reason: "DesiredWithinRange", policyLimit: policy };
  }
  if (desired < current) {
    const policy = scaleDownLimit(
      current,
      input.scaleUpEvents,
      input.scaleDownEvents,
      input.scaleDown,
      input.now,
    );
    const limit = Math.min(policy.limit, current);
    const [floor, reason]: [number, LimitReason] =
      input.minReplicas < limit ? [limit, "ScaleDownLimit"] : [input.minReplicas, "TooFewReplicas"];
    if (desired < floor) return { replicas: floor, reason, limit: floor, policyLimit: policy };
    return { replicas: desired, reason: "DesiredWithinRange", policyLimit: policy };
  }
  return { replicas: desired, reason: "DesiredWithinRange" };
}

/** The longest period among a direction's policies: events older than it are outdated. */
export function longestPolicyPeriodSeconds(rules: HPAScalingRules | null | undefined): number {
  let longest = 0;
  for (const policy of rules?.policies ?? []) longest = Math.max(longest, policy.periodSeconds);
  return longest;
}

/**
 * Stores one rescale in its direction's list: events older than the longest policy period are
 * marked outdated (sticky), the last outdated one is overwritten, otherwise the event is appended.
 */
export function storeScaleEvent(
  events: readonly TimestampedScaleEvent[],
  replicaChange: number,
  longestPeriodSeconds: number,
  now: number,
): TimestampedScaleEvent[] {
  // One pass over a copy, recordReusingStale's rule inline; a literal for a marked event and a
  // slice, not `{ ...event }` and `map`: run by optimized code, those make objects and arrays of
  // other hidden classes than the interpreter's, and the lists' readers deoptimized.
  const next = events.slice();
  let staleIndex = -1;
  for (let i = 0; i < next.length; i++) {
    let event = next[i]!;
    if (!event.outdated && !isWithin(event.timestamp, longestPeriodSeconds * 1000, now)) {
      event = { replicaChange: event.replicaChange, timestamp: event.timestamp, outdated: true };
      next[i] = event;
    }
    if (event.outdated) staleIndex = i;
  }
  const entry = { replicaChange, timestamp: now, outdated: false };
  if (staleIndex >= 0) next[staleIndex] = entry;
  else next.push(entry);
  return next;
}
