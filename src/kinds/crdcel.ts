// CEL validation rules of a CRD's structural schema (`x-kubernetes-validations`), as
// apiextensions-apiserver runs them after the schema's own validation: each rule is evaluated
// with `self` (the value at its schema node) and, on an update, `oldSelf` (the stored value at
// the same place, through properties, map keys and list-map keys); a rule that references
// `oldSelf` is a transition rule and runs only on updates of a value that was there before. A
// false rule is a 422 with the rule's message (or `failed rule: RULE`), its reason and field
// path. Integers are CEL ints.
import { celProgram } from "../api/cel.js";
import { type FieldError, GoVerbatim, invalid } from "../api/validation.js";
import type { JsonSchema } from "./crdschema.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
}

const program = celProgram;

const rulesOf = (s: JsonSchema): Rule[] =>
  Array.isArray(s["x-kubernetes-validations"])
    ? s["x-kubernetes-validations"].filter((r): r is Rule => isObj(r) && typeof r.rule === "string")
    : [];

const props = (s: JsonSchema): [string, JsonSchema][] =>
  isObj(s.properties)
    ? Object.entries(s.properties).filter((e): e is [string, JsonSchema] => isObj(e[1]))
    : [];

/** The value as CEL sees it: integers (schema type integer, or untyped whole numbers) are ints. */
function celValue(s: JsonSchema | undefined, value: unknown): unknown {
  if (typeof value === "number") {
    return s?.type !== "number" && Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) {
    const items = s && isObj(s.items) ? s.items : undefined;
    return value.map((v) => celValue(items, v));
  }
  if (!isObj(value)) return value;
  const fields = new Map(s ? props(s) : []);
  const extra = s && isObj(s.additionalProperties) ? s.additionalProperties : undefined;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, celValue(fields.get(k) ?? extra, v)]),
  );
}

const at = (path: string, name: string) => (path ? `${path}.${name}` : name);
const ruleText = (r: Rule) => r.rule.trim();

/** The error of a rule that did not hold, by its reason (FieldValueInvalid by default). */
function ruleError(s: JsonSchema, r: Rule, path: string, detail: string): FieldError {
  const field = r.fieldPath ? `${path}${r.fieldPath}` : path;
  const type = typeof s.type === "string" ? s.type : "";
  switch (r.reason) {
    case "FieldValueForbidden":
      return { type: "FieldValueForbidden", field, badValue: "", detail };
    case "FieldValueRequired":
      return { type: "FieldValueRequired", field, badValue: "", detail };
    case "FieldValueDuplicate":
      return { type: "FieldValueDuplicate", field, badValue: type, detail };
    default:
      return invalid(field, type, detail);
  }
}

function message(r: Rule, vars: Obj): string {
  if (typeof r.messageExpression === "string" && r.messageExpression !== "") {
    const p = program(r.messageExpression);
    if (!(p instanceof Error)) {
      try {
        const text = p(vars);
        if (typeof text === "string" && text.trim() !== "" && !text.includes("\n")) return text;
      } catch {
        // upstream falls back to the message, then to the rule, when the expression fails
      }
    }
  }
  return r.message ? r.message : `failed rule: ${ruleText(r)}`;
}

/** Go's error text starts lower-case ("no such key: x"). */
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

function evaluateRules(
  s: JsonSchema,
  value: unknown,
  old: unknown,
  path: string,
  errors: FieldError[],
): void {
  const rules = rulesOf(s);
  if (rules.length === 0) return;
  const self = celValue(s, value);
  const oldSelf = old === undefined ? undefined : celValue(s, old);
  for (const r of rules) {
    const transition = /\boldSelf\b/.test(r.rule);
    if (transition && oldSelf === undefined) continue;
    const p = program(r.rule);
    // A rule that does not compile is refused with its CRD; one stored before still fails here.
    if (p instanceof Error) {
      errors.push(ruleError(s, r, path, `compilation failed: ${p.message.split("\n")[0]}`));
      continue;
    }
    const vars: Obj = transition ? { self, oldSelf } : { self };
    let result: unknown;
    try {
      result = p(vars);
    } catch (err) {
      const text = lowerFirst((err instanceof Error ? err.message : String(err)).split("\n")[0]!);
      errors.push(
        invalid(
          path,
          typeof s.type === "string" ? s.type : "",
          `${text} evaluating rule: ${ruleText(r)}`,
        ),
      );
      continue;
    }
    if (result !== true) errors.push(ruleError(s, r, path, message(r, vars)));
  }
}

