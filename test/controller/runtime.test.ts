// The controller runtime over a fake HPA source and fake (or in-process) ports, on a fake clock.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerStatus,
} from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import type { ControllerPorts, HpaSource, ScaleView } from "../../src/controller/ports.js";
import { hpaKey } from "../../src/controller/reconcile.js";
import {
  ControllerRuntime,
  type ControllerRuntimeOptions,
  ForeignWriterDetector,
  type ForeignWriterWarning,
  type RuntimeSyncReport,
} from "../../src/controller/runtime.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { EMPTY_HISTORY } from "../../src/core/history.js";
import { selectorMatches } from "../../src/core/selector.js";
import { resourceObservation } from "../../src/core/sources/resource-usage.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { deployment, hpa as hpaManifest, scenario } from "../cluster/builders.js";
import { cpuUsage, hpa, pods } from "../core/builders.js";
import { FakeTimers } from "./fake-timers.js";

/** An informer stand-in: holds HPAs, tells subscribers about every change. */
class FakeSource implements HpaSource {
  private items = new Map<string, HorizontalPodAutoscaler>();
  private listeners: ((key: string, hpa: HorizontalPodAutoscaler | null) => void)[] = [];
  private snapshot: readonly HorizontalPodAutoscaler[] = [];

  list(): readonly HorizontalPodAutoscaler[] {
    return this.snapshot;
  }

  subscribe(listener: (key: string, hpa: HorizontalPodAutoscaler | null) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  set(hpa: HorizontalPodAutoscaler): void {
    const key = hpaKey(hpa);
    this.items.set(key, hpa);
    this.snapshot = [...this.items.values()];
    for (const listener of this.listeners) listener(key, hpa);
  }

  delete(key: string): void {
    this.items.delete(key);
    this.snapshot = [...this.items.values()];
    for (const listener of this.listeners) listener(key, null);
  }
}

function namedHpa(name: string, labels: Record<string, string> = {}): HorizontalPodAutoscaler {
  const base = hpa();
  return { ...base, metadata: { ...base.metadata, name, labels } };
}

interface FakeWorld {
  timers: FakeTimers;
  source: FakeSource;
  ports: ControllerPorts;
  reports: RuntimeSyncReport[];
  statusWrites: string[];
  /** Sync start and end per key, to check overlap. */
  spans: { key: string; start: number; end: number }[];
  /** Fake time a getScale takes. */
  scaleLatencyMs: number;
  scaleFails: boolean;
  throwFor: Set<string>;
  concurrent: number;
  maxConcurrent: number;
}

function fakeWorld(): FakeWorld {
  const timers = new FakeTimers();
  const world: FakeWorld = {
    timers,
    source: new FakeSource(),
    reports: [],
    statusWrites: [],
    spans: [],
    scaleLatencyMs: 0,
    scaleFails: false,
    throwFor: new Set(),
    concurrent: 0,
    maxConcurrent: 0,
    ports: undefined as unknown as ControllerPorts,
  };
  const scale: ScaleView = { specReplicas: 2, statusReplicas: 2, selector: "app=web" };
  world.ports = {
    clock: { now: () => timers.now() },
    scale: {
      getScale: async (namespace, ref) => {
        const key = `${namespace}/${ref.name}`;
        world.concurrent++;
        world.maxConcurrent = Math.max(world.maxConcurrent, world.concurrent);
        const start = timers.now();
        if (world.scaleLatencyMs > 0)
          await new Promise<void>((resolve) => timers.setTimeout(resolve, world.scaleLatencyMs));
        world.concurrent--;
        world.spans.push({ key, start, end: timers.now() });
        if (world.throwFor.has(key)) throw new Error(`boom ${key}`);
        return world.scaleFails
          ? { ok: false, error: `deployments.apps "${ref.name}" not found` }
          : { ok: true, value: scale };
      },
      updateScale: async () => ({ ok: true, value: undefined }),
    },
    pods: {
      listPods: (_ns, selector) =>
        pods(2, { cpuRequestMilli: 100 }).filter((p) => selectorMatches(selector, p.labels)),
    },
    metrics: {
      observe: async () =>
        resourceObservation(cpuUsage({ "web-0": 50, "web-1": 50 }, timers.now()), "cpu"),
    },
    status: {
      updateStatus: async (target, _status: HorizontalPodAutoscalerStatus) => {
        world.statusWrites.push(hpaKey(target));
        return { ok: true, value: undefined };
      },
    },
    events: { record: () => {} },
  };
  return world;
}

function runtimeFor(
  world: FakeWorld,
  overrides: Partial<ControllerRuntimeOptions> & { workers?: number } = {},
): ControllerRuntime {
  const { workers, ...rest } = overrides;
  return new ControllerRuntime({
    ports: world.ports,
    config: { ...defaultControllerConfig(), concurrentSyncs: workers ?? 5 },
    source: world.source,
    timers: world.timers,
    onSync: (report) => world.reports.push(report),
    ...rest,
  });
}

/** Seconds after the start at which each key was synced. */
function syncTimes(world: FakeWorld, t0: number): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const report of world.reports) {
    const times = out[report.key] ?? [];
    times.push((report.at - t0) / 1000);
    out[report.key] = times;
  }
  return out;
}

