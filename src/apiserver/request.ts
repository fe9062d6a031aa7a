// The request scope the router resolved (resource, version, namespace, dry run, warnings) and
// the helpers the endpoints and the registry store share: Results, JSON answers, the object as
// served in the request's version, the field manager.

import { writeHorizontalPodAutoscaler } from "../api/conversion.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../api/types.js";
import { isCustomKind, withCustomDefaults } from "../kinds/custom.js";
import type { EncodedForm, ObjectEncodings } from "./encoding.js";
import { type ApiError, errorResponse, invalid } from "./errors.js";
import {
  type ManagedFieldsEntry,
  managerFromUserAgent,
  validateFieldManager,
} from "./fieldmanager/index.js";
import type { RequestTarget, ResourceInfo } from "./resources.js";
import type { ApiRequest, ApiResponse } from "./types.js";

/** One resource request as the router resolved it. */
export interface RequestScope {
  req: ApiRequest;
  target: RequestTarget;
  info: ResourceInfo;
  namespace: string;
  apiVersion: string;
  dryRun: boolean;
  warnings: string[];
  /** managedFields already computed by server-side apply (src/apiserver/fieldmanager/). */
  managed?: ManagedFieldsEntry[];
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}
export function fail<T>(error: ApiError): Result<T> {
  return { ok: false, error };
}

export const JSON_HEADERS = { "content-type": "application/json" };

/** A write's answer: the body, and its bytes where they are kept (a stored object's). */
export interface Answer {
  status: number;
  body: unknown;
  encode?: () => Buffer[];
}

export function respond(result: Result<Answer>): ApiResponse {
  if (!result.ok) return errorResponse(result.error);
  const { status, body, encode } = result.value;
  return { status, headers: { ...JSON_HEADERS }, body, ...(encode ? { encode } : {}) };
}

/** `?fieldManager=` must be ≤ 128 bytes of printable characters (422 on the *Options kind). */
export function checkFieldManager(ctx: RequestScope, method: string): ApiError | null {
  const name = ctx.req.query.get("fieldManager");
  const kind = { POST: "CreateOptions", PUT: "UpdateOptions", PATCH: "PatchOptions" }[method];
  if (name === null || kind === undefined) return null;
  const errors = validateFieldManager(name);
  if (errors.length === 0) return null;
  const names = { resource: `${kind.toLowerCase()}s`, group: "meta.k8s.io", kind };
  return invalid(names, "", errors);
}

/** The writer: `?fieldManager=`, else the User-Agent's program name (prefixFromUserAgent). */
export function managerName(ctx: RequestScope): string {
  return (
    ctx.req.query.get("fieldManager") || managerFromUserAgent(ctx.req.headers["user-agent"] ?? "")
  );
}

/** The object as served in the request's version. */
export function present(
  ctx: Pick<RequestScope, "info" | "apiVersion">,
  object: KubeObject,
): KubeObject {
  if (ctx.info.kind === "HorizontalPodAutoscaler") {
    return writeHorizontalPodAutoscaler(
      object as unknown as HorizontalPodAutoscaler,
      ctx.apiVersion as "autoscaling/v1" | "autoscaling/v2",
    ) as KubeObject;
  }
  const served = { ...object, apiVersion: ctx.apiVersion, kind: ctx.info.kind };
  return isCustomKind(ctx.info.kind) ? withCustomDefaults(served, ctx.apiVersion) : served;
}

/** A typed list's item: the object as served, without kind and apiVersion. */
export function presentItem(ctx: Pick<RequestScope, "info" | "apiVersion">, object: KubeObject) {
  const { kind: _k, apiVersion: _a, ...rest } = present(ctx, object);
  return rest;
}

/**
 * The JSON bytes of `present(ctx, object)` (or of its list item), from the server's kept
 * encodings where they can be kept: custom resources get their defaults from the CRD at each read.
 */
export function presentedBytes(
  ctx: Pick<RequestScope, "info" | "apiVersion">,
  encodings: ObjectEncodings,
  object: KubeObject,
  form: EncodedForm,
): Buffer {
  const make = () => (form === "item" ? presentItem(ctx, object) : present(ctx, object));
  if (isCustomKind(ctx.info.kind)) return Buffer.from(JSON.stringify(make()));
  return encodings.bytes(object, ctx.apiVersion, form, make);
}
