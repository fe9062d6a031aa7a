import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { KubernetesVersion } from "../../src/api/versions.js";
import { formatScenarioError, parseScenario } from "../../src/sim/scenario.js";

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web}]}
`;
const HPA = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
`;
const scenario = (spec: string) =>
  [DEPLOYMENT, HPA, `apiVersion: horizon.dev/v1alpha1\nkind: Scenario\nspec:\n${spec}`].join(
    "---\n",
  );
const parse = (text: string, kubernetesVersion?: KubernetesVersion) =>
  parseScenario(text, {
    file: "s.yaml",
    baseDir: "/",
    ...(kubernetesVersion ? { kubernetesVersion } : {}),
  });

describe("the Scenario document's schema", () => {
  test("errors carry the field path as data, rendered only when formatted", () => {
    const result = parse(
      scenario(
        "  workloads:\n  - target: Deployment/web\n    traffic: [{type: constant, rps: -1}]\n",
      ),
    );
    assert.ok(!result.ok);
    const [error] = result.errors;
    assert.deepEqual(error?.path, ["spec", "workloads", 0, "traffic", 0, "rps"]);
    assert.equal(error?.line, 22);
    assert.equal(
      formatScenarioError(error),
      "s.yaml:22:37: document 3 (Scenario): spec.workloads[0].traffic[0].rps: must be a non-negative number",
    );
  });

  test("a null field reads as absent: the default, or Required value", () => {
    const ok = parse(scenario("  seed: null\n  cluster: {capacityPods: null}\n"));
    assert.ok(ok.ok);
    assert.equal(ok.scenario.spec.seed, 1);
    assert.equal(ok.scenario.spec.cluster.capacityPods, null);
    const bad = parse(scenario("  events: [{at: 1m, type: scale, workload: null, replicas: 1}]\n"));
    assert.ok(!bad.ok);
    assert.deepEqual(bad.errors.map(formatScenarioError), [
      "s.yaml:20:44: document 3 (Scenario): spec.events[0].workload: Required value",
    ]);
  });

  test("a patch is checked against its HPA even when the event's time is bad", () => {
    const result = parse(
      scenario(
        "  events: [{at: soon, type: patchHpa, hpa: web, patch: {spec: {maxReplicas: 0}}}]\n",
      ),
    );
    assert.ok(!result.ok);
    assert.deepEqual(
      result.errors.map((e) => [e.path, e.message]),
      [
        [
          ["spec", "events", 0, "at"],
          'time: invalid duration "soon" (expected e.g. 15s, 5m0s, 1h30m, 300ms)',
        ],
        [
          ["spec", "events", 0, "patch"],
          "the patched HPA is invalid: spec.maxReplicas: Invalid value: 0: must be greater than 0",
        ],
        [
          ["spec", "events", 0, "patch"],
          "the patched HPA is invalid: spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
        ],
      ],
    );
  });

  test("a controller flag of a wrong type leaves the other flags' feature gates in force", () => {
    // HPAScaleToZero (from the feature-gates flag) admits minReplicas 0 with an External metric.
    // Pinned at v1.34, where the gate is off by default (v1.37 turns it on).
    const hpa = HPA.replace(
      "maxReplicas: 3",
      "minReplicas: 0\n  maxReplicas: 3\n  metrics:\n  - type: External\n    external: {metric: {name: q}, target: {type: Value, value: 1}}",
    );
    const text = [
      DEPLOYMENT,
      hpa,
      "apiVersion: horizon.dev/v1alpha1\nkind: Scenario\nspec:\n  controller:\n    feature-gates: HPAScaleToZero=true\n    horizontal-pod-autoscaler-tolerance: [1]\n",
    ].join("---\n");
    const result = parse(text, "1.34");
    assert.ok(!result.ok);
    assert.deepEqual(
      result.errors.map((e) => [e.path, e.message]),
      [
        [
          ["spec", "controller", "horizontal-pod-autoscaler-tolerance"],
          "must be a string or a number",
        ],
      ],
    );
  });

  test("unknown fields come before the missing fields reported at the same place", () => {
    const result = parse(scenario("  metrics:\n    pods:\n    - rate: 1m\n"));
    assert.ok(!result.ok);
    assert.deepEqual(
      result.errors.map((e) => e.path),
      [
        ["spec", "metrics", "pods", 0, "rate"],
        ["spec", "metrics", "pods", 0, "name"],
        ["spec", "metrics", "pods", 0, "workload"],
      ],
    );
  });
});
