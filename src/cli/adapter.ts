// `horizon adapter`: serves custom.metrics.k8s.io and external.metrics.k8s.io from a Prometheus,
// reading prometheus-adapter's configuration file unchanged (src/prometheus/adapter.ts).
// Exit codes: 0 stopped by SIGTERM/SIGINT, 1 could not start, 2 bad flags or configuration.
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { parseDuration } from "../api/duration.js";
import { generateServingCertificate } from "../apiserver/tls.js";
import { createKubeClient } from "../kube/client.js";
import { loadKubeConfig } from "../kube/config.js";
import { PrometheusAdapter } from "../prometheus/adapter.js";
import { readAdapterConfig } from "../prometheus/adapter-config.js";
import { serveAdapter } from "../prometheus/server.js";

export interface AdapterCommandOptions {
  prometheusUrl?: string;
  config?: string;
  kubeconfig?: string;
  bindAddress: string;
  securePort: string;
  insecureHttp?: boolean;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  requestheaderClientCaFile?: string;
  metricsRelistInterval: string;
  metricsMaxAge?: string;
  prometheusTokenFile?: string;
}

export interface AdapterIO {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Resolves when the process should stop (SIGTERM/SIGINT). */
  stopped: Promise<void>;
}

const AUTH_CONFIGMAP =
  "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";

function readText(
  flag: string,
  file: string,
): { ok: true; text: string } | { ok: false; error: string } {
  try {
    return { ok: true, text: readFileSync(file, "utf8") };
  } catch (error) {
    return {
      ok: false,
      error: `${flag} ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`,
    };
  }
}

export async function adapterCommand(
  options: AdapterCommandOptions,
  io: AdapterIO,
): Promise<number> {
  const bad = (message: string) => {
    io.err(`error: ${message}`);
    return 2;
  };
  if (!options.prometheusUrl)
    return bad("--prometheus-url is required (e.g. http://prometheus.monitoring:9090)");
  let prometheusUrl: URL;
  try {
    prometheusUrl = new URL(options.prometheusUrl);
    if (prometheusUrl.protocol !== "http:" && prometheusUrl.protocol !== "https:")
      throw new Error();
  } catch {
    return bad(`--prometheus-url: not an http(s) URL: ${JSON.stringify(options.prometheusUrl)}`);
  }
  if (!options.config) return bad("--config is required (prometheus-adapter's configuration file)");
  const configText = readText("--config", options.config);
  if (!configText.ok) return bad(configText.error);
  const config = readAdapterConfig(configText.text);
  if (!config.ok) {
    for (const e of config.errors) io.err(`error: ${options.config}: ${e}`);
    return 2;
  }
  for (const w of config.config.warnings) io.err(`Warning: ${options.config}: ${w}`);
  const relist = parseDuration(options.metricsRelistInterval);
  if (!relist.ok || relist.ms <= 0) {
    return bad(`--metrics-relist-interval: ${relist.ok ? "must be positive" : relist.error}`);
  }
  const maxAge = parseDuration(options.metricsMaxAge ?? options.metricsRelistInterval);
  if (!maxAge.ok || maxAge.ms <= 0) {
    return bad(`--metrics-max-age: ${maxAge.ok ? "must be positive" : maxAge.error}`);
  }
  const port = Number(options.securePort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return bad(`--secure-port: expected a port number, got ${JSON.stringify(options.securePort)}`);
  }
  if ((options.tlsCertFile === undefined) !== (options.tlsPrivateKeyFile === undefined)) {
    return bad("--tls-cert-file and --tls-private-key-file go together");
  }
  let bearerToken: string | undefined;
  if (options.prometheusTokenFile) {
    const token = readText("--prometheus-token-file", options.prometheusTokenFile);
    if (!token.ok) return bad(token.error);
    bearerToken = token.text.trim();
  }

  const loaded = await loadKubeConfig({ kubeconfig: options.kubeconfig ?? null });
  if (!loaded.ok) return bad(loaded.error);
  const kube = createKubeClient(loaded.value, { userAgent: "horizon-adapter/v0.1.0" });

  let tls: { cert: string; key: string } | undefined;
  let clientCa: string | undefined;
  if (!options.insecureHttp) {
    if (options.tlsCertFile && options.tlsPrivateKeyFile) {
      const cert = readText("--tls-cert-file", options.tlsCertFile);
      if (!cert.ok) return bad(cert.error);
      const key = readText("--tls-private-key-file", options.tlsPrivateKeyFile);
      if (!key.ok) return bad(key.error);
      tls = { cert: cert.text, key: key.text };
    } else {
      const generated = await generateServingCertificate({
        hosts: ["127.0.0.1", "localhost", ...(process.env.HOSTNAME ? [process.env.HOSTNAME] : [])],
      });
      if (!generated.ok) {
        io.err(`error: serving certificate: ${generated.error}`);
        return 1;
      }
      tls = { cert: generated.value.cert, key: generated.value.key };
      io.err("Warning: serving a self-signed certificate (--tls-cert-file to use your own)");
    }
    if (options.requestheaderClientCaFile) {
      const ca = readText("--requestheader-client-ca-file", options.requestheaderClientCaFile);
      if (!ca.ok) return bad(ca.error);
      clientCa = ca.text;
    } else {
      // As delegated authentication: the front proxy's CA, published by kube-apiserver.
      const answer = await kube
        .request<{ data?: Record<string, string> }>({ method: "GET", path: AUTH_CONFIGMAP })
        .catch((error: Error) => ({ status: 0, body: { data: undefined }, error }));
      clientCa =
        answer.status === 200 ? answer.body.data?.["requestheader-client-ca-file"] : undefined;
      if (!clientCa) {
        io.err(
          `error: no requestheader client CA to authenticate the aggregator: reading kube-system/extension-apiserver-authentication failed (HTTP ${answer.status}); grant the Role extension-apiserver-authentication-reader (deploy/adapter/rbac.yaml) or pass --requestheader-client-ca-file`,
        );
        return 1;
      }
    }
  }

  const adapter = new PrometheusAdapter({
    prometheus: {
      url: prometheusUrl.href.replace(/\/$/, ""),
      ...(bearerToken ? { bearerToken } : {}),
    },
    config: config.config,
    kube,
    maxAgeMs: maxAge.ms,
    relistIntervalMs: relist.ms,
    log: (line) => io.err(line),
  });
  await adapter.start();
  const { discovered, lastError } = adapter.state;
  if (discovered) {
    io.out(
      `Discovered ${adapter.customMetrics().length} custom and ${adapter.externalMetrics().length} external metrics from ${prometheusUrl.href}`,
    );
  } else
    io.err(
      `Warning: discovery failed (retried every ${options.metricsRelistInterval}): ${lastError}`,
    );
  let server: Awaited<ReturnType<typeof serveAdapter>>;
  try {
    server = await serveAdapter({
      adapter,
      address: options.bindAddress,
      port,
      ...(tls ? { tls } : {}),
      ...(clientCa ? { clientCa } : {}),
      log: (line) => io.err(line),
    });
  } catch (error) {
    adapter.stop();
    io.err(`error: cannot listen on ${options.bindAddress}:${port}: ${(error as Error).message}`);
    return 1;
  }
  const scheme = tls ? "https" : "http";
  io.out(
    `Serving custom.metrics.k8s.io and external.metrics.k8s.io on ${scheme}://${options.bindAddress}:${server.port}`,
  );
  await io.stopped;
  adapter.stop();
  await server.close();
  return 0;
}

