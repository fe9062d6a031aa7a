import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { trafficAt } from "../../src/cluster/traffic.js";
import {
  formatScenarioError,
  type LoadOptions,
  loadScenarioFile,
  parseScenario,
  ScenarioParseError,
} from "../../src/sim/scenario.js";
import type { Scenario } from "../../src/sim/scenario-types.js";

// ---------------------------------------------------------------------------------------------
// builders

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        resources:
          requests: {cpu: 200m}
`;

const HPA = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 50}
`;

const SCENARIO_HEAD = `apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata:
  name: t
spec:
`;

/** Documents joined with `---`. */
const file = (...docs: string[]) => docs.join("---\n");

function parse(text: string, options: Partial<LoadOptions> = {}) {
  return parseScenario(text, { file: "s.yaml", baseDir: "/scenarios", ...options });
}

function ok(text: string, options: Partial<LoadOptions> = {}): Scenario {
  const result = parse(text, options);
  if (!result.ok) assert.fail(result.errors.map(formatScenarioError).join("\n"));
  return result.scenario;
}

function errorLines(text: string, options: Partial<LoadOptions> = {}): string[] {
  const result = parse(text, options);
  assert.equal(result.ok, false, "expected errors");
  return result.ok ? [] : result.errors.map(formatScenarioError);
}

// ---------------------------------------------------------------------------------------------

describe("examples", () => {
  const dir = join(import.meta.dirname, "..", "..", "examples");
  const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));

  test("the six required examples exist", () => {
    for (const name of [
      "cpu-step.yaml",
      "custom-metrics.yaml",
      "scale-down-policies.yaml",
      "multiple-metrics.yaml",
      "rolling-update.yaml",
      "external-queue.yaml",
    ]) {
      assert.ok(files.includes(name), name);
    }
  });

  for (const name of files) {
    test(`${name} parses without errors and starts with a comment naming its command`, async () => {
      const path = join(dir, name);
      const result = await loadScenarioFile(path);
      if (!result.ok) assert.fail(result.errors.map(formatScenarioError).join("\n"));
      const { spec, warnings } = result.scenario;
      assert.equal(spec.name, name.replace(/\.yaml$/, ""));
      // Only the book's ServiceMonitor is expected to be skipped.
      const expected = name === "custom-metrics.yaml" ? 1 : 0;
      assert.equal(warnings.length, expected, warnings.join("\n"));
      assert.ok(spec.workloads.length >= 1);
    });
  }

  test("nasa-trace replays the shipped trace as recorded: counts per minute × 311, gaps 0", async () => {
    const result = await loadScenarioFile(join(dir, "nasa-trace.yaml"));
    assert.ok(result.ok);
    const [model] = result.scenario.spec.workloads[0]!.traffic;
    assert.equal(model!.type, "replay");
    assert.equal(model!.type === "replay" && model!.points.length, 81_396);
    const rps = (minutes: number) => trafficAt([model!], minutes * 60_000);
    const perMinute = (count: number) => (count * 311) / 60;
    // 1995-07-15 00:00 (14 days in) had 25 requests, 00:01 53; 05:29 has no row (0).
    assert.equal(rps(0), perMinute(25));
    assert.equal(rps(1.5), perMinute(53));
    assert.equal(rps(5 * 60 + 29), 0);
    // The logs' hole from 1995-07-28 13:32 (its last row, 42) to 08-01 00:00 reads 0.
    const hole = (13 * 24 + 13) * 60 + 32;
    assert.equal(rps(hole), perMinute(42));
    assert.equal(rps(hole + 1), 0);
    assert.equal(rps(hole + 24 * 60), 0);
  });

  test("custom-metrics is the book's walkthrough", async () => {
    const result = await loadScenarioFile(join(dir, "custom-metrics.yaml"));
    assert.ok(result.ok);
    const hpa = result.scenario.objects.find((o) => o.kind === "HorizontalPodAutoscaler");
    assert.deepEqual((hpa!.spec as { metrics: unknown }).metrics, [
      {
        type: "Pods",
        pods: {
          metric: { name: "http_requests" },
          target: { type: "AverageValue", averageValue: "500m" },
        },
      },
    ]);
    assert.equal((hpa!.spec as { minReplicas: number }).minReplicas, 1);
    assert.equal((hpa!.spec as { maxReplicas: number }).maxReplicas, 10);
    assert.deepEqual(result.scenario.spec.metrics.pods, [
      {
        name: "http_requests",
        namespace: "default",
        workload: { namespace: "default", kind: "Deployment", name: "sample-app" },
        rateWindowMs: 60_000,
      },
    ]);
    assert.match(
      result.scenario.warnings[0]!,
      /custom-metrics\.yaml:52:1: document 3 \(ServiceMonitor\/sample-app\): ServiceMonitor sample-app \(monitoring\.coreos\.com\/v1\) is not simulated; skipped$/,
    );
  });

  test("scale-down-policies has the documentation's policies and 80 replicas", async () => {
    const result = await loadScenarioFile(join(dir, "scale-down-policies.yaml"));
    assert.ok(result.ok);
    const hpa = result.scenario.objects.find((o) => o.kind === "HorizontalPodAutoscaler");
    const deployment = result.scenario.objects.find((o) => o.kind === "Deployment");
    assert.equal((deployment!.spec as { replicas: number }).replicas, 80);
    const scaleDown = (hpa!.spec as { behavior: { scaleDown: unknown } }).behavior.scaleDown;
    assert.deepEqual(scaleDown, {
      // Defaulted as kube-apiserver does: window unset (the controller flag applies), Max.
      selectPolicy: "Max",
      policies: [
        { type: "Pods", value: 4, periodSeconds: 60 },
        { type: "Percent", value: 10, periodSeconds: 60 },
      ],
    });
  });
});

describe("defaults", () => {
  test("without a Scenario document: 1h, seed 1, a default model per workload", () => {
    const s = ok(file(DEPLOYMENT, HPA));
    assert.equal(s.spec.name, "s");
    assert.equal(s.spec.durationMs, 3_600_000);
    assert.equal(s.spec.seed, 1);
    assert.deepEqual(s.spec.cluster, { capacityPods: null, metricsResolutionMs: 15_000 });
    assert.deepEqual(s.spec.workloads, [
      {
        target: { namespace: "default", kind: "Deployment", name: "web" },
        pod: {
          schedulingDelayMs: 1000,
          containerStartDelayMs: 3000,
          readinessDelayMs: 5000,
          terminationGracePeriodMs: 30_000,
          startupCpuBurst: null,
          failureProbability: 0,
        },
        usage: {
          cpu: { baseMilli: 0, milliPerRps: 1, limitMilli: null },
          memory: { baseBytes: 64 * 1024 * 1024, bytesPerRps: 0 },
          capacityRps: null,
          jitter: 0,
        },
        traffic: [],
      },
    ]);
    assert.deepEqual(s.warnings, []);
  });

  test("namespaces default to default; HPAs come out as defaulted autoscaling/v2", () => {
    const s = ok(file(DEPLOYMENT, HPA));
    assert.deepEqual(
      s.objects.map((o) => [o.kind, o.metadata.namespace]),
      [
        ["Deployment", "default"],
        ["HorizontalPodAutoscaler", "default"],
      ],
    );
    const hpa = s.objects[1]!;
    assert.equal(hpa.apiVersion, "autoscaling/v2");
    assert.equal((hpa.spec as { minReplicas: number }).minReplicas, 1);
    assert.equal(s.sources.get(hpa), "s.yaml:18:1");
  });

  test("pod lifecycle defaults come from the template: probe delay, grace period, cpu limits", () => {
    const deployment = DEPLOYMENT.replace(
      "      containers:\n      - name: web\n        resources:\n          requests: {cpu: 200m}\n",
      `      terminationGracePeriodSeconds: 12
      containers:
      - name: web
        resources: {requests: {cpu: 200m}, limits: {cpu: 500m}}
        readinessProbe: {initialDelaySeconds: 20}
      - name: sidecar
        resources: {limits: {cpu: "1"}}
        readinessProbe: {periodSeconds: 5}
`,
    );
    const s = ok(deployment);
    const w = s.spec.workloads[0]!;
    assert.equal(w.pod.readinessDelayMs, 20_000);
    assert.equal(w.pod.terminationGracePeriodMs, 12_000);
    assert.equal(w.usage.cpu.limitMilli, 1500);
  });

  test("a full Scenario document", () => {
    const s = ok(
      file(
        DEPLOYMENT,
        HPA,
        `${SCENARIO_HEAD}  duration: 30m
  seed: 42
  controller:
    horizontal-pod-autoscaler-sync-period: 30s
    horizontal-pod-autoscaler-tolerance: 0.05
  featureGates: {HPAScaleToZero: true}
  cluster: {capacityPods: 50, metricsResolution: 30s}
  workloads:
  - target: {kind: deploy, name: web}
    pod:
      schedulingDelay: 2s
      readinessDelay: 0s
      startupCpuBurst: {cpu: 500m, duration: 30s}
      failureProbability: 0.1
    usage:
      cpu: {base: 10m, perRps: 0.5m, limit: null}
      memory: {base: 128Mi, perRps: 1Ki}
      capacityRps: 100
      jitter: 0.05
    traffic:
    - {type: constant, rps: 5}
    - {type: step, steps: [{at: 5m, rps: 100}, {at: 10m, rps: 20}]}
    - {type: ramp, to: 50, start: 1m, end: 2m}
    - {type: sine, base: 10, amplitude: 5, period: 10m}
    - {type: diurnal, base: 10, amplitude: 10, phase: 6h}
    - {type: spike, peak: 300, at: 20m, duration: 1m}
  events:
  - {at: 20m, type: restartController}
  - {at: 10m, type: killPods, workload: Deployment/web}
  - {at: 12m, type: scale, workload: default/Deployment/web, replicas: 3}
  - {at: 14m, type: metricsOutage, duration: 1m, apis: [custom]}
  - {at: 15m, type: patchHpa, hpa: web, patch: {spec: {minReplicas: 2}}}
  - {at: 16m, type: setTraffic, workload: Deployment/web, traffic: []}
  - at: 17m
    type: updateTemplate
    workload: Deployment/web
    patch: {metadata: {annotations: {v: "2"}}}
`,
      ),
    );
    assert.equal(s.spec.name, "t");
    assert.equal(s.spec.durationMs, 1_800_000);
    assert.equal(s.spec.seed, 42);
    assert.deepEqual(s.spec.controllerFlags, {
      "horizontal-pod-autoscaler-sync-period": "30s",
      "horizontal-pod-autoscaler-tolerance": "0.05",
    });
    assert.deepEqual(s.spec.featureGates, { HPAScaleToZero: true });
    assert.deepEqual(s.spec.cluster, { capacityPods: 50, metricsResolutionMs: 30_000 });
    const w = s.spec.workloads[0]!;
    assert.deepEqual(w.pod, {
      schedulingDelayMs: 2000,
      containerStartDelayMs: 3000,
      readinessDelayMs: 0,
      terminationGracePeriodMs: 30_000,
      startupCpuBurst: { milli: 500, durationMs: 30_000 },
      failureProbability: 0.1,
    });
    assert.deepEqual(w.usage, {
      cpu: { baseMilli: 10, milliPerRps: 0.5, limitMilli: null },
      memory: { baseBytes: 128 * 1024 * 1024, bytesPerRps: 1024 },
      capacityRps: 100,
      jitter: 0.05,
    });
    assert.deepEqual(w.traffic, [
      { type: "constant", rps: 5 },
      {
        type: "step",
        initial: 0,
        steps: [
          { atMs: 300_000, rps: 100 },
          { atMs: 600_000, rps: 20 },
        ],
      },
      { type: "ramp", from: 0, to: 50, startMs: 60_000, endMs: 120_000 },
      { type: "sine", base: 10, amplitude: 5, periodMs: 600_000, phaseMs: 0 },
      { type: "sine", base: 10, amplitude: 10, periodMs: 86_400_000, phaseMs: 21_600_000 },
      { type: "spike", base: 0, peak: 300, atMs: 1_200_000, durationMs: 60_000 },
    ]);
    const ref = { namespace: "default", kind: "Deployment", name: "web" };
    // Events come out in time order.
    assert.deepEqual(s.spec.events, [
      { atMs: 600_000, type: "killPods", workload: ref, count: 1 },
      { atMs: 720_000, type: "scale", workload: ref, replicas: 3 },
      { atMs: 840_000, type: "metricsOutage", durationMs: 60_000, apis: ["custom"] },
      {
        atMs: 900_000,
        type: "patchHpa",
        namespace: "default",
        name: "web",
        patch: { spec: { minReplicas: 2 } },
      },
      { atMs: 960_000, type: "setTraffic", workload: ref, traffic: [] },
      {
        atMs: 1_020_000,
        type: "updateTemplate",
        workload: ref,
        patch: { metadata: { annotations: { v: "2" } } },
      },
      { atMs: 1_200_000, type: "restartController" },
    ]);
  });

  test("metric models: pods, object and external", () => {
    const s = ok(
      file(
        DEPLOYMENT,
        `${SCENARIO_HEAD}  metrics:
    pods: [{name: http_requests, workload: Deployment/web, rateWindow: 2m}]
    object:
    - name: requests-per-second
      describedObject: {apiVersion: networking.k8s.io/v1, kind: Ingress, name: main-route}
      workload: Deployment/web
    external:
    - name: queue_messages_ready
      selector: {matchLabels: {queue: tasks}}
      servedBy: Deployment/web
      serviceRatePerPod: 5
      arrivals: [{type: constant, rps: 20}]
`,
      ),
    );
    const ref = { namespace: "default", kind: "Deployment", name: "web" };
    assert.deepEqual(s.spec.metrics, {
      pods: [{ name: "http_requests", namespace: "default", workload: ref, rateWindowMs: 120_000 }],
      object: [
        {
          name: "requests-per-second",
          namespace: "default",
          describedObject: {
            apiVersion: "networking.k8s.io/v1",
            kind: "Ingress",
            name: "main-route",
          },
          workload: ref,
          rateWindowMs: 60_000,
        },
      ],
      external: [
        {
          name: "queue_messages_ready",
          namespace: "default",
          selector: { matchLabels: { queue: "tasks" } },
          arrivals: [{ type: "constant", rps: 20 }],
          servedBy: ref,
          serviceRatePerPod: 5,
          initialLength: 0,
        },
      ],
    });
  });
});

