// apps/v1 Deployment.
import { LABEL_SELECTOR, OBJECT_META_TIMES, root, workloadStatus } from "./meta.js";
import { WORKLOAD_TEMPLATE } from "./podspec.js";
import { type KindDefinition, READ_WRITE, S, scalars, struct } from "./types.js";

export const deployment: KindDefinition<"Deployment"> = {
  kind: "Deployment",
  resource: "deployments",
  singular: "deployment",
  group: "apps",
  versions: [
    {
      version: "v1",
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
};
