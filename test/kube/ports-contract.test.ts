// Port contract suites: the same expectations run against every adapter of a port — the
// in-process adapters of the embedded cluster (src/cluster/ports.ts, what `horizon simulate`
// uses) and the Kubernetes API adapters (src/kube, what `horizon controller` uses) over the
// same cluster state. Where the two cannot agree for a reason outside the adapters, the case
// is skipped with that reason.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { parseSelector, type Selector } from "../../src/api/selector.js";
import type {
  CrossVersionObjectReference,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerStatus,
  KubeObject,
  MetricSpec,
} from "../../src/api/types.js";
import { createPorts } from "../../src/cluster/ports.js";
import type {
  EventsPort,
  HpaStatusPort,
  MetricsPort,
  PodsPort,
  ScaleTargetPort,
} from "../../src/controller/ports.js";
import type { PodView } from "../../src/core/pods.js";
import { samplesByName } from "../../src/core/replica-calculator.js";
import type { MetricObservation } from "../../src/core/sources/types.js";
import type { SyncEvent } from "../../src/core/sync.js";
import { KubeEventRecorder } from "../../src/kube/events.js";
import { KubeMetricsPort } from "../../src/kube/metrics/index.js";
import { PodInformer } from "../../src/kube/pods.js";
import { KubeScaleTargetPort } from "../../src/kube/scale.js";
import { InformerScaleTargetPort } from "../../src/kube/scale-informer.js";
import { KubeHpaStatusPort } from "../../src/kube/status.js";
import type { Harness } from "./harness.js";
import { runningCluster } from "./metric-scenario.js";
import { pollUntil } from "./net-helpers.js";

interface Adapter {
  name: string;
  scale(h: Harness): ScaleTargetPort | Promise<ScaleTargetPort>;
  metrics(h: Harness): MetricsPort;
  /** The events port, and how to wait until what it recorded is written. */
  events(h: Harness): { port: EventsPort; flush(): Promise<void> };
  status(h: Harness): HpaStatusPort;
  /** The pods port once it holds the cluster's pods; `stop` ends what it started. */
  pods(h: Harness): Promise<{ port: PodsPort; stop(): Promise<void> }>;
  /** Whether the adapter checks the resourceVersion of the object it writes the status of. */
  staleStatusSkip?: string;
}

const ADAPTERS: Adapter[] = [
  {
    name: "in-process (src/cluster/ports.ts)",
    scale: (h) => createPorts(h.cluster).scale,
    metrics: (h) => createPorts(h.cluster).metrics,
    events: (h) => ({ port: createPorts(h.cluster).events, flush: async () => {} }),
    status: (h) => createPorts(h.cluster).status,
    pods: async (h) => ({ port: createPorts(h.cluster).pods, stop: async () => {} }),
    // The simulator syncs and writes in one instant of virtual time with no other writer, so
    // its status writes carry no optimistic-concurrency check.
    staleStatusSkip:
      "the in-process adapter has no concurrent writer and does not check resourceVersion",
  },
  {
    name: "Kubernetes API (src/kube)",
    scale: (h) => new KubeScaleTargetPort({ client: h.client }),
    metrics: (h) => new KubeMetricsPort({ client: h.client }),
    events: (h) => {
      const port = new KubeEventRecorder({ client: h.client, sleep: async () => {} });
      return { port, flush: () => port.flush() };
    },
    status: (h) => new KubeHpaStatusPort({ client: h.client }),
    pods: async (h) => {
      const port = new PodInformer({
        client: h.client,
        backoff: { initialMs: 10, maxMs: 50, jitter: 0 },
      });
      port.start();
      await port.waitForSync();
      return { port, stop: () => port.stop() };
    },
  },
];

// What the shared-reads adapter started; stopped once the suites are done.
const started: (() => Promise<void>)[] = [];
after(() => Promise.all(started.splice(0).map((stop) => stop())));

