// Port contract suites: the same expectations run against every adapter of a port — the
// in-process adapters of the embedded cluster (src/cluster/ports.ts, what `horizon simulate`
// uses) and the Kubernetes API adapters (src/kube, what `horizon controller` uses) over the
// same cluster state. Where the two cannot agree for a reason outside the adapters, the case
// is skipped with that reason.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CrossVersionObjectReference, MetricSpec } from "../../src/api/types.js";
import { createPorts } from "../../src/cluster/ports.js";
import type { MetricsPort, ScaleTargetPort } from "../../src/controller/ports.js";
import { parseSelector, type Selector } from "../../src/core/selector.js";
import type { MetricObservation } from "../../src/core/sources/types.js";
import { KubeMetricsPort } from "../../src/kube/metrics/index.js";
import { KubeScaleTargetPort } from "../../src/kube/scale.js";
import type { Harness } from "./harness.js";
import { runningCluster } from "./metric-scenario.js";

interface Adapter {
  name: string;
  scale(h: Harness): ScaleTargetPort;
  metrics(h: Harness): MetricsPort;
}

const ADAPTERS: Adapter[] = [
  {
    name: "in-process (src/cluster/ports.ts)",
    scale: (h) => createPorts(h.cluster).scale,
    metrics: (h) => createPorts(h.cluster).metrics,
  },
  {
    name: "Kubernetes API (src/kube)",
    scale: (h) => new KubeScaleTargetPort({ client: h.client }),
    metrics: (h) => new KubeMetricsPort({ client: h.client }),
  },
];

function selector(text: string): Selector {
  const parsed = parseSelector(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.selector;
}

/** metav1.Time travels with whole seconds: compare instants as the wire carries them. */
const second = (ms: number) => Math.floor(ms / 1000) * 1000;

/** An observation in comparable form: samples sorted by pod, timestamps at second precision. */
function normalize(observation: MetricObservation): unknown {
  switch (observation.kind) {
    case "resource":
    case "pods":
      return {
        kind: observation.kind,
        samples: [...observation.samples.entries()]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([pod, s]) => ({
            pod,
            value: s.value,
            timestamp: second(s.timestamp),
            window: s.window,
          })),
      };
    case "object":
    case "external":
      return { ...observation, timestamp: second(observation.timestamp) };
    default:
      return observation;
  }
}

const ref = (kind: string, name: string, apiVersion = "apps/v1"): CrossVersionObjectReference => ({
  apiVersion,
  kind,
  name,
});

describe("ScaleTargetPort contract", () => {
  const reads = [
    {
      name: "the Deployment web",
      target: ref("Deployment", "web"),
      error: undefined,
      status: undefined,
    },
    {
      name: "a missing Deployment",
      target: ref("Deployment", "nope"),
      error: 'deployments.apps "nope" not found',
      status: 404,
    },
    {
      name: "a kind no group serves",
      target: ref("Widget", "w", "example.com/v1"),
      error: 'no matches for kind "Widget" in group "example.com"',
      status: 404,
    },
    {
      name: "a Pod (no scale subresource)",
      target: ref("Pod", "web", "v1"),
      error: "the server could not find the requested resource",
      status: 404,
    },
    {
      name: "a DaemonSet (no scale subresource)",
      target: ref("DaemonSet", "web"),
      error: "the server could not find the requested resource",
      status: 404,
      // Serving DaemonSets honestly needs a daemon controller in the embedded cluster (a pod
      // per simulated node, its status), not only discovery + CRUD + a table.
      skip: "the embedded API server does not serve daemonsets, so discovery answers no matches for kind",
    },
  ];
  for (const adapter of ADAPTERS) {
    describe(adapter.name, () => {
      for (const c of reads) {
        it(`getScale: ${c.name}`, {
          skip: "skip" in c && adapter.name.startsWith("Kubernetes") ? c.skip : false,
        }, async () => {
          const h = await runningCluster();
          const got = await adapter.scale(h).getScale("default", c.target);
          if (c.error) {
            assert.deepEqual(got, { ok: false, error: c.error, status: c.status });
            return;
          }
          const deployment = h.cluster.store.get("Deployment", "default", "web")!;
          const status = deployment.status as { replicas: number };
          assert.deepEqual(got, {
            ok: true,
            value: {
              specReplicas: 2,
              statusReplicas: status.replicas,
              selector: "app=web",
              resourceVersion: deployment.metadata.resourceVersion,
            },
          });
        });
      }

      it("updateScale: sets the Deployment's spec.replicas", async () => {
        const h = await runningCluster();
        const port = adapter.scale(h);
        assert.ok((await port.getScale("default", ref("Deployment", "web"))).ok);
        assert.deepEqual(await port.updateScale("default", ref("Deployment", "web"), 4), {
          ok: true,
          value: undefined,
        });
        const spec = h.cluster.store.get("Deployment", "default", "web")!.spec as {
          replicas: number;
        };
        assert.equal(spec.replicas, 4);
      });

      it("updateScale: a missing target", async () => {
        const h = await runningCluster();
        assert.deepEqual(
          await adapter.scale(h).updateScale("default", ref("Deployment", "nope"), 4),
          {
            ok: false,
            error: 'deployments.apps "nope" not found',
            status: 404,
          },
        );
      });
    });
  }
});

const WEB = selector("app=web");

