// The patch formats kube-apiserver accepts besides JSON merge patch (RFC 7386, in
// src/api/patch/merge-patch.ts): JSON patch (RFC 6902) and strategic merge patch (merge keys of the served kinds, `$patch`, `$retainKeys`,
// `$deleteFromPrimitiveList`, `$setElementOrder`). Failures are returned as data.

export type PatchResult =
  | { ok: true; value: unknown }
  | { ok: false; error: string; code: 400 | 422 };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// RFC 6902

function unescapeToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

function parsePointer(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  return pointer.slice(1).split("/").map(unescapeToken);
}

function arrayIndex(token: string, length: number, forAdd: boolean): number | null {
  if (forAdd && token === "-") return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return null;
  const index = Number(token);
  return index <= (forAdd ? length : length - 1) ? index : null;
}

function getAt(doc: unknown, tokens: string[]): { found: boolean; value?: unknown } {
  let cur: unknown = doc;
  for (const token of tokens) {
    if (Array.isArray(cur)) {
      const i = arrayIndex(token, cur.length, false);
      if (i === null) return { found: false };
      cur = cur[i];
    } else if (isObject(cur) && Object.hasOwn(cur, token)) cur = cur[token];
    else return { found: false };
  }
  return { found: true, value: cur };
}

/** Returns the document with `fn` applied to the parent container of the pointer's last token (copy-on-write). */
function withParent(
  doc: unknown,
  tokens: string[],
  fn: (parent: unknown, last: string) => unknown,
): unknown {
  if (tokens.length === 1) return fn(doc, tokens[0]!);
  const [head, ...rest] = tokens;
  if (Array.isArray(doc)) {
    const i = arrayIndex(head!, doc.length, false);
    if (i === null) throw new PatchError(`doc is missing path: ${head}`);
    const copy = [...doc];
    copy[i] = withParent(doc[i], rest, fn);
    return copy;
  }
  if (isObject(doc) && Object.hasOwn(doc, head!)) {
    return { ...doc, [head!]: withParent(doc[head!], rest, fn) };
  }
  throw new PatchError(`doc is missing path: ${head}`);
}

class PatchError extends Error {}

function addAt(doc: unknown, path: string, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  return withParent(doc, tokens, (parent, last) => {
    if (Array.isArray(parent)) {
      const i = arrayIndex(last, parent.length, true);
      if (i === null)
        throw new PatchError(`add operation does not apply: doc is missing path: "${path}"`);
      const copy = [...parent];
      copy.splice(i, 0, value);
      return copy;
    }
    if (isObject(parent)) return { ...parent, [last]: value };
    throw new PatchError(`add operation does not apply: doc is missing path: "${path}"`);
  });
}

function removeAt(doc: unknown, path: string, tokens: string[], op: string): unknown {
  if (tokens.length === 0)
    throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}"`);
  return withParent(doc, tokens, (parent, last) => {
    if (Array.isArray(parent)) {
      const i = arrayIndex(last, parent.length, false);
      if (i === null)
        throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}"`);
      const copy = [...parent];
      copy.splice(i, 1);
      return copy;
    }
    if (isObject(parent) && Object.hasOwn(parent, last)) {
      const copy = { ...parent };
      delete copy[last];
      return copy;
    }
    throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}"`);
  });
}

/** Applies an RFC 6902 patch; a malformed patch is 400, a failed operation or test 422 (as upstream's patcher maps them). */
export function jsonPatch(target: unknown, patch: unknown): PatchResult {
  if (!Array.isArray(patch)) {
    return {
      ok: false,
      code: 400,
      error: "json: cannot unmarshal object into Go value of type jsonpatch.Patch",
    };
  }
  let doc = target;
  try {
    for (const raw of patch) {
      if (!isObject(raw) || typeof raw.op !== "string") {
        return { ok: false, code: 400, error: "missing op in json patch operation" };
      }
      const op = raw.op;
      const path = typeof raw.path === "string" ? raw.path : undefined;
      const tokens = path === undefined ? null : parsePointer(path);
      if (tokens === null || path === undefined) {
        return { ok: false, code: 422, error: `${op} operation does not apply: invalid path` };
      }
      switch (op) {
        case "add":
          doc = addAt(doc, path, tokens, structuredClone(raw.value));
          break;
        case "remove":
          doc = removeAt(doc, path, tokens, "remove");
          break;
        case "replace": {
          if (!getAt(doc, tokens).found) {
            throw new PatchError(`replace operation does not apply: doc is missing key: ${path}`);
          }
          doc =
            tokens.length === 0
              ? raw.value
              : addAt(
                  removeAt(doc, path, tokens, "replace"),
                  path,
                  tokens,
                  structuredClone(raw.value),
                );
          break;
        }
        case "move":
        case "copy": {
          const from = typeof raw.from === "string" ? parsePointer(raw.from) : null;
          const source = from === null ? { found: false } : getAt(doc, from);
          if (from === null || !source.found) {
            throw new PatchError(
              `${op} operation does not apply: doc is missing from path: ${String(raw.from)}`,
            );
          }
          if (op === "move") doc = removeAt(doc, String(raw.from), from, "move");
          doc = addAt(doc, path, tokens, structuredClone(source.value));
          break;
        }
        case "test": {
          const found = getAt(doc, tokens);
          if (
            !found.found ||
            JSON.stringify(canonical(found.value)) !== JSON.stringify(canonical(raw.value))
          ) {
            throw new PatchError(`testing value ${path} failed: test failed`);
          }
          break;
        }
        default:
          return { ok: false, code: 400, error: `Unexpected kind: ${op}` };
      }
    }
  } catch (err) {
    if (err instanceof PatchError) return { ok: false, code: 422, error: err.message };
    throw err;
  }
  return { ok: true, value: doc };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isObject(value)) {
    const out: Json = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical(value[key]);
    return out;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Strategic merge patch

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
      return items.some((item) => isObject(item) && "containerPort" in item)
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
  if (!isObject(patch)) {
    return {
      ok: false,
      code: 400,
      error: "unable to find api field in struct for the patch: the patch is not a JSON object",
    };
  }
  try {
    return { ok: true, value: mergeMap(isObject(target) ? target : {}, patch) };
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
    } else if (isObject(value)) {
      const merged = mergeMap(isObject(current) ? current : {}, value);
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
  if (patch.some((item) => isObject(item) && item[DIRECTIVE] === "replace")) {
    return patch
      .filter((item) => !(isObject(item) && item[DIRECTIVE] === "replace"))
      .map(stripDirectives);
  }
  if (MERGED_PRIMITIVE_LISTS.has(field) && patch.every((v) => !isObject(v))) {
    const out = [...target];
    for (const v of patch) if (!out.includes(v)) out.push(v);
    return out;
  }
  const key = mergeKeyFor(field, [...target, ...patch]);
  if (key === null) return patch.map(stripDirectives);
  const out: unknown[] = [...target];
  for (const item of patch) {
    if (!isObject(item))
      throw new PatchError(`unable to merge list ${field}: element is not an object`);
    const id = item[key];
    const index = out.findIndex((entry) => isObject(entry) && entry[key] === id);
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
  if (!isObject(value)) return value;
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
