// `horizon controller --shared-reads-max-age`: scales of the kinds Horizon knows come from
// watches, and one PodMetrics list per namespace serves the HPAs synced within the max age —
// fewer API requests, the same answers and the same decisions as upstream's reads on the same
// cluster (the port contract suites run this adapter too: ports-contract.test.ts).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { parseSelector, type Selector, selectorMatches } from "../../src/api/selector.js";
import type { HorizontalPodAutoscaler, MetricSpec } from "../../src/api/types.js";
import type { ControllerPorts } from "../../src/controller/ports.js";
import { ControllerMemory, reconcileHpa } from "../../src/controller/reconcile.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { resourceObservation } from "../../src/core/sources/resource-usage.js";
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
  it("property: any list, selector and metric read as the filter and upstream's decoding give", () => {
    const quantity = fc.oneof(
      fc.nat(5000).map((n) => `${n}m`),
      fc.nat(99999).map((n) => `${n}Ki`),
      fc.nat(10 ** 9).map((n) => `${n}n`),
      fc.constantFrom("1", "0.5", "1e3", "abc"),
    );
    const usage = fc
      .uniqueArray(fc.constantFrom("cpu", "memory"), { maxLength: 2 })
      .chain((keys) => fc.tuple(...keys.map(() => quantity)).map((values) => ({ keys, values })))
      .map(({ keys, values }) => Object.fromEntries(keys.map((k, i) => [k, values[i]])));
    const raw = fc.record({
      name: fc.constantFrom("p1", "p2", "p3", "p4"),
      app: fc.constantFrom("web", "api", undefined),
      tier: fc.constantFrom("a", "b"),
      window: fc.constantFrom("15s", "30s", "1m", "x"),
      containers: fc.array(fc.record({ name: fc.constantFrom("app", "sidecar"), usage }), {
        maxLength: 3,
      }),
    });
    const texts = ["", "app=web", "app in (web,api)", "!app", "tier=a,app=api", "app notin (web)"];
    fc.assert(
      fc.property(fc.array(raw, { maxLength: 12 }), fc.constantFrom(...texts), (raws, text) => {
        const items = raws.map((r) => {
          const labels: Record<string, string> = { tier: r.tier };
          if (r.app) labels.app = r.app;
          return {
            metadata: { name: r.name, labels },
            timestamp: "2026-01-01T00:00:00Z",
            window: r.window,
            containers: r.containers,
          };
        });
        const index = new IndexedPodMetrics({ items });
        const s = selector(text);
        const decoded = podMetricsItems({
          items: items.filter((i) => selectorMatches(s, i.metadata.labels)),
        });
        for (const [resource, container] of [
          ["cpu", ""],
          ["memory", "sidecar"],
        ] as const) {
          const got = index.usage(s, resource, container);
          if (typeof decoded === "string") {
            assert.equal(got, decoded);
            continue;
          }
          assert.ok(typeof got !== "string", String(got));
          assert.equal(got.items, decoded.length);
          if (decoded.length === 0) continue;
          assert.deepEqual(
            { kind: "resource", samples: got.samples },
            resourceObservation(decoded, resource, container),
          );
        }
      }),
      { seed: 4242, numRuns: 400 },
    );
  });

  it("reads what the server's filter and upstream's decoding give, for every selector and metric", () => {
    const index = new IndexedPodMetrics(list);
    for (const text of cases) {
      const s = selector(text);
      const filtered = { items: list.items.filter((i) => selectorMatches(s, i.metadata.labels)) };
      const items = podMetricsItems(filtered);
      for (const [resource, container] of [
        ["cpu", ""],
        ["memory", ""],
        ["cpu", "sidecar"],
        ["memory", "app"],
        ["gpu", ""],
      ] as const) {
        const got = index.usage(s, resource, container);
        const what = `selector ${JSON.stringify(text)}, ${resource} of ${container || "the pod"}`;
        if (typeof items === "string") {
          assert.equal(got, items, what);
          continue;
        }
        assert.ok(typeof got !== "string", `${what}: ${got}`);
        assert.equal(got.items, items.length, what);
        const expected = resourceObservation(items, resource, container);
        if (items.length > 0)
          assert.deepEqual({ kind: "resource", samples: got.samples }, expected);
      }
    }
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
