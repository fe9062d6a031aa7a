import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseSelector } from "../../src/api/selector.js";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { applyScenarioEvent, clusterModelOf } from "../../src/sim/cluster.js";
import type { ScenarioSpec } from "../../src/sim/scenario-types.js";
import {
  at,
  deployment,
  lifecycle,
  scenario,
  statefulSet,
  T0,
  WEB,
  workloadModel,
} from "./builders.js";

function cluster(spec: ScenarioSpec = scenario()): EmbeddedCluster {
  return new EmbeddedCluster({ model: clusterModelOf(spec), startTime: T0 });
}

function pods(c: EmbeddedCluster): KubeObject[] {
  return [...c.store.list("Pod", "default")];
}

interface PodStatusShape {
  phase: string;
  startTime?: string;
  conditions?: { type: string; status: string; lastTransitionTime: string; reason?: string }[];
}

const statusOf = (pod: KubeObject) => pod.status as PodStatusShape;
const condition = (pod: KubeObject, type: string) =>
  statusOf(pod).conditions?.find((c) => c.type === type);

function rsReplicas(c: EmbeddedCluster): Record<string, number> {
  return Object.fromEntries(
    c.store
      .list("ReplicaSet", "default")
      .map((rs) => [rs.metadata.name, (rs.spec as { replicas: number }).replicas]),
  );
}

describe("pod lifecycle on the virtual clock", () => {
  // schedulingDelay 1s, containerStart 2s, readiness 5s, grace 30s (the builders' defaults).
  const stages = [
    {
      name: "pending before its scheduling delay",
      t: 0.5,
      phase: "Pending",
      startTime: undefined,
      ready: undefined,
    },
    {
      name: "scheduled: startTime set, containers creating",
      t: 1,
      phase: "Pending",
      startTime: "2026-01-01T12:00:01Z",
      ready: "False",
    },
    {
      name: "running, not ready yet",
      t: 3,
      phase: "Running",
      startTime: "2026-01-01T12:00:01Z",
      ready: "False",
    },
    {
      name: "ready after the readiness delay",
      t: 8,
      phase: "Running",
      startTime: "2026-01-01T12:00:01Z",
      ready: "True",
    },
  ];
  for (const s of stages) {
    test(s.name, () => {
      const c = cluster();
      c.create(deployment({ replicas: 1 }));
      c.advanceTo(at(s.t));
      const [pod] = pods(c);
      assert.equal(statusOf(pod!).phase, s.phase);
      assert.equal(statusOf(pod!).startTime, s.startTime);
      assert.equal(condition(pod!, "Ready")?.status, s.ready);
    });
  }

  test("the Ready condition's lastTransitionTime is when it became ready", () => {
    const c = cluster();
    c.create(deployment({ replicas: 1 }));
    c.advanceTo(at(60));
    const [pod] = pods(c);
    assert.equal(condition(pod!, "Ready")?.lastTransitionTime, "2026-01-01T12:00:08Z");
    const view = c.listPods("default", {
      requirements: [{ key: "app", operator: "=", values: ["web"] }],
      text: "app=web",
    })[0]!;
    assert.deepEqual(view.ready, { status: "True", lastTransitionTime: at(8) });
    assert.equal(view.startTime, at(1));
    assert.deepEqual(view.containers, [{ name: "app", requests: { cpu: 100 } }]);
  });

  test("a deleted pod is terminating (not ready, deletionTimestamp set) for its grace period", () => {
    const c = cluster();
    c.create(deployment({ replicas: 2 }));
    c.advanceTo(at(20));
    c.scaleWorkload("default", "Deployment", "web", 1);
    const terminating = pods(c).filter((p) => p.metadata.deletionTimestamp);
    assert.equal(terminating.length, 1);
    assert.equal(terminating[0]!.metadata.deletionTimestamp, "2026-01-01T12:00:50Z");
    assert.equal(condition(terminating[0]!, "Ready")?.status, "False");
    assert.deepEqual(
      { pods: c.snapshot(WEB).pods, ready: c.snapshot(WEB).readyPods },
      { pods: 1, ready: 1 },
    );
    c.advanceTo(at(49));
    assert.equal(pods(c).length, 2);
    c.advanceTo(at(50));
    assert.equal(pods(c).length, 1);
  });

  test("a failed pod is replaced by its ReplicaSet", () => {
    const c = cluster(
      scenario({ workloads: [workloadModel({ pod: lifecycle({ failureProbability: 1 }) })] }),
    );
    c.create(deployment({ replicas: 1 }));
    c.advanceTo(at(3));
    const phases = pods(c)
      .map((p) => statusOf(p).phase)
      .sort();
    assert.deepEqual(phases, ["Failed", "Pending"]);
    assert.equal(c.snapshot(WEB).pods, 1);
  });

  test("pods beyond the cluster's capacity stay Pending (Unschedulable) until room frees up", () => {
    const c = cluster(scenario({ cluster: { capacityPods: 2, metricsResolutionMs: 15_000 } }));
    c.create(deployment({ replicas: 3 }));
    c.advanceTo(at(30));
    const pending = pods(c).filter((p) => statusOf(p).phase === "Pending");
    assert.equal(pending.length, 1);
    assert.equal(condition(pending[0]!, "PodScheduled")?.reason, "Unschedulable");
    assert.equal(c.snapshot(WEB).readyPods, 2);
    // A kubectl delete of a running pod frees its slot only once it is gone (after the grace).
    c.scaleWorkload("default", "Deployment", "web", 2);
    c.advanceTo(at(31));
    assert.equal(
      pods(c).filter((p) => statusOf(p).phase === "Pending").length,
      0,
      "the pending pod was the victim",
    );
  });
});

