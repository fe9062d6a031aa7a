// Every public upstream vector (copied from ../shared/conformance) must pass, one test each.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runVectorFile } from "../src/conformance/runner.js";

const dir = join(import.meta.dirname, "fixtures", "conformance");
const files = readdirSync(dir)
  .filter((name) => name.endsWith(".json"))
  .sort();

describe("conformance vectors", () => {
  it("has all six suites", () => {
    const suites = new Set(
      files.map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")).suite),
    );
    assert.equal(suites.size, 6, `fixture files: ${files.join(", ")}`);
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

// The public vectors hold for v1.34 (they list no version). Run under each later version, every
// one holds as well except those that turn HPAConfigurableTolerance off: v1.37 locks that gate
// on (GA, kubernetes/kubernetes#140107), so setting it false is refused there. docs/versions.md.
const LOCKED_GATE_VECTORS_137 = new Set([
  "tolerance-computed-breach",
  "tolerance-configurable-ignored-gate-off",
  "tolerance-default-no-scale",
  "tolerance-external-value-metric",
  "tolerance-object-average-value-metric",
  "tolerance-pods-metric",
  "validate-tolerance-disabled-ok-select-max",
  "validate-tolerance-disabled-ok-window-60",
  "validate-tolerance-disabled-update-unchanged-without",
  "validate-tolerance-disabled-bad-no-policies",
  "validate-tolerance-disabled-bad-window-only",
  "validate-tolerance-disabled-update-add",
]);

describe("the v1.34 vectors under later versions", () => {
  const publicFiles = files.filter((name) => !name.endsWith("-versions.json"));
  for (const version of ["1.35", "1.36", "1.37"] as const) {
    it(`v${version}: all hold${version === "1.37" ? ", but those that turn the GA tolerance gate off" : ""}`, () => {
      const failed: string[] = [];
      for (const name of publicFiles) {
        for (const r of runVectorFile(join(dir, name), { versions: [version] }).results) {
          if (!r.outcome.ok) {
            failed.push(r.id);
            if (LOCKED_GATE_VECTORS_137.has(r.id)) {
              assert.match(
                r.outcome.diff,
                /cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true/,
              );
            }
          }
        }
      }
      const expected = version === "1.37" ? [...LOCKED_GATE_VECTORS_137].sort() : [];
      assert.deepEqual(failed.sort(), expected);
    });
  }
});
