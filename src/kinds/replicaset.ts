// apps/v1 ReplicaSet.

import { formatLabelSelector } from "../api/scale.js";
import type { LabelSelector } from "../api/types.js";
import { LABEL_SELECTOR, root, workloadStatus } from "./meta.js";
import { WORKLOAD_TEMPLATE } from "./podspec.js";
import {
  AGE,
  asRecord,
  CONTAINERS,
  col,
  containerCells,
  IMAGES,
  int,
  NAME,
  since,
} from "./printing.js";
import { i32, i64, keep, ptr, struct } from "./schema.js";
import { type KindDefinition, READ_WRITE } from "./types.js";
import { WORKLOAD_STRATEGY } from "./workload.js";

export const replicaSet: KindDefinition<"ReplicaSet"> = {
  kind: "ReplicaSet",
  resource: "replicasets",
  singular: "replicaset",
  description:
    "A ReplicaSet keeps a given number of pods that match its selector running, creating or deleting them from its template. Deployments manage ReplicaSets.",
  group: "apps",
  versions: [
    {
      version: "v1",
      schema: root(
        "v1.ReplicaSet",
        struct(
          {
            replicas: i32(undefined, ptr),
            minReadySeconds: i32(),
            selector: LABEL_SELECTOR,
            template: WORKLOAD_TEMPLATE,
          },
          { go: "v1.ReplicaSetSpec", zero: true },
        ),
        workloadStatus("v1.ReplicaSetStatus", {
          replicas: i32(undefined, keep),
          fullyLabeledReplicas: i32(),
          readyReplicas: i32(),
          availableReplicas: i32(),
          terminatingReplicas: i32(undefined, ptr),
          observedGeneration: i64(),
        }),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["scale", "status"],
  shortNames: ["rs"],
  categories: ["all"],
  gcPolicy: "DeleteDependents",
  generation: "spec",
  fieldSelectors: ["status.replicas"],
  strategy: WORKLOAD_STRATEGY,
  printer: {
    columns: [
      NAME,
      col(
        "Desired",
        "integer",
        "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
      ),
      col(
        "Current",
        "integer",
        "Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
      ),
      col(
        "Ready",
        "integer",
        "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.",
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      col(
        "Selector",
        "string",
        "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
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
        formatLabelSelector(spec.selector as LabelSelector | undefined),
      ];
    },
  },
};
