// `horizon controller --shared-reads-max-age`: scales of the kinds Horizon knows come from
// watches, and one PodMetrics list per namespace serves the HPAs synced within the max age —
// fewer API requests, the same answers and the same decisions as upstream's reads on the same
// cluster (the port contract suites run this adapter too: ports-contract.test.ts).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { HorizontalPodAutoscaler, MetricSpec } from "../../src/api/types.js";
import type { ControllerPorts } from "../../src/controller/ports.js";
import { ControllerMemory, reconcileHpa } from "../../src/controller/reconcile.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { parseSelector, type Selector, selectorMatches } from "../../src/core/selector.js";
import { KubeMetricsPort } from "../../src/kube/metrics/index.js";
import { IndexedPodMetrics, podMetricsItems } from "../../src/kube/metrics/resource.js";
import { PodInformer } from "../../src/kube/pods.js";
import { KubeScaleTargetPort } from "../../src/kube/scale.js";
import { InformerScaleTargetPort } from "../../src/kube/scale-informer.js";
import type { Harness } from "./harness.js";
import { runningCluster } from "./metric-scenario.js";

const stops: (() => Promise<void>)[] = [];
after(() => Promise.all(stops.splice(0).map((stop) => stop())));

const BACKOFF = { initialMs: 10, maxMs: 50, jitter: 0 };

function selector(text: string): Selector {
  const parsed = parseSelector(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.selector;
}

async function watchedScales(h: Harness): Promise<InformerScaleTargetPort> {
  const port = new InformerScaleTargetPort({
    client: h.client,
    subresource: new KubeScaleTargetPort({ client: h.client }),
    backoff: BACKOFF,
  });
  port.start();
  stops.push(() => port.stop());
  assert.ok(await port.waitForSync());
  return port;
}

const CPU: MetricSpec = {
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
};
const POD_METRICS_LIST = "GET /apis/metrics.k8s.io/v1beta1/namespaces/default/pods";

describe("scales from watches", () => {
  it("a Deployment's scale is read from its watch, with no GET of /scale; another kind asks the subresource", async () => {
    const h = await runningCluster();
    const port = await watchedScales(h);
    const before = h.calls.length;
    const web = await port.getScale("default", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "web",
    });
    assert.ok(web.ok);
    assert.equal(web.value.specReplicas, 2);
    assert.deepEqual(h.calls.slice(before), []);
    assert.deepEqual(port.reads, { watched: 1, subresource: 0 });
    const widget = await port.getScale("default", {
      apiVersion: "example.com/v1",
      kind: "Widget",
      name: "w",
    });
    assert.deepEqual(widget, {
      ok: false,
      error: 'no matches for kind "Widget" in group "example.com"',
      status: 404,
    });
    assert.deepEqual(port.reads, { watched: 1, subresource: 1 });
  });

  it("a watched object the cache has not seen yet is read from the subresource (upstream's answer)", async () => {
    const h = await runningCluster();
    const port = await watchedScales(h);
    const missing = await port.getScale("default", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "nope",
    });
    assert.deepEqual(missing, {
      ok: false,
      error: 'deployments.apps "nope" not found',
      status: 404,
    });
    assert.equal(port.reads.subresource, 1);
  });
});

describe("one PodMetrics list per namespace", () => {
  it("serves every selector of the namespace within the max age, filtered as the server filters", async () => {
    const h = await runningCluster();
    let now = 1_000_000;
    const shared = new KubeMetricsPort({
      client: h.client,
      sharedPodMetricsMaxAgeMs: 15_000,
      now: () => now,
    });
    const upstream = new KubeMetricsPort({ client: h.client });
    // Equality (the label index), several requirements, set-based and none (every item).
    const selectors = [
      "app=web",
      "app=other",
      "app in (web,x)",
      "app=web,pod-template-hash!=x",
      "app,missing=label",
      "app notin (x)",
      "!missing",
      "",
    ].map(selector);
    const count = () => h.calls.filter((c) => c === POD_METRICS_LIST).length;

    const start = count();
    const sharedAnswers = [];
    for (const s of selectors) sharedAnswers.push(await shared.observe("default", CPU, s));
    assert.equal(count() - start, 1, "one list for every selector");
    const middle = count();
    const upstreamAnswers = [];
    for (const s of selectors) upstreamAnswers.push(await upstream.observe("default", CPU, s));
    assert.equal(count() - middle, selectors.length, "upstream lists once per selector");
    assert.deepEqual(sharedAnswers, upstreamAnswers);
    assert.ok(
      sharedAnswers.some(
        (a) => a.kind === "resource" && a.samples instanceof Map && a.samples.size > 0,
      ),
      "some selector reads pods",
    );

    now += 15_000;
    await shared.observe("default", CPU, selectors[0]!);
    assert.equal(count() - middle, selectors.length + 1, "older than the max age: listed again");
  });
});

