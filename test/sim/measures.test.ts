// The measures of docs/simulate.md on hand-built record streams; every expected number is worked
// out by hand in the comment next to it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { DecisionTrace } from "../../src/core/trace.js";
import type { DemandYardstick } from "../../src/sim/demand.js";
import { isLoadStep, MeasureCollector } from "../../src/sim/measures.js";
import type {
  HpaSummary,
  SampleRecord,
  SimulationRecord,
  StartRecord,
  SyncRecord,
} from "../../src/sim/timeline.js";

const WORKLOAD = "default/Deployment/web";

function start(overrides: Partial<StartRecord> = {}): StartRecord {
  return {
    type: "start",
    schema: "horizon.dev/simulation/v1",
    scenario: "test",
    seed: 1,
    startTime: "2026-01-01T00:00:00Z",
    durationSeconds: 120,
    controllerFlags: {},
    hpas: [
      {
        hpa: "default/web",
        target: WORKLOAD,
        minReplicas: 1,
        maxReplicas: 10,
        metrics: ["Resource cpu Utilization 50%"],
        scaleDownWindowSeconds: 300,
      },
    ],
    ...overrides,
  };
}

function sample(fields: Partial<SampleRecord> & { t: number }): SampleRecord {
  return {
    type: "sample",
    workload: WORKLOAD,
    demandRps: 0,
    servedRps: 0,
    specReplicas: 1,
    pods: 1,
    readyPods: 1,
    cpuUtilization: null,
    ...fields,
  };
}

function trace(fields: Partial<DecisionTrace> = {}): DecisionTrace {
  return {
    version: "horizon.dev/decision-trace/v1",
    hpa: { namespace: "default", name: "web" },
    time: "2026-01-01T00:00:00Z",
    scale: { specReplicas: 1, statusReplicas: 1, selector: "app=web" },
    branch: "metrics",
    minReplicas: 1,
    maxReplicas: 10,
    currentReplicas: 1,
    metrics: [],
    recommendation: 1,
    desiredReplicas: 1,
    rescale: false,
    outcome: "unchanged",
    ...fields,
  };
}

function sync(fields: {
  t: number;
  from: number;
  to: number;
  scaled?: boolean;
  hpa?: string;
  trace?: Partial<DecisionTrace>;
}): SyncRecord {
  const scaled = fields.scaled ?? fields.from !== fields.to;
  return {
    type: "sync",
    t: fields.t,
    hpa: fields.hpa ?? "default/web",
    currentReplicas: fields.from,
    desiredReplicas: fields.to,
    scaled,
    conditions: [],
    events: [],
    error: null,
    trace: trace({
      currentReplicas: fields.from,
      desiredReplicas: fields.to,
      rescale: scaled,
      outcome: scaled ? "scaled" : "unchanged",
      ...fields.trace,
    }),
  };
}

function summarize(records: SimulationRecord[], s: StartRecord = start()): HpaSummary {
  const collector = new MeasureCollector(s);
  for (const r of records) collector.add(r);
  return collector.summary().hpas[0]!;
}

describe("pod-hours", () => {
  const cases = [
    {
      name: "each sample's pods hold until the next sample, the last until the end",
      durationSeconds: 120,
      samples: [
        { t: 0, pods: 2 },
        { t: 60, pods: 4 },
        { t: 90, pods: 4 },
      ],
      // 2×60 + 4×30 + 4×30 = 360 pod-seconds = 0.1 pod-hours
      podHours: 0.1,
    },
    {
      name: "a sample at the very end adds nothing",
      durationSeconds: 3600,
      samples: [
        { t: 0, pods: 3 },
        { t: 3600, pods: 100 },
      ],
      // 3 × 3600 = 3 pod-hours
      podHours: 3,
    },
    {
      name: "no sample: zero",
      durationSeconds: 60,
      samples: [],
      podHours: 0,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const s = summarize(
        c.samples.map((x) => sample(x)),
        start({ durationSeconds: c.durationSeconds }),
      );
      assert.ok(Math.abs(s.podHours - c.podHours) < 1e-12, `${s.podHours} vs ${c.podHours}`);
    });
  }
});

