// End-to-end with real kubectl: what a fresh `horizon up` holds before any client writes, as a
// real single-node cluster does: the `kubernetes` Service (made again after a delete), and the
// Node as a kubelet reports it with its Lease in kube-node-lease.
import assert from "node:assert/strict";
import { release } from "node:os";
import { after, before, describe, it } from "node:test";
import { DEFAULT_KUBERNETES_VERSION } from "../../src/api/versions.js";
import { hostSystemInfo } from "../../src/cluster/node-status.js";
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

// The Node's kubeletVersion is the server's version: the default unless --kubernetes-version.
const KUBELET_VERSION = `v${DEFAULT_KUBERNETES_VERSION.replace(".", "\\.")}\\.0`;

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
    server = await startTestServer({
      ...ranges,
      endpointIntervalMs: 200,
      nodeStatusReportFrequencyMs: 1000,
      nodeLeaseDurationSeconds: 1,
    });
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

  it("kubectl get nodes -o wide: Ready, the kubelet's version, InternalIP, OS image, kernel, runtime", async () => {
    const result = await kubectl(ctx, ["get", "nodes", "-o", "wide"]);
    assert.equal(result.code, 0, result.stderr);
    const [header, row] = result.stdout.trim().split("\n");
    assert.match(
      header!,
      /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME$/,
    );
    const info = hostSystemInfo();
    assert.match(
      row!,
      new RegExp(
        `^horizon-node\\s+Ready\\s+<none>\\s+\\S+\\s+${KUBELET_VERSION}\\s+127\\.0\\.0\\.1\\s+<none>\\s+`,
      ),
    );
    assert.ok(row!.includes(` ${info.osImage} `), row);
    assert.ok(row!.includes(` ${release()} `), row);
    assert.ok(row!.endsWith(" horizon://0.1.0"), row);
    assert.doesNotMatch(row!, /<unknown>/);
  });

  it("the node Lease in kube-node-lease is renewed; the status heartbeat moves", async () => {
    const lease = await json(["get", "lease", "-n", "kube-node-lease", "horizon-node"]);
    assert.equal(lease.spec.holderIdentity, "horizon-node");
    assert.equal(lease.spec.leaseDurationSeconds, 1);
    assert.equal(lease.metadata.ownerReferences[0].kind, "Node");
    await pollUntil("a renewal", async () => {
      const again = await json(["get", "lease", "-n", "kube-node-lease", "horizon-node"]);
      return again.spec.renewTime !== lease.spec.renewTime ? true : undefined;
    });
    const node = await json(["get", "node", "horizon-node"]);
    const heartbeat = (n: {
      status: { conditions: { type: string; lastHeartbeatTime: string }[] };
    }) => n.status.conditions.find((c) => c.type === "Ready")!.lastHeartbeatTime;
    await pollUntil("a heartbeat", async () => {
      const again = await json(["get", "node", "horizon-node"]);
      return heartbeat(again) !== heartbeat(node) ? true : undefined;
    });
  });

  it("kubectl describe node: addresses, conditions, system info, the lease", async () => {
    const result = await kubectl(ctx, ["describe", "node", "horizon-node"]);
    assert.equal(result.code, 0, result.stderr);
    const text = result.stdout;
    for (const expected of [
      /Lease:\s*\n\s+HolderIdentity:\s+horizon-node/,
      /RenewTime:\s+\w/,
      /MemoryPressure\s+False\s.*KubeletHasSufficientMemory\s+kubelet has sufficient memory available/,
      /DiskPressure\s+False\s.*KubeletHasNoDiskPressure/,
      /PIDPressure\s+False\s.*KubeletHasSufficientPID/,
      /Ready\s+True\s.*KubeletReady\s+kubelet is posting ready status/,
      /InternalIP:\s+127\.0\.0\.1/,
      /Hostname:\s+horizon-node/,
      new RegExp(`Kubelet Version:\\s+${KUBELET_VERSION}`),
      /Container Runtime Version:\s+horizon:\/\/0\.1\.0/,
      /Operating System:\s+linux/,
      /Architecture:\s+amd64/,
      /PodCIDR:\s+127\./,
    ]) {
      assert.match(text, expected);
    }
  });
});
