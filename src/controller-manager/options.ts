// `horizon controller` flags: kube-controller-manager's names, defaults and duration syntax for
// everything upstream has (HPA flags, client rate limits, leader election), plus Horizon's own
// (--hpa-selector, --metrics-bind-address, --debug-*). Parsing is pure so tests check every
// flag's error without starting anything.

import { parseDuration } from "../api/duration.js";
import { readKubernetesVersionFlag } from "../api/kubernetes-version-flag.js";
import { parseSelector } from "../api/selector.js";
import type { KubernetesVersion } from "../api/versions.js";
import { isLoopbackHost } from "../controller/server.js";
import {
  applyControllerFlags,
  CONTROLLER_FLAGS,
  type ControllerConfig,
  defaultControllerConfig,
} from "../core/config.js";

/** What commander hands over (every value a string, as typed). */
export interface ControllerCommandOptions {
  kubeconfig?: string;
  kubeApiQps?: string;
  kubeApiBurst?: string;
  concurrentHorizontalPodAutoscalerSyncs?: string;
  horizontalPodAutoscalerSyncPeriod?: string;
  horizontalPodAutoscalerTolerance?: string;
  horizontalPodAutoscalerDownscaleStabilization?: string;
  horizontalPodAutoscalerCpuInitializationPeriod?: string;
  horizontalPodAutoscalerInitialReadinessDelay?: string;
  featureGates?: string;
  kubernetesVersion?: string;
  hpaSelector?: string;
  leaderElect?: string | boolean;
  leaderElectLeaseDuration?: string;
  leaderElectRenewDeadline?: string;
  leaderElectRetryPeriod?: string;
  leaderElectResourceName?: string;
  leaderElectResourceNamespace?: string;
  metricsBindAddress?: string;
  debugBindAddress?: string;
  dashboardBindAddress?: string;
  dashboardHistorySize?: string;
  dashboardHistoryMaxRecords?: string;
  dashboardTokenFile?: string;
  dataDir?: string;
  sharedReadsMaxAge?: string;
  v?: string;
}

export interface LeaderElectionSettings {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceName: string;
  /** null: the in-cluster namespace, else kube-system (kube-controller-manager's default). */
  resourceNamespace: string | null;
}

export interface BindAddress {
  host: string;
  port: number;
}

export interface ControllerCommandConfig {
  controller: ControllerConfig;
  kubeconfig: string | null;
  kubeApiQps: number;
  kubeApiBurst: number;
  /** Label selector of the HPAs to manage ("" = all). */
  hpaSelector: string;
  leaderElection: LeaderElectionSettings;
  /** null: no metrics/health server (`--metrics-bind-address 0`). */
  metricsBindAddress: BindAddress | null;
  /** Where /debug/decisions is served; default the metrics address when it is loopback. */
  debugBindAddress: BindAddress | null;
  /** The dashboard (src/web); null: not served (`--dashboard-bind-address 0`). */
  dashboardBindAddress: BindAddress | null;
  /** Syncs the dashboard keeps per HPA. */
  dashboardHistorySize: number;
  /** Records the dashboard keeps across HPAs (each HPA's share when fewer than the size). */
  dashboardHistoryMaxRecords: number;
  /** The dashboard's bearer token from this file; null: a random one (log in by link). */
  dashboardTokenFile: string | null;
  /** Where the dashboard's history is kept across restarts; null: in memory. */
  dataDir: string | null;
  /**
   * `--shared-reads-max-age`: 0 reads each HPA's scale and pod metrics per sync, as upstream;
   * more reads scales from watches and shares a namespace's PodMetrics list for this long.
   */
  sharedReadsMaxAgeMs: number;
  verbosity: number;
}

/** client-go's leaderelection.JitterFactor: renewDeadline must exceed retryPeriod × 1.2. */
const JITTER_FACTOR = 1.2;

export const CONTROLLER_DEFAULTS = {
  kubeApiQps: 20,
  kubeApiBurst: 30,
  leaseDuration: "15s",
  renewDeadline: "10s",
  retryPeriod: "2s",
  resourceName: "horizon-controller",
  metricsBindAddress: "127.0.0.1:8085",
  dashboardBindAddress: "127.0.0.1:8086",
  /** The last hour at the default 15 s sync period. */
  dashboardHistorySize: 240,
  /** About 100 MiB of heap: a full hour for 1,000 HPAs, six minutes each for 10,000. */
  dashboardHistoryMaxRecords: 240_000,
} as const;

type Parsed<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/**
 * HOST:PORT; "0" is null (the listener is off) where `zeroDisables` (the default: the
 * controller's and `up`'s flags), an error elsewhere (`simulate --serve`, which only serves).
 */
