// A CRD version's structural schema (`openAPIV3Schema`), as apiextensions-apiserver uses it: the
// schema tree its pruning and server-side apply read, defaults (`default:`), validation with
// kube-openapi's messages (`spec.replicas in body must be of type integer: "string"`), and the
// structural rules a CRD's schema must follow. Formats are checked where cheap.

import { setMember, withSortedKeys } from "../api/json.js";
import type { FieldError } from "../api/validation.js";
import {
  duplicate,
  forbidden,
  GoVerbatim,
  invalid,
  notSupported,
  OMITTED_VALUE,
  required,
  tooLong,
} from "../api/validation.js";
import { OBJECT_META } from "./meta.js";
import {
  atomicOf,
  DEDUCED,
  mapList,
  mapOf,
  S,
  type SchemaNode,
  type StructNode,
  str,
  struct,
} from "./schema.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** One node of an OpenAPI v3 schema as a CRD writes it (JSONSchemaProps). */
export type JsonSchema = Obj;

const props = (s: JsonSchema): [string, JsonSchema][] =>
  isObj(s.properties)
    ? Object.entries(s.properties).filter((e): e is [string, JsonSchema] => isObj(e[1]))
    : [];

const preserves = (s: JsonSchema) => s["x-kubernetes-preserve-unknown-fields"] === true;
const intOrString = (s: JsonSchema) => s["x-kubernetes-int-or-string"] === true;
const embedded = (s: JsonSchema) => s["x-kubernetes-embedded-resource"] === true;

// ---------------------------------------------------------------------------------------------
// The schema tree (pruning: unknown fields are those the tree does not list; apply's shapes)

/** The object's tree: apiVersion, kind and ObjectMeta, then the schema's own top-level fields. */
export function schemaTreeOf(go: string, schema: JsonSchema): StructNode {
  const fields: Record<string, SchemaNode> = {};
  for (const [name, child] of props(schema)) fields[name] = nodeOf(child);
  return struct(
    { ...fields, apiVersion: str(), kind: str(), metadata: OBJECT_META },
    { go, ...(preserves(schema) ? { preserveUnknownFields: true } : {}) },
  );
}

function nodeOf(s: JsonSchema): SchemaNode {
  if (intOrString(s)) return S;
  const type = s.type;
  if (type === "array") {
    const element = isObj(s.items) ? nodeOf(s.items) : DEDUCED;
    const keys = s["x-kubernetes-list-map-keys"];
    if (s["x-kubernetes-list-type"] === "map" && Array.isArray(keys)) {
      return mapList(keys as string[], element);
    }
    if (s["x-kubernetes-list-type"] === "set") return { kind: "list", element, type: "set" };
    return atomicOf(element);
  }
  if (type === "object" || embedded(s) || (type === undefined && props(s).length > 0)) {
    if (isObj(s.additionalProperties)) return mapOf(nodeOf(s.additionalProperties));
    if (s.additionalProperties === true) return DEDUCED;
    if (props(s).length === 0 && preserves(s)) return DEDUCED;
    const fields: Record<string, SchemaNode> = {};
    for (const [name, child] of props(s)) fields[name] = nodeOf(child);
    if (embedded(s))
      Object.assign(fields, { apiVersion: str(), kind: str(), metadata: OBJECT_META });
    return struct(fields, preserves(s) ? { preserveUnknownFields: true } : {});
  }
  return preserves(s) ? DEDUCED : S;
}

// ---------------------------------------------------------------------------------------------
// Defaults

/** The object with the schema's defaults filled in (a copy; the argument is not changed). */
export function withDefaults<T>(schema: JsonSchema, value: T): T {
  return defaulted(schema, value, true) as T;
}