describe("unmet demand and time to meet demand", () => {
  const cases = [
    {
      name: "capacity given by the samples",
      durationSeconds: 90,
      samples: [
        { t: 0, demandRps: 100, servedRps: 100, readyPods: 1, capacityRps: 100 },
        { t: 30, demandRps: 300, servedRps: 100, readyPods: 1, capacityRps: 100 },
        { t: 45, demandRps: 300, servedRps: 200, readyPods: 2, capacityRps: 100 },
        { t: 60, demandRps: 300, servedRps: 300, readyPods: 3, capacityRps: 100 },
      ],
      // [30,45): 200 rps short = 2 pods × 15s; [45,60): 1 pod × 15s → 45 pod-s over 30 s
      unmetPodSeconds: 45,
      unmetSeconds: 30,
      // step 100 → 300 at t=30, served ≥ demand again at t=60
      timeToMeet: [30],
      steps: [{ t: 30, fromRps: 100, toRps: 300 }],
    },
    {
      name: "capacity inferred from a saturated sample (served / ready pods)",
      durationSeconds: 90,
      samples: [
        { t: 0, demandRps: 100, servedRps: 100, readyPods: 1 },
        { t: 30, demandRps: 300, servedRps: 100, readyPods: 1 },
        { t: 45, demandRps: 300, servedRps: 200, readyPods: 2 },
        { t: 60, demandRps: 300, servedRps: 300, readyPods: 3 },
      ],
      unmetPodSeconds: 45,
      unmetSeconds: 30,
      timeToMeet: [30],
      steps: [{ t: 30, fromRps: 100, toRps: 300 }],
    },
    {
      name: "no ready pod yet: the shortfall is converted once the capacity is known",
      durationSeconds: 30,
      samples: [
        { t: 0, demandRps: 50, servedRps: 0, readyPods: 0 },
        { t: 10, demandRps: 50, servedRps: 25, readyPods: 1 },
        { t: 20, demandRps: 50, servedRps: 50, readyPods: 2 },
      ],
      // [0,10): 50 rps × 10 s at 25 rps/pod (learned at t=10) = 20; [10,20): 1 pod × 10 s = 10
      unmetPodSeconds: 30,
      unmetSeconds: 20,
      // the first sample is no step
      timeToMeet: [],
      steps: [],
    },
    {
      name: "unlimited capacity: time counted, pod-seconds zero",
      durationSeconds: 40,
      samples: [
        { t: 0, demandRps: 10, servedRps: 10, readyPods: 1, capacityRps: null },
        { t: 10, demandRps: 40, servedRps: 0, readyPods: 0, capacityRps: null },
        { t: 20, demandRps: 40, servedRps: 40, readyPods: 1, capacityRps: null },
      ],
      unmetPodSeconds: 0,
      unmetSeconds: 10,
      timeToMeet: [10],
      steps: [{ t: 10, fromRps: 10, toRps: 40 }],
    },
    {
      name: "two steps before demand is met: both end at the same sample; the last never",
      durationSeconds: 200,
      samples: [
        { t: 0, demandRps: 100, servedRps: 100, readyPods: 1, capacityRps: 100 },
        { t: 15, demandRps: 200, servedRps: 100, readyPods: 1, capacityRps: 100 },
        { t: 30, demandRps: 400, servedRps: 100, readyPods: 1, capacityRps: 100 },
        { t: 45, demandRps: 400, servedRps: 400, readyPods: 4, capacityRps: 100 },
        { t: 60, demandRps: 1000, servedRps: 400, readyPods: 4, capacityRps: 100 },
      ],
      // short 1 pod × 15 + 3 pods × 15 + 6 pods × (200 − 60) = 15 + 45 + 840 = 900
      unmetPodSeconds: 900,
      // 15 + 15 + 140
      unmetSeconds: 170,
      timeToMeet: [30, 15, null],
      steps: [
        { t: 15, fromRps: 100, toRps: 200 },
        { t: 30, fromRps: 200, toRps: 400 },
        { t: 60, fromRps: 400, toRps: 1000 },
      ],
    },
    {
      name: "a step met at once takes 0 s; a rise within 10% is no step",
      durationSeconds: 60,
      samples: [
        { t: 0, demandRps: 100, servedRps: 100, readyPods: 5, capacityRps: 100 },
        { t: 15, demandRps: 110, servedRps: 110, readyPods: 5, capacityRps: 100 },
        { t: 30, demandRps: 200, servedRps: 200, readyPods: 5, capacityRps: 100 },
      ],
      unmetPodSeconds: 0,
      unmetSeconds: 0,
      timeToMeet: [0],
      steps: [{ t: 30, fromRps: 110, toRps: 200 }],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const s = summarize(
        c.samples.map((x) => sample(x)),
        start({ durationSeconds: c.durationSeconds }),
      );
      assert.ok(
        Math.abs(s.unmetDemandPodSeconds - c.unmetPodSeconds) < 1e-9,
        `pod-seconds ${s.unmetDemandPodSeconds} vs ${c.unmetPodSeconds}`,
      );
      assert.equal(s.unmetDemandSeconds, c.unmetSeconds);
      assert.deepEqual(s.timeToMeetDemandSeconds, c.timeToMeet);
      assert.deepEqual(s.loadSteps, c.steps);
    });
  }
});

