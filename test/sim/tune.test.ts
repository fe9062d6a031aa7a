// `horizon tune`: the search space's syntax and checks (tables), and whole searches over an
// example scenario — ranked by the objective under the constraints, the same whatever --jobs,
// and a winning patch that, applied to the manifest, reproduces the winner's result.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";
import { parseAllDocuments, parse as parseYaml, stringify } from "yaml";
import { mergePatch } from "../../src/api/patch/merge-patch.js";
import { simulateCommand } from "../../src/cli/simulate.js";
import { type TuneCommandOptions, tuneCommand } from "../../src/cli/tune.js";
import { evaluateTask, type TaskOutcome } from "../../src/sim/tune/evaluate.js";
import { TunePool } from "../../src/sim/tune/pool.js";
import { niceTicks, placeLabel } from "../../src/sim/tune/report.js";
import { expandRange, gridPoint, parseSearchSpace, spaceSize } from "../../src/sim/tune/space.js";

const example = (name: string) => join(import.meta.dirname, "../../examples", name);
const scratch = mkdtempSync(join(tmpdir(), "horizon-tune-"));

describe("ranges", () => {
  const cases: { text: string; want: number[] | RegExp }[] = [
    { text: "1..4", want: [1, 2, 3, 4] },
    { text: "3..3", want: [3] },
    { text: "0..600/300", want: [0, 300, 600] },
    { text: "0..0.3/0.1", want: [0, 0.1, 0.2, 0.3] },
    { text: "-2..0", want: [-2, -1, 0] },
    { text: "4..1", want: /is empty/ },
    { text: "1.5..3", want: /of integers/ },
    { text: "0..10/0", want: /step must be positive/ },
    { text: "a..b", want: /not a range/ },
    { text: "0..100000", want: /at most 10000/ },
  ];
  for (const c of cases) {
    it(c.text, () => {
      const got = expandRange(c.text);
      if (Array.isArray(c.want)) assert.deepEqual(got, { ok: true, values: c.want });
      else assert.ok(!got.ok && c.want.test(got.error), JSON.stringify(got));
    });
  }
});

describe("the search space", () => {
  it("reads fields, documents, lists, ranges and single values; the grid varies the last entry fastest", () => {
    const space = parseSearchSpace(
      `hpa/web:spec.behavior.scaleDown.stabilizationWindowSeconds: [0, 300]
spec.minReplicas: 1..3
scenario:spec.controller.horizontal-pod-autoscaler-tolerance: 0.05
`,
      "space.yaml",
    );
    assert.ok(space.ok, JSON.stringify(space));
    assert.deepEqual(
      space.entries.map((e) => [e.target, e.kind, e.path.join("."), e.values]),
      [
        [
          "hpa/web",
          "HorizontalPodAutoscaler",
          "spec.behavior.scaleDown.stabilizationWindowSeconds",
          [0, 300],
        ],
        ["hpa", "HorizontalPodAutoscaler", "spec.minReplicas", [1, 2, 3]],
        ["scenario", "Scenario", "spec.controller.horizontal-pod-autoscaler-tolerance", [0.05]],
      ],
    );
    assert.equal(spaceSize(space.entries), 6);
    assert.deepEqual(gridPoint(space.entries, 0), [0, 0, 0]);
    assert.deepEqual(gridPoint(space.entries, 1), [0, 1, 0]);
    assert.deepEqual(gridPoint(space.entries, 5), [1, 2, 0]);
  });

  const bad: { name: string; text: string; error: RegExp }[] = [
    {
      name: "not an HPA field",
      text: "spec.replicas: [1]",
      error: /search entry "spec\.replicas": spec\.replicas is not a field/,
    },
    {
      name: "a misspelt behavior field",
      text: "spec.behavior.scaleDown.window: [1]",
      error: /search entry "spec\.behavior\.scaleDown\.window"/,
    },
    {
      name: "another kind",
      text: "deploy:spec.replicas: [1]",
      error: /search entry "deploy:spec\.replicas": only HPA fields/,
    },
    {
      name: "an empty list",
      text: "spec.minReplicas: []",
      error: /search entry "spec\.minReplicas": no values/,
    },
    {
      name: "an empty range",
      text: "spec.maxReplicas: 9..2",
      error: /search entry "spec\.maxReplicas": "9\.\.2" is empty/,
    },
    { name: "not a mapping", text: "- spec.minReplicas", error: /space\.yaml: expected a mapping/ },
  ];
  for (const c of bad) {
    it(`refuses ${c.name}, naming the entry`, () => {
      const space = parseSearchSpace(c.text, "space.yaml");
      assert.ok(!space.ok);
      assert.match(space.errors.join("\n"), c.error);
    });
  }
});

