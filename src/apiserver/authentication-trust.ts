// kube-apiserver's cluster authentication trust controller: the ConfigMap
// kube-system/extension-apiserver-authentication tells extension API servers (prometheus-adapter,
// metrics-server, `horizon adapter`) whom to trust: `client-ca-file` (the --client-ca-file CA,
// when the server takes client certificates) and the requestheader-* keys of the front proxy
// (--requestheader-client-ca-file and its headers). Written at start, made again if deleted and
// put back if changed, as upstream's controller does.
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../api/types.js";
import { syncOnStoreEvents } from "../cluster/controllers/store-sync.js";
import type { ObjectStore } from "../registry/store.js";

export const AUTHENTICATION_CONFIGMAP = "extension-apiserver-authentication";
const NAMESPACE = "kube-system";

export interface AuthenticationTrust {
  /** PEM of the CA client certificates are verified against (--client-ca-file); none: no key. */
  clientCa?: string;
  /** The front proxy's trust (--requestheader-*); none: no requestheader keys. */
  requestHeader?: {
    clientCa: string;
    allowedNames: readonly string[];
    usernameHeaders: readonly string[];
    groupHeaders: readonly string[];
    extraHeaderPrefixes: readonly string[];
  };
}

/** kube-apiserver's defaults for --requestheader-* as kubeadm sets them. */
export const REQUEST_HEADER_DEFAULTS = {
  allowedNames: ["front-proxy-client"],
  usernameHeaders: ["X-Remote-User"],
  groupHeaders: ["X-Remote-Group"],
  extraHeaderPrefixes: ["X-Remote-Extra-"],
} as const;

/** The ConfigMap's data: the lists as JSON arrays, as upstream writes them. */
export function authenticationData(trust: AuthenticationTrust): Record<string, string> {
  const data: Record<string, string> = {};
  if (trust.clientCa !== undefined) data["client-ca-file"] = trust.clientCa;
  const header = trust.requestHeader;
  if (header) {
    data["requestheader-allowed-names"] = JSON.stringify(header.allowedNames);
    data["requestheader-client-ca-file"] = header.clientCa;
    data["requestheader-extra-headers-prefix"] = JSON.stringify(header.extraHeaderPrefixes);
    data["requestheader-group-headers"] = JSON.stringify(header.groupHeaders);
    data["requestheader-username-headers"] = JSON.stringify(header.usernameHeaders);
  }
  return data;
}

function syncAuthenticationConfigMap(store: ObjectStore, data: Record<string, string>): void {
  if (!store.get("Namespace", "", NAMESPACE)) return;
  const current = store.get("ConfigMap", NAMESPACE, AUTHENTICATION_CONFIGMAP);
  if (current && isDeepStrictEqual((current as { data?: unknown }).data, data)) return;
  if (current) {
    store.update({ ...current, data } as KubeObject);
    return;
  }
  store.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: AUTHENTICATION_CONFIGMAP, namespace: NAMESPACE, uid: randomUUID() },
    data,
  } as KubeObject);
}

/** Runs the controller on the store from now on; returns its stop function. */
export function startAuthenticationTrust(
  store: ObjectStore,
  trust: AuthenticationTrust,
): () => void {
  const data = authenticationData(trust);
  return syncOnStoreEvents(
    store,
    ({ type, object }) =>
      (object.kind === "Namespace" && object.metadata.name === NAMESPACE && type !== "DELETED") ||
      (object.kind === "ConfigMap" &&
        object.metadata.namespace === NAMESPACE &&
        object.metadata.name === AUTHENTICATION_CONFIGMAP &&
        (type === "DELETED" || !isDeepStrictEqual((object as { data?: unknown }).data, data))),
    () => syncAuthenticationConfigMap(store, data),
  );
}