/** The old list item a list-map item corresponds to (same key values), if any. */
function correlatedItem(s: JsonSchema, item: unknown, old: unknown): unknown {
  const keys = s["x-kubernetes-list-map-keys"];
  if (s["x-kubernetes-list-type"] !== "map" || !Array.isArray(keys) || !Array.isArray(old)) {
    return undefined;
  }
  if (!isObj(item)) return undefined;
  return old.find((o) => isObj(o) && keys.every((k) => typeof k === "string" && o[k] === item[k]));
}

function walk(
  s: JsonSchema,
  value: unknown,
  old: unknown,
  path: string,
  errors: FieldError[],
): void {
  if (value === undefined || value === null) return;
  evaluateRules(s, value, old, path, errors);
  if (Array.isArray(value) && isObj(s.items)) {
    const items = s.items;
    for (const [i, item] of value.entries()) {
      walk(items, item, correlatedItem(s, item, old), `${path}[${i}]`, errors);
    }
  }
  if (!isObj(value)) return;
  const before = isObj(old) ? old : undefined;
  for (const [name, child] of props(s)) {
    if (Object.hasOwn(value, name))
      walk(child, value[name], before?.[name], at(path, name), errors);
  }
  if (isObj(s.additionalProperties)) {
    const element = s.additionalProperties;
    for (const [k, v] of Object.entries(value)) walk(element, v, before?.[k], at(path, k), errors);
  }
}

const withRules = new WeakMap<JsonSchema, boolean>();

/** Whether the schema has any rule (upstream has no CEL validator for a schema without). */
export function hasRules(s: JsonSchema): boolean {
  let has = withRules.get(s);
  if (has === undefined) {
    has =
      rulesOf(s).length > 0 ||
      props(s).some(([, child]) => hasRules(child)) ||
      (isObj(s.additionalProperties) && hasRules(s.additionalProperties)) ||
      (isObj(s.items) && hasRules(s.items));
    withRules.set(s, has);
  }
  return has;
}

/** The rules that do not hold for `object` (and `old`, the stored object, on an update). */
export function celErrors(schema: JsonSchema, object: unknown, old?: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (!isObj(object)) return errors;
  const top: JsonSchema = {
    ...schema,
    properties: Object.fromEntries(
      props(schema).filter(([name]) => !["metadata", "apiVersion", "kind"].includes(name)),
    ),
  };
  walk(top, object, old, "", errors);
  return errors;
}

/** Rules that do not parse, refused with the CRD (`...x-kubernetes-validations[i].rule`). */
export function ruleCompileErrors(schema: JsonSchema, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const visit = (s: JsonSchema, at: string) => {
    for (const [i, r] of rulesOf(s).entries()) {
      const p = program(r.rule);
      if (p instanceof Error) {
        errors.push(
          invalid(
            `${at}.x-kubernetes-validations[${i}].rule`,
            new GoVerbatim(JSON.stringify(r.rule)),
            `compilation failed: ${p.message.split("\n")[0]}`,
          ),
        );
      }
    }
    for (const [name, child] of props(s)) visit(child, `${at}.properties[${name}]`);
    if (isObj(s.additionalProperties)) visit(s.additionalProperties, `${at}.additionalProperties`);
    if (isObj(s.items)) visit(s.items, `${at}.items`);
  };
  visit(schema, field);
  return errors;
}
