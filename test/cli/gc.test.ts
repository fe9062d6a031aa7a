// `horizon up` marks incrementally on its own thread when it has one core, and bounds how far its
// old generation grows between mark-compacts (src/cli/gc.ts).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { fitGarbageCollectorToCores } from "../../src/cli/gc.js";

// Fills the old generation so that mark-compacts run. CORES, when set, is passed on (the control
// run: more than one core keeps V8's defaults).
const SCRIPT = `
import { fitGarbageCollectorToCores } from "./src/cli/gc.ts";
const cores = process.env.CORES ? Number(process.env.CORES) : undefined;
console.log("switched=" + fitGarbageCollectorToCores(cores));
const kept = [];
for (let i = 0; i < 4e6; i++) {
  kept.push({ i, s: "x" + i });
  if (kept.length > 1e6) kept.splice(0, 5e5);
}
`;

/**
 * Runs the script on core 0 with V8's incremental-marking trace: how many marking cycles started,
 * and how many marking steps report work of background (concurrent) marking threads. A step
 * prints that line whenever concurrent marking is on, whatever the threads got done, so the count
 * does not depend on the machine's load (the pause's parallel marking, which also runs on
 * background threads when the core is contended, is not counted: --trace-gc-nvp's
 * background.mark adds both).
 */
function marking(cores?: number): { switched: string; cycles: number; concurrentSteps: number } {
  const run = spawnSync(
    "/usr/bin/taskset",
    [
      "-c",
      "0",
      process.execPath,
      "--trace-incremental-marking",
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      SCRIPT,
    ],
    {
      encoding: "utf8",
      maxBuffer: 64 * 2 ** 20,
      env: { ...process.env, CORES: cores === undefined ? "" : String(cores) },
    },
  );
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.split("\n");
  return {
    switched: /switched=(\w+)/.exec(run.stdout)?.[1] ?? "",
    cycles: lines.filter((line) => line.includes("[IncrementalMarking] Start marking")).length,
    concurrentSteps: lines.filter((line) => / Marked \d+KB on background threads/.test(line))
      .length,
  };
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
    const one = marking();
    assert.equal(one.switched, "true");
    assert.ok(one.cycles >= 1, `marking cycles: ${one.cycles}`);
    assert.equal(one.concurrentSteps, 0, "marking steps with concurrent marking");
    // The control: the same run keeping V8's defaults marks concurrently.
    const defaults = marking(2);
    assert.equal(defaults.switched, "false");
    assert.ok(defaults.concurrentSteps > 0, "V8's defaults: no concurrent marking step seen");
  });
});

// Keeps a growing set of objects (as a server storing what it is sent) among short-lived ones;
// BOUND, when set, bounds the growth first.
const GROWING = `
import { boundHeapGrowth } from "./src/cli/gc.ts";
if (process.env.BOUND) boundHeapGrowth();
const kept = [];
let passing = [];
for (let i = 0; i < 3e6; i++) {
  kept.push({ i, s: "k" + i });
  passing.push({ i, s: "p" + i });
  if (passing.length > 2e5) passing = [];
}
console.log("kept=" + kept.length);
`;

function growing(bound: boolean): { markCompacts: number } {
  const run = spawnSync(
    process.execPath,
    ["--trace-gc", "--import", "tsx", "--input-type=module", "-e", GROWING],
    { encoding: "utf8", maxBuffer: 64 * 2 ** 20, env: { ...process.env, BOUND: bound ? "1" : "" } },
  );
  assert.equal(run.status, 0, run.stderr);
  return {
    markCompacts: run.stdout.split("\n").filter((line) => line.includes("Mark-Compact")).length,
  };
}

describe("boundHeapGrowth", () => {
  it("collects a growing old generation more often", () => {
    const bounded = growing(true);
    const defaults = growing(false);
    assert.ok(
      bounded.markCompacts > defaults.markCompacts,
      `mark-compacts: ${bounded.markCompacts} bounded, ${defaults.markCompacts} with V8's defaults`,
    );
  });
});
