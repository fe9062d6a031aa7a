// Every example gives exactly the output recorded in test/fixtures/golden/examples.json (see
// test/sim/golden.ts). A deliberate change of behaviour re-records them with
// `npm run golden -- --update` in the same commit.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exampleFiles, goldenOutput, recordedGolden } from "./golden.js";

describe("examples give their recorded outputs, byte for byte", () => {
  const recorded = recordedGolden();
  it("every example has a recorded output, and every recorded output an example", () => {
    assert.deepEqual(Object.keys(recorded).sort(), exampleFiles());
  });
  for (const name of exampleFiles()) {
    it(name, async () => {
      const output = await goldenOutput(name);
      const want = recorded[name];
      assert.ok(want, `${name}: no recorded output (npm run golden -- --update)`);
      // The summary first: its diff says what changed; the hash covers every record.
      assert.deepEqual(output.summary, want.summary);
      assert.equal(output.records, want.records);
      assert.equal(output.sha256, want.sha256);
    });
  }
});