describe("ControllerRuntime: timing", () => {
  it("syncs every HPA once per sync period, the first one period after it is seen", async () => {
    const world = fakeWorld();
    const t0 = world.timers.now();
    for (const name of ["a", "b", "c"]) world.source.set(namedHpa(name));
    const runtime = runtimeFor(world);
    runtime.start();
    await world.timers.advance(60_000);
    assert.deepEqual(syncTimes(world, t0), {
      "default/a": [15, 30, 45, 60],
      "default/b": [15, 30, 45, 60],
      "default/c": [15, 30, 45, 60],
    });
    await runtime.stop({ drain: true });
  });

  it("an HPA with horizon.dev/sync-period is synced at its own period, the others at the flag's", async () => {
    const world = fakeWorld();
    const t0 = world.timers.now();
    const slow = namedHpa("slow");
    world.source.set({
      ...slow,
      metadata: { ...slow.metadata, annotations: { "horizon.dev/sync-period": "40s" } },
    });
    world.source.set(namedHpa("usual"));
    const runtime = runtimeFor(world);
    runtime.start();
    await world.timers.advance(120_000);
    assert.deepEqual(syncTimes(world, t0), {
      "default/slow": [40, 80, 120],
      "default/usual": [15, 30, 45, 60, 75, 90, 105, 120],
    });
    await runtime.stop({ drain: true });
  });

  it("an HPA updated mid-period keeps its period (the sooner time wins) and syncs its new object", async () => {
    const world = fakeWorld();
    const t0 = world.timers.now();
    world.source.set(namedHpa("a"));
    const runtime = runtimeFor(world);
    runtime.start();
    await world.timers.advance(20_000); // synced at 15
    const updated = { ...namedHpa("a"), spec: { ...namedHpa("a").spec, maxReplicas: 7 } };
    world.source.set(updated);
    await world.timers.advance(25_000);
    assert.deepEqual(syncTimes(world, t0), { "default/a": [15, 30, 45] });
    assert.equal(world.reports[1]!.hpa.spec.maxReplicas, 7);
  });

  it("an HPA added later is synced one period after it was seen", async () => {
    const world = fakeWorld();
    const t0 = world.timers.now();
    world.source.set(namedHpa("a"));
    const runtime = runtimeFor(world);
    runtime.start();
    await world.timers.advance(4_000);
    world.source.set(namedHpa("late"));
    await world.timers.advance(30_000);
    assert.deepEqual(syncTimes(world, t0), { "default/a": [15, 30], "default/late": [19, 34] });
  });

  it("errors and exceptions are requeued at the sync period too", async () => {
    const world = fakeWorld();
    const t0 = world.timers.now();
    world.scaleFails = true;
    world.source.set(namedHpa("a"));
    world.source.set(namedHpa("b"));
    world.throwFor.add("default/web"); // every fake HPA targets Deployment web
    const runtime = runtimeFor(world);
    runtime.start();
    await world.timers.advance(45_000);
    assert.deepEqual(syncTimes(world, t0), {
      "default/a": [15, 30, 45],
      "default/b": [15, 30, 45],
    });
    assert.match(world.reports[0]!.error!, /boom default\/web/);
    assert.equal(world.reports[0]!.result, null);
    world.throwFor.clear();
    await world.timers.advance(15_000);
    const last = world.reports.at(-1)!;
    assert.match(last.result!.error!, /failed to query scale subresource/);
    assert.equal(last.error, last.result!.error);
    assert.equal(last.action, "none");
  });
});

