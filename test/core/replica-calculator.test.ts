import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { PodView } from "../../src/core/pods.js";
import {
  calculatePodRequests,
  groupPods,
  type PodSamples,
  perPodReplicas,
  plainMetricReplicas,
  podRequestList,
  readyRunningPodCount,
  resourceUtilizationReplicas,
  type SampleColumns,
  sampleColumns,
  sampleCount,
  samplesByName,
  usageRatioReplicas,
} from "../../src/core/replica-calculator.js";
import { pod, pods, t } from "./builders.js";

const readiness = { cpuInitializationPeriodMs: 300_000, initialReadinessDelayMs: 30_000 };
const tolerances = { scaleUp: 0.1, scaleDown: 0.1 };
const sample = (value: number, timestamp = t(-10), window = 30_000) => ({
  value,
  timestamp,
  window,
});

describe("groupPods", () => {
  const cases = [
    {
      name: "a deleting pod is ignored even with a metric",
      pod: pod({ name: "p", deleting: true }),
      hasMetric: true,
      expect: "ignored",
    },
    {
      name: "a Failed pod is ignored",
      pod: pod({ name: "p", phase: "Failed" }),
      hasMetric: true,
      expect: "ignored",
    },
    {
      name: "a Pending pod is unready, not missing, without a metric",
      pod: pod({ name: "p", phase: "Pending" }),
      hasMetric: false,
      expect: "unready",
    },
    {
      name: "a Running pod without a metric is missing",
      pod: pod({ name: "p" }),
      hasMetric: false,
      expect: "missing",
    },
    {
      name: "a young pod whose sample predates readiness + window is unready",
      pod: pod({
        name: "p",
        startTime: t(-60),
        ready: { status: "True", lastTransitionTime: t(-20) },
      }),
      hasMetric: true,
      expect: "unready",
    },
    {
      name: "an old pod that was ready before and is now not ready keeps its metric",
      pod: pod({
        name: "p",
        startTime: t(-3600),
        ready: { status: "False", lastTransitionTime: t(-60) },
      }),
      hasMetric: true,
      expect: "ready",
    },
    {
      name: "an old pod that never became ready is unready",
      pod: pod({
        name: "p",
        startTime: t(-3600),
        ready: { status: "False", lastTransitionTime: t(-3590) },
      }),
      hasMetric: true,
      expect: "unready",
    },
    {
      name: "a pod with no Ready condition is unready for cpu",
      pod: pod({ name: "p", ready: null }),
      hasMetric: true,
      expect: "unready",
    },
  ] as const;
  for (const c of cases) {
    it(c.name, () => {
      const samples = new Map(c.hasMetric ? [["p", sample(100)]] : []);
      // A list seen once, and a frozen one, whose readiness is derived once and kept.
      for (const list of [[c.pod], Object.freeze([c.pod])]) {
        const groups = groupPods(list, samples, "cpu", readiness, t(0));
        const where = groups.ignored.includes("p")
          ? "ignored"
          : groups.unready.includes("p")
            ? "unready"
            : groups.missing.includes("p")
              ? "missing"
              : "ready";
        assert.equal(where, c.expect);
        assert.equal(groups.readyPodCount, c.expect === "ready" ? 1 : 0);
      }
    });
  }

  it("applies no readiness timing to memory", () => {
    const young = pod({
      name: "p",
      startTime: t(-10),
      ready: { status: "False", lastTransitionTime: t(-5) },
    });
    const groups = groupPods([young], new Map([["p", sample(1)]]), "memory", readiness, t(0));
    assert.equal(groups.readyPodCount, 1);
  });
});