async function cli(file: string, options: Partial<TuneCommandOptions>) {
  let out = "";
  const err: string[] = [];
  const code = await tuneCommand(
    file,
    {
      search: [],
      constraint: [],
      strategy: "auto",
      budget: "200",
      searchSeed: "1",
      jobs: "1",
      set: [],
      output: "json",
      top: "10",
      quiet: true,
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
  return {
    code,
    out,
    err: err.join("\n"),
    json: options.output === "table" ? null : out ? JSON.parse(out) : null,
  };
}

const SPACE =
  "{spec.behavior.scaleDown.stabilizationWindowSeconds: [0, 60, 120], spec.minReplicas: [8, 10]}";

describe("horizon tune over the scale-down policies example", () => {
  const file = example("scale-down-policies.yaml");

  it("ranks the feasible candidates by the objective; the same with 1 and 2 jobs", async () => {
    const one = await cli(file, { search: [SPACE], duration: "12m", jobs: "1" });
    const two = await cli(file, { search: [SPACE], duration: "12m", jobs: "2" });
    assert.equal(one.code, 0, one.err);
    assert.equal(one.json.strategy, "grid");
    assert.equal(one.json.rows.length, 6);
    assert.deepEqual(two.json, one.json);
    const objectives = one.json.rows.map((r: { objective: number }) => r.objective);
    assert.deepEqual(
      objectives,
      [...objectives].sort((a, b) => a - b),
    );
    assert.deepEqual(
      one.json.rows.map((r: { rank: number }) => r.rank),
      [1, 2, 3, 4, 5, 6],
    );
    // A shorter window and a lower floor cost fewer pod-hours here.
    assert.deepEqual(one.json.best.values, {
      "spec.behavior.scaleDown.stabilizationWindowSeconds": 0,
      "spec.minReplicas": 8,
    });
    assert.deepEqual(
      one.json.references.map((r: { label: string }) => r.label),
      ["as written", "upstream default behavior"],
    );
  });

  it("the reference row is the file as written: its pod-hours are simulate's", async () => {
    const tuned = await cli(file, { search: ["spec.minReplicas: [10]"], duration: "12m" });
    let out = "";
    await simulateCommand(
      file,
      { set: [], compareSet: [], assert: [], output: "json", quiet: true, duration: "12m" },
      {
        out: (chunk) => {
          out += chunk;
          return undefined;
        },
        err: () => {},
        interactive: false,
      },
    );
    const summary = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((r) => r.type === "summary");
    assert.equal(tuned.json.references[0].objective, summary.hpas[0].podHours);
  });

  it("the winning patch, merged into the manifest, reproduces the winner's objective", async () => {
    const tuned = await cli(file, { search: [SPACE], duration: "12m" });
    const patch = parseYaml(tuned.json.best.patch);
    assert.equal(patch.kind, "HorizontalPodAutoscaler");
    const docs = parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS());
    const patched = docs.map((d) =>
      d.kind === "HorizontalPodAutoscaler" ? mergePatch(d, patch) : d,
    );
    const patchedFile = join(scratch, "patched.yaml");
    writeFileSync(patchedFile, patched.map((d) => stringify(d)).join("---\n"));
    const again = await cli(patchedFile, { search: ["spec.maxReplicas: [100]"], duration: "12m" });
    assert.equal(again.json.references[0].objective, tuned.json.best.objective);
  });

  it("constraints rule candidates out; none left → exit 1", async () => {
    const tight = await cli(file, { search: [SPACE], duration: "12m", constraint: ["podHours<0"] });
    assert.equal(tight.code, 1);
    assert.equal(tight.json.best, null);
    assert.ok(
      tight.json.rows.every(
        (r: { feasible: boolean; violated: string[] }) =>
          !r.feasible && r.violated[0] === "podHours<0",
      ),
    );
  });

  it("random and halving searches are deterministic for a seed, whatever --jobs", async () => {
    const space =
      "{spec.behavior.scaleDown.stabilizationWindowSeconds: 0..300/60, spec.minReplicas: 8..10}";
    const random = await cli(file, { search: [space], duration: "12m", budget: "4", jobs: "2" });
    assert.equal(random.json.strategy, "random");
    assert.equal(random.json.rows.length, 4);
    const again = await cli(file, { search: [space], duration: "12m", budget: "4", jobs: "1" });
    assert.deepEqual(again.json, random.json);
    const halving = await cli(file, {
      search: [space],
      duration: "12m",
      budget: "4",
      strategy: "halving",
      jobs: "2",
    });
    const halving1 = await cli(file, {
      search: [space],
      duration: "12m",
      budget: "4",
      strategy: "halving",
      jobs: "1",
    });
    assert.equal(halving.json.strategy, "halving");
    // 8 sampled, halved three times: 1 survivor runs the whole trace (8 + 4 + 2 + 1 + 2 references).
    assert.equal(halving.json.rows.length, 1);
    assert.equal(halving.json.runs, 17);
    assert.deepEqual(halving1.json, halving.json);
  });

  it("the table names the winner and prints its patch; the report holds the Pareto chart", async () => {
    const report = join(scratch, "tune.html");
    const { code, out } = await cli(file, {
      search: [SPACE],
      duration: "12m",
      output: "table",
      report,
      constraint: ["flaps<=1000"],
    });
    assert.equal(code, 0);
    // The CLI table's measures, the constrained one included…
    assert.match(out, /^RANK .*podHours \(min\)\s+unmetDemandPodSeconds\s+flaps\s+MEETS/);
    assert.match(
      out,
      /^RANK\s+spec\.behavior\.scaleDown\.stabilizationWindowSeconds\s+spec\.minReplicas\s+podHours \(min\)/,
    );
    assert.match(out, /^upstream default behavior\s+\(default\)\s+\(as written\)/m);
    assert.match(out, /kubectl patch hpa web -n default --type merge/);
    const html = readFileSync(report, "utf8");
    assert.match(html, /<svg [^>]*aria-label="Pareto front of podHours against unmet demand"/);
    assert.match(html, /class="best"/);
    // …are the HTML table's too (issue 39 item 10).
    assert.match(
      html,
      /<th>rank<\/th><th>setting<\/th><th>podHours \(min\)<\/th><th>unmetDemandPodSeconds<\/th><th>flaps<\/th><th>meets constraints<\/th>/,
    );
    // Every point has a tooltip naming its setting and measures; the references' say which.
    assert.match(html, /<g class="ref" tabindex="0"><title>as written: as written\npodHours=/);
    assert.match(html, /<g class="ref" tabindex="0"><title>upstream default behavior: /);
    // Ticks between 0 and the maximum on the y axis.
    assert.ok((html.match(/class="ytick"/g) ?? []).length >= 3, "y ticks beyond 0 and the max");
    // The labels ("as written", "upstream default behavior", "best") cover none of each other.
    const boxes = [
      ...html.matchAll(/<text x="([\d.]+)" y="([\d.]+)"( text-anchor="end")?>([^<]+)<\/text>/g),
    ]
      .filter((m) => ["as written", "upstream default behavior", "best"].includes(m[4]!))
      .map((m) => {
        const w = m[4]!.length * 7;
        const x = Number(m[1]) - (m[3] ? w : 0);
        return { x, y: Number(m[2]) - 11, w, h: 14, text: m[4] };
      });
    assert.equal(boxes.length, 3);
    for (const a of boxes)
      for (const b of boxes)
        if (a !== b)
          assert.ok(
            !(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h),
            `"${a.text}" overlaps "${b.text}"`,
          );
  });
});

describe("the tune report's chart", () => {
  it("ticks its axes at round values", () => {
    assert.deepEqual(niceTicks(0, 1234), [0, 200, 400, 600, 800, 1000, 1200]);
    assert.deepEqual(niceTicks(1.5, 2.1), [1.5, 1.6, 1.7, 1.8, 1.9, 2, 2.1]);
    assert.deepEqual(niceTicks(0, 0), [0]);
  });

  it("places a label clear of the labels placed before it", () => {
    const placed: Parameters<typeof placeLabel>[3] = [];
    const a = placeLabel(300, 200, "as written", placed);
    const b = placeLabel(302, 201, "upstream default behavior", placed);
    assert.notEqual(a.y, b.y);
    assert.ok(Math.abs(a.y - b.y) >= 14, `${a.y} and ${b.y}`);
    // Near the right edge, the label goes left of its point.
    assert.equal(placeLabel(700, 100, "upstream default behavior", []).anchor, "end");
  });
});

describe("horizon tune compares every candidate with one yardstick", () => {
  // Issue 39: a 6-minute sine load; a window of 0 reverses every few minutes. Counted against
  // each candidate's own window, window 0 could never flap and ranked first as "flaps 0".
  it("a scale-down window of 0 under a sine load flaps; flaps==0 rules it out", async () => {
    const text = readFileSync(example("cpu-step.yaml"), "utf8").replace(
      /traffic:\n[\s\S]*$/,
      "traffic:\n    - {type: sine, base: 150, amplitude: 120, period: 6m}\n",
    );
    const file = join(scratch, "sine.yaml");
    writeFileSync(file, text);
    const result = await cli(file, {
      search: ["spec.behavior.scaleDown.stabilizationWindowSeconds: [0, 60, 300, 600]"],
      constraint: ["flaps==0"],
      duration: "1h",
    });
    assert.equal(result.code, 0, result.err);
    const key = "spec.behavior.scaleDown.stabilizationWindowSeconds";
    type JsonRow = { values: Record<string, number>; feasible: boolean; hpas: { flaps: number }[] };
    const byWindow = new Map<number, JsonRow>(
      result.json.rows.map((r: JsonRow) => [r.values[key], r]),
    );
    const zero = byWindow.get(0)!;
    assert.ok(zero.hpas[0]!.flaps > 0, `window 0: ${zero.hpas[0]!.flaps} flaps`);
    assert.equal(zero.feasible, false);
    assert.equal(byWindow.get(60)!.feasible, false);
    assert.equal(byWindow.get(300)!.feasible, true);
    assert.equal(result.json.best.values[key], 300);
  });
});

describe("horizon tune's elasticity measures", () => {
  it("are objectives and constraints, every candidate measured against the file's demand", async () => {
    const key = "spec.metrics[0].resource.target.averageUtilization";
    const result = await cli(example("cpu-step.yaml"), {
      search: [`${key}: [40, 50, 70, 90]`],
      minimize: "thetaO",
      constraint: ["thetaU<=10"],
      duration: "30m",
    });
    assert.equal(result.code, 0, result.err);
    type JsonRow = {
      values: Record<string, number>;
      objective: number;
      feasible: boolean;
      hpas: {
        demandPodHours: number;
        overProvisioningAccuracy: number;
        underProvisioningAccuracy: number;
      }[];
    };
    const rows: JsonRow[] = result.json.rows;
    // A candidate's own target would make its own demand: 90% would need fewer pods than 40%.
    const demands = new Set(rows.map((r) => r.hpas[0]!.demandPodHours));
    assert.equal(demands.size, 1, JSON.stringify([...demands]));
    for (const r of rows) {
      assert.equal(r.objective, r.hpas[0]!.overProvisioningAccuracy);
      assert.equal(r.feasible, r.hpas[0]!.underProvisioningAccuracy <= 10);
    }
    assert.ok(rows.some((r) => !r.feasible) && rows.some((r) => r.feasible));
  });
});

describe("bad input is reported before anything runs", () => {
  const file = example("cpu-step.yaml");
  const cases: { name: string; options: Partial<TuneCommandOptions>; error: RegExp }[] = [
    {
      // Pinned at v1.34: v1.37 accepts minReplicas 0 (HPAScaleToZero beta), with another error.
      name: "a value the API server would refuse",
      options: { search: ["spec.minReplicas: 0..2"], kubernetesVersion: "1.34" },
      error:
        /search entry "spec\.minReplicas": value 0: Invalid value: 0: must be greater than or equal to 1/,
    },
    {
      name: "an unknown objective",
      options: { search: ["spec.minReplicas: [1]"], minimize: "cost" },
      error: /--minimize cost: unknown measure "cost"/,
    },
    {
      name: "a bad constraint",
      options: { search: ["spec.minReplicas: [1]"], constraint: ["flaps=0"] },
      error: /--constraint assertion "flaps=0"/,
    },
    { name: "no search space", options: {}, error: /--search: give the search space/ },
    {
      name: "an unsupported --kubernetes-version",
      options: { search: ["spec.minReplicas: [1]"], kubernetesVersion: "1.33" },
      error:
        /--kubernetes-version: unsupported Kubernetes version "1\.33": supported versions are 1\.34, 1\.35, 1\.36, 1\.37/,
    },
    {
      name: "a bad --jobs",
      options: { search: ["spec.minReplicas: [1]"], jobs: "0" },
      error: /--jobs: expected a positive integer/,
    },
    {
      name: "not an HPA field",
      options: { search: ["spec.foo: [1]"] },
      error: /search entry "spec\.foo"/,
    },
    {
      // Pinned at v1.34, the last version where HPAConfigurableTolerance is off by default.
      name: "a field the API server drops (its feature gate is off): every row would be the same",
      options: {
        search: ["spec.behavior.scaleDown.tolerance: [0.05, 0.2]"],
        kubernetesVersion: "1.34",
      },
      error:
        /search entry "spec\.behavior\.scaleDown\.tolerance": spec\.behavior\.scaleDown\.tolerance is dropped by the API server: feature gate HPAConfigurableTolerance is off/,
    },
    {
      name: "the same field searched twice",
      options: { search: ["spec.maxReplicas: [3]", "spec.maxReplicas: [4]"] },
      error: /search entry "spec\.maxReplicas": the same field as search entry "spec\.maxReplicas"/,
    },
    {
      name: "the same field, once by the only HPA and once by its name",
      options: { search: ["spec.maxReplicas: [3]", "hpa/web:spec.maxReplicas: [4]"] },
      error:
        /search entry "hpa\/web:spec\.maxReplicas": the same field as search entry "spec\.maxReplicas"/,
    },
    {
      name: "--patch when no searched field is an HPA field",
      options: {
        search: ["scenario:spec.controller.horizontal-pod-autoscaler-tolerance: [0.05, 0.1]"],
        patch: join(scratch, "never-written.yaml"),
      },
      error: /--patch .*: no searched field is an HPA field/,
    },
    {
      name: "a --search file that does not exist",
      options: { search: ["my/serch.yaml"] },
      error: /--search my\/serch\.yaml: no such file/,
    },
    {
      name: "a --search path that is a directory",
      options: { search: [scratch] },
      error: /--search .*: is a directory, not a file/,
    },
    {
      name: "a constraint on an HPA the scenario does not have",
      options: { search: ["spec.maxReplicas: [3, 4]"], constraint: ["hpa/nope:flaps==0"] },
      error: /--constraint hpa\/nope:flaps==0: no HPA hpa\/nope in the scenario/,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { code, err, out } = await cli(file, c.options);
      assert.equal(code, 2);
      assert.match(err, c.error);
      assert.equal(out, "");
    });
  }
});

