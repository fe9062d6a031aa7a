// Every public upstream vector (copied from ../shared/conformance) must pass, one test each.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runVectorFile } from "../src/conformance/runner.js";

const dir = join(import.meta.dirname, "fixtures", "conformance");
const files = readdirSync(dir)
  .filter((name) => name.endsWith(".json"))
  .sort();

describe("conformance vectors", () => {
  it("has all six suites", () => {
    assert.equal(files.length, 6, `fixture files: ${files.join(", ")}`);
  });
  for (const name of files) {
    const result = runVectorFile(join(dir, name));
    describe(name, () => {
      it("is a readable vector file", () => assert.equal(result.error, undefined));
      for (const r of result.results) {
        it(r.id, () => {
          assert.ok(r.outcome.ok, r.outcome.ok ? "" : r.outcome.diff);
        });
      }
    });
  }
});
