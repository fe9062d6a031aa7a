// The API server's filter chain, as kube-apiserver's handler chain (authentication, then the
// non-resource paths, then the aggregated metrics APIs) in front of the resource endpoints.
// Each filter is `(req, next)`: it answers, or passes the request on.

import type { EmbeddedCluster } from "../cluster/cluster.js";
import { errorResponse, pathNotFound, unauthorized } from "./errors.js";
import { handleHealth, isPublicInfoRequest } from "./health.js";
import type { ApiRequest, ApiResponse } from "./types.js";

export type Handler = (req: ApiRequest) => Promise<ApiResponse>;
export type Filter = (req: ApiRequest, next: Handler) => Promise<ApiResponse> | ApiResponse;

/** The filters in order, the first outermost, around `last`. */
export function chain(filters: readonly Filter[], last: Handler): Handler {
  return filters.reduceRight<Handler>((next, filter) => async (req) => filter(req, next), last);
}

/** Bearer-token authentication (none configured: everyone is let in). */
export function authentication(token: string | undefined): Filter {
  return (req, next) => {
    if (token === undefined) return next(req);
    const auth = req.headers.authorization;
    // No credentials at all is the anonymous user, who may read the public info paths.
    const anonymousPublic = auth === undefined && isPublicInfoRequest(req);
    if (!anonymousPublic && auth !== `Bearer ${token}`) return errorResponse(unauthorized());
    return next(req);
  };
}

/** /healthz, /livez, /readyz and their checks (src/apiserver/health.ts). */
export const health: Filter = (req, next) => handleHealth(req) ?? next(req);

/** /version, /api, /apis and the group discovery documents, OpenAPI (src/apiserver/discovery.ts). */
export function discovery(handle: ((req: ApiRequest) => ApiResponse | null) | undefined): Filter {
  return (req, next) => handle?.(req) ?? next(req);
}

const METRICS_GROUPS = ["metrics.k8s.io", "custom.metrics.k8s.io", "external.metrics.k8s.io"];

/** The metrics APIs (aggregated APIs upstream): their groups never reach the resource endpoints. */
export function metricsApis(
  cluster: EmbeddedCluster,
  handle:
    | ((req: ApiRequest, cluster: EmbeddedCluster) => Promise<ApiResponse> | ApiResponse | null)
    | undefined,
): Filter {
  return async (req, next) => {
    const segments = req.path.split("/");
    if (segments[1] !== "apis" || !METRICS_GROUPS.includes(segments[2] ?? "")) return next(req);
    const metrics = await handle?.(req, cluster);
    return metrics ?? errorResponse(pathNotFound());
  };
}
