// Protobuf request bodies (`application/vnd.kubernetes.protobuf`), which kubectl ≥ 1.32 sends
// from its typed clients (`autoscale`, `create deployment`, `create namespace`) with no JSON
// fallback. A small wire-format reader, the `k8s\0` envelope around a runtime.Unknown, and
// declarative message schemas (field numbers from k8s.io/api and apimachinery `generated.proto`)
// that turn a message into the JSON object the API server would have decoded from JSON.

import { setMember } from "../api/json.js";
import { KIND_LIST } from "../kinds/registry.js";
import type { GoScalar, SchemaNode, StructNode } from "../kinds/schema.js";

/** A body that is not valid protobuf for the expected message. */
export class ProtobufError extends Error {
  override name = "ProtobufError";
}

// -------------------------------------------------------------------------------------------
// Wire format

/** Wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 (3/4, groups, are obsolete). */
export type WireType = 0 | 1 | 2 | 5;

export interface WireField {
  field: number;
  wire: WireType;
  /** Varint and fixed values as unsigned 64-bit integers; length-delimited as bytes. */
  value: bigint | Uint8Array;
}

/** Sequential reader over one message's bytes. */
export class ProtoReader {
  #pos = 0;
  constructor(readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.#pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.#pos >= this.buf.length) throw new ProtobufError("truncated varint");
      const byte = this.buf[this.#pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return BigInt.asUintN(64, result);
    }
    throw new ProtobufError("varint longer than 10 bytes");
  }

