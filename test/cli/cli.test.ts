import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runDemo } from "../../src/cli/demo.js";
import { validateCommand } from "../../src/cli/validate.js";
import { runConformance } from "../../src/conformance/runner.js";

const root = join(import.meta.dirname, "..", "..");
const fixtures = join(root, "test", "fixtures", "conformance");
const scratch = mkdtempSync(join(tmpdir(), "horizon-cli-"));

function capture() {
  const lines: string[] = [];
  return { lines, print: (line: string) => lines.push(line) };
}

describe("horizon demo", () => {
  const steps = runDemo();
  const rescales = steps
    .filter((s) => s.result.scaleUpdated)
    .map((s) => [s.seconds, s.result.desiredReplicas]);

  it("scales up under the load step within the legacy cap, and down after the 5 min window", () => {
    // 900m over 2 pods of 200m is 225% of a 50% target → 9, capped at max(2×2, 4) = 4, then 8, then 9.
    // The last high recommendation is at 3m45s, so the scale-down comes at 8m45s.
    assert.deepEqual(rescales, [
      [60, 4],
      [75, 8],
      [90, 9],
      [525, 2],
    ]);
  });
});

describe("horizon conformance", () => {
  it("passes every public vector and ends with the summary line", () => {
    const out = capture();
    const files = ["replica-calculation", "normalization", "validation"].map((f) =>
      join(fixtures, `${f}.json`),
    );
    assert.equal(runConformance(files, out.print), 0);
    assert.match(out.lines.at(-1)!, /^\d+ passed, 0 failed$/);
  });

  it("reports a failing vector by id with what differed, and exits non-zero", () => {
    const file = join(scratch, "broken.json");
    writeFileSync(
      file,
      JSON.stringify({
        suite: "normalization",
        schemaVersion: 1,
        vectors: [
          {
            id: "wrong-on-purpose",
            kind: "legacyConvert",
            currentReplicas: 3,
            recommendation: 1,
            minReplicas: 2,
            maxReplicas: 8,
            behavior: null,
            legacyScaleUpLimitFactor: 2,
            legacyScaleUpLimitMinimum: 4,
            recommendationsHistory: [],
            expect: { replicas: 3, conditionReason: "TooFewReplicas" },
          },
        ],
      }),
    );
    const out = capture();
    assert.equal(runConformance([file], out.print), 1);
    assert.deepEqual(out.lines, [
      "FAIL normalization/wrong-on-purpose: replicas: expected 3, got 2",
      "0 passed, 1 failed",
    ]);
  });

  it("names the field of a malformed vector, not a stack trace", () => {
    const file = join(scratch, "malformed.json");
    const vector = {
      method: "x",
      currentReplicas: 2,
      tolerances: { scaleDown: 0.1, scaleUp: 0.1 },
      cpuInitializationPeriodSeconds: 300,
      delayOfInitialReadinessStatusSeconds: 30,
      metric: {
        source: "Resource",
        name: "cpu",
        target: { type: "Utilization", averageUtilization: 50 },
      },
      expect: { replicas: 2, rawValue: "1" },
    };
    writeFileSync(
      file,
      JSON.stringify({
        suite: "replicaCalculation",
        schemaVersion: 1,
        vectors: [
          { id: "no-pods", ...vector },
          { id: "pod-without-containers", ...vector, pods: [{ name: "a" }] },
        ],
      }),
    );
    const out = capture();
    assert.equal(runConformance([file], out.print), 1);
    assert.deepEqual(out.lines, [
      "FAIL replicaCalculation/no-pods: malformed vector: field pods: missing (TypeError: Cannot read properties of undefined (reading 'map'))",
      "FAIL replicaCalculation/pod-without-containers: malformed vector: field pods[0].containers: missing (TypeError: Cannot read properties of undefined (reading 'map'))",
      "0 passed, 2 failed",
    ]);
  });

  it("exits non-zero on an unreadable file", () => {
    const out = capture();
    assert.equal(runConformance([join(scratch, "missing.json")], out.print), 1);
    assert.match(out.lines[0]!, /^ERROR cannot read/);
  });

  it("runs as `npm run conformance` does, with its exit code", () => {
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", "conformance", join(fixtures, "pod-grouping.json")],
      {
        cwd: root,
        encoding: "utf8",
      },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim().split("\n").at(-1), "9 passed, 0 failed");
  });
});