describe("ControllerRuntime: deletion and the managed set", () => {
  it("a deleted HPA is forgotten (its history too) and never synced again", async () => {
    const world = fakeWorld();
    const t0 = world.timers.now();
    world.source.set(namedHpa("a"));
    world.source.set(namedHpa("b"));
    const runtime = runtimeFor(world);
    runtime.start();
    await world.timers.advance(15_000);
    assert.notEqual(runtime.memory.history("default/a"), EMPTY_HISTORY);
    world.source.delete("default/a");
    assert.equal(runtime.memory.history("default/a"), EMPTY_HISTORY);
    assert.deepEqual(runtime.managedKeys(), ["default/b"]);
    await world.timers.advance(30_000);
    assert.deepEqual(syncTimes(world, t0), { "default/a": [15], "default/b": [15, 30, 45] });
    assert.equal(runtime.queue.waitingLen(), 1, "only b waits");
  });

  it("an HPA deleted while it syncs is not requeued and leaves no history", async () => {
    const world = fakeWorld();
    world.scaleLatencyMs = 2_000;
    world.source.set(namedHpa("a"));
    const runtime = runtimeFor(world);
    runtime.start();
    await world.timers.advance(16_000); // sync started at 15, in flight until 17
    assert.deepEqual(runtime.inFlightKeys(), ["default/a"]);
    world.source.delete("default/a");
    await world.timers.advance(2_000);
    assert.equal(runtime.memory.history("default/a"), EMPTY_HISTORY);
    assert.equal(runtime.queue.waitingLen(), 0);
    await world.timers.advance(30_000);
    assert.equal(world.reports.length, 1);
  });

  it("manages only the HPAs the filter accepts, and forgets one that stops matching", async () => {
    const world = fakeWorld();
    const t0 = world.timers.now();
    world.source.set(namedHpa("mine", { autoscaler: "horizon" }));
    world.source.set(namedHpa("other"));
    const runtime = runtimeFor(world, {
      manages: (h) => h.metadata.labels?.autoscaler === "horizon",
    });
    runtime.start();
    await world.timers.advance(15_000);
    assert.deepEqual(runtime.managedKeys(), ["default/mine"]);
    world.source.set(namedHpa("mine", {})); // label removed: no longer ours
    world.source.set(namedHpa("other", { autoscaler: "horizon" })); // opted in
    await world.timers.advance(30_000);
    assert.deepEqual(syncTimes(world, t0), { "default/mine": [15], "default/other": [30, 45] });
    assert.equal(runtime.memory.history("default/mine"), EMPTY_HISTORY);
  });
});

describe("ControllerRuntime: workers", () => {
  const cases: {
    name: string;
    workers: number;
    hpas: number;
    latencyMs: number;
    /** The informer delivers an update of every HPA this often (e.g. status echoes). */
    updateEveryMs?: number;
  }[] = [
    { name: "one worker serialises syncs", workers: 1, hpas: 4, latencyMs: 1_000 },
    { name: "three workers run three syncs at a time", workers: 3, hpas: 10, latencyMs: 2_000 },
    {
      name: "syncs slower than the period never overlap on one key, even with updates meanwhile",
      workers: 5,
      hpas: 3,
      latencyMs: 20_000,
      updateEveryMs: 1_000,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const world = fakeWorld();
      world.scaleLatencyMs = c.latencyMs;
      // Each HPA targets its own Deployment so spans are per HPA.
      for (let i = 0; i < c.hpas; i++) {
        const h = namedHpa(`h${i}`);
        world.source.set({
          ...h,
          spec: { ...h.spec, scaleTargetRef: { ...h.spec.scaleTargetRef, name: `h${i}` } },
        });
      }
      const runtime = runtimeFor(world, { workers: c.workers });
      runtime.start();
      for (let elapsed = 0; elapsed < 120_000; elapsed += c.updateEveryMs ?? 120_000) {
        await world.timers.advance(c.updateEveryMs ?? 120_000);
        if (c.updateEveryMs) for (const h of world.source.list()) world.source.set({ ...h });
      }
      assert.equal(world.maxConcurrent, Math.min(c.workers, c.hpas));
      const byKey = new Map<string, { start: number; end: number }[]>();
      for (const span of world.spans) byKey.set(span.key, [...(byKey.get(span.key) ?? []), span]);
      for (const [key, spans] of byKey) {
        for (let i = 1; i < spans.length; i++) {
          assert.ok(spans[i]!.start >= spans[i - 1]!.end, `${key} synced twice at once`);
        }
      }
      assert.ok(world.spans.length > c.hpas, "HPAs were synced more than once");
      const stopping = runtime.stop({ drain: true });
      await world.timers.advance(c.latencyMs);
      await stopping;
    });
  }
});

