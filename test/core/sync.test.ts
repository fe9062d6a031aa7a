// Fake-clock scenarios of whole syncs, plus the failure paths' conditions, events and status.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HorizontalPodAutoscalerStatus,
} from "../../src/api/types.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { EMPTY_HISTORY, type HpaHistory } from "../../src/core/history.js";
import { resourceObservation } from "../../src/core/sources/resource-usage.js";
import {
  completeSync,
  decideSync,
  type SyncInput,
  type SyncResult,
  syncOnce,
} from "../../src/core/sync.js";
import { cpuUsage, hpa, pods, t } from "./builders.js";

interface ScaleChange {
  at: number;
  from: number;
  to: number;
  reason: string;
}

/** Steps a fake clock every 15 s; pods are ready at once and share `demand(seconds)` millicores. */
function runScenario(options: {
  hpa: HorizontalPodAutoscaler;
  startReplicas: number;
  demand: (seconds: number) => number;
  until: number;
}): { changes: ScaleChange[]; results: { seconds: number; result: SyncResult }[] } {
  const config = defaultControllerConfig();
  let current = options.hpa;
  let history: HpaHistory = EMPTY_HISTORY;
  let replicas = options.startReplicas;
  const changes: ScaleChange[] = [];
  const results: { seconds: number; result: SyncResult }[] = [];
  for (let seconds = 15; seconds <= options.until; seconds += 15) {
    const list = pods(replicas, { cpuRequestMilli: 100 });
    const perPod = Math.round(options.demand(seconds) / replicas);
    const usage = Object.fromEntries(list.map((p) => [p.name, perPod]));
    const result = syncOnce({
      now: t(seconds),
      hpa: current,
      scale: { ok: true, specReplicas: replicas, statusReplicas: replicas, selector: "app=web" },
      pods: list,
      observations: [resourceObservation(cpuUsage(usage, t(seconds)), "cpu")],
      history,
      config,
    });
    results.push({ seconds, result });
    history = result.history;
    current = { ...current, status: result.status };
    if (result.scaleUpdated) {
      changes.push({
        at: seconds,
        from: replicas,
        to: result.desiredReplicas,
        reason: result.trace.limit?.reason ?? "",
      });
      replicas = result.desiredReplicas;
    }
  }
  return { changes, results };
}

// 100m total, 1000m from t=60s to t=300s, then 100m again; requests 100m per pod, target 50%.
const stepLoad = (s: number) => (s >= 60 && s < 300 ? 1000 : 100);

describe("scenario: a load step up and down with behavior policies", () => {
  const behavior: HorizontalPodAutoscalerBehavior = {
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: "Max",
      policies: [{ type: "Pods", value: 2, periodSeconds: 60 }],
    },
    scaleDown: {
      stabilizationWindowSeconds: 120,
      selectPolicy: "Max",
      policies: [{ type: "Percent", value: 50, periodSeconds: 60 }],
    },
  };
  const { changes, results } = runScenario({
    hpa: hpa({ minReplicas: 2, maxReplicas: 20, behavior }),
    startReplicas: 2,
    demand: stepLoad,
    until: 600,
  });

  it("adds at most 2 pods per 60 s, then halves at most once per 60 s after the 120 s window", () => {
    assert.deepEqual(changes, [
      { at: 60, from: 2, to: 4, reason: "ScaleUpLimit" },
      { at: 120, from: 4, to: 6, reason: "ScaleUpLimit" },
      { at: 180, from: 6, to: 8, reason: "ScaleUpLimit" },
      { at: 240, from: 8, to: 10, reason: "ScaleUpLimit" },
      { at: 405, from: 10, to: 5, reason: "ScaleDownLimit" },
      { at: 465, from: 5, to: 2, reason: "DesiredWithinRange" },
    ]);
  });

  it("reports ScaleDownStabilized while the window holds the scale-down", () => {
    const at390 = results.find((r) => r.seconds === 390)!.result;
    assert.equal(at390.trace.recommendation, 2);
    const ableToScale = at390.status.conditions?.find((c) => c.type === "AbleToScale");
    assert.equal(ableToScale?.reason, "ScaleDownStabilized");
    assert.equal(at390.scaleUpdated, false);
  });

  it("records upstream's event and condition messages", () => {
    const first = results.find((r) => r.seconds === 60)!.result;
    assert.deepEqual(first.events, [
      {
        type: "Normal",
        reason: "SuccessfulRescale",
        message:
          "New size: 4; reason: cpu resource utilization (percentage of request) above target",
      },
    ]);
    const byType = Object.fromEntries((first.status.conditions ?? []).map((c) => [c.type, c]));
    assert.equal(
      byType.AbleToScale?.message,
      "the HPA controller was able to update the target scale to 4",
    );
    assert.equal(
      byType.ScalingActive?.message,
      "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
    );
    assert.equal(byType.ScalingLimited?.reason, "ScaleUpLimit");
    assert.equal(
      byType.ScalingLimited?.message,
      "the desired replica count is increasing faster than the maximum scale rate",
    );
    assert.equal(first.status.lastScaleTime, "2026-01-01T12:01:00Z");
    assert.deepEqual(first.status.currentMetrics, [
      {
        type: "Resource",
        resource: { name: "cpu", current: { averageUtilization: 500, averageValue: "500m" } },
      },
    ]);
  });

  it("writes status only when it changed", () => {
    const quiet = results
      .filter((r) => r.seconds === 30 || r.seconds === 45)
      .map((r) => r.result.statusChanged);
    assert.deepEqual(quiet, [false, false]);
  });
});

