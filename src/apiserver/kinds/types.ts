// The shape of one served kind's definition, and the builders its schema trees are written
// with. Everything the API server and the cluster know about a kind is read from one
// KindDefinition (registry.ts); other modules hold only the machinery that walks them.

import type { FeatureGates } from "../../api/featuregates.js";
import type { PatchStrategy } from "../../api/patch/strategic-merge-patch.js";
import type { KubeObject } from "../../api/types.js";
import type { FieldError } from "../../api/validation.js";
import type { ProtoMessage } from "./proto.js";

/** The kinds the API server serves; registry.ts must list a definition for each. */
export type ServedKind =
  | "Namespace"
  | "Pod"
  | "Service"
  | "Event"
  | "Node"
  | "ReplicationController"
  | "Deployment"
  | "ReplicaSet"
  | "StatefulSet"
  | "HorizontalPodAutoscaler"
  | "Lease";

export type Subresource = "status" | "scale";

export type Verb =
  | "create"
  | "delete"
  | "deletecollection"
  | "get"
  | "list"
  | "patch"
  | "update"
  | "watch";

/** Every verb of a writable resource, sorted as discovery lists them. */
export const READ_WRITE: readonly Verb[] = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** What a kind does with its dependents when a delete names no policy (rest.GarbageCollectionPolicy). */
export type DefaultGcPolicy = "DeleteDependents" | "OrphanDependents" | "None";

// ---------------------------------------------------------------------------------------------
// Apply schema: what structured-merge-diff learns from the OpenAPI extensions
// (x-kubernetes-list-type / -map-keys / -map-type) and from which Go fields are structs. Fields
// not written down are "deduced" as upstream does for unknown types: granular maps, atomic lists.

export type ApplySchema =
  | { kind: "scalar" }
  | { kind: "deduced" }
  | {
      kind: "struct";
      fields: Record<string, ApplySchema>;
      atomic?: boolean;
      /** A Go non-pointer struct: always serialized, so a missing value counts as `{}`. */
      zero?: boolean;
    }
  | { kind: "map"; element: ApplySchema; atomic?: boolean; zero?: boolean }
  | {
      kind: "list";
      element: ApplySchema;
      type: "atomic" | "set" | "map";
      keys?: readonly string[];
      /** Defaults of key fields an item may omit (Service/container port `protocol: TCP`). */
      keyDefaults?: Record<string, unknown>;
      /**
       * The Go struct tags `patchMergeKey` / `patchStrategy` (strategic merge patch); a list
       * without them is replaced whole by a patch.
       */
      patch?: { mergeKey?: string; strategy: PatchStrategy };
    };

export const S: ApplySchema = { kind: "scalar" };
export const DEDUCED: ApplySchema = { kind: "deduced" };

export function struct(
  fields: Record<string, ApplySchema>,
  opts: { atomic?: boolean; zero?: boolean } = {},
) {
  return { kind: "struct", fields, ...opts } as const satisfies ApplySchema;
}
/** A Go non-pointer struct or map: present as `{}` when omitted. */
export function zero(schema: ApplySchema): ApplySchema {
  return { ...schema, zero: true } as ApplySchema;
}
export const stringMap: ApplySchema = { kind: "map", element: S };
export const atomicMap: ApplySchema = { kind: "map", element: S, atomic: true };
export const atomicList: ApplySchema = { kind: "list", element: DEDUCED, type: "atomic" };
export const setList: ApplySchema = { kind: "list", element: S, type: "set" };
export function mapList(
  keys: string[],
  element: ApplySchema,
  keyDefaults?: Record<string, unknown>,
): ApplySchema {
  return { kind: "list", element, type: "map", keys, ...(keyDefaults ? { keyDefaults } : {}) };
}
/**
 * A list with `patchStrategy` (default "merge") and, for a list of objects, `patchMergeKey`
 * tags.
 */
export function patchMerge(
  list: ApplySchema,
  mergeKey?: string,
  strategy: PatchStrategy = "merge",
): ApplySchema {
  if (list.kind !== "list") throw new Error("patchMerge: not a list schema");
  return { ...list, patch: { ...(mergeKey === undefined ? {} : { mergeKey }), strategy } };
}
/** A struct whose fields are all scalars. */
export function scalars(...names: string[]): ApplySchema {
  return struct(Object.fromEntries(names.map((n) => [n, S])));
}

