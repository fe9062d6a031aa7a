// The in-process client the adapter tests build on: requests reach the real handler, watches
// stream the store's events.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inProcessClient } from "./harness.js";

describe("in-process KubeClient", () => {
  it("creates and reads back an object, and a 404 is an answer with its Status", async () => {
    const { client, calls } = inProcessClient();
    const created = await client.request<{ metadata: { resourceVersion: string } }>({
      method: "POST",
      path: "/api/v1/namespaces/default/services",
      body: { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: {} },
    });
    assert.equal(created.status, 201);
    const missing = await client.request<{ reason: string }>({
      method: "GET",
      path: "/api/v1/namespaces/default/services/nope",
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.reason, "NotFound");
    assert.deepEqual(calls, [
      "POST /api/v1/namespaces/default/services",
      "GET /api/v1/namespaces/default/services/nope",
    ]);
  });

  it("watches from resourceVersion 0 with ADDED events until aborted", async () => {
    const { client } = inProcessClient();
    await client.request({
      method: "POST",
      path: "/api/v1/namespaces/default/services",
      body: { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: {} },
    });
    const abort = new AbortController();
    const seen: string[] = [];
    await client.watch(
      {
        path: "/api/v1/namespaces/default/services",
        query: { resourceVersion: "0" },
        signal: abort.signal,
      },
      (event) => {
        seen.push(
          `${event.type} ${(event.object as { metadata: { name: string } }).metadata.name}`,
        );
        abort.abort();
      },
    );
    assert.deepEqual(seen, ["ADDED web"]);
  });
});
