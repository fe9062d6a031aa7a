// The DaemonSet controller on the fake clock: one pod on the (one) node its nodeSelector
// selects, with the daemon pod's labels, affinity and tolerations; status counts; a rolling
// update without surge (the default) and with surge; OnDelete; a nodeSelector that stops
// selecting the node; its SuccessfulCreate / SuccessfulDelete Events.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, scenario, T0 } from "./builders.js";

function newCluster(componentEvents = false): EmbeddedCluster {
  return new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0, componentEvents });
}

/** A DaemonSet whose pods are Ready 5 s after their containers start (readiness probe). */
function daemonSet(
  options: {
    image?: string;
    nodeSelector?: Record<string, string>;
    updateStrategy?: Record<string, unknown>;
  } = {},
): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "agent", namespace: "default" },
    spec: {
      selector: { matchLabels: { app: "agent" } },
      ...(options.updateStrategy ? { updateStrategy: options.updateStrategy } : {}),
      template: {
        metadata: { labels: { app: "agent" } },
        spec: {
          ...(options.nodeSelector ? { nodeSelector: options.nodeSelector } : {}),
          terminationGracePeriodSeconds: 10,
          containers: [
            {
              name: "agent",
              image: options.image ?? "fluentd:1.16",
              readinessProbe: { httpGet: { path: "/", port: 80 }, initialDelaySeconds: 5 },
            },
          ],
        },
      },
    },
  };
}

type Json = Record<string, unknown>;

function pods(c: EmbeddedCluster) {
  return c.store.list("Pod", "default").map((p) => ({
    name: p.metadata.name,
    image: ((p.spec as Json).containers as Json[])[0]!.image,
    terminating: p.metadata.deletionTimestamp !== undefined,
  }));
}

const status = (c: EmbeddedCluster) => c.store.get("DaemonSet", "default", "agent")!.status;

/** Replaces the DaemonSet's spec as a client's update would (the cluster defaults it). */
function update(c: EmbeddedCluster, next: KubeObject): void {
  const current = c.store.get("DaemonSet", "default", "agent")!;
  c.update({ ...next, metadata: { ...current.metadata, resourceVersion: undefined } });
}

