// Server-side apply and metadata.managedFields, as kube-apiserver v1.34 does them with
// sigs.k8s.io/structured-merge-diff (SMD) and k8s.io/apimachinery's managedfields package:
// field sets (FieldsV1 tries), a schema per served kind (which maps are structs, which lists are
// associative and by which keys, what is atomic), Update tracking (a writer takes the fields it
// changed from everyone else), Apply (merge, ownership, conflicts, removal of fields the applier
// dropped), and the Status of an apply conflict. Pure: no I/O, time is passed in.
import { isRecord as isObject } from "../api/json.js";
import { root } from "./kinds/meta.js";
import { kindDefinition } from "./kinds/registry.js";
import { type ApplySchema, DEDUCED } from "./kinds/types.js";

// ---------------------------------------------------------------------------------------------
// Field sets

/**
 * A set of field paths as a trie keyed by serialized path elements (`f:name`,
 * `k:{"name":"app"}`, `v:"x"`, `i:0`), exactly the shape of FieldsV1: `self` is the `.` entry
 * (the path itself is a member).
 */
export interface FieldSet {
  self: boolean;
  children: Map<string, FieldSet>;
}

export type FieldPath = readonly string[];

export function emptySet(): FieldSet {
  return { self: false, children: new Map() };
}

export function setOf(paths: readonly FieldPath[]): FieldSet {
  const set = emptySet();
  for (const p of paths) insertPath(set, p);
  return set;
}

export function insertPath(set: FieldSet, path: FieldPath): void {
  let node = set;
  for (const pe of path) {
    let child = node.children.get(pe);
    if (!child) {
      child = emptySet();
      node.children.set(pe, child);
    }
    node = child;
  }
  node.self = true;
}

function nodeAt(set: FieldSet, path: FieldPath): FieldSet | undefined {
  let node: FieldSet | undefined = set;
  for (const pe of path) {
    node = node.children.get(pe);
    if (!node) return undefined;
  }
  return node;
}

export function hasPath(set: FieldSet, path: FieldPath): boolean {
  return nodeAt(set, path)?.self === true;
}

/** Whether the set has a member at `path` or below it. */
export function hasAtOrBelow(set: FieldSet, path: FieldPath): boolean {
  const node = nodeAt(set, path);
  return node !== undefined && !isEmptySet(node);
}

export function isEmptySet(set: FieldSet): boolean {
  if (set.self) return false;
  for (const child of set.children.values()) if (!isEmptySet(child)) return false;
  return true;
}

/** Every member path, in FieldsV1 order. */
export function memberPaths(set: FieldSet): FieldPath[] {
  const out: FieldPath[] = [];
  const walk = (node: FieldSet, path: string[]) => {
    if (node.self) out.push(path);
    for (const key of sortedKeys(node)) walk(node.children.get(key)!, [...path, key]);
  };
  walk(set, []);
  return out;
}

function combine(a: FieldSet, b: FieldSet, self: (x: boolean, y: boolean) => boolean): FieldSet {
  const out: FieldSet = { self: self(a.self, b.self), children: new Map() };
  const keys = new Set([...a.children.keys(), ...b.children.keys()]);
  for (const key of keys) {
    const child = combine(
      a.children.get(key) ?? emptySet(),
      b.children.get(key) ?? emptySet(),
      self,
    );
    if (!isEmptySet(child)) out.children.set(key, child);
  }
  return out;
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  return combine(a, b, (x, y) => x || y);
}

/** Members of `a` that are not members of `b` (SMD Set.Difference: member-wise). */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  return combine(a, b, (x, y) => x && !y);
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  return combine(a, b, (x, y) => x && y);
}

/** Members of `a` not at or below any member of `b` (SMD RecursiveDifference). */
export function recursiveDifference(a: FieldSet, b: FieldSet): FieldSet {
  if (b.self) return emptySet();
  const out: FieldSet = { self: a.self, children: new Map() };
  for (const [key, child] of a.children) {
    const other = b.children.get(key);
    const next = other ? recursiveDifference(child, other) : child;
    if (!isEmptySet(next)) out.children.set(key, next);
  }
  return out;
}

export function setsEqual(a: FieldSet, b: FieldSet): boolean {
  return isEmptySet(difference(a, b)) && isEmptySet(difference(b, a));
}

// Path elements: FieldsV1 keys, ordered as SMD orders them (field < key < value < index).

