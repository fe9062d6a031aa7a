// The controller loop over fake ports, stepped on a fake clock.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { selectorMatches } from "../../src/api/selector.js";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerStatus,
} from "../../src/api/types.js";
import { HorizontalController } from "../../src/controller/controller.js";
import type { ControllerPorts, ScaleView } from "../../src/controller/ports.js";
import { ControllerMemory, reconcileHpa } from "../../src/controller/reconcile.js";
import { defaultControllerConfig } from "../../src/core/config.js";

// Pinned at v1.34: these schedules start one sync period after an HPA is seen; v1.37 syncs it
// at once (kubernetes/kubernetes#138294), tested in test/sim/versions.test.ts and runtime.test.ts.
const V134 = "1.34";

import { resourceObservation } from "../../src/core/sources/resource-usage.js";
import type { SyncEvent } from "../../src/core/sync.js";
import { cpuUsage, hpa, pods, T0 } from "../core/builders.js";

class FakeCluster {
  now = T0;
  scale: ScaleView | null = { specReplicas: 2, statusReplicas: 2, selector: "app=web" };
  cpuPerPodMilli = 50;
  hpas: HorizontalPodAutoscaler[] = [hpa({ minReplicas: 1, maxReplicas: 10 })];
  statusWrites: HorizontalPodAutoscalerStatus[] = [];
  events: SyncEvent[] = [];
  scaleWrites: number[] = [];

  ports(): ControllerPorts {
    return {
      clock: { now: () => this.now },
      scale: {
        getScale: async () =>
          this.scale
            ? { ok: true, value: this.scale }
            : { ok: false, error: 'deployments.apps "web" not found' },
        updateScale: async (_ns, _ref, replicas) => {
          this.scaleWrites.push(replicas);
          if (this.scale)
            this.scale = { ...this.scale, specReplicas: replicas, statusReplicas: replicas };
          return { ok: true, value: undefined };
        },
      },
      pods: {
        listPods: (_ns, selector) =>
          pods(this.scale?.specReplicas ?? 0, { cpuRequestMilli: 100 }).filter((p) =>
            selectorMatches(selector, p.labels),
          ),
      },
      metrics: {
        observe: async () => {
          const list = pods(this.scale?.specReplicas ?? 0);
          return resourceObservation(
            cpuUsage(Object.fromEntries(list.map((p) => [p.name, this.cpuPerPodMilli])), this.now),
            "cpu",
          );
        },
      },
      status: {
        updateStatus: async (target, status) => {
          this.statusWrites.push(status);
          this.hpas = this.hpas.map((h) =>
            h.metadata.name === target.metadata.name ? { ...h, status } : h,
          );
          return { ok: true, value: undefined };
        },
      },
      events: { record: (_hpa, event) => this.events.push(event) },
    };
  }
}

function setup() {
  const cluster = new FakeCluster();
  const controller = new HorizontalController({
    ports: cluster.ports(),
    config: defaultControllerConfig(V134),
    listHpas: () => cluster.hpas,
  });
  const step = async (seconds: number) => {
    cluster.now += seconds * 1000;
    controller.observe(cluster.now);
    return controller.syncDue();
  };
  return { cluster, controller, step };
}

