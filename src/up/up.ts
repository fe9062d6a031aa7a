// What `horizon up` runs: the embedded cluster on the real clock behind a Kubernetes-compatible
// API server, with Horizon's HPA controller (src/controller-manager) over it, optionally
// Prometheus and its adapter (prometheus.ts) and the dashboard, and a kubeconfig so that kubectl
// and @kubernetes/client-node work against it unchanged (k3s-style: one command, one file).
// `startUp` is the one composition function the command calls; tests start it directly.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { isIPv4 } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FeatureGates } from "../api/featuregates.js";
import type { KubeObject } from "../api/types.js";
import { DEFAULT_KUBERNETES_VERSION } from "../api/versions.js";
import { persistentServiceAccountTokens, ServiceAccountTokens } from "../apiserver/auth/tokens.js";
import {
  type AuthenticationTrust,
  REQUEST_HEADER_DEFAULTS,
} from "../apiserver/authentication-trust.js";
import type { InFlightLimits } from "../apiserver/filters.js";
import { createApiHandler } from "../apiserver/handler.js";
import { ReadinessChecks } from "../apiserver/health.js";
import { serveHttp } from "../apiserver/http.js";
import {
  defaultKubeconfigPath,
  renderKubeconfig,
  writeKubeconfig,
} from "../apiserver/kubeconfig.js";
import { KubernetesServiceController } from "../apiserver/kubernetes-service.js";
import { scaleManagedFields as scaleOwnership } from "../apiserver/registry-store.js";
import {
  certificateHosts,
  generateCertificateAuthority,
  generateServingCertificate,
  persistentCertificateAuthority,
  persistentToken,
  REQUEST_HEADER_CA_CERT_FILE,
  REQUEST_HEADER_CA_KEY_FILE,
  signServingCertificate,
} from "../apiserver/tls.js";
import type { ApiRequest } from "../apiserver/types.js";
import { EmbeddedCluster } from "../cluster/cluster.js";
import {
  type Cidr,
  cidrsOverlap,
  DEFAULT_POD_CIDR,
  DEFAULT_SERVICE_CIDR,
  firstAddress,
  parseLoopbackCidr,
} from "../cluster/ipam.js";
import type { NetworkOptions } from "../cluster/network.js";
import { HttpPodNetwork } from "../cluster/network-http.js";
import { hostSystemInfo, NodeStatusReporter } from "../cluster/node-status.js";
import { type DataDir, openDataDir } from "../cluster/persistence.js";
import { RealtimeDriver } from "../cluster/realtime.js";
import { ScenarioTraffic } from "../cluster/traffic-http.js";
import { cpuModelUniform, servedPerPod } from "../cluster/usage.js";
import type { SyncReport } from "../controller/controller.js";
import { createLogger } from "../controller/log.js";
import {
  type RunningController,
  startController,
} from "../controller-manager/controller-manager.js";
import { type BindAddress, controllerCommandDefaults } from "../controller-manager/options.js";
import type { ControllerConfig } from "../core/config.js";
import { ObjectStore } from "../registry/store.js";
import { applyScenarioEvent, clusterModelOf } from "../sim/cluster.js";
import { controllerConfigFor } from "../sim/runner.js";
import { SCENARIO_DEFAULTS } from "../sim/scenario.js";
import type { Scenario, ScenarioEvent } from "../sim/scenario-types.js";
import {
  AdapterHook,
  type PrometheusStackOptions,
  type RunningStack,
  startPrometheusStack,
} from "./prometheus.js";

/** kube-apiserver's secure port. */
export const DEFAULT_PORT = 6443;
export const DEFAULT_ADDRESS = "127.0.0.1";

/** An empty cluster: no objects, no workload models, every Scenario default (SCENARIO_DEFAULTS). */
export function emptyScenario(kubernetesVersion = DEFAULT_KUBERNETES_VERSION): Scenario {
  return {
    spec: {
      name: "horizon-up",
      durationMs: SCENARIO_DEFAULTS.durationMs,
      seed: SCENARIO_DEFAULTS.seed,
      kubernetesVersion,
      controllerFlags: {},
      featureGates: {},
      cluster: { capacityPods: null, metricsResolutionMs: SCENARIO_DEFAULTS.metricsResolutionMs },
      workloads: [],
      metrics: { pods: [], object: [], external: [] },
      events: [],
    },
    objects: [],
    sources: new Map(),
    warnings: [],
  };
}