describe("load step threshold", () => {
  const cases = [
    { name: "rise of exactly 10% is no step", from: 100, to: 110, step: false },
    { name: "rise above 10% is a step", from: 100, to: 111, step: true },
    { name: "rise from 0 below 1 rps is no step", from: 0, to: 0.5, step: false },
    { name: "rise from 0 above 1 rps is a step", from: 0, to: 2, step: true },
    { name: "a fall is no step", from: 100, to: 10, step: false },
    { name: "10% of 5 rps is below the 1 rps floor", from: 5, to: 5.8, step: false },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(isLoadStep(c.from, c.to), c.step));
  }
});

describe("scaling actions, flaps and replicas", () => {
  test("reversals within 300 s are flaps, whatever the HPA's own window", () => {
    const s = summarize([
      sync({ t: 0, from: 1, to: 3 }), // up
      sync({ t: 60, from: 3, to: 2 }), // down 60 s after an up, within 300 s: flap 1
      sync({ t: 75, from: 2, to: 2 }), // no action
      sync({ t: 400, from: 2, to: 4 }), // up 340 s after the down: no flap
      sync({ t: 415, from: 4, to: 3 }), // down 15 s after: flap 2
      sync({ t: 430, from: 3, to: 2 }), // down after a down: no reversal
      // up 70 s after the down: flap 3. The trace says the behavior's scale-down window is 10 s,
      // but flaps are counted with one 300 s yardstick for every run (issue 39)
      sync({
        t: 500,
        from: 2,
        to: 5,
        trace: {
          stabilization: {
            path: "behavior",
            recommendation: 5,
            stabilized: 5,
            reason: "ReadyForNewScale",
            scaleUpWindowSeconds: 0,
            scaleDownWindowSeconds: 10,
          },
        },
      }),
    ]);
    assert.equal(s.scaleUps, 3);
    assert.equal(s.scaleDowns, 3);
    assert.equal(s.flaps, 3);
    assert.equal(s.lowestReplicas, 1);
    assert.equal(s.highestReplicas, 5);
    assert.equal(s.finalReplicas, 5);
    assert.deepEqual(
      s.actions.map((a) => [a.t, a.from, a.to]),
      [
        [0, 1, 3],
        [60, 3, 2],
        [400, 2, 4],
        [415, 4, 3],
        [430, 3, 2],
        [500, 2, 5],
      ],
    );
  });

  test("a window of 0 flaps like any other: the yardstick is not the HPA's setting", () => {
    const window0 = {
      stabilization: {
        path: "behavior" as const,
        recommendation: 1,
        stabilized: 1,
        reason: "ReadyForNewScale",
        scaleUpWindowSeconds: 0,
        scaleDownWindowSeconds: 0,
      },
    };
    const s = summarize(
      [
        sync({ t: 0, from: 1, to: 3, trace: window0 }),
        sync({ t: 180, from: 3, to: 1, trace: window0 }), // 180 ≤ 300: flap 1
        sync({ t: 360, from: 1, to: 3, trace: window0 }), // flap 2
        sync({ t: 661, from: 3, to: 1, trace: window0 }), // 301 > 300: not a flap
      ],
      start({ durationSeconds: 700, hpas: [{ ...start().hpas[0]!, scaleDownWindowSeconds: 0 }] }),
    );
    assert.equal(s.flaps, 2);
  });

  test("a reversal exactly at the window's length is a flap (inclusive)", () => {
    const s = summarize(
      [sync({ t: 0, from: 1, to: 3 }), sync({ t: 300, from: 3, to: 1 })],
      start({ durationSeconds: 600 }),
    );
    assert.equal(s.flaps, 1);
  });

  test("actions carry the rescale reason and the limit reason of the trace", () => {
    const s = summarize([
      sync({
        t: 15,
        from: 2,
        to: 4,
        trace: {
          rescaleReason: "cpu resource utilization (percentage of request) above target",
          limit: {
            reason: "ScaleUpLimit",
            message: "the desired replica count is increasing faster than the maximum scale rate",
            legacyScaleUpLimit: 4,
          },
        },
      }),
    ]);
    assert.deepEqual(s.actions, [
      {
        t: 15,
        from: 2,
        to: 4,
        reason: "cpu resource utilization (percentage of request) above target",
        limit: "ScaleUpLimit",
      },
    ]);
  });

  test("samples' spec replicas count; a scale that could not be read does not", () => {
    const s = summarize([
      sample({ t: 0, specReplicas: 2 }),
      sync({ t: 15, from: 0, to: 0, trace: { scale: { error: "not found" } } }),
      sample({ t: 15, specReplicas: 6 }), // scaled by hand
      sample({ t: 30, specReplicas: 3 }),
    ]);
    assert.equal(s.lowestReplicas, 2);
    assert.equal(s.highestReplicas, 6);
    assert.equal(s.finalReplicas, 3);
    assert.equal(s.scaleUps + s.scaleDowns, 0);
  });

  test("nothing observed: replicas 0, bounds from the start record", () => {
    const s = summarize([]);
    assert.deepEqual(
      [s.minReplicas, s.maxReplicas, s.lowestReplicas, s.highestReplicas, s.finalReplicas],
      [1, 10, 0, 0, 0],
    );
  });
});

