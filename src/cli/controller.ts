// `horizon controller`: Horizon's HPA controller against a Kubernetes API server (a real cluster
// with the built-in HPA controller disabled, or `horizon up --no-controller`). Wires the parts:
// connection (src/kube/config.ts, client.ts), informers for HPAs and pods, the ports over the
// API (scale, metrics, status, events), the work-queue runtime, leader election on a Lease, and
// the /metrics, /healthz, /readyz and /debug/decisions server.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { parseSelector, selectorMatches } from "../api/selector.js";
import type { HorizontalPodAutoscaler } from "../api/types.js";
import { DecisionStore } from "../controller/decisions.js";
import { LeaderElector } from "../controller/leaderelection.js";
import { createLogger, errorText, type Logger } from "../controller/log.js";
import { ControllerMetrics } from "../controller/metrics.js";
import type { ControllerPorts } from "../controller/ports.js";
import {
  ControllerRuntime,
  type ObservedEvent,
  type RuntimeSyncReport,
} from "../controller/runtime.js";
import {
  advertisedDebugUrl,
  controllerReadiness,
  DEBUG_ADDRESS_ANNOTATION,
  forgetHpa,
  ListenError,
  type RunningObservabilityServer,
  startObservabilityServer,
  syncObserver,
} from "../controller/server.js";
import { createKubeClient, type HttpKubeClient } from "../kube/client.js";
import { type KubeConnection, type LoadConfigOptions, loadKubeConfig } from "../kube/config.js";
import { HPA_COMPONENT, KubeEventRecorder } from "../kube/events.js";
import { HpaInformer } from "../kube/hpas.js";
import { Informer } from "../kube/informer.js";
import { defaultIdentity, LEADER_ELECTION_COMPONENT, LeaseLock } from "../kube/lease.js";
import { KubeMetricsPort } from "../kube/metrics/index.js";
import { PodInformer } from "../kube/pods.js";
import { DiscoveryRestMapper } from "../kube/rest-mapper.js";
import { KubeScaleTargetPort } from "../kube/scale.js";
import { InformerScaleTargetPort } from "../kube/scale-informer.js";
import { KubeHpaStatusPort } from "../kube/status.js";
import { DashboardData } from "../web/data.js";
import { type HistoryRecord, HpaHistory } from "../web/history.js";
import { liveWhatIf, type TargetResponse } from "../web/replay.js";
import { DashboardAuth, type RunningDashboard, startDashboardServer } from "../web/server.js";
import {
  type ControllerCommandConfig,
  type ControllerCommandOptions,
  parseControllerOptions,
} from "./controller-options.js";
import { KUBERNETES_VERSION_FLAG, KUBERNETES_VERSION_HELP } from "./kubernetes-version.js";

export interface ControllerDeps {
  /** Where the connection comes from besides --kubeconfig (tests: env, service-account dir). */
  config?: Omit<LoadConfigOptions, "kubeconfig">;
  log?: Logger;
  /** The leader-election identity (default hostname_uuid). */
  identity?: string;
  /** Informer tuning (tests: short stall timeouts). */
  informer?: { stallTimeoutMs?: number; watchTimeoutSeconds?: number };
  /** The pod IP the leader advertises its debug address with (default $POD_IP). */
  podIp?: string;
  /**
   * When --metrics-bind-address's port is in use, serve on a free port of its host
   * (`horizon up`'s default; its banner prints where).
   */
  metricsAddressFallback?: boolean;
  /** Every sync, after the metrics, decisions and log have it (`horizon up` prints them). */
  onSync?: (report: RuntimeSyncReport) => void;
  /** The dashboard's bearer token (`horizon up`: the API's); else --dashboard-token-file. */
  dashboardToken?: string;
  /**
   * Requests/s offered to an HPA's scale target now, where known (`horizon up`: its cluster
   * model's traffic and Service loads); recorded with each sync for the dashboard's load chart.
   */
  loadOf?: (hpa: HorizontalPodAutoscaler) => number | null;
  /** How an HPA's target responds to load, where known (`horizon up`): closes the what-if loop. */
  responseOf?: (hpa: HorizontalPodAutoscaler) => TargetResponse | null;
}

