// `horizon controller`: Horizon's HPA controller against a Kubernetes API server (a real cluster
// with the built-in HPA controller disabled, or `horizon up --no-controller`). Parses the flags
// (src/controller-manager/options.ts) and starts the controller manager
// (src/controller-manager/controller-manager.ts), which wires the parts.
import type { Command } from "commander";
import {
  KUBERNETES_VERSION_FLAG,
  KUBERNETES_VERSION_HELP,
} from "../api/kubernetes-version-flag.js";
import { createLogger } from "../controller/log.js";
import { startController } from "../controller-manager/controller-manager.js";
import {
  type ControllerCommandOptions,
  parseControllerOptions,
} from "../controller-manager/options.js";

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