type PathElement =
  | { type: "f"; name: string }
  | { type: "k"; fields: [string, unknown][] }
  | { type: "v"; value: unknown }
  | { type: "i"; index: number };

export function fieldElement(name: string): string {
  return `f:${name}`;
}

function keyElement(fields: [string, unknown][]): string {
  const sorted = [...fields].sort(([a], [b]) => compareStrings(a, b));
  return `k:${JSON.stringify(Object.fromEntries(sorted))}`;
}

function valueElement(value: unknown): string {
  return `v:${JSON.stringify(value)}`;
}

function parseElement(key: string): PathElement | null {
  const prefix = key.slice(0, 2);
  const rest = key.slice(2);
  try {
    switch (prefix) {
      case "f:":
        return { type: "f", name: rest };
      case "k:": {
        const parsed = JSON.parse(rest) as unknown;
        if (!isObject(parsed)) return null;
        return {
          type: "k",
          fields: Object.entries(parsed).sort(([a], [b]) => compareStrings(a, b)),
        };
      }
      case "v:":
        return { type: "v", value: JSON.parse(rest) as unknown };
      case "i:": {
        if (!/^(0|[1-9][0-9]*)$/.test(rest)) return null;
        return { type: "i", index: Number(rest) };
      }
      default:
        return null;
    }
  } catch {
    return null;
  }
}

function compareStrings(a: string, b: string): number {
  // Go's strings.Compare is bytewise: compare UTF-8 encodings.
  if (a === b) return 0;
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return Buffer.compare(x, y);
}

function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === "number") return 1;
  if (typeof value === "string") return 2;
  if (typeof value === "boolean") return 3;
  if (Array.isArray(value)) return 4;
  return 5;
}

/** SMD value.Compare: by type, then by value. */
function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return compareStrings(JSON.stringify(a), JSON.stringify(b));
}

const ELEMENT_RANK = { f: 0, k: 1, v: 2, i: 3 } as const;

function compareElements(a: string, b: string): number {
  const pa = parseElement(a);
  const pb = parseElement(b);
  if (!pa || !pb) return compareStrings(a, b);
  if (pa.type !== pb.type) return ELEMENT_RANK[pa.type] - ELEMENT_RANK[pb.type];
  switch (pa.type) {
    case "f":
      return compareStrings(pa.name, (pb as { name: string }).name);
    case "k": {
      const fb = (pb as { fields: [string, unknown][] }).fields;
      for (let i = 0; ; i++) {
        if (i >= pa.fields.length && i >= fb.length) return 0;
        if (i >= pa.fields.length) return -1;
        if (i >= fb.length) return 1;
        const c = compareStrings(pa.fields[i]![0], fb[i]![0]);
        if (c !== 0) return c;
        const v = compareValues(pa.fields[i]![1], fb[i]![1]);
        if (v !== 0) return v;
      }
    }
    case "v":
      return compareValues(pa.value, (pb as { value: unknown }).value);
    case "i":
      return pa.index - (pb as { index: number }).index;
  }
}

function sortedKeys(node: FieldSet): string[] {
  return [...node.children.keys()].sort(compareElements);
}

/** SMD value.ToString: strings quoted, numbers and booleans bare. */
function valueToString(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(valueToString).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}=${valueToString(v)}`)
      .join(",")}}`;
  }
  return String(value);
}

/** fieldpath.Path.String(): `.spec.template.spec.containers[name="app"].image`. */
export function pathString(path: FieldPath): string {
  let out = "";
  for (const key of path) {
    const pe = parseElement(key);
    if (!pe) out += "{{invalid path element}}";
    else if (pe.type === "f") out += `.${pe.name}`;
    else if (pe.type === "k")
      out += `[${pe.fields.map(([k, v]) => `${k}=${valueToString(v)}`).join(",")}]`;
    else if (pe.type === "v") out += `[=${valueToString(pe.value)}]`;
    else out += `[${pe.index}]`;
  }
  return out;
}

// FieldsV1: the trie as JSON, `.` for the node itself, `{}` for a leaf member.

export type FieldsV1 = { [key: string]: FieldsV1 };

export function encodeFieldsV1(set: FieldSet): FieldsV1 {
  const out: FieldsV1 = {};
  for (const key of sortedKeys(set)) {
    const child = set.children.get(key)!;
    if (isEmptySet(child)) continue;
    if (child.children.size === 0 || [...child.children.values()].every(isEmptySet)) {
      out[key] = {};
      continue;
    }
    const inner: FieldsV1 = {};
    if (child.self) inner["."] = {};
    Object.assign(inner, encodeFieldsV1(child));
    out[key] = inner;
  }
  return out;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: string };

