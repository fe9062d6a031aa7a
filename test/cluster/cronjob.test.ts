// The CronJob controller on the fake clock: Jobs `<name>-<scheduled minutes>` at each schedule
// time, their completion seen (SawCompletedJob, lastSuccessfulTime), history limits, the
// Forbid and Replace concurrency policies, a time zone, suspend, and the Events.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, scenario, T0 } from "./builders.js";

type Json = Record<string, unknown>;

function newCluster(): EmbeddedCluster {
  return new EmbeddedCluster({
    model: clusterModelOf(scenario()),
    startTime: T0,
    componentEvents: true,
  });
}

function cronJob(spec: Json = {}, runDuration = "5s"): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name: "tick", namespace: "default", uid: "uid-tick" },
    spec: {
      schedule: "* * * * *",
      ...spec,
      jobTemplate: {
        metadata: { labels: { app: "tick" } },
        spec: {
          template: {
            metadata: { annotations: { "horizon.dev/run-duration": runDuration } },
            spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox" }] },
          },
        },
      },
    },
  };
}

const minutes = (seconds: number) => Math.floor(at(seconds) / 60_000);
const jobNames = (c: EmbeddedCluster) =>
  c.store
    .list("Job", "default")
    .filter((j) => !j.metadata.deletionTimestamp)
    .map((j) => j.metadata.name)
    .sort();
const status = (c: EmbeddedCluster) => c.store.get("CronJob", "default", "tick")!.status as Json;
const cronEvents = (c: EmbeddedCluster) =>
  c.store
    .list("Event", "default")
    .map((e) => e as unknown as Json)
    .filter((e) => (e.source as Json).component === "cronjob-controller")
    .map((e) => [e.reason, e.message]);

describe("CronJob controller", () => {
  it("creates a Job at each schedule time, sees it complete, keeps its history limit", () => {
    const c = newCluster();
    c.create(cronJob({ successfulJobsHistoryLimit: 2 }));
    c.advanceTo(at(59));
    assert.deepEqual(jobNames(c), []);
    c.advanceTo(at(60));
    const first = `tick-${minutes(60)}`;
    assert.deepEqual(jobNames(c), [first]);
    const job = c.store.get("Job", "default", first)!;
    assert.deepEqual(job.metadata.labels, { app: "tick" });
    assert.equal(
      job.metadata.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"],
      "2026-01-01T12:01:00Z",
    );
    assert.deepEqual(
      job.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller]),
      [["CronJob", "tick", true]],
    );
    // The API server's Job defaults and generated selector.
    assert.deepEqual(((job.spec as Json).selector as Json).matchLabels, {
      "batch.kubernetes.io/controller-uid": job.metadata.uid,
    });
    assert.deepEqual(
      (status(c).active as Json[]).map((r) => [r.kind, r.name]),
      [["Job", first]],
    );
    assert.equal(status(c).lastScheduleTime, "2026-01-01T12:01:00Z");
    c.advanceTo(at(65));
    assert.equal(status(c).active, undefined);
    assert.equal(status(c).lastSuccessfulTime, "2026-01-01T12:01:05Z");
    c.advanceTo(at(240));
    // Jobs at 12:01 … 12:04: the two latest successful ones are kept, and the running one.
    assert.deepEqual(jobNames(c), [
      `tick-${minutes(120)}`,
      `tick-${minutes(180)}`,
      `tick-${minutes(240)}`,
    ]);
    assert.deepEqual(cronEvents(c).slice(0, 2), [
      ["SuccessfulCreate", `Created job ${first}`],
      ["SawCompletedJob", `Saw completed job: ${first}, condition: Complete`],
    ]);
    assert.ok(
      cronEvents(c).some(
        ([reason, message]) => reason === "SuccessfulDelete" && message === `Deleted job ${first}`,
      ),
    );
    // Once 12:04's completes, 12:02's goes; the deleted Jobs' pods go with them.
    c.advanceTo(at(245));
    assert.deepEqual(jobNames(c), [`tick-${minutes(180)}`, `tick-${minutes(240)}`]);
    const owners = new Set(
      c.store.list("Pod", "default").map((p) => p.metadata.ownerReferences?.[0]?.name),
    );
    assert.deepEqual([...owners].sort(), [`tick-${minutes(180)}`, `tick-${minutes(240)}`]);
  });

  it("Forbid skips a time while the previous Job runs", () => {
    const c = newCluster();
    c.create(cronJob({ concurrencyPolicy: "Forbid" }, "90s"));
    c.advanceTo(at(120));
    assert.deepEqual(jobNames(c), [`tick-${minutes(60)}`]);
    assert.deepEqual(cronEvents(c).at(-1), [
      "JobAlreadyActive",
      "Not starting job because prior execution is running and concurrency policy is Forbid",
    ]);
    assert.equal(status(c).lastScheduleTime, "2026-01-01T12:01:00Z");
  });

  it("Replace deletes the running Job and starts the new one", () => {
    const c = newCluster();
    c.create(cronJob({ concurrencyPolicy: "Replace" }, "90s"));
    c.advanceTo(at(120));
    assert.deepEqual(jobNames(c), [`tick-${minutes(120)}`]);
    assert.deepEqual(cronEvents(c).slice(-2), [
      ["SuccessfulDelete", `Deleted job tick-${minutes(60)}`],
      ["SuccessfulCreate", `Created job tick-${minutes(120)}`],
    ]);
    assert.deepEqual(
      (status(c).active as Json[]).map((r) => r.name),
      [`tick-${minutes(120)}`],
    );
  });

  it("a schedule in a time zone fires at that zone's wall time", () => {
    const c = newCluster();
    // 12:00 UTC is 13:00 in Paris: the next 09:00 there is 08:00 UTC the next day.
    c.create(cronJob({ schedule: "0 9 * * *", timeZone: "Europe/Paris" }));
    c.advanceTo(at(20 * 3600 - 1));
    assert.deepEqual(jobNames(c), []);
    c.advanceTo(at(20 * 3600));
    const [name] = jobNames(c);
    assert.equal(name, `tick-${minutes(20 * 3600)}`);
    const job = c.store.get("Job", "default", name!)!;
    assert.equal(
      job.metadata.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"],
      "2026-01-02T09:00:00+01:00",
    );
  });

  it("suspended, it creates nothing", () => {
    const c = newCluster();
    c.create(cronJob({ suspend: true, schedule: "@hourly" }));
    c.advanceTo(at(3 * 3600));
    assert.deepEqual(jobNames(c), []);
    assert.deepEqual(status(c), {});
  });
});
