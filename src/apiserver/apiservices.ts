// kube-apiserver's APIService controllers over Horizon's store: autoregistration (a Local
// APIService for each group-version the server serves: the built-in ones created at start when
// missing and then left to the user, labelled `onstart`; the custom resources' kept in step with
// the CRDs, labelled `true`) and the availability check that writes each one's Available
// condition. Horizon answers every group it serves itself and proxies to no service: a
// service-backed APIService passes once its Service and endpoints check out as upstream's do,
// and only for a group Horizon serves.
import { isDeepStrictEqual } from "node:util";
import { isRecord } from "../api/json.js";
import { rfc3339 } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import { availableCondition } from "../kinds/apiservice.js";
import { customGeneration } from "../kinds/custom.js";
import type { ObjectStore } from "../registry/store.js";
import { servedGroupVersions } from "./discovery.js";

export const AUTOMANAGED_LABEL = "kube-aggregator.kubernetes.io/automanaged";

/**
 * kube-apiserver's group and version priorities (its apiVersionPriorities) for the built-in
 * group-versions Horizon serves; a group-version it does not list is not registered.
 */
const BUILT_IN_PRIORITIES: Readonly<Record<string, readonly [number, number]>> = {
  "v1.": [18000, 1],
  "v1.apps": [17800, 15],
  "v1.authentication.k8s.io": [17700, 15],
  "v1beta1.authentication.k8s.io": [17700, 9],
  "v1.authorization.k8s.io": [17600, 15],
  "v1.autoscaling": [17500, 15],
  "v2.autoscaling": [17500, 30],
  "v1.batch": [17400, 15],
  "v1.networking.k8s.io": [17200, 15],
  "v1.policy": [17100, 15],
  "v1.rbac.authorization.k8s.io": [17000, 15],
  "v1.apiextensions.k8s.io": [16700, 15],
  "v1.scheduling.k8s.io": [16600, 15],
  "v1.coordination.k8s.io": [16500, 15],
  "v1.discovery.k8s.io": [16200, 15],
  // The metrics APIs are aggregated upstream; Horizon serves them itself, with the priorities
  // metrics-server's and prometheus-adapter's APIServices give them.
  "v1beta1.metrics.k8s.io": [100, 100],
  "v1beta1.custom.metrics.k8s.io": [100, 100],
  "v1beta2.custom.metrics.k8s.io": [100, 200],
  "v1beta1.external.metrics.k8s.io": [100, 100],
};

/** The crdRegistrationController's priorities: CRDs rank low and sort by version. */
const CUSTOM_PRIORITIES = [1000, 100] as const;

/** Kinds served here that are CRDs upstream (ServiceMonitor) are registered as CRDs are. */
function isBuiltInListed(name: string): boolean {
  return Object.hasOwn(BUILT_IN_PRIORITIES, name);
}

function localApiService(
  group: string,
  version: string,
  managed: "onstart" | "true",
  [groupPriorityMinimum, versionPriority]: readonly [number, number],
): KubeObject {
  return {
    apiVersion: "apiregistration.k8s.io/v1",
    kind: "APIService",
    metadata: { name: `${version}.${group}`, labels: { [AUTOMANAGED_LABEL]: managed } },
    spec: { group, version, groupPriorityMinimum, versionPriority },
  };
}

/** The served group-versions this server registers, by APIService name. */
function servedApiServices(): Map<string, { group: string; version: string }> {
  const out = new Map<string, { group: string; version: string }>();
  for (const gv of servedGroupVersions()) {
    // The aggregator's own group is not one of the delegate's: upstream lists no APIService for it.
    if (gv.group === "apiregistration.k8s.io") continue;
    out.set(`${gv.version}.${gv.group}`, gv);
  }
  return out;
}

interface Condition {
  status: "True" | "False";
  reason: string;
  message: string;
}

