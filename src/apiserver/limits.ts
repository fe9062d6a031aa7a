// The API server's size and shape limits, as kube-apiserver and etcd set them: a request body
// of at most 3 MiB (MaxRequestBodyBytes), JSON nested at most 10,000 deep (encoding/json's
// maxNestingDepth), a stored object of at most 1.5 MiB (etcd's --max-request-bytes).
import { isRecord } from "../api/json.js";
import { type ApiError, badRequest, requestEntityTooLarge } from "./errors.js";

/** kube-apiserver's limit on a request body it reads (413 above it). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** etcd's default --max-request-bytes: the largest object kube-apiserver can store. */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** Go's encoding/json stops decoding deeper than this. */
export const JSON_MAX_DEPTH = 10_000;

/**
 * Horizon's own limit on nesting, below upstream's: the stored object goes through recursive
 * code (JSON encoding, equality, field sets), which overflows the stack a few thousand levels
 * deep. No Kubernetes object comes near it.
 */
export const OBJECT_MAX_DEPTH = 1_000;

/** The nesting depth of a JSON value, counted up to `stopAbove + 1` without recursion. */
export function nestingDepth(value: unknown, stopAbove: number): { depth: number; array: boolean } {
  let deepest = { depth: 0, array: false };
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const top = stack.pop()!;
    const array = Array.isArray(top.value);
    if (!array && !isRecord(top.value)) continue;
    if (top.depth > deepest.depth) deepest = { depth: top.depth, array };
    if (top.depth > stopAbove) return deepest;
    const children = array ? (top.value as unknown[]) : Object.values(top.value as object);
    for (const child of children) {
      if (typeof child === "object" && child !== null) {
        stack.push({ value: child, depth: top.depth + 1 });
      }
    }
  }
  return deepest;
}

/**
 * A decoded request body nested too deep: upstream's decoder error above 10,000 levels, and
 * Horizon's limit above OBJECT_MAX_DEPTH (400 both).
 */
export function depthError(
  body: unknown,
  what: { kind: string; version: string },
): ApiError | null {
  const { depth, array } = nestingDepth(body, JSON_MAX_DEPTH);
  if (depth > JSON_MAX_DEPTH) {
    return badRequest(
      `couldn't get version/kind; json parse error: invalid character '${array ? "[" : "{"}' exceeded max depth`,
    );
  }
  if (depth > OBJECT_MAX_DEPTH) {
    return badRequest(
      `${what.kind} in version ${JSON.stringify(what.version)} cannot be handled as a ${what.kind}: nesting depth ${depth} exceeds the server's limit of ${OBJECT_MAX_DEPTH}`,
    );
  }
  return null;
}

/**
 * What storing the object would refuse: deeper than the server can encode (400), or an
 * encoding above etcd's request limit (413, where kube-apiserver passes etcd's error on).
 */
export function storageError(
  object: unknown,
  what: { kind: string; version: string },
): ApiError | null {
  const deep = depthError(object, what);
  if (deep) return deep;
  if (surelyFits(object, MAX_OBJECT_BYTES)) return null;
  const size = Buffer.byteLength(JSON.stringify(object));
  if (size > MAX_OBJECT_BYTES) return requestEntityTooLarge("etcdserver: request is too large");
  return null;
}

/**
 * Whether the UTF-8 JSON of a decoded value is surely at most `limit` bytes, from an upper bound
 * (a UTF-16 unit takes at most 6 bytes, escaped as \uXXXX; a number at most 24 characters), so
 * the usual write is checked without building its JSON; false when unsure.
 */
export function surelyFits(value: unknown, limit: number): boolean {
  let bound = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") bound += 2 + 6 * v.length;
    else if (typeof v === "number") bound += 24;
    else if (v === null || typeof v !== "object") bound += 5;
    else if (typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
    else if (Array.isArray(v)) {
      bound += 2 + v.length;
      for (const item of v) stack.push(item);
    } else {
      bound += 2;
      const record = v as Record<string, unknown>;
      for (const key in record) {
        bound += 4 + 6 * key.length;
        stack.push(record[key]);
      }
    }
    if (bound > limit) return false;
  }
  return true;
}
