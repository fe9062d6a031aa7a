// The metrics port over the Kubernetes metrics APIs of the embedded cluster: what each metric
// source module asks (paths, selectors, API versions) and what it observes, and upstream's
// error texts for failures, outages and deadlines.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSelector, type Selector } from "../../src/api/selector.js";
import type { MetricSpec } from "../../src/api/types.js";
import { samplesByName } from "../../src/core/replica-calculator.js";
import type { MetricObservation } from "../../src/core/sources/types.js";
import { KubeMetricsPort } from "../../src/kube/metrics/index.js";
import type { KubeClient, KubeRequest, KubeResponse } from "../../src/kube/types.js";
import { at } from "../cluster/builders.js";
import { runningCluster } from "./metric-scenario.js";

function selector(text: string): Selector {
  const parsed = parseSelector(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.selector;
}

const WEB = selector("app=web");

const cpu: MetricSpec = {
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
};
const containerCpu = (container: string): MetricSpec => ({
  type: "ContainerResource",
  containerResource: {
    name: "cpu",
    container,
    target: { type: "Utilization", averageUtilization: 50 },
  },
});
const pods = (name: string): MetricSpec => ({
  type: "Pods",
  pods: { metric: { name }, target: { type: "AverageValue", averageValue: "10" } },
});
const object = (
  kind: string,
  name: string,
  apiVersion = "v1",
  metric = "requests-per-second",
): MetricSpec => ({
  type: "Object",
  object: {
    describedObject: { apiVersion, kind, name },
    metric: { name: metric },
    target: { type: "Value", value: "100" },
  },
});
const external = (name: string, labels?: Record<string, string>): MetricSpec => ({
  type: "External",
  external: {
    metric: { name, ...(labels ? { selector: { matchLabels: labels } } : {}) },
    target: { type: "Value", value: "10" },
  },
});

/** Wraps a client: `answer` may reply instead of the inner client (undefined: pass through). */
function intercept(
  inner: KubeClient,
  answer: (req: KubeRequest) => Promise<KubeResponse | undefined> | KubeResponse | undefined,
): KubeClient & { seen: KubeRequest[] } {
  const seen: KubeRequest[] = [];
  return {
    seen,
    async request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
      seen.push(req);
      const replaced = await answer(req);
      return (replaced ?? (await inner.request<T>(req))) as KubeResponse<T>;
    },
    watch: inner.watch.bind(inner),
  };
}

