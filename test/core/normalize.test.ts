import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { EMPTY_HISTORY, type HpaHistory, withRecommendations } from "../../src/core/history.js";
import {
  clampLegacy,
  clampWithBehavior,
  type ResolvedRules,
  scaleDownLimit,
  scaleUpLimit,
  stabilizeLegacy,
  stabilizeWithBehavior,
  storeScaleEvent,
} from "../../src/core/normalize.js";
import { t } from "./builders.js";

const NOW = t(0);
const ago = (seconds: number) => t(-seconds);
const rules = (overrides: Partial<ResolvedRules> = {}): ResolvedRules => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [],
  ...overrides,
});

describe("legacy clamp", () => {
  const cases = [
    {
      name: "below min goes to min",
      current: 3,
      desired: 1,
      min: 2,
      max: 8,
      expect: [2, "TooFewReplicas"],
    },
    {
      name: "the scale-up cap binds before max",
      current: 3,
      desired: 50,
      min: 1,
      max: 20,
      expect: [6, "ScaleUpLimit"],
    },
    {
      name: "max binds when lower than the cap",
      current: 3,
      desired: 50,
      min: 1,
      max: 5,
      expect: [5, "TooManyReplicas"],
    },
    {
      name: "the cap is at least 4 at small sizes",
      current: 1,
      desired: 9,
      min: 1,
      max: 20,
      expect: [4, "ScaleUpLimit"],
    },
    {
      name: "in range is unchanged",
      current: 3,
      desired: 4,
      min: 1,
      max: 20,
      expect: [4, "DesiredWithinRange"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = clampLegacy({
        currentReplicas: c.current,
        desiredReplicas: c.desired,
        minReplicas: c.min,
        maxReplicas: c.max,
        scaleUpLimitFactor: 2,
        scaleUpLimitMinimum: 4,
      });
      assert.deepEqual([r.replicas, r.reason], c.expect);
    });
  }
});

describe("stabilization windows contain entries strictly younger than their length", () => {
  it("legacy: an entry exactly as old as the window no longer counts and is reused", () => {
    const r = stabilizeLegacy(
      [
        { replicas: 9, timestamp: ago(300) },
        { replicas: 7, timestamp: ago(299) },
      ],
      3,
      300_000,
      NOW,
    );
    assert.equal(r.stabilized, 7);
    assert.deepEqual(
      r.recommendations.map((x) => x.replicas),
      [3, 7],
    );
  });

  it("behavior: scale-up goes only to the lowest recent recommendation", () => {
    const r = stabilizeWithBehavior({
      recommendations: [
        { replicas: 6, timestamp: ago(30) },
        { replicas: 8, timestamp: ago(10) },
      ],
      currentReplicas: 4,
      recommendation: 10,
      scaleUpWindowSeconds: 60,
      scaleDownWindowSeconds: 0,
      now: NOW,
    });
    assert.equal(r.stabilized, 6);
    assert.equal(r.reason, "ScaleUpStabilized");
  });
});

describe("policy limits", () => {
  const cases = [
    {
      name: "Percent up rounds up (3 × 1.01 → 4)",
      direction: "up",
      current: 3,
      rules: rules({ policies: [{ type: "Percent", value: 1, periodSeconds: 60 }] }),
      up: [],
      down: [],
      expect: 4,
    },
    {
      name: "scale-ups within the period lower the period's start",
      direction: "up",
      current: 6,
      rules: rules({ policies: [{ type: "Pods", value: 4, periodSeconds: 60 }] }),
      up: [{ replicaChange: 4, timestamp: ago(30), outdated: false }],
      down: [],
      expect: 6,
    },
    {
      name: "Min picks the smallest change down (highest floor)",
      direction: "down",
      current: 10,
      rules: rules({
        selectPolicy: "Min",
        policies: [
          { type: "Pods", value: 1, periodSeconds: 60 },
          { type: "Percent", value: 50, periodSeconds: 60 },
        ],
      }),
      up: [],
      down: [],
      expect: 9,
    },
    {
      name: "Disabled allows no change",
      direction: "down",
      current: 10,
      rules: rules({
        selectPolicy: "Disabled",
        policies: [{ type: "Pods", value: 5, periodSeconds: 60 }],
      }),
      up: [],
      down: [],
      expect: 10,
    },
  ] as const;
  for (const c of cases) {
    it(c.name, () => {
      const calculate = c.direction === "up" ? scaleUpLimit : scaleDownLimit;
      assert.equal(calculate(c.current, [...c.up], [...c.down], c.rules, NOW).limit, c.expect);
    });
  }
});

