// The node as a kubelet reports it, on a stepped fake clock: the registered Node's addresses,
// nodeInfo, conditions and kubelet endpoint; the status heartbeat at nodeStatusReportFrequency;
// the node Lease renewed every quarter of its duration, made again when deleted.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rfc3339, rfc3339Micro } from "../../src/api/time.js";
import { NODE_NAME } from "../../src/cluster/kubelet.js";
import {
  hostSystemInfo,
  KUBELET_VERSION,
  NodeStatusReporter,
} from "../../src/cluster/node-status.js";
import { ObjectStore } from "../../src/registry/store.js";
import { T0 } from "./builders.js";

function setup(options: { reportMs?: number; leaseSeconds?: number } = {}) {
  let now = T0;
  const store = new ObjectStore({ now: () => now });
  store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kube-node-lease" } });
  const reporter = new NodeStatusReporter({
    store,
    now: () => now,
    model: { capacityPods: 110, podCidr: "127.64.0.0/16", info: hostSystemInfo() },
    ...(options.reportMs !== undefined ? { nodeStatusReportFrequencyMs: options.reportMs } : {}),
    ...(options.leaseSeconds !== undefined
      ? { nodeLeaseDurationSeconds: options.leaseSeconds }
      : {}),
  });
  const step = (ms: number) => {
    now += ms;
    reporter.sync();
  };
  const node = () => store.get("Node", "", NODE_NAME)!;
  const lease = () => store.get("Lease", "kube-node-lease", NODE_NAME)!;
  const status = () =>
    node().status as {
      conditions: Record<string, string>[];
      addresses: unknown;
      nodeInfo: Record<string, string>;
      daemonEndpoints: unknown;
      capacity: Record<string, string>;
    };
  return { store, reporter, step, node, lease, status, at: () => now };
}

describe("the node as a kubelet reports it", () => {
  test("registered at the first sync: addresses, nodeInfo, conditions, kubelet endpoint", () => {
    const { reporter, node, status } = setup();
    reporter.sync();
    assert.deepEqual(node().spec, { podCIDR: "127.64.0.0/16", podCIDRs: ["127.64.0.0/16"] });
    const s = status();
    assert.deepEqual(s.addresses, [
      { type: "InternalIP", address: "127.0.0.1" },
      { type: "Hostname", address: NODE_NAME },
    ]);
    assert.deepEqual(s.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
    assert.equal(s.capacity.pods, "110");
    assert.deepEqual(
      s.conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        [
          "MemoryPressure",
          "False",
          "KubeletHasSufficientMemory",
          "kubelet has sufficient memory available",
        ],
        ["DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
        ["PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"],
        ["Ready", "True", "KubeletReady", "kubelet is posting ready status"],
      ],
    );
    const info = s.nodeInfo;
    assert.deepEqual(Object.keys(info), [
      "machineID",
      "systemUUID",
      "bootID",
      "kernelVersion",
      "osImage",
      "containerRuntimeVersion",
      "kubeletVersion",
      "kubeProxyVersion",
      "operatingSystem",
      "architecture",
    ]);
    assert.equal(info.kubeletVersion, KUBELET_VERSION);
    assert.equal(info.kubeProxyVersion, "", "deprecated: kubelet 1.33+ leaves it empty");
    assert.match(info.containerRuntimeVersion!, /^horizon:\/\/\d+\.\d+\.\d+/);
    assert.equal(info.operatingSystem, "linux");
    assert.equal(info.architecture, "amd64");
    assert.ok(info.kernelVersion, "uname -r");
    assert.ok(info.osImage);
  });

  test("the lease: holder, 40 s, renewed every 10 s, owned by the Node", () => {
    const { reporter, step, lease, node, at } = setup();
    reporter.sync();
    const spec = () => lease().spec as Record<string, unknown>;
    assert.deepEqual(spec(), {
      holderIdentity: NODE_NAME,
      leaseDurationSeconds: 40,
      renewTime: rfc3339Micro(T0),
    });
    assert.deepEqual(lease().metadata.ownerReferences, [
      { apiVersion: "v1", kind: "Node", name: NODE_NAME, uid: node().metadata.uid },
    ]);
    assert.equal(reporter.nextDue(), T0 + 10_000);
    step(9_000);
    assert.equal(spec().renewTime, rfc3339Micro(T0), "not yet due");
    step(1_000);
    assert.equal(spec().renewTime, rfc3339Micro(at()));
    step(10_000);
    assert.equal(spec().renewTime, rfc3339Micro(T0 + 20_000));
  });

  test("a deleted lease is made again at the next renewal", () => {
    const { store, reporter, step, lease } = setup();
    reporter.sync();
    store.delete("Lease", "kube-node-lease", NODE_NAME);
    step(10_000);
    assert.equal((lease().spec as { renewTime: string }).renewTime, rfc3339Micro(T0 + 10_000));
  });

  test("the status heartbeat every nodeStatusReportFrequency (5 min); transition times stay", () => {
    const { store, reporter, step, status } = setup();
    reporter.sync();
    const heartbeat = () => status().conditions.map((c) => c.lastHeartbeatTime);
    const rv = store.get("Node", "", NODE_NAME)!.metadata.resourceVersion;
    step(4 * 60_000);
    assert.equal(store.get("Node", "", NODE_NAME)!.metadata.resourceVersion, rv);
    step(60_000);
    assert.deepEqual(heartbeat(), Array(4).fill(rfc3339(T0 + 5 * 60_000)));
    assert.deepEqual(
      status().conditions.map((c) => c.lastTransitionTime),
      Array(4).fill(rfc3339(T0)),
    );
  });

  test("short periods from config (tests): 1 s report frequency, 2 s lease (renew 500 ms)", () => {
    const { reporter, step, status, lease } = setup({ reportMs: 1000, leaseSeconds: 2 });
    reporter.sync();
    assert.equal(reporter.renewIntervalMs, 500);
    step(500);
    assert.equal((lease().spec as { renewTime: string }).renewTime, rfc3339Micro(T0 + 500));
    step(500);
    assert.equal(status().conditions[3]!.lastHeartbeatTime, rfc3339(T0 + 1000));
    assert.equal((lease().spec as { leaseDurationSeconds: number }).leaseDurationSeconds, 2);
  });

  test("a restarted kubelet writes its status at once, keeping the Node", () => {
    const { store, reporter, node } = setup();
    reporter.sync();
    const uid = node().metadata.uid;
    const again = new NodeStatusReporter({
      store,
      now: () => T0 + 60_000,
      model: { capacityPods: 110, info: hostSystemInfo() },
    });
    again.sync();
    assert.equal(node().metadata.uid, uid);
    const ready = (node().status as { conditions: Record<string, string>[] }).conditions[3]!;
    assert.equal(ready.lastHeartbeatTime, rfc3339(T0 + 60_000));
    assert.equal(ready.lastTransitionTime, rfc3339(T0));
  });
});