  fixed(bytes: 4 | 8): bigint {
    const end = this.#pos + bytes;
    if (end > this.buf.length) throw new ProtobufError(`truncated fixed${bytes * 8}`);
    let result = 0n;
    for (let i = end - 1; i >= this.#pos; i--) result = (result << 8n) | BigInt(this.buf[i]!);
    this.#pos = end;
    return result;
  }

  bytes(): Uint8Array {
    const length = this.varint();
    const end = BigInt(this.#pos) + length;
    if (end > BigInt(this.buf.length)) throw new ProtobufError("truncated length-delimited field");
    const out = this.buf.subarray(this.#pos, Number(end));
    this.#pos = Number(end);
    return out;
  }

  /** The next field: its number, wire type and raw value. */
  next(): WireField {
    const key = this.varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field < 1 || field > 536_870_911) throw new ProtobufError(`invalid field number ${field}`);
    switch (wire) {
      case 0:
        return { field, wire, value: this.varint() };
      case 1:
        return { field, wire, value: this.fixed(8) };
      case 2:
        return { field, wire, value: this.bytes() };
      case 5:
        return { field, wire, value: this.fixed(4) };
      default:
        throw new ProtobufError(`unsupported wire type ${wire} (field ${field})`);
    }
  }
}

/** Every field of a message, in order (repeated fields appear once per element). */
export function readFields(buf: Uint8Array): WireField[] {
  const reader = new ProtoReader(buf);
  const out: WireField[] = [];
  while (!reader.done) out.push(reader.next());
  return out;
}

// -------------------------------------------------------------------------------------------
// Schemas: field number → JSON name and type, a view of each kind's schema tree (./kinds/)

/**
 * Scalars are Go value fields unless `ptr`: gogo-protobuf writes value fields even when zero
 * (kubectl sends `name: ""`, `generation: 0`), and the JSON of such a zero is omitted
 * (`omitempty`) unless `keep`. Pointer fields are written only when set, so they stay even at 0.
 */
export type Scalar = "string" | "int32" | "int64" | "bool" | "double";
export type FieldType =
  | Scalar
  | "bytes"
  | "quantity"
  | "time"
  | "intOrString"
  | { message: Schema; inline?: boolean }
  | { map: Scalar | "quantity" | "bytes" };

export interface FieldSpec {
  name: string;
  type: FieldType;
  repeated?: boolean;
  ptr?: boolean;
  keep?: boolean;
}

/** A protobuf message: its fields by number. */
export type Schema = Readonly<Record<number, FieldSpec>>;

const f = (name: string, type: FieldType, extra: Omit<FieldSpec, "name" | "type"> = {}) => ({
  name,
  type,
  ...extra,
});
const str = (name: string, extra: Omit<FieldSpec, "name" | "type"> = {}) =>
  f(name, "string", extra);
const i32 = (name: string, extra: Omit<FieldSpec, "name" | "type"> = {}) => f(name, "int32", extra);

const PROTO_SCALARS: Partial<
  Record<GoScalar, Scalar | "bytes" | "quantity" | "time" | "intOrString">
> = {
  string: "string",
  int32: "int32",
  int64: "int64",
  bool: "bool",
  float64: "double",
  bytes: "bytes",
  Quantity: "quantity",
  Time: "time",
  IntOrString: "intOrString",
};

function protoScalar(node: SchemaNode, where: string) {
  const type = node.kind === "scalar" && node.type ? PROTO_SCALARS[node.type] : undefined;
  if (!type) throw new Error(`${where}: no protobuf type for ${JSON.stringify(node)}`);
  return type;
}

const messages = new WeakMap<StructNode, Schema>();

/** The message of a struct: its numbered fields (embedded structs are inline messages). */
export function protoMessageOf(node: StructNode): Schema {
  const cached = messages.get(node);
  if (cached) return cached;
  const out: Record<number, FieldSpec> = {};
  for (const [name, child] of Object.entries(node.fields)) {
    if (child.proto === undefined) continue;
    const extra = { ...(child.ptr ? { ptr: true } : {}), ...(child.keep ? { keep: true } : {}) };
    const typed = child.kind === "deduced" && child.shape ? child.shape : child;
    let spec: FieldSpec;
    switch (typed.kind) {
      case "struct":
        spec = f(
          name,
          { message: protoMessageOf(typed), ...(typed.inline ? { inline: true } : {}) },
          extra,
        );
        break;
      case "map": {
        const value = protoScalar(typed.element, name);
        if (value === "time" || value === "intOrString")
          throw new Error(`${name}: map values of type ${value}`);
        spec = f(name, { map: value }, extra);
        break;
      }
      case "list": {
        const item =
          typed.element.kind === "deduced" && typed.element.shape
            ? typed.element.shape
            : typed.element;
        spec =
          item.kind === "struct"
            ? f(name, { message: protoMessageOf(item) }, { ...extra, repeated: true })
            : f(name, protoScalar(item, name), { ...extra, repeated: true });
        break;
      }
      default:
        spec = f(name, protoScalar(typed, name), extra);
    }
    out[child.proto] = spec;
  }
  messages.set(node, out);
  return out;
}

/** The kinds whose protobuf bodies the server decodes, by `apiVersion/kind`. */
export const PROTOBUF_SCHEMAS: Readonly<Record<string, Schema>> = Object.fromEntries(
  KIND_LIST.flatMap((d) =>
    d.versions.flatMap((v) =>
      v.protobuf
        ? [[`${d.group ? `${d.group}/` : ""}${v.version}/${d.kind}`, protoMessageOf(v.schema)]]
        : [],
    ),
  ),
);

// -------------------------------------------------------------------------------------------
// Decoding

const utf8 = new TextDecoder("utf-8", { fatal: true });

function text(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ProtobufError("string field is not valid UTF-8");
  }
}

function expectWire(field: WireField, wire: WireType, name: string): void {
  if (field.wire !== wire) {
    throw new ProtobufError(
      `field ${name} (${field.field}) has wire type ${field.wire}, want ${wire}`,
    );
  }
}

/** RFC 3339 without fractional seconds, as metav1.Time marshals. */
function rfc3339(seconds: bigint): string {
  const ms = Number(seconds) * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) throw new ProtobufError("time out of range");
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function decodeScalar(field: WireField, type: Scalar | "quantity", name: string): unknown {
  switch (type) {
    case "string":
      expectWire(field, 2, name);
      return text(field.value as Uint8Array);
    case "quantity":
      // resource.Quantity is `message Quantity { optional string string = 1; }`.
      expectWire(field, 2, name);
      return (
        decodeMessage(field.value as Uint8Array, { 1: str("string", { keep: true }) }).string ?? ""
      );
    case "int32":
      expectWire(field, 0, name);
      return Number(BigInt.asIntN(32, field.value as bigint));
    case "int64":
      expectWire(field, 0, name);
      return Number(BigInt.asIntN(64, field.value as bigint));
    case "bool":
      expectWire(field, 0, name);
      return field.value !== 0n;
    case "double": {
      expectWire(field, 1, name);
      const view = new DataView(new ArrayBuffer(8));
      view.setBigUint64(0, field.value as bigint, true);
      return view.getFloat64(0, true);
    }
  }
}

function isZero(value: unknown): boolean {
  return value === "" || value === 0 || value === false;
}

function decodeField(field: WireField, spec: FieldSpec): unknown {
  const type = spec.type;
  if (typeof type === "object" && "message" in type) {
    expectWire(field, 2, spec.name);
    return decodeMessage(field.value as Uint8Array, type.message);
  }
  if (typeof type === "object") {
    throw new ProtobufError(`map field ${spec.name} decoded as a value`);
  }
  switch (type) {
    case "bytes":
      expectWire(field, 2, spec.name);
      return Buffer.from(field.value as Uint8Array).toString("base64");
    case "time": {
      // metav1.Time is {1 seconds int64, 2 nanos int32}; the zero time is JSON null (omitted).
      expectWire(field, 2, spec.name);
      const time = decodeMessage(field.value as Uint8Array, { 1: f("seconds", "int64") });
      const seconds = typeof time.seconds === "number" ? BigInt(time.seconds) : 0n;
      return seconds === 0n && !spec.ptr ? undefined : rfc3339(seconds);
    }
    case "intOrString": {
      // intstr.IntOrString is {1 type (0 Int, 1 String), 2 intVal, 3 strVal}.
      expectWire(field, 2, spec.name);
      const v = decodeMessage(field.value as Uint8Array, {
        1: i32("type", { keep: true }),
        2: i32("intVal", { keep: true }),
        3: str("strVal", { keep: true }),
      });
      return v.type === 1 ? (v.strVal ?? "") : (v.intVal ?? 0);
    }
    default:
      return decodeScalar(field, type, spec.name);
  }
}

/** Decodes one message by its schema into a JSON object; fields not in the schema are skipped. */
export function decodeMessage(buf: Uint8Array, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of readFields(buf)) {
    const spec = schema[field.field];
    if (!spec) continue;
    const type = spec.type;
    if (typeof type === "object" && "map" in type) {
      // A map entry is a message {1 key, 2 value}.
      expectWire(field, 2, spec.name);
      const entry = decodeMessage(field.value as Uint8Array, {
        1: str("key", { keep: true }),
        2: f("value", type.map, { keep: true }),
      });
      const map = (out[spec.name] as Record<string, unknown> | undefined) ?? {};
      out[spec.name] = map;
      setMember(
        map,
        String(entry.key ?? ""),
        entry.value ??
          (type.map === "string" || type.map === "bytes" ? "" : type.map === "quantity" ? "0" : 0),
      );
      continue;
    }
    if (
      spec.repeated &&
      field.wire === 2 &&
      (type === "int32" || type === "int64" || type === "bool")
    ) {
      throw new ProtobufError(`packed repeated field ${spec.name} is not supported`);
    }
    const value = decodeField(field, spec);
    if (typeof type === "object" && "message" in type && type.inline) {
      Object.assign(out, value as Record<string, unknown>);
      continue;
    }
    if (spec.repeated) {
      const items = (out[spec.name] as unknown[] | undefined) ?? [];
      items.push(value);
      out[spec.name] = items;
      continue;
    }
    if (value === undefined || (isZero(value) && !spec.ptr && !spec.keep)) {
      delete out[spec.name];
      continue;
    }
    out[spec.name] = value;
  }
  return out;
}

