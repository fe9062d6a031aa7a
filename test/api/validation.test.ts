import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import fc from "fast-check";
import { FeatureGates } from "../../src/api/featuregates.js";
import { goJsonString as goJSONString } from "../../src/api/gojson.js";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerSpec,
  MetricSpec,
  ObjectMeta,
} from "../../src/api/types.js";
import {
  dropDisabledHorizontalPodAutoscalerFields,
  type FieldError,
  fieldErrorMessage,
  goQuote,
  horizontalPodAutoscalerSpecValidationOptions,
  isDNS1123Label,
  isQualifiedName,
  OMITTED_VALUE,
  validateHorizontalPodAutoscaler,
  validateHorizontalPodAutoscalerSpec,
  validateHorizontalPodAutoscalerStatusUpdate,
  validateHorizontalPodAutoscalerUpdate,
  validateSpecForConformance,
} from "../../src/api/validation.js";

// ---------------------------------------------------------------------------------------------
// Conformance vectors

interface ValidationVector {
  id: string;
  operation: "create" | "update";
  featureGates: Record<string, boolean>;
  spec: unknown;
  oldSpec?: unknown;
  expect:
    | { valid: true }
    | { valid: false; firstErrorContains: string; field?: string; errorCount?: number };
}

/** Runs one validation.json vector; the diff says what differed. */
function runValidationVector(v: unknown): { ok: true } | { ok: false; diff: string } {
  const vector = v as ValidationVector;
  // The vectors hold for v1.34 (test/fixtures/conformance/README.md).
  const errors = validateSpecForConformance(vector.spec, {
    version: "1.34",
    featureGates: vector.featureGates,
    operation: vector.operation,
    oldSpec: vector.oldSpec,
  });
  const messages = errors.map(fieldErrorMessage);
  const expect = vector.expect;
  if (expect.valid) {
    return errors.length === 0
      ? { ok: true }
      : { ok: false, diff: `expected valid, got ${JSON.stringify(messages)}` };
  }
  const first = errors[0];
  if (first === undefined) {
    return {
      ok: false,
      diff: `expected an error containing ${JSON.stringify(expect.firstErrorContains)}, got none`,
    };
  }
  const diffs: string[] = [];
  if (!fieldErrorMessage(first).includes(expect.firstErrorContains)) {
    diffs.push(
      `first error ${JSON.stringify(messages[0])} lacks ${JSON.stringify(expect.firstErrorContains)}`,
    );
  }
  if (expect.field !== undefined && first.field !== expect.field) {
    diffs.push(`first error field ${first.field} != ${expect.field}`);
  }
  if (expect.errorCount !== undefined && errors.length !== expect.errorCount) {
    diffs.push(`${errors.length} errors != ${expect.errorCount}: ${JSON.stringify(messages)}`);
  }
  return diffs.length === 0 ? { ok: true } : { ok: false, diff: diffs.join("; ") };
}

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/conformance/validation.json", import.meta.url), "utf8"),
) as { suite: string; vectors: ValidationVector[] };

describe("validation.json conformance vectors", () => {
  test("the fixture is the validation suite", () => {
    assert.equal(fixture.suite, "validation");
    assert.ok(fixture.vectors.length > 0);
  });
  for (const v of fixture.vectors) {
    test(v.id, () => {
      const result = runValidationVector(v);
      assert.ok(result.ok, result.ok ? "" : result.diff);
    });
  }

  test("the adapter reports a wrong expectation", () => {
    const result = runValidationVector({
      id: "bad",
      operation: "create",
      featureGates: {},
      spec: { ...validSpec(), maxReplicas: 0 },
      expect: { valid: true },
    });
    assert.equal(result.ok, false);
  });
});

// ---------------------------------------------------------------------------------------------
// Builders

const cpu70: MetricSpec = {
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
};

function validSpec(
  overrides: Partial<HorizontalPodAutoscalerSpec> = {},
): HorizontalPodAutoscalerSpec {
  return {
    scaleTargetRef: { kind: "ReplicationController", name: "myrc" },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [cpu70],
    ...overrides,
  };
}

function validHPA(
  spec: Partial<HorizontalPodAutoscalerSpec> = {},
  metadata: ObjectMeta = { name: "myautoscaler", namespace: "default" },
): HorizontalPodAutoscaler {
  return { metadata, spec: validSpec(spec) };
}

// Pinned at v1.34: these cases were written for its gates (tolerance alpha and off, minReplicas
// 0 refused without HPAScaleToZero); newer versions' defaults have their own cases.
const DEFAULT_GATES = FeatureGates.defaults("1.34");

function specErrors(
  spec: HorizontalPodAutoscalerSpec,
  gates: FeatureGates = DEFAULT_GATES,
  oldSpec?: HorizontalPodAutoscalerSpec,
): FieldError[] {
  return validateHorizontalPodAutoscalerSpec(spec, {
    featureGates: gates,
    ...(oldSpec ? { old: { metadata: {}, spec: oldSpec } } : {}),
  });
}

interface ErrorCase {
  name: string;
  spec: HorizontalPodAutoscalerSpec;
  gates?: FeatureGates;
  oldSpec?: HorizontalPodAutoscalerSpec;
  /** Exact message of the first error; null = valid. */
  first: string | null;
  type?: FieldError["type"];
  count?: number;
}