export function decodeFieldsV1(raw: unknown): Result<FieldSet> {
  const set = emptySet();
  const walk = (node: FieldSet, value: unknown, where: string): string | null => {
    if (!isObject(value)) return `expected an object at ${where || "the root"}`;
    for (const [key, child] of Object.entries(value)) {
      if (key === ".") {
        node.self = true;
        continue;
      }
      if (!parseElement(key)) return `invalid path element ${JSON.stringify(key)}`;
      const next = emptySet();
      const error = walk(next, child, `${where}/${key}`);
      if (error) return error;
      // A leaf `{}` is a member; an inner node is one only with `.`.
      if (isObject(child) && Object.keys(child).length === 0) next.self = true;
      node.children.set(key, next);
    }
    return null;
  };
  const error = walk(set, raw, "");
  return error ? { ok: false, error } : { ok: true, value: set };
}

// ---------------------------------------------------------------------------------------------
// Schemas: each served kind's apply schema is in its definition (./kinds/); anything else is
// "deduced" as upstream does for unknown types: granular maps, atomic lists.

export type Schema = ApplySchema;

const GENERIC = root(DEDUCED, DEDUCED);

/** The schema of a served kind in one version (unknown kinds: deduced spec and status). */
export function schemaFor(kind: string, apiVersion: string): Schema {
  const definition = kindDefinition(kind);
  if (!definition) return GENERIC;
  const prefix = definition.group ? `${definition.group}/` : "";
  // Another version of a served kind reads as the preferred one.
  const served =
    definition.versions.find((v) => `${prefix}${v.version}` === apiVersion) ??
    definition.versions[0];
  return served?.apply ?? GENERIC;
}

// ---------------------------------------------------------------------------------------------
// Typed walks over objects

type Json = Record<string, unknown>;

function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  return false;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

