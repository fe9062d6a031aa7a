// The group-resources the adapter maps series labels to, as a RESTMapper normalizes them: a
// label `pod` or `pods` (or `Pod`) is the resource `pods`, `deployment` is `deployments.apps`.
// The built-in kinds a metric is usually attached to; others are found by their plural and group
// as written in the configuration.

export interface GroupResource {
  group: string;
  /** Plural, lower case: `pods`, `deployments`. */
  resource: string;
}

interface Known extends GroupResource {
  singular: string;
  kind: string;
  version: string;
  namespaced: boolean;
}

const KNOWN: readonly Known[] = [
  ["", "namespaces", "namespace", "Namespace", "v1", false],
  ["", "nodes", "node", "Node", "v1", false],
  ["", "persistentvolumes", "persistentvolume", "PersistentVolume", "v1", false],
  ["", "pods", "pod", "Pod", "v1", true],
  ["", "services", "service", "Service", "v1", true],
  ["", "endpoints", "endpoints", "Endpoints", "v1", true],
  ["", "replicationcontrollers", "replicationcontroller", "ReplicationController", "v1", true],
  ["", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", "v1", true],
  ["", "configmaps", "configmap", "ConfigMap", "v1", true],
  ["apps", "deployments", "deployment", "Deployment", "v1", true],
  ["apps", "replicasets", "replicaset", "ReplicaSet", "v1", true],
  ["apps", "statefulsets", "statefulset", "StatefulSet", "v1", true],
  ["apps", "daemonsets", "daemonset", "DaemonSet", "v1", true],
  ["batch", "jobs", "job", "Job", "v1", true],
  ["batch", "cronjobs", "cronjob", "CronJob", "v1", true],
  ["networking.k8s.io", "ingresses", "ingress", "Ingress", "v1", true],
  [
    "autoscaling",
    "horizontalpodautoscalers",
    "horizontalpodautoscaler",
    "HorizontalPodAutoscaler",
    "v2",
    true,
  ],
].map(([group, resource, singular, kind, version, namespaced]) => ({
  group: group as string,
  resource: resource as string,
  singular: singular as string,
  kind: kind as string,
  version: version as string,
  namespaced: namespaced as boolean,
}));

/** A resource word (plural, singular or kind, any case) in `group` ("" matches any group when
 * the word is unambiguous), normalized; undefined when no built-in resource has that name. */
export function normalizeResource(group: string, word: string): Known | undefined {
  const lower = word.toLowerCase();
  const matches = KNOWN.filter(
    (k) => k.resource === lower || k.singular === lower || k.kind.toLowerCase() === lower,
  );
  const exact = matches.find((k) => k.group === group);
  if (exact) return exact;
  // A resource template gives "" for the group of a label such as `deployment`.
  return group === "" && matches.length === 1 ? matches[0] : undefined;
}

/**
 * Resource names as the cluster serves them (its discovery documents), then the built-in table:
 * rules may name custom resources, and a label names a resource only if the cluster has it.
 */
export class ResourceMapper {
  constructor(private readonly served: readonly Known[] = []) {}

  normalize(group: string, word: string): Known | undefined {
    const lower = word.toLowerCase();
    const matches = this.served.filter(
      (k) => k.resource === lower || k.singular === lower || k.kind.toLowerCase() === lower,
    );
    const exact = matches.find((k) => k.group === group);
    if (exact) return exact;
    if (group === "" && matches.length > 0) {
      // The core group's resource wins a bare name, as kubectl's short names do.
      return matches.find((k) => k.group === "") ?? (matches.length === 1 ? matches[0] : undefined);
    }
    return normalizeResource(group, word);
  }

  parseSegment(segment: string): Known | undefined {
    const dot = segment.indexOf(".");
    return dot === -1
      ? this.normalize("", segment)
      : this.normalize(segment.slice(dot + 1), segment.slice(0, dot));
  }
}

type Discovery = {
  groups?: { preferredVersion?: { groupVersion?: string } }[];
  resources?: { name?: string; singularName?: string; kind?: string; namespaced?: boolean }[];
};

/** The resources the cluster serves (each group's preferred version), or null when discovery fails. */
export async function discoverResources(
  get: (path: string) => Promise<{ status: number; body: unknown }>,
): Promise<Known[] | null> {
  const read = async (path: string) => {
    const answer = await get(path).catch(() => null);
    return answer && answer.status === 200 ? (answer.body as Discovery) : null;
  };
  const groupVersions = ["v1"];
  const apis = await read("/apis");
  if (!apis) return null;
  for (const group of apis.groups ?? []) {
    const gv = group.preferredVersion?.groupVersion;
    if (gv) groupVersions.push(gv);
  }
  const lists = await Promise.all(
    groupVersions.map(async (gv) => ({
      gv,
      list: await read(gv === "v1" ? "/api/v1" : `/apis/${gv}`),
    })),
  );
  const out: Known[] = [];
  for (const { gv, list } of lists) {
    const slash = gv.indexOf("/");
    const group = slash === -1 ? "" : gv.slice(0, slash);
    const version = slash === -1 ? gv : gv.slice(slash + 1);
    for (const r of list?.resources ?? []) {
      if (!r.name || r.name.includes("/") || !r.kind) continue;
      out.push({
        group,
        resource: r.name,
        singular: r.singularName || r.kind.toLowerCase(),
        kind: r.kind,
        version,
        namespaced: r.namespaced === true,
      });
    }
  }
  return out;
}

/** `pods`, `deployments.apps`: schema.GroupResource.String(). */
export function groupResourceText(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** Parses a URL resource segment (`pods`, `deployments.apps`, `services`). */
export function parseResourceSegment(segment: string): Known | undefined {
  const dot = segment.indexOf(".");
  return dot === -1
    ? normalizeResource("", segment)
    : normalizeResource(segment.slice(dot + 1), segment.slice(0, dot));
}

/** Metrics of these resources are not namespaced (prometheus-adapter's rule). */
export function isRootScoped(gr: GroupResource): boolean {
  return (
    gr.group === "" &&
    (gr.resource === "namespaces" || gr.resource === "nodes" || gr.resource === "persistentvolumes")
  );
}

/** The API path listing a resource's objects (in `namespace` when namespaced). */
export function listPath(known: Known, namespace: string | null): string {
  const base = known.group ? `/apis/${known.group}/${known.version}` : `/api/${known.version}`;
  return known.namespaced && namespace !== null
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${known.resource}`
    : `${base}/${known.resource}`;
}

export type { Known as KnownResource };