/** The availability controller's verdict on one APIService. */
function availability(
  store: ObjectStore,
  apiService: KubeObject,
  served: ReadonlyMap<string, unknown>,
): Condition {
  const spec = isRecord(apiService.spec) ? apiService.spec : {};
  const ref = isRecord(spec.service) ? spec.service : null;
  if (ref === null) {
    return { status: "True", reason: "Local", message: "Local APIServices are always available" };
  }
  const namespace = typeof ref.namespace === "string" ? ref.namespace : "";
  const name = typeof ref.name === "string" ? ref.name : "";
  const where = `service/${name} in "${namespace}"`;
  const service = store.get("Service", namespace, name);
  if (!service)
    return { status: "False", reason: "ServiceNotFound", message: `${where} is not present` };
  const serviceSpec = isRecord(service.spec) ? service.spec : {};
  const type = typeof serviceSpec.type === "string" ? serviceSpec.type : "ClusterIP";
  if (type === "ClusterIP") {
    const port = typeof ref.port === "number" ? ref.port : 443;
    const ports = Array.isArray(serviceSpec.ports) ? serviceSpec.ports.filter(isRecord) : [];
    const servicePort = ports.find((p) => p.port === port);
    if (!servicePort) {
      return {
        status: "False",
        reason: "ServicePortError",
        message: `${where} is not listening on port ${port}`,
      };
    }
    const portName = typeof servicePort.name === "string" ? servicePort.name : "";
    const endpoints = store.get("Endpoints", namespace, name);
    if (!endpoints) {
      return {
        status: "False",
        reason: "EndpointsNotFound",
        message: `cannot find endpoints for ${where}`,
      };
    }
    const subsets = Array.isArray(endpoints.subsets) ? endpoints.subsets.filter(isRecord) : [];
    const active = subsets.some(
      (s) =>
        Array.isArray(s.addresses) &&
        s.addresses.length > 0 &&
        Array.isArray(s.ports) &&
        s.ports.some((p) => isRecord(p) && (p.name ?? "") === portName),
    );
    if (!active) {
      return {
        status: "False",
        reason: "MissingEndpoints",
        message: `endpoints for ${where} have no addresses with port name "${portName}"`,
      };
    }
  }
  // Upstream now asks the service for its discovery document; Horizon proxies to no service,
  // and answers the group itself when it serves it.
  if (served.has(apiService.metadata.name)) {
    return { status: "True", reason: "Passed", message: "all checks passed" };
  }
  return {
    status: "False",
    reason: "FailedDiscoveryCheck",
    message: `Horizon does not proxy to aggregated API servers and serves no ${String(spec.version)}.${String(spec.group)} itself`,
  };
}

/** Creates, updates and deletes the CRDs' APIServices and writes every Available condition. */
export function syncApiServices(store: ObjectStore, now: number): void {
  const served = servedApiServices();
  for (const [name, gv] of served) {
    if (isBuiltInListed(name)) continue;
    const desired = localApiService(gv.group, gv.version, "true", CUSTOM_PRIORITIES);
    const current = store.get("APIService", "", name);
    if (!current) store.create(desired);
    else if (
      current.metadata.labels?.[AUTOMANAGED_LABEL] === "true" &&
      !isDeepStrictEqual(current.spec, desired.spec)
    ) {
      store.update({ ...current, spec: desired.spec });
    }
  }
  for (const apiService of store.list("APIService")) {
    const name = apiService.metadata.name;
    if (apiService.metadata.labels?.[AUTOMANAGED_LABEL] === "true" && !served.has(name)) {
      store.delete("APIService", "", name);
    }
  }
  for (const apiService of store.list("APIService")) {
    const verdict = availability(store, apiService, served);
    const current = availableCondition(apiService);
    if (
      current?.status === verdict.status &&
      current.reason === verdict.reason &&
      current.message === verdict.message
    ) {
      continue;
    }
    const lastTransitionTime =
      current?.status === verdict.status && typeof current.lastTransitionTime === "string"
        ? current.lastTransitionTime
        : rfc3339(now);
    const others = (
      isRecord(apiService.status) && Array.isArray(apiService.status.conditions)
        ? apiService.status.conditions
        : []
    ).filter((c) => !isRecord(c) || c.type !== "Available");
    store.updateStatus("APIService", "", apiService.metadata.name, {
      conditions: [{ type: "Available", ...verdict, lastTransitionTime }, ...others],
    });
  }
}

/** The `namespace/name` of every Service an APIService refers to. */
function referencedServices(store: ObjectStore): Set<string> {
  const out = new Set<string>();
  for (const apiService of store.list("APIService")) {
    const spec = isRecord(apiService.spec) ? apiService.spec : {};
    const ref = isRecord(spec.service) ? spec.service : null;
    if (ref) out.add(`${String(ref.namespace ?? "")}/${String(ref.name ?? "")}`);
  }
  return out;
}

/**
 * Registers the built-in group-versions missing from the store, then keeps the CRDs' APIServices
 * and every Available condition up to date as APIServices, Services, Endpoints and CRDs change
 * (after the write that woke it, a microtask). Returns the stop function.
 */
export function startApiServiceRegistration(store: ObjectStore, now: () => number): () => void {
  for (const [name, gv] of servedApiServices()) {
    const priorities = BUILT_IN_PRIORITIES[name];
    if (priorities && !store.get("APIService", "", name)) {
      store.create(localApiService(gv.group, gv.version, "onstart", priorities));
    }
  }
  let queued = false;
  let generation = customGeneration();
  let referenced = new Set<string>();
  const sync = () => {
    queued = false;
    generation = customGeneration();
    syncApiServices(store, now());
    referenced = referencedServices(store);
  };
  sync();
  // A Service or Endpoints matters only when an APIService names it (not every write of a
  // cluster's Services).
  const wakes = (object: KubeObject): boolean => {
    switch (object.kind) {
      case "APIService":
      case "CustomResourceDefinition":
        return true;
      case "Service":
      case "Endpoints":
        return referenced.has(`${object.metadata.namespace ?? ""}/${object.metadata.name}`);
      default:
        return customGeneration() !== generation;
    }
  };
  return store.watch((event) => {
    if (queued || !wakes(event.object)) return;
    queued = true;
    queueMicrotask(sync);
  });
}
