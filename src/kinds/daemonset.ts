// apps/v1 DaemonSet: one pod per schedulable node (no scale subresource, so an HPA cannot
// target it, as upstream).

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
  formatLabels,
  IMAGES,
  int,
  NAME,
  since,
} from "./printing.js";
import { i32, i64, intstr, keep, ptr, str, struct } from "./schema.js";
import { type KindDefinition, READ_WRITE } from "./types.js";
import { WORKLOAD_STRATEGY } from "./workload.js";

const DAEMONSET_DOC =
  "More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/";

export const daemonSet: KindDefinition<"DaemonSet"> = {
  kind: "DaemonSet",
  resource: "daemonsets",
  singular: "daemonset",
  description:
    "A DaemonSet runs one pod from its template on every node that its template's nodeSelector selects. Horizon's cluster has one node.",
  group: "apps",
  versions: [
    {
      version: "v1",
      schema: root(
        "v1.DaemonSet",
        struct(
          {
            selector: LABEL_SELECTOR,
            template: WORKLOAD_TEMPLATE,
            updateStrategy: struct(
              {
                type: str(undefined, { go: "v1.DaemonSetUpdateStrategyType" }),
                rollingUpdate: struct(
                  { maxUnavailable: intstr(undefined, ptr), maxSurge: intstr(undefined, ptr) },
                  { go: "v1.RollingUpdateDaemonSet", ptr: true },
                ),
              },
              { go: "v1.DaemonSetUpdateStrategy", zero: true },
            ),
            minReadySeconds: i32(),
            revisionHistoryLimit: i32(undefined, ptr),
          },
          { go: "v1.DaemonSetSpec", zero: true },
        ),
        workloadStatus("v1.DaemonSetStatus", {
          currentNumberScheduled: i32(undefined, keep),
          numberMisscheduled: i32(undefined, keep),
          desiredNumberScheduled: i32(undefined, keep),
          numberReady: i32(undefined, keep),
          observedGeneration: i64(),
          updatedNumberScheduled: i32(),
          numberAvailable: i32(),
          numberUnavailable: i32(),
          collisionCount: i32(undefined, ptr),
        }),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  shortNames: ["ds"],
  categories: ["all"],
  gcPolicy: "DeleteDependents",
  generation: "specAndTemplate",
  fieldSelectors: [],
  strategy: WORKLOAD_STRATEGY,
  printer: {
    columns: [
      NAME,
      col(
        "Desired",
        "integer",
        `The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). ${DAEMONSET_DOC}`,
      ),
      col(
        "Current",
        "integer",
        `The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. ${DAEMONSET_DOC}`,
      ),
      col(
        "Ready",
        "integer",
        "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.",
      ),
      col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
      col(
        "Available",
        "integer",
        "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
      ),
      col(
        "Node Selector",
        "string",
        "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      col(
        "Selector",
        "string",
        "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
        { priority: 1 },
      ),
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const [names, images] = containerCells(spec.template);
      const nodeSelector = asRecord(asRecord(asRecord(spec.template).spec).nodeSelector);
      return [
        obj.metadata.name,
        int(status.desiredNumberScheduled),
        int(status.currentNumberScheduled),
        int(status.numberReady),
        int(status.updatedNumberScheduled),
        int(status.numberAvailable),
        formatLabels(nodeSelector as Record<string, string>),
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
        formatLabelSelector(spec.selector as LabelSelector | undefined),
      ];
    },
  },
};
