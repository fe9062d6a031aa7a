// Request bodies: JSON, YAML or Kubernetes protobuf decoded into an object of the request's
// resource in the stored version (type and version checks, Time fields, unknown fields, the
// HPA's conversion to autoscaling/v2), and the body's namespace against the URL's.

import { parse as parseYaml } from "yaml";
import { readHorizontalPodAutoscaler } from "../../api/conversion.js";
import { isRecord } from "../../api/json.js";
import type { KubeObject } from "../../api/types.js";
import { isCustomKind } from "../../kinds/custom.js";
import {
  type ApiError,
  badRequest,
  unsupportedMediaType,
  unsupportedPatchType,
} from "../errors.js";
import { depthError, OBJECT_MAX_DEPTH } from "../limits.js";
import { normalizeTimes, type TimeDecodeContext, timeDecodeFailure } from "../microtime.js";
import { decodeProtobufObject, PROTOBUF_CONTENT_TYPE } from "../protobuf.js";
import { fail, ok, type Result } from "../request.js";
import { decodeTyped } from "../typeddecode.js";
import { dropField, unknownFields } from "../unknownfields.js";
import type { Ctx } from "./context.js";

/**
 * The request body as JSON, YAML or Kubernetes protobuf (kubectl ≥ 1.32's typed clients send
 * protobuf with no fallback): 415 for other media types, 400 when malformed.
 */
export function decodeBody(
  ctx: Ctx,
  allowed: readonly string[] = ["application/json", "application/yaml", PROTOBUF_CONTENT_TYPE],
): Result<unknown> {
  const contentType = (ctx.req.headers["content-type"] ?? "application/json")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (
    !allowed.includes(contentType) &&
    !(contentType === "" && allowed.includes("application/json"))
  ) {
    if (ctx.req.method.toUpperCase() === "PATCH") return fail(unsupportedPatchType(contentType));
    return fail(unsupportedMediaType(contentType));
  }
  let value: unknown;
  if (contentType === PROTOBUF_CONTENT_TYPE) {
    const decoded = decodeProtobufObject(ctx.req.body ?? Buffer.alloc(0), ctx.info.kind);
    if (!decoded.ok) return fail(badRequest(decoded.error));
    value = decoded.value;
  } else {
    const text = ctx.req.body?.toString("utf8") ?? "";
    try {
      const yaml =
        contentType === "application/yaml" || contentType === "application/apply-patch+yaml";
      value = yaml ? decodeYaml(text, ctx) : JSON.parse(text);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return fail(badRequest(`couldn't get version/kind; json parse error: ${message}`));
    }
  }
  if (value instanceof TooDeep) return fail(value.error);
  // Deep nesting stops at the decoder, before any recursive code sees it.
  const deep = depthError(value, { kind: ctx.info.kind, version: ctx.target.version });
  return deep ? fail(deep) : ok(value);
}

/**
 * A decoded body as an object of the request's resource in the stored version: type and
 * version checks, unknown fields (Strict: 400, Warn: warnings), HPA conversion to v2.
 */
