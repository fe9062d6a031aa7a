// Strategic merge patch as kube-apiserver applies it (kubectl patch, kubectl apply's client
// side, a scenario's updateTemplate): lists merge by the patchMergeKey of the served kinds,
// with the directives `$patch`, `$retainKeys`, `$deleteFromPrimitiveList` and
// `$setElementOrder`. Failures are returned as data.
import { isRecord } from "../json.js";

export type PatchResult =
  | { ok: true; value: unknown }
  | { ok: false; error: string; code: 400 | 422 };

type Json = Record<string, unknown>;

class PatchError extends Error {}

/**
 * patchMergeKey of the list fields of the served kinds (k8s.io/api struct tags). A list not
 * named here is atomic and replaced whole, as upstream treats lists without a merge strategy.
 */
function mergeKeyFor(field: string, items: unknown[]): string | null {
  switch (field) {
    case "containers":
    case "initContainers":
    case "ephemeralContainers":
    case "env":
    case "volumes":
    case "imagePullSecrets":
    case "resourceClaims":
      return "name";
    case "volumeMounts":
      return "mountPath";
    case "volumeDevices":
      return "devicePath";
    case "conditions":
      return "type";
    case "ownerReferences":
      return "uid";
    case "hostAliases":
      return "ip";
    case "ports":
      // Container ports merge by containerPort, Service ports by port.
      return items.some((item) => isRecord(item) && "containerPort" in item)
        ? "containerPort"
        : "port";
    default:
      return null;
  }
}

/** Primitive lists with patchStrategy merge (set semantics). */
const MERGED_PRIMITIVE_LISTS = new Set(["finalizers"]);

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const DELETE_FROM_PRIMITIVE = "$deleteFromPrimitiveList/";
const SET_ELEMENT_ORDER = "$setElementOrder/";

/** Applies a strategic merge patch to an object (both JSON objects). */
export function strategicMergePatch(target: unknown, patch: unknown): PatchResult {
  if (!isRecord(patch)) {
    return {
      ok: false,
      code: 400,
      error: "unable to find api field in struct for the patch: the patch is not a JSON object",
    };
  }
  try {
    return { ok: true, value: mergeMap(isRecord(target) ? target : {}, patch) };
  } catch (err) {
    if (err instanceof PatchError) return { ok: false, code: 422, error: err.message };
    throw err;
  }
}

function mergeMap(target: Json, patch: Json): unknown {
  const directive = patch[DIRECTIVE];
  if (directive === "replace") {
    const { [DIRECTIVE]: _d, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (directive === "delete") return undefined;
  if (directive !== undefined) throw new PatchError(`Unknown patch type: ${String(directive)}`);
  let out: Json = { ...target };
  if (Array.isArray(patch[RETAIN_KEYS])) {
    const keep = new Set(patch[RETAIN_KEYS] as string[]);
    out = Object.fromEntries(Object.entries(out).filter(([k]) => keep.has(k)));
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === RETAIN_KEYS) continue;
    if (key.startsWith(SET_ELEMENT_ORDER)) continue; // ordering hint: the merge keeps server order
    if (key.startsWith(DELETE_FROM_PRIMITIVE)) {
      const field = key.slice(DELETE_FROM_PRIMITIVE.length);
      const current = out[field];
      if (Array.isArray(current) && Array.isArray(value)) {
        out[field] = current.filter((v) => !value.includes(v));
      }
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    const current = out[key];
    if (Array.isArray(value)) {
      const merged = mergeList(key, Array.isArray(current) ? current : [], value);
      out[key] = merged;
    } else if (isRecord(value)) {
      const merged = mergeMap(isRecord(current) ? current : {}, value);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else {
      out[key] = value;
    }
  }
  return out;
}

function mergeList(field: string, target: unknown[], patch: unknown[]): unknown[] {
  // `[{"$patch": "replace"}, ...items]` replaces the whole list.
  if (patch.some((item) => isRecord(item) && item[DIRECTIVE] === "replace")) {
    return patch
      .filter((item) => !(isRecord(item) && item[DIRECTIVE] === "replace"))
      .map(stripDirectives);
  }
  if (MERGED_PRIMITIVE_LISTS.has(field) && patch.every((v) => !isRecord(v))) {
    const out = [...target];
    for (const v of patch) if (!out.includes(v)) out.push(v);
    return out;
  }
  const key = mergeKeyFor(field, [...target, ...patch]);
  if (key === null) return patch.map(stripDirectives);
  const out: unknown[] = [...target];
  for (const item of patch) {
    if (!isRecord(item))
      throw new PatchError(`unable to merge list ${field}: element is not an object`);
    const id = item[key];
    const index = out.findIndex((entry) => isRecord(entry) && entry[key] === id);
    if (item[DIRECTIVE] === "delete") {
      if (index >= 0) out.splice(index, 1);
      continue;
    }
    if (index >= 0) {
      const merged = mergeMap(out[index] as Json, item);
      if (merged === undefined) out.splice(index, 1);
      else out[index] = merged;
    } else {
      out.push(stripDirectives(item));
    }
  }
  return out;
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (
      k === DIRECTIVE ||
      k === RETAIN_KEYS ||
      k.startsWith(SET_ELEMENT_ORDER) ||
      k.startsWith(DELETE_FROM_PRIMITIVE)
    )
      continue;
    if (v === null) continue;
    out[k] = stripDirectives(v);
  }
  return out;
}
