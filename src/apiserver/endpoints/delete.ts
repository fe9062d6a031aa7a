// DELETE of one object and of a collection (deletecollection): DeleteOptions from the body or
// the query, then the registry store's delete for each object.

import type { DeleteOptions } from "../../registry/deleteoptions.js";
import { parseDeleteOptions } from "../../registry/deleteoptions.js";
import { badRequest, invalid, methodNotAllowed, notFound } from "../errors.js";
import { fail, ok, present, type Result } from "../request.js";
import type { Ctx } from "./context.js";
import { listFilter } from "./list.js";

export function deleteObject(ctx: Ctx): Result<{ status: number; body: unknown }> {
  // DeleteOptions are decoded and validated before the object is looked up.
  const options = deleteOptions(ctx);
  if (!options.ok) return options;
  const name = ctx.target.name!;
  const current = ctx.registry.lookup(ctx, name);
  if (!current) return fail(notFound(ctx.info, name));
  return ctx.registry.delete(ctx, current, options.value);
}

/** DeleteOptions from the body, or from the query when the body is empty (400 / 422). */
export function deleteOptions(ctx: Ctx): Result<DeleteOptions> {
  const parsed = parseDeleteOptions(ctx.req.body?.toString("utf8") ?? "", ctx.req.query);
  if (!parsed.ok) {
    const error = parsed.error;
    if (error.reason === "BadRequest") return fail(badRequest(error.message));
    const names = { resource: "deleteoptions", group: "meta.k8s.io", kind: "DeleteOptions" };
    return fail(invalid(names, "", error.errors));
  }
  if (parsed.value.dryRun?.includes("All")) ctx.dryRun = true;
  return ok(parsed.value);
}

/**
 * DELETE on a collection (deletecollection): the objects the label / field selectors list,
 * each deleted with the same options; answers with the list as it was before.
 */
export function deleteCollection(ctx: Ctx): Result<{ status: number; body: unknown }> {
  if (
    !ctx.info.verbs.includes("deletecollection") ||
    (ctx.info.namespaced && ctx.target.namespace === undefined)
  ) {
    return fail(methodNotAllowed(ctx.info));
  }
  const options = deleteOptions(ctx);
  if (!options.ok) return options;
  const filter = listFilter(ctx);
  if (!filter.ok) return filter;
  const rv = ctx.registry.cluster.store.resourceVersion();
  const items = ctx.registry.objects(ctx).filter(filter.value);
  for (const item of items) {
    const current = ctx.registry.lookup(ctx, item.metadata.name);
    if (!current) continue;
    const result = ctx.registry.delete(ctx, current, { ...options.value });
    if (!result.ok) return result;
  }
  return ok({
    status: 200,
    body: {
      kind: `${ctx.info.kind}List`,
      apiVersion: ctx.apiVersion,
      metadata: { resourceVersion: rv },
      items: items.map((o) => {
        const { kind: _k, apiVersion: _a, ...rest } = present(ctx, o);
        return rest;
      }),
    },
  });
}