function defaulted(s: JsonSchema, value: unknown, root: boolean): unknown {
  if (Array.isArray(value) && isObj(s.items)) {
    const items = s.items;
    return value.map((v) => defaulted(items, v, false));
  }
  if (!isObj(value)) return value;
  const out: Obj = { ...value };
  for (const [name, child] of props(s)) {
    // The root's apiVersion, kind and metadata are the server's.
    if (root && (name === "metadata" || name === "apiVersion" || name === "kind")) continue;
    const has = Object.hasOwn(out, name);
    if (child.default !== undefined) {
      // A null is defaulted too unless the field is nullable (upstream since 1.20).
      if (!has || (out[name] === null && child.nullable !== true)) {
        setMember(out, name, structuredClone(child.default));
      }
    }
    if (Object.hasOwn(out, name)) out[name] = defaulted(child, out[name], false);
  }
  if (isObj(s.additionalProperties)) {
    const element = s.additionalProperties;
    for (const [k, v] of Object.entries(out)) out[k] = defaulted(element, v, false);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation of a custom resource (kube-openapi's validator, errors as apiextensions converts them)

/** The field errors of a custom resource against its version's schema (metadata aside). */
export function validateAgainst(schema: JsonSchema, object: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (!isObj(object)) return errors;
  const top: JsonSchema = {
    ...schema,
    properties: Object.fromEntries(
      props(schema).filter(([name]) => !["metadata", "apiVersion", "kind"].includes(name)),
    ),
  };
  check(top, object, "", errors);
  return errors;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case "object":
      return isObj(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    default:
      return true;
  }
}

const at = (path: string, name: string) => (path ? `${path}.${name}` : name);

function check(s: JsonSchema, value: unknown, path: string, errors: FieldError[]): void {
  const field = path || "<root>";
  const mustBe = (expected: string) =>
    errors.push(
      invalid(
        field,
        typeOf(value),
        `${field} in body must be of type ${expected}: "${typeOf(value)}"`,
      ),
    );
  if (value === null) {
    if (s.nullable === true || preserves(s) || (s.type === undefined && !intOrString(s))) return;
    mustBe(intOrString(s) ? "integer,string" : String(s.type));
    return;
  }
  if (intOrString(s)) {
    if (typeof value !== "string" && !(typeof value === "number" && Number.isInteger(value))) {
      mustBe("integer,string");
      return;
    }
  } else if (typeof s.type === "string" && !typeMatches(s.type, value)) {
    mustBe(s.type);
    return;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => jsonEqual(e, value))) {
    errors.push(
      notSupported(
        field,
        value,
        s.enum.map((e) => (typeof e === "string" ? e : JSON.stringify(e))),
      ),
    );
  }
  checkComposition(s, value, path, errors);
  if (typeof value === "number") checkNumber(s, value, field, errors);
  if (typeof value === "string") checkString(s, value, field, errors);
  if (Array.isArray(value)) {
    if (typeof s.maxItems === "number" && value.length > s.maxItems) {
      errors.push({
        type: "FieldValueTooMany",
        field,
        badValue: value.length,
        detail: `must have at most ${s.maxItems} items`,
      });
    }
    if (typeof s.minItems === "number" && value.length < s.minItems) {
      errors.push(
        invalid(field, value, `${field} in body should have at least ${s.minItems} items`, true),
      );
    }
    if (isObj(s.items)) {
      const items = s.items;
      for (const [i, v] of value.entries()) check(items, v, `${path}[${i}]`, errors);
    }
    checkListType(s, value, path, errors);
  }
  if (isObj(value)) {
    const count = Object.keys(value).length;
    if (typeof s.maxProperties === "number" && count > s.maxProperties) {
      errors.push({
        type: "FieldValueTooMany",
        field,
        badValue: OMITTED_VALUE,
        detail: `must have at most ${s.maxProperties} items`,
      });
    }
    if (typeof s.minProperties === "number" && count < s.minProperties) {
      errors.push(
        invalid(
          field,
          s.minProperties,
          `${field} in body should have at least ${s.minProperties} properties`,
        ),
      );
    }
    if (embedded(s)) {
      for (const name of ["apiVersion", "kind"]) {
        if (typeof value[name] !== "string" || value[name] === "") {
          errors.push(required(at(path, name), "must not be empty"));
        }
      }
    }
    for (const name of Array.isArray(s.required) ? s.required : []) {
      if (typeof name === "string" && !Object.hasOwn(value, name)) {
        errors.push({ type: "FieldValueRequired", field: at(path, name), detail: "" });
      }
    }
    for (const [name, child] of props(s)) {
      if (Object.hasOwn(value, name)) check(child, value[name], at(path, name), errors);
    }
    if (isObj(s.additionalProperties)) {
      const element = s.additionalProperties;
      for (const [k, v] of Object.entries(value)) check(element, v, at(path, k), errors);
    }
  }
}

/** The errors `s` finds in `value`, on their own. */
function errorsOf(s: JsonSchema, value: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  check(s, value, path, errors);
  return errors;
}

/**
 * allOf, anyOf, oneOf and not, as kube-openapi's validator (in its order): a composite error
 * on the object's path (apiextensions reports it at the root, `: Invalid value: ""`) with the
 * errors of the failing alternatives, for anyOf and oneOf those of the one kube-openapi ran the
 * most checks on (its MatchCount; the first on a tie).
 */
function checkComposition(s: JsonSchema, value: unknown, path: string, errors: FieldError[]): void {
  const subschemas = (key: string) => (Array.isArray(s[key]) ? s[key].filter(isObj) : []);
  const composite = (message: string) => errors.push(invalid("", "", message));
  const quoted = JSON.stringify(path);
  // The failing alternative with the greatest MatchCount, the first on a tie.
  const closest = (alternatives: JsonSchema[], results: FieldError[][]) => {
    let best = 0;
    let bestCount = -1;
    for (const [i, sub] of alternatives.entries()) {
      const count = matchCount(sub, value);
      if (count > bestCount) [best, bestCount] = [i, count];
    }
    return results[best] ?? [];
  };
  const anyOf = subschemas("anyOf");
  if (anyOf.length > 0) {
    const results = anyOf.map((sub) => errorsOf(sub, value, path));
    if (!results.some((r) => r.length === 0)) {
      composite(`${quoted} must validate at least one schema (anyOf)`);
      errors.push(...closest(anyOf, results));
    }
  }
  const oneOf = subschemas("oneOf");
  if (oneOf.length > 0) {
    const results = oneOf.map((sub) => errorsOf(sub, value, path));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid !== 1) {
      const found = valid === 0 ? "Found none valid" : `Found ${valid} valid alternatives`;
      composite(`${quoted} must validate one and only one schema (oneOf). ${found}`);
      if (valid === 0) errors.push(...closest(oneOf, results));
    }
  }
  const allOf = subschemas("allOf");
  if (allOf.length > 0) {
    const results = allOf.map((sub) => errorsOf(sub, value, path));
    const valid = results.filter((r) => r.length === 0).length;
    for (const r of results) errors.push(...r);
    if (valid !== allOf.length) {
      const none = valid === 0 ? ". None validated" : "";
      composite(`${quoted} must validate all the schemas (allOf)${none}`);
    }
  }
  if (isObj(s.not) && errorsOf(s.not, value, path).length === 0) {
    composite(`${quoted} must not validate the schema (not)`);
  }
}

/** The string formats kube-openapi's default registry knows (its format check applies to them). */
const KNOWN_FORMATS = new Set([
  "bsonobjectid",
  "byte",
  "cidr",
  "creditcard",
  "date",
  "date-time",
  "datetime",
  "duration",
  "email",
  "hexcolor",
  "hostname",
  "ipv4",
  "ipv6",
  "isbn",
  "isbn10",
  "isbn13",
  "mac",
  "password",
  "rgbcolor",
  "ssn",
  "uri",
  "uuid",
  "uuid3",
  "uuid4",
  "uuid5",
]);

/**
 * kube-openapi's MatchCount of `value` against `s`: how many validators ran, recursively (each
 * applicable validator counts one, the type check one more when the type matches, numbers and
 * arrays one more, every schema one at its end); anyOf/oneOf count the alternative they keep,
 * allOf all of them. It picks whose errors a failing anyOf/oneOf reports.
 */
function matchCount(s: JsonSchema, value: unknown): number {
  const typed = typeof s.type === "string" || typeof s.format === "string";
  const typeMatch = typeof s.type !== "string" || typeMatches(s.type, value);
  // A null is checked by the type validator alone (any type but a nullable one refuses it).
  if (value === null) return typeof s.type === "string" && s.nullable !== true ? 0 : 1;
  let n = 0;
  if (typed) n += (typeMatch ? 1 : 0) + 1;
  n += propsCount(s, value) + 1;
  if (typeof value === "string") {
    n += 1;
    if (typeof s.format === "string" && KNOWN_FORMATS.has(s.format)) n += 1;
  }
  if (typeof value === "number") n += 2;
  if (Array.isArray(value)) {
    const items = isObj(s.items) ? s.items : undefined;
    n += (items ? value.reduce((sum: number, v) => sum + matchCount(items, v), 0) : 0) + 2;
  }
  n += 1; // enum (always applies)
  if (isObj(value)) {
    let inner = 0;
    const properties = isObj(s.properties) ? s.properties : {};
    for (const [k, v] of Object.entries(value)) {
      const sub = properties[k];
      if (isObj(sub)) inner += matchCount(sub, v);
      else if (isObj(s.additionalProperties)) inner += matchCount(s.additionalProperties, v);
    }
    n += inner + 1;
  }
  return n + 1;
}

/** The schemaPropsValidator's part of MatchCount (anyOf, oneOf, allOf; `not` adds nothing). */
function propsCount(s: JsonSchema, value: unknown): number {
  const subschemas = (key: string) => (Array.isArray(s[key]) ? s[key].filter(isObj) : []);
  const valid = (sub: JsonSchema) => errorsOf(sub, value, "").length === 0;
  let n = 0;
  const anyOf = subschemas("anyOf");
  if (anyOf.length > 0) {
    const success = anyOf.find(valid);
    n += success ? matchCount(success, value) : Math.max(...anyOf.map((a) => matchCount(a, value)));
  }
  const oneOf = subschemas("oneOf");
  if (oneOf.length > 0) {
    const successes = oneOf.filter(valid);
    if (successes.length === 1) n += matchCount(successes[0]!, value);
    else if (successes.length === 0) n += Math.max(...oneOf.map((o) => matchCount(o, value)));
  }
  for (const sub of subschemas("allOf")) n += matchCount(sub, value);
  return n + 1;
}

/** Go's %#v of a map[string]interface{} of JSON scalars (keys sorted). */
function goMapRepr(entries: [string, unknown][]): GoVerbatim {
  const inner = entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(
      ([k, v]) => `${JSON.stringify(k)}:${v === null ? "interface {}(nil)" : JSON.stringify(v)}`,
    );
  return new GoVerbatim(`map[string]interface {}{${inner.join(", ")}}`);
}

/**
 * x-kubernetes-list-type set and map, as apiextensions' listtype validation: the second
 * appearance of an item (set) or of a key (map; a null item or a missing key field counts as
 * unspecified) is a Duplicate, later ones are not reported again; a list-map item that is not
 * an object is Invalid (the first one only).
 */
function checkListType(s: JsonSchema, list: unknown[], path: string, errors: FieldError[]): void {
  const type = s["x-kubernetes-list-type"];
  const times = new Map<string, number>();
  /** True on an item's second appearance (upstream reports that one only). */
  const repeated = (key: string) => {
    const n = (times.get(key) ?? 0) + 1;
    times.set(key, n);
    return n === 2;
  };
  if (type === "set") {
    for (const [i, item] of list.entries()) {
      if (repeated(canonicalJson(item)))
        errors.push(duplicate(`${path}[${i}]`, withSortedKeys(item)));
    }
    return;
  }
  const keys = s["x-kubernetes-list-map-keys"];
  if (type !== "map" || !Array.isArray(keys)) return;
  const bad = list.findIndex((item) => item !== null && !isObj(item));
  if (bad >= 0) {
    errors.push(
      invalid(`${path}[${bad}]`, list[bad], "must be an object for an array of list-type map"),
    );
    return;
  }
  if (list.length <= 1) return;
  const names = keys.filter((k): k is string => typeof k === "string");
  for (const [i, item] of list.entries()) {
    const fields = isObj(item) ? item : {};
    const entries: [string, unknown][] = names
      .filter((k) => Object.hasOwn(fields, k))
      .map((k) => [k, fields[k]]);
    if (repeated(canonicalJson(Object.fromEntries(entries)))) {
      errors.push(duplicate(`${path}[${i}]`, goMapRepr(entries)));
    }
  }
}

/** JSON with object keys sorted, as Go's json.Marshal of a map writes it. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObj(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function checkNumber(s: JsonSchema, value: number, field: string, errors: FieldError[]): void {
  const bound = (limit: unknown, exclusive: unknown, below: boolean) => {
    if (typeof limit !== "number") return;
    const fails = below
      ? exclusive === true
        ? value <= limit
        : value < limit
      : exclusive === true
        ? value >= limit
        : value > limit;
    if (!fails) return;
    const relation = below ? "greater than" : "less than";
    const text = exclusive === true ? relation : `${relation} or equal to`;
    errors.push(invalid(field, value, `${field} in body should be ${text} ${limit}`));
  };
  bound(s.minimum, s.exclusiveMinimum, true);
  bound(s.maximum, s.exclusiveMaximum, false);
  if (typeof s.multipleOf === "number" && s.multipleOf > 0 && value % s.multipleOf !== 0) {
    errors.push(invalid(field, value, `${field} in body should be a multiple of ${s.multipleOf}`));
  }
}

function checkString(s: JsonSchema, value: string, field: string, errors: FieldError[]): void {
  const length = [...value].length;
  if (typeof s.maxLength === "number" && length > s.maxLength) {
    errors.push(tooLong(field, s.maxLength));
  }
  if (typeof s.minLength === "number" && length < s.minLength) {
    errors.push(
      invalid(field, value, `${field} in body should be at least ${s.minLength} chars long`),
    );
  }
  if (typeof s.pattern === "string") {
    let re: RegExp | null = null;
    try {
      re = new RegExp(s.pattern, "u");
    } catch {
      re = null;
    }
    if (re && !re.test(value)) {
      errors.push(invalid(field, value, `${field} in body should match '${s.pattern}'`));
    }
  }
  const format = typeof s.format === "string" ? FORMATS[s.format] : undefined;
  if (format && !format(value)) {
    errors.push(invalid(field, value, `${field} in body must be of type ${s.format}: "${value}"`));
  }
}

/** The formats checked (cheap ones); others are accepted, as unknown formats are upstream. */
const FORMATS: Record<string, (v: string) => boolean> = {
  "date-time": (v) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) &&
    !Number.isNaN(Date.parse(v)),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  byte: (v) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v),
  ipv4: (v) =>
    /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(v) &&
    v.split(".").every((p) => Number(p) <= 255 && (p === "0" || !p.startsWith("0"))),
  int32: (v) => /^-?\d+$/.test(v) && Math.abs(Number(v)) <= 2 ** 31,
  int64: (v) => /^-?\d+$/.test(v),
};

function jsonEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

// ---------------------------------------------------------------------------------------------
// Structural rules (a CRD's schema is refused at create when they do not hold)

/** The errors of a non-structural schema at `field` (spec.versions[i].schema.openAPIV3Schema). */
export function structuralErrors(schema: JsonSchema, field: string): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.type !== "object") {
    if (schema.type === undefined)
      errors.push(required(`${field}.type`, "must not be empty at the root"));
    else errors.push(invalid(`${field}.type`, schema.type, "must be object at the root"));
  }
  walkStructural(schema, field, true, errors);
  return errors;
}

/**
 * apiextensions' rules for x-kubernetes-list-type and x-kubernetes-list-map-keys in a CRD's
 * schema (children first, as upstream walks them). `ratchet` leaves out the rules that an update
 * only enforces when the stored CRD already met them: set items scalar or atomic, list-map keys
 * required or defaulted and not nullable.
 */
export function listTypeErrors(s: JsonSchema, field: string, ratchet = false): FieldError[] {
  const errors: FieldError[] = [];
  walkListTypes(s, field, ratchet, errors);
  return errors;
}

/** Whether the schema meets the rules an update ratchets (see listTypeErrors). */
export function meetsRatchetedListTypeRules(s: JsonSchema, field: string): boolean {
  return listTypeErrors(s, field).length === listTypeErrors(s, field, true).length;
}