function samplesOf(observation: MetricObservation) {
  assert.ok(
    observation.kind === "resource" || observation.kind === "pods",
    JSON.stringify(observation),
  );
  return [...samplesByName(observation.samples).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

describe("Resource and ContainerResource (metrics.k8s.io/v1beta1)", () => {
  it("lists PodMetrics with the scale's selector and sums each pod's containers", async () => {
    const { client, cluster, calls } = await runningCluster();
    const port = new KubeMetricsPort({ client });
    const observed = await port.observe("default", cpu, WEB);
    const samples = samplesOf(observed);
    assert.equal(samples.length, 2);
    const scrape = Math.floor(cluster.metrics.lastScrapeAt / 1000) * 1000;
    for (const [, sample] of samples) {
      assert.deepEqual(sample, { value: 250, timestamp: scrape, window: 15_000 });
    }
    assert.deepEqual(calls.slice(-1), ["GET /apis/metrics.k8s.io/v1beta1/namespaces/default/pods"]);
  });

  const cases = [
    {
      name: "the named container",
      spec: containerCpu("app"),
      selector: "app=web",
      pods: 2,
      error: undefined,
    },
    {
      name: "a container no pod has (pods without it are left out, since v1.32)",
      spec: containerCpu("sidecar"),
      selector: "app=web",
      pods: 0,
      error: undefined,
    },
    {
      name: "a selector that matches no pod",
      spec: cpu,
      selector: "app=other",
      pods: 0,
      error: "no metrics returned from resource metrics API",
    },
    {
      name: "memory",
      spec: {
        type: "Resource",
        resource: { name: "memory", target: { type: "AverageValue", averageValue: "1Gi" } },
      },
      selector: "app=web",
      pods: 2,
      error: undefined,
    },
  ];
  for (const c of cases) {
    it(`observes ${c.name}`, async () => {
      const { client } = await runningCluster();
      const observed = await new KubeMetricsPort({ client }).observe(
        "default",
        c.spec as MetricSpec,
        selector(c.selector),
      );
      if (c.error) {
        assert.deepEqual(observed, { kind: "error", error: c.error });
        return;
      }
      assert.equal(samplesOf(observed).length, c.pods);
    });
  }

  it("an outage of metrics-server reads as the client's error", async () => {
    const { client, cluster } = await runningCluster();
    cluster.metrics.outage(["resource"], at(600));
    const observed = await new KubeMetricsPort({ client }).observe("default", cpu, WEB);
    // The embedded server now answers an outage as kube-aggregator does (plain-text 503), so
    // client-go's generic error names the request.
    assert.deepEqual(observed, {
      kind: "error",
      error:
        "unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)",
    });
  });

  it("an aggregator's plain-text 503 names the request, as client-go's generic error", async () => {
    const { client: inner } = await runningCluster();
    const client = intercept(inner, (req) =>
      req.path.includes("metrics.k8s.io")
        ? { status: 503, headers: {}, body: "service unavailable\n" }
        : undefined,
    );
    const observed = await new KubeMetricsPort({ client }).observe("default", cpu, WEB);
    assert.deepEqual(observed, {
      kind: "error",
      error:
        "unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)",
    });
  });

  it("a query that outlives its deadline fails with context deadline exceeded", async () => {
    const { client: inner } = await runningCluster();
    const client = intercept(inner, (req) =>
      req.path.includes("metrics") ? new Promise<undefined>(() => {}) : undefined,
    );
    const port = new KubeMetricsPort({ client, timeoutMs: 5_000 });
    const started = Date.now();
    const observed = await port.observe("default", cpu, WEB, { timeoutMs: 20 });
    assert.ok(Date.now() - started < 2_000);
    assert.deepEqual(observed, {
      kind: "error",
      error:
        'unable to fetch metrics from resource metrics API: Get "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb": context deadline exceeded',
    });
  });
});

describe("Pods (custom.metrics.k8s.io)", () => {
  it("asks v1beta2 for pods/*/METRIC with the pod selector, one sample per pod", async () => {
    const { client: inner, cluster } = await runningCluster();
    const client = intercept(inner, () => undefined);
    const observed = await new KubeMetricsPort({ client }).observe(
      "default",
      pods("http_requests"),
      WEB,
    );
    const samples = samplesOf(observed);
    assert.equal(samples.length, 2);
    const scrape = Math.floor(cluster.metrics.lastScrapeAt / 1000) * 1000;
    for (const [, sample] of samples)
      assert.deepEqual(sample, { value: 20_000, timestamp: scrape, window: 60_000 });
    const last = client.seen.at(-1)!;
    assert.equal(
      last.path,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests",
    );
    assert.deepEqual(last.query, { labelSelector: "app=web" });
  });

  it("sends the metric's selector as metricLabelSelector", async () => {
    const { client: inner } = await runningCluster();
    const client = intercept(inner, () => undefined);
    const spec: MetricSpec = {
      type: "Pods",
      pods: {
        metric: { name: "http_requests", selector: { matchLabels: { verb: "GET" } } },
        target: { type: "AverageValue", averageValue: "10" },
      },
    };
    await new KubeMetricsPort({ client }).observe("default", spec, WEB);
    assert.deepEqual(client.seen.at(-1)!.query, {
      labelSelector: "app=web",
      metricLabelSelector: "verb=GET",
    });
  });

  const versions = [
    {
      name: "only v1beta1 served",
      group: {
        versions: [{ groupVersion: "custom.metrics.k8s.io/v1beta1", version: "v1beta1" }],
        preferredVersion: { groupVersion: "custom.metrics.k8s.io/v1beta1", version: "v1beta1" },
      },
      path: "v1beta1",
      error: undefined,
    },
    {
      name: "a preferred version the client does not know",
      group: {
        versions: [
          { groupVersion: "custom.metrics.k8s.io/v2", version: "v2" },
          { groupVersion: "custom.metrics.k8s.io/v1beta1", version: "v1beta1" },
        ],
        preferredVersion: { groupVersion: "custom.metrics.k8s.io/v2", version: "v2" },
      },
      path: "v1beta1",
      error: undefined,
    },
    {
      name: "no custom metrics API registered",
      group: null,
      path: undefined,
      error:
        "unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered",
    },
    {
      name: "no version the client knows",
      group: {
        versions: [{ groupVersion: "custom.metrics.k8s.io/v2", version: "v2" }],
        preferredVersion: { groupVersion: "custom.metrics.k8s.io/v2", version: "v2" },
      },
      path: undefined,
      error:
        "unable to fetch metrics from custom metrics API: no known available metric versions found",
    },
  ];
  for (const c of versions) {
    it(`discovers the API version: ${c.name}`, async () => {
      const { client: inner } = await runningCluster();
      const client = intercept(inner, async (req) => {
        if (req.path !== "/apis") return undefined;
        const list = (await inner.request<{ groups: { name: string }[] }>(req)).body;
        const groups = list.groups.filter((g) => g.name !== "custom.metrics.k8s.io");
        if (c.group) groups.push({ name: "custom.metrics.k8s.io", ...c.group });
        return { status: 200, headers: {}, body: { ...list, groups } };
      });
      const observed = await new KubeMetricsPort({ client }).observe(
        "default",
        pods("http_requests"),
        WEB,
      );
      if (c.error) {
        assert.deepEqual(observed, { kind: "error", error: c.error });
        return;
      }
      // v1beta1 items carry metricName and window: read the same samples.
      assert.equal(samplesOf(observed).length, 2);
      for (const [, sample] of samplesOf(observed)) assert.equal(sample.window, 60_000);
      assert.ok(client.seen.at(-1)!.path.startsWith(`/apis/custom.metrics.k8s.io/${c.path}/`));
    });
  }

  it("an item without a window gets the default minute", async () => {
    const { client: inner } = await runningCluster();
    const client = intercept(inner, async (req) => {
      if (!req.path.includes("/pods/*/")) return undefined;
      const answer = await inner.request<{ items: Record<string, unknown>[] }>(req);
      const items = answer.body.items.map(({ windowSeconds: _w, ...rest }) => rest);
      return { ...answer, body: { ...answer.body, items } };
    });
    const observed = await new KubeMetricsPort({ client }).observe(
      "default",
      pods("http_requests"),
      WEB,
    );
    for (const [, sample] of samplesOf(observed)) assert.equal(sample.window, 60_000);
  });

  it("an unknown metric is the server's NotFound, prefixed as upstream", async () => {
    const { client } = await runningCluster();
    const observed = await new KubeMetricsPort({ client }).observe("default", pods("nope"), WEB);
    assert.deepEqual(observed, {
      kind: "error",
      error:
        "unable to fetch metrics from custom metrics API: the server could not find the metric nope for pods",
    });
  });
});

describe("Object (custom.metrics.k8s.io)", () => {
  const cases = [
    {
      name: "a described Service, mapped to `services` through discovery",
      spec: object("Service", "main-route"),
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/services/main-route/requests-per-second",
      error: undefined,
    },
    {
      name: "a described object with no metric",
      spec: object("Service", "other"),
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/services/other/requests-per-second",
      error:
        "unable to fetch metrics from custom metrics API: the server could not find the metric requests-per-second for services other",
    },
    {
      name: "a described Namespace: the root-scoped metrics of the HPA's namespace",
      spec: object("Namespace", "ignored"),
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/metrics/requests-per-second",
      error:
        "unable to fetch metrics from custom metrics API: the server could not find the metric requests-per-second for namespaces default",
    },
    {
      // Gateway API kinds are not served (Ingress is).
      name: "a kind discovery does not know",
      spec: object("Gateway", "main-route", "gateway.networking.k8s.io/v1"),
      path: undefined,
      error:
        'unable to fetch metrics from custom metrics API: unable to map kind Gateway.gateway.networking.k8s.io to resource: no matches for kind "Gateway" in group "gateway.networking.k8s.io"',
    },
  ];
  for (const c of cases) {
    it(`observes ${c.name}`, async () => {
      const { client: inner, cluster } = await runningCluster();
      const client = intercept(inner, () => undefined);
      const observed = await new KubeMetricsPort({ client }).observe("default", c.spec, WEB);
      if (c.path) assert.equal(client.seen.at(-1)!.path, c.path);
      else {
        const asked = client.seen.filter((r) => r.path.includes("/namespaces/default/gateways"));
        assert.deepEqual(asked, [], "no request for the unmapped kind");
      }
      if (c.error) {
        assert.deepEqual(observed, { kind: "error", error: c.error });
        return;
      }
      assert.deepEqual(observed, {
        kind: "object",
        valueMilli: 40_000n,
        timestamp: Math.floor(cluster.metrics.lastScrapeAt / 1000) * 1000,
      });
    });
  }

  it("more than one item is an error", async () => {
    const { client: inner } = await runningCluster();
    const client = intercept(inner, async (req) => {
      if (!req.path.endsWith("/main-route/requests-per-second")) return undefined;
      const answer = await inner.request<{ items: unknown[] }>(req);
      return {
        ...answer,
        body: { ...answer.body, items: [...answer.body.items, ...answer.body.items] },
      };
    });
    const observed = await new KubeMetricsPort({ client }).observe(
      "default",
      object("Service", "main-route"),
      WEB,
    );
    assert.deepEqual(observed, {
      kind: "error",
      error:
        "unable to fetch metrics from custom metrics API: the custom metrics API server returned 2 results when we asked for exactly one",
    });
  });
});

describe("External (external.metrics.k8s.io/v1beta1)", () => {
  it("lists the metric's series with its selector, values in milli-units", async () => {
    const { client: inner, cluster } = await runningCluster();
    const client = intercept(inner, () => undefined);
    const spec = external("queue_messages_ready", { queue: "worker_tasks" });
    const observed = await new KubeMetricsPort({ client }).observe("default", spec, WEB);
    const direct = cluster.metrics.observe("default", spec, WEB);
    assert.ok(observed.kind === "external" && direct.kind === "external");
    assert.deepEqual(observed.valuesMilli, direct.valuesMilli);
    assert.equal(observed.valuesMilli.length, 1);
    assert.equal(observed.timestamp, Math.floor(direct.timestamp / 1000) * 1000);
    const last = client.seen.at(-1)!;
    assert.equal(
      last.path,
      "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready",
    );
    assert.deepEqual(last.query, { labelSelector: "queue=worker_tasks" });
  });

  const failures = [
    {
      // The embedded server answers an empty list for a metric with no series (as the
      // reference custom-metrics-apiserver provider does; it used to answer a 404).
      name: "a metric the embedded server does not have",
      spec: external("nope"),
      answer: undefined,
      error: "no metrics returned from external metrics API",
    },
    {
      // prometheus-adapter's answer for a metric none of its rules names.
      name: "an adapter's 404 Status",
      spec: external("nope"),
      answer: {
        status: 404,
        headers: {},
        body: {
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          message: "the server could not find the metric nope for namespaces",
          reason: "NotFound",
          code: 404,
        },
      },
      error:
        "unable to fetch metrics from external metrics API: the server could not find the metric nope for namespaces",
    },
    {
      name: "an empty list",
      spec: external("queue_messages_ready"),
      answer: { status: 200, headers: {}, body: { kind: "ExternalMetricValueList", items: [] } },
      error: "no metrics returned from external metrics API",
    },
    {
      name: "a plain-text 503",
      spec: external("queue_messages_ready"),
      answer: { status: 503, headers: {}, body: "service unavailable" },
      error:
        "unable to fetch metrics from external metrics API: the server is currently unable to handle the request (get queue_messages_ready.external.metrics.k8s.io)",
    },
  ];
  for (const c of failures) {
    it(`reports ${c.name}`, async () => {
      const { client: inner } = await runningCluster();
      const client = intercept(inner, (req) =>
        req.path.includes("external.metrics") ? c.answer : undefined,
      );
      const observed = await new KubeMetricsPort({ client }).observe("default", c.spec, WEB);
      assert.deepEqual(observed, { kind: "error", error: c.error });
    });
  }
});

describe("the registry", () => {
  it("answers an unknown metric source type as the in-process port does", async () => {
    const { client } = await runningCluster();
    const observed = await new KubeMetricsPort({ client }).observe(
      "default",
      { type: "Nope" },
      WEB,
    );
    assert.deepEqual(observed, { kind: "error", error: 'unknown metric source type "Nope"' });
  });
});