// ---------------------------------------------------------------------------------------------
// Time-typed fields (metav1.Time / MicroTime). A `*` type is a pointer field: JSON null decodes
// to nil and is omitted on output; a value field is written as null.

export type TimeType = "Time" | "MicroTime";
export type TimeLeaf = TimeType | "*Time" | "*MicroTime";
export type TimeTree = { [field: string]: TimeTree | TimeLeaf | [TimeTree] };

// ---------------------------------------------------------------------------------------------
// Known fields (`?fieldValidation=`): the fields a request body may carry. "any" accepts
// anything below; an array is a list whose items have the element's fields.

export type KnownFields = "any" | { [field: string]: KnownFields } | [KnownFields];

// ---------------------------------------------------------------------------------------------
// Server-side printing (meta.k8s.io/v1 Table columns, as upstream registers them)

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface Printer {
  columns: TableColumnDefinition[];
  cells: (obj: KubeObject, now: number) => unknown[];
  conditions?: (obj: KubeObject) => TableRowCondition[] | undefined;
}

// ---------------------------------------------------------------------------------------------
// Strategy: the kind's own create and update rules (upstream's per-kind RESTCreateStrategy /
// RESTUpdateStrategy: PrepareForCreate/Update, defaulting, Validate). The registry store runs
// the steps every kind shares around them.

export interface StrategyContext {
  featureGates: FeatureGates;
}

/** The object to store (with `Warning:` header texts), or the field errors of a 422 Invalid. */
export type Prepared =
  | { ok: true; value: KubeObject; warnings?: string[] }
  | { ok: false; errors: FieldError[] };

export interface KindStrategy {
  /** The kind's validation covers ObjectMeta (create and update), so the store's generic checks are skipped. */
  validatesMetadata?: boolean;
  prepareForCreate(object: KubeObject, context: StrategyContext): Prepared;
  /** `next` already carries the stored status (the status subresource owns it). */
  prepareForUpdate(next: KubeObject, current: KubeObject, context: StrategyContext): Prepared;
  /** Checks of a write through the status subresource; none by default. */
  validateStatusUpdate?(next: KubeObject, current: KubeObject): FieldError[];
}

/** No rules of its own: the object is stored as sent. */
export const PLAIN_STRATEGY: KindStrategy = {
  prepareForCreate: (object) => ({ ok: true, value: object }),
  prepareForUpdate: (next) => ({ ok: true, value: next }),
};

// ---------------------------------------------------------------------------------------------
// The definition

/** One served version of a kind. */
export interface KindVersion {
  /** `v1`, `v2`. */
  version: string;
  /** The apply (SSA) schema of this version. */
  apply: ApplySchema;
  /** The fields a body may carry (unknown-field detection); null: not checked. */
  knownFields: KnownFields | null;
  /** Field numbers of the protobuf message, for kinds kubectl sends as protobuf. */
  protobuf?: ProtoMessage;
}

export interface KindDefinition<K extends ServedKind = ServedKind> {
  kind: K;
  /** Plural resource name, as in URLs. */
  resource: string;
  singular: string;
  /** "" for the core group. */
  group: string;
  /** Versions served, preferred first. */
  versions: readonly KindVersion[];
  namespaced: boolean;
  verbs: readonly Verb[];
  subresources: readonly Subresource[];
  shortNames?: readonly string[];
  /** Discovery categories; "all" is what `kubectl get all` expands. */
  categories?: readonly string[];
  /** Node: a view of the simulated capacity, not writable. */
  readOnly?: boolean;
  /** Upstream returns the deleted object (ReturnDeletedObject) instead of a Success Status. */
  returnsDeletedObject?: boolean;
  /** The default in the served (preferred) version; older versions of a group orphan. */
  gcPolicy: DefaultGcPolicy;
  /** Where the kind's Time/MicroTime fields are (the Go types of the preferred version). */
  times: TimeTree;
  /**
   * Fields a field selector may name besides metadata.name and metadata.namespace (upstream's
   * per-kind field label conversion).
   */
  fieldSelectors: readonly string[];
  /** Table columns and cells (`kubectl get`). */
  printer: Printer;
  /** Defaults, validation and the create/update rules of this kind. */
  strategy: KindStrategy;
}
