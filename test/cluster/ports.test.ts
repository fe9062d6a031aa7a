import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseSelector, type Selector } from "../../src/api/selector.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { applyScenarioEvent, clusterModelOf } from "../../src/sim/cluster.js";
import { at, deployment, hpa, scenario, statefulSet, T0 } from "./builders.js";

const selector = (text: string) =>
  (parseSelector(text) as { ok: true; selector: Selector }).selector;

function setup() {
  const c = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  c.create(deployment({ replicas: 2 }));
  c.create(hpa());
  c.advanceTo(at(30));
  return { c, ports: c.ports() };
}

describe("ScaleTargetPort", () => {
  const cases = [
    {
      name: "Deployment",
      ref: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      expected: { ok: true, spec: 2, status: 2, selector: "app=web" },
    },
    {
      name: "StatefulSet",
      ref: { apiVersion: "apps/v1", kind: "StatefulSet", name: "db" },
      expected: { ok: true, spec: 1, status: 1, selector: "app=db" },
    },
    {
      name: "ReplicationController (map selector)",
      ref: { apiVersion: "v1", kind: "ReplicationController", name: "legacy" },
      expected: { ok: true, spec: 1, status: 1, selector: "app=legacy,tier=web" },
    },
    {
      name: "missing Deployment",
      ref: { apiVersion: "apps/v1", kind: "Deployment", name: "nope" },
      expected: { ok: false, error: 'deployments.apps "nope" not found', status: 404 },
    },
    {
      name: "missing RC",
      ref: { kind: "ReplicationController", name: "nope" },
      expected: { ok: false, error: 'replicationcontrollers "nope" not found', status: 404 },
    },
    {
      name: "unknown kind",
      ref: { apiVersion: "example.com/v1", kind: "Widget", name: "w" },
      expected: {
        ok: false,
        error: 'no matches for kind "Widget" in group "example.com"',
        status: 404,
      },
    },
    {
      name: "Deployment in the wrong group",
      ref: { apiVersion: "extensions/v1beta1", kind: "Deployment", name: "web" },
      expected: {
        ok: false,
        error: 'no matches for kind "Deployment" in group "extensions"',
        status: 404,
      },
    },
  ];
  for (const c of cases) {
    test(`getScale: ${c.name}`, async () => {
      const { c: cluster, ports } = setup();
      cluster.create(statefulSet({ replicas: 1 }));
      cluster.create({
        apiVersion: "v1",
        kind: "ReplicationController",
        metadata: { name: "legacy", namespace: "default" },
        spec: {
          template: {
            metadata: { labels: { app: "legacy", tier: "web" } },
            spec: { containers: [{ name: "c" }] },
          },
        },
      });
      cluster.advanceTo(at(60));
      const result = await ports.scale.getScale("default", c.ref);
      if (result.ok) {
        assert.deepEqual(
          {
            ok: true,
            spec: result.value.specReplicas,
            status: result.value.statusReplicas,
            selector: result.value.selector,
          },
          c.expected,
        );
        assert.equal(typeof result.value.resourceVersion, "string");
      } else {
        assert.deepEqual({ ok: false, error: result.error, status: result.status }, c.expected);
      }
    });
  }

  test("updateScale sets spec.replicas; status.replicas follows the pods that exist", async () => {
    const { c, ports } = setup();
    const ref = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
    const before = c.store.get("Deployment", "default", "web")!;
    assert.deepEqual(await ports.scale.updateScale("default", ref, 4), {
      ok: true,
      value: undefined,
    });
    const scale = await ports.scale.getScale("default", ref);
    assert.ok(scale.ok);
    assert.deepEqual(
      { spec: scale.value.specReplicas, status: scale.value.statusReplicas },
      { spec: 4, status: 4 },
    );
    assert.equal(
      c.store.get("Deployment", "default", "web")!.metadata.generation,
      (before.metadata.generation ?? 1) + 1,
    );
    // Scaling down: terminating pods no longer count in status.replicas.
    await ports.scale.updateScale("default", ref, 1);
    const down = await ports.scale.getScale("default", ref);
    assert.ok(down.ok);
    assert.equal(down.value.statusReplicas, 1);
    // The two new pods were not bound yet and went at once; one ready pod is terminating.
    const listed = c.listPods("default", selector("app=web"));
    assert.deepEqual(listed.map((p) => p.deleting).sort(), [false, true]);
    const missing = await ports.scale.updateScale("default", { ...ref, name: "nope" }, 3);
    assert.deepEqual(missing, {
      ok: false,
      error: 'deployments.apps "nope" not found',
      status: 404,
    });
  });
});

