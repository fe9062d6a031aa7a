// What an endpoint works with: the request scope (src/apiserver/request.ts) plus the server's
// parts, the registry store and the sibling modules (discovery, Tables, the metrics APIs).

import type { KubeObject } from "../../api/types.js";
import type { EmbeddedCluster } from "../../cluster/cluster.js";
import type { ObjectEncodings } from "../encoding.js";
import type { RegistryStore } from "../registry-store.js";
import {
  type Answer,
  JSON_HEADERS,
  present,
  presentedBytes,
  type RequestScope,
} from "../request.js";
import type { ApiRequest, ApiResponse } from "../types.js";

/** The sibling modules (discovery, tables, metrics APIs); injectable so tests can stub them. */
export interface ApiExtensions {
  handleDiscovery(req: ApiRequest): ApiResponse | null;
  toTable(
    kind: string,
    objects: KubeObject[],
    options: {
      includeObject?: "None" | "Object" | "Metadata";
      listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
    },
  ): object;
  isTableRequest(accept: string): boolean;
  handleMetricsApi(
    req: ApiRequest,
    cluster: EmbeddedCluster,
  ): Promise<ApiResponse> | ApiResponse | null;
}

/** The server-wide settings the endpoints read. */
export interface ServerScope {
  extensions: Partial<ApiExtensions>;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK. */
  bookmarkIntervalMs: number;
  /** Watch length without timeoutSeconds. */
  watchTimeoutSeconds: number;
  /** How long a list or watch waits for a resourceVersion the store has not reached. */
  resourceVersionWaitMs: number;
  /** The stored objects' JSON as served, shared by GET, LIST and watch. */
  encodings: ObjectEncodings;
}

/** One resource request at its endpoint. */
export interface Ctx extends RequestScope {
  registry: RegistryStore;
  server: ServerScope;
}

/**
 * A stored object as the request's version serves it, its bytes from the kept encodings: a
 * write's answer reuses the bytes its watch events were just sent as.
 */
export function storedAnswer(ctx: Ctx, status: number, object: KubeObject): Answer {
  return {
    status,
    body: present(ctx, object),
    encode: () => [presentedBytes(ctx, ctx.server.encodings, object, "object")],
  };
}

export function isTable(ctx: Ctx): boolean {
  const accept = ctx.req.headers.accept ?? "";
  const check = ctx.server.extensions.isTableRequest;
  return ctx.server.extensions.toTable !== undefined && check?.(accept) === true;
}

export function table(
  ctx: Ctx,
  objects: KubeObject[],
  listMeta?: Record<string, unknown>,
): ApiResponse {
  const include = ctx.req.query.get("includeObject") as "None" | "Object" | "Metadata" | null;
  // A list Table carries the list's resourceVersion: `kubectl get -w` watches from it.
  const body = ctx.server.extensions.toTable!(ctx.info.kind, objects, {
    ...(include ? { includeObject: include } : {}),
    ...(listMeta ? { listMeta } : {}),
  });
  return { status: 200, headers: { ...JSON_HEADERS }, body };
}
