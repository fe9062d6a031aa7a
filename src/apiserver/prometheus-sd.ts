// Prometheus HTTP service discovery on the API server, behind its token: GET
// /prometheus/sd/endpoints and /prometheus/sd/endpointslice (optionally ?namespace=NS) list the
// scrape targets of the cluster's Endpoints or EndpointSlices with Kubernetes SD's
// `__meta_kubernetes_*` labels (src/prometheus/sd.ts), for `http_sd_configs`.
import type { EmbeddedCluster } from "../cluster/cluster.js";
import { discoverTargets, SD_ROLES, type SdRole } from "../prometheus/sd.js";
import { errorResponse, pathNotFound } from "./errors.js";
import type { Filter } from "./filters.js";

export const SD_PATH = "/prometheus/sd";

export function prometheusSd(cluster: EmbeddedCluster): Filter {
  return (req, next) => {
    if (!req.path.startsWith(`${SD_PATH}/`)) return next(req);
    const role = req.path.slice(SD_PATH.length + 1);
    if (req.method !== "GET" || !(SD_ROLES as readonly string[]).includes(role)) {
      return errorResponse(pathNotFound());
    }
    const namespace = req.query.get("namespace") || undefined;
    const groups = discoverTargets(
      { list: (kind, ns) => cluster.store.list(kind, ns) },
      role as SdRole,
      namespace,
    );
    return { status: 200, headers: { "content-type": "application/json" }, body: groups };
  };
}