describe("PodsPort", () => {
  test("lists the namespace's pods matching the selector, as cached views", () => {
    const { c, ports } = setup();
    c.create(deployment({ name: "api", replicas: 1 }));
    c.advanceTo(at(40));
    const web = ports.pods.listPods("default", selector("app=web"));
    assert.equal(web.length, 2);
    assert.ok(
      web.every(
        (p) => p.labels.app === "web" && p.phase === "Running" && p.ready?.status === "True",
      ),
    );
    assert.equal(
      ports.pods.listPods("default", selector("app=web")),
      web,
      "same array while nothing changed",
    );
    assert.equal(ports.pods.listPods("other", selector("app=web")).length, 0);
    assert.equal(ports.pods.listPods("default", selector("app in (api,web)")).length, 3);
    c.scaleWorkload("default", "Deployment", "web", 3);
    const after = ports.pods.listPods("default", selector("app=web"));
    assert.notEqual(after, web);
    assert.equal(after.length, 3);
    assert.equal(after.filter((p) => p.phase === "Pending").length, 1);
    // Unchanged pods keep their view objects (parsed once per change).
    assert.ok(web.every((view) => after.includes(view)));
  });

  test("asked in a repeating order, in another, or with a new selector object of the same text: the same lists", () => {
    const { c, ports } = setup();
    c.create(deployment({ name: "api", replicas: 1 }));
    c.advanceTo(at(40));
    const texts = ["app=web", "app=api", "app in (api,web)"];
    // Another object of the same selector (as a caller that parses it again has).
    const fresh = (text: string): Selector => ({ ...selector(text) });
    const expected = texts.map((text) => ports.pods.listPods("default", selector(text)).length);
    assert.deepEqual(expected, [2, 1, 3]);
    for (const order of [
      [0, 1, 2, 0, 1, 2, 0, 1, 2],
      [2, 1, 0, 2, 1, 0],
      [0, 0, 2, 2, 1, 1, 0, 2],
    ]) {
      for (const i of order) {
        assert.equal(ports.pods.listPods("default", selector(texts[i]!)).length, expected[i]);
        assert.equal(ports.pods.listPods("default", fresh(texts[i]!)).length, expected[i]);
        assert.equal(ports.pods.listPods("other", selector(texts[i]!)).length, 0);
      }
    }
  });
});

describe("HpaStatusPort", () => {
  test("writes the status subresource without touching spec or generation", async () => {
    const { c, ports } = setup();
    const stored = c.store.get(
      "HorizontalPodAutoscaler",
      "default",
      "web",
    ) as unknown as HorizontalPodAutoscaler;
    const result = await ports.status.updateStatus(stored, {
      currentReplicas: 2,
      desiredReplicas: 3,
    });
    assert.deepEqual(result, { ok: true, value: undefined });
    const after = c.store.get("HorizontalPodAutoscaler", "default", "web")!;
    assert.deepEqual(after.status, { currentReplicas: 2, desiredReplicas: 3 });
    assert.equal(after.metadata.generation, stored.metadata.generation);
    assert.deepEqual(after.spec, (stored as unknown as KubeObject).spec);
    const missing = await ports.status.updateStatus(
      { ...stored, metadata: { ...stored.metadata, name: "gone" } },
      { desiredReplicas: 1 },
    );
    assert.deepEqual(missing, {
      ok: false,
      error: 'horizontalpodautoscalers.autoscaling "gone" not found',
      status: 404,
    });
  });
});

describe("EventsPort", () => {
  test("repeats of the same event aggregate into one Event (count, lastTimestamp)", () => {
    const { c, ports } = setup();
    const h = c.store.get(
      "HorizontalPodAutoscaler",
      "default",
      "web",
    ) as unknown as HorizontalPodAutoscaler;
    const warning = {
      type: "Warning" as const,
      reason: "FailedGetResourceMetric",
      message: "no metrics",
    };
    ports.events.record(h, warning, at(30));
    ports.events.record(h, warning, at(45));
    ports.events.record(
      h,
      { type: "Normal", reason: "SuccessfulRescale", message: "New size: 3; reason: cpu" },
      at(45),
    );
    const events = c.store.list("Event", "default");
    assert.equal(events.length, 2);
    const failed = events.find((e) => e.reason === "FailedGetResourceMetric")!;
    assert.deepEqual(
      {
        count: failed.count,
        first: failed.firstTimestamp,
        last: failed.lastTimestamp,
        involved: (failed.involvedObject as { kind: string; name: string }).name,
        source: failed.source,
        type: failed.type,
      },
      {
        count: 2,
        first: "2026-01-01T12:00:30Z",
        last: "2026-01-01T12:00:45Z",
        involved: "web",
        source: { component: "horizontal-pod-autoscaler" },
        type: "Warning",
      },
    );
    assert.match(failed.metadata.name, /^web\.[0-9a-f]+$/);
  });
});

describe("scenario events", () => {
  test("patchHpa merge-patches the HPA and re-defaults it", () => {
    const { c } = setup();
    applyScenarioEvent(
      {
        atMs: 30_000,
        type: "patchHpa",
        namespace: "default",
        name: "web",
        patch: {
          spec: { maxReplicas: 20, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } },
        },
      },
      { cluster: c, controller: null, now: c.now },
    );
    const h = c.store.get(
      "HorizontalPodAutoscaler",
      "default",
      "web",
    ) as unknown as HorizontalPodAutoscaler;
    assert.equal(h.spec.maxReplicas, 20);
    assert.equal(h.spec.behavior?.scaleDown?.stabilizationWindowSeconds, 60);
    assert.equal(h.spec.behavior?.scaleUp?.stabilizationWindowSeconds, 0, "defaulted");
    assert.equal(h.metadata.generation, undefined, "1.34 keeps no generation on HPAs");
  });

  test("killPods deletes that many pods (seeded choice); the ReplicaSet replaces them", () => {
    const { c } = setup();
    applyScenarioEvent(
      {
        atMs: 30_000,
        type: "killPods",
        workload: { namespace: "default", kind: "Deployment", name: "web" },
        count: 1,
      },
      { cluster: c, controller: null, now: c.now },
    );
    const all = c.store.list("Pod", "default");
    assert.equal(all.filter((p) => p.metadata.deletionTimestamp).length, 1);
    assert.equal(all.length, 3);
  });

  test("setTraffic replaces the workload's traffic from now on", () => {
    const { c } = setup();
    const ref = { namespace: "default", kind: "Deployment" as const, name: "web" };
    applyScenarioEvent(
      {
        atMs: 30_000,
        type: "setTraffic",
        workload: ref,
        traffic: [{ type: "constant", rps: 77 }],
      },
      { cluster: c, controller: null, now: c.now },
    );
    assert.equal(c.snapshot(ref).demandRps, 77);
  });
});
