// JSON patch (RFC 6902), one of the patch formats kube-apiserver accepts; JSON merge patch and
// strategic merge patch are in src/api/patch/. Failures are returned as data.
import { isRecord, withSortedKeys } from "../api/json.js";
import type { PatchResult } from "../api/patch/strategic-merge-patch.js";

export type { PatchResult };

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
    } else if (isRecord(cur) && Object.hasOwn(cur, token)) cur = cur[token];
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
  if (isRecord(doc) && Object.hasOwn(doc, head!)) {
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
    if (isRecord(parent)) return { ...parent, [last]: value };
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
    if (isRecord(parent) && Object.hasOwn(parent, last)) {
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
      if (!isRecord(raw) || typeof raw.op !== "string") {
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
            JSON.stringify(withSortedKeys(found.value)) !==
              JSON.stringify(withSortedKeys(raw.value))
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
