// The controller's Prometheus metrics: upstream's names, help texts, buckets and label values
// (pkg/controller/podautoscaler/monitor, reconcileAutoscaler, computeReplicasForMetric) after
// recording sync reports made by the real core.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  apiRequestLabels,
  ControllerMetrics,
  isInvalidGroupVersion,
  type MetricComputationLabels,
  type ReconciliationLabels,
} from "../../src/controller/metrics.js";
import type { RuntimeSyncReport } from "../../src/controller/runtime.js";
import type { SyncResult } from "../../src/core/sync.js";
import { cpuUtilization, t } from "../core/builders.js";
import { type ReportInput, syncReport } from "./sync-reports.js";

const PREFIX = "horizontal_pod_autoscaler_controller";

const cases: {
  name: string;
  report: ReportInput;
  reconciliation: ReconciliationLabels;
  metrics: MetricComputationLabels[];
}[] = [
  {
    name: "scale up on cpu",
    report: { replicas: 2, cpuPerPodMilli: 100 },
    reconciliation: { action: "scale_up", error: "none" },
    metrics: [{ action: "scale_up", error: "none", metric_type: "Resource" }],
  },
  {
    name: "within tolerance: no action",
    report: { replicas: 2, cpuPerPodMilli: 50 },
    reconciliation: { action: "none", error: "none" },
    metrics: [{ action: "none", error: "none", metric_type: "Resource" }],
  },
  {
    name: "scale down (no stabilization window)",
    report: { replicas: 4, cpuPerPodMilli: 10, downscaleWindowMs: 0 },
    reconciliation: { action: "scale_down", error: "none" },
    metrics: [{ action: "scale_down", error: "none", metric_type: "Resource" }],
  },
  {
    name: "stabilized: the metric proposes a scale-down, the reconcile does nothing",
    report: { replicas: 4, cpuPerPodMilli: 10 },
    reconciliation: { action: "none", error: "none" },
    metrics: [{ action: "scale_down", error: "none", metric_type: "Resource" }],
  },
  {
    name: "metric compared with the previous status.currentReplicas, as upstream",
    report: { replicas: 2, cpuPerPodMilli: 100, previousStatusReplicas: 5 },
    reconciliation: { action: "scale_up", error: "none" },
    metrics: [{ action: "scale_down", error: "none", metric_type: "Resource" }],
  },
  {
    name: "every metric failed: internal",
    report: { replicas: 2, observations: [{ kind: "error", error: "unable to fetch metrics" }] },
    reconciliation: { action: "none", error: "internal" },
    metrics: [{ action: "none", error: "internal", metric_type: "Resource" }],
  },
  {
    name: "unknown metric type next to a scaling-up cpu metric (upstream TestScaleUpOneMetricInvalid)",
    report: {
      replicas: 2,
      cpuPerPodMilli: 100,
      metrics: [cpuUtilization(50), { type: "CheddarCheese" }],
    },
    reconciliation: { action: "scale_up", error: "internal" },
    metrics: [
      { action: "scale_up", error: "none", metric_type: "Resource" },
      { action: "none", error: "spec", metric_type: "CheddarCheese" },
    ],
  },
  {
    name: "unparsable scaleTargetRef.apiVersion: spec",
    report: {
      scaleTargetApiVersion: "apps/v1/beta",
      scaleError: "unexpected GroupVersion string: apps/v1/beta",
    },
    reconciliation: { action: "none", error: "spec" },
    metrics: [],
  },
  {
    name: "scale target not found: internal",
    report: { scaleError: 'deployments.apps "web" not found' },
    reconciliation: { action: "none", error: "internal" },
    metrics: [],
  },
  {
    name: "scale update failed: no action, internal",
    report: { replicas: 2, cpuPerPodMilli: 100, rescaleError: "conflict" },
    reconciliation: { action: "none", error: "internal" },
    metrics: [{ action: "scale_up", error: "none", metric_type: "Resource" }],
  },
  {
    name: "status write failed after a scale-up",
    report: { replicas: 2, cpuPerPodMilli: 100, statusError: "failed to update status" },
    reconciliation: { action: "scale_up", error: "internal" },
    metrics: [{ action: "scale_up", error: "none", metric_type: "Resource" }],
  },
  {
    name: "above maxReplicas: moved to the bound without metrics",
    report: { replicas: 12, maxReplicas: 10 },
    reconciliation: { action: "scale_down", error: "none" },
    metrics: [],
  },
  {
    name: "scaling disabled at zero replicas",
    report: { replicas: 0, minReplicas: 1 },
    reconciliation: { action: "none", error: "none" },
    metrics: [],
  },
  {
    name: "the reconcile threw",
    report: { thrown: new Error("boom") },
    reconciliation: { action: "none", error: "internal" },
    metrics: [],
  },
];

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(",");
}

