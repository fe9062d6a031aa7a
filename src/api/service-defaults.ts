// core/v1 defaulting of a Service (pkg/apis/core/v1/defaults.go SetDefaults_Service). The
// ClusterIP, ipFamilies and ipFamilyPolicy are not defaults but the registry's allocation
// (src/cluster/network.ts prepareService). Returns a new object; never mutates its input.

import { isRecord } from "./json.js";
import type { KubeObject } from "./types.js";

type Obj = Record<string, unknown>;

/** DefaultClientIPServiceAffinitySeconds: three hours. */
export const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;

function defaultPort(port: Obj): Obj {
  const out = { ...port };
  if (out.protocol === undefined || out.protocol === null || out.protocol === "")
    out.protocol = "TCP";
  const target = out.targetPort;
  if (target === undefined || target === null || target === 0 || target === "")
    out.targetPort = out.port;
  return out;
}

export function defaultServiceSpec(value: unknown): Obj {
  const spec: Obj = { ...(isRecord(value) ? value : {}) };
  if (!spec.sessionAffinity) spec.sessionAffinity = "None";
  if (spec.sessionAffinity === "None") delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === "ClientIP") {
    const config = isRecord(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : undefined;
    const clientIP = isRecord(config?.clientIP) ? config.clientIP : undefined;
    if (clientIP?.timeoutSeconds === undefined || clientIP.timeoutSeconds === null) {
      spec.sessionAffinityConfig = {
        clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS },
      };
    }
  }
  if (!spec.type) spec.type = "ClusterIP";
  if (Array.isArray(spec.ports))
    spec.ports = spec.ports.map((p) => (isRecord(p) ? defaultPort(p) : p));
  // ExternallyAccessible: reachable from outside through nodes, a load balancer or externalIPs.
  const externalIPs = Array.isArray(spec.externalIPs) ? spec.externalIPs : [];
  const external =
    spec.type === "LoadBalancer" ||
    spec.type === "NodePort" ||
    (spec.type === "ClusterIP" && externalIPs.length > 0);
  if (external && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = "Cluster";
  if (
    (spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null) &&
    (spec.type === "ClusterIP" || spec.type === "NodePort" || spec.type === "LoadBalancer")
  )
    spec.internalTrafficPolicy = "Cluster";
  if (
    spec.type === "LoadBalancer" &&
    (spec.allocateLoadBalancerNodePorts === undefined ||
      spec.allocateLoadBalancerNodePorts === null)
  )
    spec.allocateLoadBalancerNodePorts = true;
  return spec;
}

export function applyServiceDefaults(object: KubeObject): KubeObject {
  return { ...object, spec: defaultServiceSpec(object.spec) };
}
