// Field sets and paths (sigs.k8s.io/structured-merge-diff fieldpath): a set of field paths as
// a trie keyed by serialized path elements, its set algebra, path elements ordered as SMD
// orders them, and the FieldsV1 JSON encoding stored in metadata.managedFields.
import { isRecord } from "../../api/json.js";

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

// The set algebra builds no more than it must: sets are values (nothing changes a set once it is
// built), so a result shares every branch of its inputs that comes through unchanged, and has
// no empty branches.

/** The first `count` entries of `map` in a new Map. */
function firstEntries(map: Map<string, FieldSet>, count: number): Map<string, FieldSet> {
  const out = new Map<string, FieldSet>();
  if (count === 0) return out;
  for (const [key, child] of map) {
    out.set(key, child);
    if (out.size === count) break;
  }
  return out;
}

/**
 * `set` with `self` and each child replaced by `next(key, child)` (null drops it), then `added`
 * appended: `set` itself (or its children's Map) where nothing changed, null for no member.
 */
function rebuilt(
  set: FieldSet,
  self: boolean,
  next: (key: string, child: FieldSet) => FieldSet | null,
  added?: Map<string, FieldSet>,
): FieldSet | null {
  let changed: Map<string, FieldSet> | null = null;
  let index = 0;
  for (const [key, child] of set.children) {
    const kept = next(key, child);
    if (changed === null && kept !== child) changed = firstEntries(set.children, index);
    if (changed !== null && kept !== null) changed.set(key, kept);
    index++;
  }
  if (added !== undefined && added.size > 0) {
    changed ??= new Map(set.children);
    for (const [key, child] of added) changed.set(key, child);
  }
  const children = changed ?? set.children;
  if (!self && children.size === 0) return null;
  return changed === null && self === set.self ? set : { self, children };
}

/** `set` without its empty branches; null when it has no member. */
function pruned(set: FieldSet): FieldSet | null {
  return rebuilt(set, set.self, (_, child) => pruned(child));
}

function unionOf(a: FieldSet, b: FieldSet): FieldSet | null {
  const onlyInB = new Map<string, FieldSet>();
  for (const [key, child] of b.children) {
    if (a.children.has(key)) continue;
    const kept = pruned(child);
    if (kept !== null) onlyInB.set(key, kept);
  }
  return rebuilt(
    a,
    a.self || b.self,
    (key, child) => {
      const other = b.children.get(key);
      return other ? unionOf(child, other) : pruned(child);
    },
    onlyInB,
  );
}

function differenceOf(a: FieldSet, b: FieldSet): FieldSet | null {
  return rebuilt(a, a.self && !b.self, (key, child) => {
    const other = b.children.get(key);
    return other ? differenceOf(child, other) : pruned(child);
  });
}

function intersectionOf(a: FieldSet, b: FieldSet): FieldSet | null {
  return rebuilt(a, a.self && b.self, (key, child) => {
    const other = b.children.get(key);
    return other ? intersectionOf(child, other) : null;
  });
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  return unionOf(a, b) ?? emptySet();
}

/** Members of `a` that are not members of `b` (SMD Set.Difference: member-wise). */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  return differenceOf(a, b) ?? emptySet();
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  return intersectionOf(a, b) ?? emptySet();
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

export function keyElement(fields: [string, unknown][]): string {
  const sorted = [...fields].sort(([a], [b]) => compareStrings(a, b));
  return `k:${JSON.stringify(Object.fromEntries(sorted))}`;
}

export function valueElement(value: unknown): string {
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
        if (!isRecord(parsed)) return null;
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

/**
 * Go's strings.Compare: bytewise over the UTF-8 encodings, which is code point order: the UTF-16
 * units' order where the strings first differ, unless a surrogate is involved there (then the
 * UTF-8 bytes, which also turn a lone surrogate into U+FFFD as Go's decoder does).
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (isSurrogate(x) || isSurrogate(y)) {
      return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
    }
    return x - y;
  }
  return a.length - b.length;
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
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
  if (isRecord(value)) {
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
    if (!isRecord(value)) return `expected an object at ${where || "the root"}`;
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
      if (isRecord(child) && Object.keys(child).length === 0) next.self = true;
      node.children.set(key, next);
    }
    return null;
  };
  const error = walk(set, raw, "");
  return error ? { ok: false, error } : { ok: true, value: set };
}

export type Json = Record<string, unknown>;