/** The `k8s\0` prefix of every Kubernetes protobuf-encoded object. */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface ProtobufEnvelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Splits the envelope: magic bytes, then runtime.Unknown {1 typeMeta, 2 raw, 3, 4}. */
export function decodeEnvelope(body: Uint8Array): ProtobufEnvelope {
  if (body.length < 4 || PROTOBUF_MAGIC.some((byte, i) => body[i] !== byte)) {
    // The wording of upstream's protobuf serializer (apimachinery runtime/serializer/protobuf).
    throw new ProtobufError(
      `provided data does not appear to be a protobuf message, expected prefix [${PROTOBUF_MAGIC.join(" ")}]`,
    );
  }
  const out: ProtobufEnvelope = {
    apiVersion: "",
    kind: "",
    raw: new Uint8Array(),
    contentEncoding: "",
    contentType: "",
  };
  for (const field of readFields(body.subarray(4))) {
    if (field.field === 1) {
      expectWire(field, 2, "typeMeta");
      const meta = decodeMessage(field.value as Uint8Array, {
        1: str("apiVersion"),
        2: str("kind"),
      });
      out.apiVersion = (meta.apiVersion as string | undefined) ?? "";
      out.kind = (meta.kind as string | undefined) ?? "";
    } else if (field.field === 2) {
      expectWire(field, 2, "raw");
      out.raw = field.value as Uint8Array;
    } else if (field.field === 3) {
      expectWire(field, 2, "contentEncoding");
      out.contentEncoding = text(field.value as Uint8Array);
    } else if (field.field === 4) {
      expectWire(field, 2, "contentType");
      out.contentType = text(field.value as Uint8Array);
    }
  }
  return out;
}

