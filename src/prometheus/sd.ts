// Prometheus HTTP service discovery (http_sd_configs) over the cluster's Endpoints and
// EndpointSlices, with the `__meta_kubernetes_*` labels Kubernetes SD gives for its `endpoints`
// and `endpointslice` roles, so relabelling written for kubernetes_sd_configs works unchanged
// with a Prometheus built without it (Debian's). One target group per address and port.
import type { KubeObject } from "../api/types.js";

export type SdRole = "endpoints" | "endpointslice";
export const SD_ROLES: readonly SdRole[] = ["endpoints", "endpointslice"];

export interface TargetGroup {
  targets: string[];
  labels: Record<string, string>;
}

/** What discovery reads from the cluster. */
export interface SdSource {
  list(
    kind: "Endpoints" | "EndpointSlice" | "Service" | "Pod",
    namespace?: string,
  ): readonly KubeObject[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined ? "" : String(v));

/** Prometheus' label-name sanitizing (strutil.SanitizeLabelName). */
export function sanitizeLabelName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_]/g, "_");
}

function objectLabels(prefix: string, object: KubeObject | undefined, out: Record<string, string>) {
  for (const [key, value] of Object.entries(object?.metadata.labels ?? {})) {
    out[`${prefix}_label_${sanitizeLabelName(key)}`] = value;
    out[`${prefix}_labelpresent_${sanitizeLabelName(key)}`] = "true";
  }
  for (const [key, value] of Object.entries(object?.metadata.annotations ?? {})) {
    out[`${prefix}_annotation_${sanitizeLabelName(key)}`] = value;
    out[`${prefix}_annotationpresent_${sanitizeLabelName(key)}`] = "true";
  }
}

const META = "__meta_kubernetes";

function serviceLabels(service: KubeObject | undefined, name: string, out: Record<string, string>) {
  if (!service) return;
  out[`${META}_service_name`] = name;
  objectLabels(`${META}_service`, service, out);
}

/** The pod's labels, and its container port matching `port` (number and protocol). */
function podLabels(
  pod: KubeObject | undefined,
  port: number,
  protocol: string,
  out: Record<string, string>,
) {
  if (!pod) return;
  const spec = isObj(pod.spec) ? pod.spec : {};
  const status = isObj(pod.status) ? pod.status : {};
  out[`${META}_pod_name`] = pod.metadata.name;
  out[`${META}_pod_ip`] = str(status.podIP);
  out[`${META}_pod_uid`] = str(pod.metadata.uid);
  out[`${META}_pod_node_name`] = str(spec.nodeName);
  out[`${META}_pod_host_ip`] = str(status.hostIP);
  out[`${META}_pod_phase`] = str(status.phase);
  const ready = list(status.conditions).find((c) => c.type === "Ready");
  out[`${META}_pod_ready`] = ready?.status === "True" ? "true" : ready ? "false" : "unknown";
  const owner = (pod.metadata.ownerReferences ?? []).find((o) => o.controller);
  if (owner) {
    out[`${META}_pod_controller_kind`] = owner.kind;
    out[`${META}_pod_controller_name`] = owner.name;
  }
  objectLabels(`${META}_pod`, pod, out);
  for (const container of list(spec.containers)) {
    for (const containerPort of list(container.ports)) {
      if (
        containerPort.containerPort === port &&
        str(containerPort.protocol || "TCP") === protocol
      ) {
        out[`${META}_pod_container_name`] = str(container.name);
        out[`${META}_pod_container_image`] = str(container.image);
        out[`${META}_pod_container_port_name`] = str(containerPort.name);
        out[`${META}_pod_container_port_number`] = String(port);
        out[`${META}_pod_container_port_protocol`] = protocol;
        out[`${META}_pod_container_init`] = "false";
        return;
      }
    }
  }
}

