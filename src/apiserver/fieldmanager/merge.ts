// Merge (SMD merge): an applied configuration merged into the live object, and the fields an
// applier stopped setting removed (prune) unless someone else owns them.
import { isRecord, memberOf, setMember } from "../../api/json.js";
import { type FieldSet, fieldElement, hasAtOrBelow, isEmptySet, type Json } from "./fieldpath.js";
import {
  childSchema,
  indexItems,
  isEmptyValue,
  isLeafSchema,
  itemElement,
  type Schema,
} from "./typed.js";

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
  if (!isRecord(config) || !isRecord(live)) return structuredClone(config);
  const out: Json = { ...live };
  for (const [key, value] of Object.entries(config)) {
    setMember(out, key, merge(memberOf(live, key), value, childSchema(schema, key)));
  }
  return out;
}

/** Drops null values (a null in an applied configuration leaves the field unset). */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) setMember(out, k, dropNulls(v));
  return out;
}

/**
 * SMD prune: removes what the applier owned before (`last`) and owns no more, unless some
 * manager (the applier included) still owns it or something below it. Key fields of a kept list
 * item stay; a struct emptied by the removal goes too.
 */
export function prune(value: unknown, schema: Schema, last: FieldSet, keep: FieldSet): unknown {
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
    if (!isRecord(v) || isLeafSchema(s, v)) return v;
    const out: Json = {};
    for (const [key, child] of Object.entries(v)) {
      const pe = fieldElement(key);
      const result = pruneChild(child, childSchema(s, key), lastNode, [...path, pe], pe, []);
      if (result !== REMOVE) setMember(out, key, result);
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
    } else if (keyFields.length > 0 && isRecord(child)) {
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