/** The dashboard's history journal inside --data-dir. */
export const DASHBOARD_HISTORY_FILE = "dashboard-history.jsonl";

export interface RunningController {
  connection: KubeConnection;
  client: HttpKubeClient;
  metrics: ControllerMetrics;
  decisions: DecisionStore;
  /** Every HPA's recorded syncs (the dashboard's data). */
  history: HpaHistory;
  server: RunningObservabilityServer | null;
  /** null with --dashboard-bind-address 0. */
  dashboard: RunningDashboard | null;
  /** null until this replica leads (always set without --leader-elect). */
  runtime(): ControllerRuntime | null;
  elector: LeaderElector | null;
  /** Ends when the controller stopped by itself (leadership lost): the exit code. */
  done: Promise<number>;
  /** Graceful stop: finish in-flight syncs, release the lease, flush events, close everything. */
  stop(): Promise<void>;
}

type Started = { ok: true; value: RunningController } | { ok: false; error: string };

/**
 * The syncs the dashboard's history read back from --data-dir go to /debug/decisions too, as
 * they would have been stored (each HPA's newest, in the order they were recorded), so `horizon
 * explain` after a restart reads what the dashboard shows. The records are the history's own.
 */
export function restoreDecisions(decisions: DecisionStore, history: HpaHistory): void {
  const restored: { namespace: string; name: string; record: HistoryRecord }[] = [];
  for (const key of history.keys()) {
    const slash = key.indexOf("/");
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    for (const record of history.get(namespace, name).slice(-decisions.perHpa)) {
      restored.push({ namespace, name, record });
    }
  }
  restored.sort((a, b) => a.record.seq - b.record.seq);
  for (const { namespace, name, record } of restored) decisions.restore(namespace, name, record);
}

/** The namespace of the leader-election Lease: the flag, else the pod's, else kube-system. */
function leaseNamespace(config: ControllerCommandConfig, connection: KubeConnection): string {
  if (config.leaderElection.resourceNamespace) return config.leaderElection.resourceNamespace;
  if (connection.source === "in-cluster" && connection.namespace) return connection.namespace;
  return "kube-system";
}

