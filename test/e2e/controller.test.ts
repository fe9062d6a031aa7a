// End to end: `horizon controller` (startController, in-process, real client-node config and
// real sockets) against Horizon's embedded API server over HTTPS on loopback. Short periods
// come from the upstream flags (sync period 1s, downscale stabilization 3s); every wait polls
// with a deadline. The API server is behind a recording front (controller-helpers.ts): the
// last test checks every request the controllers sent against deploy/rbac.yaml.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import type { HorizontalPodAutoscaler } from "../../src/api/types.js";
import { SYSTEM_DISCOVERY } from "../../src/apiserver/auth/bootstrap.js";
import {
  allows,
  type PolicyRule,
  requestAttributes,
  ruleAllows,
} from "../../src/apiserver/auth/rbac.js";
import type { ApiResponse } from "../../src/apiserver/types.js";
import { explainCommand } from "../../src/cli/explain.js";
import { LOAD_ANNOTATION } from "../../src/cluster/load.js";
import { createLogger } from "../../src/controller/log.js";
import {
  type RunningController,
  startController,
} from "../../src/controller-manager/controller-manager.js";
import {
  type ControllerCommandOptions,
  parseControllerOptions,
} from "../../src/controller-manager/options.js";
import { type RunningUp, startUp } from "../../src/up/up.js";
import {
  type ApiFront,
  apiRequest,
  isControllerRequest,
  type RecordedRequest,
  ROOT,
  scenarioFromYaml,
  startApiFront,
} from "./controller-helpers.js";
import { pollUntil } from "./helpers.js";

