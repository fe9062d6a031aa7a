// startUp, the composition `horizon up` calls (src/up/up.ts), started without the command line:
// the cluster, the API server and the controller manager over HTTP come up together and stop
// together; what cannot start is a value that names the flag at fault.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { describe, it } from "node:test";
import { emptyScenario, startUp } from "../../src/up/up.js";
import { deployment } from "../cluster/builders.js";
import { pollUntil } from "../e2e/helpers.js";

type Json = ReturnType<typeof JSON.parse>;

const HPAS = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

describe("startUp", () => {
  it("runs the controller over its API server: an HPA created there gets its status", async () => {
    const started = await startUp({
      scenario: emptyScenario(),
      port: 0,
      insecureHttp: true,
      kubeconfigOut: null,
      syncPeriodMs: 500,
    });
    if (!started.ok) throw new Error(started.error);
    const up = started.value;
    const call = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const res = await fetch(`${up.url}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return res.json();
    };
    try {
      // Over HTTP (the default transport): the controller manager runs beside the server.
      assert.notEqual(up.controller, null);
      assert.equal(up.controllerConfig?.syncPeriodMs, 500);
      assert.equal(up.dashboard, null);
      assert.equal(up.prometheus, null);
      assert.equal(up.podNetwork, null);
      await call("POST", "/apis/apps/v1/namespaces/default/deployments", deployment());
      await call("POST", HPAS, {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "web", namespace: "default" },
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
          minReplicas: 1,
          maxReplicas: 3,
          metrics: [
            {
              type: "Resource",
              resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
            },
          ],
        },
      });
      const hpa = await pollUntil(
        "the controller's first status write",
        async () => {
          const got = await call("GET", `${HPAS}/web`);
          const able = (got.status?.conditions ?? []).find(
            (c: { type: string }) => c.type === "AbleToScale",
          );
          return able ? got : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      assert.equal(
        hpa.status.conditions.find((c: { type: string }) => c.type === "AbleToScale").status,
        "True",
      );
    } finally {
      await up.close();
    }
    await assert.rejects(fetch(`${up.url}/api`), "the server stopped with close()");
  });

  it("returns what cannot start as a value naming the flag or the address", async () => {
    const base = { port: 0, insecureHttp: true, kubeconfigOut: null, controller: false } as const;
    const overlap = await startUp({
      ...base,
      podCidr: "127.64.0.0/16",
      serviceCidr: "127.64.8.0/24",
    });
    assert.deepEqual(overlap, {
      ok: false,
      error: "--service-cidr: 127.64.8.0/24 overlaps --pod-cidr 127.64.0.0/16",
    });
    const period = await startUp({ ...base, controller: true, syncPeriodMs: 0 });
    assert.deepEqual(period, { ok: false, error: "--sync-period: must be positive" });

    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      const inUse = await startUp({ ...base, port });
      assert.equal(inUse.ok, false);
      assert.match(!inUse.ok ? inUse.error : "", /^cannot listen on 127\.0\.0\.1: .*EADDRINUSE/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