describe("HorizontalController", () => {
  it("syncs a new HPA one period after it is seen, then every period", async () => {
    const { cluster, controller, step } = setup();
    controller.observe(cluster.now);
    assert.equal(controller.nextDue(), T0 + 15_000);
    assert.equal((await step(14)).length, 0);
    assert.equal((await step(1)).length, 1);
    assert.equal((await step(14)).length, 0);
    assert.equal((await step(1)).length, 1);
  });

  it("syncs an HPA with horizon.dev/sync-period at its own period", async () => {
    const { cluster, controller, step } = setup();
    const base = cluster.hpas[0]!;
    cluster.hpas = [
      { ...base, metadata: { ...base.metadata, annotations: { "horizon.dev/sync-period": "1m" } } },
    ];
    controller.observe(cluster.now);
    assert.equal(controller.nextDue(), T0 + 60_000);
    assert.equal((await step(59)).length, 0);
    assert.equal((await step(1)).length, 1);
    assert.equal(controller.nextDue(), T0 + 120_000);
  });

  it("dry-run through the ports: a DryRun event, no scale write", async () => {
    const { cluster, controller, step } = setup();
    const base = cluster.hpas[0]!;
    cluster.hpas = [
      { ...base, metadata: { ...base.metadata, annotations: { "horizon.dev/dry-run": "true" } } },
    ];
    cluster.cpuPerPodMilli = 100; // ratio 2: upstream would scale 2 → 4
    controller.observe(cluster.now);
    await step(15);
    assert.deepEqual(cluster.scaleWrites, []);
    assert.deepEqual(
      cluster.events.map((e) => e.reason),
      ["DryRun"],
    );
    cluster.hpas = [base];
    await step(15);
    assert.deepEqual(cluster.scaleWrites, [4]);
  });

  it("requeues at the same interval after an error", async () => {
    const { cluster, controller, step } = setup();
    cluster.scale = null;
    controller.observe(cluster.now);
    const first = await step(15);
    assert.match(
      first[0]!.result.error!,
      /failed to query scale subresource for Deployment\/default\/web/,
    );
    assert.equal(controller.nextDue(), T0 + 30_000);
    assert.deepEqual(
      cluster.events.map((e) => e.reason),
      ["FailedGetScale"],
    );
  });

  it("writes status only when it changes and scales through the scale port", async () => {
    const { cluster, controller, step } = setup();
    controller.observe(cluster.now);
    await step(15); // 50% at target 50% → no change, first status write
    await step(15); // identical → no write
    assert.equal(cluster.statusWrites.length, 1);
    cluster.cpuPerPodMilli = 100; // 100% → ratio 2 → 4 replicas
    await step(15);
    assert.deepEqual(cluster.scaleWrites, [4]);
    assert.equal(cluster.statusWrites.length, 2);
    assert.equal(cluster.events.at(-1)?.reason, "SuccessfulRescale");
  });

  it("loses its histories on restart, so stabilization starts over", async () => {
    const { cluster, controller, step } = setup();
    cluster.scale = { specReplicas: 4, statusReplicas: 4, selector: "app=web" };
    controller.observe(cluster.now);
    await step(15); // seeds the history with 4 at 50%
    cluster.cpuPerPodMilli = 10; // 10% → would scale to 1, held by the 5 min window
    const held = await step(15);
    assert.equal(held[0]!.result.scaleUpdated, false);
    controller.restart(cluster.now);
    assert.equal(controller.nextDue(), cluster.now + 15_000);
    const afterRestart = await step(15);
    // A fresh history is seeded with the current size, which again holds the scale-down.
    assert.equal(afterRestart[0]!.result.trace.stabilization?.reason, "ScaleDownStabilized");
    assert.deepEqual(
      afterRestart[0]!.result.history.recommendations?.map((r) => r.replicas),
      [4, 1],
    );
  });

  it("forgets a deleted HPA", async () => {
    const { cluster, controller, step } = setup();
    controller.observe(cluster.now);
    cluster.hpas = [];
    assert.equal((await step(15)).length, 0);
    assert.equal(controller.nextDue(), Number.POSITIVE_INFINITY);
  });

  it("reconciles synchronously when every port answers synchronously, alike", async () => {
    const cluster = new FakeCluster();
    const ports = cluster.ports();
    const settled = async (ports: ControllerPorts): Promise<ControllerPorts> => {
      const answer = await ports.scale.getScale("default", cluster.hpas[0]!.spec.scaleTargetRef);
      const observation = await ports.metrics.observe(
        "default",
        cluster.hpas[0]!.spec.metrics![0]!,
        {
          text: "app=web",
          requirements: [],
        },
      );
      return {
        ...ports,
        scale: { getScale: () => answer, updateScale: () => ({ ok: true, value: undefined }) },
        metrics: { observe: () => observation },
        status: { updateStatus: () => ({ ok: true, value: undefined }) },
      };
    };
    const syncPorts = await settled(ports);
    const config = defaultControllerConfig(V134);
    const direct = reconcileHpa(cluster.hpas[0]!, syncPorts, new ControllerMemory(), config);
    assert.ok(!(direct instanceof Promise));
    const awaited = reconcileHpa(cluster.hpas[0]!, ports, new ControllerMemory(), config);
    assert.ok(awaited instanceof Promise);
    assert.deepEqual(direct, await awaited);
  });

  it("a port's rejected promise rejects the reconcile", async () => {
    const cluster = new FakeCluster();
    const ports = cluster.ports();
    const failing: ControllerPorts = {
      ...ports,
      status: { updateStatus: () => Promise.reject(new Error("connection reset")) },
    };
    await assert.rejects(
      async () =>
        reconcileHpa(
          cluster.hpas[0]!,
          failing,
          new ControllerMemory(),
          defaultControllerConfig(V134),
        ),
      /connection reset/,
    );
  });

  it("reads each due HPA through getHpa when given one, not the list", async () => {
    const cluster = new FakeCluster();
    const asked: string[] = [];
    const controller = new HorizontalController({
      ports: cluster.ports(),
      config: defaultControllerConfig(V134),
      listHpas: () => cluster.hpas,
      getHpa: (namespace, name) => {
        asked.push(`${namespace}/${name}`);
        return cluster.hpas.find((h) => h.metadata.name === name);
      },
    });
    controller.observe(cluster.now);
    cluster.now += 15_000;
    const reports = await controller.syncDue();
    assert.deepEqual(asked, ["default/web"]);
    assert.equal(reports.length, 1);
    // Deleted since it was observed: no sync.
    cluster.hpas = [];
    cluster.now += 15_000;
    assert.equal((await controller.syncDue()).length, 0);
  });

  it("reports AmbiguousSelector when two HPAs select the same pods", async () => {
    const { cluster, controller, step } = setup();
    cluster.hpas = [hpa(), { ...hpa(), metadata: { name: "web-2", namespace: "default" } }];
    controller.observe(cluster.now);
    const reports = await step(15);
    // The first HPA synced before the second registered its selector; the second sees both.
    const second = reports.find((r) => r.key === "default/web-2")!;
    assert.equal(
      second.result.status.conditions?.find((c) => c.type === "ScalingActive")?.reason,
      "AmbiguousSelector",
    );
  });
});