describe("groupPods finds each pod's sample whatever the samples' order", () => {
  // Samples in the pods' order are walked alongside them; any other order, extra samples, a
  // sample of an ignored pod or a missing one fall back to lookups by name.
  const list = [
    pod({ name: "a" }),
    pod({ name: "b", deleting: true }),
    pod({ name: "c" }),
    pod({ name: "d" }),
    pod({ name: "e" }),
  ];
  const orders: [string, string[]][] = [
    ["the pods' order", ["a", "b", "c", "e"]],
    ["reversed", ["e", "c", "b", "a"]],
    ["with samples of pods not listed", ["x", "a", "y", "b", "c", "e", "z"]],
    ["shuffled", ["c", "a", "e", "b"]],
  ];
  for (const [name, keys] of orders) {
    it(name, () => {
      const samples = new Map(keys.map((k, i) => [k, sample(100 + i)]));
      const ready: number[] = new Array(list.length);
      const groups = groupPods(list, samples, "cpu", readiness, t(0), ready);
      assert.deepEqual(
        { ...groups },
        { readyPodCount: 3, unready: [], missing: ["d"], ignored: ["b"] },
      );
      const value = (name: string) => samples.get(name)!.value;
      assert.deepEqual(ready, [value("a"), Number.NaN, value("c"), Number.NaN, value("e")]);
    });
  }
});