describe("utilization", () => {
  test("time-weighted mean over samples with a value; target from the start record", () => {
    const s = summarize(
      [
        sample({ t: 0, cpuUtilization: 40 }),
        sample({ t: 30, cpuUtilization: 80 }),
        sample({ t: 60, cpuUtilization: null }),
      ],
      start({ durationSeconds: 90 }),
    );
    // (40×30 + 80×30) / 60 = 60
    assert.equal(s.meanUtilization, 60);
    assert.equal(s.targetUtilization, 50);
  });

  test("the latest trace's cpu target wins; no cpu target: null", () => {
    const withTrace = summarize([
      sync({
        t: 15,
        from: 1,
        to: 1,
        trace: {
          metrics: [
            {
              index: 0,
              type: "Resource",
              description: "cpu resource utilization (percentage of request)",
              target: { type: "Utilization", value: "70%" },
              utilization: 35,
              current: "35m",
              proposal: 1,
            },
          ],
        },
      }),
    ]);
    assert.equal(withTrace.targetUtilization, 70);
    assert.equal(withTrace.meanUtilization, null);
    const base = start();
    const noCpu = summarize([], {
      ...base,
      hpas: [{ ...base.hpas[0]!, metrics: ["Pods http_requests AverageValue 500m"] }],
    });
    assert.equal(noCpu.targetUtilization, null);
  });
});

describe("collector", () => {
  test("summary() can be called twice with the same result", () => {
    const c = new MeasureCollector(start());
    c.add(sample({ t: 0, pods: 2, demandRps: 10, servedRps: 5, capacityRps: 5 }));
    c.add(sync({ t: 15, from: 1, to: 2 }));
    const first = c.summary();
    assert.deepEqual(c.summary(), first);
    // 2 pods × 120 s = 240 pod-s
    assert.ok(Math.abs(first.hpas[0]!.podHours - 240 / 3600) < 1e-12);
  });

  test("HPAs sharing a workload both see its samples; unknown HPAs are measured from syncs", () => {
    const base = start();
    const c = new MeasureCollector({
      ...base,
      hpas: [base.hpas[0]!, { ...base.hpas[0]!, hpa: "default/web-2" }],
    });
    c.add(sample({ t: 0, pods: 1 }));
    c.add(sync({ t: 15, from: 1, to: 2, hpa: "other/api" }));
    const s = c.summary();
    assert.deepEqual(
      s.hpas.map((h) => [h.hpa, h.podHours * 3600, h.scaleUps]),
      [
        ["default/web", 120, 0],
        ["default/web-2", 120, 0],
        ["other/api", 0, 1],
      ],
    );
  });

  test("property: pod-hours is the step integral; unmet time and times to meet lie in the run", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            dt: fc.integer({ min: 1, max: 60 }),
            pods: fc.integer({ min: 0, max: 20 }),
            demand: fc.integer({ min: 0, max: 1000 }),
            served: fc.integer({ min: 0, max: 1000 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (rows) => {
          let t = 0;
          const samples: SampleRecord[] = [];
          for (const r of rows) {
            samples.push(
              sample({
                t,
                pods: r.pods,
                readyPods: r.pods,
                demandRps: r.demand,
                servedRps: Math.min(r.served, r.demand),
              }),
            );
            t += r.dt;
          }
          const end = t;
          const s = summarize(samples, start({ durationSeconds: end }));
          let podSeconds = 0;
          samples.forEach((x, i) => {
            podSeconds += x.pods * ((samples[i + 1]?.t ?? end) - x.t);
          });
          assert.ok(Math.abs(s.podHours * 3600 - podSeconds) < 1e-6);
          assert.ok(s.unmetDemandSeconds >= 0 && s.unmetDemandSeconds <= end);
          assert.equal(s.timeToMeetDemandSeconds.length, s.loadSteps.length);
          s.timeToMeetDemandSeconds.forEach((x, i) => {
            if (x !== null) assert.ok(x >= 0 && x <= end - s.loadSteps[i]!.t);
          });
        },
      ),
    );
  });
});

