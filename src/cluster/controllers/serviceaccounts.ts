// The service account controller of kube-controller-manager: every namespace that is not
// terminating has a `default` ServiceAccount, made when the namespace appears (and when the
// controller starts) and made again if it is deleted.

import { DEFAULT_SERVICE_ACCOUNT, syncServiceAccounts } from "../../registry/serviceaccounts.js";
import type { ObjectStore } from "../../registry/store.js";
import { syncOnStoreEvents } from "./store-sync.js";

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