describe("the pool with one job", () => {
  it("runs candidates in-process one at a time, in the order given", async () => {
    const file = example("scale-down-policies.yaml");
    const pool = new TunePool(
      { text: readFileSync(file, "utf8"), file, baseDir: dirname(file), sets: [] },
      1,
    );
    const finished: number[] = [];
    // Run together, the 10-second candidate would finish long before the 2-hour one.
    await Promise.all([
      pool.run({ id: 1, sets: [], durationMs: 2 * 3600_000 }).then(() => finished.push(1)),
      pool.run({ id: 2, sets: [], durationMs: 10_000 }).then(() => finished.push(2)),
    ]);
    await pool.close();
    assert.deepEqual(finished, [1, 2]);
  });
});

describe("the pool with two jobs", () => {
  it("answers every task with its own outcome, each worker running its tasks in the order sent", async () => {
    const file = example("scale-down-policies.yaml");
    const pool = new TunePool(
      { text: readFileSync(file, "utf8"), file, baseDir: dirname(file), sets: [] },
      2,
    );
    // Seven tasks on two workers: each holds one running and one waiting, the rest queue here.
    // Lengths differ so answers come back out of order; a bad --set fails only its own task.
    const tasks = Array.from({ length: 7 }, (_, i) => ({
      id: i,
      sets: i === 3 ? ["hpa/nope:spec.minReplicas=2"] : [],
      durationMs: (1 + (i % 3) * 20) * 60_000,
    }));
    const outcomes = await Promise.all(tasks.map((task) => pool.run(task)));
    await pool.close();
    assert.equal(pool.started, 2);
    assert.deepEqual(
      outcomes.map((o) => o.id),
      tasks.map((t) => t.id),
    );
    for (const [i, o] of outcomes.entries()) {
      assert.equal(o.ok, i !== 3, JSON.stringify(o).slice(0, 200));
      if (o.ok) assert.equal(o.durationMs, tasks[i]!.durationMs);
    }
  });
});

