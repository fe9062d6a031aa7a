// `horizon up`: parses the flags into StartUpOptions and runs startUp (src/up/up.ts): the
// embedded cluster on the real clock behind a Kubernetes-compatible API server, with Horizon's
// HPA controller, and a kubeconfig for kubectl. Prints the banner; stops on Ctrl-C / SIGTERM.
// Exit codes: 0 stopped cleanly (Ctrl-C / SIGTERM), 1 startup failed, 2 bad input.
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { formatDuration, parseDuration } from "../api/duration.js";
import {
  KUBERNETES_VERSION_FLAG,
  KUBERNETES_VERSION_HELP,
  readKubernetesVersionFlag,
} from "../api/kubernetes-version-flag.js";
import type { ParsedKubernetesVersion } from "../api/versions.js";
import { IN_FLIGHT_LIMITS, type InFlightLimits } from "../apiserver/filters.js";
import { defaultKubeconfigPath } from "../apiserver/kubeconfig.js";
import { DEFAULT_POD_CIDR, DEFAULT_SERVICE_CIDR } from "../cluster/ipam.js";
import { isLoopbackHost } from "../controller/server.js";
import {
  CONTROLLER_DEFAULTS,
  parseBindAddress,
  parseControllerOptions,
} from "../controller-manager/options.js";
import { formatScenarioError, loadScenarioFile } from "../sim/scenario.js";
import {
  DEFAULT_ADDRESS,
  DEFAULT_PORT,
  emptyScenario,
  parseRanges,
  type RunningUp,
  type StartUpOptions,
  startUp,
} from "../up/up.js";
import { EXPLAIN_DEFAULTS } from "./explain.js";
import { boundHeapGrowth, fitGarbageCollectorToCores } from "./gc.js";
import {
  DEFAULT_PROMETHEUS_BIND_ADDRESS,
  type PrometheusFlags,
  parsePrometheusFlags,
} from "./up-prometheus.js";

/** A free loopback port each run (the banner prints it): several `horizon up` may run at once. */
export const DEFAULT_DASHBOARD_ADDRESS = "127.0.0.1:0";

export { defaultKubeconfigPath };

export interface UpCommandOptions {
  inMemory?: boolean;
  dataDir?: string;
  port: string;
  address: string;
  kubeconfigOut?: string;
  /** Not a flag of `up` (it writes a kubeconfig): taken only to say which one is. */
  kubeconfig?: string;
  insecureHttp?: boolean;
  /** commander's negatable `--no-controller`. */
  controller: boolean;
  syncPeriod?: string;
  dashboardBindAddress?: string;
  metricsBindAddress?: string;
  prometheus?: boolean;
  prometheusScrapeInterval?: string;
  prometheusBindAddress?: string;
  adapterConfig?: string;
  podCidr?: string;
  serviceCidr?: string;
  scenarioTraffic?: string;
  maxRequestsInflight?: string;
  maxMutatingRequestsInflight?: string;
  kubernetesVersion?: string;
}