describe("a pod list's readiness, derived once and kept with the list", () => {
  // A list handed again (frozen, or the same PodViews) is grouped from readiness times derived
  // once: sync after sync, with time passing and other settings or resources, it must group as
  // a list seen for the first time does.
  const podArb = fc.record({
    phase: fc.constantFrom("Running" as const, "Pending" as const, "Failed" as const),
    deleting: fc.boolean(),
    startSeconds: fc.option(fc.integer({ min: -700, max: 0 }), { nil: null }),
    ready: fc.option(
      fc.record({
        status: fc.constantFrom("True" as const, "False" as const, "Unknown" as const),
        afterStartSeconds: fc.integer({ min: 0, max: 150 }),
      }),
      { nil: null },
    ),
    sample: fc.option(
      fc.record({
        agoSeconds: fc.integer({ min: 0, max: 120 }),
        windowSeconds: fc.constantFrom(15, 30, 60),
      }),
      { nil: null },
    ),
  });
  // Every resource and settings in some order at each time, so that what was derived for one
  // is read for another.
  const settingsArb = fc.shuffledSubarray(
    ["cpu", "memory"].flatMap((resource) =>
      [0, 60, 300].flatMap((initializationSeconds) =>
        [0, 30, 120].map((delaySeconds) => ({ resource, initializationSeconds, delaySeconds })),
      ),
    ),
    { minLength: 18 },
  );
  const syncArb = fc.record({ nowSeconds: fc.integer({ min: 0, max: 600 }), order: settingsArb });
  it("groups as a list seen for the first time, sync after sync", () => {
    fc.assert(
      fc.property(
        fc.array(podArb, { minLength: 1, maxLength: 20 }),
        fc.array(syncArb, { minLength: 1, maxLength: 4 }),
        (specs, syncs) => {
          const views = specs.map((p, i) => {
            const startTime = p.startSeconds === null ? null : t(p.startSeconds);
            const from = startTime ?? t(-700);
            return pod({
              name: `p${i}`,
              phase: p.phase,
              deleting: p.deleting,
              startTime,
              ready:
                p.ready === null
                  ? null
                  : {
                      status: p.ready.status,
                      lastTransitionTime: from + p.ready.afterStartSeconds * 1000,
                    },
            });
          });
          const frozen = Object.freeze([...views]);
          const kept = [...views];
          // The request lookup keeps what it derives of `kept`, as a sync's calculation does.
          podRequestList(kept, "", "cpu", false);
          for (const { nowSeconds, order } of syncs) {
            const now = t(nowSeconds);
            const byName: PodSamples = new Map();
            specs.forEach((p, i) => {
              if (p.sample === null) return;
              byName.set(
                `p${i}`,
                sample(100 + i, now - p.sample.agoSeconds * 1000, p.sample.windowSeconds * 1000),
              );
            });
            const columns: SampleColumns = { ...sampleColumns(views, byName), pods: frozen };
            for (const s of order) {
              const settings = {
                cpuInitializationPeriodMs: s.initializationSeconds * 1000,
                initialReadinessDelayMs: s.delaySeconds * 1000,
              };
              const group = (list: readonly PodView[], samples: PodSamples | SampleColumns) => {
                const ready: number[] = new Array(list.length);
                const groups = groupPods(list, samples, s.resource, settings, now, ready);
                return { groups: { ...groups }, ready };
              };
              const expected = group([...views], byName);
              assert.deepEqual(group(frozen, byName), expected);
              assert.deepEqual(group(kept, byName), expected);
              assert.deepEqual(group(frozen, columns), expected);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("sample columns", () => {
  const list = [pod({ name: "a" }), pod({ name: "b" }), pod({ name: "c" })];
  it("align samples by name with the pod list, keeping the values of pods not listed", () => {
    const samples = new Map([
      ["c", sample(3, t(-5), 15_000)],
      ["x", sample(9)],
      ["a", sample(1, t(-6), 30_000)],
    ]);
    const columns = sampleColumns(list, samples);
    assert.equal(columns.pods, list);
    assert.deepEqual(columns.values, [1, Number.NaN, 3]);
    assert.deepEqual(columns.timestamps, [t(-6), 0, t(-5)]);
    assert.deepEqual(columns.windows, [30_000, 0, 15_000]);
    assert.deepEqual(columns.extra, [9]);
    assert.equal(sampleCount(columns), 3);
    assert.deepEqual(
      [...samplesByName(columns)].sort(),
      [...samples].filter(([name]) => name !== "x").sort(),
    );
  });
  it("are used as they are when aligned with this very list, realigned by name otherwise", () => {
    const columns: SampleColumns = {
      pods: list,
      values: [1, 2, 3],
      timestamps: [t(-1), t(-2), t(-3)],
      windows: [15_000, 15_000, 15_000],
      extra: [7],
    };
    assert.equal(sampleColumns(list, columns), columns);
    const other = [list[2]!, pod({ name: "d" }), list[0]!];
    const realigned = sampleColumns(other, columns);
    assert.deepEqual(realigned.values, [3, Number.NaN, 1]);
    assert.deepEqual(realigned.timestamps, [t(-3), 0, t(-1)]);
    // b is not in the new list: its value joins the extras.
    assert.deepEqual(realigned.extra.sort(), [2, 7]);
  });
});

describe("groupPods over columns", () => {
  it("reads each pod's state anew when the same list is refilled with other pods", () => {
    const list = [pod({ name: "a" }), pod({ name: "b" })];
    const columns = (): SampleColumns => ({
      pods: list,
      values: [100, 200],
      timestamps: [t(-10), t(-10)],
      windows: [30_000, 30_000],
      extra: [],
    });
    assert.deepEqual(
      { ...groupPods(list, columns(), "cpu", readiness, t(0)) },
      { readyPodCount: 2, unready: [], missing: [], ignored: [] },
    );
    // In place: b is now terminating, and a third pod has not started.
    list[1] = pod({ name: "b", deleting: true });
    list.push(pod({ name: "c", phase: "Pending" }));
    const refilled = { ...columns(), values: [100, 200, Number.NaN] };
    refilled.timestamps.push(0);
    refilled.windows.push(0);
    assert.deepEqual(
      { ...groupPods(list, refilled, "cpu", readiness, t(0)) },
      { readyPodCount: 1, unready: ["c"], missing: [], ignored: ["b"] },
    );
  });
});

describe("samples by name and aligned columns give the same calculation", () => {
  // Pods of every kind (ready, young, unready, pending, deleting, failed), each with or without
  // a sample, plus samples of pods not listed: the calculator must not care how they came.
  const kinds: Partial<PodView>[] = [
    {},
    { startTime: t(-60), ready: { status: "True", lastTransitionTime: t(-50) } },
    { startTime: t(-60), ready: { status: "True", lastTransitionTime: t(-5) } },
    { ready: { status: "False", lastTransitionTime: t(-3590) } },
    { phase: "Pending" },
    { deleting: true },
    { phase: "Failed" },
  ];
  const podArb = fc.record({
    kind: fc.integer({ min: 0, max: kinds.length - 1 }),
    value: fc.option(fc.integer({ min: 0, max: 400 }), { nil: null }),
  });
  const input = fc.record({
    pods: fc.array(podArb, { minLength: 1, maxLength: 12 }),
    extra: fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 2 }),
    currentReplicas: fc.integer({ min: 1, max: 20 }),
    target: fc.integer({ min: 10, max: 200 }),
    resource: fc.constantFrom("cpu", "memory"),
  });
  const build = (c: typeof input extends fc.Arbitrary<infer R> ? R : never) => {
    const list = c.pods.map((p, i) => pod({ name: `p${i}`, ...kinds[p.kind]! }));
    const byName: PodSamples = new Map();
    c.pods.forEach((p, i) => {
      if (p.value !== null) byName.set(`p${i}`, sample(p.value));
    });
    c.extra.forEach((v, i) => {
      byName.set(`gone${i}`, sample(v));
    });
    const columns: SampleColumns = {
      pods: list,
      values: c.pods.map((p) => p.value ?? Number.NaN),
      timestamps: c.pods.map((p) => (p.value === null ? 0 : t(-10))),
      windows: c.pods.map((p) => (p.value === null ? 0 : 30_000)),
      extra: c.extra,
    };
    return { list, byName, columns };
  };
  it("Utilization targets", () => {
    fc.assert(
      fc.property(input, (c) => {
        const { list, byName, columns } = build(c);
        const run = (samples: PodSamples | SampleColumns) =>
          resourceUtilizationReplicas({
            currentReplicas: c.currentReplicas,
            pods: list,
            samples,
            resource: c.resource,
            tolerances,
            readiness,
            now: t(0),
            targetUtilization: c.target,
            requests: () => podRequestList(list, "", "cpu", false),
          });
        assert.deepEqual(run(columns), run(byName));
      }),
    );
  });
  it("a frozen list (read through a copy) gives the same calculation, call after call", () => {
    fc.assert(
      fc.property(input, (c) => {
        const { list, byName } = build(c);
        const frozen = Object.freeze([...list]);
        const run = (pods: readonly PodView[]) =>
          resourceUtilizationReplicas({
            currentReplicas: c.currentReplicas,
            pods,
            samples: byName,
            resource: c.resource,
            tolerances,
            readiness,
            now: t(0),
            targetUtilization: c.target,
            requests: () => podRequestList(pods, "", "cpu", false),
          });
        const expected = run(list);
        assert.deepEqual(run(frozen), expected);
        assert.deepEqual(run(frozen), expected);
      }),
    );
  });
  it("plain per-pod targets", () => {
    fc.assert(
      fc.property(input, (c) => {
        const { list, byName, columns } = build(c);
        const run = (samples: PodSamples | SampleColumns) =>
          plainMetricReplicas({
            currentReplicas: c.currentReplicas,
            pods: list,
            samples,
            resource: c.resource,
            tolerances,
            readiness,
            now: t(0),
            targetMilli: c.target,
          });
        assert.deepEqual(run(columns), run(byName));
      }),
    );
  });
});

describe("calculatePodRequests", () => {
  const cases = [
    {
      name: "sums containers and restartable init containers",
      pod: pod({
        name: "p",
        containers: [
          { name: "a", requests: { cpu: 100 } },
          { name: "b", requests: { cpu: 50 } },
        ],
        restartableInitContainers: [{ name: "sidecar", requests: { cpu: 25 } }],
      }),
      container: "",
      podLevel: false,
      expect: { ok: true, milli: 175 },
    },
    {
      name: "a named container counts alone",
      pod: pod({
        name: "p",
        containers: [
          { name: "a", requests: { cpu: 100 } },
          { name: "b", requests: { cpu: 50 } },
        ],
      }),
      container: "b",
      podLevel: false,
      expect: { ok: true, milli: 50 },
    },
    {
      name: "a container without a request fails with upstream's message",
      pod: pod({ name: "p", containers: [{ name: "a", requests: {} }] }),
      container: "",
      podLevel: false,
      expect: { ok: false, error: "missing request for cpu in container a of Pod p" },
    },
    {
      name: "pod-level requests win when the gate is on",
      pod: pod({ name: "p", podRequests: { cpu: 800 }, containers: [{ name: "a", requests: {} }] }),
      container: "",
      podLevel: true,
      expect: { ok: true, milli: 800 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = calculatePodRequests([c.pod], c.container, "cpu", c.podLevel);
      if (c.expect.ok) {
        assert.ok(result.ok);
        assert.equal(result.requests.get("p"), c.expect.milli);
      } else {
        assert.ok(!result.ok);
        assert.equal(result.error, c.expect.error);
      }
    });
  }
});

describe("podRequestList", () => {
  it("reuses a list's requests only while it holds the same pods, and per resource", () => {
    const list = pods(3, { cpuRequestMilli: 100 });
    const first = podRequestList(list, "", "cpu", false);
    assert.deepEqual(first, { ok: true, requests: [100, 100, 100] });
    const again = podRequestList(list, "", "cpu", false);
    assert.ok(first.ok && again.ok && again.requests === first.requests, "the list is reused");
    // The same array refilled in place with a changed pod (a new view) and one pod more.
    list[1] = pod({ name: "web-1", cpuRequestMilli: 250 });
    assert.deepEqual(podRequestList(list, "", "cpu", false), {
      ok: true,
      requests: [100, 250, 100],
    });
    list.push(pod({ name: "web-3", cpuRequestMilli: 50 }));
    assert.deepEqual(podRequestList(list, "", "cpu", false), {
      ok: true,
      requests: [100, 250, 100, 50],
    });
    assert.deepEqual(podRequestList(list, "", "memory", false), {
      ok: false,
      error: "missing request for memory in container app of Pod web-0",
    });
  });

  it("is read anew by a calculation over a list refilled in place with other pods", () => {
    // Grouping compares the list with the views it held while it walks it: any pod changed,
    // first, middle or last, must give the new requests.
    const list = pods(100, { cpuRequestMilli: 100 });
    const utilization = () => {
      const result = resourceUtilizationReplicas({
        resource: "cpu",
        tolerances,
        readiness,
        now: t(0),
        currentReplicas: list.length,
        pods: list,
        samples: new Map(list.map((p) => [p.name, sample(50)])),
        targetUtilization: 50,
        requests: () => podRequestList(list, "", "cpu", false),
      });
      assert.ok(result.ok);
      return result.utilization;
    };
    assert.equal(utilization(), 50);
    assert.equal(utilization(), 50);
    for (const at of [0, 57, 99]) {
      list[at] = pod({ name: `web-${at}`, cpuRequestMilli: 100 + 100 * list.length });
      // Σusage 5,000 over Σrequest 9,900 + 100 × (1 + 100) at each step.
      const total = list.reduce((sum, p) => sum + p.containers[0]!.requests.cpu!, 0);
      assert.equal(utilization(), Math.trunc((5_000 * 100) / total), `pod ${at} changed`);
    }
    list.push(pod({ name: "web-100", cpuRequestMilli: 100 }));
    const total = list.reduce((sum, p) => sum + p.containers[0]!.requests.cpu!, 0);
    assert.equal(utilization(), Math.trunc((101 * 50 * 100) / total), "a pod more");
  });
});

describe("resourceUtilizationReplicas", () => {
  const base = { resource: "cpu", tolerances, readiness, now: t(0) };
  it("scales up by ceil(ratio × ready pods) and reports the truncated utilization", () => {
    const list = pods(3, { cpuRequestMilli: 100 });
    const samples = new Map(list.map((p, i) => [p.name, sample([80, 90, 100][i]!)]));
    const result = resourceUtilizationReplicas({
      ...base,
      currentReplicas: 3,
      pods: list,
      samples,
      targetUtilization: 50,
      requests: () => podRequestList(list, "", "cpu", false),
    });
    assert.ok(result.ok);
    assert.equal(result.utilization, 90);
    assert.equal(result.replicas, 6); // 90/50 = 1.8 × 3 = 5.4 → 6
    assert.equal(result.rawValueMilli, 90n);
    assert.equal(result.trace.path, "direct");
  });

  it("treats missing pods as at their request on a scale-down and keeps direction", () => {
    const list = pods(4, { cpuRequestMilli: 100 });
    const samples = new Map([
      ["web-0", sample(10)],
      ["web-1", sample(10)],
    ]);
    const result = resourceUtilizationReplicas({
      ...base,
      currentReplicas: 4,
      pods: list,
      samples,
      targetUtilization: 50,
      requests: () => podRequestList(list, "", "cpu", false),
    });
    assert.ok(result.ok);
    // First pass 10% → ratio 0.2; with 2 missing pods at 100%: 220/400 = 55% → 1.1 → in band.
    assert.equal(result.replicas, 4);
    assert.equal(result.trace.path, "rebalancedWithinTolerance");
    assert.deepEqual(result.trace.missingPods, ["web-2", "web-3"]);
  });

  it("gives each calculation over a long list its own values (the buffers are reused)", () => {
    const run = (count: number, usage: (i: number) => number | null) => {
      const list = pods(count, { cpuRequestMilli: 100 });
      const samples: PodSamples = new Map();
      list.forEach((p, i) => {
        const value = usage(i);
        if (value !== null) samples.set(p.name, sample(value));
      });
      return resourceUtilizationReplicas({
        ...base,
        currentReplicas: count,
        pods: list,
        samples,
        targetUtilization: 50,
        requests: () => podRequestList(list, "", "cpu", false),
      });
    };
    // Longest first, so that a shorter list would see the longer one's values past its end.
    const long = run(300, () => 90);
    assert.ok(long.ok);
    assert.equal(long.utilization, 90);
    const short = run(100, () => 30);
    assert.ok(short.ok);
    assert.equal(short.utilization, 30);
    assert.equal(short.rawValueMilli, 30n);
    // Missing pods take the re-computation over the same buffer: 80 at 10%, 20 at 100%.
    const missing = run(100, (i) => (i < 80 ? 10 : null));
    assert.ok(missing.ok);
    assert.equal(missing.utilization, 10);
    assert.equal(missing.trace.newUsageRatio, 0.56); // (800 + 2,000) / 10,000 = 28% / 50%
    assert.equal(missing.trace.missingPods?.length, 20);
    const longer = run(700, (i) => (i % 2 === 0 ? 60 : 40));
    assert.ok(longer.ok);
    assert.equal(longer.utilization, 50);
    assert.equal(longer.replicas, 700);
    // A plain average sums every value it is handed: only this list's.
    const list = pods(100);
    const plain = plainMetricReplicas({
      ...base,
      resource: "memory",
      currentReplicas: 100,
      pods: list,
      samples: new Map(list.map((p) => [p.name, sample(20)])),
      targetMilli: 10,
    });
    assert.ok(plain.ok);
    assert.equal(plain.rawValueMilli, 20n);
    assert.equal(plain.replicas, 200);
  });
});

describe("usageRatioReplicas (Object/External Value)", () => {
  const cases = [
    {
      name: "inside the band keeps current",
      currentReplicas: 3,
      usageRatio: 1.05,
      readyPods: 3,
      expect: 3,
    },
    {
      name: "outside the band uses ready pods",
      currentReplicas: 3,
      usageRatio: 2,
      readyPods: 2,
      expect: 4,
    },
    {
      name: "from zero it is ceil(ratio) with no tolerance",
      currentReplicas: 0,
      usageRatio: 1.05,
      readyPods: 0,
      expect: 2,
    },
    {
      name: "saturates at MaxInt32 from v1.35 (kubernetes/kubernetes#126979)",
      currentReplicas: 1,
      usageRatio: 1e12,
      readyPods: 10,
      expect: 2147483647,
      version: "1.35" as const,
    },
    {
      name: "v1.34 converts unguarded: MinInt32, as amd64 does",
      currentReplicas: 1,
      usageRatio: 1e12,
      readyPods: 10,
      expect: -2147483648,
      version: "1.34" as const,
    },
    {
      name: "v1.34: in range, the same ceil",
      currentReplicas: 1,
      usageRatio: 2.1,
      readyPods: 10,
      expect: 21,
      version: "1.34" as const,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = usageRatioReplicas({
        currentReplicas: c.currentReplicas,
        usageRatio: c.usageRatio,
        pods: pods(Math.max(c.readyPods, 1)).map((p, i) =>
          i < c.readyPods ? p : { ...p, ready: null },
        ),
        tolerances,
        version: ("version" in c && c.version) || "1.37",
      });
      assert.ok(result.ok);
      assert.equal(result.replicas, c.expect);
    });
  }
});

describe("readyRunningPodCount", () => {
  it("counts a frozen list (counted once, kept with the list) as a list seen once", () => {
    const kinds: Partial<PodView>[] = [
      {},
      { phase: "Pending" },
      { ready: null },
      { ready: { status: "False", lastTransitionTime: t(-10) } },
      { phase: "Succeeded" },
    ];
    fc.assert(
      fc.property(fc.array(fc.nat(kinds.length - 1), { maxLength: 12 }), (picks) => {
        const list = picks.map((k, i) => pod({ name: `p${i}`, ...kinds[k]! }));
        const expected = picks.filter((k) => k === 0).length;
        assert.equal(readyRunningPodCount(list), expected);
        const frozen = Object.freeze([...list]);
        assert.equal(readyRunningPodCount(frozen), expected);
        assert.equal(readyRunningPodCount(frozen), expected);
        // Another frozen list of other pods has its own count.
        const others = Object.freeze(list.map((p) => ({ ...p, ready: null })));
        assert.equal(readyRunningPodCount(others), 0);
      }),
    );
  });
});

describe("perPodReplicas (Object/External AverageValue)", () => {
  const cases = [
    {
      name: "scale up by ceil(total/target)",
      total: 20_000n,
      target: 5_000n,
      statusReplicas: 3,
      replicas: 4,
      usage: 6667n,
    },
    {
      name: "inside the band keeps status replicas",
      total: 20_166n,
      target: 5_000n,
      statusReplicas: 4,
      replicas: 4,
      usage: 5042n,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = perPodReplicas({
        totalMilli: c.total,
        targetMilli: c.target,
        statusReplicas: c.statusReplicas,
        tolerances,
      });
      assert.equal(r.replicas, c.replicas);
      assert.equal(r.usageMilli, c.usage);
    });
  }
});

describe("properties", () => {
  it("proposes currentReplicas whenever the usage ratio is inside the tolerance band", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 200_000 }), { minLength: 1, maxLength: 30 }),
        (currentReplicas, targetMilli, up, down, values) => {
          const list = values.map((_, i) => pod({ name: `p${i}` }));
          const samples = new Map(values.map((v, i) => [`p${i}`, sample(v)]));
          const band = { scaleUp: up, scaleDown: down };
          const result = plainMetricReplicas({
            currentReplicas,
            pods: list,
            samples,
            resource: "",
            tolerances: band,
            readiness,
            now: t(0),
            targetMilli,
          });
          assert.ok(result.ok);
          const average = Math.trunc(values.reduce((a, b) => a + b, 0) / values.length);
          const ratio = average / targetMilli;
          if (1 - down <= ratio && ratio <= 1 + up) assert.equal(result.replicas, currentReplicas);
          else assert.equal(result.replicas, Math.ceil(ratio * values.length));
        },
      ),
    );
  });
});
