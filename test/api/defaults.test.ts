import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  DEFAULT_SCALE_DOWN_RULES,
  DEFAULT_SCALE_UP_RULES,
  defaultScalingRulesForConformance,
  generateScaleDownRules,
  generateScaleUpRules,
  setDefaultsHorizontalPodAutoscaler,
} from "../../src/api/defaults.js";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HPAScalingRules,
} from "../../src/api/types.js";

interface DefaultingVector {
  id: string;
  direction: "scaleUp" | "scaleDown";
  input: unknown;
  expect: {
    policies: unknown[];
    stabilizationWindowSeconds: number | null;
    selectPolicy: string;
  };
}

const fixture = JSON.parse(
  readFileSync(
    new URL("../fixtures/conformance/behavior-defaulting.json", import.meta.url),
    "utf8",
  ),
) as { suite: string; vectors: DefaultingVector[] };

describe("behavior-defaulting.json conformance vectors", () => {
  test("the fixture is the behaviorDefaulting suite", () => {
    assert.equal(fixture.suite, "behaviorDefaulting");
    assert.ok(fixture.vectors.length > 0);
  });
  for (const v of fixture.vectors) {
    test(v.id, () => {
      const got = defaultScalingRulesForConformance(v.direction, v.input);
      assert.deepEqual(got.policies, v.expect.policies);
      // null in the vectors means "left unset".
      assert.equal(got.stabilizationWindowSeconds ?? null, v.expect.stabilizationWindowSeconds);
      assert.equal(got.selectPolicy, v.expect.selectPolicy);
    });
  }
});

const DEFAULT_UP = {
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [
    { type: "Pods", value: 4, periodSeconds: 15 },
    { type: "Percent", value: 100, periodSeconds: 15 },
  ],
};
const DEFAULT_DOWN = {
  selectPolicy: "Max",
  policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
};

describe("generateScaleUpRules / generateScaleDownRules", () => {
  const cases: Array<{
    name: string;
    generate: (r?: HPAScalingRules | null) => HPAScalingRules;
    input: HPAScalingRules | null | undefined;
    expect: HPAScalingRules;
  }> = [
    {
      name: "up: nil rules give the defaults",
      generate: generateScaleUpRules,
      input: null,
      expect: DEFAULT_UP,
    },
    {
      name: "down: nil rules give the defaults, window unset",
      generate: generateScaleDownRules,
      input: undefined,
      expect: DEFAULT_DOWN,
    },
    {
      name: "up: JSON nulls count as unset",
      generate: generateScaleUpRules,
      input: {
        selectPolicy: null,
        stabilizationWindowSeconds: null,
        policies: null,
        tolerance: null,
      },
      expect: DEFAULT_UP,
    },
    {
      name: "down: an explicit window 0 is kept",
      generate: generateScaleDownRules,
      input: { stabilizationWindowSeconds: 0 },
      expect: { ...DEFAULT_DOWN, stabilizationWindowSeconds: 0 },
    },
    {
      name: "up: an explicitly empty policy list is kept (validation rejects it later)",
      generate: generateScaleUpRules,
      input: { policies: [] },
      expect: { ...DEFAULT_UP, policies: [] },
    },
    {
      name: "down: policies are replaced as a whole, never merged",
      generate: generateScaleDownRules,
      input: { policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] },
      expect: { ...DEFAULT_DOWN, policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] },
    },
    {
      name: "up: tolerance is copied when set",
      generate: generateScaleUpRules,
      input: { tolerance: "50m" },
      expect: { ...DEFAULT_UP, tolerance: "50m" },
    },
    {
      name: "down: selectPolicy Disabled is kept",
      generate: generateScaleDownRules,
      input: { selectPolicy: "Disabled" },
      expect: { ...DEFAULT_DOWN, selectPolicy: "Disabled" },
    },
    {
      name: "up: an invalid selectPolicy is copied as is",
      generate: generateScaleUpRules,
      input: { selectPolicy: "" },
      expect: { ...DEFAULT_UP, selectPolicy: "" },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(c.generate(c.input), c.expect);
    });
  }

  test("the result never aliases the default constants", () => {
    const rules = generateScaleUpRules(null);
    rules.policies![0]!.value = 99;
    assert.equal(DEFAULT_SCALE_UP_RULES.policies![0]!.value, 4);
    assert.equal(generateScaleUpRules(null).policies![0]!.value, 4);
  });

  test("the default constants are frozen", () => {
    assert.ok(Object.isFrozen(DEFAULT_SCALE_DOWN_RULES));
    assert.ok(Object.isFrozen(DEFAULT_SCALE_DOWN_RULES.policies));
  });

  test("conformance entry point rejects a non-object and an unknown direction", () => {
    assert.throws(() => defaultScalingRulesForConformance("scaleUp", 3), TypeError);
    assert.throws(() => defaultScalingRulesForConformance("sideways" as "scaleUp", {}), TypeError);
  });
});

