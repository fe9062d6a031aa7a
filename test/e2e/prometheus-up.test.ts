// `horizon up --prometheus`, in real time with real kubectl and Debian's Prometheus: the
// ServiceMonitor kind is served (kubectl apply / get / a 422 naming the field), Prometheus
// starts as a child, is configured from the ServiceMonitors as the Prometheus Operator would and
// reloaded when they change, reaches the API server's HTTP service discovery with the token,
// and stops with the server; the metrics APIs are the adapter's.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { parsePrometheusFlags } from "../../src/cli/up-prometheus.js";
import { findPrometheus, startPrometheus } from "../../src/prometheus/process.js";
import {
  counter,
  openMetrics,
  PROMTOOL_BIN,
  prometheusSkip,
} from "../prometheus/real-prometheus.js";
import {
  type KubectlContext,
  kubectl,
  kubectlRequired,
  pollUntil,
  requestUp,
  startTestServer,
  type TestServer,
  whichKubectl,
} from "./helpers.js";

const SERVICE_MONITOR = `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: sample-app
  labels:
    app: sample-app
spec:
  selector:
    matchLabels:
      app: sample-app
  endpoints:
  - port: http
    interval: 1s
`;

const kubectlPath = whichKubectl();
const skip =
  prometheusSkip("prometheus-up") ||
  (kubectlPath || kubectlRequired() ? false : "kubectl not on PATH; skipped outside CI");

