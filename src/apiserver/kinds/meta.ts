// Parts shared by several kinds: ObjectMeta, LabelSelector, conditions (k8s.io/apimachinery
import type { ProtoMessage } from "./proto.js";
import * as pb from "./proto.js";
// meta/v1 and the status shapes of k8s.io/api).
import {
  type ApplySchema,
  atomicList,
  DEDUCED,
  type KnownFields,
  mapList,
  patchMerge,
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
    ownerReferences: patchMerge(
      mapList(
        ["uid"],
        scalars("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"),
      ),
      "uid",
    ),
    finalizers: patchMerge(setList),
    managedFields: atomicList,
  },
  { zero: true },
);

// k8s.io/api LabelSelector is +structType=atomic.
export const LABEL_SELECTOR: ApplySchema = struct(
  { matchLabels: stringMap, matchExpressions: atomicList },
  { atomic: true },
);

export const CONDITIONS = patchMerge(mapList(["type"], DEDUCED), "type");

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

export const OBJECT_META_FIELDS: KnownFields = Object.fromEntries(
  [
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
  ].map((f) => [f, "any" as KnownFields]),
);
/** A spec/status kind checked at the top level and in metadata only. */
export const TOP_LEVEL_FIELDS: KnownFields = {
  apiVersion: "any",
  kind: "any",
  metadata: OBJECT_META_FIELDS,
  spec: "any",
  status: "any",
};

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

// Protobuf field numbers.
const OWNER_REFERENCE_PROTO: ProtoMessage = {
  1: pb.str("kind"),
  3: pb.str("name"),
  4: pb.str("uid"),
  5: pb.str("apiVersion"),
  6: pb.f("controller", "bool", pb.ptr),
  7: pb.f("blockOwnerDeletion", "bool", pb.ptr),
};
export const OBJECT_META_PROTO: ProtoMessage = {
  1: pb.str("name"),
  2: pb.str("generateName"),
  3: pb.str("namespace"),
  4: pb.str("selfLink"),
  5: pb.str("uid"),
  6: pb.str("resourceVersion"),
  7: pb.f("generation", "int64"),
  8: pb.f("creationTimestamp", "time"),
  9: pb.f("deletionTimestamp", "time", pb.ptr),
  10: pb.f("deletionGracePeriodSeconds", "int64", pb.ptr),
  11: pb.f("labels", { map: "string" }),
  12: pb.f("annotations", { map: "string" }),
  13: pb.list("ownerReferences", OWNER_REFERENCE_PROTO),
  14: pb.strs("finalizers"),
  // 17 managedFields: the server owns them; skipped.
};
export const LABEL_SELECTOR_PROTO: ProtoMessage = {
  1: pb.f("matchLabels", { map: "string" }),
  2: pb.list("matchExpressions", { 1: pb.str("key"), 2: pb.str("operator"), 3: pb.strs("values") }),
};
