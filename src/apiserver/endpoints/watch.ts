// WATCH: the event stream of a collection (a watch of one object is a field selector on its
// name), as JSON or as one-row Tables (src/apiserver/watch.ts streams it).

import { customDefinition, isCustomKind } from "../../kinds/custom.js";
import { errorResponse } from "../errors.js";
import { parseListOptions } from "../listoptions.js";
import { present, presentedBytes } from "../request.js";
import { TABLE_CONTENT_TYPE } from "../tables.js";
import type { ApiResponse } from "../types.js";
import { startWatch } from "../watch.js";
import { type Ctx, isTable } from "./context.js";
import { listFilter } from "./list.js";

export function watch(ctx: Ctx): ApiResponse {
  const response = startKindWatch(ctx);
  if (isCustomKind(ctx.info.kind) && "stream" in response) endWithCrd(ctx, response);
  return response;
}

/**
 * A custom resource's watch ends when its CRD stops serving the kind (deleted, or no longer
 * established), as apiextensions tears the kind's storage and its watchers down.
 */
function endWithCrd(ctx: Ctx, response: Extract<ApiResponse, { stream: unknown }>): void {
  const store = ctx.registry.cluster.store;
  const kind = ctx.info.kind;
  const stop = store.watch((event) => {
    if (event.object.kind === "CustomResourceDefinition" && !customDefinition(kind)) {
      stop();
      response.close();
    }
  });
  response.onEnd?.(stop);
}

function startKindWatch(ctx: Ctx): ApiResponse {
  const options = parseListOptions(ctx.req.query, true);
  if (!options.ok) return errorResponse(options.error);
  const filter = listFilter(ctx);
  if (!filter.ok) return errorResponse(filter.error);
  const timeout = options.value.timeoutSeconds ?? 0;
  const allow = ctx.req.query.get("allowWatchBookmarks");
  // `kubectl get -w` asks for Tables: each event then carries a one-row Table.
  const asTable = isTable(ctx);
  const include = ctx.req.query.get("includeObject") as "None" | "Object" | "Metadata" | null;
  return startWatch({
    store: ctx.registry.cluster.store,
    kind: ctx.info.kind,
    matches: filter.value,
    present: asTable
      ? (object) =>
          ctx.server.extensions.toTable!(
            ctx.info.kind,
            [object],
            include ? { includeObject: include } : {},
          )
      : (object) => present(ctx, object),
    ...(asTable
      ? {}
      : {
          presentedBytes: (object) => presentedBytes(ctx, ctx.server.encodings, object, "object"),
        }),
    contentType: asTable ? TABLE_CONTENT_TYPE : "application/json",
    apiVersion: ctx.apiVersion,
    resourceVersion: options.value.resourceVersion,
    resourceVersionWaitMs: ctx.server.resourceVersionWaitMs,
    allowBookmarks: allow === "true" || allow === "1",
    timeoutSeconds: timeout > 0 ? timeout : ctx.server.watchTimeoutSeconds,
    bookmarkIntervalMs: ctx.server.bookmarkIntervalMs,
    initial: () => ctx.registry.objects(ctx).filter(filter.value),
  });
}
