// core/v1 ReplicationController.
import { root, WITH_CONDITIONS_TIMES, workloadStatus } from "./meta.js";
import { POD_TEMPLATE } from "./podspec.js";
import { atomicMap, type KindDefinition, READ_WRITE, S, struct } from "./types.js";

export const replicationController: KindDefinition<"ReplicationController"> = {
  kind: "ReplicationController",
  resource: "replicationcontrollers",
  singular: "replicationcontroller",
  group: "",
  versions: [
    {
      version: "v1",
      apply: root(
        struct(
          { replicas: S, minReadySeconds: S, selector: atomicMap, template: POD_TEMPLATE },
          { zero: true },
        ),
        workloadStatus([
          "replicas",
          "fullyLabeledReplicas",
          "readyReplicas",
          "availableReplicas",
          "observedGeneration",
        ]),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["scale", "status"],
  shortNames: ["rc"],
  categories: ["all"],
  // v1 ReplicationControllers orphan, as before server-side garbage collection existed.
  gcPolicy: "OrphanDependents",
  times: WITH_CONDITIONS_TIMES,
};
