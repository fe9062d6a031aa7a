// PUT (update, and the status subresource's update): the decoded object goes to the
// registry store; 200 with the stored object.

import { badRequest } from "../errors.js";
import { type Answer, fail, ok, type Result } from "../request.js";
import { type Ctx, storedAnswer } from "./context.js";
import { decodeBody, placeNamespace, toStored } from "./decode.js";

export function update(ctx: Ctx, decoded?: unknown): Result<Answer> {
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
  const object = placed.value;
  const name = ctx.target.name!;
  if (object.metadata.name !== name) {
    return fail(
      badRequest(
        `the name of the object (${object.metadata.name ?? ""}) does not match the name on the URL (${name})`,
      ),
    );
  }
  const updated = ctx.registry.update(ctx, object);
  if (!updated.ok) return updated;
  return ok(storedAnswer(ctx, 200, updated.value));
}