export interface StartUpOptions {
  /** A parsed scenario (tests, or the CLI after loading the file); default: an empty cluster. */
  scenario?: Scenario;
  /** What /version and the Node's kubeletVersion say, e.g. `v1.37.2` (default: the
   * scenario's Kubernetes version, patch 0). */
  gitVersion?: string;
  /** 0 = an ephemeral port. Default 6443. */
  port?: number;
  /** Default 127.0.0.1. */
  address?: string;
  /** Where to write the kubeconfig (mode 0600); null writes none. Default ~/.horizon/kubeconfig. */
  kubeconfigOut?: string | null;
  /** Plain HTTP instead of HTTPS (the kubeconfig then says insecure-skip-tls-verify). */
  insecureHttp?: boolean;
  /** Run Horizon's controller (default true). */
  controller?: boolean;
  /**
   * How the controller reaches the cluster: "http" (default) is `horizon controller` in this
   * process, over the API server with client-node, as it runs against a real cluster;
   * "in-process" binds its ports straight to the embedded cluster (the simulator's way).
   */
  controllerTransport?: "http" | "in-process";
  /** Overrides the scenario's horizontal-pod-autoscaler-sync-period. */
  syncPeriodMs?: number;
  /**
   * The bearer token clients must send over HTTPS; default: the data directory's (made once),
   * else 32 random bytes.
   */
  token?: string;
  /** Epoch ms of the cluster's start (default Date.now()). */
  startTime?: number;
  /** Receives progress lines (controller decisions, loop errors). */
  log?: (line: string) => void;
  /**
   * The durable store's directory (objects and the resourceVersion counter survive kill -9 and
   * restart); default: in memory. The scenario's objects seed a fresh directory only.
   */
  dataDir?: string;
  /**
   * Serve the dashboard here (port 0: a free one), behind the API's token; default none.
   * Needs the controller over HTTP (it records the history the dashboard shows).
   */
  dashboardAddress?: { host: string; port: number };
  /**
   * The controller's /metrics, /healthz and /readyz, and /debug/decisions with them on a
   * loopback address (`horizon controller`'s --metrics-bind-address); default none.
   */
  metricsBindAddress?: BindAddress | null;
  /** Where /debug/decisions is served (parseControllerOptions: the metrics address on loopback). */
  debugBindAddress?: BindAddress | null;
  /** The metrics address is the default one: when its port is in use, take a free one. */
  metricsBindFallback?: boolean;
  /** `--prometheus` / `--adapter-config`: a real Prometheus and the adapter (prometheus.ts). */
  prometheus?: PrometheusStackOptions;
  /** Pod addresses (a loopback CIDR; default 127.64.0.0/16). */
  podCidr?: string;
  /** Service ClusterIPs (a loopback CIDR; default 127.65.0.0/16). */
  serviceCidr?: string;
  /**
   * Serve real traffic: pods listen on their IPs, ClusterIPs proxy to Ready endpoints (the CLI
   * does; default false, so tests that do not need sockets open none).
   */
  listeners?: boolean;
  /**
   * What becomes of the scenario's traffic models: "requests" sends them as real HTTP requests to
   * the Services of their workloads (needs `listeners`), "model" keeps them modelled (the pods'
   * CPU follows them; nothing reaches the pods). Default: "requests" with `prometheus` and
   * `listeners` (Prometheus reads the pods' own counters), else "model".
   */
  scenarioTraffic?: ScenarioTrafficMode;
  /** The API server's --max-requests-inflight / --max-mutating-requests-inflight. */
  inFlight?: Partial<InFlightLimits>;
  /**
   * How often the `kubernetes` Service, its Endpoints and EndpointSlice are checked and made
   * again (upstream's endpoint reconciler interval; default 10 s; tests shorten it).
   */
  endpointIntervalMs?: number;
  /** kubelet's nodeStatusReportFrequency: the Node's status heartbeat (default 5 min). */
  nodeStatusReportFrequencyMs?: number;
  /** kubelet's nodeLeaseDurationSeconds: the node Lease, renewed every quarter of it (default 40). */
  nodeLeaseDurationSeconds?: number;
}

