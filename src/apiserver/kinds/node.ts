// core/v1 Node: a read-only view of the simulated capacity.
import { OBJECT_META_TIMES, root } from "./meta.js";
import { DEDUCED, type KindDefinition } from "./types.js";

export const node: KindDefinition<"Node"> = {
  kind: "Node",
  resource: "nodes",
  singular: "node",
  group: "",
  // Never written through the API: the generic (deduced) apply schema.
  versions: [{ version: "v1", apply: root(DEDUCED, DEDUCED) }],
  namespaced: false,
  verbs: ["get", "list", "watch"],
  subresources: ["status"],
  shortNames: ["no"],
  readOnly: true,
  gcPolicy: "None",
  times: {
    metadata: OBJECT_META_TIMES,
    status: { conditions: [{ lastHeartbeatTime: "Time", lastTransitionTime: "Time" }] },
  },
};