/** `horizon controller --shared-reads-max-age`: scales from watches, one PodMetrics list per namespace. */
const SHARED_READS: Pick<Adapter, "name" | "scale" | "metrics"> = {
  name: "Kubernetes API with --shared-reads-max-age (src/kube)",
  scale: async (h) => {
    const port = new InformerScaleTargetPort({
      client: h.client,
      subresource: new KubeScaleTargetPort({ client: h.client }),
      backoff: { initialMs: 10, maxMs: 50, jitter: 0 },
    });
    port.start();
    started.push(() => port.stop());
    assert.ok(await port.waitForSync());
    return port;
  },
  metrics: (h) => new KubeMetricsPort({ client: h.client, sharedPodMetricsMaxAgeMs: 15_000 }),
};

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
        samples: [...samplesByName(observation.samples).entries()]
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
    },
  ];
  for (const adapter of [...ADAPTERS, SHARED_READS]) {
    describe(adapter.name, () => {
      for (const c of reads) {
        it(`getScale: ${c.name}`, async () => {
          const h = await runningCluster();
          const got = await (await adapter.scale(h)).getScale("default", c.target);
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
        const port = await adapter.scale(h);
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
          await (await adapter.scale(h)).updateScale("default", ref("Deployment", "nope"), 4),
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
  for (const adapter of [...ADAPTERS, SHARED_READS]) {
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

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 250);

function hpaNamed(name: string): HorizontalPodAutoscaler {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name, namespace: "default", uid: `uid-${name}`, resourceVersion: "42" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name },
      maxReplicas: 5,
    },
  } as HorizontalPodAutoscaler;
}

interface Recorded {
  /** Milliseconds after T. */
  at: number;
  hpa: string;
  event: SyncEvent;
}

const failedGetScale: SyncEvent = {
  type: "Warning",
  reason: "FailedGetScale",
  message: 'deployments.apps "web" not found',
};
const failedMetric = (i: number): SyncEvent => ({
  type: "Warning",
  reason: "FailedGetResourceMetric",
  message: `failed to get cpu utilization: missing request for cpu in container app-${i} of Pod web-${i}`,
});

/**
 * 40 FailedGetScale of `web` every 15 seconds (past the spam filter's burst of 25), then 12
 * distinct messages of one reason for `web` (mostly filtered: its bucket is empty) and for `api`
 * (the 10th and later combined).
 */
const SEQUENCE: Recorded[] = [
  ...Array.from({ length: 40 }, (_, i) => ({ at: i * 15_000, hpa: "web", event: failedGetScale })),
  ...Array.from({ length: 12 }, (_, i) => ({
    at: 600_000 + i * 1000,
    hpa: "web",
    event: failedMetric(i),
  })),
  ...Array.from({ length: 12 }, (_, i) => ({
    at: 600_000 + i * 1000,
    hpa: "api",
    event: failedMetric(i),
  })),
];

/** The stored Events as the recorder wrote them (server-set metadata left out), by name. */
function storedEvents(h: Harness) {
  return h.cluster.store
    .list("Event", "default")
    .map((e: KubeObject) => ({
      name: e.metadata.name,
      count: e.count,
      reason: e.reason,
      message: e.message,
      type: e.type,
      firstTimestamp: e.firstTimestamp,
      lastTimestamp: e.lastTimestamp,
      involvedObject: e.involvedObject,
      source: e.source,
      reportingComponent: e.reportingComponent,
      reportingInstance: e.reportingInstance,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

async function record(adapter: Adapter, steps: Recorded[]) {
  const h = await runningCluster();
  const { port, flush } = adapter.events(h);
  for (const s of steps) port.record(hpaNamed(s.hpa), s.event, T + s.at);
  await flush();
  return storedEvents(h);
}

describe("EventsPort contract", () => {
  for (const adapter of ADAPTERS) {
    describe(adapter.name, () => {
      it("a repeat updates one Event: count, lastTimestamp", async () => {
        const stored = await record(adapter, [
          { at: 0, hpa: "web", event: failedGetScale },
          { at: 15_000, hpa: "web", event: failedGetScale },
          { at: 30_000, hpa: "web", event: failedMetric(1) },
        ]);
        assert.deepEqual(
          stored.map((e) => [e.reason, e.count, e.firstTimestamp, e.lastTimestamp]),
          [
            ["FailedGetScale", 2, "2026-01-01T12:00:00Z", "2026-01-01T12:00:15Z"],
            ["FailedGetResourceMetric", 1, "2026-01-01T12:00:30Z", "2026-01-01T12:00:30Z"],
          ],
        );
        assert.match(stored[0]!.name, /^web\.[0-9a-f]+$/);
        assert.deepEqual(stored[0]!.source, { component: "horizontal-pod-autoscaler" });
      });

      it("the spam filter writes 25 at once, then one per 5 minutes", async () => {
        const stored = await record(adapter, SEQUENCE.slice(0, 40));
        assert.equal(stored.length, 1);
        // 26 written (the last at 5 minutes, count 26); the 14 after it are filtered.
        assert.equal(stored[0]!.count, 26);
      });

      it("the 10th distinct message of one reason within 10 minutes is combined", async () => {
        const stored = await record(
          adapter,
          SEQUENCE.filter((s) => s.hpa === "api"),
        );
        assert.equal(stored.length, 10);
        const combined = stored.filter((e) =>
          String(e.message).startsWith("(combined from similar events): "),
        );
        assert.deepEqual(
          combined.map((e) => [e.count, e.message]),
          [[3, `(combined from similar events): ${failedMetric(11).message}`]],
        );
      });
    });
  }

  it("every adapter writes the same Events for the same records", async () => {
    const [first, ...others] = await Promise.all(ADAPTERS.map((a) => record(a, SEQUENCE)));
    assert.ok(first && first.length > 10);
    for (const other of others) assert.deepEqual(other, first);
  });
});

const HPA_PATH = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

/** The HPA `web` created through the API, as the controller's informer holds it. */
async function createHpa(h: Harness): Promise<HorizontalPodAutoscaler> {
  const created = await h.client.request<HorizontalPodAutoscaler>({
    method: "POST",
    path: HPA_PATH,
    body: {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web", annotations: { team: "a" } },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
          },
        ],
      },
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const storedHpa = (h: Harness) => h.cluster.store.get("HorizontalPodAutoscaler", "default", "web");

const STATUS: HorizontalPodAutoscalerStatus = {
  observedGeneration: 1,
  lastScaleTime: "2026-01-01T12:00:00Z",
  currentReplicas: 2,
  desiredReplicas: 3,
  currentMetrics: [
    {
      type: "Resource",
      resource: { name: "cpu", current: { averageUtilization: 80, averageValue: "80m" } },
    },
  ],
  conditions: [
    {
      type: "AbleToScale",
      status: "True",
      lastTransitionTime: "2026-01-01T12:00:00Z",
      reason: "SucceededRescale",
      message: "the HPA controller was able to update the target scale to 3",
    },
    {
      type: "ScalingActive",
      status: "True",
      lastTransitionTime: "2026-01-01T12:00:00Z",
      reason: "ValidMetricFound",
      message:
        "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
    },
  ],
};

describe("HpaStatusPort contract", () => {
  for (const adapter of ADAPTERS) {
    describe(adapter.name, () => {
      it("writes the status; spec, metadata and generation stay", async () => {
        const h = await runningCluster();
        const hpa = await createHpa(h);
        const before = storedHpa(h)!;
        assert.deepEqual(await adapter.status(h).updateStatus(hpa, STATUS), {
          ok: true,
          value: undefined,
        });
        const after = storedHpa(h)!;
        assert.deepEqual(after.spec, before.spec);
        assert.equal(after.metadata.generation, before.metadata.generation);
        assert.deepEqual(after.metadata.annotations, { team: "a" });
        assert.notEqual(after.metadata.resourceVersion, before.metadata.resourceVersion);
      });

      // updateStatusIfNeeded compares the new status with the one the HPA carries: what is
      // written must read back equal, or every sync would write again.
      it("a written status reads back equal (so an unchanged one is not written again)", async () => {
        const h = await runningCluster();
        const hpa = await createHpa(h);
        await adapter.status(h).updateStatus(hpa, STATUS);
        const read = await h.client.request<HorizontalPodAutoscaler>({
          method: "GET",
          path: `${HPA_PATH}/web`,
        });
        assert.deepEqual(read.body.status, STATUS);
        assert.deepEqual(storedHpa(h)!.status, STATUS);
      });

      it("a deleted HPA: 404", async () => {
        const h = await runningCluster();
        const hpa = await createHpa(h);
        await h.client.request({ method: "DELETE", path: `${HPA_PATH}/web` });
        assert.deepEqual(await adapter.status(h).updateStatus(hpa, STATUS), {
          ok: false,
          error: 'horizontalpodautoscalers.autoscaling "web" not found',
          status: 404,
        });
      });

      it("a stale resourceVersion: 409 Conflict, not retried", {
        skip: adapter.staleStatusSkip ?? false,
      }, async () => {
        const h = await runningCluster();
        const hpa = await createHpa(h);
        const port = adapter.status(h);
        await port.updateStatus(hpa, { desiredReplicas: 1 });
        assert.deepEqual(await port.updateStatus(hpa, STATUS), {
          ok: false,
          error:
            'Operation cannot be fulfilled on horizontalpodautoscalers.autoscaling "web": the object has been modified; please apply your changes to the latest version and try again',
          status: 409,
        });
        assert.deepEqual(storedHpa(h)!.status, { desiredReplicas: 1 });
      });
    });
  }
});

/** A PodView as the wire carries it: times at whole seconds. */
function podOnWire(view: PodView): PodView {
  return {
    ...view,
    startTime: view.startTime === null ? null : second(view.startTime),
    ready: view.ready && {
      ...view.ready,
      lastTransitionTime: second(view.ready.lastTransitionTime),
    },
  };
}

/** The pods of a selector as the in-process cluster sees them (the reference). */
const expectedPods = (h: Harness, namespace: string, text: string) =>
  h.cluster
    .listPods(namespace, selector(text))
    .map(podOnWire)
    .sort((a, b) => (a.name < b.name ? -1 : 1));

const listed = (port: PodsPort, namespace: string, text: string) =>
  port
    .listPods(namespace, selector(text))
    .map(podOnWire)
    .sort((a, b) => (a.name < b.name ? -1 : 1));

describe("PodsPort contract", () => {
  const reads = [
    { name: "the pods of app=web", namespace: "default", selector: "app=web", count: 2 },
    { name: "a selector no pod matches", namespace: "default", selector: "app=other", count: 0 },
    { name: "another namespace", namespace: "kube-system", selector: "app=web", count: 0 },
    {
      name: "set-based: app in (web,api)",
      namespace: "default",
      selector: "app in (web,api)",
      count: 2,
    },
    {
      name: "a label that must be absent",
      namespace: "default",
      selector: "app=web,!canary",
      count: 2,
    },
  ];
  for (const adapter of ADAPTERS) {
    describe(adapter.name, () => {
      for (const c of reads) {
        it(`listPods: ${c.name}`, async () => {
          const h = await runningCluster();
          const { port, stop } = await adapter.pods(h);
          try {
            const got = listed(port, c.namespace, c.selector);
            assert.equal(got.length, c.count);
            assert.deepEqual(got, expectedPods(h, c.namespace, c.selector));
          } finally {
            await stop();
          }
        });
      }

      it("answers the same array until the pod set changes, then a new one", async () => {
        const h = await runningCluster();
        const { port, stop } = await adapter.pods(h);
        try {
          const web = selector("app=web");
          const first = port.listPods("default", web);
          assert.equal(port.listPods("default", web), first);
          h.cluster.scaleWorkload("default", "Deployment", "web", 3);
          const after = await pollUntil("the third pod", () => {
            const list = port.listPods("default", web);
            return list.length === 3 ? list : undefined;
          });
          assert.notEqual(after, first);
          assert.deepEqual(
            listed(port, "default", "app=web"),
            expectedPods(h, "default", "app=web"),
          );
        } finally {
          await stop();
        }
      });
    });
  }
});