export function parseBindAddress(
  flag: string,
  text: string,
  zeroDisables = true,
): Parsed<BindAddress | null> {
  if (text === "0" && zeroDisables) return { ok: true, value: null };
  const match = /^(\[[0-9a-fA-F:]+\]|[^:]*):(\d+)$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port > 65535) {
    const form = zeroDisables ? "HOST:PORT (or 0 to disable)" : "HOST:PORT";
    return { ok: false, errors: [`--${flag}: must be ${form}, got "${text}"`] };
  }
  const host = match[1]!.replace(/^\[|\]$/g, "");
  return { ok: true, value: { host: host === "" ? "0.0.0.0" : host, port } };
}

/** Go's strconv.ParseBool, as pflag reads `--leader-elect=VALUE`. */
function parseGoBool(text: string): boolean | null {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(text)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(text)) return false;
  return null;
}

export function parseControllerOptions(
  options: ControllerCommandOptions,
): Parsed<ControllerCommandConfig> {
  const errors: string[] = [];
  const hpaFlags: Record<string, string | undefined> = {
    "concurrent-horizontal-pod-autoscaler-syncs": options.concurrentHorizontalPodAutoscalerSyncs,
    "horizontal-pod-autoscaler-sync-period": options.horizontalPodAutoscalerSyncPeriod,
    "horizontal-pod-autoscaler-tolerance": options.horizontalPodAutoscalerTolerance,
    "horizontal-pod-autoscaler-downscale-stabilization":
      options.horizontalPodAutoscalerDownscaleStabilization,
    "horizontal-pod-autoscaler-cpu-initialization-period":
      options.horizontalPodAutoscalerCpuInitializationPeriod,
    "horizontal-pod-autoscaler-initial-readiness-delay":
      options.horizontalPodAutoscalerInitialReadinessDelay,
    "feature-gates": options.featureGates,
  };
  for (const flag of Object.keys(hpaFlags)) {
    if (!(flag in CONTROLLER_FLAGS)) throw new Error(`unknown controller flag ${flag}`);
  }
  let version: KubernetesVersion | undefined;
  if (options.kubernetesVersion !== undefined) {
    const read = readKubernetesVersionFlag(options.kubernetesVersion);
    if (read.ok) version = read.value.version;
    else errors.push(read.error.replace(/^error: /, ""));
  }
  const applied = applyControllerFlags(defaultControllerConfig(version), hpaFlags);
  let controller = defaultControllerConfig(version);
  if (applied.ok) controller = applied.config;
  else for (const issue of applied.issues) errors.push(`${issue.flag}: ${issue.message}`);

  const positiveNumber = (flag: string, text: string | undefined, fallback: number): number => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value) || value <= 0) {
      errors.push(`--${flag}: must be a number greater than 0, got "${text}"`);
      return fallback;
    }
    return value;
  };
  const kubeApiQps = positiveNumber(
    "kube-api-qps",
    options.kubeApiQps,
    CONTROLLER_DEFAULTS.kubeApiQps,
  );
  const kubeApiBurst = positiveNumber(
    "kube-api-burst",
    options.kubeApiBurst,
    CONTROLLER_DEFAULTS.kubeApiBurst,
  );
  if (options.kubeApiBurst !== undefined && !Number.isInteger(kubeApiBurst)) {
    errors.push(`--kube-api-burst: must be an integer, got "${options.kubeApiBurst}"`);
  }

  const hpaSelector = options.hpaSelector ?? "";
  if (hpaSelector !== "") {
    const parsed = parseSelector(hpaSelector);
    if (!parsed.ok) errors.push(`--hpa-selector: ${parsed.error}`);
  }

  // kube-controller-manager elects a leader unless told not to (--leader-elect=false).
  let enabled = true;
  if (options.leaderElect === true) enabled = true;
  else if (typeof options.leaderElect === "string") {
    const value = parseGoBool(options.leaderElect);
    if (value === null) {
      errors.push(`--leader-elect: must be true or false, got "${options.leaderElect}"`);
    } else enabled = value;
  }
  const duration = (flag: string, text: string): number => {
    const parsed = parseDuration(text);
    if (!parsed.ok) {
      errors.push(`--${flag}: ${parsed.error}`);
      return 0;
    }
    if (parsed.ms <= 0) errors.push(`--${flag}: must be greater than 0`);
    return parsed.ms;
  };
  const leaseDurationMs = duration(
    "leader-elect-lease-duration",
    options.leaderElectLeaseDuration ?? CONTROLLER_DEFAULTS.leaseDuration,
  );
  const renewDeadlineMs = duration(
    "leader-elect-renew-deadline",
    options.leaderElectRenewDeadline ?? CONTROLLER_DEFAULTS.renewDeadline,
  );
  const retryPeriodMs = duration(
    "leader-elect-retry-period",
    options.leaderElectRetryPeriod ?? CONTROLLER_DEFAULTS.retryPeriod,
  );
  if (enabled && leaseDurationMs > 0 && renewDeadlineMs > 0 && retryPeriodMs > 0) {
    // client-go's NewLeaderElector refuses these combinations with these words.
    if (leaseDurationMs <= renewDeadlineMs) {
      errors.push(
        "--leader-elect-lease-duration: leaseDuration must be greater than renewDeadline",
      );
    }
    if (renewDeadlineMs <= JITTER_FACTOR * retryPeriodMs) {
      errors.push(
        "--leader-elect-renew-deadline: renewDeadline must be greater than retryPeriod*JitterFactor",
      );
    }
  }
  const resourceName = options.leaderElectResourceName ?? CONTROLLER_DEFAULTS.resourceName;
  if (resourceName === "") errors.push("--leader-elect-resource-name: must not be empty");
  const resourceNamespace = options.leaderElectResourceNamespace ?? null;
  if (resourceNamespace === "") {
    errors.push("--leader-elect-resource-namespace: must not be empty");
  }

  const metrics = parseBindAddress(
    "metrics-bind-address",
    options.metricsBindAddress ?? CONTROLLER_DEFAULTS.metricsBindAddress,
  );
  if (!metrics.ok) errors.push(...metrics.errors);
  let debug: BindAddress | null = null;
  if (options.debugBindAddress !== undefined) {
    const parsed = parseBindAddress("debug-bind-address", options.debugBindAddress);
    if (parsed.ok) debug = parsed.value;
    else errors.push(...parsed.errors);
  } else if (metrics.ok && metrics.value && isLoopbackHost(metrics.value.host)) {
    debug = metrics.value;
  }

  const dashboard = parseBindAddress(
    "dashboard-bind-address",
    options.dashboardBindAddress ?? CONTROLLER_DEFAULTS.dashboardBindAddress,
  );
  if (!dashboard.ok) errors.push(...dashboard.errors);
  let dashboardHistorySize: number = CONTROLLER_DEFAULTS.dashboardHistorySize;
  if (options.dashboardHistorySize !== undefined) {
    const text = options.dashboardHistorySize;
    if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 100_000) {
      errors.push(
        `--dashboard-history-size: must be an integer from 1 to 100000 (syncs kept per HPA), got "${text}"`,
      );
    } else dashboardHistorySize = Number(text);
  }
  let dashboardHistoryMaxRecords: number = CONTROLLER_DEFAULTS.dashboardHistoryMaxRecords;
  if (options.dashboardHistoryMaxRecords !== undefined) {
    const text = options.dashboardHistoryMaxRecords;
    if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 100_000_000) {
      errors.push(
        `--dashboard-history-max-records: must be an integer from 1 to 100000000 (syncs kept across HPAs), got "${text}"`,
      );
    } else dashboardHistoryMaxRecords = Number(text);
  }
  if (options.dashboardTokenFile === "") {
    errors.push("--dashboard-token-file: must name a file");
  }
  if (options.dataDir === "") errors.push("--data-dir: must name a directory");
  let sharedReadsMaxAgeMs = 0;
  if (options.sharedReadsMaxAge !== undefined) {
    const parsed = parseDuration(options.sharedReadsMaxAge);
    if (!parsed.ok) errors.push(`--shared-reads-max-age: ${parsed.error}`);
    else if (parsed.ms < 0) errors.push("--shared-reads-max-age: must not be negative");
    else sharedReadsMaxAgeMs = parsed.ms;
  }

  let verbosity = 0;
  if (options.v !== undefined) {
    if (!/^\d+$/.test(options.v))
      errors.push(`-v: must be a non-negative integer, got "${options.v}"`);
    else verbosity = Number(options.v);
  }

  if (options.kubeconfig === "") errors.push("--kubeconfig: must name a file");
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      controller,
      kubeconfig: options.kubeconfig ?? null,
      kubeApiQps,
      kubeApiBurst,
      hpaSelector,
      leaderElection: {
        enabled,
        leaseDurationMs,
        renewDeadlineMs,
        retryPeriodMs,
        resourceName,
        resourceNamespace,
      },
      metricsBindAddress: metrics.ok ? metrics.value : null,
      debugBindAddress: debug,
      dashboardBindAddress: dashboard.ok ? dashboard.value : null,
      dashboardHistorySize,
      dashboardHistoryMaxRecords,
      dashboardTokenFile: options.dashboardTokenFile ?? null,
      dataDir: options.dataDir ?? null,
      sharedReadsMaxAgeMs,
      verbosity,
    },
  };
}

/** The configuration with every flag at its default (embedders such as `horizon up` start here). */
export function controllerCommandDefaults(): ControllerCommandConfig {
  const parsed = parseControllerOptions({});
  if (!parsed.ok) throw new Error(`controller defaults are invalid: ${parsed.errors.join("; ")}`);
  return parsed.value;
}
