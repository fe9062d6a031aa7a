// Parts shared by several kinds: ObjectMeta, LabelSelector, conditions (k8s.io/apimachinery
// meta/v1 and the status shapes of k8s.io/api).
import {
  type ApplySchema,
  atomicList,
  DEDUCED,
  mapList,
  S,
  scalars,
  setList,
  stringMap,
  struct,
  type TimeTree,
} from "./types.js";

export const OBJECT_META = struct(
  {
    name: S,
    generateName: S,
    namespace: S,
    selfLink: S,
    uid: S,
    resourceVersion: S,
    generation: S,
    creationTimestamp: S,
    deletionTimestamp: S,
    deletionGracePeriodSeconds: S,
    labels: stringMap,
    annotations: stringMap,
    ownerReferences: mapList(
      ["uid"],
      scalars("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"),
    ),
    finalizers: setList,
    managedFields: atomicList,
  },
  { zero: true },
);

// k8s.io/api LabelSelector is +structType=atomic.
export const LABEL_SELECTOR: ApplySchema = struct(
  { matchLabels: stringMap, matchExpressions: atomicList },
  { atomic: true },
);

export const CONDITIONS = mapList(["type"], DEDUCED);

/** A top-level object with spec and status. */
export function root(
  spec: ApplySchema,
  status: ApplySchema,
  extra: Record<string, ApplySchema> = {},
): ApplySchema {
  return struct({ apiVersion: S, kind: S, metadata: OBJECT_META, spec, status, ...extra });
}

/** A workload's status: scalar counters and conditions. */
export function workloadStatus(fields: string[]): ApplySchema {
  return struct(
    { ...Object.fromEntries(fields.map((f) => [f, S])), conditions: CONDITIONS },
    { zero: true },
  );
}

export const OBJECT_META_TIMES: TimeTree = {
  creationTimestamp: "Time",
  deletionTimestamp: "*Time",
  managedFields: [{ time: "*Time" }],
};
export const CONDITION_TIMES: [TimeTree] = [{ lastTransitionTime: "Time" }];
export const WITH_CONDITIONS_TIMES: TimeTree = {
  metadata: OBJECT_META_TIMES,
  status: { conditions: CONDITION_TIMES },
};