function childSchema(schema: Schema, key: string): Schema {
  if (schema.kind === "struct") return schema.fields[key] ?? DEDUCED;
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
function isLeafSchema(schema: Schema, value: unknown): boolean {
  switch (schema.kind) {
    case "scalar":
      return true;
    case "deduced":
      return !isObject(value);
    case "struct":
    case "map":
      return schema.atomic === true;
    case "list":
      return schema.type === "atomic";
  }
}

class ShapeError extends Error {}

/** The path element of an associative or set list item. */
function itemElement(schema: Schema & { kind: "list" }, item: unknown, index: number): string {
  if (schema.type === "set") return valueElement(item);
  if (schema.type === "map" && schema.keys) {
    if (!isObject(item)) throw new ShapeError(`element ${index}: expected a map`);
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
function indexItems(
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

/** SMD ToFieldSet: the fields an applied configuration sets. */
export function toFieldSet(value: unknown, schema: Schema): FieldSet {
  const set = emptySet();
  const walk = (v: unknown, s: Schema, path: string[]) => {
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
        walk(items.get(pe), s.element, [...path, pe]);
        insertPath(set, [...path, pe]);
      }
      return;
    }
    if (!isObject(v)) {
      if (v === null) insertPath(set, path);
      return;
    }
    for (const [key, child] of Object.entries(v)) {
      const cs = childSchema(s, key);
      const childPath = [...path, fieldElement(key)];
      walk(child, cs, childPath);
      if (!isDeclared(s, key)) insertPath(set, childPath);
    }
  };
  walk(value, schema, []);
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
  const leaf = (l: unknown, r: unknown, path: string[]) => {
    if (l === undefined) insertPath(out.added, path);
    else if (r === undefined) insertPath(out.removed, path);
    else if (!deepEqual(l, r)) insertPath(out.modified, path);
  };
  const walk = (l: unknown, r: unknown, s: Schema, path: string[]) => {
    if (l === undefined && r === undefined) return;
    const bothEmpty = isEmptyValue(l) && isEmptyValue(r);
    if (isLeafSchema(s, r === undefined ? l : r) || bothEmpty) {
      leaf(l, r, path);
      return;
    }
    if (s.kind === "list") {
      if (!Array.isArray(l) && !Array.isArray(r)) {
        leaf(l, r, path);
        return;
      }
      const left = indexItems(s, l, true);
      const right = indexItems(s, r, true);
      const keys = [...left.order, ...right.order.filter((pe) => !left.items.has(pe))];
      for (const pe of keys)
        walk(left.items.get(pe), right.items.get(pe), s.element, [...path, pe]);
    } else {
      const lo = isObject(l) ? l : undefined;
      const ro = isObject(r) ? r : undefined;
      if ((l !== undefined && !lo) || (r !== undefined && !ro)) {
        leaf(l, r, path);
        return;
      }
      const keys = new Set([...Object.keys(lo ?? {}), ...Object.keys(ro ?? {})]);
      if (s.kind === "struct") for (const k of Object.keys(s.fields)) keys.add(k);
      for (const key of keys) {
        const cs = childSchema(s, key);
        walk(childValue(lo, key, cs), childValue(ro, key, cs), cs, [...path, fieldElement(key)]);
      }
    }
    // SMD's post-item hook: a whole map, list or item that appeared or went away.
    if (l === undefined) insertPath(out.added, path);
    else if (r === undefined) insertPath(out.removed, path);
  };
  walk(lhs, rhs, schema, []);
  return out;
}

/**
 * SMD's ordered merge of two lists by path element: items only in `lhs` keep their place,
 * shared and new items follow `rhs`'s order.
 */
function mergeOrder(lhs: string[], rhs: string[]): string[] {
  const inLeft = new Set(lhs);
  const inRight = new Set(rhs);
  const shared = rhs.filter((pe) => inLeft.has(pe));
  let nextShared: string | undefined = shared.shift();
  const out: string[] = [];
  let l = 0;
  let r = 0;
  while (l < lhs.length || r < rhs.length) {
    if (l < lhs.length && r < rhs.length) {
      const pe = lhs[l]!;
      if (pe === rhs[r]) {
        out.push(pe);
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      if (inRight.has(pe) && nextShared !== undefined && nextShared !== pe) {
        l++;
        continue;
      }
    }
    if (l < lhs.length && !inRight.has(lhs[l]!)) {
      out.push(lhs[l]!);
      l++;
      continue;
    }
    if (r < rhs.length) {
      const pe = rhs[r]!;
      out.push(pe);
      r++;
      if (nextShared === pe) nextShared = shared.shift();
      continue;
    }
    l++;
  }
  return out;
}

/** SMD Merge: the applied configuration over the live object. */
export function merge(live: unknown, config: unknown, schema: Schema): unknown {
  if (config === undefined) return live;
  if (live === undefined || isLeafSchema(schema, config)) return structuredClone(config);
  if (schema.kind === "list") {
    if (!Array.isArray(config) || !Array.isArray(live)) return structuredClone(config);
    const left = indexItems(schema, live, true);
    const right = indexItems(schema, config, false);
    return mergeOrder(left.order, right.order).map((pe) =>
      merge(left.items.get(pe), right.items.get(pe), schema.element),
    );
  }
  if (!isObject(config) || !isObject(live)) return structuredClone(config);
  const out: Json = { ...live };
  for (const [key, value] of Object.entries(config)) {
    out[key] = merge(live[key], value, childSchema(schema, key));
  }
  return out;
}

/** Drops null values (a null in an applied configuration leaves the field unset). */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v);
  return out;
}

/**
 * SMD prune: removes what the applier owned before (`last`) and owns no more, unless some
 * manager (the applier included) still owns it or something below it. Key fields of a kept list
 * item stay; a struct emptied by the removal goes too.
 */
function prune(value: unknown, schema: Schema, last: FieldSet, keep: FieldSet): unknown {
  const walk = (v: unknown, s: Schema, lastNode: FieldSet, path: string[]): unknown => {
    if (s.kind === "list") {
      if (!Array.isArray(v) || s.type === "atomic") return v;
      const out: unknown[] = [];
      v.forEach((item, index) => {
        let pe: string;
        try {
          pe = itemElement(s, item, index);
        } catch {
          out.push(item);
          return;
        }
        const result = pruneChild(item, s.element, lastNode, [...path, pe], pe, s.keys ?? []);
        if (result !== REMOVE) out.push(result);
      });
      return out;
    }
    if (!isObject(v) || isLeafSchema(s, v)) return v;
    const out: Json = {};
    for (const [key, child] of Object.entries(v)) {
      const pe = fieldElement(key);
      const result = pruneChild(child, childSchema(s, key), lastNode, [...path, pe], pe, []);
      if (result !== REMOVE) out[key] = result;
    }
    return out;
  };
  const pruneChild = (
    child: unknown,
    s: Schema,
    lastNode: FieldSet,
    path: string[],
    pe: string,
    keyFields: readonly string[],
  ): unknown => {
    const lastChild = lastNode.children.get(pe);
    if (!lastChild || isEmptySet(lastChild)) return child;
    if (!hasAtOrBelow(keep, path)) {
      if (lastChild.self) return REMOVE;
    } else if (keyFields.length > 0 && isObject(child)) {
      // A kept associative-list item keeps its key fields.
      const inner = walk(child, s, lastChild, path) as Json;
      for (const k of keyFields) if (child[k] !== undefined) inner[k] = child[k];
      return inner;
    }
    const pruned = walk(child, s, lastChild, path);
    if (isEmptyValue(pruned) && !isEmptyValue(child)) return REMOVE;
    return pruned;
  };
  return walk(value, schema, last, []);
}
const REMOVE = Symbol("remove");

// ---------------------------------------------------------------------------------------------
// Managers

export type Operation = "Apply" | "Update";

/** metav1.ManagedFieldsEntry as served (field order as upstream's struct). */
export interface ManagedFieldsEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: FieldsV1;
  subresource?: string;
}

export interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource: string;
  time?: string;
  set: FieldSet;
}

/** BuildManagerIdentifier: Apply managers are one manager whatever version they applied. */
export function managerKey(
  m: Pick<Manager, "manager" | "operation" | "apiVersion" | "subresource">,
) {
  return JSON.stringify([
    m.manager,
    m.operation,
    m.operation === "Apply" ? "" : m.apiVersion,
    m.subresource,
  ]);
}

/** DecodeManagedFields: errors are data (the caller falls back to the live object's). */
export function decodeManagedFields(raw: unknown): Result<Manager[]> {
  if (raw === undefined || raw === null) return { ok: true, value: [] };
  if (!Array.isArray(raw)) return { ok: false, error: "managedFields must be a list" };
  const out: Manager[] = [];
  for (const [i, entry] of raw.entries()) {
    if (!isObject(entry)) return { ok: false, error: `managed fields entry ${i} is not an object` };
    if (entry.operation !== "Apply" && entry.operation !== "Update") {
      return { ok: false, error: "operation must be `Apply` or `Update`" };
    }
    if (typeof entry.apiVersion !== "string" || entry.apiVersion === "") {
      return { ok: false, error: "apiVersion must not be empty" };
    }
    if (entry.fieldsType === undefined || entry.fieldsType === "") {
      return { ok: false, error: `missing fieldsType in managed fields entry ${i}` };
    }
    if (entry.fieldsType !== "FieldsV1") {
      return {
        ok: false,
        error: `invalid fieldsType ${JSON.stringify(entry.fieldsType)} in managed fields entry ${i}`,
      };
    }
    const set = decodeFieldsV1(entry.fieldsV1 ?? {});
    if (!set.ok) return { ok: false, error: `error decoding set: ${set.error}` };
    const manager: Manager = {
      manager: typeof entry.manager === "string" ? entry.manager : "",
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      subresource: typeof entry.subresource === "string" ? entry.subresource : "",
      set: set.value,
    };
    if (typeof entry.time === "string") manager.time = entry.time;
    out.push(manager);
  }
  return { ok: true, value: out };
}

/** EncodeObjectManagedFields: empty sets dropped; sorted by operation, time, manager, version, subresource. */
export function encodeManagedFields(managers: readonly Manager[]): ManagedFieldsEntry[] {
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  return managers
    .filter((m) => !isEmptySet(m.set))
    .sort(
      (p, q) =>
        compareStrings(p.operation, q.operation) ||
        seconds(p.time) - seconds(q.time) ||
        compareStrings(p.manager, q.manager) ||
        compareStrings(p.apiVersion, q.apiVersion) ||
        compareStrings(p.subresource, q.subresource),
    )
    .map((m) => {
      const entry: ManagedFieldsEntry = {
        manager: m.manager,
        operation: m.operation,
        apiVersion: m.apiVersion,
      } as ManagedFieldsEntry;
      if (m.time) entry.time = m.time;
      entry.fieldsType = "FieldsV1";
      entry.fieldsV1 = encodeFieldsV1(m.set);
      if (m.subresource) entry.subresource = m.subresource;
      return entry;
    });
}

