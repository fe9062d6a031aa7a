import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { renderScenarioJsonSchema } from "../../src/sim/scenario-schema.js";

const root = join(import.meta.dirname, "..", "..");
const committed = readFileSync(join(root, "docs", "scenario.schema.json"), "utf8");
const schema = JSON.parse(committed) as Schema;

type Schema = { [keyword: string]: unknown };

// A small validator for the keywords the generated schema uses (checked below), so the examples
// are validated against the JSON Schema itself, not only against the zod schema it comes from.
const KEYWORDS = new Set([
  "$ref",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "items",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "if",
  "then",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "minLength",
  "minItems",
  "pattern",
]);
const ANNOTATIONS = new Set(["$schema", "title", "description", "definitions"]);

function typeOf(value: unknown): string[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  if (typeof value === "number")
    return Number.isInteger(value) ? ["integer", "number"] : ["number"];
  return [typeof value];
}

function validate(s: Schema | boolean, value: unknown, path = ""): string[] {
  if (s === true) return [];
  if (s === false) return [`${path}: not allowed`];
  const problems: string[] = [];
  const fail = (what: string) => problems.push(`${path || "/"}: ${what}`);
  if (typeof s.$ref === "string") {
    const name = s.$ref.replace("#/definitions/", "");
    problems.push(...validate((schema.definitions as Record<string, Schema>)[name]!, value, path));
  }
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!typeOf(value).some((t) => types.includes(t))) fail(`not of type ${types.join("|")}`);
  }
  if (s.const !== undefined && value !== s.const) fail(`not ${JSON.stringify(s.const)}`);
  if (Array.isArray(s.enum) && !s.enum.includes(value)) fail(`not one of ${s.enum.join(", ")}`);
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) fail(`below ${s.minimum}`);
    if (typeof s.maximum === "number" && value > s.maximum) fail(`above ${s.maximum}`);
    if (typeof s.exclusiveMinimum === "number" && value <= s.exclusiveMinimum) fail("too small");
  }
  if (typeof value === "string") {
    if (typeof s.minLength === "number" && value.length < s.minLength) fail("too short");
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(value)) fail("pattern");
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems) fail("too few items");
    if (s.items !== undefined) {
      for (const [i, item] of value.entries()) {
        problems.push(...validate(s.items as Schema, item, `${path}/${i}`));
      }
    }
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    for (const key of (s.required ?? []) as string[]) {
      if (!(key in obj)) fail(`missing required ${key}`);
    }
    for (const [key, item] of Object.entries(obj)) {
      if (s.propertyNames !== undefined) {
        problems.push(...validate(s.propertyNames as Schema, key, `${path}/${key}`));
      }
      if (key in properties) problems.push(...validate(properties[key]!, item, `${path}/${key}`));
      else if (s.additionalProperties !== undefined) {
        problems.push(...validate(s.additionalProperties as Schema, item, `${path}/${key}`));
      }
    }
  }
  if (Array.isArray(s.anyOf) && !s.anyOf.some((o) => validate(o, value, path).length === 0)) {
    fail("matches none of anyOf");
  }
  if (Array.isArray(s.oneOf)) {
    const matching = s.oneOf.filter((o) => validate(o, value, path).length === 0).length;
    if (matching !== 1) fail(`matches ${matching} of oneOf`);
  }
  if (s.if !== undefined && validate(s.if as Schema, value, path).length === 0 && s.then) {
    problems.push(...validate(s.then as Schema, value, path));
  }
  return problems;
}

/** Every keyword the schema uses, wherever a schema stands. */
function keywords(s: unknown, out = new Set<string>()): Set<string> {
  if (typeof s !== "object" || s === null) return out;
  for (const [key, value] of Object.entries(s)) {
    out.add(key);
    if (key === "properties" || key === "definitions") {
      for (const sub of Object.values(value as object)) keywords(sub, out);
    } else if (key === "anyOf" || key === "oneOf") {
      for (const o of value as unknown[]) keywords(o, out);
    } else if (["items", "additionalProperties", "propertyNames", "if", "then"].includes(key)) {
      keywords(value, out);
    }
  }
  return out;
}

describe("docs/scenario.schema.json", () => {
  test("is what `npm run schema:scenario` generates", () => {
    assert.equal(committed, renderScenarioJsonSchema());
  });

  test("uses only keywords this test's validator checks", () => {
    const unknown = [...keywords(schema)].filter((k) => !KEYWORDS.has(k) && !ANNOTATIONS.has(k));
    assert.deepEqual(unknown, []);
  });

  const dir = join(root, "examples");
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
    test(`every document of examples/${name} validates against it`, () => {
      const docs = parseAllDocuments(readFileSync(join(dir, name), "utf8"));
      assert.ok(Array.isArray(docs));
      let scenarios = 0;
      for (const doc of docs) {
        const data = doc.toJS() as { kind?: unknown } | null;
        if (data?.kind === "Scenario") scenarios++;
        assert.deepEqual(
          validate(schema, data),
          [],
          `${name}: ${JSON.stringify(data).slice(0, 80)}`,
        );
      }
      assert.equal(scenarios, 1);
    });
  }

  const check = (document: string) =>
    validate(schema, parseAllDocuments(document).map((d) => d.toJS())[0]);
  const head = "apiVersion: horizon.dev/v1alpha1\nkind: Scenario\n";

  test("a Scenario document with a problem the reader reports does not validate", () => {
    assert.deepEqual(check(`${head}spec: {duration: 5m}\n`), []);
    for (const spec of [
      "sed: 1", // an unknown field
      "seed: -1",
      "seed: x",
      "cluster: {capacityPods: 0}",
      "workloads: [{traffic: []}]", // no target
      "workloads: [{target: web}]", // not Kind/name
      "workloads: [{target: Deployment/web, traffic: [{type: sin}]}]",
      "workloads: [{target: Deployment/web, traffic: [{type: step, steps: []}]}]",
      "workloads: [{target: Deployment/web, pod: {failureProbability: 2}}]",
      "events: [{at: 1m, type: metricsOutage, duration: 1m, apis: [cpu]}]",
      "events: [{type: restartController}]", // no at
    ]) {
      assert.notDeepEqual(check(`${head}spec: {${spec}}\n`), [], spec);
    }
    assert.notDeepEqual(check("apiVersion: horizon.dev/v1\nkind: Scenario\n"), []);
  });

  test("other documents are left alone", () => {
    assert.deepEqual(check("apiVersion: v1\nkind: ConfigMap\nsed: 1\n"), []);
  });
});
