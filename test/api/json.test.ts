import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isRecord } from "../../src/api/json.js";

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