describe("ControllerRuntime: stop", () => {
  it("stop with drain waits for in-flight syncs, reports them, and starts no new one", async () => {
    const world = fakeWorld();
    world.scaleLatencyMs = 5_000;
    world.source.set(namedHpa("a"));
    world.source.set(namedHpa("b"));
    const runtime = runtimeFor(world, { workers: 1 });
    runtime.start();
    await world.timers.advance(16_000); // a in flight, b queued
    assert.deepEqual(runtime.inFlightKeys(), ["default/a"]);
    assert.equal(runtime.queue.len(), 1);
    let stopped = false;
    const stopping = runtime.stop({ drain: true }).then(() => {
      stopped = true;
    });
    await world.timers.advance(1_000);
    assert.equal(stopped, false, "a is still syncing");
    await world.timers.advance(10_000);
    await stopping;
    assert.deepEqual(
      world.reports.map((r) => r.key),
      ["default/a"],
      "b was queued but not started",
    );
    world.source.set(namedHpa("c"));
    await world.timers.advance(60_000);
    assert.equal(world.reports.length, 1);
  });

  it("stop without drain returns at once", async () => {
    const world = fakeWorld();
    world.scaleLatencyMs = 5_000;
    world.source.set(namedHpa("a"));
    const runtime = runtimeFor(world);
    runtime.start();
    await world.timers.advance(16_000);
    await runtime.stop();
    assert.deepEqual(runtime.inFlightKeys(), ["default/a"]);
    await world.timers.advance(60_000);
    assert.equal(world.reports.length, 1, "the in-flight sync finished, nothing else ran");
  });
});

describe("ControllerRuntime over an embedded cluster (in-process ports)", () => {
  it("syncs the cluster's HPA each period and writes its status", async () => {
    const timers = new FakeTimers(Date.UTC(2026, 0, 1, 12, 0, 0));
    const cluster = new EmbeddedCluster({
      model: clusterModelOf(scenario()),
      startTime: timers.now(),
    });
    cluster.create(deployment({ replicas: 2 }));
    cluster.create(hpaManifest());
    const source = new FakeSource();
    const list = () =>
      cluster.store.list("HorizontalPodAutoscaler") as unknown as HorizontalPodAutoscaler[];
    for (const h of list()) source.set(h);
    cluster.store.watch((event) => {
      if (event.object.kind !== "HorizontalPodAutoscaler") return;
      const h = event.object as unknown as HorizontalPodAutoscaler;
      if (event.type === "DELETED") source.delete(hpaKey(h));
      else source.set(h);
    });
    const reports: RuntimeSyncReport[] = [];
    const runtime = new ControllerRuntime({
      ports: {
        ...cluster.ports(),
        clock: {
          now: () => {
            cluster.advanceTo(timers.now());
            return timers.now();
          },
        },
      },
      config: defaultControllerConfig(),
      source,
      timers,
      onSync: (report) => reports.push(report),
    });
    runtime.start();
    await timers.advance(60_000);
    assert.deepEqual(
      reports.map((r) => (r.at - Date.UTC(2026, 0, 1, 12, 0, 0)) / 1000),
      [15, 30, 45, 60],
    );
    const stored = list()[0]!;
    assert.ok((stored.status?.conditions ?? []).some((c) => c.type === "AbleToScale"));
    assert.equal(reports.at(-1)!.result!.trace.hpa.name, "web");
    // Our own status writes came back through the watch: no foreign-writer warning.
    assert.deepEqual(runtime.detector.warnings(), []);
    await runtime.stop({ drain: true });
  });
});

