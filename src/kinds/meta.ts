// Parts shared by several kinds: ObjectMeta, LabelSelector, conditions (k8s.io/apimachinery
// meta/v1 and the status shapes of k8s.io/api).
import {
  atomicOf,
  bool,
  DEDUCED,
  deduced,
  i64,
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
  { go: "v1.OwnerReference" },
);

const MANAGED_FIELDS_ENTRY = struct(
  {
    manager: str(),
    operation: str(undefined, { go: "v1.ManagedFieldsOperationType" }),
    apiVersion: str(),
    time: time(undefined, ptr),
    fieldsType: str(),
    fieldsV1: DEDUCED,
    subresource: str(),
  },
  { go: "v1.ManagedFieldsEntry" },
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
  { go: "v1.ObjectMeta", zero: true, proto: 1 },
);

// k8s.io/api LabelSelector is +structType=atomic.
export const LABEL_SELECTOR = struct(
  {
    matchLabels: pb(1, stringMap),
    matchExpressions: atomicOf(
      struct(
        { key: str(1), operator: str(2, { go: "v1.LabelSelectorOperator" }), values: strs(3) },
        { go: "v1.LabelSelectorRequirement" },
      ),
      2,
    ),
  },
  { go: "v1.LabelSelector", atomic: true },
);

/** A status `conditions` list of the given condition type (its Time fields among them). */
export function conditions(condition: SchemaNode): SchemaNode {
  return patchMerge(mapList(["type"], deduced(condition)), "type");
}

/**
 * A condition of Go type `go` (type, status, lastTransitionTime, reason, message, and the
 * kind's extra Time fields); its `type` is the named type `<go>Type`.
 */
export function condition(
  go: string,
  extra: Record<string, SchemaNode> = {},
  typeGo = `${go}Type`,
) {
  return struct(
    {
      type: str(undefined, { keep: true, go: typeGo }),
      status: str(undefined, { keep: true, go: "v1.ConditionStatus" }),
      lastTransitionTime: time(),
      reason: str(),
      message: str(),
      ...extra,
    },
    { go },
  );
}

/** A top-level object of Go type `go` with its own fields beside metadata (protobuf field 1). */
export function topLevel(go: string, fields: Record<string, SchemaNode>) {
  return struct({ apiVersion: str(), kind: str(), metadata: OBJECT_META, ...fields }, { go });
}

/** A top-level object of Go type `go` with spec and status (metadata is protobuf field 1). */
export function root(
  go: string,
  spec: SchemaNode,
  status: SchemaNode,
  extra: Record<string, SchemaNode> = {},
) {
  return struct(
    { apiVersion: str(), kind: str(), metadata: OBJECT_META, spec, status, ...extra },
    { go },
  );
}

/** A workload's status (Go type `<Kind>Status`): its counters and conditions (`<Kind>Condition`). */
export function workloadStatus(
  go: string,
  fields: Record<string, SchemaNode>,
  conditionTimes: Record<string, SchemaNode> = {},
): SchemaNode {
  return struct(
    {
      ...fields,
      conditions: conditions(condition(go.replace(/Status$/, "Condition"), conditionTimes)),
    },
    { go, zero: true },
  );
}
