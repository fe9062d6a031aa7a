// The controller runtime over a fake HPA source and fake (or in-process) ports, on a fake clock.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { selectorMatches } from "../../src/api/selector.js";
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
  ForeignWriterHolds,
  type ForeignWriterWarning,
  type RuntimeSyncReport,
} from "../../src/controller/runtime.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { EMPTY_HISTORY } from "../../src/core/history.js";
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

// Pinned at v1.34: these timings are its rate-limited first sync, one period after an HPA is
// seen; v1.37 syncs an added HPA at once (kubernetes/kubernetes#138294), tested below.
const V134 = "1.34";

function runtimeFor(
  world: FakeWorld,
  overrides: Partial<ControllerRuntimeOptions> & { workers?: number } = {},
): ControllerRuntime {
  const { workers, ...rest } = overrides;
  return new ControllerRuntime({
    ports: world.ports,
    config: { ...defaultControllerConfig(V134), concurrentSyncs: workers ?? 5 },
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
  it("v1.37: an added HPA is synced at once, then once per period; an update waits (kubernetes/kubernetes#138294)", async () => {
    const world = fakeWorld();
    const t0 = world.timers.now();
    world.source.set(namedHpa("a"));
    const runtime = runtimeFor(world, { config: defaultControllerConfig("1.37") });
    runtime.start();
    await world.timers.advance(20_000);
    world.source.set(namedHpa("b"));
    // An update of a known HPA is still rate-limited: it keeps a's period.
    world.source.set({ ...namedHpa("a"), spec: { ...namedHpa("a").spec, maxReplicas: 7 } });
    await world.timers.advance(25_000);
    assert.deepEqual(syncTimes(world, t0), {
      "default/a": [0, 15, 30, 45],
      "default/b": [20, 35],
    });
    await runtime.stop({ drain: true });
  });

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
      config: defaultControllerConfig(V134),
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
  /**
   * A fake world with a store: our status writes come back through the source as an informer
   * delivers them, and `otherWrites` plays a built-in controller, which rewrites AbleToScale
   * and its replica counts and keeps the conditions it does not set, as upstream's does.
   */
  function yieldWorld(annotations: Record<string, string>) {
    const world = fakeWorld();
    const scaleWrites: { at: number; replicas: number }[] = [];
    const events: string[] = [];
    const statusWrites: HorizontalPodAutoscalerStatus[] = [];
    const base = namedHpa("a");
    let stored: HorizontalPodAutoscaler = {
      ...base,
      metadata: { ...base.metadata, annotations },
    };
    const updateScale = world.ports.scale.updateScale;
    world.ports = {
      ...world.ports,
      scale: {
        ...world.ports.scale,
        updateScale: (namespace, ref, replicas) => {
          scaleWrites.push({ at: world.timers.now() - T0, replicas });
          return updateScale(namespace, ref, replicas);
        },
      },
      status: {
        updateStatus: async (_target, status) => {
          statusWrites.push(status);
          stored = { ...stored, status };
          world.source.set(stored);
          return { ok: true, value: undefined };
        },
      },
      events: { record: (_hpa, event) => events.push(`${event.reason}: ${event.message}`) },
    };
    const T0 = world.timers.now();
    let n = 0;
    const otherWrites = () => {
      n++;
      const conditions = (stored.status?.conditions ?? []).filter((c) => c.type !== "AbleToScale");
      stored = {
        ...stored,
        status: {
          currentReplicas: 2,
          desiredReplicas: 2 + (n % 2),
          conditions: [
            {
              type: "AbleToScale",
              status: "True",
              reason: "ReadyForNewScale",
              message: `write ${n}`,
            },
            ...conditions,
          ],
        },
      };
      world.source.set(stored);
    };
    const setAnnotations = (next: Record<string, string> | undefined) => {
      stored = { ...stored, metadata: { ...stored.metadata, annotations: next ?? {} } };
      world.source.set(stored);
    };
    world.source.set(stored);
    return {
      world,
      scaleWrites,
      events,
      statusWrites,
      otherWrites,
      setAnnotations,
      stored: () => stored,
      T0,
    };
  }
  const foreignCondition = (status: HorizontalPodAutoscalerStatus | undefined) =>
    status?.conditions?.find((c) => c.type === "ForeignWriter");

  it("fake clock: yields while the other controller writes, with a steady condition and one Event, then resumes", async () => {
    const w = yieldWorld({ "horizon.dev/paused-replicas": "3" });
    const runtime = runtimeFor(w.world);
    runtime.start();
    await w.world.timers.advance(15_000);
    assert.deepEqual(w.scaleWrites, [{ at: 15_000, replicas: 3 }], "the hold writes the scale");
    // The built-in controller writes the status every 15 s for 3 minutes, between our syncs.
    for (let s = 20; s <= 200; s += 15) {
      await w.world.timers.advance(s * 1000 - (w.world.timers.now() - w.T0));
      w.otherWrites();
    }
    await w.world.timers.advance(10_000);
    assert.deepEqual(w.scaleWrites, [{ at: 15_000, replicas: 3 }], "no scale write while yielding");
    const reasons = w.events.map((e) => e.split(":")[0]);
    assert.equal(reasons.filter((r) => r === "ForeignWriter").length, 1, w.events.join("\n"));
    assert.match(
      w.events.find((e) => e.startsWith("ForeignWriter"))!,
      /another controller is writing the status of HorizontalPodAutoscaler default\/a.*Horizon stops writing the scale and the status .* until 5m0s pass without its writes/,
    );
    // One status write of ours while yielding (its condition); the other keeps it as it is.
    const ours = w.statusWrites.filter((st) => foreignCondition(st));
    assert.equal(ours.length, 1, JSON.stringify(w.statusWrites, null, 1));
    const yielding = w.world.reports.filter((r) =>
      r.result?.trace.extensions?.some((x) => x.reason === "ForeignWriter"),
    );
    assert.ok(yielding.length >= 10, `${yielding.length} syncs yielded`);
    const transition = foreignCondition(ours[0])!.lastTransitionTime;
    for (const r of yielding) {
      const c = foreignCondition(r.result!.status);
      assert.equal(c?.status, "True");
      assert.equal(c?.reason, "AnotherControllerWrites");
      assert.equal(c?.lastTransitionTime, transition, "steady: no flip between the two writers");
      assert.match(
        c?.message ?? "",
        /Horizon writes neither its scale nor its status while it does/,
      );
    }
    assert.ok(foreignCondition(w.stored().status), "the other controller's writes keep it");
    // The other controller stops at 200 s: 5 min later Horizon drives the HPA again.
    await w.world.timers.advance(200_000 + 300_000 + 15_000 - (w.world.timers.now() - w.T0));
    assert.equal(w.scaleWrites.length, 2, JSON.stringify(w.scaleWrites));
    assert.ok(
      w.scaleWrites[1]!.at > 500_000 && w.scaleWrites[1]!.at <= 515_000,
      JSON.stringify(w.scaleWrites),
    );
    assert.ok(
      w.events.some((e) => e.startsWith("ForeignWriterGone")),
      w.events.join("\n"),
    );
    assert.equal(foreignCondition(w.stored().status), undefined, "the condition is gone");
    assert.equal(
      w.stored().status?.conditions?.find((c) => c.type === "AbleToScale")?.reason,
      "Paused",
    );
    await runtime.stop({ drain: true });
  });

  it("the annotations removed while yielding: upstream's behaviour, the condition removed", async () => {
    const w = yieldWorld({ "horizon.dev/paused-replicas": "3" });
    const runtime = runtimeFor(w.world);
    runtime.start();
    await w.world.timers.advance(16_000);
    w.otherWrites();
    await w.world.timers.advance(15_000);
    assert.ok(foreignCondition(w.stored().status), "yielding");
    w.setAnnotations(undefined);
    await w.world.timers.advance(15_000);
    const last = w.world.reports.at(-1)!.result!;
    assert.equal(last.trace.extensions, undefined, "upstream's sync");
    assert.equal(foreignCondition(w.stored().status), undefined);
    assert.equal(
      w.stored().status?.conditions?.find((c) => c.type === "AbleToScale")?.reason,
      "ReadyForNewScale",
    );
    await runtime.stop({ drain: true });
  });

  it("an HPA without annotations never yields: both controllers decide alike", async () => {
    const w = yieldWorld({});
    const runtime = runtimeFor(w.world);
    runtime.start();
    await w.world.timers.advance(16_000);
    w.otherWrites();
    await w.world.timers.advance(30_000);
    assert.ok(runtime.detector.warnings().length > 0, "the other writer was seen (and logged)");
    assert.ok(w.world.reports.every((r) => foreignCondition(r.result!.status) === undefined));
    assert.ok(!w.events.some((e) => e.startsWith("ForeignWriter")));
    await runtime.stop({ drain: true });
  });
});

describe("ControllerRuntime: Horizon and a built-in controller over one embedded cluster", () => {
  it("fake clock: the two write one HPA; Horizon yields with a steady condition, then drives it again", async () => {
    const timers = new FakeTimers(Date.UTC(2026, 0, 1, 12, 0, 0));
    const T0 = timers.now();
    const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
    cluster.create(deployment({ replicas: 2 }));
    const manifest = hpaManifest();
    cluster.create({
      ...manifest,
      metadata: { ...manifest.metadata, annotations: { "horizon.dev/paused-replicas": "4" } },
    });
    const list = () =>
      cluster.store.list("HorizontalPodAutoscaler") as unknown as HorizontalPodAutoscaler[];
    // The built-in controller ignores the annotations: its informer shows them none.
    const strip = (h: HorizontalPodAutoscaler) => ({
      ...h,
      metadata: { ...h.metadata, annotations: {} },
    });
    const horizonSource = new FakeSource();
    const builtInSource = new FakeSource();
    for (const h of list()) {
      horizonSource.set(h);
      builtInSource.set(strip(h));
    }
    cluster.store.watch((event) => {
      if (event.object.kind !== "HorizontalPodAutoscaler") return;
      const h = event.object as unknown as HorizontalPodAutoscaler;
      horizonSource.set(h);
      builtInSource.set(strip(h));
    });
    const inProcess = cluster.ports();
    // As an API server answers a status PUT of a stale object (upstream retries at the next sync).
    const basePorts: Omit<ControllerPorts, "clock"> = {
      ...inProcess,
      status: {
        updateStatus: (target, status) => {
          const current = list()[0]!;
          if (current.metadata.resourceVersion !== target.metadata.resourceVersion)
            return {
              ok: false,
              error: "Operation cannot be fulfilled: the object has been modified",
            };
          return inProcess.status.updateStatus(target, status);
        },
      },
    };
    const clock = {
      now: () => {
        cluster.advanceTo(timers.now());
        return timers.now();
      },
    };
    const horizonWrites: { at: number; kind: "scale" | "status"; replicas?: number }[] = [];
    const horizonEvents: string[] = [];
    const horizon = new ControllerRuntime({
      ports: {
        ...basePorts,
        clock,
        scale: {
          ...basePorts.scale,
          updateScale: (namespace, ref, replicas) => {
            horizonWrites.push({ at: timers.now() - T0, kind: "scale", replicas });
            return basePorts.scale.updateScale(namespace, ref, replicas);
          },
        },
        status: {
          updateStatus: (target, status) => {
            horizonWrites.push({ at: timers.now() - T0, kind: "status" });
            return basePorts.status.updateStatus(target, status);
          },
        },
        events: {
          record: (target, event, now) => {
            horizonEvents.push(`${(now - T0) / 1000}s ${event.reason}`);
            basePorts.events.record(target, event, now);
          },
        },
      },
      config: defaultControllerConfig(V134),
      source: horizonSource,
      timers,
    });
    const builtIn = new ControllerRuntime({
      ports: { ...basePorts, clock },
      config: defaultControllerConfig(V134),
      source: builtInSource,
      timers,
    });
    // What the stored HPA says after each 5 s: the AbleToScale reason and Horizon's condition.
    const seen: { t: number; able: string; foreign?: string }[] = [];
    const sample = async (untilSeconds: number) => {
      while (timers.now() - T0 < untilSeconds * 1000) {
        await timers.advance(5_000);
        const status = list()[0]!.status;
        const foreign = status?.conditions?.find((c) => c.type === "ForeignWriter");
        seen.push({
          t: (timers.now() - T0) / 1000,
          able: status?.conditions?.find((c) => c.type === "AbleToScale")?.reason ?? "",
          ...(foreign ? { foreign: foreign.lastTransitionTime ?? "" } : {}),
        });
      }
    };
    horizon.start();
    builtIn.start();
    await sample(1800);
    // Runs of samples with Horizon's condition (yields) and without (Horizon drives it).
    const runs: { foreign: boolean; from: number; to: number; transitions: Set<string> }[] = [];
    for (const x of seen) {
      const last = runs.at(-1);
      if (last && last.foreign === (x.foreign !== undefined)) {
        last.to = x.t;
        if (x.foreign) last.transitions.add(x.foreign);
      } else
        runs.push({
          foreign: x.foreign !== undefined,
          from: x.t,
          to: x.t,
          transitions: new Set(x.foreign ? [x.foreign] : []),
        });
    }
    const summary = JSON.stringify(runs.map((r) => [r.foreign, r.from, r.to]));
    const yields = runs.filter((r) => r.foreign);
    assert.ok(yields[0] && yields[0].from <= 60, `Horizon yields within a minute: ${summary}`);
    // Each yield is steady: one transition time, and Horizon's Paused never shows in it.
    for (const r of yields) assert.equal(r.transitions.size, 1, summary);
    for (const x of seen)
      if (x.foreign !== undefined) assert.notEqual(x.able, "Paused", JSON.stringify(x));
    // The built-in controller stays quiet while nothing changes: after each hold Horizon probes
    // (its status for one sync), the other rewrites it at once, and the next hold is twice as
    // long: a probe 5 min after the last write, the next 10 min after it, then 20 min.
    const probes = runs.filter((r, i) => !r.foreign && i > 0);
    assert.equal(probes.length, 2, summary);
    for (const p of probes) assert.ok(p.to - p.from <= 15, `a probe lasts one sync: ${summary}`);
    const lengths = [probes[0]!.from - yields[0]!.from, probes[1]!.from - probes[0]!.from];
    assert.ok(lengths[0]! >= 300 && lengths[0]! <= 330, `first hold ~5 min: ${summary}`);
    assert.ok(lengths[1]! >= 600 && lengths[1]! <= 630, `second hold ~10 min: ${summary}`);
    const foreignEvents = horizonEvents.filter((e) => e.endsWith(" ForeignWriter"));
    assert.equal(foreignEvents.length, yields.length, horizonEvents.join());
    // No scale write of Horizon's after the first yield began.
    assert.deepEqual(
      horizonWrites.filter((w) => w.kind === "scale" && w.at >= yields[0]!.from * 1000),
      [],
    );
    // The built-in controller goes: after the current hold, Horizon holds the scale at 4.
    await builtIn.stop({ drain: true });
    await sample(1800 + 2400 + 30);
    const stored = list()[0]!;
    assert.equal(
      stored.status?.conditions?.find((c) => c.type === "ForeignWriter"),
      undefined,
    );
    assert.equal(
      stored.status?.conditions?.find((c) => c.type === "AbleToScale")?.reason,
      "Paused",
    );
    assert.ok(
      horizonEvents.some((e) => e.endsWith(" ForeignWriterGone")),
      horizonEvents.join(),
    );
    assert.equal(horizonWrites.filter((w) => w.kind === "scale").at(-1)?.replicas, 4);
    await horizon.stop({ drain: true });
  });
});

describe("ForeignWriterHolds (fake clock)", () => {
  const M = 60_000;
  const evidenceAt = (at: number): ForeignWriterWarning => ({
    key: "default/a",
    evidence: "statusWrite",
    message: "another controller",
    at,
  });
  it("yields within the hold, probes after it, doubles while the writer comes back, up to an hour", () => {
    const holds = new ForeignWriterHolds(5 * M);
    const steps: { now: number; evidence?: number; yielding: boolean; hold: number | null }[] = [
      { now: 0, yielding: false, hold: null },
      { now: 1 * M, evidence: 0.5 * M, yielding: false, hold: 5 * M },
      { now: 5 * M, evidence: 0.5 * M, yielding: true, hold: 5 * M },
      // 5 min without a write: the probe.
      { now: 5.5 * M, evidence: 0.5 * M, yielding: true, hold: null },
      // The writer answers the probe: twice as long.
      { now: 5.75 * M, evidence: 5.6 * M, yielding: false, hold: 10 * M },
      { now: 15.5 * M, evidence: 5.6 * M, yielding: true, hold: 10 * M },
      { now: 15.75 * M, evidence: 5.6 * M, yielding: true, hold: null },
      { now: 16 * M, evidence: 15.9 * M, yielding: false, hold: 20 * M },
      { now: 36 * M, evidence: 15.9 * M, yielding: true, hold: null },
      { now: 36.25 * M, evidence: 36.1 * M, yielding: false, hold: 40 * M },
      { now: 76.25 * M, evidence: 36.1 * M, yielding: true, hold: null },
      { now: 76.5 * M, evidence: 76.3 * M, yielding: false, hold: 60 * M },
      { now: 136.5 * M, evidence: 76.3 * M, yielding: true, hold: null },
      { now: 136.75 * M, evidence: 136.6 * M, yielding: false, hold: 60 * M },
    ];
    for (const step of steps) {
      const decided = holds.decide(
        "default/a",
        step.evidence !== undefined ? evidenceAt(step.evidence) : undefined,
        step.yielding,
        step.now,
      );
      assert.equal(decided?.holdMs ?? null, step.hold, `at ${step.now / M} min`);
    }
  });

  it("a resume that stays quiet for a whole hold starts again from the base length", () => {
    const holds = new ForeignWriterHolds(5 * M);
    holds.decide("default/a", evidenceAt(0), false, 1 * M);
    holds.decide("default/a", evidenceAt(0), true, 6 * M); // probe
    assert.equal(holds.decide("default/a", evidenceAt(6.1 * M), false, 6.2 * M)?.holdMs, 10 * M);
    assert.equal(holds.decide("default/a", evidenceAt(6.1 * M), true, 16.2 * M), null); // probe
    // Quiet for 10 min after the resume: back to 5 min.
    assert.equal(holds.decide("default/a", evidenceAt(6.1 * M), false, 26.3 * M), null);
    assert.equal(holds.decide("default/a", evidenceAt(27 * M), false, 27.1 * M)?.holdMs, 5 * M);
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

  // Issue 40: after an API server's restart the Event watch gets 410 and the informer re-lists,
  // delivering Horizon's own Events a second time; a deposed leader's writes are Horizon's too.
  const named = (name: string, overrides: Record<string, unknown> = {}) =>
    hpaEvent({ metadata: { namespace: "default", name }, ...overrides });
  const managed = (manager: string) => [{ manager, operation: "Update", apiVersion: "v1" }];
  const deliveryCases: {
    name: string;
    /** Each delivery: the event, and whether we recorded its text just before. */
    deliveries: { event: Record<string, unknown>; recorded?: boolean }[];
    expected: (string | null)[];
  }[] = [
    {
      name: "our event delivered again by a re-list (its ledger entry used up) is no evidence",
      deliveries: [{ event: named("a.1"), recorded: true }, { event: named("a.1") }],
      expected: [null, null],
    },
    {
      name: "our event repeated by our correlator (count 2) stays ours",
      deliveries: [
        { event: named("a.1"), recorded: true },
        { event: named("a.1", { count: 2, lastTimestamp: new Date(T + 9_000).toISOString() }) },
      ],
      expected: [null, null],
    },
    {
      name: "an event written by Horizon's field manager is Horizon's (another replica's), ledger or not",
      deliveries: [
        {
          event: named("a.2", {
            metadata: {
              namespace: "default",
              name: "a.2",
              managedFields: managed("horizon-controller"),
            },
          }),
        },
      ],
      expected: [null],
    },
    {
      name: "an event written by kube-controller-manager is foreign even with a matching text",
      deliveries: [
        {
          event: named("a.3", {
            metadata: {
              namespace: "default",
              name: "a.3",
              managedFields: managed("kube-controller-manager"),
            },
          }),
          recorded: true,
        },
      ],
      expected: ["event"],
    },
    {
      name: "a foreign event is evidence once per occurrence: its re-list is not new evidence, its repeat is",
      deliveries: [
        { event: named("k.1") },
        { event: named("k.1") },
        { event: named("k.1", { count: 2, lastTimestamp: new Date(T + 9_000).toISOString() }) },
      ],
      expected: ["event", null, "event"],
    },
  ];
  for (const c of deliveryCases) {
    it(c.name, () => {
      const d = detector();
      const seen = c.deliveries.map((delivery, i) => {
        const now = T + 5_000 + i * 1_000;
        if (delivery.recorded) {
          d.ownEventRecorded(
            "default/a",
            {
              type: "Normal",
              reason: String(delivery.event.reason),
              message: String(delivery.event.message),
            },
            now - 500,
          );
        }
        d.observeEvent(delivery.event, now);
        return d.evidenceOf("default/a")?.at === now ? "event" : null;
      });
      assert.deepEqual(seen, c.expected);
    });
  }

  const writerCases: { name: string; writers: string[] | undefined; expected: string | null }[] = [
    {
      name: "a status change by Horizon's field manager (another replica) is no evidence",
      writers: ["horizon-controller"],
      expected: null,
    },
    {
      name: "one by kube-controller-manager is",
      writers: ["kube-controller-manager"],
      expected: "statusWrite",
    },
    { name: "one the server tracks no writer of is", writers: undefined, expected: "statusWrite" },
  ];
  for (const c of writerCases) {
    it(c.name, () => {
      const d = detector();
      d.observeHpa("default/a", withStatus(2), T);
      assert.equal(
        d.observeHpa("default/a", withStatus(3), T + 1000, c.writers)?.evidence ?? null,
        c.expected,
      );
    });
  }
});