function runErrorCases(cases: ErrorCase[]): void {
  for (const c of cases) {
    test(c.name, () => {
      const errs = specErrors(c.spec, c.gates, c.oldSpec);
      if (c.first === null) {
        assert.deepEqual(errs.map(fieldErrorMessage), []);
        return;
      }
      assert.ok(errs.length > 0, "expected errors");
      assert.equal(fieldErrorMessage(errs[0]!), c.first);
      if (c.type) assert.equal(errs[0]!.type, c.type);
      if (c.count !== undefined)
        assert.equal(errs.length, c.count, JSON.stringify(errs.map(fieldErrorMessage)));
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Message format

describe("fieldErrorMessage (field.Error.Error)", () => {
  const cases: Array<{ name: string; error: FieldError; message: string }> = [
    {
      name: "Invalid with an integer",
      error: {
        type: "FieldValueInvalid",
        field: "spec.behavior.scaleUp.policies[0].periodSeconds",
        badValue: -1,
        detail: "must be greater than zero",
      },
      message:
        "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: -1: must be greater than zero",
    },
    {
      name: "Invalid with a string is quoted like Go %q",
      error: {
        type: "FieldValueInvalid",
        field: "metadata.name",
        badValue: 'a"b\\c\n',
        detail: "bad",
      },
      message: 'metadata.name: Invalid value: "a\\"b\\\\c\\n": bad',
    },
    {
      name: "NotSupported with a typed value (JSON)",
      error: {
        type: "FieldValueNotSupported",
        field: "spec.behavior.scaleDown.selectPolicy",
        badValue: "incorrect",
        badValueJSON: true,
        detail: 'supported values: "Disabled", "Max", "Min"',
      },
      message:
        'spec.behavior.scaleDown.selectPolicy: Unsupported value: "incorrect": supported values: "Disabled", "Max", "Min"',
    },
    {
      name: "Required prints no value",
      error: {
        type: "FieldValueRequired",
        field: "spec.behavior.scaleDown.policies",
        badValue: "",
        detail: "must specify at least one Policy",
      },
      message: "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy",
    },
    {
      name: "Required without detail",
      error: {
        type: "FieldValueRequired",
        field: "spec.scaleTargetRef.kind",
        badValue: "",
        detail: "",
      },
      message: "spec.scaleTargetRef.kind: Required value",
    },
    {
      name: "Forbidden prints no value",
      error: { type: "FieldValueForbidden", field: "spec.metrics", badValue: "", detail: "x" },
      message: "spec.metrics: Forbidden: x",
    },
    {
      name: "TooLong prints no value",
      error: {
        type: "FieldValueTooLong",
        field: "metadata.annotations",
        badValue: "<value omitted>",
        detail: "may not be more than 262144 bytes",
      },
      message: "metadata.annotations: Too long: may not be more than 262144 bytes",
    },
    {
      name: "TooMany with an omitted count",
      error: {
        type: "FieldValueTooMany",
        field: "spec.x",
        badValue: OMITTED_VALUE,
        detail: "has too many items",
      },
      message: "spec.x: Too many: has too many items",
    },
    {
      name: "Internal error",
      error: { type: "InternalError", field: "spec", detail: "boom" },
      message: "spec: Internal error: boom",
    },
    {
      name: "a nil value prints null",
      error: {
        type: "FieldValueInvalid",
        field: "metadata.deletionTimestamp",
        badValue: null,
        detail: "field is immutable",
      },
      message: "metadata.deletionTimestamp: Invalid value: null: field is immutable",
    },
    {
      name: "TypeInvalid and Duplicate show their value",
      error: { type: "FieldValueDuplicate", field: "a[1]", badValue: "x", detail: "" },
      message: 'a[1]: Duplicate value: "x"',
    },
    {
      name: "a composite value prints as JSON",
      error: {
        type: "FieldValueInvalid",
        field: "metadata.finalizers",
        badValue: ["orphan", "foregroundDeletion"],
        detail: "d",
      },
      message: 'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: d',
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(fieldErrorMessage(c.error), c.message));
  }
});

describe("goQuote / goJSONString", () => {
  const cases: Array<{ name: string; input: string; quote: string; json: string }> = [
    { name: "plain ASCII", input: "myrc", quote: '"myrc"', json: '"myrc"' },
    {
      name: "HTML characters: JSON escapes them",
      input: "<a&b>",
      quote: '"<a&b>"',
      json: '"\\u003ca\\u0026b\\u003e"',
    },
    {
      name: "control characters",
      input: "\x01\t\x7f",
      quote: '"\\x01\\t\\x7f"',
      json: '"\\u0001\\t\x7f"',
    },
    { name: "printable unicode stays", input: "héllo✓", quote: '"héllo✓"', json: '"héllo✓"' },
    {
      name: "non-printable unicode",
      input: "a\u00a0b\u2028",
      quote: '"a\\u00a0b\\u2028"',
      json: '"a\u00a0b\\u2028"',
    },
    {
      name: "astral non-printable",
      input: "\u{e0001}",
      quote: '"\\U000e0001"',
      json: '"\u{e0001}"',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(goQuote(c.input), c.quote);
      assert.equal(goJSONString(c.input), c.json);
    });
  }

  test("both agree with JSON.stringify on printable ASCII without <>&", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ -~]*$/), (s) => {
        fc.pre(!/[<>&]/.test(s));
        assert.equal(goQuote(s), JSON.stringify(s));
        assert.equal(goJSONString(s), JSON.stringify(s));
      }),
    );
  });
});

