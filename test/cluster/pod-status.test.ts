// A pod as kube-apiserver and the kubelet of v1.34 keep it: metadata.generation 1 at create,
// bumped by a client's spec change only (not by the binding or a status write); status.qosClass
// from the admitted spec; the generation the kubelet saw on the status and on each condition it
// owns (PodObservedGenerationTracking); PodReadyToStartContainers first among the conditions;
// container statuses naming the image as the runtime does, the container's ID and lastState.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { runtimeImageName } from "../../src/cluster/kubelet.js";
import { handlerOverCluster } from "../apiserver/handler-call.js";
import { at, deployment } from "./builders.js";

type Condition = { type: string; status: string; observedGeneration?: number };
type Status = {
  observedGeneration?: number;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  phase?: string;
  qosClass?: string;
  conditions?: Condition[];
  containerStatuses?: Record<string, unknown>[];
};

const statusOf = (pod: KubeObject) => (pod.status ?? {}) as Status;
const PODS = "/api/v1/namespaces/default/pods";

describe("pod generation and status", () => {
  it("a ReplicaSet's running pod: generation 1, observed on the status and every condition", () => {
    const { cluster } = handlerOverCluster();
    cluster.create(deployment({ replicas: 1, image: "nginx:1.27" }));
    cluster.advanceTo(at(30));
    const [pod] = cluster.store.list("Pod");
    assert.ok(pod);
    assert.equal((pod.spec as { nodeName?: string }).nodeName, "horizon-node");
    assert.equal(pod.metadata.generation, 1, "binding and status writes do not bump it");
    const status = statusOf(pod);
    assert.equal(status.phase, "Running");
    assert.equal(status.observedGeneration, 1);
    assert.equal(status.qosClass, "Burstable");
    // The node's InternalIP.
    assert.deepEqual([status.hostIP, status.hostIPs], ["127.0.0.1", [{ ip: "127.0.0.1" }]]);
    assert.deepEqual(
      status.conditions?.map((c) => [c.type, c.status, c.observedGeneration]),
      [
        ["PodReadyToStartContainers", "True", 1],
        ["Initialized", "True", 1],
        ["Ready", "True", 1],
        ["ContainersReady", "True", 1],
        ["PodScheduled", "True", 1],
      ],
    );
    const [container] = status.containerStatuses ?? [];
    assert.equal(container?.image, "docker.io/library/nginx:1.27");
    assert.equal(container?.imageID, "");
    assert.deepEqual(container?.lastState, {});
    assert.match(String(container?.containerID), /^horizon:\/\/[0-9a-f]{64}$/);
  });

  it("a client's spec change bumps the generation; the kubelet's next status observes it", async () => {
    const { cluster, call } = handlerOverCluster();
    cluster.create(deployment({ replicas: 1, image: "nginx:1.27" }));
    cluster.advanceTo(at(30));
    const name = cluster.store.list("Pod")[0]!.metadata.name;
    const got = await call("GET", `${PODS}/${name}`);
    // A copy: the in-process handler answers with the stored object itself.
    const pod = structuredClone(got.body) as KubeObject;
    const spec = pod.spec as { containers: { image: string }[] };
    spec.containers[0]!.image = "nginx:1.28";
    const put = await call("PUT", `${PODS}/${name}`, pod);
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal((put.body as KubeObject).metadata.generation, 2);
    assert.equal(statusOf(put.body as KubeObject).observedGeneration, 1, "not seen yet");
    // A label change is no spec change.
    const labelled = structuredClone(put.body) as KubeObject;
    labelled.metadata = { ...labelled.metadata, labels: { ...labelled.metadata.labels, x: "y" } };
    const relabel = await call("PUT", `${PODS}/${name}`, labelled);
    assert.equal((relabel.body as KubeObject).metadata.generation, 2);
    // The kubelet writes the pod's status again when it next changes: the deletion (which
    // bumps the generation again, as every graceful deletion does).
    await call("DELETE", `${PODS}/${name}`);
    cluster.advanceTo(at(45));
    const terminating = cluster.store.get("Pod", "default", name);
    assert.ok(terminating);
    assert.equal(terminating.metadata.generation, 3);
    assert.equal(statusOf(terminating).observedGeneration, terminating.metadata.generation);
    for (const condition of statusOf(terminating).conditions ?? []) {
      assert.equal(condition.observedGeneration, terminating.metadata.generation, condition.type);
    }
  });

  it("a created pod's status is the API server's, whatever the client sent", async () => {
    const { call } = handlerOverCluster();
    const created = await call("POST", PODS, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "bare" },
      spec: {
        containers: [
          {
            name: "c",
            image: "registry.k8s.io/hpa-example",
            resources: { limits: { cpu: "500m", memory: "64Mi" } },
          },
        ],
      },
      status: { phase: "Running", podIP: "1.2.3.4" },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const pod = created.body as KubeObject;
    assert.equal(pod.metadata.generation, 1);
    // Requests default to the limits: cpu and memory limited and requested alike.
    assert.deepEqual(pod.status, { phase: "Pending", qosClass: "Guaranteed" });
  });

  it("a Job's finished pod has no sandbox: PodReadyToStartContainers is False", () => {
    const { cluster } = handlerOverCluster();
    cluster.create({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "once", namespace: "default" },
      spec: {
        template: {
          metadata: { annotations: { "horizon.dev/run-duration": "10s" } },
          spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] },
        },
      },
    });
    cluster.advanceTo(at(60));
    const [pod] = cluster.store.list("Pod");
    assert.ok(pod);
    const status = statusOf(pod);
    assert.equal(status.phase, "Succeeded");
    assert.equal(status.qosClass, "BestEffort");
    const sandbox = status.conditions?.find((c) => c.type === "PodReadyToStartContainers");
    assert.equal(sandbox?.status, "False");
  });
});

describe("runtimeImageName", () => {
  const cases: { name: string; image: string; want: string }[] = [
    { name: "an official image", image: "nginx", want: "docker.io/library/nginx:latest" },
    { name: "with a tag", image: "nginx:1.27", want: "docker.io/library/nginx:1.27" },
    { name: "a Docker Hub user's", image: "bitnami/redis", want: "docker.io/bitnami/redis:latest" },
    {
      name: "another registry",
      image: "registry.k8s.io/hpa-example",
      want: "registry.k8s.io/hpa-example:latest",
    },
    {
      name: "a registry with a port",
      image: "localhost:5000/app:v1",
      want: "localhost:5000/app:v1",
    },
    {
      name: "a digest",
      image: `ghcr.io/o/app@sha256:${"a".repeat(64)}`,
      want: `ghcr.io/o/app@sha256:${"a".repeat(64)}`,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(runtimeImageName(c.image), c.want));
});
