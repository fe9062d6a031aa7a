// The HPA status port over the Kubernetes API: a PUT of the whole raw object with the new
// status, fields Horizon does not model kept, and no retry on conflict (as upstream).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerStatus,
} from "../../src/api/types.js";
import { KubeHpaStatusPort } from "../../src/kube/status.js";
import type { KubeClient, KubeRequest, KubeResponse } from "../../src/kube/types.js";
import { inProcessClient } from "./harness.js";

const HPA_PATH = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

async function createHpa(client: KubeClient): Promise<HorizontalPodAutoscaler> {
  const created = await client.request<HorizontalPodAutoscaler>({
    method: "POST",
    path: HPA_PATH,
    body: {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web", annotations: { team: "a" } },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
          },
        ],
      },
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const STATUS: HorizontalPodAutoscalerStatus = {
  currentReplicas: 2,
  desiredReplicas: 3,
  currentMetrics: [
    {
      type: "Resource",
      resource: { name: "cpu", current: { averageUtilization: 80, averageValue: "80m" } },
    },
  ],
  conditions: [
    {
      type: "AbleToScale",
      status: "True",
      lastTransitionTime: "2026-01-01T12:00:00Z",
      reason: "SucceededRescale",
      message: "the HPA controller was able to update the target scale to 3",
    },
  ],
};

function recording(inner: KubeClient): KubeClient & { requests: KubeRequest[] } {
  const requests: KubeRequest[] = [];
  return {
    requests,
    async request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
      requests.push(req);
      return inner.request<T>(req);
    },
    watch: inner.watch.bind(inner),
  };
}

describe("updateStatus", () => {
  it("PUTs the status subresource and the server keeps it", async () => {
    const { client } = inProcessClient();
    const hpa = await createHpa(client);
    const port = new KubeHpaStatusPort({ client });
    assert.deepEqual(await port.updateStatus(hpa, STATUS), { ok: true, value: undefined });
    const read = await client.request<HorizontalPodAutoscaler>({
      method: "GET",
      path: `${HPA_PATH}/web`,
    });
    assert.equal(read.body.status?.desiredReplicas, 3);
    assert.equal(read.body.status?.currentReplicas, 2);
    assert.deepEqual(read.body.status?.conditions, STATUS.conditions);
    assert.deepEqual(read.body.spec, hpa.spec);
    assert.deepEqual(read.body.metadata.annotations, { team: "a" });
  });

  it("sends the object as seen, untouched but for its status (unknown fields kept)", async () => {
    const { client: inner } = inProcessClient();
    const seen = await createHpa(inner);
    // As an informer may hold it: a list item (no kind) with fields Horizon does not model.
    const { kind: _k, apiVersion: _a, ...item } = seen as unknown as Record<string, unknown>;
    const raw = {
      ...item,
      spec: {
        ...seen.spec,
        behavior: { scaleUp: { tolerance: "0.05", futureField: { x: 1 } } },
      },
      futureTopLevel: "kept",
    } as unknown as HorizontalPodAutoscaler;
    const client = recording(inner);
    await new KubeHpaStatusPort({ client }).updateStatus(raw, STATUS);
    assert.equal(client.requests.length, 1);
    const [put] = client.requests as [KubeRequest];
    assert.equal(put.method, "PUT");
    assert.equal(put.path, `${HPA_PATH}/web/status`);
    assert.deepEqual(put.body, {
      ...raw,
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      status: STATUS,
    });
    const body = put.body as { metadata: { resourceVersion: string } };
    assert.equal(body.metadata.resourceVersion, seen.metadata.resourceVersion);
  });

  const failures = [
    {
      name: "a stale resourceVersion: 409, not retried",
      prepare: async (client: KubeClient, hpa: HorizontalPodAutoscaler) => {
        await new KubeHpaStatusPort({ client }).updateStatus(hpa, { desiredReplicas: 1 });
        return hpa;
      },
      status: 409,
      error:
        'Operation cannot be fulfilled on horizontalpodautoscalers.autoscaling "web": the object has been modified; please apply your changes to the latest version and try again',
    },
    {
      name: "a deleted HPA: 404",
      prepare: async (client: KubeClient, hpa: HorizontalPodAutoscaler) => {
        await client.request({ method: "DELETE", path: `${HPA_PATH}/web` });
        return hpa;
      },
      status: 404,
      error: 'horizontalpodautoscalers.autoscaling "web" not found',
    },
  ];
  for (const c of failures) {
    it(`returns ${c.name}`, async () => {
      const { client: inner } = inProcessClient();
      const hpa = await c.prepare(inner, await createHpa(inner));
      const client = recording(inner);
      const result = await new KubeHpaStatusPort({ client }).updateStatus(hpa, STATUS);
      assert.deepEqual(result, { ok: false, error: c.error, status: c.status });
      assert.equal(client.requests.length, 1, "one write, no retry");
    });
  }
});