describe("horizon up --prometheus", { skip }, () => {
  let server: TestServer;
  let ctx: KubectlContext;
  before(async () => {
    assert.ok(kubectlPath, "CI=true requires kubectl on PATH");
    const options = parsePrometheusFlags({ prometheus: true, prometheusScrapeInterval: "1s" });
    assert.ok(options.ok && options.value);
    server = await startTestServer({ prometheus: options.value });
    ctx = server.context({ name: "kubectl", path: kubectlPath });
  });
  after(async () => {
    await server?.up.close();
  });

  const prometheusUrl = () => server.up.prometheus?.prometheusUrl ?? "";
  const loadedConfig = async () => {
    const answer = (await (await fetch(`${prometheusUrl()}/api/v1/status/config`)).json()) as {
      data: { yaml: string };
    };
    return parseYaml(answer.data.yaml) as {
      scrape_configs?: { job_name: string; relabel_configs: { target_label?: string }[] }[];
    };
  };

  test("Prometheus runs on loopback; a ServiceMonitor becomes the operator's scrape job", async () => {
    assert.match(prometheusUrl(), /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await fetch(`${prometheusUrl()}/-/ready`)).status, 200);
    assert.deepEqual((await loadedConfig()).scrape_configs ?? [], []);

    const applied = await kubectl(ctx, ["apply", "-f", "-"], { stdin: SERVICE_MONITOR });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /servicemonitor.monitoring.coreos.com\/sample-app created/);
    const got = await kubectl(ctx, ["get", "servicemonitors"]);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /^NAME\s+AGE\nsample-app\s+/);

    const job = await pollUntil(
      "Prometheus to load the ServiceMonitor's job",
      async () =>
        (await loadedConfig()).scrape_configs?.find(
          (j) => j.job_name === "serviceMonitor/default/sample-app/0",
        ),
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    const targets = job.relabel_configs.flatMap((r) => (r.target_label ? [r.target_label] : []));
    for (const label of ["namespace", "service", "pod", "job", "endpoint"]) {
      assert.ok(targets.includes(label), `relabels to ${label}`);
    }
    // The HTTP service discovery answers Prometheus (with the token over TLS): no SD errors.
    const sd = await kubectl(ctx, ["get", "--raw", "/prometheus/sd/endpoints"]);
    assert.equal(sd.code, 0, sd.stderr);
    assert.ok(Array.isArray(JSON.parse(sd.stdout)));

    const deleted = await kubectl(ctx, ["delete", "servicemonitor", "sample-app"]);
    assert.equal(deleted.code, 0, deleted.stderr);
    await pollUntil(
      "Prometheus to drop the job",
      async () => ((await loadedConfig()).scrape_configs ?? []).length === 0 || undefined,
      { timeoutMs: 15_000, intervalMs: 200 },
    );
  });

  test("Prometheus scrapes what the ServiceMonitor selects, labelled namespace/service/job/endpoint", async () => {
    // A selectorless Service with hand-made Endpoints (no controller rewrites them), pointing at
    // an exporter on loopback.
    let scrapes = 0;
    const exporter = createServer((req, res) => {
      if (req.url !== "/metrics") {
        res.writeHead(404).end();
        return;
      }
      scrapes++;
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
      res.end(
        `# TYPE http_requests_total counter\nhttp_requests_total{method="GET",code="200"} ${scrapes * 10}\n`,
      );
    });
    await new Promise<void>((resolve) => exporter.listen(0, "127.0.0.1", resolve));
    const port = (exporter.address() as AddressInfo).port;
    try {
      const service = `apiVersion: v1
kind: Service
metadata: {name: external-app, labels: {app: external-app}}
spec:
  ports: [{name: http, port: 80, targetPort: ${port}}]
`;
      const applied = await kubectl(ctx, ["apply", "-f", "-"], { stdin: service });
      assert.equal(applied.code, 0, applied.stderr);
      server.up.cluster.create({
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: "external-app", namespace: "default", labels: { app: "external-app" } },
        subsets: [
          { addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "http", port, protocol: "TCP" }] },
        ],
      } as never);
      const monitor = SERVICE_MONITOR.replaceAll("sample-app", "external-app");
      const created = await kubectl(ctx, ["apply", "-f", "-"], { stdin: monitor });
      assert.equal(created.code, 0, created.stderr);
      const series = await pollUntil(
        "Prometheus to scrape the exporter through HTTP service discovery",
        async () => {
          const answer = (await (
            await fetch(
              `${prometheusUrl()}/api/v1/query?query=${encodeURIComponent("http_requests_total")}`,
            )
          ).json()) as { data: { result: { metric: Record<string, string> }[] } };
          return answer.data.result[0]?.metric;
        },
        { timeoutMs: 20_000, intervalMs: 250 },
      );
      assert.deepEqual(
        {
          namespace: series.namespace,
          service: series.service,
          job: series.job,
          endpoint: series.endpoint,
          instance: series.instance,
        },
        {
          namespace: "default",
          service: "external-app",
          job: "external-app",
          endpoint: "http",
          instance: `127.0.0.1:${port}`,
        },
      );
      const deleted = await kubectl(ctx, ["delete", "servicemonitor", "external-app"]);
      assert.equal(deleted.code, 0, deleted.stderr);
    } finally {
      await new Promise<void>((resolve) => exporter.close(() => resolve()));
    }
  });

  test("the Prometheus Operator's CRDs apply; a kind not built in is served from its CRD", async () => {
    const crd = (plural: string, kind: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.monitoring.coreos.com
  annotations: {operator.prometheus.io/version: 0.75.0}
spec:
  group: monitoring.coreos.com
  names: {kind: ${kind}, listKind: ${kind}List, plural: ${plural}, singular: ${kind.toLowerCase()}, categories: [prometheus-operator]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
    const monitors = await kubectl(ctx, ["apply", "--server-side", "-f", "-"], {
      stdin: crd("servicemonitors", "ServiceMonitor"),
    });
    assert.equal(monitors.code, 0, monitors.stderr);
    assert.match(
      monitors.stdout,
      /customresourcedefinition.apiextensions.k8s.io\/servicemonitors.monitoring.coreos.com serverside-applied/,
    );
    assert.equal(monitors.stderr, "");
    const other = await kubectl(ctx, ["apply", "--server-side", "-f", "-"], {
      stdin: crd("podmonitors", "PodMonitor"),
    });
    assert.equal(other.code, 0, other.stderr);
    // Any other CRD's resources are served generically (docs/customresources.md).
    assert.equal(other.stderr, "");
    const podMonitors = await kubectl(ctx, ["get", "podmonitors"]);
    assert.equal(podMonitors.code, 0, podMonitors.stderr);
    assert.match(podMonitors.stderr, /No resources found in default namespace/);
    const listed = await kubectl(ctx, ["get", "crd"]);
    assert.match(
      listed.stdout,
      /^NAME\s+CREATED AT\npodmonitors.monitoring.coreos.com\s+\S+\nservicemonitors.monitoring.coreos.com\s+/,
    );
    const misnamed = await kubectl(ctx, ["apply", "-f", "-"], {
      stdin: crd("servicemonitors", "ServiceMonitor").replace(
        "name: servicemonitors.monitoring.coreos.com",
        "name: monitors.example.com",
      ),
    });
    assert.notEqual(misnamed.code, 0);
    assert.match(
      misnamed.stderr,
      /metadata\.name: Invalid value: "monitors\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/,
    );
  });

  test("a bad ServiceMonitor is a 422 naming the field; nothing is stored", async () => {
    const bad = SERVICE_MONITOR.replace("  - port: http\n", "  - port: 8080\n");
    const applied = await kubectl(ctx, ["apply", "-f", "-"], { stdin: bad });
    assert.notEqual(applied.code, 0);
    assert.match(
      applied.stderr,
      /^The ServiceMonitor "sample-app" is invalid: spec\.endpoints\[0\]\.port: Invalid value: "integer": spec\.endpoints\[0\]\.port in body must be of type string: "integer"$/m,
    );
    const got = await kubectl(ctx, ["get", "servicemonitor", "sample-app"]);
    assert.notEqual(got.code, 0);
  });

  test("the metrics APIs are the adapter's: the book's rule is listed once its series exist", async () => {
    const raw = await kubectl(ctx, ["get", "--raw", "/apis/custom.metrics.k8s.io/v1beta1"]);
    assert.equal(raw.code, 0, raw.stderr);
    const list = JSON.parse(raw.stdout) as { kind: string; groupVersion: string };
    assert.equal(list.kind, "APIResourceList");
    assert.equal(list.groupVersion, "custom.metrics.k8s.io/v1beta1");
    // No series scraped yet: the metric is not found, as prometheus-adapter answers.
    const metric = await kubectl(ctx, [
      "get",
      "--raw",
      "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests",
    ]);
    assert.notEqual(metric.code, 0);
    assert.match(metric.stderr, /the server could not find the metric http_requests for pods/);
  });

  test("a Prometheus that dies is started again on its data; /readyz says so meanwhile", async () => {
    const url = prometheusUrl();
    const listen = `--web.listen-address=${url.replace(/^http:\/\//, "")}`;
    const prometheusPid = () => {
      for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
        try {
          const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
          if (args.includes(listen) && !args.includes("-c")) return Number(pid);
        } catch {
          // gone meanwhile
        }
      }
      return undefined;
    };
    const first = await pollUntil("Prometheus' process", prometheusPid);
    assert.equal((await requestUp(server.up, "GET", "/readyz/prometheus")).status, 200);
    process.kill(first, "SIGKILL");
    const down = await pollUntil("/readyz to fail on prometheus", async () => {
      const answer = await requestUp(server.up, "GET", "/readyz?verbose");
      return answer.status === 500 ? answer.body : undefined;
    });
    assert.match(down, /\[-\]prometheus failed: prometheus killed by SIGKILL; restarting\n/);
    assert.match(down, /readyz check failed\n$/);
    const again = await pollUntil(
      "/readyz to pass again",
      async () => {
        const answer = await requestUp(server.up, "GET", "/readyz?verbose");
        return answer.status === 200 ? answer.body : undefined;
      },
      { timeoutMs: 30_000 },
    );
    assert.match(again, /\[\+\]prometheus ok\n/);
    assert.notEqual(prometheusPid(), first);
    assert.equal((await fetch(`${url}/-/ready`)).status, 200, "the same address");
  });

  test("close stops Prometheus", async () => {
    const url = prometheusUrl();
    const dir = server.up.prometheus?.dataDir;
    await server.up.close();
    const answer = await fetch(`${url}/-/ready`).then(
      (r) => r.status,
      () => "refused",
    );
    assert.equal(answer, "refused");
    if (dir) assert.ok(existsSync(dir), "a data directory's TSDB stays");
  });
});

