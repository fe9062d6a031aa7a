// The demand of the elasticity measures (docs/simulate.md "Elasticity"): the fewest ready pods
// that meet an HPA's modelled targets at an offered load, worked out by hand per row.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { demandPods, scenarioYardsticks } from "../../src/sim/demand.js";
import { formatScenarioError, parseScenario } from "../../src/sim/scenario.js";

describe("demandPods", () => {
  const cpu = { metric: "cpu", base: 10, perRps: 2, target: 100 }; // 90m of headroom per pod
  const cases = [
    { name: "no load: one pod", y: { capacityRps: 150, bounds: [cpu] }, rps: 0, pods: 1 },
    { name: "cpu: ⌈2 × 200 / 90⌉", y: { capacityRps: 150, bounds: [cpu] }, rps: 200, pods: 5 },
    { name: "exactly at the target", y: { capacityRps: null, bounds: [cpu] }, rps: 45, pods: 1 },
    { name: "just over it", y: { capacityRps: null, bounds: [cpu] }, rps: 45.5, pods: 2 },
    {
      name: "capacity binds: ⌈1000 / 100⌉",
      y: { capacityRps: 100, bounds: [] },
      rps: 1000,
      pods: 10,
    },
    {
      name: "the largest over the metrics",
      y: { capacityRps: null, bounds: [cpu, { metric: "rps", base: 0, perRps: 1, target: 20 }] },
      rps: 200,
      pods: 10,
    },
    {
      name: "a target below an idle pod's usage: none",
      y: { capacityRps: null, bounds: [{ metric: "cpu", base: 120, perRps: 1, target: 100 }] },
      rps: 1,
      pods: null,
    },
  ];
  for (const c of cases) test(c.name, () => assert.equal(demandPods(c.y, c.rps), c.pods));
});

const manifests = (hpaMetrics: string, container = "") => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: x
        resources: {requests: {cpu: 200m}${container}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 10
  metrics:
${hpaMetrics}
---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  workloads:
  - target: Deployment/web
    usage: {cpu: {base: 10m, perRps: 2m}, capacityRps: 150}
  metrics:
    pods: [{name: rps, workload: Deployment/web}]
    external: [{name: queue, arrivals: [{type: constant, rps: 1}], servedBy: Deployment/web, serviceRatePerPod: 1}]
`;

function yardstick(metrics: string, container = "") {
  const loaded = parseScenario(manifests(metrics, container), { file: "t.yaml", baseDir: "/" });
  if (!loaded.ok) assert.fail(loaded.errors.map(formatScenarioError).join("\n"));
  return scenarioYardsticks(loaded.scenario)["default/web"];
}

describe("an HPA's yardstick", () => {
  test("cpu Utilization: the target's share of the template's requests", () => {
    const y = yardstick(
      "  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}",
    );
    assert.deepEqual(y, {
      capacityRps: 150,
      bounds: [{ metric: "cpu Utilization 50%", base: 10, perRps: 2, target: 100 }],
    });
  });

  test("a Pods metric of served requests with an AverageValue target", () => {
    const y = yardstick(
      "  - {type: Pods, pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: 500m}}}",
    );
    assert.deepEqual(y?.bounds, [
      { metric: "Pods rps AverageValue 500m", base: 0, perRps: 1, target: 0.5 },
    ]);
  });

  test("a cpu limit at or below the target leaves the metric out", () => {
    const y = yardstick(
      "  - {type: Resource, resource: {name: cpu, target: {type: AverageValue, averageValue: 150m}}}",
      ", limits: {cpu: 100m}",
    );
    assert.equal(y, null);
  });

  test("an External metric is not modelled: no yardstick", () => {
    const y = yardstick(
      "  - {type: External, external: {metric: {name: queue}, target: {type: AverageValue, averageValue: '5'}}}",
    );
    assert.equal(y, null);
  });
});
