// core/v1 Service.

import type { KubeObject } from "../../api/types.js";
import { CONDITIONS, root, TOP_LEVEL_FIELDS, WITH_CONDITIONS_TIMES } from "./meta.js";
import { AGE, asRecord, col, formatLabels, int, NAME, since, str } from "./printing.js";
import {
  atomicList,
  atomicMap,
  DEDUCED,
  type KindDefinition,
  mapList,
  PLAIN_STRATEGY,
  patchMerge,
  READ_WRITE,
  S,
  scalars,
  struct,
} from "./types.js";

export const service: KindDefinition<"Service"> = {
  kind: "Service",
  resource: "services",
  singular: "service",
  group: "",
  versions: [
    {
      version: "v1",
      knownFields: TOP_LEVEL_FIELDS,
      apply: root(
        struct(
          {
            ports: patchMerge(
              mapList(
                ["port", "protocol"],
                scalars("name", "protocol", "appProtocol", "port", "targetPort", "nodePort"),
                { protocol: "TCP" },
              ),
              "port",
            ),
            selector: atomicMap,
            clusterIP: S,
            clusterIPs: atomicList,
            type: S,
            externalIPs: atomicList,
            sessionAffinity: S,
            loadBalancerIP: S,
            loadBalancerSourceRanges: atomicList,
            externalName: S,
            externalTrafficPolicy: S,
            healthCheckNodePort: S,
            publishNotReadyAddresses: S,
            sessionAffinityConfig: DEDUCED,
            ipFamilies: atomicList,
            ipFamilyPolicy: S,
            allocateLoadBalancerNodePorts: S,
            loadBalancerClass: S,
            internalTrafficPolicy: S,
            trafficDistribution: S,
          },
          { zero: true },
        ),
        struct(
          {
            loadBalancer: struct({ ingress: atomicList }, { zero: true }),
            conditions: CONDITIONS,
          },
          { zero: true },
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
  times: WITH_CONDITIONS_TIMES,
  fieldSelectors: [],
  strategy: PLAIN_STRATEGY,
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
  const type = str(spec.type) || "ClusterIP";
  const clusterIPs = (spec.clusterIPs ?? []) as string[];
  const internalIP = clusterIPs[0] ?? (str(spec.clusterIP) || "<none>");
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
      const lb = [...new Set(ingress.map((i) => str(i.ip) || str(i.hostname)).filter((s) => s))];
      const all = [...lb, ...externalIPs];
      externalIP = all.length > 0 ? all.join(",") : "<pending>";
      break;
    }
    case "ExternalName":
      externalIP = str(spec.externalName);
      break;
    default:
      externalIP = "<unknown>";
  }
  const ports = ((spec.ports ?? []) as Record<string, unknown>[]).map((p) => {
    const protocol = str(p.protocol) || "TCP";
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
