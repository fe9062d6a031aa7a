// HTTP service discovery's targets and labels (Kubernetes SD's endpoints and endpointslice
// roles), and the Prometheus Operator-style scrape configuration, which Debian's promtool must
// accept as it is.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { discoverTargets, type SdSource } from "../../src/prometheus/sd.js";
import { prometheusConfig, serviceMonitorJobs } from "../../src/prometheus/servicemonitor.js";
import { PROMTOOL_BIN, prometheusSkip } from "./real-prometheus.js";

const obj = (o: Record<string, unknown>) => o as unknown as KubeObject;

const SERVICE = obj({
  apiVersion: "v1",
  kind: "Service",
  metadata: {
    name: "sample-app",
    namespace: "default",
    labels: { app: "sample-app", "app.kubernetes.io/part-of": "book" },
  },
  spec: { selector: { app: "sample-app" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
});
const POD = obj({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "sample-app-7d9f-abcde",
    namespace: "default",
    uid: "u-1",
    labels: { app: "sample-app" },
    ownerReferences: [
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "sample-app-7d9f",
        uid: "r",
        controller: true,
      },
    ],
  },
  spec: {
    nodeName: "horizon-node",
    containers: [
      {
        name: "metrics-provider",
        image: "luxas/autoscale-demo",
        ports: [{ name: "http", containerPort: 8080 }],
      },
    ],
  },
  status: {
    phase: "Running",
    podIP: "127.64.0.5",
    hostIP: "127.0.0.1",
    conditions: [{ type: "Ready", status: "True" }],
  },
});
const ENDPOINTS = obj({
  apiVersion: "v1",
  kind: "Endpoints",
  metadata: { name: "sample-app", namespace: "default", labels: { app: "sample-app" } },
  subsets: [
    {
      addresses: [
        {
          ip: "127.64.0.5",
          nodeName: "horizon-node",
          targetRef: { kind: "Pod", name: "sample-app-7d9f-abcde", namespace: "default" },
        },
      ],
      notReadyAddresses: [
        {
          ip: "127.64.0.6",
          targetRef: { kind: "Pod", name: "sample-app-7d9f-fghij", namespace: "default" },
        },
      ],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    },
  ],
});
const SLICE = obj({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: {
    name: "sample-app-x1",
    namespace: "default",
    labels: { "kubernetes.io/service-name": "sample-app" },
  },
  addressType: "IPv4",
  ports: [{ name: "http", port: 8080, protocol: "TCP" }],
  endpoints: [
    {
      addresses: ["127.64.0.5"],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: "horizon-node",
      targetRef: { kind: "Pod", name: "sample-app-7d9f-abcde", namespace: "default" },
    },
  ],
});

const source: SdSource = {
  list: (kind, namespace) =>
    [SERVICE, POD, ENDPOINTS, SLICE].filter(
      (o) => o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace),
    ),
};

describe("HTTP service discovery", () => {
  test("the endpoints role: one group per address and port, with Kubernetes SD's labels", () => {
    const groups = discoverTargets(source, "endpoints");
    assert.deepEqual(
      groups.map((g) => g.targets),
      [["127.64.0.5:8080"], ["127.64.0.6:8080"]],
    );
    const ready = groups[0]!.labels;
    const expected: Record<string, string> = {
      __meta_kubernetes_namespace: "default",
      __meta_kubernetes_endpoints_name: "sample-app",
      __meta_kubernetes_service_name: "sample-app",
      __meta_kubernetes_service_label_app: "sample-app",
      __meta_kubernetes_service_labelpresent_app: "true",
      __meta_kubernetes_service_label_app_kubernetes_io_part_of: "book",
      __meta_kubernetes_endpoint_port_name: "http",
      __meta_kubernetes_endpoint_port_protocol: "TCP",
      __meta_kubernetes_endpoint_ready: "true",
      __meta_kubernetes_endpoint_node_name: "horizon-node",
      __meta_kubernetes_endpoint_address_target_kind: "Pod",
      __meta_kubernetes_endpoint_address_target_name: "sample-app-7d9f-abcde",
      __meta_kubernetes_pod_name: "sample-app-7d9f-abcde",
      __meta_kubernetes_pod_ip: "127.64.0.5",
      __meta_kubernetes_pod_ready: "true",
      __meta_kubernetes_pod_phase: "Running",
      __meta_kubernetes_pod_label_app: "sample-app",
      __meta_kubernetes_pod_controller_kind: "ReplicaSet",
      __meta_kubernetes_pod_controller_name: "sample-app-7d9f",
      __meta_kubernetes_pod_container_name: "metrics-provider",
      __meta_kubernetes_pod_container_port_name: "http",
      __meta_kubernetes_pod_container_port_number: "8080",
    };
    for (const [key, value] of Object.entries(expected)) assert.equal(ready[key], value, key);
    // The not-ready address: its pod is unknown here, so no pod labels.
    assert.equal(groups[1]!.labels.__meta_kubernetes_endpoint_ready, "false");
    assert.equal(groups[1]!.labels.__meta_kubernetes_pod_name, undefined);
  });

  test("the endpointslice role", () => {
    const [group, ...rest] = discoverTargets(source, "endpointslice");
    assert.deepEqual(rest, []);
    assert.deepEqual(group!.targets, ["127.64.0.5:8080"]);
    const labels = group!.labels;
    assert.equal(labels.__meta_kubernetes_endpointslice_name, "sample-app-x1");
    assert.equal(labels.__meta_kubernetes_endpointslice_port_name, "http");
    assert.equal(labels.__meta_kubernetes_endpointslice_endpoint_conditions_ready, "true");
    assert.equal(labels.__meta_kubernetes_service_name, "sample-app");
    assert.equal(labels.__meta_kubernetes_pod_name, "sample-app-7d9f-abcde");
  });

  test("a namespace filter", () => {
    assert.deepEqual(discoverTargets(source, "endpoints", "other"), []);
  });
});