describe("name rules", () => {
  const labels: Array<{ name: string; value: string; errors: string[] }> = [
    { name: "a label", value: "test-container", errors: [] },
    { name: "dots", value: "a.b", errors: ["must not contain dots"] },
    {
      name: "upper case",
      value: "Test",
      errors: [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    },
    {
      name: "64 characters",
      value: "a".repeat(64),
      errors: ["must be no more than 63 characters"],
    },
  ];
  for (const c of labels) {
    test(`isDNS1123Label: ${c.name}`, () => assert.deepEqual(isDNS1123Label(c.value), c.errors));
  }

  const qualified: Array<{ name: string; value: string; errors: string[] }> = [
    { name: "plain", value: "app.kubernetes.io/name", errors: [] },
    { name: "empty prefix", value: "/name", errors: ["prefix part must be non-empty"] },
    {
      name: "empty name",
      value: "example.com/",
      errors: [
        "name part must be non-empty",
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    },
    {
      name: "two slashes",
      value: "a/b/c",
      errors: [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    },
  ];
  for (const c of qualified) {
    test(`isQualifiedName: ${c.name}`, () => assert.deepEqual(isQualifiedName(c.value), c.errors));
  }
});

// ---------------------------------------------------------------------------------------------
// Spec: replicas, scaleTargetRef

describe("minReplicas / maxReplicas", () => {
  runErrorCases([
    { name: "valid spec", spec: validSpec(), first: null },
    {
      name: "absent minReplicas is fine (no defaulting)",
      spec: validSpec({ minReplicas: undefined }),
      first: null,
    },
    {
      name: "minReplicas -1",
      spec: validSpec({ minReplicas: -1 }),
      first: "spec.minReplicas: Invalid value: -1: must be greater than or equal to 1",
    },
    {
      name: "minReplicas 0 with scale-to-zero off",
      spec: validSpec({ minReplicas: 0 }),
      first: "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
    },
    {
      name: "minReplicas 0 with the gate on still needs an Object or External metric",
      spec: validSpec({ minReplicas: 0 }),
      gates: DEFAULT_GATES.with({ HPAScaleToZero: true }),
      first:
        "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
      count: 1,
    },
    {
      name: "minReplicas -1 with the gate on",
      spec: validSpec({ minReplicas: -1 }),
      gates: DEFAULT_GATES.with({ HPAScaleToZero: true }),
      first: "spec.minReplicas: Invalid value: -1: must be greater than or equal to 0",
    },
    {
      name: "maxReplicas 0",
      spec: validSpec({ maxReplicas: 0 }),
      first: "spec.maxReplicas: Invalid value: 0: must be greater than 0",
      count: 2,
    },
    {
      name: "maxReplicas absent counts as 0",
      spec: validSpec({ maxReplicas: undefined as unknown as number, minReplicas: undefined }),
      first: "spec.maxReplicas: Invalid value: 0: must be greater than 0",
      count: 1,
    },
    {
      name: "maxReplicas below minReplicas",
      spec: validSpec({ minReplicas: 7, maxReplicas: 5 }),
      first: "spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`",
    },
    {
      name: "update: minReplicas 0 kept from the old object with the gate off",
      spec: validSpec({
        minReplicas: 0,
        metrics: [
          {
            type: "External",
            external: { metric: { name: "queue" }, target: { type: "Value", value: "10" } },
          },
        ],
      }),
      oldSpec: validSpec({
        minReplicas: 0,
        metrics: [
          {
            type: "External",
            external: { metric: { name: "queue" }, target: { type: "Value", value: "10" } },
          },
        ],
      }),
      first: null,
    },
  ]);
});

describe("scaleTargetRef", () => {
  runErrorCases([
    {
      name: "kind missing",
      spec: validSpec({ scaleTargetRef: { kind: "", name: "myrc" } }),
      first: "spec.scaleTargetRef.kind: Required value",
      type: "FieldValueRequired",
    },
    {
      name: "kind '..'",
      spec: validSpec({ scaleTargetRef: { kind: "..", name: "myrc" } }),
      first: `spec.scaleTargetRef.kind: Invalid value: "..": may not be '..'`,
    },
    {
      name: "name missing",
      spec: validSpec({ scaleTargetRef: { kind: "ReplicationController", name: "" } }),
      first: "spec.scaleTargetRef.name: Required value",
    },
    {
      name: "name with '/' and '%' gives two errors",
      spec: validSpec({ scaleTargetRef: { kind: "ReplicationController", name: "a/b%c" } }),
      first: `spec.scaleTargetRef.name: Invalid value: "a/b%c": may not contain '/'`,
      count: 2,
    },
    {
      name: "ReplicationController may omit the apiVersion",
      spec: validSpec({ scaleTargetRef: { kind: "ReplicationController", name: "rc" } }),
      first: null,
    },
    {
      name: "a Deployment needs an API group",
      spec: validSpec({ scaleTargetRef: { kind: "Deployment", name: "web" } }),
      first: `spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group`,
    },
    {
      name: "a Deployment in apps/v1",
      spec: validSpec({
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      }),
      first: null,
    },
    {
      name: "an unparsable apiVersion",
      spec: validSpec({
        scaleTargetRef: { apiVersion: "apps/v1/x", kind: "Deployment", name: "web" },
      }),
      first: `spec.scaleTargetRef.apiVersion: Invalid value: "apps/v1/x": unexpected GroupVersion string: apps/v1/x`,
    },
    {
      name: "update keeping kind and apiVersion skips the apiVersion check",
      spec: validSpec({ scaleTargetRef: { apiVersion: "v1", kind: "Deployment", name: "other" } }),
      oldSpec: validSpec({ scaleTargetRef: { apiVersion: "v1", kind: "Deployment", name: "web" } }),
      first: null,
    },
    {
      name: "update changing the kind checks the apiVersion again",
      spec: validSpec({ scaleTargetRef: { apiVersion: "v1", kind: "StatefulSet", name: "web" } }),
      oldSpec: validSpec({ scaleTargetRef: { apiVersion: "v1", kind: "Deployment", name: "web" } }),
      first: `spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`,
    },
  ]);
});

// ---------------------------------------------------------------------------------------------
// Metrics

function withMetric(
  metric: unknown,
  extra: Partial<HorizontalPodAutoscalerSpec> = {},
): HorizontalPodAutoscalerSpec {
  return validSpec({ metrics: [metric as MetricSpec], ...extra });
}

// The error cases of upstream TestValidateHorizontalPodAutoscaler (first error contains msg).
describe("upstream TestValidateHorizontalPodAutoscaler error cases", () => {
  const cases: Array<{ name: string; spec: HorizontalPodAutoscalerSpec; contains: string }> = [
    {
      name: "resource: kind required",
      spec: validSpec({ scaleTargetRef: { kind: "", name: "myrc" } }),
      contains: "scaleTargetRef.kind: Required",
    },
    {
      name: "resource: both utilization and value",
      spec: withMetric({
        type: "Resource",
        resource: {
          name: "cpu",
          target: { type: "Utilization", averageUtilization: 70, averageValue: "300m" },
        },
      }),
      contains: "may not set both a target raw value and a target utilization",
    },
    {
      name: "container: both utilization and value",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          name: "cpu",
          container: "test-application",
          target: { type: "Utilization", averageUtilization: 70, averageValue: "300m" },
        },
      }),
      contains: "may not set both a target raw value and a target utilization",
    },
    {
      name: "resource: no name",
      spec: withMetric({
        type: "Resource",
        resource: { target: { type: "Utilization", averageUtilization: 70 } },
      }),
      contains: "must specify a resource name",
    },
    {
      name: "container: no name",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          container: "test-application",
          target: { type: "Utilization", averageUtilization: 70 },
        },
      }),
      contains: "must specify a resource name",
    },
    {
      name: "container: invalid resource name",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          name: "InvalidResource",
          container: "test-application",
          target: { type: "Utilization", averageUtilization: 70 },
        },
      }),
      contains:
        'Invalid value: "InvalidResource": must be a standard resource type or fully qualified',
    },
    {
      name: "resource: utilization -10",
      spec: withMetric({
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: -10 } },
      }),
      contains: "must be greater than 0",
    },
    {
      name: "container: no container",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          name: "cpu",
          target: { type: "Utilization", averageUtilization: -10 },
        },
      }),
      contains: "must specify a container",
    },
    {
      name: "container: invalid container name",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          name: "cpu",
          container: "---***",
          target: { type: "Utilization", averageUtilization: -10 },
        },
      }),
      contains: 'Invalid value: "---***"',
    },
    {
      name: "resource: Value type without values",
      spec: withMetric({ type: "Resource", resource: { name: "cpu", target: { type: "Value" } } }),
      contains: "must set either a target raw value or a target utilization",
    },
    {
      name: "pods: no metric name",
      spec: withMetric({
        type: "Pods",
        pods: { metric: {}, target: { type: "Value", averageValue: "100m" } },
      }),
      contains: "must specify a metric name",
    },
    {
      name: "pods: no averageValue",
      spec: withMetric({
        type: "Pods",
        pods: { metric: { name: "somemetric" }, target: { type: "Value" } },
      }),
      contains: "must specify a positive target averageValue",
    },
    {
      name: "object: no value",
      spec: withMetric({
        type: "Object",
        object: {
          describedObject: { kind: "ReplicationController", name: "myrc" },
          metric: { name: "somemetric" },
          target: { type: "Value" },
        },
      }),
      contains: "must set either a target value or averageValue",
    },
    {
      name: "object: describedObject kind",
      spec: withMetric({
        type: "Object",
        object: {
          describedObject: { name: "myrc" },
          metric: { name: "somemetric" },
          target: { type: "Value", value: "100m" },
        },
      }),
      contains: "object.describedObject.kind: Required",
    },
    {
      name: "object: no metric name",
      spec: withMetric({
        type: "Object",
        object: {
          describedObject: { kind: "ReplicationController", name: "myrc" },
          target: { type: "Value", value: "100m" },
        },
      }),
      contains: "must specify a metric name",
    },
    {
      name: "external: no metric name",
      spec: withMetric({
        type: "External",
        external: {
          metric: { selector: { matchLabels: { label: "value" } } },
          target: { type: "Value", value: "300m" },
        },
      }),
      contains: "must specify a metric name",
    },
    {
      name: "external: metric name with '/'",
      spec: withMetric({
        type: "External",
        external: { metric: { name: "foo/../" }, target: { type: "Value", value: "300m" } },
      }),
      contains: "'/'",
    },
    {
      name: "external: no value",
      spec: withMetric({
        type: "External",
        external: { metric: { name: "somemetric" }, target: { type: "Value" } },
      }),
      contains: "must set either a target value for metric or a per-pod target",
    },
    {
      name: "external: negative value",
      spec: withMetric({
        type: "External",
        external: { metric: { name: "somemetric" }, target: { type: "Value", value: "-300m" } },
      }),
      contains: "must be positive",
    },
    {
      name: "external: negative averageValue",
      spec: withMetric({
        type: "External",
        external: {
          metric: { name: "somemetric" },
          target: { type: "Value", averageValue: "-300m" },
        },
      }),
      contains: "must be positive",
    },
    {
      name: "external: value and averageValue",
      spec: withMetric({
        type: "External",
        external: {
          metric: { name: "somemetric" },
          target: { type: "Value", value: "300m", averageValue: "300m" },
        },
      }),
      contains: "may not set both a target value for metric and a per-pod target",
    },
    {
      name: "external: unknown target type",
      spec: withMetric({
        type: "External",
        external: { metric: { name: "somemetric" }, target: { type: "boogity", value: "300m" } },
      }),
      contains: "must be either Utilization, Value, or AverageValue",
    },
    {
      name: "external: no target type",
      spec: withMetric({
        type: "External",
        external: { metric: { name: "somemetric" }, target: { value: "300m" } },
      }),
      contains: "must specify a metric target type",
    },
    {
      name: "external: no target",
      spec: withMetric({ type: "External", external: { metric: { name: "somemetric" } } }),
      contains: "must specify a metric target",
    },
    { name: "empty metric", spec: withMetric({}), contains: "must specify a metric source type" },
    {
      name: "unknown metric type",
      spec: withMetric({ type: "InvalidType" }),
      contains: "type: Unsupported value",
    },
    {
      name: "two sources",
      spec: withMetric({
        type: "Resource",
        resource: { name: "cpu", target: { type: "AverageValue", averageValue: "100m" } },
        pods: {
          metric: { name: "somemetric" },
          target: { type: "AverageValue", averageValue: "100m" },
        },
      }),
      contains: "must populate the given metric source only",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const errs = specErrors(c.spec);
      assert.ok(errs.length > 0, "expected errors");
      const first = fieldErrorMessage(errs[0]!);
      assert.ok(first.includes(c.contains), `${first} lacks ${c.contains}`);
    });
  }

  // Every source with another source's type: the expected source is required.
  const sources: Record<string, Record<string, unknown>> = {
    Resource: { resource: { name: "cpu", target: { type: "AverageValue", averageValue: "100m" } } },
    ContainerResource: {
      containerResource: {
        name: "cpu",
        container: "test-application",
        target: { type: "AverageValue", averageValue: "100m" },
      },
    },
    Pods: {
      pods: {
        metric: { name: "somemetric" },
        target: { type: "AverageValue", averageValue: "100m" },
      },
    },
    Object: {
      object: {
        describedObject: { kind: "ReplicationController", name: "myrc" },
        metric: { name: "somemetric" },
        target: { type: "Value", value: "100m" },
      },
    },
    External: {
      external: { metric: { name: "somemetric" }, target: { type: "Value", value: "100m" } },
    },
  };
  const fieldOf: Record<string, string> = {
    Resource: "resource",
    ContainerResource: "containerResource",
    Pods: "pods",
    Object: "object",
    External: "external",
  };
  for (const [correct, source] of Object.entries(sources)) {
    for (const wrong of Object.keys(sources)) {
      if (wrong === correct) continue;
      test(`a ${correct} source with type ${wrong}`, () => {
        const errs = specErrors(withMetric({ type: wrong, ...source }));
        assert.deepEqual(errs.map(fieldErrorMessage), [
          `spec.metrics[0].${fieldOf[wrong]}: Required value: must populate information for the given metric source`,
        ]);
      });
    }
    test(`a ${correct} source with its own type is valid`, () => {
      assert.deepEqual(
        specErrors(withMetric({ type: correct, ...source })).map(fieldErrorMessage),
        [],
      );
    });
  }
});

