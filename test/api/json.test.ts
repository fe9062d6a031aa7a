import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isRecord, semanticallyEqual } from "../../src/api/json.js";

const CASES = [
  { name: "an object", value: { a: 1 }, record: true },
  { name: "an empty object", value: {}, record: true },
  { name: "an object without a prototype", value: Object.create(null), record: true },
  { name: "an array", value: [1], record: false },
  { name: "null", value: null, record: false },
  { name: "undefined", value: undefined, record: false },
  { name: "a string", value: "{}", record: false },
  { name: "a number", value: 0, record: false },
];

describe("isRecord", () => {
  for (const c of CASES) it(c.name, () => assert.equal(isRecord(c.value), c.record));
});

const EQUALITY = [
  {
    name: "key order does not matter",
    a: { x: 1, y: { p: 1, q: 2 } },
    b: { y: { q: 2, p: 1 }, x: 1 },
    equal: true,
  },
  { name: "an absent field equals null", a: { x: 1 }, b: { x: 1, y: null }, equal: true },
  { name: "absent values equal null", a: undefined, b: null, equal: true },
  { name: "list order matters", a: [1, 2], b: [2, 1], equal: false },
  { name: "a changed nested value", a: { s: { k: "a" } }, b: { s: { k: "b" } }, equal: false },
  { name: "an added field", a: { x: 1 }, b: { x: 1, y: 0 }, equal: false },
];

describe("semanticallyEqual", () => {
  for (const c of EQUALITY) it(c.name, () => assert.equal(semanticallyEqual(c.a, c.b), c.equal));
});
