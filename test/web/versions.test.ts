// The dashboard's what-if checks an edited HPA as the run's Kubernetes version's API server
// would: minReplicas 0 with an External metric is refused at v1.34 (HPAScaleToZero alpha, off)
// and accepted at v1.37 (beta, on: kubernetes/kubernetes#139648).
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadScenarioFile } from "../../src/sim/scenario.js";
import { recordRun, whatIf } from "../../src/web/simulation.js";

const QUEUE = join(import.meta.dirname, "..", "..", "examples", "external-queue.yaml");

describe("what-if at the run's Kubernetes version", () => {
  for (const [version, accepted] of [
    ["1.34", false],
    ["1.37", true],
  ] as const) {
    it(`v${version}: minReplicas 0 is ${accepted ? "accepted" : "refused"}`, async () => {
      const loaded = await loadScenarioFile(QUEUE, { kubernetesVersion: version });
      assert.ok(loaded.ok);
      loaded.scenario.spec.durationMs = 600_000;
      const run = await recordRun(loaded.scenario, "queue");
      const answer = await whatIf(run, "default", "worker", { minReplicas: 0 });
      assert.equal(answer.ok, accepted, answer.ok ? "" : (answer.causes ?? []).join("; "));
      if (!answer.ok) {
        assert.ok(
          answer.causes!.some((c) => /^spec\.minReplicas: Invalid value: 0/.test(c)),
          answer.causes!.join("; "),
        );
      }
    });
  }
});