describe("Deployment → ReplicaSet → Pods", () => {
  test("a ReplicaSet creates at most 500 pods per advance (upstream's burstReplicas)", () => {
    const c = cluster();
    c.create(deployment({ replicas: 1_200 }));
    assert.equal(pods(c).length, 500, "the create's own sync");
    // Pods changing state within one advance do not renew the budget.
    c.advanceTo(at(10));
    assert.equal(pods(c).length, 1_000);
    c.advanceTo(at(11));
    assert.equal(pods(c).length, 1_200);
    c.advanceTo(at(12));
    assert.equal(pods(c).length, 1_200);
  });

  test("scale up and down through the ReplicaSet; names carry the pod-template-hash", () => {
    const c = cluster();
    c.create(deployment({ replicas: 3 }));
    c.advanceTo(at(10));
    const [rs] = c.store.list("ReplicaSet", "default");
    const hash = rs!.metadata.labels!["pod-template-hash"]!;
    assert.equal(rs!.metadata.name, `web-${hash}`);
    assert.ok(
      pods(c).every(
        (p) =>
          p.metadata.name.startsWith(`web-${hash}-`) &&
          p.metadata.labels!["pod-template-hash"] === hash,
      ),
    );
    const status = c.store.get("Deployment", "default", "web")!.status as Record<string, number>;
    assert.deepEqual(
      {
        replicas: status.replicas,
        ready: status.readyReplicas,
        available: status.availableReplicas,
      },
      { replicas: 3, ready: 3, available: 3 },
    );
    c.scaleWorkload("default", "Deployment", "web", 5);
    assert.equal(c.snapshot(WEB).pods, 5);
    c.scaleWorkload("default", "Deployment", "web", 2);
    assert.equal(c.snapshot(WEB).pods, 2);
  });

  test("scale-down removes not-yet-ready pods before ready ones", () => {
    const c = cluster();
    c.create(deployment({ replicas: 2 }));
    c.advanceTo(at(10));
    const ready = new Set(pods(c).map((p) => p.metadata.name));
    c.scaleWorkload("default", "Deployment", "web", 4);
    c.advanceTo(at(12));
    c.scaleWorkload("default", "Deployment", "web", 2);
    const remaining = pods(c)
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name);
    assert.deepEqual(new Set(remaining), ready);
  });

  test("scale-down honours controller.kubernetes.io/pod-deletion-cost", () => {
    const c = cluster();
    c.create(deployment({ replicas: 3 }));
    c.advanceTo(at(10));
    const names = pods(c).map((p) => p.metadata.name);
    // Annotate (as kubectl annotate would): the cheapest pod goes first.
    const costs: Record<string, string> = {
      [names[0]!]: "100",
      [names[1]!]: "-1",
      [names[2]!]: "50",
    };
    for (const pod of pods(c)) {
      c.store.update({
        ...pod,
        metadata: {
          ...pod.metadata,
          annotations: { "controller.kubernetes.io/pod-deletion-cost": costs[pod.metadata.name]! },
        },
      });
    }
    c.scaleWorkload("default", "Deployment", "web", 1);
    const kept = pods(c)
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name);
    assert.deepEqual(kept, [names[0]]);
  });

  test("a rolling update keeps within maxSurge and maxUnavailable", () => {
    const c = cluster();
    c.create(deployment({ replicas: 4, maxSurge: 1, maxUnavailable: 0 }));
    c.advanceTo(at(20));
    applyScenarioEvent(
      {
        atMs: 20_000,
        type: "updateTemplate",
        workload: WEB,
        patch: { spec: { containers: [{ name: "app", image: "nginx:1.28" }] } },
      },
      { cluster: c, controller: null, now: c.now },
    );
    let maxPods = 0;
    let minReady = Number.POSITIVE_INFINITY;
    for (let s = 20; s <= 200; s++) {
      c.advanceTo(at(s));
      const snap = c.snapshot(WEB);
      maxPods = Math.max(maxPods, snap.pods);
      minReady = Math.min(minReady, snap.readyPods);
    }
    assert.equal(maxPods, 5, "replicas + maxSurge");
    assert.equal(minReady, 4, "replicas − maxUnavailable");
    const sizes = Object.values(rsReplicas(c)).sort();
    assert.deepEqual(sizes, [0, 4]);
    const images = new Set(
      pods(c).map((p) => (p.spec as { containers: { image: string }[] }).containers[0]!.image),
    );
    assert.deepEqual(images, new Set(["nginx:1.28"]));
  });

  test("resizing mid-rollout scales old and new ReplicaSets proportionally", () => {
    // The documentation's example: 10 replicas, maxSurge 3, maxUnavailable 2, a rollout stuck
    // (pods never become ready) at 8 old + 5 new; the autoscaler asks for 15: 3 more for the
    // old ReplicaSet, 2 for the new one.
    const c = cluster(
      scenario({ workloads: [workloadModel({ pod: lifecycle({ readinessDelayMs: 3_600_000 }) })] }),
    );
    c.create(deployment({ replicas: 10, maxSurge: 3, maxUnavailable: 2 }));
    const oldName = c.store.list("ReplicaSet", "default")[0]!.metadata.name;
    c.advanceTo(at(1));
    applyScenarioEvent(
      {
        atMs: 1000,
        type: "updateTemplate",
        workload: WEB,
        patch: { spec: { containers: [{ name: "app", image: "nginx:bad" }] } },
      },
      { cluster: c, controller: null, now: c.now },
    );
    c.advanceTo(at(10));
    const before = rsReplicas(c);
    const newName = Object.keys(before).find((n) => n !== oldName)!;
    assert.deepEqual({ old: before[oldName], new: before[newName] }, { old: 8, new: 5 });
    c.scaleWorkload("default", "Deployment", "web", 15);
    const after = rsReplicas(c);
    assert.deepEqual({ old: after[oldName], new: after[newName] }, { old: 11, new: 7 });
    const rs = c.store.get("ReplicaSet", "default", newName)!;
    assert.equal(rs.metadata.annotations!["deployment.kubernetes.io/desired-replicas"], "15");
    assert.equal(rs.metadata.annotations!["deployment.kubernetes.io/max-replicas"], "18");
  });

  test("Recreate removes every old pod before starting new ones", () => {
    const c = cluster();
    c.create(deployment({ replicas: 2, strategy: "Recreate" }));
    c.advanceTo(at(10));
    applyScenarioEvent(
      {
        atMs: 10_000,
        type: "updateTemplate",
        workload: WEB,
        patch: { spec: { containers: [{ name: "app", image: "v2" }] } },
      },
      { cluster: c, controller: null, now: c.now },
    );
    c.advanceTo(at(20));
    assert.deepEqual(
      Object.values(rsReplicas(c)),
      [0],
      "no new ReplicaSet while old pods terminate",
    );
    assert.equal(pods(c).length, 2);
    c.advanceTo(at(41));
    assert.deepEqual(Object.values(rsReplicas(c)).sort(), [0, 2]);
  });
});

