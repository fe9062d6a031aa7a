// Pod admission as kube-apiserver's LimitRanger, ServiceAccount, Priority, DefaultTolerationSeconds
// and ResourceQuota plugins do it, for a
// client's create (403 Forbidden with upstream's messages, nothing stored) and for the cluster's
// controllers' pods (a FailedCreate Warning; LimitRanger's defaults are the requests the HPA and
// the usage model read).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { selectorFromLabelSelector } from "../../src/api/selector.js";
import type { KubeObject } from "../../src/api/types.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, deployment, scenario, T0 } from "../cluster/builders.js";

const TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";

type Json = Record<string, unknown>;

function setup() {
  const cluster = new EmbeddedCluster({
    model: clusterModelOf(scenario()),
    startTime: T0,
    componentEvents: true,
  });
  const handler = createApiHandler({ cluster });
  const call = async (method: string, path: string, body: unknown) => {
    const req: ApiRequest = {
      method,
      path,
      query: new URLSearchParams(),
      headers: { "content-type": "application/json" },
      body: Buffer.from(JSON.stringify(body)),
    };
    const res = await handler(req);
    const json = ("body" in res ? res.body : {}) as Json;
    return { status: res.status, message: (json.message as string | undefined) ?? "", json };
  };
  const create = async (body: Json) => {
    const kind = body.kind as string;
    const path =
      kind === "PriorityClass"
        ? "/apis/scheduling.k8s.io/v1/priorityclasses"
        : `/api/v1/namespaces/default/${kind === "LimitRange" ? "limitranges" : kind === "ResourceQuota" ? "resourcequotas" : "pods"}`;
    return call("POST", path, body);
  };
  return { cluster, call, create };
}

const pod = (name: string, resources?: Json, spec: Json = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: {
    ...spec,
    containers: [{ name: "app", image: "nginx:1.27", ...(resources ? { resources } : {}) }],
  },
});
const limitRange = (item: Json) => ({
  apiVersion: "v1",
  kind: "LimitRange",
  metadata: { name: "limits" },
  spec: { limits: [{ type: "Container", ...item }] },
});
const quota = (hard: Json) => ({
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name: "q" },
  spec: { hard },
});

describe("LimitRanger", () => {
  it("defaults a container's requests and limits, and says so in an annotation", async () => {
    const { create } = setup();
    const made = await create(
      limitRange({ default: { cpu: "500m" }, defaultRequest: { cpu: "200m", memory: "64Mi" } }),
    );
    assert.equal(made.status, 201, made.message);
    const res = await create(pod("p"));
    assert.equal(res.status, 201, res.message);
    const container = ((res.json.spec as Json).containers as Json[])[0]!;
    assert.deepEqual(container.resources, {
      limits: { cpu: "500m" },
      requests: { cpu: "200m", memory: "64Mi" },
    });
    assert.equal(
      ((res.json.metadata as Json).annotations as Json)["kubernetes.io/limit-ranger"],
      "LimitRanger plugin set: cpu, memory request for container app; cpu limit for container app",
    );
  });

  const refusals: { name: string; item: Json; resources: Json; reason: string }[] = [
    {
      name: "a request under the minimum",
      item: { min: { cpu: "100m" } },
      resources: { requests: { cpu: "50m" } },
      reason: "minimum cpu usage per Container is 100m, but request is 50m",
    },
    {
      // A Container item's minimum is also its default request: a Pod item has no defaults.
      name: "no request where a pod's minimum is set",
      item: { type: "Pod", min: { cpu: "100m" } },
      resources: {},
      reason: "minimum cpu usage per Pod is 100m.  No request is specified",
    },
    {
      name: "a limit over the maximum",
      item: { max: { memory: "1Gi" } },
      resources: { limits: { memory: "2Gi" } },
      reason: "maximum memory usage per Container is 1Gi, but limit is 2Gi",
    },
    {
      name: "two bounds broken at once",
      item: { min: { cpu: "100m" }, max: { memory: "1Gi" } },
      resources: { requests: { cpu: "50m" }, limits: { memory: "2Gi" } },
      reason:
        "[minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Container is 1Gi, but limit is 2Gi]",
    },
    {
      name: "a limit to request ratio over the maximum",
      item: { maxLimitRequestRatio: { cpu: "2" } },
      resources: { requests: { cpu: "100m" }, limits: { cpu: "500m" } },
      reason: "cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000",
    },
  ];
  for (const c of refusals) {
    it(`${c.name}: 403 and nothing stored`, async () => {
      const { cluster, create } = setup();
      assert.equal((await create(limitRange(c.item))).status, 201);
      const res = await create(pod("p", c.resources));
      assert.equal(res.status, 403, res.message);
      assert.equal(res.json.reason, "Forbidden");
      assert.equal(res.message, `pods "p" is forbidden: ${c.reason}`);
      assert.equal(cluster.store.get("Pod", "default", "p"), undefined);
    });
  }
});

