// The deployment controller's rollout bookkeeping on the virtual clock: the Progressing and
// Available conditions with upstream's reasons and messages, the progress deadline, pause and
// resume, revisions (a rollback renumbers the ReplicaSet it returns to) and the annotations a
// ReplicaSet inherits. Pods here: scheduled after 1 s, running after 2 s more, Ready 5 s later.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import type { DeploymentCondition } from "../../src/cluster/controllers/deployment.js";
import { applyScenarioEvent, clusterModelOf } from "../../src/sim/cluster.js";
import type { ScenarioSpec } from "../../src/sim/scenario-types.js";
import { at, deployment, lifecycle, scenario, T0, WEB, workloadModel } from "./builders.js";

function cluster(spec: ScenarioSpec = scenario()): EmbeddedCluster {
  return new EmbeddedCluster({ model: clusterModelOf(spec), startTime: T0 });
}

const web = (c: EmbeddedCluster): KubeObject => c.store.get("Deployment", "default", "web")!;

function conditions(c: EmbeddedCluster): DeploymentCondition[] {
  return ((web(c).status as { conditions?: DeploymentCondition[] }).conditions ?? []).map((x) => ({
    ...x,
  }));
}

/** Every Progressing reason the Deployment's writes carried, in order (repeats collapsed). */
function progressingReasons(c: EmbeddedCluster): string[] {
  const seen: string[] = [];
  c.store.watch((event) => {
    if (event.object.kind !== "Deployment") return;
    const list = (event.object.status as { conditions?: DeploymentCondition[] })?.conditions;
    const reason = list?.find((x) => x.type === "Progressing")?.reason;
    if (reason && seen[seen.length - 1] !== reason) seen.push(reason);
  });
  return seen;
}

/** type → "status reason: message" */
function summary(c: EmbeddedCluster): Record<string, string> {
  return Object.fromEntries(
    conditions(c).map((x) => [x.type, `${x.status} ${x.reason}: ${x.message}`]),
  );
}

function replicaSets(c: EmbeddedCluster): KubeObject[] {
  return [...c.store.list("ReplicaSet", "default")].sort(
    (a, b) =>
      Number(a.metadata.annotations?.["deployment.kubernetes.io/revision"]) -
      Number(b.metadata.annotations?.["deployment.kubernetes.io/revision"]),
  );
}

function setImage(c: EmbeddedCluster, image: string): void {
  applyScenarioEvent(
    {
      atMs: c.now - T0,
      type: "updateTemplate",
      workload: WEB,
      patch: { spec: { containers: [{ name: "app", image }] } },
    },
    { cluster: c, controller: null, now: c.now },
  );
}

const iso = (seconds: number) => new Date(at(seconds)).toISOString().replace(".000Z", "Z");

