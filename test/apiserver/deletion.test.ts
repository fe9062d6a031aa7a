// In-process tests of deletion through the API server handler: DeleteOptions, propagation
// policies with the garbage collector, finalizers, graceful pod deletion, namespace deletion,
// deletecollection, and the watch events a deletion produces.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, deployment, scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({
    cluster,
    extensions: {
      handleDiscovery: () => null,
      isTableRequest: () => false,
      handleMetricsApi: () => null,
    },
  });
  const call = (method: string, url: string, body?: unknown, contentType?: string) => {
    const parsed = new URL(url, "http://x");
    const headers: Record<string, string> = contentType ? { "content-type": contentType } : {};
    const req: ApiRequest = { method, path: parsed.pathname, query: parsed.searchParams, headers };
    if (body !== undefined)
      req.body = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    return handler(req);
  };
  /** Lets the controllers and the garbage collector act, then moves the clock. */
  const settle = (seconds?: number) => {
    cluster.reconcile();
    if (seconds !== undefined) cluster.advanceTo(at(seconds));
  };
  const get = (kind: string, name: string, namespace = "default") =>
    cluster.store.get(kind, namespace, name);
  const list = (kind: string, namespace = "default") => cluster.store.list(kind, namespace);
  return { cluster, call, settle, get, list };
}

function json(res: ApiResponse): Json {
  assert.ok("body" in res, "expected a JSON body");
  return res.body;
}

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const REPLICASETS = "/apis/apps/v1/namespaces/default/replicasets";
const PODS = "/api/v1/namespaces/default/pods";
const SERVICES = "/api/v1/namespaces/default/services";
const MERGE = "application/merge-patch+json";

function barePod(name: string, extra: Partial<KubeObject["metadata"]> = {}, spec = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: "bare" }, ...extra },
    spec: { containers: [{ name: "app", image: "nginx" }], ...spec },
  };
}

/** A Deployment of 2 ready pods (the scenario models `web`: 30 s termination grace). */
async function webRunning(s: ReturnType<typeof setup>) {
  const res = await s.call("POST", DEPLOYMENTS, deployment({ replicas: 2 }));
  assert.equal(res.status, 201);
  s.settle(20);
  assert.equal(s.list("Pod").length, 2);
}

