// What the controller remembers per HPA between syncs (in memory, lost on restart as upstream):
// past recommendations for stabilization and past scale events for rate policies.
// Values are immutable; each sync returns the next history.

import type { HoltWinters, SeasonalForecaster } from "./forecast.js";

export interface TimestampedRecommendation {
  replicas: number;
  /** Epoch milliseconds. */
  timestamp: number;
}

export interface TimestampedScaleEvent {
  /** Magnitude of the change (always positive). */
  replicaChange: number;
  timestamp: number;
  /** Set once the event is older than the longest policy period; the slot is then reused. */
  outdated: boolean;
}

export interface HpaHistory {
  /** null until the first sync after the HPA is seen (or after a controller restart). */
  recommendations: readonly TimestampedRecommendation[] | null;
  scaleUpEvents: readonly TimestampedScaleEvent[];
  scaleDownEvents: readonly TimestampedScaleEvent[];
  /** `horizon.dev/fallback-replicas` only (docs/extensions.md); upstream never sets it. */
  fallback?: FallbackState;
  /** `horizon.dev/min-replicas: "0"` only: when an activation metric was last above its value. */
  scaleToZero?: { lastActiveTime: number | null };
  /** `horizon.dev/schedule` only: the floor in force at the last sync (0: no window open). */
  scheduledFloor?: number;
  /** Per-HPA knobs only: the overrides last reported by an Event ("" once none is left). */
  overrides?: string;
  /** `horizon.dev/predictive` only: the learned models (bounded; updated in place). */
  predictive?: PredictiveMemory;
}

/** What the predictive rule keeps per HPA between syncs (`horizon.dev/predictive`). */
export interface PredictiveMemory {
  /** The settings the models were made with: new settings start over. */
  key: string;
  /** One model per spec.metrics entry (null: not modelled). */
  models: (SeasonalForecaster | null)[];
  /** The longest start-to-ready time seen among the target's ready pods. */
  startToReadyMs: number | null;
  /** replicas-holt-winters only. */
  replicas?: HoltWinters;
}

export interface FallbackState {
  /** Consecutive syncs in which a metric failed. */
  failures: number;
  active: boolean;
}

export const EMPTY_HISTORY: HpaHistory = {
  recommendations: null,
  scaleUpEvents: [],
  scaleDownEvents: [],
};

/**
 * The history with other recommendations: `{ ...history, recommendations }` field by field (the
 * same keys; a spread that overrides a key was 2% of bench:sim, once per sync).
 */
export function withRecommendations(
  history: HpaHistory,
  recommendations: readonly TimestampedRecommendation[],
): HpaHistory {
  return withLists(history, recommendations, history.scaleUpEvents, history.scaleDownEvents);
}

/**
 * The history with these three lists, its other keys kept: field by field, not a spread that
 * overrides a key (in Node 20 a spread run by optimized code makes another hidden class than the
 * interpreter's, and the history's readers deoptimized when the first scale event was recorded).
 */
export function withLists(
  history: HpaHistory,
  recommendations: readonly TimestampedRecommendation[] | null,
  scaleUpEvents: readonly TimestampedScaleEvent[],
  scaleDownEvents: readonly TimestampedScaleEvent[],
): HpaHistory {
  const next: HpaHistory = { recommendations, scaleUpEvents, scaleDownEvents };
  if ("fallback" in history) next.fallback = history.fallback;
  if ("scaleToZero" in history) next.scaleToZero = history.scaleToZero;
  if ("scheduledFloor" in history) next.scheduledFloor = history.scheduledFloor;
  if ("overrides" in history) next.overrides = history.overrides;
  if ("predictive" in history) next.predictive = history.predictive;
  return next;
}

/** Inside a window or period means strictly younger than its length. */
export function isWithin(timestamp: number, lengthMs: number, now: number): boolean {
  return now - timestamp < lengthMs;
}

/**
 * Records `entry`: it overwrites the last stale entry (by position) when one exists, otherwise
 * it is appended. Older stale entries stay, as upstream keeps them.
 */
export function recordReusingStale<T>(
  list: readonly T[],
  entry: T,
  isStale: (item: T) => boolean,
): T[] {
  let staleIndex = -1;
  for (let i = 0; i < list.length; i++) if (isStale(list[i]!)) staleIndex = i;
  const next = [...list];
  if (staleIndex >= 0) next[staleIndex] = entry;
  else next.push(entry);
  return next;
}