describe("metric sources and targets (exact messages)", () => {
  runErrorCases([
    {
      name: "Resource with AverageValue is valid",
      spec: withMetric({
        type: "Resource",
        resource: { name: "memory", target: { type: "AverageValue", averageValue: "256Mi" } },
      }),
      first: null,
    },
    {
      name: "Resource: a zero averageValue (JSON-quoted quantity)",
      spec: withMetric({
        type: "Resource",
        resource: { name: "cpu", target: { type: "AverageValue", averageValue: "0" } },
      }),
      first: 'spec.metrics[0].resource.target.averageValue: Invalid value: "0": must be positive',
      count: 1,
    },
    {
      name: "Resource: averageUtilization 0",
      spec: withMetric({
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 0 } },
      }),
      first:
        "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
    },
    {
      name: "Resource: no target at all",
      spec: withMetric({ type: "Resource", resource: { name: "cpu" } }),
      first:
        "spec.metrics[0].resource.target.type: Required value: must specify a metric target type",
      count: 3,
    },
    {
      name: "Resource: unknown target type is a typed (JSON) value",
      spec: withMetric({
        type: "Resource",
        resource: { name: "cpu", target: { type: "Percent", averageUtilization: 50 } },
      }),
      first:
        'spec.metrics[0].resource.target.type: Invalid value: "Percent": must be either Utilization, Value, or AverageValue',
    },
    {
      name: "Resource: the target type is not matched against the fields (upstream)",
      spec: withMetric({
        type: "Resource",
        resource: { name: "cpu", target: { type: "Value", averageUtilization: 50 } },
      }),
      first: null,
    },
    {
      name: "ContainerResource with Utilization is valid",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          name: "cpu",
          container: "app",
          target: { type: "Utilization", averageUtilization: 60 },
        },
      }),
      first: null,
    },
    {
      name: "ContainerResource: container name with dots",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          name: "cpu",
          container: "app.v1",
          target: { type: "Utilization", averageUtilization: 60 },
        },
      }),
      first:
        'spec.metrics[0].containerResource.container: Invalid value: "app.v1": must not contain dots',
    },
    {
      name: "ContainerResource: an invalid resource name also fails the container check",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          name: "InvalidResource",
          container: "app",
          target: { type: "Utilization", averageUtilization: 60 },
        },
      }),
      first:
        'spec.metrics[0].containerResource.name: Invalid value: "InvalidResource": must be a standard resource type or fully qualified',
      count: 2,
    },
    {
      name: "ContainerResource: pods is standard but not a container resource",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          name: "pods",
          container: "app",
          target: { type: "AverageValue", averageValue: "1" },
        },
      }),
      first:
        'spec.metrics[0].containerResource.name: Invalid value: "pods": must be a standard resource for containers',
      count: 1,
    },
    {
      name: "ContainerResource: hugepages and extended resources are accepted",
      spec: validSpec({
        metrics: [
          {
            type: "ContainerResource",
            containerResource: {
              name: "hugepages-2Mi",
              container: "app",
              target: { type: "AverageValue", averageValue: "1" },
            },
          },
          {
            type: "ContainerResource",
            containerResource: {
              name: "example.com/gpu",
              container: "app",
              target: { type: "AverageValue", averageValue: "1" },
            },
          },
        ],
      }),
      first: null,
    },
    {
      name: "ContainerResource: a requests.-prefixed extended name is not an extended resource",
      spec: withMetric({
        type: "ContainerResource",
        containerResource: {
          name: "requests.example.com/gpu",
          container: "app",
          target: { type: "AverageValue", averageValue: "1" },
        },
      }),
      first: `spec.metrics[0].containerResource.name: Invalid value: "requests.example.com/gpu": doesn't follow extended resource name standard`,
    },
    {
      name: "Pods with AverageValue is valid",
      spec: withMetric({
        type: "Pods",
        pods: {
          metric: { name: "packets-per-second" },
          target: { type: "AverageValue", averageValue: "1k" },
        },
      }),
      first: null,
    },
    {
      name: "Pods: a negative averageValue prints its canonical form",
      spec: withMetric({
        type: "Pods",
        pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "-0.5" } },
      }),
      // ParseQuantity keeps the input text only when it is canonical; "-0.5" prints as "-500m".
      first: 'spec.metrics[0].pods.target.averageValue: Invalid value: "-500m": must be positive',
    },
    {
      name: "Pods: a metric name '.'",
      spec: withMetric({
        type: "Pods",
        pods: { metric: { name: "." }, target: { type: "AverageValue", averageValue: "1" } },
      }),
      first: `spec.metrics[0].pods.metric.name: Invalid value: ".": may not be '.'`,
    },
    {
      name: "Pods: a malformed quantity",
      spec: withMetric({
        type: "Pods",
        pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "ten" } },
      }),
      first: `spec.metrics[0].pods.target.averageValue: Invalid value: "ten": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    },
    {
      name: "Object with AverageValue is valid",
      spec: withMetric({
        type: "Object",
        object: {
          describedObject: { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "main" },
          metric: { name: "rps" },
          target: { type: "AverageValue", averageValue: "10" },
        },
      }),
      first: null,
    },
    {
      name: "Object: a core describedObject without a group is fine",
      spec: withMetric({
        type: "Object",
        object: {
          describedObject: { apiVersion: "v1", kind: "Service", name: "svc" },
          metric: { name: "rps" },
          target: { type: "Value", value: "10" },
        },
      }),
      first: null,
    },
    {
      name: "Object: an unparsable describedObject apiVersion",
      spec: withMetric({
        type: "Object",
        object: {
          describedObject: { apiVersion: "a/b/c", kind: "Service", name: "svc" },
          metric: { name: "rps" },
          target: { type: "Value", value: "10" },
        },
      }),
      first: `spec.metrics[0].object.describedObject.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
    },
    {
      name: "Object: update keeps an already invalid describedObject apiVersion",
      spec: withMetric({
        type: "Object",
        object: {
          describedObject: { apiVersion: "a/b/c", kind: "Service", name: "svc" },
          metric: { name: "rps" },
          target: { type: "Value", value: "20" },
        },
      }),
      oldSpec: withMetric({
        type: "Object",
        object: {
          describedObject: { apiVersion: "a/b/c", kind: "Service", name: "svc" },
          metric: { name: "rps" },
          target: { type: "Value", value: "10" },
        },
      }),
      first: null,
    },
    {
      name: "External with AverageValue is valid",
      spec: withMetric({
        type: "External",
        external: {
          metric: { name: "queue_depth", selector: { matchLabels: { queue: "jobs" } } },
          target: { type: "AverageValue", averageValue: "30" },
        },
      }),
      first: null,
    },
    {
      name: "External: the metric selector is not validated (upstream)",
      spec: withMetric({
        type: "External",
        external: {
          metric: {
            name: "q",
            selector: { matchExpressions: [{ key: "bad key!", operator: "Near" }] },
          },
          target: { type: "Value", value: "1" },
        },
      }),
      first: null,
    },
    {
      name: "an empty metric type: required, then unsupported twice (as upstream)",
      spec: withMetric({
        type: "",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
      }),
      first: "spec.metrics[0].type: Required value: must specify a metric source type",
      count: 3,
    },
    {
      name: "an unknown metric type",
      spec: withMetric({ type: "Custom" }),
      first:
        'spec.metrics[0].type: Unsupported value: "Custom": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
      count: 2,
    },
    {
      name: "three sources: only the first is validated, the others are forbidden",
      spec: withMetric({
        type: "Pods",
        object: {
          describedObject: { kind: "Service", name: "svc" },
          metric: { name: "m" },
          target: { type: "Value", value: "1" },
        },
        pods: { metric: { name: "m" }, target: { type: "AverageValue", averageValue: "-1" } },
        external: { metric: { name: "m" }, target: { type: "Value", value: "1" } },
      }),
      first: "spec.metrics[0].object: Forbidden: must populate the given metric source only",
      count: 2,
    },
    {
      name: "the metrics index is part of the path",
      spec: validSpec({
        metrics: [
          cpu70,
          {
            type: "Pods",
            pods: { metric: { name: "" }, target: { type: "AverageValue", averageValue: "1" } },
          },
        ],
      }),
      first: "spec.metrics[1].pods.metric.name: Required value: must specify a metric name",
    },
  ]);
});

