// The conditions as the dashboard and the report show them: upstream's three always, then any
// other (Horizon's ForeignWriter, another controller's), with the extensions' variants named.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HorizontalPodAutoscalerCondition } from "../../src/api/types.js";
import { conditionChips, conditionState } from "../../src/web/conditions.js";

const condition = (
  type: string,
  status: string,
  reason: string,
  message = "m",
): HorizontalPodAutoscalerCondition =>
  ({ type, status, reason, message }) as HorizontalPodAutoscalerCondition;

describe("conditionState", () => {
  const cases = [
    {
      name: "AbleToScale True",
      type: "AbleToScale",
      status: "True",
      reason: "ReadyForNewScale",
      state: "ok",
    },
    {
      name: "AbleToScale False",
      type: "AbleToScale",
      status: "False",
      reason: "FailedGetScale",
      state: "bad",
    },
    {
      name: "paused by an annotation",
      type: "AbleToScale",
      status: "False",
      reason: "Paused",
      state: "paused",
    },
    {
      name: "an invalid annotation",
      type: "AbleToScale",
      status: "False",
      reason: "InvalidAnnotation",
      state: "bad",
    },
    {
      name: "ScalingActive False",
      type: "ScalingActive",
      status: "False",
      reason: "FailedGetResourceMetric",
      state: "bad",
    },
    {
      name: "a metrics fallback",
      type: "ScalingActive",
      status: "False",
      reason: "FallbackActive",
      state: "warn",
    },
    {
      name: "ScalingLimited False",
      type: "ScalingLimited",
      status: "False",
      reason: "DesiredWithinRange",
      state: "ok",
    },
    {
      name: "ScalingLimited True",
      type: "ScalingLimited",
      status: "True",
      reason: "TooManyReplicas",
      state: "warn",
    },
    {
      name: "a scheduled minimum",
      type: "ScalingLimited",
      status: "True",
      reason: "ScheduledMinimum",
      state: "warn",
    },
    {
      name: "another controller writes",
      type: "ForeignWriter",
      status: "True",
      reason: "AnotherControllerWrites",
      state: "warn",
    },
    {
      name: "Unknown status",
      type: "ScalingActive",
      status: "Unknown",
      reason: "",
      state: "unknown",
    },
    {
      name: "a type not known here",
      type: "example.com/Ready",
      status: "True",
      reason: "Fine",
      state: "other",
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(conditionState(c.type, c.status, c.reason), c.state));
  }
  it("not reported", () => assert.equal(conditionState("AbleToScale", undefined), "unknown"));
});

describe("conditionChips", () => {
  it("shows the three in order, not reported ones as unknown", () => {
    const chips = conditionChips([condition("ScalingActive", "True", "ValidMetricFound")]);
    assert.deepEqual(
      chips.map((c) => [c.type, c.short, c.state]),
      [
        ["AbleToScale", "able", "unknown"],
        ["ScalingActive", "active", "ok"],
        ["ScalingLimited", "limited", "unknown"],
      ],
    );
    assert.equal(chips[0]!.words, "AbleToScale: not reported yet");
    assert.equal(chips[1]!.words, "ScalingActive True: ValidMetricFound (m)");
  });

  it("adds ForeignWriter and any other condition, and names the extensions' variants", () => {
    const chips = conditionChips([
      condition("example.com/Ready", "True", "Fine"),
      condition("AbleToScale", "False", "Paused", "scaling is paused by horizon.dev/paused"),
      condition("ScalingActive", "True", "ValidMetricFound"),
      condition("ScalingLimited", "True", "ScheduledMinimum"),
      condition(
        "ForeignWriter",
        "True",
        "AnotherControllerWrites",
        "another HPA controller writes",
      ),
    ]);
    assert.deepEqual(
      chips.map((c) => [c.type, c.short, c.state]),
      [
        ["AbleToScale", "paused", "paused"],
        ["ScalingActive", "active", "ok"],
        ["ScalingLimited", "scheduled", "warn"],
        ["ForeignWriter", "foreign writer", "warn"],
        ["example.com/Ready", "example.com/Ready", "other"],
      ],
    );
    assert.equal(
      chips[3]!.words,
      "ForeignWriter True: AnotherControllerWrites (another HPA controller writes)",
    );
  });
});
