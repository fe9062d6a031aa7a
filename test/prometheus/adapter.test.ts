// The Prometheus adapter against a real Prometheus serving known, backfilled series, with the
// objects it lists from the embedded API server (in process): the book's configuration
// verbatim, prometheus-adapter's documented default rules, naming rules, resource overrides,
// label matchers, external rules, and its errors.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { generateServingCertificate } from "../../src/apiserver/tls.js";
import { adapterCommand } from "../../src/cli/adapter.js";
import type { KubeClient } from "../../src/kube/types.js";
import { PrometheusAdapter } from "../../src/prometheus/adapter.js";
import {
  type AdapterConfig,
  BOOK_ADAPTER_CONFIG,
  readAdapterConfig,
} from "../../src/prometheus/adapter-config.js";
import { serveAdapter } from "../../src/prometheus/server.js";
import { inProcessClient } from "../kube/harness.js";
import {
  counter,
  gauge,
  prometheusSkip,
  type RunningPrometheus,
  startPrometheus,
} from "./real-prometheus.js";

const T0 = 1_790_000_000;
const END = T0 + 3600;
const NOW = (T0 + 1800) * 1000;

const SERIES = [
  // sample-app-a: 1 GET/s and 0.5 POST/s; sample-app-b: 0.25/s; sample-app-c in another namespace.
  counter(
    "http_requests_total",
    { namespace: "default", pod: "sample-app-a", method: "GET" },
    T0,
    END,
    1,
  ),
  counter(
    "http_requests_total",
    { namespace: "default", pod: "sample-app-a", method: "POST" },
    T0,
    END,
    0.5,
  ),
  counter(
    "http_requests_total",
    { namespace: "default", pod: "sample-app-b", method: "GET" },
    T0,
    END,
    0.25,
  ),
  counter(
    "http_requests_total",
    { namespace: "other", pod: "sample-app-c", method: "GET" },
    T0,
    END,
    9,
  ),
  // cAdvisor-style container series, for the default rules.
  counter(
    "container_cpu_usage_seconds_total",
    { namespace: "default", pod: "sample-app-a", container: "app" },
    T0,
    END,
    0.25,
  ),
  gauge(
    "container_memory_working_set_bytes",
    { namespace: "default", pod: "sample-app-a", container: "app" },
    T0,
    END,
    64 * 1024 * 1024,
  ),
  gauge("nginx_connections", { namespace: "default", service: "web" }, T0, END, 42),
  gauge("replicas_wanted", { namespace: "default", deployment: "sample-app" }, T0, END, 3),
  gauge("queue_messages_ready", { namespace: "default", queue: "worker_tasks" }, T0, END, 30),
  gauge(
    "scrape_samples_scraped",
    { namespace: "default", servicemonitor: "sample-app" },
    T0,
    END,
    7,
  ),
  gauge("queue_messages_ready", { namespace: "default", queue: "other_tasks" }, T0, END, 5),
];

/** prometheus-adapter's documented default configuration (deploy/manifests/config-map.yaml). */
const DEFAULT_RULES = `rules:
- seriesQuery: '{__name__=~"^container_.*",container!="POD",namespace!="",pod!=""}'
  seriesFilters: []
  resources:
    overrides:
      namespace:
        resource: namespace
      pod:
        resource: pod
  name:
    matches: ^container_(.*)_seconds_total$
    as: ""
  metricsQuery: sum(rate(<<.Series>>{<<.LabelMatchers>>,container!="POD"}[5m])) by (<<.GroupBy>>)
- seriesQuery: '{__name__=~"^container_.*",container!="POD",namespace!="",pod!=""}'
  seriesFilters:
  - isNot: ^container_.*_seconds_total$
  resources:
    overrides:
      namespace:
        resource: namespace
      pod:
        resource: pod
  name:
    matches: ^container_(.*)_total$
    as: ""
  metricsQuery: sum(rate(<<.Series>>{<<.LabelMatchers>>,container!="POD"}[5m])) by (<<.GroupBy>>)
- seriesQuery: '{__name__=~"^container_.*",container!="POD",namespace!="",pod!=""}'
  seriesFilters:
  - isNot: ^container_.*_total$
  resources:
    overrides:
      namespace:
        resource: namespace
      pod:
        resource: pod
  name:
    matches: ^container_(.*)$
    as: ""
  metricsQuery: sum(<<.Series>>{<<.LabelMatchers>>,container!="POD"}) by (<<.GroupBy>>)
- seriesQuery: '{namespace!="",__name__!~"^container_.*"}'
  seriesFilters:
  - isNot: .*_total$
  resources:
    template: <<.Resource>>
  name:
    matches: ""
    as: ""
  metricsQuery: sum(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)
- seriesQuery: '{namespace!="",__name__!~"^container_.*"}'
  seriesFilters:
  - isNot: .*_seconds_total
  resources:
    template: <<.Resource>>
  name:
    matches: ^(.*)_total$
    as: ""
  metricsQuery: sum(rate(<<.Series>>{<<.LabelMatchers>>}[5m])) by (<<.GroupBy>>)
- seriesQuery: '{namespace!="",__name__!~"^container_.*"}'
  seriesFilters: []
  resources:
    template: <<.Resource>>
  name:
    matches: ^(.*)_seconds_total$
    as: ""
  metricsQuery: sum(rate(<<.Series>>{<<.LabelMatchers>>}[5m])) by (<<.GroupBy>>)
`;