describe("elasticity (Herbst et al.)", () => {
  const yardsticks = { "default/web": { capacityRps: 100, bounds: [] } };
  const run = (
    records: SimulationRecord[],
    durationSeconds: number,
    y: Record<string, DemandYardstick | null> = yardsticks,
  ) => {
    const collector = new MeasureCollector(start({ durationSeconds }), y);
    for (const r of records) collector.add(r);
    return collector.summary().hpas[0]!;
  };

  test("accuracy, timeshare, instability and jitter of a hand-made run", () => {
    // demand = ⌈rps / 100⌉ (at least 1), supply = ready pods; each sample holds 60 s.
    const s = run(
      [
        sample({ t: 0, demandRps: 100, readyPods: 1 }), //   d1 s1
        sample({ t: 60, demandRps: 300, readyPods: 1 }), //  d3 s1: under 2/3; d moved, s not
        sample({ t: 120, demandRps: 300, readyPods: 4 }), // d3 s4: over 1/3; s moved, d not
        sample({ t: 180, demandRps: 100, readyPods: 2 }), // d1 s2: over 1; both down: stable
        sample({ t: 240, demandRps: 100, readyPods: 3 }), // d1 s3: over 2; s moved, d not
      ],
      300,
    );
    // θU = 100 × (2/3 × 60) / 300; θO = 100 × (1/3 + 1 + 2) × 60 / 300
    assert.ok(Math.abs(s.underProvisioningAccuracy! - 40 / 3) < 1e-9);
    assert.ok(Math.abs(s.overProvisioningAccuracy! - 200 / 3) < 1e-9);
    assert.equal(s.underProvisioningTimeshare, 20); // 60 of 300 s
    assert.equal(s.overProvisioningTimeshare, 60); // 180 of 300 s
    assert.equal(s.instability, 75); // 180 of the 240 s after the first sample
    // 3 supply changes − 2 demand changes over 5 minutes
    assert.ok(Math.abs(s.jitter! - 0.2) < 1e-12);
    // (1 + 3 + 3 + 1 + 1) × 60 pod-seconds
    assert.equal(s.demandPodHours, 0.15);
  });

  test("a demand the targets cannot meet leaves its samples out", () => {
    const s = run(
      [
        sample({ t: 0, demandRps: 50, readyPods: 2 }),
        sample({ t: 60, demandRps: 150, readyPods: 2 }),
      ],
      120,
      // cpu: idle 50m, 1m per rps, target 100m: 50 rps need 1 pod, 150 rps need 3.
      {
        "default/web": {
          capacityRps: null,
          bounds: [{ metric: "cpu", base: 50, perRps: 1, target: 100 }],
        },
      },
    );
    assert.equal(s.overProvisioningTimeshare, 50); // d1 s2 for 60 s, then d3 s2
    assert.equal(s.underProvisioningTimeshare, 50);
    const never = run([sample({ t: 0, demandRps: 50, readyPods: 2 })], 60, {
      "default/web": {
        capacityRps: null,
        bounds: [{ metric: "cpu", base: 120, perRps: 1, target: 100 }],
      },
    });
    assert.equal(never.underProvisioningAccuracy, null);
    assert.equal(never.demandPodHours, null);
  });

  test("without a demand model every elasticity measure is null", () => {
    const s = run([sample({ t: 0, demandRps: 100, readyPods: 1 })], 60, {});
    for (const key of [
      "demandPodHours",
      "underProvisioningAccuracy",
      "overProvisioningAccuracy",
      "underProvisioningTimeshare",
      "overProvisioningTimeshare",
      "instability",
      "jitter",
    ] as const)
      assert.equal(s[key], null, key);
  });
});
