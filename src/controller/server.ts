// The controller's HTTP endpoints: /metrics (Prometheus text), /healthz and /readyz (in the
// Kubernetes health-check format: "ok", or one `[+]name ok` / `[-]name failed` line per check),
// and /debug/decisions (recent decision traces as JSON). All read-only (GET/HEAD, else 405).
// /debug/* is only served on a loopback listener unless the operator explicitly allows
// another address: traces name workloads, selectors and metric values.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { HorizontalPodAutoscaler } from "../api/types.js";
import {
  type DecisionJsonHolder,
  type DecisionRecord,
  type DecisionStore,
  decisionRecordOf,
  type LeaderInfo,
} from "./decisions.js";
import { type Logger, logSync, silentLogger } from "./log.js";
import type { ControllerMetrics, SyncObservation } from "./metrics.js";

export interface BindAddress {
  host: string;
  port: number;
}

/** One named check: true / "" when healthy, else false or the reason. */
export type HealthCheck = () => boolean | string;
export type HealthChecks = Record<string, HealthCheck>;

/**
 * The Lease annotation where the leader publishes its /debug address, so `horizon explain
 * --kubeconfig` can find it (value: a base URL such as http://10.0.0.7:8085).
 */
export const DEBUG_ADDRESS_ANNOTATION = "horizon.dev/debug-address";

/**
 * The debug URL the leader publishes on its Lease: a wildcard bind address (0.0.0.0, ::) is
 * replaced by the pod's IP, which other pods and port-forwarding can reach.
 */
export function advertisedDebugUrl(debugUrl: string, podIp?: string): string {
  const url = new URL(debugUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if ((host === "0.0.0.0" || host === "::") && podIp) {
    url.hostname = podIp.includes(":") ? `[${podIp}]` : podIp;
  }
  return url.origin;
}

export interface EndpointSet {
  metrics: boolean;
  health: boolean;
  debug: boolean;
}

export interface ObservabilityHandlerOptions {
  endpoints: EndpointSet;
  metrics: ControllerMetrics;
  decisions: DecisionStore;
  /** Checks of /readyz (default none: ready). */
  readiness?: HealthChecks;
  /** Checks of /healthz (default none: alive as long as it answers). */
  liveness?: HealthChecks;
  /** Whether this replica leads, for /debug/decisions (absent without leader election). */
  leader?: () => LeaderInfo;
  log?: Logger;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType: string,
  head: boolean,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    ...headers,
  });
  res.end(head ? undefined : body);
}

const TEXT = "text/plain; charset=utf-8";

/** What upstream's healthz installs when no check is given: it passes while the server answers. */
const PING: HealthChecks = { ping: () => true };

/**
 * Kubernetes' healthz format (k8s.io/apiserver/pkg/server/healthz): "ok", or with ?verbose (or
 * on failure) one line per check, then the unmatched exclusions and the verdict.
 */
