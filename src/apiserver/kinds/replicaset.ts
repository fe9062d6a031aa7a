// apps/v1 ReplicaSet.
import { LABEL_SELECTOR, root, WITH_CONDITIONS_TIMES, workloadStatus } from "./meta.js";
import { WORKLOAD_TEMPLATE } from "./podspec.js";
import { type KindDefinition, READ_WRITE, S, struct } from "./types.js";

export const replicaSet: KindDefinition<"ReplicaSet"> = {
  kind: "ReplicaSet",
  resource: "replicasets",
  singular: "replicaset",
  group: "apps",
  versions: [
    {
      version: "v1",
      apply: root(
        struct(
          {
            replicas: S,
            minReadySeconds: S,
            selector: LABEL_SELECTOR,
            template: WORKLOAD_TEMPLATE,
          },
          { zero: true },
        ),
        workloadStatus([
          "replicas",
          "fullyLabeledReplicas",
          "readyReplicas",
          "availableReplicas",
          "terminatingReplicas",
          "observedGeneration",
        ]),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["scale", "status"],
  shortNames: ["rs"],
  categories: ["all"],
  gcPolicy: "DeleteDependents",
  times: WITH_CONDITIONS_TIMES,
};
