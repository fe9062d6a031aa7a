// Who a request is from (k8s.io/apiserver user.Info), as the authenticators tell it and the
// authorizer and reviews read it.

export interface UserInfo {
  name: string;
  uid?: string;
  groups: readonly string[];
  /** Extra attributes (a service account token's pod and credential id). */
  extra?: Readonly<Record<string, readonly string[]>>;
}

export const SYSTEM_MASTERS = "system:masters";
export const SYSTEM_AUTHENTICATED = "system:authenticated";
export const SYSTEM_UNAUTHENTICATED = "system:unauthenticated";
export const SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";

/** The holder of `horizon up`'s admin token: full access, as a kubeadm admin.conf's user. */
export const ADMIN_USER: UserInfo = {
  name: "horizon-admin",
  groups: [SYSTEM_MASTERS, SYSTEM_AUTHENTICATED],
};

/** A request with no credentials (it may read the public info paths only). */
export const ANONYMOUS_USER: UserInfo = {
  name: "system:anonymous",
  groups: [SYSTEM_UNAUTHENTICATED],
};

/** `system:serviceaccount:NS:NAME` (serviceaccount.MakeUsername). */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The groups of a service account's user. */
export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`, SYSTEM_AUTHENTICATED];
}