export function healthBody(
  kind: "healthz" | "readyz",
  checks: HealthChecks,
  verbose: boolean,
  exclude: Set<string>,
): { status: number; body: string } {
  const lines: string[] = [];
  let failed = false;
  const unmatched = new Set(exclude);
  const installed = Object.keys(checks).length === 0 ? PING : checks;
  for (const [name, check] of Object.entries(installed)) {
    if (exclude.has(name)) {
      unmatched.delete(name);
      lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    let answer: boolean | string;
    try {
      answer = check();
    } catch (error) {
      answer = error instanceof Error ? error.message : String(error);
    }
    const ok = answer === true || answer === "";
    if (ok) lines.push(`[+]${name} ok`);
    else {
      failed = true;
      // Upstream withholds failure reasons from unauthenticated callers; these are local.
      lines.push(`[-]${name} failed: ${answer === false ? "reason withheld" : answer}`);
    }
  }
  if (unmatched.size > 0) {
    const names = [...unmatched].sort().map((n) => `"${n}"`);
    lines.push(`warn: some health checks cannot be excluded: no matches for ${names.join(",")}`);
  }
  if (failed) return { status: 500, body: `${lines.join("\n")}\n${kind} check failed\n` };
  if (!verbose) return { status: 200, body: "ok" };
  return { status: 200, body: `${lines.join("\n")}\n${kind} check passed\n` };
}

export function createObservabilityHandler(options: ObservabilityHandlerOptions): Handler {
  const log = options.log ?? silentLogger;
  return (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const route = routeOf(path, options.endpoints);
    if (route === null) {
      send(res, 404, "404 page not found\n", TEXT, req.method === "HEAD");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(res, 405, "405 method not allowed\n", TEXT, false, { Allow: "GET, HEAD" });
      return;
    }
    const head = req.method === "HEAD";
    if (route === "metrics") {
      options.metrics.exposition().then(
        (text) => send(res, 200, text, options.metrics.contentType, head),
        (error: unknown) => {
          log.error("Collecting metrics failed", error);
          send(res, 500, "collecting metrics failed\n", TEXT, head);
        },
      );
      return;
    }
    if (route === "healthz" || route === "readyz") {
      const checks = (route === "healthz" ? options.liveness : options.readiness) ?? {};
      const exclude = new Set(url.searchParams.getAll("exclude"));
      const answer = healthBody(route, checks, url.searchParams.has("verbose"), exclude);
      send(res, answer.status, answer.body, TEXT, head);
      return;
    }
    // /debug/decisions
    const namespace = url.searchParams.get("namespace");
    const name = url.searchParams.get("name");
    const limitText = url.searchParams.get("limit");
    const limit = limitText === null ? undefined : Number(limitText);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      send(res, 400, `limit must be a positive integer, got "${limitText}"\n`, TEXT, head);
      return;
    }
    const filter: { namespace?: string; name?: string; limit?: number } = {};
    // A name alone is looked up in "default", as kubectl does without -n.
    if (namespace !== null && namespace !== "") filter.namespace = namespace;
    else if (name !== null && name !== "") filter.namespace = "default";
    if (name !== null && name !== "") filter.name = name;
    if (limit !== undefined) filter.limit = limit;
    const body = `${options.decisions.documentJson(filter, options.leader?.())}\n`;
    send(res, 200, body, "application/json", head);
  };
}