describe("the pool's workers", () => {
  it("start only as tasks need them: two tasks on four jobs start two", async () => {
    const file = example("scale-down-policies.yaml");
    const pool = new TunePool(
      { text: readFileSync(file, "utf8"), file, baseDir: dirname(file), sets: [] },
      4,
    );
    assert.equal(pool.started, 0);
    const outcomes = await Promise.all(
      [1, 2].map((id) => pool.run({ id, sets: [], durationMs: 10 * 60_000 })),
    );
    assert.equal(pool.started, 2);
    assert.deepEqual(
      outcomes.map((o) => [o.id, o.ok]),
      [
        [1, true],
        [2, true],
      ],
    );
    await pool.close();
  });
});

describe("the pool's last tasks", () => {
  it("go to whichever worker is free, not behind another worker's running task", async () => {
    const file = example("scale-down-policies.yaml");
    const pool = new TunePool(
      { text: readFileSync(file, "utf8"), file, baseDir: dirname(file), sets: [] },
      2,
    );
    // Both workers started first, so the order below depends on the tasks' lengths alone.
    await Promise.all([10, 11].map((id) => pool.run({ id, sets: [], durationMs: 10_000 })));
    assert.equal(pool.started, 2);
    const finished: number[] = [];
    // Task 0 (6 hours) keeps one worker busy; the other runs task 1 (10 seconds), then task 2,
    // which a worker holding it behind task 0 would only start after that.
    const lengths = [6 * 3600_000, 10_000, 10_000];
    await Promise.all(
      lengths.map((durationMs, id) =>
        pool.run({ id, sets: [], durationMs }).then(() => finished.push(id)),
      ),
    );
    await pool.close();
    assert.deepEqual(finished, [1, 2, 0]);
  });
});

