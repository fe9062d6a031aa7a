// apps/v1 StatefulSet.

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
import { atomicList, deduced, i32, i64, intstr, keep, ptr, str, struct } from "./schema.js";
import { type KindDefinition, READ_WRITE } from "./types.js";
import { WORKLOAD_STRATEGY } from "./workload.js";

export const statefulSet: KindDefinition<"StatefulSet"> = {
  kind: "StatefulSet",
  resource: "statefulsets",
  singular: "statefulset",
  description:
    "A StatefulSet runs pods with stable, ordered identities (name-0, name-1, ...) from one pod template, each keeping its name when recreated.",
  group: "apps",
  versions: [
    {
      version: "v1",
      schema: root(
        "v1.StatefulSet",
        struct(
          {
            replicas: i32(undefined, ptr),
            selector: LABEL_SELECTOR,
            template: WORKLOAD_TEMPLATE,
            volumeClaimTemplates: atomicList,
            serviceName: str(),
            podManagementPolicy: str(undefined, { go: "v1.PodManagementPolicyType" }),
            updateStrategy: struct(
              {
                type: str(undefined, { go: "v1.StatefulSetUpdateStrategyType" }),
                rollingUpdate: struct(
                  { partition: i32(undefined, ptr), maxUnavailable: intstr(undefined, ptr) },
                  { go: "v1.RollingUpdateStatefulSetStrategy", ptr: true },
                ),
              },
              { go: "v1.StatefulSetUpdateStrategy", zero: true },
            ),
            revisionHistoryLimit: i32(undefined, ptr),
            minReadySeconds: i32(),
            persistentVolumeClaimRetentionPolicy: deduced(
              struct(
                {
                  whenDeleted: str(undefined, {
                    go: "v1.PersistentVolumeClaimRetentionPolicyType",
                  }),
                  whenScaled: str(undefined, { go: "v1.PersistentVolumeClaimRetentionPolicyType" }),
                },
                { go: "v1.StatefulSetPersistentVolumeClaimRetentionPolicy", ptr: true },
              ),
            ),
            ordinals: deduced(
              struct({ start: i32() }, { go: "v1.StatefulSetOrdinals", ptr: true }),
            ),
          },
          { go: "v1.StatefulSetSpec", zero: true },
        ),
        workloadStatus("v1.StatefulSetStatus", {
          observedGeneration: i64(),
          replicas: i32(undefined, keep),
          readyReplicas: i32(),
          currentReplicas: i32(),
          updatedReplicas: i32(),
          currentRevision: str(),
          updateRevision: str(),
          collisionCount: i32(undefined, ptr),
          availableReplicas: i32(),
        }),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["scale", "status"],
  shortNames: ["sts"],
  categories: ["all"],
  gcPolicy: "DeleteDependents",
  generation: "spec",
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
