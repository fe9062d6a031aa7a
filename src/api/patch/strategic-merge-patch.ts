// Strategic merge patch as kube-apiserver applies it (kubectl patch, kubectl apply's client
// side, a scenario's updateTemplate): lists merge by the patchMergeKey of the served kinds,
// with the directives `$patch`, `$retainKeys`, `$deleteFromPrimitiveList` and
// `$setElementOrder`. Failures are returned as data.
import { isRecord, memberOf, setMember } from "../json.js";

export type PatchResult =
  | { ok: true; value: unknown }
  | { ok: false; error: string; code: 400 | 422 };

type Json = Record<string, unknown>;

class PatchError extends Error {}

/** A list field's `patchStrategy` struct tag. */
export type PatchStrategy = "merge" | "merge,retainKeys" | "retainKeys";

/** What a list field's Go struct tags say about patching it. */
export interface ListPatchMeta {
  /** `patchMergeKey`: the field that identifies an item of a list of objects. */
  mergeKey?: string;
  /** `patchStrategy`; a list without "merge" is atomic and replaced whole. */
  strategy?: PatchStrategy;
  /** The schema of the list's items. */
  items?: PatchMeta;
}

/**
 * The schema a strategic merge patch is applied with (upstream's LookupPatchMeta): the patch
 * meta of the value at one path. Declared here so that src/api does not depend on the API
 * server's kind definitions, which provide it.
 */
export interface PatchMeta {
  /** The schema of a field of this object (or of a map's values); undefined: unknown. */
  field(name: string): PatchMeta | undefined;
  /** The patch meta of this value as a list. */
  list(): ListPatchMeta;
}

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const DELETE_FROM_PRIMITIVE = "$deleteFromPrimitiveList/";
const SET_ELEMENT_ORDER = "$setElementOrder/";

/**
 * Applies a strategic merge patch to an object (both JSON objects), with the schema of the
 * object's kind. Where the schema knows no field, lists are replaced as upstream replaces a list
 * without a patchMergeKey.
 */
export function strategicMergePatch(
  target: unknown,
  patch: unknown,
  schema: PatchMeta | undefined,
): PatchResult {
  if (!isRecord(patch)) {
    return {
      ok: false,
      code: 400,
      error: "unable to find api field in struct for the patch: the patch is not a JSON object",
    };
  }
  try {
    return { ok: true, value: mergeMap(isRecord(target) ? target : {}, patch, schema) };
  } catch (err) {
    if (err instanceof PatchError) return { ok: false, code: 422, error: err.message };
    throw err;
  }
}

function mergeMap(target: Json, patch: Json, schema: PatchMeta | undefined): unknown {
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
      const current = memberOf(out, field);
      if (Array.isArray(current) && Array.isArray(value)) {
        setMember(
          out,
          field,
          current.filter((v) => !value.includes(v)),
        );
      }
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    const current = memberOf(out, key);
    const fieldSchema = schema?.field(key);
    if (Array.isArray(value)) {
      const merged = mergeList(key, Array.isArray(current) ? current : [], value, fieldSchema);
      setMember(out, key, merged);
    } else if (isRecord(value)) {
      const merged = mergeMap(isRecord(current) ? current : {}, value, fieldSchema);
      if (merged === undefined) delete out[key];
      else setMember(out, key, merged);
    } else {
      setMember(out, key, value);
    }
  }
  return out;
}

function mergeList(
  field: string,
  target: unknown[],
  patch: unknown[],
  schema: PatchMeta | undefined,
): unknown[] {
  // `[{"$patch": "replace"}, ...items]` replaces the whole list.
  if (patch.some((item) => isRecord(item) && item[DIRECTIVE] === "replace")) {
    return patch
      .filter((item) => !(isRecord(item) && item[DIRECTIVE] === "replace"))
      .map(stripDirectives);
  }
  const meta = schema?.list() ?? {};
  const merge = meta.strategy?.split(",").includes("merge") ?? false;
  const key = merge ? meta.mergeKey : undefined;
  // A merged list without a merge key is a set of primitives (finalizers).
  if (merge && key === undefined && patch.every((v) => !isRecord(v))) {
    const out = [...target];
    for (const v of patch) if (!out.includes(v)) out.push(v);
    return out;
  }
  if (key === undefined) return patch.map(stripDirectives);
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
      const merged = mergeMap(out[index] as Json, item, meta.items);
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
    setMember(out, k, stripDirectives(v));
  }
  return out;
}
