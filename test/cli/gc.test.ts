// `horizon up` marks incrementally on its own thread when it has one core (src/cli/gc.ts).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { fitGarbageCollectorToCores } from "../../src/cli/gc.js";

// Fills the old generation so that several mark-compacts run, with --trace-gc-nvp's line each.
const SCRIPT = `
import { fitGarbageCollectorToCores } from "./src/cli/gc.ts";
console.log("switched=" + fitGarbageCollectorToCores());
const kept = [];
for (let i = 0; i < 4e6; i++) {
  kept.push({ i, s: "x" + i });
  if (kept.length > 1e6) kept.splice(0, 5e5);
}
`;

/** The background marking time of each mark-compact when the script runs on the given cores. */
function backgroundMarking(cores: string): { switched: string; marks: number[] } {
  const run = spawnSync(
    "/usr/bin/taskset",
    [
      "-c",
      cores,
      process.execPath,
      "--trace-gc-nvp",
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      SCRIPT,
    ],
    { encoding: "utf8", maxBuffer: 64 * 2 ** 20 },
  );
  assert.equal(run.status, 0, run.stderr);
  const switched = /switched=(\w+)/.exec(run.stdout)?.[1] ?? "";
  const marks = run.stdout
    .split("\n")
    .filter((line) => line.includes("gc=mc "))
    .map((line) => Number(/ background\.mark=([\d.]+)/.exec(line)?.[1] ?? Number.NaN));
  return { switched, marks };
}

describe("fitGarbageCollectorToCores", () => {
  it("keeps V8's defaults with more than one core", () => {
    assert.equal(fitGarbageCollectorToCores(2), false);
  });

  const taskset = existsSync("/usr/bin/taskset");
  const reason = "taskset (util-linux) is not installed";
  if (!taskset && process.env.CI !== "true") console.log(`# skipped: ${reason}`);
  it("on one core, marks with no background marking thread", {
    skip: !taskset && process.env.CI !== "true" ? reason : false,
  }, () => {
    const one = backgroundMarking("0");
    assert.equal(one.switched, "true");
    assert.ok(one.marks.length >= 2, `mark-compacts: ${one.marks.length}`);
    assert.deepEqual(
      one.marks.filter((ms) => ms > 0),
      [],
      "background marking time of each mark-compact",
    );
  });
});