/** isResetManagedFields: `[]` or `[{}]` in a request clears the managed fields. */
export function isResetManagedFields(raw: unknown): boolean {
  if (!Array.isArray(raw)) return false;
  if (raw.length === 0) return true;
  return raw.length === 1 && isObject(raw[0]) && Object.keys(raw[0]).length === 0;
}

/** The stripMetaManager's set: fields never tracked. */
const STRIPPED = setOf([
  ["f:apiVersion"],
  ["f:kind"],
  ["f:metadata"],
  ...[
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "clusterName",
    "generation",
    "managedFields",
    "resourceVersion",
  ].map((f) => ["f:metadata", `f:${f}`]),
]);

/** How to see an object in a manager's apiVersion (the HPA is served as v1 and v2). */
export interface VersionView {
  schema: Schema;
  view(object: unknown): unknown;
}
export type Versions = (apiVersion: string) => VersionView | undefined;

export interface WriteContext {
  /** The writer: `?fieldManager=` or the User-Agent's program name. */
  manager: string;
  /** The request's apiVersion (objects passed in are in it). */
  apiVersion: string;
  /** "" for the main resource, "status" or "scale". */
  subresource: string;
  /** RFC 3339 time of the write. */
  now: string;
  versions: Versions;
  /** Fields the strategy resets for this endpoint (status on the main resource, …). */
  ignored?: FieldSet;
}

/** A field conflict: who owns what the applier would change. */
export interface Conflict {
  manager: Manager;
  path: FieldPath;
}

/**
 * SMD Updater.update: ownership moves away from every other manager for the fields `next`
 * changes (conflicts if not forced), and removed fields leave their sets.
 */
function updateOwners(
  live: unknown,
  next: unknown,
  managers: Manager[],
  self: string,
  ctx: WriteContext,
  force: boolean,
): { ok: true; managers: Manager[]; own: Comparison } | { ok: false; conflicts: Conflict[] } {
  const comparisons = new Map<string, Comparison | null>();
  const compareIn = (apiVersion: string): Comparison | null => {
    if (!comparisons.has(apiVersion)) {
      const version = ctx.versions(apiVersion);
      comparisons.set(
        apiVersion,
        version ? compare(version.view(live), version.view(next), version.schema) : null,
      );
    }
    return comparisons.get(apiVersion)!;
  };
  const own = compareIn(ctx.apiVersion) ?? {
    added: emptySet(),
    modified: emptySet(),
    removed: emptySet(),
  };
  const conflicts: Conflict[] = [];
  const out: Manager[] = [];
  for (const m of managers) {
    if (managerKey(m) === self) {
      out.push(m);
      continue;
    }
    const cmp = compareIn(m.apiVersion);
    if (!cmp) {
      out.push(m);
      continue;
    }
    const taken = intersection(m.set, union(cmp.modified, cmp.added));
    for (const path of memberPaths(taken)) conflicts.push({ manager: m, path });
    out.push({ ...m, set: difference(difference(m.set, taken), cmp.removed) });
  }
  if (!force && conflicts.length > 0) return { ok: false, conflicts };
  return { ok: true, managers: out.filter((m) => !isEmptySet(m.set)), own };
}

function withoutStripped(set: FieldSet, ignored?: FieldSet): FieldSet {
  const stripped = difference(set, STRIPPED);
  return ignored ? recursiveDifference(stripped, ignored) : stripped;
}

/**
 * Records an Update (create, update, non-apply patch): `managed` are the entries to start from
 * (the request's or the live object's), `live` is undefined on create. Returns the new entries.
 */
export function trackUpdate(
  live: unknown,
  next: unknown,
  managed: Manager[],
  ctx: WriteContext,
): Manager[] {
  // skipNonAppliedManager: an existing object nobody tracks stays untracked.
  if (managed.length === 0 && live !== undefined) return [];
  const identity = {
    manager: ctx.manager,
    operation: "Update" as const,
    apiVersion: ctx.apiVersion,
    subresource: ctx.subresource,
  };
  const self = managerKey(identity);
  const before = live ?? {};
  const result = updateOwners(before, next, managed, "\u0000current-operation", ctx, true);
  if (!result.ok) return managed; // unreachable: forced
  const changed = withoutStripped(union(result.own.modified, result.own.added), ctx.ignored);
  const others = result.managers.filter((m) => managerKey(m) !== self);
  const previous = result.managers.find((m) => managerKey(m) === self);
  if (isEmptySet(changed)) return previous ? [...others, previous] : others;
  // managedFieldsUpdater: the writer's entry is its earlier fields plus what it changed now.
  const kept = previous ? difference(previous.set, result.own.removed) : emptySet();
  return [...others, { ...identity, time: ctx.now, set: union(kept, changed) }];
}