describe("the shared PodMetrics index", () => {
  const item = (
    name: string,
    labels: Record<string, string>,
    containers: { name: string; usage: Record<string, unknown> }[],
    window = "15s",
  ) => ({
    metadata: { name, namespace: "default", labels },
    timestamp: "2026-01-01T00:00:00Z",
    window,
    containers,
  });
  const web = { app: "web", "pod-template-hash": "a1" };
  const list = {
    items: [
      item("w1", web, [{ name: "app", usage: { cpu: "250m", memory: "100Mi" } }]),
      item("w2", { "pod-template-hash": "a1", app: "web" }, [
        { name: "app", usage: { cpu: "1", memory: "1Gi" } },
        { name: "sidecar", usage: { memory: "8Mi", cpu: "5m" } },
      ]),
      item("w3", web, [{ name: "app", usage: { cpu: "2500u" } }], "30s"),
      item("o1", { app: "other" }, []),
      item("bad", { app: "broken" }, [{ name: "app", usage: { cpu: "abc" } }]),
      item("b2", { app: "broken" }, [{ name: "app", usage: { cpu: "1m" } }]),
      item("n1", {}, [{ name: "app", usage: { cpu: "3m" } }]),
    ],
  };
  const cases = [
    "app=web",
    "app=web,pod-template-hash=a1",
    "app in (web)",
    "app in (web,other)",
    "app=other",
    "app=broken",
    "app notin (broken)",
    "!app",
    "",
  ];
  it("selects what the server's filter and upstream's decoding give, for every selector", () => {
    const index = new IndexedPodMetrics(list);
    for (const text of cases) {
      const s = selector(text);
      const filtered = { items: list.items.filter((i) => selectorMatches(s, i.metadata.labels)) };
      assert.deepEqual(
        index.select(s),
        podMetricsItems(filtered),
        `selector ${JSON.stringify(text)}`,
      );
    }
    // Twice: items are made again from the kept columns, never shared between HPAs.
    const first = index.select(selector("app=web"));
    const second = index.select(selector("app=web"));
    assert.ok(Array.isArray(first) && Array.isArray(second), "app=web decodes");
    assert.notEqual(first[0], second[0]);
    assert.deepEqual(first, second);
  });
});

describe("the same decisions", () => {
  it("reconciling with shared reads decides as with upstream's reads on the same cluster", async () => {
    const h = await runningCluster();
    const pods = new PodInformer({ client: h.client, backoff: BACKOFF });
    pods.start();
    stops.push(() => pods.stop());
    await pods.waitForSync();
    const hpa = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web", namespace: "default", uid: "uid-web", resourceVersion: "1" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 10,
        metrics: [CPU],
      },
    } as HorizontalPodAutoscaler;
    const now = h.cluster.now;
    // Neither run writes: the scale port's updates and the status are observed, not applied.
    const base = {
      pods,
      status: { updateStatus: () => ({ ok: true as const, value: undefined }) },
      events: { record: () => {} },
      clock: { now: () => now },
    };
    const noWrites = (port: ControllerPorts["scale"]): ControllerPorts["scale"] => ({
      getScale: (ns, ref) => port.getScale(ns, ref),
      updateScale: () => ({ ok: true, value: undefined }),
    });
    const config = defaultControllerConfig();
    const upstream = await reconcileHpa(
      hpa,
      {
        ...base,
        scale: noWrites(new KubeScaleTargetPort({ client: h.client })),
        metrics: new KubeMetricsPort({ client: h.client }),
      },
      new ControllerMemory(),
      config,
    );
    const shared = await reconcileHpa(
      hpa,
      {
        ...base,
        scale: noWrites(await watchedScales(h)),
        metrics: new KubeMetricsPort({
          client: h.client,
          sharedPodMetricsMaxAgeMs: 15_000,
          now: () => now,
        }),
      },
      new ControllerMemory(),
      config,
    );
    assert.equal(upstream.result.error, null);
    assert.notEqual(upstream.result.desiredReplicas, 2, "the cluster's load makes the HPA scale");
    assert.deepEqual(shared, upstream);
  });
});
