// The embedded cluster's network on a fake clock (no sockets): address ranges, pod IPs and
// ClusterIPs, the endpoints controllers following pods through their stages, and what the
// pod network port is told.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { AdmissionQueue } from "../../src/cluster/app.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import type { ServiceRouting } from "../../src/cluster/controllers/endpoints.js";
import { IpAllocator, parseLoopbackCidr } from "../../src/cluster/ipam.js";
import type { NetworkPod, PodNetwork } from "../../src/cluster/network.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, deployment, lifecycle, scenario, T0, workloadModel } from "./builders.js";

function cidr(text: string) {
  const parsed = parseLoopbackCidr(text, "--pod-cidr");
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.cidr;
}

describe("parseLoopbackCidr", () => {
  const cases: { name: string; text: string; error: RegExp | null }[] = [
    { name: "the default pod range", text: "127.64.0.0/16", error: null },
    { name: "a /28 is the smallest", text: "127.1.2.16/28", error: null },
    {
      name: "not loopback",
      text: "10.0.0.0/16",
      error: /--pod-cidr: .*not inside the loopback range/,
    },
    { name: "wider than 127/8", text: "0.0.0.0/0", error: /not inside the loopback range/ },
    { name: "too small", text: "127.1.2.0/29", error: /--pod-cidr: .*too small/ },
    { name: "host bits set", text: "127.64.0.1/16", error: /host bits set/ },
    { name: "not a CIDR", text: "127.64.0.0", error: /not an IPv4 CIDR/ },
    { name: "bad octet", text: "127.300.0.0/16", error: /not an IPv4 CIDR/ },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const parsed = parseLoopbackCidr(c.text, "--pod-cidr");
      if (c.error === null) assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
      else {
        assert.equal(parsed.ok, false);
        assert.match((parsed as { error: string }).error, c.error);
      }
    });
  }
});

describe("IpAllocator", () => {
  test("lowest free address first, never the network or broadcast address", () => {
    const ips = new IpAllocator(cidr("127.1.2.16/28"));
    const got: string[] = [];
    for (;;) {
      const ip = ips.allocate();
      if (ip === null) break;
      got.push(ip);
    }
    assert.equal(got.length, 14);
    assert.equal(got[0], "127.1.2.17");
    assert.equal(got.at(-1), "127.1.2.30");
    ips.release("127.1.2.20");
    assert.equal(ips.allocate(), "127.1.2.20");
    assert.equal(ips.reserve("127.1.2.16"), false, "network address");
    assert.equal(ips.reserve("127.1.3.1"), false, "outside");
  });
  test("reserved (restored) addresses are skipped", () => {
    const ips = new IpAllocator(cidr("127.64.0.0/16"));
    assert.ok(ips.reserve("127.64.0.1"));
    assert.equal(ips.reserve("127.64.0.1"), false);
    assert.equal(ips.allocate(), "127.64.0.2");
  });
});

class FakeNetwork implements PodNetwork {
  started = new Map<string, NetworkPod>();
  routing = new Map<string, ServiceRouting>();
  podStarted(pod: NetworkPod): void {
    this.started.set(pod.key, pod);
  }
  podStopped(key: string): void {
    this.started.delete(key);
  }
  serviceRouting(key: string, routing: ServiceRouting | null): void {
    if (routing) this.routing.set(key, routing);
    else this.routing.delete(key);
  }
}

const SERVICE: KubeObject = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "web", namespace: "default" },
  spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
};

function withPorts(object: KubeObject): KubeObject {
  const spec = object.spec as { template: { spec: { containers: Record<string, unknown>[] } } };
  for (const c of spec.template.spec.containers) c.ports = [{ containerPort: 8080 }];
  return object;
}