describe("StatefulSet", () => {
  test("a re-created pod name is its next incarnation, with a stream of its own", () => {
    const selector = parseSelector("app=db");
    assert.ok(selector.ok);
    const incarnations = () => {
      const c = cluster(
        scenario({
          workloads: [
            workloadModel({
              target: { namespace: "default", kind: "StatefulSet", name: "db" },
              pod: lifecycle({ terminationGracePeriodMs: 1_000 }),
            }),
          ],
        }),
      );
      c.create(statefulSet({ replicas: 1 }));
      const seen: { name: string; incarnation: number; seed: number }[] = [];
      for (let i = 0; i < 3; i++) {
        c.advanceTo(at(30 * (i + 1)));
        const [pod] = [...c.selectorEntry("default", selector.selector).members];
        assert.ok(pod, `a pod at ${30 * (i + 1)} s`);
        seen.push({ name: pod.name, incarnation: pod.incarnation, seed: pod.seed });
        c.deletePods([pod]);
      }
      return seen;
    };
    const seen = incarnations();
    assert.deepEqual(
      seen.map((p) => [p.name, p.incarnation]),
      [
        ["db-0", 1],
        ["db-0", 2],
        ["db-0", 3],
      ],
    );
    assert.equal(new Set(seen.map((p) => p.seed)).size, 3);
    assert.deepEqual(incarnations(), seen, "the same writes give the same streams");
  });

  test("OrderedReady: pod N only after pod N−1 is Ready; scale-down from the highest ordinal", () => {
    const c = cluster(
      scenario({
        workloads: [
          workloadModel({
            target: { namespace: "default", kind: "StatefulSet", name: "db" },
            pod: lifecycle({ terminationGracePeriodMs: 10_000 }),
          }),
        ],
      }),
    );
    c.create(statefulSet({ replicas: 3 }));
    c.advanceTo(at(7));
    assert.deepEqual(
      pods(c).map((p) => p.metadata.name),
      ["db-0"],
    );
    c.advanceTo(at(8));
    assert.deepEqual(
      pods(c).map((p) => p.metadata.name),
      ["db-0", "db-1"],
    );
    c.advanceTo(at(30));
    assert.deepEqual(
      pods(c).map((p) => p.metadata.name),
      ["db-0", "db-1", "db-2"],
    );
    const scale = c.store.get("StatefulSet", "default", "db")!.status as {
      replicas: number;
      readyReplicas: number;
    };
    assert.deepEqual(
      { replicas: scale.replicas, ready: scale.readyReplicas },
      { replicas: 3, ready: 3 },
    );
    c.scaleWorkload("default", "StatefulSet", "db", 1);
    assert.deepEqual(
      pods(c)
        .filter((p) => p.metadata.deletionTimestamp)
        .map((p) => p.metadata.name),
      ["db-2"],
    );
    c.advanceTo(at(40));
    assert.deepEqual(
      pods(c)
        .filter((p) => p.metadata.deletionTimestamp)
        .map((p) => p.metadata.name),
      ["db-1"],
    );
    c.advanceTo(at(50));
    assert.deepEqual(
      pods(c).map((p) => p.metadata.name),
      ["db-0"],
    );
  });
});
