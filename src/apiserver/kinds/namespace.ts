// core/v1 Namespace.
import { CONDITION_TIMES, CONDITIONS, OBJECT_META_TIMES, root } from "./meta.js";
import { atomicList, type KindDefinition, S, struct } from "./types.js";

export const namespace: KindDefinition<"Namespace"> = {
  kind: "Namespace",
  resource: "namespaces",
  singular: "namespace",
  group: "",
  versions: [
    {
      version: "v1",
      apply: root(
        struct({ finalizers: atomicList }, { zero: true }),
        struct({ phase: S, conditions: CONDITIONS }, { zero: true }),
      ),
    },
  ],
  namespaced: false,
  // No deletecollection upstream: each namespace is deleted through its own REST.
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  subresources: ["status"],
  shortNames: ["ns"],
  returnsDeletedObject: true,
  gcPolicy: "None",
  times: { metadata: OBJECT_META_TIMES, status: { conditions: CONDITION_TIMES } },
};
