// POST (create): the decoded object goes to the registry store; 201 with the stored object.

import { ok, present, type Result } from "../request.js";
import type { Ctx } from "./context.js";
import { decodeBody, placeNamespace, toStored } from "./decode.js";

export function create(ctx: Ctx, decoded?: unknown): Result<{ status: number; body: unknown }> {
  let body = decoded;
  if (body === undefined) {
    const parsed = decodeBody(ctx);
    if (!parsed.ok) return parsed;
    body = parsed.value;
  }
  const stored = toStored(ctx, body);
  if (!stored.ok) return stored;
  const placed = placeNamespace(ctx, stored.value);
  if (!placed.ok) return placed;
  const created = ctx.registry.create(ctx, placed.value);
  if (!created.ok) return created;
  return ok({ status: 201, body: present(ctx, created.value) });
}