export interface RunningUp {
  /** https://127.0.0.1:PORT (or http://). */
  url: string;
  port: number;
  /** null over plain HTTP (no authentication). */
  token: string | null;
  /** The kubeconfig text, whether or not it was written. */
  kubeconfig: string;
  kubeconfigPath: string | null;
  /** PEM of the CA clients must trust (null over plain HTTP). */
  caCert: string | null;
  cluster: EmbeddedCluster;
  driver: RealtimeDriver<ScenarioEvent>;
  controllerConfig: ControllerConfig | null;
  /** The controller running over HTTP (null in-process or with --no-controller). */
  controller: RunningController | null;
  /** The open data directory (null in memory). */
  dataDir: DataDir | null;
  /**
   * The store's resourceVersion once restored (or seeded), before the control plane's own
   * loops wrote (the kubelet's node status and lease at start, the kubernetes Service).
   */
  startResourceVersion: number;
  /** How many objects the store held then. */
  startObjectCount: number;
  /** The dashboard's base URL and a one-time login link (null: not served). */
  dashboard: { url: string; loginUrl: string } | null;
  /** Prometheus and the adapter, with --prometheus. */
  prometheus: RunningStack | null;
  /** The pods' listeners and the Service proxies (null without `listeners`). */
  podNetwork: HttpPodNetwork | null;
  /** The scenario's traffic sent as requests (null: it stays modelled). */
  scenarioTraffic: ScenarioTraffic | null;
  /** Stops the controller loop and the server. */
  close(): Promise<void>;
}

export type ScenarioTrafficMode = "requests" | "model";

/** `usage`: the flags do not fit the data directory (the command exits 2, as for bad input). */
export type StartUpResult =
  | { ok: true; value: RunningUp }
  | { ok: false; error: string; usage?: true };

/** The names kube-apiserver's serving certificate carries for the kubernetes Service. */
const KUBERNETES_SERVICE_HOSTS = [
  "kubernetes",
  "kubernetes.default",
  "kubernetes.default.svc",
  "kubernetes.default.svc.cluster.local",
];

/**
 * The address the kubernetes Service's endpoints name (upstream --advertise-address): the
 * bound IPv4 address, else loopback (a wildcard or IPv6 bind is reachable there too).
 */
function advertiseAddress(address: string): string {
  return isIPv4(address) && address !== "0.0.0.0" ? address : "127.0.0.1";
}

/** Host part of a URL for an address clients can dial (a wildcard bind is dialled on loopback). */
export function dialHost(address: string): string {
  if (address === "0.0.0.0" || address === "::" || address === "") return "127.0.0.1";
  return address.includes(":") ? `[${address}]` : address;
}

/**
 * The embedded cluster on an in-memory store, or on one restored from (and journaled to) a
 * data directory, and the scenario's objects still to create: in memory and in a fresh directory
 * only (a restarted server keeps what its clients changed or deleted). They are created once the
 * API server exists, as a client's would be: its namespaces and service accounts admit the pods.
 */
function buildCluster(
  scenario: Scenario,
  startTime: number,
  dir: string | undefined,
  network: NetworkOptions,
):
  | {
      ok: true;
      value: { cluster: EmbeddedCluster; dataDir: DataDir | null; seed: readonly KubeObject[] };
    }
  | { ok: false; error: string; usage?: true } {
  // The in-process controller writes spec.replicas through scale, as kube-controller-manager.
  const scaleManagedFields = scaleOwnership("kube-controller-manager");
  // Generated names (pods, EndpointSlices) and uids are random, as upstream's: never those of
  // another run, nor those of the objects a delete and re-apply replaced. The scenario's seed
  // still drives its models' noise.
  const nameSeed = () => randomBytes(4).readUInt32LE(0);
  if (dir === undefined) {
    // The store runs on the cluster's clock, which exists only once the cluster does.
    let cluster: EmbeddedCluster | undefined;
    const store = new ObjectStore({ now: () => cluster?.now ?? startTime, newUid: randomUUID });
    cluster = new EmbeddedCluster({
      model: clusterModelOf(scenario.spec),
      startTime,
      store,
      scaleManagedFields,
      network,
      componentEvents: true,
      nameSeed,
    });
    return { ok: true, value: { cluster, dataDir: null, seed: scenario.objects } };
  }
  const opened = openDataDir(dir);
  if (!opened.ok) return opened;
  const dataDir = opened.value;
  const stored = keepNetworkRanges(dataDir, network);
  if (!stored.ok) {
    dataDir.close();
    return stored;
  }
  try {
    let cluster: EmbeddedCluster | undefined;
    const store = new ObjectStore({
      now: () => cluster?.now ?? startTime,
      journal: dataDir.journal,
      initial: dataDir.state(),
      newUid: randomUUID,
    });
    cluster = new EmbeddedCluster({
      model: clusterModelOf(scenario.spec),
      startTime,
      store,
      scaleManagedFields,
      network,
      componentEvents: true,
      nameSeed,
    });
    const seed = dataDir.fresh ? scenario.objects : [];
    return { ok: true, value: { cluster, dataDir, seed } };
  } catch (error) {
    dataDir.close();
    return { ok: false, error: `--data-dir ${dir}: ${(error as Error).message}` };
  }
}