describe("DaemonSet controller", () => {
  it("runs one pod on the node, labelled, bound by affinity, tolerating the node conditions", () => {
    const c = newCluster();
    c.create(daemonSet());
    const [pod] = c.store.list("Pod", "default");
    assert.ok(pod);
    assert.match(pod.metadata.name, /^agent-[a-z0-9]{5}$/);
    assert.equal(pod.metadata.generateName, "agent-");
    assert.equal(pod.metadata.labels?.app, "agent");
    assert.equal(pod.metadata.labels?.["pod-template-generation"], "1");
    assert.ok(pod.metadata.labels?.["controller-revision-hash"]);
    assert.deepEqual(
      pod.metadata.ownerReferences?.map((r) => [r.apiVersion, r.kind, r.name, r.controller]),
      [["apps/v1", "DaemonSet", "agent", true]],
    );
    const spec = pod.spec as Json;
    assert.deepEqual(spec.affinity, {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchFields: [{ key: "metadata.name", operator: "In", values: ["horizon-node"] }] },
          ],
        },
      },
    });
    assert.deepEqual(
      (spec.tolerations as Json[]).map((t) => `${t.key}:${t.effect}`),
      [
        "node.kubernetes.io/not-ready:NoExecute",
        "node.kubernetes.io/unreachable:NoExecute",
        "node.kubernetes.io/disk-pressure:NoSchedule",
        "node.kubernetes.io/memory-pressure:NoSchedule",
        "node.kubernetes.io/pid-pressure:NoSchedule",
        "node.kubernetes.io/unschedulable:NoSchedule",
      ],
    );
    assert.deepEqual(status(c), {
      currentNumberScheduled: 1,
      numberMisscheduled: 0,
      desiredNumberScheduled: 1,
      numberReady: 0,
      observedGeneration: 1,
      updatedNumberScheduled: 1,
      numberUnavailable: 1,
    });
    c.advanceTo(at(5));
    assert.deepEqual(status(c), {
      currentNumberScheduled: 1,
      numberMisscheduled: 0,
      desiredNumberScheduled: 1,
      numberReady: 1,
      observedGeneration: 1,
      updatedNumberScheduled: 1,
      numberAvailable: 1,
    });
  });

  it("runs no pod where its nodeSelector selects no node, and removes one when it stops selecting", () => {
    const c = newCluster();
    c.create(daemonSet({ nodeSelector: { "kubernetes.io/os": "windows" } }));
    assert.deepEqual(pods(c), []);
    assert.deepEqual(status(c), {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
      observedGeneration: 1,
    });
    update(c, daemonSet({ nodeSelector: { "kubernetes.io/os": "linux" } }));
    assert.equal(pods(c).length, 1);
    c.advanceTo(at(10));
    update(c, daemonSet({ nodeSelector: { disktype: "ssd" } }));
    assert.deepEqual(
      pods(c).map((p) => p.terminating),
      [true],
    );
    c.advanceTo(at(21));
    assert.deepEqual(pods(c), []);
    assert.equal((status(c) as Json).desiredNumberScheduled, 0);
  });

  it("rolls a new template out without surge: the old pod goes, the new one starts at once", () => {
    const c = newCluster();
    c.create(daemonSet());
    c.advanceTo(at(10));
    update(c, daemonSet({ image: "fluentd:1.17" }));
    assert.deepEqual(
      pods(c)
        .map((p) => [p.image, p.terminating])
        .sort(),
      [
        ["fluentd:1.16", true],
        ["fluentd:1.17", false],
      ],
    );
    // Updated but not yet available: `kubectl rollout status` waits.
    assert.deepEqual(
      [
        (status(c) as Json).observedGeneration,
        (status(c) as Json).updatedNumberScheduled,
        (status(c) as Json).numberAvailable,
      ],
      [2, 1, undefined],
    );
    c.advanceTo(at(15));
    assert.equal((status(c) as Json).numberAvailable, 1);
    c.advanceTo(at(21));
    assert.deepEqual(pods(c), [
      { name: pods(c)[0]!.name, image: "fluentd:1.17", terminating: false },
    ]);
    const pod = c.store.list("Pod", "default")[0]!;
    assert.equal(pod.metadata.labels?.["pod-template-generation"], "2");
  });

  it("with maxSurge the old pod stays until the new one is available", () => {
    const c = newCluster();
    const surge = { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    c.create(daemonSet({ updateStrategy: surge }));
    c.advanceTo(at(10));
    update(c, daemonSet({ image: "fluentd:1.17", updateStrategy: surge }));
    assert.deepEqual(
      pods(c)
        .map((p) => [p.image, p.terminating])
        .sort(),
      [
        ["fluentd:1.16", false],
        ["fluentd:1.17", false],
      ],
    );
    // The node's daemon pod is still the old one until it goes.
    assert.equal((status(c) as Json).updatedNumberScheduled, undefined);
    c.advanceTo(at(14));
    assert.equal(pods(c).filter((p) => p.terminating).length, 0);
    c.advanceTo(at(15));
    assert.deepEqual(
      pods(c)
        .map((p) => [p.image, p.terminating])
        .sort(),
      [
        ["fluentd:1.16", true],
        ["fluentd:1.17", false],
      ],
    );
    assert.equal((status(c) as Json).updatedNumberScheduled, 1);
  });

  it("OnDelete: a new template waits until the pod is deleted", () => {
    const c = newCluster();
    const onDelete = { type: "OnDelete" };
    c.create(daemonSet({ updateStrategy: onDelete }));
    c.advanceTo(at(10));
    update(c, daemonSet({ image: "fluentd:1.17", updateStrategy: onDelete }));
    c.advanceTo(at(20));
    assert.deepEqual(
      pods(c).map((p) => p.image),
      ["fluentd:1.16"],
    );
    assert.equal((status(c) as Json).updatedNumberScheduled, undefined);
    const [pod] = c.store.list("Pod", "default");
    c.store.delete("Pod", "default", pod!.metadata.name);
    c.reconcile();
    assert.deepEqual(
      pods(c).map((p) => p.image),
      ["fluentd:1.17"],
    );
  });

  it("a change outside the template adds a generation, not a template generation", () => {
    const c = newCluster();
    c.create(daemonSet());
    c.advanceTo(at(10));
    update(c, daemonSet({ updateStrategy: { type: "OnDelete" } }));
    const ds = c.store.get("DaemonSet", "default", "agent")!;
    assert.equal(ds.metadata.generation, 2);
    assert.equal(ds.metadata.annotations?.["deprecated.daemonset.template.generation"], "1");
    const [pod] = c.store.list("Pod", "default");
    c.store.delete("Pod", "default", pod!.metadata.name);
    c.reconcile();
    const [replacement] = c.store.list("Pod", "default");
    assert.notEqual(replacement!.metadata.name, pod!.metadata.name);
    assert.equal(replacement!.metadata.labels?.["pod-template-generation"], "1");
  });

  it("records SuccessfulCreate and SuccessfulDelete from the daemonset-controller", () => {
    const c = newCluster(true);
    c.create(daemonSet());
    const first = c.store.list("Pod", "default")[0]!.metadata.name;
    c.advanceTo(at(10));
    update(c, daemonSet({ image: "fluentd:1.17" }));
    const second = c.store
      .list("Pod", "default")
      .find((p) => p.metadata.deletionTimestamp === undefined)!.metadata.name;
    const events = c.store
      .list("Event", "default")
      .map((o) => o as unknown as Json)
      .filter((e) => (e.source as Json).component === "daemonset-controller")
      .map((e) => [e.reason, (e.involvedObject as Json).kind, e.message]);
    assert.deepEqual(events, [
      ["SuccessfulCreate", "DaemonSet", `Created pod: ${first}`],
      ["SuccessfulDelete", "DaemonSet", `Deleted pod: ${first}`],
      ["SuccessfulCreate", "DaemonSet", `Created pod: ${second}`],
    ]);
  });
});
