// Whole simulations in virtual time: exact trajectories, determinism, comparisons, readiness
// rules under a rolling update, controller restarts, bad input, reports and assertions.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type SimulateOptions, simulateCommand } from "../../src/cli/simulate.js";
import type { ReportDocument } from "../../src/sim/report.js";
import { runSimulation } from "../../src/sim/runner.js";
import { loadScenarioFile, parseScenario } from "../../src/sim/scenario.js";
import type { SampleRecord, SimulationRecord, SyncRecord } from "../../src/sim/timeline.js";

const root = join(import.meta.dirname, "..", "..");
const example = (name: string) => join(root, "examples", name);
const scratch = mkdtempSync(join(tmpdir(), "horizon-sim-"));

// Pinned at v1.34: these trajectories were recorded with its first sync one period after an HPA
// is seen (v1.37 syncs it at once, kubernetes/kubernetes#138294; test/sim/versions.test.ts).
const V134 = "1.34";

async function load(file: string, sets: string[] = []) {
  const loaded = await loadScenarioFile(file, { sets, kubernetesVersion: V134 });
  assert.ok(loaded.ok, loaded.ok ? "" : JSON.stringify(loaded.errors));
  return loaded.scenario;
}

async function run(file: string, sets: string[] = []) {
  const records: SimulationRecord[] = [];
  const result = await runSimulation({
    scenario: await load(file, sets),
    emit: (record) => {
      records.push(record);
      return undefined;
    },
  });
  const actions = result.summary.hpas[0]!.actions.map((a) => [a.t, a.from, a.to]);
  return { records, result, actions };
}

async function cli(file: string, options: Partial<SimulateOptions>) {
  let out = "";
  const err: string[] = [];
  const code = await simulateCommand(
    file,
    {
      set: [],
      compareSet: [],
      assert: [],
      output: "table",
      quiet: true,
      kubernetesVersion: V134,
      ...options,
    },
    {
      out: (chunk) => {
        out += chunk;
        return undefined;
      },
      err: (line) => err.push(line),
      interactive: false,
    },
  );
  return { code, out, err: err.join("\n") };
}

/** The report's document, as its page reads it. */
function reportDocument(html: string): ReportDocument {
  const json = /<script type="application\/json" id="horizon-report">([^<]*)<\/script>/.exec(html);
  assert.ok(json, "the report's document");
  return JSON.parse(json[1]!) as ReportDocument;
}

describe("the documentation's scale-down policies example", () => {
  it("steps 80 → 72 → 64 … once per 60 s, after the 300 s stabilization window", async () => {
    const { actions } = await run(example("scale-down-policies.yaml"));
    // First sync at 15 s seeds the history with 80; the window holds until 15 + 300 s. Each step
    // takes the larger change of Pods 4 and Percent 10 (Max): 80·0.9 = 72, 72·0.9 = 64.8 → 64, ...
    assert.deepEqual(actions.slice(0, 6), [
      [315, 80, 72],
      [375, 72, 64],
      [435, 64, 57],
      [495, 57, 51],
      [555, 51, 45],
      [615, 45, 40],
    ]);
    // Below 40 the Pods policy (−4) is the larger change; the minimum of 10 ends it.
    assert.deepEqual(actions.slice(-2), [
      [1035, 16, 12],
      [1095, 12, 10],
    ]);
  });
});

describe("determinism", () => {
  it("the same scenario and seed give byte-identical JSON", async () => {
    const a = await cli(example("cpu-step.yaml"), { output: "json" });
    const b = await cli(example("cpu-step.yaml"), { output: "json" });
    assert.equal(a.code, 0, a.err);
    assert.ok(a.out.length > 10_000);
    assert.equal(a.out, b.out);
  });

  it("another seed changes the jitter", async () => {
    const a = await cli(example("cpu-step.yaml"), { output: "json" });
    const b = await cli(example("cpu-step.yaml"), { output: "json", seed: "2" });
    assert.notEqual(a.out, b.out);
  });
});

