// The API server's filter chain, as kube-apiserver's handler chain (authentication, in-flight
// limits, authorization, then the non-resource paths, then the aggregated metrics APIs) in front of the resource endpoints.
// Each filter is `(req, next)`: it answers, or passes the request on.

import { timingSafeEqual } from "node:crypto";
import type { EmbeddedCluster } from "../cluster/cluster.js";
import { authorize, forbiddenMessage, type RbacObjects, requestAttributes } from "./auth/rbac.js";
import type { ObjectLookup, ServiceAccountTokens } from "./auth/tokens.js";
import { ADMIN_USER, ANONYMOUS_USER, SYSTEM_MASTERS } from "./auth/user.js";
import { errorResponse, forbidden, pathNotFound, unauthorized } from "./errors.js";
import { handleHealth, isPublicInfoRequest, type ReadinessChecks } from "./health.js";
import type { ApiRequest, ApiResponse } from "./types.js";

export type Handler = (req: ApiRequest) => Promise<ApiResponse>;
export type Filter = (req: ApiRequest, next: Handler) => Promise<ApiResponse> | ApiResponse;

/** The filters in order, the first outermost, around `last`. */
export function chain(filters: readonly Filter[], last: Handler): Handler {
  return filters.reduceRight<Handler>((next, filter) => async (req) => filter(req, next), last);
}

export interface AuthenticationOptions {
  /** The admin's bearer token; none: no authentication, every request is the admin's. */
  token: string | undefined;
  /** Service account tokens (TokenRequest's), checked against the store's accounts. */
  serviceAccounts?: {
    tokens: ServiceAccountTokens;
    lookup: ObjectLookup;
    /** Epoch ms: a token's expiry is checked against it. */
    now: () => number;
  };
}

/** `Authorization: Bearer <token>` (the scheme in any case), else null. */
function bearerToken(header: string): string | null {
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Bearer-token authentication: the admin token is `horizon-admin` in system:masters, a service
 * account token its account's user; no credentials at all is the anonymous user, who may read
 * the public info paths only; anything else is 401.
 */
export function authentication(options: AuthenticationOptions): Filter {
  const { token, serviceAccounts } = options;
  return async (req, next) => {
    if (token === undefined) {
      req.user = ADMIN_USER;
      return next(req);
    }
    const auth = req.headers.authorization;
    if (auth === undefined) {
      if (!isPublicInfoRequest(req)) return errorResponse(unauthorized());
      req.user = ANONYMOUS_USER;
      return next(req);
    }
    const bearer = bearerToken(auth);
    if (bearer === null) return errorResponse(unauthorized());
    if (sameSecret(bearer, token)) {
      req.user = ADMIN_USER;
      return next(req);
    }
    const user = await serviceAccounts?.tokens.authenticate(
      bearer,
      serviceAccounts.now(),
      serviceAccounts.lookup,
    );
    if (!user) return errorResponse(unauthorized());
    req.user = user;
    return next(req);
  };
}

/**
 * Authorization: system:masters may do anything (as kube-apiserver's privileged-group
 * authorizer); everyone else is asked of RBAC, and a request it does not allow is 403 with
 * upstream's message, whatever the endpoint (resources, subresources, discovery, metrics APIs).
 */
export function authorization(objects: RbacObjects): Filter {
  return (req, next) => {
    const user = req.user;
    if (user === undefined || user.groups.includes(SYSTEM_MASTERS)) return next(req);
    const attrs = requestAttributes(req.method, req.path, req.query);
    const decision = authorize(objects, user, attrs);
    if (decision.allowed) return next(req);
    const message = forbiddenMessage(user, attrs);
    const resource = attrs.resourceRequest
      ? { group: attrs.apiGroup, resource: attrs.resource }
      : null;
    const why = decision.reason === "" ? message : `${message}: ${decision.reason}`;
    return errorResponse(forbidden(resource, attrs.name, why));
  };
}

/** /healthz, /livez, /readyz and their checks (src/apiserver/health.ts). */
export function health(readiness?: ReadinessChecks): Filter {
  return (req, next) => handleHealth(req, readiness) ?? next(req);
}

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

export interface InFlightLimits {
  /** --max-requests-inflight: reads and other non-mutating requests at once (0: no limit). */
  maxRequestsInflight: number;
  /** --max-mutating-requests-inflight: creates, updates, patches and deletes at once (0: no limit). */
  maxMutatingRequestsInflight: number;
}

/** kube-apiserver's defaults. */
export const IN_FLIGHT_LIMITS: InFlightLimits = {
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
};

const MUTATING_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const LONG_RUNNING_SUBRESOURCES = new Set(["proxy", "attach", "exec", "log", "portforward"]);

/** Watches (and upstream's streaming subresources) run for long: no in-flight limit holds them. */
export function isLongRunning(req: ApiRequest): boolean {
  const watch = req.query.get("watch");
  if (watch === "true" || watch === "1") return true;
  const segments = req.path.split("/");
  if (segments.includes("watch")) return true;
  return LONG_RUNNING_SUBRESOURCES.has(segments[segments.length - 1] ?? "");
}

/**
 * WithMaxInFlightLimit: past the limit of its kind a request gets 429 with `Retry-After: 1` and
 * upstream's plain-text answer; long-running requests are not counted.
 */
export function maxInFlight(limits: InFlightLimits): Filter {
  let reading = 0;
  let mutating = 0;
  return async (req, next) => {
    if (isLongRunning(req)) return next(req);
    const isMutating = MUTATING_METHODS.has(req.method.toUpperCase());
    const limit = isMutating ? limits.maxMutatingRequestsInflight : limits.maxRequestsInflight;
    const current = isMutating ? mutating : reading;
    if (limit > 0 && current >= limit) {
      return {
        status: 429,
        headers: { "content-type": "text/plain; charset=utf-8", "retry-after": "1" },
        raw: "Too many requests, please try again later.\n",
      };
    }
    if (isMutating) mutating++;
    else reading++;
    try {
      return await next(req);
    } finally {
      if (isMutating) mutating--;
      else reading--;
    }
  };
}