describe("endpoints on a fake clock", () => {
  const fake = new FakeNetwork();
  const c = new EmbeddedCluster({
    model: clusterModelOf(
      scenario({
        workloads: [
          workloadModel({
            pod: lifecycle({ terminationGracePeriodMs: 10_000 }),
            usage: {
              cpu: { baseMilli: 5, milliPerRps: 1, limitMilli: null },
              memory: { baseBytes: 0, bytesPerRps: 0 },
              capacityRps: 20,
              jitter: 0,
            },
          }),
        ],
      }),
    ),
    startTime: T0,
    network: { podCidr: cidr("127.64.0.0/16"), serviceCidr: cidr("127.65.0.0/16"), pods: fake },
  });
  c.create(withPorts(deployment({ replicas: 2 })));
  c.create(SERVICE);
  const endpoints = () => c.store.get("Endpoints", "default", "web") as KubeObject;
  const slice = () =>
    c.store
      .list("EndpointSlice", "default")
      .find((s) => s.metadata.labels?.["kubernetes.io/service-name"] === "web") as KubeObject;
  const podIps = () =>
    c.store
      .list("Pod", "default")
      .map((p) => (p.status as { podIP?: string }).podIP)
      .sort();

  test("the Service gets the first ClusterIP; no pod is bound yet: empty Endpoints", () => {
    const svc = c.store.get("Service", "default", "web")!;
    assert.equal((svc.spec as { clusterIP: string }).clusterIP, "127.65.0.1");
    assert.equal(endpoints().subsets, undefined);
    assert.deepEqual(fake.routing.get("default/web")?.ports[0]?.backends, []);
  });

  test("bound pods get IPs; running ones are served but not ready: notReadyAddresses", () => {
    c.advanceTo(at(3));
    assert.deepEqual(podIps(), ["127.64.0.1", "127.64.0.2"]);
    assert.equal(fake.started.size, 2);
    const started = [...fake.started.values()][0]!;
    assert.deepEqual(started.ports, [{ container: "app", port: 8080 }]);
    assert.equal(started.capacityRps, 20);
    const subsets = endpoints().subsets as {
      addresses?: unknown[];
      notReadyAddresses?: unknown[];
    }[];
    assert.equal(subsets[0]!.addresses, undefined);
    assert.equal(subsets[0]!.notReadyAddresses!.length, 2);
    assert.deepEqual(fake.routing.get("default/web")?.ports[0]?.backends, []);
  });

  test("ready pods: addresses, slice conditions ready, the proxy's backends", () => {
    c.advanceTo(at(8));
    const subsets = endpoints().subsets as { addresses?: { ip: string }[]; ports: unknown[] }[];
    assert.deepEqual(
      subsets[0]!.addresses!.map((a) => a.ip),
      ["127.64.0.1", "127.64.0.2"],
    );
    assert.deepEqual(subsets[0]!.ports, [{ name: "http", port: 8080, protocol: "TCP" }]);
    const conditions = (slice().endpoints as { conditions: unknown }[]).map((e) => e.conditions);
    assert.deepEqual(conditions, [
      { ready: true, serving: true, terminating: false },
      { ready: true, serving: true, terminating: false },
    ]);
    const backends = fake.routing.get("default/web")!.ports[0]!.backends;
    assert.deepEqual(
      backends.map((b) => `${b.ip}:${b.port}`),
      ["127.64.0.1:8080", "127.64.0.2:8080"],
    );
  });

  test("scale to 1: the terminating pod leaves Endpoints and the proxy, stays in the slice as terminating", () => {
    const current = c.store.get("Deployment", "default", "web")!;
    c.scaleWorkload("default", "Deployment", "web", 1);
    assert.ok(current);
    const subsets = endpoints().subsets as { addresses?: { ip: string }[] }[];
    assert.equal(subsets[0]!.addresses!.length, 1);
    const terminating = (slice().endpoints as { conditions: { terminating: boolean } }[]).filter(
      (e) => e.conditions.terminating,
    );
    assert.equal(terminating.length, 1);
    assert.deepEqual(terminating[0]!.conditions, {
      ready: false,
      serving: false,
      terminating: true,
    });
    assert.equal(fake.routing.get("default/web")!.ports[0]!.backends.length, 1);
    assert.equal(fake.started.size, 2, "its containers still run during the grace period");
  });

  test("after the grace period the pod is gone: stopped, its IP free again, out of the slice", () => {
    c.advanceTo(at(20));
    assert.equal(fake.started.size, 1);
    assert.equal((slice().endpoints as unknown[]).length, 1);
    c.scaleWorkload("default", "Deployment", "web", 2);
    c.advanceTo(at(21));
    assert.equal(podIps().length, 2);
    assert.equal(new Set(podIps()).size, 2);
    assert.ok(podIps().every((ip) => ip === "127.64.0.1" || ip === "127.64.0.2"));
  });

  test("deleting the Service removes its Endpoints, slice and routing", () => {
    c.store.delete("Service", "default", "web");
    c.reconcile();
    assert.equal(c.store.get("Endpoints", "default", "web"), undefined);
    assert.equal(slice(), undefined);
    assert.equal(fake.routing.has("default/web"), false);
  });
});