// ---------------------------------------------------------------------------------------------
// Behavior and tolerance

function withScaleUp(rules: unknown): HorizontalPodAutoscalerSpec {
  return validSpec({ behavior: { scaleUp: rules as never } });
}

const onePolicy = [{ type: "Pods", value: 1, periodSeconds: 60 }];

describe("behavior", () => {
  runErrorCases([
    {
      name: "negative window",
      spec: withScaleUp({ stabilizationWindowSeconds: -1, policies: onePolicy }),
      first:
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero",
    },
    {
      name: "window 3600 and period 1800 are the maxima",
      spec: withScaleUp({
        stabilizationWindowSeconds: 3600,
        policies: [{ type: "Percent", value: 1, periodSeconds: 1800 }],
      }),
      first: null,
    },
    {
      name: "period 1801",
      spec: withScaleUp({ policies: [{ type: "Pods", value: 7, periodSeconds: 1801 }] }),
      first:
        "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
    },
    {
      name: "unknown policy type",
      spec: withScaleUp({ policies: [{ type: "hm", value: 7, periodSeconds: 8 }] }),
      first:
        'spec.behavior.scaleUp.policies[0].type: Unsupported value: "hm": supported values: "Percent", "Pods"',
    },
    {
      name: "empty policy object: type, value and period",
      spec: withScaleUp({ policies: [{}] }),
      first:
        'spec.behavior.scaleUp.policies[0].type: Unsupported value: "": supported values: "Percent", "Pods"',
      count: 3,
    },
    {
      name: "an explicitly empty policy list",
      spec: validSpec({ behavior: { scaleDown: { policies: [] } } }),
      first: "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy",
    },
    {
      name: "scaleUp errors come before scaleDown errors",
      spec: validSpec({
        behavior: {
          scaleDown: { policies: [] },
          scaleUp: { selectPolicy: "Fast", policies: onePolicy },
        },
      }),
      first:
        'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Fast": supported values: "Disabled", "Max", "Min"',
      count: 2,
    },
    {
      name: "behavior errors come after metric errors",
      spec: validSpec({ metrics: [{ type: "Pods" }], behavior: { scaleUp: {} } }),
      first:
        "spec.metrics[0].pods: Required value: must populate information for the given metric source",
      count: 2,
    },
  ]);
});

