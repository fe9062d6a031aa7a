// End-to-end with real kubectl: what a fresh `horizon up` holds before any client writes, as a
// real single-node cluster does: the `kubernetes` Service (made again after a delete), and the
// Node as a kubelet reports it with its Lease in kube-node-lease.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  findKubectls,
  type KubectlContext,
  kubectl,
  kubectlRequired,
  pollUntil,
  startTestServer,
  type TestServer,
} from "./helpers.js";
import { testRanges } from "./network-helpers.js";

const search = findKubectls([]);

describe("a fresh horizon up, as a real cluster bootstraps", () => {
  if (search.binaries.length === 0) {
    if (kubectlRequired())
      it("kubectl is required under CI=true", () => assert.fail(search.missing.join("; ")));
    else it("skipped: no kubectl on PATH", { skip: search.missing.join("; ") }, () => {});
    return;
  }
  let server: TestServer;
  let ctx: KubectlContext;
  const ranges = testRanges();
  const servicePrefix = ranges.serviceCidr.slice(0, ranges.serviceCidr.lastIndexOf(".") + 1);

  before(async () => {
    server = await startTestServer({ ...ranges, endpointIntervalMs: 200 });
    ctx = server.context(search.binaries[0]!);
  });
  after(async () => {
    await server?.up.close();
  });

  const json = async (args: string[]) => {
    const result = await kubectl(ctx, [...args, "-o", "json"]);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  };

  it("kubectl get svc -A: default/kubernetes on the first ClusterIP, 443/TCP", async () => {
    const result = await kubectl(ctx, ["get", "svc", "-A", "-o", "wide"]);
    assert.equal(result.code, 0, result.stderr);
    const rows = result.stdout
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/));
    assert.deepEqual(rows[0]!.slice(0, 6), [
      "NAMESPACE",
      "NAME",
      "TYPE",
      "CLUSTER-IP",
      "EXTERNAL-IP",
      "PORT(S)",
    ]);
    assert.equal(rows.length, 2, result.stdout);
    assert.deepEqual(rows[1]!.slice(0, 6), [
      "default",
      "kubernetes",
      "ClusterIP",
      `${servicePrefix}1`,
      "<none>",
      "443/TCP",
    ]);
    assert.equal(rows[1]!.at(-1), "<none>", "no selector");
  });

  it("a user Service never gets the first address", async () => {
    const created = await kubectl(ctx, ["create", "service", "clusterip", "web", "--tcp=80:8080"]);
    assert.equal(created.code, 0, created.stderr);
    const svc = await json(["get", "svc", "web"]);
    assert.equal(svc.spec.clusterIP, `${servicePrefix}2`);
  });

  it("the kubernetes Service, its Endpoints and slice are made again after a delete", async () => {
    const before = await json(["get", "svc", "kubernetes"]);
    const deleted = await kubectl(ctx, ["delete", "svc", "kubernetes"]);
    assert.equal(deleted.code, 0, deleted.stderr);
    const again = await pollUntil(
      "the kubernetes Service made again",
      async () => {
        const result = await kubectl(ctx, ["get", "svc", "kubernetes", "-o", "json"]);
        if (result.code !== 0) return undefined;
        const svc = JSON.parse(result.stdout);
        return svc.metadata.uid !== before.metadata.uid ? svc : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    assert.equal(again.spec.clusterIP, `${servicePrefix}1`);
    const endpoints = await pollUntil("its Endpoints made again", async () => {
      const result = await kubectl(ctx, ["get", "endpoints", "kubernetes", "-o", "json"]);
      return result.code === 0 ? JSON.parse(result.stdout) : undefined;
    });
    assert.deepEqual(endpoints.subsets[0].ports, [
      { name: "https", port: server.up.port, protocol: "TCP" },
    ]);
    const deletedSlice = await kubectl(ctx, ["delete", "endpointslice", "kubernetes"]);
    assert.equal(deletedSlice.code, 0, deletedSlice.stderr);
    const slice = await pollUntil("its EndpointSlice made again", async () => {
      const result = await kubectl(ctx, ["get", "endpointslice", "kubernetes", "-o", "json"]);
      return result.code === 0 ? JSON.parse(result.stdout) : undefined;
    });
    assert.deepEqual(slice.endpoints, [{ addresses: ["127.0.0.1"], conditions: { ready: true } }]);
  });
});
