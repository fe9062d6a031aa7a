// The Job controller and its pods on the fake clock: pods that run for the template's
// `horizon.dev/run-duration` and end Succeeded (or Failed with `horizon.dev/exit-code`),
// parallelism and completions, the back-off before a failed pod's replacement, backoffLimit,
// activeDeadlineSeconds, suspend and resume, a work queue (no completions), status and
// conditions as upstream, and the job-controller's Events.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, scenario, T0 } from "./builders.js";

type Json = Record<string, unknown>;

function newCluster(componentEvents = false): EmbeddedCluster {
  return new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0, componentEvents });
}

function job(
  spec: Json = {},
  annotations: Record<string, string> = { "horizon.dev/run-duration": "10s" },
): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "pi", namespace: "default", uid: "uid-pi" },
    spec: {
      ...spec,
      template: {
        metadata: { annotations },
        spec: { restartPolicy: "Never", containers: [{ name: "pi", image: "perl:5.34" }] },
      },
    },
  };
}

const statusOf = (c: EmbeddedCluster) =>
  c.store.get("Job", "default", "pi")!.status as Json & { conditions?: Json[] };

function phases(c: EmbeddedCluster): string[] {
  return c.store
    .list("Pod", "default")
    .map((p) => `${(p.status as Json).phase}${p.metadata.deletionTimestamp ? " (deleting)" : ""}`)
    .sort();
}

const conditionsOf = (c: EmbeddedCluster) =>
  (statusOf(c).conditions ?? []).map((x) => [x.type, x.status, x.reason, x.message]);

