// Typed decoding: a request body read into its kind's Go types (the schema tree, ./kinds/) as
// kube-apiserver's JSON decoder (encoding/json, via sigs.k8s.io/json) reads it. A value of the
// wrong JSON type fails the decode with encoding/json's UnmarshalTypeError text; the decode goes
// on and the first such error is reported, unless a type's own UnmarshalJSON (Quantity,
// IntOrString, Time) fails, which stops it. A null into a Go value is no change (the field stays
// unset), into a map value or list item the type's zero value. Untyped and deduced parts pass.
import { isRecord } from "../api/json.js";
import { Quantity } from "../api/quantity.js";
import { kindDefinition } from "../kinds/registry.js";
import { type GoScalar, jsonFields, type SchemaNode } from "../kinds/schema.js";
import { normalizeTimeValue } from "./microtime.js";

export type TypedDecoded =
  | { ok: true; value: Record<string, unknown> }
  /** `path`: where the failing value is (list indexes included), for locating it in a file. */
  | { ok: false; error: string; path: (string | number)[] };

const GO_SCALARS: Record<GoScalar, string> = {
  string: "string",
  int32: "int32",
  int64: "int64",
  bool: "bool",
  float64: "float64",
  Quantity: "resource.Quantity",
  IntOrString: "intstr.IntOrString",
  Time: "v1.Time",
  MicroTime: "v1.MicroTime",
  bytes: "[]uint8",
};

/** reflect.Type.String() of a node's Go type. */
function goType(node: SchemaNode): string {
  if (node.go) return node.go;
  switch (node.kind) {
    case "scalar":
      return node.type ? GO_SCALARS[node.type] : "interface {}";
    case "deduced":
      return node.shape ? goType(node.shape) : "interface {}";
    case "struct":
      return "struct";
    case "map":
      return `map[string]${goType(node.element)}`;
    case "list":
      return `[]${goType(node.element)}`;
  }
}

/** How encoding/json names a JSON value in an UnmarshalTypeError. */
export function jsonKind(value: unknown): string {
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "array";
  return "object";
}

/** A decode stopped by a type's own UnmarshalJSON. */
class Abort {
  constructor(
    readonly error: string,
    readonly path: (string | number)[],
  ) {}
}

/** Where a value is: the Go struct that holds the field and the JSON field path from the root. */
interface Where {
  struct: string;
  path: string;
}

class Decoder {
  saved: string | undefined;
  savedPath: (string | number)[] = [];
  /** The keys and indexes down to the value being decoded (pushed and popped: no allocation). */
  readonly at: (string | number)[] = [];

  abort(error: string): Abort {
    return new Abort(error, [...this.at]);
  }

  /** encoding/json's UnmarshalTypeError text, with the field context addErrorContext gives. */
  typeError(value: string, where: Where, type: string): string {
    const into = where.struct === "" ? "Go value" : `Go struct field ${where.struct}.${where.path}`;
    return `json: cannot unmarshal ${value} into ${into} of type ${type}`;
  }

  save(value: string, where: Where, type: string): void {
    if (this.saved !== undefined) return;
    this.saved = this.typeError(value, where, type);
    this.savedPath = [...this.at];
  }

  /** The value as decoded, or ZERO for a null Go ignores (the field stays at its zero value). */
  decode(node: SchemaNode, value: unknown, where: Where): unknown {
    if (node.kind === "deduced") {
      return node.shape && !node.unstructured ? this.decode(node.shape, value, where) : value;
    }
    if (value === null) {
      // metav1.Time: its own null handling (../microtime.ts).
      if (node.kind === "scalar" && (node.type === "Time" || node.type === "MicroTime"))
        return value;
      return node.kind === "scalar" && node.type === undefined ? value : ZERO;
    }
    switch (node.kind) {
      case "scalar":
        return this.scalar(node.type, node, value, where);
      case "struct":
        return this.struct(node, value, where);
      case "map": {
        if (!isRecord(value)) {
          this.save(jsonKind(value), where, goType(node));
          return value;
        }
        let out: Record<string, unknown> | null = null;
        for (const [key, item] of Object.entries(value)) {
          this.at.push(key);
          const decoded = this.item(node.element, item, where);
          this.at.pop();
          if (decoded !== item) {
            out ??= { ...value };
            out[key] = decoded;
          }
        }
        return out ?? value;
      }
      case "list": {
        if (!Array.isArray(value)) {
          this.save(jsonKind(value), where, goType(node));
          return value;
        }
        let out: unknown[] | null = null;
        value.forEach((item, i) => {
          this.at.push(i);
          const decoded = this.item(node.element, item, where);
          this.at.pop();
          if (decoded !== item) {
            out ??= [...value];
            out[i] = decoded;
          }
        });
        return out ?? value;
      }
    }
  }

  /** A map value or list item: a null is the element type's zero value. */
  item(node: SchemaNode, value: unknown, where: Where): unknown {
    const decoded = this.decode(node, value, where);
    return decoded === ZERO ? zeroValue(node) : decoded;
  }

