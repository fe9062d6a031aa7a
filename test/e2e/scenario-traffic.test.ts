// The book's example under `horizon up --prometheus` produces its metric by itself: the
// scenario's traffic (examples/custom-metrics.yaml, its spike moved to 2 s and the metrics
// resolution to 1 s) is sent as real HTTP requests to the sample app's Service, so the pod's
// http_requests_total grows on /metrics, Prometheus scrapes it through the ServiceMonitor, the
// adapter serves http_requests for the pod and the HPA finds its metric and scales up — with no
// `horizon load`. The usage model counts those requests once (its demand is the pods' answers,
// not the traffic model on top of them). With --scenario-traffic model nothing reaches the pods.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parseUpOptions } from "../../src/cli/up.js";
import { parsePrometheusFlags } from "../../src/cli/up-prometheus.js";
import { loadScenarioFile } from "../../src/sim/scenario.js";
import type { Scenario } from "../../src/sim/scenario-types.js";
import { startUp } from "../../src/up/up.js";
import { prometheusSkip } from "../prometheus/real-prometheus.js";
import { pollUntil, requestUp, startTestServer, type TestServer } from "./helpers.js";
import { get, testRanges } from "./network-helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const skip = prometheusSkip("scenario-traffic");
const WORKLOAD = "default/Deployment/sample-app";

/** examples/custom-metrics.yaml with its load from 2 s on, and a 1 s metrics resolution. */
async function fastBook(): Promise<Scenario> {
  const text = readFileSync(join(ROOT, "examples", "custom-metrics.yaml"), "utf8");
  assert.match(text, /\n {6}at: 1m\n/);
  const file = join(mkdtempSync(join(tmpdir(), "horizon-scenario-traffic-")), "book.yaml");
  writeFileSync(file, text.replace(/\n {6}at: 1m\n/, "\n      at: 2s\n"));
  const loaded = await loadScenarioFile(file, { served: true });
  assert.ok(loaded.ok, loaded.ok ? "" : JSON.stringify(loaded.errors));
  const scenario = loaded.scenario;
  scenario.spec.cluster.metricsResolutionMs = 1000;
  return scenario;
}

/** The pod's http_requests_total{code="200",method="get"} on its own /metrics (null: no sample). */
async function podRequests(server: TestServer): Promise<{ pod: string; count: number | null }> {
  const pod = server.up.cluster.store
    .list("Pod", "default")
    .find(
      (p) =>
        p.metadata.labels?.app === "sample-app" &&
        (p.status as { phase?: string; podIP?: string })?.phase === "Running",
    );
  const ip = (pod?.status as { podIP?: string } | undefined)?.podIP;
  if (!pod || !ip) return { pod: "", count: null };
  const answer = await get(ip, 8080, "/metrics").catch(() => ({ status: 0, body: "" }));
  const sample = /^http_requests_total\{method="get",code="200"\} (\d+)$/m.exec(answer.body);
  return { pod: pod.metadata.name, count: sample ? Number(sample[1]) : null };
}