/** Where a data directory keeps the address ranges its pods and Services were given. */
export const NETWORK_FILE = "network.json";

/**
 * The ranges are the data directory's: its pods and Services keep their addresses across a
 * restart, so a restart with other ranges would leave pods Running on addresses nothing
 * listens on and the kubernetes Service outside the serving certificate. A directory without
 * them (fresh, or from an older Horizon) records this run's.
 */
function keepNetworkRanges(
  dataDir: DataDir,
  network: NetworkOptions,
): { ok: true } | { ok: false; error: string; usage: true } | { ok: false; error: string } {
  const file = join(dataDir.dir, NETWORK_FILE);
  const given = { podCidr: network.podCidr.text, serviceCidr: network.serviceCidr.text };
  let text: string | null = null;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      return { ok: false, error: `--data-dir ${dataDir.dir}: ${(error as Error).message}` };
    }
  }
  if (text !== null) {
    let stored: { podCidr?: unknown; serviceCidr?: unknown };
    try {
      stored = JSON.parse(text);
    } catch {
      return { ok: false, error: `--data-dir ${dataDir.dir}: ${NETWORK_FILE} is not JSON` };
    }
    for (const [flag, key, what] of [
      ["--pod-cidr", "podCidr", "pods"],
      ["--service-cidr", "serviceCidr", "Services"],
    ] as const) {
      const kept = stored[key];
      if (typeof kept === "string" && kept !== given[key]) {
        return {
          ok: false,
          usage: true,
          error: `${flag} ${given[key]}: the cluster in --data-dir ${dataDir.dir} gave its ${what} addresses in ${kept}, and they keep them; start with ${flag} ${kept}, or with a new --data-dir for a cluster in ${given[key]}`,
        };
      }
    }
    if (typeof stored.podCidr === "string" && typeof stored.serviceCidr === "string") {
      return { ok: true };
    }
  }
  try {
    const temporary = `${file}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(given)}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  } catch (error) {
    return { ok: false, error: `--data-dir ${dataDir.dir}: ${(error as Error).message}` };
  }
  return { ok: true };
}

/**
 * The serving certificate, its CA and the bearer token. In memory: a throwaway CA and a random
 * token. With a data directory: the CA and token kept there (made on first use), as a restarted
 * k3s keeps its CA and token, so kubeconfigs and clients of the last run stay valid; the
 * serving certificate is signed afresh for this run's address.
 * kubectl (clientcmd) sends user credentials only over TLS (kubernetes/kubectl#744), so a
 * plain-HTTP server has no token: like kube-apiserver's old insecure port, it serves without
 * authentication.
 */
async function servingCredentials(
  address: string,
  dir: string | undefined,
  givenToken: string | undefined,
  serviceIP: string,
): Promise<
  Parsed<{ token: string; caCert: string; cert: string; key: string; requestHeaderCa: string }>
> {
  // As kube-apiserver's own certificate: also the kubernetes Service's address and names.
  const hosts = [...certificateHosts(address), serviceIP, ...KUBERNETES_SERVICE_HOSTS];
  const makeToken = () => randomBytes(32).toString("base64url");
  // The front proxy's client CA, published for extension API servers (`horizon adapter`); kept
  // in the data directory as the serving CA is, so they keep trusting it across restarts.
  const requestHeaderOptions = { days: 3650, commonName: "horizon-request-header-ca" };
  const requestHeader =
    dir === undefined
      ? await generateCertificateAuthority(requestHeaderOptions)
      : await persistentCertificateAuthority(dir, requestHeaderOptions, {
          cert: REQUEST_HEADER_CA_CERT_FILE,
          key: REQUEST_HEADER_CA_KEY_FILE,
        });
  if (!requestHeader.ok) return requestHeader;
  const requestHeaderCa = requestHeader.value.caCert;
  if (dir === undefined) {
    const generated = await generateServingCertificate({ hosts });
    if (!generated.ok) return generated;
    return {
      ok: true,
      value: { token: givenToken ?? makeToken(), ...generated.value, requestHeaderCa },
    };
  }
  const ca = await persistentCertificateAuthority(dir);
  if (!ca.ok) return ca;
  const signed = await signServingCertificate(ca.value, { hosts });
  if (!signed.ok) return signed;
  // A token given by the caller wins over (and does not replace) the directory's.
  const token =
    givenToken !== undefined
      ? { ok: true as const, value: givenToken }
      : await persistentToken(dir, makeToken);
  if (!token.ok) return token;
  return { ok: true, value: { token: token.value, ...signed.value, requestHeaderCa } };
}

/** Starts everything `horizon up` runs; failures to start (port in use, a bad data directory) are data. */
export async function startUp(options: StartUpOptions = {}): Promise<StartUpResult> {
  const scenario = options.scenario ?? emptyScenario();
  const address = options.address ?? DEFAULT_ADDRESS;
  const log = options.log ?? (() => {});

  let controllerConfig: ControllerConfig | null = null;
  if (options.controller !== false) {
    try {
      controllerConfig = controllerConfigFor(scenario);
    } catch (error) {
      return { ok: false, error: `controllerFlags: ${(error as Error).message}` };
    }
    if (options.syncPeriodMs !== undefined) {
      if (!(options.syncPeriodMs > 0))
        return { ok: false, error: "--sync-period: must be positive" };
      controllerConfig.syncPeriodMs = options.syncPeriodMs;
    }
  }

  const ranges = parseRanges(options);
  if (!ranges.ok) return ranges;
  const trafficMode =
    options.scenarioTraffic ?? (options.prometheus && options.listeners ? "requests" : "model");
  if (trafficMode === "requests" && !options.listeners) {
    return {
      ok: false,
      error: "--scenario-traffic requests: needs the pods' listeners (the pod network)",
    };
  }
  // Pods report listen failures after the cluster exists: the network reaches it through this.
  let clusterRef: EmbeddedCluster | undefined;
  const podNetwork = options.listeners
    ? new HttpPodNetwork({
        onPodError: (pod, container, message) =>
          clusterRef?.containerFailed(pod, container, message),
        onServed: (pod) => clusterRef?.recordServed(pod),
        onAccess: (pod, container, line) => clusterRef?.podLogLine(pod, container, line),
        onServiceError: (service, message) => log(`${clockTime()} service ${service}: ${message}`),
      })
    : null;
  const network: NetworkOptions = {
    ...ranges.value,
    ...(podNetwork ? { pods: podNetwork } : {}),
  };
  // The data directory first: it is locked before its CA and token are read or made.
  const built = buildCluster(scenario, options.startTime ?? Date.now(), options.dataDir, network);
  if (!built.ok) {
    await podNetwork?.close();
    return built;
  }
  const { cluster, dataDir, seed } = built.value;
  clusterRef = cluster;

  let token: string | null = null;
  let tls: { key: string; cert: string } | undefined;
  let caCert: string | null = null;
  let authenticationTrust: AuthenticationTrust | undefined;
  if (!options.insecureHttp) {
    const serving = await servingCredentials(
      address,
      dataDir?.dir,
      options.token,
      firstAddress(ranges.value.serviceCidr),
    );
    if (!serving.ok) {
      await podNetwork?.close();
      dataDir?.close();
      return serving;
    }
    ({ token, caCert } = serving.value);
    // Clients authenticate with tokens (no --client-ca-file): the front proxy's trust only.
    authenticationTrust = {
      requestHeader: { clientCa: serving.value.requestHeaderCa, ...REQUEST_HEADER_DEFAULTS },
    };
    tls = { key: serving.value.key, cert: serving.value.cert };
  }

  // Service account tokens stay valid across restarts with the data directory's signing key.
  const tokens = dataDir
    ? await persistentServiceAccountTokens(dataDir.dir)
    : { ok: true as const, value: ServiceAccountTokens.generate() };
  if (!tokens.ok) {
    await podNetwork?.close();
    dataDir?.close();
    return tokens;
  }

  const previousWarnings = new Map<string, Set<string>>();
  const overHttp = controllerConfig !== null && options.controllerTransport !== "in-process";
  const driver = new RealtimeDriver({
    cluster,
    controllerConfig: overHttp ? null : controllerConfig,
    events: scenario.spec.events,
    applyEvent: (event, running, now) =>
      applyScenarioEvent(event, { cluster, controller: running.controller, now }),
    onSync: (report) => {
      for (const line of describeSync(report, previousWarnings)) log(line);
    },
    onEvent: (event) => log(`${clockTime()} scenario event: ${event.type}`),
    onError: (error) => log(`${clockTime()} error: ${(error as Error).stack ?? String(error)}`),
  });

  const adapterHook = new AdapterHook();
  // A controller failing on a stored object is logged; the client's write stands.
  cluster.store.onListenerError((error, event) => {
    const { kind, metadata } = event.object;
    const at = `${kind} ${metadata.namespace ? `${metadata.namespace}/` : ""}${metadata.name}`;
    log(`${clockTime()} error: on ${event.type} ${at}: ${(error as Error).stack ?? String(error)}`);
  });
  // Parts started beside the server (Prometheus) add their /readyz checks here.
  const readiness = new ReadinessChecks();
  const gitVersion = options.gitVersion ?? `v${scenario.spec.kubernetesVersion}.0`;
  const api = createApiHandler({
    cluster,
    readiness,
    featureGates: FeatureGates.fromRecord(
      scenario.spec.featureGates,
      FeatureGates.defaults(scenario.spec.kubernetesVersion),
    ),
    gitVersion,
    ...(token !== null ? { token } : {}),
    serviceAccountTokens: tokens.value,
    extensions: { handleMetricsApi: adapterHook.handleMetricsApi },
    ...(options.inFlight ? { inFlight: options.inFlight } : {}),
    ...(caCert !== null ? { rootCaCertificate: caCert } : {}),
    ...(authenticationTrust ? { authenticationTrust } : {}),
  });
  for (const object of seed) cluster.create(object);
  // What a request reads or writes is as of now, not as of the loop's last tick.
  const handler = (request: ApiRequest) => {
    driver.catchUp();
    return api(request);
  };

  let server: { port: number; close(): Promise<void> | void };
  try {
    server = await serveHttp(handler, {
      port: options.port ?? DEFAULT_PORT,
      address,
      ...(tls ? { tls } : {}),
    });
  } catch (error) {
    await podNetwork?.close();
    dataDir?.close();
    return { ok: false, error: `cannot listen on ${address}: ${(error as Error).message}` };
  }
  driver.start();
  const startResourceVersion = Number(cluster.store.resourceVersion());
  let startObjectCount = 0;
  for (const _ of cluster.store.objects()) startObjectCount++;
  const kubernetesService = new KubernetesServiceController({
    cluster,
    publicIP: advertiseAddress(address),
    port: server.port,
    ...(options.endpointIntervalMs !== undefined ? { intervalMs: options.endpointIntervalMs } : {}),
    beforePass: () => driver.catchUp(),
    onError: (message) => log(`${clockTime()} error: ${message}`),
  });
  kubernetesService.start();
  // The kubelet's node registration, status heartbeat and node lease.
  const nodeStatus = new NodeStatusReporter({
    store: cluster.store,
    model: {
      capacityPods: cluster.model.capacityPods ?? 110,
      podCidr: ranges.value.podCidr.text,
      info: { ...hostSystemInfo(), kubeletVersion: gitVersion },
    },
    now: Date.now,
    ...(options.nodeStatusReportFrequencyMs !== undefined
      ? { nodeStatusReportFrequencyMs: options.nodeStatusReportFrequencyMs }
      : {}),
    ...(options.nodeLeaseDurationSeconds !== undefined
      ? { nodeLeaseDurationSeconds: options.nodeLeaseDurationSeconds }
      : {}),
    beforePass: () => driver.catchUp(),
    onError: (message) => log(`${clockTime()} error: ${message}`),
  });
  nodeStatus.start();

  const url = `${tls ? "https" : "http"}://${dialHost(address)}:${server.port}`;
  const kubeconfigOptions = {
    server: url,
    ...(token !== null ? { token } : {}),
    ...(caCert !== null ? { caCert } : {}),
    insecureSkipTlsVerify: !tls,
  };
  let kubeconfig = renderKubeconfig(kubeconfigOptions);
  const kubeconfigPath =
    options.kubeconfigOut === null
      ? null
      : resolve(options.kubeconfigOut ?? defaultKubeconfigPath());
  let controller: RunningController | null = null;
  let stack: RunningStack | null = null;
  let scenarioTraffic: ScenarioTraffic | null = null;
  let privateKubeconfigDir: string | null = null;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await controller?.stop();
    await scenarioTraffic?.stop();
    await stack?.close();
    if (privateKubeconfigDir) rmSync(privateKubeconfigDir, { recursive: true, force: true });
    kubernetesService.stop();
    nodeStatus.stop();
    await driver.stop();
    await podNetwork?.close();
    await server.close();
    // Last: a clean stop compacts the journal and releases the directory's lock.
    dataDir?.close();
  };
  if (kubeconfigPath !== null) {
    try {
      await writeKubeconfig(kubeconfigPath, kubeconfig);
    } catch (error) {
      await close();
      return { ok: false, error: `cannot write the kubeconfig: ${(error as Error).message}` };
    }
  }
  // The clients in this process (controller, adapter) read the kubeconfig from a file.
  const kubeconfigFile = async () => {
    if (kubeconfigPath !== null) return kubeconfigPath;
    if (privateKubeconfigDir === null) {
      privateKubeconfigDir = mkdtempSync(join(tmpdir(), "horizon-up-"));
      await writeKubeconfig(join(privateKubeconfigDir, "kubeconfig"), kubeconfig);
    }
    return join(privateKubeconfigDir, "kubeconfig");
  };
  if (options.prometheus) {
    const started = await startPrometheusStack(options.prometheus, {
      cluster,
      apiUrl: url,
      token,
      caCert,
      kubeconfigFile: await kubeconfigFile(),
      dataDir: dataDir?.dir ?? null,
      hook: adapterHook,
      log,
      readiness,
    });
    if (!started.ok) {
      await close();
      return started;
    }
    stack = started.value;
  }
  if (trafficMode === "requests") {
    scenarioTraffic = new ScenarioTraffic({
      cluster,
      log: (line) => log(`${clockTime()} ${line}`),
    });
    scenarioTraffic.start();
  }
  if (overHttp && controllerConfig) {
    const file = await kubeconfigFile();
    const started = await startController(
      {
        ...controllerCommandDefaults(),
        controller: controllerConfig,
        kubeconfig: file,
        // One local server: no need to throttle the controller's requests.
        kubeApiQps: 1000,
        kubeApiBurst: 2000,
        leaderElection: { ...controllerCommandDefaults().leaderElection, enabled: false },
        metricsBindAddress: options.metricsBindAddress ?? null,
        debugBindAddress: options.debugBindAddress ?? null,
        dashboardBindAddress: options.dashboardAddress ?? null,
        // The history lives beside the objects, so it survives restarts as they do.
        dataDir: dataDir?.dir ?? null,
      },
      {
        metricsAddressFallback: options.metricsBindFallback ?? false,
        // Sync results are printed as lines below; the controller's own log only for problems.
        log: createLogger({
          write: (line) => {
            if (!line.includes('"level":"info"')) log(`${clockTime()} controller: ${line}`);
          },
        }),
        onSync: (report) => {
          if (report.result === null) {
            if (report.error) log(`${clockTime()} hpa ${report.key}: error: ${report.error}`);
            return;
          }
          const sync = { ...report, result: report.result };
          for (const line of describeSync(sync, previousWarnings)) log(line);
        },
        // The same bearer token as the API (over plain HTTP, where the API has none: a random one).
        dashboardToken: token ?? randomBytes(32).toString("base64url"),
        // The dashboard charts the load its cluster model offers each HPA's target.
        loadOf: (hpa) => {
          const ref = hpa.spec.scaleTargetRef;
          const workload = cluster.workload(
            hpa.metadata.namespace ?? "default",
            ref.kind,
            ref.name,
          );
          return workload ? cluster.metrics.demandRps(workload, cluster.now) : null;
        },
        // The what-if replays CPU utilization through the same usage model the pods follow.
        responseOf: (hpa) => {
          const ref = hpa.spec.scaleTargetRef;
          const workload = cluster.workload(
            hpa.metadata.namespace ?? "default",
            ref.kind,
            ref.name,
          );
          const request = workload?.owners
            .map((owner) => owner.template.cpuRequestMilli)
            .findLast((milli) => milli !== null);
          if (!workload || request === undefined || request === null || request <= 0) return null;
          const usage = workload.usage;
          return {
            cpuUtilization: (loadRps, replicas) =>
              (cpuModelUniform(usage, servedPerPod(loadRps, replicas, usage.capacityRps)) * 100) /
              request,
          };
        },
      },
    );
    if (!started.ok) {
      await close();
      // An error naming the flag at fault stands alone; any other says where it came from.
      const error = started.error.startsWith("--") ? started.error : `controller: ${started.error}`;
      return { ok: false, error };
    }
    controller = started.value;
    // `horizon explain --kubeconfig` finds this controller in the kubeconfig: `up` elects no
    // leader, so there is no Lease to publish the address on.
    const debugUrl = controller.server?.debugUrl;
    if (debugUrl) {
      kubeconfig = renderKubeconfig({ ...kubeconfigOptions, controllerDebugAddress: debugUrl });
      try {
        if (kubeconfigPath !== null) await writeKubeconfig(kubeconfigPath, kubeconfig);
      } catch (error) {
        await close();
        return { ok: false, error: `cannot write the kubeconfig: ${(error as Error).message}` };
      }
    }
  }
  return {
    ok: true,
    value: {
      url,
      port: server.port,
      token,
      kubeconfig,
      kubeconfigPath,
      caCert,
      cluster,
      driver,
      controllerConfig,
      controller,
      dataDir,
      startResourceVersion,
      startObjectCount,
      dashboard: controller?.dashboard
        ? { url: controller.dashboard.url, loginUrl: controller.dashboard.loginUrl() }
        : null,
      prometheus: stack,
      podNetwork,
      scenarioTraffic,
      close,
    },
  };
}

