// core/v1 Service.

import { applyServiceDefaults } from "../api/service-defaults.js";
import type { KubeObject } from "../api/types.js";
import { conditions, root } from "./meta.js";
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
  pb,
  ptr,
  str,
  strs,
  struct,
  time,
} from "./schema.js";
import { type KindDefinition, READ_WRITE } from "./types.js";

/** metav1.Condition with its protobuf numbers: its type is a plain string. */
const METAV1_CONDITION = struct(
  {
    type: str(1, keep),
    status: str(2, { keep: true, go: "v1.ConditionStatus" }),
    observedGeneration: i64(3),
    lastTransitionTime: time(4),
    reason: str(5),
    message: str(6),
  },
  { go: "v1.Condition" },
);

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
      // Protobuf: kubectl 1.32+ sends `create service` bodies as protobuf (core/v1 generated.proto).
      protobuf: true,
      schema: root(
        "v1.Service",
        pb(
          2,
          struct(
            {
              ports: pb(
                1,
                patchMerge(
                  mapList(
                    ["port", "protocol"],
                    struct(
                      {
                        name: str(1),
                        protocol: str(2, { go: "v1.Protocol" }),
                        appProtocol: str(6, ptr),
                        port: i32(3, keep),
                        targetPort: intstr(4),
                        nodePort: i32(5),
                      },
                      { go: "v1.ServicePort" },
                    ),
                    { protocol: "TCP" },
                  ),
                  "port",
                ),
              ),
              selector: pb(2, atomicMap),
              clusterIP: str(3),
              clusterIPs: strs(18),
              type: str(4, { go: "v1.ServiceType" }),
              externalIPs: strs(5),
              sessionAffinity: str(7, { go: "v1.ServiceAffinity" }),
              loadBalancerIP: str(8),
              loadBalancerSourceRanges: strs(9),
              externalName: str(10),
              externalTrafficPolicy: str(11, { go: "v1.ServiceExternalTrafficPolicy" }),
              healthCheckNodePort: i32(12),
              publishNotReadyAddresses: bool(13),
              sessionAffinityConfig: deduced(
                struct(
                  {
                    clientIP: struct(
                      { timeoutSeconds: i32(1, ptr) },
                      { go: "v1.ClientIPConfig", ptr: true, proto: 1 },
                    ),
                  },
                  { go: "v1.SessionAffinityConfig", ptr: true },
                ),
                14,
              ),
              ipFamilies: strs(19),
              ipFamilyPolicy: str(17, { ptr: true, go: "v1.IPFamilyPolicy" }),
              allocateLoadBalancerNodePorts: bool(20, ptr),
              loadBalancerClass: str(21, ptr),
              internalTrafficPolicy: str(22, {
                ptr: true,
                go: "v1.ServiceInternalTrafficPolicy",
              }),
              trafficDistribution: str(23, ptr),
            },
            { go: "v1.ServiceSpec", zero: true },
          ),
        ),
        pb(
          3,
          struct(
            {
              loadBalancer: struct(
                {
                  ingress: atomicOf(
                    struct(
                      {
                        ip: str(1),
                        hostname: str(2),
                        ipMode: str(3, { ptr: true, go: "v1.LoadBalancerIPMode" }),
                        ports: atomicOf(
                          struct(
                            {
                              port: i32(1, keep),
                              protocol: str(2, { keep: true, go: "v1.Protocol" }),
                              error: str(3, ptr),
                            },
                            { go: "v1.PortStatus" },
                          ),
                          4,
                        ),
                      },
                      { go: "v1.LoadBalancerIngress" },
                    ),
                    1,
                  ),
                },
                { go: "v1.LoadBalancerStatus", zero: true, proto: 1 },
              ),
              conditions: pb(2, conditions(METAV1_CONDITION)),
            },
            { go: "v1.ServiceStatus", zero: true },
          ),
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
