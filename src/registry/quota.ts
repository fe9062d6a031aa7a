// The resource quota controller's status: each ResourceQuota's `hard` as its spec says and `used`
// for each of those resources, counted from the store as kube-controller-manager's evaluators do
// (pods not yet terminal and their containers' requests and limits; object counts, `count/…`).
// ResourceQuota admission (src/registry/admission.ts) refuses a pod that would pass them.
import { isRecord } from "../api/json.js";
import { Quantity } from "../api/quantity.js";
import type { KubeObject } from "../api/types.js";
import { KNOWN_KINDS, resourceOf } from "../kinds/catalog.js";
import { resourceList } from "../kinds/podvalidation.js";
import type { ObjectStore } from "./store.js";

/** The object counts a quota names without `count/` and the kind each counts. */
const COUNTED: Record<string, string> = {
  pods: "Pod",
  services: "Service",
  configmaps: "ConfigMap",
  secrets: "Secret",
  replicationcontrollers: "ReplicationController",
  resourcequotas: "ResourceQuota",
  persistentvolumeclaims: "PersistentVolumeClaim",
};

const isTerminal = (pod: KubeObject) => {
  const phase = isRecord(pod.status) ? pod.status.phase : undefined;
  return phase === "Succeeded" || phase === "Failed";
};

/** The sum of the pod's containers' `requests` or `limits` of one resource, if any names it. */
function podAmount(pod: KubeObject, field: "requests" | "limits", resource: string): Quantity[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  return containers.flatMap((c) => {
    const resources = isRecord(c) && isRecord(c.resources) ? c.resources : {};
    const quantity = resourceList(resources[field]).get(resource);
    return quantity ? [quantity] : [];
  });
}

function sum(quantities: Quantity[]): Quantity {
  const [first, ...rest] = quantities;
  return rest.reduce((total, q) => total.add(q), first ?? Quantity.fromInt(0));
}

/** A resource's use in the namespace, given its pods that are not terminal. */
function used(
  store: ObjectStore,
  namespace: string,
  pods: readonly KubeObject[],
  resource: string,
): Quantity {
  const counted = COUNTED[resource];
  if (counted) {
    const objects = counted === "Pod" ? pods : store.list(counted, namespace);
    return Quantity.fromInt(objects.length);
  }
  if (resource.startsWith("count/")) {
    const wanted = resource.slice("count/".length);
    const kind = [...KNOWN_KINDS].find((k) => resourceOf(k) === wanted);
    return Quantity.fromInt(kind ? store.list(kind, namespace).length : 0);
  }
  const [field, name] = resource.startsWith("limits.")
    ? (["limits", resource.slice(7)] as const)
    : (["requests", resource.replace(/^requests\./, "")] as const);
  return sum(pods.flatMap((pod) => podAmount(pod, field, name)));
}

/** The status the quota controller writes for a quota now. */
export function quotaStatus(store: ObjectStore, quota: KubeObject): Record<string, unknown> {
  const spec = isRecord(quota.spec) ? quota.spec : {};
  const hard = isRecord(spec.hard) ? spec.hard : {};
  const namespace = quota.metadata.namespace ?? "default";
  const pods = store.list("Pod", namespace).filter((p) => !isTerminal(p));
  const usedList: Record<string, string> = {};
  for (const resource of Object.keys(hard).sort()) {
    usedList[resource] = used(store, namespace, pods, resource).toString();
  }
  return { hard, used: usedList };
}
