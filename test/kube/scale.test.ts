// The scale port over the Kubernetes API: discovery-resolved scale subresources of the built-in
// workloads and of custom resources, client-go's error texts, and RetryOnConflict on update.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CrossVersionObjectReference } from "../../src/api/types.js";
import { DiscoveryRestMapper } from "../../src/kube/rest-mapper.js";
import { KubeScaleTargetPort } from "../../src/kube/scale.js";
import type { KubeClient, KubeRequest, KubeResponse } from "../../src/kube/types.js";
import { inProcessClient } from "./harness.js";

const container = { name: "app", image: "nginx", resources: { requests: { cpu: "100m" } } };

function workload(kind: string, name: string, replicas: number): { path: string; body: object } {
  const template = { metadata: { labels: { app: name } }, spec: { containers: [container] } };
  if (kind === "ReplicationController") {
    return {
      path: "/api/v1/namespaces/default/replicationcontrollers",
      body: {
        apiVersion: "v1",
        kind,
        metadata: { name },
        spec: { replicas, selector: { app: name }, template },
      },
    };
  }
  const plural = `${kind.toLowerCase()}s`;
  return {
    path: `/apis/apps/v1/namespaces/default/${plural}`,
    body: {
      apiVersion: "apps/v1",
      kind,
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template,
        ...(kind === "StatefulSet" ? { serviceName: name } : {}),
      },
    },
  };
}