describe("horizon validate", () => {
  const write = (name: string, text: string) => {
    const file = join(scratch, name);
    writeFileSync(file, text);
    return file;
  };
  const manifest = (extra: string) => `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 10
${extra}`;

  it("accepts a valid manifest", () => {
    const out = capture();
    const err = capture();
    assert.equal(validateCommand([write("ok.yaml", manifest(""))], {}, out.print, err.print), 0);
    assert.match(out.lines[0]!, /valid$/);
  });

  it("names the field and upstream message of each error, exit 1", () => {
    const bad = manifest(`  behavior:
    scaleUp:
      policies: [{type: Pods, value: 4, periodSeconds: 0}]
`);
    const out = capture();
    assert.equal(
      validateCommand([write("bad.yaml", bad)], {}, out.print, () => {}),
      1,
    );
    assert.ok(
      out.lines.includes(
        "  spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be greater than zero",
      ),
      out.lines.join("\n"),
    );
  });

  it("checks horizon.dev annotations as the API server does: errors by annotation, unknown keys warned", () => {
    const annotated = manifest("").replace(
      "metadata: {name: web, namespace: default}",
      `metadata:
  name: web
  namespace: default
  annotations: {"horizon.dev/paused": "yes", "horizon.dev/pause": "true"}`,
    );
    const out = capture();
    const err = capture();
    assert.equal(validateCommand([write("ext.yaml", annotated)], {}, out.print, err.print), 1);
    assert.ok(
      out.lines.includes(
        '  metadata.annotations[horizon.dev/paused]: Invalid value: "yes": invalid value "yes": must be "true" or "false"',
      ),
      out.lines.join("\n"),
    );
    assert.match(
      err.lines.join("\n"),
      /Warning: .*ext\.yaml \(document 1, web\): metadata\.annotations\[horizon\.dev\/pause\]: unknown annotation/,
    );
  });

  it("fills in the namespace as kubectl does (no metadata.namespace is valid)", () => {
    const out = capture();
    const err = capture();
    const file = write("nons.yaml", manifest("").replace(", namespace: default", ""));
    assert.equal(validateCommand([file], {}, out.print, err.print), 0, err.lines.join("\n"));
    assert.deepEqual(out.lines, [`${file} (document 1, web): valid`]);
  });

  it("reads a kind: List's items (kubectl get -o yaml), as kubectl create -f does", () => {
    const item = (name: string, max: number) =>
      `- ${manifest("").replace("name: web,", `name: ${name},`).replace("maxReplicas: 10", `maxReplicas: ${max}`).trimEnd().replaceAll("\n", "\n  ")}`;
    const file = write(
      "list.yaml",
      `apiVersion: v1\nkind: List\nitems:\n${item("a", 10)}\n${item("b", 0)}\n`,
    );
    const out = capture();
    assert.equal(
      validateCommand([file], {}, out.print, () => {}),
      1,
    );
    assert.equal(out.lines[0], `${file} (document 1, items[0], a): valid`);
    assert.equal(out.lines[1], `${file} (document 1, items[1], b): invalid`);
  });

  const decodeCases = [
    {
      name: "a string target (kube-apiserver's typed decoding)",
      extra:
        '  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: "60%"}}}]\n',
      error:
        "spec.metrics[0].resource.target.averageUtilization: json: cannot unmarshal string into Go struct field MetricTarget.spec.metrics.resource.target.averageUtilization of type int32",
    },
    {
      name: "a fractional target",
      extra:
        "  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60.5}}}]\n",
      error:
        "spec.metrics[0].resource.target.averageUtilization: json: cannot unmarshal number 60.5 into Go struct field MetricTarget.spec.metrics.resource.target.averageUtilization of type int32",
    },
    {
      name: "an unknown field (kubectl's strict field validation)",
      extra: "  minReplica: 2\n",
      error: 'spec.minReplica: strict decoding error: unknown field "spec.minReplica"',
    },
    {
      name: "an unknown behavior field",
      extra: "  behavior: {scaleDown: {stabilisationWindowSeconds: 60}}\n",
      error:
        'spec.behavior.scaleDown.stabilisationWindowSeconds: strict decoding error: unknown field "spec.behavior.scaleDown.stabilisationWindowSeconds"',
    },
  ];
  for (const c of decodeCases) {
    it(`refuses ${c.name} before validation, exit 2`, () => {
      const file = write("decode.yaml", manifest(c.extra));
      const out = capture();
      const err = capture();
      assert.equal(validateCommand([file], {}, out.print, err.print), 2);
      assert.deepEqual(err.lines, [`error: ${file} (document 1, web): ${c.error}`]);
      assert.deepEqual(out.lines, []);
    });
  }

  it("warns about deprecated versions", () => {
    const old = manifest("").replace("autoscaling/v2", "autoscaling/v2beta2");
    const err = capture();
    assert.equal(
      validateCommand([write("old.yaml", old)], {}, () => {}, err.print),
      0,
    );
    assert.match(err.lines.join("\n"), /v2beta2 HorizontalPodAutoscaler is deprecated/);
  });

  it("exits 2 with the position of a YAML error, and on a bad --feature-gates", () => {
    const err = capture();
    assert.equal(
      validateCommand([write("broken.yaml", "kind: [")], {}, () => {}, err.print),
      2,
    );
    assert.match(err.lines[0]!, /broken\.yaml:1:/);
    const gates = capture();
    assert.equal(
      validateCommand(
        [write("ok2.yaml", manifest(""))],
        { featureGates: "Nope=true" },
        () => {},
        gates.print,
      ),
      2,
    );
    assert.match(gates.lines[0]!, /--feature-gates: unrecognized feature gate: Nope/);
  });

  it("validates as the chosen --kubernetes-version's API server: minReplicas 0 from v1.37", () => {
    const zero = write(
      "zero.yaml",
      manifest(`  metrics:
  - type: External
    external: {metric: {name: q}, target: {type: Value, value: "1"}}
`).replace("minReplicas: 1", "minReplicas: 0"),
    );
    // HPAScaleToZero: alpha and off through v1.36, beta and on in v1.37 (kubernetes#139648).
    const old = capture();
    assert.equal(
      validateCommand([zero], { kubernetesVersion: "1.36" }, old.print, () => {}),
      1,
    );
    assert.match(
      old.lines.join("\n"),
      /spec\.minReplicas: Invalid value: 0: must be greater than or equal to 1/,
    );
    assert.equal(
      validateCommand(
        [zero],
        {},
        () => {},
        () => {},
      ),
      0,
    );
    const bad = capture();
    assert.equal(
      validateCommand([zero], { kubernetesVersion: "1.33" }, () => {}, bad.print),
      2,
    );
    assert.equal(
      bad.lines[0],
      'error: --kubernetes-version: unsupported Kubernetes version "1.33": supported versions are 1.34, 1.35, 1.36, 1.37',
    );
  });
});
