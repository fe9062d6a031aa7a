// Offered load over time: the sum of a workload's traffic models (scenario time, ms since t=0).
import type { TrafficModel } from "./cluster-model.js";

/** Requests per second of one model at scenario time `t` (ms). */
export function modelRps(model: TrafficModel, t: number): number {
  switch (model.type) {
    case "constant":
      return model.rps;
    case "step": {
      // The last step whose time has passed; equal times: the later entry wins.
      let rps = model.initial;
      let at = Number.NEGATIVE_INFINITY;
      for (const step of model.steps) {
        if (step.atMs <= t && step.atMs >= at) {
          at = step.atMs;
          rps = step.rps;
        }
      }
      return rps;
    }
    case "ramp": {
      if (t <= model.startMs) return model.from;
      if (t >= model.endMs) return model.to;
      const f = (t - model.startMs) / (model.endMs - model.startMs);
      return model.from + (model.to - model.from) * f;
    }
    case "sine":
      return (
        model.base +
        model.amplitude * Math.sin((2 * Math.PI * (t - model.phaseMs)) / model.periodMs)
      );
    case "spike":
      return t >= model.atMs && t < model.atMs + model.durationMs ? model.peak : model.base;
    case "replay": {
      const at = model.offsetMs === undefined ? t : t + model.offsetMs;
      return model.holdMs === undefined
        ? replayRps(model.points, at)
        : heldRps(model.points, model.holdMs, at);
    }
  }
}

/** The rate of the last point at or before `t` while within `holdMs` of it; 0 in a gap. */
export function heldRps(
  points: readonly { atMs: number; rps: number }[],
  holdMs: number,
  t: number,
): number {
  const n = points.length;
  if (n === 0 || t < points[0]!.atMs) return 0;
  let lo = 0;
  let hi = n;
  // The last index whose time is ≤ t.
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.atMs <= t) lo = mid;
    else hi = mid;
  }
  const p = points[lo]!;
  return t < p.atMs + holdMs ? p.rps : 0;
}

/** Linear interpolation between points (sorted by time), held flat before the first and after the last. */
export function replayRps(points: readonly { atMs: number; rps: number }[], t: number): number {
  const n = points.length;
  if (n === 0) return 0;
  if (t <= points[0]!.atMs) return points[0]!.rps;
  if (t >= points[n - 1]!.atMs) return points[n - 1]!.rps;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.atMs <= t) lo = mid;
    else hi = mid;
  }
  const a = points[lo]!;
  const b = points[hi]!;
  if (b.atMs === a.atMs) return b.rps;
  return a.rps + ((b.rps - a.rps) * (t - a.atMs)) / (b.atMs - a.atMs);
}

/** The offered load: the models add up, never below zero. */
export function trafficAt(models: readonly TrafficModel[], t: number): number {
  let sum = 0;
  for (const model of models) sum += modelRps(model, t);
  return sum > 0 ? sum : 0;
}