function routeOf(
  path: string,
  endpoints: EndpointSet,
): "metrics" | "healthz" | "readyz" | "decisions" | null {
  if (endpoints.metrics && path === "/metrics") return "metrics";
  if (endpoints.health && path === "/healthz") return "healthz";
  if (endpoints.health && path === "/readyz") return "readyz";
  if (endpoints.debug && path === "/debug/decisions") return "decisions";
  return null;
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

export interface ObservabilityServerOptions extends Omit<ObservabilityHandlerOptions, "endpoints"> {
  /** --metrics-bind-address: /metrics, /healthz, /readyz (null: not served). */
  metricsAddress: BindAddress | null;
  /**
   * --debug-bind-address: /debug/decisions (null: not served). The same address as
   * `metricsAddress` shares its listener.
   */
  debugAddress: BindAddress | null;
  /**
   * Serve /debug on a non-loopback address. Only when the operator asked for it (an explicit
   * --debug-bind-address); otherwise such an address is refused.
   */
  allowNonLoopbackDebug?: boolean;
  /**
   * When the metrics address's port is in use, serve on a free port of the same host instead
   * (`horizon up`'s default address, which several processes may want at once).
   */
  metricsAddressFallback?: boolean;
}

export interface RunningObservabilityServer {
  /** Base URLs as bound (port 0 resolved), e.g. http://127.0.0.1:8085. */
  metricsUrl: string | null;
  debugUrl: string | null;
  close(): Promise<void>;
}

function urlOf(server: Server, host: string): string {
  const port = (server.address() as AddressInfo).port;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function listen(handler: Handler, address: BindAddress): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(handler);
    server.keepAliveTimeout = 5_000;
    server.once("error", reject);
    server.listen(address.port, address.host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/** A listener that could not start, with the flag of its address. */
export class ListenError extends Error {
  constructor(
    readonly flag: "--metrics-bind-address" | "--debug-bind-address",
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = "ListenError";
  }
}

/**
 * Starts one listener, or two when the debug address differs from the metrics address. A
 * failure is a ListenError naming the flag of the address at fault.
 */
export async function startObservabilityServer(
  options: ObservabilityServerOptions,
): Promise<RunningObservabilityServer> {
  const { metricsAddress, debugAddress } = options;
  if (debugAddress && !isLoopbackHost(debugAddress.host) && !options.allowNonLoopbackDebug) {
    throw new ListenError(
      "--debug-bind-address",
      `refusing to serve /debug on ${debugAddress.host}:${debugAddress.port}: not a loopback address (set --debug-bind-address explicitly to allow it)`,
    );
  }
  const shared =
    metricsAddress !== null &&
    debugAddress !== null &&
    metricsAddress.host === debugAddress.host &&
    metricsAddress.port === debugAddress.port;
  const servers: Server[] = [];
  const closeAll = () => Promise.all(servers.map(closeServer)).then(() => undefined);
  const handlerFor = (endpoints: EndpointSet) =>
    createObservabilityHandler({ ...options, endpoints });
  let metricsUrl: string | null = null;
  let debugUrl: string | null = null;
  try {
    if (metricsAddress) {
      const handler = handlerFor({ metrics: true, health: true, debug: shared });
      const server = await listen(handler, metricsAddress)
        .catch((error: unknown) => {
          const inUse = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
          if (!inUse || !options.metricsAddressFallback || metricsAddress.port === 0) throw error;
          return listen(handler, { host: metricsAddress.host, port: 0 });
        })
        .catch((error: unknown) => {
          throw new ListenError("--metrics-bind-address", error);
        });
      servers.push(server);
      metricsUrl = urlOf(server, metricsAddress.host);
      if (shared) debugUrl = metricsUrl;
    }
    if (debugAddress && !shared) {
      const server = await listen(
        handlerFor({ metrics: false, health: false, debug: true }),
        debugAddress,
      ).catch((error: unknown) => {
        throw new ListenError("--debug-bind-address", error);
      });
      servers.push(server);
      debugUrl = urlOf(server, debugAddress.host);
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  return { metricsUrl, debugUrl, close: closeAll };
}

/**
 * The readiness of a controller replica: not while shutting down; the leader (or a replica
 * without leader election) once its informers have synced; a standby while its elector is
 * healthy (it reaches the API server and watches the lease), so both replicas of the
 * Deployment count as available and the standby is ready to take over.
 */
export function controllerReadiness(state: {
  informersSynced: () => boolean;
  /** Absent without --leader-elect. */
  leaderElection?: () => { leading: boolean; healthy: boolean };
  shuttingDown?: () => boolean;
}): HealthChecks {
  const checks: HealthChecks = {
    shutdown: () => (state.shuttingDown?.() ? "shutting down" : true),
  };
  const election = state.leaderElection;
  if (election) {
    checks["leader-election"] = () => (election().healthy ? true : "cannot reach the lease");
    checks["informer-sync"] = () => {
      if (!election().leading) return true;
      return state.informersSynced() ? true : "informers not synced";
    };
  } else {
    checks["informer-sync"] = () => (state.informersSynced() ? true : "informers not synced");
  }
  return checks;
}

/**
 * The runtime's onSync hook: records a sync into the metrics, the decision store and the log.
 * `onDecision` (the dashboard's history) gets the sync's decision record with its JSON, made
 * once for both, and may return what holds that JSON from then on: the store reads it there.
 */
export function syncObserver(parts: {
  metrics?: ControllerMetrics;
  decisions?: DecisionStore;
  log?: Logger;
  onDecision?: (
    observation: SyncObservation,
    record: DecisionRecord,
    json: string,
  ) => DecisionJsonHolder | undefined;
}): (observation: SyncObservation) => void {
  return (observation) => {
    parts.metrics?.recordSync(observation);
    if ((parts.decisions || parts.onDecision) && observation.result) {
      const record = decisionRecordOf(observation.result, {
        statusError: observation.statusError ?? null,
        durationMs: observation.durationMs,
      });
      const json = JSON.stringify(record);
      const held = parts.onDecision?.(observation, record, json);
      parts.decisions?.record(record, held ?? json);
    }
    if (parts.log) logSync(parts.log, observation);
  };
}

/** An HPA was deleted: drop what is kept about it. */
export function forgetHpa(
  parts: { metrics?: ControllerMetrics; decisions?: DecisionStore },
  hpa: Pick<HorizontalPodAutoscaler, "metadata">,
): void {
  const namespace = hpa.metadata.namespace ?? "default";
  const name = hpa.metadata.name ?? "";
  parts.metrics?.forget(namespace, name);
  parts.decisions?.forget(namespace, name);
}
