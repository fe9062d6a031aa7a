// The scale subresource (autoscaling/v1 Scale): GET, PUT and PATCH of spec.replicas.

import { isRecord } from "../../api/json.js";
import { type ScalePaths, scaleOf } from "../../api/scale.js";
import type { KubeObject } from "../../api/types.js";
import { customScalePaths } from "../../kinds/custom.js";
import {
  badRequest,
  conflict,
  errorResponse,
  invalid,
  methodNotAllowed,
  notFound,
} from "../errors.js";
import { JSON_HEADERS } from "../request.js";
import type { ApiResponse } from "../types.js";
import type { Ctx } from "./context.js";
import { decodeBody } from "./decode.js";
import { applyPatch } from "./patch.js";

export function scaleObject(object: KubeObject, paths?: ScalePaths): Record<string, unknown> {
  const view = scaleOf(object, paths);
  const metadata: Record<string, unknown> = {
    name: object.metadata.name,
    namespace: object.metadata.namespace,
    uid: object.metadata.uid,
    resourceVersion: object.metadata.resourceVersion,
    creationTimestamp: object.metadata.creationTimestamp,
  };
  const status: Record<string, unknown> = { replicas: view.statusReplicas };
  if (view.selector !== "" && view.selector !== "<none>") status.selector = view.selector;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata,
    spec: { replicas: view.specReplicas },
    status,
  };
}

export function scale(ctx: Ctx, method: string): ApiResponse {
  const name = ctx.target.name!;
  const current = ctx.registry.lookup(ctx, name);
  if (method !== "GET" && method !== "PUT" && method !== "PATCH") {
    return errorResponse(methodNotAllowed(ctx.info, name));
  }
  if (!current) return errorResponse(notFound(ctx.info, name));
  // A custom resource's replicas and selector are where its CRD says.
  const paths = customScalePaths(ctx.info.kind);
  const scale = scaleObject(current, paths);
  if (method === "GET") return { status: 200, headers: { ...JSON_HEADERS }, body: scale };
  let next: unknown;
  if (method === "PUT") {
    const body = decodeBody(ctx);
    if (!body.ok) return errorResponse(body.error);
    next = body.value;
  } else {
    const patched = applyPatch(ctx, scale);
    if (!patched.ok) return errorResponse(patched.error);
    next = patched.value.patched;
  }
  const scaleNames = { resource: "scales", group: "autoscaling", kind: "Scale" };
  const spec = isRecord(next) && isRecord(next.spec) ? next.spec : {};
  const meta = isRecord(next) && isRecord(next.metadata) ? next.metadata : {};
  const replicas = spec.replicas ?? 0;
  if (typeof replicas !== "number" || !Number.isInteger(replicas)) {
    return errorResponse(
      badRequest(
        `Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`,
      ),
    );
  }
  if (replicas < 0) {
    return errorResponse(
      invalid(scaleNames, name, [
        {
          type: "FieldValueInvalid",
          field: "spec.replicas",
          badValue: replicas,
          detail: "must be greater than or equal to 0",
        },
      ]),
    );
  }
  const expected = meta.resourceVersion;
  if (
    typeof expected === "string" &&
    expected !== "" &&
    expected !== current.metadata.resourceVersion
  ) {
    return errorResponse(conflict(ctx.info, name));
  }
  if (ctx.dryRun) {
    return { status: 200, headers: { ...JSON_HEADERS }, body: { ...scale, spec: { replicas } } };
  }
  // The request's manager owns spec.replicas after this write (the registry's scale).
  const updated = ctx.registry.scale(ctx, current, replicas);
  if (!updated) return errorResponse(notFound(ctx.info, name));
  return { status: 200, headers: { ...JSON_HEADERS }, body: scaleObject(updated, paths) };
}
