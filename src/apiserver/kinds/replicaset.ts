// apps/v1 ReplicaSet.

import type { LabelSelector } from "../../api/types.js";
import {
  LABEL_SELECTOR,
  root,
  TOP_LEVEL_FIELDS,
  WITH_CONDITIONS_TIMES,
  workloadStatus,
} from "./meta.js";
import { WORKLOAD_TEMPLATE } from "./podspec.js";
import {
  AGE,
  asRecord,
  CONTAINERS,
  col,
  containerCells,
  formatLabelSelector,
  IMAGES,
  int,
  NAME,
  since,
} from "./printing.js";
import { type KindDefinition, READ_WRITE, S, struct } from "./types.js";
import { WORKLOAD_STRATEGY } from "./workload.js";

export const replicaSet: KindDefinition<"ReplicaSet"> = {
  kind: "ReplicaSet",
  resource: "replicasets",
  singular: "replicaset",
  group: "apps",
  versions: [
    {
      version: "v1",
      knownFields: TOP_LEVEL_FIELDS,
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
