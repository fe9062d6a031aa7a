// Request bodies: JSON, YAML or Kubernetes protobuf decoded into an object of the request's
// resource in the stored version (type and version checks, Time fields, unknown fields, the
// HPA's conversion to autoscaling/v2), and the body's namespace against the URL's.

import { parse as parseYaml } from "yaml";
import { readHorizontalPodAutoscaler } from "../../api/conversion.js";
import { isRecord } from "../../api/json.js";
import type { KubeObject } from "../../api/types.js";
import { badRequest, unsupportedMediaType, unsupportedPatchType } from "../errors.js";
import { depthError } from "../limits.js";
import { normalizeTimes, type TimeDecodeContext, timeDecodeFailure } from "../microtime.js";
import { decodeProtobufObject, PROTOBUF_CONTENT_TYPE } from "../protobuf.js";
import { fail, ok, type Result } from "../request.js";
import { decodeTyped } from "../typeddecode.js";
import { dropPath, unknownFields } from "../unknownfields.js";
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
      value = yaml ? parseYaml(text) : JSON.parse(text);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return fail(badRequest(`couldn't get version/kind; json parse error: ${message}`));
    }
  }
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
  const typed = decodeTyped(ctx.info.kind, ctx.target.version, object);
  if (!typed.ok) return fail(timeDecodeFailure(decodeContext(ctx, body), typed.error));
  Object.assign(object, typed.value);
  if (!isRecord(object.metadata)) object.metadata = {};
  const times = normalizeTimes(ctx.info.kind, object);
  if (!times.ok) return fail(timeDecodeFailure(decodeContext(ctx, body), times.error));
  Object.assign(object, times.value);
  const unknown = unknownFields(ctx.info.kind, ctx.target.version, object);
  if (unknown.length > 0) {
    const mode = ctx.req.query.get("fieldValidation") ?? "Warn";
    const texts = unknown.map((f) => `unknown field ${JSON.stringify(f)}`);
    if (mode === "Strict") {
      return fail(
        badRequest(
          `${ctx.info.kind} in version ${JSON.stringify(ctx.target.version)} cannot be handled as a ${ctx.info.kind}: strict decoding error: ${texts.join(", ")}`,
        ),
      );
    }
    if (mode === "Warn") ctx.warnings.push(...texts);
    for (const path of unknown) dropPath(object, path);
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
