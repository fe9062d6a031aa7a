// Per-HPA controller knobs (`horizon.dev/sync-period`, `tolerance`, ...): the controller's
// configuration for one HPA, each annotation overriding its flag (upstream asks: KEP-4951 for
// tolerance, per-HPA initialization periods and sync periods).

import { formatDuration } from "../../api/duration.js";
import type { HorizontalPodAutoscaler } from "../../api/types.js";
import type { ControllerConfig } from "../config.js";
import type { ExtensionTrace } from "../trace.js";
import { ANNOTATIONS, extensionsOf, type Knobs } from "./annotations.js";

/** The configuration of one HPA's sync, with one trace entry per overridden flag. */
export function configWithKnobs(
  knobs: Knobs,
  config: ControllerConfig,
): { config: ControllerConfig; trace: ExtensionTrace[] } {
  const out: ControllerConfig = { ...config };
  const trace: ExtensionTrace[] = [];
  const note = (annotation: string, flag: string, value: string, was: string) =>
    trace.push({
      annotation,
      reason: "Override",
      message: `--horizontal-pod-autoscaler-${flag} is ${value} for this HPA (controller: ${was})`,
    });
  if (knobs.tolerance !== null) {
    out.tolerance = knobs.tolerance;
    note(ANNOTATIONS.tolerance, "tolerance", String(knobs.tolerance), String(config.tolerance));
  }
  if (knobs.scaleUpTolerance !== null) {
    out.scaleUpTolerance = knobs.scaleUpTolerance;
    note(
      ANNOTATIONS.scaleUpTolerance,
      "tolerance",
      `${knobs.scaleUpTolerance} when scaling up`,
      String(config.tolerance),
    );
  }
  if (knobs.scaleDownTolerance !== null) {
    out.scaleDownTolerance = knobs.scaleDownTolerance;
    note(
      ANNOTATIONS.scaleDownTolerance,
      "tolerance",
      `${knobs.scaleDownTolerance} when scaling down`,
      String(config.tolerance),
    );
  }
  const durations: [keyof Knobs, keyof ControllerConfig, string, string][] = [
    ["syncPeriodMs", "syncPeriodMs", ANNOTATIONS.syncPeriod, "sync-period"],
    [
      "cpuInitializationPeriodMs",
      "cpuInitializationPeriodMs",
      ANNOTATIONS.cpuInitializationPeriod,
      "cpu-initialization-period",
    ],
    [
      "initialReadinessDelayMs",
      "initialReadinessDelayMs",
      ANNOTATIONS.initialReadinessDelay,
      "initial-readiness-delay",
    ],
    [
      "downscaleStabilizationWindowMs",
      "downscaleStabilizationWindowMs",
      ANNOTATIONS.downscaleStabilization,
      "downscale-stabilization",
    ],
  ];
  for (const [knob, field, annotation, flag] of durations) {
    const value = knobs[knob];
    if (value === null) continue;
    const was = config[field] as number;
    (out as unknown as Record<string, number>)[field] = value;
    note(annotation, flag, formatDuration(value), formatDuration(was));
  }
  return { config: out, trace };
}

/** How often this HPA is synced: its `horizon.dev/sync-period`, else the controller's. */
export function syncPeriodFor(
  hpa: HorizontalPodAutoscaler | undefined,
  config: ControllerConfig,
): number {
  return (hpa && extensionsOf(hpa).extensions?.knobs.syncPeriodMs) ?? config.syncPeriodMs;
}
