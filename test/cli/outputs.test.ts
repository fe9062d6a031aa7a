// simulate's and tune's output files (checked before the run), --quiet, standard input read
// once, --serve's address, and the prefix of up's flag errors.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createReadStream, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type SimulateOptions, simulateCommand } from "../../src/cli/simulate.js";
import { type TuneCommandOptions, tuneCommand } from "../../src/cli/tune.js";
import { upCommand } from "../../src/cli/up.js";
import { loadScenarioFile } from "../../src/sim/scenario.js";

const root = join(import.meta.dirname, "..", "..");
const example = (name: string) => join(root, "examples", name);
const scratch = mkdtempSync(join(tmpdir(), "horizon-outputs-"));

async function simulate(file: string, options: Partial<SimulateOptions>) {
  let out = "";
  const err: string[] = [];
  const code = await simulateCommand(
    file,
    { set: [], compareSet: [], assert: [], output: "table", ...options },
    {
      out: (chunk) => {
        out += chunk;
        return undefined;
      },
      err: (line) => err.push(line),
      interactive: false,
    },
  );
  return { code, out, err };
}

async function tune(file: string, options: Partial<TuneCommandOptions>) {
  let out = "";
  const err: string[] = [];
  const code = await tuneCommand(
    file,
    {
      search: ["spec.minReplicas: [1, 2]"],
      constraint: [],
      strategy: "auto",
      budget: "200",
      searchSeed: "1",
      jobs: "1",
      set: [],
      duration: "10m",
      output: "table",
      top: "10",
      ...options,
    },
    {
      out: (text) => {
        out += text;
      },
      err: (line) => err.push(line),
      interactive: false,
    },
  );
  return { code, out, err };
}

describe("output files are checked before anything runs (exit 2, naming the flag)", () => {
  const missing = join(scratch, "no-such-dir", "out");

  it("simulate --report in a directory that does not exist, or onto a directory", async () => {
    const absent = await simulate(example("cpu-step.yaml"), { report: `${missing}.html` });
    assert.equal(absent.code, 2);
    assert.deepEqual(absent.err, [
      `error: --report: cannot write ${missing}.html: ${join(scratch, "no-such-dir")}: no such file or directory`,
    ]);
    assert.equal(absent.out, "", "no run");
    const directory = await simulate(example("cpu-step.yaml"), { report: scratch });
    assert.equal(directory.code, 2);
    assert.deepEqual(directory.err, [`error: --report: cannot write ${scratch}: is a directory`]);
  });

  it("tune --patch and --report, both reported with the other input errors", async () => {
    const answer = await tune(example("cpu-step.yaml"), {
      patch: `${missing}.yaml`,
      report: `${missing}.html`,
      top: "0",
    });
    assert.equal(answer.code, 2);
    assert.deepEqual(answer.err, [
      `error: --patch: cannot write ${missing}.yaml: ${join(scratch, "no-such-dir")}: no such file or directory`,
      `error: --report: cannot write ${missing}.html: ${join(scratch, "no-such-dir")}: no such file or directory`,
      'error: --top: expected a positive integer, got "0"',
    ]);
    assert.equal(answer.out, "");
  });
});

describe("--quiet: errors, warnings and --assert results only", () => {
  it("simulate: no 'Simulated …', no 'Report written'", async () => {
    const report = join(scratch, "quiet.html");
    const options = { report, assert: ["flaps==0"], duration: "10m" };
    const loud = await simulate(example("cpu-step.yaml"), options);
    assert.equal(loud.code, 0, loud.err.join("\n"));
    assert.deepEqual(loud.err, [
      `Report written to ${report}`,
      "PASS hpa/default/web flaps=0 == 0",
      "Simulated 10m0s of virtual time (seed 1).",
    ]);
    const quiet = await simulate(example("cpu-step.yaml"), { ...options, quiet: true });
    assert.equal(quiet.code, 0);
    assert.deepEqual(quiet.err, ["PASS hpa/default/web flaps=0 == 0"]);
    assert.equal(quiet.out, loud.out);
  });

  it("tune: no 'Ran N simulations', no 'Patch/Report written'", async () => {
    const patch = join(scratch, "best.yaml");
    const report = join(scratch, "tune.html");
    const loud = await tune(example("cpu-step.yaml"), { patch, report });
    assert.equal(loud.code, 0, loud.err.join("\n"));
    assert.match(loud.err.join("\n"), /^Ran \d+ simulations/m);
    assert.ok(loud.err.includes(`Patch written to ${patch}`), loud.err.join("\n"));
    assert.ok(loud.err.includes(`Report written to ${report}`), loud.err.join("\n"));
    const quiet = await tune(example("cpu-step.yaml"), { patch, report, quiet: true });
    assert.equal(quiet.code, 0);
    assert.deepEqual(quiet.err, []);
    assert.equal(quiet.out, loud.out);
    assert.match(readFileSync(patch, "utf8"), /minReplicas/);
  });
});

describe("flags", () => {
  it("--serve: HOST:PORT; 0 is refused with the same message (it does not mean 'off')", async () => {
    for (const serve of ["0", "abc"]) {
      const answer = await simulate(example("cpu-step.yaml"), { serve });
      assert.equal(answer.code, 2);
      assert.deepEqual(answer.err, [`error: --serve: must be HOST:PORT, got "${serve}"`]);
    }
  });

  it("--set scenario:… on a file without a Scenario keeps the file's name for the run", async () => {
    const file = join(scratch, "plain-web.yaml");
    const manifests = readFileSync(example("cpu-step.yaml"), "utf8")
      .split(/^---$/m)
      .filter((doc) => !/^kind: Scenario$/m.test(doc))
      .join("---");
    writeFileSync(file, manifests);
    const plain = await loadScenarioFile(file);
    const set = await loadScenarioFile(file, { sets: ["scenario:spec.seed=2"] });
    assert.ok(plain.ok && set.ok);
    assert.equal(plain.scenario.spec.name, "plain-web");
    assert.equal(set.scenario.spec.name, "plain-web");
    assert.equal(set.scenario.spec.seed, 2);
  });

  it("up: a flag error starts with 'error:' as every other (a non-loopback --pod-cidr)", async () => {
    const err: string[] = [];
    const code = await upCommand(
      undefined,
      { port: "0", address: "127.0.0.1", controller: true, podCidr: "10.0.0.0/8" },
      { out: () => {}, err: (line) => err.push(line) },
    );
    assert.equal(code, 2);
    assert.equal(err.length, 1);
    assert.match(err[0]!, /^error: --pod-cidr: "10\.0\.0\.0\/8" is not inside the loopback range/);
  });
});

describe("standard input", () => {
  it("simulate - --compare-set reads it once: both runs see the scenario", async () => {
    const answer = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        const child = execFile(
          process.execPath,
          [
            "--import",
            "tsx",
            "src/cli/main.ts",
            "simulate",
            "-",
            "--compare-set",
            "hpa/web:spec.maxReplicas=3",
            "--duration",
            "10m",
            "-q",
          ],
          { cwd: root },
          (error, stdout, stderr) =>
            resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
        );
        createReadStream(example("cpu-step.yaml")).pipe(child.stdin!);
      },
    );
    assert.equal(answer.code, 0, answer.stderr);
    assert.equal(answer.stderr, "");
    assert.match(answer.stdout, /^Comparison: A = - \("cpu-step", seed 1\), B = - with /);
  });
});