function hostPort(ip: string, port: number): string {
  return ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** The target groups of one role, in every namespace or one. */
export function discoverTargets(source: SdSource, role: SdRole, namespace?: string): TargetGroup[] {
  const groups: TargetGroup[] = [];
  const byName = (kind: "Service" | "Pod", ns: string) =>
    new Map(source.list(kind, ns).map((o) => [o.metadata.name, o]));
  const cache = new Map<
    string,
    { services: Map<string, KubeObject>; pods: Map<string, KubeObject> }
  >();
  const scope = (ns: string) => {
    let entry = cache.get(ns);
    if (!entry) {
      entry = { services: byName("Service", ns), pods: byName("Pod", ns) };
      cache.set(ns, entry);
    }
    return entry;
  };

  if (role === "endpoints") {
    for (const endpoints of source.list("Endpoints", namespace)) {
      const ns = endpoints.metadata.namespace ?? "default";
      const { services, pods } = scope(ns);
      const base: Record<string, string> = {
        [`${META}_namespace`]: ns,
        [`${META}_endpoints_name`]: endpoints.metadata.name,
      };
      objectLabels(`${META}_endpoints`, endpoints, base);
      serviceLabels(services.get(endpoints.metadata.name), endpoints.metadata.name, base);
      for (const subset of list((endpoints as Obj).subsets)) {
        const addresses = [
          ...list(subset.addresses).map((a) => ({ a, ready: "true" })),
          ...list(subset.notReadyAddresses).map((a) => ({ a, ready: "false" })),
        ];
        for (const port of list(subset.ports)) {
          const number = Number(port.port);
          const protocol = str(port.protocol || "TCP");
          for (const { a, ready } of addresses) {
            const labels: Record<string, string> = {
              ...base,
              [`${META}_endpoint_port_name`]: str(port.name),
              [`${META}_endpoint_port_protocol`]: protocol,
              [`${META}_endpoint_ready`]: ready,
            };
            if (port.appProtocol)
              labels[`${META}_endpoint_port_app_protocol`] = str(port.appProtocol);
            if (a.hostname) labels[`${META}_endpoint_hostname`] = str(a.hostname);
            if (a.nodeName) labels[`${META}_endpoint_node_name`] = str(a.nodeName);
            const target = isObj(a.targetRef) ? a.targetRef : null;
            if (target) {
              labels[`${META}_endpoint_address_target_kind`] = str(target.kind);
              labels[`${META}_endpoint_address_target_name`] = str(target.name);
              if (target.kind === "Pod")
                podLabels(pods.get(str(target.name)), number, protocol, labels);
            }
            groups.push({ targets: [hostPort(str(a.ip), number)], labels });
          }
        }
      }
    }
    return groups;
  }

  for (const slice of source.list("EndpointSlice", namespace)) {
    const ns = slice.metadata.namespace ?? "default";
    const { services, pods } = scope(ns);
    const serviceName = slice.metadata.labels?.["kubernetes.io/service-name"] ?? "";
    const base: Record<string, string> = {
      [`${META}_namespace`]: ns,
      [`${META}_endpointslice_name`]: slice.metadata.name,
      [`${META}_endpointslice_address_type`]: str((slice as Obj).addressType),
    };
    objectLabels(`${META}_endpointslice`, slice, base);
    if (serviceName) serviceLabels(services.get(serviceName), serviceName, base);
    for (const port of list((slice as Obj).ports)) {
      const number = Number(port.port);
      const protocol = str(port.protocol || "TCP");
      for (const endpoint of list((slice as Obj).endpoints)) {
        const conditions = isObj(endpoint.conditions) ? endpoint.conditions : {};
        const labels: Record<string, string> = {
          ...base,
          [`${META}_endpointslice_port_name`]: str(port.name),
          [`${META}_endpointslice_port_protocol`]: protocol,
          [`${META}_endpointslice_port`]: String(number),
        };
        if (port.appProtocol)
          labels[`${META}_endpointslice_port_app_protocol`] = str(port.appProtocol);
        for (const condition of ["ready", "serving", "terminating"] as const) {
          if (typeof conditions[condition] === "boolean") {
            labels[`${META}_endpointslice_endpoint_conditions_${condition}`] = String(
              conditions[condition],
            );
          }
        }
        if (endpoint.hostname)
          labels[`${META}_endpointslice_endpoint_hostname`] = str(endpoint.hostname);
        if (endpoint.nodeName)
          labels[`${META}_endpointslice_endpoint_node_name`] = str(endpoint.nodeName);
        const target = isObj(endpoint.targetRef) ? endpoint.targetRef : null;
        if (target) {
          labels[`${META}_endpointslice_address_target_kind`] = str(target.kind);
          labels[`${META}_endpointslice_address_target_name`] = str(target.name);
          if (target.kind === "Pod")
            podLabels(pods.get(str(target.name)), number, protocol, labels);
        }
        const addresses = Array.isArray(endpoint.addresses)
          ? (endpoint.addresses as unknown[])
          : [];
        for (const address of addresses) {
          groups.push({ targets: [hostPort(str(address), number)], labels });
        }
      }
    }
  }
  return groups;
}
