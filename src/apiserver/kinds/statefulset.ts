// apps/v1 StatefulSet.

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
  IMAGES,
  int,
  NAME,
  since,
} from "./printing.js";
import {
  atomicList,
  DEDUCED,
  type KindDefinition,
  READ_WRITE,
  S,
  scalars,
  struct,
} from "./types.js";
import { WORKLOAD_STRATEGY } from "./workload.js";

export const statefulSet: KindDefinition<"StatefulSet"> = {
  kind: "StatefulSet",
  resource: "statefulsets",
  singular: "statefulset",
  group: "apps",
  versions: [
    {
      version: "v1",
      knownFields: TOP_LEVEL_FIELDS,
      apply: root(
        struct(
          {
            replicas: S,
            selector: LABEL_SELECTOR,
            template: WORKLOAD_TEMPLATE,
            volumeClaimTemplates: atomicList,
            serviceName: S,
            podManagementPolicy: S,
            updateStrategy: struct(
              { type: S, rollingUpdate: scalars("partition", "maxUnavailable") },
              { zero: true },
            ),
            revisionHistoryLimit: S,
            minReadySeconds: S,
            persistentVolumeClaimRetentionPolicy: DEDUCED,
            ordinals: DEDUCED,
          },
          { zero: true },
        ),
        workloadStatus([
          "observedGeneration",
          "replicas",
          "readyReplicas",
          "currentReplicas",
          "updatedReplicas",
          "currentRevision",
          "updateRevision",
          "collisionCount",
          "availableReplicas",
        ]),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["scale", "status"],
  shortNames: ["sts"],
  categories: ["all"],
  gcPolicy: "DeleteDependents",
  times: WITH_CONDITIONS_TIMES,
  fieldSelectors: [],
  strategy: WORKLOAD_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Ready", "string", "Number of the pod with ready state"),
      AGE,
      CONTAINERS,
      IMAGES,
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const [names, images] = containerCells(spec.template);
      return [
        obj.metadata.name,
        `${int(status.readyReplicas)}/${int(spec.replicas)}`,
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
      ];
    },
  },
};
