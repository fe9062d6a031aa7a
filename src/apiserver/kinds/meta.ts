// Parts shared by several kinds: ObjectMeta, LabelSelector, conditions (k8s.io/apimachinery
// meta/v1 and the status shapes of k8s.io/api).
import {
  atomicOf,
  bool,
  DEDUCED,
  deduced,
  i64,
  keep,
  mapList,
  patchMerge,
  pb,
  ptr,
  type SchemaNode,
  setList,
  str,
  stringMap,
  strs,
  struct,
  time,
} from "./schema.js";

const OWNER_REFERENCE = struct(
  {
    apiVersion: str(5),
    kind: str(1),
    name: str(3),
    uid: str(4),
    controller: bool(6, ptr),
    blockOwnerDeletion: bool(7, ptr),
  },
  { preserveUnknownFields: true },
);

const MANAGED_FIELDS_ENTRY = struct(
  {
    manager: str(),
    operation: str(),
    apiVersion: str(),
    time: time(undefined, ptr),
    fieldsType: str(),
    fieldsV1: DEDUCED,
    subresource: str(),
  },
  { preserveUnknownFields: true },
);

/** metav1.ObjectMeta, field 1 of every object's protobuf message. */
export const OBJECT_META = struct(
  {
    name: str(1),
    generateName: str(2),
    namespace: str(3),
    selfLink: str(4),
    uid: str(5),
    resourceVersion: str(6),
    generation: i64(7),
    creationTimestamp: time(8),
    deletionTimestamp: time(9, ptr),
    deletionGracePeriodSeconds: i64(10, ptr),
    labels: pb(11, stringMap),
    annotations: pb(12, stringMap),
    ownerReferences: pb(13, patchMerge(mapList(["uid"], OWNER_REFERENCE), "uid")),
    finalizers: pb(14, patchMerge(setList)),
    // 17 managedFields: the server owns them; not decoded from protobuf.
    managedFields: atomicOf(MANAGED_FIELDS_ENTRY),
  },
  { zero: true, proto: 1 },
);

// k8s.io/api LabelSelector is +structType=atomic.
export const LABEL_SELECTOR = struct(
  {
    matchLabels: pb(1, stringMap),
    matchExpressions: atomicOf(struct({ key: str(1), operator: str(2), values: strs(3) }), 2),
  },
  { atomic: true, preserveUnknownFields: true },
);

/** A status `conditions` list of the given condition type (its Time fields among them). */
export function conditions(condition: SchemaNode): SchemaNode {
  return patchMerge(mapList(["type"], deduced(condition)), "type");
}

/** The condition types of most kinds (type, status, lastTransitionTime, reason, message). */
export const CONDITION = struct({
  type: str(undefined, keep),
  status: str(undefined, keep),
  lastTransitionTime: time(),
  reason: str(),
  message: str(),
});
export const CONDITIONS = conditions(CONDITION);

/** A top-level object with spec and status (metadata is protobuf field 1). */
export function root(spec: SchemaNode, status: SchemaNode, extra: Record<string, SchemaNode> = {}) {
  return struct({ apiVersion: str(), kind: str(), metadata: OBJECT_META, spec, status, ...extra });
}

/** A workload's status: its counters and conditions. */
export function workloadStatus(
  fields: Record<string, SchemaNode>,
  condition: SchemaNode = CONDITION,
): SchemaNode {
  return struct(
    { ...fields, conditions: conditions(condition) },
    { zero: true, preserveUnknownFields: true },
  );
}