describe("the app model's admission (fake clock)", () => {
  test("without capacity every request is served at once", () => {
    const queue = new AdmissionQueue(null);
    for (let i = 0; i < 100; i++) assert.equal(queue.admit(T0), 0);
  });
  test("capacity 10 rps: one start every 100 ms, then 503 past a second of queued work", () => {
    const queue = new AdmissionQueue(10);
    const delays: (number | null)[] = [];
    for (let i = 0; i < 13; i++) delays.push(queue.admit(T0));
    assert.deepEqual(delays.slice(0, 3), [0, 100, 200]);
    assert.equal(delays[10], 1000);
    assert.equal(delays[11], null, "1.1 s of queued work is refused");
    // Once the queue drains, requests are served at once again.
    assert.equal(queue.admit(T0 + 5000), 0);
  });
});

describe("CPU follows the requests pods really answer (fake clock)", () => {
  test("150 answers in a 15 s scrape interval: 10 requests/s, 5m + 10 × 1m of CPU", async () => {
    const c = new EmbeddedCluster({
      model: clusterModelOf(
        scenario({
          workloads: [
            workloadModel({
              pod: lifecycle({
                schedulingDelayMs: 0,
                containerStartDelayMs: 0,
                readinessDelayMs: 0,
              }),
              usage: {
                cpu: { baseMilli: 5, milliPerRps: 1, limitMilli: null },
                memory: { baseBytes: 0, bytesPerRps: 0 },
                capacityRps: null,
                jitter: 0,
              },
              traffic: [],
            }),
          ],
        }),
      ),
      startTime: T0,
      network: { podCidr: cidr("127.64.0.0/16"), serviceCidr: cidr("127.65.0.0/16") },
    });
    c.create(withPorts(deployment({ replicas: 1, cpuRequest: "100m" })));
    c.advanceTo(at(1));
    const pod = c.store.list("Pod", "default")[0]!;
    const key = `default/${pod.metadata.name}`;
    const cpu = async () => {
      const observed = await c
        .ports()
        .metrics.observe(
          "default",
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization" } } },
          {
            text: "app=web",
            requirements: [{ key: "app", operator: "In", values: ["web"] }],
          } as never,
        );
      return observed.kind === "resource"
        ? observed.samples.get(pod.metadata.name)?.value
        : undefined;
    };
    const first = c.metrics.nextScrapeAt;
    c.advanceTo(first);
    assert.equal(await cpu(), 5, "idle");
    for (let i = 0; i < 150; i++) c.recordServed(key);
    c.advanceTo(first + 15_000);
    assert.equal(await cpu(), 15);
    c.advanceTo(first + 30_000);
    assert.equal(await cpu(), 5, "no answers since: idle again");
  });
});