export function registerAdapterCommand(program: Command): void {
  program
    .command("adapter")
    .description(
      "Serve custom.metrics.k8s.io and external.metrics.k8s.io from Prometheus, reading prometheus-adapter's configuration (an aggregated API server)",
    )
    .option(
      "--prometheus-url <url>",
      "the Prometheus to query, e.g. http://prometheus.monitoring:9090",
    )
    .option("--config <file>", "prometheus-adapter's configuration file (rules, externalRules)")
    .option("--prometheus-token-file <file>", "a bearer token for Prometheus")
    .option(
      "--kubeconfig <file>",
      "for listing the objects a request selects (default: in-cluster, $KUBECONFIG, ~/.kube/config)",
    )
    .option("--bind-address <address>", "address to serve on", "0.0.0.0")
    .option("--secure-port <port>", "port to serve on (0 picks a free one)", "6443")
    .option("--tls-cert-file <file>", "serving certificate (PEM; default: a self-signed one)")
    .option("--tls-private-key-file <file>", "its private key (PEM)")
    .option(
      "--requestheader-client-ca-file <file>",
      "CA of the aggregator's client certificate (default: kube-system/extension-apiserver-authentication)",
    )
    .option("--insecure-http", "plain HTTP without client authentication (local use only)")
    .option("--metrics-relist-interval <duration>", "how often to rediscover the series", "10m")
    .option(
      "--metrics-max-age <duration>",
      "series older than this are not discovered (default: the relist interval)",
    )
    .action(async (options: AdapterCommandOptions) => {
      const stopped = new Promise<void>((resolve) => {
        process.once("SIGTERM", () => resolve());
        process.once("SIGINT", () => resolve());
      });
      process.exitCode = await adapterCommand(options, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
        stopped,
      });
    });
}