describe("external metric selectors", () => {
  const external = (selector: string) =>
    file(
      DEPLOYMENT,
      `${SCENARIO_HEAD}  metrics:
    external:
    - name: queue_messages_ready
      selector: ${selector}
      servedBy: Deployment/web
      serviceRatePerPod: 5
      arrivals: [{type: constant, rps: 20}]
`,
    );
  for (const c of [
    {
      selector: "{matchLabels: {version: 2}}",
      at: "matchLabels.version",
      what: "must be a string",
    },
    { selector: '{matchLabels: "x"}', at: "matchLabels", what: "must be a mapping" },
    {
      selector: "{matchExpressions: [{key: q, operator: In, values: [1]}]}",
      at: "matchExpressions[0].values[0]",
      what: "must be a string",
    },
  ]) {
    test(`a selector of the wrong JSON types is an error, not a crash: ${c.selector}`, () => {
      const lines = errorLines(external(c.selector));
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.match(lines[0] ?? "", /^s\.yaml:\d+:\d+: /);
      assert.ok(lines[0]?.includes(`selector.${c.at}: ${c.what}`), lines[0]);
    });
  }
});

describe("HPA versions and warnings", () => {
  test("autoscaling/v1 converts to v2 without a warning", () => {
    const v1 = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 4
  targetCPUUtilizationPercentage: 70
`;
    const s = ok(file(DEPLOYMENT, v1));
    const hpa = s.objects[1]!;
    assert.equal(hpa.apiVersion, "autoscaling/v2");
    assert.deepEqual((hpa.spec as { metrics: unknown }).metrics, [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
      },
    ]);
    assert.deepEqual(s.warnings, []);
  });

  test("autoscaling/v1 errors point at targetCPUUtilizationPercentage", () => {
    const v1 = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 4
  targetCPUUtilizationPercentage: 0
`;
    assert.deepEqual(errorLines(file(DEPLOYMENT, v1)), [
      "s.yaml:24:35: document 2 (HorizontalPodAutoscaler/web): spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
    ]);
  });

  test("v2beta2 and v2beta1 convert with kube-apiserver's deprecation warnings", () => {
    const v2beta2 = HPA.replace("autoscaling/v2", "autoscaling/v2beta2");
    const v2beta1 = `apiVersion: autoscaling/v2beta1
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, targetAverageUtilization: 60}
`;
    const s = ok(file(DEPLOYMENT, v2beta2, v2beta1));
    assert.deepEqual(s.warnings, [
      "s.yaml:18:1: document 2 (HorizontalPodAutoscaler/web): autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler",
      "s.yaml:31:1: document 3 (HorizontalPodAutoscaler/api): autoscaling/v2beta1 HorizontalPodAutoscaler is deprecated in v1.22+, unavailable in v1.25+; use autoscaling/v2 HorizontalPodAutoscaler",
    ]);
    const api = s.objects[2]!;
    assert.deepEqual((api.spec as { metrics: unknown }).metrics, [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
      },
    ]);
  });

  test("other kinds are skipped with a warning naming kind, name and position", () => {
    const s = ok(
      file(
        DEPLOYMENT,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n",
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb}\n",
      ),
    );
    assert.deepEqual(s.warnings, [
      "s.yaml:18:1: document 2 (ConfigMap/cfg): ConfigMap cfg (v1) is not simulated; skipped",
      "s.yaml:22:1: document 3 (PodDisruptionBudget/pdb): PodDisruptionBudget pdb (policy/v1) is not simulated; skipped",
    ]);
    assert.equal(s.objects.length, 1);
  });

  test("for horizon up (served), a ServiceMonitor and the operator's CRD are kept, checked as the API server checks them", () => {
    const monitor =
      "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  endpoints: [{port: http}]\n";
    const crd =
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: servicemonitors.monitoring.coreos.com}\nspec:\n  group: monitoring.coreos.com\n  scope: Namespaced\n  names: {plural: servicemonitors, kind: ServiceMonitor}\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]\n";
    const served = ok(file(DEPLOYMENT, crd, monitor), { served: true });
    assert.deepEqual(served.warnings, []);
    assert.deepEqual(
      served.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`),
      [
        "Deployment/default/web",
        "CustomResourceDefinition//servicemonitors.monitoring.coreos.com",
        "ServiceMonitor/default/web",
      ],
    );
    // The simulator has no use for them: skipped with a warning, as before.
    const simulated = ok(file(DEPLOYMENT, monitor));
    assert.equal(simulated.objects.length, 1);
    assert.match(
      simulated.warnings[0]!,
      /ServiceMonitor web \(monitoring\.coreos\.com\/v1\) is not simulated; skipped$/,
    );
    // Errors name the field, at its position.
    assert.deepEqual(
      errorLines(file(DEPLOYMENT, monitor.replace("[{port: http}]", "[{port: 8080}]")), {
        served: true,
      }),
      [
        's.yaml:23:22: document 2 (ServiceMonitor/web): spec.endpoints[0].port: Invalid value: "integer": spec.endpoints[0].port in body must be of type string: "integer"',
      ],
    );
    assert.deepEqual(
      errorLines(
        file(
          DEPLOYMENT,
          monitor.replace("monitoring.coreos.com/v1", "monitoring.coreos.com/v1alpha1"),
        ),
        {
          served: true,
        },
      ),
      [
        's.yaml:18:13: document 2 (ServiceMonitor/web): apiVersion: no matches for kind "ServiceMonitor" in version "monitoring.coreos.com/v1alpha1"',
      ],
    );
  });

  test("an HPA whose target is missing is a warning, as is a metric without a model", () => {
    const hpa = HPA.replace("name: web}", "name: nope}").replace(
      "  - type: Resource\n    resource:\n      name: cpu\n      target: {type: Utilization, averageUtilization: 50}\n",
      "  - type: Pods\n    pods:\n      metric: {name: http_requests}\n      target: {type: AverageValue, averageValue: 500m}\n",
    );
    const s = ok(file(DEPLOYMENT, hpa));
    assert.deepEqual(s.warnings, [
      "s.yaml:23:3: document 2 (HorizontalPodAutoscaler/web): scale target Deployment/nope is not among the manifests in namespace default: the HPA will report FailedGetScale",
      's.yaml:26:5: document 2 (HorizontalPodAutoscaler/web): no spec.metrics.pods model provides Pods metric "http_requests" in namespace default: the metric will be unavailable',
    ]);
  });

  test("a tolerance is dropped with a warning while HPAConfigurableTolerance is off (v1.34)", () => {
    const hpa = `${HPA}  behavior:\n    scaleUp: {tolerance: 0.05}\n`;
    // Pinned at v1.34, the last version where the gate is off by default.
    const off = ok(file(DEPLOYMENT, hpa), { kubernetesVersion: "1.34" });
    assert.deepEqual(off.warnings, [
      "s.yaml:18:1: document 2 (HorizontalPodAutoscaler/web): spec.behavior.scaleUp.tolerance is dropped: feature gate HPAConfigurableTolerance is off (enable it in spec.featureGates)",
    ]);
    const on = ok(
      file(DEPLOYMENT, hpa, `${SCENARIO_HEAD}  featureGates: {HPAConfigurableTolerance: true}\n`),
      { kubernetesVersion: "1.34" },
    );
    assert.deepEqual(on.warnings, []);
    const behavior = (on.objects[1]!.spec as { behavior: { scaleUp: { tolerance: unknown } } })
      .behavior;
    assert.equal(behavior.scaleUp.tolerance, 0.05);
  });
});

describe("errors", () => {
  const scenario = (body: string) => file(DEPLOYMENT, HPA, `${SCENARIO_HEAD}${body}`);
  // The Scenario document starts at line 31; its spec body at line 36.
  const cases = [
    {
      name: "an empty file (or comments only): nothing to simulate",
      text: "# a scenario, some day\n---\n",
      errors: [
        "s.yaml: nothing to simulate: no document; a scenario is a workload's manifest, its HorizontalPodAutoscaler and optionally a Scenario document (docs/scenarios.md)",
      ],
    },
    {
      name: "YAML syntax error, with position",
      text: file(DEPLOYMENT, "apiVersion: v1\nkind: [Service\n"),
      errors: [
        "s.yaml:20:1: document 2: Flow sequence in block collection must be sufficiently indented and end with a ]",
      ],
    },
    {
      name: "duplicate key",
      text: file("apiVersion: v1\nkind: Namespace\nkind: Namespace\nmetadata: {name: a}\n"),
      errors: ["s.yaml:3:1: document 1: Map keys must be unique"],
    },
    {
      name: "unknown Scenario field (strict)",
      text: scenario("  sed: 3\n"),
      errors: [
        's.yaml:36:3: document 3 (Scenario/t): spec.sed: unknown field "sed" (known: duration, seed, kubernetesVersion, controller, featureGates, cluster, workloads, metrics, events)',
      ],
    },
    {
      name: "bad duration",
      text: scenario("  duration: 30 minutes\n"),
      errors: [
        's.yaml:36:13: document 3 (Scenario/t): spec.duration: time: unknown unit " minutes" in duration "30 minutes" (expected e.g. 15s, 5m0s, 1h30m, 300ms)',
      ],
    },
    {
      name: "zero duration and a bad seed",
      text: scenario("  duration: 0s\n  seed: -1\n"),
      errors: [
        "s.yaml:36:13: document 3 (Scenario/t): spec.duration: must be greater than 0",
        "s.yaml:37:9: document 3 (Scenario/t): spec.seed: must be a non-negative integer",
      ],
    },
    {
      name: "controller flags validated as kube-controller-manager does",
      text: scenario(
        "  controller:\n    horizontal-pod-autoscaler-tolerance: abc\n    horizontal-pod-autoscaler-sync-period: 0s\n    no-such-flag: 1\n",
      ),
      errors: [
        's.yaml:37:42: document 3 (Scenario/t): spec.controller.horizontal-pod-autoscaler-tolerance: invalid number "abc"',
        "s.yaml:38:44: document 3 (Scenario/t): spec.controller.horizontal-pod-autoscaler-sync-period: must be greater than 0",
        "s.yaml:39:19: document 3 (Scenario/t): spec.controller.no-such-flag: unknown flag --no-such-flag",
      ],
    },
    {
      name: "feature gates",
      text: scenario("  featureGates: {Nope: true, HPAScaleToZero: yes}\n"),
      errors: [
        "s.yaml:36:18: document 3 (Scenario/t): spec.featureGates.Nope: unrecognized feature gate: Nope",
        "s.yaml:36:46: document 3 (Scenario/t): spec.featureGates.HPAScaleToZero: must be true or false",
      ],
    },
    {
      name: "unknown workload reference, and the rest of the entry still checked",
      text: scenario(
        "  workloads:\n  - target: Deployment/webb\n    traffic:\n    - {type: constant, rps: 10}\n    - {type: constant, rps: -1}\n",
      ),
      errors: [
        "s.yaml:37:13: document 3 (Scenario/t): spec.workloads[0].target: unknown workload Deployment default/webb: no such manifest in the scenario (workloads: Deployment default/web)",
        "s.yaml:40:29: document 3 (Scenario/t): spec.workloads[0].traffic[1].rps: must be a non-negative number",
      ],
    },
    {
      name: "traffic model problems",
      text: scenario(
        `  workloads:
  - target: Deployment/web
    traffic:
    - {type: sin}
    - {rps: 3}
    - {type: step, steps: [{at: 5m, rps: 1}, {at: 5m, rps: 2}]}
    - {type: ramp, to: 5, start: 2m, end: 1m}
    - {type: sine, base: 1, amplitude: 2, period: 1h}
    - {type: constant, rps: 1, extra: 2}
`,
      ),
      errors: [
        's.yaml:39:14: document 3 (Scenario/t): spec.workloads[0].traffic[0].type: unknown traffic model "sin" (expected one of: constant, step, ramp, sine, diurnal, spike, replay, prometheus)',
        "s.yaml:40:7: document 3 (Scenario/t): spec.workloads[0].traffic[1].type: Required value",
        "s.yaml:41:51: document 3 (Scenario/t): spec.workloads[0].traffic[2].steps[1].at: must be later than the previous step (steps[0].at)",
        "s.yaml:42:43: document 3 (Scenario/t): spec.workloads[0].traffic[3].end: must be later than start",
        "s.yaml:43:40: document 3 (Scenario/t): spec.workloads[0].traffic[4].amplitude: must not be greater than base (the rate would go negative)",
        's.yaml:44:32: document 3 (Scenario/t): spec.workloads[0].traffic[5].extra: unknown field "extra" (known: type, rps)',
      ],
    },
    {
      name: "bad quantities and probabilities in models",
      text: scenario(
        `  workloads:
  - target: Deployment/web
    pod: {failureProbability: 2, startupCpuBurst: {cpu: lots}}
    usage: {cpu: {perRps: -1m}, memory: {base: 1Qi}, jitter: -0.1}
`,
      ),
      errors: [
        "s.yaml:38:31: document 3 (Scenario/t): spec.workloads[0].pod.failureProbability: must be a number from 0 to 1",
        "s.yaml:38:34: document 3 (Scenario/t): spec.workloads[0].pod.startupCpuBurst.duration: Required value",
        `s.yaml:38:57: document 3 (Scenario/t): spec.workloads[0].pod.startupCpuBurst.cpu: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': "lots"`,
        "s.yaml:39:27: document 3 (Scenario/t): spec.workloads[0].usage.cpu.perRps: must not be negative",
        `s.yaml:39:48: document 3 (Scenario/t): spec.workloads[0].usage.memory.base: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': "1Qi"`,
        "s.yaml:39:62: document 3 (Scenario/t): spec.workloads[0].usage.jitter: must be a number from 0 to 1",
      ],
    },
    {
      name: "events",
      // Pinned at v1.34: there minReplicas 0 is refused by its own rule too (HPAScaleToZero off).
      version: "1.34" as const,
      text: scenario(
        `  events:
  - {at: 5m, type: explode}
  - {at: 5m, type: patchHpa, hpa: web, patch: {spec: {minReplicas: 0}}}
  - {at: 5m, type: patchHpa, hpa: api, patch: {}}
  - {type: killPods, workload: Deployment/web, count: 0}
  - {at: 1m, type: metricsOutage, duration: 1m, apis: [resource, cpu]}
`,
      ),
      errors: [
        's.yaml:37:20: document 3 (Scenario/t): spec.events[0].type: unknown event "explode" (expected one of: updateTemplate, killPods, metricsOutage, patchHpa, restartController, setTraffic, scale)',
        "s.yaml:38:40: document 3 (Scenario/t): spec.events[1].patch: the patched HPA is invalid: spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
        "s.yaml:38:40: document 3 (Scenario/t): spec.events[1].patch: the patched HPA is invalid: spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
        "s.yaml:39:35: document 3 (Scenario/t): spec.events[2].hpa: unknown HorizontalPodAutoscaler default/api (HPAs: default/web)",
        "s.yaml:40:5: document 3 (Scenario/t): spec.events[3].at: Required value",
        "s.yaml:40:55: document 3 (Scenario/t): spec.events[3].count: must be a positive integer",
        's.yaml:41:66: document 3 (Scenario/t): spec.events[4].apis[1]: Unsupported value: "cpu": supported values: "resource", "custom", "external"',
      ],
    },
    {
      // $patch: delete takes the only container away (a JSON merge patch would keep a container
      // with a "$patch" field); an unknown directive does not apply.
      name: "updateTemplate: the patch applies as kubectl patch's strategic merge patch",
      text: scenario(
        `  events:
  - {at: 1m, type: updateTemplate, workload: Deployment/web, patch: {spec: {containers: [{name: web, $patch: delete}]}}}
  - {at: 2m, type: updateTemplate, workload: Deployment/web, patch: {spec: {$patch: remove}}}
`,
      ),
      errors: [
        "s.yaml:37:62: document 3 (Scenario/t): spec.events[0].patch: the patched template is invalid: spec.containers: Required value",
        "s.yaml:38:62: document 3 (Scenario/t): spec.events[1].patch: the patch does not apply to the template: Unknown patch type: remove",
      ],
    },
    {
      name: "HPA validation errors at the offending field",
      text: file(
        DEPLOYMENT,
        HPA.replace("maxReplicas: 10", "maxReplicas: 0").replace(
          "averageUtilization: 50",
          "averageUtilization: -5",
        ),
      ),
      errors: [
        "s.yaml:24:16: document 2 (HorizontalPodAutoscaler/web): spec.maxReplicas: Invalid value: 0: must be greater than 0",
        "s.yaml:24:16: document 2 (HorizontalPodAutoscaler/web): spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
        "s.yaml:29:55: document 2 (HorizontalPodAutoscaler/web): spec.metrics[0].resource.target.averageUtilization: Invalid value: -5: must be greater than 0",
      ],
    },
    {
      name: "HPA field of the wrong type, as kube-apiserver's decoder says",
      text: file(DEPLOYMENT, HPA.replace("maxReplicas: 10", 'maxReplicas: "10"')),
      errors: [
        "s.yaml:24:16: document 2 (HorizontalPodAutoscaler/web): spec.maxReplicas: json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
      ],
    },
    {
      name: "HPA target of the wrong type: a string, as kube-apiserver's decoder says",
      text: file(DEPLOYMENT, HPA.replace("averageUtilization: 50", 'averageUtilization: "60%"')),
      errors: [
        "s.yaml:29:55: document 2 (HorizontalPodAutoscaler/web): spec.metrics[0].resource.target.averageUtilization: json: cannot unmarshal string into Go struct field MetricTarget.spec.metrics.resource.target.averageUtilization of type int32",
      ],
    },
    {
      name: "HPA target of the wrong type: a fraction",
      text: file(DEPLOYMENT, HPA.replace("averageUtilization: 50", "averageUtilization: 60.5")),
      errors: [
        "s.yaml:29:55: document 2 (HorizontalPodAutoscaler/web): spec.metrics[0].resource.target.averageUtilization: json: cannot unmarshal number 60.5 into Go struct field MetricTarget.spec.metrics.resource.target.averageUtilization of type int32",
      ],
    },
    {
      name: "HPA target of the wrong type: a bool",
      text: file(DEPLOYMENT, HPA.replace("averageUtilization: 50", "averageUtilization: true")),
      errors: [
        "s.yaml:29:55: document 2 (HorizontalPodAutoscaler/web): spec.metrics[0].resource.target.averageUtilization: json: cannot unmarshal bool into Go struct field MetricTarget.spec.metrics.resource.target.averageUtilization of type int32",
      ],
    },
    {
      name: "workload replicas of the wrong type: a bool, as encoding/json names it",
      text: file(DEPLOYMENT.replace("replicas: 2", "replicas: true"), HPA),
      errors: [
        "s.yaml:6:13: document 1 (Deployment/web): spec.replicas: json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.replicas of type int32",
      ],
    },
    {
      name: "workload replicas of the wrong type: a fraction, quoted as encoding/json quotes it",
      text: file(DEPLOYMENT.replace("replicas: 2", "replicas: 2.5"), HPA),
      errors: [
        "s.yaml:6:13: document 1 (Deployment/web): spec.replicas: json: cannot unmarshal number 2.5 into Go struct field DeploymentSpec.spec.replicas of type int32",
      ],
    },
    {
      name: "autoscaling/v1 field of the wrong type",
      text: file(
        DEPLOYMENT,
        'apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 10\n  targetCPUUtilizationPercentage: "60%"\n',
      ),
      errors: [
        "s.yaml:24:35: document 2 (HorizontalPodAutoscaler/web): spec.targetCPUUtilizationPercentage: json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.targetCPUUtilizationPercentage of type int32",
      ],
    },
    {
      name: "unknown HPA field (kubectl's strict field validation)",
      text: file(DEPLOYMENT, HPA.replace("maxReplicas: 10", "maxReplicas: 10\n  minReplica: 2")),
      errors: [
        's.yaml:25:3: document 2 (HorizontalPodAutoscaler/web): spec.minReplica: strict decoding error: unknown field "spec.minReplica"',
      ],
    },
    {
      name: "unknown HPA behavior field",
      text: file(
        DEPLOYMENT,
        `${HPA}  behavior:\n    scaleDown: {stabilisationWindowSeconds: 60}\n`,
      ),
      errors: [
        's.yaml:31:17: document 2 (HorizontalPodAutoscaler/web): spec.behavior.scaleDown.stabilisationWindowSeconds: strict decoding error: unknown field "spec.behavior.scaleDown.stabilisationWindowSeconds"',
      ],
    },
    {
      name: "unknown container field: the workload is known, but invalid",
      text: file(
        DEPLOYMENT.replace("        resources:", "        resource:"),
        HPA,
        `${SCENARIO_HEAD}  workloads:\n  - target: Deployment/web\n`,
      ),
      errors: [
        's.yaml:15:9: document 1 (Deployment/web): spec.template.spec.containers[0].resource: strict decoding error: unknown field "spec.template.spec.containers[0].resource"',
      ],
    },
    {
      name: "unknown field in a patchHpa event's patch",
      text: scenario(
        "  events:\n  - {at: 1m, type: patchHpa, hpa: web, patch: {spec: {maxReplica: 6}}}\n",
      ),
      errors: [
        's.yaml:37:40: document 3 (Scenario/t): spec.events[0].patch: the patched HPA is invalid: spec.maxReplica: strict decoding error: unknown field "spec.maxReplica"',
      ],
    },
    {
      name: "wrong type in a patchHpa event's patch",
      text: scenario(
        '  events:\n  - {at: 1m, type: patchHpa, hpa: web, patch: {spec: {maxReplicas: "6"}}}\n',
      ),
      errors: [
        "s.yaml:37:40: document 3 (Scenario/t): spec.events[0].patch: the patched HPA is invalid: spec.maxReplicas: json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
      ],
    },
    {
      name: "an error in an item of a List: located in the item",
      text: `apiVersion: v1\nkind: List\nitems:\n- ${DEPLOYMENT.trimEnd().replaceAll("\n", "\n  ")}\n- ${HPA.replace("maxReplicas: 10", "minReplica: 2\n  maxReplicas: 10").trimEnd().replaceAll("\n", "\n  ")}\n`,
      errors: [
        's.yaml:26:5: document 1 (List items[1]: HorizontalPodAutoscaler/web): spec.minReplica: strict decoding error: unknown field "spec.minReplica"',
      ],
    },
    {
      name: "manifest problems: bad quantity, selector mismatch, unserved apiVersion, no name",
      text: file(
        DEPLOYMENT.replace("cpu: 200m", "cpu: 200x").replace(
          "labels: {app: web}",
          "labels: {app: other}",
        ),
        "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: old}\n",
        "apiVersion: v1\nkind: Service\nmetadata: {}\n",
        "kind: Service\nmetadata: {name: x}\n",
      ),
      errors: [
        's.yaml:11:7: document 1 (Deployment/web): spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`',
        `s.yaml:16:27: document 1 (Deployment/web): spec.template.spec.containers[0].resources.requests.cpu: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': "200x"`,
        's.yaml:18:13: document 2 (Deployment/old): apiVersion: no matches for kind "Deployment" in version "extensions/v1beta1"',
        "s.yaml:24:1: document 3 (Service): metadata.name: Required value: name or generateName is required",
        "s.yaml:26:1: document 4 (Service/x): apiVersion: Required value",
      ],
    },
    {
      name: "duplicate objects and two Scenario documents",
      text: file(
        DEPLOYMENT,
        DEPLOYMENT,
        `${SCENARIO_HEAD}  seed: 1\n`,
        `${SCENARIO_HEAD}  seed: 2\n`,
      ),
      errors: [
        "s.yaml:21:9: document 2 (Deployment/web): metadata.name: Deployment default/web is already defined in document 1",
        "s.yaml:43:7: document 4 (Scenario/t): kind: only one Scenario document is allowed (the first is document 3)",
      ],
    },
    {
      name: "wrong Scenario apiVersion",
      text: file(DEPLOYMENT, SCENARIO_HEAD.replace("v1alpha1", "v1")),
      errors: [
        's.yaml:18:13: document 2 (Scenario/t): apiVersion: Unsupported value: "horizon.dev/v1": supported values: "horizon.dev/v1alpha1"',
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const options = "version" in c ? { kubernetesVersion: c.version } : {};
      assert.deepEqual(errorLines(c.text, options), c.errors);
    });
  }

  test("a kind: List document (kubectl get -o yaml) is its items, as kubectl create reads it", () => {
    const indent = (doc: string) => doc.trimEnd().replaceAll("\n", "\n  ");
    const list = `apiVersion: v1\nkind: List\nitems:\n- ${indent(DEPLOYMENT)}\n- ${indent(HPA)}\n`;
    const fromList = ok(list);
    const plain = ok(file(DEPLOYMENT, HPA));
    assert.deepEqual(
      fromList.objects.map((o) => `${o.kind}/${o.metadata.name}`),
      ["Deployment/web", "HorizontalPodAutoscaler/web"],
    );
    assert.deepEqual(fromList.objects, plain.objects);
    assert.deepEqual(fromList.spec.workloads, plain.spec.workloads);
  });

  test("ScenarioParseError holds one line per error", () => {
    const result = parse(scenario("  sed: 3\n  seed: x\n"));
    assert.ok(!result.ok);
    const error = new ScenarioParseError(result.errors);
    assert.equal(error.message.split("\n").length, 2);
    assert.equal(error.errors, result.errors);
  });

  test("a missing scenario file", async () => {
    const result = await loadScenarioFile("/nonexistent/x.yaml");
    assert.deepEqual(result, {
      ok: false,
      errors: [{ file: "/nonexistent/x.yaml", message: "cannot read the scenario: no such file" }],
    });
  });

  test("parsing never throws and always answers with data (property)", () => {
    const lines = fc.constantFrom(
      "apiVersion: apps/v1",
      "kind: Deployment",
      "kind: HorizontalPodAutoscaler",
      "apiVersion: autoscaling/v2",
      "apiVersion: horizon.dev/v1alpha1",
      "kind: Scenario",
      "metadata: {name: web}",
      "spec:",
      "  maxReplicas: x",
      "  metrics: 5",
      "  workloads: [{target: Deployment/web}]",
      "  events: [{at: 1m}]",
      "  behavior: {scaleUp: {policies: {a: 1}}}",
      "---",
      "  - [",
      ": :",
    );
    fc.assert(
      fc.property(fc.array(lines, { maxLength: 12 }), (picked) => {
        const result = parse(`${picked.join("\n")}\n`);
        assert.equal(typeof result.ok, "boolean");
        if (!result.ok)
          for (const e of result.errors) assert.equal(typeof formatScenarioError(e), "string");
      }),
      { numRuns: 300 },
    );
  });
});

