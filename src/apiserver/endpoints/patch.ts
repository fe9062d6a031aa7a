// PATCH: JSON merge, JSON and strategic merge patches over the object as the request's
// version sees it, then an update; server-side apply (`application/apply-patch+yaml`) with
// field ownership, which also creates a missing object.

import { isRecord } from "../../api/json.js";
import { mergePatch } from "../../api/patch/merge-patch.js";
import { strategicMergePatch } from "../../api/patch/strategic-merge-patch.js";
import { rfc3339 } from "../../api/time.js";
import type { KubeObject } from "../../api/types.js";
import { isCustomKind } from "../../kinds/custom.js";
import { patchMetaOf } from "../../kinds/patchmeta.js";
import {
  badRequest,
  invalid,
  notFound,
  unsupportedCustomPatchType,
  unsupportedPatchType,
} from "../errors.js";
import {
  conflictStatus,
  decodeManagedFields,
  encodeManagedFields,
  serverSideApply,
} from "../fieldmanager/index.js";
import { jsonPatch, type PatchResult } from "../patch.js";
import { type Answer, fail, managerName, ok, present, type Result } from "../request.js";
import { type Ctx, storedAnswer } from "./context.js";
import { create } from "./create.js";
import { decodeBody } from "./decode.js";
import { update } from "./update.js";

export function patch(ctx: Ctx): Result<Answer> {
  const name = ctx.target.name!;
  const contentType = (ctx.req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const isApply = contentType === "application/apply-patch+yaml";
  if (isApply && !ctx.req.query.get("fieldManager")) {
    return fail(
      invalid({ resource: "patchoptions", group: "meta.k8s.io", kind: "PatchOptions" }, "", [
        {
          type: "FieldValueRequired",
          field: "fieldManager",
          detail: "is required for apply patch",
        },
      ]),
    );
  }
  const current = ctx.registry.lookup(ctx, name);
  // Server-side apply (fieldmanager/); it creates a missing object (201).
  if (isApply && (current || ctx.target.subresource === undefined)) {
    return serverApply(ctx, current);
  }
  if (!current) return fail(notFound(ctx.info, name));
  const patched = applyPatch(ctx, present(ctx, current));
  if (!patched.ok) return patched;
  return update(ctx, patched.value.patched);
}

/** The current object as the request's version sees it, patched by the request body. */
export function applyPatch(
  ctx: Ctx,
  current: unknown,
): Result<{ patched: unknown; apply: boolean }> {
  const contentType = (ctx.req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (contentType === "application/strategic-merge-patch+json" && isCustomKind(ctx.info.kind)) {
    return fail(unsupportedCustomPatchType());
  }
  const body = decodeBody(ctx, [contentType]);
  let result: PatchResult;
  // The merge keys of the object the request's version sees (a Scale has no lists).
  const schema =
    ctx.target.subresource === "scale" ? undefined : patchMetaOf(ctx.info.kind, ctx.target.version);
  switch (contentType) {
    case "application/merge-patch+json":
      if (!body.ok) return body;
      result = { ok: true, value: mergePatch(current, body.value) };
      break;
    case "application/json-patch+json":
      if (!body.ok) return body;
      result = jsonPatch(current, body.value);
      break;
    case "application/strategic-merge-patch+json":
      if (!body.ok) return body;
      result = strategicMergePatch(current, body.value, schema);
      break;
    case "application/apply-patch+yaml":
      if (!body.ok) return body;
      // Server-side apply without managedFields (a later slice): the applied configuration
      // is merged over the live object, with merge keys as in a strategic merge patch.
      result = strategicMergePatch(current, body.value, schema);
      break;
    default:
      return fail(unsupportedPatchType(contentType));
  }
  if (!result.ok) {
    return fail(
      result.code === 400
        ? badRequest(result.error)
        : {
            status: {
              kind: "Status",
              apiVersion: "v1",
              metadata: {},
              status: "Failure",
              message: result.error,
              reason: "Invalid",
              code: 422,
            },
          },
    );
  }
  return ok({ patched: result.value, apply: contentType === "application/apply-patch+yaml" });
}

/**
 * Server-side apply (`application/apply-patch+yaml`): the applied configuration merged over
 * the live object with field ownership; conflicts are 409 unless `force=true`.
 */
export function serverApply(ctx: Ctx, current: KubeObject | undefined): Result<Answer> {
  const body = decodeBody(ctx, ["application/apply-patch+yaml"]);
  if (!body.ok) return body;
  const config = body.value;
  if (!isRecord(config)) {
    return fail(badRequest("error decoding YAML: the applied configuration is not an object"));
  }
  const meta = isRecord(config.metadata) ? config.metadata : {};
  if (meta.managedFields !== undefined && meta.managedFields !== null) {
    return fail(badRequest("metadata.managedFields must be nil"));
  }
  if (typeof config.apiVersion === "string" && config.apiVersion !== ctx.apiVersion) {
    return fail(
      badRequest(
        `Incorrect version specified in apply patch. Specified patch version: ${config.apiVersion}, expected: ${ctx.apiVersion}`,
      ),
    );
  }
  const live = current ? present(ctx, current) : undefined;
  const decoded = decodeManagedFields(current?.metadata.managedFields);
  const force = ctx.req.query.get("force") === "true";
  const applied = serverSideApply(live, config, decoded.ok ? decoded.value : [], {
    manager: managerName(ctx),
    apiVersion: ctx.apiVersion,
    subresource: ctx.target.subresource ?? "",
    now: rfc3339(ctx.registry.cluster.now),
    versions: ctx.registry.versions(ctx),
    ignored: ctx.registry.ignoredFields(ctx),
    force,
  });
  if (!applied.ok) {
    if ("conflicts" in applied) return fail({ status: conflictStatus(applied.conflicts) });
    return fail(badRequest(`failed to create typed patch object: ${applied.error}`));
  }
  const entries = encodeManagedFields(applied.managers);
  const merged = applied.object as Record<string, unknown>;
  if (!current) {
    const metadata = isRecord(merged.metadata) ? merged.metadata : {};
    merged.metadata = { ...metadata, name: ctx.target.name };
    return create({ ...ctx, managed: entries }, merged);
  }
  // Nothing changed, not even ownership: no write (the storage skips identical updates).
  if (
    !applied.changed &&
    JSON.stringify(entries) === JSON.stringify(current.metadata.managedFields ?? [])
  ) {
    return ok(storedAnswer(ctx, 200, current));
  }
  return update({ ...ctx, managed: entries }, merged);
}
