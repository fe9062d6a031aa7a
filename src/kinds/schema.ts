// The schema tree of a served kind: its Go types, written once, with the annotations every
// view needs — apply (server-side apply) list types and map keys, the `patchMergeKey` /
// `patchStrategy` struct tags, Time/MicroTime leaves, protobuf field numbers, and which parts
// are not typed yet. The views are derived where they are used: the apply schema
// (../fieldmanager/typed.ts), the strategic merge patch meta (patchmeta.ts), the Time
// normalization (../microtime.ts), unknown-field detection (../unknownfields.ts) and protobuf
// decoding (../protobuf.ts).

import type { PatchStrategy } from "../api/patch/strategic-merge-patch.js";

/** The Go types of scalar leaves (metav1.Time, resource.Quantity, intstr.IntOrString included). */
export type GoScalar =
  | "string"
  | "int32"
  | "int64"
  | "bool"
  | "float64"
  | "Quantity"
  | "IntOrString"
  | "Time"
  | "MicroTime"
  | "bytes";

/** How a node sits in its parent struct (Go field and struct tags). */
export interface FieldTags {
  /** Its protobuf field number, for the kinds kubectl sends as protobuf; unnumbered fields are skipped. */
  proto?: number;
  /**
   * A Go pointer field: JSON null decodes to nil and an unset field is omitted; protobuf writes
   * it only when set, so a decoded zero stays.
   */
  ptr?: boolean;
  /** A value field without `omitempty`: its zero value is written (and kept when decoded). */
  keep?: boolean;
  /**
   * The Go type as encoding/json names it in errors (`v1.Container`, `v1.Protocol`): every
   * struct, and scalars and maps of named types (unset: the underlying type's name).
   */
  go?: string;
  /**
   * A field server-side apply does not declare yet: it sees it as a field of no schema
   * (deduced, its path owned as a member), as before the field was written down.
   */
  applyUnlisted?: boolean;
  /**
   * A deduced part of a kind that is a custom resource upstream (ServiceMonitor): its shape gives
   * its fields (unknown-field detection, OpenAPI) but the body is not decoded into Go types; the
   * kind checks types as its CRD's schema does.
   */
  unstructured?: boolean;
}

export type SchemaNode = FieldTags &
  (
    | {
        kind: "scalar";
        /** Unset: a scalar whose Go type is not written down yet. */
        type?: GoScalar;
      }
    | {
        /**
         * Not typed (yet): granular maps and atomic lists for apply, any field accepted. `shape`
         * is the Go type as far as decoding needs it (Time fields, protobuf numbers) while apply
         * and unknown-field detection still treat the part as deduced.
         */
        kind: "deduced";
        shape?: SchemaNode;
      }
    | {
        kind: "struct";
        fields: Readonly<Record<string, SchemaNode>>;
        /** `+structType=atomic`: replaced as a whole by apply. */
        atomic?: boolean;
        /** A Go non-pointer struct: always serialized, so a missing value counts as `{}`. */
        zero?: boolean;
        /** An embedded Go struct (`json:",inline"`): its fields appear in the parent's JSON. */
        inline?: boolean;
        /**
         * Unknown fields are kept and not reported (x-kubernetes-preserve-unknown-fields): the
         * fields listed are not (checked to be) all of the Go struct's.
         */
        preserveUnknownFields?: boolean;
      }
    | { kind: "map"; element: SchemaNode; atomic?: boolean; zero?: boolean }
    | {
        kind: "list";
        element: SchemaNode;
        /** x-kubernetes-list-type. */
        type: "atomic" | "set" | "map";
        /** x-kubernetes-list-map-keys. */
        keys?: readonly string[];
        /** Defaults of key fields an item may omit (Service/container port `protocol: TCP`). */
        keyDefaults?: Readonly<Record<string, unknown>>;
        /**
         * The Go struct tags `patchMergeKey` / `patchStrategy` (strategic merge patch); a list
         * without them is replaced whole by a patch.
         */
        patch?: { mergeKey?: string; strategy: PatchStrategy };
      }
  );

export type StructNode = SchemaNode & { kind: "struct" };