describe("--set", () => {
  const text = file(DEPLOYMENT, HPA);

  test("sets HPA, Deployment and Scenario fields before validation", () => {
    const s = ok(text, {
      sets: [
        "hpa/web:spec.behavior.scaleDown.stabilizationWindowSeconds=60",
        "scenario:spec.seed=7",
        "deployment/web:spec.template.spec.containers[0].resources.requests.cpu=250m",
      ],
    });
    assert.equal(s.spec.seed, 7);
    const hpa = s.objects[1]!.spec as {
      behavior: { scaleDown: { stabilizationWindowSeconds: number } };
    };
    assert.equal(hpa.behavior.scaleDown.stabilizationWindowSeconds, 60);
    const deployment = s.objects[0]!.spec as {
      template: { spec: { containers: { resources: { requests: { cpu: string } } }[] } };
    };
    assert.equal(deployment.template.spec.containers[0]!.resources.requests.cpu, "250m");
  });

  test("a bad value gets the normal validation error, marked as set", () => {
    assert.deepEqual(errorLines(text, { sets: ["hpa/web:spec.maxReplicas=0"] }), [
      "s.yaml:24:3: document 2 (HorizontalPodAutoscaler/web): spec.maxReplicas: Invalid value: 0: must be greater than 0 (set by --set hpa/web:spec.maxReplicas=0)",
      "s.yaml:24:3: document 2 (HorizontalPodAutoscaler/web): spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas` (set by --set hpa/web:spec.maxReplicas=0)",
    ]);
  });

  test("a field of a Scenario document created by --set has no line", () => {
    assert.deepEqual(errorLines(text, { sets: ["scenario:spec.duration=abc"] }), [
      's.yaml: document 3 (Scenario): spec.duration: time: invalid duration "abc" (expected e.g. 15s, 5m0s, 1h30m, 300ms) (set by --set scenario:spec.duration=abc)',
    ]);
  });

  test("each parse of the same text starts from the file as written (no edit carries over)", () => {
    const window = (sets: string[]) =>
      (
        ok(text, { sets }).objects[1]!.spec as {
          behavior?: { scaleDown?: { stabilizationWindowSeconds?: number } };
        }
      ).behavior?.scaleDown?.stabilizationWindowSeconds;
    assert.equal(window(["hpa/web:spec.behavior.scaleDown.stabilizationWindowSeconds=60"]), 60);
    assert.equal(window([]), undefined);
    assert.equal(window(["hpa/web:spec.behavior.scaleDown.stabilizationWindowSeconds=90"]), 90);
    // Errors keep their lines on a parse of the same text after edits.
    assert.deepEqual(errorLines(text, { sets: ["hpa/web:spec.maxReplicas=0"] }).length, 2);
    assert.equal(ok(text).objects.length, 2);
  });

  test("set errors are reported with the others", () => {
    assert.deepEqual(
      errorLines(text, {
        sets: ["hpa/api:spec.maxReplicas=3", "hpa/web:spec.metrics[4].type=Pods"],
      }),
      [
        "s.yaml: --set hpa/api:spec.maxReplicas=3: no HorizontalPodAutoscaler document named api in the scenario",
        "s.yaml: --set hpa/web:spec.metrics[4].type=Pods: index 4 out of range: spec.metrics has 1 item",
      ],
    );
  });
});

