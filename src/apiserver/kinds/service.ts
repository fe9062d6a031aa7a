// core/v1 Service.

import { applyServiceDefaults } from "../../api/service-defaults.js";
import type { KubeObject } from "../../api/types.js";
import { condition, conditions, root } from "./meta.js";
import { AGE, asRecord, col, formatLabels, int, NAME, since, text } from "./printing.js";
import {
  atomicMap,
  atomicOf,
  bool,
  deduced,
  i32,
  i64,
  intstr,
  keep,
  mapList,
  patchMerge,
  ptr,
  str,
  strs,
  struct,
} from "./schema.js";
import { type KindDefinition, READ_WRITE } from "./types.js";

export const service: KindDefinition<"Service"> = {
  kind: "Service",
  resource: "services",
  singular: "service",
  description:
    "A Service gives a set of pods, chosen by a label selector, one stable virtual address and ports, and spreads traffic over the ready ones.",
  group: "",
  versions: [
    {
      version: "v1",
      schema: root(
        "v1.Service",
        struct(
          {
            ports: patchMerge(
              mapList(
                ["port", "protocol"],
                struct(
                  {
                    name: str(),
                    protocol: str(undefined, { go: "v1.Protocol" }),
                    appProtocol: str(undefined, ptr),
                    port: i32(undefined, keep),
                    targetPort: intstr(),
                    nodePort: i32(),
                  },
                  { go: "v1.ServicePort" },
                ),
                { protocol: "TCP" },
              ),
              "port",
            ),
            selector: atomicMap,
            clusterIP: str(),
            clusterIPs: strs(),
            type: str(undefined, { go: "v1.ServiceType" }),
            externalIPs: strs(),
            sessionAffinity: str(undefined, { go: "v1.ServiceAffinity" }),
            loadBalancerIP: str(),
            loadBalancerSourceRanges: strs(),
            externalName: str(),
            externalTrafficPolicy: str(undefined, { go: "v1.ServiceExternalTrafficPolicy" }),
            healthCheckNodePort: i32(),
            publishNotReadyAddresses: bool(),
            sessionAffinityConfig: deduced(
              struct(
                {
                  clientIP: struct(
                    { timeoutSeconds: i32(undefined, ptr) },
                    { go: "v1.ClientIPConfig", ptr: true },
                  ),
                },
                { go: "v1.SessionAffinityConfig", ptr: true },
              ),
            ),
            ipFamilies: strs(),
            ipFamilyPolicy: str(undefined, { ptr: true, go: "v1.IPFamilyPolicy" }),
            allocateLoadBalancerNodePorts: bool(undefined, ptr),
            loadBalancerClass: str(undefined, ptr),
            internalTrafficPolicy: str(undefined, {
              ptr: true,
              go: "v1.ServiceInternalTrafficPolicy",
            }),
            trafficDistribution: str(undefined, ptr),
          },
          { go: "v1.ServiceSpec", zero: true },
        ),
        struct(
          {
            loadBalancer: struct(
              {
                ingress: atomicOf(
                  struct(
                    {
                      ip: str(),
                      hostname: str(),
                      ipMode: str(undefined, { ptr: true, go: "v1.LoadBalancerIPMode" }),
                      ports: atomicOf(
                        struct(
                          {
                            port: i32(undefined, keep),
                            protocol: str(undefined, { keep: true, go: "v1.Protocol" }),
                            error: str(undefined, ptr),
                          },
                          { go: "v1.PortStatus" },
                        ),
                      ),
                    },
                    { go: "v1.LoadBalancerIngress" },
                  ),
                ),
              },
              { go: "v1.LoadBalancerStatus", zero: true },
            ),
            // metav1.Condition: its type is a plain string.
            conditions: conditions(
              condition("v1.Condition", { observedGeneration: i64() }, "string"),
            ),
          },
          { go: "v1.ServiceStatus", zero: true },
        ),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  shortNames: ["svc"],
  categories: ["all"],
  returnsDeletedObject: true,
  gcPolicy: "None",
  fieldSelectors: [],
  // SetDefaults_Service on every write; the ClusterIP is allocated by the registry afterwards.
  strategy: {
    prepareForCreate: (object) => ({ ok: true, value: applyServiceDefaults(object) }),
    prepareForUpdate: (next) => ({ ok: true, value: applyServiceDefaults(next) }),
  },
  printer: {
    columns: [
      NAME,
      col(
        "Type",
        "string",
        "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.",
      ),
      col(
        "Cluster-IP",
        "string",
        "clusterIP is the IP address of the service and is usually assigned randomly.",
      ),
      col(
        "External-IP",
        "string",
        "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
      ),
      col(
        "Port(s)",
        "string",
        "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
      ),
      AGE,
      col(
        "Selector",
        "string",
        "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. More info: https://kubernetes.io/docs/concepts/services-networking/service/",
        { priority: 1 },
      ),
    ],
    cells: serviceCells,
  },
};

function serviceCells(svc: KubeObject, now: number): unknown[] {
  const spec = asRecord(svc.spec);
  // Upstream's defaulting always sets type and clusterIPs; a bare stored Service reads as ClusterIP.
  const type = text(spec.type) || "ClusterIP";
  const clusterIPs = (spec.clusterIPs ?? []) as string[];
  const internalIP = clusterIPs[0] ?? (text(spec.clusterIP) || "<none>");
  const externalIPs = (spec.externalIPs ?? []) as string[];
  let externalIP: string;
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      externalIP = externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
      break;
    case "LoadBalancer": {
      const ingress = (asRecord(asRecord(svc.status).loadBalancer).ingress ?? []) as Record<
        string,
        unknown
      >[];
      const lb = [...new Set(ingress.map((i) => text(i.ip) || text(i.hostname)).filter((s) => s))];
      const all = [...lb, ...externalIPs];
      externalIP = all.length > 0 ? all.join(",") : "<pending>";
      break;
    }
    case "ExternalName":
      externalIP = text(spec.externalName);
      break;
    default:
      externalIP = "<unknown>";
  }
  const ports = ((spec.ports ?? []) as Record<string, unknown>[]).map((p) => {
    const protocol = text(p.protocol) || "TCP";
    return int(p.nodePort) > 0
      ? `${int(p.port)}:${int(p.nodePort)}/${protocol}`
      : `${int(p.port)}/${protocol}`;
  });
  return [
    svc.metadata.name,
    type,
    internalIP,
    externalIP,
    ports.length > 0 ? ports.join(",") : "<none>",
    since(svc.metadata.creationTimestamp, now),
    formatLabels(spec.selector as Record<string, string> | undefined),
  ];
}