export async function startController(
  config: ControllerCommandConfig,
  deps: ControllerDeps = {},
): Promise<Started> {
  const log = deps.log ?? createLogger({ verbosity: config.verbosity });
  let dashboardToken = deps.dashboardToken;
  if (dashboardToken === undefined && config.dashboardTokenFile !== null) {
    try {
      dashboardToken = readFileSync(config.dashboardTokenFile, "utf8").trim();
    } catch (error) {
      return { ok: false, error: `--dashboard-token-file: ${errorText(error)}` };
    }
    if (dashboardToken === "") {
      return { ok: false, error: `--dashboard-token-file: ${config.dashboardTokenFile} is empty` };
    }
  }
  let history: HpaHistory;
  try {
    history = new HpaHistory({
      capacity: config.dashboardHistorySize,
      maxRecords: config.dashboardHistoryMaxRecords,
      clock: { now: Date.now },
      ...(config.dataDir !== null ? { file: join(config.dataDir, DASHBOARD_HISTORY_FILE) } : {}),
    });
  } catch (error) {
    return { ok: false, error: `--data-dir: ${errorText(error)}` };
  }
  if (history.skippedLines > 0) {
    log.warn("skipped unreadable lines of the dashboard history", {
      lines: history.skippedLines,
    });
  }
  const loaded = await loadKubeConfig({ ...deps.config, kubeconfig: config.kubeconfig });
  if (!loaded.ok) {
    history.close();
    return { ok: false, error: loaded.error };
  }
  const connection = loaded.value;

  const metrics = new ControllerMetrics({
    syncPeriodSeconds: config.controller.syncPeriodMs / 1000,
    leaseName: config.leaderElection.resourceName,
  });
  const decisions = new DecisionStore();
  restoreDecisions(decisions, history);
  const client = createKubeClient(connection, {
    qps: config.kubeApiQps,
    burst: config.kubeApiBurst,
    userAgent: "horizon-controller/v0.1.0",
    // The path has no query: a watch is told by the client's verb (watch=true on the wire).
    onRequest: (record) =>
      metrics.recordApiRequest({
        method: record.method,
        path: record.path,
        ...(record.verb === "watch" ? { query: { watch: "true" } } : {}),
        status: record.status,
      }),
  });
  log.info("connected", {
    server: connection.server,
    source: connection.source,
    origin: connection.origin,
  });

  const informerTuning = {
    ...(deps.informer?.stallTimeoutMs !== undefined
      ? { stallTimeoutMs: deps.informer.stallTimeoutMs }
      : {}),
    ...(deps.informer?.watchTimeoutSeconds !== undefined
      ? { watchTimeoutSeconds: deps.informer.watchTimeoutSeconds }
      : {}),
    onError: (message: string) => log.warn("informer error (retrying)", { error: message }),
  };
  const hpas = new HpaInformer({
    client,
    ...informerTuning,
    ...(config.hpaSelector !== "" ? { labelSelector: config.hpaSelector } : {}),
  });
  const pods = new PodInformer({ client, ...informerTuning });
  const mapper = new DiscoveryRestMapper({ client });
  const events = new KubeEventRecorder({ client });
  // The Lease's LeaderElection events, from the controller as a whole (kube-controller-manager's
  // recorder names its binary), not from its HPA controller.
  const leaseEvents = new KubeEventRecorder({ client, component: LEADER_ELECTION_COMPONENT });
  const subresource = new KubeScaleTargetPort({ client, mapper });
  const sharedReads = config.sharedReadsMaxAgeMs > 0;
  const watchedScales = sharedReads
    ? new InformerScaleTargetPort({ client, subresource, ...informerTuning })
    : null;
  const ports: ControllerPorts = {
    scale: watchedScales ?? subresource,
    pods,
    metrics: new KubeMetricsPort({
      client,
      mapper,
      ...(sharedReads ? { sharedPodMetricsMaxAgeMs: config.sharedReadsMaxAgeMs } : {}),
    }),
    status: new KubeHpaStatusPort({ client }),
    events,
    clock: { now: Date.now },
  };
  const selector = config.hpaSelector === "" ? null : parseSelector(config.hpaSelector);
  const manages = (hpa: HorizontalPodAutoscaler) =>
    selector === null ||
    !selector.ok ||
    selectorMatches(selector.selector, hpa.metadata.labels ?? {});

  let runtime: ControllerRuntime | null = null;
  let shuttingDown = false;
  const record = syncObserver({
    metrics,
    decisions,
    log,
    onDecision: (observation, decision, json) =>
      history.record(decision, deps.loadOf?.(observation.hpa) ?? null, json),
  });
  const observer = (report: RuntimeSyncReport) => {
    record(report);
    deps.onSync?.(report);
  };
  // The informer's size, not a list of it: this runs at every HPA change (each status write).
  const unsubscribeForget = hpas.subscribe(() => metrics.setManagedHpas(hpas.informer.size));
  const forgetOnDelete = hpas.informer.subscribe((_key, value, previous) => {
    if (value === null && previous) {
      forgetHpa({ metrics, decisions }, previous);
      history.forget(previous.metadata.namespace ?? "default", previous.metadata.name ?? "");
    }
  });
  const newRuntime = () =>
    new ControllerRuntime({
      ports,
      config: config.controller,
      source: hpas,
      manages,
      onSync: observer,
      onForeignWriter: (warning) =>
        log.warn(
          "another controller seems to write this HPA's status too: disable the built-in HPA controller (kube-controller-manager --controllers=*,-horizontalpodautoscaling) or give the HPAs to one controller with --hpa-selector",
          { ...warning },
        ),
      queueMetrics: metrics.workQueueHooks(),
      log: (level, message, fields) => {
        if (level === "debug") log.v(4).info(message, fields);
        else if (level === "error") log.error(message, undefined, fields);
        else log.info(message, fields);
      },
    });
  // Events of the built-in controller (same source component) tell that it is still running.
  const hpaEvents = new Informer<null>({
    client,
    ...informerTuning,
    name: "hpa events",
    path: "/api/v1/events",
    fieldSelector: `source=${HPA_COMPONENT},involvedObject.kind=HorizontalPodAutoscaler`,
    transform: (object) => {
      runtime?.observeEvent(object as ObservedEvent);
      return null;
    },
  });

  hpas.informer.start();
  pods.informer.start();
  hpaEvents.start();
  watchedScales?.start();
  const informersSynced = () => hpas.informer.hasSynced() && pods.informer.hasSynced();

  let elector: LeaderElector | null = null;
  let lostLease = false;
  let lock: LeaseLock | null = null;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });

  const startRuntime = async () => {
    const ac = new AbortController();
    await hpas.informer.waitForSync(ac.signal);
    await pods.informer.waitForSync(ac.signal);
    if (shuttingDown) return;
    runtime = newRuntime();
    metrics.setQueueDepthSource(() => runtime?.queue.len() ?? 0);
    runtime.start();
    log.info("controller started", {
      hpas: hpas.list().length,
      pods: pods.index.size,
      workers: config.controller.concurrentSyncs,
    });
  };

  let server: RunningObservabilityServer | null = null;
  try {
    server = await startObservabilityServer({
      metricsAddress: config.metricsBindAddress,
      debugAddress: config.debugBindAddress,
      allowNonLoopbackDebug:
        config.debugBindAddress !== null && config.metricsBindAddress !== config.debugBindAddress,
      metricsAddressFallback: deps.metricsAddressFallback ?? false,
      metrics,
      decisions,
      ...(config.leaderElection.enabled
        ? {
            leader: () => {
              const holderIdentity = elector?.getLeader() ?? "";
              const annotations = lock?.current()?.metadata.annotations;
              return {
                lease: `${leaseNamespace(config, connection)}/${config.leaderElection.resourceName}`,
                leading: elector?.isLeading() ?? false,
                holderIdentity,
                debugAddress:
                  holderIdentity === "" ? null : (annotations?.[DEBUG_ADDRESS_ANNOTATION] ?? null),
              };
            },
          }
        : {}),
      readiness: controllerReadiness({
        informersSynced,
        ...(config.leaderElection.enabled
          ? {
              leaderElection: () => ({
                leading: elector?.isLeading() ?? false,
                healthy: (elector?.check(config.leaderElection.leaseDurationMs) ?? true) === true,
              }),
            }
          : {}),
        shuttingDown: () => shuttingDown,
      }),
      log,
    });
  } catch (error) {
    await Promise.all([
      hpas.informer.stop(),
      pods.informer.stop(),
      hpaEvents.stop(),
      watchedScales?.stop(),
    ]);
    client.close();
    history.close();
    // The flag of the listener that failed (the /debug one may be apart from /metrics).
    const flag = error instanceof ListenError ? error.flag : "--metrics-bind-address";
    return { ok: false, error: `${flag}: ${errorText(error)}` };
  }
  if (server.metricsUrl)
    log.info("serving /metrics, /healthz, /readyz", { url: server.metricsUrl });
  if (server.debugUrl) log.info("serving /debug/decisions", { url: server.debugUrl });

  let dashboard: RunningDashboard | null = null;
  if (config.dashboardBindAddress) {
    try {
      dashboard = await startDashboardServer({
        ...config.dashboardBindAddress,
        data: new DashboardData({
          history,
          hpas,
          source: "controller",
          whatIf: {
            kind: "replay",
            run: liveWhatIf({
              history,
              hpas,
              config: config.controller,
              ...(deps.responseOf ? { responseOf: deps.responseOf } : {}),
            }),
          },
        }),
        auth: new DashboardAuth(dashboardToken ?? randomBytes(32).toString("base64url")),
      });
    } catch (error) {
      await Promise.all([hpas.informer.stop(), pods.informer.stop(), hpaEvents.stop()]);
      await server.close();
      client.close();
      history.close();
      return { ok: false, error: `--dashboard-bind-address: ${errorText(error)}` };
    }
    // Without a token of the operator's, the one-time link is the only way in.
    log.info("serving the dashboard", {
      url: dashboard.url,
      ...(dashboardToken === undefined ? { loginUrl: dashboard.loginUrl() } : {}),
    });
  }

  if (config.leaderElection.enabled) {
    const namespace = leaseNamespace(config, connection);
    lock = new LeaseLock({
      client,
      namespace,
      name: config.leaderElection.resourceName,
      identity: deps.identity ?? defaultIdentity(),
      events: leaseEvents,
      ...(server.debugUrl
        ? {
            holderAnnotations: {
              [DEBUG_ADDRESS_ANNOTATION]: advertisedDebugUrl(
                server.debugUrl,
                deps.podIp ?? process.env.POD_IP,
              ),
            },
          }
        : {}),
    });
    elector = new LeaderElector({
      lock,
      config: {
        leaseDurationMs: config.leaderElection.leaseDurationMs,
        renewDeadlineMs: config.leaderElection.renewDeadlineMs,
        retryPeriodMs: config.leaderElection.retryPeriodMs,
        releaseOnCancel: true,
      },
      callbacks: {
        onStartedLeading: () => {
          metrics.setLeader(true);
          log.info("became leader", { lease: lock!.describe(), identity: lock!.identity });
          startRuntime().catch((error) => log.error("start failed", error));
        },
        onStoppedLeading: async (reason) => {
          metrics.setLeader(false);
          const current = runtime;
          runtime = null;
          if (reason === "lost") {
            // As kube-controller-manager: a controller that lost its lease exits, and its
            // Deployment restarts it as a standby.
            log.error("leaderelection lost", undefined, { lease: lock!.describe() });
            lostLease = true;
            await current?.stop({ drain: false });
            resolveDone(1);
            return;
          }
          await current?.stop({ drain: true });
          // The last syncs' events go out while the lease is still ours.
          await events.flush();
        },
        onNewLeader: (identity) => {
          if (identity !== lock!.identity) log.info("new leader", { identity });
        },
      },
      log: (level, message, fields) => {
        if (level === "debug") log.v(4).info(message, fields);
        else if (level === "error") log.warn(message, fields);
        else log.info(message, fields);
      },
    });
    log.info("waiting to lead", { lease: `${namespace}/${config.leaderElection.resourceName}` });
    void elector.run();
  } else {
    void startRuntime().catch((error) => log.error("start failed", error));
  }

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      shuttingDown = true;
      if (elector) await elector.stop();
      else await runtime?.stop({ drain: true });
      unsubscribeForget();
      forgetOnDelete();
      await Promise.all([
        hpas.informer.stop(),
        pods.informer.stop(),
        hpaEvents.stop(),
        watchedScales?.stop(),
      ]);
      // After a lost lease the API server is often out of reach: "stopped leading" is written
      // if it can be while the rest flushes, as kube-controller-manager exits without waiting.
      await Promise.all([events.flush(), lostLease ? undefined : leaseEvents.flush()]);
      await server?.close();
      await dashboard?.close();
      history.close();
      client.close();
      resolveDone(0);
    })();
    return stopping;
  };

  return {
    ok: true,
    value: {
      connection,
      client,
      metrics,
      decisions,
      history,
      server,
      dashboard,
      runtime: () => runtime,
      elector,
      done,
      stop,
    },
  };
}