describe("replay traces", () => {
  const scenario = (traffic: string) =>
    file(
      DEPLOYMENT,
      `${SCENARIO_HEAD}  workloads:\n  - target: Deployment/web\n    traffic:\n    - ${traffic}\n`,
    );
  const files: Record<string, string> = {
    "/scenarios/trace.csv": "seconds,rps\n# warm-up\n0,10\n60,25.5\n\n120,0\n",
    "/scenarios/data/trace.json": '[{"t": 0, "rps": 10}, {"t": 30, "rps": 40}]',
    "/scenarios/bad.csv": "0,10\n60;20\n30,5\nx,1\n90,-2\n",
    "/scenarios/bad.json": '[{"t": 0, "rps": 1},',
    "/scenarios/empty.csv": "seconds,rps\n",
    // As the NASA trace is written: date-times, counts per minute, a minute with no row.
    "/scenarios/minutes.csv":
      "minute,count\n1995-07-01 00:00:00,42\n1995-07-01 00:01:00,60\n1995-07-01 00:03:00,6\n",
    "/scenarios/zoned.csv": "2026-11-17T08:00:00+02:00,1\n2026-11-17T06:00:30Z,2\n",
    "/scenarios/mixed.csv": "2026-11-17 08:00,1\n60,2\n2026-02-30 08:00,3\n",
  };
  const readFile = (path: string) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
    return text;
  };

  const good = [
    {
      name: "CSV with a header, comments and blank lines",
      traffic: "{type: replay, file: trace.csv}",
      want: {
        type: "replay",
        source: "trace.csv",
        points: [
          { atMs: 0, rps: 10 },
          { atMs: 60_000, rps: 25.5 },
          { atMs: 120_000, rps: 0 },
        ],
      },
    },
    {
      name: "JSON, relative to the scenario's directory",
      traffic: "{type: replay, file: data/trace.json}",
      want: {
        type: "replay",
        source: "data/trace.json",
        points: [
          { atMs: 0, rps: 10 },
          { atMs: 30_000, rps: 40 },
        ],
      },
    },
    {
      name: "CSV with date-times (relative to the first row) and a header",
      traffic: "{type: replay, file: minutes.csv}",
      want: {
        type: "replay",
        source: "minutes.csv",
        points: [
          { atMs: 0, rps: 42 },
          { atMs: 60_000, rps: 60 },
          { atMs: 180_000, rps: 6 },
        ],
      },
    },
    {
      name: "date-times with zones",
      traffic: "{type: replay, file: zoned.csv}",
      want: {
        type: "replay",
        source: "zoned.csv",
        points: [
          { atMs: 0, rps: 1 },
          { atMs: 30_000, rps: 2 },
        ],
      },
    },
    {
      name: "as recorded: each row holds for its interval, counts per minute, scaled, from an offset",
      traffic: "{type: replay, file: minutes.csv, interval: 1m, per: 1m, scale: 3, offset: 1m}",
      want: {
        type: "replay",
        source: "minutes.csv",
        // 42 per minute × 3 = 2.1 rps
        points: [
          { atMs: 0, rps: 2.1 },
          { atMs: 60_000, rps: 3 },
          { atMs: 180_000, rps: 0.3 },
        ],
        holdMs: 60_000,
        offsetMs: 60_000,
      },
    },
  ];
  for (const c of good) {
    test(c.name, () => {
      const s = ok(scenario(c.traffic), { readFile });
      assert.deepEqual(s.spec.workloads[0]!.traffic, [c.want]);
    });
  }

  const bad = [
    {
      name: "missing file",
      traffic: "{type: replay, file: missing.csv}",
      errors: [
        's.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: cannot read replay file "missing.csv": no such file',
      ],
    },
    {
      name: "bad CSV lines, each reported",
      traffic: "{type: replay, file: bad.csv}",
      errors: [
        's.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: bad.csv:2: expected "seconds,rps", got "60;20"',
        "s.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: bad.csv:4: time must be a non-negative number of seconds",
        "s.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: bad.csv:5: rps must be a non-negative number",
      ],
    },
    {
      name: "paths are relative to the scenario directory (data/trace.json is not trace.json)",
      traffic: "{type: replay, file: trace.json}",
      errors: [
        's.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: cannot read replay file "trace.json": no such file',
      ],
    },
    {
      name: "invalid JSON",
      traffic: "{type: replay, file: bad.json}",
      errors: [
        "s.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: bad.json: not valid JSON: Unexpected end of JSON input",
      ],
    },
    {
      name: "no points",
      traffic: "{type: replay, file: empty.csv}",
      errors: [
        "s.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: empty.csv: no points",
      ],
    },
  ];
  for (const c of bad) {
    test(`error: ${c.name}`, () => {
      assert.deepEqual(errorLines(scenario(c.traffic), { readFile }), c.errors);
    });
  }

  test("a date-time file is all date-times; an impossible date is not one", () => {
    assert.deepEqual(errorLines(scenario("{type: replay, file: mixed.csv}"), { readFile }), [
      's.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: mixed.csv:2: time "60" must be a date-time such as "1995-07-01 00:00:00", as the first row\'s',
      's.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: mixed.csv:3: time "2026-02-30 08:00" must be a date-time such as "1995-07-01 00:00:00", as the first row\'s',
    ]);
  });

  test("bad interval, per, scale and offset are named", () => {
    const lines = errorLines(
      scenario("{type: replay, file: trace.csv, interval: 0s, per: -1m, scale: 0, offset: x}"),
      { readFile },
    );
    assert.equal(lines.length, 4, lines.join("\n"));
    for (const [field, message] of [
      ["interval", "must be greater than 0"],
      ["per", "must not be negative"],
      ["scale", "must be a positive number"],
      ["offset", "x"],
    ]) {
      assert.ok(
        lines.some((l) => l.includes(`traffic[0].${field}: `) && l.includes(message!)),
        `${field}: ${lines.join("\n")}`,
      );
    }
  });

  test("out-of-order times are rejected", () => {
    files["/scenarios/order.csv"] = "0,1\n60,2\n60,3\n";
    assert.deepEqual(errorLines(scenario("{type: replay, file: order.csv}"), { readFile }), [
      "s.yaml:26:28: document 2 (Scenario/t): spec.workloads[0].traffic[0].file: order.csv:3: time 60 must be later than the previous point's 60",
    ]);
  });
});
