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

/** A readiness check of a part the server depends on: null when ready, else why not. */
export type ReadinessCheck = () => string | null;

/**
 * Checks added to `/readyz` by the parts started beside the server (as kube-apiserver's
 * AddReadyzChecks), e.g. `horizon up --prometheus`'s Prometheus child; listed after the
 * built-in ones.
 */
export class ReadinessChecks {
  readonly #checks = new Map<string, ReadinessCheck>();
  add(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
  }
  get names(): string[] {
    return [...this.#checks.keys()];
  }
  /** Each check's failure reason (null: ok). */
  run(): [string, string | null][] {
    return [...this.#checks].map(([name, check]) => [name, check()]);
  }
}

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
 * (k8s.io/apiserver/pkg/server/healthz). A failed readiness check is `[-]check failed: <why>`
 * in the verbose list and the answer 500 `readyz check failed`, as upstream (which withholds the
 * reason from the HTTP answer and logs it; here the reason is the part's own, not a secret).
 * Null for other paths.
 */
export function handleHealth(
  req: ApiRequest,
  readiness: ReadinessChecks = new ReadinessChecks(),
): ApiResponse | null {
  const parts = req.path.split("/").filter((p) => p !== "");
  const endpoint = parts[0];
  if (endpoint === undefined || !ENDPOINTS.includes(endpoint) || parts.length > 2) return null;
  const extra = endpoint === "readyz" ? readiness.run() : [];
  const check = parts[1];
  if (check !== undefined && !CHECKS.includes(check) && !extra.some(([n]) => n === check)) {
    return null;
  }
  const method = req.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") return null;
  const headers = {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
  };
  const results: [string, string | null][] = [
    ...CHECKS.map((c): [string, null] => [c, null]),
    ...extra,
  ];
  const selected = check === undefined ? results : results.filter(([n]) => n === check);
  const failed = selected.some(([, why]) => why !== null);
  if (check === undefined && (req.query.has("verbose") || failed)) {
    const lines = selected
      .map(([name, why]) => (why === null ? `[+]${name} ok\n` : `[-]${name} failed: ${why}\n`))
      .join("");
    const verdict = failed ? `${endpoint} check failed` : `${endpoint} check passed`;
    return { status: failed ? 500 : 200, headers, raw: `${lines}${verdict}\n` };
  }
  if (failed) {
    const [name, why] = selected[0]!;
    return { status: 500, headers, raw: `internal server error: ${name}: ${why}\n` };
  }
  return { status: 200, headers, raw: "ok" };
}
