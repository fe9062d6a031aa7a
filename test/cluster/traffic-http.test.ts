// A scenario's traffic sent as requests (`horizon up --scenario-traffic requests`): which
// Service a workload's requests go to, the usage model counting them once (fake clock), and the
// load generator at a rate read at each tick (real time on loopback, short).
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { LoadGenerator } from "../../src/cluster/loadgen.js";
import { podsListen, ScenarioTraffic, trafficTarget } from "../../src/cluster/traffic-http.js";
import { samplesByName } from "../../src/core/replica-calculator.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { deployment, lifecycle, scenario, T0, workloadModel } from "./builders.js";

function service(name: string, spec: Record<string, unknown>, namespace = "default"): KubeObject {
  return { apiVersion: "v1", kind: "Service", metadata: { name, namespace }, spec };
}

describe("trafficTarget: the Service a workload's requests go to", () => {
  const workload = {
    namespace: "default",
    obj: deployment() as KubeObject, // pods labelled app=web
  };
  const http = { name: "http", port: 80, targetPort: 8080 };
  const cases: { name: string; services: KubeObject[]; want: unknown }[] = [
    { name: "no Service: none (the traffic stays modelled)", services: [], want: null },
    {
      name: "the Service selecting its pods, its port named http",
      services: [
        service("web", {
          selector: { app: "web" },
          clusterIP: "127.65.0.2",
          ports: [{ name: "metrics", port: 9090 }, http],
        }),
      ],
      want: { service: "web", host: "127.65.0.2", port: 80 },
    },
    {
      name: "else its first TCP port",
      services: [
        service("web", {
          selector: { app: "web" },
          clusterIP: "127.65.0.2",
          ports: [
            { name: "dns", port: 53, protocol: "UDP" },
            { name: "web", port: 8080 },
          ],
        }),
      ],
      want: { service: "web", host: "127.65.0.2", port: 8080 },
    },
    {
      name: "not another namespace's, not a headless one, not one selecting other pods",
      services: [
        service("web", { selector: { app: "web" }, clusterIP: "127.65.0.2", ports: [http] }, "x"),
        service("headless", { selector: { app: "web" }, clusterIP: "None", ports: [http] }),
        service("other", { selector: { app: "db" }, clusterIP: "127.65.0.3", ports: [http] }),
        service("none", { clusterIP: "127.65.0.4", ports: [http] }),
      ],
      want: null,
    },
    {
      name: "several: the first by name",
      services: [
        service("web-b", { selector: { app: "web" }, clusterIP: "127.65.0.3", ports: [http] }),
        service("web-a", { selector: { app: "web" }, clusterIP: "127.65.0.2", ports: [http] }),
      ],
      want: { service: "web-a", host: "127.65.0.2", port: 80 },
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(trafficTarget(workload, c.services), c.want));
  }
});

describe("podsListen: only pods that declare a TCP port get requests", () => {
  const withPorts = (ports: unknown[] | undefined) => {
    const object = deployment() as KubeObject;
    const spec = object.spec as { template: { spec: { containers: Record<string, unknown>[] } } };
    if (ports) spec.template.spec.containers[0]!.ports = ports;
    return { obj: object };
  };
  test("a containerPort: yes; none, or only UDP: no", () => {
    assert.equal(podsListen(withPorts([{ containerPort: 8080 }])), true);
    assert.equal(podsListen(withPorts(undefined)), false);
    assert.equal(podsListen(withPorts([{ containerPort: 53, protocol: "UDP" }])), false);
  });
});

describe("traffic sent as requests is counted once by the usage model (fake clock)", () => {
  // 10 requests/s modelled; its pod answers 150 requests in a 15 s scrape interval (10/s).
  const cpuAfterAnswers = async (sent: boolean) => {
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
              traffic: [{ type: "constant", rps: 10 }],
            }),
          ],
        }),
      ),
      startTime: T0,
    });
    c.create(deployment({ replicas: 1, cpuRequest: "100m" }));
    const workload = c.workload("default", "Deployment", "web")!;
    workload.trafficSent = sent;
    const first = c.metrics.nextScrapeAt;
    c.advanceTo(first);
    const pod = c.store.list("Pod", "default")[0]!;
    for (let i = 0; i < 150; i++) c.recordServed(`default/${pod.metadata.name}`);
    c.advanceTo(first + 15_000);
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
    assert.equal(observed.kind, "resource");
    return {
      cpu:
        observed.kind === "resource"
          ? samplesByName(observed.samples).get(pod.metadata.name)?.value
          : undefined,
      demand: c.metrics.demandRps(workload, c.now),
    };
  };

  test("modelled traffic and requests from elsewhere (horizon load) add up: 20/s, 25m", async () => {
    assert.deepEqual(await cpuAfterAnswers(false), { cpu: 25, demand: 20 });
  });

  test("the model's own traffic sent as requests: only the answers count, 10/s, 15m", async () => {
    assert.deepEqual(await cpuAfterAnswers(true), { cpu: 15, demand: 10 });
  });
});

