// kube-controller-manager's root CA certificate publisher: every namespace that is not
// terminating has the ConfigMap `kube-root-ca.crt` holding the CA bundle that verifies the API
// server (what a pod's projected `kube-api-access-…` volume mounts as ca.crt). Made when the
// namespace appears, made again if deleted, and put back if changed.
import { randomUUID } from "node:crypto";
import type { KubeObject } from "../../api/types.js";
import { namespaceTerminating } from "../../registry/serviceaccounts.js";
import type { ObjectStore } from "../../registry/store.js";
import { syncOnStoreEvents } from "./store-sync.js";

export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";
const DESCRIPTION_ANNOTATION = "kubernetes.io/description";
const DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/** Its data is the bundle alone, and it has a description (any: a client may reword it). */
function published(configMap: KubeObject, rootCa: string): boolean {
  const data = (configMap as { data?: Record<string, unknown> }).data ?? {};
  const keys = Object.keys(data);
  return (
    keys.length === 1 &&
    data["ca.crt"] === rootCa &&
    Boolean(configMap.metadata.annotations?.[DESCRIPTION_ANNOTATION])
  );
}

/** Makes or puts back each namespace's ConfigMap. */
export function syncRootCaConfigMaps(store: ObjectStore, rootCa: string): void {
  for (const namespace of store.list("Namespace")) {
    if (namespaceTerminating(namespace)) continue;
    const name = namespace.metadata.name;
    const current = store.get("ConfigMap", name, ROOT_CA_CONFIGMAP);
    if (current && published(current, rootCa)) continue;
    const annotations = { ...current?.metadata.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION };
    if (current) {
      // The data is replaced whole (a key a client added goes); the annotation is set.
      const metadata = { ...current.metadata, annotations };
      store.update({ ...current, metadata, data: { "ca.crt": rootCa } } as KubeObject);
      continue;
    }
    store.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: ROOT_CA_CONFIGMAP, namespace: name, uid: randomUUID(), annotations },
      data: { "ca.crt": rootCa },
    } as KubeObject);
  }
}

/** Runs the publisher on the store from now on; returns its stop function. */
export function startRootCaPublisher(store: ObjectStore, rootCa: string): () => void {
  return syncOnStoreEvents(
    store,
    ({ type, object }) =>
      (object.kind === "Namespace" && type !== "DELETED") ||
      (object.kind === "ConfigMap" &&
        object.metadata.name === ROOT_CA_CONFIGMAP &&
        (type === "DELETED" || !published(object, rootCa))),
    () => syncRootCaConfigMaps(store, rootCa),
  );
}
