// What-if over a live controller's history: the demand each recorded sync saw, replayed
// through the core with the HPA edited (open loop, or closed for CPU where the load and the
// pods' response are known), on a fake clock.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decisionRecordOf } from "../../src/controller/decisions.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { HpaHistory } from "../../src/web/history.js";
import {
  demandsOf,
  liveWhatIf,
  measuresOf,
  neededReplicas,
  type TargetResponse,
} from "../../src/web/replay.js";
import type { WhatIfResult } from "../../src/web/types.js";
import { syncReport } from "../controller/sync-reports.js";

/** Pods using 10m of a 100m request per request/s, serving at most 10 requests/s each. */
function saturating(): TargetResponse {
  return { cpuUtilization: (load, replicas) => Math.min(load / replicas, 10) * 10 };
}

/** An hour of 15 s syncs whose demand alternates between 8 and 2 replicas every 2 minutes. */
function oscillatingHour() {
  let now = Date.UTC(2026, 10, 24, 12);
  const history = new HpaHistory({ capacity: 1000, clock: { now: () => now } });
  for (let i = 0; i < 240; i++) {
    const high = Math.floor(i / 8) % 2 === 0;
    // 4 pods at 100m (ratio 2 of the 50% target: demand 8) or at 25m (ratio 0.5: demand 2).
    history.record(
      decisionRecordOf(
        syncReport({ replicas: 4, cpuPerPodMilli: high ? 100 : 25, maxReplicas: 10 }).result!,
      ),
    );
    now += 15_000;
  }
  const hpa = syncReport({ replicas: 4, maxReplicas: 10 }).hpa;
  return {
    history,
    hpas: {
      list: () => [hpa],
      get: (key: string) => (key === "default/web" ? hpa : undefined),
      subscribe: () => () => {},
    },
    // Pinned at v1.34: the invalid edit below (minReplicas 0) is refused there by its own field;
    // v1.37 accepts it with an Object or External metric (HPAScaleToZero beta).
    config: defaultControllerConfig("1.34"),
  };
}