describe("LoadGenerator at a rate read at each tick (loopback)", () => {
  const servers: { server: Server; port: number; hits: number }[] = [];
  before(async () => {
    for (let i = 0; i < 2; i++) {
      const entry = { server: createServer(), port: 0, hits: 0 };
      entry.server.on("request", (_req, res) => {
        entry.hits++;
        res.end("ok\n");
      });
      await new Promise<void>((resolve) => entry.server.listen(0, "127.0.0.1", resolve));
      entry.port = (entry.server.address() as AddressInfo).port;
      servers.push(entry);
    }
  });
  after(async () => {
    for (const { server } of servers) await new Promise((resolve) => server.close(resolve));
  });

  test("nothing at rate 0, then the rate's integral; retarget moves the next requests", async () => {
    let rate = 0;
    const generator = new LoadGenerator({
      target: { host: "127.0.0.1", port: servers[0]!.port },
      rps: () => rate,
      concurrency: 50,
      keepLatencies: false,
    });
    generator.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(generator.counts.sent, 0, "rate 0 sends nothing");
      rate = 100;
      const from = performance.now();
      const deadline = Date.now() + 10_000;
      while (generator.counts.answered < 50 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const elapsed = performance.now() - from;
      const sent = generator.counts.sent;
      // 100/s over the time it ran (ticks may come late on a loaded machine, never early).
      assert.ok(sent <= Math.ceil((elapsed * 100) / 1000) + 1, `${sent} in ${elapsed} ms`);
      assert.ok(sent >= 50);
      assert.equal(generator.latencies.length, 0, "keepLatencies: false keeps none");
      rate = 0;
      while (generator.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const before = servers[0]!.hits;
      generator.retarget({ host: "127.0.0.1", port: servers[1]!.port });
      rate = 100;
      const deadline2 = Date.now() + 10_000;
      while (servers[1]!.hits < 10 && Date.now() < deadline2) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(servers[1]!.hits >= 10);
      assert.equal(servers[0]!.hits, before, "no more to the old target");
    } finally {
      await generator.stop();
    }
  });
});

describe("ScenarioTraffic: sent while a Service reaches the workload's pods, else modelled", () => {
  test("no Service: modelled; a Service: sent (trafficSent); the Service gone: modelled again", async () => {
    const c = new EmbeddedCluster({
      // Rate 0: nothing is really sent (the address listens on nothing here).
      model: clusterModelOf(scenario({ workloads: [workloadModel()] })),
      startTime: T0,
    });
    const web = deployment() as KubeObject;
    const spec = web.spec as { template: { spec: { containers: Record<string, unknown>[] } } };
    spec.template.spec.containers[0]!.ports = [{ containerPort: 8080 }];
    c.create(web);
    const lines: string[] = [];
    const traffic = new ScenarioTraffic({ cluster: c, log: (l) => lines.push(l), clock: () => T0 });
    const workload = c.workload("default", "Deployment", "web")!;
    try {
      traffic.refresh();
      assert.equal(workload.trafficSent, false);
      assert.equal(traffic.counts(workload.key), null);
      c.create(
        service("web", {
          selector: { app: "web" },
          clusterIP: "127.65.0.2",
          ports: [{ name: "http", port: 80, targetPort: 8080 }],
        }),
      );
      traffic.refresh();
      traffic.refresh();
      assert.equal(workload.trafficSent, true);
      assert.deepEqual(traffic.counts(workload.key)?.sent, 0);
      c.store.delete("Service", "default", "web");
      traffic.refresh();
      assert.equal(workload.trafficSent, false);
      assert.deepEqual(lines, [
        "scenario traffic of deployment/web (namespace default): modelled: no Service with a ClusterIP and a TCP port selects its pods",
        "scenario traffic of deployment/web (namespace default): sent as HTTP requests to service/web at http://127.65.0.2/",
        "scenario traffic of deployment/web (namespace default): modelled: no Service with a ClusterIP and a TCP port selects its pods",
      ]);
    } finally {
      await traffic.stop();
    }
    assert.equal(workload.trafficSent, false);
  });
});