export type ApplyResult =
  | { ok: true; object: unknown; managers: Manager[]; changed: boolean }
  | { ok: false; conflicts: Conflict[] }
  | { ok: false; error: string };

/**
 * Server-side apply of `config` (the request's version) to `live` (undefined on create):
 * merge, prune fields the applier dropped, move ownership, detect conflicts unless `force`.
 */
export function applyConfig(
  live: unknown,
  config: unknown,
  managed: Manager[],
  ctx: WriteContext & { force: boolean },
): ApplyResult {
  const version = ctx.versions(ctx.apiVersion);
  if (!version) return { ok: false, error: `unknown version ${ctx.apiVersion}` };
  const identity = {
    manager: ctx.manager,
    operation: "Apply" as const,
    apiVersion: ctx.apiVersion,
    subresource: ctx.subresource,
  };
  const self = managerKey(identity);
  let set: FieldSet;
  let merged: unknown;
  try {
    set = withoutStripped(toFieldSet(config, version.schema), ctx.ignored);
    merged = merge(live ?? {}, config, version.schema);
  } catch (err) {
    if (err instanceof ShapeError) return { ok: false, error: err.message };
    throw err;
  }
  const last = managed.find((m) => managerKey(m) === self);
  const others = managed.filter((m) => managerKey(m) !== self);
  const applier: Manager = { ...identity, set, ...(last?.time ? { time: last.time } : {}) };
  if (last && !isEmptySet(last.set)) {
    const keep = others.reduce((acc, m) => union(acc, m.set), set);
    merged = prune(merged, version.schema, last.set, keep);
  }
  merged = dropNulls(merged);
  const result = updateOwners(live ?? {}, merged, [...others, applier], self, ctx, ctx.force);
  if (!result.ok) return result;
  const changed = !deepEqual(live ?? {}, merged);
  const managers = result.managers.map((m) =>
    managerKey(m) === self && changed ? { ...m, time: ctx.now } : m,
  );
  return { ok: true, object: merged, managers, changed };
}

/**
 * applyConfig with the lastAppliedManager's upgrade rule: when the manager is kubectl's default
 * `kubectl`, conflicts on fields still as kubectl's last-applied-configuration left them are
 * forced, so `kubectl apply --server-side` takes over from client-side apply.
 */
export function serverSideApply(
  live: unknown,
  config: unknown,
  managed: Manager[],
  ctx: WriteContext & { force: boolean },
): ApplyResult {
  const first = applyConfig(live, config, managed, ctx);
  if (first.ok || !("conflicts" in first) || ctx.manager !== "kubectl") return first;
  const version = ctx.versions(ctx.apiVersion);
  const allowed = version ? allowedFromLastApplied(live, ctx.apiVersion, version.schema) : null;
  if (!allowed) return first;
  const remaining = first.conflicts.filter((c) => !hasPath(allowed, c.path));
  if (remaining.length > 0) return { ok: false, conflicts: remaining };
  return applyConfig(live, config, managed, { ...ctx, force: true });
}

/**
 * The lastAppliedManager's allowance for `kubectl apply --server-side` after client-side apply:
 * conflicts on fields whose live value still equals kubectl's last-applied-configuration are
 * forced (the applier takes them over).
 */
export function allowedFromLastApplied(
  live: unknown,
  requestApiVersion: string,
  schema: Schema,
): FieldSet | null {
  const annotations =
    isObject(live) && isObject(live.metadata) ? live.metadata.annotations : undefined;
  const text = isObject(annotations)
    ? annotations["kubectl.kubernetes.io/last-applied-configuration"]
    : undefined;
  if (typeof text !== "string" || text === "") return null;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(lastApplied) || lastApplied.apiVersion !== requestApiVersion) return null;
  try {
    const fields = toFieldSet(lastApplied, schema);
    const cmp = compare(lastApplied, live, schema);
    return difference(difference(difference(fields, cmp.modified), cmp.added), cmp.removed);
  } catch {
    return null;
  }
}