describe("propagation policies (kubectl delete --cascade)", () => {
  it("Background (kubectl's default): the Deployment goes at once, then its ReplicaSet, then the pods after their grace period", async () => {
    const s = setup();
    await webRunning(s);
    const rsUid = s.list("ReplicaSet")[0]!.metadata.uid;
    const res = await s.call("DELETE", `${DEPLOYMENTS}/web`, { propagationPolicy: "Background" });
    assert.equal(res.status, 200);
    assert.deepEqual(json(res), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: {
        name: "web",
        group: "apps",
        kind: "deployments",
        uid: json(res).details.uid,
      },
    });
    assert.equal(s.get("Deployment", "web"), undefined);
    s.settle();
    assert.equal(s.list("ReplicaSet").length, 0, `ReplicaSet ${rsUid} collected`);
    const pods = s.list("Pod");
    assert.equal(pods.length, 2);
    for (const pod of pods) {
      assert.equal(pod.metadata.deletionTimestamp, "2026-01-01T12:00:50Z");
      assert.equal(pod.metadata.deletionGracePeriodSeconds, 30);
    }
    s.settle(49);
    assert.equal(s.list("Pod").length, 2);
    s.settle(50);
    assert.equal(s.list("Pod").length, 0);
  });

  it("Orphan: the ReplicaSet loses its ownerReference and keeps running its pods", async () => {
    const s = setup();
    await webRunning(s);
    const res = await s.call("DELETE", `${DEPLOYMENTS}/web`, { propagationPolicy: "Orphan" });
    assert.equal(res.status, 200);
    const marked = json(res);
    assert.equal(marked.kind, "Deployment");
    assert.deepEqual(marked.metadata.finalizers, ["orphan"]);
    assert.equal(marked.metadata.deletionTimestamp, "2026-01-01T12:00:20Z");
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(marked.metadata.generation, 2, "the first mark bumps generation");
    s.settle();
    assert.equal(s.get("Deployment", "web"), undefined);
    const [rs] = s.list("ReplicaSet");
    assert.ok(rs);
    assert.equal(rs.metadata.ownerReferences, undefined);
    assert.equal(s.list("Pod").filter((p) => !p.metadata.deletionTimestamp).length, 2);
    // The orphaned ReplicaSet is still played: scaling it adds a pod.
    const scaled = await s.call(
      "PATCH",
      `${REPLICASETS}/${rs.metadata.name}`,
      {
        spec: { replicas: 3 },
      },
      MERGE,
    );
    assert.equal(scaled.status, 200);
    s.settle(40);
    assert.equal(s.list("Pod").length, 3);
  });

  it("Foreground: the Deployment stays (foregroundDeletion) until its ReplicaSet and pods are gone", async () => {
    const s = setup();
    await webRunning(s);
    const res = await s.call("DELETE", `${DEPLOYMENTS}/web?propagationPolicy=Foreground`);
    assert.equal(res.status, 200);
    assert.deepEqual(json(res).metadata.finalizers, ["foregroundDeletion"]);
    s.settle();
    const d = s.get("Deployment", "web");
    assert.ok(d?.metadata.deletionTimestamp);
    const [rs] = s.list("ReplicaSet");
    assert.deepEqual(rs?.metadata.finalizers, ["foregroundDeletion"]);
    assert.ok(rs?.metadata.deletionTimestamp);
    assert.ok(s.list("Pod").every((p) => p.metadata.deletionTimestamp));
    s.settle(49);
    assert.ok(s.get("Deployment", "web"), "still waiting for the pods");
    s.settle(50);
    assert.equal(s.list("Pod").length, 0);
    assert.equal(s.list("ReplicaSet").length, 0);
    assert.equal(s.get("Deployment", "web"), undefined);
  });

  it("a v1 ReplicationController orphans its pods by default (no DeleteOptions)", async () => {
    const s = setup();
    const rc = {
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { name: "rc" },
      spec: {
        replicas: 2,
        template: {
          metadata: { labels: { app: "rc" } },
          spec: { containers: [{ name: "a", image: "nginx" }] },
        },
      },
    };
    assert.equal(
      (await s.call("POST", "/api/v1/namespaces/default/replicationcontrollers", rc)).status,
      201,
    );
    s.settle(20);
    const res = await s.call("DELETE", "/api/v1/namespaces/default/replicationcontrollers/rc");
    assert.deepEqual(json(res).metadata.finalizers, ["orphan"]);
    s.settle(60);
    assert.equal(s.get("ReplicationController", "rc"), undefined);
    const pods = s.list("Pod");
    assert.equal(pods.length, 2);
    assert.ok(pods.every((p) => !p.metadata.ownerReferences && !p.metadata.deletionTimestamp));
  });

  it("a dependent with another live owner stays; only the reference to the gone owner is removed", async () => {
    const s = setup();
    const a = json(await s.call("POST", SERVICES, { metadata: { name: "a" }, spec: {} }));
    const b = json(await s.call("POST", SERVICES, { metadata: { name: "b" }, spec: {} }));
    const ref = (o: Json) => ({
      apiVersion: "v1",
      kind: "Service",
      name: o.metadata.name,
      uid: o.metadata.uid,
    });
    await s.call("POST", SERVICES, {
      metadata: { name: "both", ownerReferences: [ref(a), ref(b)] },
      spec: {},
    });
    await s.call("POST", SERVICES, {
      metadata: { name: "only-a", ownerReferences: [ref(a)] },
      spec: {},
    });
    await s.call("DELETE", `${SERVICES}/a`);
    s.settle();
    assert.equal(s.get("Service", "only-a"), undefined);
    assert.deepEqual(
      s.get("Service", "both")?.metadata.ownerReferences?.map((r) => r.name),
      ["b"],
    );
  });

  it("an object created with a reference to a missing owner is collected", async () => {
    const s = setup();
    await s.call("POST", SERVICES, {
      metadata: {
        name: "dangling",
        ownerReferences: [{ apiVersion: "v1", kind: "Service", name: "gone", uid: "nope" }],
      },
      spec: {},
    });
    s.settle();
    assert.equal(s.get("Service", "dangling"), undefined);
  });
});