export type ProtobufDecodeResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; error: string };

/** Upstream's summary of an undecodable body in error messages: hex of the first 30 bytes. */
function summarize(body: Uint8Array): string {
  if (body.length === 0) return "<empty>";
  const head = Buffer.from(body.subarray(0, 30));
  const shown = body[0] === 0x7b ? head.toString("utf8") : head.toString("hex");
  return body.length > 30 ? `${shown} ...` : shown;
}

/**
 * A protobuf request body as the JSON object it encodes (apiVersion and kind from the envelope),
 * for a request whose resource has kind `expectedKind`. Malformed bodies and kinds without a
 * schema are errors as data, with the messages of upstream's decode-error transform
 * (`<kind> in version "<v>" cannot be handled as a <kind>: …` once the type is known).
 */
export function decodeProtobufObject(body: Uint8Array, expectedKind: string): ProtobufDecodeResult {
  let envelope: ProtobufEnvelope;
  try {
    envelope = decodeEnvelope(body);
  } catch (err) {
    if (!(err instanceof ProtobufError)) throw err;
    return {
      ok: false,
      error: `the object provided is unrecognized (must be of type ${expectedKind}): ${err.message} (${summarize(body)})`,
    };
  }
  const version = envelope.apiVersion.includes("/")
    ? envelope.apiVersion.slice(envelope.apiVersion.indexOf("/") + 1)
    : envelope.apiVersion;
  const cannot = (why: string) => ({
    ok: false as const,
    error:
      envelope.kind === ""
        ? `the object provided is unrecognized (must be of type ${expectedKind}): ${why} (${summarize(body)})`
        : `${envelope.kind} in version ${JSON.stringify(version)} cannot be handled as a ${expectedKind}: ${why}`,
  });
  if (envelope.contentEncoding !== "") {
    return cannot(`unsupported content encoding ${JSON.stringify(envelope.contentEncoding)}`);
  }
  const schema = PROTOBUF_SCHEMAS[`${envelope.apiVersion}/${envelope.kind}`];
  // Upstream's scheme error for a type it cannot decode (runtime.notRegisteredErr).
  if (!schema) {
    return cannot(
      `no kind ${JSON.stringify(envelope.kind)} is registered for version ${JSON.stringify(envelope.apiVersion)}`,
    );
  }
  try {
    const object = decodeMessage(envelope.raw, schema);
    return { ok: true, value: { apiVersion: envelope.apiVersion, kind: envelope.kind, ...object } };
  } catch (err) {
    if (err instanceof ProtobufError) return cannot(err.message);
    throw err;
  }
}

/** The media type of Kubernetes protobuf bodies. */
export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