describe("scenario: the same step on the legacy path (no behavior)", () => {
  const { changes } = runScenario({
    hpa: hpa({ minReplicas: 2, maxReplicas: 20 }),
    startReplicas: 2,
    demand: stepLoad,
    until: 900,
  });

  it("doubles at most per sync (minimum 4) and scales down only after the 5 min window", () => {
    // t=60: 2 pods at 500% → 20, capped at max(2×2, 4) = 4; t=75: 4 at 250% → 20, cap 8; t=90: 8 → 16.
    // t=105: 16 pods at 63% (1000/16 = 62.5 → 63m) → ceil(1.26 × 16) = 21 → max 20.
    // The last high recommendation is at t=285; at t=585 it has left the 300 s window.
    assert.deepEqual(
      changes.map((c) => [c.at, c.to, c.reason]),
      [
        [60, 4, "ScaleUpLimit"],
        [75, 8, "ScaleUpLimit"],
        [90, 16, "ScaleUpLimit"],
        [105, 20, "TooManyReplicas"],
        [585, 2, "DesiredWithinRange"],
      ],
    );
  });
});

describe("failure paths", () => {
  const config = defaultControllerConfig();
  const base = (overrides: Partial<SyncInput> = {}): SyncInput => ({
    now: t(0),
    hpa: hpa(),
    scale: { ok: true, specReplicas: 3, statusReplicas: 3, selector: "app=web" },
    pods: pods(3),
    observations: [
      resourceObservation(cpuUsage({ "web-0": 50, "web-1": 50, "web-2": 50 }, t(0)), "cpu"),
    ],
    history: EMPTY_HISTORY,
    config,
    ...overrides,
  });

  it("FailedGetScale: condition, warning event and an error", () => {
    const result = syncOnce(
      base({ scale: { ok: false, error: 'deployments.apps "web" not found' } }),
    );
    assert.deepEqual(result.events, [
      { type: "Warning", reason: "FailedGetScale", message: 'deployments.apps "web" not found' },
    ]);
    assert.deepEqual(
      result.status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        [
          "AbleToScale",
          "False",
          "FailedGetScale",
          'the HPA controller was unable to get the target\'s current scale: deployments.apps "web" not found',
        ],
      ],
    );
    assert.ok(result.error);
    assert.equal(result.scaleUpdated, false);
  });

  it("a missing metrics API answer fails the metric with upstream's wording", () => {
    const result = syncOnce(base({ observations: [resourceObservation([], "cpu")] }));
    assert.equal(result.scaleUpdated, false);
    const scalingActive = result.status.conditions?.find((c) => c.type === "ScalingActive");
    assert.equal(scalingActive?.reason, "FailedGetResourceMetric");
    assert.equal(
      scalingActive?.message,
      "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",
    );
    assert.deepEqual(
      result.events.map((e) => e.reason),
      ["FailedGetResourceMetric", "FailedComputeMetricsReplicas"],
    );
    assert.equal(
      result.events[1]?.message,
      "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",
    );
    assert.deepEqual(result.status.currentMetrics, [{ type: "" }]);
  });

  it("a scale without a selector is InvalidSelector with a SelectorRequired event", () => {
    const result = syncOnce(base({ scale: { ok: true, specReplicas: 3, statusReplicas: 3 } }));
    assert.equal(
      result.status.conditions?.find((c) => c.type === "ScalingActive")?.reason,
      "InvalidSelector",
    );
    assert.deepEqual(result.events[0], {
      type: "Warning",
      reason: "SelectorRequired",
      message: "selector is required",
    });
  });

  it("pods claimed by two HPAs are AmbiguousSelector", () => {
    const result = syncOnce(base({ selectingHpas: ["default/web", "default/web-2"] }));
    const condition = result.status.conditions?.find((c) => c.type === "ScalingActive");
    assert.equal(condition?.reason, "AmbiguousSelector");
    assert.equal(
      condition?.message,
      "pods by selector app=web are controlled by multiple HPAs: [default/web default/web-2]",
    );
  });

  it("a failed scale update keeps the previous desired count and records FailedRescale", () => {
    const input = base({
      observations: [
        resourceObservation(cpuUsage({ "web-0": 150, "web-1": 150, "web-2": 150 }, t(0)), "cpu"),
      ],
      hpa: { ...hpa(), status: { currentReplicas: 3, desiredReplicas: 3 } },
    });
    const decision = decideSync(input);
    assert.equal(decision.rescale, true);
    const result = completeSync(decision, { ok: false, error: "conflict" });
    assert.equal(result.status.desiredReplicas, 3);
    assert.equal(
      result.status.conditions?.find((c) => c.type === "AbleToScale")?.reason,
      "FailedUpdateScale",
    );
    assert.deepEqual(result.events.at(-1), {
      type: "Warning",
      reason: "FailedRescale",
      message:
        "New size: 6; reason: cpu resource utilization (percentage of request) above target; error: conflict",
    });
    assert.equal(result.error, "failed to rescale Deployment/default/web: conflict");
  });

  it("keeps a condition's lastTransitionTime while its status does not flip", () => {
    const first = syncOnce(base());
    const second = syncOnce(
      base({ now: t(15), hpa: { ...hpa(), status: first.status }, history: first.history }),
    );
    const at = (r: SyncResult) =>
      r.status.conditions?.find((c) => c.type === "ScalingActive")?.lastTransitionTime;
    assert.equal(at(second), at(first));
  });

  it("never changes the stored conditions; an unchanged status keeps the stored objects", () => {
    const first = syncOnce(base());
    const stored = structuredClone(first.status);
    Object.freeze(first.status);
    for (const c of first.status.conditions ?? []) Object.freeze(c);
    // The same load: nothing changes, every condition is the stored object itself.
    const same = syncOnce(
      base({ now: t(15), hpa: { ...hpa(), status: first.status }, history: first.history }),
    );
    assert.equal(same.statusChanged, false);
    assert.equal(same.status.conditions?.length, 3);
    for (const [i, c] of (same.status.conditions ?? []).entries()) {
      assert.equal(c, first.status.conditions?.[i]);
    }
    // Twice the load: AbleToScale and ScalingLimited change, on new objects.
    const scaled = syncOnce(
      base({
        now: t(30),
        hpa: { ...hpa(), status: first.status },
        history: first.history,
        observations: [
          resourceObservation(cpuUsage({ "web-0": 100, "web-1": 100, "web-2": 100 }, t(30)), "cpu"),
        ],
      }),
    );
    assert.equal(scaled.statusChanged, true);
    const able = scaled.status.conditions?.find((c) => c.type === "AbleToScale");
    assert.equal(able?.reason, "SucceededRescale");
    assert.notEqual(
      able,
      first.status.conditions?.find((c) => c.type === "AbleToScale"),
    );
    assert.deepEqual(first.status, stored);
  });

  it("reports a status change exactly when the status differs from the stored one as JSON", () => {
    const first = syncOnce(base());
    const status = first.status;
    const current = status.currentMetrics?.[0]?.resource?.current;
    assert.ok(current);
    const metric = (change: object) => [
      { type: "Resource" as const, resource: { name: "cpu", current: { ...current, ...change } } },
    ];
    const cases: { name: string; stored: HorizontalPodAutoscalerStatus; changed: boolean }[] = [
      { name: "the same status", stored: structuredClone(status), changed: false },
      {
        name: "another average value",
        stored: { ...status, currentMetrics: metric({ averageValue: "1" }) },
        changed: true,
      },
      {
        name: "another utilization",
        stored: { ...status, currentMetrics: metric({ averageUtilization: 1 }) },
        changed: true,
      },
      {
        name: "the same metric values as new objects",
        stored: { ...status, currentMetrics: metric({}) },
        changed: false,
      },
      {
        name: "no metrics stored",
        stored: { ...status, currentMetrics: undefined },
        changed: true,
      },
      {
        name: "another metric name",
        stored: {
          ...status,
          currentMetrics: [{ type: "Resource", resource: { name: "memory", current } }],
        },
        changed: true,
      },
      {
        name: "a field never written",
        stored: { ...status, observedGeneration: 3 },
        changed: true,
      },
      { name: "another desired count", stored: { ...status, desiredReplicas: 9 }, changed: true },
      {
        name: "a condition less",
        stored: { ...status, conditions: status.conditions?.slice(1) },
        changed: true,
      },
    ];
    for (const c of cases) {
      const again = syncOnce(
        base({ now: t(15), hpa: { ...hpa(), status: c.stored }, history: first.history }),
      );
      assert.equal(again.statusChanged, c.changed, c.name);
    }
  });
});