async function create(client: KubeClient, kind: string, name: string, replicas: number) {
  const { path, body } = workload(kind, name, replicas);
  const created = await client.request<{ metadata: { resourceVersion: string } }>({
    method: "POST",
    path,
    body,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const ref = (kind: string, name: string, apiVersion = "apps/v1"): CrossVersionObjectReference => ({
  apiVersion,
  kind,
  name,
});

describe("getScale over discovery", () => {
  const kinds = [
    { name: "a Deployment", kind: "Deployment", apiVersion: "apps/v1", replicas: 3 },
    { name: "a StatefulSet", kind: "StatefulSet", apiVersion: "apps/v1", replicas: 2 },
    { name: "a ReplicaSet", kind: "ReplicaSet", apiVersion: "apps/v1", replicas: 4 },
    {
      name: "a ReplicationController",
      kind: "ReplicationController",
      apiVersion: "v1",
      replicas: 1,
    },
  ];
  for (const c of kinds) {
    it(`reads the autoscaling/v1 Scale of ${c.name}`, async () => {
      const { client } = inProcessClient();
      await create(client, c.kind, "web", c.replicas);
      const port = new KubeScaleTargetPort({ client });
      const got = await port.getScale("default", ref(c.kind, "web", c.apiVersion));
      assert.ok(got.ok, JSON.stringify(got));
      assert.equal(got.value.specReplicas, c.replicas);
      assert.equal(got.value.selector, "app=web");
      assert.equal(typeof got.value.statusReplicas, "number");
      const scale = await client.request<{ metadata: { resourceVersion: string } }>({
        method: "GET",
        path: `${workload(c.kind, "web", 0).path}/web/scale`,
      });
      assert.equal(got.value.resourceVersion, scale.body.metadata.resourceVersion);
    });
  }

  const failures = [
    {
      name: "a kind no group serves",
      target: ref("Widget", "w", "example.com/v1"),
      error: 'no matches for kind "Widget" in group "example.com"',
      status: 404,
    },
    {
      name: "a kind in the wrong group",
      target: ref("Deployment", "web", "batch/v1"),
      error: 'no matches for kind "Deployment" in group "batch"',
      status: 404,
    },
    {
      name: "a missing Deployment",
      target: ref("Deployment", "nope"),
      error: 'deployments.apps "nope" not found',
      status: 404,
    },
    {
      name: "a kind without a scale subresource",
      target: ref("Pod", "web-0", "v1"),
      error: "the server could not find the requested resource",
      status: 404,
    },
    {
      name: "an apiVersion with two slashes",
      target: ref("Deployment", "web", "apps/v1/extra"),
      error: "unexpected GroupVersion string: apps/v1/extra",
      status: undefined,
    },
  ];
  for (const c of failures) {
    it(`answers ${c.name} with client-go's error`, async () => {
      const { client } = inProcessClient();
      await create(client, "Deployment", "web", 1);
      const port = new KubeScaleTargetPort({ client });
      const got = await port.getScale("default", c.target);
      assert.ok(!got.ok);
      assert.equal(got.error, c.error);
      assert.equal(got.status, c.status);
    });
  }

  it("caches discovery: a second sync costs one request (the scale GET)", async () => {
    const { client, calls } = inProcessClient();
    await create(client, "Deployment", "web", 1);
    const port = new KubeScaleTargetPort({ client });
    await port.getScale("default", ref("Deployment", "web"));
    const before = calls.length;
    await port.getScale("default", ref("Deployment", "web"));
    assert.deepEqual(calls.slice(before), [
      "GET /apis/apps/v1/namespaces/default/deployments/web/scale",
    ]);
  });

  it("refreshes discovery on a miss, at most once per minRefreshMs", async () => {
    const { client } = inProcessClient();
    let now = 1_000_000;
    const mapper = new DiscoveryRestMapper({ client, now: () => now, minRefreshMs: 30_000 });
    const port = new KubeScaleTargetPort({ client, mapper });
    const widget = ref("Widget", "w", "example.com/v1");
    await port.getScale("default", widget);
    const first = mapper.requests;
    await port.getScale("default", widget);
    assert.equal(mapper.requests, first, "a miss within the refresh interval refetches nothing");
    now += 30_000;
    await port.getScale("default", widget);
    assert.ok(mapper.requests > first, "a miss after the interval refetches discovery");
  });
});

describe("updateScale", () => {
  it("writes spec.replicas through the scale subresource", async () => {
    const { client, calls } = inProcessClient();
    await create(client, "Deployment", "web", 2);
    const port = new KubeScaleTargetPort({ client });
    assert.ok((await port.getScale("default", ref("Deployment", "web"))).ok);
    const before = calls.length;
    const updated = await port.updateScale("default", ref("Deployment", "web"), 5);
    assert.deepEqual(updated, { ok: true, value: undefined });
    // The scale read in the same sync is written back: no second GET.
    assert.deepEqual(calls.slice(before), [
      "PUT /apis/apps/v1/namespaces/default/deployments/web/scale",
    ]);
    const deployment = await client.request<{ spec: { replicas: number } }>({
      method: "GET",
      path: "/apis/apps/v1/namespaces/default/deployments/web",
    });
    assert.equal(deployment.body.spec.replicas, 5);
  });

  it("reads the scale first when the sync has not", async () => {
    const { client, calls } = inProcessClient();
    await create(client, "StatefulSet", "db", 1);
    const port = new KubeScaleTargetPort({ client });
    assert.ok((await port.updateScale("default", ref("StatefulSet", "db"), 3)).ok);
    assert.deepEqual(
      calls.filter((c) => c.includes("/scale")),
      [
        "GET /apis/apps/v1/namespaces/default/statefulsets/db/scale",
        "PUT /apis/apps/v1/namespaces/default/statefulsets/db/scale",
      ],
    );
    const got = await port.getScale("default", ref("StatefulSet", "db"));
    assert.ok(got.ok);
    assert.equal(got.value.specReplicas, 3);
  });

  it("a stale resourceVersion conflicts, and is retried after a re-read", async () => {
    const { client, calls } = inProcessClient();
    await create(client, "Deployment", "web", 2);
    const sleeps: number[] = [];
    const port = new KubeScaleTargetPort({
      client,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
    });
    assert.ok((await port.getScale("default", ref("Deployment", "web"))).ok);
    // Someone else scales in between: the sync's resourceVersion is stale.
    await client.request({
      method: "PATCH",
      path: "/apis/apps/v1/namespaces/default/deployments/web",
      body: { spec: { replicas: 4 } },
      contentType: "application/merge-patch+json",
    });
    const before = calls.length;
    assert.ok((await port.updateScale("default", ref("Deployment", "web"), 6)).ok);
    assert.deepEqual(calls.slice(before), [
      "PUT /apis/apps/v1/namespaces/default/deployments/web/scale",
      "GET /apis/apps/v1/namespaces/default/deployments/web/scale",
      "PUT /apis/apps/v1/namespaces/default/deployments/web/scale",
    ]);
    assert.deepEqual(sleeps, [10.5]);
  });
});

/** A client that answers the first `conflicts` PUTs with 409 Conflict. */
function conflicting(inner: KubeClient, conflicts: number): KubeClient & { puts: number } {
  const wrapper = {
    puts: 0,
    async request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
      if (req.method === "PUT") {
        wrapper.puts++;
        if (wrapper.puts <= conflicts) {
          return {
            status: 409,
            headers: {},
            body: {
              kind: "Status",
              apiVersion: "v1",
              status: "Failure",
              reason: "Conflict",
              code: 409,
              message:
                'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
            } as T,
          };
        }
      }
      return inner.request<T>(req);
    },
    watch: inner.watch.bind(inner),
  };
  return wrapper;
}

describe("RetryOnConflict (DefaultRetry: 5 steps, 10ms, factor 1, jitter 0.1)", () => {
  const cases = [
    { name: "two conflicts, then success", conflicts: 2, ok: true, puts: 3, sleeps: 2 },
    { name: "conflicts on every step", conflicts: 99, ok: false, puts: 5, sleeps: 4 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { client } = inProcessClient();
      await create(client, "Deployment", "web", 2);
      const wrapped = conflicting(client, c.conflicts);
      const sleeps: number[] = [];
      const port = new KubeScaleTargetPort({
        client: wrapped,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      });
      const result = await port.updateScale("default", ref("Deployment", "web"), 7);
      assert.equal(result.ok, c.ok, JSON.stringify(result));
      assert.equal(wrapped.puts, c.puts);
      assert.equal(sleeps.length, c.sleeps);
      for (const ms of sleeps) assert.ok(ms >= 10 && ms < 11, `jittered sleep ${ms}`);
      if (!result.ok) {
        assert.equal(result.status, 409);
        assert.match(result.error, /^Operation cannot be fulfilled on deployments.apps "web"/);
      }
      const deployment = await client.request<{ spec: { replicas: number } }>({
        method: "GET",
        path: "/apis/apps/v1/namespaces/default/deployments/web",
      });
      assert.equal(deployment.body.spec.replicas, c.ok ? 7 : 2);
    });
  }

  it("does not retry other errors", async () => {
    const { client } = inProcessClient();
    await create(client, "Deployment", "web", 2);
    const port = new KubeScaleTargetPort({ client });
    assert.ok((await port.getScale("default", ref("Deployment", "web"))).ok);
    await client.request({
      method: "DELETE",
      path: "/apis/apps/v1/namespaces/default/deployments/web",
    });
    const result = await port.updateScale("default", ref("Deployment", "web"), 3);
    assert.deepEqual(result, { ok: false, error: 'deployments.apps "web" not found', status: 404 });
  });
});

/** The in-process API plus a custom resource group example.com/v1 with widgets (scalable) and gadgets (not). */
function withCustomResources(inner: KubeClient): KubeClient & { widgetReplicas: number } {
  const list = {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: "example.com/v1",
    resources: [
      { name: "widgets", namespaced: true, kind: "Widget", verbs: ["get", "update"] },
      {
        name: "widgets/scale",
        namespaced: true,
        kind: "Scale",
        group: "autoscaling",
        version: "v1",
      },
      { name: "widgets/status", namespaced: true, kind: "Widget", verbs: ["get"] },
      { name: "gadgets", namespaced: true, kind: "Gadget", verbs: ["get"] },
    ],
  };
  const client = {
    widgetReplicas: 2,
    resourceVersion: 10,
    async request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
      const answer = (status: number, body: unknown) => ({ status, headers: {}, body: body as T });
      if (req.path === "/apis") {
        const groups = await inner.request<{ groups: unknown[] }>(req);
        const example = {
          name: "example.com",
          versions: [{ groupVersion: "example.com/v1", version: "v1" }],
          preferredVersion: { groupVersion: "example.com/v1", version: "v1" },
        };
        return answer(200, { ...groups.body, groups: [...groups.body.groups, example] });
      }
      if (req.path === "/apis/example.com/v1") return answer(200, list);
      if (req.path === "/apis/example.com/v1/namespaces/default/widgets/w1/scale") {
        if (req.method === "PUT") {
          const body = req.body as { spec: { replicas: number } };
          client.widgetReplicas = body.spec.replicas;
          client.resourceVersion++;
        }
        return answer(200, {
          kind: "Scale",
          apiVersion: "autoscaling/v1",
          metadata: {
            name: "w1",
            namespace: "default",
            resourceVersion: String(client.resourceVersion),
          },
          spec: { replicas: client.widgetReplicas },
          status: { replicas: client.widgetReplicas, selector: "app=widget" },
        });
      }
      if (req.path.startsWith("/apis/example.com/")) {
        return answer(404, {
          kind: "Status",
          status: "Failure",
          reason: "NotFound",
          code: 404,
          message: "the server could not find the requested resource",
        });
      }
      return inner.request<T>(req);
    },
    watch: inner.watch.bind(inner),
  };
  return client;
}

