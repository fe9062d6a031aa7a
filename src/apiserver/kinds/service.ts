// core/v1 Service.
import { CONDITIONS, root, WITH_CONDITIONS_TIMES } from "./meta.js";
import {
  atomicList,
  atomicMap,
  DEDUCED,
  type KindDefinition,
  mapList,
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
      apply: root(
        struct(
          {
            ports: mapList(
              ["port", "protocol"],
              scalars("name", "protocol", "appProtocol", "port", "targetPort", "nodePort"),
              { protocol: "TCP" },
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
};