// A StatefulSet's pods have known names (web-0, web-1, web-2): their series are backfilled into
// the data directory's TSDB before `horizon up --prometheus --data-dir` starts (ten minutes
// either side of now, so every rate window is whole), and the adapter serves their rates (250m
// each, under the 500m target) until Prometheus goes away.
const STATEFUL_APP = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  replicas: 3
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: web}
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: Pods
    pods:
      metric: {name: http_requests}
      target: {type: AverageValue, averageValue: 500m}
`;

describe("horizon up --prometheus: Prometheus down", { skip }, () => {
  let server: TestServer;
  let ctx: KubectlContext;
  before(async () => {
    assert.ok(kubectlPath && PROMTOOL_BIN, "CI=true requires kubectl and promtool");
    const dir = mkdtempSync(join(tmpdir(), "horizon-prom-down-"));
    const dataDir = join(dir, "data");
    const promDir = join(dataDir, "prometheus");
    mkdirSync(promDir, { recursive: true });
    const now = Math.floor(Date.now() / 1000);
    const series = ["web-0", "web-1", "web-2"].map((pod) =>
      counter("http_requests_total", { namespace: "default", pod }, now - 600, now + 600, 0.25, 4),
    );
    writeFileSync(join(promDir, "data.om"), openMetrics(series));
    execFileSync(PROMTOOL_BIN, ["tsdb", "create-blocks-from", "openmetrics", "data.om", "data"], {
      cwd: promDir,
      stdio: "pipe",
    });
    const options = parsePrometheusFlags({ prometheus: true, prometheusScrapeInterval: "1s" });
    assert.ok(options.ok && options.value);
    // Prometheus stays down for the whole test: its restart (after a death) waits 10 minutes.
    const restartBackoffMs = { initial: 600_000, max: 600_000 };
    server = await startTestServer({
      prometheus: { ...options.value, restartBackoffMs },
      dataDir,
    });
    ctx = server.context({ name: "kubectl", path: kubectlPath });
  });
  after(async () => {
    await server?.up.close();
  });

  test("the HPA reports FailedGetPodsMetric and does not scale down", async () => {
    const applied = await kubectl(ctx, ["apply", "-f", "-"], { stdin: STATEFUL_APP });
    assert.equal(applied.code, 0, applied.stderr);
    // While Prometheus answers, each pod's rate is served (the HPA would scale down, after the
    // 5-minute downscale window).
    const rates = await pollUntil(
      "the adapter to serve the backfilled rates",
      async () => {
        const raw = await kubectl(ctx, [
          "get",
          "--raw",
          "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests?labelSelector=app%3Dweb",
        ]);
        if (raw.code !== 0) return undefined;
        const list = JSON.parse(raw.stdout) as {
          items: { describedObject: { name: string }; value: string }[];
        };
        return list.items.length === 3
          ? list.items.map((i) => [i.describedObject.name, i.value])
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    assert.deepEqual(rates, [
      ["web-0", "250m"],
      ["web-1", "250m"],
      ["web-2", "250m"],
    ]);
    const quit = await fetch(`${server.up.prometheus?.prometheusUrl}/-/quit`, { method: "POST" });
    assert.equal(quit.status, 200);
    const message = await pollUntil(
      "a FailedGetPodsMetric event",
      async () => {
        const got = await kubectl(ctx, [
          "get",
          "events",
          "--field-selector",
          "reason=FailedGetPodsMetric",
          "-o",
          "json",
        ]);
        const items = JSON.parse(got.stdout).items as { message: string; count?: number }[];
        const failing = items.find((e) => e.message.includes("unable to fetch metrics"));
        return failing && (failing.count ?? 1) >= 2 ? failing.message : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    assert.match(message, /Internal error occurred: unable to fetch metrics/);
    const condition = await kubectl(ctx, [
      "get",
      "hpa",
      "web",
      "-o",
      'jsonpath={.status.conditions[?(@.type=="ScalingActive")].reason}',
    ]);
    assert.equal(condition.stdout, "FailedGetPodsMetric");
    const replicas = await kubectl(ctx, [
      "get",
      "statefulset",
      "web",
      "-o",
      "jsonpath={.spec.replicas}",
    ]);
    assert.equal(replicas.stdout, "3");
  });
});

describe("--prometheus without the binary, and bad flags", () => {
  test("a clear error says how to install it", async () => {
    assert.equal(findPrometheus(""), null);
    const started = await startPrometheus({ config: "global: {}\n", binary: null });
    assert.deepEqual(started, {
      ok: false,
      error:
        "--prometheus: prometheus is not installed; install it (Debian/Ubuntu: apt-get install prometheus) or put the prometheus binary on PATH",
    });
  });

  test("an address Prometheus cannot listen on is an error naming the flag", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const options = parsePrometheusFlags({
        prometheus: true,
        prometheusBindAddress: `127.0.0.1:${port}`,
      });
      assert.ok(options.ok && options.value);
      assert.deepEqual(options.value.bindAddress, { host: "127.0.0.1", port });
      // The address is checked before Prometheus is started (the binary here never runs).
      const started = await startPrometheus({
        config: "global: {}\n",
        binary: "/bin/false",
        listenAddress: options.value.bindAddress,
        listenFlag: "--prometheus-bind-address",
      });
      assert.deepEqual(started, {
        ok: false,
        error: `--prometheus-bind-address 127.0.0.1:${port}: cannot listen there: address already in use`,
      });
    } finally {
      taken.close();
    }
  });

  test("Prometheus listens where --prometheus-bind-address says", {
    skip: prometheusSkip("prometheus-bind-address"),
  }, async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const { port } = free.address() as AddressInfo;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const started = await startPrometheus({
      config: "global: {}\n",
      listenAddress: { host: "127.0.0.1", port },
    });
    assert.ok(started.ok, started.ok ? "" : started.error);
    try {
      assert.equal(started.value.url, `http://127.0.0.1:${port}`);
      assert.equal((await fetch(`http://127.0.0.1:${port}/-/ready`)).status, 200);
    } finally {
      await started.value.stop();
    }
  });

  const cases: {
    name: string;
    flags: Parameters<typeof parsePrometheusFlags>[0];
    error: RegExp;
  }[] = [
    {
      name: "a bind address that is not HOST:PORT",
      flags: { prometheus: true, prometheusBindAddress: "9090" },
      error: /^--prometheus-bind-address: must be HOST:PORT \(port 0: a free one\), got "9090"$/,
    },
    {
      name: "a bind address without --prometheus",
      flags: { prometheusBindAddress: "127.0.0.1:9090" },
      error: /^--prometheus-bind-address: has no effect without --prometheus$/,
    },
    {
      name: "an adapter config without --prometheus",
      flags: { adapterConfig: "x.yaml" },
      error: /^--adapter-config: needs --prometheus/,
    },
    {
      name: "a missing adapter config",
      flags: { prometheus: true, adapterConfig: "/nonexistent/rules.yaml" },
      error: /^--adapter-config \/nonexistent\/rules\.yaml: no such file$/,
    },
    {
      name: "a bad scrape interval",
      flags: { prometheus: true, prometheusScrapeInterval: "1.5s" },
      error: /^--prometheus-scrape-interval: expected a positive duration such as 15s/,
    },
    {
      name: "a scrape interval without --prometheus",
      flags: { prometheusScrapeInterval: "1s" },
      error: /has no effect without --prometheus/,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const parsed = parsePrometheusFlags(c.flags);
      assert.equal(parsed.ok, false);
      assert.match(parsed.ok ? "" : parsed.error, c.error);
    });
  }
});
