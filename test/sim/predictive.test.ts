// horizon.dev/predictive in `horizon simulate`: the models learn from the run itself, and on the
// second day of a morning surge the forecast scales the Deployment ahead of it (less unmet demand
// than upstream's reactive HPA on the same scenario).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runSimulation } from "../../src/sim/runner.js";
import { parseScenario } from "../../src/sim/scenario.js";
import type { SimulationRecord, SyncRecord } from "../../src/sim/timeline.js";

function scenario(annotations: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: example/web:1
        resources: {requests: {cpu: 500m}}
        readinessProbe: {httpGet: {path: /, port: 80}, initialDelaySeconds: 85}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
${annotations}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 40
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: daily-ramp}
spec:
  duration: 48h
  workloads:
  - target: Deployment/web
    usage: {cpu: {base: 20m, perRps: 4m}, capacityRps: 100}
    traffic:
    # A morning surge each day: 200 rps at night, 1,500 rps from 08:00 to 18:00.
    - type: step
      initial: 200
      steps: [{at: 8h, rps: 1500}, {at: 18h, rps: 200}, {at: 32h, rps: 1500}, {at: 42h, rps: 200}]
`;
}

async function run(annotations: string) {
  const parsed = parseScenario(scenario(annotations), { file: "ramp.yaml", baseDir: "." });
  assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.errors));
  const syncs: SyncRecord[] = [];
  // Day 2's unserved requests (request-seconds), sample by sample.
  let unservedDay2 = 0;
  let last: { t: number; short: number } | null = null;
  const result = await runSimulation({
    scenario: parsed.scenario,
    emit: (r: SimulationRecord) => {
      if (r.type === "sync") syncs.push(r);
      if (r.type === "sample") {
        if (last && last.t >= 86_400) unservedDay2 += last.short * (r.t - last.t);
        last = { t: r.t, short: r.demandRps - r.servedRps };
      }
      return undefined;
    },
  });
  return { summary: result.summary.hpas[0]!, syncs, unservedDay2 };
}

describe("simulate: horizon.dev/predictive", () => {
  it("learns the first day, then meets the morning surge ahead of upstream's reactive HPA", async () => {
    const reactive = await run("");
    const predictive = await run('  annotations: {horizon.dev/predictive: "true"}');
    const reason = (s: SyncRecord) =>
      s.conditions.find((c) => c.type === "PredictiveActive")?.reason;
    assert.equal(reason(predictive.syncs[10]!), "InsufficientHistory");
    const day2 = predictive.syncs.filter((s) => s.t > 90_000);
    assert.ok(day2.length > 1000);
    assert.ok(day2.every((s) => reason(s) === "ForecastActive"));
    assert.ok(
      day2.some((s) => s.scaled && s.trace.recommendationMetric?.startsWith("forecast of")),
      "some scale-up driven by the forecast",
    );
    // Day 1 is the same run in both; day 2's surge is met sooner. Not all of it: day 1's
    // observations of the surge were capped by the pods' capacity (served, not offered, load).
    assert.ok(reactive.unservedDay2 > 0);
    assert.ok(
      predictive.unservedDay2 < 0.75 * reactive.unservedDay2,
      `day 2 unserved ${predictive.unservedDay2} vs ${reactive.unservedDay2}`,
    );
    assert.ok(predictive.summary.unmetDemandPodSeconds < reactive.summary.unmetDemandPodSeconds);
    assert.ok(reactive.syncs.every((s) => !s.trace.extensions));
  });
});