/** --pod-cidr and --service-cidr: loopback ranges that do not overlap. */
export function parseRanges(options: StartUpOptions): Parsed<{ podCidr: Cidr; serviceCidr: Cidr }> {
  const pods = parseLoopbackCidr(options.podCidr ?? DEFAULT_POD_CIDR, "--pod-cidr");
  if (!pods.ok) return pods;
  const services = parseLoopbackCidr(options.serviceCidr ?? DEFAULT_SERVICE_CIDR, "--service-cidr");
  if (!services.ok) return services;
  if (cidrsOverlap(pods.cidr, services.cidr)) {
    return {
      ok: false,
      error: `--service-cidr: ${services.cidr.text} overlaps --pod-cidr ${pods.cidr.text}`,
    };
  }
  return { ok: true, value: { podCidr: pods.cidr, serviceCidr: services.cidr } };
}

function clockTime(): string {
  return new Date().toISOString().slice(11, 19);
}

/**
 * One line per event of a sync, except warnings the HPA's previous sync also had: a failing
 * HPA repeats them every period (upstream's event recorder aggregates them into a count).
 */
export function describeSync(
  report: SyncReport,
  previousWarnings: Map<string, Set<string>>,
  time: string = clockTime(),
): string[] {
  const lines: string[] = [];
  const before = previousWarnings.get(report.key) ?? new Set<string>();
  const now = new Set<string>();
  for (const event of report.result.events) {
    const text = `${event.type} ${event.reason}: ${event.message}`;
    if (event.type === "Warning") {
      now.add(text);
      if (before.has(text)) continue;
    }
    lines.push(`${time} hpa ${report.key}: ${text}`);
  }
  previousWarnings.set(report.key, now);
  return lines;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };
