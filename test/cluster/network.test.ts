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
import { samplesByName } from "../../src/core/replica-calculator.js";
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
  test("keepFirst: the first address is never allocated, only reserved when asked for", () => {
    const ips = new IpAllocator(cidr("127.1.2.16/28"), { keepFirst: true });
    assert.equal(ips.allocate(), "127.1.2.18");
    ips.release("127.1.2.18");
    assert.equal(ips.allocate(), "127.1.2.18");
    assert.ok(ips.reserve("127.1.2.17"));
    ips.release("127.1.2.17");
    assert.equal(ips.allocate(), "127.1.2.19", "a released first address is not handed out");
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

  test("the Service gets the lowest free ClusterIP; no pod is bound yet: empty Endpoints", () => {
    const svc = c.store.get("Service", "default", "web")!;
    // 127.65.0.1 is kept for the kubernetes Service (kube-apiserver's).
    assert.equal((svc.spec as { clusterIP: string }).clusterIP, "127.65.0.2");
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
        ? samplesByName(observed.samples).get(pod.metadata.name)?.value
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

describe("a container whose port is in use: CrashLoopBackOff (fake clock)", () => {
  // Pods: bound at 1 s, running at 3 s, Ready at 8 s (builders' lifecycle).
  const fake = new FakeNetwork();
  const c = new EmbeddedCluster({
    model: clusterModelOf(scenario({ workloads: [workloadModel({ pod: lifecycle() })] })),
    startTime: T0,
    network: { podCidr: cidr("127.64.0.0/16"), serviceCidr: cidr("127.65.0.0/16"), pods: fake },
  });
  c.create(withPorts(deployment({ replicas: 1 })));
  c.create(SERVICE);
  c.advanceTo(at(10));
  const pod = () => c.store.list("Pod", "default")[0] as KubeObject;
  const key = () => `default/${pod().metadata.name}`;
  type Status = {
    phase: string;
    conditions: { type: string; status: string; reason?: string; message?: string }[];
    containerStatuses: {
      ready: boolean;
      restartCount: number;
      started: boolean;
      state: Record<string, { reason?: string; message?: string; startedAt?: string }>;
      lastState?: { terminated: { exitCode: number; reason: string; message: string } };
    }[];
  };
  const status = () => pod().status as Status;
  const ready = () => status().conditions.find((x) => x.type === "Ready")!;
  const addresses = () =>
    (
      (c.store.get("Endpoints", "default", "web")!.subsets ?? []) as {
        addresses?: { ip: string }[];
        notReadyAddresses?: { ip: string }[];
      }[]
    ).map((s) => ({
      ready: (s.addresses ?? []).length,
      notReady: (s.notReadyAddresses ?? []).length,
    }));
  const failedEvents = () =>
    c.store.list("Event", "default").filter((e) => (e as { reason?: string }).reason === "Failed");
  const BIND = "listen tcp 127.64.0.1:8080: bind: address already in use";

  test("Ready and served before the failure", () => {
    assert.equal(ready().status, "True");
    assert.deepEqual(addresses(), [{ ready: 1, notReady: 0 }]);
    assert.ok(fake.started.has(key()));
  });

  test("the listen fails: not Ready, out of the Service's addresses, not served, an Event, the status says why", () => {
    c.containerFailed(key(), "app", BIND);
    assert.equal(status().phase, "Running");
    assert.deepEqual(ready(), {
      ...ready(),
      status: "False",
      reason: "ContainersNotReady",
      message: "containers with unready status: [app]",
    });
    const container = status().containerStatuses[0]!;
    assert.equal(container.ready, false);
    assert.equal(container.started, false);
    assert.equal(container.restartCount, 0);
    assert.equal(container.state.waiting?.reason, "CrashLoopBackOff");
    assert.match(
      container.state.waiting?.message ?? "",
      /^back-off 10s restarting failed container=app pod=web-/,
    );
    assert.deepEqual(
      { ...container.lastState!.terminated, startedAt: undefined, finishedAt: undefined },
      { exitCode: 1, reason: "Error", message: BIND, startedAt: undefined, finishedAt: undefined },
    );
    assert.deepEqual(addresses(), [{ ready: 0, notReady: 1 }]);
    assert.equal(fake.started.has(key()), false);
    const events = failedEvents();
    assert.equal(events.length, 1);
    assert.equal((events[0] as { message?: string }).message, `Error: container app: ${BIND}`);
    assert.equal((events[0] as { type?: string }).type, "Warning");
  });

  test("after the 10 s back-off it is restarted; failing again doubles the back-off", () => {
    c.advanceTo(at(19.9));
    assert.equal(fake.started.has(key()), false);
    c.advanceTo(at(20));
    assert.ok(fake.started.has(key()), "restarted: served again");
    assert.equal(status().containerStatuses[0]!.restartCount, 1);
    assert.ok(status().containerStatuses[0]!.state.running);
    assert.equal(ready().status, "False", "Ready only after the readiness delay");
    c.containerFailed(key(), "app", BIND);
    assert.match(status().containerStatuses[0]!.state.waiting?.message ?? "", /^back-off 20s /);
    assert.equal(failedEvents().length, 2);
  });

  test("once the port is free, the restart stays up: Ready and back in the Service's addresses", () => {
    c.advanceTo(at(40));
    assert.ok(fake.started.has(key()));
    assert.equal(ready().status, "False");
    c.advanceTo(at(45));
    assert.equal(ready().status, "True");
    const container = status().containerStatuses[0]!;
    assert.equal(container.restartCount, 2);
    assert.equal(container.ready, true);
    assert.equal(container.lastState?.terminated.message, BIND);
    assert.deepEqual(addresses(), [{ ready: 1, notReady: 0 }]);
  });
});

describe("EndpointSlices of at most 100 endpoints (fake clock)", () => {
  const c = new EmbeddedCluster({
    model: clusterModelOf(scenario({ workloads: [workloadModel({ pod: lifecycle() })] })),
    startTime: T0,
    network: { podCidr: cidr("127.64.0.0/16"), serviceCidr: cidr("127.65.0.0/16") },
  });
  c.create(withPorts(deployment({ replicas: 250 })));
  c.create(SERVICE);
  type Slice = KubeObject & {
    endpoints: { addresses: string[]; conditions: { ready: boolean } }[];
    ports: unknown[];
  };
  const slices = () =>
    c.store
      .list("EndpointSlice", "default")
      .filter((s) => s.metadata.labels?.["kubernetes.io/service-name"] === "web") as Slice[];
  const podIps = () =>
    c.store
      .list("Pod", "default")
      .map((p) => (p.status as { podIP?: string }).podIP)
      .filter((ip): ip is string => ip !== undefined)
      .sort();

  test("250 ready pods: 3 slices of 100, 100 and 50, each pod in exactly one, all owned by the Service", () => {
    c.advanceTo(at(10));
    assert.equal(podIps().length, 250);
    const got = slices();
    assert.deepEqual(
      got.map((s) => s.endpoints.length).sort((a, b) => b - a),
      [100, 100, 50],
    );
    const addresses = got.flatMap((s) => s.endpoints.flatMap((e) => e.addresses)).sort();
    assert.deepEqual(addresses, podIps());
    assert.ok(got.every((s) => s.endpoints.every((e) => e.conditions.ready)));
    const uid = c.store.get("Service", "default", "web")!.metadata.uid;
    for (const s of got) {
      assert.equal(s.metadata.ownerReferences?.[0]?.uid, uid);
      assert.deepEqual(s.ports, [{ name: "http", port: 8080, protocol: "TCP" }]);
      assert.equal(s.metadata.generateName, "web-");
    }
    assert.equal(new Set(got.map((s) => s.metadata.name)).size, 3);
    // Endpoints stays one object with every ready address.
    const subsets = c.store.get("Endpoints", "default", "web")!.subsets as {
      addresses: unknown[];
    }[];
    assert.equal(subsets[0]!.addresses.length, 250);
  });

  test("scaled to 150: two slices remain (the surplus one is deleted), every pod still listed once", () => {
    const before = new Set(slices().map((s) => s.metadata.name));
    c.scaleWorkload("default", "Deployment", "web", 150);
    c.advanceTo(at(60));
    assert.equal(podIps().length, 150);
    const got = slices();
    assert.deepEqual(
      got.map((s) => s.endpoints.length),
      [100, 50],
    );
    assert.ok(
      got.every((s) => before.has(s.metadata.name)),
      "existing slices are kept",
    );
    const addresses = got.flatMap((s) => s.endpoints.flatMap((e) => e.addresses)).sort();
    assert.deepEqual(addresses, podIps());
  });

  test("scaled to 0: one empty slice stays (upstream's placeholder)", () => {
    c.scaleWorkload("default", "Deployment", "web", 0);
    c.advanceTo(at(120));
    const got = slices();
    assert.equal(got.length, 1);
    assert.deepEqual(got[0]!.endpoints, []);
  });
});
