// apps/v1 Deployment.

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
  selectorString,
  since,
} from "./printing.js";
import { bool, i32, i64, intstr, pb, ptr, str, struct, time } from "./schema.js";
import { type KindDefinition, READ_WRITE } from "./types.js";
import { WORKLOAD_STRATEGY } from "./workload.js";

export const deployment: KindDefinition<"Deployment"> = {
  kind: "Deployment",
  resource: "deployments",
  singular: "deployment",
  description:
    "A Deployment runs a replicated set of identical pods from one pod template, and rolls a changed template out through ReplicaSets. An HPA can scale it through its scale subresource.",
  group: "apps",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: root(
        "v1.Deployment",
        struct(
          {
            replicas: i32(1, ptr),
            selector: pb(2, LABEL_SELECTOR, ptr),
            template: pb(3, WORKLOAD_TEMPLATE),
            strategy: struct(
              {
                type: str(1, { go: "v1.DeploymentStrategyType" }),
                rollingUpdate: struct(
                  { maxUnavailable: intstr(1, ptr), maxSurge: intstr(2, ptr) },
                  { go: "v1.RollingUpdateDeployment", proto: 2, ptr: true },
                ),
              },
              { go: "v1.DeploymentStrategy", zero: true, proto: 4 },
            ),
            minReadySeconds: i32(5),
            revisionHistoryLimit: i32(6, ptr),
            paused: bool(7),
            progressDeadlineSeconds: i32(9, ptr),
          },
          { go: "v1.DeploymentSpec", zero: true, proto: 2 },
        ),
        // Status (3) is written only by the controllers; the server drops it on create.
        workloadStatus(
          "v1.DeploymentStatus",
          {
            observedGeneration: i64(),
            replicas: i32(),
            updatedReplicas: i32(),
            readyReplicas: i32(),
            availableReplicas: i32(),
            unavailableReplicas: i32(),
            terminatingReplicas: i32(undefined, ptr),
            collisionCount: i32(undefined, ptr),
          },
          { lastUpdateTime: time() },
        ),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["scale", "status"],
  shortNames: ["deploy"],
  categories: ["all"],
  gcPolicy: "DeleteDependents",
  generation: "specOrAnnotations",
  fieldSelectors: [],
  strategy: WORKLOAD_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Ready", "string", "Number of the pod with ready state"),
      col(
        "Up-to-date",
        "string",
        "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
      ),
      col(
        "Available",
        "string",
        "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.",
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      col(
        "Selector",
        "string",
        "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
        { priority: 1 },
      ),
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const [names, images] = containerCells(spec.template);
      return [
        obj.metadata.name,
        `${int(status.readyReplicas)}/${int(spec.replicas)}`,
        int(status.updatedReplicas),
        int(status.availableReplicas),
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
        selectorString(spec.selector as LabelSelector | undefined) ?? "<invalid>",
      ];
    },
  },
};