describe("sync labels and exposition", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const metrics = new ControllerMetrics({ processMetrics: false });
      const used = metrics.recordSync(syncReport(c.report));
      assert.deepEqual(used.reconciliation, c.reconciliation);
      assert.deepEqual(used.metrics, c.metrics);
      const text = await metrics.exposition();
      const r = labelText({ ...c.reconciliation });
      assert.ok(text.includes(`${PREFIX}_reconciliations_total{${r}} 1\n`), text);
      assert.ok(text.includes(`${PREFIX}_reconciliation_duration_seconds_count{${r}} 1\n`));
      for (const m of c.metrics) {
        const l = labelText({ ...m });
        assert.ok(text.includes(`${PREFIX}_metric_computation_total{${l}} 1\n`), text);
        assert.ok(text.includes(`${PREFIX}_metric_computation_duration_seconds_count{${l}} 1\n`));
      }
      if (c.metrics.length === 0) {
        assert.ok(!text.includes(`${PREFIX}_metric_computation_total{`));
      }
    });
  }
});

describe("registry", () => {
  it("has upstream's help texts, types and buckets", async () => {
    const metrics = new ControllerMetrics({ processMetrics: false });
    metrics.recordSync(syncReport({ replicas: 2, cpuPerPodMilli: 100, durationMs: 3 }));
    const text = await metrics.exposition();
    for (const line of [
      `# HELP ${PREFIX}_reconciliations_total [ALPHA] Number of reconciliations of HPA controller. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'. Note that if both spec and internal errors happen during a reconciliation, the first one to occur is reported in \`error\` label.`,
      `# TYPE ${PREFIX}_reconciliations_total counter`,
      `# HELP ${PREFIX}_reconciliation_duration_seconds [ALPHA] The time(seconds) that the HPA controller takes to reconcile once.`,
      `# TYPE ${PREFIX}_reconciliation_duration_seconds histogram`,
      `# HELP ${PREFIX}_metric_computation_total [ALPHA] Number of metric computations. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'. The label 'metric_type' corresponds to HPA.spec.metrics[*].type`,
      `# TYPE ${PREFIX}_metric_computation_total counter`,
      `# HELP ${PREFIX}_metric_computation_duration_seconds [ALPHA] The time(seconds) that the HPA controller takes to calculate one metric. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. The label 'error' should be either 'spec', 'internal', or 'none'. The label 'metric_type' corresponds to HPA.spec.metrics[*].type`,
      `# TYPE ${PREFIX}_metric_computation_duration_seconds histogram`,
    ]) {
      assert.ok(text.includes(line), `missing: ${line}`);
    }
    // ExponentialBuckets(0.001, 2, 15): a 3 ms sync lands in le=0.004 and above.
    const buckets = [
      "0.001",
      "0.002",
      "0.004",
      "0.008",
      "0.016",
      "0.032",
      "0.064",
      "0.128",
      "0.256",
      "0.512",
      "1.024",
      "2.048",
      "4.096",
      "8.192",
      "16.384",
      "+Inf",
    ];
    const seen = [
      ...text.matchAll(
        new RegExp(`^${PREFIX}_reconciliation_duration_seconds_bucket\\{le="([^"]+)",action`, "gm"),
      ),
    ].map((m) => m[1]);
    assert.deepEqual(seen, buckets);
    assert.ok(
      text.includes(
        `${PREFIX}_reconciliation_duration_seconds_bucket{le="0.002",action="scale_up",error="none"} 0`,
      ),
    );
    assert.ok(
      text.includes(
        `${PREFIX}_reconciliation_duration_seconds_bucket{le="0.004",action="scale_up",error="none"} 1`,
      ),
    );
  });

  it("horizontal_pod_autoscaler_fallback_active: 1 while a fallback is in force, 0 after, gone without one", async () => {
    const metrics = new ControllerMetrics({ processMetrics: false });
    const report = syncReport({ replicas: 2, cpuPerPodMilli: 100 });
    const withFallback = (active: boolean | null): SyncResult => ({
      ...report.result!,
      history: {
        ...report.result!.history,
        ...(active === null ? {} : { fallback: { failures: active ? 3 : 0, active } }),
      },
    });
    const gauge = async () =>
      (await metrics.exposition())
        .split("\n")
        .filter((line) => line.startsWith("horizontal_pod_autoscaler_fallback_active{"));
    metrics.recordSync({ ...report, result: withFallback(true) });
    assert.deepEqual(await gauge(), [
      'horizontal_pod_autoscaler_fallback_active{namespace="default",name="web"} 1',
    ]);
    metrics.recordSync({ ...report, result: withFallback(false) });
    assert.deepEqual(await gauge(), [
      'horizontal_pod_autoscaler_fallback_active{namespace="default",name="web"} 0',
    ]);
    metrics.recordSync({ ...report, result: withFallback(null) });
    assert.deepEqual(await gauge(), []);
  });

  it("per-metric durations are used when the runtime times them", async () => {
    const metrics = new ControllerMetrics({ processMetrics: false });
    metrics.recordSync({
      ...syncReport({ replicas: 2, cpuPerPodMilli: 100, durationMs: 900 }),
      metricDurationsMs: [20],
    });
    const text = await metrics.exposition();
    assert.ok(
      text.includes(
        `${PREFIX}_metric_computation_duration_seconds_sum{action="scale_up",error="none",metric_type="Resource"} 0.02\n`,
      ),
    );
  });

  it("the runtime's report fits: its error string does not override the result's labels", () => {
    const metrics = new ControllerMetrics({ processMetrics: false });
    const report = syncReport({
      scaleTargetApiVersion: "a/b/c",
      scaleError: "unexpected GroupVersion string: a/b/c",
    });
    const runtimeReport: RuntimeSyncReport = {
      key: "default/web",
      hpa: report.hpa,
      at: report.at,
      durationMs: report.durationMs,
      worker: 0,
      result: report.result ?? null,
      statusError: null,
      error: report.result!.error,
      action: "none",
    };
    const used = metrics.recordSync(runtimeReport);
    assert.deepEqual(used.reconciliation, { action: "none", error: "spec" });
  });

  it("work queue hooks: depth, adds, queue and work durations, retries", async () => {
    const metrics = new ControllerMetrics({ processMetrics: false });
    const hooks = metrics.workQueueHooks();
    hooks.added(1);
    hooks.added(2);
    hooks.taken(1500, 1);
    hooks.finished(20);
    hooks.retried();
    const text = await metrics.exposition();
    for (const line of [
      'workqueue_depth{name="horizontalpodautoscaler"} 1\n',
      'workqueue_adds_total{name="horizontalpodautoscaler"} 2\n',
      "# HELP workqueue_queue_duration_seconds [BETA] How long in seconds an item stays in workqueue before being requested.\n",
      'workqueue_queue_duration_seconds_bucket{le="1",name="horizontalpodautoscaler"} 0\n',
      'workqueue_queue_duration_seconds_bucket{le="10",name="horizontalpodautoscaler"} 1\n',
      'workqueue_work_duration_seconds_sum{name="horizontalpodautoscaler"} 0.02\n',
      'workqueue_retries_total{name="horizontalpodautoscaler"} 1\n',
    ]) {
      assert.ok(text.includes(line), `missing: ${line}`);
    }
  });

  it("effective sync period: time between two syncs of one HPA", async () => {
    const metrics = new ControllerMetrics({ processMetrics: false, syncPeriodSeconds: 15 });
    metrics.recordSync(syncReport({ seconds: 15 }));
    metrics.recordSync(syncReport({ seconds: 30.5 }));
    metrics.recordSync(syncReport({ seconds: 45.5 }));
    metrics.recordSync(syncReport({ name: "other", seconds: 46 }));
    metrics.forget("default", "web");
    metrics.recordSync(syncReport({ seconds: 200 }));
    const text = await metrics.exposition();
    assert.ok(text.includes("horizon_controller_effective_sync_period_seconds_count 2\n"), text);
    assert.ok(text.includes("horizon_controller_effective_sync_period_seconds_sum 30.5\n"));
    assert.ok(
      text.includes('horizon_controller_effective_sync_period_seconds_bucket{le="15"} 1\n'),
    );
    assert.ok(
      text.includes('horizon_controller_effective_sync_period_seconds_bucket{le="15.75"} 2\n'),
    );
  });

  it("queue depth, adds, leader status, HPAs, API requests, process metrics", async () => {
    const metrics = new ControllerMetrics({ leaseName: "horizon" });
    let depth = 7;
    metrics.setQueueDepthSource(() => depth);
    metrics.recordQueueAdd();
    metrics.setLeader(true);
    metrics.setManagedHpas(3);
    metrics.recordApiRequest({
      method: "GET",
      path: "/apis/apps/v1/namespaces/default/deployments/web/scale",
      status: 200,
    });
    metrics.recordApiRequest({ method: "GET", path: "/api/v1/pods", status: null });
    let text = await metrics.exposition();
    for (const line of [
      "# HELP workqueue_depth [BETA] Current depth of workqueue\n",
      'workqueue_depth{name="horizontalpodautoscaler"} 7\n',
      'workqueue_adds_total{name="horizontalpodautoscaler"} 1\n',
      "# HELP leader_election_master_status [ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.\n",
      'leader_election_master_status{name="horizon"} 1\n',
      "horizon_controller_hpas 3\n",
      'horizon_controller_api_requests_total{verb="get",resource="deployments.apps/scale",code="200"} 1\n',
      'horizon_controller_api_requests_total{verb="list",resource="pods",code="<error>"} 1\n',
      "# TYPE process_cpu_user_seconds_total counter\n",
      "# TYPE nodejs_heap_size_used_bytes gauge\n",
    ]) {
      assert.ok(text.includes(line), `missing: ${line}`);
    }
    depth = 2;
    metrics.setLeader(false);
    text = await metrics.exposition();
    assert.ok(text.includes('workqueue_depth{name="horizontalpodautoscaler"} 2\n'));
    assert.ok(text.includes('leader_election_master_status{name="horizon"} 0\n'));
  });
});

