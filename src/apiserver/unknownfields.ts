// Unknown-field detection (`?fieldValidation=`): the fields a request body may carry, a view of
// each kind's schema tree (./kinds/), deduced parts by their Go shape. Untyped deduced parts and
// structs that preserve unknown fields (not all their Go fields listed yet) accept anything.
import { isRecord } from "../api/json.js";
import { root } from "./kinds/meta.js";
import { kindDefinition } from "./kinds/registry.js";
import { DEDUCED, jsonFields, type SchemaNode } from "./kinds/schema.js";

/** The fields a body may carry: "any" accepts anything below; an array is a list's items. */
export type KnownFields = "any" | { [field: string]: KnownFields } | [KnownFields];
export type Schema = KnownFields;

const views = new WeakMap<SchemaNode, KnownFields>();

/** The known fields of a schema tree. */
export function knownFieldsOf(node: SchemaNode): KnownFields {
  const cached = views.get(node);
  if (cached) return cached;
  let view: KnownFields = "any";
  if (node.kind === "deduced" && node.shape) {
    view = knownFieldsOf(node.shape);
  } else if (node.kind === "struct" && !node.preserveUnknownFields) {
    view = Object.fromEntries(jsonFields(node).map(([k, v]) => [k, knownFieldsOf(v)]));
  } else if (node.kind === "list") {
    const item = knownFieldsOf(node.element);
    if (item !== "any") view = [item];
  }
  views.set(node, view);
  return view;
}

/** Kinds not served: the top level and metadata. */
const GENERIC = knownFieldsOf(root("", DEDUCED, DEDUCED));

/** The known fields of a kind in a version. */
export function schemaFor(kind: string, version: string): Schema {
  const definition = kindDefinition(kind);
  // Another version of a served kind reads as the preferred one.
  const served = definition?.versions.find((v) => v.version === version) ?? definition?.versions[0];
  return served ? knownFieldsOf(served.schema) : GENERIC;
}

export function unknownFields(kind: string, version: string, object: unknown): string[] {
  const schema = schemaFor(kind, version);
  const out: string[] = [];
  walk(object, schema, "", out);
  return out;
}

function walk(value: unknown, schema: Schema, path: string, out: string[]): void {
  if (schema === "any" || value === null || value === undefined) return;
  if (Array.isArray(schema)) {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, schema[0], `${path}[${i}]`, out);
    }
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const sub = schema[key];
    if (sub === undefined) out.push(childPath);
    else walk(child, sub, childPath, out);
  }
}

/** Removes an unknown field (Warn/Ignore drop it, as the decoder does). */
export function dropPath(object: Record<string, unknown>, path: string): void {
  const parts = path.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== "");
  let cur: unknown = object;
  for (const part of parts.slice(0, -1)) {
    cur = Array.isArray(cur) ? cur[Number(part)] : isRecord(cur) ? cur[part] : undefined;
  }
  const last = parts[parts.length - 1]!;
  if (isRecord(cur)) delete cur[last];
}