describe("Priority", () => {
  it("sets the pod's priority from its class, the global default, or 0", async () => {
    const { create } = setup();
    const plain = await create(pod("plain"));
    assert.deepEqual(
      [(plain.json.spec as Json).priority, (plain.json.spec as Json).preemptionPolicy],
      [0, "PreemptLowerPriority"],
    );
    const high = {
      apiVersion: "scheduling.k8s.io/v1",
      kind: "PriorityClass",
      metadata: { name: "high" },
      value: 1000,
      preemptionPolicy: "Never",
    };
    assert.equal((await create(high)).status, 201);
    const named = await create(pod("named", undefined, { priorityClassName: "high" }));
    assert.deepEqual(
      [(named.json.spec as Json).priority, (named.json.spec as Json).preemptionPolicy],
      [1000, "Never"],
    );
    const fallback = { ...high, metadata: { name: "fallback" }, value: 10, globalDefault: true };
    assert.equal((await create(fallback)).status, 201);
    const defaulted = await create(pod("defaulted"));
    assert.deepEqual(
      [(defaulted.json.spec as Json).priorityClassName, (defaulted.json.spec as Json).priority],
      ["fallback", 10],
    );
    const critical = await create(
      pod("critical", undefined, { priorityClassName: "system-cluster-critical" }),
    );
    assert.equal((critical.json.spec as Json).priority, 2000000000);
  });

  it("refuses an unknown class and a priority that disagrees with the class", async () => {
    const { create } = setup();
    const unknown = await create(pod("p", undefined, { priorityClassName: "nope" }));
    assert.equal(unknown.status, 403);
    assert.equal(
      unknown.message,
      'pods "p" is forbidden: no PriorityClass with name nope was found',
    );
    const given = await create(pod("q", undefined, { priority: 5 }));
    assert.equal(given.status, 403);
    assert.equal(
      given.message,
      'pods "q" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    );
  });
});

describe("ResourceQuota", () => {
  it("refuses a pod past the quota's pod count, with upstream's message", async () => {
    const { cluster, create } = setup();
    assert.equal((await create(quota({ pods: "1" }))).status, 201);
    assert.equal((await create(pod("a"))).status, 201);
    const res = await create(pod("b"));
    assert.equal(res.status, 403);
    assert.equal(
      res.message,
      'pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1',
    );
    assert.equal(cluster.store.get("Pod", "default", "b"), undefined);
  });

  it("refuses requests past the quota, and a pod that names none of a quota's compute resources", async () => {
    const { create } = setup();
    assert.equal((await create(quota({ "requests.cpu": "1" }))).status, 201);
    const bare = await create(pod("bare"));
    assert.equal(bare.status, 403);
    assert.equal(
      bare.message,
      'pods "bare" is forbidden: failed quota: q: must specify requests.cpu',
    );
    assert.equal((await create(pod("a", { requests: { cpu: "600m" } }))).status, 201);
    const res = await create(pod("b", { requests: { cpu: "600m" } }));
    assert.equal(
      res.message,
      'pods "b" is forbidden: exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1',
    );
  });
});

describe("ServiceAccount", () => {
  it("names the default account and mounts its API token in every container", async () => {
    const { create } = setup();
    const created = await create({
      ...pod("p"),
      spec: {
        initContainers: [{ name: "init", image: "busybox" }],
        containers: [
          { name: "app", image: "nginx:1.27" },
          // A mount of its own at the token's path: left alone.
          {
            name: "own",
            image: "nginx:1.27",
            volumeMounts: [{ name: "mine", mountPath: TOKEN_PATH }],
          },
        ],
        volumes: [{ name: "mine", emptyDir: {} }],
      },
    });
    assert.equal(created.status, 201, created.message);
    const spec = (created.json as unknown as KubeObject).spec as Json;
    assert.equal(spec.serviceAccountName, "default");
    assert.equal(spec.serviceAccount, "default");
    const volumes = spec.volumes as Json[];
    const token = volumes[1]!;
    assert.match(String(token.name), /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(token.projected, {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        {
          downwardAPI: {
            items: [
              {
                path: "namespace",
                fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" },
              },
            ],
          },
        },
      ],
      defaultMode: 420,
    });
    const mounts = (key: string) =>
      (spec[key] as Json[]).map((c) => [c.name, (c.volumeMounts as Json[]).map((m) => m.name)]);
    assert.deepEqual(mounts("initContainers"), [["init", [token.name]]]);
    assert.deepEqual(mounts("containers"), [
      ["app", [token.name]],
      ["own", ["mine"]],
    ]);
  });

  it("mounts nothing when the pod or its account says not to; the pod's word wins", async () => {
    const { call, create } = setup();
    const account = await call("POST", "/api/v1/namespaces/default/serviceaccounts", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "quiet" },
      automountServiceAccountToken: false,
    });
    assert.equal(account.status, 201, account.message);
    const volumesOf = async (name: string, spec: Json) => {
      const created = await create(pod(name, undefined, spec));
      assert.equal(created.status, 201, created.message);
      return (((created.json as unknown as KubeObject).spec as Json).volumes ?? []) as Json[];
    };
    assert.equal((await volumesOf("off", { automountServiceAccountToken: false })).length, 0);
    assert.equal((await volumesOf("by-account", { serviceAccountName: "quiet" })).length, 0);
    const forced = await volumesOf("forced", {
      serviceAccountName: "quiet",
      automountServiceAccountToken: true,
    });
    assert.equal(forced.length, 1);
  });

  it("admits a pod in a namespace made a moment ago, its default account not yet made", async () => {
    const { call } = setup();
    const ns = await call("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "fresh" },
    });
    assert.equal(ns.status, 201, ns.message);
    // The same tick: the service account controller has not run yet.
    const created = await call("POST", "/api/v1/namespaces/fresh/pods", pod("p"));
    assert.equal(created.status, 201, created.message);
    assert.equal(
      ((created.json as unknown as KubeObject).spec as Json).serviceAccountName,
      "default",
    );
  });

  it("refuses a pod whose account does not exist, with upstream's message", async () => {
    const { cluster, create } = setup();
    const refused = await create(pod("p", undefined, { serviceAccountName: "ghost" }));
    assert.equal(refused.status, 403);
    assert.equal(
      refused.message,
      'pods "p" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found',
    );
    assert.equal(cluster.store.get("Pod", "default", "p"), undefined);
  });

  it("a Deployment naming a missing account gets no pods until the account exists", () => {
    const { cluster } = setup();
    const web = deployment({ replicas: 2 });
    const template = ((web.spec as Json).template as Json).spec as Json;
    template.serviceAccountName = "app";
    cluster.create(web);
    cluster.advanceTo(at(1));
    assert.equal(cluster.store.list("Pod", "default").length, 0);
    const rs = cluster.store.list("ReplicaSet", "default")[0]!;
    const failed = cluster.store
      .list("Event", "default")
      .map((e) => e as unknown as Json)
      .find((e) => e.reason === "FailedCreate");
    assert.equal(
      failed?.message,
      `Error creating: pods "${rs.metadata.name}-" is forbidden: error looking up service account default/app: serviceaccount "app" not found`,
    );
    cluster.create({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "app", namespace: "default" },
    });
    cluster.advanceTo(at(2));
    assert.equal(cluster.store.list("Pod", "default").length, 2);
  });

  it("is not run where the cluster has no accounts (horizon simulate's)", () => {
    const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
    const web = deployment({ replicas: 1 });
    (((web.spec as Json).template as Json).spec as Json).serviceAccountName = "app";
    cluster.create(web);
    cluster.advanceTo(at(1));
    const [made] = cluster.store.list("Pod", "default");
    assert.ok(made);
    assert.equal((made.spec as Json).volumes, undefined);
  });
});

