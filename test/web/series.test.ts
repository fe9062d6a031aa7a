// What the dashboard's charts plot of a recorded run (src/web/app/series.ts): one chart per
// metric, named as its successful syncs name it (failed syncs carry only a stand-in such as
// "Metric 1 (Resource)" and no value), and no desired replicas for a failed sync (its trace
// carries the status' old value: 0 before the HPA's first decision).
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadScenarioFile } from "../../src/sim/scenario.js";
import { metricSeries, plottedDesired } from "../../src/web/app/series.js";
import { recordRun, simulationData } from "../../src/web/simulation.js";

const EXAMPLES = join(import.meta.dirname, "..", "..", "examples");

async function detailOf(example: string, name: string) {
  const loaded = await loadScenarioFile(join(EXAMPLES, example));
  assert.ok(loaded.ok);
  const data = simulationData(await recordRun(loaded.scenario, example), null);
  return {
    detail: data.detail("default", name)!,
    row: data.overview().hpas.find((h) => h.name === name)!,
  };
}

describe("the HPA page's charts", () => {
  it("one chart per metric, named, when the first syncs failed to read them", async () => {
    const { detail } = await detailOf("multiple-metrics.yaml", "php-apache");
    // The run starts with failed metrics: their stand-in names are in the samples…
    // (named as explain names a metric without a description: "Metric 2 (Pods)")…
    assert.ok(detail.samples[0]!.metrics.some((m) => /^Metric \d \(\w+\)$/.test(m.name)));
    // …but open no chart: three metrics, three charts, each with values.
    const charts = metricSeries(detail.samples);
    assert.deepEqual(
      charts.map((c) => c.name),
      [
        "Metric 3 (Object, Ingress metric requests-per-second)",
        "Metric 2 (Pods, pods metric packets-per-second)",
        "Metric 1 (Resource, cpu resource utilization (percentage of request))",
      ],
    );
    for (const c of charts)
      assert.ok(
        c.current.some((v) => v !== null),
        c.name,
      );
  });

  it("does not plot a failed sync's desired replicas (0 before the first decision)", async () => {
    const { detail, row } = await detailOf("cpu-step.yaml", "web");
    const first = detail.samples[0]!;
    assert.equal(first.outcome, "failed");
    assert.equal(first.desiredReplicas, 0, "the trace carries the empty status' 0");
    const desired = detail.samples.map(plottedDesired);
    assert.equal(desired[0], null);
    assert.ok(
      desired.every((d) => d === null || d >= 1),
      "never below minReplicas 1",
    );
    assert.ok(desired.filter((d) => d !== null).length > 100);
    // The overview's sparkline leaves failed syncs out too.
    assert.ok(row.sparkline.length > 0 && row.sparkline.every((d) => d >= 1), `${row.sparkline}`);
    assert.equal(metricSeries(detail.samples).length, 1);
  });
});
