// apps/v1 Deployment.

import type { LabelSelector } from "../../api/types.js";
import {
  LABEL_SELECTOR,
  LABEL_SELECTOR_PROTO,
  OBJECT_META_PROTO,
  OBJECT_META_TIMES,
  root,
  TOP_LEVEL_FIELDS,
  workloadStatus,
} from "./meta.js";
import { POD_SPEC_PROTO, WORKLOAD_TEMPLATE } from "./podspec.js";
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
import type { ProtoMessage } from "./proto.js";
import * as pb from "./proto.js";
import { type KindDefinition, READ_WRITE, S, scalars, struct } from "./types.js";
import { WORKLOAD_STRATEGY } from "./workload.js";

// Protobuf field numbers.
const DEPLOYMENT_PROTO: ProtoMessage = {
  1: pb.msg("metadata", OBJECT_META_PROTO),
  2: pb.msg("spec", {
    1: pb.i32("replicas", pb.ptr),
    2: pb.msg("selector", LABEL_SELECTOR_PROTO, pb.ptr),
    3: pb.msg("template", {
      1: pb.msg("metadata", OBJECT_META_PROTO),
      2: pb.msg("spec", POD_SPEC_PROTO),
    }),
    4: pb.msg("strategy", {
      1: pb.str("type"),
      2: pb.msg(
        "rollingUpdate",
        {
          1: pb.f("maxUnavailable", "intOrString", pb.ptr),
          2: pb.f("maxSurge", "intOrString", pb.ptr),
        },
        pb.ptr,
      ),
    }),
    5: pb.i32("minReadySeconds"),
    6: pb.i32("revisionHistoryLimit", pb.ptr),
    7: pb.f("paused", "bool"),
    9: pb.i32("progressDeadlineSeconds", pb.ptr),
  }),
  // 3 status: written only by the controllers; the server drops it on create.
};

export const deployment: KindDefinition<"Deployment"> = {
  kind: "Deployment",
  resource: "deployments",
  singular: "deployment",
  group: "apps",
  versions: [
    {
      version: "v1",
      knownFields: TOP_LEVEL_FIELDS,
      protobuf: DEPLOYMENT_PROTO,
      apply: root(
        struct(
          {
            replicas: S,
            selector: LABEL_SELECTOR,
            template: WORKLOAD_TEMPLATE,
            strategy: struct(
              { type: S, rollingUpdate: scalars("maxUnavailable", "maxSurge") },
              { zero: true },
            ),
            minReadySeconds: S,
            revisionHistoryLimit: S,
            paused: S,
            progressDeadlineSeconds: S,
          },
          { zero: true },
        ),
        workloadStatus([
          "observedGeneration",
          "replicas",
          "updatedReplicas",
          "readyReplicas",
          "availableReplicas",
          "unavailableReplicas",
          "terminatingReplicas",
          "collisionCount",
        ]),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["scale", "status"],
  shortNames: ["deploy"],
  categories: ["all"],
  gcPolicy: "DeleteDependents",
  times: {
    metadata: OBJECT_META_TIMES,
    status: { conditions: [{ lastUpdateTime: "Time", lastTransitionTime: "Time" }] },
  },
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
