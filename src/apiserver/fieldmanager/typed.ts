// Typed values (SMD typed): an object read through its kind's apply schema — which maps are
// structs, which lists are associative and by which keys, what is atomic — into the field set
// it sets (toFieldSet) and the difference of two objects (compare).
import { isRecord } from "../../api/json.js";

import type { PatchStrategy } from "../../api/patch/strategic-merge-patch.js";
import { root } from "../../kinds/meta.js";
import { kindDefinition } from "../../kinds/registry.js";
import { DEDUCED as DEDUCED_NODE, jsonFields, type SchemaNode } from "../../kinds/schema.js";
import {
  emptySet,
  type FieldSet,
  fieldElement,
  insertPath,
  type Json,
  keyElement,
  valueElement,
} from "./fieldpath.js";
// Schemas: each served kind's apply schema is a view of its schema tree (../kinds/); anything
// else is "deduced" as upstream does for unknown types: granular maps, atomic lists.

/** What structured-merge-diff learns from the OpenAPI extensions and which Go fields are structs. */
export type ApplySchema =
  | { kind: "scalar" }
  | { kind: "deduced" }
  | { kind: "struct"; fields: Record<string, ApplySchema>; atomic?: boolean; zero?: boolean }
  | { kind: "map"; element: ApplySchema; atomic?: boolean; zero?: boolean }
  | {
      kind: "list";
      element: ApplySchema;
      type: "atomic" | "set" | "map";
      keys?: readonly string[];
      keyDefaults?: Readonly<Record<string, unknown>>;
      patch?: { mergeKey?: string; strategy: PatchStrategy };
    };

export type Schema = ApplySchema;

const DEDUCED: ApplySchema = { kind: "deduced" };
const views = new WeakMap<SchemaNode, ApplySchema>();

/**
 * The apply schema of a schema tree: its Go types without what SSA does not read (scalar
 * types, protobuf numbers); `deduced` parts stay deduced, and an atomic list's items are never
 * looked into.
 */
export function applySchemaOf(node: SchemaNode): ApplySchema {
  const cached = views.get(node);
  if (cached) return cached;
  const flags = (n: { atomic?: boolean; zero?: boolean }) => ({
    ...(n.atomic ? { atomic: true } : {}),
    ...(n.zero ? { zero: true } : {}),
  });
  let view: ApplySchema;
  switch (node.kind) {
    case "scalar":
      view = { kind: "scalar" };
      break;
    case "deduced":
      view = DEDUCED;
      break;
    case "struct":
      view = {
        kind: "struct",
        fields: Object.fromEntries(
          jsonFields(node).flatMap(([k, v]) => (v.applyUnlisted ? [] : [[k, applySchemaOf(v)]])),
        ),
        ...flags(node),
      };
      break;
    case "map":
      view = { kind: "map", element: applySchemaOf(node.element), ...flags(node) };
      break;
    case "list":
      view = {
        kind: "list",
        element: node.type === "atomic" ? DEDUCED : applySchemaOf(node.element),
        type: node.type,
        ...(node.keys ? { keys: node.keys } : {}),
        ...(node.keyDefaults ? { keyDefaults: node.keyDefaults } : {}),
        ...(node.patch ? { patch: node.patch } : {}),
      };
      break;
  }
  views.set(node, view);
  return view;
}

const GENERIC = applySchemaOf(root("", DEDUCED_NODE, DEDUCED_NODE));

/** The schema of a served kind in one version (unknown kinds: deduced spec and status). */
export function schemaFor(kind: string, apiVersion: string): Schema {
  const definition = kindDefinition(kind);
  if (!definition) return GENERIC;
  const prefix = definition.group ? `${definition.group}/` : "";
  // Another version of a served kind reads as the preferred one.
  const served =
    definition.versions.find((v) => `${prefix}${v.version}` === apiVersion) ??
    definition.versions[0];
  return served ? applySchemaOf(served.schema) : GENERIC;
}

// ---------------------------------------------------------------------------------------------
// Typed walks over objects

export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isRecord(value)) return Object.keys(value).length === 0;
  return false;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

export function childSchema(schema: Schema, key: string): Schema {
  if (schema.kind === "struct")
    return Object.hasOwn(schema.fields, key) ? schema.fields[key]! : DEDUCED;
  if (schema.kind === "map") return schema.element;
  return DEDUCED;
}

/** Whether a key of this map is a declared struct field (SMD inserts other keys as members). */
function isDeclared(schema: Schema, key: string): boolean {
  return schema.kind === "struct" && Object.hasOwn(schema.fields, key);
}

/** A child value as Go's typed conversion sees it: non-pointer structs are always there. */
function childValue(parent: Json | undefined, key: string, schema: Schema): unknown {
  const value = parent?.[key];
  if (value === undefined && parent !== undefined && (schema as { zero?: boolean }).zero) return {};
  return value;
}

/** Whether a node is compared and owned as one value (atomic, scalar, deduced non-map). */
export function isLeafSchema(schema: Schema, value: unknown): boolean {
  switch (schema.kind) {
    case "scalar":
      return true;
    case "deduced":
      return !isRecord(value);
    case "struct":
    case "map":
      return schema.atomic === true;
    case "list":
      return schema.type === "atomic";
  }
}