describe("finalizers", () => {
  it("an object with a finalizer is only marked; removing the last finalizer deletes it", async () => {
    const s = setup();
    await s.call("POST", SERVICES, {
      metadata: { name: "held", finalizers: ["example.com/hold"] },
      spec: {},
    });
    const watch = await s.call(
      "GET",
      `${SERVICES}?watch=true&resourceVersion=${s.cluster.store.resourceVersion()}`,
    );
    const res = await s.call("DELETE", `${SERVICES}/held`);
    assert.equal(res.status, 200);
    const marked = json(res);
    assert.equal(marked.metadata.deletionTimestamp, "2026-01-01T12:00:00Z");
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 0);
    assert.equal((await s.call("GET", `${SERVICES}/held`)).status, 200);
    // A second delete changes nothing and answers with the object.
    const again = await s.call("DELETE", `${SERVICES}/held`);
    assert.equal(again.status, 200);
    assert.equal(json(again).metadata.resourceVersion, marked.metadata.resourceVersion);

    const add = await s.call(
      "PATCH",
      `${SERVICES}/held`,
      { metadata: { finalizers: ["example.com/hold", "example.com/more"] } },
      MERGE,
    );
    assert.equal(add.status, 422);
    assert.equal(
      json(add).message,
      'Service "held" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}',
    );
    const removeTimestamp = await s.call(
      "PATCH",
      `${SERVICES}/held`,
      { metadata: { deletionTimestamp: null, labels: { x: "y" } } },
      MERGE,
    );
    assert.equal(removeTimestamp.status, 200, "an update cannot remove the mark; it is kept");
    assert.equal(json(removeTimestamp).metadata.deletionTimestamp, "2026-01-01T12:00:00Z");

    const done = await s.call(
      "PATCH",
      `${SERVICES}/held`,
      { metadata: { finalizers: null } },
      MERGE,
    );
    assert.equal(done.status, 200);
    assert.equal(json(done).metadata.finalizers, undefined);
    assert.equal((await s.call("GET", `${SERVICES}/held`)).status, 404);

    assert.ok("stream" in watch);
    const iterator = watch.stream[Symbol.asyncIterator]();
    const types: string[] = [];
    for (let i = 0; i < 3; i++) {
      const next = await iterator.next();
      const event = JSON.parse(next.value as string);
      types.push(`${event.type} ${(event.object.metadata.finalizers ?? []).join(",")}`);
    }
    // DELETED carries the object as last stored (its finalizer still listed), as etcd's delete does.
    assert.deepEqual(types, [
      "MODIFIED example.com/hold",
      "MODIFIED example.com/hold",
      "DELETED example.com/hold",
    ]);
    if ("close" in watch) watch.close();
  });

  it("a create reusing the name of an object being deleted says so", async () => {
    const s = setup();
    await s.call("POST", SERVICES, {
      metadata: { name: "held", finalizers: ["example.com/x"] },
      spec: {},
    });
    await s.call("DELETE", `${SERVICES}/held`);
    const res = await s.call("POST", SERVICES, { metadata: { name: "held" }, spec: {} });
    assert.equal(res.status, 409);
    assert.equal(json(res).message, 'object is being deleted: services "held" already exists');
  });
});

