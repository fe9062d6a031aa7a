// What-if requests: the edits a user may make to an HPA (min/max, behavior), decoded strictly and
// checked as kube-apiserver checks a `kubectl patch`, and the JSON merge patch that applies them
// to the real HPA. The run applies that same patch: what it simulates is what the patch makes.

import { isDeepStrictEqual } from "node:util";
import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import type { FeatureGates } from "../api/featuregates.js";
import { isRecord } from "../api/json.js";
import { mergePatch } from "../api/patch/merge-patch.js";
import type { HorizontalPodAutoscaler } from "../api/types.js";
import { fieldErrorMessage, validateHorizontalPodAutoscaler } from "../api/validation.js";
import { depthError } from "../apiserver/limits.js";
import { strictDecodeProblems } from "../apiserver/strictdecode.js";
import { formatPath } from "../sim/set-path.js";
import type { WhatIfEdits } from "./types.js";

type Edited =
  | { ok: true; hpa: HorizontalPodAutoscaler; patch: Record<string, unknown> }
  | { ok: false; error: string; causes: string[] };

/**
 * The HPA with the edits applied (without status), defaulted and validated as the API server
 * would (the causes name the fields at fault), and the merge patch that made it. `behavior` is
 * the whole new `spec.behavior`: the patch sets `null` where the HPA has a field the edit
 * leaves out and defaulting would not put back as it was, so the patch applied to the HPA as
 * stored gives exactly the HPA that runs.
 */
export function editHpa(
  hpa: HorizontalPodAutoscaler,
  edits: WhatIfEdits,
  featureGates: FeatureGates,
): Edited {
  const current = setDefaultsHorizontalPodAutoscaler(
    structuredClone({ ...hpa, status: undefined }) as HorizontalPodAutoscaler,
  );
  delete current.status;
  const patch = mergePatchOf(current, edits);
  const edited = applied(current, patch);
  const errors = validateHorizontalPodAutoscaler(edited, { featureGates });
  if (errors.length > 0) {
    return {
      ok: false,
      error: `HorizontalPodAutoscaler.autoscaling "${hpa.metadata.name ?? ""}" is invalid`,
      causes: errors.map(fieldErrorMessage),
    };
  }
  return { ok: true, hpa: edited, patch };
}

/** The HPA a merge patch makes of `current`, defaulted as the API server stores it. */
function applied(
  current: HorizontalPodAutoscaler,
  patch: Record<string, unknown>,
): HorizontalPodAutoscaler {
  return setDefaultsHorizontalPodAutoscaler(
    structuredClone(mergePatch(current, patch)) as HorizontalPodAutoscaler,
  );
}

/**
 * The edits as a JSON merge patch of `current` (the defaulted HPA; what `kubectl patch --type
 * merge` takes): min/max as given; the behavior as given, with `null` for each field of the
 * current behavior it leaves out, except where defaulting restores the same value anyway.
 */
export function mergePatchOf(
  current: HorizontalPodAutoscaler,
  edits: WhatIfEdits,
): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (edits.minReplicas !== undefined) spec.minReplicas = edits.minReplicas;
  if (edits.maxReplicas !== undefined) spec.maxReplicas = edits.maxReplicas;
  if (edits.behavior === undefined) return { spec };
  const removed: (string | number)[][] = [];
  spec.behavior = replacing(current.spec.behavior, edits.behavior, ["spec", "behavior"], removed);
  const patch = { spec };
  const target = applied(current, patch);
  // Each null the result does not need (defaulting puts the same value back) is left out.
  for (const path of removed) {
    const without = structuredClone(patch);
    deleteAt(without, path);
    if (isDeepStrictEqual(applied(current, without), target)) deleteAt(patch, path);
  }
  return patch;
}

/** `edited` as a merge patch over `current` that replaces it: nulls for what it leaves out. */
function replacing(
  current: unknown,
  edited: unknown,
  path: (string | number)[],
  removed: (string | number)[][],
): unknown {
  if (!isRecord(current) || !isRecord(edited)) {
    if (edited === null && current !== undefined && current !== null) removed.push(path);
    return edited;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(edited)) {
    out[key] = replacing(current[key], value, [...path, key], removed);
  }
  for (const key of Object.keys(current)) {
    if (!Object.hasOwn(edited, key)) {
      out[key] = null;
      removed.push([...path, key]);
    }
  }
  return out;
}

function deleteAt(object: Record<string, unknown>, path: (string | number)[]): void {
  let parent: unknown = object;
  for (const key of path.slice(0, -1)) parent = isRecord(parent) ? parent[key] : undefined;
  if (isRecord(parent)) delete parent[path.at(-1) as string];
}

export type ParsedEdits =
  | { ok: true; edits: WhatIfEdits }
  | { ok: false; status: 400 | 422; error: string; causes?: string[] };

/**
 * Checks a what-if request body (already JSON-parsed) for the HPA `name`: 400 for a body that
 * is not an object of minReplicas, maxReplicas and behavior, or nested deeper than the API
 * server takes; 422 for what kube-apiserver's strict decoding refuses in a `kubectl patch`
 * (a value of the wrong JSON type, an int32 out of range, an unknown field), naming the field.
 */
export function parseWhatIfEdits(body: unknown, name: string): ParsedEdits {
  // Before anything recursive sees it (the API server's limit, as its decoder applies it).
  const deep = depthError(body, { kind: "HorizontalPodAutoscaler", version: "v2" });
  if (deep) return { ok: false, status: 400, error: deep.status.message ?? "nested too deep" };
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return {
      ok: false,
      status: 400,
      error: "the body must be a JSON object with minReplicas, maxReplicas or behavior",
    };
  }
  const edits: WhatIfEdits = {};
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    if (field === "minReplicas" || field === "maxReplicas") {
      // Its JSON type is checked by the decoding below, as the API server words it.
      if (value === null) return { ok: false, status: 400, error: `${field}: must be an integer` };
      edits[field] = value as number;
    } else if (field === "behavior") {
      if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
        return {
          ok: false,
          status: 400,
          error: "behavior: must be an object (HorizontalPodAutoscalerBehavior) or null",
        };
      }
      edits.behavior = value as WhatIfEdits["behavior"];
    } else
      return {
        ok: false,
        status: 400,
        error: `${field}: unknown field (allowed: minReplicas, maxReplicas, behavior)`,
      };
  }
  if (Object.keys(edits).length === 0) {
    return {
      ok: false,
      status: 400,
      error: "nothing to change: give minReplicas, maxReplicas or behavior",
    };
  }
  // The edits as the spec of the patched HPA, decoded into autoscaling/v2's Go types.
  const problems = strictDecodeProblems("HorizontalPodAutoscaler", "autoscaling/v2", {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: {},
    spec: { ...edits },
  });
  if (problems.length > 0) {
    return {
      ok: false,
      status: 422,
      error: `HorizontalPodAutoscaler.autoscaling "${name}" is invalid: patch: ${problems.map((p) => p.message).join(", ")}`,
      causes: problems.map((p) => `${formatPath(p.path)}: ${p.message}`),
    };
  }
  return { ok: true, edits };
}