const WEB = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: registry.k8s.io/hpa-example, resources: {requests: {cpu: 200m}}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
`;

/** A second workload whose HPA reads a resource, a Pods (custom) and an External metric. */
const API = `
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - {name: api, image: example/api, resources: {requests: {cpu: 200m}}}
---
apiVersion: v1
kind: Service
metadata: {name: api}
spec: {selector: {app: api}, ports: [{port: 80}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 1
  maxReplicas: 6
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  - type: Pods
    pods:
      metric: {name: http_requests}
      target: {type: AverageValue, averageValue: "100"}
  - type: External
    external:
      metric: {name: queue_length}
      target: {type: AverageValue, averageValue: "30"}
`;

/** Pods start and become Ready at once; usage 10m idle + 1m per request/s. */
function scenarioDoc(workloads: string[], extra = ""): string {
  const list = workloads
    .map(
      (w) => `  - target: Deployment/${w}
    pod: {schedulingDelay: 0s, containerStartDelay: 0s, readinessDelay: 0s}
    usage: {cpu: {base: 10m, perRps: 1m}}`,
    )
    .join("\n");
  return `
---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: controller-e2e}
spec:
  controller:
    horizontal-pod-autoscaler-sync-period: 1s
    horizontal-pod-autoscaler-downscale-stabilization: 3s
  cluster: {metricsResolution: 1s}
  workloads:
${list}
${extra}`;
}

const API_METRICS = `  metrics:
    pods:
    - {name: http_requests, workload: Deployment/api, rateWindow: 2s}
    external:
    - name: queue_length
      servedBy: Deployment/api
      arrivals: [{type: constant, rps: 0}]
      serviceRatePerPod: 10`;

/** Flags of a fast controller; the options object is what commander hands over. */
function flags(extra: ControllerCommandOptions): ControllerCommandOptions {
  return {
    horizontalPodAutoscalerSyncPeriod: "1s",
    horizontalPodAutoscalerDownscaleStabilization: "3s",
    leaderElect: "false",
    metricsBindAddress: "127.0.0.1:0",
    dashboardBindAddress: "127.0.0.1:0",
    ...extra,
  };
}

interface Harness {
  controller: RunningController;
  logs: Record<string, unknown>[];
}

const running: RunningController[] = [];

async function runController(
  options: ControllerCommandOptions,
  deps: Parameters<typeof startController>[1] = {},
): Promise<Harness> {
  const parsed = parseControllerOptions(options);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const logs: Record<string, unknown>[] = [];
  const log = createLogger({
    verbosity: 0,
    write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
  });
  const started = await startController(parsed.value, { log, ...deps });
  if (!started.ok) throw new Error(started.error);
  running.push(started.value);
  return { controller: started.value, logs };
}

async function stopController(controller: RunningController): Promise<void> {
  await controller.stop();
  running.splice(running.indexOf(controller), 1);
}

type Hpa = HorizontalPodAutoscaler;

async function getHpa(front: ApiFront, name: string): Promise<Hpa> {
  const got = await apiRequest(
    front,
    "GET",
    `/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/${name}`,
  );
  assert.equal(got.status, 200, JSON.stringify(got.body));
  return got.body as unknown as Hpa;
}

/**
 * Waits until the workloads' pods are Ready and metrics-server has scraped them, so the first
 * sync sees metrics (before that, upstream too reports "did not receive metrics for targeted
 * pods").
 */
async function settled(up: RunningUp, deployments: string[]): Promise<void> {
  await pollUntil(
    "ready pods and a metrics scrape",
    () => {
      up.driver.catchUp();
      const ready = deployments.every(
        (name) =>
          (
            up.cluster.store.get("Deployment", "default", name)?.status as {
              readyReplicas?: number;
            }
          )?.readyReplicas === 1,
      );
      return ready && up.cluster.metrics.scrapeIndex >= 2 ? true : undefined;
    },
    // Pods start and become ready on the real clock: room for a loaded machine.
    { timeoutMs: 30_000 },
  );
}

function hpaOfUp(up: RunningUp, name: string): Hpa {
  return up.cluster.store.get("HorizontalPodAutoscaler", "default", name) as unknown as Hpa;
}

function replicasOf(up: RunningUp, name: string): number {
  return (up.cluster.store.get("Deployment", "default", name)!.spec as { replicas: number })
    .replicas;
}

/** Sets (or with null removes) the `horizon.dev/load` annotation through the API, as `horizon load`. */
async function setLoad(front: ApiFront, service: string, rps: number | null): Promise<void> {
  const value = rps === null ? null : JSON.stringify({ rps });
  const patched = await apiRequest(
    front,
    "PATCH",
    `/api/v1/namespaces/default/services/${service}`,
    { metadata: { annotations: { [LOAD_ANNOTATION]: value } } },
    "application/merge-patch+json",
  );
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
}

interface EventView {
  type: string;
  reason: string;
  message: string;
  count: number;
}

async function hpaEvents(front: ApiFront, name: string): Promise<EventView[]> {
  const got = await apiRequest(front, "GET", "/api/v1/namespaces/default/events");
  const items = got.body.items as {
    type: string;
    reason: string;
    message: string;
    count: number;
    involvedObject: { kind: string; name: string };
    source?: { component?: string };
    metadata: { creationTimestamp: string };
  }[];
  return items
    .filter((e) => e.involvedObject.kind === "HorizontalPodAutoscaler")
    .filter((e) => e.involvedObject.name === name)
    .map((e) => {
      assert.equal(e.source?.component, "horizontal-pod-autoscaler");
      return { type: e.type, reason: e.reason, message: e.message, count: e.count };
    });
}

function condition(hpa: Hpa, type: string) {
  const found = hpa.status?.conditions?.find((c) => c.type === type);
  return found ? { status: found.status, reason: found.reason, message: found.message } : null;
}

/** The conditions without their transition times (what two controllers must agree on). */
function conditionsOf(hpa: Hpa) {
  return (hpa.status?.conditions ?? []).map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
  }));
}

const fronts: ApiFront[] = [];
const ups: RunningUp[] = [];
after(async () => {
  for (const controller of [...running]) await controller.stop().catch(() => {});
  for (const front of fronts) await front.close().catch(() => {});
  for (const up of ups) await up.close().catch(() => {});
});

describe("horizon controller: the full loop against the embedded API server", () => {
  let front: ApiFront;
  let inProcess: RunningUp;
  let harness: Harness;

  before(async () => {
    const scenario = scenarioFromYaml(WEB + scenarioDoc(["web"]));
    front = await startApiFront({ scenario });
    fronts.push(front);
    await settled(front.up, ["web"]);
    // The reference: `horizon up`'s in-process controller on its own copy of the scenario.
    const started = await startUp({
      scenario: scenarioFromYaml(WEB + scenarioDoc(["web"])),
      port: 0,
      controller: true,
      kubeconfigOut: null,
      syncPeriodMs: 1000,
    });
    if (!started.ok) throw new Error(started.error);
    inProcess = started.value;
    ups.push(inProcess);
    harness = await runController(flags({ kubeconfig: front.kubeconfigFile("loop") }));
  });

  const activeWithMetrics = (h: HorizontalPodAutoscaler) =>
    h.status?.currentMetrics !== undefined &&
    (h.status.conditions ?? []).some((c) => c.type === "ScalingActive" && c.status === "True");

  it("syncs the HPA at rest: status, conditions, no rescale", async () => {
    const hpa = await pollUntil(
      "a status computed from metrics",
      async () => {
        // Syncs before the pod's first sample after it became ready fail upstream too
        // (FailedGetResourceMetric): wait for the steady state.
        const h = await getHpa(front, "web");
        return activeWithMetrics(h) ? h : undefined;
      },
      { timeoutMs: 15_000 },
    );
    assert.equal(hpa.status!.currentReplicas, 1);
    assert.equal(hpa.status!.desiredReplicas, 1);
    assert.equal(hpa.status!.lastScaleTime, undefined);
    assert.deepEqual(hpa.status!.currentMetrics, [
      {
        type: "Resource",
        resource: { name: "cpu", current: { averageUtilization: 5, averageValue: "10m" } },
      },
    ]);
    assert.deepEqual(conditionsOf(hpa), [
      {
        type: "AbleToScale",
        status: "True",
        reason: "ReadyForNewScale",
        message: "recommended size matches current size",
      },
      {
        type: "ScalingActive",
        status: "True",
        reason: "ValidMetricFound",
        message:
          "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
      },
      {
        type: "ScalingLimited",
        status: "False",
        reason: "DesiredWithinRange",
        message: "the desired count is within the acceptable range",
      },
    ]);
    // The in-process controller of `horizon up` writes the same status for the same cluster.
    const reference = await pollUntil(
      "the in-process controller's status",
      () => (activeWithMetrics(hpaOfUp(inProcess, "web")) ? hpaOfUp(inProcess, "web") : undefined),
      { timeoutMs: 20_000 },
    );
    assert.deepEqual(conditionsOf(reference), conditionsOf(hpa));
    assert.deepEqual(reference.status!.currentMetrics, hpa.status!.currentMetrics);
  });

  it("scales up under load, then down after the stabilization window, as upstream words it", async () => {
    const before = Date.now();
    await setLoad(front, "web", 400);
    // The same load on the reference cluster (no API: the cluster's Service directly).
    const service = inProcess.cluster.store.get("Service", "default", "web")!;
    inProcess.cluster.store.update({
      ...service,
      metadata: {
        ...service.metadata,
        annotations: { [LOAD_ANNOTATION]: JSON.stringify({ rps: 400 }) },
      },
    });

    // 410m on one 200m pod is 205% of a 50% target: 5 pods, limited to 4 by the scale-up
    // limit of HPAs without behavior (max(2 × current, 4)), then 5.
    const scaledUp = await pollUntil(
      "the HPA scaling web up to 5",
      async () => {
        const h = await getHpa(front, "web");
        return h.status?.currentReplicas === 5 && h.status.desiredReplicas === 5 ? h : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.equal(replicasOf(front.up, "web"), 5);
    const lastScale = Date.parse(scaledUp.status!.lastScaleTime!);
    assert.ok(
      lastScale >= Math.floor(before / 1000) * 1000,
      String(scaledUp.status!.lastScaleTime),
    );
    let events = await hpaEvents(front, "web");
    assert.deepEqual(events[0], {
      type: "Normal",
      reason: "SuccessfulRescale",
      message: "New size: 4; reason: cpu resource utilization (percentage of request) above target",
      count: 1,
    });
    assert.ok(events.every((e) => e.type === "Normal" && e.reason === "SuccessfulRescale"));
    assert.ok(events.some((e) => e.message.startsWith("New size: 5; reason: ")));

    await setLoad(front, "web", null);
    const down = await pollUntil(
      "the HPA scaling web back to 1",
      async () => {
        const h = await getHpa(front, "web");
        return h.status?.currentReplicas === 1 && h.status.desiredReplicas === 1 ? h : undefined;
      },
      { timeoutMs: 20_000 },
    );
    events = await hpaEvents(front, "web");
    assert.deepEqual(events.at(-1), {
      type: "Normal",
      reason: "SuccessfulRescale",
      message: "New size: 1; reason: All metrics below target",
      count: 1,
    });
    assert.ok(Date.parse(down.status!.lastScaleTime!) > lastScale);
    assert.equal(condition(down, "ScalingActive")?.reason, "ValidMetricFound");

    // The reference controller took the same steps with the same words.
    await pollUntil(
      "the reference scaling up to 5",
      () => (replicasOf(inProcess, "web") === 5 ? true : undefined),
      { timeoutMs: 20_000 },
    );
    const refService = inProcess.cluster.store.get("Service", "default", "web")!;
    inProcess.cluster.store.update({
      ...refService,
      metadata: { ...refService.metadata, annotations: {} },
    });
    await pollUntil(
      "the reference scaling back to 1",
      () => (replicasOf(inProcess, "web") === 1 ? true : undefined),
      { timeoutMs: 20_000 },
    );
    const rescales = () =>
      inProcess.cluster.store
        .list("Event", "default")
        .map((e) => e as unknown as { reason: string; message: string })
        .filter((e) => e.reason === "SuccessfulRescale")
        .map((e) => `${e.reason}: ${e.message}`);
    // The controller records the event after its scale write: wait for the scale-down's.
    await pollUntil(
      "the reference's scale-down event",
      () => (rescales().some((e) => e.includes("New size: 1;")) ? true : undefined),
      { timeoutMs: 20_000 },
    );
    const refEvents = rescales();
    assert.equal(
      refEvents[0],
      "SuccessfulRescale: New size: 4; reason: cpu resource utilization (percentage of request) above target",
    );
    assert.equal(
      refEvents.at(-1),
      "SuccessfulRescale: New size: 1; reason: All metrics below target",
    );
    const ref = await pollUntil(
      "the reference at rest",
      () => {
        const h = hpaOfUp(inProcess, "web");
        return condition(h, "AbleToScale")?.reason === "ReadyForNewScale" ? h : undefined;
      },
      { timeoutMs: 20_000 },
    );
    const ours = await pollUntil(
      "our controller at rest",
      async () => {
        const h = await getHpa(front, "web");
        return condition(h, "AbleToScale")?.reason === "ReadyForNewScale" ? h : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.deepEqual(conditionsOf(ours), conditionsOf(ref));
  });

  it("/metrics counts reconciliations, /debug/decisions has traces, horizon explain words them", async () => {
    const url = harness.controller.server!.metricsUrl!;
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const line = metrics
      .split("\n")
      .find((l) =>
        l.startsWith(
          'horizontal_pod_autoscaler_controller_reconciliations_total{action="scale_up",error="none"}',
        ),
      );
    assert.ok(line, metrics);
    assert.ok(Number(line.split(" ").at(-1)) >= 1, line);
    assert.match(
      metrics,
      /^horizontal_pod_autoscaler_controller_reconciliations_total\{action="scale_down",error="none"\} [1-9]/m,
    );
    assert.match(
      metrics,
      /^horizontal_pod_autoscaler_controller_reconciliation_duration_seconds_bucket/m,
    );
    // Watches count as `watch` (the informers' GETs with watch=true), not as `list`.
    assert.match(
      metrics,
      /^horizon_controller_api_requests_total\{verb="watch",resource="horizontalpodautoscalers\.autoscaling",code="200"\} [1-9]/m,
    );
    assert.match(
      metrics,
      /^horizon_controller_api_requests_total\{verb="list",resource="pods",code="200"\} [1-9]/m,
    );
    assert.equal(await (await fetch(`${url}/healthz`)).text(), "ok");
    assert.equal(
      await (await fetch(`${url}/healthz?verbose`)).text(),
      "[+]ping ok\nhealthz check passed\n",
    );
    assert.equal((await fetch(`${url}/readyz`)).status, 200);

    const debugUrl = harness.controller.server!.debugUrl!;
    const decisions = (await (
      await fetch(`${debugUrl}/debug/decisions?namespace=default&name=web`)
    ).json()) as { hpas: { namespace: string; name: string; decisions: { trace: unknown }[] }[] };
    assert.equal(decisions.hpas.length, 1);
    assert.equal(decisions.hpas[0]!.name, "web");
    assert.ok(decisions.hpas[0]!.decisions.length >= 1);

    const out: string[] = [];
    const err: string[] = [];
    const code = await explainCommand(
      "hpa/web",
      { address: debugUrl },
      { out: (text) => out.push(text), err: (line) => err.push(line) },
    );
    assert.equal(code, 0, err.join("\n"));
    const text = out.join("");
    assert.match(text, /web/);
    assert.match(text, new RegExp(`from the controller at ${debugUrl.replace(/[.]/g, "\\.")}`));
  });

  // Last in this block: it deletes the HPA.
  it("horizon_controller_hpas counts the managed HPAs, down to 0 once the HPA is deleted", async () => {
    const url = harness.controller.server!.metricsUrl!;
    const gauge = async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return /^horizon_controller_hpas (\S+)$/m.exec(text)?.[1];
    };
    assert.equal(await gauge(), "1");
    front.up.cluster.store.delete("HorizontalPodAutoscaler", "default", "web");
    await pollUntil("horizon_controller_hpas 0", async () =>
      (await gauge()) === "0" ? true : undefined,
    );
  });

  after(async () => {
    if (harness) await stopController(harness.controller);
  });
});

describe("horizon controller: metrics API errors, timeouts and partial failures", () => {
  let front: ApiFront;
  let harness: Harness;

  before(async () => {
    const scenario = scenarioFromYaml(WEB + API + scenarioDoc(["web", "api"], API_METRICS));
    front = await startApiFront({ scenario });
    fronts.push(front);
    await settled(front.up, ["web", "api"]);
    harness = await runController(flags({ kubeconfig: front.kubeconfigFile("metrics") }));
  });
  after(async () => {
    if (harness) await stopController(harness.controller);
  });

  it("one failing metric of three: no scale-down, the upstream condition and events", async () => {
    await setLoad(front, "api", 400);
    // Scaled up, and at rest: two syncs in a row with the same size and no change wanted.
    let previous = -1;
    const up = await pollUntil(
      "api scaled up and at rest",
      async () => {
        const h = await getHpa(front, "api");
        const at = h.status?.currentReplicas ?? 0;
        const rest =
          at >= 4 &&
          h.status?.desiredReplicas === at &&
          h.status.currentMetrics?.length === 3 &&
          condition(h, "AbleToScale")?.reason === "ReadyForNewScale";
        const stable = rest && at === previous;
        previous = rest ? at : -1;
        return stable ? h : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 1100 },
    );
    assert.equal(condition(up, "ScalingActive")?.status, "True");
    const replicas = up.status!.currentReplicas ?? 0;

    // The load goes (CPU and the queue would scale down) while the custom metrics API is down.
    const outageMs = 20_000;
    front.up.cluster.metrics.outage(["custom"], front.up.cluster.now + outageMs);
    const outageEnds = Date.now() + outageMs;
    await setLoad(front, "api", null);
    const failing = await pollUntil(
      "the FailedGetPodsMetric condition",
      async () => {
        const h = await getHpa(front, "api");
        return condition(h, "ScalingActive")?.reason === "FailedGetPodsMetric" ? h : undefined;
      },
      { timeoutMs: 25_000 },
    );
    const active = condition(failing, "ScalingActive")!;
    assert.equal(active.status, "False");
    assert.match(
      active.message!,
      /^the HPA was unable to compute the replica count: unable to get metric http_requests: unable to fetch metrics from custom metrics API: the server is currently unable to handle the request/,
    );
    // Upstream's computeReplicasForMetrics: some metrics invalid and the rest would scale down
    // → no scale at all, and the valid metrics' statuses are not written over.
    assert.equal(failing.status!.desiredReplicas, replicas);
    // The failed metric's status is the zero MetricStatus, as upstream writes it.
    assert.deepEqual(
      failing.status!.currentMetrics!.map((m) => m.type),
      ["Resource", "", "External"],
    );
    const events = await hpaEvents(front, "api");
    const warnings = events.filter((e) => e.type === "Warning");
    assert.ok(
      warnings.some(
        (e) =>
          e.reason === "FailedGetPodsMetric" &&
          /^unable to get metric http_requests: /.test(e.message),
      ),
      JSON.stringify(warnings),
    );
    assert.ok(
      warnings.some(
        (e) =>
          e.reason === "FailedComputeMetricsReplicas" &&
          e.message.startsWith(
            "invalid metrics (1 invalid out of 3), first error is: failed to get pods metric value: ",
          ),
      ),
      JSON.stringify(warnings),
    );
    // Every sync during the outage leaves the replicas alone (the 3s window has long passed).
    while (Date.now() < outageEnds - 1000) {
      assert.ok(replicasOf(front.up, "api") >= replicas, "scaled down on a partial failure");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Once the metric is back, the scale-down goes through.
    const recovered = await pollUntil(
      "api scaled down after the outage",
      async () => {
        const h = await getHpa(front, "api");
        return h.status?.desiredReplicas === 1 ? h : undefined;
      },
      { timeoutMs: 40_000 },
    );
    assert.equal(condition(recovered, "ScalingActive")?.reason, "ValidMetricFound");
  });

  it("a resource metrics API that times out: FailedGetResourceMetric, aggregated events, recovery", async () => {
    // What kube-apiserver answers when an aggregated API does not answer in time.
    const timeout: ApiResponse = {
      status: 504,
      headers: { "content-type": "application/json" },
      body: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message:
          "Timeout: request did not complete within requested timeout - context deadline exceeded",
        reason: "Timeout",
        details: {},
        code: 504,
      },
    };
    front.intercept = (req) => (req.path.startsWith("/apis/metrics.k8s.io/") ? timeout : undefined);
    try {
      const failing = await pollUntil(
        "the FailedGetResourceMetric condition",
        async () => {
          const h = await getHpa(front, "web");
          return condition(h, "ScalingActive")?.reason === "FailedGetResourceMetric"
            ? h
            : undefined;
        },
        { timeoutMs: 40_000 },
      );
      assert.equal(condition(failing, "ScalingActive")!.status, "False");
      assert.match(
        condition(failing, "ScalingActive")!.message!,
        /^the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: Timeout: request did not complete within requested timeout - context deadline exceeded$/,
      );
      // A repeated warning is one Event whose count grows (upstream's recorder aggregation).
      const repeated = await pollUntil(
        "a repeated FailedGetResourceMetric event",
        async () =>
          (await hpaEvents(front, "web")).find(
            (e) => e.reason === "FailedGetResourceMetric" && e.count >= 2,
          ),
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      assert.equal(repeated.type, "Warning");
      const same = (await hpaEvents(front, "web")).filter(
        (e) => e.reason === "FailedGetResourceMetric",
      );
      assert.equal(same.length, 1, JSON.stringify(same));
    } finally {
      front.intercept = null;
    }
    const recovered = await pollUntil(
      "the metric found again",
      async () => {
        const h = await getHpa(front, "web");
        return condition(h, "ScalingActive")?.reason === "ValidMetricFound" ? h : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.equal(recovered.status!.desiredReplicas, 1);
  });
});

describe("horizon controller: the API server restarts mid-run", () => {
  let front: ApiFront;
  let harness: Harness;

  before(async () => {
    front = await startApiFront({
      scenario: scenarioFromYaml(WEB + scenarioDoc(["web"])),
      dataDir: true,
    });
    fronts.push(front);
    harness = await runController(flags({ kubeconfig: front.kubeconfigFile("restart") }), {
      informer: { stallTimeoutMs: 5_000 },
    });
  });
  after(async () => {
    if (harness) await stopController(harness.controller);
  });

  it("informers resume, syncs continue, new objects are seen", async () => {
    await pollUntil(
      "a first status",
      async () => ((await getHpa(front, "web")).status?.currentMetrics ? true : undefined),
      { timeoutMs: 15_000 },
    );
    const port = front.port;
    await front.restart();
    assert.equal(front.port, port);
    // The controller sees errors while the server is down, then carries on: load after the
    // restart scales web up, and an HPA created after the restart is synced.
    await setLoad(front, "web", 400);
    await pollUntil(
      "web scaled up after the restart",
      () => (replicasOf(front.up, "web") > 1 ? true : undefined),
      { timeoutMs: 30_000 },
    );
    const hpa = await getHpa(front, "web");
    const second = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web-2", namespace: "default" },
      spec: { ...hpa.spec, minReplicas: 1 },
    };
    const created = await apiRequest(
      front,
      "POST",
      "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
      second,
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const synced = await pollUntil(
      "the new HPA synced",
      async () => {
        const h = await getHpa(front, "web-2");
        return h.status?.conditions ? h : undefined;
      },
      { timeoutMs: 20_000 },
    );
    // Two HPAs on the same pods: upstream's AmbiguousSelector on both.
    assert.equal(condition(synced, "ScalingActive")?.reason, "AmbiguousSelector");
    const errors = harness.logs.filter((l) => l.msg === "informer error (retrying)");
    assert.ok(errors.length >= 1, "no informer error logged while the server was down");
  });
});

describe("horizon controller: in-cluster config from a service-account folder", () => {
  let front: ApiFront;
  let harness: Harness;

  before(async () => {
    front = await startApiFront({ scenario: scenarioFromYaml(WEB + scenarioDoc(["web"])) });
    fronts.push(front);
  });
  after(async () => {
    if (harness) await stopController(harness.controller);
  });

  it("connects with the folder's token and CA and takes the lease in its namespace", async () => {
    const created = await apiRequest(front, "POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "horizon-system" },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const folder = join(front.dir, "serviceaccount");
    mkdirSync(folder);
    writeFileSync(join(folder, "token"), `${front.token}\n`);
    writeFileSync(join(folder, "ca.crt"), front.caCert);
    writeFileSync(join(folder, "namespace"), "horizon-system");
    harness = await runController(
      flags({
        leaderElect: "true",
        leaderElectLeaseDuration: "2s",
        leaderElectRenewDeadline: "1500ms",
        leaderElectRetryPeriod: "500ms",
      }),
      {
        identity: "in-cluster-test",
        config: {
          serviceAccountDir: folder,
          env: {
            KUBERNETES_SERVICE_HOST: "127.0.0.1",
            KUBERNETES_SERVICE_PORT: String(front.port),
          },
          homeDir: front.dir,
        },
      },
    );
    assert.equal(harness.controller.connection.source, "in-cluster");
    assert.equal(harness.controller.connection.namespace, "horizon-system");
    const lease = await pollUntil(
      "the lease in horizon-system",
      async () => {
        const got = await apiRequest(
          front,
          "GET",
          "/apis/coordination.k8s.io/v1/namespaces/horizon-system/leases/horizon-controller",
        );
        return got.status === 200 ? got.body : undefined;
      },
      { timeoutMs: 10_000 },
    );
    assert.equal((lease.spec as { holderIdentity: string }).holderIdentity, "in-cluster-test");
    await pollUntil(
      "the HPA synced by the in-cluster controller",
      async () => ((await getHpa(front, "web")).status?.currentMetrics ? true : undefined),
      { timeoutMs: 15_000 },
    );
    // Renewals (lease updates) happen every retry period.
    await pollUntil("a lease renewal", () =>
      front.requests.some((r) => r.method === "PUT" && r.path.includes("/leases/"))
        ? true
        : undefined,
    );
    // No lease in kube-system: the folder's namespace is used.
    const other = await apiRequest(
      front,
      "GET",
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/horizon-controller",
    );
    assert.equal(other.status, 404);
  });
});

describe("RBAC: deploy/rbac.yaml allows every request the controllers sent, and nothing unused", () => {
  it("every request is allowed and every rule (and verb) is used", () => {
    const docs = parseAllDocuments(readFileSync(join(ROOT, "deploy", "rbac.yaml"), "utf8")).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string }; rules?: PolicyRule[] },
    );
    const rules = docs.flatMap((d) =>
      (d.rules ?? []).map((rule) => ({ rule, where: `${d.kind}/${d.metadata.name}` })),
    );
    const all = [...rules.map((r) => r.rule), SYSTEM_DISCOVERY];
    // Requests of the controllers only (by their User-Agent; the test's own calls have none).
    const requests: RecordedRequest[] = fronts
      .flatMap((f) => f.requests)
      .filter(isControllerRequest);
    assert.ok(requests.length > 100, `only ${requests.length} requests recorded`);
    const denied = new Set<string>();
    for (const r of requests) {
      const attrs = requestAttributes(r.method, r.path, r.query);
      if (!allows(all, attrs)) {
        denied.add(
          `${attrs.verb} ${attrs.apiGroup}/${attrs.resource}${attrs.subresource ? `/${attrs.subresource}` : ""} (${r.method} ${r.path})`,
        );
      }
    }
    assert.deepEqual([...denied], []);
    // Nothing more: every verb of every rule is needed by some request.
    const unused: string[] = [];
    for (const { rule, where } of rules) {
      for (const verb of rule.verbs) {
        const narrowed = { ...rule, verbs: [verb] };
        const used = requests.some((r) =>
          ruleAllows(narrowed, requestAttributes(r.method, r.path, r.query)),
        );
        if (!used)
          unused.push(
            `${where}: ${verb} ${JSON.stringify(rule.apiGroups)} ${JSON.stringify(rule.resources)}`,
          );
      }
    }
    assert.deepEqual(unused, []);
  });
});
