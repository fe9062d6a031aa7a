// The cluster's own components record their Events (componentEvents, as `horizon up` runs it):
// the deployment controller's ScalingReplicaSet, the ReplicaSet and StatefulSet controllers'
// SuccessfulCreate / SuccessfulDelete, the scheduler's Scheduled / FailedScheduling and the
// kubelet's Pulled / Created / Started / Killing, each with upstream's source, involved object
// and message. Off (the simulator), none is written. Fake clock.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, deployment, scenario, statefulSet, T0 } from "./builders.js";

interface EventView {
  reason: string;
  type: string;
  message: string;
  source: string;
  object: string;
  fieldPath?: string;
}

function events(cluster: EmbeddedCluster): EventView[] {
  return cluster.store.list("Event").map((o) => {
    const e = o as unknown as {
      reason: string;
      type: string;
      message: string;
      source: { component: string; host?: string };
      involvedObject: { kind: string; name: string; fieldPath?: string };
    };
    return {
      reason: e.reason,
      type: e.type,
      message: e.message,
      source: e.source.host ? `${e.source.component}/${e.source.host}` : e.source.component,
      object: `${e.involvedObject.kind}/${e.involvedObject.name}`,
      ...(e.involvedObject.fieldPath ? { fieldPath: e.involvedObject.fieldPath } : {}),
    };
  });
}

function newCluster(componentEvents: boolean, capacityPods: number | null = null) {
  return new EmbeddedCluster({
    model: clusterModelOf(scenario({ cluster: { capacityPods, metricsResolutionMs: 15_000 } })),
    startTime: T0,
    componentEvents,
  });
}

const byReason = (list: EventView[], reason: string) => list.filter((e) => e.reason === reason);

describe("component Events", () => {
  it("a Deployment's rollout: ScalingReplicaSet, SuccessfulCreate, Scheduled, the kubelet's three", () => {
    const cluster = newCluster(true);
    cluster.create(deployment({ replicas: 2 }));
    cluster.advanceTo(at(30));
    const list = events(cluster);
    const rs = cluster.store.list("ReplicaSet")[0]!.metadata.name;
    const pods = cluster.store.list("Pod").map((p) => p.metadata.name);
    assert.equal(pods.length, 2);
    assert.deepEqual(byReason(list, "ScalingReplicaSet"), [
      {
        reason: "ScalingReplicaSet",
        type: "Normal",
        message: `Scaled up replica set ${rs} from 0 to 2`,
        source: "deployment-controller",
        object: "Deployment/web",
      },
    ]);
    assert.deepEqual(
      byReason(list, "SuccessfulCreate")
        .map((e) => [e.source, e.object, e.message])
        .sort(),
      pods.map((p) => ["replicaset-controller", `ReplicaSet/${rs}`, `Created pod: ${p}`]).sort(),
    );
    for (const pod of pods) {
      const mine = list.filter((e) => e.object === `Pod/${pod}`);
      assert.deepEqual(
        mine.map((e) => [e.reason, e.source, e.message, e.fieldPath ?? ""]),
        [
          [
            "Scheduled",
            "default-scheduler",
            `Successfully assigned default/${pod} to horizon-node`,
            "",
          ],
          [
            "Pulled",
            "kubelet/horizon-node",
            'Container image "nginx:1.27" already present on machine',
            "spec.containers{app}",
          ],
          ["Created", "kubelet/horizon-node", "Created container: app", "spec.containers{app}"],
          ["Started", "kubelet/horizon-node", "Started container app", "spec.containers{app}"],
        ],
        `the events of ${pod} in order`,
      );
    }
  });

  it("scaling down: ScalingReplicaSet down, SuccessfulDelete, the kubelet's Killing", () => {
    const cluster = newCluster(true);
    cluster.create(deployment({ replicas: 2 }));
    cluster.advanceTo(at(30));
    const current = cluster.store.get("Deployment", "default", "web") as KubeObject;
    cluster.update({
      ...current,
      metadata: { ...current.metadata, resourceVersion: undefined },
      spec: { ...(current.spec as object), replicas: 1 },
    });
    cluster.advanceTo(at(40));
    const list = events(cluster);
    const rs = cluster.store.list("ReplicaSet")[0]!.metadata.name;
    assert.deepEqual(
      byReason(list, "ScalingReplicaSet").map((e) => e.message),
      [`Scaled up replica set ${rs} from 0 to 2`, `Scaled down replica set ${rs} from 2 to 1`],
    );
    const deleted = byReason(list, "SuccessfulDelete");
    assert.equal(deleted.length, 1);
    const victim = deleted[0]!.message.replace("Deleted pod: ", "");
    assert.deepEqual(byReason(list, "Killing"), [
      {
        reason: "Killing",
        type: "Normal",
        message: "Stopping container app",
        source: "kubelet/horizon-node",
        object: `Pod/${victim}`,
        fieldPath: "spec.containers{app}",
      },
    ]);
  });

  it("a StatefulSet's pods, and a pod the full node cannot take", () => {
    const cluster = newCluster(true, 1);
    cluster.create(statefulSet({ replicas: 2, parallel: true }));
    cluster.advanceTo(at(30));
    const list = events(cluster);
    assert.deepEqual(
      byReason(list, "SuccessfulCreate").map((e) => [e.source, e.object, e.message]),
      [
        [
          "statefulset-controller",
          "StatefulSet/db",
          "create Pod db-0 in StatefulSet db successful",
        ],
        [
          "statefulset-controller",
          "StatefulSet/db",
          "create Pod db-1 in StatefulSet db successful",
        ],
      ],
    );
    const failed = byReason(list, "FailedScheduling");
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.type, "Warning");
    assert.match(failed[0]!.message, /^0\/1 nodes are available: 1 Too many pods\./);
  });

  it("off (the simulator): no Event is written", () => {
    const cluster = newCluster(false);
    cluster.create(deployment({ replicas: 2 }));
    cluster.advanceTo(at(30));
    assert.deepEqual(events(cluster), []);
  });
});
