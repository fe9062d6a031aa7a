// core/v1 ReplicationController.

import { root, workloadStatus } from "./meta.js";
import { POD_TEMPLATE } from "./podspec.js";
import {
  AGE,
  asRecord,
  CONTAINERS,
  col,
  containerCells,
  formatLabels,
  IMAGES,
  int,
  NAME,
  since,
} from "./printing.js";
import { atomicMap, i32, i64, keep, ptr, struct } from "./schema.js";
import { type KindDefinition, READ_WRITE } from "./types.js";
import { WORKLOAD_STRATEGY } from "./workload.js";

export const replicationController: KindDefinition<"ReplicationController"> = {
  kind: "ReplicationController",
  resource: "replicationcontrollers",
  singular: "replicationcontroller",
  description:
    "A ReplicationController is the older form of a ReplicaSet: it keeps a number of pods matching its selector running.",
  group: "",
  versions: [
    {
      version: "v1",
      schema: root(
        "v1.ReplicationController",
        struct(
          {
            replicas: i32(undefined, ptr),
            minReadySeconds: i32(),
            selector: atomicMap,
            template: POD_TEMPLATE,
          },
          { go: "v1.ReplicationControllerSpec", zero: true },
        ),
        workloadStatus("v1.ReplicationControllerStatus", {
          replicas: i32(undefined, keep),
          fullyLabeledReplicas: i32(),
          readyReplicas: i32(),
          availableReplicas: i32(),
          observedGeneration: i64(),
        }),
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
  generation: "spec",
  fieldSelectors: ["status.replicas"],
  strategy: WORKLOAD_STRATEGY,
  printer: {
    columns: [
      NAME,
      col(
        "Desired",
        "integer",
        "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
      ),
      col(
        "Current",
        "integer",
        "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
      ),
      col("Ready", "integer", "The number of ready replicas for this replication controller."),
      AGE,
      CONTAINERS,
      IMAGES,
      col(
        "Selector",
        "string",
        "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
        { priority: 1 },
      ),
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const [names, images] = containerCells(spec.template);
      return [
        obj.metadata.name,
        int(spec.replicas),
        int(status.replicas),
        int(status.readyReplicas),
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
        formatLabels(spec.selector as Record<string, string> | undefined),
      ];
    },
  },
};
