import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rfc3339 } from "../../src/api/time.js";
import { handleMetricsApi } from "../../src/apiserver/metrics-api.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { applyScenarioEvent, clusterModelOf } from "../../src/sim/cluster.js";
import type { ScenarioSpec } from "../../src/sim/scenario-types.js";
import { at, deployment, scenario, T0, usage, WEB, workloadModel } from "../cluster/builders.js";

// Two ready pods of `web` sharing 40 rps: cpu 50m + 10m × 20 rps = 250m each, memory 100Mi.
function spec(): ScenarioSpec {
  return scenario({
    workloads: [
      workloadModel({
        usage: usage({
          cpu: { baseMilli: 50, milliPerRps: 10, limitMilli: null },
          memory: { baseBytes: 100 * 1024 * 1024, bytesPerRps: 0 },
        }),
        traffic: [{ type: "constant", rps: 40 }],
      }),
    ],
    metrics: {
      pods: [{ name: "http_requests", namespace: "default", workload: WEB, rateWindowMs: 60_000 }],
      object: [
        {
          name: "requests-per-second",
          namespace: "default",
          describedObject: {
            apiVersion: "networking.k8s.io/v1",
            kind: "Ingress",
            name: "main-route",
          },
          workload: WEB,
          rateWindowMs: 60_000,
        },
      ],
      external: [
        {
          name: "queue_messages_ready",
          namespace: "default",
          selector: { matchLabels: { queue: "worker_tasks" } },
          arrivals: [{ type: "constant", rps: 10 }],
          servedBy: WEB,
          serviceRatePerPod: 2,
          initialLength: 30,
        },
      ],
    },
  });
}

function running(): EmbeddedCluster {
  const c = new EmbeddedCluster({ model: clusterModelOf(spec()), startTime: T0 });
  c.create(deployment({ replicas: 2 }));
  c.advanceTo(at(180));
  return c;
}

function get(c: EmbeddedCluster, url: string, accept?: string): ApiResponse {
  const parsed = new URL(url, "http://127.0.0.1");
  const req: ApiRequest = {
    method: "GET",
    path: parsed.pathname,
    query: parsed.searchParams,
    headers: accept ? { accept } : {},
  };
  const res = handleMetricsApi(req, c);
  assert.ok(res && !(res instanceof Promise), `no synchronous answer for ${url}`);
  return res;
}

function body(res: ApiResponse): Record<string, unknown> {
  assert.ok("body" in res);
  return res.body as Record<string, unknown>;
}

function items(res: ApiResponse): Record<string, unknown>[] {
  assert.equal(res.status, 200, JSON.stringify(body(res)));
  return body(res).items as Record<string, unknown>[];
}

const c = running();
const scrape = rfc3339(c.metrics.lastScrapeAt);

