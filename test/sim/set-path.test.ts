import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { parseAllDocuments } from "yaml";
import {
  applySet,
  formatPath,
  parseFieldPath,
  parseSetExpression,
  resolveKind,
} from "../../src/sim/set-path.js";

const MANIFESTS = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  maxReplicas: 5
  behavior:
    scaleDown:
      policies:
      - {type: Pods, value: 4, periodSeconds: 60}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
spec:
  template:
    spec:
      containers:
      - name: web
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
`;

function docs() {
  const parsed = parseAllDocuments(MANIFESTS);
  assert.ok(Array.isArray(parsed));
  return parsed;
}

describe("parseSetExpression", () => {
  const cases = [
    {
      name: "hpa alias, nested field, integer value",
      expr: "hpa/web:spec.behavior.scaleDown.stabilizationWindowSeconds=60",
      want: {
        kind: "HorizontalPodAutoscaler",
        namespace: null,
        name: "web",
        path: ["spec", "behavior", "scaleDown", "stabilizationWindowSeconds"],
        value: 60,
      },
    },
    {
      name: "scenario without a name",
      expr: "scenario:spec.seed=7",
      want: { kind: "Scenario", namespace: null, name: null, path: ["spec", "seed"], value: 7 },
    },
    {
      name: "list index and a quantity string",
      expr: "deployment/web:spec.template.spec.containers[0].resources.requests.cpu=250m",
      want: {
        kind: "Deployment",
        namespace: null,
        name: "web",
        path: ["spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"],
        value: "250m",
      },
    },
    {
      name: "namespace/name, quoted string stays a string",
      expr: 'deploy/prod/web:metadata.annotations["example.com/v"]="60"',
      want: {
        kind: "Deployment",
        namespace: "prod",
        name: "web",
        path: ["metadata", "annotations", "example.com/v"],
        value: "60",
      },
    },
    {
      name: "flow mapping value",
      expr: "hpa/web:spec.behavior.scaleDown.policies[0]={type: Pods, value: 4, periodSeconds: 60}",
      want: {
        kind: "HorizontalPodAutoscaler",
        namespace: null,
        name: "web",
        path: ["spec", "behavior", "scaleDown", "policies", 0],
        value: { type: "Pods", value: 4, periodSeconds: 60 },
      },
    },
    {
      name: "boolean and an = inside the value",
      expr: "scenario:spec.controller.feature-gates=HPAScaleToZero=true",
      want: {
        kind: "Scenario",
        namespace: null,
        name: null,
        path: ["spec", "controller", "feature-gates"],
        value: "HPAScaleToZero=true",
      },
    },
    {
      name: "empty value is null",
      expr: "hpa/web:spec.minReplicas=",
      want: {
        kind: "HorizontalPodAutoscaler",
        namespace: null,
        name: "web",
        path: ["spec", "minReplicas"],
        value: null,
      },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = parseSetExpression(c.expr);
      assert.deepEqual(got, { ok: true, value: c.want });
    });
  }

  const bad = [
    {
      name: "no colon",
      expr: "hpa/web spec.x=1",
      error:
        '--set hpa/web spec.x=1: missing ":" (expected KIND[/NAME]:FIELD.PATH=VALUE, e.g. hpa/web:spec.maxReplicas=10)',
    },
    {
      name: "a bare field path: the document to add is suggested",
      expr: "spec.minReplicas=0",
      error:
        '--set spec.minReplicas=0: missing "KIND:" before the field path (expected KIND[/NAME]:FIELD.PATH=VALUE, e.g. hpa/web:spec.maxReplicas=10; the file\'s only HPA: hpa:spec.minReplicas=0)',
    },
    {
      name: "no value",
      expr: "hpa/web:spec.x",
      error:
        '--set hpa/web:spec.x: missing "=VALUE" (expected KIND[/NAME]:FIELD.PATH=VALUE, e.g. hpa/web:spec.maxReplicas=10)',
    },
    {
      name: "unknown kind",
      expr: "cronjob/x:spec.x=1",
      error:
        '--set cronjob/x:spec.x=1: unknown kind "cronjob" (known: deploy, deployment, horizontalpodautoscaler, hpa, namespace, po, pod, rc, replicaset, replicationcontroller, scenario, service, statefulset, svc)',
    },
    {
      name: "empty field name",
      expr: "hpa/web:spec..x=1",
      error: "--set hpa/web:spec..x=1: empty field name at position 6",
    },
    {
      name: "unclosed bracket",
      expr: "hpa/web:spec.metrics[0=1",
      error: '--set hpa/web:spec.metrics[0=1: unclosed "[" at position 13',
    },
    {
      name: "negative index",
      expr: "hpa/web:spec.metrics[-1]=1",
      error: "--set hpa/web:spec.metrics[-1]=1: bad index [-1]: expected a number from 0",
    },
    {
      name: "bad YAML value",
      expr: "hpa/web:spec.x={a: 1",
      error: '--set hpa/web:spec.x={a: 1: bad value "{a: 1": Flow map must end with a }',
    },
    {
      name: "too many slashes",
      expr: "hpa/a/b/c:spec.x=1",
      error:
        '--set hpa/a/b/c:spec.x=1: bad document "hpa/a/b/c" (expected KIND[/NAME]:FIELD.PATH=VALUE, e.g. hpa/web:spec.maxReplicas=10)',
    },
  ];
  for (const c of bad) {
    test(`rejects: ${c.name}`, () => {
      assert.deepEqual(parseSetExpression(c.expr), { ok: false, error: c.error });
    });
  }
});

describe("applySet", () => {
  test("replaces an existing value", () => {
    const d = docs();
    assert.deepEqual(applySet(d, "hpa/web:spec.maxReplicas=10"), { ok: true, document: 0 });
    assert.equal((d[0]!.toJS() as { spec: { maxReplicas: number } }).spec.maxReplicas, 10);
  });

  test("creates missing intermediate maps", () => {
    const d = docs();
    const result = applySet(d, "hpa/web:spec.behavior.scaleUp.stabilizationWindowSeconds=30");
    assert.deepEqual(result, { ok: true, document: 0 });
    const spec = (d[0]!.toJS() as { spec: { behavior: unknown } }).spec;
    assert.deepEqual(spec.behavior, {
      scaleDown: { policies: [{ type: "Pods", value: 4, periodSeconds: 60 }] },
      scaleUp: { stabilizationWindowSeconds: 30 },
    });
  });

  test("replaces a list item with a flow mapping", () => {
    const d = docs();
    applySet(
      d,
      "hpa:spec.behavior.scaleDown.policies[0]={type: Percent, value: 10, periodSeconds: 60}",
    );
    const policies = (
      d[0]!.toJS() as { spec: { behavior: { scaleDown: { policies: unknown[] } } } }
    ).spec.behavior.scaleDown.policies;
    assert.deepEqual(policies, [{ type: "Percent", value: 10, periodSeconds: 60 }]);
  });

  test("addresses a namespaced document", () => {
    const d = docs();
    const result = applySet(d, "deploy/prod/web:spec.template.spec.containers[0].image=nginx:2");
    assert.deepEqual(result, { ok: true, document: 1 });
  });

  test("creates the Scenario document when there is none", () => {
    const d = docs();
    assert.deepEqual(applySet(d, "scenario:spec.seed=7"), { ok: true, document: 3 });
    // Unnamed: the run keeps the file's name (as without --set).
    assert.deepEqual(d[3]!.toJS(), {
      apiVersion: "horizon.dev/v1alpha1",
      kind: "Scenario",
      spec: { seed: 7 },
    });
    assert.deepEqual(applySet(d, "scenario:spec.duration=5m"), { ok: true, document: 3 });
    const named = docs();
    assert.deepEqual(applySet(named, "scenario/night:spec.seed=7"), { ok: true, document: 3 });
    assert.deepEqual(named[3]!.toJS(), {
      apiVersion: "horizon.dev/v1alpha1",
      kind: "Scenario",
      metadata: { name: "night" },
      spec: { seed: 7 },
    });
  });

  const errors = [
    {
      name: "unknown document",
      expr: "hpa/api:spec.maxReplicas=3",
      error:
        "--set hpa/api:spec.maxReplicas=3: no HorizontalPodAutoscaler document named api in the scenario",
    },
    {
      name: "ambiguous kind without a name",
      expr: "deploy:spec.replicas=3",
      error:
        "--set deploy:spec.replicas=3: 2 Deployment documents match (prod/web, default/api); name one, e.g. deployment/web:…",
    },
    {
      name: "index out of range",
      expr: "hpa/web:spec.behavior.scaleDown.policies[1].value=2",
      error:
        "--set hpa/web:spec.behavior.scaleDown.policies[1].value=2: index 1 out of range: spec.behavior.scaleDown.policies has 1 item",
    },
    {
      name: "indexing a map",
      expr: "hpa/web:spec.behavior[0]=1",
      error:
        "--set hpa/web:spec.behavior[0]=1: spec.behavior is a map, not a list: cannot index [0]",
    },
    {
      name: "a field of a scalar",
      expr: "hpa/web:spec.maxReplicas.x=1",
      error:
        '--set hpa/web:spec.maxReplicas.x=1: spec.maxReplicas is a scalar, not a map: cannot set field "x"',
    },
    {
      name: "indexing a missing list",
      expr: "hpa/web:spec.metrics[0].type=Pods",
      error:
        "--set hpa/web:spec.metrics[0].type=Pods: spec.metrics does not exist: cannot index [0]",
    },
  ];
  for (const c of errors) {
    test(`error: ${c.name}`, () => {
      const d = docs();
      const before = d.map((doc) => JSON.stringify(doc.toJS()));
      assert.deepEqual(applySet(d, c.expr), { ok: false, error: c.error });
      // A failed --set leaves the documents as they were.
      assert.deepEqual(
        d.map((doc) => JSON.stringify(doc.toJS())),
        before,
      );
    });
  }
});

describe("field paths", () => {
  test("resolveKind knows kubectl short names", () => {
    assert.equal(resolveKind("hpa"), "HorizontalPodAutoscaler");
    assert.equal(resolveKind("deploy"), "Deployment");
    assert.equal(resolveKind("StatefulSets"), "StatefulSet");
    assert.equal(resolveKind("rc"), "ReplicationController");
    assert.equal(resolveKind("cronjob"), undefined);
  });

  test("reads upstream field paths", () => {
    assert.deepEqual(parseFieldPath("spec.metrics[0].resource.target.averageUtilization"), {
      ok: true,
      path: ["spec", "metrics", 0, "resource", "target", "averageUtilization"],
      end: 50,
    });
    assert.deepEqual(parseFieldPath("metadata.labels[app.kubernetes.io/name]"), {
      ok: true,
      path: ["metadata", "labels", "app.kubernetes.io/name"],
      end: 39,
    });
  });

  test("formatPath and parseFieldPath round-trip (property)", () => {
    const key = fc.oneof(
      fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9-]{0,8}$/),
      fc.stringMatching(/^[a-z]{1,4}\.[a-z]{1,4}\/[a-z]{1,4}$/),
    );
    const path = fc.tuple(
      fc.stringMatching(/^[a-z][a-zA-Z]{0,6}$/),
      fc.array(fc.oneof(key, fc.nat({ max: 50 })), { maxLength: 6 }),
    );
    fc.assert(
      fc.property(path, ([first, rest]) => {
        const segs = [first, ...rest];
        const parsed = parseFieldPath(formatPath(segs));
        assert.ok(parsed.ok);
        assert.deepEqual(parsed.path, segs);
      }),
    );
  });
});
