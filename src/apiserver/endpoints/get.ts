// GET of one object (or its Table row).

import { errorResponse, notFound } from "../errors.js";
import { JSON_HEADERS } from "../request.js";
import type { ApiResponse } from "../types.js";
import { type Ctx, isTable, storedAnswer, table } from "./context.js";

export function get(ctx: Ctx): ApiResponse {
  const name = ctx.target.name!;
  const object = ctx.registry.lookup(ctx, name);
  if (!object) return errorResponse(notFound(ctx.info, name));
  if (ctx.target.subresource === undefined && isTable(ctx)) return table(ctx, [object]);
  return { ...storedAnswer(ctx, 200, object), headers: { ...JSON_HEADERS } };
}