describe("horizon up examples/custom-metrics.yaml --prometheus: the scenario's traffic reaches the pods", {
  skip,
}, () => {
  let server: TestServer;
  const logs: string[] = [];
  before(async () => {
    const prometheus = parsePrometheusFlags({ prometheus: true, prometheusScrapeInterval: "1s" });
    assert.ok(prometheus.ok && prometheus.value);
    server = await startTestServer({
      scenario: await fastBook(),
      prometheus: prometheus.value,
      listeners: true,
      ...testRanges(),
      syncPeriodMs: 2000,
      log: (line) => logs.push(line),
    });
  });
  after(async () => {
    await server?.up.close();
  });

  test("the pod's http_requests_total grows without horizon load", async () => {
    assert.ok(server.up.scenarioTraffic, "--prometheus sends the scenario's traffic by default");
    const first = await pollUntil(
      "a sample of http_requests_total on the pod's /metrics",
      async () => {
        const { count } = await podRequests(server);
        return count !== null && count > 0 ? count : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    await pollUntil(
      "http_requests_total to grow",
      async () => {
        const { count } = await podRequests(server);
        return count !== null && count >= first + 10 ? count : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    assert.ok(
      logs.some((l) =>
        /scenario traffic of deployment\/sample-app \(namespace default\): sent as HTTP requests to service\/sample-app at http:\/\/127\.\d+\.\d+\.\d+\/$/.test(
          l,
        ),
      ),
      logs.join("\n"),
    );
    const counts = server.up.scenarioTraffic?.counts(WORKLOAD);
    assert.ok(counts && counts.answered > 0, JSON.stringify(counts));
  });

  test("the custom metrics API serves the pod's http_requests from Prometheus", async () => {
    const value = await pollUntil(
      "the adapter to serve http_requests for the sample app's pod",
      async () => {
        const answer = await requestUp(
          server.up,
          "GET",
          "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests?labelSelector=app%3Dsample-app",
        );
        if (answer.status !== 200) return undefined;
        const list = JSON.parse(answer.body) as {
          items: { describedObject: { name: string }; value: string }[];
        };
        return list.items[0]?.value;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    assert.match(value, /^\d+(m)?$/);
  });

  test("the HPA finds its metric and scales the Deployment up", async () => {
    const hpaStatus = async () => {
      const answer = await requestUp(
        server.up,
        "GET",
        "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/sample-app",
      );
      return JSON.parse(answer.body).status as {
        conditions?: { type: string; status: string; reason: string }[];
        currentMetrics?: {
          pods?: { metric: { name: string }; current: { averageValue: string } };
        }[];
        desiredReplicas?: number;
      };
    };
    const active = await pollUntil(
      "ScalingActive True (ValidMetricFound)",
      async () => {
        const status = await hpaStatus();
        const condition = status.conditions?.find((c) => c.type === "ScalingActive");
        return condition?.status === "True" ? { condition, status } : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 500 },
    );
    assert.equal(active.condition.reason, "ValidMetricFound");
    assert.equal(active.status.currentMetrics?.[0]?.pods?.metric.name, "http_requests");
    // About 10 requests/s on one pod against a 500m target: more replicas.
    const replicas = await pollUntil(
      "the Deployment to be scaled up",
      () => {
        const deployment = server.up.cluster.store.get("Deployment", "default", "sample-app");
        const n = (deployment?.spec as { replicas?: number } | undefined)?.replicas ?? 1;
        return n > 1 ? n : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.ok(replicas > 1);
  });

  test("the usage model counts the requests once: demand is what the pods answered, about 10/s", async () => {
    const workload = server.up.cluster.workload("default", "Deployment", "sample-app");
    assert.ok(workload?.trafficSent);
    // The demand of five 1 s scrapes (each the requests answered since the one before).
    const demands: number[] = [];
    let last = server.up.cluster.metrics.scrapeIndex;
    while (demands.length < 5) {
      await pollUntil("the next scrape", () => {
        server.up.driver.catchUp();
        return server.up.cluster.metrics.scrapeIndex > last ? true : undefined;
      });
      last = server.up.cluster.metrics.scrapeIndex;
      demands.push(server.up.cluster.metrics.demandRps(workload, server.up.cluster.now));
    }
    const mean = demands.reduce((a, b) => a + b, 0) / demands.length;
    // The model alone would be 10; the model plus the answered requests would be about 20.
    assert.ok(mean > 6 && mean < 14, `demand per scrape: ${demands.join(", ")}`);
  });
});

describe("horizon up --prometheus --scenario-traffic model", { skip }, () => {
  let server: TestServer;
  before(async () => {
    const prometheus = parsePrometheusFlags({ prometheus: true, prometheusScrapeInterval: "1s" });
    assert.ok(prometheus.ok && prometheus.value);
    server = await startTestServer({
      scenario: await fastBook(),
      prometheus: prometheus.value,
      listeners: true,
      scenarioTraffic: "model",
      ...testRanges(),
      syncPeriodMs: 2000,
    });
  });
  after(async () => {
    await server?.up.close();
  });

  test("the traffic stays modelled: the pod serves /metrics but counts no request", async () => {
    assert.equal(server.up.scenarioTraffic, null);
    const pod = await pollUntil(
      "the sample app's pod to serve /metrics",
      async () => {
        const seen = await podRequests(server);
        return seen.pod !== "" ? seen : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    // Past the spike's start (2 s) by 3 s: still no request reached the pod.
    await pollUntil(
      "the modelled load to start",
      () => {
        server.up.driver.catchUp();
        const workload = server.up.cluster.workload("default", "Deployment", "sample-app");
        return workload && server.up.cluster.now - server.up.cluster.startTime > 5000
          ? true
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    const after = await podRequests(server);
    assert.equal(after.pod, pod.pod);
    assert.equal(after.count, null);
    const workload = server.up.cluster.workload("default", "Deployment", "sample-app");
    assert.equal(workload?.trafficSent, false);
  });
});

describe("--scenario-traffic", () => {
  const base = { port: "6443", address: "127.0.0.1", controller: true };
  test("requests or model become the start option", () => {
    for (const mode of ["requests", "model"] as const) {
      const parsed = parseUpOptions({ ...base, scenarioTraffic: mode });
      assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
      assert.equal(parsed.value.scenarioTraffic, mode);
    }
    const unset = parseUpOptions(base);
    assert.ok(unset.ok);
    assert.equal(unset.value.scenarioTraffic, undefined, "the default follows --prometheus");
  });
  test("anything else is an error naming the flag", () => {
    assert.deepEqual(parseUpOptions({ ...base, scenarioTraffic: "real" }), {
      ok: false,
      error:
        '--scenario-traffic: must be requests (sent to the pods) or model (modelled only), got "real"',
    });
  });
  test("requests without the pods' listeners cannot start", async () => {
    const started = await startUp({
      port: 0,
      kubeconfigOut: null,
      insecureHttp: true,
      scenarioTraffic: "requests",
    });
    assert.deepEqual(started, {
      ok: false,
      error: "--scenario-traffic requests: needs the pods' listeners (the pod network)",
    });
  });
});
