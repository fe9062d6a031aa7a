// The service account controller of kube-controller-manager: every namespace that is not
// terminating has a `default` ServiceAccount, made when the namespace appears (and when the
// controller starts) and made again if it is deleted.
import { randomUUID } from "node:crypto";
import { isRecord } from "../../api/json.js";
import type { KubeObject } from "../../api/types.js";
import type { ObjectStore } from "../store.js";
import { syncOnStoreEvents } from "./store-sync.js";

export const DEFAULT_SERVICE_ACCOUNT = "default";

/** Deleted or Terminating: its controllers make nothing new in it. */
export function namespaceTerminating(namespace: KubeObject): boolean {
  const status = isRecord(namespace.status) ? namespace.status : {};
  return namespace.metadata.deletionTimestamp !== undefined || status.phase === "Terminating";
}

/** Creates the missing `default` accounts. */
export function syncServiceAccounts(store: ObjectStore): void {
  for (const namespace of store.list("Namespace")) {
    const name = namespace.metadata.name;
    if (
      namespaceTerminating(namespace) ||
      store.get("ServiceAccount", name, DEFAULT_SERVICE_ACCOUNT)
    ) {
      continue;
    }
    store.create({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace: name, uid: randomUUID() },
    });
  }
}

/** Runs the controller on the store from now on; returns its stop function. */
export function startServiceAccountsController(store: ObjectStore): () => void {
  return syncOnStoreEvents(
    store,
    ({ type, object }) =>
      (object.kind === "Namespace" && type !== "DELETED") ||
      (object.kind === "ServiceAccount" &&
        type === "DELETED" &&
        object.metadata.name === DEFAULT_SERVICE_ACCOUNT),
    () => syncServiceAccounts(store),
  );
}