export interface ControllerIO {
  err: (line: string) => void;
}

/** Runs `horizon controller` until SIGTERM/SIGINT (exit 0) or a lost lease (exit 1). */
export async function controllerCommand(
  options: ControllerCommandOptions,
  io: ControllerIO,
): Promise<number> {
  const parsed = parseControllerOptions(options);
  if (!parsed.ok) {
    for (const error of parsed.errors) io.err(`error: ${error}`);
    return 2;
  }
  const started = await startController(parsed.value);
  if (!started.ok) {
    io.err(`error: ${started.error}`);
    return 1;
  }
  const running = started.value;
  const log = createLogger({ verbosity: parsed.value.verbosity });
  const onSignal = (signal: NodeJS.Signals) => {
    log.info("shutting down: finishing in-flight syncs", { signal });
    running.stop().catch((error) => log.error("shutdown failed", error));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  const code = await running.done;
  if (code !== 0) await running.stop();
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  log.info("stopped", { exitCode: code });
  return code;
}

export function registerControllerCommand(program: Command): void {
  program
    .command("controller")
    .description(
      "Run Horizon's HPA controller against a Kubernetes API server (in place of kube-controller-manager's, or against `horizon up --no-controller`)",
    )
    .option(
      "--kubeconfig <file>",
      "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)",
    )
    .option("--kube-api-qps <n>", "client-side requests per second to the API server", "20")
    .option("--kube-api-burst <n>", "client-side request burst", "30")
    .option(
      "--concurrent-horizontal-pod-autoscaler-syncs <n>",
      "HPAs synced at once (workers)",
      "5",
    )
    .option(
      "--horizontal-pod-autoscaler-sync-period <duration>",
      "how often each HPA is synced",
      "15s",
    )
    .option(
      "--horizontal-pod-autoscaler-tolerance <ratio>",
      "minimum change ratio that scales",
      "0.1",
    )
    .option(
      "--horizontal-pod-autoscaler-downscale-stabilization <duration>",
      "scale-down window for HPAs without behavior",
      "5m0s",
    )
    .option(
      "--horizontal-pod-autoscaler-cpu-initialization-period <duration>",
      "after pod start, CPU samples may be skipped for this long",
      "5m0s",
    )
    .option(
      "--horizontal-pod-autoscaler-initial-readiness-delay <duration>",
      "after pod start, readiness changes count as initial for this long",
      "30s",
    )
    .option("--feature-gates <gates>", "e.g. HPAScaleToZero=true")
    .option(KUBERNETES_VERSION_FLAG, KUBERNETES_VERSION_HELP)
    .option(
      "--hpa-selector <selector>",
      "manage only HPAs with these labels (opt-in migration, or sharding), e.g. autoscaling.horizon.dev/controller=horizon",
    )
    .option(
      "--leader-elect [bool]",
      "elect a leader through a coordination.k8s.io Lease before syncing (default true; --leader-elect=false turns it off)",
    )
    .option(
      "--leader-elect-lease-duration <duration>",
      "how long a standby waits after the lease last changed",
      "15s",
    )
    .option(
      "--leader-elect-renew-deadline <duration>",
      "the leader stops unless it renewed within this",
      "10s",
    )
    .option(
      "--leader-elect-retry-period <duration>",
      "time between attempts to acquire or renew",
      "2s",
    )
    .option("--leader-elect-resource-name <name>", "the Lease's name", "horizon-controller")
    .option(
      "--leader-elect-resource-namespace <ns>",
      "the Lease's namespace (default: the pod's namespace in-cluster, else kube-system)",
    )
    .option(
      "--shared-reads-max-age <duration>",
      "0s (default): every sync reads its scale and pod metrics, as upstream; D > 0: scales of Deployments, StatefulSets, ReplicaSets and RCs come from watches, and one PodMetrics list per namespace serves the syncs of D",
      "0s",
    )
    .option(
      "--metrics-bind-address <host:port>",
      "serve /metrics, /healthz, /readyz here (0 disables)",
      "127.0.0.1:8085",
    )
    .option(
      "--debug-bind-address <host:port>",
      "serve /debug/decisions here (default: with /metrics when that is on loopback)",
    )
    .option(
      "--dashboard-bind-address <host:port>",
      "serve the dashboard here, behind a bearer token (0 disables)",
      "127.0.0.1:8086",
    )
    .option(
      "--dashboard-history-size <n>",
      "syncs the dashboard keeps per HPA (240: the last hour at a 15s sync period)",
      "240",
    )
    .option(
      "--dashboard-history-max-records <n>",
      "syncs the dashboard keeps across HPAs; each HPA keeps its share when that is fewer (about 100 MiB)",
      "240000",
    )
    .option(
      "--dashboard-token-file <file>",
      "the dashboard's bearer token (default: a random one; the log prints a one-time login link)",
    )
    .option(
      "--data-dir <dir>",
      "keep the dashboard's history in DIR so it survives restarts (default: in memory)",
    )
    .option("-v <level>", "log verbosity (JSON lines on stderr)", "0")
    .action(async (options: ControllerCommandOptions) => {
      process.exitCode = await controllerCommand(options, { err: (line) => console.error(line) });
    });
}
