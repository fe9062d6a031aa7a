// The tolerance band (KEP-4951): a usage ratio inside [1 - scaleDown, 1 + scaleUp] (both ends
// inclusive) means "no change".
import { Quantity } from "../api/quantity.js";
import type { HorizontalPodAutoscaler } from "../api/types.js";
import type { ControllerConfig } from "./config.js";

export interface Tolerances {
  scaleUp: number;
  scaleDown: number;
}

export function isWithinTolerance(usageRatio: number, t: Tolerances): boolean {
  return 1.0 - t.scaleDown <= usageRatio && usageRatio <= 1.0 + t.scaleUp;
}

/**
 * The controller flag applies to both directions (a per-HPA extension may set one direction);
 * with HPAConfigurableTolerance on and a `behavior`, each direction's `tolerance` overrides it.
 */
export function tolerancesFor(hpa: HorizontalPodAutoscaler, config: ControllerConfig): Tolerances {
  const t = {
    scaleUp: config.scaleUpTolerance ?? config.tolerance,
    scaleDown: config.scaleDownTolerance ?? config.tolerance,
  };
  const behavior = hpa.spec.behavior;
  if (!behavior || !config.featureGates.enabled("HPAConfigurableTolerance")) return t;
  const down = behavior.scaleDown?.tolerance;
  const up = behavior.scaleUp?.tolerance;
  if (down !== undefined && down !== null)
    t.scaleDown = Quantity.parse(down).asApproximateFloat64();
  if (up !== undefined && up !== null) t.scaleUp = Quantity.parse(up).asApproximateFloat64();
  return t;
}
