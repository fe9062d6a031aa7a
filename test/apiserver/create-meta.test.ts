// kube-apiserver sets metadata.uid and metadata.creationTimestamp itself on every create
// (rest.BeforeCreate → FillObjectMetaSystemFields), ignoring what the client sent; updates keep
// the stored ones (the update strategy copies them from the old object).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rfc3339 } from "../../src/api/time.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { deployment, hpa, scenario, T0 } from "../cluster/builders.js";

const CLIENT_UID = "11111111-2222-3333-4444-555555555555";
const CLIENT_TIME = "2001-02-03T04:05:06Z";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = (
    method: string,
    url: string,
    body: unknown,
    headers: Record<string, string> = { "content-type": "application/json" },
  ): Promise<ApiResponse> => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = { method, path: parsed.pathname, query: parsed.searchParams, headers };
    if (body !== undefined) req.body = Buffer.from(JSON.stringify(body));
    return handler(req);
  };
  return { cluster, call };
}

interface Meta {
  name: string;
  uid?: string;
  creationTimestamp?: string;
  resourceVersion?: string;
}

function metaOf(res: ApiResponse): Meta {
  assert.ok("body" in res, "expected a JSON body");
  return (res.body as { metadata: Meta }).metadata;
}

/** The object with the client's own uid and creationTimestamp. */
function withClientMeta<T extends { metadata: object }>(object: T): object {
  return {
    ...object,
    metadata: { ...object.metadata, uid: CLIENT_UID, creationTimestamp: CLIENT_TIME },
  };
}

const HPAS = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const SERVICES = "/api/v1/namespaces/default/services";
const APPLY = { "content-type": "application/apply-patch+yaml" };

describe("create sets uid and creationTimestamp itself", () => {
  const cases = [
    {
      name: "POST of an autoscaling/v2 HPA",
      method: "POST",
      url: HPAS,
      body: withClientMeta(hpa({ name: "web" })),
      headers: undefined,
      status: 201,
      stored: { kind: "HorizontalPodAutoscaler", name: "web" },
    },
    {
      name: "POST of a Deployment",
      method: "POST",
      url: DEPLOYMENTS,
      body: withClientMeta(deployment({ name: "web" })),
      headers: undefined,
      status: 201,
      stored: { kind: "Deployment", name: "web" },
    },
    {
      name: "POST of a Service",
      method: "POST",
      url: SERVICES,
      body: withClientMeta({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web", namespace: "default" },
        spec: { ports: [{ port: 80 }] },
      }),
      headers: undefined,
      status: 201,
      stored: { kind: "Service", name: "web" },
    },
    {
      name: "server-side apply that creates the HPA",
      method: "PATCH",
      url: `${HPAS}/applied?fieldManager=test`,
      body: withClientMeta(hpa({ name: "applied" })),
      headers: APPLY,
      status: 201,
      stored: { kind: "HorizontalPodAutoscaler", name: "applied" },
    },
    {
      name: "dryRun=All create (answered, not stored)",
      method: "POST",
      url: `${HPAS}?dryRun=All`,
      body: withClientMeta(hpa({ name: "dry" })),
      headers: undefined,
      status: 201,
      stored: null,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { cluster, call } = setup();
      const res = await call(c.method, c.url, c.body, c.headers);
      assert.equal(res.status, c.status, JSON.stringify("body" in res ? res.body : null));
      const meta = metaOf(res);
      assert.notEqual(meta.uid, CLIENT_UID);
      assert.match(meta.uid ?? "", UUID);
      assert.equal(meta.creationTimestamp, rfc3339(cluster.now));
      if (c.stored === null) {
        assert.equal(cluster.store.get("HorizontalPodAutoscaler", "default", "dry"), undefined);
        return;
      }
      const stored = cluster.store.get(c.stored.kind, "default", c.stored.name)!;
      assert.equal(stored.metadata.uid, meta.uid);
      assert.equal(stored.metadata.creationTimestamp, meta.creationTimestamp);
    });
  }

  // rest.BeforeUpdate copies generation and creationTimestamp from the stored object (and the
  // uid when none is sent); ValidateObjectMetaUpdate then refuses a different uid.
  const updates = [
    {
      name: "HPA: no uid, another creationTimestamp and no generation are ignored",
      url: HPAS,
      object: () => hpa({ name: "web", maxReplicas: 7 }),
      meta: { creationTimestamp: CLIENT_TIME },
      error: null,
    },
    {
      name: "Deployment: no uid, another creationTimestamp and no generation are ignored",
      url: DEPLOYMENTS,
      object: () => deployment({ name: "web", replicas: 3 }),
      meta: { creationTimestamp: CLIENT_TIME, generation: 0 },
      error: null,
    },
    {
      name: "HPA: another uid is immutable",
      url: HPAS,
      object: () => hpa({ name: "web", maxReplicas: 7 }),
      meta: { uid: CLIENT_UID, creationTimestamp: CLIENT_TIME },
      error: `HorizontalPodAutoscaler.autoscaling "web" is invalid: metadata.uid: Invalid value: "${CLIENT_UID}": field is immutable`,
    },
    {
      name: "Deployment: another uid is immutable",
      url: DEPLOYMENTS,
      object: () => deployment({ name: "web", replicas: 3 }),
      meta: { uid: CLIENT_UID },
      error: `Deployment.apps "web" is invalid: metadata.uid: Invalid value: "${CLIENT_UID}": field is immutable`,
    },
  ];
  for (const u of updates) {
    it(`update, ${u.name}`, async () => {
      const { call } = setup();
      const object = u.object() as { metadata: object };
      const created = metaOf(await call("POST", u.url, object));
      const res = await call("PUT", `${u.url}/web`, {
        ...object,
        metadata: { ...object.metadata, ...u.meta, resourceVersion: created.resourceVersion },
      });
      const body = "body" in res ? (res.body as { message?: string }) : {};
      if (u.error !== null) {
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(body.message, u.error);
        return;
      }
      assert.equal(res.status, 200, JSON.stringify(body));
      const updated = metaOf(res);
      assert.equal(updated.uid, created.uid);
      assert.equal(updated.creationTimestamp, created.creationTimestamp);
    });
  }

  it("a name re-created after its deletion gets a new uid", async () => {
    const { call } = setup();
    const first = metaOf(await call("POST", HPAS, hpa({ name: "web" })));
    const deleted = await call("DELETE", `${HPAS}/web`, undefined);
    assert.equal(deleted.status, 200);
    const second = metaOf(await call("POST", HPAS, withClientMeta(hpa({ name: "web" }))));
    assert.notEqual(second.uid, first.uid);
    assert.notEqual(second.uid, CLIENT_UID);
  });
});