describe("custom resources with a scale subresource", () => {
  it("reads and writes a Widget's scale", async () => {
    const { client: inner } = inProcessClient();
    const client = withCustomResources(inner);
    const port = new KubeScaleTargetPort({ client });
    const widget = ref("Widget", "w1", "example.com/v1");
    const got = await port.getScale("default", widget);
    assert.deepEqual(got, {
      ok: true,
      value: { specReplicas: 2, statusReplicas: 2, selector: "app=widget", resourceVersion: "10" },
    });
    assert.ok((await port.updateScale("default", widget, 4)).ok);
    assert.equal(client.widgetReplicas, 4);
  });

  it("a custom kind without a scale subresource answers the server's 404", async () => {
    const { client: inner } = inProcessClient();
    const port = new KubeScaleTargetPort({ client: withCustomResources(inner) });
    const got = await port.getScale("default", ref("Gadget", "g1", "example.com/v1"));
    assert.deepEqual(got, {
      ok: false,
      error: "the server could not find the requested resource",
      status: 404,
    });
  });

  it("a non-Status error body is worded as client-go's generic response", async () => {
    const { client: inner } = inProcessClient();
    const custom = withCustomResources(inner);
    const client: KubeClient = {
      async request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
        if (req.path.endsWith("/scale"))
          return { status: 503, headers: {}, body: "service unavailable\n" as T };
        return custom.request<T>(req);
      },
      watch: custom.watch.bind(custom),
    };
    const port = new KubeScaleTargetPort({ client });
    const got = await port.getScale("default", ref("Widget", "w1", "example.com/v1"));
    assert.deepEqual(got, {
      ok: false,
      error: "the server is currently unable to handle the request (get widgets w1)",
      status: 503,
    });
  });
});