describe("ControllerRuntime: another controller writing the same HPAs", () => {
  it("warns once per HPA on a status change it did not write and on a built-in controller's event", async () => {
    const world = fakeWorld();
    const t0 = world.timers.now();
    world.source.set(namedHpa("a"));
    const warnings: ForeignWriterWarning[] = [];
    const runtime = runtimeFor(world, { onForeignWriter: (w) => warnings.push(w) });
    runtime.start();
    await world.timers.advance(15_000); // our sync writes status (echo not delivered by the fake)
    world.source.set({ ...namedHpa("a"), status: { currentReplicas: 2, desiredReplicas: 2 } });
    assert.equal(warnings.length, 0, "the change came with our pending write");
    world.source.set({ ...namedHpa("a"), status: { currentReplicas: 3, desiredReplicas: 3 } });
    world.source.set({ ...namedHpa("a"), status: { currentReplicas: 4, desiredReplicas: 4 } });
    runtime.observeEvent({
      involvedObject: { kind: "HorizontalPodAutoscaler", namespace: "default", name: "a" },
      source: { component: "horizontal-pod-autoscaler" },
      reason: "SuccessfulRescale",
      message: "New size: 4; reason: All metrics below target",
      lastTimestamp: new Date(t0 + 16_000).toISOString(),
    });
    assert.deepEqual(
      warnings.map((w) => `${w.evidence} ${w.key}`),
      ["statusWrite default/a", "event default/a"],
    );
    assert.match(warnings[0]!.message, /another controller is writing the status/);
    await runtime.stop({ drain: true });
  });
});

describe("ControllerRuntime: another controller and an HPA with extensions", () => {
  it("stops writing the scale, records ForeignWriter and reports it in AbleToScale", async () => {
    const world = fakeWorld();
    const scaleWrites: number[] = [];
    const events: string[] = [];
    const updateScale = world.ports.scale.updateScale;
    world.ports = {
      ...world.ports,
      scale: {
        ...world.ports.scale,
        updateScale: (namespace, ref, replicas) => {
          scaleWrites.push(replicas);
          return updateScale(namespace, ref, replicas);
        },
      },
      events: { record: (_hpa, event) => events.push(event.reason) },
    };
    const held = namedHpa("a");
    const annotated = {
      ...held,
      metadata: { ...held.metadata, annotations: { "horizon.dev/paused-replicas": "3" } },
    };
    world.source.set(annotated);
    const runtime = runtimeFor(world);
    runtime.start();
    await world.timers.advance(15_000);
    assert.deepEqual(scaleWrites, [3], "the hold writes the scale (the fake keeps 2)");
    world.source.set({ ...annotated, status: { currentReplicas: 2, desiredReplicas: 2 } });
    world.source.set({ ...annotated, status: { currentReplicas: 4, desiredReplicas: 4 } });
    await world.timers.advance(30_000);
    assert.deepEqual(scaleWrites, [3], "no scale write once another controller is seen");
    assert.ok(events.includes("ForeignWriter"), events.join());
    const last = world.reports.at(-1)!.result!;
    const able = last.status.conditions?.find((c) => c.type === "AbleToScale");
    assert.equal(able?.reason, "ForeignWriter");
    assert.match(able?.message ?? "", /another controller is writing the status/);
    // Without the annotation the HPA is upstream's again, scale writes included.
    world.source.set({ ...held, status: last.status });
    await world.timers.advance(15_000);
    const plain = world.reports.at(-1)!.result!;
    assert.notEqual(
      plain.status.conditions?.find((c) => c.type === "AbleToScale")?.reason,
      "ForeignWriter",
    );
    await runtime.stop({ drain: true });
  });
});

