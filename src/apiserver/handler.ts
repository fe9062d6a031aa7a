// The API server handler core: a fetch-style function from ApiRequest to ApiResponse over the
// embedded cluster. The filter chain (filters.ts: authentication, impersonation, authorization, health,
// discovery, the auth APIs, the metrics APIs) runs first; then the router below resolves a resource request and hands it to
// the endpoint of its verb (endpoints/: get, list, watch, create, update, patch, delete,
// scale), which decode and answer, while the registry store (registry-store.ts) owns what
// happens to the object on the way to the cluster's store.

import { FeatureGates } from "../api/featuregates.js";
import { goQuote } from "../api/validation.js";
import type { EmbeddedCluster } from "../cluster/cluster.js";
import { startClusterRoleAggregation } from "../cluster/controllers/clusterroleaggregation.js";
import { startRootCaPublisher } from "../cluster/controllers/rootca.js";
import { startServiceAccountsController } from "../cluster/controllers/serviceaccounts.js";
import { startApiServiceRegistration } from "./apiservices.js";
import { authApis } from "./auth/apis.js";
import { impersonation } from "./auth/impersonation.js";
import { ServiceAccountTokens } from "./auth/tokens.js";
import { type AuthenticationTrust, startAuthenticationTrust } from "./authentication-trust.js";
import { startCrdNaming } from "./crdnaming.js";
import { handleDiscovery, versionInfo } from "./discovery.js";
import { ObjectEncodings } from "./encoding.js";
import type { ApiExtensions, Ctx, ServerScope } from "./endpoints/context.js";
import { create } from "./endpoints/create.js";
import { deleteCollection, deleteObject } from "./endpoints/delete.js";
import { get } from "./endpoints/get.js";
import { list } from "./endpoints/list.js";
import { podLog } from "./endpoints/log.js";
import { patch } from "./endpoints/patch.js";
import { scale } from "./endpoints/scale.js";
import { podStream, STREAMING_SUBRESOURCES } from "./endpoints/stream.js";
import { update } from "./endpoints/update.js";
import { watch } from "./endpoints/watch.js";
import { badRequest, errorResponse, methodNotAllowed, pathNotFound } from "./errors.js";
import {
  authentication,
  authorization,
  chain,
  discovery,
  type Handler,
  health,
  IN_FLIGHT_LIMITS,
  type InFlightLimits,
  maxInFlight,
  metricsApis,
} from "./filters.js";
import type { ReadinessChecks } from "./health.js";
import { handleMetricsApi } from "./metrics-api.js";
import { prometheusSd } from "./prometheus-sd.js";
import { RegistryStore } from "./registry-store.js";
import { checkFieldManager, respond } from "./request.js";
import {
  apiVersionOf,
  findResource,
  parseResourcePath,
  pathSegmentNameErrors,
} from "./resources.js";
import { isTableRequest, toTable } from "./tables.js";
import type { ApiRequest, ApiResponse } from "./types.js";

export type { ApiExtensions } from "./endpoints/context.js";

export interface ApiHandlerOptions {
  cluster: EmbeddedCluster;
  /** Also the Kubernetes version served (`featureGates.version`). */
  featureGates?: FeatureGates;
  /** What /version says, e.g. `v1.37.2` (default: the gates' version, patch 0). */
  gitVersion?: string;
  /** The admin's bearer token (none: no authentication, every request has full access). */
  token?: string;
  /** Signs and checks service account tokens (default: a key made for this handler). */
  serviceAccountTokens?: ServiceAccountTokens;
  extensions?: Partial<ApiExtensions>;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK (upstream: about a minute). */
  bookmarkIntervalMs?: number;
  /** Watch length without timeoutSeconds (upstream: --min-request-timeout, 1800 s). */
  defaultWatchTimeoutSeconds?: number;
  /** How long a list or watch waits for a future resourceVersion (upstream: 3 s), then 504. */
  resourceVersionWaitMs?: number;
  /** --max-requests-inflight and --max-mutating-requests-inflight (default 400 and 200). */
  inFlight?: Partial<InFlightLimits>;
  /**
   * The CA bundle that verifies this server, published in every namespace as `kube-root-ca.crt`
   * (none over plain HTTP: nothing to publish).
   */
  rootCaCertificate?: string;
  /**
   * Whom extension API servers should trust, published as
   * kube-system/extension-apiserver-authentication (none: no ConfigMap).
   */
  authenticationTrust?: AuthenticationTrust;
  /** Checks `/readyz` runs besides its own: the parts started beside the server add theirs. */
  readiness?: ReadinessChecks;
}

