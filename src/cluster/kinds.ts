// What the API server calls each kind: the resource (plural.group) used in error messages such
// as `deployments.apps "web" not found`, and which kinds are cluster-scoped.

const RESOURCES: Record<string, string> = {
  Deployment: "deployments.apps",
  ReplicaSet: "replicasets.apps",
  StatefulSet: "statefulsets.apps",
  DaemonSet: "daemonsets.apps",
  ControllerRevision: "controllerrevisions.apps",
  ReplicationController: "replicationcontrollers",
  Pod: "pods",
  Service: "services",
  Namespace: "namespaces",
  Node: "nodes",
  Event: "events",
  ConfigMap: "configmaps",
  HorizontalPodAutoscaler: "horizontalpodautoscalers.autoscaling",
  Ingress: "ingresses.networking.k8s.io",
};

const CLUSTER_SCOPED = new Set(["Namespace", "Node"]);

/** Lower-case plural of a kind, as the RESTMapper guesses it (Ingress → ingresses). */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith("s") || lower.endsWith("x") || lower.endsWith("ch")) return `${lower}es`;
  if (lower.endsWith("y") && !/[aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** `deployments.apps`, `pods`, ...; a kind not listed gets its guessed plural and the group. */
export function resourceOf(kind: string, apiVersion?: string): string {
  const known = RESOURCES[kind];
  if (known) return known;
  const group = apiVersion?.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return group ? `${pluralOf(kind)}.${group}` : pluralOf(kind);
}

export function isClusterScoped(kind: string): boolean {
  return CLUSTER_SCOPED.has(kind);
}

/** Group of an apiVersion ("apps/v1" → "apps", "v1" → ""). */
export function groupOf(apiVersion: string | undefined): string {
  if (!apiVersion?.includes("/")) return "";
  return apiVersion.slice(0, apiVersion.indexOf("/"));
}
