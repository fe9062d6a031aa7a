// JSON merge patch: the examples of RFC 7386 appendix A, and that neither argument changes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mergePatch } from "../../../src/api/patch/merge-patch.js";

const RFC_7386_EXAMPLES = [
  { name: "a value replaces", target: { a: "b" }, patch: { a: "c" }, result: { a: "c" } },
  { name: "a new key is added", target: { a: "b" }, patch: { b: "c" }, result: { a: "b", b: "c" } },
  { name: "null deletes", target: { a: "b" }, patch: { a: null }, result: {} },
  {
    name: "null deletes one key of several",
    target: { a: "b", b: "c" },
    patch: { a: null },
    result: { b: "c" },
  },
  {
    name: "an array replaces a string",
    target: { a: ["b"] },
    patch: { a: "c" },
    result: { a: "c" },
  },
  {
    name: "a string replaces an array",
    target: { a: "c" },
    patch: { a: ["b"] },
    result: { a: ["b"] },
  },
  {
    name: "nested objects merge",
    target: { a: { b: "c" } },
    patch: { a: { b: "d", c: null } },
    result: { a: { b: "d" } },
  },
  {
    name: "arrays replace whole",
    target: { a: [{ b: "c" }] },
    patch: { a: [1] },
    result: { a: [1] },
  },
  { name: "arrays at the top replace", target: ["a", "b"], patch: ["c", "d"], result: ["c", "d"] },
  { name: "an object replaces an array", target: { a: "b" }, patch: ["c"], result: ["c"] },
  { name: "null at the top is the result", target: { a: "foo" }, patch: null, result: null },
  { name: "a string at the top is the result", target: { a: "foo" }, patch: "bar", result: "bar" },
  {
    name: "null values are not added",
    target: { e: null },
    patch: { a: 1 },
    result: { e: null, a: 1 },
  },
  {
    name: "a non-object target becomes {}",
    target: [1, 2],
    patch: { a: "b", c: null },
    result: { a: "b" },
  },
  {
    name: "a missing nested object is created, without its nulls",
    target: {},
    patch: { a: { bb: { ccc: null } } },
    result: { a: { bb: {} } },
  },
];

describe("mergePatch (RFC 7386)", () => {
  for (const c of RFC_7386_EXAMPLES) {
    it(c.name, () => {
      const target = structuredClone(c.target);
      const patch = structuredClone(c.patch);
      assert.deepEqual(mergePatch(target, patch), c.result);
      assert.deepEqual(target, c.target, "the target is unchanged");
      assert.deepEqual(patch, c.patch, "the patch is unchanged");
    });
  }
});
