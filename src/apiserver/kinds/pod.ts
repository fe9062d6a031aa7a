// core/v1 Pod.
import { CONDITIONS, OBJECT_META_TIMES, root } from "./meta.js";
import { CONTAINER_STATUSES_TIMES, POD_SPEC } from "./podspec.js";
import {
  atomicList,
  DEDUCED,
  type KindDefinition,
  mapList,
  READ_WRITE,
  S,
  struct,
} from "./types.js";

export const pod: KindDefinition<"Pod"> = {
  kind: "Pod",
  resource: "pods",
  singular: "pod",
  group: "",
  versions: [
    {
      version: "v1",
      apply: root(
        POD_SPEC,
        struct(
          {
            phase: S,
            conditions: CONDITIONS,
            message: S,
            reason: S,
            hostIP: S,
            hostIPs: mapList(["ip"], DEDUCED),
            podIP: S,
            podIPs: mapList(["ip"], DEDUCED),
            startTime: S,
            initContainerStatuses: atomicList,
            containerStatuses: atomicList,
            ephemeralContainerStatuses: atomicList,
            qosClass: S,
            observedGeneration: S,
          },
          { zero: true },
        ),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  shortNames: ["po"],
  categories: ["all"],
  returnsDeletedObject: true,
  gcPolicy: "None",
  times: {
    metadata: OBJECT_META_TIMES,
    status: {
      conditions: [{ lastProbeTime: "Time", lastTransitionTime: "Time" }],
      startTime: "*Time",
      containerStatuses: CONTAINER_STATUSES_TIMES,
      initContainerStatuses: CONTAINER_STATUSES_TIMES,
      ephemeralContainerStatuses: CONTAINER_STATUSES_TIMES,
    },
  },
};