function hpa(spec: Partial<HorizontalPodAutoscaler["spec"]>): HorizontalPodAutoscaler {
  return {
    metadata: { name: "web", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      maxReplicas: 10,
      ...spec,
    },
  };
}

const CPU_80 = [
  {
    type: "Resource",
    resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
  },
];

describe("setDefaultsHorizontalPodAutoscaler", () => {
  const cases: Array<{
    name: string;
    input: HorizontalPodAutoscaler;
    expectMin: number;
    expectMetrics: unknown;
    expectBehavior: HorizontalPodAutoscalerBehavior | null | undefined;
  }> = [
    {
      name: "empty spec: minReplicas 1, CPU 80 %, behavior stays absent",
      input: hpa({}),
      expectMin: 1,
      expectMetrics: CPU_80,
      expectBehavior: undefined,
    },
    {
      name: "null minReplicas, empty metrics, null behavior",
      input: hpa({ minReplicas: null, metrics: [], behavior: null }),
      expectMin: 1,
      expectMetrics: CPU_80,
      expectBehavior: null,
    },
    {
      name: "a set minReplicas (even 0) and metrics are kept",
      input: hpa({
        minReplicas: 0,
        metrics: [
          {
            type: "Pods",
            pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } },
          },
        ],
      }),
      expectMin: 0,
      expectMetrics: [
        {
          type: "Pods",
          pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } },
        },
      ],
      expectBehavior: undefined,
    },
    {
      name: "an empty behavior becomes the full default behavior",
      input: hpa({ behavior: {} }),
      expectMin: 1,
      expectMetrics: CPU_80,
      expectBehavior: { scaleUp: DEFAULT_UP, scaleDown: DEFAULT_DOWN },
    },
    {
      name: "one direction set: both directions are filled",
      input: hpa({
        behavior: { scaleDown: { stabilizationWindowSeconds: 60, tolerance: "0.05" } },
      }),
      expectMin: 1,
      expectMetrics: CPU_80,
      expectBehavior: {
        scaleUp: DEFAULT_UP,
        scaleDown: { ...DEFAULT_DOWN, stabilizationWindowSeconds: 60, tolerance: "0.05" },
      },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const out = setDefaultsHorizontalPodAutoscaler(c.input);
      assert.equal(out.spec.minReplicas, c.expectMin);
      assert.deepEqual(out.spec.metrics, c.expectMetrics);
      assert.deepEqual(out.spec.behavior, c.expectBehavior);
      assert.deepEqual(out.metadata, c.input.metadata);
      assert.deepEqual(out.spec.scaleTargetRef, c.input.spec.scaleTargetRef);
    });
  }

  const policy = fc.record({
    type: fc.constantFrom("Pods", "Percent"),
    value: fc.integer({ min: -5, max: 500 }),
    periodSeconds: fc.integer({ min: 0, max: 2000 }),
  });
  // fast-check builds records without a prototype; structuredClone gives plain wire objects.
  const rules = fc.option(
    fc
      .record(
        {
          stabilizationWindowSeconds: fc.option(fc.integer({ min: 0, max: 3600 })),
          selectPolicy: fc.option(fc.constantFrom("Max", "Min", "Disabled")),
          policies: fc.option(fc.array(policy, { maxLength: 3 })),
          tolerance: fc.option(fc.constantFrom("0", "10m", "0.5")),
        },
        { requiredKeys: [] },
      )
      .map((r) => structuredClone(r)),
  );
  const spec = fc
    .record(
      {
        minReplicas: fc.option(fc.integer({ min: 0, max: 5 })),
        behavior: fc.option(fc.record({ scaleUp: rules, scaleDown: rules }, { requiredKeys: [] })),
      },
      { requiredKeys: [] },
    )
    .map((s) => structuredClone(s));

  test("never mutates its input, and defaulting twice changes nothing more", () => {
    fc.assert(
      fc.property(spec, (s) => {
        const input = hpa(s as Partial<HorizontalPodAutoscaler["spec"]>);
        const before = structuredClone(input);
        const once = setDefaultsHorizontalPodAutoscaler(input);
        assert.deepEqual(input, before);
        assert.deepEqual(setDefaultsHorizontalPodAutoscaler(once), once);
      }),
    );
  });

  test("every field the user set in a direction survives defaulting", () => {
    fc.assert(
      fc.property(rules, (r) => {
        const out = generateScaleUpRules(r);
        if (r?.policies != null) assert.deepEqual(out.policies, r.policies);
        if (r?.selectPolicy != null) assert.equal(out.selectPolicy, r.selectPolicy);
        if (r?.stabilizationWindowSeconds != null) {
          assert.equal(out.stabilizationWindowSeconds, r.stabilizationWindowSeconds);
        }
        if (r?.tolerance != null) assert.equal(out.tolerance, r.tolerance);
        else assert.equal(out.tolerance, undefined);
      }),
    );
  });
});