describe("Job controller", () => {
  it("runs parallelism pods until completions have succeeded, then is Complete", () => {
    const c = newCluster();
    c.create(job({ completions: 3, parallelism: 2 }));
    c.advanceTo(at(0));
    const created = c.store.get("Job", "default", "pi")!;
    // The generated selector and labels, as the API server's create makes them.
    assert.deepEqual((created.spec as Json).selector, {
      matchLabels: { "batch.kubernetes.io/controller-uid": "uid-pi" },
    });
    const pod = c.store.list("Pod", "default")[0]!;
    assert.deepEqual(pod.metadata.labels, {
      "batch.kubernetes.io/controller-uid": "uid-pi",
      "batch.kubernetes.io/job-name": "pi",
      "controller-uid": "uid-pi",
      "job-name": "pi",
    });
    assert.match(pod.metadata.name, /^pi-[a-z0-9]{5}$/);
    assert.deepEqual(
      pod.metadata.ownerReferences?.map((r) => [r.apiVersion, r.kind, r.name]),
      [["batch/v1", "Job", "pi"]],
    );
    assert.deepEqual(phases(c), ["Running", "Running"]);
    assert.deepEqual(statusOf(c), {
      startTime: "2026-01-01T12:00:00Z",
      active: 2,
      terminating: 0,
      uncountedTerminatedPods: {},
      ready: 2,
    });
    c.advanceTo(at(9));
    assert.equal(statusOf(c).succeeded, undefined);
    c.advanceTo(at(10));
    assert.deepEqual(phases(c), ["Running", "Succeeded", "Succeeded"]);
    assert.deepEqual([statusOf(c).active, statusOf(c).succeeded], [1, 2]);
    const done = c.store
      .list("Pod", "default")
      .find((p) => (p.status as Json).phase === "Succeeded")!;
    const container = ((done.status as Json).containerStatuses as Json[])[0]!;
    assert.deepEqual(container.state, {
      terminated: {
        exitCode: 0,
        reason: "Completed",
        startedAt: "2026-01-01T12:00:00Z",
        finishedAt: "2026-01-01T12:00:10Z",
      },
    });
    const ready = ((done.status as Json).conditions as Json[]).find((x) => x.type === "Ready")!;
    assert.deepEqual([ready.status, ready.reason], ["False", "PodCompleted"]);
    c.advanceTo(at(20));
    assert.deepEqual(phases(c), ["Succeeded", "Succeeded", "Succeeded"]);
    const message = "Reached expected number of succeeded pods";
    assert.deepEqual(conditionsOf(c), [
      ["SuccessCriteriaMet", "True", "CompletionsReached", message],
      ["Complete", "True", "CompletionsReached", message],
    ]);
    assert.deepEqual(
      [statusOf(c).succeeded, statusOf(c).active, statusOf(c).completionTime],
      [3, undefined, "2026-01-01T12:00:20Z"],
    );
    // Finished: nothing more is created, whatever happens to its pods.
    c.advanceTo(at(60));
    assert.equal(c.store.list("Pod", "default").length, 3);
  });

  it("replaces a failed pod after the back-off and fails past backoffLimit", () => {
    const c = newCluster(true);
    c.create(
      job({ backoffLimit: 1 }, { "horizon.dev/run-duration": "5s", "horizon.dev/exit-code": "3" }),
    );
    c.advanceTo(at(5));
    assert.deepEqual(phases(c), ["Failed"]);
    const failedPod = c.store.list("Pod", "default")[0]!;
    const terminated = (((failedPod.status as Json).containerStatuses as Json[])[0]!.state as Json)
      .terminated as Json;
    assert.deepEqual([terminated.exitCode, terminated.reason], [3, "Error"]);
    assert.deepEqual([statusOf(c).failed, statusOf(c).active], [1, undefined]);
    // Back-off: 10 s after the first failure.
    c.advanceTo(at(14));
    assert.deepEqual(phases(c), ["Failed"]);
    c.advanceTo(at(15));
    assert.deepEqual(phases(c), ["Failed", "Running"]);
    c.advanceTo(at(20));
    assert.deepEqual(phases(c), ["Failed", "Failed"]);
    const message = "Job has reached the specified backoff limit";
    assert.deepEqual(conditionsOf(c), [
      ["FailureTarget", "True", "BackoffLimitExceeded", message],
      ["Failed", "True", "BackoffLimitExceeded", message],
    ]);
    const warnings = c.store
      .list("Event", "default")
      .map((e) => e as unknown as Json)
      .filter((e) => e.type === "Warning")
      .map((e) => [e.reason, e.message, (e.source as Json).component]);
    assert.deepEqual(warnings, [["BackoffLimitExceeded", message, "job-controller"]]);
  });

  it("fails at activeDeadlineSeconds and deletes its running pods", () => {
    const c = newCluster();
    c.create(job({ activeDeadlineSeconds: 3 }));
    c.advanceTo(at(2));
    assert.deepEqual(phases(c), ["Running"]);
    c.advanceTo(at(3));
    assert.deepEqual(phases(c), ["Running (deleting)"]);
    assert.deepEqual(conditionsOf(c).at(-1), [
      "Failed",
      "True",
      "DeadlineExceeded",
      "Job was active longer than specified deadline",
    ]);
  });

  it("suspended, it runs nothing; resumed, it starts its pods", () => {
    const c = newCluster();
    c.create(job({ suspend: true }));
    assert.deepEqual(phases(c), []);
    assert.deepEqual(conditionsOf(c), [["Suspended", "True", "JobSuspended", "Job suspended"]]);
    assert.equal(statusOf(c).startTime, undefined);
    c.advanceTo(at(5));
    const current = c.store.get("Job", "default", "pi")!;
    c.update({
      ...current,
      metadata: { ...current.metadata, resourceVersion: undefined },
      spec: { ...(current.spec as Json), suspend: false },
    });
    c.advanceTo(at(5));
    assert.deepEqual(phases(c), ["Running"]);
    assert.deepEqual(conditionsOf(c), [["Suspended", "False", "JobResumed", "Job resumed"]]);
    assert.equal(statusOf(c).startTime, "2026-01-01T12:00:05Z");
  });

  it("a work queue (no completions) is complete once a pod succeeded and none runs", () => {
    const c = newCluster();
    c.create(job({ parallelism: 2 }));
    c.advanceTo(at(0));
    assert.equal((c.store.get("Job", "default", "pi")!.spec as Json).completions, undefined);
    assert.deepEqual(phases(c), ["Running", "Running"]);
    c.advanceTo(at(10));
    assert.deepEqual(phases(c), ["Succeeded", "Succeeded"]);
    assert.equal(conditionsOf(c).at(-1)?.[0], "Complete");
  });

  it("records SuccessfulCreate and Completed from the job-controller", () => {
    const c = newCluster(true);
    c.create(job());
    c.advanceTo(at(10));
    const pod = c.store.list("Pod", "default")[0]!.metadata.name;
    const events = c.store
      .list("Event", "default")
      .map((e) => e as unknown as Json)
      .filter((e) => (e.source as Json).component === "job-controller")
      .map((e) => [e.type, e.reason, e.message, (e.involvedObject as Json).kind]);
    assert.deepEqual(events, [
      ["Normal", "SuccessfulCreate", `Created pod: ${pod}`, "Job"],
      ["Normal", "Completed", "Job completed", "Job"],
    ]);
  });
});