describe("--compare", () => {
  it("both runs see identical traffic and differ only by what was changed", async () => {
    const demand = (records: SimulationRecord[]) =>
      records.filter((r): r is SampleRecord => r.type === "sample").map((r) => [r.t, r.demandRps]);
    const a = await run(example("cpu-step.yaml"));
    const b = await run(example("cpu-step.yaml"), ["hpa/web:spec.maxReplicas=2"]);
    assert.deepEqual(demand(a.records), demand(b.records));
    assert.ok(b.result.summary.hpas[0]!.highestReplicas <= 2);
    assert.ok(a.result.summary.hpas[0]!.highestReplicas > 2);
  });

  it("puts both runs in one report", async () => {
    const file = join(scratch, "compare.html");
    const { code } = await cli(example("cpu-step.yaml"), {
      compareSet: ["hpa/web:spec.maxReplicas=2"],
      report: file,
    });
    assert.equal(code, 0);
    const doc = reportDocument(readFileSync(file, "utf8"));
    assert.match(doc.runs[1]!.label, /hpa\/web:spec\.maxReplicas=2/);
    assert.ok(
      doc.runs[1]!.hpas["default/web"]!.actions.some((a) => a.from === 1 && a.to === 2),
      "the compared run's own action",
    );
  });

  it("prints both runs side by side with deltas", async () => {
    const { code, out } = await cli(example("cpu-step.yaml"), {
      compareSet: ["hpa/web:spec.maxReplicas=2"],
    });
    assert.equal(code, 0);
    assert.match(out, /delta/);
    assert.match(out, /highest replicas/);
  });

  it("measures the edited run's elasticity against the first run's demand", async () => {
    // A target of 90% would need fewer pods by its own reckoning; compared with 50%, the demand
    // stays the file's, so the two runs' θ and τ compare like with like.
    const { code, out } = await cli(example("cpu-step.yaml"), {
      compareSet: ["hpa/web:spec.metrics[0].resource.target.averageUtilization=90"],
    });
    assert.equal(code, 0);
    const row = out.split("\n").find((l) => l.trimStart().startsWith("demand (pod-hours)"));
    assert.ok(row, out);
    const [a, b, delta] = row
      .trim()
      .split(/\s{2,}/)
      .slice(1);
    assert.ok(Number(a) > 0, row);
    assert.equal(b, a, row);
    assert.equal(delta, "0", row);
    assert.match(out, /θO over-provisioning \(%\)/);
  });
});

describe("readiness rules under a rolling update", () => {
  it("startup CPU bursts do not scale the HPA; without the CPU initialization period they do", async () => {
    const upstream = await run(example("rolling-update.yaml"));
    assert.deepEqual(upstream.actions, []);
    // During the rollout the trace shows the new pods set aside as unready.
    const syncs = upstream.records.filter(
      (r): r is SyncRecord => r.type === "sync" && r.t > 600 && r.t < 900,
    );
    assert.ok(syncs.some((s) => (s.trace.metrics[0]?.calculation?.unreadyPods?.length ?? 0) > 0));
    const noInitialization = await run(example("rolling-update.yaml"), [
      "scenario:spec.controller.horizontal-pod-autoscaler-cpu-initialization-period=0s",
    ]);
    assert.ok(noInitialization.result.summary.hpas[0]!.scaleUps > 0);
  });
});

describe("controller restart", () => {
  const scenario = (events: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 10
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]
---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: restart}
spec:
  duration: 15m
  workloads:
    - target: Deployment/web
      usage: {cpu: {base: 10m, perRps: 0}}
      traffic: [{type: constant, rps: 0}]
${events}`;

  const actionsOf = async (text: string) => {
    const parsed = parseScenario(text, {
      file: "restart.yaml",
      baseDir: scratch,
      kubernetesVersion: V134,
    });
    assert.ok(parsed.ok, parsed.ok ? "" : JSON.stringify(parsed.errors));
    const result = await runSimulation({ scenario: parsed.scenario });
    return result.summary.hpas[0]!.actions.map((a) => [a.t, a.from, a.to]);
  };

  it("loses the recommendation history, so the scale-down waits a whole window again", async () => {
    // Without a restart: first sync at 15 s seeds 4; the 5 min window releases at 315 s.
    assert.deepEqual(await actionsOf(scenario("")), [[315, 4, 1]]);
    // Restart at 240 s: the next sync is one period later (255 s) and seeds a new history.
    const restarted = await actionsOf(scenario("  events: [{at: 4m, type: restartController}]"));
    assert.deepEqual(restarted, [[555, 4, 1]]);
  });
});

describe("bad input", () => {
  it("a bad scenario exits 2 naming file, line and column", async () => {
    const file = join(scratch, "bad.yaml");
    writeFileSync(
      file,
      `apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: bad}
spec:
  duration: ten minutes