export function toStored(ctx: Ctx, body: unknown): Result<KubeObject> {
  if (!isRecord(body)) {
    return fail(
      badRequest(`the object provided is unrecognized (must be of type ${ctx.info.kind})`),
    );
  }
  const object: Record<string, unknown> = { ...body };
  object.apiVersion ??= ctx.apiVersion;
  object.kind ??= ctx.info.kind;
  if (object.kind !== ctx.info.kind || object.apiVersion !== ctx.apiVersion) {
    return fail(
      badRequest(
        `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${ctx.apiVersion})`,
      ),
    );
  }
  // Decoded into the kind's Go types (a value of the wrong JSON type fails), then the
  // Time/MicroTime fields re-encoded as upstream's; both before unknown fields are looked at.
  // A custom resource is decoded as unstructured JSON: its schema's validation judges types (422).
  const typed = isCustomKind(ctx.info.kind)
    ? { ok: true as const, value: object }
    : decodeTyped(ctx.info.kind, ctx.target.version, object);
  if (!typed.ok) return fail(timeDecodeFailure(decodeContext(ctx, body), typed.error));
  Object.assign(object, typed.value);
  if (!isRecord(object.metadata)) object.metadata = {};
  const times = normalizeTimes(ctx.info.kind, object);
  if (!times.ok) return fail(timeDecodeFailure(decodeContext(ctx, body), times.error));
  Object.assign(object, times.value);
  const unknown = unknownFields(ctx.info.kind, ctx.target.version, object);
  if (unknown.length > 0) {
    const mode = ctx.req.query.get("fieldValidation") ?? "Warn";
    const texts = unknown.map((f) => `unknown field ${JSON.stringify(f.name)}`);
    if (mode === "Strict") {
      return fail(
        badRequest(
          `${ctx.info.kind} in version ${JSON.stringify(ctx.target.version)} cannot be handled as a ${ctx.info.kind}: strict decoding error: ${texts.join(", ")}`,
        ),
      );
    }
    if (mode === "Warn") ctx.warnings.push(...texts);
    for (const field of unknown) dropField(object, field.path);
  }
  if (ctx.info.kind === "HorizontalPodAutoscaler") {
    const read = readHorizontalPodAutoscaler(object);
    if (!read.ok) return fail(badRequest(read.error));
    ctx.warnings.push(...read.value.warnings);
    return ok(read.value.hpa as unknown as KubeObject);
  }
  return ok(object as unknown as KubeObject);
}

/** What a decode error's Status depends on: the kind, version and, for a PATCH, the patch. */
export function decodeContext(ctx: Ctx, patched: unknown): TimeDecodeContext {
  const context: TimeDecodeContext = { kind: ctx.info.kind, version: ctx.target.version };
  if (ctx.req.method.toUpperCase() !== "PATCH") return context;
  const contentType = (ctx.req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  let patchBody: unknown = null;
  try {
    patchBody = JSON.parse(ctx.req.body?.toString("utf8") ?? "");
  } catch {
    // Only a strategic merge patch's map is printed; the patch decoded before.
  }
  context.patch = { contentType, body: patchBody, patched };
  return context;
}

/** Namespace of the body against the URL's (upstream: 400 when they differ). */
export function placeNamespace(ctx: Ctx, object: KubeObject): Result<KubeObject> {
  if (!ctx.info.namespaced) {
    const { namespace: _ns, ...metadata } = object.metadata;
    return ok({ ...object, metadata: metadata as KubeObject["metadata"] });
  }
  const given = object.metadata.namespace;
  if (given && given !== ctx.namespace) {
    return fail(
      badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      ),
    );
  }
  return ok({ ...object, metadata: { ...object.metadata, namespace: ctx.namespace } });
}

/** A YAML body refused before parsing: nested deeper than the parser's recursion can take. */
class TooDeep {
  constructor(readonly error: ApiError) {}
}

/**
 * A YAML body (what kubectl sends is JSON, a subset of YAML: parsed as JSON first). The YAML
 * parser recurses per level of flow nesting and fails hard far below upstream's 10,000, so
 * bodies whose brackets nest past the server's object limit are refused before it runs.
 */
function decodeYaml(text: string, ctx: Ctx): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(text);
    } catch {
      // YAML flow syntax that is not JSON (`{a: 1}`): the YAML parser reads it.
    }
  }
  const depth = flowDepth(text);
  if (depth > OBJECT_MAX_DEPTH) {
    const { kind } = ctx.info;
    return new TooDeep(
      badRequest(
        `${kind} in version ${JSON.stringify(ctx.target.version)} cannot be handled as a ${kind}: nesting depth ${depth} exceeds the server's limit of ${OBJECT_MAX_DEPTH}`,
      ),
    );
  }
  return parseYaml(text);
}

/**
 * The deepest nesting of `[` and `{` (brackets inside scalars count too: an upper bound of the
 * flow depth, only ever too high for text with a thousand unclosed brackets in its strings).
 */
function flowDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x5b || ch === 0x7b) deepest = Math.max(deepest, ++depth);
    else if ((ch === 0x5d || ch === 0x7d) && depth > 0) depth--;
  }
  return deepest;
}
