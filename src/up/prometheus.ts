// `horizon up --prometheus [--adapter-config FILE]`: a real Prometheus as a child process,
// scraping what the cluster's ServiceMonitors select (found through the API server's HTTP
// service discovery), reloaded when they change; and the Prometheus adapter answering
// custom.metrics.k8s.io and external.metrics.k8s.io on the API server from it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorResponse, pathNotFound } from "../apiserver/errors.js";
import type { ReadinessChecks } from "../apiserver/health.js";
import { handleMetricsApi } from "../apiserver/metrics-api.js";
import { SD_PATH } from "../apiserver/prometheus-sd.js";
import type { ApiRequest, ApiResponse } from "../apiserver/types.js";
import type { EmbeddedCluster } from "../cluster/cluster.js";
import type { BindAddress } from "../controller-manager/options.js";
import { createKubeClient } from "../kube/client.js";
import { loadKubeConfig } from "../kube/config.js";
import { PrometheusAdapter } from "../prometheus/adapter.js";
import type { AdapterConfig } from "../prometheus/adapter-config.js";
import { type PrometheusProcess, startPrometheus } from "../prometheus/process.js";
import { prometheusConfig } from "../prometheus/servicemonitor.js";

export interface PrometheusStackOptions {
  /** Start Prometheus as a child process. */
  prometheus: boolean;
  /** Prometheus' global scrape interval, e.g. "15s". */
  scrapeInterval: string;
  /** Its --web.listen-address (port 0: a free one). */
  bindAddress: BindAddress;
  /** The adapter's rules (null: no adapter) and where they came from. */
  adapter: { config: AdapterConfig; source: string } | null;
  /** Discovery interval of the adapter (and of Prometheus' HTTP SD). */
  relistIntervalMs: number;
  /** The wait before restarting a Prometheus that died (default 1 s doubling to 30 s). */
  restartBackoffMs?: { initial: number; max: number };
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** The API server's metrics APIs: custom and external ones from the adapter once it runs. */
export class AdapterHook {
  adapter: PrometheusAdapter | null = null;

  readonly handleMetricsApi = (
    req: ApiRequest,
    cluster: EmbeddedCluster,
  ): Promise<ApiResponse> | ApiResponse | null => {
    const group = req.path.split("/")[2];
    const adapter = this.adapter;
    if (adapter && (group === "custom.metrics.k8s.io" || group === "external.metrics.k8s.io")) {
      return adapter.handle(req.method, req.path, req.query).then((answer) =>
        answer
          ? {
              status: answer.status,
              headers: { "content-type": "application/json" },
              body: answer.body,
            }
          : errorResponse(pathNotFound()),
      );
    }
    return handleMetricsApi(req, cluster);
  };
}

export interface RunningStack {
  prometheusUrl: string | null;
  dataDir: string | null;
  adapterSource: string | null;
  close(): Promise<void>;
}

/** Starts Prometheus (and the adapter, wired into `hook`) against the running API server. */
export async function startPrometheusStack(
  options: PrometheusStackOptions,
  context: {
    cluster: EmbeddedCluster;
    apiUrl: string;
    token: string | null;
    caCert: string | null;
    kubeconfigFile: string;
    /** The data directory of `horizon up`, if any: Prometheus keeps its TSDB under it. */
    dataDir: string | null;
    hook: AdapterHook;
    log: (line: string) => void;
    /** `/readyz` of the API server: Prometheus' check is added here. */
    readiness: ReadinessChecks;
  },
): Promise<Parsed<RunningStack>> {
  const dir = context.dataDir
    ? join(context.dataDir, "prometheus")
    : mkdtempSync(join(tmpdir(), "horizon-prometheus-"));
  mkdirSync(dir, { recursive: true });
  let caFile: string | undefined;
  if (context.caCert) {
    caFile = join(dir, "api-ca.crt");
    writeFileSync(caFile, context.caCert);
  }
  const sd = {
    url: `${context.apiUrl}${SD_PATH}/endpoints`,
    refreshInterval: `${Math.max(1, Math.round(options.relistIntervalMs / 1000))}s`,
    ...(context.token ? { token: context.token } : {}),
    ...(caFile ? { caFile } : {}),
  };
  const render = () =>
    prometheusConfig(context.cluster.store.list("ServiceMonitor"), sd, {
      scrapeInterval: options.scrapeInterval,
    });
  let config = render();
  const started = await startPrometheus({
    dataDir: dir,
    config,
    listenAddress: options.bindAddress,
    listenFlag: "--prometheus-bind-address",
    ...(options.restartBackoffMs ? { restartBackoffMs: options.restartBackoffMs } : {}),
    log: (line) => context.log(`${new Date().toISOString().slice(11, 19)} ${line}`),
  });
  if (!started.ok) {
    if (!context.dataDir) rmSync(dir, { recursive: true, force: true });
    return started;
  }
  const prometheus: PrometheusProcess = started.value;
  context.readiness.add("prometheus", () => prometheus.notReady());
  // ServiceMonitors are honoured as the operator does: a changed configuration is reloaded.
  let reloading = false;
  const watcher = setInterval(() => {
    if (reloading) return;
    const next = render();
    if (next === config) return;
    reloading = true;
    void prometheus.reload(next).then((result) => {
      reloading = false;
      if (result.ok) {
        config = next;
        const monitors = context.cluster.store.list("ServiceMonitor").length;
        context.log(
          `${new Date().toISOString().slice(11, 19)} prometheus: configuration reloaded (${monitors} ServiceMonitor${monitors === 1 ? "" : "s"})`,
        );
      } else context.log(`prometheus: reload failed: ${result.error}`);
    });
  }, 1_000);
  watcher.unref();

  let adapter: PrometheusAdapter | null = null;
  if (options.adapter) {
    const loaded = await loadKubeConfig({ kubeconfig: context.kubeconfigFile });
    if (!loaded.ok) {
      clearInterval(watcher);
      await prometheus.stop();
      return loaded;
    }
    adapter = new PrometheusAdapter({
      prometheus: { url: prometheus.url },
      config: options.adapter.config,
      kube: createKubeClient(loaded.value, {
        qps: 1000,
        burst: 2000,
        userAgent: "horizon-adapter/v0.1.0",
      }),
      relistIntervalMs: options.relistIntervalMs,
      maxAgeMs: 10 * 60_000,
      log: (line) => context.log(`adapter: ${line}`),
    });
    await adapter.start();
    context.hook.adapter = adapter;
  }
  return {
    ok: true,
    value: {
      prometheusUrl: prometheus.url,
      dataDir: context.dataDir ? dir : null,
      adapterSource: options.adapter?.source ?? null,
      async close() {
        clearInterval(watcher);
        context.hook.adapter = null;
        adapter?.stop();
        await prometheus.stop();
        if (!context.dataDir) rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}