describe("ForeignWriterDetector", () => {
  const T = Date.UTC(2026, 10, 22, 10, 0, 0);
  const withStatus = (replicas: number): HorizontalPodAutoscaler => ({
    ...namedHpa("a"),
    status: { currentReplicas: replicas, desiredReplicas: replicas },
  });
  const hpaEvent = (overrides: Record<string, unknown> = {}) => ({
    involvedObject: { kind: "HorizontalPodAutoscaler", namespace: "default", name: "a" },
    source: { component: "horizontal-pod-autoscaler" },
    reason: "SuccessfulRescale",
    message: "New size: 4; reason: cpu resource utilization (percentage of request) above target",
    lastTimestamp: new Date(T + 5_000).toISOString().replace(/\.\d+Z$/, "Z"),
    ...overrides,
  });
  const detector = () =>
    new ForeignWriterDetector({ startedAt: T, manages: (key) => key === "default/a" });

  const statusCases: {
    name: string;
    steps: (d: ForeignWriterDetector) => (ForeignWriterWarning | null)[];
    expected: (string | null)[];
  }[] = [
    {
      name: "the first status seen is the baseline",
      steps: (d) => [d.observeHpa("default/a", withStatus(2), T)],
      expected: [null],
    },
    {
      name: "a status change with our write pending is ours",
      steps: (d) => {
        const first = d.observeHpa("default/a", withStatus(2), T);
        d.ownStatusWriteStarted("default/a", T + 1000);
        return [first, d.observeHpa("default/a", withStatus(3), T + 1100)];
      },
      expected: [null, null],
    },
    {
      name: "a status change nobody here wrote is foreign, warned once",
      steps: (d) => [
        d.observeHpa("default/a", withStatus(2), T),
        d.observeHpa("default/a", withStatus(3), T + 1000),
        d.observeHpa("default/a", withStatus(4), T + 2000),
      ],
      expected: [null, "statusWrite", null],
    },
    {
      name: "a failed write of ours expects no echo",
      steps: (d) => {
        const first = d.observeHpa("default/a", withStatus(2), T);
        d.ownStatusWriteStarted("default/a", T + 1000);
        d.ownStatusWriteFailed("default/a");
        return [first, d.observeHpa("default/a", withStatus(3), T + 1100)];
      },
      expected: [null, "statusWrite"],
    },
    {
      name: "an echo that never came expires after the window",
      steps: (d) => {
        const first = d.observeHpa("default/a", withStatus(2), T);
        d.ownStatusWriteStarted("default/a", T + 1000);
        return [first, d.observeHpa("default/a", withStatus(3), T + 120_000)];
      },
      expected: [null, "statusWrite"],
    },
    {
      name: "an unchanged status (metadata update) is no evidence",
      steps: (d) => [
        d.observeHpa("default/a", withStatus(2), T),
        d.observeHpa(
          "default/a",
          { ...withStatus(2), metadata: { name: "a", labels: { x: "y" } } },
          T,
        ),
      ],
      expected: [null, null],
    },
  ];
  for (const c of statusCases) {
    it(c.name, () => {
      assert.deepEqual(
        c.steps(detector()).map((w) => w?.evidence ?? null),
        c.expected,
      );
    });
  }

  const eventCases: {
    name: string;
    event: Record<string, unknown>;
    ownRecorded?: boolean;
    expected: string | null;
  }[] = [
    {
      name: "an event from the built-in controller is foreign",
      event: hpaEvent(),
      expected: "event",
    },
    {
      name: "the same event recorded by us is ours",
      event: hpaEvent(),
      ownRecorded: true,
      expected: null,
    },
    {
      name: "events from before our start are history",
      event: hpaEvent({ lastTimestamp: "2026-11-22T09:59:00Z" }),
      expected: null,
    },
    {
      name: "other components are not HPA controllers",
      event: hpaEvent({ source: { component: "kubectl" } }),
      expected: null,
    },
    {
      name: "HPAs not managed here do not count",
      event: hpaEvent({
        involvedObject: { kind: "HorizontalPodAutoscaler", namespace: "default", name: "z" },
      }),
      expected: null,
    },
    {
      name: "events about other kinds do not count",
      event: hpaEvent({ involvedObject: { kind: "Deployment", namespace: "default", name: "a" } }),
      expected: null,
    },
    {
      name: "events.k8s.io shapes (regarding, reportingController, eventTime) are read",
      event: {
        regarding: { kind: "HorizontalPodAutoscaler", namespace: "default", name: "a" },
        reportingController: "horizontal-pod-autoscaler",
        reason: "FailedGetScale",
        note: "x",
        eventTime: new Date(T + 1000).toISOString().replace(/Z$/, "000Z"),
      },
      expected: "event",
    },
  ];
  for (const c of eventCases) {
    it(c.name, () => {
      const d = detector();
      if (c.ownRecorded) {
        d.ownEventRecorded(
          "default/a",
          {
            type: "Normal",
            reason: String(c.event.reason),
            message: String(c.event.message),
          },
          T + 4_000,
        );
      }
      assert.equal(d.observeEvent(c.event, T + 5_000)?.evidence ?? null, c.expected);
    });
  }
});
