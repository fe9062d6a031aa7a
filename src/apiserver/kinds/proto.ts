// Protobuf message tables (field numbers from k8s.io/api and apimachinery `generated.proto`)
// as the kinds write them; ../protobuf.ts decodes with them.

/**
 * Scalars are Go value fields unless `ptr`: gogo-protobuf writes value fields even when zero
 * (kubectl sends `name: ""`, `generation: 0`), and the JSON of such a zero is omitted
 * (`omitempty`) unless `keep`. Pointer fields are written only when set, so they stay even at 0.
 */
export type ProtoScalar = "string" | "int32" | "int64" | "bool" | "double";
export type ProtoFieldType =
  | ProtoScalar
  | "bytes"
  | "quantity"
  | "time"
  | "intOrString"
  | { message: ProtoMessage; inline?: boolean }
  | { map: ProtoScalar | "quantity" };

export interface ProtoFieldSpec {
  name: string;
  type: ProtoFieldType;
  repeated?: boolean;
  ptr?: boolean;
  keep?: boolean;
}

export type ProtoMessage = Readonly<Record<number, ProtoFieldSpec>>;

export const f = (
  name: string,
  type: ProtoFieldType,
  extra: Omit<ProtoFieldSpec, "name" | "type"> = {},
) => ({
  name,
  type,
  ...extra,
});
export const str = (name: string, extra: Omit<ProtoFieldSpec, "name" | "type"> = {}) =>
  f(name, "string", extra);
export const strs = (name: string) => f(name, "string", { repeated: true });
export const i32 = (name: string, extra: Omit<ProtoFieldSpec, "name" | "type"> = {}) =>
  f(name, "int32", extra);
export const msg = (
  name: string,
  message: ProtoMessage,
  extra: Omit<ProtoFieldSpec, "name" | "type"> = {},
) => f(name, { message }, extra);
export const list = (name: string, message: ProtoMessage) =>
  f(name, { message }, { repeated: true });
export const ptr = { ptr: true } as const;