export interface UpIO {
  out: (line: string) => void;
  err: (line: string) => void;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Checks the flags and turns them into StartUpOptions (without the scenario). */
export function parseUpOptions(options: UpCommandOptions): Parsed<StartUpOptions> {
  if (options.dataDir !== undefined && options.inMemory) {
    return { ok: false, error: "--data-dir and --in-memory cannot be used together" };
  }
  if (options.dataDir === "") return { ok: false, error: "--data-dir: must name a directory" };
  if (options.kubeconfig !== undefined) {
    return {
      ok: false,
      error:
        "--kubeconfig: horizon up writes its kubeconfig; say where with --kubeconfig-out FILE (--kubeconfig is where the other commands read one)",
    };
  }
  if (!/^\d+$/.test(options.port) || Number(options.port) > 65535) {
    return {
      ok: false,
      error: `--port: must be an integer from 0 to 65535 (0 picks a free port), got "${options.port}"`,
    };
  }
  const out: StartUpOptions = {
    port: Number(options.port),
    address: options.address,
    insecureHttp: Boolean(options.insecureHttp),
    controller: options.controller,
    // The command serves real traffic; StartUpOptions' default (no sockets) is for tests.
    listeners: true,
  };
  if (options.podCidr !== undefined) out.podCidr = options.podCidr;
  if (options.serviceCidr !== undefined) out.serviceCidr = options.serviceCidr;
  const ranges = parseRanges(out);
  if (!ranges.ok) return ranges;
  if (options.kubeconfigOut !== undefined) out.kubeconfigOut = options.kubeconfigOut;
  if (options.dataDir !== undefined) out.dataDir = resolve(options.dataDir);
  if (options.syncPeriod !== undefined) {
    if (!options.controller)
      return { ok: false, error: "--sync-period: has no effect with --no-controller" };
    const parsed = parseDuration(options.syncPeriod);
    if (!parsed.ok) return { ok: false, error: `--sync-period: ${parsed.error}` };
    if (parsed.ms <= 0) return { ok: false, error: "--sync-period: must be positive" };
    out.syncPeriodMs = parsed.ms;
  }
  const dashboard = parseBindAddress(
    "dashboard-bind-address",
    options.dashboardBindAddress ?? DEFAULT_DASHBOARD_ADDRESS,
  );
  if (!dashboard.ok) return { ok: false, error: dashboard.errors.join("; ") };
  if (dashboard.value !== null) {
    if (!options.controller && options.dashboardBindAddress !== undefined) {
      return {
        ok: false,
        error:
          "--dashboard-bind-address: the dashboard shows the controller's history; it is not served with --no-controller",
      };
    }
    if (options.controller) out.dashboardAddress = dashboard.value;
  }
  // `horizon controller`'s flag, parsed by its parser (with the /debug address it implies).
  const observability = parseControllerOptions({
    metricsBindAddress: options.metricsBindAddress ?? CONTROLLER_DEFAULTS.metricsBindAddress,
  });
  if (!observability.ok) return { ok: false, error: observability.errors.join("; ") };
  const { metricsBindAddress, debugBindAddress } = observability.value;
  if (metricsBindAddress !== null) {
    if (!options.controller && options.metricsBindAddress !== undefined) {
      return {
        ok: false,
        error:
          "--metrics-bind-address: the controller serves it; there is none with --no-controller",
      };
    }
    if (options.controller) {
      out.metricsBindAddress = metricsBindAddress;
      out.debugBindAddress = debugBindAddress;
      out.metricsBindFallback = options.metricsBindAddress === undefined;
    }
  }
  const flags: PrometheusFlags = {
    ...(options.prometheus !== undefined ? { prometheus: options.prometheus } : {}),
    ...(options.prometheusScrapeInterval !== undefined
      ? { prometheusScrapeInterval: options.prometheusScrapeInterval }
      : {}),
    ...(options.prometheusBindAddress !== undefined
      ? { prometheusBindAddress: options.prometheusBindAddress }
      : {}),
    ...(options.adapterConfig !== undefined ? { adapterConfig: options.adapterConfig } : {}),
  };
  const prometheus = parsePrometheusFlags(flags);
  if (!prometheus.ok) return prometheus;
  if (prometheus.value) out.prometheus = prometheus.value;
  if (options.scenarioTraffic !== undefined) {
    const mode = options.scenarioTraffic;
    if (mode !== "requests" && mode !== "model") {
      return {
        ok: false,
        error: `--scenario-traffic: must be requests (sent to the pods) or model (modelled only), got "${mode}"`,
      };
    }
    out.scenarioTraffic = mode;
  }
  const inFlight: Partial<InFlightLimits> = {};
  for (const [flag, text, key] of [
    ["--max-requests-inflight", options.maxRequestsInflight, "maxRequestsInflight"],
    [
      "--max-mutating-requests-inflight",
      options.maxMutatingRequestsInflight,
      "maxMutatingRequestsInflight",
    ],
  ] as const) {
    if (text === undefined) continue;
    if (!/^\d+$/.test(text)) {
      return { ok: false, error: `${flag}: must be a whole number (0: no limit), got "${text}"` };
    }
    inFlight[key] = Number(text);
  }
  if (Object.keys(inFlight).length > 0) out.inFlight = inFlight;
  return { ok: true, value: out };
}

/** How to point kubectl at the server. */
export function usageBanner(running: RunningUp, options: StartUpOptions, source: string): string[] {
  const { dataDir } = running;
  // A restarted data directory holds what its clients left there, not the scenario's objects.
  const cluster =
    dataDir && !dataDir.fresh
      ? `restored${source === "empty" ? "" : ` (${source.replace(/ \(.*\)$/, "")} not applied: it seeds a fresh --data-dir only)`}`
      : source;
  const objects = `${running.startObjectCount} object${running.startObjectCount === 1 ? "" : "s"}`;
  const lines = [
    `Horizon API server (Kubernetes ${options.gitVersion ?? `v${(options.scenario ?? emptyScenario()).spec.kubernetesVersion}.0`} API) listening on ${running.url}`,
    dataDir
      ? `  cluster: ${cluster}; store: ${dataDir.dir} (durable; ${objects}, resourceVersion ${running.startResourceVersion} at start)`
      : `  cluster: ${source}; store: in memory (objects are lost when it stops)`,
    running.controllerConfig
      ? `  controller: Horizon's HPA controller ${running.controller ? "over this API server (client-node)" : "in-process"}, sync period ${formatDuration(running.controllerConfig.syncPeriodMs)}`
      : "  controller: none (--no-controller): run `horizon controller --kubeconfig ...` or another controller against it",
  ];
  const served = running.controller?.server;
  if (served?.metricsUrl) lines.push(`    ${observabilityLine(served, options)}`);
  if (running.prometheus?.prometheusUrl) {
    lines.push(
      `  prometheus: ${running.prometheus.prometheusUrl} (scrapes what ServiceMonitors select; data in ${running.prometheus.dataDir ?? "a temporary directory"})`,
    );
  }
  if (running.prometheus?.adapterSource) {
    lines.push(
      `  metrics: custom.metrics.k8s.io and external.metrics.k8s.io from Prometheus, ${running.prometheus.adapterSource}`,
    );
  }
  const network = running.cluster.network;
  if (network) {
    lines.push(
      `  network: pods ${network.podIps.cidr.text}, Services ${network.serviceIps.cidr.text}${running.podNetwork ? " (pods listen, ClusterIPs proxy)" : " (addresses only, no listeners)"}`,
    );
  }
  if (running.scenarioTraffic && hasTraffic(options)) {
    lines.push(
      "  traffic: the scenario's traffic is sent as HTTP requests to its workloads' Services (--scenario-traffic model keeps it modelled)",
    );
  } else if (running.podNetwork && hasTraffic(options)) {
    lines.push(
      "  traffic: the scenario's traffic is modelled: the pods' CPU follows it, no request reaches them (--scenario-traffic requests sends it)",
    );
  }
  if (options.insecureHttp) {
    lines.push(
      "  transport: plain HTTP (--insecure-http): no TLS and NO authentication (kubectl sends no credentials over HTTP)",
    );
    if (!isLoopbackHost(options.address ?? DEFAULT_ADDRESS)) {
      lines.push(
        `  WARNING: --address ${options.address} exposes an unauthenticated API beyond this machine`,
      );
    }
  }
  if (running.kubeconfigPath !== null) {
    lines.push(
      "",
      `Kubeconfig written to ${running.kubeconfigPath} (mode 0600). Point kubectl at it:`,
      "",
      `  export KUBECONFIG=${running.kubeconfigPath}`,
      "  kubectl get hpa",
      "",
    );
  }
  if (running.dashboard) {
    lines.push(
      `Dashboard: ${running.dashboard.url}`,
      `  log in once with this link (it works one time): ${running.dashboard.loginUrl}`,
      "",
    );
  }
  lines.push("Press Ctrl-C to stop.");
  return lines;
}

/** The scenario models traffic for a workload, from the start or from one of its events. */
function hasTraffic(options: StartUpOptions): boolean {
  const spec = options.scenario?.spec;
  if (!spec) return false;
  return (
    spec.workloads.some((w) => w.traffic.length > 0) ||
    spec.events.some((e) => e.type === "setTraffic" && e.traffic.length > 0)
  );
}

/** Where the controller serves /metrics and decisions, and the explain command that reads them. */
function observabilityLine(
  served: { metricsUrl: string | null; debugUrl: string | null },
  options: StartUpOptions,
): string {
  const { metricsUrl, debugUrl } = served;
  if (debugUrl === null) {
    return `/metrics on ${metricsUrl} (decisions are served on loopback addresses only)`;
  }
  const wanted = options.metricsBindAddress?.port;
  const port = new URL(debugUrl).port;
  const inUse =
    options.metricsBindFallback && wanted !== undefined && wanted !== 0 && String(wanted) !== port
      ? `${wanted} was in use: `
      : "";
  const command = `horizon explain hpa/NAME${debugUrl === EXPLAIN_DEFAULTS.address ? "" : ` --address ${debugUrl}`}`;
  const what =
    metricsUrl === debugUrl ? "/metrics and decisions" : `/metrics on ${metricsUrl}, decisions`;
  return `${what} on ${debugUrl} (${inUse}${command})`;
}

/** Runs `horizon up` until SIGINT/SIGTERM; resolves with the exit code. */
export async function upCommand(
  scenarioFile: string | undefined,
  options: UpCommandOptions,
  io: UpIO,
): Promise<number> {
  const parsed = parseUpOptions(options);
  if (!parsed.ok) {
    io.err(`error: ${parsed.error}`);
    return 2;
  }
  const startOptions = parsed.value;
  let version: ParsedKubernetesVersion | undefined;
  if (options.kubernetesVersion !== undefined) {
    const read = readKubernetesVersionFlag(options.kubernetesVersion);
    if (!read.ok) {
      io.err(read.error);
      return 2;
    }
    version = read.value;
    startOptions.gitVersion = version.gitVersion;
    startOptions.scenario = emptyScenario(version.version);
  }
  let source = "empty";
  if (scenarioFile !== undefined) {
    const loaded = await loadScenarioFile(scenarioFile, {
      served: true,
      ...(version ? { kubernetesVersion: version.version } : {}),
    });
    if (!loaded.ok) {
      for (const e of loaded.errors) io.err(`error: ${formatScenarioError(e)}`);
      return 2;
    }
    for (const warning of loaded.scenario.warnings) io.err(`Warning: ${warning}`);
    startOptions.scenario = loaded.scenario;
    source = `scenario ${scenarioFile} (${loaded.scenario.objects.length} objects)`;
  }
  startOptions.log = io.out;
  fitGarbageCollectorToCores();
  boundHeapGrowth();
  const started = await startUp(startOptions);
  if (!started.ok) {
    io.err(`error: ${started.error}`);
    return started.usage ? 2 : 1;
  }
  const running = started.value;
  for (const line of usageBanner(running, startOptions, source)) io.out(line);

  return new Promise<number>((done) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // A second Ctrl-C while shutting down: give up waiting.
        io.err(`${signal} again: exiting at once`);
        process.exit(1);
      }
      stopping = true;
      io.err(`${signal}: stopping the controller and the API server...`);
      running.close().then(
        () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          io.err("stopped");
          done(0);
        },
        (error: unknown) => {
          io.err(`error while stopping: ${(error as Error).message}`);
          done(1);
        },
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** Adds `horizon up` to the program (wired in main.ts). */
export function registerUpCommand(program: Command): void {
  program
    .command("up")
    .description(
      "Run the embedded cluster on the real clock behind a Kubernetes API server, with Horizon's HPA controller, and write a kubeconfig for kubectl",
    )
    .argument("[scenario]", "scenario YAML file (manifests + Scenario); default: an empty cluster")
    .option("--in-memory", "keep objects in memory only (the default; nothing survives a restart)")
    .option(
      "--data-dir <dir>",
      "keep objects and the resourceVersion counter in DIR (created if missing): every acknowledged write is fsynced to a journal there and survives kill -9 and restart; one server per DIR; a scenario's objects seed a fresh DIR only",
    )
    .option("--port <port>", "port to serve on (0 picks a free one)", String(DEFAULT_PORT))
    .option("--address <address>", "address to bind", DEFAULT_ADDRESS)
    .option(
      "--kubeconfig-out <file>",
      `where to write the kubeconfig (default ${defaultKubeconfigPath()})`,
    )
    .addOption(new Option("--kubeconfig <file>").hideHelp())
    .option("--insecure-http", "serve plain HTTP instead of HTTPS with a generated CA")
    .option("--no-controller", "do not run Horizon's controller (run your own against the server)")
    .option("--sync-period <duration>", "the controller's sync period, e.g. 15s (default 15s)")
    .option(
      "--dashboard-bind-address <host:port>",
      `serve the dashboard here, behind the API's token (default ${DEFAULT_DASHBOARD_ADDRESS}: a free port, printed; 0 disables)`,
    )
    .option(
      "--metrics-bind-address <host:port>",
      `serve the controller's /metrics, /healthz, /readyz and, on loopback, the decisions \`horizon explain\` reads (default ${CONTROLLER_DEFAULTS.metricsBindAddress}, or a free port when that one is in use: the banner prints it; 0 disables; not with --no-controller)`,
    )
    .option(
      "--prometheus",
      "start Prometheus (Debian's prometheus package) as a child process scraping what ServiceMonitors select, and serve the custom/external metrics APIs from it",
    )
    .option("--prometheus-scrape-interval <duration>", "Prometheus' scrape interval (default 15s)")
    .option(
      "--prometheus-bind-address <host:port>",
      `Prometheus' --web.listen-address (default ${DEFAULT_PROMETHEUS_BIND_ADDRESS}: a free port, printed)`,
    )
    .option(
      "--adapter-config <file>",
      "prometheus-adapter's configuration for the metrics APIs (default with --prometheus: the book's rules)",
    )
    .option(
      "--pod-cidr <cidr>",
      `pod addresses, a range in the loopback 127.0.0.0/8 (each running pod listens on its IP at its containers' ports)`,
      DEFAULT_POD_CIDR,
    )
    .option(
      "--service-cidr <cidr>",
      "Service ClusterIPs, a loopback range apart from --pod-cidr (each ClusterIP proxies to the Ready endpoints)",
      DEFAULT_SERVICE_CIDR,
    )
    .option(
      "--scenario-traffic <mode>",
      "the scenario's traffic: requests (sent as real HTTP requests to the ClusterIP of each workload's Service, so the pods count them on /metrics; the default with --prometheus) or model (modelled: the pods' CPU follows it, nothing reaches them; the default without)",
    )
    .option(
      "--max-requests-inflight <n>",
      `non-mutating requests served at once; more get 429 (0: no limit; default ${IN_FLIGHT_LIMITS.maxRequestsInflight})`,
    )
    .option(
      "--max-mutating-requests-inflight <n>",
      `mutating requests served at once; more get 429 (0: no limit; default ${IN_FLIGHT_LIMITS.maxMutatingRequestsInflight})`,
    )
    .option(KUBERNETES_VERSION_FLAG, `${KUBERNETES_VERSION_HELP} (overrides the scenario)`)
    .action(async (scenario: string | undefined, options: UpCommandOptions, command: Command) => {
      if (options.dataDir !== undefined && options.inMemory) {
        command.error("error: --data-dir and --in-memory cannot be used together");
      }
      process.exitCode = await upCommand(scenario, options, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
      });
    });
}
