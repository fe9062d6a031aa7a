// A parsed scenario run again in the same process gives the same records: `horizon tune` with one
// job runs every candidate in one isolate, and the candidates share the parsed objects they do not
// patch, so no cache may carry one run's cluster into the next.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runSimulation } from "../../src/sim/runner.js";
import { parseScenario } from "../../src/sim/scenario.js";
import type { Scenario } from "../../src/sim/scenario-types.js";
import { EXAMPLES_DIR, exampleFiles } from "./golden.js";

async function records(scenario: Scenario): Promise<string[]> {
  const out: string[] = [];
  await runSimulation({
    scenario,
    emit: (record) => {
      // The summary's wall time is the one value that may differ.
      const { wallMs: _wallMs, ...kept } = record as typeof record & { wallMs?: number };
      out.push(JSON.stringify(kept));
      return undefined;
    },
  });
  return out;
}

describe("a parsed scenario run twice in one process gives the same records", () => {
  for (const name of exampleFiles()) {
    it(name, async () => {
      const file = join(EXAMPLES_DIR, name);
      const parsed = parseScenario(readFileSync(file, "utf8"), { file, baseDir: EXAMPLES_DIR });
      assert.ok(parsed.ok, `${name}: ${JSON.stringify(parsed)}`);
      const first = await records(parsed.scenario);
      const second = await records(parsed.scenario);
      assert.equal(second.length, first.length);
      const differ = second.findIndex((line, i) => line !== first[i]);
      assert.equal(differ, -1, `record ${differ} differs:\n${first[differ]}\n${second[differ]}`);
    });
  }
});
