// How every view names a metric and says a time (src/explain/format.ts, src/web/app/time.ts):
// one numbering for a metric (explain's, 1-based with its type), a unit said once in a title,
// and a run's time as the CLI says it or a UTC instant with its date.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { metricName, withUnit } from "../../src/explain/format.js";
import { elapsedText, runTime, utcText, utcTicks } from "../../src/web/app/time.js";

describe("a metric's name", () => {
  it("is its 1-based place in spec.metrics and its type, then upstream's description", () => {
    assert.equal(metricName({ index: 0, type: "Pods" }), "Metric 1 (Pods)");
    assert.equal(
      metricName({
        index: 2,
        type: "Resource",
        description: "cpu resource utilization (percentage of request)",
      }),
      "Metric 3 (Resource, cpu resource utilization (percentage of request))",
    );
  });

  it("says its unit once", () => {
    assert.equal(
      withUnit(
        "Metric 1 (Resource, cpu resource utilization (percentage of request))",
        "% of request",
      ),
      "Metric 1 (Resource, cpu resource utilization (percentage of request))",
    );
    assert.equal(withUnit("Metric 1 (Pods)", "% of request"), "Metric 1 (Pods) (% of request)");
    assert.equal(withUnit("Metric 1 (Pods)", ""), "Metric 1 (Pods)");
  });
});

describe("a chart's time", () => {
  it("is an offset from the start as the CLI prints it, or a UTC instant with its date", () => {
    assert.equal(elapsedText(86400), "24h0m0s");
    assert.equal(utcText(Date.UTC(2026, 0, 1, 18, 0, 15)), "2026-01-01 18:00:15 UTC");
  });

  it("says a sync's time as an offset in a simulation, a UTC instant with its date live", () => {
    const start = Date.UTC(2026, 0, 1);
    assert.equal(runTime(start + 64_815_000, start), "18h0m15s");
    assert.equal(runTime(start + 64_815_000, null), "2026-01-01 18:00:15 UTC");
  });

  it("ticks a live chart in UTC, with the date under the first tick and where the day changes", () => {
    const t = Date.UTC(2025, 11, 31, 23, 0) / 1000;
    assert.deepEqual(utcTicks([t, t + 1800, t + 3600], 1800), [
      "23:00\n2025-12-31",
      "23:30",
      "00:00\n2026-01-01",
    ]);
    assert.deepEqual(utcTicks([t, t + 15], 15), ["23:00:00\n2025-12-31", "23:00:15"]);
  });
});