describe("replaying recorded syncs", () => {
  it("reads each metric's demand from the trace: usage ratio × the pods it counted", () => {
    const trace = syncReport({ replicas: 4, cpuPerPodMilli: 100 }).result!.trace;
    assert.deepEqual(demandsOf(trace), [8]);
    const failed = syncReport({ replicas: 4, scaleError: "no scale" }).result!.trace;
    assert.deepEqual(demandsOf(failed), []);
  });

  it("a scale-down window of 0 flaps where the default 5-minute window holds steady", async () => {
    const parts = oscillatingHour();
    const run = liveWhatIf(parts);
    const answer = await run("default", "web", {
      behavior: { scaleDown: { stabilizationWindowSeconds: 0 } },
    });
    assert.ok(answer.ok, JSON.stringify(answer));
    const { original, whatIf } = answer.value;
    assert.equal(original.samples.length, 240);
    assert.equal(whatIf.samples.length, 240);
    // Default: up to 8 once, then the window keeps it there.
    assert.equal(original.measures!.flaps, 0);
    assert.equal(original.measures!.scaleDowns, 0);
    assert.ok(whatIf.measures!.flaps > 5, `what-if flaps ${whatIf.measures!.flaps}`);
    assert.ok(whatIf.measures!.podHours < original.measures!.podHours);
    assert.equal(
      answer.value.command,
      `kubectl patch hpa web -n default --type merge -p '{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":0}}}}'`,
    );
  });

  it("a lower maxReplicas leaves demand unmet, counted in pod-seconds", async () => {
    const answer = await liveWhatIf(oscillatingHour())("default", "web", { maxReplicas: 5 });
    assert.ok(answer.ok);
    assert.ok(answer.value.whatIf.samples.every((s) => s.desiredReplicas <= 5));
    assert.equal(answer.value.original.measures!.unmetDemandPodSeconds, 0);
    assert.ok(answer.value.whatIf.measures!.unmetDemandPodSeconds > 0);
  });

  it("names each replayed metric as the HPA's, in its units, at the replay's replicas", async () => {
    const parts = oscillatingHour();
    const answer = await liveWhatIf(parts)("default", "web", { maxReplicas: 3 });
    assert.ok(answer.ok);
    const recorded = parts.history.get("default", "web");
    const cpu = "Metric 1 (Resource, cpu resource utilization (percentage of request))";
    assert.deepEqual(recorded[0]!.sample.metrics, [
      { name: cpu, current: 100, target: 50, unit: "% of request" },
    ]);
    // Replayed at the recorded replicas: the recorded metric, value and all.
    assert.deepEqual(answer.value.original.samples[0]!.metrics, recorded[0]!.sample.metrics);
    // Capped at 3 replicas, a demand of 8 replicas at target reads 8 / 3 × 50% on 3.
    const capped = answer.value.whatIf.samples.filter((s) => s.metrics.length > 0);
    assert.ok(capped.length > 0);
    for (const s of capped) {
      assert.deepEqual(
        s.metrics.map((m) => [m.name, m.target, m.unit]),
        [[cpu, 50, "% of request"]],
      );
    }
    const currents = capped.map((s) => s.metrics[0]!.current!);
    assert.ok(
      currents.some((c) => Math.abs(c - (8 / 3) * 50) < 0.1),
      JSON.stringify(currents),
    );
  });

  it("refuses an invalid edit naming the field, and an HPA without history", async () => {
    const run = liveWhatIf(oscillatingHour());
    const invalid = await run("default", "web", { minReplicas: 0 });
    assert.equal(invalid.ok, false);
    if (!invalid.ok) {
      assert.equal(invalid.status, 422);
      assert.ok(
        invalid.causes!.some((c) => c.startsWith("spec.minReplicas")),
        invalid.causes!.join("; "),
      );
    }
    const missing = await run("default", "other", { maxReplicas: 3 });
    assert.equal(missing.ok ? 200 : missing.status, 404);
  });

  it("finds the fewest replicas that meet a CPU target at a load", () => {
    // 10 millicores per request, 10 requests/s per pod at most, a 100m request.
    const response = saturating();
    assert.equal(neededReplicas(response, 100, 50), 20);
    assert.equal(neededReplicas(response, 100, 80), 13);
    // Saturated pods are at 100%: a 100% target is met by one, the load unserved or not.
    assert.equal(neededReplicas(response, 100, 100), 1);
    assert.equal(neededReplicas(response, 0, 50), 1);
    assert.equal(neededReplicas({ cpuUtilization: () => 80 }, 100, 50), null);
  });

  it("closes the loop for CPU where the load and the pods' response are known", async () => {
    // An hour at maxReplicas 2 under 100 requests/s: both pods saturated at 100% of request.
    // The trace says "ratio 2 × 2 pods = 4 replicas"; the load needs 20 at 50%.
    let now = Date.UTC(2026, 10, 24, 12);
    const history = new HpaHistory({ capacity: 1000, clock: { now: () => now } });
    for (let i = 0; i < 240; i++) {
      const report = syncReport({ replicas: 2, cpuPerPodMilli: 100, maxReplicas: 2 });
      history.record(decisionRecordOf(report.result!), 100);
      now += 15_000;
    }
    const hpa = syncReport({ replicas: 2, maxReplicas: 2 }).hpa;
    const parts = {
      history,
      hpas: {
        list: () => [hpa],
        get: (key: string) => (key === "default/web" ? hpa : undefined),
        subscribe: () => () => {},
      },
      config: defaultControllerConfig(),
    };
    const open = await liveWhatIf(parts)("default", "web", { maxReplicas: 30 });
    const closed = await liveWhatIf({ ...parts, responseOf: () => saturating() })(
      "default",
      "web",
      { maxReplicas: 30 },
    );
    assert.ok(open.ok && closed.ok);
    assert.equal(open.value.loop, "open");
    assert.equal(closed.value.loop, "closed");
    const last = (r: WhatIfResult["whatIf"]) => r.samples[r.samples.length - 1]!.desiredReplicas;
    // Open loop: the demand stays what the saturated pods showed.
    assert.equal(last(open.value.whatIf), 4);
    // Closed loop: each scale-up shows more load served, up to the 20 the load needs.
    assert.equal(last(closed.value.whatIf), 20);
    assert.equal(closed.value.whatIf.measures!.scaleDowns, 0);
    // As recorded (max 2), 18 replicas short all hour; the what-if only while it scaled up.
    const unmet = closed.value.original.measures!.unmetDemandPodSeconds;
    assert.ok(Math.abs(unmet - 18 * 239 * 15) < 1e-6, `${unmet}`);
    assert.ok(closed.value.whatIf.measures!.unmetDemandPodSeconds < unmet / 10);
  });

  it("measures a trajectory: pod-hours, unmet demand, flaps within the window", () => {
    const at = (s: number) => Date.UTC(2026, 0, 1) + s * 1000;
    const sample = (s: number, current: number, desired: number) => ({
      at: at(s),
      currentReplicas: current,
      desiredReplicas: desired,
      minReplicas: 1,
      maxReplicas: 10,
      pods: null,
      readyPods: null,
      loadRps: null,
      metrics: [],
      outcome: "scaled" as const,
      error: null,
    });
    const m = measuresOf(
      [sample(0, 2, 4), sample(60, 4, 2), sample(600, 2, 4), sample(660, 4, 4)],
      [4, 4, 4, 4],
      300,
    );
    // 4×60 + 2×540 + 4×60 replica-seconds.
    assert.ok(Math.abs(m.podHours - (4 * 60 + 2 * 540 + 4 * 60) / 3600) < 1e-12, `${m.podHours}`);
    assert.equal(m.unmetDemandPodSeconds, 2 * 540);
    assert.equal(m.unmetDemandSeconds, 540);
    assert.equal(m.scaleUps, 2);
    assert.equal(m.scaleDowns, 1);
    // Down 60 s after up (a flap); up again 540 s after that (outside the 300 s window).
    assert.equal(m.flaps, 1);
  });
});
