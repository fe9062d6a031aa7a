// Unknown-field detection (`?fieldValidation=`): the fields a request body may carry, a view of
// each kind's schema tree (./kinds/), deduced parts by their Go shape. Untyped deduced parts and
// structs that preserve unknown fields (not all their Go fields listed yet) accept anything.
import { isRecord } from "../api/json.js";
import { root } from "../kinds/meta.js";
import { kindDefinition } from "../kinds/registry.js";
import { DEDUCED, jsonFields, type SchemaNode } from "../kinds/schema.js";

/** A map's values (map[string]T of a struct T: each value's fields are known). */
export class MapOf {
  constructor(readonly values: KnownFields) {}
}

/**
 * The fields a body may carry: "any" accepts anything below; an array is a list's items, a
 * MapOf a map's values.
 */
export type KnownFields = "any" | MapOf | { [field: string]: KnownFields } | [KnownFields];
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
  } else if (node.kind === "map") {
    const values = knownFieldsOf(node.element);
    if (values !== "any") view = new MapOf(values);
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

/** An unknown field: where it is, and its name as the decoder prints it (`spec.containers[0].x`). */
export interface UnknownField {
  path: readonly (string | number)[];
  name: string;
}

export function unknownFields(kind: string, version: string, object: unknown): UnknownField[] {
  const schema = schemaFor(kind, version);
  const out: UnknownField[] = [];
  walk(object, schema, [], "", out);
  return out;
}

function walk(
  value: unknown,
  schema: Schema,
  path: (string | number)[],
  name: string,
  out: UnknownField[],
): void {
  if (schema === "any" || value === null || value === undefined) return;
  if (Array.isArray(schema)) {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, schema[0], [...path, i], `${name}[${i}]`, out);
    }
    return;
  }
  if (!isRecord(value)) return;
  if (schema instanceof MapOf) {
    for (const [key, child] of Object.entries(value)) {
      walk(child, schema.values, [...path, key], path.length > 0 ? `${name}.${key}` : key, out);
    }
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    const childPath = [...path, key];
    const childName = path.length > 0 ? `${name}.${key}` : key;
    // Own properties only: a key such as "constructor" is not a field.
    const sub = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (sub === undefined) out.push({ path: childPath, name: childName });
    else walk(child, sub, childPath, childName, out);
  }
}

/**
 * Removes an unknown field (Warn/Ignore drop it, as the decoder does). The path is structured:
 * keys may hold dots, brackets or be empty.
 */
export function dropField(
  object: Record<string, unknown>,
  path: readonly (string | number)[],
): void {
  let cur: unknown = object;
  for (const part of path.slice(0, -1)) {
    cur = Array.isArray(cur) ? cur[part as number] : isRecord(cur) ? cur[part] : undefined;
  }
  const last = path[path.length - 1];
  if (last !== undefined && isRecord(cur)) delete cur[last];
}