describe("metrics.k8s.io PodMetrics", () => {
  test("the namespace list: one PodMetrics per scraped pod, as metrics-server shapes it", () => {
    const res = get(c, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods");
    const b = body(res);
    assert.equal(b.kind, "PodMetricsList");
    assert.equal(b.apiVersion, "metrics.k8s.io/v1beta1");
    assert.deepEqual(b.metadata, {});
    const list = items(res);
    assert.equal(list.length, 2);
    for (const item of list) {
      const metadata = item.metadata as Record<string, unknown>;
      assert.equal(item.kind, undefined, "list items carry no kind");
      assert.equal(metadata.namespace, "default");
      assert.deepEqual(
        metadata.labels,
        c.store.get("Pod", "default", metadata.name as string)?.metadata.labels,
      );
      assert.equal(item.timestamp, scrape);
      assert.equal(item.window, "15s");
      assert.deepEqual(item.containers, [{ name: "app", usage: { cpu: "250m", memory: "100Mi" } }]);
    }
    const names = list.map((i) => (i.metadata as { name: string }).name);
    assert.deepEqual(names, [...names].sort());
  });

  const selections = [
    { name: "a matching label selector", query: "?labelSelector=app%3Dweb", count: 2 },
    { name: "a label selector matching nothing", query: "?labelSelector=app%3Dother", count: 0 },
    { name: "set-based selector", query: "?labelSelector=app+in+(web,api)", count: 2 },
    { name: "all namespaces", query: "", path: "/apis/metrics.k8s.io/v1beta1/pods", count: 2 },
    {
      name: "another namespace",
      query: "",
      path: "/apis/metrics.k8s.io/v1beta1/namespaces/other/pods",
      count: 0,
    },
  ];
  for (const s of selections) {
    test(`list with ${s.name}`, () => {
      const path = s.path ?? "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods";
      assert.equal(items(get(c, `${path}${s.query}`)).length, s.count);
    });
  }

  test("a field selector on metadata.name picks one pod", () => {
    const first = (
      items(get(c, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"))[0]!.metadata as {
        name: string;
      }
    ).name;
    const res = get(
      c,
      `/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?fieldSelector=metadata.name%3D${first}`,
    );
    assert.deepEqual(
      items(res).map((i) => (i.metadata as { name: string }).name),
      [first],
    );
  });

  test("get one pod: a PodMetrics with kind and apiVersion", () => {
    const name = (
      items(get(c, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"))[0]!.metadata as {
        name: string;
      }
    ).name;
    const b = body(get(c, `/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/${name}`));
    assert.equal(b.kind, "PodMetrics");
    assert.equal(b.apiVersion, "metrics.k8s.io/v1beta1");
    assert.equal((b.metadata as { name: string }).name, name);
  });

  test("a missing pod is metrics-server's NotFound, naming namespace/name", () => {
    const res = get(c, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nosuch");
    assert.equal(res.status, 404);
    assert.deepEqual(body(res), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'podmetrics.metrics.k8s.io "default/nosuch" not found',
      reason: "NotFound",
      details: { name: "default/nosuch", group: "metrics.k8s.io", kind: "podmetrics" },
      code: 404,
    });
  });

  test("a malformed label selector is a 400", () => {
    const res = get(
      c,
      "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=%3D%3D%3D",
    );
    assert.equal(res.status, 400);
    assert.equal(body(res).reason, "BadRequest");
  });

  test("a pod is listed only once a scrape has seen its containers running", () => {
    const fresh = new EmbeddedCluster({ model: clusterModelOf(spec()), startTime: T0 });
    fresh.create(deployment({ replicas: 2 }));
    fresh.advanceTo(at(1));
    assert.equal(
      items(get(fresh, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods")).length,
      0,
    );
  });

  test("a Table when kubectl asks for one", () => {
    const b = body(
      get(
        c,
        "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods",
        "application/json;as=Table;v=v1;g=meta.k8s.io",
      ),
    );
    assert.equal(b.kind, "Table");
    assert.equal((b.rows as unknown[]).length, 2);
  });
});

describe("metrics.k8s.io NodeMetrics", () => {
  test("the node's usage is the sum of its scraped pods", () => {
    const list = items(get(c, "/apis/metrics.k8s.io/v1beta1/nodes"));
    assert.equal(list.length, 1);
    assert.deepEqual((list[0]!.metadata as { name: string }).name, "horizon-node");
    assert.deepEqual(list[0]!.usage, { cpu: "500m", memory: "200Mi" });
    assert.equal(list[0]!.window, "15s");
  });

  test("a missing node is a NotFound", () => {
    const res = get(c, "/apis/metrics.k8s.io/v1beta1/nodes/nosuch");
    assert.equal(res.status, 404);
    assert.equal(body(res).message, 'nodemetrics.metrics.k8s.io "nosuch" not found');
  });
});

describe("custom.metrics.k8s.io", () => {
  test("the resource list names each metric per resource", () => {
    const b = body(get(c, "/apis/custom.metrics.k8s.io/v1beta2"));
    assert.equal(b.kind, "APIResourceList");
    assert.equal(b.groupVersion, "custom.metrics.k8s.io/v1beta2");
    assert.deepEqual(
      (b.resources as { name: string; kind: string; verbs: string[] }[]).map((r) => [
        r.name,
        r.kind,
        r.verbs,
      ]),
      [
        ["pods/http_requests", "MetricValueList", ["get"]],
        ["ingresses.networking.k8s.io/requests-per-second", "MetricValueList", ["get"]],
      ],
    );
  });

  test("v1beta2 pods/* (sent as %2A): one MetricValue per pod", () => {
    const res = get(
      c,
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/%2A/http_requests?labelSelector=app%3Dweb",
    );
    const b = body(res);
    assert.equal(b.kind, "MetricValueList");
    assert.equal(b.apiVersion, "custom.metrics.k8s.io/v1beta2");
    const list = items(res);
    assert.equal(list.length, 2);
    for (const item of list) {
      assert.deepEqual(Object.keys(item), [
        "describedObject",
        "metric",
        "timestamp",
        "windowSeconds",
        "value",
      ]);
      const described = item.describedObject as Record<string, string>;
      assert.equal(described.kind, "Pod");
      assert.equal(described.apiVersion, "/v1");
      assert.equal(described.namespace, "default");
      assert.deepEqual(item.metric, { name: "http_requests", selector: null });
      assert.equal(item.windowSeconds, 60);
      assert.equal(item.value, "20");
      assert.equal(item.timestamp, scrape);
    }
  });

  test("v1beta1 keeps metricName and window", () => {
    const list = items(
      get(c, "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests"),
    );
    assert.equal(list.length, 2);
    assert.deepEqual(Object.keys(list[0]!), [
      "describedObject",
      "metricName",
      "timestamp",
      "window",
      "value",
      "selector",
    ]);
    assert.equal(list[0]!.metricName, "http_requests");
    assert.equal(list[0]!.window, 60);
  });

  test("one named pod", () => {
    const name = (
      items(get(c, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"))[0]!.metadata as {
        name: string;
      }
    ).name;
    const list = items(
      get(c, `/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/${name}/http_requests`),
    );
    assert.deepEqual(
      list.map((i) => (i.describedObject as { name: string }).name),
      [name],
    );
  });

  test("an Object metric of a described object", () => {
    for (const resource of ["ingresses.networking.k8s.io", "ingresses"]) {
      const list = items(
        get(
          c,
          `/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/${resource}/main-route/requests-per-second`,
        ),
      );
      assert.equal(list.length, 1);
      assert.deepEqual(list[0]!.describedObject, {
        kind: "Ingress",
        namespace: "default",
        name: "main-route",
        apiVersion: "networking.k8s.io/v1",
      });
      assert.equal(list[0]!.value, "40");
    }
  });

  const notFound = [
    {
      name: "unknown pods metric",
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/nope",
      message: "the server could not find the metric nope for pods",
    },
    {
      name: "pods metric of another namespace",
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/other/pods/*/http_requests",
      message: "the server could not find the metric http_requests for pods",
    },
    {
      name: "unknown object",
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/ingresses.networking.k8s.io/other/requests-per-second",
      message:
        "the server could not find the metric requests-per-second for ingresses.networking.k8s.io other",
    },
    {
      name: "root-scoped resource",
      path: "/apis/custom.metrics.k8s.io/v1beta2/nodes/n1/cpu_temp",
      message: "the server could not find the metric cpu_temp for nodes",
    },
  ];
  for (const n of notFound) {
    test(`404 for ${n.name}`, () => {
      const res = get(c, n.path);
      assert.equal(res.status, 404);
      assert.deepEqual(body(res), {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: n.message,
        reason: "NotFound",
        code: 404,
      });
    });
  }
});

describe("external.metrics.k8s.io", () => {
  test("a selected series: ExternalMetricValueList with its labels and the queue length", () => {
    const res = get(
      c,
      "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready?labelSelector=queue%3Dworker_tasks",
    );
    const b = body(res);
    assert.equal(b.kind, "ExternalMetricValueList");
    assert.equal(b.apiVersion, "external.metrics.k8s.io/v1beta1");
    const observed = c.metrics.observe(
      "default",
      {
        type: "External",
        external: { metric: { name: "queue_messages_ready" }, target: { type: "Value" } },
      },
      { requirements: [], text: "" },
    );
    assert.equal(observed.kind, "external");
    const list = items(res);
    assert.equal(list.length, 1);
    assert.deepEqual(Object.keys(list[0]!), ["metricName", "metricLabels", "timestamp", "value"]);
    assert.equal(list[0]!.metricName, "queue_messages_ready");
    assert.deepEqual(list[0]!.metricLabels, { queue: "worker_tasks" });
    if (observed.kind === "external") {
      assert.equal(list[0]!.timestamp, rfc3339(observed.timestamp));
      const milli = observed.valuesMilli[0]!;
      assert.equal(list[0]!.value, milli % 1000n === 0n ? String(milli / 1000n) : `${milli}m`);
    }
  });

  // Was a 404 "... for provided labels" (the Stackdriver adapter's wording); the reference
  // custom-metrics-apiserver provider and prometheus-adapter answer an empty list, which the
  // in-process pipeline models ("no metrics returned from external metrics API").
  const noSeries = [
    {
      name: "unknown metric",
      path: "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/nope",
    },
    {
      name: "selector matching no series",
      path: "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready?labelSelector=queue%3Dother",
    },
    {
      name: "another namespace",
      path: "/apis/external.metrics.k8s.io/v1beta1/namespaces/other/queue_messages_ready",
    },
  ];
  for (const n of noSeries) {
    test(`an empty list for ${n.name}`, () => {
      const res = get(c, n.path);
      assert.equal(res.status, 200);
      assert.deepEqual(body(res), {
        kind: "ExternalMetricValueList",
        apiVersion: "external.metrics.k8s.io/v1beta1",
        metadata: {},
        items: [],
      });
    });
  }

  test("the resource list names each metric", () => {
    const b = body(get(c, "/apis/external.metrics.k8s.io/v1beta1"));
    assert.deepEqual(b.resources, [
      {
        name: "queue_messages_ready",
        singularName: "",
        namespaced: true,
        kind: "ExternalMetricValueList",
        verbs: ["get"],
      },
    ]);
  });
});

describe("outages and routing", () => {
  // kube-aggregator's proxy answers for an unavailable APIService: http.Error's plain text.
  test("a metrics outage answers the aggregator's text/plain 503 on each API", () => {
    const down = running();
    applyScenarioEvent(
      {
        atMs: 180_000,
        type: "metricsOutage",
        durationMs: 60_000,
        apis: ["resource", "custom", "external"],
      },
      { cluster: down, controller: null, now: down.now },
    );
    for (const path of [
      "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods",
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests",
      "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready",
    ]) {
      const res = get(down, path);
      assert.deepEqual(res, {
        status: 503,
        headers: {
          "content-type": "text/plain; charset=utf-8",
          "x-content-type-options": "nosniff",
        },
        raw: "service unavailable\n",
      });
    }
    down.advanceTo(at(241));
    assert.equal(get(down, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods").status, 200);
  });

  const paths = [
    { name: "core API", path: "/api/v1/pods", handled: false },
    { name: "other group", path: "/apis/apps/v1/deployments", handled: false },
    { name: "unknown metrics version", path: "/apis/metrics.k8s.io/v1alpha1/pods", handled: true },
  ];
  for (const p of paths) {
    test(`routing: ${p.name}`, () => {
      const req: ApiRequest = {
        method: "GET",
        path: p.path,
        query: new URLSearchParams(),
        headers: {},
      };
      const res = handleMetricsApi(req, c);
      assert.equal(res !== null, p.handled);
      if (res && !(res instanceof Promise)) assert.equal(res.status, 404);
    });
  }

  test("writes are not allowed", () => {
    const req: ApiRequest = {
      method: "POST",
      path: "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods",
      query: new URLSearchParams(),
      headers: {},
    };
    const res = handleMetricsApi(req, c);
    assert.ok(res && !(res instanceof Promise));
    assert.equal(res.status, 405);
  });
});
