// `npm run bench:traffic`, the adapter's section: how long the Prometheus adapter takes to answer
// the HPA's request for a Pods metric over 100 pods (`GET …/pods/*/http_requests?labelSelector=`):
// listing the pods through `horizon up`'s API server (HTTPS, token) and one PromQL instant query
// on a real Prometheus (Debian's) holding 30 minutes of http_requests_total for each pod.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../src/kube/client.js";
import { loadKubeConfig } from "../src/kube/config.js";
import { PrometheusAdapter } from "../src/prometheus/adapter.js";
import { BOOK_ADAPTER_CONFIG, readAdapterConfig } from "../src/prometheus/adapter-config.js";
import { findPrometheus, startPrometheus } from "../src/prometheus/process.js";
import { startUp } from "../src/up/up.js";

const PODS = 100;
const WARMUP = 20;
const REQUESTS = 300;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function benchAdapter(log: (line: string) => void): Promise<void> {
  const prometheusBin = findPrometheus();
  if (!prometheusBin) {
    log("adapter: skipped (prometheus is not installed: apt-get install prometheus)");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "horizon-bench-adapter-"));
  const up = await startUp({
    port: 0,
    address: "127.0.0.1",
    controller: false,
    kubeconfigOut: join(dir, "kubeconfig"),
  });
  if (!up.ok) throw new Error(up.error);
  const loaded = await loadKubeConfig({ kubeconfig: join(dir, "kubeconfig") });
  if (!loaded.ok) throw new Error(loaded.error);
  const kube = createKubeClient(loaded.value, { qps: 0 });
  const names: string[] = [];
  for (let i = 0; i < PODS; i++) {
    const name = `sample-app-${String(i).padStart(3, "0")}`;
    names.push(name);
    const created = await kube.request({
      method: "POST",
      path: "/api/v1/namespaces/default/pods",
      body: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, labels: { app: "sample-app" } },
        spec: { containers: [{ name: "app", image: "sample-app" }] },
      },
    });
    if (created.status !== 201) throw new Error(`create pod: HTTP ${created.status}`);
  }

  // 30 minutes of counters up to now, one sample every 15 s, each pod at its own rate.
  const now = Math.floor(Date.now() / 1000);
  let om = "# TYPE http_requests_total counter\n";
  names.forEach((pod, i) => {
    for (let t = now - 1800, v = 0; t <= now; t += 15, v += 15 * (0.1 + i / 100)) {
      om += `http_requests_total{namespace="default",pod="${pod}",method="GET",code="200"} ${v} ${t}\n`;
    }
  });
  om += "# EOF\n";
  const promDir = join(dir, "prometheus");
  mkdirSync(promDir);
  writeFileSync(join(promDir, "data.om"), om);
  execFileSync("promtool", ["tsdb", "create-blocks-from", "openmetrics", "data.om", "data"], {
    cwd: promDir,
    stdio: "pipe",
  });
  const prometheus = await startPrometheus({
    dataDir: promDir,
    config: "global: {}\n",
    binary: prometheusBin,
  });
  if (!prometheus.ok) throw new Error(prometheus.error);

  const config = readAdapterConfig(BOOK_ADAPTER_CONFIG);
  if (!config.ok) throw new Error(config.errors.join("; "));
  const adapter = new PrometheusAdapter({
    prometheus: { url: prometheus.value.url },
    config: config.config,
    kube,
  });
  const refreshed = await adapter.refresh();
  if (!refreshed.ok) throw new Error(refreshed.error);
  const path = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests";
  const query = new URLSearchParams("labelSelector=app%3Dsample-app");
  const times: number[] = [];
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const started = process.hrtime.bigint();
    const answer = await adapter.handle("GET", path, query);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const items = (answer?.body as { items?: unknown[] } | undefined)?.items?.length ?? 0;
    if (answer?.status !== 200 || items !== PODS) {
      throw new Error(`unexpected answer: HTTP ${answer?.status}, ${items} items`);
    }
    if (i >= WARMUP) times.push(ms);
  }
  times.sort((a, b) => a - b);
  log(
    `adapter: GET pods/*/http_requests for ${PODS} pods (list pods over HTTPS + 1 PromQL query): p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms over ${REQUESTS} requests`,
  );
  await prometheus.value.stop();
  await up.value.close();
  rmSync(dir, { recursive: true, force: true });
}