describe("DefaultTolerationSeconds", () => {
  const tolerationsOf = async (tolerations?: Json[]) => {
    const { create } = setup();
    const created = await create(pod("p", undefined, tolerations ? { tolerations } : {}));
    assert.equal(created.status, 201, created.message);
    return ((created.json as unknown as KubeObject).spec as Json).tolerations as Json[];
  };
  const fiveMinutes = (key: string) => ({
    key,
    operator: "Exists",
    effect: "NoExecute",
    tolerationSeconds: 300,
  });

  it("tolerates a not-ready or unreachable node for 5 minutes", async () => {
    assert.deepEqual(await tolerationsOf(), [
      fiveMinutes("node.kubernetes.io/not-ready"),
      fiveMinutes("node.kubernetes.io/unreachable"),
    ]);
  });

  it("adds none the pod already has, by key or by tolerating every taint", async () => {
    const own = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" };
    assert.deepEqual(await tolerationsOf([own]), [
      own,
      fiveMinutes("node.kubernetes.io/unreachable"),
    ]);
    const everything = { operator: "Exists" };
    assert.deepEqual(await tolerationsOf([everything]), [everything]);
    // Another effect does not tolerate a NoExecute taint.
    const noSchedule = { key: "node.kubernetes.io/unreachable", effect: "NoSchedule" };
    assert.deepEqual(await tolerationsOf([noSchedule]), [
      noSchedule,
      fiveMinutes("node.kubernetes.io/not-ready"),
      fiveMinutes("node.kubernetes.io/unreachable"),
    ]);
  });
});