describe("graceful pod deletion", () => {
  const cases = [
    {
      name: "the pod's terminationGracePeriodSeconds",
      spec: { terminationGracePeriodSeconds: 12 },
      query: "",
      grace: 12,
    },
    { name: "30 s when the pod sets none", spec: {}, query: "", grace: 30 },
    {
      name: "?gracePeriodSeconds= overrides the pod's",
      spec: { terminationGracePeriodSeconds: 12 },
      query: "?gracePeriodSeconds=5",
      grace: 5,
    },
    {
      name: "a negative period counts as 1 s",
      spec: {},
      query: "?gracePeriodSeconds=-3",
      grace: 1,
    },
  ];
  for (const c of cases) {
    it(`grace period: ${c.name}`, async () => {
      const s = setup();
      await s.call("POST", PODS, barePod("p", {}, c.spec));
      s.settle(10);
      const res = await s.call("DELETE", `${PODS}/p${c.query}`);
      assert.equal(res.status, 200);
      const pod = json(res);
      assert.equal(pod.kind, "Pod");
      assert.equal(pod.metadata.deletionGracePeriodSeconds, c.grace);
      assert.equal(
        pod.metadata.deletionTimestamp,
        new Date(at(10 + c.grace)).toISOString().replace(".000", ""),
      );
      s.settle(10 + c.grace - 1);
      assert.ok(s.get("Pod", "p"), "still terminating");
      s.settle(10 + c.grace);
      assert.equal(s.get("Pod", "p"), undefined);
    });
  }

  it("a second delete may only shorten the grace period; 0 removes the pod at once", async () => {
    const s = setup();
    await s.call("POST", PODS, barePod("p"));
    s.settle(10);
    const first = json(await s.call("DELETE", `${PODS}/p?gracePeriodSeconds=60`));
    const longer = json(await s.call("DELETE", `${PODS}/p`, { gracePeriodSeconds: 90 }));
    assert.equal(longer.metadata.resourceVersion, first.metadata.resourceVersion, "unchanged");
    const shorter = json(await s.call("DELETE", `${PODS}/p`, { gracePeriodSeconds: 20 }));
    assert.equal(shorter.metadata.deletionTimestamp, "2026-01-01T12:00:30Z");
    assert.equal(shorter.metadata.deletionGracePeriodSeconds, 20);
    const forced = await s.call("DELETE", `${PODS}/p`, { gracePeriodSeconds: 0 });
    assert.equal(forced.status, 200);
    assert.equal(json(forced).metadata.deletionGracePeriodSeconds, 0);
    assert.equal(s.get("Pod", "p"), undefined);
  });

  it("an unscheduled pod is deleted at once", async () => {
    const s = setup();
    await s.call("POST", PODS, barePod("p"));
    const res = await s.call("DELETE", `${PODS}/p`);
    assert.equal(res.status, 200);
    assert.equal(s.get("Pod", "p"), undefined);
  });

  it("the pod's table STATUS is Terminating while it is marked", async () => {
    const { toTable } = await import("../../src/apiserver/tables.js");
    const s = setup();
    await s.call("POST", PODS, barePod("p"));
    s.settle(10);
    await s.call("DELETE", `${PODS}/p`);
    s.settle();
    const table = toTable("Pod", [s.get("Pod", "p")!], {}) as { rows: { cells: unknown[] }[] };
    assert.equal(table.rows[0]!.cells[2], "Terminating");
  });

  it("a pod with a finalizer outlives its grace period (marked, grace 0) until the finalizer goes", async () => {
    const s = setup();
    await s.call("POST", PODS, barePod("p", { finalizers: ["example.com/x"] }));
    s.settle(10);
    await s.call("DELETE", `${PODS}/p?gracePeriodSeconds=5`);
    s.settle(20);
    const pod = s.get("Pod", "p");
    assert.equal(pod?.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(pod?.metadata.deletionTimestamp, "2026-01-01T12:00:10Z");
    const res = await s.call("PATCH", `${PODS}/p`, { metadata: { finalizers: [] } }, MERGE);
    assert.equal(res.status, 200);
    assert.equal(s.get("Pod", "p"), undefined);
  });

  it("a ReplicaSet's scale-down deletes gracefully too (terminating pods leave the count)", async () => {
    const s = setup();
    await webRunning(s);
    await s.call("PATCH", `${DEPLOYMENTS}/web`, { spec: { replicas: 1 } }, MERGE);
    s.settle(21);
    const terminating = s.list("Pod").filter((p) => p.metadata.deletionTimestamp);
    assert.equal(terminating.length, 1);
    assert.equal(terminating[0]!.metadata.deletionGracePeriodSeconds, 30);
  });
});

describe("namespace deletion", () => {
  it("marks the namespace Terminating, forbids new content, deletes what is in it, then goes", async () => {
    const s = setup();
    await s.call("POST", "/api/v1/namespaces", { metadata: { name: "team" } });
    const d = deployment({ replicas: 2 });
    d.metadata.namespace = "team";
    assert.equal(
      (await s.call("POST", "/apis/apps/v1/namespaces/team/deployments", d)).status,
      201,
    );
    await s.call("POST", "/api/v1/namespaces/team/services", {
      metadata: { name: "svc" },
      spec: {},
    });
    s.settle(20);
    assert.equal(s.list("Pod", "team").length, 2);

    const res = await s.call("DELETE", "/api/v1/namespaces/team", {
      propagationPolicy: "Background",
    });
    assert.equal(res.status, 200);
    const ns = json(res);
    assert.equal(ns.kind, "Namespace");
    assert.equal(ns.status.phase, "Terminating");
    assert.equal(ns.metadata.deletionTimestamp, "2026-01-01T12:00:20Z");
    assert.deepEqual(ns.spec.finalizers, ["kubernetes"]);

    const created = await s.call("POST", "/api/v1/namespaces/team/services", {
      metadata: { name: "late" },
      spec: {},
    });
    assert.equal(created.status, 403);
    assert.deepEqual(json(created), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'services "late" is forbidden: unable to create new content in namespace team because it is being terminated',
      reason: "Forbidden",
      details: {
        name: "late",
        kind: "services",
        causes: [
          {
            reason: "NamespaceTerminating",
            message: "namespace team is being terminated",
            field: "metadata.namespace",
          },
        ],
      },
      code: 403,
    });

    s.settle();
    assert.equal(s.get("Deployment", "web", "team"), undefined);
    assert.equal(s.get("Service", "svc", "team"), undefined);
    const pods = s.list("Pod", "team");
    assert.equal(pods.length, 2);
    assert.ok(pods.every((p) => p.metadata.deletionTimestamp));
    const terminating = s.get("Namespace", "team", "");
    assert.ok(terminating);
    const conditions = (terminating.status as Json).conditions as Json[];
    assert.deepEqual(
      conditions.map((c: Json) => `${c.type}=${c.status} ${c.message}`),
      [
        "NamespaceDeletionDiscoveryFailure=False All resources successfully discovered",
        "NamespaceDeletionGroupVersionParsingFailure=False All legacy kube types successfully parsed",
        "NamespaceDeletionContentFailure=False All content successfully deleted, may be waiting on finalization",
        "NamespaceContentRemaining=True Some resources are remaining: pods. has 2 resource instances",
        "NamespaceFinalizersRemaining=False All content successfully removed",
      ],
    );
    s.settle(50);
    assert.equal(s.list("Pod", "team").length, 0);
    assert.equal(s.get("Namespace", "team", ""), undefined);
  });

  const immortal = [
    { name: "default", status: 403 },
    { name: "kube-system", status: 403 },
    { name: "kube-public", status: 403 },
  ];
  for (const c of immortal) {
    it(`the ${c.name} namespace may not be deleted`, async () => {
      const s = setup();
      const res = await s.call("DELETE", `/api/v1/namespaces/${c.name}`);
      assert.equal(res.status, c.status);
      assert.equal(
        json(res).message,
        `namespaces "${c.name}" is forbidden: this namespace may not be deleted`,
      );
      assert.equal(s.get("Namespace", c.name, "")?.metadata.deletionTimestamp, undefined);
    });
  }
});

