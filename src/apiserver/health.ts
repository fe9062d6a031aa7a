// kube-apiserver's health endpoints and what anonymous clients may read. With the default
// --anonymous-auth=true, a request with no credentials is `system:anonymous`, and the
// `system:public-info-viewer` ClusterRole (bound to system:unauthenticated) lets it GET exactly
// the non-resource URLs /healthz, /livez, /readyz, /version and /version/. A request that
// presents a bad token is still rejected (401): anonymity applies only without credentials.
import type { ApiRequest, ApiResponse } from "./types.js";

/** system:public-info-viewer's nonResourceURLs (exact paths, verb get). */
const PUBLIC_INFO_PATHS = new Set(["/healthz", "/livez", "/readyz", "/version", "/version/"]);

/** May this request be served without credentials? */
export function isPublicInfoRequest(req: ApiRequest): boolean {
  return req.method.toUpperCase() === "GET" && PUBLIC_INFO_PATHS.has(req.path);
}

// The checks a verbose answer lists: ping and log always pass; the store stands in for etcd.
const CHECKS = ["ping", "log", "etcd"];
const ENDPOINTS = ["healthz", "livez", "readyz"];

/**
 * A health probe (`/healthz`, `/livez`, `/readyz` or one check of them): APF's mandatory `probes`
 * FlowSchema puts these at the `exempt` priority level, so they never queue behind other work.
 */
export function isHealthProbe(path: string): boolean {
  const parts = path.split("/");
  return parts.length <= 3 && parts[0] === "" && ENDPOINTS.includes(parts[1] ?? "");
}

/**
 * `/healthz`, `/livez`, `/readyz` (and each `/<endpoint>/<check>`): `ok` as text/plain, or with
 * `?verbose` one `[+]check ok` line per check and `<endpoint> check passed`
 * (k8s.io/apiserver/pkg/server/healthz). Null for other paths.
 */
export function handleHealth(req: ApiRequest): ApiResponse | null {
  const parts = req.path.split("/").filter((p) => p !== "");
  const endpoint = parts[0];
  if (endpoint === undefined || !ENDPOINTS.includes(endpoint) || parts.length > 2) return null;
  if (parts.length === 2 && !CHECKS.includes(parts[1]!)) return null;
  const method = req.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") return null;
  const headers = {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
  };
  if (parts.length === 1 && req.query.has("verbose")) {
    const lines = CHECKS.map((c) => `[+]${c} ok\n`).join("");
    return { status: 200, headers, raw: `${lines}${endpoint} check passed\n` };
  }
  return { status: 200, headers, raw: "ok" };
}