/** The fields of a struct as they appear in JSON: embedded (inline) structs flattened. */
export function jsonFields(node: StructNode): [string, SchemaNode][] {
  return Object.entries(node.fields).flatMap(([name, child]) =>
    child.kind === "struct" && child.inline ? jsonFields(child) : [[name, child]],
  );
}

// ---------------------------------------------------------------------------------------------
// Builders

export const ptr = { ptr: true } as const;
export const keep = { keep: true } as const;

function tags(proto: number | undefined, extra: FieldTags): FieldTags {
  return { ...(proto === undefined ? {} : { proto }), ...extra };
}

const scalar =
  (type: GoScalar) =>
  (proto?: number, extra: FieldTags = {}): SchemaNode => ({
    kind: "scalar",
    type,
    ...tags(proto, extra),
  });
export const str = scalar("string");
export const i32 = scalar("int32");
export const i64 = scalar("int64");
export const bool = scalar("bool");
export const f64 = scalar("float64");
export const qty = scalar("Quantity");
export const intstr = scalar("IntOrString");
export const time = scalar("Time");
export const microtime = scalar("MicroTime");

/** A scalar whose Go type is not written down yet. */
export const S: SchemaNode = { kind: "scalar" };
export const DEDUCED: SchemaNode = { kind: "deduced" };

/** Deduced for apply and unknown fields; `shape` gives decoding its Time fields and protobuf numbers. */
export function deduced(shape: SchemaNode, proto?: number, extra: FieldTags = {}): SchemaNode {
  return { kind: "deduced", shape, ...tags(proto, extra) };
}

/** A field apply does not declare yet (see FieldTags.applyUnlisted). */
export function applyUnlisted(node: SchemaNode): SchemaNode {
  return { ...node, applyUnlisted: true };
}

/** The same node as field number `proto` of its parent message. */
export function pb(proto: number, node: SchemaNode, extra: FieldTags = {}): SchemaNode {
  return { ...node, proto, ...extra };
}

export interface StructOptions extends FieldTags {
  atomic?: boolean;
  zero?: boolean;
  inline?: boolean;
  preserveUnknownFields?: boolean;
}

export function struct(fields: Record<string, SchemaNode>, opts: StructOptions = {}) {
  return { kind: "struct", fields, ...opts } as const satisfies SchemaNode;
}
/** A Go non-pointer struct or map: present as `{}` when omitted. */
export function zero(node: SchemaNode): SchemaNode {
  return { ...node, zero: true } as SchemaNode;
}
/** A struct whose fields are all scalars of types not written down yet. */
export function scalars(...names: string[]) {
  return struct(Object.fromEntries(names.map((n) => [n, S])));
}

export function mapOf(element: SchemaNode, proto?: number, extra: FieldTags = {}): SchemaNode {
  return { kind: "map", element, ...tags(proto, extra) };
}
/** map[string]string, merged key by key. */
export const stringMap: SchemaNode = mapOf(str());
/** map[string]string with `+mapType=atomic`. */
export const atomicMap: SchemaNode = { kind: "map", element: str(), atomic: true };

/** A list with no x-kubernetes-list-type: replaced whole (apply and patch). */
export function atomicOf(element: SchemaNode, proto?: number, extra: FieldTags = {}): SchemaNode {
  return { kind: "list", element, type: "atomic", ...tags(proto, extra) };
}
export const atomicList: SchemaNode = atomicOf(DEDUCED);
/** []string, atomic. */
export const strs = (proto?: number) => atomicOf(str(), proto);
export const setList: SchemaNode = { kind: "list", element: str(), type: "set" };
export function mapList(
  keys: string[],
  element: SchemaNode,
  keyDefaults?: Record<string, unknown>,
): SchemaNode {
  return { kind: "list", element, type: "map", keys, ...(keyDefaults ? { keyDefaults } : {}) };
}
/**
 * A list with `patchStrategy` (default "merge") and, for a list of objects, `patchMergeKey`
 * tags.
 */
export function patchMerge(
  list: SchemaNode,
  mergeKey?: string,
  strategy: PatchStrategy = "merge",
): SchemaNode {
  if (list.kind !== "list") throw new Error("patchMerge: not a list schema");
  return { ...list, patch: { ...(mergeKey === undefined ? {} : { mergeKey }), strategy } };
}