`,
    );
    const { code, err } = await cli(file, {});
    assert.equal(code, 2);
    assert.match(err, /bad\.yaml:5:\d+/);
    assert.match(err, /duration/);
  });

  it("an unsupported --kubernetes-version exits 2 listing the supported ones", async () => {
    const { code, err } = await cli(example("cpu-step.yaml"), { kubernetesVersion: "1.33" });
    assert.equal(code, 2);
    assert.equal(
      err,
      'error: --kubernetes-version: unsupported Kubernetes version "1.33": supported versions are 1.34, 1.35, 1.36, 1.37',
    );
  });

  it("--kubernetes-version overrides the scenario's: a v1.37 gate lock is refused there", async () => {
    const set = ["scenario:spec.featureGates.HPAConfigurableTolerance=false"];
    assert.equal((await cli(example("cpu-step.yaml"), { set, kubernetesVersion: "1.36" })).code, 0);
    const locked = await cli(example("cpu-step.yaml"), { set, kubernetesVersion: "1.37" });
    assert.equal(locked.code, 2);
    assert.match(locked.err, /feature is locked to true/);
  });

  it("a field error names the object and the field path as upstream writes it", async () => {
    const { code, err } = await cli(example("cpu-step.yaml"), {
      set: ["hpa:spec.maxReplicas=0"],
    });
    assert.equal(code, 2);
    assert.match(
      err,
      /^error: \S+cpu-step\.yaml:\d+:\d+: document 2 \(HorizontalPodAutoscaler\/web\): spec\.maxReplicas: Invalid value: 0: /m,
    );
  });

  it("a bad --assert and a bad --output exit 2 before running", async () => {
    assert.equal((await cli(example("cpu-step.yaml"), { assert: ["flaps=0"] })).code, 2);
    const output = await cli(example("cpu-step.yaml"), { output: "yaml" });
    assert.equal(output.code, 2);
    assert.match(output.err, /--output/);
  });
});

describe("--assert and --report", () => {
  it("sets exit code 1 when an assertion fails, 0 when all hold", async () => {
    const failing = await cli(example("cpu-step.yaml"), { assert: ["maxReplicas<=2"] });
    assert.equal(failing.code, 1);
    assert.match(failing.err, /FAIL/);
    const passing = await cli(example("cpu-step.yaml"), {
      assert: ["maxReplicas<=10", "flaps==0"],
    });
    assert.equal(passing.code, 0, passing.err);
  });

  it("fails every assertion on an HPA whose scaleTargetRef names nothing (FailedGetScale)", async () => {
    const broken = await cli(example("cpu-step.yaml"), {
      set: ["hpa:spec.scaleTargetRef.name=nothing", "scenario:spec.duration=5m"],
      assert: ["maxReplicas<=10", "podHours<=5"],
      quiet: false,
    });
    assert.equal(broken.code, 1, broken.err);
    assert.match(
      broken.err,
      /Warning: .*scale target Deployment\/nothing is not among the manifests/,
    );
    assert.match(
      broken.err,
      /^FAIL hpa\/default\/web maxReplicas: the HPA never got its scale \(FailedGetScale/m,
    );
    assert.match(broken.err, /^FAIL hpa\/default\/web podHours: the HPA never got its scale/m);
    assert.doesNotMatch(broken.err, /^PASS/m);
    assert.match(broken.out, /scale target +never read \(FailedGetScale\)/);
    const json = await cli(example("cpu-step.yaml"), {
      set: ["hpa:spec.scaleTargetRef.name=nothing", "scenario:spec.duration=5m"],
      output: "json",
    });
    const summary = JSON.parse(json.out.trim().split("\n").at(-1)!) as {
      hpas: { failedGetScale?: boolean }[];
    };
    assert.equal(summary.hpas[0]!.failedGetScale, true);
  });

  it("writes a self-contained report with the charts and every action's trace", async () => {
    const file = join(scratch, "report.html");
    const { code, err } = await cli(example("cpu-step.yaml"), { report: file });
    assert.equal(code, 0, err);
    const html = readFileSync(file, "utf8");
    assert.match(html, /^<!DOCTYPE html>/i);
    assert.ok(!/(src|href)=["']https?:/.test(html));
    // The page renders its document (test/sim/report-browser.test.ts opens it in a browser).
    const doc = reportDocument(html);
    const hpa = doc.runs[0]!.hpas["default/web"]!;
    const workload = doc.runs[0]!.workloads[hpa.target!]!;
    for (const series of [workload.demand, workload.spec, hpa.desired, hpa.metrics[0]!.current])
      assert.ok(series.length > 0, "a chart's series");
    // The first syncs fail (no CPU sample yet) and decide nothing: the desired replicas start
    // with the first decision, never at the empty status' 0 (minReplicas is 1).
    assert.ok(
      hpa.desired.every(([, v]) => v >= 1),
      `desired ${JSON.stringify(hpa.desired.slice(0, 4))}`,
    );
    const { result } = await run(example("cpu-step.yaml"));
    assert.deepEqual(
      hpa.actions.map((a) => [a.from, a.to]),
      result.summary.hpas[0]!.actions.map((a) => [a.from, a.to]),
    );
    for (const action of hpa.actions)
      assert.equal((action.trace as { version: string }).version, "horizon.dev/decision-trace/v1");
  });
});