export function createApiHandler(options: ApiHandlerOptions): Handler {
  const gates = options.featureGates ?? FeatureGates.defaults();
  const served = versionInfo(options.gitVersion ?? `v${gates.version}.0`);
  const extensions: Partial<ApiExtensions> = {
    handleDiscovery: (req) => handleDiscovery(req, served),
    toTable,
    isTableRequest,
    handleMetricsApi,
    ...options.extensions,
  };
  const registry = new RegistryStore({
    cluster: options.cluster,
    featureGates: gates,
  });
  const server: ServerScope = {
    extensions,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    watchTimeoutSeconds: options.defaultWatchTimeoutSeconds ?? 1800,
    resourceVersionWaitMs: options.resourceVersionWaitMs ?? 3000,
    encodings: new ObjectEncodings(options.cluster.store),
  };
  const store = options.cluster.store;
  // kube-controller-manager's parts that serve authentication and RBAC; with accounts in every
  // namespace, kube-apiserver's ServiceAccount admission looks each new pod's up.
  startServiceAccountsController(store);
  options.cluster.admission.serviceAccounts = true;
  if (options.rootCaCertificate !== undefined) {
    startRootCaPublisher(store, options.rootCaCertificate);
  }
  if (options.authenticationTrust !== undefined) {
    startAuthenticationTrust(store, options.authenticationTrust);
  }
  startClusterRoleAggregation(store);
  const tokens = options.serviceAccountTokens ?? ServiceAccountTokens.generate();
  const now = () => options.cluster.now;
  // kube-aggregator's APIService autoregistration and availability controllers.
  startApiServiceRegistration(store, now);
  startCrdNaming(store, now);
  const handler = chain(
    [
      authentication({
        token: options.token,
        serviceAccounts: { tokens, lookup: (kind, ns, name) => store.get(kind, ns, name), now },
      }),
      impersonation(store),
      maxInFlight({ ...IN_FLIGHT_LIMITS, ...options.inFlight }),
      authorization(store),
      health(options.readiness),
      discovery(extensions.handleDiscovery),
      authApis({ tokens, objects: store, now }),
      prometheusSd(options.cluster),
      metricsApis(options.cluster, extensions.handleMetricsApi),
    ],
    (req) => handleResource(req, registry, server),
  );
  return async (req) => {
    try {
      return await handler(req);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return errorResponse({
        status: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `Internal error occurred: ${message}`,
          reason: "InternalError",
          code: 500,
        },
      });
    }
  };
}

/** The resource endpoints: /api/v1/... and /apis/<group>/<version>/... */
async function handleResource(
  req: ApiRequest,
  registry: RegistryStore,
  server: ServerScope,
): Promise<ApiResponse> {
  const target = parseResourcePath(req.path);
  if (!target) return errorResponse(pathNotFound());
  const info = findResource(target.group, target.version, target.resource);
  if (!info) return errorResponse(pathNotFound());
  if (info.namespaced === false && target.namespace !== undefined) {
    return errorResponse(pathNotFound());
  }
  if (info.namespaced && target.name !== undefined && target.namespace === undefined) {
    return errorResponse(pathNotFound());
  }
  if (
    target.subresource !== undefined &&
    !info.subresources.includes(target.subresource as "status") &&
    !(
      info.kind === "Pod" &&
      target.name !== undefined &&
      STREAMING_SUBRESOURCES.has(target.subresource)
    )
  ) {
    return errorResponse(pathNotFound());
  }
  // The generic registry's key functions refuse a name that is not one path segment.
  if (target.name !== undefined) {
    const problems = pathSegmentNameErrors(target.name);
    if (problems.length > 0) {
      return errorResponse(
        badRequest(`Name parameter invalid: ${goQuote(target.name)}: ${problems.join(";")}`),
      );
    }
  }
  const ctx: Ctx = {
    req,
    target,
    info,
    namespace: target.namespace ?? "",
    apiVersion: apiVersionOf(info.group, target.version),
    dryRun: req.query.getAll("dryRun").includes("All"),
    warnings: [],
    registry,
    server,
  };
  const deprecation = info.deprecations?.[target.version];
  if (deprecation) ctx.warnings.push(deprecation);
  const result = await dispatch(ctx);
  if (ctx.warnings.length > 0) {
    const warning = ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ");
    result.headers = { ...(result.headers ?? {}), warning };
  }
  return result;
}

/** The endpoint of the request's verb. */
async function dispatch(ctx: Ctx): Promise<ApiResponse> {
  const { req, target, info } = ctx;
  const method = req.method.toUpperCase();
  const invalidManager = checkFieldManager(ctx, method);
  if (invalidManager) return errorResponse(invalidManager);
  const isWatch =
    target.watchPath || req.query.get("watch") === "true" || req.query.get("watch") === "1";
  if (info.readOnly && method !== "GET") return errorResponse(methodNotAllowed(info, target.name));
  if (target.name === undefined) {
    if (method === "GET") return isWatch ? watch(ctx) : list(ctx);
    if (method === "POST") return respond(create(ctx));
    if (method === "DELETE") return respond(deleteCollection(ctx));
    return errorResponse(methodNotAllowed(info));
  }
  if (isWatch && method === "GET") {
    // A watch on one object: the same as a field selector on its name.
    const query = new URLSearchParams(req.query);
    const field = query.get("fieldSelector");
    query.set("fieldSelector", `metadata.name=${target.name}${field ? `,${field}` : ""}`);
    const { name: _name, ...collection } = target;
    return watch({ ...ctx, req: { ...req, query }, target: collection });
  }
  if (target.subresource === "scale") return scale(ctx, method);
  if (target.subresource === "log") return podLog(ctx, method);
  if (STREAMING_SUBRESOURCES.has(target.subresource ?? "")) return podStream(ctx);
  switch (method) {
    case "GET":
      return get(ctx);
    case "PUT":
      return respond(update(ctx));
    case "PATCH":
      return respond(patch(ctx));
    case "DELETE":
      return respond(deleteObject(ctx));
    default:
      return errorResponse(methodNotAllowed(info, target.name));
  }
}