describe("tolerance", () => {
  const on = DEFAULT_GATES.with({ HPAConfigurableTolerance: true });
  runErrorCases([
    {
      name: "gate off (v1.34 default): a new tolerance is forbidden",
      spec: withScaleUp({ policies: onePolicy, tolerance: "1m" }),
      first:
        "spec.behavior.scaleUp.tolerance: Forbidden: tolerance is not supported when the HPAConfigurableTolerance feature gate is not enabled",
      type: "FieldValueForbidden",
      count: 1,
    },
    {
      name: "gate off: kept on update when the old object had a tolerance",
      spec: withScaleUp({ policies: onePolicy, tolerance: "20m" }),
      oldSpec: validSpec({ behavior: { scaleDown: { policies: onePolicy, tolerance: "10m" } } }),
      first: null,
    },
    {
      name: "gate off: removing the tolerance on update is fine",
      spec: withScaleUp({ policies: onePolicy }),
      oldSpec: withScaleUp({ policies: onePolicy, tolerance: "10m" }),
      first: null,
    },
    {
      name: "gate on: zero is allowed",
      spec: withScaleUp({ policies: onePolicy, tolerance: "0" }),
      gates: on,
      first: null,
    },
    {
      name: "gate on: a number is read as a quantity",
      spec: withScaleUp({ policies: onePolicy, tolerance: 0.05 }),
      gates: on,
      first: null,
    },
    {
      name: "gate on: negative",
      spec: withScaleUp({ policies: onePolicy, tolerance: "-0.001" }),
      gates: on,
      first:
        'spec.behavior.scaleUp.tolerance: Invalid value: "-1m": must be greater or equal to zero',
      count: 1,
    },
    {
      name: "gate off and negative: both errors",
      spec: validSpec({ behavior: { scaleDown: { policies: onePolicy, tolerance: "-1" } } }),
      first:
        "spec.behavior.scaleDown.tolerance: Forbidden: tolerance is not supported when the HPAConfigurableTolerance feature gate is not enabled",
      count: 2,
    },
    {
      name: "gate on: a tolerance without policies only reports the policies",
      spec: withScaleUp({ tolerance: "1m", stabilizationWindowSeconds: 60 }),
      gates: on,
      first: "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
      count: 1,
    },
  ]);

  const drops: Array<{ name: string; gates: FeatureGates; oldTolerance: boolean; kept: boolean }> =
    [
      { name: "gate on keeps it", gates: on, oldTolerance: false, kept: true },
      { name: "gate off drops a new one", gates: DEFAULT_GATES, oldTolerance: false, kept: false },
      {
        name: "gate off keeps it when already in use",
        gates: DEFAULT_GATES,
        oldTolerance: true,
        kept: true,
      },
    ];
  for (const c of drops) {
    test(`dropDisabledHorizontalPodAutoscalerFields: ${c.name}`, () => {
      const hpa = validHPA({ behavior: { scaleUp: { policies: onePolicy, tolerance: "5m" } } });
      const old = validHPA(
        c.oldTolerance ? { behavior: { scaleDown: { policies: onePolicy, tolerance: "1m" } } } : {},
      );
      const out = dropDisabledHorizontalPodAutoscalerFields(hpa, old, c.gates);
      assert.equal(out.spec.behavior?.scaleUp?.tolerance, c.kept ? "5m" : undefined);
      assert.equal(hpa.spec.behavior?.scaleUp?.tolerance, "5m", "input unchanged");
    });
  }
});

