// A restart of `horizon up --data-dir` rewrites nothing unchanged: a Deployment (with its
// ReplicaSet and pods) keeps its resourceVersion, as across a restart of kube-apiserver.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startUp } from "../../src/cli/up.js";
import { deployment } from "../cluster/builders.js";
import { pollUntil } from "../e2e/helpers.js";

type Json = ReturnType<typeof JSON.parse>;

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

async function up(dataDir: string) {
  const started = await startUp({
    port: 0,
    insecureHttp: true,
    controller: false,
    kubeconfigOut: null,
    dataDir,
  });
  if (!started.ok) throw new Error(started.error);
  const running = started.value;
  const call = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return res.json();
  };
  return { running, call };
}

describe("horizon up --data-dir restart", () => {
  it("keeps a Deployment's resourceVersion and its pods", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "horizon-up-restart-")), "data");
    const first = await up(dataDir);
    let before: Json;
    let pods: string[];
    try {
      await first.call("POST", DEPLOYMENTS, deployment({ replicas: 2 }));
      before = await pollUntil("web ready", async () => {
        const web = await first.call("GET", `${DEPLOYMENTS}/web`);
        return web.status?.readyReplicas === 2 ? web : undefined;
      });
      pods = (await first.call("GET", "/api/v1/namespaces/default/pods")).items
        .map((p: Json) => `${p.metadata.name} ${p.metadata.resourceVersion}`)
        .sort();
    } finally {
      await first.running.close();
    }
    const second = await up(dataDir);
    try {
      // A few ticks of the restarted cluster's loop.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await second.running.driver.tick();
      const after = await second.call("GET", `${DEPLOYMENTS}/web`);
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
      assert.deepEqual(after, before);
      const podsAfter = (await second.call("GET", "/api/v1/namespaces/default/pods")).items
        .map((p: Json) => `${p.metadata.name} ${p.metadata.resourceVersion}`)
        .sort();
      assert.deepEqual(podsAfter, pods);
    } finally {
      await second.running.close();
    }
  });
});
