// core/v1 Namespace.
import {
  CONDITION_TIMES,
  CONDITIONS,
  OBJECT_META_PROTO,
  OBJECT_META_TIMES,
  root,
  TOP_LEVEL_FIELDS,
} from "./meta.js";
import { AGE, asRecord, col, NAME, since, str } from "./printing.js";
import type { ProtoMessage } from "./proto.js";
import * as pb from "./proto.js";
import { atomicList, type KindDefinition, S, struct } from "./types.js";

// Protobuf field numbers.
const NAMESPACE_PROTO: ProtoMessage = {
  1: pb.msg("metadata", OBJECT_META_PROTO),
  2: pb.msg("spec", { 1: pb.strs("finalizers") }),
  3: pb.msg("status", { 1: pb.str("phase") }),
};

export const namespace: KindDefinition<"Namespace"> = {
  kind: "Namespace",
  resource: "namespaces",
  singular: "namespace",
  group: "",
  versions: [
    {
      version: "v1",
      knownFields: TOP_LEVEL_FIELDS,
      protobuf: NAMESPACE_PROTO,
      apply: root(
        struct({ finalizers: atomicList }, { zero: true }),
        struct({ phase: S, conditions: CONDITIONS }, { zero: true }),
      ),
    },
  ],
  namespaced: false,
  // No deletecollection upstream: each namespace is deleted through its own REST.
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  subresources: ["status"],
  shortNames: ["ns"],
  returnsDeletedObject: true,
  gcPolicy: "None",
  times: { metadata: OBJECT_META_TIMES, status: { conditions: CONDITION_TIMES } },
  fieldSelectors: ["status.phase"],
  printer: {
    columns: [NAME, col("Status", "string", "The status of the namespace"), AGE],
    cells: (obj, now) => [
      obj.metadata.name,
      str(asRecord(obj.status).phase),
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};