describe("deletecollection", () => {
  it("deletes what the label selector lists and answers with the list", async () => {
    const s = setup();
    for (const [name, app] of [
      ["a", "x"],
      ["b", "x"],
      ["c", "y"],
    ] as const)
      await s.call("POST", SERVICES, { metadata: { name, labels: { app } }, spec: {} });
    const res = await s.call("DELETE", `${SERVICES}?labelSelector=app%3Dx`);
    assert.equal(res.status, 200);
    const body = json(res);
    assert.equal(body.kind, "ServiceList");
    assert.deepEqual(
      body.items.map((i: Json) => i.metadata.name),
      ["a", "b"],
    );
    assert.deepEqual(
      s.list("Service").map((o) => o.metadata.name),
      ["c"],
    );
  });

  const refused = [
    { name: "namespaces have no deletecollection", url: "/api/v1/namespaces" },
    { name: "not across all namespaces", url: "/api/v1/pods" },
  ];
  for (const c of refused) {
    it(`405: ${c.name}`, async () => {
      const s = setup();
      const res = await s.call("DELETE", c.url);
      assert.equal(res.status, 405);
      assert.equal(json(res).reason, "MethodNotAllowed");
    });
  }
});

describe("DeleteOptions and preconditions", () => {
  const cases = [
    {
      name: "an unknown propagationPolicy",
      body: { propagationPolicy: "Sideways" } as unknown,
      status: 422,
      message:
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    },
    {
      name: "orphanDependents with a propagationPolicy",
      body: { orphanDependents: true, propagationPolicy: "Orphan" },
      status: 422,
      message:
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    },
    {
      name: "a stale uid precondition",
      body: { preconditions: { uid: "other" } },
      status: 409,
      message:
        /^Operation cannot be fulfilled on Service "s": the UID in the precondition \(other\) does not match the UID in record \(.+\)\. The object might have been deleted and then recreated$/,
    },
    {
      name: "malformed JSON",
      body: "{",
      status: 400,
      message: /^couldn't get version\/kind; json parse error: /,
    },
  ];
  for (const c of cases) {
    it(`${c.status}: ${c.name}`, async () => {
      const s = setup();
      await s.call("POST", SERVICES, { metadata: { name: "s" }, spec: {} });
      const res = await s.call("DELETE", `${SERVICES}/s`, c.body);
      assert.equal(res.status, c.status);
      if (typeof c.message === "string") assert.equal(json(res).message, c.message);
      else assert.match(json(res).message, c.message);
      assert.ok(s.get("Service", "s"), "nothing was deleted");
    });
  }

  it("202 Accepted for an unfinished delete that sets orphanDependents: false", async () => {
    const s = setup();
    await webRunning(s);
    const res = await s.call("DELETE", `${DEPLOYMENTS}/web`, { orphanDependents: false });
    // Background by the legacy flag: finished at once, so 200.
    assert.equal(res.status, 200);
    await s.call("POST", SERVICES, {
      metadata: { name: "held", finalizers: ["example.com/x"] },
      spec: {},
    });
    const held = await s.call("DELETE", `${SERVICES}/held`, { orphanDependents: false });
    assert.equal(held.status, 202);
  });

  it("dryRun changes nothing", async () => {
    const s = setup();
    await webRunning(s);
    const res = await s.call("DELETE", `${DEPLOYMENTS}/web?dryRun=All`);
    assert.equal(res.status, 200);
    s.settle();
    assert.ok(s.get("Deployment", "web"));
    assert.equal(s.list("ReplicaSet").length, 1);
  });
});
