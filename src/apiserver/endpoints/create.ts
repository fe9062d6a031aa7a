// POST (create): the decoded object goes to the registry store; 201 with the stored object.

import { type Answer, ok, type Result } from "../request.js";
import { type Ctx, storedAnswer } from "./context.js";
import { decodeBody, placeNamespace, toStored } from "./decode.js";

export function create(ctx: Ctx, decoded?: unknown): Result<Answer> {
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
  return ok(storedAnswer(ctx, 201, created.value));
}