describe("admission of the controllers' pods", () => {
  it("a quota stops a Deployment's ReplicaSet at its limit (FailedCreate); raised, the rest follow", () => {
    const { cluster } = setup();
    cluster.create({
      ...(quota({ pods: "2" }) as KubeObject),
      metadata: { name: "q", namespace: "default" },
    });
    cluster.create(deployment({ replicas: 3 }));
    cluster.advanceTo(at(1));
    assert.equal(cluster.store.list("Pod", "default").length, 2);
    const rs = cluster.store.list("ReplicaSet", "default")[0]!;
    const failed = cluster.store
      .list("Event", "default")
      .map((e) => e as unknown as Json)
      .filter((e) => e.reason === "FailedCreate");
    assert.ok(failed.length >= 1);
    assert.deepEqual(
      [failed[0]!.type, (failed[0]!.source as Json).component, failed[0]!.message],
      [
        "Warning",
        "replicaset-controller",
        `Error creating: pods "${rs.metadata.name}-" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`,
      ],
    );
    const current = cluster.store.get("ResourceQuota", "default", "q")!;
    cluster.update({
      ...current,
      metadata: { ...current.metadata, resourceVersion: undefined },
      spec: { hard: { pods: "5" } },
    });
    cluster.advanceTo(at(2));
    assert.equal(cluster.store.list("Pod", "default").length, 3);
  });

  it("LimitRanger's default request is the request the HPA reads", () => {
    const { cluster } = setup();
    cluster.create({
      ...(limitRange({ defaultRequest: { cpu: "250m" }, default: { cpu: "1" } }) as KubeObject),
      metadata: { name: "limits", namespace: "default" },
    });
    const web = deployment({ replicas: 1 });
    const container = ((web.spec as Json).template as Json).spec as Json;
    (container.containers as Json[])[0]!.resources = {};
    cluster.create(web);
    cluster.advanceTo(at(1));
    const selector = selectorFromLabelSelector({ matchLabels: { app: "web" } });
    assert.ok(selector.ok);
    const [view] = cluster.listPods("default", selector.selector);
    assert.equal(view?.containers[0]?.requests.cpu, 250);
  });
});