function config(text: string): AdapterConfig {
  const read = readAdapterConfig(text);
  if (!read.ok) assert.fail(read.errors.join("\n"));
  return read.config;
}

async function createPod(client: KubeClient, namespace: string, name: string) {
  const response = await client.request({
    method: "POST",
    path: `/api/v1/namespaces/${namespace}/pods`,
    body: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, labels: { app: "sample-app" } },
      spec: { containers: [{ name: "app", image: "sample-app" }] },
    },
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
}

interface ItemShape {
  describedObject: { name: string; namespace?: string; kind: string; apiVersion: string };
  value: string;
  metric?: { name: string; selector?: unknown };
  metricName?: string;
  timestamp: string;
}

describe("the Prometheus adapter against a real Prometheus", {
  skip: prometheusSkip("adapter"),
}, () => {
  let prometheus: RunningPrometheus;
  let kube: KubeClient;
  const adapterWith = async (text: string, url = prometheus.url) => {
    const adapter = new PrometheusAdapter({
      prometheus: { url },
      config: config(text),
      kube,
      now: () => NOW,
      maxAgeMs: 10 * 60_000,
    });
    const refreshed = await adapter.refresh();
    assert.deepEqual(refreshed, { ok: true });
    return adapter;
  };
  const get = async (adapter: PrometheusAdapter, path: string, query = "") => {
    const response = await adapter.handle("GET", path, new URLSearchParams(query));
    assert.ok(response, `${path} is the adapter's`);
    return response as { status: number; body: Record<string, unknown> };
  };
  const items = (body: Record<string, unknown>) =>
    (body.items as ItemShape[]).map((i) => [i.describedObject.name, i.value]);

  before(async () => {
    prometheus = await startPrometheus({ series: SERIES });
    kube = inProcessClient().client;
    await kube.request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } },
    });
    for (const name of ["sample-app-a", "sample-app-b", "sample-app-d"]) {
      await createPod(kube, "default", name);
    }
    await createPod(kube, "other", "sample-app-c");
  });
  after(async () => {
    await prometheus?.stop();
  });

  test("the book's configuration: http_requests per pod, as kubectl get --raw reads it", async () => {
    const adapter = await adapterWith(BOOK_ADAPTER_CONFIG);
    assert.deepEqual(adapter.customMetrics(), ["namespaces/http_requests", "pods/http_requests"]);
    const list = await get(adapter, "/apis/custom.metrics.k8s.io/v1beta1");
    assert.deepEqual(
      (list.body.resources as { name: string; namespaced: boolean }[]).map((r) => [
        r.name,
        r.namespaced,
      ]),
      [
        ["namespaces/http_requests", false],
        ["pods/http_requests", true],
      ],
    );
    const { status, body } = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests",
      "labelSelector=app%3Dsample-app",
    );
    assert.equal(status, 200);
    assert.equal(body.kind, "MetricValueList");
    assert.equal(body.apiVersion, "custom.metrics.k8s.io/v1beta1");
    // sample-app-d has no series: left out; sample-app-c is in another namespace.
    assert.deepEqual(items(body), [
      ["sample-app-a", "1500m"],
      ["sample-app-b", "250m"],
    ]);
    const first = (body.items as ItemShape[])[0]!;
    assert.deepEqual(first.describedObject, {
      kind: "Pod",
      namespace: "default",
      name: "sample-app-a",
      apiVersion: "/v1",
    });
    assert.equal(first.metricName, "http_requests");
    assert.equal(first.timestamp, new Date(NOW).toISOString().replace(/\.\d+Z$/, "Z"));

    const v2 = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/sample-app-b/http_requests",
    );
    assert.equal(v2.status, 200);
    assert.deepEqual(items(v2.body), [["sample-app-b", "250m"]]);
    assert.deepEqual((v2.body.items as ItemShape[])[0]!.metric, { name: "http_requests" });
  });

  test("a metric label selector becomes label matchers", async () => {
    const adapter = await adapterWith(BOOK_ADAPTER_CONFIG);
    const { body } = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests",
      "labelSelector=app%3Dsample-app&metricLabelSelector=method%3DGET",
    );
    assert.deepEqual(items(body), [
      ["sample-app-a", "1"],
      ["sample-app-b", "250m"],
    ]);
    assert.deepEqual((body.items as ItemShape[])[0]!.metric, {
      name: "http_requests",
      selector: { matchLabels: { method: "GET" } },
    });
    const notGet = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests",
      "labelSelector=app%3Dsample-app&metricLabelSelector=method%20notin%20(GET)",
    );
    assert.deepEqual(items(notGet.body), [["sample-app-a", "500m"]]);
  });

  test("not found: an unknown metric, a pod without data, no objects selected", async () => {
    const adapter = await adapterWith(BOOK_ADAPTER_CONFIG);
    const cases: [string, string, string][] = [
      [
        "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/no_such_metric",
        "labelSelector=app%3Dsample-app",
        "the server could not find the metric no_such_metric for pods",
      ],
      [
        "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/sample-app-d/http_requests",
        "",
        "the server could not find the metric http_requests for pods sample-app-d",
      ],
      [
        "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests",
        "labelSelector=app%3Dnothing",
        "the server could not find the metric http_requests for pods",
      ],
    ];
    for (const [path, query, message] of cases) {
      const { status, body } = await get(adapter, path, query);
      assert.equal(status, 404, path);
      assert.deepEqual(body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message,
        reason: "NotFound",
        code: 404,
      });
    }
  });

  test("prometheus-adapter's default rules: container metrics and the <<.Resource>> template", async () => {
    const adapter = await adapterWith(DEFAULT_RULES);
    const metrics = adapter.customMetrics();
    for (const expected of [
      "pods/cpu_usage",
      "pods/memory_working_set_bytes",
      "pods/http_requests",
      "services/nginx_connections",
      "deployments.apps/replicas_wanted",
    ]) {
      assert.ok(metrics.includes(expected), `${expected} in ${metrics.join(", ")}`);
    }
    const cpu = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/sample-app-a/cpu_usage",
    );
    assert.deepEqual(items(cpu.body), [["sample-app-a", "250m"]]);
    const memory = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/sample-app-a/memory_working_set_bytes",
    );
    assert.deepEqual(items(memory.body), [["sample-app-a", String(64 * 1024 * 1024)]]);
    const service = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/services/web/nginx_connections",
    );
    assert.equal(service.status, 200, JSON.stringify(service.body));
    assert.deepEqual(items(service.body), [["web", "42"]]);
    assert.deepEqual((service.body.items as ItemShape[])[0]!.describedObject, {
      kind: "Service",
      namespace: "default",
      name: "web",
      apiVersion: "/v1",
    });
    const deployment = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/deployments.apps/sample-app/replicas_wanted",
    );
    assert.deepEqual(items(deployment.body), [["sample-app", "3"]]);
    assert.equal((deployment.body.items as ItemShape[])[0]!.describedObject.apiVersion, "apps/v1");
  });

  test("naming rules: name.as with numbered and named groups; resource overrides with a group", async () => {
    const adapter = await adapterWith(`rules:
- seriesQuery: 'http_requests_total{namespace!="",pod!=""}'
  resources:
    overrides:
      namespace: {resource: namespace}
      pod: {resource: pods}
  name: {matches: "^(?P<base>.*)_total$", as: "\${base}_per_second"}
  metricsQuery: sum(rate(<<.Series>>{<<.LabelMatchers>>}[2m])) by (<<.GroupBy>>)
- seriesQuery: 'replicas_wanted'
  resources:
    overrides:
      namespace: {resource: namespace}
      deployment: {group: apps, resource: deployment}
  name: {matches: "^replicas_(.*)$", as: "desired_$1"}
  metricsQuery: max(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)
`);
    assert.deepEqual(adapter.customMetrics(), [
      "deployments.apps/desired_wanted",
      "namespaces/desired_wanted",
      "namespaces/http_requests_per_second",
      "pods/http_requests_per_second",
    ]);
    const pods = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests_per_second",
      "labelSelector=app%3Dsample-app",
    );
    assert.deepEqual(items(pods.body), [
      ["sample-app-a", "1500m"],
      ["sample-app-b", "250m"],
    ]);
    const deployment = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/deployments.apps/sample-app/desired_wanted",
    );
    assert.deepEqual(items(deployment.body), [["sample-app", "3"]]);
  });

  test("a custom resource the cluster serves: found through its discovery", async () => {
    const created = await kube.request({
      method: "POST",
      path: "/apis/monitoring.coreos.com/v1/namespaces/default/servicemonitors",
      body: {
        apiVersion: "monitoring.coreos.com/v1",
        kind: "ServiceMonitor",
        metadata: { name: "sample-app", labels: { app: "sample-app" } },
        spec: { selector: { matchLabels: { app: "sample-app" } }, endpoints: [{ port: "http" }] },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const adapter = await adapterWith(`rules:
- seriesQuery: 'scrape_samples_scraped{namespace!=""}'
  resources:
    overrides:
      namespace: {resource: namespace}
      servicemonitor: {group: monitoring.coreos.com, resource: servicemonitor}
  metricsQuery: max(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)
`);
    assert.ok(
      adapter
        .customMetrics()
        .includes("servicemonitors.monitoring.coreos.com/scrape_samples_scraped"),
      adapter.customMetrics().join(", "),
    );
    const { status, body } = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/servicemonitors.monitoring.coreos.com/*/scrape_samples_scraped",
      "labelSelector=app%3Dsample-app",
    );
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(items(body), [["sample-app", "7"]]);
    assert.deepEqual((body.items as ItemShape[])[0]!.describedObject, {
      kind: "ServiceMonitor",
      namespace: "default",
      name: "sample-app",
      apiVersion: "monitoring.coreos.com/v1",
    });
  });

  test("external rules: the label selector and the namespace become matchers", async () => {
    const adapter = await adapterWith(`externalRules:
- seriesQuery: '{__name__="queue_messages_ready",queue!=""}'
  resources:
    overrides:
      namespace: {resource: namespace}
  metricsQuery: sum(<<.Series>>{<<.LabelMatchers>>}) by (queue)
`);
    assert.deepEqual(adapter.externalMetrics(), ["queue_messages_ready"]);
    const { status, body } = await get(
      adapter,
      "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready",
      "labelSelector=queue%3Dworker_tasks",
    );
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.kind, "ExternalMetricValueList");
    assert.deepEqual(
      (body.items as { metricName: string; metricLabels: unknown; value: string }[]).map((i) => [
        i.metricName,
        i.metricLabels,
        i.value,
      ]),
      [["queue_messages_ready", { queue: "worker_tasks" }, "30"]],
    );
    // Another namespace has no such series: an empty list, as the adapter answers an empty vector.
    const other = await get(
      adapter,
      "/apis/external.metrics.k8s.io/v1beta1/namespaces/other/queue_messages_ready",
    );
    assert.deepEqual(other.body.items, []);
    const unknown = await get(
      adapter,
      "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/nope",
    );
    assert.equal(unknown.status, 404);
  });

  test("a PromQL error is the adapter's InternalError, not Prometheus' text", async () => {
    const adapter = await adapterWith(`rules:
- seriesQuery: 'http_requests_total{namespace!="",pod!=""}'
  resources: {overrides: {namespace: {resource: namespace}, pod: {resource: pod}}}
  metricsQuery: sum(rate(<<.Series>>{<<.LabelMatchers>>}[1m]) by (<<.GroupBy>>)
`);
    const { status, body } = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests_total",
      "labelSelector=app%3Dsample-app",
    );
    assert.equal(status, 500);
    assert.equal(body.reason, "InternalError");
    assert.equal(body.message, "Internal error occurred: unable to fetch metrics");
  });

  test("served over HTTP: discovery documents and the metric paths", async () => {
    const adapter = await adapterWith(BOOK_ADAPTER_CONFIG);
    const server = await serveAdapter({ adapter, address: "127.0.0.1", port: 0 });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const groups = (await (await fetch(`${base}/apis`)).json()) as { groups: { name: string }[] };
      assert.deepEqual(
        groups.groups.map((g) => g.name),
        ["custom.metrics.k8s.io", "external.metrics.k8s.io"],
      );
      const group = (await (await fetch(`${base}/apis/custom.metrics.k8s.io`)).json()) as {
        preferredVersion: { version: string };
      };
      assert.equal(group.preferredVersion.version, "v1beta2");
      const response = await fetch(
        `${base}/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/%2A/http_requests?labelSelector=app%3Dsample-app`,
      );
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "application/json");
      assert.deepEqual(items((await response.json()) as Record<string, unknown>), [
        ["sample-app-a", "1500m"],
        ["sample-app-b", "250m"],
      ]);
      assert.equal((await fetch(`${base}/readyz`)).status, 200);
    } finally {
      await server.close();
    }
  });

  test("over HTTPS with a client CA: the API needs the aggregator's certificate, health does not", async () => {
    const adapter = await adapterWith(BOOK_ADAPTER_CONFIG);
    const serving = await generateServingCertificate();
    const clientCa = await generateServingCertificate();
    assert.ok(serving.ok && clientCa.ok);
    const server = await serveAdapter({
      adapter,
      address: "127.0.0.1",
      port: 0,
      tls: { cert: serving.value.cert, key: serving.value.key },
      clientCa: clientCa.value.caCert,
    });
    const getStatus = (path: string) =>
      new Promise<number>((resolve, reject) => {
        https
          .get({ host: "127.0.0.1", port: server.port, path, ca: serving.value.caCert }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on("error", reject);
      });
    try {
      assert.equal(await getStatus("/apis/custom.metrics.k8s.io/v1beta1"), 401);
      assert.equal(await getStatus("/healthz"), 200);
    } finally {
      await server.close();
    }
  });

  test("horizon adapter: bad flags and a bad configuration are exit 2 with the field named", async () => {
    const dir = mkdtempSync(join(tmpdir(), "horizon-adapter-"));
    const bad = join(dir, "bad.yaml");
    writeFileSync(
      bad,
      `rules:\n- seriesQuery: x\n  name: {matches: "(oops"}\n  metricsQuery: <<.Series>>\n`,
    );
    const run = async (options: Partial<Parameters<typeof adapterCommand>[0]>) => {
      const lines: string[] = [];
      const code = await adapterCommand(
        { bindAddress: "127.0.0.1", securePort: "0", metricsRelistInterval: "1m", ...options },
        { out: (l) => lines.push(l), err: (l) => lines.push(l), stopped: Promise.resolve() },
      );
      return { code, text: lines.join("\n") };
    };
    assert.deepEqual(await run({ config: bad }), {
      code: 2,
      text: "error: --prometheus-url is required (e.g. http://prometheus.monitoring:9090)",
    });
    const config = await run({ prometheusUrl: prometheus.url, config: bad });
    assert.equal(config.code, 2);
    assert.match(
      config.text,
      /^error: .*bad\.yaml: rules\[0\]\.name\.matches: invalid regular expression "\(oops"/,
    );
    const missing = await run({ prometheusUrl: prometheus.url, config: join(dir, "nope.yaml") });
    assert.equal(missing.code, 2);
    assert.match(missing.text, /--config .*nope\.yaml: no such file/);
    const good = join(dir, "book.yaml");
    writeFileSync(good, BOOK_ADAPTER_CONFIG);
    const relist = await run({
      prometheusUrl: prometheus.url,
      config: good,
      metricsRelistInterval: "often",
    });
    assert.equal(relist.code, 2);
    assert.match(relist.text, /^error: --metrics-relist-interval: time: invalid duration "often"/);
  });

  test("Prometheus down: discovery keeps the last metrics and a query is an InternalError", async () => {
    const own = await startPrometheus({ series: SERIES });
    const adapter = await adapterWith(BOOK_ADAPTER_CONFIG, own.url);
    await own.stop();
    const refreshed = await adapter.refresh();
    assert.equal(refreshed.ok, false);
    assert.match(
      refreshed.ok ? "" : refreshed.error,
      /unable to update list of all metrics: .*connection refused/,
    );
    assert.deepEqual(adapter.customMetrics(), ["namespaces/http_requests", "pods/http_requests"]);
    const { status, body } = await get(
      adapter,
      "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests",
      "labelSelector=app%3Dsample-app",
    );
    assert.equal(status, 500);
    assert.equal(body.message, "Internal error occurred: unable to fetch metrics");
  });
});

describe("the adapter's configuration errors", () => {
  const cases: { name: string; text: string; expected: RegExp }[] = [
    {
      name: "an invalid regex in name.matches",
      text: `rules:\n- seriesQuery: x\n  name: {matches: "^(.*_total"}\n  metricsQuery: <<.Series>>\n`,
      expected: /^rules\[0\]\.name\.matches: invalid regular expression "\^\(\.\*_total": /,
    },
    {
      name: "an invalid regex in a series filter",
      text: `rules:\n- seriesQuery: x\n  seriesFilters: [{isNot: "[a-"}]\n  metricsQuery: <<.Series>>\n`,
      expected: /^rules\[0\]\.seriesFilters\[0\]\.isNot: invalid regular expression/,
    },
    {
      name: "a filter with both is and isNot",
      text: `rules:\n- seriesQuery: x\n  seriesFilters: [{is: a, isNot: b}]\n  metricsQuery: <<.Series>>\n`,
      expected:
        /^rules\[0\]\.seriesFilters\[0\]: cannot have both an `is` \("a"\) and `isNot` \("b"\)/,
    },
    {
      name: "an unclosed template action",
      text: `rules:\n- seriesQuery: x\n  metricsQuery: "sum(<<.Series{<<.LabelMatchers>>})"\n`,
      expected: /^rules\[0\]\.metricsQuery: unsupported action <<\.Series\{<<\.LabelMatchers>>/,
    },
    {
      name: "an unknown template field",
      text: `externalRules:\n- seriesQuery: x\n  metricsQuery: "sum(<<.Serie>>)"\n`,
      expected:
        /^externalRules\[0\]\.metricsQuery: can't evaluate field Serie in "sum\(<<\.Serie>>\)"/,
    },
    {
      name: "a resource template without <<.Resource>>",
      text: `rules:\n- seriesQuery: x\n  resources: {template: "kube_<<.Group>>"}\n  metricsQuery: <<.Series>>\n`,
      expected: /^rules\[0\]\.resources\.template: must use <<\.Resource>>/,
    },
    {
      name: "two capture groups and no as",
      text: `rules:\n- seriesQuery: x\n  name: {matches: "^(a)_(b)$"}\n  metricsQuery: <<.Series>>\n`,
      expected: /^rules\[0\]\.name\.as: Required value: .* has 2 capture groups/,
    },
    {
      name: "a missing metricsQuery and an unknown field",
      text: `rules:\n- seriesQuery: x\n  metricQuery: y\n`,
      expected:
        /rules\[0\]\.metricsQuery: Required value[\s\S]*rules\[0\]: unknown field "metricQuery"/,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const read = readAdapterConfig(c.text);
      assert.equal(read.ok, false);
      assert.match(read.ok ? "" : read.errors.join("\n"), c.expected);
    });
  }

  test("the book's configuration and the default rules read without errors", () => {
    for (const text of [BOOK_ADAPTER_CONFIG, DEFAULT_RULES]) {
      const read = readAdapterConfig(text);
      assert.ok(read.ok, read.ok ? "" : read.errors.join("\n"));
    }
  });
});