describe("scale-event store", () => {
  it("marks events older than the longest period outdated and reuses the last one", () => {
    const after = storeScaleEvent(
      [
        { replicaChange: 1, timestamp: ago(200), outdated: false },
        { replicaChange: 2, timestamp: ago(100), outdated: false },
        { replicaChange: 3, timestamp: ago(10), outdated: false },
      ],
      5,
      60,
      NOW,
    );
    assert.deepEqual(
      after.map((e) => [e.replicaChange, e.outdated]),
      [
        [1, true],
        [5, false],
        [3, false],
      ],
    );
  });
});

describe("properties", () => {
  const policy = fc.record({
    type: fc.constantFrom("Pods", "Percent"),
    value: fc.integer({ min: 1, max: 500 }),
    periodSeconds: fc.integer({ min: 1, max: 1800 }),
  });
  const resolved = fc.record({
    stabilizationWindowSeconds: fc.integer({ min: 0, max: 3600 }),
    selectPolicy: fc.constantFrom("Max", "Min", "Disabled"),
    policies: fc.array(policy, { minLength: 1, maxLength: 3 }),
  });
  const event = fc.record({
    replicaChange: fc.integer({ min: 1, max: 50 }),
    timestamp: fc.integer({ min: NOW - 3_600_000, max: NOW }),
    outdated: fc.boolean(),
  });
  const recommendation = fc.record({
    replicas: fc.integer({ min: 0, max: 200 }),
    timestamp: fc.integer({ min: NOW - 3_600_000, max: NOW }),
  });
  const bounds = fc
    .tuple(
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 0, max: 100 }),
      fc.integer({ min: 0, max: 100 }),
    )
    .map(([min, span, offset]) => ({
      min,
      max: min + span,
      current: min + Math.min(offset, span),
    }));

  it("the behavior path's result lies in [minReplicas, maxReplicas] whenever currentReplicas does", () => {
    fc.assert(
      fc.property(
        bounds,
        fc.integer({ min: 0, max: 500 }),
        resolved,
        resolved,
        fc.array(recommendation, { maxLength: 8 }),
        fc.array(event, { maxLength: 6 }),
        fc.array(event, { maxLength: 6 }),
        (b, rec, up, down, history, upEvents, downEvents) => {
          const stabilized = stabilizeWithBehavior({
            recommendations: history,
            currentReplicas: b.current,
            recommendation: rec,
            scaleUpWindowSeconds: up.stabilizationWindowSeconds,
            scaleDownWindowSeconds: down.stabilizationWindowSeconds,
            now: NOW,
          }).stabilized;
          const result = clampWithBehavior({
            currentReplicas: b.current,
            desiredReplicas: stabilized,
            minReplicas: b.min,
            maxReplicas: b.max,
            scaleUp: up,
            scaleDown: down,
            scaleUpEvents: upEvents,
            scaleDownEvents: downEvents,
            now: NOW,
          });
          assert.ok(
            result.replicas >= b.min && result.replicas <= b.max,
            `${result.replicas} not in [${b.min}, ${b.max}]`,
          );
        },
      ),
    );
  });

  it("the legacy path's result lies in [minReplicas, maxReplicas] whenever currentReplicas does", () => {
    fc.assert(
      fc.property(
        bounds,
        fc.integer({ min: 0, max: 500 }),
        fc.array(recommendation, { maxLength: 8 }),
        (b, rec, history) => {
          const stabilized = stabilizeLegacy(history, rec, 300_000, NOW).stabilized;
          const result = clampLegacy({
            currentReplicas: b.current,
            desiredReplicas: stabilized,
            minReplicas: b.min,
            maxReplicas: b.max,
            scaleUpLimitFactor: 2,
            scaleUpLimitMinimum: 4,
          });
          assert.ok(result.replicas >= b.min && result.replicas <= b.max);
        },
      ),
    );
  });
});

describe("withRecommendations", () => {
  const recommendations = [{ replicas: 3, timestamp: NOW }];
  const cases: { name: string; history: HpaHistory }[] = [
    { name: "upstream's fields only", history: EMPTY_HISTORY },
    {
      name: "with every extension's field, one of them explicitly undefined",
      history: {
        ...EMPTY_HISTORY,
        fallback: { failures: 2, active: false },
        scaleToZero: { lastActiveTime: null },
        scheduledFloor: 0,
        overrides: undefined,
      },
    },
  ];
  for (const c of cases) {
    it(`is the spread with new recommendations: ${c.name}`, () => {
      const next = withRecommendations(c.history, recommendations);
      assert.deepStrictEqual(next, { ...c.history, recommendations });
      assert.deepEqual(Object.keys(next).sort(), Object.keys(c.history).sort());
    });
  }
});