interface MetricCase {
  name: string;
  spec: MetricSpec;
  selector?: Selector;
  /** The expected observation (normalized), given the running cluster. */
  expect: (h: Harness) => unknown;
  skipKube?: string;
  outage?: ("resource" | "custom" | "external")[];
}

const scrape = (h: Harness) => second(h.cluster.metrics.lastScrapeAt);
const podNames = (h: Harness) =>
  h.cluster.store
    .list("Pod")
    .map((p) => p.metadata.name)
    .sort();
const each = (h: Harness, sample: { value: number; window: number }) =>
  podNames(h).map((pod) => ({ pod, ...sample, timestamp: scrape(h) }));

const METRIC_CASES: MetricCase[] = [
  {
    name: "Resource cpu",
    spec: {
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
    },
    expect: (h) => ({ kind: "resource", samples: each(h, { value: 250, window: 15_000 }) }),
  },
  {
    name: "Resource memory",
    spec: {
      type: "Resource",
      resource: { name: "memory", target: { type: "AverageValue", averageValue: "1Gi" } },
    },
    expect: (h) => ({
      kind: "resource",
      samples: each(h, { value: 100 * 1024 * 1024 * 1000, window: 15_000 }),
    }),
  },
  {
    name: "Resource cpu of a selector without pods",
    spec: {
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
    },
    selector: selector("app=other"),
    expect: () => ({ kind: "error", error: "no metrics returned from resource metrics API" }),
  },
  {
    name: "ContainerResource cpu of container app",
    spec: {
      type: "ContainerResource",
      containerResource: {
        name: "cpu",
        container: "app",
        target: { type: "Utilization", averageUtilization: 50 },
      },
    },
    expect: (h) => ({ kind: "resource", samples: each(h, { value: 250, window: 15_000 }) }),
  },
  {
    name: "ContainerResource of a container no pod has",
    spec: {
      type: "ContainerResource",
      containerResource: {
        name: "cpu",
        container: "sidecar",
        target: { type: "Utilization", averageUtilization: 50 },
      },
    },
    expect: () => ({ kind: "resource", samples: [] }),
  },
  {
    name: "Pods http_requests",
    spec: {
      type: "Pods",
      pods: {
        metric: { name: "http_requests" },
        target: { type: "AverageValue", averageValue: "10" },
      },
    },
    expect: (h) => ({ kind: "pods", samples: each(h, { value: 20_000, window: 60_000 }) }),
  },
  {
    name: "Pods of a metric the adapter does not serve",
    spec: {
      type: "Pods",
      pods: { metric: { name: "nope" }, target: { type: "AverageValue", averageValue: "10" } },
    },
    expect: () => ({
      kind: "error",
      error:
        "unable to fetch metrics from custom metrics API: the server could not find the metric nope for pods",
    }),
  },
  {
    name: "Object requests-per-second of Service main-route",
    spec: {
      type: "Object",
      object: {
        describedObject: { apiVersion: "v1", kind: "Service", name: "main-route" },
        metric: { name: "requests-per-second" },
        target: { type: "Value", value: "100" },
      },
    },
    expect: (h) => ({ kind: "object", valueMilli: 40_000n, timestamp: scrape(h) }),
  },
  {
    name: "Object of a described object without the metric",
    spec: {
      type: "Object",
      object: {
        describedObject: { apiVersion: "v1", kind: "Service", name: "other" },
        metric: { name: "requests-per-second" },
        target: { type: "Value", value: "100" },
      },
    },
    expect: () => ({
      kind: "error",
      error:
        "unable to fetch metrics from custom metrics API: the server could not find the metric requests-per-second for services other",
    }),
  },
  {
    name: "External queue_messages_ready{queue=worker_tasks}",
    spec: {
      type: "External",
      external: {
        metric: {
          name: "queue_messages_ready",
          selector: { matchLabels: { queue: "worker_tasks" } },
        },
        target: { type: "Value", value: "10" },
      },
    },
    expect: (h) => {
      const direct = h.cluster.metrics.observe(
        "default",
        {
          type: "External",
          external: {
            metric: {
              name: "queue_messages_ready",
              selector: { matchLabels: { queue: "worker_tasks" } },
            },
            target: { type: "Value", value: "10" },
          },
        },
        WEB,
      );
      assert.equal(direct.kind, "external");
      return normalize(direct);
    },
  },
  {
    name: "External of a metric with no series",
    spec: {
      type: "External",
      external: { metric: { name: "nope" }, target: { type: "Value", value: "10" } },
    },
    expect: () => ({ kind: "error", error: "no metrics returned from external metrics API" }),
  },
  {
    name: "Resource during a metrics-server outage",
    spec: {
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
    },
    outage: ["resource"],
    expect: () => ({
      kind: "error",
      error:
        "unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)",
    }),
  },
];

describe("MetricsPort contract", () => {
  for (const adapter of ADAPTERS) {
    describe(adapter.name, () => {
      for (const c of METRIC_CASES) {
        const skip = c.skipKube && adapter.name.startsWith("Kubernetes") ? c.skipKube : false;
        it(c.name, { skip }, async () => {
          const h = await runningCluster();
          if (c.outage) h.cluster.metrics.outage(c.outage, h.cluster.now + 600_000);
          const observed = await adapter.metrics(h).observe("default", c.spec, c.selector ?? WEB);
          assert.deepEqual(normalize(observed), c.expect(h));
        });
      }
    });
  }
});
