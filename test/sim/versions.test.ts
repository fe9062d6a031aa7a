// The Kubernetes version of a scenario (spec.kubernetesVersion, or the flag that wins over it):
// read and checked, and the same manifest giving each version's upstream trajectory.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runSimulation } from "../../src/sim/runner.js";
import { formatScenarioError, type LoadOptions, parseScenario } from "../../src/sim/scenario.js";

const MANIFESTS = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: registry.k8s.io/hpa-example
        resources: {requests: {cpu: 200m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleUp: {tolerance: 0.02}
`;

// Load +8% at 5m (a usage ratio of 1.08): inside the controller's 10% tolerance, outside the
// HPA's own 2% scale-up tolerance.
const SCENARIO = (extra = "") => `---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  duration: 15m
${extra}  workloads:
  - target: Deployment/web
    usage: {cpu: {base: 0m, perRps: 1m}, capacityRps: 1000}
    traffic:
    - type: step
      initial: 400
      steps:
      - {at: 5m, rps: 432}
`;

function parse(text: string, options: Partial<LoadOptions> = {}) {
  return parseScenario(text, { file: "s.yaml", baseDir: "/", ...options });
}

function errors(text: string, options: Partial<LoadOptions> = {}): string[] {
  const result = parse(text, options);
  assert.equal(result.ok, false, "expected errors");
  return result.ok ? [] : result.errors.map(formatScenarioError);
}

describe("spec.kubernetesVersion", () => {
  const versionOf = (text: string, options: Partial<LoadOptions> = {}) => {
    const result = parse(text, options);
    if (!result.ok) assert.fail(result.errors.map(formatScenarioError).join("\n"));
    return result.scenario.spec.kubernetesVersion;
  };

  test("defaults to the newest supported version", () => {
    assert.equal(versionOf(MANIFESTS + SCENARIO()), "1.37");
  });

  test("takes a minor or a patch version", () => {
    assert.equal(versionOf(MANIFESTS + SCENARIO('  kubernetesVersion: "1.35"\n')), "1.35");
    assert.equal(versionOf(MANIFESTS + SCENARIO("  kubernetesVersion: v1.36.4\n")), "1.36");
  });

  test("--kubernetes-version wins over the document", () => {
    const text = MANIFESTS + SCENARIO('  kubernetesVersion: "1.35"\n');
    assert.equal(versionOf(text, { kubernetesVersion: "1.34" }), "1.34");
  });

  test("an unsupported version is an error listing the supported ones", () => {
    assert.deepEqual(errors(MANIFESTS + SCENARIO('  kubernetesVersion: "1.33"\n')), [
      's.yaml:33:22: document 3 (Scenario/t): spec.kubernetesVersion: unsupported Kubernetes version "1.33": supported versions are 1.34, 1.35, 1.36, 1.37',
    ]);
  });

  test("v1.37 refuses to turn the GA tolerance gate off; v1.36 allows it", () => {
    const gates = "  featureGates: {HPAConfigurableTolerance: false}\n";
    assert.deepEqual(errors(MANIFESTS + SCENARIO(gates)), [
      "s.yaml:33:18: document 3 (Scenario/t): spec.featureGates.HPAConfigurableTolerance: cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true",
    ]);
    assert.ok(parse(MANIFESTS + SCENARIO(gates), { kubernetesVersion: "1.36" }).ok);
  });

  test("the controller flag's gates are checked at the version too", () => {
    const flags = "  controller: {feature-gates: HPAConfigurableTolerance=false}\n";
    assert.equal(parse(MANIFESTS + SCENARIO(flags)).ok, false);
    assert.ok(parse(MANIFESTS + SCENARIO(flags), { kubernetesVersion: "1.34" }).ok);
  });
});

describe("one manifest, each version's trajectory", () => {
  async function highest(kubernetesVersion: "1.34" | "1.35" | "1.36" | "1.37") {
    const result = parse(MANIFESTS + SCENARIO(), { kubernetesVersion });
    if (!result.ok) assert.fail(result.errors.map(formatScenarioError).join("\n"));
    const { summary } = await runSimulation({ scenario: result.scenario });
    return summary.hpas[0]!.highestReplicas;
  }

  test("v1.34 drops the per-direction tolerance: +8% stays inside the 10% band, 4 replicas", async () => {
    assert.equal(await highest("1.34"), 4);
  });

  test("v1.37 syncs a new HPA at once, v1.34 one sync period later (kubernetes/kubernetes#138294)", async () => {
    const firstSync = async (kubernetesVersion: "1.34" | "1.36" | "1.37") => {
      const result = parse(MANIFESTS + SCENARIO(), { kubernetesVersion });
      if (!result.ok) assert.fail(result.errors.map(formatScenarioError).join("\n"));
      const times: number[] = [];
      await runSimulation({
        scenario: result.scenario,
        emit: (record) => {
          if (record.type === "sync") times.push(record.t);
          return undefined;
        },
      });
      return times.slice(0, 3);
    };
    assert.deepEqual(await firstSync("1.34"), [15, 30, 45]);
    assert.deepEqual(await firstSync("1.36"), [15, 30, 45]);
    assert.deepEqual(await firstSync("1.37"), [0, 15, 30]);
  });

  for (const version of ["1.35", "1.37"] as const) {
    test(`v${version} honours it (HPAConfigurableTolerance on): +8% scales 4 -> 5`, async () => {
      assert.equal(await highest(version), 5);
    });
  }
});
