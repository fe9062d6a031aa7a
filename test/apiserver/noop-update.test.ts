// kube-apiserver never stores a no-op update: an update, patch or status update that changes
// nothing answers with the object at its old resourceVersion, and no watch event is sent.
// managedFields must not defeat it: a manager's `time` stays when its fields did not change.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import type { WatchEvent } from "../../src/registry/store.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, deployment, hpa, scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const HPAS = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const HPAS_V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({
    cluster,
    extensions: { handleDiscovery: () => null, handleMetricsApi: () => null },
  });
  const call = async (
    method: string,
    url: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<{ status: number; body: Json }> => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = {
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: { "content-type": contentType },
    };
    if (body !== undefined) req.body = Buffer.from(JSON.stringify(body));
    const res: ApiResponse = await handler(req);
    assert.ok("body" in res, "expected a JSON body");
    return { status: res.status, body: res.body };
  };
  const events: WatchEvent[] = [];
  cluster.store.watch((event) => events.push(event));
  return { cluster, call, events };
}

/** Creates through the API (managedFields by a manager), then lets the clock move on. */
async function created(s: ReturnType<typeof setup>, url: string, object: unknown): Promise<Json> {
  const res = await s.call("POST", `${url}?fieldManager=kubectl-create`, object);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.ok(res.body.metadata.managedFields.length > 0);
  s.cluster.advanceTo(at(600));
  const read = await s.call("GET", `${url}/${res.body.metadata.name}`);
  s.events.length = 0;
  return read.body;
}

function noEventsFor(events: readonly WatchEvent[], kind: string, name: string) {
  assert.deepEqual(
    events
      .filter((e) => e.object.kind === kind && e.object.metadata.name === name)
      .map((e) => `${e.type} ${e.object.metadata.resourceVersion}`),
    [],
  );
}

describe("no-op writes over the API", () => {
  it("PUT of the object just read keeps its resourceVersion and sends no watch event", async () => {
    const s = setup();
    const web = await created(s, DEPLOYMENTS, deployment({ replicas: 0 }));
    for (const manager of ["kubectl-create", "kubectl-replace", ""]) {
      const query = manager ? `?fieldManager=${manager}` : "";
      const res = await s.call("PUT", `${DEPLOYMENTS}/web${query}`, web);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.metadata.resourceVersion, web.metadata.resourceVersion, manager);
      assert.deepEqual(res.body.metadata.managedFields, web.metadata.managedFields, manager);
    }
    noEventsFor(s.events, "Deployment", "web");
  });

  it("a merge patch that changes nothing keeps the resourceVersion", async () => {
    const s = setup();
    const web = await created(s, DEPLOYMENTS, deployment({ replicas: 0 }));
    for (const patch of [{}, { spec: { replicas: 0 } }, { metadata: { labels: null } }]) {
      const res = await s.call(
        "PATCH",
        `${DEPLOYMENTS}/web?fieldManager=kubectl-patch`,
        patch,
        "application/merge-patch+json",
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.metadata.resourceVersion, web.metadata.resourceVersion);
    }
    noEventsFor(s.events, "Deployment", "web");
    // A patch that changes something is stored, with a new resourceVersion and an event.
    const changed = await s.call(
      "PATCH",
      `${DEPLOYMENTS}/web?fieldManager=kubectl-patch`,
      { spec: { replicas: 1 } },
      "application/merge-patch+json",
    );
    assert.notEqual(changed.body.metadata.resourceVersion, web.metadata.resourceVersion);
    assert.ok(s.events.some((e) => e.type === "MODIFIED" && e.object.kind === "Deployment"));
  });

  it("an HPA read and written back (v2 and v1) and a status update as read are no-ops", async () => {
    const s = setup();
    const web = await created(s, HPAS, hpa());
    const put = await s.call("PUT", `${HPAS}/web?fieldManager=kubectl-edit`, web);
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.metadata.resourceVersion, web.metadata.resourceVersion);
    const v1 = (await s.call("GET", `${HPAS_V1}/web`)).body;
    const putV1 = await s.call("PUT", `${HPAS_V1}/web?fieldManager=kubectl-edit`, v1);
    assert.equal(putV1.status, 200, JSON.stringify(putV1.body));
    assert.equal(putV1.body.metadata.resourceVersion, web.metadata.resourceVersion);
    const status = await s.call("PUT", `${HPAS}/web/status`, web);
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.equal(status.body.metadata.resourceVersion, web.metadata.resourceVersion);
    noEventsFor(s.events, "HorizontalPodAutoscaler", "web");
  });
});
