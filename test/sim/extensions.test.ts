// The extension examples (examples/*: scale to zero, a schedule, a fallback, per-HPA knobs) simulated with their
// assertions, and side by side with upstream's behaviour (--compare-set removing the annotations).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type SimulateOptions, simulateCommand } from "../../src/cli/simulate.js";
import { runSimulation } from "../../src/sim/runner.js";
import { formatScenarioError, loadScenarioFile } from "../../src/sim/scenario.js";

const example = (name: string) => join(import.meta.dirname, "..", "..", "examples", name);

// Pinned at v1.34: the action times were recorded with its first sync one period after an HPA
// is seen (v1.37 syncs it at once, kubernetes/kubernetes#138294).
const V134 = "1.34";

async function cli(file: string, options: Partial<SimulateOptions>) {
  let out = "";
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
      err: (line) => {
        out += `${line}\n`;
      },
      interactive: false,
    },
  );
  return { code, out };
}

/** One run's actions as [seconds, from, to], with or without the HPA's annotations. */
async function actions(file: string, upstream: boolean) {
  const loaded = await loadScenarioFile(file, {
    sets: upstream ? ["hpa:metadata.annotations={}"] : [],
    kubernetesVersion: V134,
  });
  assert.ok(loaded.ok, loaded.ok ? "" : JSON.stringify(loaded.errors));
  const result = await runSimulation({ scenario: loaded.scenario, emit: () => undefined });
  const hpa = result.summary.hpas[0]!;
  return { actions: hpa.actions.map((a) => [a.t, a.from, a.to]), summary: hpa };
}

const cases: {
  name: string;
  file: string;
  asserts: string[];
  extended: number[][];
  upstream: number[][];
}[] = [
  {
    name: "a queue scaled to zero overnight, activated by the first message",
    file: "queue-scale-to-zero.yaml",
    asserts: ["lowestReplicas==0", "finalReplicas==0"],
    // Cooldown after the first 5 min; activation at the first sync after messages arrive (40m).
    extended: [
      [315, 1, 0],
      [2415, 0, 1],
    ],
    // Upstream never goes below minReplicas 1: its first action is the queue's scale-up.
    upstream: [[2415, 1, 4]],
  },
  {
    name: "a nightly batch with a schedule",
    file: "nightly-batch-schedule.yaml",
    asserts: ["unmetDemandPodSeconds<60", "highestReplicas==12"],
    extended: [
      [3000, 2, 8],
      [3615, 8, 12],
    ],
    upstream: [
      [3615, 2, 4],
      [3630, 4, 6],
    ],
  },
  {
    name: "a metrics outage with fallback",
    file: "metrics-outage-fallback.yaml",
    asserts: ["highestReplicas==6", "unmetDemandPodSeconds<60"],
    // 4 failed syncs from the outage at 8m: 8m15s … 8m45s.
    extended: [[525, 2, 6]],
    // Upstream waits for the metrics to return at 23m.
    upstream: [[1380, 2, 4]],
  },
  {
    name: "per-HPA tolerance and downscale stabilization",
    file: "per-hpa-knobs.yaml",
    asserts: ["highestReplicas==5", "finalReplicas==4"],
    // +8% at 5m: past a 2% scale-up tolerance; the drop at 20m given back after 1 min.
    extended: [
      [315, 4, 5],
      [1260, 5, 4],
    ],
    // Inside upstream's 10% tolerance: no action at all.
    upstream: [],
  },
];

describe("extension examples", () => {
  for (const c of cases) {
    it(`${c.name}: assertions pass, and the first actions differ from upstream's`, async () => {
      const { code, out } = await cli(example(c.file), { assert: c.asserts });
      assert.equal(code, 0, out);
      assert.equal(out.match(/^PASS hpa\/default\//gm)?.length, c.asserts.length, out);
      assert.doesNotMatch(out, /^FAIL/m);
      const extended = await actions(example(c.file), false);
      const upstream = await actions(example(c.file), true);
      assert.deepEqual(extended.actions.slice(0, c.extended.length), c.extended);
      assert.deepEqual(
        c.upstream.length > 0 ? upstream.actions.slice(0, c.upstream.length) : upstream.actions,
        c.upstream,
      );
    });
  }

  it("--compare-set without the annotations prints both runs side by side", async () => {
    const { code, out } = await cli(example("metrics-outage-fallback.yaml"), {
      compareSet: ["hpa/web:metadata.annotations={}"],
    });
    assert.equal(code, 0, out);
    assert.match(out, /unmet demand \(pod-seconds\)\s+12\s+330\s+\+318/);
    assert.match(
      out,
      /8m45s\s+2 → 6\s+FallbackActive\s+fallback after 4 syncs with failed metrics/,
    );
  });

  it("the actions name the rule that set the count", async () => {
    const { summary } = await actions(example("queue-scale-to-zero.yaml"), false);
    assert.deepEqual(
      summary.actions.slice(0, 2).map((a) => a.limit),
      ["ScaledToZero", "Activated"],
    );
  });

  it("an upstream run fails the extension's assertion (the assertion can fail)", async () => {
    const { code, out } = await cli(example("queue-scale-to-zero.yaml"), {
      assert: ["lowestReplicas==0"],
      set: ["hpa/worker:metadata.annotations={}"],
    });
    assert.notEqual(code, 0);
    assert.match(out, /FAIL hpa\/default\/worker lowestReplicas=1 == 0/);
  });

  it("a scenario's HPA with a malformed annotation is refused, an unknown key warned", async () => {
    const dir = mkdtempSync(join(tmpdir(), "horizon-ext-"));
    const text = readFileSync(example("metrics-outage-fallback.yaml"), "utf8");
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, text.replace('fallback-replicas: "6"', 'fallback-replicas: "six"'));
    const refused = await loadScenarioFile(bad);
    assert.ok(!refused.ok);
    assert.match(
      refused.errors.map(formatScenarioError).join("\n"),
      /bad\.yaml:\d+:\d+: document 2.*Invalid value: "six": invalid value "six": must be a whole number of replicas/,
    );
    const unknown = join(dir, "unknown.yaml");
    writeFileSync(
      unknown,
      text.replace("horizon.dev/fallback-failure-threshold", "horizon.dev/fallback-threshold"),
    );
    const warned = await loadScenarioFile(unknown);
    assert.ok(warned.ok);
    assert.ok(
      warned.scenario.warnings.some((w) =>
        /metadata\.annotations\[horizon\.dev\/fallback-threshold\]: unknown annotation/.test(w),
      ),
      warned.scenario.warnings.join("\n"),
    );
  });
});