export class ShapeError extends Error {}

/** The path element of an associative or set list item. */
export function itemElement(
  schema: Schema & { kind: "list" },
  item: unknown,
  index: number,
): string {
  if (schema.type === "set") return valueElement(item);
  if (schema.type === "map" && schema.keys) {
    if (!isRecord(item)) throw new ShapeError(`element ${index}: expected a map`);
    const fields: [string, unknown][] = [];
    for (const key of schema.keys) {
      let value = item[key];
      if (value === undefined) value = schema.keyDefaults?.[key];
      if (value === undefined) {
        throw new ShapeError(
          `element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`,
        );
      }
      fields.push([key, value]);
    }
    return keyElement(fields);
  }
  return `i:${index}`;
}

/** The items of a list keyed by path element (first occurrence wins), in list order. */
export function indexItems(
  schema: Schema & { kind: "list" },
  list: unknown,
  lenient: boolean,
): { order: string[]; items: Map<string, unknown> } {
  const order: string[] = [];
  const items = new Map<string, unknown>();
  if (!Array.isArray(list)) return { order, items };
  list.forEach((item, index) => {
    let pe: string;
    try {
      pe = itemElement(schema, item, index);
    } catch (err) {
      if (!lenient) throw err;
      pe = `i:${index}`;
    }
    if (items.has(pe)) return;
    items.set(pe, item);
    order.push(pe);
  });
  return { order, items };
}

/**
 * The keys a walk visits in a map or struct node, each once: the left value's, then the right
 * value's others, then the struct's other declared fields.
 */
function forEachKey(
  left: Json | undefined,
  right: Json | undefined,
  schema: Schema,
  visit: (key: string) => void,
): void {
  if (left) for (const key in left) visit(key);
  if (right) for (const key in right) if (!left || !Object.hasOwn(left, key)) visit(key);
  if (schema.kind !== "struct") return;
  for (const key in schema.fields) {
    if (left && Object.hasOwn(left, key)) continue;
    if (right && Object.hasOwn(right, key)) continue;
    visit(key);
  }
}

// The walks below keep one path and add and remove its last element as they go: insertPath
// copies the elements into the set, never the array.

/** SMD ToFieldSet: the fields an applied configuration sets. */
export function toFieldSet(value: unknown, schema: Schema): FieldSet {
  const set = emptySet();
  const path: string[] = [];
  const walk = (v: unknown, s: Schema) => {
    if (isLeafSchema(s, v)) {
      insertPath(set, path);
      return;
    }
    if (s.kind === "list") {
      if (!Array.isArray(v)) {
        if (v === null) insertPath(set, path);
        return;
      }
      const { order, items } = indexItems(s, v, false);
      for (const pe of order) {
        path.push(pe);
        walk(items.get(pe), s.element);
        insertPath(set, path);
        path.pop();
      }
      return;
    }
    if (!isRecord(v)) {
      if (v === null) insertPath(set, path);
      return;
    }
    for (const key in v) {
      const cs = childSchema(s, key);
      path.push(fieldElement(key));
      walk(v[key], cs);
      if (!isDeclared(s, key)) insertPath(set, path);
      path.pop();
    }
  };
  walk(value, schema);
  return set;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** SMD Compare: the fields added, modified and removed from `lhs` to `rhs`. */
export function compare(lhs: unknown, rhs: unknown, schema: Schema): Comparison {
  const out: Comparison = { added: emptySet(), modified: emptySet(), removed: emptySet() };
  const path: string[] = [];
  const leaf = (l: unknown, r: unknown) => {
    if (l === undefined) insertPath(out.added, path);
    else if (r === undefined) insertPath(out.removed, path);
    else if (!deepEqual(l, r)) insertPath(out.modified, path);
  };
  const walk = (l: unknown, r: unknown, s: Schema) => {
    if (l === undefined && r === undefined) return;
    const bothEmpty = isEmptyValue(l) && isEmptyValue(r);
    if (isLeafSchema(s, r === undefined ? l : r) || bothEmpty) {
      leaf(l, r);
      return;
    }
    if (s.kind === "list") {
      if (!Array.isArray(l) && !Array.isArray(r)) {
        leaf(l, r);
        return;
      }
      const left = indexItems(s, l, true);
      const right = indexItems(s, r, true);
      const keys = [...left.order, ...right.order.filter((pe) => !left.items.has(pe))];
      for (const pe of keys) {
        path.push(pe);
        walk(left.items.get(pe), right.items.get(pe), s.element);
        path.pop();
      }
    } else {
      const lo = isRecord(l) ? l : undefined;
      const ro = isRecord(r) ? r : undefined;
      if ((l !== undefined && !lo) || (r !== undefined && !ro)) {
        leaf(l, r);
        return;
      }
      forEachKey(lo, ro, s, (key) => {
        const cs = childSchema(s, key);
        path.push(fieldElement(key));
        walk(childValue(lo, key, cs), childValue(ro, key, cs), cs);
        path.pop();
      });
    }
    // SMD's post-item hook: a whole map, list or item that appeared or went away.
    if (l === undefined) insertPath(out.added, path);
    else if (r === undefined) insertPath(out.removed, path);
  };
  walk(lhs, rhs, schema);
  return out;
}