  struct(node: SchemaNode & { kind: "struct" }, value: unknown, where: Where): unknown {
    if (!isRecord(value)) {
      this.save(jsonKind(value), where, goType(node));
      return value;
    }
    const fields = new Map(jsonFields(node));
    // Fields of an embedded struct are the outer struct's (encoding/json promotes them).
    const struct = (node.go ?? "").replace(/^.*\./, "");
    let out: Record<string, unknown> | null = null;
    for (const [key, child] of Object.entries(value)) {
      const field = fields.get(key);
      if (!field) continue;
      const path = where.path === "" ? key : `${where.path}.${key}`;
      this.at.push(key);
      const decoded = this.decode(field, child, { struct, path });
      this.at.pop();
      if (decoded === child) continue;
      out ??= { ...value };
      if (decoded === ZERO) delete out[key];
      else out[key] = decoded;
    }
    return out ?? value;
  }

  scalar(type: GoScalar | undefined, node: SchemaNode, value: unknown, where: Where): unknown {
    const named = goType(node);
    switch (type) {
      case undefined:
        return value;
      case "bytes": {
        // []byte: a base64 string (StdEncoding); a bad one fails the whole decode, unwrapped.
        if (typeof value !== "string") {
          this.save(jsonKind(value), where, named);
          return value;
        }
        const at = base64ErrorAt(value);
        if (at !== null) throw this.abort(`illegal base64 data at input byte ${at}`);
        return value;
      }
      case "string":
        if (typeof value !== "string") this.save(jsonKind(value), where, named);
        return value;
      case "bool":
        if (typeof value !== "boolean") this.save(jsonKind(value), where, named);
        return value;
      case "float64":
        if (typeof value !== "number") this.save(jsonKind(value), where, named);
        return value;
      case "int32":
      case "int64":
        if (typeof value !== "number") this.save(jsonKind(value), where, named);
        else if (!fitsInt(value, type)) this.save(`number ${goNumber(value)}`, where, named);
        return value;
      case "Quantity": {
        // UnmarshalJSON parses the raw bytes: a number is its text, anything else fails.
        const parsed = Quantity.tryParseJSON(value);
        if (!parsed.ok) throw this.abort(parsed.reason);
        // Stored as MarshalJSON writes it back: the canonical form (0.5 → "500m").
        return parsed.quantity.toString();
      }
      case "IntOrString":
        // UnmarshalJSON: a string, else json.Unmarshal into its int32 (errors get the field).
        if (typeof value === "string") return value;
        if (typeof value !== "number")
          throw this.abort(this.typeError(jsonKind(value), where, "int32"));
        if (!fitsInt(value, "int32"))
          throw this.abort(this.typeError(`number ${goNumber(value)}`, where, "int32"));
        return value;
      case "Time":
      case "MicroTime": {
        const decoded = normalizeTimeValue(type, value);
        if (!decoded.ok) throw this.abort(decoded.error);
        return value;
      }
    }
  }
}

const ZERO: unique symbol = Symbol("zero");

function zeroValue(node: SchemaNode): unknown {
  if (node.kind === "struct") return {};
  if (node.kind !== "scalar") return null;
  switch (node.type) {
    case "string":
      return "";
    case "bool":
      return false;
    case "int32":
    case "int64":
    case "float64":
    case "IntOrString":
      return 0;
    case "Quantity":
      return "0";
    default:
      return null;
  }
}

function fitsInt(n: number, type: "int32" | "int64"): boolean {
  if (!Number.isInteger(n)) return false;
  return type === "int32" ? n >= -2147483648 && n <= 2147483647 : n >= -(2 ** 63) && n < 2 ** 63;
}

/** A JSON number's text as the client likely wrote it (the original literal is gone). */
/** A number as encoding/json quotes it in an UnmarshalTypeError (`number 1.5`). */
export function goNumber(n: number): string {
  return String(n).replace("e+", "e");
}

/**
 * The object decoded into the Go types of its kind in `version` (an unserved version or kind
 * is not checked): the first decode error, or the object with nulls resolved as Go does.
 */
export function decodeTyped(
  kind: string,
  version: string,
  object: Record<string, unknown>,
): TypedDecoded {
  const schema = kindDefinition(kind)?.versions.find((v) => v.version === version)?.schema;
  if (!schema) return { ok: true, value: object };
  const decoder = new Decoder();
  try {
    const value = decoder.struct(schema, object, { struct: "", path: "" });
    if (decoder.saved !== undefined)
      return { ok: false, error: decoder.saved, path: decoder.savedPath };
    return { ok: true, value: value as Record<string, unknown> };
  } catch (err) {
    if (err instanceof Abort) return { ok: false, error: err.error, path: err.path };
    throw err;
  }
}

const BASE64_ALPHABET = /^[A-Za-z0-9+/]$/;

/**
 * Where Go's base64.StdEncoding stops decoding `text` (CorruptInputError's offset), or null when
 * it decodes: quanta of four, `=` padding only at the end, CR and LF skipped anywhere.
 */
export function base64ErrorAt(text: string): number | null {
  const newline = (i: number) => text[i] === "\n" || text[i] === "\r";
  let si = 0;
  for (;;) {
    let j = 0;
    while (j < 4) {
      if (si === text.length) return j === 0 ? null : si - j;
      const ch = text[si++]!;
      if (ch === "\n" || ch === "\r") continue;
      if (BASE64_ALPHABET.test(ch)) {
        j++;
        continue;
      }
      if (ch !== "=" || j < 2) return si - 1;
      if (j === 2) {
        // "==": the second one must follow (newlines aside).
        while (si < text.length && newline(si)) si++;
        if (si === text.length) return text.length;
        if (text[si] !== "=") return si - 1;
        si++;
      }
      while (si < text.length && newline(si)) si++;
      return si < text.length ? si : null;
    }
  }
}