describe("the bundled worker (npm run build)", () => {
  it("is one file that answers tasks exactly as the in-process evaluation does", async () => {
    const outfile = join(scratch, "worker.js");
    await promisify(execFile)(process.execPath, [
      join(import.meta.dirname, "../../scripts/bundle-tune-worker.mjs"),
      outfile,
    ]);
    const text = readFileSync(outfile, "utf8");
    // Only Node's own modules are imported: the project and its packages are inside.
    const imports = [...text.matchAll(/^import .* from "([^"]+)";/gm)].map((m) => m[1]);
    assert.ok(imports.length > 0);
    for (const name of imports) assert.match(name!, /^node:/);
    const file = example("scale-down-policies.yaml");
    const base = { text: readFileSync(file, "utf8"), file, baseDir: dirname(file), sets: [] };
    const tasks = [
      { id: 1, sets: ["hpa/web:spec.minReplicas=12"], durationMs: 20 * 60_000 },
      { id: 2, sets: ["hpa/nope:spec.minReplicas=2"] },
    ];
    const worker = new Worker(outfile, { workerData: base });
    try {
      const answers: TaskOutcome[] = [];
      const all = new Promise<void>((resolve, reject) => {
        worker.on("error", reject);
        worker.on("message", (outcome: TaskOutcome) => {
          answers.push(outcome);
          if (answers.length === tasks.length) resolve();
        });
      });
      for (const task of tasks) worker.postMessage(task);
      await all;
      const expected = [];
      for (const task of tasks) expected.push(await evaluateTask(base, task));
      assert.equal(expected[0]?.ok, true);
      assert.equal(expected[1]?.ok, false);
      assert.deepEqual(answers, expected);
    } finally {
      await worker.terminate();
    }
  });
});