const MONITOR = obj({
  apiVersion: "monitoring.coreos.com/v1",
  kind: "ServiceMonitor",
  metadata: { name: "sample-app", namespace: "default" },
  spec: {
    selector: {
      matchLabels: { app: "sample-app" },
      matchExpressions: [
        { key: "tier", operator: "NotIn", values: ["batch"] },
        { key: "app.kubernetes.io/part-of", operator: "Exists" },
      ],
    },
    namespaceSelector: { matchNames: ["default", "shop"] },
    endpoints: [{ port: "http", interval: "5s", path: "/metrics" }, { targetPort: 9090 }],
  },
});
const SD = {
  url: "https://127.0.0.1:6443/prometheus/sd/endpoints",
  refreshInterval: "5s",
  token: "t0k",
  caFile: "/tmp/ca.crt",
};

describe("the ServiceMonitor's scrape configuration", () => {
  test("one job per endpoint, named and relabelled as the operator does", () => {
    const jobs = serviceMonitorJobs([MONITOR], SD);
    assert.deepEqual(
      jobs.map((j) => j.job_name),
      ["serviceMonitor/default/sample-app/0", "serviceMonitor/default/sample-app/1"],
    );
    const [first, second] = jobs as {
      relabel_configs: Record<string, unknown>[];
      [k: string]: unknown;
    }[];
    assert.equal(first!.scrape_interval, "5s");
    assert.deepEqual(first!.http_sd_configs, [
      {
        url: SD.url,
        refresh_interval: "5s",
        authorization: { type: "Bearer", credentials: "t0k" },
        tls_config: { ca_file: "/tmp/ca.crt" },
      },
    ]);
    const keeps = first!.relabel_configs.filter((r) => r.action === "keep" || r.action === "drop");
    assert.deepEqual(keeps.slice(0, 5), [
      { action: "keep", source_labels: ["__meta_kubernetes_namespace"], regex: "(default|shop)" },
      {
        action: "keep",
        source_labels: [
          "__meta_kubernetes_service_label_app",
          "__meta_kubernetes_service_labelpresent_app",
        ],
        regex: "(sample-app);true",
      },
      {
        action: "drop",
        source_labels: [
          "__meta_kubernetes_service_label_tier",
          "__meta_kubernetes_service_labelpresent_tier",
        ],
        regex: "(batch);true",
      },
      {
        action: "keep",
        source_labels: ["__meta_kubernetes_service_labelpresent_app_kubernetes_io_part_of"],
        regex: "true",
      },
      { action: "keep", source_labels: ["__meta_kubernetes_endpoint_port_name"], regex: "http" },
    ]);
    assert.deepEqual(first!.relabel_configs.at(-1), {
      target_label: "endpoint",
      replacement: "http",
    });
    assert.ok(
      second!.relabel_configs.some(
        (r) =>
          r.action === "keep" &&
          (r.source_labels as string[])[0] === "__meta_kubernetes_pod_container_port_number" &&
          r.regex === "9090",
      ),
    );
  });

  test("Prometheus' own checker accepts the configuration", {
    skip: prometheusSkip("promtool check config"),
  }, () => {
    assert.ok(PROMTOOL_BIN, "CI=true requires promtool (.ci/run installs prometheus)");
    const dir = mkdtempSync(join(tmpdir(), "horizon-promcfg-"));
    writeFileSync(join(dir, "ca.crt"), "");
    const file = join(dir, "prometheus.yml");
    writeFileSync(
      file,
      prometheusConfig([MONITOR], { ...SD, caFile: join(dir, "ca.crt") }, { scrapeInterval: "1s" }),
    );
    const out = execFileSync(PROMTOOL_BIN, ["check", "config", "--syntax-only", file], {
      encoding: "utf8",
    });
    assert.match(out, /SUCCESS/);
  });
});