describe("apiRequestLabels", () => {
  const table = [
    {
      name: "list HPAs",
      request: {
        method: "GET",
        path: "/apis/autoscaling/v2/horizontalpodautoscalers",
        status: 200,
      },
      expected: { verb: "list", resource: "horizontalpodautoscalers.autoscaling", code: "200" },
    },
    {
      name: "watch pods",
      request: {
        method: "GET",
        path: "/api/v1/pods",
        query: { watch: true, resourceVersion: "5" },
        status: 200,
      },
      expected: { verb: "watch", resource: "pods", code: "200" },
    },
    {
      name: "update an HPA's status",
      request: {
        method: "PUT",
        path: "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web/status",
        status: 409,
      },
      expected: {
        verb: "update",
        resource: "horizontalpodautoscalers.autoscaling/status",
        code: "409",
      },
    },
    {
      name: "create an event",
      request: { method: "POST", path: "/api/v1/namespaces/shop/events", status: 201 },
      expected: { verb: "create", resource: "events", code: "201" },
    },
    {
      name: "patch an event",
      request: { method: "PATCH", path: "/api/v1/namespaces/shop/events/web.1", status: 200 },
      expected: { verb: "patch", resource: "events", code: "200" },
    },
    {
      name: "pod metrics",
      request: {
        method: "GET",
        path: "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods?labelSelector=app%3Dweb",
        status: 200,
      },
      expected: { verb: "list", resource: "pods.metrics.k8s.io", code: "200" },
    },
    {
      name: "discovery",
      request: { method: "GET", path: "/apis/apps/v1", status: 200 },
      expected: { verb: "get", resource: "discovery", code: "200" },
    },
    {
      name: "a lease",
      request: {
        method: "GET",
        path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/horizon-controller",
        status: 404,
      },
      expected: { verb: "get", resource: "leases.coordination.k8s.io", code: "404" },
    },
  ];
  for (const c of table) {
    it(c.name, () => assert.deepEqual(apiRequestLabels(c.request), c.expected));
  }
});

describe("isInvalidGroupVersion (Go's schema.ParseGroupVersion)", () => {
  const table = [
    { name: "empty", apiVersion: "", invalid: false },
    { name: "core version", apiVersion: "v1", invalid: false },
    { name: "group/version", apiVersion: "apps/v1", invalid: false },
    { name: "two slashes", apiVersion: "apps/v1/beta", invalid: true },
  ];
  for (const c of table) {
    it(c.name, () => assert.equal(isInvalidGroupVersion(c.apiVersion), c.invalid));
  }
});

it("sync reports carry their time", () => {
  assert.equal(syncReport({ seconds: 30 }).at, t(30));
});