function walkListTypes(s: JsonSchema, field: string, ratchet: boolean, errors: FieldError[]): void {
  if (isObj(s.additionalProperties)) {
    walkListTypes(s.additionalProperties, `${field}.additionalProperties`, ratchet, errors);
  }
  for (const [name, child] of props(s)) {
    walkListTypes(child, `${field}.properties[${name}]`, ratchet, errors);
  }
  if (isObj(s.not)) walkListTypes(s.not, `${field}.not`, ratchet, errors);
  for (const composite of ["allOf", "oneOf", "anyOf"]) {
    const list = s[composite];
    if (!Array.isArray(list)) continue;
    for (const [i, sub] of list.entries()) {
      if (isObj(sub)) walkListTypes(sub, `${field}.${composite}[${i}]`, ratchet, errors);
    }
  }
  const items = isObj(s.items) ? s.items : undefined;
  if (items) walkListTypes(items, `${field}.items`, ratchet, errors);

  const listType = s["x-kubernetes-list-type"];
  const rawKeys = s["x-kubernetes-list-map-keys"];
  const keys = Array.isArray(rawKeys)
    ? rawKeys.filter((k): k is string => typeof k === "string")
    : [];
  if (listType !== undefined && s.type !== "array") {
    const detail = "must be array if x-kubernetes-list-type is specified";
    if (s.type === undefined || s.type === "") errors.push(required(`${field}.type`, detail));
    else errors.push(invalid(`${field}.type`, s.type, detail));
  } else if (!ratchet && listType === "set" && items) {
    const detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
    if (items.type === "array" && (items["x-kubernetes-list-type"] ?? "atomic") !== "atomic") {
      errors.push(
        invalid(`${field}.items.x-kubernetes-list-type`, items["x-kubernetes-list-type"], detail),
      );
    } else if (items.type === "object" && items["x-kubernetes-map-type"] !== "atomic") {
      // Upstream prints the items' list type here (unset: null).
      errors.push(
        invalid(`${field}.items.x-kubernetes-map-type`, items["x-kubernetes-list-type"], detail),
      );
    }
  }
  if (listType !== undefined && !["atomic", "set", "map"].includes(listType as string)) {
    errors.push(
      notSupported(`${field}.x-kubernetes-list-type`, listType, ["atomic", "set", "map"]),
    );
  }
  if (keys.length > 0) {
    const detail = "must be map if x-kubernetes-list-map-keys is non-empty";
    if (listType === undefined) errors.push(required(`${field}.x-kubernetes-list-type`, detail));
    else if (listType !== "map") {
      errors.push(invalid(`${field}.x-kubernetes-list-type`, listType, detail));
    }
  }
  if (listType === "map") {
    if (keys.length === 0) {
      errors.push(
        required(
          `${field}.x-kubernetes-list-map-keys`,
          "must not be empty if x-kubernetes-list-type is map",
        ),
      );
    }
    if (!items) {
      errors.push(
        required(`${field}.items`, "must have a schema if x-kubernetes-list-type is map"),
      );
    } else if (items.type !== "object") {
      errors.push(
        invalid(
          `${field}.items.type`,
          items.type ?? "",
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    } else {
      const itemProps = isObj(items.properties) ? items.properties : {};
      const seen = new Set<string>();
      for (const key of keys) {
        const keySchema = itemProps[key];
        if (!isObj(keySchema)) {
          errors.push(
            invalid(
              `${field}.x-kubernetes-list-map-keys`,
              keys,
              "entries must all be names of item properties",
            ),
          );
        } else if (keySchema.type === "array" || keySchema.type === "object") {
          // Upstream prints the items' type (object) here.
          errors.push(
            invalid(
              `${field}.items.properties[${key}].type`,
              items.type,
              "must be a scalar type if parent array's x-kubernetes-list-type is map",
            ),
          );
        }
        if (seen.has(key)) {
          errors.push(
            invalid(
              `${field}.x-kubernetes-list-map-keys`,
              keys,
              "must not contain duplicate entries",
            ),
          );
        }
        seen.add(key);
      }
    }
  }
  if (ratchet || !items || (listType !== "set" && listType !== "map")) return;
  if (items.nullable === true) {
    errors.push(
      forbidden(
        `${field}.items.nullable`,
        `cannot be nullable when x-kubernetes-list-type is ${listType}`,
      ),
    );
  }
  if (listType !== "map") return;
  const requiredKeys = new Set(Array.isArray(items.required) ? items.required : []);
  const itemProps = isObj(items.properties) ? items.properties : {};
  for (const key of keys) {
    const keySchema = itemProps[key];
    if (!isObj(keySchema)) continue;
    const at = `${field}.items.properties[${key}]`;
    if (!requiredKeys.has(key) && keySchema.default === undefined) {
      errors.push(
        required(
          `${at}.default`,
          "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
        ),
      );
    }
    if (keySchema.nullable === true) {
      errors.push(
        forbidden(
          `${at}.nullable`,
          "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
        ),
      );
    }
  }
}

function walkStructural(s: JsonSchema, field: string, root: boolean, errors: FieldError[]): void {
  if (
    props(s).length > 0 &&
    s.additionalProperties !== undefined &&
    s.additionalProperties !== false
  ) {
    errors.push({
      type: "FieldValueForbidden",
      field: `${field}.additionalProperties`,
      detail: "additionalProperties and properties are mutual exclusive",
    });
  }
  const typed = (child: JsonSchema, at: string, what: string) => {
    if (child.type === undefined && !intOrString(child) && !preserves(child)) {
      errors.push(required(`${at}.type`, `must not be empty for specified ${what}`));
    }
  };
  for (const [name, child] of props(s)) {
    const at = `${field}.properties[${name}]`;
    // The root's metadata is the server's: only its type may be written.
    if (root && name === "metadata") continue;
    typed(child, at, "object fields");
    walkStructural(child, at, false, errors);
  }
  if (isObj(s.additionalProperties)) {
    const at = `${field}.additionalProperties`;
    typed(s.additionalProperties, at, "object fields");
    walkStructural(s.additionalProperties, at, false, errors);
  }
  if (s.type === "array") {
    if (!isObj(s.items)) {
      errors.push(required(`${field}.items`, "must be specified"));
    } else {
      typed(s.items, `${field}.items`, "array items");
      walkStructural(s.items, `${field}.items`, false, errors);
    }
  }
}
