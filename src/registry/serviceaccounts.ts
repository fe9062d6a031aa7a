// Every namespace that is not terminating has a `default` ServiceAccount: kube-controller-manager's
// service account controller makes them (src/cluster/controllers/serviceaccounts.ts runs this on
// the store's events), and the ServiceAccount admission (admission.ts) makes one when a pod needs
// it before that controller has run.
import { randomUUID } from "node:crypto";
import { isRecord } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import type { ObjectStore } from "./store.js";

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
