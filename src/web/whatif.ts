// What-if requests: the edits a user may make to an HPA (min/max, behavior), checked, and the
// JSON merge patch that applies them to the real HPA.

import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import type { FeatureGates } from "../api/featuregates.js";
import type { HorizontalPodAutoscaler } from "../api/types.js";
import { fieldErrorMessage, validateHorizontalPodAutoscaler } from "../api/validation.js";
import type { WhatIfEdits } from "./types.js";

/**
 * The HPA with the edits applied (without status), defaulted and validated as the API server
 * would: the causes name the fields at fault.
 */
export function editHpa(
  hpa: HorizontalPodAutoscaler,
  edits: WhatIfEdits,
  featureGates: FeatureGates,
): { ok: true; hpa: HorizontalPodAutoscaler } | { ok: false; error: string; causes: string[] } {
  const edited: HorizontalPodAutoscaler = structuredClone({ ...hpa, status: undefined });
  delete edited.status;
  if (edits.minReplicas !== undefined) edited.spec.minReplicas = edits.minReplicas;
  if (edits.maxReplicas !== undefined) edited.spec.maxReplicas = edits.maxReplicas;
  if (edits.behavior !== undefined) {
    if (edits.behavior === null) delete edited.spec.behavior;
    else edited.spec.behavior = edits.behavior;
  }
  const defaulted = setDefaultsHorizontalPodAutoscaler(edited);
  const errors = validateHorizontalPodAutoscaler(defaulted, { featureGates });
  if (errors.length > 0) {
    return {
      ok: false,
      error: `HorizontalPodAutoscaler.autoscaling "${hpa.metadata.name ?? ""}" is invalid`,
      causes: errors.map(fieldErrorMessage),
    };
  }
  return { ok: true, hpa: defaulted };
}

/** The edits as a JSON merge patch of the HPA (what `kubectl patch --type merge` takes). */
export function mergePatchOf(edits: WhatIfEdits): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (edits.minReplicas !== undefined) spec.minReplicas = edits.minReplicas;
  if (edits.maxReplicas !== undefined) spec.maxReplicas = edits.maxReplicas;
  // A merge patch replaces `behavior` as a whole only where given; null removes it.
  if (edits.behavior !== undefined) spec.behavior = edits.behavior;
  return { spec };
}

/** Checks the shape of a what-if request body; errors name the field. */
export function parseWhatIfEdits(
  body: unknown,
): { ok: true; edits: WhatIfEdits } | { ok: false; error: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return {
      ok: false,
      error: "the body must be a JSON object with minReplicas, maxReplicas or behavior",
    };
  }
  const edits: WhatIfEdits = {};
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    if (field === "minReplicas" || field === "maxReplicas") {
      if (!Number.isInteger(value)) return { ok: false, error: `${field}: must be an integer` };
      edits[field] = value as number;
    } else if (field === "behavior") {
      if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
        return {
          ok: false,
          error: "behavior: must be an object (HorizontalPodAutoscalerBehavior) or null",
        };
      }
      edits.behavior = value as WhatIfEdits["behavior"];
    } else
      return {
        ok: false,
        error: `${field}: unknown field (allowed: minReplicas, maxReplicas, behavior)`,
      };
  }
  if (Object.keys(edits).length === 0) {
    return { ok: false, error: "nothing to change: give minReplicas, maxReplicas or behavior" };
  }
  return { ok: true, edits };
}