/** ScaleHandler: a write through /scale that changes replicas takes `.spec.replicas` from all. */
export function trackScale(
  managed: Manager[],
  replicasChanged: boolean,
  ctx: Pick<WriteContext, "manager" | "apiVersion" | "now">,
): Manager[] {
  if (managed.length === 0 || !replicasChanged) return managed;
  const replicas = setOf([["f:spec", "f:replicas"]]);
  const identity = {
    manager: ctx.manager,
    operation: "Update" as const,
    apiVersion: ctx.apiVersion,
    subresource: "scale",
  };
  const self = managerKey(identity);
  const out = managed
    .filter((m) => managerKey(m) !== self)
    .map((m) => ({ ...m, set: difference(m.set, replicas) }))
    .filter((m) => !isEmptySet(m.set));
  out.push({ ...identity, time: ctx.now, set: replicas });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Conflicts as a Status

/** printManager: `"kubectl" with subresource "scale" using apps/v1` (Update managers say their version). */
export function describeManager(m: Manager): string {
  let text = JSON.stringify(m.manager);
  if (m.subresource) text += ` with subresource ${JSON.stringify(m.subresource)}`;
  // The identifier has no time, so upstream prints no "at …".
  if (m.operation === "Update") text += ` using ${m.apiVersion}`;
  return text;
}

/** NewConflictError: a 409 Conflict Status with one FieldManagerConflict cause per field. */
export function conflictStatus(conflicts: readonly Conflict[]) {
  const causes = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${describeManager(c.manager)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    message = `Apply failed with 1 conflict: conflict with ${describeManager(c.manager)}: ${pathString(c.path)}`;
  } else {
    const byManager = new Map<string, Conflict[]>();
    for (const c of conflicts) {
      const key = managerKey(c.manager);
      byManager.set(key, [...(byManager.get(key) ?? []), c]);
    }
    // Upstream sorts by the JSON manager identifier.
    const keys = [...byManager.keys()].sort((a, b) =>
      compareStrings(
        identifierJson(byManager.get(a)![0]!.manager),
        identifierJson(byManager.get(b)![0]!.manager),
      ),
    );
    const lines: string[] = [];
    for (const key of keys) {
      const group = byManager.get(key)!;
      lines.push(`conflicts with ${describeManager(group[0]!.manager)}:`);
      for (const c of group) lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
  }
  return {
    kind: "Status" as const,
    apiVersion: "v1" as const,
    metadata: {} as Record<string, never>,
    status: "Failure" as const,
    message,
    reason: "Conflict",
    details: { causes },
    code: 409,
  };
}

/** The manager identifier as Go marshals it (field order of ManagedFieldsEntry, omitempty). */
function identifierJson(m: Manager): string {
  const entry: Record<string, string> = {};
  if (m.manager) entry.manager = m.manager;
  entry.operation = m.operation;
  if (m.operation === "Update" && m.apiVersion) entry.apiVersion = m.apiVersion;
  if (m.subresource) entry.subresource = m.subresource;
  return JSON.stringify(entry);
}

// ---------------------------------------------------------------------------------------------
// The field manager's name and its validation

const FIELD_MANAGER_MAX_LENGTH = 128;

/** prefixFromUserAgent: the program name before the first `/`, printable, at most 128 bytes. */
export function managerFromUserAgent(userAgent: string): string {
  const program = userAgent.split("/")[0] ?? "";
  let out = "";
  let bytes = 0;
  for (const ch of program) {
    if (!isPrintable(ch)) continue;
    const size = Buffer.byteLength(ch, "utf8");
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

function isPrintable(ch: string): boolean {
  // Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space.
  return ch === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

export interface FieldManagerError {
  type: "FieldValueTooLong" | "FieldValueInvalid";
  field: string;
  badValue: unknown;
  detail: string;
}

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
export function validateFieldManager(name: string, field = "fieldManager"): FieldManagerError[] {
  const errors: FieldManagerError[] = [];
  if (Buffer.byteLength(name, "utf8") > FIELD_MANAGER_MAX_LENGTH) {
    errors.push({
      type: "FieldValueTooLong",
      field,
      badValue: "<value omitted>",
      detail: `may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
    });
  }
  let position = 0;
  for (const ch of name) {
    if (!isPrintable(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      errors.push({
        type: "FieldValueInvalid",
        field,
        badValue: name,
        detail: `invalid character U+${code} (at position ${position})`,
      });
    }
    position += Buffer.byteLength(ch, "utf8");
  }
  return errors;
}