describe("Deployment conditions", () => {
  test("a new Deployment: NewReplicaSetCreated, then available and NewReplicaSetAvailable", () => {
    const c = cluster();
    const reasons = progressingReasons(c);
    c.create(deployment({ replicas: 2 }));
    const [rs] = replicaSets(c);
    const name = rs!.metadata.name;
    // The ReplicaSet's pods are created in the same instant, which is already progress.
    assert.deepEqual(summary(c), {
      Progressing: `True ReplicaSetUpdated: ReplicaSet "${name}" is progressing.`,
      Available: "False MinimumReplicasUnavailable: Deployment does not have minimum availability.",
    });
    assert.deepEqual(reasons, ["NewReplicaSetCreated", "ReplicaSetUpdated"]);
    c.advanceTo(at(7));
    assert.equal(summary(c).Available?.startsWith("False"), true, "not Ready before 8 s");
    assert.equal(
      summary(c).Progressing,
      `True ReplicaSetUpdated: ReplicaSet "${name}" is progressing.`,
    );
    c.advanceTo(at(9));
    assert.deepEqual(
      conditions(c).map((x) => [x.type, x.status, x.reason, x.message]),
      [
        ["Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability."],
        [
          "Progressing",
          "True",
          "NewReplicaSetAvailable",
          `ReplicaSet "${name}" has successfully progressed.`,
        ],
      ],
    );
    const progressing = conditions(c).find((x) => x.type === "Progressing")!;
    assert.equal(progressing.lastTransitionTime, iso(0), "True all along");
    assert.equal(progressing.lastUpdateTime, iso(8));
    const available = conditions(c).find((x) => x.type === "Available")!;
    assert.equal(available.lastTransitionTime, iso(8));
    assert.equal(web(c).metadata.annotations?.["deployment.kubernetes.io/revision"], "1");
  });

  test("a rollout: ReplicaSetUpdated while it moves, the new ReplicaSet's name at the end", () => {
    const c = cluster();
    c.create(deployment({ replicas: 4, maxSurge: 1, maxUnavailable: 0 }));
    c.advanceTo(at(20));
    const reasons = progressingReasons(c);
    setImage(c, "nginx:1.28");
    const [first, second] = replicaSets(c);
    assert.deepEqual(reasons, [
      "NewReplicaSetAvailable",
      "NewReplicaSetCreated",
      "ReplicaSetUpdated",
    ]);
    c.advanceTo(at(30));
    assert.equal(
      summary(c).Progressing,
      `True ReplicaSetUpdated: ReplicaSet "${second!.metadata.name}" is progressing.`,
    );
    assert.equal(summary(c).Available?.startsWith("True"), true, "maxUnavailable 0 keeps 4 ready");
    c.advanceTo(at(120));
    assert.equal(
      summary(c).Progressing,
      `True NewReplicaSetAvailable: ReplicaSet "${second!.metadata.name}" has successfully progressed.`,
    );
    assert.equal((first!.spec as { replicas: number }).replicas, 4, "read before the rollout");
    const after = replicaSets(c).map((rs) => [
      rs.metadata.annotations?.["deployment.kubernetes.io/revision"],
      (rs.spec as { replicas: number }).replicas,
    ]);
    assert.deepEqual(after, [
      ["1", 0],
      ["2", 4],
    ]);
    assert.equal(web(c).metadata.annotations?.["deployment.kubernetes.io/revision"], "2");
    const status = web(c).status as Record<string, number>;
    assert.deepEqual(
      [status.replicas, status.updatedReplicas, status.availableReplicas],
      [4, 4, 4],
    );
  });

  test("no progress within progressDeadlineSeconds: ProgressDeadlineExceeded, found by a timer", () => {
    const c = cluster(
      scenario({ workloads: [workloadModel({ pod: lifecycle({ readinessDelayMs: 3_600_000 }) })] }),
    );
    const d = deployment({ replicas: 2 });
    (d.spec as { progressDeadlineSeconds: number }).progressDeadlineSeconds = 30;
    c.create(d);
    const name = replicaSets(c)[0]!.metadata.name;
    c.advanceTo(at(30));
    assert.equal(summary(c).Progressing?.startsWith("True"), true, "not past the deadline yet");
    // Nothing happens to the pods between 3 s and an hour: only the deadline's timer runs.
    c.advanceTo(at(32));
    assert.equal(
      summary(c).Progressing,
      `False ProgressDeadlineExceeded: ReplicaSet "${name}" has timed out progressing.`,
    );
    assert.equal(
      summary(c).Available,
      "False MinimumReplicasUnavailable: Deployment does not have minimum availability.",
    );
    const progressing = conditions(c).find((x) => x.type === "Progressing")!;
    assert.equal(progressing.lastTransitionTime, iso(31));
  });

  test("the default deadline (600 s) is not reached by a slow but moving rollout", () => {
    const c = cluster(
      scenario({ workloads: [workloadModel({ pod: lifecycle({ readinessDelayMs: 500_000 }) })] }),
    );
    c.create(deployment({ replicas: 1 }));
    c.advanceTo(at(510));
    assert.equal(summary(c).Progressing?.split(":")[0], "True NewReplicaSetAvailable");
  });

  test("pause and resume: DeploymentPaused, DeploymentResumed, then the rollout completes", () => {
    const c = cluster();
    c.create(deployment({ replicas: 2 }));
    c.advanceTo(at(10));
    const reasons = progressingReasons(c);
    const paused = web(c);
    c.update({ ...paused, spec: { ...(paused.spec as object), paused: true } });
    assert.equal(summary(c).Progressing, "Unknown DeploymentPaused: Deployment is paused");
    setImage(c, "nginx:1.28");
    c.advanceTo(at(30));
    assert.equal(replicaSets(c).length, 1, "a paused Deployment does not roll out");
    const resumed = web(c);
    c.update({ ...resumed, spec: { ...(resumed.spec as object), paused: false } });
    c.advanceTo(at(60));
    assert.equal(summary(c).Progressing?.split(":")[0], "True NewReplicaSetAvailable");
    assert.equal(replicaSets(c).length, 2);
    // The update's own event first. DeploymentResumed is replaced within the same sync (one
    // status write per sync here; upstream writes it first, for a moment).
    assert.deepEqual(reasons, [
      "NewReplicaSetAvailable",
      "DeploymentPaused",
      "NewReplicaSetCreated",
      "ReplicaSetUpdated",
      "NewReplicaSetAvailable",
    ]);
  });
});

describe("revisions", () => {
  test("a rollback renumbers the ReplicaSet it returns to and keeps its old number", () => {
    const c = cluster();
    c.create(deployment({ replicas: 1, image: "nginx:1.27" }));
    c.advanceTo(at(10));
    const firstName = replicaSets(c)[0]!.metadata.name;
    setImage(c, "nginx:1.28");
    c.advanceTo(at(30));
    setImage(c, "nginx:1.27");
    c.advanceTo(at(60));
    const first = c.store.get("ReplicaSet", "default", firstName)!;
    assert.equal(first.metadata.annotations?.["deployment.kubernetes.io/revision"], "3");
    assert.equal(first.metadata.annotations?.["deployment.kubernetes.io/revision-history"], "1");
    assert.equal((first.spec as { replicas: number }).replicas, 1);
    assert.equal(web(c).metadata.annotations?.["deployment.kubernetes.io/revision"], "3");
    assert.equal(replicaSets(c).length, 2, "no third ReplicaSet for a template seen before");
  });

  test("a ReplicaSet inherits the Deployment's annotations but not kubectl's bookkeeping", () => {
    const c = cluster();
    const d = deployment({ replicas: 1 });
    d.metadata.annotations = {
      "kubernetes.io/change-cause": "first release",
      "kubectl.kubernetes.io/last-applied-configuration": "{}",
    };
    c.create(d);
    const annotations = replicaSets(c)[0]!.metadata.annotations!;
    assert.equal(annotations["kubernetes.io/change-cause"], "first release");
    assert.equal(annotations["kubectl.kubernetes.io/last-applied-configuration"], undefined);
    assert.equal(annotations["deployment.kubernetes.io/revision"], "1");
  });
});