describe("validation options (registry strategy)", () => {
  const cases: Array<{
    name: string;
    spec: HorizontalPodAutoscalerSpec;
    oldSpec?: HorizontalPodAutoscalerSpec;
    gates?: FeatureGates;
    expect: ReturnType<typeof horizontalPodAutoscalerSpecValidationOptions>;
  }> = [
    {
      name: "create, Deployment",
      spec: validSpec({ scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "d" } }),
      expect: {
        minReplicasLowerBound: 1,
        scaleTargetRefValidationOptions: {
          allowEmptyAPIGroup: false,
          allowInvalidAPIVersion: false,
        },
        objectMetricsValidationOptions: { allowEmptyAPIGroup: true, allowInvalidAPIVersion: false },
        allowTolerance: false,
      },
    },
    {
      name: "create, ReplicationController, all gates on",
      spec: validSpec(),
      gates: DEFAULT_GATES.with({ HPAScaleToZero: true, HPAConfigurableTolerance: true }),
      expect: {
        minReplicasLowerBound: 0,
        scaleTargetRefValidationOptions: {
          allowEmptyAPIGroup: true,
          allowInvalidAPIVersion: false,
        },
        objectMetricsValidationOptions: { allowEmptyAPIGroup: true, allowInvalidAPIVersion: false },
        allowTolerance: true,
      },
    },
    {
      name: "update with an unchanged target and an old invalid Object metric",
      spec: validSpec({ minReplicas: 1 }),
      oldSpec: validSpec({
        minReplicas: 0,
        metrics: [
          {
            type: "Object",
            object: {
              describedObject: { apiVersion: "apps/v1/v2", kind: "Deployment", name: "d" },
              metric: { name: "m" },
              target: { type: "Value", value: "1" },
            },
          },
        ],
      }),
      expect: {
        minReplicasLowerBound: 0,
        scaleTargetRefValidationOptions: {
          allowEmptyAPIGroup: false,
          allowInvalidAPIVersion: true,
        },
        objectMetricsValidationOptions: { allowEmptyAPIGroup: true, allowInvalidAPIVersion: true },
        allowTolerance: false,
      },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(
        horizontalPodAutoscalerSpecValidationOptions(c.spec, c.oldSpec, c.gates ?? DEFAULT_GATES),
        c.expect,
      );
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Whole object: metadata, update, status

describe("validateHorizontalPodAutoscaler (metadata + spec)", () => {
  const cases: Array<{
    name: string;
    metadata: ObjectMeta;
    spec?: Partial<HorizontalPodAutoscalerSpec>;
    first: string | null;
  }> = [
    { name: "valid", metadata: { name: "web", namespace: "default" }, first: null },
    {
      name: "name required",
      metadata: { namespace: "default" },
      first: "metadata.name: Required value: name or generateName is required",
    },
    {
      name: "name not a DNS subdomain",
      metadata: { name: "My_HPA", namespace: "default" },
      first:
        "metadata.name: Invalid value: \"My_HPA\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    },
    {
      name: "dots are fine in a subdomain name",
      metadata: { name: "web.v2", namespace: "default" },
      first: null,
    },
    {
      name: "name of 254 characters",
      metadata: { name: "a".repeat(254), namespace: "default" },
      first: `metadata.name: Invalid value: "${"a".repeat(254)}": must be no more than 253 characters`,
    },
    {
      name: "a generateName prefix may end with '-'",
      metadata: { generateName: "web-", name: "web-x1", namespace: "default" },
      first: null,
    },
    {
      name: "namespace required",
      metadata: { name: "web" },
      first: "metadata.namespace: Required value",
    },
    {
      name: "namespace must be a label",
      metadata: { name: "web", namespace: "a.b" },
      first: 'metadata.namespace: Invalid value: "a.b": must not contain dots',
    },
    {
      name: "negative generation",
      metadata: { name: "web", namespace: "default", generation: -1 },
      first: "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
    },
    {
      name: "bad label value",
      metadata: { name: "web", namespace: "default", labels: { app: "-x" } },
      first:
        "metadata.labels: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    },
    {
      name: "bad annotation key",
      metadata: { name: "web", namespace: "default", annotations: { "a/b/c": "x" } },
      first:
        "metadata.annotations: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    },
    {
      name: "annotations over 256 KiB",
      metadata: { name: "web", namespace: "default", annotations: { big: "x".repeat(262144) } },
      first: "metadata.annotations: Too long: may not be more than 262144 bytes",
    },
    {
      name: "owner reference without uid",
      metadata: {
        name: "web",
        namespace: "default",
        ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "" }],
      },
      first: 'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    },
    {
      name: "non-standard finalizer without a domain",
      metadata: { name: "web", namespace: "default", finalizers: ["cleanup"] },
      first:
        'metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified',
    },
    {
      name: "metadata errors come before spec errors",
      metadata: { name: "", namespace: "default" },
      spec: { maxReplicas: 0 },
      first: "metadata.name: Required value: name or generateName is required",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const errs = validateHorizontalPodAutoscaler(validHPA(c.spec, c.metadata), {
        featureGates: DEFAULT_GATES,
      });
      if (c.first === null) assert.deepEqual(errs.map(fieldErrorMessage), []);
      else assert.equal(errs[0] && fieldErrorMessage(errs[0]), c.first);
    });
  }
});

describe("validateHorizontalPodAutoscalerUpdate", () => {
  const old = validHPA(
    {},
    { name: "web", namespace: "default", resourceVersion: "7", uid: "u-1", generation: 3 },
  );
  const cases: Array<{
    name: string;
    metadata: ObjectMeta;
    spec?: Partial<HorizontalPodAutoscalerSpec>;
    oldMeta?: ObjectMeta;
    first: string | null;
  }> = [
    {
      name: "valid update",
      metadata: { ...old.metadata, resourceVersion: "7" },
      spec: { maxReplicas: 9 },
      first: null,
    },
    {
      name: "resourceVersion required",
      metadata: { name: "web", namespace: "default", uid: "u-1", generation: 3 },
      first: 'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    },
    {
      name: "generation decremented",
      metadata: { ...old.metadata, generation: 2 },
      first: "metadata.generation: Invalid value: 2: must not be decremented",
    },
    {
      name: "name is immutable",
      metadata: { ...old.metadata, name: "web2" },
      first: 'metadata.name: Invalid value: "web2": field is immutable',
    },
    {
      name: "uid is immutable",
      metadata: { ...old.metadata, uid: "u-2" },
      first: 'metadata.uid: Invalid value: "u-2": field is immutable',
    },
    {
      name: "no new finalizers while deleting",
      oldMeta: { ...old.metadata, deletionTimestamp: "2025-01-01T00:00:00Z" },
      metadata: {
        ...old.metadata,
        deletionTimestamp: "2025-01-01T00:00:00Z",
        finalizers: ["example.com/x"],
      },
      first:
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/x"}',
    },
    {
      name: "spec rules apply on update",
      metadata: old.metadata,
      spec: { maxReplicas: 0 },
      first: "spec.maxReplicas: Invalid value: 0: must be greater than 0",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const before = { ...old, metadata: c.oldMeta ?? old.metadata };
      const errs = validateHorizontalPodAutoscalerUpdate(validHPA(c.spec, c.metadata), before, {
        featureGates: DEFAULT_GATES,
      });
      if (c.first === null) assert.deepEqual(errs.map(fieldErrorMessage), []);
      else assert.equal(errs[0] && fieldErrorMessage(errs[0]), c.first);
    });
  }

  test("validateHorizontalPodAutoscaler with `old` runs the update rules", () => {
    const errs = validateHorizontalPodAutoscaler(
      validHPA({}, { name: "web", namespace: "default" }),
      { featureGates: DEFAULT_GATES, old },
    );
    assert.equal(errs[0]?.field, "metadata.resourceVersion");
  });
});

describe("validateHorizontalPodAutoscalerStatusUpdate", () => {
  const meta = { name: "web", namespace: "default", resourceVersion: "1" };
  const cases: Array<{
    name: string;
    status: { currentReplicas?: number; desiredReplicas: number };
    messages: string[];
  }> = [
    { name: "valid", status: { currentReplicas: 2, desiredReplicas: 3 }, messages: [] },
    {
      name: "negative counts",
      status: { currentReplicas: -1, desiredReplicas: -2 },
      messages: [
        "status.currentReplicas: Invalid value: -1: must be greater than or equal to 0",
        "status.desiredReplicas: Invalid value: -2: must be greater than or equal to 0",
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const hpa = { ...validHPA({}, meta), status: c.status };
      assert.deepEqual(
        validateHorizontalPodAutoscalerStatusUpdate(hpa, validHPA({}, meta)).map(fieldErrorMessage),
        c.messages,
      );
    });
  }
});

describe("validateSpecForConformance", () => {
  test("rejects an unknown gate", () => {
    assert.throws(
      () =>
        validateSpecForConformance(validSpec(), {
          featureGates: { Nope: true },
          operation: "create",
          version: "1.34",
        }),
      {
        message: "unrecognized feature gate: Nope",
      },
    );
  });
  test("an update needs an old spec", () => {
    assert.throws(
      () =>
        validateSpecForConformance(validSpec(), {
          featureGates: {},
          operation: "update",
          version: "1.34",
        }),
      TypeError,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

describe("validation properties", () => {
  const policy = fc.record({
    type: fc.constantFrom("Pods", "Percent"),
    value: fc.integer({ min: 1, max: 1000 }),
    periodSeconds: fc.integer({ min: 1, max: 1800 }),
  });
  const rules = fc.option(
    fc.record({
      stabilizationWindowSeconds: fc.integer({ min: 0, max: 3600 }),
      selectPolicy: fc.constantFrom("Max", "Min", "Disabled"),
      policies: fc.array(policy, { minLength: 1, maxLength: 3 }),
    }),
  );
  const metric = fc.oneof(
    fc.integer({ min: 1, max: 200 }).map((u) => ({
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: u } },
    })),
    fc.integer({ min: 1, max: 10_000 }).map((v) => ({
      type: "Pods",
      pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: `${v}m` } },
    })),
    fc.integer({ min: 1, max: 10_000 }).map((v) => ({
      type: "External",
      external: { metric: { name: "queue" }, target: { type: "Value", value: String(v) } },
    })),
  );
  const validSpecs = fc
    .record({
      minReplicas: fc.integer({ min: 1, max: 10 }),
      extra: fc.integer({ min: 0, max: 10 }),
      metrics: fc.array(metric, { maxLength: 4 }),
      scaleUp: rules,
      scaleDown: rules,
    })
    .map(
      (r) =>
        structuredClone({
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
          minReplicas: r.minReplicas,
          maxReplicas: r.minReplicas + r.extra,
          metrics: r.metrics,
          behavior: { scaleUp: r.scaleUp, scaleDown: r.scaleDown },
        }) as HorizontalPodAutoscalerSpec,
    );

  test("specs inside every range are valid", () => {
    fc.assert(
      fc.property(validSpecs, (s) => assert.deepEqual(specErrors(s).map(fieldErrorMessage), [])),
    );
  });

  test("validation never mutates its input", () => {
    fc.assert(
      fc.property(validSpecs, fc.integer({ min: -5, max: 0 }), (s, bad) => {
        const spec = { ...s, maxReplicas: bad };
        const before = structuredClone(spec);
        specErrors(spec);
        assert.deepEqual(spec, before);
      }),
    );
  });

  test("a maxReplicas below 1 is always the first spec error, whatever else is wrong", () => {
    fc.assert(
      fc.property(validSpecs, fc.integer({ min: -100, max: 0 }), (s, bad) => {
        const errs = specErrors({
          ...s,
          minReplicas: undefined,
          maxReplicas: bad,
          behavior: { scaleUp: {} },
        });
        assert.equal(
          fieldErrorMessage(errs[0]!),
          `spec.maxReplicas: Invalid value: ${bad}: must be greater than 0`,
        );
      }),
    );
  });

  test("every message starts with its field path", () => {
    fc.assert(
      fc.property(validSpecs, fc.integer({ min: -10, max: 0 }), (s, bad) => {
        const spec = { ...s, minReplicas: bad, metrics: [{ type: "Pods" } as MetricSpec] };
        for (const e of specErrors(spec))
          assert.ok(fieldErrorMessage(e).startsWith(`${e.field}: `));
      }),
    );
  });
});
